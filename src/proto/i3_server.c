/* iperf3 tests on the shared server: the control state machine of each test (parameters,
 * stream setup, running, results exchange). The server core hands us connections whose first
 * 37 bytes are an iperf3 cookie, and 4-byte UDP hellos. Never prints. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth/i3auth.h"
#include "core/clock.h"
#include "core/run.h"
#include "linkperf/engine.h"
#include "net/sock.h"
#include "proto/ctrl.h"
#include "proto/i3_common.h"
#include "proto/i3json.h"
#include "proto/server.h"
#include "wire/iperf3.h"

#define LP_SRV_STEP_TIMEOUT_MS 10000u
#define LP_SRV_BYE_TIMEOUT_MS 5000u
#define LP_SRV_GRACE_S 40u
#define LP_SRV_CLIENT_RESULTS_MAX (1u << 20)
#define LP_SRV_TAIL_STEP_NS (5ull * LP_NS_PER_MS)   /* after TEST_END, receivers read on while */
#define LP_SRV_TAIL_MAX_NS (200ull * LP_NS_PER_MS)  /* bytes keep arriving, this long at most */

enum test_phase { S_PARAMS, S_UDP_WAIT, S_STREAMS, S_RUNNING, S_STOPPING, S_RESULTS, S_BYE, S_DONE };

struct stest {
    struct srv_test base;      /* first: the server's list holds it */
    char cookie[LP_I3_COOKIE_SIZE]; /* the client's: its data connections send it first */
    struct lp_ctrl ctrl;
    bool ctrl_open;
    enum test_phase phase;
    unsigned expected;
    struct lp_timer step_timer, rcv_timer, grace_timer, tail_timer;
    struct lp_timer max_timer;   /* the default maximum duration, for tests without a time */
    bool receives;               /* some stream of ours receives (the receive idle rule) */
    uint64_t tx_seen, tx_moved_ns; /* TCP senders' bytes at the last check, and when they moved */
    uint64_t tail_bytes, tail_deadline_ns;
    struct lp_peer_results peer;
    unsigned peer_version;     /* the client's client_version (lp_i3_version_parse), 0 unknown */
    struct stest *udp_next;    /* queue of UDP tests waiting for their turn to set up */
};

static void test_finish(struct stest *t);
static void test_fail(struct stest *t, int code, bool tell_peer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void start_next_udp_setup(struct lp_server *s);

#define DBG(srv, id, ...) SRV_DBG(srv, id, __VA_ARGS__)

static void send_state(struct stest *t, int8_t st)
{
    DBG(t->base.srv, t->base.run.id, "send state %d (%s) to %s", st, lp_i3_state_name(st), t->base.run.ctrl_peer.host);
    lp_ctrl_send_state(&t->ctrl, st);
}

/* code as the newest iperf3 numbers it; the client's version picks what it is sent as. */
static void send_server_error(struct stest *t, int code)
{
    uint8_t b[LP_I3_SERVER_ERROR_LEN];
    lp_i3_server_error_put(b, lp_i3_server_error_for(code, t->peer_version));
    lp_ctrl_send(&t->ctrl, b, sizeof(b));
}

/* ---- tests ---- */

static void destroy(struct srv_test *base)
{
    struct stest *t = (struct stest *)(void *)base;
    if (t->ctrl_open)
        lp_ctrl_close(&t->ctrl);
    lp_timer_cancel(&base->srv->eng.loop, &t->step_timer);
    lp_timer_cancel(&base->srv->eng.loop, &t->rcv_timer);
    lp_timer_cancel(&base->srv->eng.loop, &t->grace_timer);
    lp_timer_cancel(&base->srv->eng.loop, &t->max_timer);
    lp_timer_cancel(&base->srv->eng.loop, &t->tail_timer);
    lp_run_release(&base->run);
    lp_peer_results_release(&t->peer);
    free(t);
}

static void unlink_udp(struct stest *t)
{
    struct lp_server *s = t->base.srv;
    if (s->i3.udp_setup == &t->base) {
        s->i3.udp_setup = NULL;
        start_next_udp_setup(s);
    }
    struct stest *prev = NULL;
    for (struct stest *q = (struct stest *)(void *)s->i3.udp_queue_head; q; prev = q, q = q->udp_next) {
        if (q != t)
            continue;
        if (prev)
            prev->udp_next = q->udp_next;
        else
            s->i3.udp_queue_head = q->udp_next ? &q->udp_next->base : NULL;
        if (s->i3.udp_queue_tail == &t->base)
            s->i3.udp_queue_tail = prev ? &prev->base : NULL;
        break;
    }
}

/* Ends the test once no worker holds any of its streams. */
static void test_finish(struct stest *t)
{
    struct lp_server *s = t->base.srv;
    if (t->base.unlinked)
        return;
    if (!t->base.finishing) {
        t->base.finishing = true;
        t->phase = S_DONE;
        lp_timer_cancel(&s->eng.loop, &t->step_timer);
        lp_timer_cancel(&s->eng.loop, &t->rcv_timer);
        lp_timer_cancel(&s->eng.loop, &t->grace_timer);
        lp_timer_cancel(&s->eng.loop, &t->max_timer);
        lp_timer_cancel(&s->eng.loop, &t->tail_timer);
        lp_run_detach_all(&t->base.run);
        unlink_udp(t);
    }
    if (!lp_run_all_settled(&t->base.run))
        return;
    if (t->ctrl_open) {
        lp_ctrl_close(&t->ctrl);
        t->ctrl_open = false;
    }
    srv_test_unlink(&t->base);
}

static void test_fail(struct stest *t, int code, bool tell_peer, const char *fmt, ...)
{
    if (t->base.finishing)
        return;
    va_list ap;
    va_start(ap, fmt);
    lp_engine_verror(&t->base.srv->eng, LP_ROLE_SERVER, t->base.run.id, code, true, fmt, ap);
    va_end(ap);
    lp_run_report_partial(&t->base.run);
    if (tell_peer && t->ctrl_open && code > 0)
        send_server_error(t, code);
    test_finish(t);
}

static void arm_step(struct stest *t, unsigned ms)
{
    lp_timer_arm(&t->base.srv->eng.loop, &t->step_timer, lp_now_ns() + (uint64_t)ms * LP_NS_PER_MS);
}

static void on_step_timeout(struct lp_timer *tm)
{
    struct stest *t = lp_container_of(tm, struct stest, step_timer);
    if (t->phase == S_BYE) {
        test_finish(t);
        return;
    }
    test_fail(t, 0, false, "the client did not answer in time (phase %d); test abandoned", (int)t->phase);
}

static void on_grace(struct lp_timer *tm)
{
    struct stest *t = lp_container_of(tm, struct stest, grace_timer);
    test_fail(t, 160, true, "the test ran %u s past its duration; ended by the server", LP_SRV_GRACE_S);
}

/* Bytes our TCP senders have handed to the kernel; *any: there is one. UDP sends never
 * block, so they say nothing about the client. */
static uint64_t tcp_tx_bytes(const struct stest *t, bool *any)
{
    uint64_t sum = 0;
    *any = false;
    for (unsigned i = 0; i < t->base.run.nstreams; i++) {
        const struct lp_run_stream *rs = &t->base.run.streams[i];
        if (!rs->attached || !rs->ds || rs->ds->cfg.kind != LP_STREAM_TCP_SEND)
            continue;
        struct lp_stream_counters c;
        lp_stream_read(rs->ds, &c);
        sum += c.bytes;
        *any = true;
    }
    return sum;
}

static void on_max_duration(struct lp_timer *tm)
{
    struct stest *t = lp_container_of(tm, struct stest, max_timer);
    /* iperf3's words for a server that stops a test: its client prints "the server has
     * terminated". */
    if (t->ctrl_open)
        lp_ctrl_send_state(&t->ctrl, LP_I3_SERVER_TERMINATE);
    test_fail(t, 0, false, "test from %s ended after %u s: the server's default maximum duration "
              "(--server-max-duration sets another)", t->base.run.ctrl_peer.host,
              t->base.srv->default_max_duration_s);
}

static void on_rcv_check(struct lp_timer *tm)
{
    struct stest *t = lp_container_of(tm, struct stest, rcv_timer);
    uint64_t limit = (uint64_t)t->base.run.spec.rcv_timeout_ms * LP_NS_PER_MS;
    if (t->receives && lp_run_rx_idle_ns(&t->base.run) > limit) {
        test_fail(t, LP_I3E_NOMSG, true, "idle timeout for receiving data");
        return;
    }
    /* The idle rule for senders: a client that stopped reading (SIGSTOP, a hung host)
     * leaves our TCP sends blocked on a full window, and a -t 0 test would hold its slot
     * for ever. */
    bool any;
    uint64_t tx = tcp_tx_bytes(t, &any), now = lp_now_ns();
    if (!any || tx != t->tx_seen) {
        t->tx_seen = tx;
        t->tx_moved_ns = now;
    } else if (now - t->tx_moved_ns > limit) {
        test_fail(t, LP_I3E_NOMSG, true, "idle timeout: the client read nothing for %.0f s",
                  (double)limit / 1e9);
        return;
    }
    lp_timer_arm(&t->base.srv->eng.loop, &t->rcv_timer, lp_now_ns() + LP_NS_PER_S);
}

static void start_running(struct stest *t)
{
    struct lp_server *s = t->base.srv;
    if (lp_run_finalize_streams(&t->base.run, lp_i3_stream_id) < 0) {
        test_fail(t, 0, false, "cannot set up streams: out of memory");
        return;
    }
    lp_run_emit_start(&t->base.run);
    send_state(t, LP_I3_TEST_START);
    send_state(t, LP_I3_TEST_RUNNING);
    lp_run_begin(&t->base.run);
    t->phase = S_RUNNING;
    lp_timer_cancel(&s->eng.loop, &t->step_timer);
    if (t->base.run.end_deadline_ns)
        lp_timer_arm(&s->eng.loop, &t->grace_timer, t->base.run.end_deadline_ns + LP_SRV_GRACE_S * LP_NS_PER_S);
    else if (!s->spec.server_max_duration_s)
        lp_timer_arm(&s->eng.loop, &t->max_timer,
                     lp_now_ns() + (uint64_t)s->default_max_duration_s * LP_NS_PER_S);
    for (unsigned i = 0; i < t->base.run.nstreams; i++)
        t->receives |= !t->base.run.streams[i].conn.sid.sender;
    t->tx_moved_ns = lp_now_ns();
    if (t->base.run.spec.rcv_timeout_ms)
        lp_timer_arm(&s->eng.loop, &t->rcv_timer, lp_now_ns() + LP_NS_PER_S);
}

static void streams_complete(struct stest *t)
{
    if (t->base.run.nstreams < t->expected)
        return;
    if (t->base.srv->i3.udp_setup == &t->base) {
        t->base.srv->i3.udp_setup = NULL;
        start_next_udp_setup(t->base.srv);
    }
    start_running(t);
}

static void send_create_streams(struct stest *t)
{
    t->phase = S_STREAMS;
    send_state(t, LP_I3_CREATE_STREAMS);
    arm_step(t, LP_SRV_STEP_TIMEOUT_MS);
}

/* UDP stream hellos carry no cookie, so only one UDP test at a time may be creating
 * streams; the others wait here (setup takes milliseconds). */
static void start_next_udp_setup(struct lp_server *s)
{
    while (!s->i3.udp_setup && s->i3.udp_queue_head) {
        struct stest *t = (struct stest *)(void *)s->i3.udp_queue_head;
        s->i3.udp_queue_head = t->udp_next ? &t->udp_next->base : NULL;
        if (!s->i3.udp_queue_head)
            s->i3.udp_queue_tail = NULL;
        t->udp_next = NULL;
        if (t->base.finishing)
            continue;
        s->i3.udp_setup = &t->base;
        send_create_streams(t);
    }
}

static void queue_udp_setup(struct stest *t)
{
    struct lp_server *s = t->base.srv;
    t->phase = S_UDP_WAIT;
    arm_step(t, LP_SRV_STEP_TIMEOUT_MS);
    if (s->i3.udp_queue_tail)
        ((struct stest *)(void *)s->i3.udp_queue_tail)->udp_next = t;
    else
        s->i3.udp_queue_head = &t->base;
    s->i3.udp_queue_tail = &t->base;
    start_next_udp_setup(s);
}

/* iperf3's authentication, before anything else is set up (as iperf3 does it): a refusal
 * is SERVER_ERROR 142 with errno 0, which stock clients print as "test authorization failed"
 * (3.21 and later: "SERVER ERROR - test authorization failed" first); why, only the server's
 * output says. */
static bool authorized(struct stest *t, const char *token)
{
    char user[LP_I3AUTH_NAME_MAX + 1], why[200];
    if (lp_i3auth_server_check(t->base.srv->auth, token, strlen(token), (int64_t)time(NULL), user,
                               why, sizeof(why))) {
        DBG(t->base.srv, t->base.run.id, "authentication succeeded for user '%s'", user);
        return true;
    }
    test_fail(t, LP_I3E_AUTHTEST, true, "test from %s refused: authentication failed%s%s%s: %s",
              t->base.run.ctrl_peer.host, user[0] ? " for user '" : "", user, user[0] ? "'" : "", why);
    return false;
}

static bool handle_params(struct stest *t)
{
    const char *body;
    size_t len;
    int rc = lp_ctrl_frame(&t->ctrl, LP_I3_PARAMS_MAX, &body, &len);
    if (rc < 0) {
        test_fail(t, LP_I3E_RECVPARAMS, true, "parameters from %s rejected: bad length", t->base.run.ctrl_peer.host);
        return false;
    }
    if (rc == 0)
        return false;
    char err[200], token[LP_I3AUTH_TOKEN_MAX];
    DBG(t->base.srv, t->base.run.id, "received parameters (%zu bytes): %.*s", len, (int)len, body);
    struct lp_spec spec = t->base.srv->spec;
    spec.role = LP_ROLE_SERVER;
    spec.title[0] = spec.extra_data[0] = spec.congestion[0] = '\0';
    spec.report.get_server_output = false;
    t->peer_version = lp_i3_params_client_version(body, len); /* before any refusal */
    int code = 0;
    rc = lp_i3_params_decode(body, len, &spec, token, sizeof(token), &code, err, sizeof(err));
    lp_ctrl_consume_frame(&t->ctrl, len);
    if (rc < 0) {
        test_fail(t, code, true, "parameters from %s rejected: %s", t->base.run.ctrl_peer.host, err);
        return false;
    }
    if (t->base.srv->auth && !authorized(t, token))
        return false;
    unsigned maxd = t->base.srv->spec.server_max_duration_s;
    unsigned dflt = t->base.srv->default_max_duration_s;
    if (maxd && (spec.duration_s == 0 || spec.duration_s + spec.omit_s > maxd)) {
        test_fail(t, LP_I3E_MAXDURATION, true, "test from %s rejected: %s exceeds --server-max-duration %u s",
                  t->base.run.ctrl_peer.host, spec.duration_s == 0 ? "an untimed test" : "its duration", maxd);
        return false;
    }
    /* The default limit refuses only what is sure to pass it; an untimed test (-t 0, or -n
     * / -k amounts) is ended when it reaches it (max_timer). */
    if (!maxd && spec.duration_s && (uint64_t)spec.duration_s + spec.omit_s > dflt) {
        test_fail(t, LP_I3E_MAXDURATION, true, "test from %s rejected: its duration exceeds the "
                  "server's default maximum of %u s (--server-max-duration raises it)",
                  t->base.run.ctrl_peer.host, dflt);
        return false;
    }
    t->base.run.spec = spec;
    t->expected = lp_run_expected(&spec);
    if (spec.proto == LP_PROTO_UDP)
        queue_udp_setup(t);
    else
        send_create_streams(t);
    return true;
}

static bool tcp_receiver(const struct lp_run_stream *rs)
{
    return rs->attached && rs->ds && rs->ds->cfg.kind == LP_STREAM_TCP_RECV;
}

/* Bytes the attached TCP receiving streams have counted; *any: there is one. */
static uint64_t tcp_rx_bytes(struct stest *t, bool *any)
{
    uint64_t sum = 0;
    *any = false;
    for (unsigned i = 0; i < t->base.run.nstreams; i++) {
        struct lp_run_stream *rs = &t->base.run.streams[i];
        if (!tcp_receiver(rs))
            continue;
        struct lp_stream_counters c;
        lp_stream_read(rs->ds, &c);
        sum += c.bytes;
        *any = true;
    }
    return sum;
}

static void maybe_exchange(struct stest *t);

static void on_tail(struct lp_timer *tm)
{
    struct stest *t = lp_container_of(tm, struct stest, tail_timer);
    bool any;
    uint64_t b = tcp_rx_bytes(t, &any);
    if (any && b != t->tail_bytes && lp_now_ns() < t->tail_deadline_ns) {
        t->tail_bytes = b;
        lp_timer_arm(&t->base.srv->eng.loop, &t->tail_timer, lp_now_ns() + LP_SRV_TAIL_STEP_NS);
        return;
    }
    lp_run_detach_all(&t->base.run);
    maybe_exchange(t);
}

/* TEST_END. Senders stop at once (the client stops reading). The client sends TEST_END
 * right after its last write, when the tail of a -n/-k test can still sit in its socket
 * buffer waiting for our window: TCP receivers read on while bytes keep arriving (5 ms
 * steps, 200 ms at most), so the count is exact rather than short by that tail (seen ~1 in
 * 200 stock `iperf3 -n 2M` tests: 106 to 196767 bytes missing). */
static void test_stop(struct stest *t)
{
    t->phase = S_STOPPING;
    lp_timer_cancel(&t->base.srv->eng.loop, &t->rcv_timer);
    lp_timer_cancel(&t->base.srv->eng.loop, &t->grace_timer);
    for (unsigned i = 0; i < t->base.run.nstreams; i++) {
        struct lp_run_stream *rs = &t->base.run.streams[i];
        if (rs->attached && !tcp_receiver(rs))
            lp_stream_detach(rs->ds);
    }
    bool any;
    t->tail_bytes = tcp_rx_bytes(t, &any);
    if (!any)
        return;
    t->tail_deadline_ns = lp_now_ns() + LP_SRV_TAIL_MAX_NS;
    lp_timer_arm(&t->base.srv->eng.loop, &t->tail_timer, lp_now_ns() + LP_SRV_TAIL_STEP_NS);
}

static void maybe_exchange(struct stest *t)
{
    if (t->phase != S_STOPPING || !lp_run_all_settled(&t->base.run))
        return;
    lp_run_finish(&t->base.run);
    lp_run_close_streams(&t->base.run);
    t->phase = S_RESULTS;
    send_state(t, LP_I3_EXCHANGE_RESULTS);
    arm_step(t, LP_SRV_STEP_TIMEOUT_MS);
}

static bool handle_results(struct stest *t)
{
    struct lp_server *s = t->base.srv;
    const char *body;
    size_t len;
    int rc = lp_ctrl_frame(&t->ctrl, LP_SRV_CLIENT_RESULTS_MAX, &body, &len);
    if (rc < 0) {
        test_fail(t, 0, false, "results from %s rejected: bad length", t->base.run.ctrl_peer.host);
        return false;
    }
    if (rc == 0)
        return false;
    char err[200];
    if (lp_i3_results_decode(body, len, &t->peer, err, sizeof(err)) < 0) {
        test_fail(t, 0, false, "results from %s rejected: %s", t->base.run.ctrl_peer.host, err);
        return false;
    }
    DBG(s, t->base.run.id, "received results (%zu bytes): %.*s", len, (int)(len > 900 ? 900 : len), body);
    lp_ctrl_consume_frame(&t->ctrl, len);
    lp_run_emit_end(&t->base.run, &t->peer, false, NULL, NULL);

    struct lp_peer_results mine;
    lp_run_local_results(&t->base.run, &mine);
    char *output = NULL;
    if (t->base.run.spec.report.get_server_output && s->eng.sink.server_output) {
        int is_json = 0;
        output = s->eng.sink.server_output(t->base.run.id, &is_json, s->eng.sink.user);
        if (is_json)
            mine.server_output_json = output;
        else
            mine.server_output_text = output;
    }
    char *json = lp_i3_results_encode(&mine);
    free(output);
    if (!json) {
        test_fail(t, 0, false, "cannot encode results: out of memory");
        return false;
    }
    DBG(s, t->base.run.id, "send results (%zu bytes): %.900s", strlen(json), json);
    lp_ctrl_send_json(&t->ctrl, json);
    free(json);
    send_state(t, LP_I3_DISPLAY_RESULTS);
    t->phase = S_BYE;
    arm_step(t, LP_SRV_BYE_TIMEOUT_MS);
    return true;
}

/* A state byte from the client. Returns false when the test ended. */
static bool handle_state(struct stest *t, int8_t st)
{
    DBG(t->base.srv, t->base.run.id, "received state %d (%s) from %s", st, lp_i3_state_name(st), t->base.run.ctrl_peer.host);
    switch (st) {
    case LP_I3_TEST_START: /* iperf3 clients never send it; tolerated as iperf3 does */
        return true;
    case LP_I3_TEST_END:
        if (t->phase != S_RUNNING) {
            test_fail(t, 0, false, "client %s sent TEST_END before the test ran", t->base.run.ctrl_peer.host);
            return false;
        }
        test_stop(t);
        maybe_exchange(t);
        return true;
    case LP_I3_CLIENT_TERMINATE:
        test_fail(t, 0, false, "interrupt - the client has terminated");
        return false;
    case LP_I3_IPERF_DONE:
        if (t->phase == S_BYE) {
            test_finish(t);
            return false;
        }
        /* fall through */
    default:
        test_fail(t, 0, false, "received an unknown control message (%d) from %s", st, t->base.run.ctrl_peer.host);
        return false;
    }
}

static void on_ctrl(struct lp_ctrl *c)
{
    struct stest *t = c->owner;
    while (!t->base.finishing) {
        if (t->phase == S_PARAMS) {
            if (!handle_params(t))
                break;
            continue;
        }
        if (t->phase == S_RESULTS) {
            if (!handle_results(t))
                break;
            continue;
        }
        const uint8_t *p = lp_ctrl_peek(&t->ctrl, 1);
        if (!p)
            break;
        int8_t st = (int8_t)p[0];
        lp_ctrl_consume(&t->ctrl, 1);
        if (!handle_state(t, st))
            return;
    }
    if (!t->base.finishing && (c->eof || c->err)) {
        if (t->phase == S_BYE)
            test_finish(t);
        else
            test_fail(t, 0, false, "the client has unexpectedly closed the connection");
    }
}

static void on_stream(struct lp_run *r, struct lp_run_stream *rs, enum lp_stream_event ev)
{
    struct stest *t = r->owner;
    (void)rs;
    (void)ev;
    if (t->base.finishing) {
        test_finish(t);
        return;
    }
    if (t->phase == S_STOPPING)
        maybe_exchange(t);
    /* A stream that ends by itself while running (EOF, error, used-up budget) simply stops;
     * the client still decides when the test ends. */
}

static void interrupt(struct srv_test *base)
{
    struct stest *t = (struct stest *)(void *)base;
    if (t->ctrl_open)
        lp_ctrl_send_state(&t->ctrl, LP_I3_SERVER_TERMINATE);
    test_fail(t, 0, false, "interrupt - the server has terminated");
}

static struct stest *new_test(struct lp_server *s, int fd, const uint8_t cookie[LP_I3_COOKIE_SIZE],
                              const struct sockaddr_storage *peer)
{
    struct stest *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->base.interrupt = interrupt;
    t->base.destroy = destroy;
    lp_timer_init(&t->step_timer, on_step_timeout);
    lp_timer_init(&t->rcv_timer, on_rcv_check);
    lp_timer_init(&t->grace_timer, on_grace);
    lp_timer_init(&t->max_timer, on_max_duration);
    lp_timer_init(&t->tail_timer, on_tail);
    if (lp_ctrl_open(&t->ctrl, &s->eng.loop, fd, on_ctrl, t) < 0) {
        free(t);
        return NULL;
    }
    t->ctrl_open = true;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    srv_test_link(s, &t->base, LP_DIALECT_IPERF3, peer, LP_PROTO_TCP);
    t->base.run.on_event = on_stream;
    t->base.run.owner = t;
    memcpy(t->cookie, cookie, LP_I3_COOKIE_SIZE);
    t->base.run.cookie = t->cookie;
    t->phase = S_PARAMS;
    send_state(t, LP_I3_PARAM_EXCHANGE);
    arm_step(t, LP_SRV_STEP_TIMEOUT_MS);
    return t;
}

static struct stest *find_by_cookie(struct lp_server *s, const uint8_t cookie[LP_I3_COOKIE_SIZE])
{
    for (struct srv_test *b = s->tests; b; b = b->next) {
        struct stest *t = (struct stest *)(void *)b;
        if (b->dialect == LP_DIALECT_IPERF3 && !b->finishing &&
            memcmp(t->cookie, cookie, LP_I3_COOKIE_SIZE) == 0)
            return t;
    }
    return NULL;
}

/* ---- what the shared server hands us ---- */

void i3s_connection(struct lp_server *s, int fd, const uint8_t cookie[LP_I3_COOKIE_SIZE],
                    const struct sockaddr_storage *peer, uint64_t seq)
{
    struct lp_endpoint pe;
    lp_sock_endpoint(peer, &pe);
    struct stest *t = find_by_cookie(s, cookie);
    if (t) {
        bool ok = t->phase == S_STREAMS && t->base.run.spec.proto == LP_PROTO_TCP && t->base.run.nstreams < t->expected &&
                  lp_sock_same_host(peer, &t->base.peer_addr);
        if (!ok) {
            DBG(s, t->base.run.id, "data connection from %s port %u refused (test not expecting it)", pe.host,
                (unsigned)pe.port);
            srv_send_refusal(fd);
            close(fd);
            return;
        }
        DBG(s, t->base.run.id, "data connection %u of %u from %s port %u", t->base.run.nstreams + 1, t->expected, pe.host,
            (unsigned)pe.port);
        /* The client's -w, -M, -N, -C and -S apply to the server's end of the stream too. */
        const char *what = NULL;
        int err = lp_sock_apply_spec(fd, &t->base.run.spec, SOCK_STREAM, &what);
        if (err < 0) {
            close(fd);
            test_fail(t, 0, false, "cannot apply %s from %s to a data connection: %s", what, pe.host,
                      strerror(-err));
            return;
        }
        if (!lp_run_add_stream(&t->base.run, fd, seq)) {
            close(fd);
            test_fail(t, 0, false, "out of memory adding a stream");
            return;
        }
        streams_complete(t);
        return;
    }
    if (!srv_accepting(s)) {
        DBG(s, 0, "control connection from %s port %u refused: %s", pe.host, (unsigned)pe.port,
            s->stopping ? "stopping" : "test limit reached");
        srv_send_refusal(fd);
        close(fd);
        return;
    }
    if (!new_test(s, fd, cookie, peer))
        close(fd);
}

bool i3s_udp_hello(struct lp_server *s, const struct srv_listener *l, const struct sockaddr_storage *peer,
                   socklen_t plen)
{
    struct stest *t = (struct stest *)(void *)s->i3.udp_setup;
    /* Only a hello from the host of the test now setting up is a new stream; anything else is
     * stray data from an ended test or noise, and is dropped. */
    if (!t || t->phase != S_STREAMS || !lp_sock_same_host(peer, &t->base.peer_addr) ||
        t->base.run.nstreams >= t->expected)
        return false;
    const struct lp_spec *sp = &t->base.run.spec;
    int fd = srv_udp_flow_socket(l, peer, plen);
    const char *what = NULL;
    if (fd < 0 || lp_sock_apply_spec(fd, sp, SOCK_DGRAM, &what) < 0) {
        if (fd >= 0)
            close(fd);
        test_fail(t, 0, false, "cannot open a UDP stream for %s: %s", t->base.run.ctrl_peer.host,
                  what ? what : strerror(-fd));
        return true;
    }
    struct lp_endpoint pe;
    lp_sock_endpoint(peer, &pe);
    DBG(s, t->base.run.id, "UDP hello from %s port %u: stream %u of %u", pe.host, (unsigned)pe.port,
        t->base.run.nstreams + 1, t->expected);
    uint8_t reply[4];
    lp_i3_put_u32(reply, LP_I3_UDP_REPLY);
    if (send(fd, reply, 4, MSG_DONTWAIT) != 4 || !lp_run_add_stream(&t->base.run, fd, ++s->seq)) {
        close(fd);
        test_fail(t, 0, false, "cannot answer the UDP stream hello of %s", t->base.run.ctrl_peer.host);
        return true;
    }
    streams_complete(t);
    return true;
}

/* iperf3 server that runs many tests at once. One control loop owns the listeners, the
 * not-yet-classified connections and every test's control state machine; data streams run
 * on the workers. A misbehaving peer ends its own test only. Never prints. */
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
#include <unistd.h>

#include "core/clock.h"
#include "core/run.h"
#include "linkperf/engine.h"
#include "net/sock.h"
#include "proto/ctrl.h"
#include "proto/i3_common.h"
#include "proto/i3json.h"
#include "wire/iperf3.h"

#define LP_SRV_MAX_PENDING 256
#define LP_SRV_COOKIE_TIMEOUT_MS 10000u
#define LP_SRV_STEP_TIMEOUT_MS 10000u
#define LP_SRV_BYE_TIMEOUT_MS 5000u
#define LP_SRV_GRACE_S 40u
#define LP_SRV_DEFAULT_MAX_TESTS 64u
#define LP_SRV_CLIENT_RESULTS_MAX (1u << 20)

enum test_phase { S_PARAMS, S_UDP_WAIT, S_STREAMS, S_RUNNING, S_STOPPING, S_RESULTS, S_BYE, S_DONE };

struct lp_server;

/* An accepted TCP connection whose first 37 bytes (an iperf3 cookie) are still arriving. */
struct pending {
    struct lp_handler h;
    struct lp_server *srv;
    struct lp_timer timer;
    uint8_t buf[LP_I3_COOKIE_SIZE];
    size_t got;
    uint64_t seq;
    bool dead;
    struct pending *prev, *next;
};

struct stest {
    struct lp_server *srv;
    struct lp_run run;
    struct lp_ctrl ctrl;
    bool ctrl_open;
    struct sockaddr_storage peer_addr;
    enum test_phase phase;
    unsigned expected;
    struct lp_timer step_timer, rcv_timer, grace_timer;
    struct lp_i3_results peer;
    bool finishing;
    bool freed;
    struct stest *prev, *next;
    struct stest *udp_next;   /* queue of UDP tests waiting for their turn to set up */
};

struct lp_server {
    struct lp_engine eng;
    bool eng_ok;
    struct lp_spec spec;
    int tcp_fd, udp_fd;
    struct lp_handler tcp_h, udp_h;
    struct lp_addr udp_local;
    uint16_t port;
    unsigned next_id, ntests, npending, tests_done;
    uint64_t seq;
    struct pending *pendings;
    struct stest *tests;
    struct stest *udp_setup, *udp_queue_head, *udp_queue_tail;
    struct lp_timer idle_timer;
    atomic_bool stop_req;
    bool stopping;
    int result;
};

static void test_finish(struct stest *t);
static void test_fail(struct stest *t, int code, bool tell_peer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void start_next_udp_setup(struct lp_server *s);

#define DBG(srv, id, ...) lp_engine_debug(&(srv)->eng, LP_ROLE_SERVER, id, __VA_ARGS__)

static void send_state(struct stest *t, int8_t st)
{
    DBG(t->srv, t->run.id, "send state %d (%s) to %s", st, lp_i3_state_name(st), t->run.ctrl_peer.host);
    lp_ctrl_send_state(&t->ctrl, st);
}

/* ---- small helpers ---- */

static void emit_listening(struct lp_server *s)
{
    if (s->stopping)
        return;
    struct lp_record rec = {.kind = LP_REC_LISTENING, .role = LP_ROLE_SERVER, .test_id = 0};
    rec.u.listening.port = s->port;
    rec.u.listening.test_number = s->next_id + 1;
    lp_engine_emit(&s->eng, &rec);
}

static void arm_idle(struct lp_server *s)
{
    if (s->spec.idle_timeout_s)
        lp_timer_arm(&s->eng.loop, &s->idle_timer, lp_now_ns() + (uint64_t)s->spec.idle_timeout_s * LP_NS_PER_S);
}

static void send_refusal(int fd)
{
    uint8_t b = (uint8_t)LP_I3_ACCESS_DENIED;
    ssize_t w = send(fd, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w; /* best effort: the connection is closed either way */
}

static void send_server_error(struct stest *t, int code)
{
    uint8_t b[9];
    b[0] = (uint8_t)LP_I3_SERVER_ERROR;
    lp_i3_put_u32(b + 1, (uint32_t)code);
    lp_i3_put_u32(b + 5, 0);
    lp_ctrl_send(&t->ctrl, b, sizeof(b));
}

static void maybe_stop_loop(struct lp_server *s)
{
    if (s->stopping && s->ntests == 0)
        lp_loop_stop(&s->eng.loop);
    if (s->spec.one_off && s->tests_done > 0 && s->ntests == 0)
        lp_loop_stop(&s->eng.loop);
}

/* ---- tests ---- */

static void free_test(void *arg)
{
    struct stest *t = arg;
    lp_run_release(&t->run);
    lp_i3_results_release(&t->peer);
    free(t);
}

static void unlink_udp(struct stest *t)
{
    struct lp_server *s = t->srv;
    if (s->udp_setup == t) {
        s->udp_setup = NULL;
        start_next_udp_setup(s);
    }
    struct stest **pp = &s->udp_queue_head;
    struct stest *prev = NULL;
    while (*pp) {
        if (*pp == t) {
            *pp = t->udp_next;
            if (s->udp_queue_tail == t)
                s->udp_queue_tail = prev;
            break;
        }
        prev = *pp;
        pp = &(*pp)->udp_next;
    }
}

/* Ends the test once no worker holds any of its streams. */
static void test_finish(struct stest *t)
{
    struct lp_server *s = t->srv;
    if (t->freed)
        return;
    if (!t->finishing) {
        t->finishing = true;
        t->phase = S_DONE;
        lp_timer_cancel(&s->eng.loop, &t->step_timer);
        lp_timer_cancel(&s->eng.loop, &t->rcv_timer);
        lp_timer_cancel(&s->eng.loop, &t->grace_timer);
        lp_run_detach_all(&t->run);
        unlink_udp(t);
    }
    if (!lp_run_all_settled(&t->run))
        return;
    if (t->ctrl_open) {
        lp_ctrl_close(&t->ctrl);
        t->ctrl_open = false;
    }
    lp_timer_cancel(&s->eng.loop, &t->run.interval_timer);
    lp_timer_cancel(&s->eng.loop, &t->run.omit_timer);
    lp_run_emit_simple(&t->run, LP_REC_DONE);
    t->freed = true;
    if (t->prev)
        t->prev->next = t->next;
    else
        s->tests = t->next;
    if (t->next)
        t->next->prev = t->prev;
    s->ntests--;
    s->tests_done++;
    lp_loop_defer(&s->eng.loop, free_test, t);
    /* iperf3 prints its banner again when it is free; with tests running concurrently
     * that is when the last of them ends. */
    if (s->ntests == 0 && !(s->spec.one_off && s->tests_done > 0))
        emit_listening(s);
    arm_idle(s);
    maybe_stop_loop(s);
}

static void test_fail(struct stest *t, int code, bool tell_peer, const char *fmt, ...)
{
    if (t->finishing)
        return;
    va_list ap;
    va_start(ap, fmt);
    lp_engine_verror(&t->srv->eng, LP_ROLE_SERVER, t->run.id, code, true, fmt, ap);
    va_end(ap);
    lp_run_report_partial(&t->run);
    if (tell_peer && t->ctrl_open && code > 0)
        send_server_error(t, code);
    test_finish(t);
}

static void arm_step(struct stest *t, unsigned ms)
{
    lp_timer_arm(&t->srv->eng.loop, &t->step_timer, lp_now_ns() + (uint64_t)ms * LP_NS_PER_MS);
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

static void on_rcv_check(struct lp_timer *tm)
{
    struct stest *t = lp_container_of(tm, struct stest, rcv_timer);
    if (lp_run_rx_idle_ns(&t->run) > (uint64_t)t->run.spec.rcv_timeout_ms * LP_NS_PER_MS) {
        test_fail(t, LP_I3E_NOMSG, true, "idle timeout for receiving data");
        return;
    }
    lp_timer_arm(&t->srv->eng.loop, &t->rcv_timer, lp_now_ns() + LP_NS_PER_S);
}

static void start_running(struct stest *t)
{
    struct lp_server *s = t->srv;
    if (lp_run_finalize_streams(&t->run) < 0) {
        test_fail(t, 0, false, "cannot set up streams: out of memory");
        return;
    }
    lp_run_emit_start(&t->run);
    send_state(t, LP_I3_TEST_START);
    send_state(t, LP_I3_TEST_RUNNING);
    lp_run_begin(&t->run);
    t->phase = S_RUNNING;
    lp_timer_cancel(&s->eng.loop, &t->step_timer);
    if (t->run.end_deadline_ns)
        lp_timer_arm(&s->eng.loop, &t->grace_timer, t->run.end_deadline_ns + LP_SRV_GRACE_S * LP_NS_PER_S);
    bool receives = false;
    for (unsigned i = 0; i < t->run.nstreams; i++)
        receives |= !t->run.streams[i].conn.sid.sender;
    if (receives && t->run.spec.rcv_timeout_ms)
        lp_timer_arm(&s->eng.loop, &t->rcv_timer, lp_now_ns() + LP_NS_PER_S);
}

static void streams_complete(struct stest *t)
{
    if (t->run.nstreams < t->expected)
        return;
    if (t->srv->udp_setup == t) {
        t->srv->udp_setup = NULL;
        start_next_udp_setup(t->srv);
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
    while (!s->udp_setup && s->udp_queue_head) {
        struct stest *t = s->udp_queue_head;
        s->udp_queue_head = t->udp_next;
        if (!s->udp_queue_head)
            s->udp_queue_tail = NULL;
        t->udp_next = NULL;
        if (t->finishing)
            continue;
        s->udp_setup = t;
        send_create_streams(t);
    }
}

static void queue_udp_setup(struct stest *t)
{
    struct lp_server *s = t->srv;
    t->phase = S_UDP_WAIT;
    arm_step(t, LP_SRV_STEP_TIMEOUT_MS);
    if (s->udp_queue_tail)
        s->udp_queue_tail->udp_next = t;
    else
        s->udp_queue_head = t;
    s->udp_queue_tail = t;
    start_next_udp_setup(s);
}

static bool handle_params(struct stest *t)
{
    const char *body;
    size_t len;
    int rc = lp_ctrl_frame(&t->ctrl, LP_I3_PARAMS_MAX, &body, &len);
    if (rc < 0) {
        test_fail(t, LP_I3E_RECVPARAMS, true, "parameters from %s rejected: bad length", t->run.ctrl_peer.host);
        return false;
    }
    if (rc == 0)
        return false;
    char err[200];
    DBG(t->srv, t->run.id, "received parameters (%zu bytes): %.*s", len, (int)len, body);
    struct lp_spec spec = t->srv->spec;
    spec.role = LP_ROLE_SERVER;
    spec.title[0] = spec.extra_data[0] = spec.congestion[0] = '\0';
    spec.report.get_server_output = false;
    int code = lp_i3_params_decode(body, len, &spec, err, sizeof(err));
    lp_ctrl_consume_frame(&t->ctrl, len);
    if (code) {
        test_fail(t, code, true, "parameters from %s rejected: %s", t->run.ctrl_peer.host, err);
        return false;
    }
    unsigned maxd = t->srv->spec.server_max_duration_s;
    if (maxd && (spec.duration_s == 0 || spec.duration_s + spec.omit_s > maxd)) {
        test_fail(t, LP_I3E_MAXDURATION, true, "test from %s rejected: %s exceeds --server-max-duration %u s",
                  t->run.ctrl_peer.host, spec.duration_s == 0 ? "an untimed test" : "its duration", maxd);
        return false;
    }
    t->run.spec = spec;
    t->expected = lp_run_expected(&spec);
    if (spec.proto == LP_PROTO_UDP)
        queue_udp_setup(t);
    else
        send_create_streams(t);
    return true;
}

static void test_stop(struct stest *t)
{
    t->phase = S_STOPPING;
    lp_timer_cancel(&t->srv->eng.loop, &t->rcv_timer);
    lp_timer_cancel(&t->srv->eng.loop, &t->grace_timer);
    lp_run_detach_all(&t->run);
}

static void maybe_exchange(struct stest *t)
{
    if (t->phase != S_STOPPING || !lp_run_all_settled(&t->run))
        return;
    lp_run_finish(&t->run);
    lp_run_close_streams(&t->run);
    t->phase = S_RESULTS;
    send_state(t, LP_I3_EXCHANGE_RESULTS);
    arm_step(t, LP_SRV_STEP_TIMEOUT_MS);
}

static bool handle_results(struct stest *t)
{
    struct lp_server *s = t->srv;
    const char *body;
    size_t len;
    int rc = lp_ctrl_frame(&t->ctrl, LP_SRV_CLIENT_RESULTS_MAX, &body, &len);
    if (rc < 0) {
        test_fail(t, 0, false, "results from %s rejected: bad length", t->run.ctrl_peer.host);
        return false;
    }
    if (rc == 0)
        return false;
    char err[200];
    if (lp_i3_results_decode(body, len, &t->peer, err, sizeof(err)) < 0) {
        test_fail(t, 0, false, "results from %s rejected: %s", t->run.ctrl_peer.host, err);
        return false;
    }
    DBG(s, t->run.id, "received results (%zu bytes): %.*s", len, (int)(len > 900 ? 900 : len), body);
    lp_ctrl_consume_frame(&t->ctrl, len);
    lp_run_emit_end(&t->run, &t->peer, false, NULL, NULL);

    struct lp_i3_results mine;
    lp_run_local_results(&t->run, &mine);
    char *output = NULL;
    if (t->run.spec.report.get_server_output && s->eng.sink.server_output) {
        int is_json = 0;
        output = s->eng.sink.server_output(t->run.id, &is_json, s->eng.sink.user);
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
    DBG(s, t->run.id, "send results (%zu bytes): %.900s", strlen(json), json);
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
    DBG(t->srv, t->run.id, "received state %d (%s) from %s", st, lp_i3_state_name(st), t->run.ctrl_peer.host);
    switch (st) {
    case LP_I3_TEST_START: /* iperf3 clients never send it; tolerated as iperf3 does */
        return true;
    case LP_I3_TEST_END:
        if (t->phase != S_RUNNING) {
            test_fail(t, 0, false, "client %s sent TEST_END before the test ran", t->run.ctrl_peer.host);
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
        test_fail(t, 0, false, "received an unknown control message (%d) from %s", st, t->run.ctrl_peer.host);
        return false;
    }
}

static void on_ctrl(struct lp_ctrl *c)
{
    struct stest *t = c->owner;
    while (!t->finishing) {
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
    if (!t->finishing && (c->eof || c->err)) {
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
    if (t->finishing) {
        test_finish(t);
        return;
    }
    if (t->phase == S_STOPPING)
        maybe_exchange(t);
    /* A stream that ends by itself while running (EOF, error, used-up budget) simply stops;
     * the client still decides when the test ends. */
}

static struct stest *new_test(struct lp_server *s, int fd, const uint8_t cookie[LP_I3_COOKIE_SIZE],
                              const struct sockaddr_storage *peer)
{
    struct stest *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->srv = s;
    t->peer_addr = *peer;
    lp_run_init(&t->run, &s->eng, &s->spec, ++s->next_id);
    t->run.spec.role = LP_ROLE_SERVER;
    t->run.on_event = on_stream;
    t->run.owner = t;
    memcpy(t->run.cookie, cookie, LP_I3_COOKIE_SIZE);
    lp_sock_endpoint(peer, &t->run.ctrl_peer);
    lp_timer_init(&t->step_timer, on_step_timeout);
    lp_timer_init(&t->rcv_timer, on_rcv_check);
    lp_timer_init(&t->grace_timer, on_grace);
    if (lp_ctrl_open(&t->ctrl, &s->eng.loop, fd, on_ctrl, t) < 0) {
        free(t);
        return NULL;
    }
    t->ctrl_open = true;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    t->next = s->tests;
    if (s->tests)
        s->tests->prev = t;
    s->tests = t;
    s->ntests++;
    struct lp_record rec = {.kind = LP_REC_CONNECTING, .role = LP_ROLE_SERVER, .test_id = t->run.id};
    rec.u.connecting.peer = t->run.ctrl_peer;
    lp_engine_emit(&s->eng, &rec);
    t->phase = S_PARAMS;
    send_state(t, LP_I3_PARAM_EXCHANGE);
    arm_step(t, LP_SRV_STEP_TIMEOUT_MS);
    return t;
}

static struct stest *find_by_cookie(struct lp_server *s, const uint8_t cookie[LP_I3_COOKIE_SIZE])
{
    for (struct stest *t = s->tests; t; t = t->next)
        if (!t->finishing && memcmp(t->run.cookie, cookie, LP_I3_COOKIE_SIZE) == 0)
            return t;
    return NULL;
}

/* ---- connections whose first bytes decide what they are ---- */

static void pending_free(void *arg)
{
    free(arg);
}

static void pending_drop(struct pending *p, bool close_fd)
{
    struct lp_server *s = p->srv;
    if (p->dead)
        return;
    p->dead = true;
    lp_loop_del(&s->eng.loop, &p->h);
    lp_timer_cancel(&s->eng.loop, &p->timer);
    if (close_fd)
        close(p->h.fd);
    if (p->prev)
        p->prev->next = p->next;
    else
        s->pendings = p->next;
    if (p->next)
        p->next->prev = p->prev;
    s->npending--;
    lp_loop_defer(&s->eng.loop, pending_free, p);
}

static void classify(struct pending *p)
{
    struct lp_server *s = p->srv;
    int fd = p->h.fd;
    struct sockaddr_storage peer;
    socklen_t sl = sizeof(peer);
    memset(&peer, 0, sizeof(peer));
    getpeername(fd, (struct sockaddr *)&peer, &sl);
    struct lp_endpoint pe;
    lp_sock_endpoint(&peer, &pe);
    if (!lp_i3_cookie_valid(p->buf)) {
        /* Not an iperf3 client (iperf2 detection comes later): nothing we can serve. */
        DBG(s, 0, "connection from %s port %u: first 37 bytes are not an iperf3 cookie; closed", pe.host,
            (unsigned)pe.port);
        pending_drop(p, true);
        return;
    }
    struct stest *t = find_by_cookie(s, p->buf);
    if (t) {
        bool ok = t->phase == S_STREAMS && t->run.spec.proto == LP_PROTO_TCP && t->run.nstreams < t->expected &&
                  lp_sock_same_host(&peer, &t->peer_addr);
        uint64_t seq = p->seq;
        pending_drop(p, false);
        if (!ok) {
            DBG(s, t->run.id, "data connection from %s port %u refused (test not expecting it)", pe.host,
                (unsigned)pe.port);
            send_refusal(fd);
            close(fd);
            return;
        }
        DBG(s, t->run.id, "data connection %u of %u from %s port %u", t->run.nstreams + 1, t->expected, pe.host,
            (unsigned)pe.port);
        /* The client's -w, -M, -N, -C and -S apply to the server's end of the stream too. */
        const char *what = NULL;
        int err = lp_sock_apply_spec(fd, &t->run.spec, SOCK_STREAM, &what);
        if (err < 0) {
            close(fd);
            test_fail(t, 0, false, "cannot apply %s from %s to a data connection: %s", what, pe.host,
                      strerror(-err));
            return;
        }
        if (!lp_run_add_stream(&t->run, fd, seq)) {
            close(fd);
            test_fail(t, 0, false, "out of memory adding a stream");
            return;
        }
        streams_complete(t);
        return;
    }
    pending_drop(p, false);
    if (s->stopping || s->ntests >= (s->spec.max_tests ? s->spec.max_tests : LP_SRV_DEFAULT_MAX_TESTS) ||
        (s->spec.one_off && s->next_id > 0)) {
        DBG(s, 0, "control connection from %s port %u refused: %s", pe.host, (unsigned)pe.port,
            s->stopping ? "stopping" : s->spec.one_off ? "one-off server already served" : "too many tests");
        send_refusal(fd);
        close(fd);
        return;
    }
    if (!new_test(s, fd, p->buf, &peer))
        close(fd);
}

static void on_pending_io(struct lp_handler *h, uint32_t events)
{
    struct pending *p = lp_container_of(h, struct pending, h);
    (void)events;
    if (p->dead)
        return;
    /* Read exactly the cookie: whatever follows belongs to the data stream. */
    ssize_t r = recv(p->h.fd, p->buf + p->got, sizeof(p->buf) - p->got, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        pending_drop(p, true);
        return;
    }
    if (r > 0)
        p->got += (size_t)r;
    if (p->got == sizeof(p->buf))
        classify(p);
}

static void on_pending_timeout(struct lp_timer *tm)
{
    pending_drop(lp_container_of(tm, struct pending, timer), true);
}

static void on_accept(struct lp_handler *h, uint32_t events)
{
    struct lp_server *s = lp_container_of(h, struct lp_server, tcp_h);
    (void)events;
    for (int i = 0; i < 64; i++) {
        int fd = accept4(s->tcp_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (s->npending >= LP_SRV_MAX_PENDING) {
            /* Shed the oldest silent connection rather than the newcomer: a flood of idle
             * connections then cannot lock out a real client, which sends its cookie at once. */
            struct pending *old = s->pendings;
            while (old->next)
                old = old->next;
            DBG(s, 0, "%u connections have not sent a cookie; dropping the oldest", s->npending);
            pending_drop(old, true);
        }
        struct pending *p = calloc(1, sizeof(*p));
        if (!p) {
            close(fd);
            continue;
        }
        p->srv = s;
        p->h.fd = fd;
        p->h.fn = on_pending_io;
        p->seq = ++s->seq;
        lp_timer_init(&p->timer, on_pending_timeout);
        if (lp_loop_add(&s->eng.loop, &p->h, EPOLLIN) < 0) {
            close(fd);
            free(p);
            continue;
        }
        p->next = s->pendings;
        if (s->pendings)
            s->pendings->prev = p;
        s->pendings = p;
        s->npending++;
        lp_timer_arm(&s->eng.loop, &p->timer, lp_now_ns() + LP_SRV_COOKIE_TIMEOUT_MS * LP_NS_PER_MS);
        arm_idle(s);
    }
}

/* ---- UDP stream hellos on the shared port ---- */

static int udp_stream_socket(struct lp_server *s, const struct sockaddr_storage *peer, socklen_t plen)
{
    int one = 1;
    int fd = socket(s->udp_local.ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (s->udp_local.ss.ss_family == AF_INET6) {
        int zero = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    }
    /* Same local port as the listener; once connected, the kernel prefers this socket for
     * the client's datagrams. */
    if (bind(fd, (struct sockaddr *)&s->udp_local.ss, s->udp_local.len) < 0 ||
        connect(fd, (const struct sockaddr *)peer, plen) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    return fd;
}

static void on_udp(struct lp_handler *h, uint32_t events)
{
    struct lp_server *s = lp_container_of(h, struct lp_server, udp_h);
    (void)events;
    for (int i = 0; i < 256; i++) {
        uint8_t buf[64];
        struct sockaddr_storage peer;
        socklen_t plen = sizeof(peer);
        ssize_t r = recvfrom(s->udp_fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&peer, &plen);
        if (r < 0)
            return;
        struct stest *t = s->udp_setup;
        /* Only a 4-byte hello from the host of the test now setting up is a new stream;
         * anything else is stray data from an ended test or noise, and is dropped. */
        if (!t || r != 4 || t->phase != S_STREAMS || !lp_sock_same_host(&peer, &t->peer_addr) ||
            t->run.nstreams >= t->expected)
            continue;
        const struct lp_spec *sp = &t->run.spec;
        int fd = udp_stream_socket(s, &peer, plen);
        const char *what = NULL;
        if (fd < 0 || lp_sock_apply_spec(fd, sp, SOCK_DGRAM, &what) < 0) {
            if (fd >= 0)
                close(fd);
            test_fail(t, 0, false, "cannot open a UDP stream for %s: %s", t->run.ctrl_peer.host,
                      what ? what : strerror(-fd));
            continue;
        }
        struct lp_endpoint pe;
        lp_sock_endpoint(&peer, &pe);
        DBG(s, t->run.id, "UDP hello from %s port %u: stream %u of %u", pe.host, (unsigned)pe.port,
            t->run.nstreams + 1, t->expected);
        uint8_t reply[4];
        lp_i3_put_u32(reply, LP_I3_UDP_REPLY);
        if (send(fd, reply, 4, MSG_DONTWAIT) != 4 || !lp_run_add_stream(&t->run, fd, ++s->seq)) {
            close(fd);
            test_fail(t, 0, false, "cannot answer the UDP stream hello of %s", t->run.ctrl_peer.host);
            continue;
        }
        streams_complete(t);
    }
}

/* ---- server lifecycle ---- */

static void on_idle(struct lp_timer *tm)
{
    struct lp_server *s = lp_container_of(tm, struct lp_server, idle_timer);
    if (s->ntests || s->npending) {
        arm_idle(s);
        return;
    }
    /* iperf3 restarts an idle server; ours has nothing stuck to restart, except with -1. */
    if (s->spec.one_off)
        lp_loop_stop(&s->eng.loop);
    else
        arm_idle(s);
}

static void on_wake(void *arg)
{
    struct lp_server *s = arg;
    if (!atomic_exchange(&s->stop_req, false) || s->stopping)
        return;
    s->stopping = true;
    while (s->pendings)
        pending_drop(s->pendings, true);
    for (struct stest *t = s->tests; t; t = t->next) {
        if (t->ctrl_open && !t->finishing)
            lp_ctrl_send_state(&t->ctrl, LP_I3_SERVER_TERMINATE);
    }
    struct stest *t = s->tests;
    while (t) {
        struct stest *next = t->next;
        test_fail(t, 0, false, "interrupt - the server has terminated");
        t = next;
    }
    maybe_stop_loop(s);
}

static int open_listeners(struct lp_server *s, char *err, size_t errlen)
{
    struct lp_addr a;
    const char *host = s->spec.bind_addr[0] ? s->spec.bind_addr : NULL;
    int rc = lp_sock_resolve(host, s->spec.port, s->spec.family, SOCK_STREAM, true, &a, err, errlen);
    if (rc < 0)
        return rc;
    s->tcp_fd = lp_sock_listen(&a, SOCK_STREAM, 128);
    if (s->tcp_fd == -EAFNOSUPPORT && !host && s->spec.family == LP_FAMILY_ANY) {
        /* No IPv6 in this kernel: serve IPv4 only. */
        lp_sock_resolve(NULL, s->spec.port, LP_FAMILY_INET, SOCK_STREAM, true, &a, err, errlen);
        s->tcp_fd = lp_sock_listen(&a, SOCK_STREAM, 128);
    }
    if (s->tcp_fd < 0) {
        snprintf(err, errlen, "unable to listen on port %u: %s", (unsigned)s->spec.port, strerror(-s->tcp_fd));
        return s->tcp_fd;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    getsockname(s->tcp_fd, (struct sockaddr *)&ss, &sl);
    struct lp_endpoint ep;
    lp_sock_endpoint(&ss, &ep);
    s->port = ep.port;
    /* UDP on the same port number (the real one, when the user asked for port 0). */
    s->udp_local.ss = ss;
    s->udp_local.len = sl;
    s->udp_fd = lp_sock_listen(&s->udp_local, SOCK_DGRAM, 0);
    if (s->udp_fd < 0) {
        snprintf(err, errlen, "unable to bind UDP port %u: %s", (unsigned)s->port, strerror(-s->udp_fd));
        return s->udp_fd;
    }
    s->tcp_h.fd = s->tcp_fd;
    s->tcp_h.fn = on_accept;
    s->udp_h.fd = s->udp_fd;
    s->udp_h.fn = on_udp;
    if ((rc = lp_loop_add(&s->eng.loop, &s->tcp_h, EPOLLIN)) < 0 ||
        (rc = lp_loop_add(&s->eng.loop, &s->udp_h, EPOLLIN)) < 0) {
        snprintf(err, errlen, "event loop: %s", strerror(-rc));
        return rc;
    }
    return 0;
}

struct lp_server *lp_server_new(const struct lp_spec *spec, const struct lp_sink *sink, char *err, size_t errlen)
{
    struct lp_server *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->spec = *spec;
    s->spec.role = LP_ROLE_SERVER;
    s->tcp_fd = s->udp_fd = -1;
    atomic_init(&s->stop_req, false);
    lp_timer_init(&s->idle_timer, on_idle);
    int rc = lp_engine_init(&s->eng, sink, spec->threads);
    if (rc < 0) {
        snprintf(err, errlen, "cannot start worker threads: %s", strerror(-rc));
        free(s);
        return NULL;
    }
    s->eng_ok = true;
    s->eng.debug = spec->report.debug;
    s->eng.loop.on_wake = on_wake;
    s->eng.loop.on_wake_arg = s;
    if (open_listeners(s, err, errlen) < 0) {
        lp_server_free(s);
        return NULL;
    }
    return s;
}

int lp_server_run(struct lp_server *s)
{
    emit_listening(s);
    arm_idle(s);
    lp_loop_run(&s->eng.loop);
    return s->result;
}

void lp_server_stop(struct lp_server *s)
{
    atomic_store(&s->stop_req, true);
    lp_loop_wake(&s->eng.loop);
}

void lp_server_free(struct lp_server *s)
{
    if (!s)
        return;
    /* Tests still present were cut off (one-off exit, or stop): let workers let go first. */
    for (struct stest *t = s->tests; t; t = t->next)
        lp_run_detach_all(&t->run);
    if (s->eng_ok)
        lp_workers_stop(&s->eng.workers);
    while (s->pendings) {
        struct pending *p = s->pendings;
        s->pendings = p->next;
        close(p->h.fd);
        free(p);
    }
    while (s->tests) {
        struct stest *t = s->tests;
        s->tests = t->next;
        if (t->ctrl_open)
            lp_ctrl_close(&t->ctrl);
        lp_run_release(&t->run);
        lp_i3_results_release(&t->peer);
        free(t);
    }
    if (s->tcp_fd >= 0)
        close(s->tcp_fd);
    if (s->udp_fd >= 0)
        close(s->udp_fd);
    if (s->eng_ok)
        lp_loop_destroy(&s->eng.loop);
    free(s);
}

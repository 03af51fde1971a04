/* iperf3 client: the control state machine of one test against an iperf3 (or linkperf)
 * server. Setup steps block briefly on the calling thread; the test itself runs on the
 * control loop with data on the worker threads. Never prints: records go to the sink. */
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "auth/i3auth.h"
#include "core/bounce.h"
#include "core/udp_echo.h"
#include "core/clock.h"
#include "core/run.h"
#include "linkperf/engine.h"
#include "net/sock.h"
#include "proto/client.h"
#include "proto/ctrl.h"
#include "proto/i3_common.h"
#include "proto/i3json.h"
#include "wire/iperf3.h"

#define LP_CLIENT_STEP_TIMEOUT_MS 30000u  /* longest wait for the server's next move */
#define LP_UDP_HELLO_TIMEOUT_MS 10000u

enum client_phase { C_SETUP, C_RUNNING, C_ENDING, C_RESULTS, C_DONE };

struct i3client {
    struct lp_engine eng;
    bool eng_ok;
    struct lp_spec spec;
    struct lp_run run;
    char cookie[LP_I3_COOKIE_SIZE];   /* ours, sent first on every connection */
    struct lp_ctrl ctrl;
    bool ctrl_open;
    struct lp_addr server;
    enum client_phase phase;
    bool want_results_frame;
    bool end_sent;
    bool results_held;  /* EXCHANGE_RESULTS came: our results wait for the held receivers */
    bool await_delivery;         /* the senders used up -n/-k: end once it can be counted */
    bool bb_grace;               /* timed echo: -t gave the last exchange time to come back */
    uint64_t drain_until_ns;     /* spec.drain_ms: TEST_END not before this (0: not begun) */
    int result;
    bool finishing;
    atomic_bool stop_req;
    struct lp_timer end_timer, rcv_timer, step_timer;
    struct lp_peer_results peer;
    bool have_peer;
    const struct lp_i3auth_client *auth; /* --username: a token in the parameters */
    bool token_pending;          /* a token was sent and the server has not answered yet */
};

static void client_finish(struct i3client *c, int rc);
static void maybe_send_results(struct i3client *c);

#define DBG(c, ...) lp_engine_debug(&(c)->eng, LP_ROLE_CLIENT, 1, __VA_ARGS__)

static void send_state(struct i3client *c, int8_t st)
{
    DBG(c, "send state %d (%s)", st, lp_i3_state_name(st));
    lp_ctrl_send_state(&c->ctrl, st);
}

static void send_json(struct i3client *c, const char *what, const char *json)
{
    DBG(c, "send %s (%zu bytes): %s", what, strlen(json), json);
    lp_ctrl_send_json(&c->ctrl, json);
}

static void fail(struct i3client *c, int rc, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void fail(struct i3client *c, int rc, int code, const char *fmt, ...)
{
    if (c->phase == C_DONE)
        return;
    va_list ap;
    va_start(ap, fmt);
    lp_engine_verror(&c->eng, LP_ROLE_CLIENT, 1, code, true, fmt, ap);
    va_end(ap);
    /* What was measured before the failure is still worth showing. */
    lp_run_report_partial(&c->run);
    client_finish(c, rc);
}

static void arm_step(struct i3client *c)
{
    lp_timer_arm(&c->eng.loop, &c->step_timer, lp_now_ns() + LP_CLIENT_STEP_TIMEOUT_MS * LP_NS_PER_MS);
}

static void on_step_timeout(struct lp_timer *t)
{
    struct i3client *c = lp_container_of(t, struct i3client, step_timer);
    fail(c, LP_ETIMEOUT, 0, "the server did not answer within %u seconds", LP_CLIENT_STEP_TIMEOUT_MS / 1000);
}

/* ---- stream setup (blocking, before the test runs) ---- */

static int open_tcp_stream(struct i3client *c, unsigned n)
{
    int fd = lp_client_tcp_stream(&c->spec, &c->server, n);
    if (fd < 0)
        return fd;
    int err = lp_i3_write_all(fd, c->cookie, LP_I3_COOKIE_SIZE, LP_CLIENT_STEP_TIMEOUT_MS);
    if (err < 0 || !lp_run_add_stream(&c->run, fd, n)) {
        close(fd);
        return err < 0 ? err : -ENOMEM;
    }
    struct lp_endpoint ep;
    lp_sock_local(fd, &ep);
    DBG(c, "TCP stream %u connected from port %u, cookie sent", n + 1, (unsigned)ep.port);
    return 0;
}

static bool is_reply(const uint8_t b[4])
{
    uint32_t v = lp_i3_get_u32(b);
    return v == LP_I3_UDP_REPLY || v == LP_I3_UDP_LEGACY_REPLY;
}

static int open_udp_stream(struct i3client *c, unsigned n)
{
    int err;
    int fd = lp_client_udp_stream(&c->spec, &c->server, n);
    if (fd < 0)
        return fd;
    uint8_t hello[4];
    lp_i3_put_u32(hello, LP_I3_UDP_HELLO);
    if (send(fd, hello, 4, 0) != 4) {
        err = -errno;
        goto fail;
    }
    /* In reverse mode data may overtake the reply: skip a bounded number of datagrams. */
    uint64_t deadline = lp_now_ns() + LP_UDP_HELLO_TIMEOUT_MS * LP_NS_PER_MS;
    for (unsigned tries = 0;; tries++) {
        uint64_t now = lp_now_ns();
        if (now >= deadline || tries > 100000) {
            err = -ETIMEDOUT;
            goto fail;
        }
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int rc = poll(&pf, 1, (int)((deadline - now) / LP_NS_PER_MS) + 1);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            continue;
        uint8_t buf[4];
        ssize_t r = recv(fd, buf, sizeof(buf), MSG_TRUNC);
        if (r < 0) {
            err = -errno;
            goto fail;
        }
        if (r == 4 && is_reply(buf)) {
            DBG(c, "UDP stream %u: hello answered (%02x %02x %02x %02x)", n + 1, buf[0], buf[1], buf[2], buf[3]);
            break;
        }
        DBG(c, "UDP stream %u: skipped a %zd-byte datagram while waiting for the hello reply", n + 1, r);
    }
    if (!lp_run_add_stream(&c->run, fd, n)) {
        err = -ENOMEM;
        goto fail;
    }
    return 0;
fail:
    close(fd);
    return err;
}

static void create_streams(struct i3client *c)
{
    unsigned n = lp_run_expected(&c->spec);
    for (unsigned i = 0; i < n; i++) {
        int err = c->spec.proto == LP_PROTO_UDP ? open_udp_stream(c, i) : open_tcp_stream(c, i);
        if (err < 0) {
            fail(c, err, 0, "unable to connect stream: %s", strerror(-err));
            return;
        }
    }
}

/* ---- the end of the test ---- */

static void maybe_send_end(struct i3client *c)
{
    if (c->phase != C_ENDING || c->end_sent || !lp_run_quiesced(&c->run))
        return;
    if (c->await_delivery && !lp_run_delivered(&c->run)) {
        lp_timer_arm(&c->eng.loop, &c->end_timer, lp_now_ns() + LP_RUN_DELIVER_POLL_NS);
        return;
    }
    if (c->spec.drain_ms) {
        uint64_t now = lp_now_ns();
        if (!c->drain_until_ns) {
            c->drain_until_ns = now + (uint64_t)c->spec.drain_ms * LP_NS_PER_MS;
            lp_timer_arm(&c->eng.loop, &c->end_timer, c->drain_until_ns);
            return;
        }
        if (now < c->drain_until_ns)
            return; /* the timer comes back */
    }
    lp_run_stop_clock(&c->run);
    if (!c->run.rx_held)
        lp_run_finish(&c->run);
    c->end_sent = true;
    send_state(c, LP_I3_TEST_END);
    arm_step(c);
}

static void begin_end(struct i3client *c)
{
    if (c->phase != C_RUNNING)
        return;
    c->phase = C_ENDING;
    lp_timer_cancel(&c->eng.loop, &c->end_timer);
    lp_timer_cancel(&c->eng.loop, &c->rcv_timer);
    /* A UDP sender counts what it sends until TEST_END reaches it: our receivers count on
     * until it says it stopped (EXCHANGE_RESULTS), so sent = received where nothing is lost. */
    lp_run_quiesce(&c->run, c->spec.proto == LP_PROTO_UDP);
    maybe_send_end(c);
}

/* The -t deadline, or (ending) the next look at whether the data was delivered. */
static void on_end_timer(struct lp_timer *t)
{
    struct i3client *c = lp_container_of(t, struct i3client, end_timer);
    /* Timed echo: no exchange starts at or past -t, and the one in flight is let finish
     * (its stream then ends itself), so both ends count the same exchanges. A server that
     * does not echo gets this long. */
    if (c->phase == C_RUNNING && c->spec.iperf2.bb.on && !c->bb_grace) {
        c->bb_grace = true;
        lp_timer_arm(&c->eng.loop, &c->end_timer, lp_now_ns() + LP_BB_END_GRACE_NS);
        return;
    }
    if (c->phase == C_RUNNING)
        begin_end(c);
    else
        maybe_send_end(c);
}

static void on_rcv_timer(struct lp_timer *t)
{
    struct i3client *c = lp_container_of(t, struct i3client, rcv_timer);
    if (lp_run_rx_idle_ns(&c->run) > (uint64_t)c->spec.rcv_timeout_ms * LP_NS_PER_MS) {
        fail(c, LP_ETIMEOUT, LP_I3E_NOMSG, "idle timeout for receiving data");
        return;
    }
    lp_timer_arm(&c->eng.loop, &c->rcv_timer, lp_now_ns() + LP_NS_PER_S);
}

static bool senders_done(const struct lp_run *r)
{
    for (unsigned i = 0; i < r->nstreams; i++)
        if (r->streams[i].conn.sid.sender && !r->streams[i].settled)
            return false;
    return true;
}

static void on_stream(struct lp_run *r, struct lp_run_stream *rs, enum lp_stream_event ev)
{
    struct i3client *c = r->owner;
    if (ev == LP_SEV_ERROR && (c->phase == C_RUNNING || c->phase == C_SETUP)) {
        int e = atomic_load(&rs->ds->error);
        fail(c, e, 0, "data stream failed: %s", strerror(-e));
        return;
    }
    if (c->phase == C_RUNNING) {
        if (ev == LP_SEV_RX_TARGET)
            begin_end(c);
        else if (ev == LP_SEV_FINISHED && senders_done(r)) {
            c->await_delivery = true; /* a budget ended it: -n is what the receiver counts */
            begin_end(c);
        }
        else if (ev == LP_SEV_EOF && lp_run_all_settled(r))
            begin_end(c);
    }
    if (c->phase == C_ENDING)
        maybe_send_end(c);
    if (c->phase == C_RESULTS)
        maybe_send_results(c);
    if (c->phase == C_DONE && c->finishing)
        client_finish(c, c->result);
}

/* ---- control messages ---- */

static void on_test_running(struct i3client *c)
{
    lp_run_begin(&c->run);
    c->phase = C_RUNNING;
    lp_timer_cancel(&c->eng.loop, &c->step_timer);
    if (c->run.end_deadline_ns)
        lp_timer_arm(&c->eng.loop, &c->end_timer, c->run.end_deadline_ns);
    bool receives = c->spec.dir != LP_DIR_FORWARD;
    if (receives && c->spec.rcv_timeout_ms)
        lp_timer_arm(&c->eng.loop, &c->rcv_timer, lp_now_ns() + LP_NS_PER_S);
}

/* The END record, with the server's output only if it was asked for: a 3.21 server goes on
 * sending its output to every client once one asked for it (the 3.21 client ignores it). */
static void emit_end(struct i3client *c)
{
    bool asked = c->have_peer && c->spec.report.get_server_output;
    lp_run_emit_end(&c->run, c->have_peer ? &c->peer : NULL, false,
                    asked ? c->peer.server_output_text : NULL,
                    asked ? c->peer.server_output_json : NULL);
}

static void send_results(struct i3client *c)
{
    struct lp_peer_results mine;
    lp_run_local_results(&c->run, &mine);
    char *json = lp_i3_results_encode(&mine);
    if (!json) {
        fail(c, -ENOMEM, 0, "cannot encode results");
        return;
    }
    send_json(c, "results", json);
    free(json);
    c->want_results_frame = true;
    arm_step(c);
}

/* Held receivers (lp_run_quiesce) counted the server's last datagrams and froze. */
static void maybe_send_results(struct i3client *c)
{
    if (!c->results_held || !lp_run_quiesced(&c->run))
        return;
    c->results_held = false;
    lp_run_finish(&c->run);
    send_results(c);
}

/* linkperf's timed echo (--bounceback over iperf3): a client counts only exchanges that
 * came back, so none counted with time run out is a server that does not echo. */
static bool echo_unanswered(struct i3client *c)
{
    if (!c->spec.iperf2.bb.on)
        return false;
    if (c->spec.proto == LP_PROTO_UDP) { /* UDP round trips: probes went out, echoes must come back */
        uint64_t back = 0;
        for (unsigned i = 0; i < c->run.nstreams; i++) {
            struct lp_udp_echo_counts k;
            lp_udp_echo_counts(c->run.streams[i].ds, &k);
            back += k.returned;
        }
        return back == 0;
    }
    struct lp_peer_results mine;
    uint64_t bytes = 0;
    lp_run_local_results(&c->run, &mine);
    for (unsigned i = 0; i < mine.nstreams; i++)
        bytes += mine.streams[i].bytes;
    lp_peer_results_release(&mine);
    return bytes == 0;
}

/* SERVER_ERROR: 0xFE then one or two int32 (i_errno, errno). Returns false if incomplete. */
static bool handle_server_error(struct i3client *c)
{
    const uint8_t *p = lp_ctrl_peek(&c->ctrl, 9);
    if (!p && !(c->ctrl.eof || c->ctrl.err))
        return false;
    p = lp_ctrl_peek(&c->ctrl, 5);
    int code = p ? (int)lp_i3_get_u32(p + 1) : 0;
    char msg[200];
    snprintf(msg, sizeof(msg), "the server reported error %d: %s%s", code, lp_i3_error_text(code),
             code == LP_I3E_AUTHTEST && c->auth && lp_i3auth_client_padding(c->auth) == LP_I3AUTH_OAEP
                 ? " (if the user and password are right: a server older than iperf3 3.17 needs --use-pkcs1-padding)" : "");
    fail(c, LP_ESERVER, code, "%s", msg);
    return true;
}

static bool handle_state(struct i3client *c, int8_t st)
{
    DBG(c, "received state %d (%s)", st, lp_i3_state_name(st));
    switch (st) {
    case LP_I3_PARAM_EXCHANGE: {
        char *token = NULL, err[200] = "";
        if (c->auth && !(token = lp_i3auth_client_token(c->auth, (int64_t)time(NULL), err, sizeof(err)))) {
            fail(c, -EINVAL, 0, "%s", err);
            return false;
        }
        char *json = lp_i3_params_encode(&c->spec, token, "3.12");
        free(token);
        if (!json) {
            fail(c, -ENOMEM, 0, "cannot encode parameters");
            return false;
        }
        send_json(c, "parameters", json);
        free(json);
        c->token_pending = c->auth != NULL;
        arm_step(c);
        return true;
    }
    case LP_I3_CREATE_STREAMS:
        c->token_pending = false;
        create_streams(c);
        arm_step(c);
        return c->phase != C_DONE;
    case LP_I3_TEST_START:
        if (lp_run_finalize_streams(&c->run, lp_i3_stream_id) < 0) {
            fail(c, -ENOMEM, 0, "cannot set up streams");
            return false;
        }
        lp_run_emit_start(&c->run);
        return true;
    case LP_I3_TEST_RUNNING:
        on_test_running(c);
        return true;
    case LP_I3_EXCHANGE_RESULTS:
        c->phase = C_RESULTS;
        if (c->run.rx_held) { /* the server stopped sending: all it sent is here */
            lp_run_release_rx(&c->run);
            c->results_held = true;
            maybe_send_results(c);
            return c->phase != C_DONE;
        }
        if (!c->run.finished) /* the server ended the test first */
            lp_run_finish(&c->run);
        send_results(c);
        return c->phase != C_DONE;
    case LP_I3_DISPLAY_RESULTS:
        lp_timer_cancel(&c->eng.loop, &c->step_timer);
        if (echo_unanswered(c)) {
            send_state(c, LP_I3_IPERF_DONE);
            fail(c, LP_EPEER, 0, "no round trip came back: the server read the %s but echoed none "
                                 "(stock iperf3 has no echo mode: run linkperf -s there%s)",
                 c->spec.proto == LP_PROTO_UDP ? "probes" : "messages",
                 c->spec.proto == LP_PROTO_UDP ? "; no stock iperf has UDP round trips"
                                               : ", or use --dialect iperf2 against iperf -s");
            return false;
        }
        emit_end(c);
        send_state(c, LP_I3_IPERF_DONE);
        client_finish(c, 0);
        return false;
    case LP_I3_ACCESS_DENIED:
        fail(c, LP_EBUSY, LP_I3E_ACCESSDENIED, "the server is busy running a test. try again later");
        return false;
    case LP_I3_SERVER_TERMINATE:
        fail(c, LP_ESERVER, LP_I3E_SERVERTERM, "the server has terminated");
        return false;
    default: {
        fail(c, LP_EPEER, LP_I3E_MESSAGE, "received an unknown control message (%d)", st);
        return false;
    }
    }
}

static void on_ctrl(struct lp_ctrl *ctrl)
{
    struct i3client *c = ctrl->owner;
    while (c->phase != C_DONE) {
        if (c->want_results_frame) {
            const char *body;
            size_t len;
            int rc = lp_ctrl_frame(&c->ctrl, LP_I3_RESULTS_MAX, &body, &len);
            if (rc < 0) {
                fail(c, LP_EPEER, LP_I3E_RECVRESULTS, "the server's results are too large");
                return;
            }
            if (rc == 0)
                break;
            char err[200];
            memset(&c->peer, 0, sizeof(c->peer));
            if (lp_i3_results_decode(body, len, &c->peer, err, sizeof(err)) < 0) {
                lp_peer_results_release(&c->peer);
                fail(c, LP_EPEER, LP_I3E_RECVRESULTS, "unable to receive results: %s", err);
                return;
            }
            DBG(c, "received results (%zu bytes): %.*s", len, (int)(len > 900 ? 900 : len), body);
            lp_ctrl_consume_frame(&c->ctrl, len);
            c->have_peer = true;
            c->want_results_frame = false;
            continue;
        }
        const uint8_t *p = lp_ctrl_peek(&c->ctrl, 1);
        if (!p)
            break;
        int8_t st = (int8_t)p[0];
        if (st == LP_I3_SERVER_ERROR) {
            if (!handle_server_error(c))
                break;
            return;
        }
        lp_ctrl_consume(&c->ctrl, 1);
        if (!handle_state(c, st))
            return;
    }
    if (c->phase != C_DONE && (c->ctrl.eof || c->ctrl.err)) {
        if (c->ctrl.err)
            fail(c, LP_ECLOSED, LP_I3E_CTRLCLOSE, "control connection failed: %s", strerror(-c->ctrl.err));
        else
            fail(c, LP_ECLOSED, LP_I3E_CTRLCLOSE, "the server has unexpectedly closed the connection%s",
                 !c->token_pending ? ""
                 : lp_i3auth_client_padding(c->auth) == LP_I3AUTH_OAEP
                     ? " (it may have refused the authentication token: iperf3 up to 3.16 needs --use-pkcs1-padding)"
                     : " (it may have refused the authentication token: iperf3 3.17 and later servers close "
                       "the connection for a PKCS#1 v1.5 token unless started with --use-pkcs1-padding)");
    }
}

/* ---- lifecycle ---- */

static void client_finish(struct i3client *c, int rc)
{
    if (!c->finishing) {
        c->finishing = true;
        c->result = rc;
        c->phase = C_DONE;
        lp_timer_cancel(&c->eng.loop, &c->end_timer);
        lp_timer_cancel(&c->eng.loop, &c->rcv_timer);
        lp_timer_cancel(&c->eng.loop, &c->step_timer);
        lp_run_detach_all(&c->run);
    }
    /* Wait until no worker holds a stream, then close the control connection and stop. */
    if (!lp_run_all_settled(&c->run))
        return;
    if (c->ctrl_open) {
        lp_ctrl_close(&c->ctrl);
        c->ctrl_open = false;
    }
    lp_run_emit_simple(&c->run, LP_REC_DONE);
    lp_loop_stop(&c->eng.loop);
}

static void on_wake(void *arg)
{
    struct i3client *c = arg;
    if (!atomic_exchange(&c->stop_req, false) || c->phase == C_DONE)
        return;
    lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, LP_I3E_CLIENTTERM, false, "interrupt - the client has terminated");
    lp_run_report_partial(&c->run);
    if (c->ctrl_open)
        send_state(c, LP_I3_CLIENT_TERMINATE);
    client_finish(c, LP_ECANCEL);
}

void i3c_set_auth(struct i3client *c, const struct lp_i3auth_client *a)
{
    c->auth = a;
}

struct i3client *i3c_new(const struct lp_spec *spec, const struct lp_sink *sink, char *err, size_t errlen)
{
    struct i3client *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->spec = *spec;
    c->spec.role = LP_ROLE_CLIENT;
    if (lp_engine_init(&c->eng, sink, spec->threads, err, errlen) < 0) {
        free(c);
        return NULL;
    }
    c->eng_ok = true;
    c->eng.debug = spec->report.debug;
    atomic_init(&c->stop_req, false);
    lp_run_init(&c->run, &c->eng, &c->spec, 1);
    c->run.cookie = c->cookie;
    c->run.on_event = on_stream;
    c->run.owner = c;
    lp_timer_init(&c->end_timer, on_end_timer);
    lp_timer_init(&c->rcv_timer, on_rcv_timer);
    lp_timer_init(&c->step_timer, on_step_timeout);
    c->eng.loop.on_wake = on_wake;
    c->eng.loop.on_wake_arg = c;
    return c;
}

void i3c_stop(struct i3client *c)
{
    atomic_store(&c->stop_req, true);
    lp_loop_wake(&c->eng.loop);
}

static int connect_control(struct i3client *c)
{
    char err[300];
    int rc = lp_sock_resolve(c->spec.host, c->spec.port, c->spec.family, SOCK_STREAM, false, &c->server, err,
                             sizeof(err));
    struct lp_record rec = {.kind = LP_REC_CONNECTING, .role = LP_ROLE_CLIENT, .test_id = 1};
    snprintf(rec.u.connecting.peer.host, sizeof(rec.u.connecting.peer.host), "%s", c->spec.host);
    rec.u.connecting.peer.port = c->spec.port;
    lp_engine_emit(&c->eng, &rec);
    if (rc < 0) {
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "unable to connect to server: %s", err);
        return LP_ERESOLVE;
    }
    struct lp_addr b;
    bool use_bind = c->spec.bind_addr[0] != '\0';
    if (use_bind) {
        enum lp_family fam = c->server.ss.ss_family == AF_INET6 ? LP_FAMILY_INET6 : LP_FAMILY_INET;
        if (lp_sock_resolve(c->spec.bind_addr, 0, fam, SOCK_STREAM, true, &b, err, sizeof(err)) < 0) {
            lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "unable to bind: %s", err);
            return LP_ERESOLVE;
        }
    }
    /* A -C or --bind-dev this host refuses fails here, named, before a test starts on the server. */
    int socktype = c->spec.proto == LP_PROTO_UDP ? SOCK_DGRAM : SOCK_STREAM;
    if ((rc = lp_sock_check_spec(-1, c->server.ss.ss_family, &c->spec, socktype, err, sizeof(err))) < 0) {
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "%s", err);
        return rc;
    }
    int fd = lp_sock_connect(&c->server, use_bind ? &b : NULL, SOCK_STREAM, NULL, c->spec.connect_timeout_ms);
    if (fd < 0) {
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "unable to connect to server %s port %u: %s",
                        c->spec.host, (unsigned)c->spec.port, strerror(-fd));
        return fd;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (lp_ctrl_open(&c->ctrl, &c->eng.loop, fd, on_ctrl, c) < 0) {
        close(fd);
        return -ENOMEM;
    }
    c->ctrl_open = true;
    lp_i3_new_cookie(c->cookie);
    lp_sock_peer(fd, &c->run.ctrl_peer);
    DBG(c, "control connection to %s port %u up; sending cookie %s", c->spec.host, (unsigned)c->spec.port,
        c->cookie);
    lp_ctrl_send(&c->ctrl, c->cookie, LP_I3_COOKIE_SIZE);
    arm_step(c);
    return 0;
}

int i3c_run(struct i3client *c)
{
    int rc = connect_control(c);
    if (rc < 0) {
        lp_run_emit_simple(&c->run, LP_REC_DONE);
        return rc;
    }
    lp_loop_run(&c->eng.loop);
    return c->result;
}

void i3c_free(struct i3client *c)
{
    if (!c)
        return;
    if (c->ctrl_open)
        lp_ctrl_close(&c->ctrl);
    /* Workers first: until they stop, one may still hold a stream (and its queue nodes). */
    if (c->eng_ok)
        lp_workers_stop(&c->eng.workers);
    lp_run_release(&c->run);
    lp_peer_results_release(&c->peer);
    if (c->eng_ok)
        lp_engine_fini(&c->eng);
    free(c);
}

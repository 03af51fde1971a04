/* iperf2 client: one test against an iperf2 (or linkperf) server, or a board. No control
 * connection: each stream starts with iperf2's header; TCP ends with a half-close and the
 * server's EOF, UDP with the FIN/report exchange. -d/-r legs arrive on our own listener.
 * Setup blocks briefly on the caller's thread; the test runs on the control loop. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/bounce.h"
#include "core/clock.h"
#include "core/run.h"
#include "linkperf/engine.h"
#include "net/sock.h"
#include "proto/client.h"
#include "proto/i2_udp.h"
#include "proto/i3_common.h"
#include "wire/iperf2.h"
#include "wire/iperf2_bb.h"

#define I2C_MAX_FLOWS (2 * LP_MAX_STREAMS + LP_MAX_STREAMS)
#define I2C_RX_SLOP_NS (2ull * LP_NS_PER_S)     /* a receiving side waits this much longer */
#define I2C_HELLO_TRIES 100u                     /* -R over UDP: header datagrams until data comes */
#define I2C_HELLO_GAP_NS (20ull * LP_NS_PER_MS)

struct i2client;

struct i2flow {
    struct i2client *c;
    unsigned rs;
    bool sends, done, leg;
    bool load;                      /* --bounceback-congest: an ordinary test beside the exchanges */
    enum lp_dir dir;                /* its connection's direction */
    struct lp_handler eof_h;        /* TCP sender after its half-close: reads until the EOF */
    bool eof_wait;
    struct lp_i2_fin fin;           /* UDP sender */
    bool got_report;
    struct lp_i2_report report;
    struct lp_i2_reporter reporter; /* UDP receiver of a -d/-r leg: answers the server's FINs */
    uint8_t *dgram;                 /* UDP sender: its datagram, for the FINs */
};

/* An iperf2 client. Owned by lp_client (i2c_free); owns its engine, its run and its
 * streams, its flows, the -d/-r listener and the -F file descriptor. */
struct i2client {
    struct lp_engine eng;
    bool eng_ok;
    struct lp_spec spec;
    struct lp_spec load;            /* --bounceback-congest: what its connections ask for */
    struct lp_run run;
    struct lp_addr server;
    bool udp;
    int file_fd;
    uint8_t tmpl[LP_I2_TRIP_UDP_HDR_LEN]; /* UDP: the header after each datagram's prefix */
    uint32_t trip_sec, trip_usec;       /* --trip-times: our start time, in headers and bursts */
    size_t tmpl_len;
    struct i2flow *flows[I2C_MAX_FLOWS];
    unsigned nflows;
    /* -d / -r: where the server connects back */
    struct lp_handler lis_h;
    int lis_fd;
    unsigned legs_expected, legs_got;
    bool forward_over;
    struct lp_timer lis_timer, end_timer, guard_timer, hello_timer, linger_timer;
    unsigned hello_sent;
    atomic_bool stop_req;
    bool finishing;
    bool bb_grace;           /* --bounceback: the end timer gave the last exchanges time */
    int result;
};

static void check_done(struct i2client *c);

#define DBG(c, ...) lp_engine_debug(&(c)->eng, LP_ROLE_CLIENT, 1, __VA_ARGS__)

static struct lp_run_stream *rs_of(struct i2flow *f)
{
    return &f->c->run.streams[f->rs];
}

static void warn(struct i2client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct i2client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lp_engine_verror(&c->eng, LP_ROLE_CLIENT, 1, 0, false, fmt, ap);
    va_end(ap);
}

/* ---- the end ---- */

static void finish(struct i2client *c, int rc)
{
    if (!c->finishing) {
        c->finishing = true;
        c->result = rc;
        lp_timer_cancel(&c->eng.loop, &c->lis_timer);
        lp_timer_cancel(&c->eng.loop, &c->end_timer);
        lp_timer_cancel(&c->eng.loop, &c->guard_timer);
        lp_timer_cancel(&c->eng.loop, &c->hello_timer);
        lp_timer_cancel(&c->eng.loop, &c->linger_timer);
        for (unsigned i = 0; i < c->nflows; i++) {
            struct i2flow *f = c->flows[i];
            lp_i2_fin_cancel(&f->fin);
            lp_i2_reporter_cancel(&f->reporter);
            if (f->eof_wait) {
                lp_loop_del(&c->eng.loop, &f->eof_h);
                f->eof_wait = false;
            }
        }
        lp_run_detach_all(&c->run);
    }
    if (!lp_run_all_settled(&c->run))
        return;
    lp_run_emit_simple(&c->run, LP_REC_DONE);
    lp_loop_stop(&c->eng.loop);
}

static void fail(struct i2client *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct i2client *c, int rc, const char *fmt, ...)
{
    if (c->finishing)
        return;
    va_list ap;
    va_start(ap, fmt);
    lp_engine_verror(&c->eng, LP_ROLE_CLIENT, 1, 0, true, fmt, ap);
    va_end(ap);
    lp_run_report_partial(&c->run);
    finish(c, rc);
}

/* The server's UDP reports, as the peer's side of each forward stream. */
static void peer_reports(struct i2client *c, struct lp_peer_results *peer)
{
    memset(peer, 0, sizeof(*peer));
    peer->sender_has_retransmits = -1;
    for (unsigned i = 0; i < c->nflows && peer->nstreams < LP_PEER_MAX_STREAMS; i++) {
        struct i2flow *f = c->flows[i];
        if (!f->got_report)
            continue;
        lp_i2_report_to_result(&f->report, rs_of(f)->conn.sid.id, &peer->streams[peer->nstreams++]);
    }
}

static void emit_end(struct i2client *c)
{
    struct lp_peer_results peer;
    peer_reports(c, &peer);
    lp_run_finish(&c->run);
    lp_run_emit_end(&c->run, peer.nstreams ? &peer : NULL, false, NULL, NULL);
}

/* -r: the forward test is over once every sender is (and, UDP, its FIN exchange: the
 * server's report belongs to the leg's summary); the server's leg follows. */
static void check_forward_over(struct i2client *c)
{
    if (!c->spec.iperf2.tradeoff || c->forward_over || c->finishing)
        return;
    for (unsigned i = 0; i < c->nflows; i++) {
        const struct i2flow *f = c->flows[i];
        if (f->sends && (!f->done || f->fin.active))
            return;
    }
    c->forward_over = true;
    struct lp_peer_results peer;
    peer_reports(c, &peer);
    lp_run_emit_leg_end(&c->run, peer.nstreams ? &peer : NULL); /* the first leg's summary, now */
    lp_timer_arm(&c->eng.loop, &c->lis_timer, lp_now_ns() + (uint64_t)((c->spec.duration_s + 3) * 1e9));
}

static void check_done(struct i2client *c)
{
    if (c->finishing)
        return;
    for (unsigned i = 0; i < c->nflows; i++) {
        struct i2flow *f = c->flows[i];
        if (!f->done || f->fin.active || f->reporter.active || f->eof_wait)
            return;
    }
    if (c->legs_got < c->legs_expected)
        return;
    emit_end(c);
    finish(c, 0);
}

/* ---- senders ---- */

static void on_fin_done(struct lp_i2_fin *fin, bool got, const struct lp_i2_report *r)
{
    struct i2flow *f = fin->owner;
    if (got) {
        f->got_report = true;
        f->report = *r;
    } else if (fin->wait_report) {
        warn(f->c, "WARNING: did not receive ack of last datagram after 10 tries.");
    }
    check_forward_over(f->c);
    check_done(f->c);
}

static void eof_seen(struct i2flow *f)
{
    if (f->eof_wait) {
        lp_loop_del(&f->c->eng.loop, &f->eof_h);
        f->eof_wait = false;
    }
    check_done(f->c);
}

/* After our half-close the server reads to the end and closes: its EOF ends the stream. */
static void on_eof_io(struct lp_handler *h, uint32_t events)
{
    struct i2flow *f = lp_container_of(h, struct i2flow, eof_h);
    (void)events;
    char buf[4096];
    for (;;) {
        ssize_t r = recv(h->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (r > 0)
            continue; /* the server's header ack, or -d data we do not count */
        if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            eof_seen(f);
        return;
    }
}

static void on_linger(struct lp_timer *t)
{
    struct i2client *c = lp_container_of(t, struct i2client, linger_timer);
    for (unsigned i = 0; i < c->nflows; i++)
        if (c->flows[i]->eof_wait)
            eof_seen(c->flows[i]);
}

static bool multicast_dest(const struct i2client *c)
{
    const struct sockaddr_storage *ss = &c->server.ss;
    if (ss->ss_family == AF_INET)
        return IN_MULTICAST(ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr));
    return ss->ss_family == AF_INET6 && IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

static void sender_ended(struct i2flow *f)
{
    struct i2client *c = f->c;
    struct lp_stream *ds = rs_of(f)->ds;
    f->done = true;
    lp_run_stream_ended(&c->run, rs_of(f));
    if (!c->udp) {
        shutdown(ds->h.fd, SHUT_WR);
        if (f->dir == LP_DIR_BIDIR)
            return; /* full duplex: the receiving half sees the server's EOF */
        f->eof_h.fd = ds->h.fd;
        f->eof_h.fn = on_eof_io;
        f->eof_wait = lp_loop_add(&c->eng.loop, &f->eof_h, EPOLLIN) == 0;
        /* iperf2 waits max(t, 2 s) for the server to close. */
        double wait = c->spec.duration_s > 2 ? c->spec.duration_s : 2;
        if (f->eof_wait && !lp_timer_armed(&c->linger_timer))
            lp_timer_arm(&c->eng.loop, &c->linger_timer, lp_now_ns() + (uint64_t)(wait * 1e9));
        return;
    }
    bool wait = c->spec.dir == LP_DIR_FORWARD && !c->spec.iperf2.no_udp_fin && !multicast_dest(c);
    if (!f->dgram) {
        f->fin.active = false;
        return;
    }
    /* The receiver counts the first FIN as data: count it before lp_i2_fin_start, which can
     * end the test at once when there is no report to wait for (it fails only when out of
     * memory). */
    uint64_t last = lp_stream_next_seq(ds) - 1;
    /* --isochronous: the FINs repeat the last frame's block, as 2.1.8's (the stream is
     * settled: its datagram buffer holds the last one sent). */
    if (ds->iso && ds->cfg.blksize >= LP_I2_ISOCH_AT + LP_I2_ISOCH_LEN)
        memcpy(f->dgram + LP_I2_ISOCH_AT, ds->payload + LP_I2_ISOCH_AT, LP_I2_ISOCH_LEN);
    lp_stream_add_tx(ds, ds->cfg.blksize, 1);
    if (lp_i2_fin_start(&f->fin, &c->eng.loop, ds->h.fd, f->dgram, ds->cfg.blksize, last, wait, on_fin_done, f) < 0)
        f->fin.active = false;
}

/* A --bounceback stream ends itself once its last burst is over (2.1.8 finishes the burst
 * it is in); it is cut only if its server stops answering for LP_BB_END_GRACE_NS after -t. */

static void stop_senders(struct i2client *c, bool load_only)
{
    for (unsigned i = 0; i < c->nflows; i++) {
        struct i2flow *f = c->flows[i];
        if (f->sends && !f->done && (f->load || !load_only))
            lp_stream_detach(rs_of(f)->ds);
    }
}

/* The load of --bounceback-congest stops at its -t, as any test; the exchanges get grace. */
static void on_end_timer(struct lp_timer *t)
{
    struct i2client *c = lp_container_of(t, struct i2client, end_timer);
    if (c->spec.iperf2.bb.on && !c->bb_grace) {
        c->bb_grace = true;
        stop_senders(c, true);
        lp_timer_arm(&c->eng.loop, &c->end_timer, lp_now_ns() + LP_BB_END_GRACE_NS);
        return;
    }
    stop_senders(c, false);
}

/* ---- receivers ---- */

static void on_report_done(struct lp_i2_reporter *r, bool acked)
{
    struct i2flow *f = r->owner;
    if (!acked)
        warn(f->c, "WARNING: ack of last datagram failed.");
    check_done(f->c);
}

static void receiver_ended(struct i2flow *f)
{
    struct i2client *c = f->c;
    struct lp_run_stream *rs = rs_of(f);
    f->done = true;
    lp_run_stream_ended(&c->run, rs);
    if (!c->udp || !f->leg || !rs->ds->fin_seen)
        return;
    /* A -d/-r leg's server waits for our report, as we wait for its own. */
    struct lp_stream_counters k;
    lp_stream_read(rs->ds, &k);
    uint64_t dur = (rs->end_ns ? rs->end_ns : lp_now_ns()) - (rs->start_ns ? rs->start_ns : c->run.meas_ns);
    struct lp_i2_report rep = {
        .flags = LP_I2_VERSION1 | LP_I2_SEQNO64B,
        .bytes = k.bytes,
        .stop_sec = (uint32_t)(dur / LP_NS_PER_S),
        .stop_usec = (uint32_t)(dur % LP_NS_PER_S / 1000),
        .errors = k.lost > 0 ? (uint64_t)k.lost : 0,
        .out_of_order = k.out_of_order,
        .datagrams = k.max_seq,
    };
    lp_i2_report_set_jitter(&rep, k.jitter_s); /* from the server's timestamps: saturates */
    lp_i2_reporter_start(&f->reporter, &c->eng.loop, rs->ds->h.fd, &rep, on_report_done, f);
}

static void on_guard(struct lp_timer *t)
{
    struct i2client *c = lp_container_of(t, struct i2client, guard_timer);
    /* The server should have stopped sending by now: stop waiting for its EOF or FIN. */
    for (unsigned i = 0; i < c->nflows; i++) {
        struct i2flow *f = c->flows[i];
        if (!f->sends && !f->done)
            lp_stream_detach(rs_of(f)->ds);
    }
}

static void on_stream(struct lp_run *r, struct lp_run_stream *rs, enum lp_stream_event ev)
{
    struct i2client *c = r->owner;
    struct i2flow *f = NULL;
    for (unsigned i = 0; i < c->nflows; i++)
        if (&r->streams[c->flows[i]->rs] == rs)
            f = c->flows[i];
    if (c->finishing) {
        finish(c, c->result);
        return;
    }
    if (!f || ev == LP_SEV_RX_TARGET || ev == LP_SEV_FROZEN || !rs->settled)
        return;
    if (ev == LP_SEV_ERROR && f->sends && !f->done) {
        int e = atomic_load(&rs->ds->error);
        if (c->spec.iperf2.bb.on && !f->load && e == -EPROTO)
            fail(c, e, "the server answered with something that is not a bounceback message (it needs "
                       "an iperf 2.1 or linkperf server)");
        else
            fail(c, e, "data stream failed: %s", strerror(-e));
        return;
    }
    /* A bounceback client ends itself; the server closing first is its refusal (an iperf2
     * 2.0 server, a permit key, a limit) or its end. */
    if (ev == LP_SEV_EOF && c->spec.iperf2.bb.on && !f->load && !f->done) {
        fail(c, -ECONNRESET, "the server closed the connection in a bounceback exchange (iperf 2.1 and "
                             "linkperf servers serve --bounceback)");
        return;
    }
    if (!f->done) {
        if (f->sends)
            sender_ended(f);
        else
            receiver_ended(f);
    }
    check_forward_over(c);
    check_done(c);
}

/* ---- streams ---- */

/* A flow of the bounceback exchanges, of the --bounceback-congest load, or of any other test. */
enum i2c_kind { I2C_PLAIN, I2C_LOAD };

static struct i2flow *add_flow(struct i2client *c, int fd, bool sends, bool reverse, bool initiator, bool leg,
                               int id, enum i2c_kind kind)
{
    if (c->nflows >= I2C_MAX_FLOWS) {
        close(fd);
        return NULL;
    }
    struct i2flow *f = calloc(1, sizeof(*f));
    struct lp_run_stream *rs = f ? lp_run_add_stream(&c->run, fd, c->nflows) : NULL;
    if (!rs) {
        if (!f)
            close(fd);
        free(f);
        return NULL;
    }
    f->c = c;
    f->rs = (unsigned)(rs - c->run.streams);
    f->sends = sends;
    f->leg = leg;
    f->load = kind == I2C_LOAD;
    /* --trip-times over TCP: we send bursts; on our own connection (-R, full duplex) a 2.1
     * server sends its 80-byte header and then bursts too. (-d/-r legs are plain.) */
    bool trip = c->spec.iperf2.trip_times && !c->udp && !leg;
    bool trip_tx = trip && sends, trip_rx = trip && !sends;
    /* Our datagrams carry the header (or zeros with -C, never digits a 2.1 server misreads);
     * TCP sends it once before the data. */
    struct lp_run_role role = {.sends = sends, .reverse = reverse, .initiator = initiator,
                               .id = id ? id : (int)c->nflows + 1,
                               .wire = LP_WIRE_IPERF2, .udp_template = sends && c->udp ? c->tmpl : NULL,
                               .udp_template_len = sends && c->udp ? c->tmpl_len : 0,
                               .file_fd = sends ? c->file_fd : -1, .no_budget = !sends,
                               .latency = !sends && (c->udp || trip_rx),
                               .trip_bursts = trip_tx || trip_rx,
                               .skip_lead = trip_rx ? LP_I2_TRIP_TCP_HDR_LEN : 0,
                               .trip_start_sec = c->trip_sec, .trip_start_usec = c->trip_usec};
    if (sends && c->spec.iperf2.isoch.on && !leg && !f->load)
        role.isoch = lp_isoch_config_of(&c->spec.iperf2.isoch);
    if (c->spec.iperf2.bb.on && !f->load) {
        lp_run_bounce_role(&c->spec, true, (uint64_t)(c->spec.duration_s * 1e9), &role);
        role.bb.delay_ns = (uint64_t)(c->spec.iperf2.bb.txdelay_s * 1e9);
    }
    if (lp_run_setup_stream(&c->run, rs, &role) < 0) {
        free(f);
        return NULL;
    }
    if (sends && c->udp) {
        f->dgram = malloc(rs->ds->cfg.blksize);
        if (f->dgram)
            memcpy(f->dgram, rs->ds->payload, rs->ds->cfg.blksize);
    }
    c->flows[c->nflows++] = f;
    return f;
}

static void header_for(const struct i2client *c, const struct lp_spec *sp, struct lp_i2_header *h)
{
    memset(h, 0, sizeof(*h));
    if (sp->iperf2.dual)
        h->flags = LP_I2_VERSION1 | LP_I2_RUN_NOW;
    else if (sp->iperf2.tradeoff)
        h->flags = LP_I2_VERSION1;
    if (sp->dir == LP_DIR_REVERSE) {
        h->flags |= LP_I2_VERSION2;
        h->upper |= LP_I2_UP_REVERSE;
    } else if (sp->dir == LP_DIR_BIDIR) {
        h->flags |= LP_I2_VERSION2;
        h->upper |= LP_I2_UP_FULLDUPLEX | (c->udp ? LP_I2_UP_NOUDPFIN : 0);
    }
    if (sp->iperf2.no_udp_fin && c->udp)
        h->upper |= LP_I2_UP_NOUDPFIN;
    if (sp->iperf2.isoch.on)
        h->upper |= LP_I2_UP_ISOCH; /* 2.1.8 sends no ISOCH_SETTINGS: the frame block tells */
    if (sp->iperf2.trip_times) {
        h->upper |= LP_I2_UP_TRIPTIME;
        h->start_sec = c->trip_sec;
        h->start_usec = c->trip_usec;
    } else if (sp->iperf2.isoch.on && !c->udp) {
        /* 2.1.8's TCP frames: its 80-byte header with the start time, no TRIPTIME flag */
        h->start_sec = c->trip_sec;
        h->start_usec = c->trip_usec;
    }
    h->num_threads = (int32_t)sp->streams;
    h->mport = sp->iperf2.listen_port ? sp->iperf2.listen_port : sp->port;
    h->buflen = sp->blksize;
    if (sp->bytes) /* iperf2's -n is per connection: the header carries it as given */
        h->amount = (int32_t)(sp->bytes > 0x7fffffff ? 0x7fffffff : sp->bytes);
    else
        h->amount = lp_i2_amount_from_seconds(sp->duration_s > 0 ? sp->duration_s : LP_MAX_DURATION_S);
    h->tos = sp->tos > 0 ? (uint16_t)sp->tos : 0;
    h->rate_bps = sp->rate_bps;
    /* The load of --bounceback-congest asks for the exchanges' quickack (2.1.8 copies it),
     * and sends -l only when the user set one (100 is the bounceback default). */
    if (sp == &c->load) {
        h->upper |= sp->iperf2.bb.no_quickack ? 0 : LP_I2_UP_TCPQUICKACK;
        h->buflen = sp->blksize == LP_I2_BB_DEFAULT ? 0 : sp->blksize;
    }
}

static void emit_connecting(struct i2client *c, int fd)
{
    struct lp_record rec = {.kind = LP_REC_CONNECTING, .role = LP_ROLE_CLIENT, .test_id = 1};
    snprintf(rec.u.connecting.peer.host, sizeof(rec.u.connecting.peer.host), "%s", c->spec.host);
    rec.u.connecting.peer.port = c->spec.port;
    rec.u.connecting.dialect = LP_DIALECT_IPERF2;
    rec.u.connecting.proto = c->spec.proto;
    int rcv;
    lp_sock_bufsizes(fd, &rec.u.connecting.window, &rcv);
    rec.u.connecting.window_requested = c->spec.window_bytes > 0;
    lp_engine_emit(&c->eng, &rec);
}

/* A connection's flows: the one its direction names and, with --full-duplex, a receiving
 * one on a dup of the socket (one flow per direction, as the run counts them). */
static int add_flows(struct i2client *c, int fd, enum lp_dir dir, int id, enum i2c_kind kind)
{
    struct i2flow *f = add_flow(c, fd, dir != LP_DIR_REVERSE, dir == LP_DIR_REVERSE, true, false, id, kind);
    if (!f)
        return -ENOMEM;
    f->dir = dir;
    if (dir == LP_DIR_BIDIR) {
        int dfd = dup(fd);
        struct i2flow *rx = dfd < 0 ? NULL : add_flow(c, dfd, false, true, true, false, rs_of(f)->conn.sid.id, kind);
        if (!rx)
            return -ENOMEM;
        rx->dir = dir;
    }
    return 0;
}

/* A TCP connection of sp's test (the client's own, or its --bounceback-congest load's). */
static int open_tcp(struct i2client *c, const struct lp_spec *sp, unsigned n, int id, enum i2c_kind kind)
{
    int fd = lp_client_tcp_stream(sp, &c->server, n);
    if (fd < 0)
        return fd;
    /* --bounceback has no test header: its messages say what the server needs. */
    if (!sp->iperf2.compat && (!sp->iperf2.bb.on || kind == I2C_LOAD)) {
        uint8_t hdr[LP_I2_TRIP_TCP_HDR_LEN + 2 + LP_I2_KEY_MAX];
        struct lp_i2_header h;
        header_for(c, sp, &h);
        /* --permit-key: 2.1.8's keyed header, the key right after it (the CLI bounds it). */
        const char *key = c->spec.iperf2.permit_key;
        size_t kl = strnlen(key, sizeof(c->spec.iperf2.permit_key));
        size_t hl = kl ? lp_i2_header_encode_keyed(hdr, sizeof(hdr), &h, (const uint8_t *)key, kl)
                       : lp_i2_header_encode(hdr, sizeof(hdr), &h);
        if (!hl) {
            close(fd);
            return -EINVAL;
        }
        int err = lp_i3_write_all(fd, hdr, hl, 10000);
        if (err < 0) {
            close(fd);
            return err;
        }
    }
    DBG(c, "TCP stream %u connected%s", n + 1,
        sp->iperf2.compat                        ? " (no header: -C)"
        : sp->iperf2.bb.on && kind != I2C_LOAD ? " (bounceback: no header)"
                                                 : ", header sent");
    return add_flows(c, fd, sp->dir, id, kind);
}

static int open_udp(struct i2client *c, unsigned n)
{
    int fd = lp_client_udp_stream(&c->spec, &c->server, n);
    if (fd < 0)
        return fd;
    /* --ttl: used only when a datagram goes out, so it may come after connect(). */
    if (c->spec.iperf2.mcast_ttl > 0) {
        int ttl = c->spec.iperf2.mcast_ttl;
        if (c->server.ss.ss_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &ttl, sizeof(ttl));
        else
            setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl));
    }
    return add_flows(c, fd, c->spec.dir, 0, I2C_PLAIN);
}

/* -R over UDP: the server learns of us from our header datagram; repeat it until data flows. */
static void send_hello(struct i2client *c)
{
    uint8_t d[LP_I2_UDP_PREFIX + sizeof(c->tmpl)]; /* the template grew with --trip-times */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    lp_i2_udp_prefix_put(d, 1, (uint32_t)ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000));
    memcpy(d + LP_I2_UDP_PREFIX, c->tmpl, c->tmpl_len);
    for (unsigned i = 0; i < c->nflows; i++) {
        struct lp_stream *ds = rs_of(c->flows[i])->ds;
        if (!c->flows[i]->sends && !c->flows[i]->leg) {
            ssize_t w = send(ds->h.fd, d, LP_I2_UDP_PREFIX + c->tmpl_len, MSG_DONTWAIT);
            (void)w;
        }
    }
    c->hello_sent++;
}

static void on_hello(struct lp_timer *t)
{
    struct i2client *c = lp_container_of(t, struct i2client, hello_timer);
    struct lp_stream_counters k;
    lp_stream_read(rs_of(c->flows[0])->ds, &k);
    if (k.bytes || c->hello_sent >= I2C_HELLO_TRIES)
        return;
    send_hello(c);
    lp_timer_arm(&c->eng.loop, &c->hello_timer, lp_now_ns() + I2C_HELLO_GAP_NS);
}

/* ---- -d / -r: our listener ---- */

static void accept_leg(struct i2client *c, int fd)
{
    struct i2flow *f = add_flow(c, fd, false, true, false, true, 0, I2C_PLAIN);
    if (!f)
        return;
    c->legs_got++;
    lp_run_attach_stream(&c->run, rs_of(f));
    lp_run_emit_start(&c->run);
    if (c->legs_got >= c->legs_expected) {
        lp_timer_cancel(&c->eng.loop, &c->lis_timer);
        lp_loop_del(&c->eng.loop, &c->lis_h);
    }
}

static void on_listener(struct lp_handler *h, uint32_t events)
{
    struct i2client *c = lp_container_of(h, struct i2client, lis_h);
    (void)events;
    if (c->finishing || c->legs_got >= c->legs_expected)
        return;
    if (!c->udp) {
        struct sockaddr_storage peer;
        socklen_t pl = sizeof(peer);
        int fd = accept4(c->lis_fd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (!lp_sock_same_host(&peer, &c->server.ss)) {
            close(fd); /* only the server we tested may connect back */
            return;
        }
        accept_leg(c, fd);
        return;
    }
    /* UDP: the first datagram names the server's sending socket; the listener socket becomes
     * the leg (connected to it), and the datagram counts. */
    uint8_t buf[256];
    struct sockaddr_storage peer;
    socklen_t pl = sizeof(peer);
    ssize_t r = recvfrom(c->lis_fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC, (struct sockaddr *)&peer, &pl);
    if (r < (ssize_t)LP_I2_UDP_PREFIX || !lp_sock_same_host(&peer, &c->server.ss))
        return;
    if (connect(c->lis_fd, (struct sockaddr *)&peer, pl) < 0)
        return;
    lp_loop_del(&c->eng.loop, &c->lis_h);
    int fd = c->lis_fd;
    c->lis_fd = -1;
    struct i2flow *f = add_flow(c, fd, false, true, false, true, 0, I2C_PLAIN);
    if (!f)
        return;
    c->legs_got++;
    lp_timer_cancel(&c->eng.loop, &c->lis_timer);
    /* The datagram's real length (MSG_TRUNC) counts; only its first bytes are read. */
    lp_stream_udp_account(rs_of(f)->ds, buf, (size_t)r, lp_wall_ns());
    lp_run_attach_stream(&c->run, rs_of(f));
    lp_run_emit_start(&c->run);
}

static void on_lis_timeout(struct lp_timer *t)
{
    struct i2client *c = lp_container_of(t, struct i2client, lis_timer);
    if (c->legs_got >= c->legs_expected)
        return;
    warn(c, "ERROR: expected reverse connect did not occur");
    c->legs_expected = c->legs_got;
    check_done(c);
}

static int open_listener(struct i2client *c, char *err, size_t errlen)
{
    struct lp_addr a;
    uint16_t port = c->spec.iperf2.listen_port ? c->spec.iperf2.listen_port : c->spec.port;
    enum lp_family fam = c->server.ss.ss_family == AF_INET6 ? LP_FAMILY_INET6 : LP_FAMILY_ANY;
    int rc = lp_sock_resolve(c->spec.bind_addr[0] ? c->spec.bind_addr : NULL, port, fam,
                             c->udp ? SOCK_DGRAM : SOCK_STREAM, true, &a, err, errlen);
    if (rc < 0)
        return rc;
    c->lis_fd = lp_sock_listen(&a, c->udp ? SOCK_DGRAM : SOCK_STREAM, 16);
    if (c->lis_fd < 0) {
        snprintf(err, errlen, "cannot listen on port %u for the server's connection back: %s", (unsigned)port,
                 strerror(-c->lis_fd));
        return c->lis_fd;
    }
    c->lis_h.fd = c->lis_fd;
    c->lis_h.fn = on_listener;
    c->legs_expected = c->spec.streams;
    struct lp_record rec = {.kind = LP_REC_LISTENING, .role = LP_ROLE_CLIENT, .test_id = 1};
    rec.u.listening.port = port;
    int snd;
    lp_sock_bufsizes(c->lis_fd, &snd, c->udp ? &rec.u.listening.udp_buffer : &rec.u.listening.tcp_window);
    lp_engine_emit(&c->eng, &rec);
    return lp_loop_add(&c->eng.loop, &c->lis_h, EPOLLIN);
}

/* ---- lifecycle ---- */

static void on_wake(void *arg)
{
    struct i2client *c = arg;
    if (!atomic_exchange(&c->stop_req, false) || c->finishing)
        return;
    lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, false, "interrupt - the client has terminated");
    lp_run_report_partial(&c->run);
    finish(c, LP_ECANCEL);
}

struct i2client *i2c_new(const struct lp_spec *spec, const struct lp_sink *sink, char *err, size_t errlen)
{
    struct i2client *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->spec = *spec;
    c->spec.role = LP_ROLE_CLIENT;
    c->udp = spec->proto == LP_PROTO_UDP;
    c->file_fd = -1;
    c->lis_fd = -1;
    if (lp_engine_init(&c->eng, sink, spec->threads, err, errlen) < 0) {
        free(c);
        return NULL;
    }
    c->eng_ok = true;
    c->eng.debug = spec->report.debug;
    atomic_init(&c->stop_req, false);
    lp_run_init(&c->run, &c->eng, &c->spec, 1);
    c->run.on_event = on_stream;
    c->run.owner = c;
    lp_timer_init(&c->lis_timer, on_lis_timeout);
    lp_timer_init(&c->end_timer, on_end_timer);
    lp_timer_init(&c->guard_timer, on_guard);
    lp_timer_init(&c->hello_timer, on_hello);
    lp_timer_init(&c->linger_timer, on_linger);
    c->eng.loop.on_wake = on_wake;
    c->eng.loop.on_wake_arg = c;
    return c;
}

void i2c_stop(struct i2client *c)
{
    atomic_store(&c->stop_req, true);
    lp_loop_wake(&c->eng.loop);
}

/* -F file, or -I: standard input copied into an anonymous file first (sendfile needs a
 * file, and a pipe cannot be replayed). Without -t or -n the content is sent once. */
static int open_input(struct i2client *c)
{
    const char *name = c->spec.iperf2.file[0] ? c->spec.iperf2.file : "standard input";
    if (c->spec.iperf2.file[0]) {
        c->file_fd = open(c->spec.iperf2.file, O_RDONLY | O_CLOEXEC);
    } else {
        c->file_fd = memfd_create("linkperf-stdin", MFD_CLOEXEC);
        char buf[65536];
        ssize_t r;
        while (c->file_fd >= 0 && (r = read(0, buf, sizeof(buf))) != 0) {
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0 || write(c->file_fd, buf, (size_t)r) != r) {
                close(c->file_fd);
                c->file_fd = -1;
                break;
            }
        }
    }
    off_t size = c->file_fd >= 0 ? lseek(c->file_fd, 0, SEEK_END) : -1;
    if (size < 0) {
        int e = errno;
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "cannot read %s: %s", name, strerror(e));
        return -e;
    }
    lseek(c->file_fd, 0, SEEK_SET);
    if (c->spec.proto == LP_PROTO_UDP) {
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "-F/-I send TCP content; UDP is not supported");
        return LP_EINVAL;
    }
    if (!c->spec.bytes && c->spec.duration_s <= 0) {
        if (size == 0) {
            lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "%s is empty: nothing to send", name);
            return LP_EINVAL;
        }
        c->spec.bytes = (uint64_t)size;
        c->run.spec.bytes = (uint64_t)size;
    }
    return 0;
}

/* --bounceback-congest: 2.1.8's load, connected before the exchanges so they start under
 * it: ordinary TCP tests (full duplex, forward or -R), the bounceback's quickack and nodelay,
 * no TOS, running -t plus --bounceback-txdelay (the exchanges start that much later). Their
 * transfer ids follow the bounceback ones. */
static int open_load(struct i2client *c)
{
    const struct lp_bounceback_spec *bb = &c->spec.iperf2.bb;
    if (!bb->on || !bb->congest)
        return 0;
    c->load = c->spec;
    c->load.iperf2.bb.on = false;
    c->load.dir = bb->congest_dir;
    c->load.tos = -1;
    c->load.streams = 1;
    c->load.duration_s = c->spec.duration_s + bb->txdelay_s;
    c->load.iperf2.bb.no_quickack = bb->no_quickack;
    for (unsigned i = 0; i < bb->congest; i++) {
        int rc = open_tcp(c, &c->load, c->spec.streams + i, (int)(c->spec.streams + i + 1), I2C_LOAD);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int setup(struct i2client *c)
{
    char err[300];
    int rc = lp_sock_resolve(c->spec.host, c->spec.port, c->spec.family, c->udp ? SOCK_DGRAM : SOCK_STREAM, false,
                             &c->server, err, sizeof(err));
    if (rc < 0) {
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "unable to connect to server: %s", err);
        return LP_ERESOLVE;
    }
    if (c->spec.iperf2.file[0] || c->spec.iperf2.from_stdin) {
        rc = open_input(c);
        if (rc < 0)
            return rc;
    }
    if (c->spec.iperf2.trip_times || (c->spec.iperf2.isoch.on && !c->udp)) {
        uint64_t w = lp_wall_ns();
        c->trip_sec = (uint32_t)(w / LP_NS_PER_S);
        c->trip_usec = (uint32_t)(w % LP_NS_PER_S / 1000);
    }
    if (c->udp) {
        struct lp_i2_header h;
        header_for(c, &c->spec, &h);
        /* -C: zeros where the header would be (a 2.1 server reads digits as flags). */
        if (c->spec.iperf2.compat)
            memset(c->tmpl, 0, sizeof(c->tmpl));
        else
            lp_i2_header_encode_udp(c->tmpl, sizeof(c->tmpl), &h);
        c->tmpl_len = sizeof(c->tmpl); /* zeros past a 60-byte header, as 2.1.x sends */
    }
    if ((c->spec.iperf2.dual || c->spec.iperf2.tradeoff) && (rc = open_listener(c, err, sizeof(err))) < 0) {
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "%s", err);
        return rc;
    }
    /* iperf2 shows the socket buffer it got before connecting. */
    int probe = socket(c->server.ss.ss_family, (c->udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    if (probe >= 0) {
        /* and a -C or --bind-dev this host refuses fails here, named */
        rc = lp_sock_check_spec(probe, 0, &c->spec, c->udp ? SOCK_DGRAM : SOCK_STREAM, err, sizeof(err));
        if (rc == 0)
            emit_connecting(c, probe);
        close(probe);
        if (rc < 0) {
            lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "%s", err);
            return rc;
        }
    }
    rc = open_load(c);
    if (rc < 0) {
        lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "unable to connect to server %s port %u: %s",
                        c->spec.host, (unsigned)c->spec.port, strerror(-rc));
        return rc;
    }
    for (unsigned i = 0; i < c->spec.streams; i++) {
        rc = c->udp ? open_udp(c, i) : open_tcp(c, &c->spec, i, (int)i + 1, I2C_PLAIN);
        if (rc < 0) {
            lp_engine_error(&c->eng, LP_ROLE_CLIENT, 1, 0, true, "unable to connect to server %s port %u: %s",
                            c->spec.host, (unsigned)c->spec.port, strerror(-rc));
            return rc;
        }
    }
    return 0;
}

int i2c_run(struct i2client *c)
{
    int rc = setup(c);
    if (rc < 0) {
        lp_run_emit_simple(&c->run, LP_REC_DONE);
        return rc;
    }
    lp_run_emit_start(&c->run);
    lp_run_prepare_budget(&c->run);
    if (c->spec.bytes) /* iperf2's -n is per connection: the streams share n of them */
        atomic_store(&c->run.budget.remaining, (int64_t)(c->spec.bytes * c->spec.streams));
    lp_run_begin(&c->run);
    uint64_t now = lp_now_ns();
    /* --bounceback-txdelay: the exchanges and the load end that much later. */
    double delay = c->spec.iperf2.bb.on ? c->spec.iperf2.bb.txdelay_s : 0;
    if (c->spec.duration_s > 0 && !c->spec.bytes)
        lp_timer_arm(&c->eng.loop, &c->end_timer, now + (uint64_t)((c->spec.duration_s + delay) * 1e9));
    bool receives = c->spec.dir != LP_DIR_FORWARD ||
                    (c->spec.iperf2.bb.congest && c->spec.iperf2.bb.congest_dir != LP_DIR_FORWARD);
    if (receives) {
        double secs = (c->spec.duration_s > 0 ? c->spec.duration_s : 10) + delay;
        lp_timer_arm(&c->eng.loop, &c->guard_timer, now + (uint64_t)(secs * 1e9) + I2C_RX_SLOP_NS + LP_NS_PER_S);
    }
    if (c->udp && c->spec.dir == LP_DIR_REVERSE) {
        send_hello(c);
        lp_timer_arm(&c->eng.loop, &c->hello_timer, now + I2C_HELLO_GAP_NS);
    }
    if (c->spec.iperf2.dual) {
        double wait = c->spec.duration_s + 2 > 3 ? c->spec.duration_s + 2 : 3;
        lp_timer_arm(&c->eng.loop, &c->lis_timer, now + (uint64_t)(wait * 1e9));
    }
    lp_loop_run(&c->eng.loop);
    return c->result;
}

void i2c_free(struct i2client *c)
{
    if (!c)
        return;
    /* Workers first: until they stop, one may still hold a stream (and its queue nodes). */
    if (c->eng_ok)
        lp_workers_stop(&c->eng.workers);
    lp_run_release(&c->run);
    for (unsigned i = 0; i < c->nflows; i++) {
        free(c->flows[i]->dgram);
        free(c->flows[i]);
    }
    if (c->lis_fd >= 0)
        close(c->lis_fd);
    if (c->file_fd >= 0)
        close(c->file_fd);
    if (c->eng_ok)
        lp_engine_fini(&c->eng);
    free(c);
}

/* iperf2 tests on the shared server. iperf2 has no control connection: each TCP connection
 * or UDP flow carries its parameters in a header. We serve plain tests, -P groups, -R and
 * --full-duplex on the client's connection, and -d/-r legs to the client's listener; UDP
 * flows end with iperf2's FIN/report exchange. Never prints: records go to the sink. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "proto/i2_udp.h"
#include "proto/server.h"
#include "wire/iperf2_bb.h"

#define I2S_UDP_FIRST_SEQ_MAX 1000                  /* a unicast flow starts below this */
#define I2S_GROUP_WINDOW_NS (3ull * LP_NS_PER_S)   /* -P connections arrive within this */
#define I2S_START_WAIT_NS (300ull * LP_NS_PER_MS)  /* then START lists what came */
#define I2S_CONNECT_TIMEOUT_NS (5ull * LP_NS_PER_S) /* a -d/-r leg must connect by then */
#define I2S_MAX_FLOWS 256
/* iperf2 UDP has no handshake: a first datagram may come from a spoofed address, and -R,
 * --full-duplex and -d/-r would make us send to whoever that names. To a peer not proven
 * (srv_peer_proven) we send at most I2S_CREDIT_DATAGRAMS datagrams plus I2S_CREDIT_MULT
 * times the bytes it sent us (a -d or full-duplex client sends as much as it asks back; a
 * -r leg follows a whole forward test), and stop when that is used up for I2S_STARVED_S. */
#define I2S_CREDIT_DATAGRAMS 8
#define I2S_CREDIT_MULT 2
#define I2S_STARVED_S 2
/* A -d/-r UDP leg's first datagrams may reach the client's listener before its thread has
 * bound it (ICMP port unreachable): only errors after this end the leg. */
#define I2S_LEG_ICMP_GRACE_NS (1000ull * LP_NS_PER_MS)
/* A UDP test is state anyone can create with one datagram, from loopback as well (a local
 * user is a stranger too): one that has received nothing but its first datagram, or whose
 * peer is not proven, ends after this much silence (not --rcv-timeout's 120 s). And iperf2
 * UDP tests together hold at most half of the server's test slots (those of peers not
 * proven a quarter), so datagrams cannot lock TCP and iperf3 clients out: udp_slots(). */
#define I2S_SHORT_IDLE_NS (10ull * LP_NS_PER_S)

struct i2test;

/* One stream of the test and what ends it. */
struct i2flow {
    struct i2test *t;
    unsigned rs;                 /* index into run.streams */
    bool sends, done, reverse_leg;
    struct lp_i2_reporter reporter; /* UDP receiver: answers the client's FINs */
    struct lp_i2_fin fin;           /* UDP sender: our FINs */
    uint8_t *dgram;                 /* UDP sender: a copy of its datagram, for the FINs */
    struct sockaddr_storage peer;   /* UDP: the source this flow was started by */
    bool got_report;                /* UDP -d/-r leg: the client's listener answered our FIN */
    struct lp_i2_report report;
};

/* A -d/-r connection to the client's listener, while it connects. */
struct i2conn {
    struct lp_handler h;
    struct i2test *t;
    uint64_t deadline_ns;
    bool active;
};

/* One iperf2 test. Owned by the server through base (freed by destroy); owns its flows, its
 * -d/-r connections and, through base.run, the streams. Borrows lis (the server's). */
struct i2test {
    struct srv_test base;        /* first: the server's list holds it */
    struct lp_i2_header hdr;     /* the first header of the test */
    int32_t group;               /* connections the client said it opens (-P) */
    unsigned nforward;
    uint64_t created_ns;
    bool udp, started, start_emitted;
    uint64_t begun_ns;           /* when the first stream started (--server-max-duration) */
    struct i2flow *flows[I2S_MAX_FLOWS];
    unsigned nflows;
    unsigned legs_wanted;        /* -d/-r connections still to open */
    bool legs_after_forward;     /* -r: open them once the forward streams ended */
    struct i2conn *conns[I2S_MAX_FLOWS];
    unsigned nconns;
    struct sockaddr_storage leg_addr;   /* the client's address with its -L port */
    bool trip_framed;            /* the client asked for --trip-times: TCP data comes in bursts */
    bool bounce;                 /* a --bounceback test: its one stream echoes */
    uint8_t bb_first[LP_I2_BB_MIN]; /* ... starting with the first message's bytes read */
    bool trip_clock_ok;          /* and its start time is within 600 s of our clock */
    socklen_t leg_len;
    const struct srv_listener *lis;     /* UDP: where the flow arrived */
    bool unproven;               /* UDP from a peer not proven: credit, short idle limit */
    bool refused_legs;           /* -d/-r to one of our own ports: never opened */
    bool credit_stopped;         /* the credit ran out: one FIN, no report awaited (a
                                  * FIN exchange repeats its FIN up to 200 times) */
    uint64_t credit_seen;        /* credit_rx at the last idle check */
    unsigned starved_s;          /* idle checks in a row starved without new credit */
    struct lp_timer send_timer, start_timer, idle_timer, connect_timer, retry_timer;
    uint64_t leg_deadline_ns;           /* give up opening -d/-r legs after this */
};

static void check_done(struct i2test *t);
static void fail(struct i2test *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define DBG(t, ...) SRV_DBG((t)->base.srv, (t)->base.run.id, __VA_ARGS__)

static struct lp_run_stream *rs_of(struct i2flow *f)
{
    return &f->t->base.run.streams[f->rs];
}

/* ---- lifecycle ---- */

static void note_udp_ended(struct lp_server *s, const struct sockaddr_storage *peer)
{
    s->udp_ended[s->udp_ended_next].addr = *peer;
    s->udp_ended[s->udp_ended_next].at_ns = lp_now_ns();
    s->udp_ended_next = (s->udp_ended_next + 1) % LP_SRV_UDP_ENDED_MAX;
}

static void destroy(struct srv_test *base)
{
    struct i2test *t = (struct i2test *)(void *)base;
    struct lp_loop *loop = &base->srv->eng.loop;
    bool sends_back = t->base.run.spec.dir != LP_DIR_FORWARD;
    for (unsigned i = 0; t->udp && sends_back && i < t->nflows; i++)
        if (t->flows[i]->peer.ss_family)
            note_udp_ended(base->srv, &t->flows[i]->peer);
    lp_timer_cancel(loop, &t->send_timer);
    lp_timer_cancel(loop, &t->start_timer);
    lp_timer_cancel(loop, &t->idle_timer);
    lp_timer_cancel(loop, &t->connect_timer);
    lp_timer_cancel(loop, &t->retry_timer);
    for (unsigned i = 0; i < t->nflows; i++) {
        lp_i2_reporter_cancel(&t->flows[i]->reporter);
        lp_i2_fin_cancel(&t->flows[i]->fin);
        free(t->flows[i]->dgram);
        free(t->flows[i]);
    }
    for (unsigned i = 0; i < t->nconns; i++) {
        if (t->conns[i]->active) {
            lp_loop_del(loop, &t->conns[i]->h);
            close(t->conns[i]->h.fd);
        }
        free(t->conns[i]);
    }
    lp_run_release(&base->run);
    free(t);
}

static void emit_start(struct i2test *t)
{
    lp_timer_cancel(&t->base.srv->eng.loop, &t->start_timer);
    t->start_emitted = true;
    lp_run_emit_start(&t->base.run);
}

static void on_start_timer(struct lp_timer *tm)
{
    emit_start(lp_container_of(tm, struct i2test, start_timer));
}

static bool legs_pending(const struct i2test *t)
{
    if (t->legs_wanted || lp_timer_armed(&t->retry_timer))
        return true;
    for (unsigned i = 0; i < t->nconns; i++)
        if (t->conns[i]->active)
            return true;
    return false;
}

/* The test is over once every stream ended, every exchange finished and no leg is due. */
static void check_done(struct i2test *t)
{
    if (t->base.unlinked)
        return;
    for (unsigned i = 0; i < t->nflows; i++) {
        struct i2flow *f = t->flows[i];
        if (!f->done || f->reporter.active || f->fin.active)
            return;
    }
    if (legs_pending(t) && !t->base.finishing)
        return;
    if (!lp_run_all_settled(&t->base.run))
        return;
    t->base.finishing = true;
    if (!t->start_emitted && t->nflows)
        emit_start(t);
    if (t->started && !t->base.run.end_emitted) {
        /* What the client's listener reported for our -d/-r UDP legs is their receiver row. */
        struct lp_peer_results peer;
        memset(&peer, 0, sizeof(peer));
        for (unsigned i = 0; i < t->nflows && peer.nstreams < LP_PEER_MAX_STREAMS; i++) {
            struct i2flow *f = t->flows[i];
            if (!f->got_report)
                continue;
            lp_i2_report_to_result(&f->report, rs_of(f)->conn.sid.id, &peer.streams[peer.nstreams++]);
        }
        lp_run_finish(&t->base.run);
        lp_run_emit_end(&t->base.run, peer.nstreams ? &peer : NULL, false, NULL, NULL);
    }
    lp_run_close_streams(&t->base.run);
    srv_test_unlink(&t->base);
}

static void abort_all(struct i2test *t)
{
    t->base.finishing = true;
    t->legs_wanted = 0;
    lp_timer_cancel(&t->base.srv->eng.loop, &t->send_timer);
    for (unsigned i = 0; i < t->nconns; i++) {
        struct i2conn *c = t->conns[i];
        if (c->active) {
            lp_loop_del(&t->base.srv->eng.loop, &c->h);
            close(c->h.fd);
            c->active = false;
        }
    }
    for (unsigned i = 0; i < t->nflows; i++) {
        struct i2flow *f = t->flows[i];
        lp_i2_reporter_cancel(&f->reporter);
        lp_i2_fin_cancel(&f->fin);
        f->done = true;
    }
    lp_run_report_partial(&t->base.run);
    lp_run_detach_all(&t->base.run);
    check_done(t);
}

static void fail(struct i2test *t, const char *fmt, ...)
{
    if (t->base.finishing)
        return;
    va_list ap;
    va_start(ap, fmt);
    lp_engine_verror(&t->base.srv->eng, LP_ROLE_SERVER, t->base.run.id, 0, true, fmt, ap);
    va_end(ap);
    abort_all(t);
}

static void interrupt(struct srv_test *base)
{
    fail((struct i2test *)(void *)base, "interrupt - the server has terminated");
}

/* ---- senders: the end of what we send ---- */

static void on_fin_done(struct lp_i2_fin *fin, bool got, const struct lp_i2_report *r)
{
    struct i2flow *f = fin->owner;
    if (got) {
        f->got_report = true;
        f->report = *r;
    }
    if (fin->wait_report && !got)
        lp_engine_error(&f->t->base.srv->eng, LP_ROLE_SERVER, f->t->base.run.id, 0, false,
                        "WARNING: did not receive ack of last datagram after 10 tries.");
    check_done(f->t);
}

/* A sender stream stopped (budget used up, deadline, error): tell the client. */
static void sender_ended(struct i2flow *f)
{
    struct i2test *t = f->t;
    struct lp_stream *ds = rs_of(f)->ds;
    f->done = true;
    lp_run_stream_ended(&t->base.run, rs_of(f));
    if (!t->udp) {
        shutdown(ds->h.fd, SHUT_WR); /* the client reads until this EOF */
    } else if (f->dgram) {
        /* A -d/-r leg ends with the FIN/report exchange; -R and full duplex with one FIN. */
        bool wait = f->reverse_leg && !(t->hdr.upper & LP_I2_UP_NOUDPFIN) && !t->credit_stopped;
        /* The receiver counts the first FIN as data. Count it before lp_i2_fin_start: without
         * a report to wait for (-R) that call can end the test and emit its numbers at once,
         * and the FIN came too late for them (it fails only when out of memory). */
        uint64_t last = lp_stream_next_seq(ds) - 1;
        lp_stream_add_tx(ds, ds->cfg.blksize, 1);
        if (lp_i2_fin_start(&f->fin, &t->base.srv->eng.loop, ds->h.fd, f->dgram, ds->cfg.blksize, last, wait,
                            on_fin_done, f) < 0)
            f->fin.active = false;
    }
}

static void on_send_deadline(struct lp_timer *tm)
{
    struct i2test *t = lp_container_of(tm, struct i2test, send_timer);
    for (unsigned i = 0; i < t->nflows; i++) {
        struct i2flow *f = t->flows[i];
        if (f->sends && !f->done)
            lp_stream_detach(rs_of(f)->ds);
    }
}

static void arm_send_deadline(struct i2test *t)
{
    double secs = lp_i2_amount_seconds(t->hdr.amount);
    if (secs > 0 && !lp_timer_armed(&t->send_timer))
        lp_timer_arm(&t->base.srv->eng.loop, &t->send_timer, lp_now_ns() + (uint64_t)(secs * 1e9));
}

/* ---- receivers ---- */

static void on_report_done(struct lp_i2_reporter *r, bool acked)
{
    struct i2flow *f = r->owner;
    if (!acked)
        lp_engine_error(&f->t->base.srv->eng, LP_ROLE_SERVER, f->t->base.run.id, 0, false,
                        "WARNING: ack of last datagram failed.");
    check_done(f->t);
}

static void fill_transit(struct lp_i2_report *rep, const struct lp_run_stream *rs, uint64_t received,
                         uint64_t dur_ns)
{
    struct lp_latency_snap now, zero = {0};
    struct lp_latency_stat st;
    lp_latency_read(&rs->ds->lat, &now);
    if (now.count == 0)
        return;
    lp_latency_stat_between(&now, &zero, now.min_ns, now.max_ns, &st);
    rep->has_transit = true;
    rep->transit_count = (uint32_t)(now.count > UINT32_MAX ? UINT32_MAX : now.count);
    rep->transit_min_s = st.min_ms / 1e3;
    rep->transit_max_s = st.max_ms / 1e3;
    rep->transit_sum_s = now.sum_ns / 1e9;
    rep->transit_mean_s = st.mean_ms / 1e3;
    rep->transit_m2_s2 = lp_latency_stat_m2(&st);
    double secs = (double)dur_ns / 1e9;
    rep->ipg_count = secs > 0 ? (uint32_t)((double)received / secs) : 0;
}

/* The client's FIN arrived: report what we received, as iperf2 servers do. */
static void udp_receiver_ended(struct i2flow *f)
{
    struct i2test *t = f->t;
    struct lp_run_stream *rs = rs_of(f);
    struct lp_stream_counters c;
    lp_stream_read(rs->ds, &c);
    uint64_t dur_ns = lp_now_ns() - t->base.run.meas_ns;
    struct lp_i2_report rep = {
        .flags = LP_I2_VERSION1 | LP_I2_SEQNO64B,
        .bytes = c.bytes,
        .stop_sec = (uint32_t)(dur_ns / LP_NS_PER_S),
        .stop_usec = (uint32_t)(dur_ns % LP_NS_PER_S / 1000),
        .errors = c.lost > 0 ? (uint64_t)c.lost : 0,
        .out_of_order = c.out_of_order,
        .datagrams = c.max_seq,
    };
    /* The jitter comes from the client's timestamps: anything, up to ~4.3e9 s (saturates). */
    lp_i2_report_set_jitter(&rep, c.jitter_s);
    /* The enhanced fields, which make a stock client print latency, when this server shows
     * latency itself: -e here, or the client asked for trip-times. */
    if (rs->ds->cfg.latency && (t->base.run.spec.report.enhanced || t->base.run.spec.iperf2.trip_times))
        fill_transit(&rep, rs, c.packets, dur_ns);
    f->done = true;
    lp_run_stream_ended(&t->base.run, rs);
    /* A multicast sender waits for no report (it could not tell whose it is). */
    if (t->lis && srv_multicast(&t->lis->local.ss)) {
        check_done(t);
        return;
    }
    lp_i2_reporter_start(&f->reporter, &t->base.srv->eng.loop, rs->ds->h.fd, &rep, on_report_done, f);
}

static void start_legs(struct i2test *t);
static void set_leg_addr(struct i2test *t, const struct sockaddr_storage *peer);
static void on_connect_timeout(struct lp_timer *tm);
static void on_leg_retry(struct lp_timer *tm);

static void on_stream(struct lp_run *r, struct lp_run_stream *rs, enum lp_stream_event ev)
{
    struct i2test *t = r->owner;
    struct i2flow *f = NULL;
    for (unsigned i = 0; i < t->nflows; i++)
        if (&r->streams[t->flows[i]->rs] == rs)
            f = t->flows[i];
    if (!f || ev == LP_SEV_RX_TARGET || ev == LP_SEV_FROZEN)
        return;
    if (!rs->settled) /* a detach we asked for will still answer */
        return;
    if (!f->done) {
        if (f->sends && rs->ds->error == -ECONNREFUSED)
            lp_engine_error(&t->base.srv->eng, LP_ROLE_SERVER, t->base.run.id, 0, false,
                            "UDP datagrams to %s port %u are refused (ICMP port unreachable): "
                            "sending stopped", rs->conn.remote.host, (unsigned)rs->conn.remote.port);
        if (f->sends)
            sender_ended(f);
        else if (t->udp && rs->ds->fin_seen)
            udp_receiver_ended(f);
        else {
            f->done = true; /* TCP EOF, or an error: the client is gone either way */
            lp_run_stream_ended(&t->base.run, rs);
            /* Close our side now, as iperf2 servers do: a 2.1.8 client times its forward
             * stream until the server's close, and a -r/-d leg still running would
             * stretch it (-r: 2 s and half the rate for -t 1). Not on a full-duplex
             * connection, whose other half still sends. */
            if (!t->udp && t->base.run.spec.dir != LP_DIR_BIDIR)
                shutdown(rs->ds->h.fd, SHUT_WR);
        }
    }
    /* -r: the reverse legs start once every forward stream ended. */
    if (t->legs_after_forward && t->legs_wanted) {
        bool forward_done = true;
        for (unsigned i = 0; i < t->nflows; i++)
            forward_done &= t->flows[i]->sends || t->flows[i]->done;
        if (forward_done) {
            t->legs_after_forward = false;
            lp_run_emit_leg_end(&t->base.run, NULL); /* the forward leg's summary, printed now */
            start_legs(t);
        }
    }
    check_done(t);
}

/* Senders to a peer not proven that found no credit for I2S_STARVED_S seconds stop, with
 * a line saying why (the peer's numbers then show what it got). */
static void credit_used_up(struct i2test *t)
{
    struct lp_stream_budget *b = &t->base.run.budget;
    uint64_t rx = atomic_load(&b->credit_rx);
    bool starved = atomic_exchange(&b->starved, false);
    t->starved_s = starved && rx == t->credit_seen ? t->starved_s + 1 : 0;
    t->credit_seen = rx;
    if (t->starved_s < I2S_STARVED_S)
        return;
    t->starved_s = 0;
    t->credit_stopped = true;
    bool stopped = false;
    for (unsigned i = 0; i < t->nflows; i++) {
        struct i2flow *f = t->flows[i];
        if (f->sends && !f->done) {
            lp_stream_detach(rs_of(f)->ds);
            stopped = true;
        }
    }
    if (stopped)
        lp_engine_error(&t->base.srv->eng, LP_ROLE_SERVER, t->base.run.id, 0, false,
                        "UDP to %s stopped after %llu bytes: nothing shows that address asked for "
                        "them (an iperf2 UDP request has no handshake, and a spoofed one looks the "
                        "same); a TCP test from it in the last %u minutes proves it",
                        t->base.run.ctrl_peer.host, (unsigned long long)atomic_load(&b->credit_tx),
                        (unsigned)(LP_SRV_PROVEN_NS / LP_NS_PER_S / 60));
}

/* A UDP test each of whose receiving flows has taken in at most its first datagram: what
 * first datagrams from anywhere make (several from one host, arriving together, may form
 * one -P group), not yet a client's test. */
static bool udp_first_datagram_only(struct i2test *t)
{
    if (!t->udp)
        return false;
    for (unsigned i = 0; i < t->nflows; i++) {
        struct lp_stream_counters k;
        if (t->flows[i]->sends)
            continue;
        lp_stream_read(rs_of(t->flows[i])->ds, &k);
        if (k.packets > 1)
            return false;
    }
    return true;
}

static void on_idle_check(struct lp_timer *tm)
{
    struct i2test *t = lp_container_of(tm, struct i2test, idle_timer);
    bool receiving = false, active = false;
    for (unsigned i = 0; i < t->nflows; i++) {
        receiving |= !t->flows[i]->sends && !t->flows[i]->done;
        active |= !t->flows[i]->done;
    }
    uint64_t limit = (uint64_t)(t->base.run.spec.rcv_timeout_ms ? t->base.run.spec.rcv_timeout_ms : 120000) *
                     LP_NS_PER_MS;
    if ((t->unproven || udp_first_datagram_only(t)) && limit > I2S_SHORT_IDLE_NS)
        limit = I2S_SHORT_IDLE_NS;
    if (t->unproven)
        credit_used_up(t);
    /* Idle since the test began when nothing was counted yet (a first datagram that did not
     * count, e.g. a FIN, stamps nothing): such a test must end on silence too. */
    /* A test with no flow left running (none yet, or all done) that has not ended is stuck
     * on some end step (CI: 1 of 32 first-datagram UDP tests stayed, cause not found): the
     * same silence ends it. */
    if ((receiving || !active) && lp_run_rx_idle_since_ns(&t->base.run, t->begun_ns) > limit) {
        fail(t, "no data from %s for %.0f s; test abandoned", t->base.run.ctrl_peer.host, (double)limit / 1e9);
        return;
    }
    /* An iperf2 header cannot be refused in words the client prints, and its amount (time or
     * bytes, up to 2^31 cs) says nothing sure about the end: the limit ends the test instead,
     * in every direction. */
    unsigned maxd = t->base.srv->spec.server_max_duration_s;
    unsigned lim = maxd ? maxd : t->base.srv->default_max_duration_s;
    if (lp_now_ns() - t->begun_ns > (uint64_t)lim * LP_NS_PER_S) {
        fail(t, "test from %s ended after %u s: %s", t->base.run.ctrl_peer.host, lim,
             maxd ? "--server-max-duration" : "the server's default maximum duration");
        return;
    }
    lp_timer_arm(&t->base.srv->eng.loop, &t->idle_timer, lp_now_ns() + LP_NS_PER_S);
}

/* ---- building the test ---- */

/* id 0: a new transfer id; else the id of the flow's other half (full duplex: one id, two
 * directions, as iperf2 numbers them). */
static struct i2flow *add_flow(struct i2test *t, int fd, bool sends, bool reverse, bool initiator,
                               const uint8_t *tmpl, size_t tmpl_len, bool seq64, int id)
{
    struct lp_run *r = &t->base.run;
    struct lp_server *s = t->base.srv;
    if (t->nflows >= I2S_MAX_FLOWS) {
        close(fd);
        return NULL;
    }
    struct i2flow *f = calloc(1, sizeof(*f));
    struct lp_run_stream *rs = f ? lp_run_add_stream(r, fd, ++s->seq) : NULL;
    if (!rs) {
        free(f);
        if (!f)
            close(fd);
        return NULL;
    }
    f->t = t;
    f->rs = (unsigned)(rs - r->streams);
    f->sends = sends;
    /* A TCP stream of a trip-times client is burst-framed whatever the clocks say; latency is
     * measured for every iperf2 UDP receiver (-e shows it, as 2.1.8 does) and for bursts.
     * The -d/-r legs we open (initiator) are plain. */
    struct lp_run_role role = {.sends = sends, .reverse = reverse, .initiator = initiator,
                               .id = id ? id : (int)++s->next_transfer_id, .wire = LP_WIRE_IPERF2,
                               .udp_seq64 = seq64,
                               .udp_template = tmpl, .udp_template_len = tmpl_len, .file_fd = -1,
                               .latency = !sends && (t->udp || t->trip_framed),
                               .icmp_stops = sends && t->udp,
                               .icmp_grace_ns = initiator ? I2S_LEG_ICMP_GRACE_NS : 0,
                               .trip_bursts = t->trip_framed && !t->udp && !initiator,
                               .bounce = t->bounce};
    /* An --isochronous client's datagrams carry frame blocks: count its frames. */
    role.isoch.on = !sends && t->udp && t->base.run.spec.iperf2.isoch.on;
    if (t->bounce) {
        const struct lp_bounceback_spec *bb = &t->base.run.spec.iperf2.bb;
        role.bb.hold_us = bb->hold_us;
        role.bb.quickack = !bb->no_quickack;
        role.lead = t->bb_first;
        role.lead_len = sizeof(t->bb_first);
    }
    /* Sending to a trip-times client on its own connection (-R, full duplex): 2.1 servers
     * send their own 80-byte header first, which the client skips, then bursts. */
    uint8_t lead[LP_I2_TRIP_TCP_HDR_LEN];
    if (sends && role.trip_bursts) {
        uint64_t w = lp_wall_ns();
        struct lp_i2_header h = {.num_threads = 1, .mport = t->hdr.mport, .amount = t->hdr.amount,
                                 .upper = LP_I2_UP_TRIPTIME, .start_sec = (uint32_t)(w / LP_NS_PER_S),
                                 .start_usec = (uint32_t)(w % LP_NS_PER_S / 1000)};
        role.lead = lead;
        role.lead_len = lp_i2_header_encode(lead, sizeof(lead), &h);
        role.trip_start_sec = h.start_sec;
        role.trip_start_usec = h.start_usec;
    }
    if (lp_run_setup_stream(r, rs, &role) < 0) {
        free(f);
        return NULL;
    }
    if (sends && t->udp) {
        f->dgram = malloc(rs->ds->cfg.blksize);
        if (f->dgram)
            memcpy(f->dgram, rs->ds->payload, rs->ds->cfg.blksize);
    }
    t->flows[t->nflows++] = f;
    return f;
}

static void begin(struct i2test *t)
{
    if (t->started)
        return;
    t->started = true;
    t->begun_ns = lp_now_ns();
    lp_run_prepare_budget(&t->base.run);
    lp_run_begin(&t->base.run);
    lp_timer_arm(&t->base.srv->eng.loop, &t->idle_timer, lp_now_ns() + LP_NS_PER_S);
}

static void attach(struct i2test *t, struct i2flow *f)
{
    begin(t);
    lp_run_attach_stream(&t->base.run, rs_of(f));
    if (f->sends)
        arm_send_deadline(t);
    if (t->start_emitted)
        emit_start(t); /* a stream that joined later: list it too */
}

/* The spec a test runs with: the server's settings plus what the client's header asks. */
static void spec_from_header(struct i2test *t, const struct lp_i2_header *h, bool udp)
{
    struct lp_spec *sp = &t->base.run.spec;
    sp->proto = udp ? LP_PROTO_UDP : LP_PROTO_TCP;
    sp->dialect = LP_DIALECT_IPERF2;
    sp->streams = h->num_threads > 0 && h->num_threads <= LP_MAX_STREAMS ? (unsigned)h->num_threads : 1;
    bool v2 = h->flags & LP_I2_VERSION2;
    sp->dir = v2 && (h->upper & LP_I2_UP_FULLDUPLEX) ? LP_DIR_BIDIR
              : v2 && (h->upper & LP_I2_UP_REVERSE)   ? LP_DIR_REVERSE
                                                      : LP_DIR_FORWARD;
    sp->iperf2.dual = (h->flags & LP_I2_VERSION1) && (h->flags & LP_I2_RUN_NOW);
    sp->iperf2.tradeoff = (h->flags & LP_I2_VERSION1) && !(h->flags & LP_I2_RUN_NOW);
    sp->iperf2.listen_port = (uint16_t)h->mport;
    sp->iperf2.no_udp_fin = (h->upper & LP_I2_UP_NOUDPFIN) || (udp && v2);
    sp->iperf2.quickack = h->has_ext && (h->upper & LP_I2_UP_TCPQUICKACK);
    /* An --isochronous client (2.1.8 sends its settings nowhere: only the flag). */
    sp->iperf2.isoch.on = h->has_ext && (h->upper & LP_I2_UP_ISOCH);
    /* The client frames its TCP data as bursts whenever it asked for trip-times; the
     * latency is shown only if its clock is near ours (see trip_clock_ok). */
    t->trip_framed = h->has_ext && (h->upper & LP_I2_UP_TRIPTIME);
    sp->iperf2.trip_times = t->trip_framed && t->trip_clock_ok;
    sp->duration_s = lp_i2_amount_seconds(h->amount);
    if (h->amount == 0) /* no amount at all: what an iperf2 client means by default */
        sp->duration_s = LP_DEFAULT_DURATION_S;
    sp->bytes = h->amount > 0 ? (uint64_t)h->amount * sp->streams : 0;
    sp->blocks = 0;
    uint32_t maxlen = udp ? LP_MAX_UDP_BLKSIZE : LP_MAX_BLKSIZE;
    sp->blksize = h->buflen && h->buflen <= maxlen && h->buflen >= (udp ? LP_I2_UDP_PREFIX : 1)
                      ? h->buflen
                      : (udp ? LP_IPERF2_UDP_BLKSIZE : LP_DEFAULT_TCP_BLKSIZE);
    /* iperf2 sends at the client's -b, which 2.1 puts in every header; UDP defaults to 1 Mbit/s. */
    sp->rate_bps = h->rate_bps ? h->rate_bps : udp ? LP_DEFAULT_UDP_RATE_BPS : 0;
    sp->tos = h->has_ext && h->tos ? h->tos : -1;
    sp->omit_s = 0;
    t->hdr = *h;
    t->group = (int32_t)sp->streams;
    t->udp = udp;
    t->legs_after_forward = sp->iperf2.tradeoff;
}

/* iperf2 ignores --trip-times when the client's clock is more than 600 s from its own:
 * latencies would be meaningless. */
#define I2S_TRIP_CLOCK_WINDOW_S 600

static bool trip_clock_ok(const struct lp_i2_header *h)
{
    if (!h->has_ext || !(h->upper & LP_I2_UP_TRIPTIME))
        return false;
    int64_t now = (int64_t)(lp_wall_ns() / LP_NS_PER_S);
    int64_t d = now - (int64_t)h->start_sec;
    return d < I2S_TRIP_CLOCK_WINDOW_S && d > -I2S_TRIP_CLOCK_WINDOW_S;
}

static struct i2test *new_test(struct lp_server *s, const struct lp_i2_header *h, bool udp,
                               const struct sockaddr_storage *peer)
{
    struct i2test *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->trip_clock_ok = trip_clock_ok(h);
    t->base.interrupt = interrupt;
    t->base.destroy = destroy;
    lp_timer_init(&t->send_timer, on_send_deadline);
    lp_timer_init(&t->start_timer, on_start_timer);
    lp_timer_init(&t->idle_timer, on_idle_check);
    lp_timer_init(&t->connect_timer, on_connect_timeout);
    lp_timer_init(&t->retry_timer, on_leg_retry);
    srv_test_link(s, &t->base, LP_DIALECT_IPERF2, peer, udp ? LP_PROTO_UDP : LP_PROTO_TCP);
    t->base.run.on_event = on_stream;
    t->base.run.owner = t;
    t->created_ns = lp_now_ns();
    spec_from_header(t, h, udp);
    return t;
}

/* -P n: the client opens n connections, each saying n; they form one test with a [SUM]. */
static struct i2test *find_group(struct lp_server *s, const struct lp_i2_header *h, bool udp,
                                 const struct sockaddr_storage *peer)
{
    if (h->num_threads <= 1)
        return NULL;
    uint64_t now = lp_now_ns();
    for (struct srv_test *b = s->tests; b; b = b->next) {
        struct i2test *t = (struct i2test *)(void *)b;
        if (b->dialect == LP_DIALECT_IPERF2 && !b->finishing && t->udp == udp && t->group == h->num_threads &&
            t->nforward < (unsigned)t->group && now - t->created_ns < I2S_GROUP_WINDOW_NS &&
            lp_sock_same_host(peer, &b->peer_addr))
            return t;
    }
    return NULL;
}

static void note_forward(struct i2test *t)
{
    t->nforward++;
    if (t->start_emitted)
        return;
    if ((int32_t)t->nforward >= t->group)
        emit_start(t);
    else if (!lp_timer_armed(&t->start_timer))
        lp_timer_arm(&t->base.srv->eng.loop, &t->start_timer, lp_now_ns() + I2S_START_WAIT_NS);
}

/* ---- -d / -r legs: we connect back to the client's listener ---- */

static void leg_connected(struct i2test *t, int fd)
{
    struct i2flow *f = add_flow(t, fd, true, true, true, NULL, 0, false, 0);
    if (!f)
        return;
    f->reverse_leg = true;
    attach(t, f);
    arm_send_deadline(t);
}

static void on_leg_io(struct lp_handler *h, uint32_t events)
{
    struct i2conn *c = lp_container_of(h, struct i2conn, h);
    struct i2test *t = c->t;
    (void)events;
    if (!c->active)
        return;
    int err = 0;
    socklen_t sl = sizeof(err);
    getsockopt(c->h.fd, SOL_SOCKET, SO_ERROR, &err, &sl);
    lp_loop_del(&t->base.srv->eng.loop, &c->h);
    c->active = false;
    if (err == ECONNREFUSED && lp_now_ns() < t->leg_deadline_ns && !t->base.finishing) {
        /* A 2.1 client starts its listener in a thread of its own: it may not be up yet. */
        close(c->h.fd);
        t->legs_wanted++;
        lp_timer_arm(&t->base.srv->eng.loop, &t->retry_timer, lp_now_ns() + 20 * LP_NS_PER_MS);
        return;
    }
    if (err) {
        close(c->h.fd);
        lp_engine_error(&t->base.srv->eng, LP_ROLE_SERVER, t->base.run.id, 0, false,
                        "cannot open the %s connection back to %s port %u: %s",
                        t->base.run.spec.iperf2.dual ? "-d" : "-r", t->base.run.ctrl_peer.host,
                        (unsigned)t->hdr.mport, strerror(err));
        check_done(t);
        return;
    }
    leg_connected(t, c->h.fd);
    check_done(t);
}

static void on_connect_timeout(struct lp_timer *tm)
{
    struct i2test *t = lp_container_of(tm, struct i2test, connect_timer);
    for (unsigned i = 0; i < t->nconns; i++) {
        struct i2conn *c = t->conns[i];
        if (!c->active)
            continue;
        lp_loop_del(&t->base.srv->eng.loop, &c->h);
        close(c->h.fd);
        c->active = false;
        lp_engine_error(&t->base.srv->eng, LP_ROLE_SERVER, t->base.run.id, 0, false,
                        "the connection back to %s port %u did not complete in time", t->base.run.ctrl_peer.host,
                        (unsigned)t->hdr.mport);
    }
    check_done(t);
}

/* Open the legs. Only ever to the address the client connected from: an iperf2 header names
 * a port, never a host, so a test cannot aim our traffic at a third party. */
static void start_legs(struct i2test *t)
{
    struct lp_server *s = t->base.srv;
    unsigned n = t->legs_wanted;
    t->legs_wanted = 0;
    if (!t->leg_deadline_ns)
        t->leg_deadline_ns = lp_now_ns() + I2S_CONNECT_TIMEOUT_NS;
    for (unsigned i = 0; i < n && t->nconns < I2S_MAX_FLOWS; i++) {
        int fd = socket(t->leg_addr.ss_family, (t->udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        const char *what;
        lp_sock_apply_spec(fd, &t->base.run.spec, t->udp ? SOCK_DGRAM : SOCK_STREAM, &what);
        int rc = connect(fd, (struct sockaddr *)&t->leg_addr, t->leg_len);
        if (t->udp || rc == 0) {
            if (rc < 0) {
                close(fd);
                continue;
            }
            leg_connected(t, fd);
            continue;
        }
        if (errno != EINPROGRESS) {
            lp_engine_error(&s->eng, LP_ROLE_SERVER, t->base.run.id, 0, false,
                            "cannot open the connection back to %s port %u: %s", t->base.run.ctrl_peer.host,
                            (unsigned)t->hdr.mport, strerror(errno));
            close(fd);
            continue;
        }
        struct i2conn *c = calloc(1, sizeof(*c));
        if (!c) {
            close(fd);
            continue;
        }
        c->t = t;
        c->h.fd = fd;
        c->h.fn = on_leg_io;
        c->active = lp_loop_add(&s->eng.loop, &c->h, EPOLLOUT) == 0;
        if (!c->active) {
            close(fd);
            free(c);
            continue;
        }
        t->conns[t->nconns++] = c;
        lp_timer_arm(&s->eng.loop, &t->connect_timer, lp_now_ns() + I2S_CONNECT_TIMEOUT_NS);
    }
}

/* A forward connection asking for -d/-r: one leg per forward connection, as 2.1 does. */
static void on_leg_retry(struct lp_timer *tm)
{
    struct i2test *t = lp_container_of(tm, struct i2test, retry_timer);
    start_legs(t);
    check_done(t);
}

/* fd: the connection or flow socket the request came on (its local address tells whether
 * the client is on one of our own addresses). */
static void want_leg(struct i2test *t, const struct sockaddr_storage *peer, int fd)
{
    if (!t->leg_len) {
        set_leg_addr(t, peer);
        struct sockaddr_storage local;
        socklen_t ll = sizeof(local);
        bool have_local = getsockname(fd, (struct sockaddr *)&local, &ll) == 0;
        if (srv_own_endpoint(t->base.srv, &t->leg_addr, have_local ? &local : NULL)) {
            t->refused_legs = true;
            lp_engine_error(&t->base.srv->eng, LP_ROLE_SERVER, t->base.run.id, 0, false,
                            "refused the %s connection back to %s port %u: that is this server's "
                            "own port (it would test itself)", t->base.run.spec.iperf2.dual ? "-d" : "-r",
                            t->base.run.ctrl_peer.host, (unsigned)t->hdr.mport);
        }
    }
    if (t->refused_legs)
        return;
    t->legs_wanted++;
    if (!t->legs_after_forward)
        start_legs(t);
}

static void set_leg_addr(struct i2test *t, const struct sockaddr_storage *peer)
{
    t->leg_addr = *peer;
    t->leg_len = peer->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    uint16_t port = htons((uint16_t)t->hdr.mport);
    if (peer->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)&t->leg_addr)->sin6_port = port;
    else
        ((struct sockaddr_in *)&t->leg_addr)->sin_port = port;
}

/* ---- TCP ---- */

/* iperf2 has no words for "refused": a plain close lets the client's writes of the last
 * moments succeed, and a stock client prints them as a test ("0.0000-0.0052 sec 3.63
 * MBytes 5.88 Gbits/sec"). A reset makes its write fail, so it reports an error instead. */
static void refuse(int fd)
{
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
}

/* ---- permit key (iperf2 --permit-key) ---- */

void i2s_drop(struct lp_server *s, int fd, const struct sockaddr_storage *peer)
{
    struct lp_stream_conn c;
    struct lp_tcp_sample ti;
    memset(&c, 0, sizeof(c));
    c.sid.socket = fd;
    lp_sock_local(fd, &c.local);
    lp_sock_endpoint(peer, &c.remote);
    if (lp_sock_tcp_info(fd, &ti) == 0) {
        c.icwnd_pkts = ti.snd_cwnd_pkts;
        c.mss = ti.snd_mss;
        c.irtt_us = ti.rtt_us;
    }
    char msg[LP_HOST_MAX + 128];
    snprintf(msg, sizeof(msg), "iperf2 connection from %s port %u refused: %s", c.remote.host,
             (unsigned)c.remote.port,
             s->spec.iperf2.permit_key[0] || !s->auth
                 ? "permit key fail"
                 : "this server requires authentication, and iperf2 clients only have --permit-key");
    struct lp_record rec = {.kind = LP_REC_ERROR, .role = LP_ROLE_SERVER, .test_id = 0};
    rec.u.error.message = msg;
    rec.u.error.dropped = &c;
    lp_engine_emit(&s->eng, &rec);
    refuse(fd); /* unread bytes or not, a reset: the client's next write fails, as with 2.1.8 */
}

/* 2.1.8's Listener::test_permit_key. With a key, only a keyed header carrying it is served;
 * without one, a keyed header is refused as 2.1.8 refuses it, and so is every iperf2
 * connection of a server that requires iperf3 authentication. hdr holds hlen + extra bytes.
 * Returns the length of the key past the header (not payload), or -1 after refusing. */
static int permitted(struct lp_server *s, int fd, const uint8_t *hdr, size_t hlen, size_t extra,
                     const struct sockaddr_storage *peer)
{
    const char *want = s->spec.iperf2.permit_key;
    size_t wl = strnlen(want, sizeof(s->spec.iperf2.permit_key));
    bool keyed = hlen >= 4 && ((uint32_t)hdr[0] << 24 & LP_I2_KEYCHECK);
    int kl = keyed ? lp_i2_key_len(hdr, hlen) : -1;
    const char *why = NULL;
    if (!wl && keyed)
        why = "it sent a permit key, and this server has none";
    else if (!wl && s->auth)
        why = "authentication is required";
    else if (wl && kl < 0)
        why = "no permit key, or one of a length out of 4..128";
    else if (wl && !lp_i2_key_matches(hdr, hlen + extra, hlen, (const uint8_t *)want, wl))
        why = "the permit key does not match";
    if (why) {
        SRV_DBG(s, 0, "iperf2 connection refused: %s", why);
        i2s_drop(s, fd, peer);
        return -1;
    }
    return keyed ? kl : 0;
}

void i2s_tcp(struct lp_server *s, int fd, const uint8_t *hdr, size_t hlen, size_t extra,
             const struct sockaddr_storage *peer)
{
    int kl = permitted(s, fd, hdr, hlen, extra, peer);
    if (kl < 0)
        return;
    extra -= (size_t)kl; /* the key is part of the header, not payload */
    struct lp_i2_header h;
    memset(&h, 0, sizeof(h));
    if (hlen) {
        lp_i2_header_decode(hdr, hlen, &h);
        lp_i2_header_start_time(hdr, hlen, false, &h.start_sec, &h.start_usec);
    } else
        h.num_threads = 1; /* header-less (-C or 2.0.5-era with flags 0): a plain forward test */
    struct lp_endpoint pe;
    lp_sock_endpoint(peer, &pe);
    if (h.num_threads < 0 || h.num_threads > LP_MAX_STREAMS || h.amount == INT32_MIN) {
        lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false,
                        "iperf2 header from %s asks for %d streams / amount %d: refused", pe.host, h.num_threads,
                        h.amount);
        refuse(fd);
        return;
    }
    struct i2test *t = find_group(s, &h, false, peer);
    if (!t) {
        if (!srv_accepting(s)) {
            SRV_DBG(s, 0, "iperf2 connection from %s port %u refused: test limit reached", pe.host,
                    (unsigned)pe.port);
            refuse(fd);
            return;
        }
        t = new_test(s, &h, false, peer);
        if (!t) {
            close(fd);
            return;
        }
    }
    DBG(t, "iperf2 TCP connection from %s port %u: header %zu bytes, flags 0x%08x, %d stream(s), amount %d",
        pe.host, (unsigned)pe.port, hlen, h.flags, h.num_threads, h.amount);
    const char *what = NULL;
    lp_sock_apply_spec(fd, &t->base.run.spec, SOCK_STREAM, &what);
    if (hlen && lp_i2_ack_wanted(h.flags)) {
        /* A trip-times client reads the longer ack, with timestamps for its clock check. */
        uint8_t ack[LP_I2_ACK_TS_LEN];
        size_t alen = LP_I2_ACK_LEN;
        if (h.has_ext && (h.upper & LP_I2_UP_TRIPTIME)) {
            uint64_t w = lp_wall_ns();
            uint32_t sec = (uint32_t)(w / LP_NS_PER_S), usec = (uint32_t)(w % LP_NS_PER_S / 1000);
            lp_i2_ack_encode_ts(ack, h.start_sec, h.start_usec, sec, usec, sec, usec);
            alen = LP_I2_ACK_TS_LEN;
        } else {
            lp_i2_ack_encode(ack);
        }
        ssize_t w = send(fd, ack, alen, MSG_DONTWAIT | MSG_NOSIGNAL);
        (void)w; /* a 2.1 client only reads it with -X; it fits any socket buffer */
    }
    enum lp_dir dir = t->base.run.spec.dir;
    struct i2flow *f;
    if (dir == LP_DIR_REVERSE) {
        /* -R: we send on the client's connection. */
        f = add_flow(t, fd, true, true, false, NULL, 0, false, 0);
    } else {
        f = add_flow(t, fd, false, false, false, NULL, 0, false, 0);
        /* The header is not payload (lwiperf counts it; iperf2 2.1 does too); what arrived
         * past it is. */
        if (f && extra)
            lp_stream_add_rx_bytes(rs_of(f)->ds, extra);
        if (f && dir == LP_DIR_BIDIR) {
            int dfd = dup(fd);
            struct i2flow *g =
                dfd >= 0 ? add_flow(t, dfd, true, true, false, NULL, 0, false, rs_of(f)->conn.sid.id) : NULL;
            if (g)
                attach(t, g);
        }
    }
    if (!f) {
        fail(t, "cannot set up the stream of %s: out of memory", pe.host);
        return;
    }
    attach(t, f);
    note_forward(t);
    if (h.flags & LP_I2_VERSION1)
        want_leg(t, peer, fd);
}

/* A --bounceback client (iperf2_bb.h): no test header, only its first message, whose 64
 * bytes say the message size and the hold. One stream echoes until the client closes. */
void i2s_bounceback(struct lp_server *s, int fd, const uint8_t *msg, size_t len, const struct sockaddr_storage *peer)
{
    struct lp_endpoint pe;
    lp_sock_endpoint(peer, &pe);
    if (s->spec.iperf2.permit_key[0]) {
        i2s_drop(s, fd, peer); /* it carries no key (2.1.8 cannot send one with it either) */
        return;
    }
    struct lp_i2_bb b = {0};
    if (!lp_i2_bb_decode(msg, len, &b) || b.size < LP_I2_BB_MIN || b.size > LP_I2_BB_MAX) {
        lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false,
                        "%s: iperf2 bounceback message size %u is out of range (%u..%u bytes); connection closed",
                        pe.host, (unsigned)b.size, LP_I2_BB_MIN, LP_I2_BB_MAX);
        refuse(fd);
        return;
    }
    if (!srv_accepting(s)) {
        SRV_DBG(s, 0, "iperf2 bounceback connection from %s port %u refused: test limit reached", pe.host,
                (unsigned)pe.port);
        refuse(fd);
        return;
    }
    /* It runs until the client closes: as a header with no amount would (the idle and
     * --server-max-duration limits apply). */
    struct lp_i2_header h = {.num_threads = 1, .buflen = b.size};
    struct i2test *t = new_test(s, &h, false, peer);
    if (!t) {
        close(fd);
        return;
    }
    struct lp_spec *sp = &t->base.run.spec;
    t->bounce = true;
    memcpy(t->bb_first, msg, sizeof(t->bb_first));
    sp->blksize = b.size;
    sp->nodelay = true; /* 2.1.8's server sets TCP_NODELAY on a bounceback connection */
    sp->iperf2.bb.on = true;
    /* The hold is the peer's word: at most 10 s (the client option's own limit), so a
     * message cannot park the test's stream past the idle limit's reach. */
    sp->iperf2.bb.hold_us = b.hold_us < LP_I2_BB_HOLD_MAX_US ? b.hold_us : LP_I2_BB_HOLD_MAX_US;
    sp->iperf2.bb.no_quickack = !(b.bbflags & LP_I2_BB_QUICKACK);
    if (b.bbflags & LP_I2_BB_TOS)
        sp->tos = b.tos & 0xFF;
    DBG(t, "iperf2 bounceback connection from %s port %u: %u-byte messages, hold %u us, flags 0x%04x", pe.host,
        (unsigned)pe.port, (unsigned)b.size, (unsigned)b.hold_us, (unsigned)b.bbflags);
    const char *what = NULL;
    lp_sock_apply_spec(fd, sp, SOCK_STREAM, &what);
    struct i2flow *f = add_flow(t, fd, false, false, false, NULL, 0, false, 0);
    if (!f) {
        fail(t, "cannot set up the stream of %s: out of memory", pe.host);
        return;
    }
    lp_stream_add_rx_bytes(rs_of(f)->ds, sizeof(t->bb_first)); /* read before the stream was */
    attach(t, f);
    note_forward(t);
}

/* ---- UDP ---- */

static bool same_source(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    struct lp_endpoint x, y;
    lp_sock_endpoint(a, &x);
    lp_sock_endpoint(b, &y);
    return x.port == y.port && strcmp(x.host, y.host) == 0;
}

static bool known_flow(struct lp_server *s, const struct sockaddr_storage *peer)
{
    uint64_t now = lp_now_ns();
    for (unsigned i = 0; i < LP_SRV_UDP_ENDED_MAX; i++)
        if (s->udp_ended[i].at_ns && now - s->udp_ended[i].at_ns < LP_SRV_UDP_ENDED_NS &&
            same_source(&s->udp_ended[i].addr, peer))
            return true;
    for (struct srv_test *b = s->tests; b; b = b->next) {
        struct i2test *t = (struct i2test *)(void *)b;
        if (b->dialect != LP_DIALECT_IPERF2 || !t->udp)
            continue;
        for (unsigned i = 0; i < t->nflows; i++)
            if (same_source(&t->flows[i]->peer, peer))
                return true;
    }
    return false;
}

/* Datagrams of a new flow that reached the listener's shared socket before the flow's own
 * own socket existed (a sender's catch-up burst right at the start: 2.1.8 sends two
 * datagrams 12 us apart after a lost first one) wait there, in order, ahead of everything
 * the flow socket gets. Count them on the flow before it is attached (still ours to touch,
 * like the first datagram). Stops at the first datagram from anyone else. */
static void drain_early(const struct srv_listener *l, const struct sockaddr_storage *peer, struct lp_stream *ds)
{
    for (int i = 0; i < 256 && !ds->fin_seen; i++) {
        uint8_t b[LP_I2_TCP_HDR_MAX];
        struct sockaddr_storage from;
        socklen_t flen = sizeof(from);
        ssize_t r = recvfrom(l->udp_fd, b, sizeof(b), MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC, (struct sockaddr *)&from,
                             &flen);
        if (r < (ssize_t)LP_I2_UDP_PREFIX || !same_source(&from, peer))
            return;
        r = recvfrom(l->udp_fd, b, sizeof(b), MSG_DONTWAIT | MSG_TRUNC, NULL, NULL);
        if (r < (ssize_t)LP_I2_UDP_PREFIX)
            return;
        lp_stream_udp_account(ds, b, (size_t)r, lp_wall_ns());
    }
}

/* A multicast flow's socket: bound to the group like the listener and not connected (the
 * sender's source may be unroutable to us, and a group has no reply path). */
static int multicast_flow_socket(const struct srv_listener *l)
{
    int one = 1;
    int fd = socket(l->local.ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (const struct sockaddr *)&l->local.ss, l->local.len) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    return fd;
}

/* The iperf2 UDP tests running: all of them, or those of peers not proven. */
static unsigned udp_tests(const struct lp_server *s, bool unproven_only)
{
    unsigned n = 0;
    for (const struct srv_test *b = s->tests; b; b = b->next) {
        const struct i2test *t = b->dialect == LP_DIALECT_IPERF2 ? (const struct i2test *)(const void *)b : NULL;
        n += t && t->udp && (!unproven_only || t->unproven);
    }
    return n;
}

/* How many test slots iperf2 UDP tests may hold: half of --max-tests (a quarter for peers
 * not proven), so the other half is always there for TCP and iperf3 clients. A server of one
 * test at a time serves whoever comes first. */
static unsigned udp_slots(const struct lp_server *s, bool unproven)
{
    unsigned max = s->spec.max_tests ? s->spec.max_tests : LP_SRV_DEFAULT_MAX_TESTS;
    unsigned n = unproven ? max / 4 : max / 2;
    return n ? n : 1;
}

/* A test that sends (-R, full duplex, -d/-r legs) to a peer not proven gets a credit. */
static void give_credit(struct i2test *t)
{
    struct lp_stream_budget *b = &t->base.run.budget;
    b->credit = true;
    b->credit_base = (uint64_t)I2S_CREDIT_DATAGRAMS * lp_spec_blksize(&t->base.run.spec);
    b->credit_mult = I2S_CREDIT_MULT;
}

/* iperf2 UDP carries no permit key (2.1.8 refuses --permit-key with -u): a server that
 * requires one, or iperf3 authentication, starts no iperf2 UDP test. Said once a second. */
static void keyless_udp(struct lp_server *s, const struct sockaddr_storage *peer)
{
    uint64_t now = lp_now_ns();
    struct lp_endpoint pe;
    if (s->keyless_log_ns && now - s->keyless_log_ns < LP_NS_PER_S)
        return;
    s->keyless_log_ns = now;
    lp_sock_endpoint(peer, &pe);
    lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false, "refused iperf2 UDP datagrams from %s port %u: %s",
                    pe.host, (unsigned)pe.port,
                    s->spec.iperf2.permit_key[0] ? "this server requires a permit key, which iperf2 sends over TCP only"
                                                 : "this server requires authentication, which iperf2 UDP tests "
                                                   "cannot carry");
}

void i2s_udp(struct lp_server *s, const struct srv_listener *l, const uint8_t *buf, size_t head_len, size_t len,
             const struct sockaddr_storage *peer, socklen_t plen, uint64_t arrival_ns)
{
    uint32_t flags = lp_i2_udp_flags(buf, head_len);
    bool seq64 = flags & LP_I2_SEQNO64B;
    int64_t seq;
    uint32_t sec, usec;
    if (!lp_i2_udp_prefix_get(buf, head_len, seq64, &seq, &sec, &usec) || seq <= 0)
        return; /* a FIN or leftover of a flow already ended: nothing to start */
    if (known_flow(s, peer))
        return; /* queued on the shared socket before the flow's own socket existed */
    /* A unicast client numbers its datagrams from 1 (2.0.5-era: 0), so a flow's first
     * datagram has a small number. Stray or random datagrams (half of them "positive")
     * would otherwise each start a test that holds a slot until --rcv-timeout, and a few
     * hundred from different ports lock real clients out. A multicast receiver may join
     * a running stream, so any positive number starts a flow there. */
    if (seq > I2S_UDP_FIRST_SEQ_MAX && !srv_multicast(&l->local.ss))
        return;
    if (s->spec.iperf2.permit_key[0] || s->auth) {
        keyless_udp(s, peer);
        return;
    }
    struct lp_i2_header h;
    memset(&h, 0, sizeof(h));
    if (flags && head_len >= LP_I2_UDP_PREFIX + LP_I2_V1_LEN)
    {
        lp_i2_header_decode(buf + LP_I2_UDP_PREFIX, head_len - LP_I2_UDP_PREFIX, &h);
        lp_i2_header_start_time(buf + LP_I2_UDP_PREFIX, head_len - LP_I2_UDP_PREFIX, true, &h.start_sec,
                                &h.start_usec);
    } else
        h.num_threads = 1; /* header-less (-C) datagrams: a plain forward flow */
    h.flags = flags;
    struct lp_endpoint pe;
    lp_sock_endpoint(peer, &pe);
    if (h.num_threads < 0 || h.num_threads > LP_MAX_STREAMS)
        h.num_threads = 1;
    struct i2test *t = find_group(s, &h, true, peer);
    if (!t) {
        bool proven = srv_peer_proven(s, peer);
        if (!srv_accepting(s) || udp_tests(s, false) >= udp_slots(s, false) ||
            (!proven && udp_tests(s, true) >= udp_slots(s, true)))
            return;
        t = new_test(s, &h, true, peer);
        if (!t)
            return;
        t->unproven = !proven;
        if (t->unproven)
            give_credit(t);
    }
    t->lis = l;
    bool mcast = srv_multicast(&l->local.ss);
    int fd = mcast ? multicast_flow_socket(l) : srv_udp_flow_socket(l, peer, plen);
    if (fd < 0) {
        fail(t, "cannot open a UDP flow socket for %s: %s", pe.host, strerror(-fd));
        return;
    }
    const char *what = NULL;
    lp_sock_apply_spec(fd, &t->base.run.spec, SOCK_DGRAM, &what);
    DBG(t, "iperf2 UDP flow from %s port %u: flags 0x%08x, %d stream(s), amount %d", pe.host, (unsigned)pe.port,
        flags, h.num_threads, h.amount);
    enum lp_dir dir = t->base.run.spec.dir;
    struct i2flow *f = NULL;
    if (dir != LP_DIR_REVERSE) {
        f = add_flow(t, fd, false, false, false, NULL, 0, seq64, 0);
        /* The first datagram came in on the shared socket: it counts. */
        if (f) {
            f->peer = *peer;
            lp_sock_endpoint(peer, &rs_of(f)->conn.remote); /* also right for a multicast flow */
            lp_stream_udp_account(rs_of(f)->ds, buf, len, arrival_ns);
            drain_early(l, peer, rs_of(f)->ds);
            /* A multicast flow socket is not connected: from its bind on, the group's
             * datagrams reach it and the listener both, so what the listener gave is counted
             * once and its copies on the flow socket are skipped. */
            if (mcast)
                lp_stream_udp_counted_through_max(rs_of(f)->ds);
        }
    }
    if (dir == LP_DIR_REVERSE || dir == LP_DIR_BIDIR) {
        int sfd = dir == LP_DIR_REVERSE ? fd : dup(fd);
        struct i2flow *g =
            sfd >= 0 ? add_flow(t, sfd, true, true, false, NULL, 0, false, f ? rs_of(f)->conn.sid.id : 0) : NULL;
        if (g) {
            g->peer = *peer;
            attach(t, g);
        }
        if (dir == LP_DIR_REVERSE)
            f = g;
    }
    if (!f) {
        fail(t, "cannot set up the UDP flow of %s: out of memory", pe.host);
        return;
    }
    if (!f->sends && rs_of(f)->ds->fin_seen) {
        /* Its FIN came with the datagrams queued on the shared socket: answered at once
         * (begin() still attaches the stream, which then ends at once: do_attach). */
        begin(t);
        udp_receiver_ended(f);
    } else if (!f->sends) {
        attach(t, f);
    }
    note_forward(t);
    if (flags & LP_I2_VERSION1)
        want_leg(t, peer, fd);
}

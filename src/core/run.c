/* Test run bookkeeping (see run.h): interval cutting, omit, totals, end records, results.
 * Dialect-neutral: iperf3 (and later iperf2) control code drives it. */
#include "core/run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "core/clock.h"
#include "stats/frames.h"
#include "stats/sched.h"
#include "stats/totals.h"
#include "stats/udp_rx.h"
#include "wire/iperf2_bb.h"

static void on_interval(struct lp_timer *t);
static void on_omit_end(struct lp_timer *t);
static void end_omit(struct lp_run *r, uint64_t now);

void lp_run_init(struct lp_run *r, struct lp_engine *e, const struct lp_spec *spec, unsigned id)
{
    memset(r, 0, sizeof(*r));
    r->eng = e;
    r->spec = *spec;
    r->id = id;
    r->cookie = "";
    lp_timer_init(&r->interval_timer, on_interval);
    lp_timer_init(&r->omit_timer, on_omit_end);
    atomic_init(&r->budget.remaining, 0);
    atomic_init(&r->budget.rx_total, 0);
    atomic_init(&r->budget.rx_target_hit, false);
    atomic_init(&r->budget.credit_rx, 0);
    atomic_init(&r->budget.credit_tx, 0);
    atomic_init(&r->budget.starved, false);
}

void lp_run_release(struct lp_run *r)
{
    lp_timer_cancel(&r->eng->loop, &r->interval_timer);
    lp_timer_cancel(&r->eng->loop, &r->omit_timer);
    for (unsigned i = 0; i < r->nstreams; i++) {
        lp_stream_free(r->streams[i].ds);
        free(r->streams[i].hist_block); /* hist_last and hist_now swap places */
    }
    free(r->streams);
    free(r->conns);
    free(r->samples);
    free(r->ends);
    r->streams = NULL;
    r->conns = NULL;
    r->samples = NULL;
    r->ends = NULL;
    r->nstreams = r->cap = 0;
}

unsigned lp_run_expected(const struct lp_spec *spec)
{
    return spec->streams * (spec->dir == LP_DIR_BIDIR ? 2u : 1u);
}

bool lp_run_stream_sends(const struct lp_spec *spec, enum lp_role role, unsigned n, bool *reverse)
{
    /* Payload direction of the n-th stream, seen from the client. In bidir the first P
     * streams carry client->server traffic, the next P server->client. */
    bool rev = spec->dir == LP_DIR_REVERSE || (spec->dir == LP_DIR_BIDIR && n >= spec->streams);
    *reverse = rev;
    return role == LP_ROLE_CLIENT ? !rev : rev;
}

static void stream_event(struct lp_stream *s, enum lp_stream_event ev)
{
    struct lp_run *r = s->cfg.owner;
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_run_stream *rs = &r->streams[i];
        if (rs->ds != s)
            continue;
        if (lp_stream_settle(s, ev)) {
            rs->settled = true;
            rs->attached = false;
        }
        if (r->on_event)
            r->on_event(r, rs, ev);
        return;
    }
}

/* Room for more streams and for their rows in the records (lp_run.conns, .samples, .ends).
 * An array that grew stays grown: cap counts what all four hold. */
static int grow_streams(struct lp_run *r)
{
    unsigned cap = r->cap ? r->cap * 2 : 4;
    struct lp_run_stream *st = realloc(r->streams, cap * sizeof(*st));
    if (!st)
        return -ENOMEM;
    r->streams = st;
    struct lp_stream_conn *conns = realloc(r->conns, cap * sizeof(*conns));
    if (!conns)
        return -ENOMEM;
    r->conns = conns;
    struct lp_sample *samples = realloc(r->samples, cap * sizeof(*samples));
    if (!samples)
        return -ENOMEM;
    r->samples = samples;
    struct lp_stream_end *ends = realloc(r->ends, cap * sizeof(*ends));
    if (!ends)
        return -ENOMEM;
    r->ends = ends;
    r->cap = cap;
    return 0;
}

struct lp_run_stream *lp_run_add_stream(struct lp_run *r, int fd, uint64_t order)
{
    if (r->nstreams == r->cap && grow_streams(r) < 0)
        return NULL;
    struct lp_run_stream *rs = &r->streams[r->nstreams];
    memset(rs, 0, sizeof(*rs));
    rs->order = order;
    rs->conn.sid.socket = fd;
    rs->settled = true; /* not attached yet: nothing to wait for */
    /* The data-path object is created in lp_run_finalize_streams, once roles are known. */
    struct lp_stream_config cfg = {.kind = LP_STREAM_TCP_RECV, .fd = fd};
    rs->ds = lp_stream_new(&cfg);
    if (!rs->ds)
        return NULL;
    r->nstreams++;
    return rs;
}

static int by_order(const void *a, const void *b)
{
    const struct lp_run_stream *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The budget is an int64_t, and on TCP -k x -l can pass 2^64: an iperf3 client's parameters
 * allow "blockcount" 9e18 and "len" 1 MiB, the CLI -k 2^50. It saturates at INT64_MAX bytes
 * (9.2 EB, never reached) instead of wrapping (with -l 128K, -k 2^47+1 wrapped to one block,
 * -k 2^47 to no limit at all, blockcount 9e18 to a negative budget: nothing was sent). */
static uint64_t budget_clamp(uint64_t v)
{
    return v < (uint64_t)INT64_MAX ? v : (uint64_t)INT64_MAX;
}

static uint64_t blocks_bytes(uint64_t blocks, uint64_t blk)
{
    return blk && blocks > (uint64_t)INT64_MAX / blk ? (uint64_t)INT64_MAX : blocks * blk;
}

void lp_run_prepare_budget(struct lp_run *r)
{
    bool udp = r->spec.proto == LP_PROTO_UDP;
    /* -k counts datagrams on UDP; on TCP a "block" is a full write, so it is a byte budget
     * (a stock receiver counts its reads, which only add up if every block is sent whole). */
    uint64_t blk = lp_spec_blksize(&r->spec);
    uint64_t budget = budget_clamp(r->spec.bytes ? r->spec.bytes
                                   : udp         ? r->spec.blocks
                                                 : blocks_bytes(r->spec.blocks, blk));
    /* An iperf3 server sends UDP only to a client that counts (-R, --bidir), and the client
     * ends the test when -n has arrived: datagrams lost on the way never do, so the server
     * sends on until the client says TEST_END, as stock servers do. */
    bool peer_counts = udp && r->spec.role == LP_ROLE_SERVER && r->spec.dialect == LP_DIALECT_IPERF3;
    r->budget.limited = budget != 0 && !peer_counts;
    r->budget.blocks = !r->spec.bytes && r->spec.blocks && udp;
    /* iperf3's TCP receivers read whole -l blocks (3.21's count only whole ones) and stock
     * senders write whole blocks, the last one past -n; iperf 2 sends exactly -n. */
    r->budget.whole_blocks = !udp && r->spec.dialect == LP_DIALECT_IPERF3;
    atomic_store(&r->budget.remaining, (int64_t)budget);
    /* A receiving client ends the test when the bytes it asked for have arrived. */
    if (r->spec.role == LP_ROLE_CLIENT && r->spec.dir == LP_DIR_REVERSE)
        r->budget.rx_target = r->spec.bytes ? r->spec.bytes : blocks_bytes(r->spec.blocks, blk);
}

int lp_run_setup_stream(struct lp_run *r, struct lp_run_stream *rs, const struct lp_run_role *role)
{
    bool udp = r->spec.proto == LP_PROTO_UDP;
    int fd = rs->ds->h.fd;
    struct lp_stream_config cfg = {
        .kind = udp && role->bounce ? (role->sends ? LP_STREAM_UDP_BOUNCE : LP_STREAM_UDP_ECHO)
                : udp          ? (role->sends ? LP_STREAM_UDP_SEND : LP_STREAM_UDP_RECV)
                : role->bounce ? (role->sends ? LP_STREAM_TCP_BOUNCE : LP_STREAM_TCP_ECHO)
                               : (role->sends ? LP_STREAM_TCP_SEND : LP_STREAM_TCP_RECV),
        .fd = fd,
        .blksize = role->blksize ? role->blksize : lp_spec_blksize(&r->spec),
        .rate_bps = r->spec.rate_bps,
        .burst = r->spec.burst,
        .udp_counters64 = r->spec.udp_counters_64bit,
        .skip_rx_copy = r->spec.skip_rx_copy || !r->spec.copy,
        /* The default block: nobody asked for writes of that size, so several go per call
         * (-P 4, loopback: 51-53 Gbit/s with 128 KiB writes, 79-90 with 1 MiB). */
        .coalesce = !udp && (role->blksize ? role->blksize : lp_spec_blksize(&r->spec)) == LP_DEFAULT_TCP_BLKSIZE,
        .repeating_payload = r->spec.repeating_payload,
        .zerocopy = r->spec.zerocopy,
        .no_gso = r->spec.udp_no_gso,
        .window_bytes = r->spec.window_bytes,
        .wire = role->wire,
        .udp_seq64 = role->udp_seq64,
        .udp_template = role->udp_template,
        .udp_template_len = role->udp_template_len,
        .has_file = role->file_fd >= 0 && role->sends && !udp,
        .file_fd = role->file_fd,
        .latency = role->latency && !role->sends,
        .icmp_stops = role->icmp_stops && role->sends && udp,
        .icmp_grace_ns = role->icmp_grace_ns,
        .trip_bursts = role->trip_bursts && !udp,
        .isoch = role->isoch,
        .trip_start_sec = role->trip_start_sec,
        .trip_start_usec = role->trip_start_usec,
        .lead = role->lead,
        .lead_len = role->lead_len,
        .skip_lead = role->skip_lead,
        .bb = role->bb,
        .budget = role->no_budget ? NULL : &r->budget,
        .ctrl_loop = &r->eng->loop,
        .notify = stream_event,
        .owner = r,
    };
    /* Replace the placeholder, keeping the descriptor. */
    rs->ds->h.fd = -1;
    lp_stream_free(rs->ds);
    rs->ds = lp_stream_new(&cfg);
    if (!rs->ds) {
        close(fd);
        return -ENOMEM;
    }
    rs->conn.sid.id = role->id;
    rs->conn.sid.socket = fd;
    rs->conn.sid.sender = role->sends;
    rs->conn.sid.reverse = role->reverse;
    rs->conn.sid.initiator = role->initiator;
    lp_sock_local(fd, &rs->conn.local);
    lp_sock_peer(fd, &rs->conn.remote);
    if (!udp) {
        struct lp_tcp_sample ti;
        if (lp_sock_tcp_info(fd, &ti) == 0) {
            rs->conn.icwnd_pkts = ti.snd_cwnd_pkts;
            rs->conn.mss = ti.snd_mss;
            rs->conn.irtt_us = ti.rtt_us;
        }
    }
    if (rs == &r->streams[0]) {
        lp_sock_bufsizes(fd, &r->sndbuf, &r->rcvbuf);
        if (!udp) {
            r->tcp_mss_default = lp_sock_mss(fd);
            lp_sock_congestion(fd, r->congestion, sizeof(r->congestion));
        }
    }
    return 0;
}

void lp_run_bounce_role(const struct lp_spec *sp, bool sends, uint64_t last_ns, struct lp_run_role *role)
{
    const struct lp_bounceback_spec *bb = &sp->iperf2.bb;
    role->bounce = true;
    role->bb.hold_us = bb->hold_us < LP_I2_BB_HOLD_MAX_US ? bb->hold_us : LP_I2_BB_HOLD_MAX_US;
    role->bb.quickack = !bb->no_quickack;
    if (!sends)
        return;
    role->bb.burst = bb->burst;
    role->bb.period_ns = (uint64_t)(bb->period_s * 1e9);
    role->bb.last_ns = last_ns;
    role->bb.tos_set = sp->tos > 0;
    role->bb.tos = (uint16_t)(sp->tos > 0 ? sp->tos & 0xFF : 0);
    /* UDP round trips: -k counts probes, -n their bytes (udp_echo.c). */
    uint64_t len = lp_spec_blksize(sp);
    if (sp->proto == LP_PROTO_UDP)
        role->bb.max_probes = sp->blocks ? sp->blocks : sp->bytes ? (sp->bytes + len - 1) / len : 0;
}

int lp_run_finalize_streams(struct lp_run *r, int (*stream_id)(unsigned n))
{
    qsort(r->streams, r->nstreams, sizeof(r->streams[0]), by_order);
    lp_run_prepare_budget(r);
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_run_role role = {.id = stream_id(i), .file_fd = -1,
                                   .initiator = r->spec.role == LP_ROLE_CLIENT};
        role.sends = lp_run_stream_sends(&r->spec, r->spec.role, i, &role.reverse);
        /* linkperf's iperf3 timed echo (TCP) and UDP round trips: as iperf2's, no burst
         * starts at or past -t, so the server has counted no exchange the client did not
         * finish (a UDP probe: none it did not send). */
        if (r->spec.iperf2.bb.on)
            lp_run_bounce_role(&r->spec, role.sends, (uint64_t)(r->spec.duration_s * 1e9), &role);
        int rc = lp_run_setup_stream(r, &r->streams[i], &role);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static uint64_t interval_ns(const struct lp_run *r)
{
    return lp_sched_iv_ns(r->spec.report.interval_s);
}

/* Where the report schedule and interval times count from: the measurement start, or the
 * start of iperf2 -r's second leg. */
static uint64_t sched_origin(const struct lp_run *r)
{
    return r->leg_ns ? r->leg_ns : r->meas_ns;
}

/* Where a stream's own times count from. */
static uint64_t origin_of(const struct lp_run *r, const struct lp_run_stream *rs)
{
    return rs->origin_ns ? rs->origin_ns : r->meas_ns;
}

/* iperf2 -r: a stream that joins after every other one ended is the second leg. 2.1.8 runs
 * it as a test of its own, whose rows start at 0.0000 on their own schedule
 * (0.0000-1.0000, ...) on both ends; so does this run from then on. */
static bool starts_second_leg(const struct lp_run *r, const struct lp_run_stream *rs)
{
    if (!r->spec.iperf2.tradeoff || r->leg_ns)
        return false;
    bool others = false;
    for (unsigned i = 0; i < r->nstreams; i++) {
        const struct lp_run_stream *o = &r->streams[i];
        if (o == rs || !o->joined)
            continue;
        if (!o->end_ns)
            return false;
        others = true;
    }
    return others;
}

static void sched_restart(struct lp_run *r, uint64_t origin)
{
    uint64_t iv = interval_ns(r);
    r->leg_ns = r->last_cut_ns = origin;
    r->cut_k = 0;
    r->sched_next = 1;
    if (iv)
        lp_timer_arm(&r->eng->loop, &r->interval_timer, lp_sched_at(origin, iv, 1));
}

void lp_run_stream_ended(struct lp_run *r, struct lp_run_stream *rs)
{
    (void)r;
    if (!rs->end_ns)
        rs->end_ns = lp_now_ns();
}

/* A stream lp_run_begin attaches is on time however long the attaching took (a loaded
 * client once took 135 ms, and its only stream's rows started at 0.1357 as if it were a
 * -d connection back); only one attached later can have joined late. */
static void attach_stream(struct lp_run *r, struct lp_run_stream *rs, bool at_begin)
{
    if (!r->started || r->finished || rs->attached)
        return;
    struct lp_sched_join j = {.end_deadline_ns = r->end_deadline_ns};
    if (!at_begin)
        lp_sched_join(r->meas_ns, lp_now_ns(), r->spec.duration_s, r->end_deadline_ns, &j);
    if (j.late) {
        rs->start_ns = j.start_ns; /* joined late: its rate is over its own time */
        r->end_deadline_ns = j.end_deadline_ns; /* and it runs its own -t */
        if (starts_second_leg(r, rs))
            sched_restart(r, rs->start_ns);
    }
    rs->origin_ns = r->leg_ns;
    rs->min_rtt = UINT32_MAX;
    rs->settled = false;
    rs->attached = true;
    rs->joined = true;
    lp_stream_attach(rs->ds, lp_workers_pick(&r->eng->workers));
}

void lp_run_attach_stream(struct lp_run *r, struct lp_run_stream *rs)
{
    attach_stream(r, rs, false);
}

void lp_run_report_partial(struct lp_run *r)
{
    if (!r->started || r->end_emitted)
        return;
    lp_run_finish(r);
    lp_run_emit_end(r, NULL, true, NULL, NULL);
}

void lp_run_emit_simple(struct lp_run *r, enum lp_record_kind kind)
{
    struct lp_record rec = {.kind = kind, .role = r->spec.role, .test_id = r->id};
    lp_engine_emit(r->eng, &rec);
}

static struct lp_udp_offload udp_offload(const struct lp_run *r)
{
    struct lp_udp_offload o = {false, false};
    for (unsigned i = 0; i < r->nstreams; i++) {
        const struct lp_stream *ds = r->streams[i].ds;
        if (ds) {
            o.gso |= lp_stream_uses_gso(ds);
            o.gro |= lp_stream_uses_gro(ds);
        }
    }
    return o;
}

void lp_run_emit_start(struct lp_run *r)
{
    struct lp_stream_conn none = {0};
    struct lp_stream_conn *conns = r->conns ? r->conns : &none;
    for (unsigned i = 0; i < r->nstreams; i++)
        conns[i] = r->streams[i].conn;
    struct lp_record rec = {.kind = LP_REC_START, .role = r->spec.role, .test_id = r->id};
    struct lp_rec_start *st = &rec.u.start;
    st->spec = &r->spec;
    st->version = LP_VERSION_STR;
    st->system_info = r->eng->system_info;
    st->timestamp = time(NULL);
    st->timestamp_ms = (uint64_t)(lp_wall_s() * 1000.0);
    st->cookie = r->cookie;
    st->control_peer = r->ctrl_peer;
    st->tcp_mss = r->spec.mss;
    st->tcp_mss_default = r->tcp_mss_default;
    st->sock_bufsize = r->spec.window_bytes;
    st->sndbuf_actual = r->sndbuf;
    st->rcvbuf_actual = r->rcvbuf;
    st->nstreams = r->nstreams;
    st->streams = conns;
    st->offload = udp_offload(r);
    lp_engine_emit(r->eng, &rec);
}


/* Start the report schedule at meas_ns: the first deadline is one interval after it. */
static void sched_start(struct lp_run *r)
{
    uint64_t iv = interval_ns(r);
    r->cut_k = 0;
    r->sched_next = 1;
    if (iv)
        lp_timer_arm(&r->eng->loop, &r->interval_timer, lp_sched_at(r->meas_ns, iv, 1));
}

void lp_run_begin(struct lp_run *r)
{
    uint64_t now = lp_now_ns();
    r->started = true;
    r->run_ns = r->meas_ns = r->last_cut_ns = now;
    r->omitting = r->spec.omit_s > 0;
    r->end_deadline_ns = lp_sched_end_deadline(now, r->spec.duration_s, r->spec.omit_s,
                                               r->spec.bytes || r->spec.blocks);
    lp_cpu_snap(&r->cpu0);
    for (unsigned i = 0; i < r->nstreams; i++)
        attach_stream(r, &r->streams[i], true);
    sched_start(r);
    if (r->omitting)
        lp_timer_arm(&r->eng->loop, &r->omit_timer, lp_sched_omit_end(now, r->spec.omit_s));
}

/* ---- samples ---- */

static struct lp_totals_counts counts_of(const struct lp_stream_counters *c)
{
    struct lp_totals_counts k = {.bytes = c->bytes, .packets = c->packets, .max_seq = c->max_seq,
                                 .lost = c->lost, .out_of_order = c->out_of_order, .jitter_s = c->jitter_s};
    return k;
}

/* The stream's histogram readings (one allocation, at its first cut). false: none (no
 * histogram, or out of memory: no percentiles, the rest of the numbers stand). */
static bool hist_ready(struct lp_run_stream *rs)
{
    if (!rs->ds->lat_batch.hist)
        return false;
    if (!rs->hist_last) {
        uint32_t *a = calloc(4 * (size_t)LP_HIST_BUCKETS, sizeof(*a));
        if (!a)
            return false;
        rs->hist_block = rs->hist_last = a;
        rs->hist_base = a + LP_HIST_BUCKETS;
        rs->hist_final = a + 2 * LP_HIST_BUCKETS;
        rs->hist_now = a + 3 * LP_HIST_BUCKETS;
    }
    return true;
}

/* The interval's percentiles from the histogram read into hist_now (with the count, by
 * sample_stream); its counts become the last ones. */
static void hist_cut(struct lp_run_stream *rs, struct lp_latency_stat *st)
{
    if (!rs->ds->lat_batch.hist || !rs->hist_last)
        return;
    lp_hist_percentiles(rs->hist_now, rs->hist_last, st);
    /* The interval record carries its distribution (iperf2 --histograms prints one per
     * interval): now minus last. Swapping the two keeps both until the next cut. */
    uint32_t *t = rs->hist_last;
    rs->hist_last = rs->hist_now;
    rs->hist_now = t;
    st->hist = rs->hist_last;
    st->hist_base = rs->hist_now;
}

static void hist_keep(uint32_t *to, const uint32_t *from)
{
    if (to && from)
        memcpy(to, from, LP_HIST_BUCKETS * sizeof(*to));
}

/* Read a stream's counters into its row of a cut (the row's span from lp_sched_row). */
/* A --bounceback client counts 2 x size per round trip it timed: its bytes are taken from
 * the same reading of the round trips (ls), so a row's bytes and its cnt always agree (the
 * two counters are published one after the other). */
static void bounce_bytes(const struct lp_run_stream *rs, struct lp_stream_counters *c, const struct lp_latency_snap *ls)
{
    if (rs->ds->cfg.kind == LP_STREAM_TCP_BOUNCE)
        c->bytes = ls->count * 2 * (uint64_t)rs->ds->cfg.blksize;
}

static void sample_stream(struct lp_run *r, struct lp_run_stream *rs, const struct lp_sched_row *row,
                          struct lp_sample *smp)
{
    struct lp_stream_counters c;
    struct lp_latency_snap ls = {0};
    bool lat = rs->ds->cfg.latency;
    /* First: a bounceback stream's bytes follow it; the histogram of the same samples. */
    if (lat && hist_ready(rs))
        lp_latency_read_hist(&rs->ds->lat, rs->ds->lat_batch.hist, rs->hist_now, &ls);
    else if (lat)
        lp_latency_read(&rs->ds->lat, &ls);
    lp_stream_read(rs->ds, &c);
    bounce_bytes(rs, &c, &ls);
    bool udp = r->spec.proto == LP_PROTO_UDP;
    bool sender = rs->conn.sid.sender;
    memset(smp, 0, sizeof(*smp));
    smp->sid = rs->conn.sid;
    smp->start_s = row->start_s;
    smp->end_s = row->end_s;
    smp->seconds = row->seconds;
    smp->nominal_start_s = row->nom_start_s;
    smp->nominal_end_s = row->nom_end_s;
    smp->nominal_count = row->nom_n;
    struct lp_totals_counts now = counts_of(&c), last = counts_of(&rs->last);
    lp_totals_sample(smp, udp, sender, &now, &last);
    smp->frames = lp_frame_counts_delta(&c.frames, &rs->last.frames);
    smp->omitted = r->omitting;
    if (!udp && sender) {
        struct lp_tcp_sample ti;
        if (lp_sock_tcp_info(rs->ds->h.fd, &ti) == 0 && ti.valid) {
            rs->has_tcp_info = true;
            smp->has_tcp_info = true;
            smp->retransmits = (int64_t)(ti.total_retrans - rs->retr_last);
            smp->snd_cwnd = ti.snd_cwnd_bytes;
            smp->snd_wnd = ti.snd_wnd_bytes;
            smp->rtt_us = ti.rtt_us;
            smp->rttvar_us = ti.rttvar_us;
            smp->pmtu = ti.pmtu;
            smp->reorder = ti.reord_seen;
            rs->reorder = ti.reord_seen;
            rs->retr_last = ti.total_retrans;
            if (!r->omitting) {
                if (ti.snd_cwnd_bytes > rs->max_cwnd)
                    rs->max_cwnd = ti.snd_cwnd_bytes;
                if (ti.snd_wnd_bytes > rs->max_snd_wnd)
                    rs->max_snd_wnd = ti.snd_wnd_bytes;
                if (ti.rtt_us > rs->max_rtt)
                    rs->max_rtt = ti.rtt_us;
                if (ti.rtt_us < rs->min_rtt)
                    rs->min_rtt = ti.rtt_us;
                rs->rtt_sum += ti.rtt_us;
                rs->rtt_n++;
            }
        }
    }
    rs->last = c;
    if (lat) {
        int64_t mn, mx;
        lp_latency_take_interval(&rs->ds->lat, &mn, &mx);
        smp->has_latency = true;
        lp_latency_stat_between(&ls, &rs->lat_last, mn, mx, &smp->latency);
        rs->lat_last = ls;
        hist_cut(rs, &smp->latency);
    }
}

/* Cut the interval that ends now. On the schedule it ends at boundary end_k (a late cut
 * keeps its boundary; one over an interval late spans several), or, with end_k 0, at now
 * (the last one, or the end of -O). */
static void cut(struct lp_run *r, uint64_t now, uint64_t end_k)
{
    if (r->nstreams == 0)
        return;
    struct lp_sample *smp = r->samples;
    memset(smp, 0, r->nstreams * sizeof(*smp));
    struct lp_record rec = {.kind = LP_REC_INTERVAL, .role = r->spec.role, .test_id = r->id};
    struct lp_rec_interval *iv = &rec.u.interval;
    unsigned jf = 0, jr = 0, jb = 0, n = 0;
    const struct lp_sample *pf = NULL, *pr = NULL;
    struct lp_sched_cut c = {.origin_ns = sched_origin(r), .iv_ns = interval_ns(r), .from_ns = r->last_cut_ns,
                             .to_ns = now, .from_k = r->cut_k, .to_k = end_k};
    struct lp_sched_window w;
    lp_sched_window(&c, &w);
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_run_stream *rs = &r->streams[i];
        struct lp_sample *x = &smp[n];
        struct lp_sched_row row;
        lp_sched_row(&c, &w, origin_of(r, rs), rs->start_ns, rs->end_ns, &row);
        sample_stream(r, rs, &row, x);
        if (lp_sched_row_gone(&c, rs->end_ns, x->bytes || x->packets))
            continue;
        n++;
        lp_totals_sample_add(&iv->sum_both, x, &jb);
        if (x->sid.reverse && r->spec.dir == LP_DIR_BIDIR) {
            lp_totals_sample_add(&iv->sum_reverse, x, &jr);
            pr = x;
        } else {
            lp_totals_sample_add(&iv->sum, x, &jf);
            pf = x;
        }
    }
    if (pf)
        lp_totals_sample_close(&iv->sum, pf, jf, &w);
    if (pr) {
        lp_totals_sample_close(&iv->sum_reverse, pr, jr, &w);
        iv->has_sum_reverse = true;
    }
    if (pf || pr)
        lp_totals_sample_close(&iv->sum_both, pf ? pf : pr, jb, &w);
    r->last_cut_ns = now;
    if (end_k > r->cut_k)
        r->cut_k = end_k;
    if (n == 0) /* every stream had ended before it: nothing to report */
        return;
    iv->nstreams = n;
    iv->streams = smp;
    lp_engine_emit(r->eng, &rec);
}

/* Where the last interval ends: iperf2 streams record when they ended
 * (lp_run_stream_ended) and the test itself can end well after that (a UDP receiver waits
 * for 250 ms of silence after answering the FIN; a client waits for the server's close).
 * Once every stream has ended, the last row ends where the last stream ended, as the
 * summary rows do, not when the bookkeeping finished. 0 while any stream is running. */
static uint64_t streams_end_ns(const struct lp_run *r)
{
    uint64_t at = 0;
    for (unsigned i = 0; i < r->nstreams; i++) {
        uint64_t e = r->streams[i].end_ns;
        if (!e)
            return 0;
        if (e > at)
            at = e;
    }
    return at;
}

static void on_interval(struct lp_timer *t)
{
    struct lp_run *r = lp_container_of(t, struct lp_run, interval_timer);
    uint64_t now = lp_now_ns();
    uint64_t iv = interval_ns(r);
    if (r->finished || !iv)
        return;
    struct lp_sched_tick tk;
    lp_sched_tick(sched_origin(r), iv, r->sched_next, now, r->end_deadline_ns, r->omitting,
                  streams_end_ns(r) != 0, &tk);
    if (tk.cut && r->omitting &&
        lp_sched_at(sched_origin(r), iv, tk.end_k) >= lp_sched_omit_end(r->run_ns, r->spec.omit_s)) {
        /* This row ends the omit period: end it here, at the same instant. Left to the omit
         * timer, firing just after, it cut a sliver row of its own ("1.00-1.00 sec ...
         * (omitted)"). */
        cut(r, now, tk.end_k);
        lp_timer_cancel(&r->eng->loop, &r->omit_timer);
        end_omit(r, now);
        return;
    }
    if (tk.cut)
        cut(r, now, tk.end_k);
    r->sched_next = tk.next_k;
    lp_timer_arm(&r->eng->loop, &r->interval_timer, tk.arm_ns);
}

static void on_omit_end(struct lp_timer *t)
{
    struct lp_run *r = lp_container_of(t, struct lp_run, omit_timer);
    uint64_t now = lp_now_ns();
    if (r->finished)
        return;
    cut(r, now, 0); /* the omitted part of a row the omit end falls inside (-i 0.3 -O 1) */
    end_omit(r, now);
}

/* From now on the test counts: every stream's counts start again, and the schedule too. */
static void end_omit(struct lp_run *r, uint64_t now)
{
    r->omitting = false;
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_run_stream *rs = &r->streams[i];
        rs->base = rs->last;
        rs->retr_base = rs->retr_last;
        rs->lat_base = rs->lat_last;
        hist_keep(rs->hist_base, rs->hist_last);
    }
    r->meas_ns = r->last_cut_ns = now;
    lp_cpu_snap(&r->cpu0);
    sched_start(r);
}

static bool rx_held(const struct lp_run *r, const struct lp_run_stream *rs)
{
    return r->rx_held && !rs->conn.sid.sender && rs->ds->cfg.kind == LP_STREAM_UDP_RECV;
}

void lp_run_quiesce(struct lp_run *r, bool hold_udp_rx)
{
    r->rx_held = hold_udp_rx;
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_run_stream *rs = &r->streams[i];
        if (!rs->attached)
            continue;
        if (rs->conn.sid.sender)
            lp_stream_detach(rs->ds);
        else if (!rx_held(r, rs))
            lp_stream_freeze(rs->ds);
    }
}

void lp_run_release_rx(struct lp_run *r)
{
    if (!r->rx_held)
        return;
    r->rx_held = false;
    for (unsigned i = 0; i < r->nstreams; i++)
        if (r->streams[i].attached && !r->streams[i].conn.sid.sender)
            lp_stream_freeze(r->streams[i].ds);
}

bool lp_run_quiesced(const struct lp_run *r)
{
    for (unsigned i = 0; i < r->nstreams; i++) {
        const struct lp_run_stream *rs = &r->streams[i];
        if (!rs->settled && !rx_held(r, rs) && (rs->conn.sid.sender || !rs->ds->frozen))
            return false;
    }
    return true;
}

void lp_run_stop_clock(struct lp_run *r)
{
    if (r->stop_ns || r->finished)
        return;
    r->stop_ns = lp_now_ns();
    lp_timer_cancel(&r->eng->loop, &r->interval_timer);
    lp_timer_cancel(&r->eng->loop, &r->omit_timer);
}

/* -n promises what the receiver counts, and a write only queues the data: on a slow link the
 * send buffer takes seconds to cross, on a fast one the receiving application may not have
 * read its backlog yet, and a stock receiver stops counting at TEST_END. So the test ends
 * once every sender's queue is empty (all of it acknowledged, on TCP) and then the peer's
 * window has not moved for LP_DELIVER_QUIET_NS plus a round trip (a receiver reading its
 * backlog reopens the window as it goes). A peer that stops taking data does not hold the
 * test: it ends when nothing has moved for LP_DELIVER_STALL_NS. */
#define LP_DELIVER_QUIET_NS (25ull * LP_NS_PER_MS)
#define LP_DELIVER_STALL_NS (3ull * LP_NS_PER_S)

/* Whether rs's data can have been counted; *moved: its queue shrank or the window changed. */
static bool stream_delivered(struct lp_run_stream *rs, bool udp, uint64_t now, bool *moved)
{
    int fd = rs->ds ? rs->ds->h.fd : -1;
    long unsent = fd >= 0 ? lp_sock_unsent(fd) : 0;
    if (unsent < 0)
        unsent = 0;
    if ((uint64_t)unsent < rs->unsent_last)
        *moved = true;
    rs->unsent_last = (uint64_t)unsent;
    if (unsent > 0) {
        rs->wnd_since_ns = 0;
        return false;
    }
    struct lp_tcp_sample ts = {0};
    if (!udp && fd >= 0)
        lp_sock_tcp_info(fd, &ts);
    if (!rs->wnd_since_ns || ts.snd_wnd_bytes != rs->peer_wnd) {
        *moved = *moved || rs->wnd_since_ns;
        rs->peer_wnd = ts.snd_wnd_bytes;
        rs->wnd_since_ns = now;
    }
    return now - rs->wnd_since_ns >= LP_DELIVER_QUIET_NS + (uint64_t)ts.rtt_us * 1000u;
}

bool lp_run_delivered(struct lp_run *r)
{
    uint64_t now = lp_now_ns();
    if (!r->deliver_ns) {
        r->deliver_ns = now;
        for (unsigned i = 0; i < r->nstreams; i++)
            r->streams[i].unsent_last = UINT64_MAX;
    }
    bool done = true, moved = false;
    for (unsigned i = 0; i < r->nstreams; i++)
        if (r->streams[i].conn.sid.sender &&
            !stream_delivered(&r->streams[i], r->spec.proto == LP_PROTO_UDP, now, &moved))
            done = false;
    if (moved)
        r->deliver_ns = now;
    return done || now - r->deliver_ns >= LP_DELIVER_STALL_NS;
}

void lp_run_detach_all(struct lp_run *r)
{
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_run_stream *rs = &r->streams[i];
        if (rs->attached)
            lp_stream_detach(rs->ds);
    }
}

void lp_run_close_streams(struct lp_run *r)
{
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_stream *ds = r->streams[i].ds;
        if (!r->streams[i].settled || !ds || ds->h.fd < 0)
            continue;
        close(ds->h.fd);
        ds->h.fd = -1;
    }
}

bool lp_run_all_settled(const struct lp_run *r)
{
    for (unsigned i = 0; i < r->nstreams; i++)
        if (!r->streams[i].settled)
            return false;
    return true;
}

void lp_run_finish(struct lp_run *r)
{
    if (r->finished)
        return;
    uint64_t now = r->stop_ns ? r->stop_ns : lp_now_ns();
    lp_timer_cancel(&r->eng->loop, &r->interval_timer);
    lp_timer_cancel(&r->eng->loop, &r->omit_timer);
    if (r->started) {
        /* Keep a short last interval only if it carried data or is not a sliver. */
        bool any = false;
        for (unsigned i = 0; i < r->nstreams; i++) {
            struct lp_stream_counters c;
            lp_stream_read(r->streams[i].ds, &c);
            any |= c.bytes != r->streams[i].last.bytes;
        }
        uint64_t iv = interval_ns(r);
        struct lp_sched_last last;
        lp_sched_last(sched_origin(r), iv, r->last_cut_ns, now, streams_end_ns(r), any, &last);
        if (last.cut)
            cut(r, last.at_ns, last.end_k);
        else if (!iv) {
            /* No interval reports: still refresh the counters for the totals. */
            for (unsigned i = 0; i < r->nstreams; i++) {
                struct lp_sched_row none = {0};
                struct lp_sample s;
                sample_stream(r, &r->streams[i], &none, &s);
            }
        } else {
            for (unsigned i = 0; i < r->nstreams; i++) {
                lp_stream_read(r->streams[i].ds, &r->streams[i].last);
                bounce_bytes(&r->streams[i], &r->streams[i].last, &r->streams[i].lat_last);
            }
        }
    }
    for (unsigned i = 0; i < r->nstreams; i++) {
        r->streams[i].final = r->streams[i].last;
        r->streams[i].lat_final = r->streams[i].lat_last;
        hist_keep(r->streams[i].hist_final, r->streams[i].hist_last);
        r->streams[i].retr_final = r->streams[i].retr_last;
    }
    r->final_ns = now;
    r->finished = true;
    lp_cpu_snap(&r->cpu1);
}

/* ---- totals ---- */

/* The run's clock for its totals: they end when it finished, or now while it runs. */
static struct lp_totals_clock clock_of(const struct lp_run *r)
{
    struct lp_totals_clock c = {.started = r->started, .meas_ns = r->meas_ns,
                                .end_ns = r->finished ? r->final_ns : lp_now_ns()};
    return c;
}

static void local_total(const struct lp_run *r, const struct lp_run_stream *rs, struct lp_total *t)
{
    bool udp = r->spec.proto == LP_PROTO_UDP;
    struct lp_totals_clock clk = clock_of(r);
    struct lp_totals_counts f = counts_of(&rs->final), b = counts_of(&rs->base);
    memset(t, 0, sizeof(*t));
    lp_totals_span(t, &clk, origin_of(r, rs), rs->start_ns, rs->end_ns);
    lp_totals_counts(t, udp, rs->conn.sid.sender, &f, &b);
    t->frames = lp_frame_counts_delta(&rs->final.frames, &rs->base.frames);
    if (rs->ds->cfg.latency) {
        const struct lp_latency_snap *lf = &rs->lat_final;
        t->has_latency = true;
        lp_latency_stat_between(lf, &rs->lat_base, lf->min_ns, lf->max_ns, &t->latency);
        if (rs->hist_final) {
            lp_hist_percentiles(rs->hist_final, rs->hist_base, &t->latency);
            t->latency.hist = rs->hist_final;
            t->latency.hist_base = rs->hist_base;
        }
    }
    if (!udp && rs->conn.sid.sender && rs->has_tcp_info) {
        t->has_retransmits = true;
        t->retransmits = (int64_t)(rs->retr_final - rs->retr_base);
        t->has_tcp_extra = true;
        t->max_snd_cwnd = rs->max_cwnd;
        t->max_snd_wnd = rs->max_snd_wnd;
        t->max_rtt_us = rs->max_rtt;
        t->min_rtt_us = rs->rtt_n ? rs->min_rtt : 0;
        t->mean_rtt_us = rs->rtt_n ? (uint32_t)(rs->rtt_sum / rs->rtt_n) : 0;
        t->reorder = rs->reorder;
    }
}

static void peer_total(const struct lp_run *r, const struct lp_peer_results *peer,
                       const struct lp_peer_stream *p, bool peer_sends, struct lp_total *t)
{
    bool udp = r->spec.proto == LP_PROTO_UDP;
    memset(t, 0, sizeof(*t));
    t->present = true;
    t->end_s = t->seconds = p->end_time;
    t->bytes = p->bytes;
    t->bits_per_second = lp_totals_bps(t->bytes, t->seconds);
    t->is_udp = udp;
    if (udp) {
        t->packets = p->packets;
        if (!peer_sends) {
            t->lost_packets = p->errors;
            t->out_of_order = p->out_of_order;
            t->jitter_ms = p->jitter_s * 1000.0;
            t->lost_percent = lp_udp_lost_percent(t->lost_packets, t->packets);
            t->has_latency = p->has_latency;
            t->latency = p->latency;
        }
    } else if (peer_sends && peer->sender_has_retransmits == 1 && p->retransmits >= 0) {
        t->has_retransmits = true;
        t->retransmits = p->retransmits;
    }
}

uint64_t lp_run_rx_idle_ns(const struct lp_run *r)
{
    return lp_run_rx_idle_since_ns(r, 0);
}

uint64_t lp_run_rx_idle_since_ns(const struct lp_run *r, uint64_t since_ns)
{
    uint64_t newest = since_ns;
    for (unsigned i = 0; i < r->nstreams; i++) {
        struct lp_stream_counters k;
        if (r->streams[i].conn.sid.sender)
            continue;
        lp_stream_read(r->streams[i].ds, &k);
        if (k.last_rx_ns > newest)
            newest = k.last_rx_ns;
    }
    /* Read the clock after the workers' stamps: a stamp taken after an earlier clock
     * reading would make the difference wrap around. */
    uint64_t now = lp_now_ns();
    return newest && now > newest ? now - newest : 0;
}

void lp_run_local_results(const struct lp_run *r, struct lp_peer_results *out)
{
    bool udp = r->spec.proto == LP_PROTO_UDP;
    bool sends = false, retr = false;
    memset(out, 0, sizeof(*out));
    if (r->started) {
        struct lp_cpu_snap now;
        const struct lp_cpu_snap *b = r->finished ? &r->cpu1 : &now;
        if (!r->finished)
            lp_cpu_snap(&now);
        lp_cpu_util(&r->cpu0, b, &out->cpu_total, &out->cpu_user, &out->cpu_system);
    }
    snprintf(out->congestion, sizeof(out->congestion), "%s", udp ? "" : r->congestion);
    for (unsigned i = 0; i < r->nstreams && i < LP_PEER_MAX_STREAMS; i++) {
        const struct lp_run_stream *rs = &r->streams[i];
        struct lp_total t;
        local_total(r, rs, &t);
        struct lp_peer_stream *s = &out->streams[out->nstreams++];
        s->id = rs->conn.sid.id;
        s->bytes = t.bytes;
        s->retransmits = t.has_retransmits ? t.retransmits : -1;
        s->jitter_s = udp && !rs->conn.sid.sender ? t.jitter_ms / 1000.0 : 0;
        s->errors = udp && !rs->conn.sid.sender ? t.lost_packets : 0;
        s->packets = udp ? t.packets : 0;
        s->start_time = 0;
        s->end_time = t.seconds;
        sends |= rs->conn.sid.sender;
        retr |= t.has_retransmits;
    }
    out->sender_has_retransmits = !sends ? -1 : (!udp && retr) ? 1 : 0;
}

/* The END / LEG_END rows, zeroed: storage that grew with the streams (lp_run.ends), or one
 * row on the stack for a run without streams. */
static struct lp_stream_end *end_rows(struct lp_run *r, struct lp_stream_end *none)
{
    memset(none, 0, sizeof(*none));
    if (!r->nstreams)
        return none;
    memset(r->ends, 0, r->nstreams * sizeof(*r->ends));
    return r->ends;
}

void lp_run_emit_leg_end(struct lp_run *r, const struct lp_peer_results *peer)
{
    struct lp_stream_end none;
    struct lp_stream_end *se = end_rows(r, &none);
    struct lp_record rec = {.kind = LP_REC_LEG_END, .role = r->spec.role, .test_id = r->id};
    unsigned n = 0;
    uint64_t iv = interval_ns(r), now = lp_now_ns();
    /* The leg's last interval row first (to its end, on the boundary it passed), as 2.1.8
     * prints it before the leg's summary. */
    if (iv && r->started && !r->finished && !r->leg_ns && now > r->last_cut_ns)
        cut(r, now, lp_sched_index(sched_origin(r), iv, now));
    for (unsigned i = 0; i < r->nstreams; i++) {
        const struct lp_run_stream *rs = &r->streams[i];
        if (!rs->end_ns || !rs->ds)
            continue;
        /* Its totals now: the counters it ended with (final ones exist only at the end). */
        struct lp_run_stream snap = *rs;
        lp_stream_read(rs->ds, &snap.final);
        bounce_bytes(rs, &snap.final, &rs->lat_last);
        snap.lat_final = rs->lat_last;
        snap.hist_final = rs->hist_last;
        snap.retr_final = rs->retr_last;
        struct lp_total t;
        local_total(r, &snap, &t);
        se[n].sid = rs->conn.sid;
        if (rs->conn.sid.sender)
            se[n].sender = t;
        else
            se[n].receiver = t;
        /* A UDP sender's peer report, when the leg's FIN exchange brought one. */
        const struct lp_peer_stream *p = peer ? lp_peer_results_find(peer, rs->conn.sid.id) : NULL;
        if (p && rs->conn.sid.sender)
            peer_total(r, peer, p, false, &se[n].receiver);
        n++;
    }
    rec.u.end.nstreams = n;
    rec.u.end.streams = se;
    lp_totals_own(se, n, &rec.u.end.own);
    if (n)
        lp_engine_emit(r->eng, &rec);
}

void lp_run_emit_end(struct lp_run *r, const struct lp_peer_results *peer, bool partial,
                     const char *server_output_text, const char *server_output_json)
{
    struct lp_stream_end none;
    struct lp_stream_end *se = end_rows(r, &none);
    struct lp_record rec = {.kind = LP_REC_END, .role = r->spec.role, .test_id = r->id};
    struct lp_rec_end *end = &rec.u.end;
    unsigned jit[2][2] = {{0}}; /* [direction][sent/received] */
    bool retr[2][2] = {{true, true}, {true, true}};
    bool any_local_send = false;
    for (unsigned i = 0; i < r->nstreams; i++) {
        const struct lp_run_stream *rs = &r->streams[i];
        struct lp_total local, remote = {0};
        bool sends = rs->conn.sid.sender;
        local_total(r, rs, &local);
        const struct lp_peer_stream *p = peer ? lp_peer_results_find(peer, rs->conn.sid.id) : NULL;
        if (p)
            peer_total(r, peer, p, !sends, &remote);
        se[i].sid = rs->conn.sid;
        se[i].sender = sends ? local : remote;
        se[i].receiver = sends ? remote : local;
        any_local_send |= sends;
        int d = rs->conn.sid.reverse && r->spec.dir == LP_DIR_BIDIR;
        struct lp_direction_end *de = d ? &end->reverse : &end->forward;
        de->present = true;
        lp_totals_add(&de->sent, &se[i].sender, &jit[d][0], &retr[d][0]);
        lp_totals_add(&de->received, &se[i].receiver, &jit[d][1], &retr[d][1]);
    }
    for (int d = 0; d < 2; d++) {
        struct lp_direction_end *de = d ? &end->reverse : &end->forward;
        lp_totals_close(&de->sent, jit[d][0], retr[d][0], true);
        lp_totals_close(&de->received, jit[d][1], retr[d][1], false);
    }
    end->nstreams = r->nstreams;
    end->streams = se;
    lp_totals_own(se, r->nstreams, &end->own);
    end->bidir = r->spec.dir == LP_DIR_BIDIR;
    end->partial = partial;
    end->offload = udp_offload(r);
    struct lp_peer_results mine;
    lp_run_local_results(r, &mine);
    end->cpu.host_total = mine.cpu_total;
    end->cpu.host_user = mine.cpu_user;
    end->cpu.host_system = mine.cpu_system;
    if (peer) {
        end->cpu.remote_total = peer->cpu_total;
        end->cpu.remote_user = peer->cpu_user;
        end->cpu.remote_system = peer->cpu_system;
    }
    if (r->spec.proto == LP_PROTO_TCP) {
        const char *local_cc = r->congestion[0] ? r->congestion : NULL;
        const char *peer_cc = peer && peer->congestion[0] ? peer->congestion : NULL;
        bool bidir = r->spec.dir == LP_DIR_BIDIR;
        if (any_local_send || bidir) {
            end->sender_congestion = local_cc;
            end->receiver_congestion = peer_cc;
        } else {
            end->sender_congestion = peer_cc;
            end->receiver_congestion = local_cc;
        }
    }
    end->server_output_text = server_output_text;
    end->server_output_json = server_output_json;
    r->end_emitted = true;
    lp_engine_emit(r->eng, &rec);
}

/* cJSON objects for iperf3's -J schema: start, one interval, end. The keys, nesting and
 * order of 3.21's documents (tests/golden/evidence/json321_*), which keep every key of
 * 3.12's in 3.12's order and only add some; values come straight from the records. */
#include <stdio.h>
#include <string.h>

#include "fmt/fmt_util.h"
#include "linkperf/hist.h"
#include "fmt/pdf.h"
#include "fmt/json_int.h"
#include "fmt/rt_loss.h"

static void num(cJSON *o, const char *k, double v)
{
    cJSON_AddNumberToObject(o, k, v);
}

/* ---- start ---- */

cJSON *lp_json_start_empty(void)
{
    cJSON *o = cJSON_CreateObject();
    char sys[LP_SYSINFO_MAX];

    if (!o)
        return NULL;
    lp_fmt_sysinfo(sys, sizeof(sys));
    cJSON_AddItemToObject(o, "connected", cJSON_CreateArray());
    cJSON_AddStringToObject(o, "version", LP_VERSION_STR);
    cJSON_AddStringToObject(o, "system_info", sys);
    return o;
}

static void add_endpoint(cJSON *o, const char *k, const struct lp_endpoint *e)
{
    cJSON *c = cJSON_AddObjectToObject(o, k);

    cJSON_AddStringToObject(c, "host", e->host);
    num(c, "port", e->port);
}

static void add_connected(cJSON *o, const struct lp_rec_start *st)
{
    cJSON *a = cJSON_AddArrayToObject(o, "connected");

    for (unsigned i = 0; a && i < st->nstreams; i++) {
        const struct lp_stream_conn *c = &st->streams[i];
        cJSON *s = cJSON_CreateObject();
        num(s, "socket", c->sid.socket);
        cJSON_AddStringToObject(s, "local_host", c->local.host);
        num(s, "local_port", c->local.port);
        cJSON_AddStringToObject(s, "remote_host", c->remote.host);
        num(s, "remote_port", c->remote.port);
        cJSON_AddItemToArray(a, s);
    }
}

static void add_timestamp(cJSON *o, const struct lp_rec_start *st)
{
    cJSON *t = cJSON_AddObjectToObject(o, "timestamp");
    char when[64];

    lp_fmt_gmt(when, sizeof(when), st->timestamp);
    cJSON_AddStringToObject(t, "time", when);
    num(t, "timesecs", (double)st->timestamp);
    num(t, "timemillisecs", (double)st->timestamp_ms); /* 3.20+: the same instant, in ms */
}

static void add_buffers(cJSON *o, const struct lp_rec_start *st)
{
    num(o, "sock_bufsize", st->sock_bufsize);
    num(o, "sndbuf_actual", st->sndbuf_actual);
    num(o, "rcvbuf_actual", st->rcvbuf_actual);
}

static void add_test_start(cJSON *o, const struct lp_spec *sp, const struct lp_udp_offload *off)
{
    cJSON *t = cJSON_AddObjectToObject(o, "test_start");

    cJSON_AddStringToObject(t, "protocol", sp->proto == LP_PROTO_UDP ? "UDP" : "TCP");
    num(t, "num_streams", sp->streams);
    num(t, "blksize", lp_spec_blksize(sp));
    num(t, "omit", sp->omit_s);
    num(t, "duration", sp->duration_s);
    num(t, "bytes", (double)sp->bytes);
    num(t, "blocks", (double)sp->blocks);
    num(t, "reverse", sp->dir == LP_DIR_REVERSE);
    num(t, "tos", sp->tos < 0 ? 0 : sp->tos);
    num(t, "target_bitrate", (double)sp->rate_bps);
    /* Newer than 3.12 (its consumers ignore them): bidir and fqrate 3.13, interval 3.17 (-i
     * in seconds, 0 = no intervals), gso and gro 3.20 (1 when this end sends with UDP GSO /
     * receives with UDP GRO; iperf3 prints there what --gsro asked for). */
    num(t, "bidir", sp->dir == LP_DIR_BIDIR);
    num(t, "fqrate", (double)sp->fq_rate_bps);
    num(t, "interval", sp->report.interval_s);
    num(t, "gso", off->gso);
    num(t, "gro", off->gro);
    /* iperf2 --isochronous (linkperf's key; a server knows only that its client sends frames). */
    if (sp->iperf2.isoch.on) {
        cJSON *i = cJSON_AddObjectToObject(t, "isochronous");
        if (sp->role == LP_ROLE_CLIENT) {
            num(i, "fps", sp->iperf2.isoch.fps);
            num(i, "mean_bps", sp->iperf2.isoch.mean_bps);
            num(i, "stdev_bps", sp->iperf2.isoch.stdev_bps);
            num(i, "ipg_ms", sp->iperf2.isoch.ipg_s * 1e3);
        }
    }
}

/* --isochronous frames of a row or a total: the sender's tx/miss/slip, the receiver's rx/lost. */
static void add_frames(cJSON *o, const struct lp_frame_counts *fr, bool sender)
{
    if (!fr->on)
        return;
    cJSON *f = cJSON_AddObjectToObject(o, "frames");
    if (sender) {
        num(f, "tx", (double)fr->tx);
        num(f, "miss", (double)fr->miss);
        num(f, "slip", (double)fr->slip);
    } else {
        num(f, "rx", (double)fr->rx);
        num(f, "lost", (double)fr->lost);
    }
}

static void add_mss(cJSON *o, const struct lp_rec_start *st)
{
    if (st->tcp_mss > 0)
        num(o, "tcp_mss", st->tcp_mss);
    else
        num(o, "tcp_mss_default", st->tcp_mss_default);
}

cJSON *lp_json_start(const struct lp_rec_start *st, enum lp_role role)
{
    static const struct lp_spec none; /* all zero: a TCP forward test */
    const struct lp_spec *sp = st->spec ? st->spec : &none;
    bool tcp = sp->proto == LP_PROTO_TCP;
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    add_connected(o, st);
    cJSON_AddStringToObject(o, "version", st->version ? st->version : LP_VERSION_STR);
    cJSON_AddStringToObject(o, "system_info", st->system_info ? st->system_info : "");
    /* 3.12 adds these keys as the test sets itself up, so the order depends on the role
     * (and on the protocol for a server). Its duplicate keys (-P, -b) are not repeated. */
    if (role == LP_ROLE_SERVER && tcp)
        add_buffers(o, st);
    add_timestamp(o, st);
    if (role == LP_ROLE_SERVER)
        add_endpoint(o, "accepted_connection", &st->control_peer);
    else
        add_endpoint(o, "connecting_to", &st->control_peer);
    cJSON_AddStringToObject(o, "cookie", st->cookie ? st->cookie : "");
    if (tcp)
        add_mss(o, st);
    num(o, "target_bitrate", (double)sp->rate_bps);
    num(o, "fq_rate", (double)sp->fq_rate_bps); /* 3.13+: --fq-rate in bits/s, 0 = unset */
    if (role == LP_ROLE_CLIENT || !tcp)
        add_buffers(o, st);
    add_test_start(o, sp, &st->offload);
    return o;
}

/* ---- intervals ---- */

/* start/end at µs like iperf3; seconds as iperf3's float (so 1.000073 -> 1.0000729560852051). */
static void add_times(cJSON *o, double start_s, double end_s, bool float_seconds)
{
    double a = lp_fmt_round_us(start_s), b = lp_fmt_round_us(end_s);

    num(o, "start", a);
    num(o, "end", b);
    num(o, "seconds", float_seconds ? (double)(float)(b - a) : lp_fmt_round_us(b - a));
}

/* A test's latency distribution: its non-empty buckets as [low_ns, width_ns, count]
 * (stats/hist.h: at most LP_HIST_BUCKETS of them). */
static void add_histogram(cJSON *lo, const struct lp_latency_stat *l)
{
    cJSON *h, *b;

    if (!l->hist || !(h = cJSON_AddObjectToObject(lo, "histogram")) ||
        !(b = cJSON_AddArrayToObject(h, "buckets")))
        return;
    for (unsigned i = 0; i < LP_HIST_BUCKETS; i++) {
        uint32_t n = l->hist[i] - (l->hist_base ? l->hist_base[i] : 0);
        uint64_t low, width;
        cJSON *row;
        if (!n || !(row = cJSON_CreateArray()))
            continue;
        lp_hist_bucket(i, &low, &width);
        cJSON_AddItemToArray(row, cJSON_CreateNumber((double)low));
        cJSON_AddItemToArray(row, cJSON_CreateNumber((double)width));
        cJSON_AddItemToArray(row, cJSON_CreateNumber((double)n));
        cJSON_AddItemToArray(b, row);
    }
}

/* Latency (iperf2 trip-times / UDP -e one way, --bounceback round trips): not in iperf3's
 * schema, so only where measured. */
/* iperf2 --histograms (a server's): the PDF 2.1.8 prints, as numbers: its bins, the bins
 * holding the bounds, outliers and the samples past the last bin (stats/pdf.h). */
static int pdf_bin(void *ctx, uint32_t bin, uint64_t count)
{
    cJSON *row = cJSON_CreateArray();
    if (!row)
        return 1;
    cJSON_AddItemToArray(row, cJSON_CreateNumber(bin));
    cJSON_AddItemToArray(row, cJSON_CreateNumber((double)count));
    cJSON_AddItemToArray(ctx, row);
    return 0;
}

static void add_pdf(cJSON *lo, const struct lp_latency_stat *l, const struct lp_histogram_spec *h)
{
    struct lp_pdf_summary s;
    cJSON *p, *bins;

    if (!h || !h->on || !l->hist || !(p = cJSON_AddObjectToObject(lo, "pdf")))
        return;
    num(p, "bin_width_us", (double)lp_pdf_bin_ns(h) / 1e3);
    num(p, "bins", h->bins);
    num(p, "ci_lower", h->ci_lower);
    num(p, "ci_upper", h->ci_upper);
    bins = cJSON_AddArrayToObject(p, "counts");
    lp_pdf_compute(l->hist, l->hist_base, h, bins ? pdf_bin : NULL, bins, &s);
    num(p, "count", (double)s.population);
    num(p, "lower_bin", s.lower_bin);
    num(p, "upper_bin", s.upper_bin);
    num(p, "p99_7_bin", s.p997_bin);
    num(p, "outliers", (double)s.outliers);
    num(p, "below", (double)s.below);
    num(p, "above", (double)s.above);
}

/* hdr: the HDR buckets too (a test's totals; intervals leave them out). */
static void add_latency(cJSON *o, bool has, const struct lp_latency_stat *l, const struct lp_histogram_spec *pdf,
                        bool hdr)
{
    cJSON *lo;

    if (!has || !(lo = cJSON_AddObjectToObject(o, "latency")))
        return;
    num(lo, "count", (double)l->count);
    num(lo, "mean_ms", l->mean_ms);
    num(lo, "min_ms", l->min_ms);
    num(lo, "max_ms", l->max_ms);
    num(lo, "stdev_ms", l->stdev_ms);
    if (l->has_pct) {
        num(lo, "p50_ms", l->p50_ms);
        num(lo, "p90_ms", l->p90_ms);
        num(lo, "p99_ms", l->p99_ms);
        num(lo, "p99_9_ms", l->p999_ms);
    }
    if (hdr)
        add_histogram(lo, l);
    add_pdf(lo, l, pdf);
}

static cJSON *sample_obj(const struct lp_sample *s, bool sum, const struct lp_histogram_spec *pdf)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    if (!sum)
        num(o, "socket", s->sid.socket);
    add_times(o, s->start_s, s->end_s, true);
    num(o, "bytes", (double)s->bytes);
    num(o, "bits_per_second", s->bits_per_second);
    if (s->is_udp && s->sid.sender) {
        num(o, "packets", (double)s->packets);
    } else if (s->is_udp) {
        num(o, "jitter_ms", s->jitter_ms);
        num(o, "lost_packets", (double)s->lost_packets);
        num(o, "packets", (double)s->packets);
        num(o, "lost_percent", s->lost_percent);
    } else if (s->sid.sender && s->has_tcp_info) {
        num(o, "retransmits", (double)s->retransmits);
        if (!sum) {
            num(o, "snd_cwnd", (double)s->snd_cwnd);
            num(o, "snd_wnd", (double)s->snd_wnd);
            num(o, "rtt", s->rtt_us);
            num(o, "rttvar", s->rttvar_us);
            num(o, "pmtu", s->pmtu);
            num(o, "reorder", (double)s->reorder); /* 3.20+ */
        }
    }
    add_latency(o, s->has_latency, &s->latency, sum ? NULL : pdf, false);
    add_frames(o, &s->frames, s->sid.sender);
    cJSON_AddBoolToObject(o, "omitted", s->omitted);
    cJSON_AddBoolToObject(o, "sender", s->sid.sender);
    return o;
}

cJSON *lp_json_interval(const struct lp_rec_interval *iv, const struct lp_histogram_spec *pdf)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *a = cJSON_AddArrayToObject(o, "streams");

    if (!o || !a) {
        cJSON_Delete(o);
        return NULL;
    }
    for (unsigned i = 0; i < iv->nstreams; i++)
        cJSON_AddItemToArray(a, sample_obj(&iv->streams[i], false, pdf));
    cJSON_AddItemToObject(o, "sum", sample_obj(&iv->sum, true, NULL));
    if (iv->has_sum_reverse)
        cJSON_AddItemToObject(o, "sum_bidir_reverse", sample_obj(&iv->sum_reverse, true, NULL));
    return o;
}

/* ---- end ---- */

/* A side iperf3 had no numbers for still appears, with zero bytes over the other
 * side's time span (3.12 servers print exactly that). */
static struct lp_total or_blank(const struct lp_total *t, const struct lp_total *other)
{
    struct lp_total z = {0};

    if (t->present)
        return *t;
    z.end_s = other->end_s;
    z.seconds = other->seconds;
    return z;
}

static void add_span(cJSON *o, const struct lp_total *t)
{
    num(o, "start", lp_fmt_round_us(t->start_s));
    num(o, "end", lp_fmt_round_us(t->end_s));
    num(o, "seconds", lp_fmt_round_us(t->seconds));
}

/* 3.12 shows retransmit counters only where that end had them when it printed: always on
 * a client (they come with the results), on a server only for streams it sends on. */
static bool show_retr(const struct lp_total *t, enum lp_role role, bool local_sends)
{
    return t->has_retransmits && (role == LP_ROLE_CLIENT || local_sends);
}

static cJSON *tcp_side(const struct lp_stream_end *s, const struct lp_total *t, bool sender_side,
                       enum lp_role role, const struct lp_histogram_spec *pdf)
{
    cJSON *o = cJSON_CreateObject();

    num(o, "socket", s->sid.socket);
    add_span(o, t);
    num(o, "bytes", (double)t->bytes);
    num(o, "bits_per_second", t->bits_per_second);
    if (sender_side && show_retr(t, role, s->sid.sender)) {
        num(o, "retransmits", (double)t->retransmits);
        /* 3.20+: measured locally only; a peer's is not exchanged, 3.21 prints 0 too. */
        num(o, "reorder", t->has_tcp_extra ? (double)t->reorder : 0);
        num(o, "max_snd_cwnd", (double)t->max_snd_cwnd);
        num(o, "max_snd_wnd", (double)t->max_snd_wnd);
        num(o, "max_rtt", t->max_rtt_us);
        num(o, "min_rtt", t->min_rtt_us);
        num(o, "mean_rtt", t->mean_rtt_us);
    }
    add_latency(o, t->has_latency, &t->latency, pdf, true);
    if (sender_side == s->sid.sender) /* --isochronous over TCP: this end's own frames */
        add_frames(o, &t->frames, sender_side);
    cJSON_AddBoolToObject(o, "sender", s->sid.sender);
    return o;
}

static void add_udp_loss(cJSON *o, const struct lp_total *rx)
{
    num(o, "jitter_ms", rx->jitter_ms);
    num(o, "lost_packets", (double)rx->lost_packets);
    num(o, "packets", (double)rx->packets);
    num(o, "lost_percent", rx->lost_percent);
}

/* iperf3's one-object UDP stream: this end's time span, the sender's bytes and the
 * receiver's loss figures. */
static cJSON *udp_stream(const struct lp_stream_end *s, const struct lp_histogram_spec *pdf)
{
    struct lp_total tx = or_blank(&s->sender, &s->receiver);
    struct lp_total rx = or_blank(&s->receiver, &s->sender);
    cJSON *o = cJSON_CreateObject();

    num(o, "socket", s->sid.socket);
    add_span(o, s->sid.sender ? &tx : &rx);
    /* No sender numbers at all (an iperf2 client sends no results): the bytes we received. */
    const struct lp_total *b = !s->sender.present && s->receiver.present ? &rx : &tx;
    num(o, "bytes", (double)b->bytes);
    num(o, "bits_per_second", b->bits_per_second);
    add_udp_loss(o, &rx);
    uint64_t sent;
    int64_t lost;
    double pct;
    if (lp_fmt_rt_loss(&s->sender, s->sid.sender, &sent, &lost, &pct)) {
        /* UDP round trips: the latency this end timed, and the probes that never came back. */
        add_latency(o, true, &s->sender.latency, pdf, true);
        cJSON *lo = cJSON_GetObjectItemCaseSensitive(o, "latency");
        if (lo) {
            num(lo, "sent", (double)sent);
            num(lo, "lost", (double)lost);
            num(lo, "lost_percent", pct);
        }
    } else {
        add_latency(o, rx.has_latency, &rx.latency, pdf, true);
    }
    num(o, "out_of_order", (double)rx.out_of_order);
    add_frames(o, s->sid.sender ? &s->sender.frames : &s->receiver.frames, s->sid.sender);
    cJSON_AddBoolToObject(o, "sender", s->sid.sender);
    return o;
}

static void add_streams(cJSON *end_o, const struct lp_rec_end *end, enum lp_role role, bool udp,
                        const struct lp_histogram_spec *pdf)
{
    cJSON *a = cJSON_AddArrayToObject(end_o, "streams");

    for (unsigned i = 0; a && i < end->nstreams; i++) {
        const struct lp_stream_end *s = &end->streams[i];
        cJSON *e = cJSON_CreateObject();
        if (udp) {
            cJSON_AddItemToObject(e, "udp", udp_stream(s, pdf));
        } else {
            struct lp_total tx = or_blank(&s->sender, &s->receiver);
            struct lp_total rx = or_blank(&s->receiver, &s->sender);
            cJSON_AddItemToObject(e, "sender", tcp_side(s, &tx, true, role, pdf));
            cJSON_AddItemToObject(e, "receiver", tcp_side(s, &rx, false, role, pdf));
        }
        cJSON_AddItemToArray(a, e);
    }
}

/* Does this end send on the streams of one direction (reverse < 0: any stream)? */
static bool local_sends(const struct lp_rec_end *end, int reverse)
{
    for (unsigned i = 0; i < end->nstreams; i++)
        if ((reverse < 0 || end->streams[i].sid.reverse == (reverse != 0)) &&
            end->streams[i].sid.sender)
            return true;
    return false;
}

static cJSON *sum_obj(const struct lp_total *t, bool udp, bool retr, bool sender)
{
    cJSON *o = cJSON_CreateObject();

    add_span(o, t);
    num(o, "bytes", (double)t->bytes);
    num(o, "bits_per_second", t->bits_per_second);
    if (udp)
        add_udp_loss(o, t);
    else if (retr)
        num(o, "retransmits", (double)t->retransmits);
    cJSON_AddBoolToObject(o, "sender", sender);
    return o;
}

/* One direction's sums; sfx is "" or "_bidir_reverse". */
static void add_sums(cJSON *o, const struct lp_direction_end *de, const char *sfx, bool udp,
                     bool sends, enum lp_role role)
{
    struct lp_total tx = or_blank(&de->sent, &de->received);
    struct lp_total rx = or_blank(&de->received, &de->sent);
    char k[64];

    if (udp) {
        /* The legacy UDP "sum": receiver's span and loss, sender's bytes. */
        struct lp_total legacy = rx;
        legacy.bytes = tx.bytes;
        legacy.bits_per_second = tx.bits_per_second;
        snprintf(k, sizeof(k), "sum%s", sfx);
        cJSON_AddItemToObject(o, k, sum_obj(&legacy, true, false, sends));
    }
    /* 3.12's UDP sums always say sent=true, received=false; TCP ones say whether this
     * end sends in that direction. */
    snprintf(k, sizeof(k), "sum_sent%s", sfx);
    cJSON_AddItemToObject(o, k, sum_obj(&tx, udp, show_retr(&tx, role, sends), udp || sends));
    snprintf(k, sizeof(k), "sum_received%s", sfx);
    cJSON_AddItemToObject(o, k, sum_obj(&rx, udp, false, !udp && sends));
}

static void add_cpu(cJSON *o, const struct lp_cpu_util *c)
{
    cJSON *u = cJSON_AddObjectToObject(o, "cpu_utilization_percent");

    num(u, "host_total", c->host_total);
    num(u, "host_user", c->host_user);
    num(u, "host_system", c->host_system);
    num(u, "remote_total", c->remote_total);
    num(u, "remote_user", c->remote_user);
    num(u, "remote_system", c->remote_system);
}

static void add_congestion(cJSON *o, const struct lp_rec_end *end, enum lp_role role)
{
    bool snd = end->sender_congestion != NULL, rcv = end->receiver_congestion != NULL;

    /* A 3.12 server names only its own algorithm: the sender's if it sends at all. */
    if (role == LP_ROLE_SERVER) {
        bool sends = local_sends(end, -1);
        snd = snd && sends;
        rcv = rcv && !sends;
    }
    if (snd)
        cJSON_AddStringToObject(o, "sender_tcp_congestion", end->sender_congestion);
    if (rcv)
        cJSON_AddStringToObject(o, "receiver_tcp_congestion", end->receiver_congestion);
}

cJSON *lp_json_end(const struct lp_rec_end *end, enum lp_role role, bool udp, const struct lp_histogram_spec *pdf)
{
    cJSON *o = cJSON_CreateObject();
    const struct lp_direction_end *primary = &end->forward;

    if (!o)
        return NULL;
    add_streams(o, end, role, udp, pdf);
    if (end->bidir) {
        add_sums(o, &end->forward, "", udp, local_sends(end, 0), role);
        add_sums(o, &end->reverse, "_bidir_reverse", udp, local_sends(end, 1), role);
    } else {
        if (!primary->present && end->reverse.present)
            primary = &end->reverse;
        add_sums(o, primary, "", udp, local_sends(end, -1), role);
    }
    add_cpu(o, &end->cpu);
    if (!udp)
        add_congestion(o, end, role);
    return o;
}

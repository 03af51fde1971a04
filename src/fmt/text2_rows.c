/* iperf2's report rows: column headers, interval and final rows, [SUM], "Sent N datagrams",
 * server reports, the -e columns and -m. Every number comes from the records, the [SUM]s
 * too (the engine's sum_both and own); this file decides which rows and layouts appear. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt/text2_int.h"
#include "linkperf/hist.h"

#define HDR_PLAIN "[ ID] Interval       Transfer     Bandwidth"
#define HDR_UDP_RX HDR_PLAIN "        Jitter   Lost/Total Datagrams"
#define HDR_ENH_TCP_TX                                                                             \
    "[ ID] Interval            Transfer    Bandwidth       Write/Err  Rtry     Cwnd/RTT(var)        " \
    "NetPwr"
/* 2.1.8's TCP --isochronous sender: RTT without its variance, the frames before NetPwr. */
#define HDR_ENH_TCP_ISOCH                                                                          \
    "[ ID] Interval            Transfer     Bandwidth      Write/Err  Rtry     Cwnd/RTT     "      \
    "isoch:tx/miss/slip  NetPwr"
#define HDR_ENH_UDP_TX "[ ID] Interval            Transfer     Bandwidth      Write/Err  PPS"
/* iperf 2.1.8 also prints Rx/inP (and Reads=Dist for TCP); linkperf measures neither. */
#define HDR_UDP_RX_LAT                                                                             \
    "[ ID] Interval            Transfer     Bandwidth        Jitter   Lost/Total  "                \
    "Latency avg/min/max/stdev PPS  NetPwr"
#define HDR_TCP_RX_LAT                                                                             \
    "[ ID] Interval            Transfer    Bandwidth    Burst Latency avg/min/max/stdev (cnt/size) " \
    "NetPwr"

/* 2.1.8 built with TCP stats (Linux). */
#define HDR_BB                                                                                     \
    "[ ID] Interval            Transfer    Bandwidth         BB cnt=avg/min/max/stdev         Rtry  " \
    "Cwnd/RTT    RPS"

#define HALF (LP_FMT_LINE_MAX / 2)

/* --isochronous: a client's rows add 2.1.8's isoch:tx/miss/slip; a server's UDP rows, when the
 * client also asked for trip-times (2.1.8 shows frames only then), Frame:rx/lost. */
static bool frames_tx_shown(const struct lp_fmt_text2 *f)
{
    return f->have_spec && f->spec.iperf2.isoch.on && f->role == LP_ROLE_CLIENT;
}

static bool frames_rx_shown(const struct lp_fmt_text2 *f)
{
    return f->have_spec && f->spec.iperf2.isoch.on && f->spec.iperf2.trip_times && f->role == LP_ROLE_SERVER;
}

static void header(struct lp_fmt_text2 *f, unsigned layout)
{
    const char *h = layout == LP_T2_UDP_RX       ? HDR_UDP_RX
                    : layout == LP_T2_ENH_TCP_TX ? HDR_ENH_TCP_TX
                    : layout == LP_T2_ENH_UDP_TX ? HDR_ENH_UDP_TX
                    : layout == LP_T2_UDP_RX_LAT ? HDR_UDP_RX_LAT
                    : layout == LP_T2_TCP_RX_LAT ? HDR_TCP_RX_LAT
                    : layout == LP_T2_BB         ? HDR_BB
                                                 : HDR_PLAIN;

    if (f->headers & layout)
        return;
    f->headers |= layout;
    if (layout == LP_T2_ENH_UDP_TX && frames_tx_shown(f))
        lp_text2_line(f, "%s  isoch:tx/miss/slip", h);
    else if (layout == LP_T2_ENH_TCP_TX && frames_tx_shown(f))
        lp_text2_line(f, "%s", HDR_ENH_TCP_ISOCH);
    else if (layout == LP_T2_UDP_RX_LAT && frames_rx_shown(f))
        lp_text2_line(f, "%.*s  Frame:rx/lost  NetPwr", (int)(strlen(h) - strlen("  NetPwr")), h);
    else
        lp_text2_line(f, "%s", h);
}

/* The frame column of a row (empty when not shown), as 2.1.8 spaces it. */
static void frames_col(const struct lp_fmt_text2 *f, char *b, size_t n, unsigned layout,
                       const struct lp_frame_counts *fr)
{
    b[0] = '\0';
    if (layout == LP_T2_ENH_UDP_TX && frames_tx_shown(f)) {
        snprintf(b, n, "   %" PRIu64 "/%" PRIu64 "/%" PRIu64, fr->tx, fr->miss, fr->slip);
    } else if (layout == LP_T2_ENH_TCP_TX && frames_tx_shown(f)) {
        char t[64];
        snprintf(t, sizeof(t), "%" PRIu64 "/%" PRIu64 "/%" PRIu64, fr->tx, fr->miss, fr->slip);
        snprintf(b, n, "%15s", t);
    }
    else if (layout == LP_T2_UDP_RX_LAT && frames_rx_shown(f))
        snprintf(b, n, "   %" PRIu64 "/%" PRIu64, fr->rx, fr->lost);
}

/* Receivers show one-way latency as 2.1.8 does: UDP with -e or trip-times, TCP with
 * trip-times (only a trip-times client stamps its TCP data). */
static bool latency_shown(const struct lp_fmt_text2 *f, bool has_latency)
{
    return has_latency && (f->opts.enhanced || (f->have_spec && f->spec.iperf2.trip_times));
}

/* -e widens sender rows; receivers get latency columns (latency_shown). Read counts and
 * their histogram, which 2.1.8 adds for receivers, are measured by no record. */
static unsigned layout_of(const struct lp_fmt_text2 *f, bool udp, const struct lp_stream_id *sid, bool lat)
{
    bool sender = sid->sender;
    if (!udp && sender && f->role == LP_ROLE_CLIENT && f->have_spec && lp_spec_bb_stream(&f->spec, sid->id))
        return LP_T2_BB;
    if (udp && !sender)
        return lat ? LP_T2_UDP_RX_LAT : LP_T2_UDP_RX;
    if (!udp && !sender && lat)
        return LP_T2_TCP_RX_LAT;
    if (f->opts.enhanced && sender)
        return udp ? LP_T2_ENH_UDP_TX : LP_T2_ENH_TCP_TX;
    return LP_T2_PLAIN;
}

/* Everything up to Bandwidth: "[  1] 0.0000-1.0043 sec  4.79 GBytes  40.9 Gbits/sec". */
static void head(const struct lp_fmt_text2 *f, char *b, size_t n, const char *id, double start,
                 double end, uint64_t bytes, double bps)
{
    char xfer[64], rate[64];

    lp_text2_bytes(xfer, sizeof(xfer), (double)bytes, f->opts.unit);
    lp_text2_rate(rate, sizeof(rate), bps, f->opts.unit);
    snprintf(b, n, "%s %4.4f-%4.4f sec  %s  %s", id, start < 0 ? 0 : start, end < 0 ? 0 : end, xfer,
             rate);
}

static void ooo_line(struct lp_fmt_text2 *f, const char *id, double start, double end, uint64_t n)
{
    lp_text2_line(f, "%s %4.4f-%4.4f sec  %" PRIu64 " datagrams received out-of-order", id,
                  start < 0 ? 0 : start, end < 0 ? 0 : end, n);
}

/* -e TCP sender: Write/Err, Rtry, Cwnd/RTT(var), NetPwr. linkperf counts neither write calls
 * nor write errors (it batches its writes), so that column shows "-/-"; var < 0: unknown. */
static void enh_tcp(char *b, size_t n, bool known, int64_t retr, uint64_t cwnd, uint32_t rtt,
                    int64_t var, double bps, const char *frames)
{
    char v[24] = "-";
    int k;

    if (!known) {
        snprintf(b, n, "  -/-");
        return;
    }
    if (var >= 0)
        snprintf(v, sizeof(v), "%" PRId64, var);
    if (frames[0]) /* --isochronous: 2.1.8 drops the variance and shows the frames */
        k = snprintf(b, n, "  -/-%11" PRId64 "%9" PRIu64 "K/%u us%s      ", retr, cwnd / 1024, rtt, frames);
    else
        k = snprintf(b, n, "  -/-%11" PRId64 "%9" PRIu64 "K/%u(%s) us", retr, cwnd / 1024, rtt, v);
    /* NetPwr: throughput in bytes/s over the RTT in µs. */
    if (rtt > 0 && k > 0 && (size_t)k < n)
        snprintf(b + k, n - (size_t)k, "  %.0f", bps / 8.0 / (double)rtt);
}

/* --bounceback client: the round trips (2.1.8 prints min/max/stdev as 0 below two of them),
 * retries, cwnd/RTT from tcp_info and responses per second, 1 / mean round trip. */
static void bb_tail(char *b, size_t n, const struct lp_latency_stat *l, int64_t retr, uint64_t cwnd, uint32_t rtt)
{
    bool two = l->count >= 2;
    double rps = l->count && l->mean_ms > 0 ? 1e3 / l->mean_ms : 0;
    snprintf(b, n, "    %" PRIu64 "=%.3f/%.3f/%.3f/%.3f ms %4" PRId64 " %4" PRIu64 "K/%u us    %.*f rps", l->count,
             l->mean_ms, two ? l->min_ms : 0, two ? l->max_ms : 0, two ? l->stdev_ms : 0, retr, cwnd / 1024, rtt,
             rps < 10 ? 1 : 0, rps);
}

/* 2.1.8's bounceback histogram: its --histograms defaults for a client, 100 us bins over
 * 10 s, bounds 5 and 95 %. */
static const struct lp_histogram_spec bb_bins = {.on = true, .bin_width = 100, .bins = 100000, .ci_lower = 5,
                                                 .ci_upper = 95};

/* linkperf's percentiles of the same round trips (not in 2.1.8's output). */
static void bb_pct_line(struct lp_fmt_text2 *f, const char *id, double a, double b, const struct lp_latency_stat *l)
{
    lp_text2_line(f, "%s %4.4f-%4.4f sec BB8(f)-PCT: min/p50/p90/p99/p99.9/max=%.3f/%.3f/%.3f/%.3f/%.3f/%.3f ms", id,
                  a < 0 ? 0 : a, b < 0 ? 0 : b, l->min_ms, l->p50_ms, l->p90_ms, l->p99_ms, l->p999_ms, l->max_ms);
}

/* NetPwr as iperf2 computes it: bytes per second over the latency in microseconds. */
static double net_power(double bps, double lat_ms)
{
    return lat_ms > 0 ? bps / 8.0 / (lat_ms * 1000.0) : 0.0;
}

/* UDP receiver with latency: jitter, loss, then avg/min/max/stdev, packets/s, NetPwr. */
static void udp_rx_lat(char *b, size_t n, double jitter_ms, int64_t lost, uint64_t total, double lost_pct,
                       const struct lp_latency_stat *l, double seconds, double bps, const char *frames)
{
    snprintf(b, n, "  %6.3f ms %" PRId64 "/%" PRIu64 " (%.2g%%) %.3f/%.3f/%.3f/%.3f ms %.0f pps%s  %.0f",
             jitter_ms, lost, total, lost_pct, l->mean_ms, l->min_ms, l->max_ms, l->stdev_ms,
             seconds > 0 ? (double)l->count / seconds : 0.0, frames, net_power(bps, l->mean_ms));
}

/* TCP receiver of trip-times bursts: latency, bursts completed/burst size, NetPwr. */
static void tcp_rx_lat(const struct lp_fmt_text2 *f, char *b, size_t n, const struct lp_latency_stat *l,
                       double bps)
{
    unsigned size = f->have_spec ? lp_spec_blksize(&f->spec) : 0;
    snprintf(b, n, "  %.3f/%.3f/%.3f/%.3f ms (%" PRIu64 "/%u)  %.0f", l->mean_ms, l->min_ms, l->max_ms,
             l->stdev_ms, l->count, size, net_power(bps, l->mean_ms));
}

/* -e UDP sender: datagrams sent (write errors are not counted) and packets per second. */
static void enh_udp(char *b, size_t n, uint64_t packets, double seconds)
{
    snprintf(b, n, "  %" PRIu64 "/-%9.0f pps", packets, seconds > 0 ? (double)packets / seconds : 0.0);
}

static void idstr_of(const struct lp_fmt_text2 *f, char *b, size_t n, const struct lp_stream_id *sid)
{
    lp_text2_idstr(f, b, n, lp_text2_id(sid), lp_text2_star(f, sid));
}

/* ---- [SUM] ---- */

/* A [SUM] row: the engine's numbers, and whether the rows above it share a layout worth
 * continuing (n: how many rows this end printed). */
struct t2_sum {
    unsigned n;
    double start, end, bps, lost_pct;
    uint64_t bytes, packets, ooo;
    int64_t lost, retr;
    bool all_rx, all_tcp_tx, all_udp_tx, tcp_known;
};

static void sum_init(struct t2_sum *s)
{
    memset(s, 0, sizeof(*s));
    s->all_rx = s->all_tcp_tx = s->all_udp_tx = true;
}

static void sum_kind(struct t2_sum *s, bool udp, bool sender)
{
    s->all_rx &= udp && !sender;
    s->all_tcp_tx &= !udp && sender;
    s->all_udp_tx &= udp && sender;
    s->n++;
}

static void sum_row(struct lp_fmt_text2 *f, const struct t2_sum *s)
{
    char h[HALF], tail[128] = "";
    double secs = s->end - s->start;

    head(f, h, sizeof(h), "[SUM]", s->start, s->end, s->bytes, s->bps);
    if (s->all_rx)
        snprintf(tail, sizeof(tail), "   %" PRId64 "/%" PRIu64 " (%.2g%%)", s->lost, s->packets,
                 s->lost_pct);
    else if (f->opts.enhanced && s->all_tcp_tx && s->tcp_known)
        snprintf(tail, sizeof(tail), "  -/-%10" PRId64, s->retr);
    else if (f->opts.enhanced && s->all_udp_tx)
        enh_udp(tail, sizeof(tail), s->packets, secs);
    lp_text2_line(f, "%s%s", h, tail);
    if (s->all_rx && s->ooo)
        ooo_line(f, "[SUM]", s->start, s->end, s->ooo);
}

static bool sum_wanted(const struct lp_fmt_text2 *f, unsigned rows)
{
    /* iperf2 adds a [SUM] when an end reports more than one stream at once; -r runs its legs
     * one after the other. A 2.1.8 client with one stream each way (observed, every time):
     * -d makes no [SUM]; --full-duplex makes only the final one, and none with -i. With -P n
     * (n > 1) the [SUM]s cover every stream of both ways. */
    if (rows <= 1 || (f->have_spec && f->spec.iperf2.tradeoff))
        return false;
    /* --bounceback-congest: 2.1.8 sums neither the exchanges with their load nor the load's
     * two ways (its [FD] rows are not printed here). */
    if (f->have_spec && f->spec.iperf2.bb.congest)
        return false;
    if (f->have_spec && f->role == LP_ROLE_CLIENT && f->spec.streams <= 1) {
        if (f->spec.iperf2.dual)
            return false;
        if (f->spec.dir == LP_DIR_BIDIR)
            return f->spec.report.interval_s <= 0;
    }
    return true;
}

/* ---- intervals ---- */

/* Row j of a sample: iperf2 prints the schedule's boundaries (1.0000-2.0000), one row per
 * interval of the window; without a schedule, the cut's own times. */
static void row_window(const struct lp_sample *s, unsigned j, double *a, double *b)
{
    unsigned n = s->nominal_count;
    double step;

    if (n == 0) {
        *a = s->start_s;
        *b = s->end_s;
        return;
    }
    step = (s->nominal_end_s - s->nominal_start_s) / n;
    *a = j == 0 ? s->nominal_start_s : s->nominal_start_s + j * step;
    *b = j + 1 >= n ? s->nominal_end_s : s->nominal_start_s + (j + 1) * step;
}

/* The rows after the first of a window that spans missed intervals: 2.1.8 prints them empty
 * (its data went into the first). Layout flags stay, so the columns do. */
static struct lp_sample empty_like(const struct lp_sample *s)
{
    struct lp_sample z;

    memset(&z, 0, sizeof(z));
    z.sid = s->sid;
    z.start_s = s->start_s;
    z.end_s = s->end_s;
    z.seconds = s->seconds;
    z.nominal_start_s = s->nominal_start_s;
    z.nominal_end_s = s->nominal_end_s;
    z.nominal_count = s->nominal_count;
    z.omitted = s->omitted;
    z.is_udp = s->is_udp;
    z.has_latency = s->has_latency;
    return z;
}

/* --histograms on a server: 2.1.8's F8 (a TCP client's bursts) or T8 (UDP datagrams) line
 * under each row of a trip-times receiver (2.1.8 keeps none without trip-times). */
static void hist_line(struct lp_fmt_text2 *f, unsigned lay, const char *id, double a, double b,
                      const struct lp_latency_stat *l, bool final)
{
    const char *name = lay == LP_T2_TCP_RX_LAT ? "F8" : lay == LP_T2_UDP_RX_LAT ? "T8" : NULL;
    if (name && f->have_spec && f->spec.iperf2.hist.on && f->spec.iperf2.trip_times)
        lp_text2_pdf_line(f, id, a, b, l, name, final, &f->spec.iperf2.hist);
}

static void sample_row(struct lp_fmt_text2 *f, const struct lp_sample *s, bool udp, double a, double b)
{
    unsigned lay = layout_of(f, udp, &s->sid, latency_shown(f, s->has_latency));
    char id[LP_TEXT2_ID_MAX], h[HALF], tail[160] = "", fcol[64];

    idstr_of(f, id, sizeof(id), &s->sid);
    header(f, lay);
    head(f, h, sizeof(h), id, a, b, s->bytes, s->bits_per_second);
    frames_col(f, fcol, sizeof(fcol), lay, &s->frames);
    if (lay == LP_T2_UDP_RX_LAT)
        udp_rx_lat(tail, sizeof(tail), s->jitter_ms, s->lost_packets, s->packets, s->lost_percent, &s->latency,
                   s->seconds, s->bits_per_second, fcol);
    else if (lay == LP_T2_TCP_RX_LAT)
        tcp_rx_lat(f, tail, sizeof(tail), &s->latency, s->bits_per_second);
    else if (lay == LP_T2_UDP_RX)
        snprintf(tail, sizeof(tail), "  %6.3f ms %" PRId64 "/%" PRIu64 " (%.2g%%)", s->jitter_ms,
                 s->lost_packets, s->packets, s->lost_percent);
    else if (lay == LP_T2_ENH_TCP_TX)
        enh_tcp(tail, sizeof(tail), s->has_tcp_info, s->retransmits, s->snd_cwnd, s->rtt_us,
                (int64_t)s->rttvar_us, s->bits_per_second, fcol);
    else if (lay == LP_T2_ENH_UDP_TX)
        enh_udp(tail, sizeof(tail), s->packets, s->end_s - s->start_s);
    else if (lay == LP_T2_BB)
        bb_tail(tail, sizeof(tail), &s->latency, s->retransmits, s->snd_cwnd, s->rtt_us);
    lp_text2_line(f, "%s%s%s", h, tail, lay == LP_T2_ENH_UDP_TX ? fcol : "");
    hist_line(f, lay, id, a, b, &s->latency, false);
    if ((lay == LP_T2_UDP_RX || lay == LP_T2_UDP_RX_LAT) && s->out_of_order)
        ooo_line(f, id, a, b, s->out_of_order);
}

/* A [SUM] row's numbers from an interval sum, over [a, b]. */
static void sum_of_sample(struct t2_sum *t, const struct lp_sample *s, double a, double b)
{
    t->start = a;
    t->end = b;
    t->bytes = s->bytes;
    t->bps = s->bits_per_second;
    t->packets = s->packets;
    t->lost = s->lost_packets;
    t->lost_pct = s->lost_percent;
    t->ooo = s->out_of_order;
    t->retr = s->retransmits;
    t->tcp_known = s->has_tcp_info;
}

/* Row j of an interval record's window: every stream, then the [SUM]. */
static void interval_rows(struct lp_fmt_text2 *f, const struct lp_rec_interval *iv, unsigned j)
{
    bool show = !lp_text2_excluded(f, 'D');
    struct t2_sum sum;
    struct lp_sample z;
    double a, b;

    sum_init(&sum);
    for (unsigned i = 0; i < iv->nstreams; i++) {
        const struct lp_sample *s = &iv->streams[i];
        struct lp_text2_stream *st = lp_text2_stream(f, &s->sid);
        bool udp = s->is_udp || lp_text2_udp(f);
        /* iperf2 has no omitted seconds; an iperf3 test's -O intervals are left out. A
         * stream's window may span fewer rows than another's (it ended in the first). */
        if (s->omitted || (j > 0 && j >= s->nominal_count))
            continue;
        if (st && s->has_tcp_info && j == 0) {
            st->has_last = true;
            st->cwnd = s->snd_cwnd;
            st->rtt_us = s->rtt_us;
            st->rttvar_us = s->rttvar_us;
        }
        if (show) {
            z = empty_like(s);
            row_window(s, j, &a, &b);
            sample_row(f, j ? &z : s, udp, a, b);
        }
        sum_kind(&sum, udp, s->sid.sender);
    }
    if (!show || !sum_wanted(f, sum.n))
        return;
    /* The engine's sum of both directions: iperf2's [SUM] covers every stream. */
    z = empty_like(&iv->sum_both);
    row_window(&iv->sum_both, j, &a, &b);
    sum_of_sample(&sum, j ? &z : &iv->sum_both, a, b);
    sum_row(f, &sum);
}

void lp_text2_interval(struct lp_fmt_text2 *f, const struct lp_rec_interval *iv)
{
    unsigned rows = 1;

    /* A window over missed intervals makes one row each (see struct lp_sample). */
    for (unsigned i = 0; i < iv->nstreams; i++)
        if (!iv->streams[i].omitted && iv->streams[i].nominal_count > rows)
            rows = iv->streams[i].nominal_count;
    for (unsigned j = 0; j < rows; j++)
        interval_rows(f, iv, j);
}

/* ---- the end ---- */

/* A stream's whole-test row, from this end's own total. */
static void final_row(struct lp_fmt_text2 *f, const struct lp_stream_end *se, const struct lp_total *t,
                      const struct lp_text2_stream *st, bool udp)
{
    unsigned lay = layout_of(f, udp, &se->sid, latency_shown(f, t->has_latency));
    char id[LP_TEXT2_ID_MAX], h[HALF], tail[160] = "";

    idstr_of(f, id, sizeof(id), &se->sid);
    header(f, lay);
    head(f, h, sizeof(h), id, t->start_s, t->end_s, t->bytes, t->bits_per_second);
    char fcol[64];
    frames_col(f, fcol, sizeof(fcol), lay, &t->frames);
    if (lay == LP_T2_UDP_RX_LAT) {
        udp_rx_lat(tail, sizeof(tail), t->jitter_ms, t->lost_packets, t->packets, t->lost_percent, &t->latency,
                   t->seconds, t->bits_per_second, fcol);
    } else if (lay == LP_T2_TCP_RX_LAT) {
        tcp_rx_lat(f, tail, sizeof(tail), &t->latency, t->bits_per_second);
    } else if (lay == LP_T2_UDP_RX) {
        snprintf(tail, sizeof(tail), "  %6.3f ms %" PRId64 "/%" PRIu64 " (%.2g%%)", t->jitter_ms,
                 t->lost_packets, t->packets, t->lost_percent);
    } else if (lay == LP_T2_ENH_TCP_TX) {
        /* iperf2 ends with the current cwnd/RTT: the last interval's, else the test's
         * largest window and mean RTT. */
        bool last = st && st->has_last;
        enh_tcp(tail, sizeof(tail), t->has_retransmits, t->retransmits,
                last ? st->cwnd : t->max_snd_cwnd, last ? st->rtt_us : t->mean_rtt_us,
                last ? (int64_t)st->rttvar_us : -1, t->bits_per_second, fcol);
    } else if (lay == LP_T2_ENH_UDP_TX) {
        enh_udp(tail, sizeof(tail), t->packets, t->end_s - t->start_s);
        strncat(tail, fcol, sizeof(tail) - strlen(tail) - 1);
    } else if (lay == LP_T2_BB) {
        bool last = st && st->has_last;
        bb_tail(tail, sizeof(tail), &t->latency, t->retransmits, last ? st->cwnd : t->max_snd_cwnd,
                last ? st->rtt_us : t->mean_rtt_us);
    }
    lp_text2_line(f, "%s%s", h, tail);
    hist_line(f, lay, id, t->start_s, t->end_s, &t->latency, true);
    if (lay == LP_T2_BB && t->latency.hist)
        lp_text2_pdf_line(f, id, t->start_s, t->end_s, &t->latency, "BB8", true, &bb_bins);
    if (lay == LP_T2_BB && t->latency.has_pct)
        bb_pct_line(f, id, t->start_s, t->end_s, &t->latency);
    /* iperf2 leaves the mark off its "Sent" lines. */
    if (udp && se->sid.sender)
        lp_text2_line(f, "[%3d] Sent %" PRIu64 " datagrams", lp_text2_id(&se->sid), t->packets);
    if ((lay == LP_T2_UDP_RX || lay == LP_T2_UDP_RX_LAT) && t->out_of_order)
        ooo_line(f, id, t->start_s, t->end_s, t->out_of_order);
}

/* A UDP sender's receiver row is the report its peer sent back (iperf2's "Server Report";
 * also on a server for its -d/-r legs, and for an iperf3 test after the results exchange). */
static void server_report(struct lp_fmt_text2 *f, const struct lp_stream_end *se)
{
    const struct lp_total *t = &se->receiver;
    char id[LP_TEXT2_ID_MAX], h[HALF];

    idstr_of(f, id, sizeof(id), &se->sid);
    lp_text2_line(f, "[%3d] Server Report:", lp_text2_id(&se->sid));
    f->headers = 0;
    /* A report with transit fields (the server ran -e or trip-times) shows latency. */
    header(f, t->has_latency ? LP_T2_UDP_RX_LAT : LP_T2_UDP_RX);
    head(f, h, sizeof(h), id, t->start_s, t->end_s, t->bytes, t->bits_per_second);
    if (t->has_latency) {
        char tail[160];
        udp_rx_lat(tail, sizeof(tail), t->jitter_ms, t->lost_packets, t->packets, t->lost_percent, &t->latency,
                   t->seconds, t->bits_per_second, "");
        lp_text2_line(f, "%s%s", h, tail);
    } else {
        lp_text2_line(f, "%s  %6.3f ms %" PRId64 "/%" PRIu64 " (%.2g%%)", h, t->jitter_ms, t->lost_packets,
                      t->packets, t->lost_percent);
    }
    if (t->out_of_order)
        ooo_line(f, id, t->start_s, t->end_s, t->out_of_order);
}

/* A [SUM] row's numbers from the engine's sum of this end's rows. */
static void sum_of_total(struct t2_sum *s, const struct lp_total *t)
{
    s->start = t->start_s;
    s->end = t->end_s;
    s->bytes = t->bytes;
    s->bps = t->bits_per_second;
    s->packets = t->packets;
    s->lost = t->lost_packets;
    s->lost_pct = t->lost_percent;
    s->ooo = t->out_of_order;
    s->retr = t->retransmits;
    s->tcp_known = t->has_retransmits;
}

void lp_text2_leg_end(struct lp_fmt_text2 *f, const struct lp_rec_end *end)
{
    if (lp_text2_excluded(f, 'D'))
        return;
    for (unsigned i = 0; i < end->nstreams; i++) {
        const struct lp_stream_end *se = &end->streams[i];
        const struct lp_total *t = se->sid.sender ? &se->sender : &se->receiver;
        struct lp_text2_stream *st = lp_text2_stream(f, &se->sid);
        bool udp = t->is_udp || lp_text2_udp(f);
        /* A UDP sender's row comes with the server's report: now if the leg's FIN
         * exchange brought it, else with END. */
        if (!t->present || !st || st->final_done || (udp && se->sid.sender && !se->receiver.present))
            continue;
        st->final_done = true;
        final_row(f, se, t, st, udp);
        if (udp && se->sid.sender && !lp_text2_excluded(f, 'V')) {
            server_report(f, se);
            st->report_done = true;
        }
    }
}

/* Each stream's own row (a TCP end knows only its side; a UDP sender's receiver row is the
 * peer's report), the [SUM] of those rows (the engine's end->own: its direction sums would
 * mix a -d leg with the peer's report), then the server reports. Rows printed earlier, at an
 * iperf2 -r leg's end, are not repeated; -r prints no [SUM], so end->own matches the rows. */
void lp_text2_end(struct lp_fmt_text2 *f, const struct lp_rec_end *end)
{
    bool show = !lp_text2_excluded(f, 'D');
    struct t2_sum sum;

    sum_init(&sum);
    for (unsigned i = 0; i < end->nstreams; i++) {
        const struct lp_stream_end *se = &end->streams[i];
        const struct lp_total *t = se->sid.sender ? &se->sender : &se->receiver;
        struct lp_text2_stream *st = lp_text2_stream(f, &se->sid);
        bool udp = t->is_udp || lp_text2_udp(f);
        if (!t->present || (st && st->final_done))
            continue;
        if (st)
            st->final_done = true;
        if (show)
            final_row(f, se, t, st, udp);
        sum_kind(&sum, udp, se->sid.sender);
    }
    if (show && sum_wanted(f, sum.n)) {
        sum_of_total(&sum, &end->own.sum);
        sum_row(f, &sum);
        if (end->own.udp_senders > 1)
            lp_text2_line(f, "[SUM-%u] Sent %" PRIu64 " datagrams", end->own.udp_senders, end->own.udp_sent);
    }
    if (lp_text2_excluded(f, 'V'))
        return;
    for (unsigned i = 0; i < end->nstreams; i++) {
        const struct lp_stream_end *se = &end->streams[i];
        const struct lp_text2_stream *st = lp_text2_stream(f, &se->sid);
        if (se->sid.sender && se->receiver.present && (se->receiver.is_udp || lp_text2_udp(f)) &&
            !(st && st->report_done))
            server_report(f, se);
    }
}

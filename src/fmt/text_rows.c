/* iperf3's interval and summary tables: column headers, per-stream, [SUM] and role rows.
 * Numbers come ready-made in the records; this file only decides which layout a row gets. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt/text_int.h"
#include "fmt/rt_loss.h"

/* Column-header tails; the widths line up with the row layouts below. */
#define HDR_RETR_CWND "         Retr  Cwnd"
#define HDR_RETR "         Retr"
#define HDR_JITTER "         Jitter    Lost/Total Datagrams"
#define HDR_DATAGRAMS "         Total Datagrams"
/* Summary rows pad to where the interval rows' Cwnd column ends. */
#define PAD_NO_RETR "                  "  /* 18 spaces */
#define PAD_AFTER_RETR "             "    /* 13 spaces (3.12; 3.18+ has 12) */
#define PAD_BIDIR_PACKETS "          "    /* UDP sender rows under the Jitter header */

static const char *header_base(const struct lp_fmt_text *f)
{
    return f->bidir ? "[ ID][Role] Interval           Transfer     Bitrate"
                    : "[ ID] Interval           Transfer     Bitrate";
}

/* "[  5][TX-C]" or "[SUM]": socket < 0 means a sum row. */
static void row_id(const struct lp_fmt_text *f, char *b, size_t n, int socket, bool sender)
{
    char role[8] = "";

    if (f->bidir)
        snprintf(role, sizeof(role), "[%s-%s]", sender ? "TX" : "RX",
                 f->role == LP_ROLE_CLIENT ? "C" : "S");
    if (socket < 0)
        snprintf(b, n, "[SUM]%s", role);
    else
        snprintf(b, n, "[%3d]%s", socket, role);
}

/* Everything up to and including the Bitrate column. */
static void row_head(const struct lp_fmt_text *f, char *b, size_t n, int socket, bool sender,
                     double start, double end, uint64_t bytes, double bps)
{
    char id[32], xfer[32], rate[64];

    row_id(f, id, sizeof(id), socket, sender);
    lp_units_bytes(xfer, sizeof(xfer), (double)bytes);
    lp_units_rate(rate, sizeof(rate), bps, f->opts.unit);
    snprintf(b, n, "%s %6.2f-%-6.2f sec  %s  %s", id, start, end, xfer, rate);
}

/* ---- intervals ---- */

static void interval_header(struct lp_fmt_text *f, const struct lp_rec_interval *iv)
{
    bool udp = f->udp, all_send = iv->nstreams > 0, retr = false;
    const char *tail = "";

    for (unsigned i = 0; i < iv->nstreams; i++) {
        const struct lp_sample *s = &iv->streams[i];
        udp |= s->is_udp;
        all_send &= s->sid.sender;
        retr |= s->sid.sender && s->has_tcp_info;
    }
    if (udp)
        tail = all_send && !f->bidir ? HDR_DATAGRAMS : HDR_JITTER;
    else if (retr)
        tail = HDR_RETR_CWND;
    lp_text_line(f, "%s%s", header_base(f), tail);
}

static void interval_row(struct lp_fmt_text *f, const struct lp_sample *s, bool sum)
{
    char head[LP_FMT_LINE_MAX / 2], cwnd[32];
    const char *tag = s->omitted ? "(omitted)" : "";

    row_head(f, head, sizeof(head), sum ? -1 : s->sid.socket, s->sid.sender, s->start_s,
             s->end_s, s->bytes, s->bits_per_second);
    if (s->is_udp && s->sid.sender) {
        lp_text_line(f, "%s  %s%" PRIu64 "  %s", head, f->bidir ? PAD_BIDIR_PACKETS : "",
                     s->packets, tag);
    } else if (s->is_udp) {
        lp_text_line(f, "%s  %5.3f ms  %" PRId64 "/%" PRIu64 " (%.2g%%)  %s", head, s->jitter_ms,
                     s->lost_packets, s->packets, s->lost_percent, tag);
    } else if (s->sid.sender && s->has_tcp_info && sum) {
        lp_text_line(f, "%s  %3" PRId64 PAD_AFTER_RETR "%s", head, s->retransmits, tag);
    } else if (s->sid.sender && s->has_tcp_info) {
        lp_units_bytes(cwnd, sizeof(cwnd), (double)s->snd_cwnd);
        lp_text_line(f, "%s  %3" PRId64 "   %s       %s", head, s->retransmits, cwnd, tag);
    } else {
        lp_text_line(f, "%s" PAD_NO_RETR "%s", head, tag);
    }
}

/* Streams of one direction (reverse < 0: all streams), then their [SUM] row. */
static unsigned interval_dir(struct lp_fmt_text *f, const struct lp_rec_interval *iv, int reverse,
                             const struct lp_sample *sum)
{
    unsigned n = 0;

    for (unsigned i = 0; i < iv->nstreams; i++) {
        if (reverse >= 0 && iv->streams[i].sid.reverse != (reverse != 0))
            continue;
        interval_row(f, &iv->streams[i], false);
        n++;
    }
    /* iperf3 shows [SUM] only when a direction has more than one stream. */
    if (n > 1 && sum)
        interval_row(f, sum, true);
    return n;
}

void lp_text_interval(struct lp_fmt_text *f, const struct lp_rec_interval *iv)
{
    unsigned nf, nr = 0;

    if (iv->has_sum_reverse)
        f->bidir = true;
    if (!f->header_done) {
        interval_header(f, iv);
        f->header_done = true;
    }
    if (f->bidir) {
        nf = interval_dir(f, iv, 0, &iv->sum);
        nr = interval_dir(f, iv, 1, iv->has_sum_reverse ? &iv->sum_reverse : NULL);
    } else {
        nf = interval_dir(f, iv, -1, &iv->sum);
    }
    if (nf > 1 || nr > 1)
        lp_text_separator(f);
}

/* ---- summary ---- */

static void total_row(struct lp_fmt_text *f, int socket, bool sender, const struct lp_total *t,
                      const char *tag)
{
    char head[LP_FMT_LINE_MAX / 2];

    if (!t->present) {
        /* iperf3 -V names the side it has no numbers for; without -V it just omits it. */
        if (f->opts.verbose) {
            if (socket < 0)
                lp_text_line(f, "[SUM] (%s statistics not available)", tag);
            else
                lp_text_line(f, "[%3d] (%s statistics not available)", socket, tag);
        }
        return;
    }
    row_head(f, head, sizeof(head), socket, sender, t->start_s, t->end_s, t->bytes,
             t->bits_per_second);
    if (t->is_udp || f->udp)
        lp_text_line(f, "%s  %5.3f ms  %" PRId64 "/%" PRIu64 " (%.2g%%)  %s", head, t->jitter_ms,
                     t->lost_packets, t->packets, t->lost_percent, tag);
    else if (t->has_retransmits)
        lp_text_line(f, "%s  %3" PRId64 PAD_AFTER_RETR "%s", head, t->retransmits, tag);
    else
        lp_text_line(f, "%s" PAD_NO_RETR "%s", head, tag);
}

static void verbose_tail(struct lp_fmt_text *f, const struct lp_rec_end *end, bool local_sends)
{
    const struct lp_cpu_util *c = &end->cpu;

    /* iperf3 prints CPU use only in a pass where this end sends; bidir names both roles. */
    if (local_sends) {
        lp_text_line(f, "CPU Utilization: local/sender %.1f%% (%.1f%%u/%.1f%%s), "
                        "remote/receiver %.1f%% (%.1f%%u/%.1f%%s)",
                     c->host_total, c->host_user, c->host_system, c->remote_total,
                     c->remote_user, c->remote_system);
        if (f->bidir)
            lp_text_line(f, "CPU Utilization: local/receiver %.1f%% (%.1f%%u/%.1f%%s), "
                            "remote/sender %.1f%% (%.1f%%u/%.1f%%s)",
                         c->host_total, c->host_user, c->host_system, c->remote_total,
                         c->remote_user, c->remote_system);
    }
    if (!f->udp && end->sender_congestion)
        lp_text_line(f, "snd_tcp_congestion %s", end->sender_congestion);
    if (!f->udp && end->receiver_congestion)
        lp_text_line(f, "rcv_tcp_congestion %s", end->receiver_congestion);
}

/* linkperf's latency line under a stream's rows (iperf3 has none): round trips where this
 * end sent (--bounceback), one way where it received (--trip-times, iperf2 UDP). */
static void latency_row(struct lp_fmt_text *f, int socket, const struct lp_total *t, bool round_trip)
{
    const struct lp_latency_stat *l = &t->latency;
    char id[32];

    uint64_t sent;
    int64_t lost;
    double pct;
    if (round_trip && lp_fmt_rt_loss(t, true, &sent, &lost, &pct)) {
        row_id(f, id, sizeof(id), socket, false);
        lp_text_line(f, "%s %6.2f-%-6.2f sec  round trips: %" PRIu64 " probes sent, %" PRIu64 " came back, %" PRId64
                        " lost (%.3g%%)", id, t->start_s, t->end_s, sent, l->count, lost,
                     pct);
    }
    if (!t->present || !t->has_latency || !l->count)
        return;
    row_id(f, id, sizeof(id), socket, false);
    if (l->has_pct)
        lp_text_line(f, "%s %6.2f-%-6.2f sec  %s latency, %" PRIu64 " samples: min/p50/p90/p99/p99.9/max = "
                        "%.3f/%.3f/%.3f/%.3f/%.3f/%.3f ms", id, t->start_s, t->end_s,
                     round_trip ? "round-trip" : "one-way", l->count, l->min_ms, l->p50_ms, l->p90_ms, l->p99_ms,
                     l->p999_ms, l->max_ms);
    else
        lp_text_line(f, "%s %6.2f-%-6.2f sec  %s latency, %" PRIu64 " samples: min/avg/max/stdev = "
                        "%.3f/%.3f/%.3f/%.3f ms", id, t->start_s, t->end_s, round_trip ? "round-trip" : "one-way",
                     l->count, l->min_ms, l->mean_ms, l->max_ms, l->stdev_ms);
}

/* One direction's rows (reverse < 0: all streams), its [SUM] rows, and the -V tail. */
static void summary_pass(struct lp_fmt_text *f, const struct lp_rec_end *end, int reverse,
                         const struct lp_direction_end *de)
{
    unsigned n = 0;
    bool local_sends = false;

    for (unsigned i = 0; i < end->nstreams; i++) {
        const struct lp_stream_end *s = &end->streams[i];
        if (reverse >= 0 && s->sid.reverse != (reverse != 0))
            continue;
        n++;
        local_sends |= s->sid.sender;
        total_row(f, s->sid.socket, s->sid.sender, &s->sender, "sender");
        /* Only the end that received counts reordering itself; iperf3 prints it there,
         * before the receiver row, and always tags it [SUM]. */
        if (!s->sid.sender && s->receiver.present && s->receiver.out_of_order > 0) {
            char id[32];
            row_id(f, id, sizeof(id), -1, false);
            lp_text_line(f, "%s %4.1f-%4.1f sec  %" PRIu64 " datagrams received out-of-order",
                         id, s->receiver.start_s, s->receiver.end_s, s->receiver.out_of_order);
        }
        total_row(f, s->sid.socket, s->sid.sender, &s->receiver, "receiver");
        latency_row(f, s->sid.socket, s->sid.sender ? &s->sender : &s->receiver, s->sid.sender);
    }
    if (n > 1 && de && de->present) {
        total_row(f, -1, local_sends, &de->sent, "sender");
        total_row(f, -1, local_sends, &de->received, "receiver");
    }
    if (f->opts.verbose)
        verbose_tail(f, end, local_sends);
}

static bool summary_has_retr(const struct lp_rec_end *end)
{
    for (unsigned i = 0; i < end->nstreams; i++)
        if (end->streams[i].sender.present && end->streams[i].sender.has_retransmits)
            return true;
    return end->forward.sent.has_retransmits || end->reverse.sent.has_retransmits;
}

void lp_text_summary(struct lp_fmt_text *f, const struct lp_rec_end *end)
{
    if (end->bidir)
        f->bidir = true;
    for (unsigned i = 0; i < end->nstreams; i++)
        f->udp |= end->streams[i].sender.is_udp || end->streams[i].receiver.is_udp;
    /* Multi-stream interval blocks already ended with a separator. */
    if (!f->sep_last)
        lp_text_separator(f);
    if (f->opts.verbose)
        lp_text_line(f, "Test Complete. Summary Results:");
    lp_text_line(f, "%s%s", header_base(f),
                 f->udp ? HDR_JITTER : summary_has_retr(end) ? HDR_RETR : "");
    if (f->bidir) {
        summary_pass(f, end, 0, &end->forward);
        summary_pass(f, end, 1, &end->reverse);
    } else {
        summary_pass(f, end, -1, end->forward.present ? &end->forward : &end->reverse);
    }
}

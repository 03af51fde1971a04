/* Counters to record numbers (see totals.h). Reads no clock and no socket: run.c reads them
 * and passes the values in, so every edge (a stream ending mid-interval, no streams, a
 * counter that wrapped) is a unit test, not a timing. */
#include "stats/totals.h"

#include <string.h>

#include "stats/latency.h"
#include "stats/udp_rx.h"

static double s_of(uint64_t ns)
{
    return (double)ns / 1e9;
}

/* The difference of two readings of a count, modulo 2^64: a counter that wrapped between
 * them still gives what passed. The builtin wraps by definition, so clang's integer
 * sanitizer (make check-asan) does not stop on a wrap that is meant. */
static uint64_t delta(uint64_t now, uint64_t then)
{
    uint64_t d;
    (void)__builtin_sub_overflow(now, then, &d);
    return d;
}

/* The same for lost, which a late datagram lowers: negative over an interval, and no signed
 * overflow whatever the readings. */
static int64_t delta_signed(int64_t now, int64_t then)
{
    int64_t d;
    (void)__builtin_sub_overflow(now, then, &d);
    return d;
}

double lp_totals_bps(uint64_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes * 8.0 / seconds : 0;
}

void lp_totals_sample(struct lp_sample *s, bool udp, bool sender, const struct lp_totals_counts *now,
                      const struct lp_totals_counts *last)
{
    s->bytes = delta(now->bytes, last->bytes);
    s->bits_per_second = lp_totals_bps(s->bytes, s->seconds);
    if (!udp)
        return;
    s->is_udp = true;
    if (sender) {
        s->packets = delta(now->packets, last->packets);
        return;
    }
    s->packets = delta(now->max_seq, last->max_seq);
    s->lost_packets = delta_signed(now->lost, last->lost);
    s->out_of_order = delta(now->out_of_order, last->out_of_order);
    s->jitter_ms = now->jitter_s * 1000.0;
    s->lost_percent = lp_udp_lost_percent(s->lost_packets, s->packets);
}

void lp_totals_sample_add(struct lp_sample *sum, const struct lp_sample *s, unsigned *njit)
{
    sum->bytes += s->bytes;
    sum->packets += s->packets;
    sum->lost_packets += s->lost_packets;
    sum->out_of_order += s->out_of_order;
    sum->retransmits += s->retransmits;
    sum->has_tcp_info |= s->has_tcp_info;
    if (s->has_latency) {
        sum->has_latency = true;
        lp_latency_stat_merge(&sum->latency, &s->latency);
    }
    /* Only a receiver measures jitter: a sender's 0 would drag the average down. */
    if (s->is_udp && !s->sid.sender) {
        sum->jitter_ms += s->jitter_ms;
        (*njit)++;
    }
}

void lp_totals_sample_close(struct lp_sample *sum, const struct lp_sample *like, unsigned njit,
                            const struct lp_sched_window *w)
{
    sum->start_s = w->start_s;
    sum->end_s = w->end_s;
    sum->seconds = w->end_s - w->start_s;
    sum->nominal_start_s = w->nom_start_s;
    sum->nominal_end_s = w->nom_end_s;
    sum->nominal_count = w->nom_n;
    sum->omitted = like->omitted;
    sum->is_udp = like->is_udp;
    sum->sid.sender = like->sid.sender;
    sum->sid.reverse = like->sid.reverse;
    sum->bits_per_second = lp_totals_bps(sum->bytes, sum->seconds);
    if (njit)
        sum->jitter_ms /= njit;
    sum->lost_percent = lp_udp_lost_percent(sum->lost_packets, sum->packets);
}

double lp_totals_run_seconds(const struct lp_totals_clock *c)
{
    return c->started ? s_of(c->end_ns - c->meas_ns) : 0;
}

void lp_totals_span(struct lp_total *t, const struct lp_totals_clock *c, uint64_t origin_ns, uint64_t start_ns,
                    uint64_t end_ns)
{
    t->start_s = 0;
    t->end_s = t->seconds = lp_totals_run_seconds(c);
    if (!start_ns && !end_ns)
        return;
    uint64_t from = start_ns > origin_ns ? start_ns : origin_ns;
    uint64_t to = end_ns ? end_ns : c->end_ns;
    if (to < from)
        to = from; /* ended before its origin: an empty span, not one of 2^64 ns */
    t->start_s = s_of(from - origin_ns);
    t->end_s = s_of(to - origin_ns);
    t->seconds = s_of(to - from);
}

void lp_totals_counts(struct lp_total *t, bool udp, bool sender, const struct lp_totals_counts *final,
                      const struct lp_totals_counts *base)
{
    t->present = true;
    t->bytes = delta(final->bytes, base->bytes);
    t->bits_per_second = lp_totals_bps(t->bytes, t->seconds);
    t->is_udp = udp;
    if (!udp)
        return;
    if (sender) {
        t->packets = delta(final->packets, base->packets);
        return;
    }
    t->packets = delta(final->max_seq, base->max_seq);
    t->lost_packets = delta_signed(final->lost, base->lost);
    t->out_of_order = delta(final->out_of_order, base->out_of_order);
    t->jitter_ms = final->jitter_s * 1000.0;
    t->lost_percent = lp_udp_lost_percent(t->lost_packets, t->packets);
}

void lp_totals_add(struct lp_total *sum, const struct lp_total *t, unsigned *njit, bool *all_retr)
{
    if (!t->present)
        return;
    sum->present = true;
    sum->bytes += t->bytes;
    if (t->seconds > sum->seconds)
        sum->seconds = sum->end_s = t->seconds;
    sum->packets += t->packets;
    sum->lost_packets += t->lost_packets;
    sum->out_of_order += t->out_of_order;
    sum->is_udp = t->is_udp;
    if (t->has_retransmits)
        sum->retransmits += t->retransmits;
    else
        *all_retr = false;
    sum->jitter_ms += t->jitter_ms;
    (*njit)++;
    if (t->has_latency) {
        sum->has_latency = true;
        lp_latency_stat_merge(&sum->latency, &t->latency);
    }
}

void lp_totals_close(struct lp_total *sum, unsigned njit, bool all_retr, bool sender_side)
{
    if (!sum->present)
        return;
    /* A sum of some streams' retransmits would read as the direction's: none, then. */
    sum->has_retransmits = all_retr && !sum->is_udp && sender_side;
    if (!sum->has_retransmits)
        sum->retransmits = 0;
    sum->jitter_ms = njit ? sum->jitter_ms / njit : 0;
    sum->bits_per_second = lp_totals_bps(sum->bytes, sum->seconds);
    sum->lost_percent = lp_udp_lost_percent(sum->lost_packets, sum->packets);
    if (sender_side) {
        /* A sender's jitter and loss are meaningless; iperf3 reports 0 there. */
        sum->jitter_ms = 0;
        sum->lost_packets = 0;
        sum->lost_percent = 0;
    }
}

/* One row into the own sum: its span widens the sum's. */
static void own_add(struct lp_own_sum *own, const struct lp_total *t, bool sender)
{
    struct lp_total *s = &own->sum;

    if (own->rows == 0 || t->start_s < s->start_s)
        s->start_s = t->start_s;
    if (t->end_s > s->end_s)
        s->end_s = t->end_s;
    s->present = true;
    s->is_udp = t->is_udp;
    s->bytes += t->bytes;
    s->packets += t->packets;
    s->lost_packets += t->lost_packets;
    s->out_of_order += t->out_of_order;
    s->retransmits += t->retransmits;
    s->has_retransmits |= t->has_retransmits;
    own->rows++;
    if (sender && t->is_udp) {
        own->udp_senders++;
        own->udp_sent += t->packets;
    }
}

void lp_totals_own(const struct lp_stream_end *se, unsigned n, struct lp_own_sum *own)
{
    memset(own, 0, sizeof(*own));
    for (unsigned i = 0; i < n; i++) {
        const struct lp_total *t = se[i].sid.sender ? &se[i].sender : &se[i].receiver;
        if (t->present)
            own_add(own, t, se[i].sid.sender);
    }
    struct lp_total *s = &own->sum;
    /* Rows of different spans (a -d leg, a late stream): the rate is over the whole span. */
    s->seconds = s->end_s > s->start_s ? s->end_s - s->start_s : 0;
    s->bits_per_second = lp_totals_bps(s->bytes, s->seconds);
    s->lost_percent = lp_udp_lost_percent(s->lost_packets, s->packets);
}

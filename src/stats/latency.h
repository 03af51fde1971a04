/* One-way latency of a stream's datagrams or TCP bursts (iperf2 --trip-times, and UDP -e):
 * arrival time minus the sender's timestamp, both on the wall clock, so the numbers mean
 * something only when the two clocks agree (same host, or PTP/NTP-synchronised hosts).
 *
 * The worker that owns the stream adds samples in batches; the control thread reads the
 * running count/sum/sum of squares (deltas give an interval's mean and deviation) and takes
 * the interval's minimum and maximum, which resets them. */
#ifndef LP_LATENCY_H
#define LP_LATENCY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "linkperf/record.h"
#include "stats/hist.h"

/* Samples a batch holds for the histogram until it is published: the histogram then moves
 * with the count, so an interval's percentiles and its count are of the same samples. A
 * batch larger than this adds the rest as they come. */
#define LP_LATENCY_PENDING 64

/* Worker-local accumulation between two publishes (no atomics on the per-sample path). */
struct lp_latency_batch {
    uint64_t n;
    double sum_ns, sumsq_ns2;
    int64_t min_ns, max_ns;
    struct lp_hist *hist;        /* where every sample goes too (NULL: no histogram; a
                                  * zeroed batch has none, and reset keeps it) */
    unsigned npend;
    uint16_t pend[LP_LATENCY_PENDING]; /* the buckets of samples not yet in hist */
};

struct lp_latency {
    atomic_uint_least64_t seq;                   /* odd while the worker writes count/sums */
    atomic_uint_least64_t count;
    atomic_uint_least64_t sum_bits, sumsq_bits;  /* doubles: ns, ns^2 */
    atomic_int_least64_t min_ns, max_ns;         /* whole stream */
    atomic_int_least64_t imin_ns, imax_ns;       /* since the control thread last took them */
};

/* A cumulative reading (control thread). */
struct lp_latency_snap {
    uint64_t count;
    double sum_ns, sumsq_ns2;
    int64_t min_ns, max_ns;
};

void lp_latency_init(struct lp_latency *l);

static inline void lp_latency_batch_reset(struct lp_latency_batch *b)
{
    b->n = 0;
    b->sum_ns = b->sumsq_ns2 = 0;
    b->min_ns = INT64_MAX;
    b->max_ns = INT64_MIN;
}

static inline void lp_latency_batch_add(struct lp_latency_batch *b, int64_t ns)
{
    double d = (double)ns;
    b->n++;
    b->sum_ns += d;
    b->sumsq_ns2 += d * d;
    if (ns < b->min_ns)
        b->min_ns = ns;
    if (ns > b->max_ns)
        b->max_ns = ns;
    if (b->hist) {
        if (b->npend < LP_LATENCY_PENDING)
            b->pend[b->npend++] = (uint16_t)lp_hist_index(ns);
        else
            lp_hist_add(b->hist, ns);
    }
}

/* Worker (the single writer of count/sum/min/max): add a batch, then reset it. The
 * extremes go first, then histogram, count and sums together (a sequence lock), so a
 * reading has the sums and histogram of the samples it counts and the extremes of each. */
void lp_latency_publish(struct lp_latency *l, struct lp_latency_batch *b);
void lp_latency_read(const struct lp_latency *l, struct lp_latency_snap *s);
/* The same, with the histogram h (the batch's) read into buckets (LP_HIST_BUCKETS) from the
 * same batches as the count. */
void lp_latency_read_hist(const struct lp_latency *l, const struct lp_hist *h, uint32_t *buckets,
                          struct lp_latency_snap *s);
/* Control thread: the interval's min and max (INT64_MAX/INT64_MIN when it had no sample),
 * and start a new interval. */
void lp_latency_take_interval(struct lp_latency *l, int64_t *min_ns, int64_t *max_ns);

/* Statistics of the samples between two readings. min/max come from the caller (the
 * interval's, or the whole stream's). */
void lp_latency_stat_between(const struct lp_latency_snap *now, const struct lp_latency_snap *before,
                             int64_t min_ns, int64_t max_ns, struct lp_latency_stat *out);
/* Pool b into a (parallel streams into a [SUM], or several intervals). */
void lp_latency_stat_merge(struct lp_latency_stat *a, const struct lp_latency_stat *b);
/* From iperf2's transit fields (seconds; m2 = sum of squared deviations in s^2). */
void lp_latency_stat_from_moments(struct lp_latency_stat *out, uint64_t count, double mean_s, double min_s,
                                  double max_s, double m2_s2);
/* Sum of squared deviations (s^2) of a stat, what iperf2's report carries. */
double lp_latency_stat_m2(const struct lp_latency_stat *s);

#endif

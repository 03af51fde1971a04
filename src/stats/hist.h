/* Latency histograms with bounded memory, in linkperf/hist.h's buckets. Percentiles come
 * from bucket midpoints.
 *
 * One writer (the stream's worker) adds samples; the control thread reads all the counts
 * at each interval and keeps copies, whose differences are an interval's or a test's
 * distribution. */
#ifndef LP_HIST_H
#define LP_HIST_H

#include <stdatomic.h>
#include <stdint.h>

#include "linkperf/hist.h"
#include "linkperf/record.h"

struct lp_hist {
    atomic_uint_least32_t n[LP_HIST_BUCKETS];
};

/* Worker: one sample in bucket i (single writer: a relaxed load and store, no locked add). */
static inline void lp_hist_add_at(struct lp_hist *h, unsigned i)
{
    atomic_uint_least32_t *c = &h->n[i];
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
}

static inline void lp_hist_add(struct lp_hist *h, int64_t ns)
{
    lp_hist_add_at(h, lp_hist_index(ns));
}

/* Control thread: every count, now. */
void lp_hist_read(const struct lp_hist *h, uint32_t out[LP_HIST_BUCKETS]);
/* The percentiles of the samples in now minus before (before may be NULL: none), into
 * s->p50_ms .. p999_ms; s->has_pct says whether there was a sample. */
void lp_hist_percentiles(const uint32_t *now, const uint32_t *before, struct lp_latency_stat *s);
/* The nearest-rank q-quantile (ms, its bucket's midpoint) of the total samples in now minus
 * before (NULL: none). */
double lp_hist_quantile_ms(const uint32_t *now, const uint32_t *before, uint64_t total, double q);

#endif

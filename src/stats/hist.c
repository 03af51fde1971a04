/* Latency histograms (see hist.h). */
#include "stats/hist.h"

#include <string.h>

void lp_hist_read(const struct lp_hist *h, uint32_t out[LP_HIST_BUCKETS])
{
    for (unsigned i = 0; i < LP_HIST_BUCKETS; i++)
        out[i] = atomic_load_explicit(&h->n[i], memory_order_relaxed);
}

double lp_hist_quantile_ms(const uint32_t *now, const uint32_t *before, uint64_t total, double q)
{
    /* The sample of rank ceil(q * total) (1-based), as a nearest-rank percentile. */
    uint64_t rank = (uint64_t)(q * (double)total);
    if ((double)rank < q * (double)total)
        rank++;
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < LP_HIST_BUCKETS; i++) {
        seen += now[i] - (before ? before[i] : 0);
        if (seen >= rank) {
            uint64_t low, width;
            lp_hist_bucket(i, &low, &width);
            return ((double)low + (double)(width - 1) / 2.0) / 1e6;
        }
    }
    return 0;
}

void lp_hist_percentiles(const uint32_t *now, const uint32_t *before, struct lp_latency_stat *s)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < LP_HIST_BUCKETS; i++)
        total += now[i] - (before ? before[i] : 0);
    s->has_pct = total > 0;
    if (!total)
        return;
    s->p50_ms = lp_hist_quantile_ms(now, before, total, 0.50);
    s->p90_ms = lp_hist_quantile_ms(now, before, total, 0.90);
    s->p99_ms = lp_hist_quantile_ms(now, before, total, 0.99);
    s->p999_ms = lp_hist_quantile_ms(now, before, total, 0.999);
    /* A midpoint can pass the exact extremes the stat already has: keep to them. */
    if (s->count) {
        double *p[] = {&s->p50_ms, &s->p90_ms, &s->p99_ms, &s->p999_ms};
        for (unsigned i = 0; i < sizeof(p) / sizeof(p[0]); i++)
            *p[i] = *p[i] < s->min_ms ? s->min_ms : *p[i] > s->max_ms ? s->max_ms : *p[i];
    }
}

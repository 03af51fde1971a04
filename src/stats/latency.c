/* One-way latency statistics (see latency.h). */
#include "stats/latency.h"

#include <sched.h>
#include <math.h>
#include <string.h>

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof(u));
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof(d));
    return d;
}

void lp_latency_init(struct lp_latency *l)
{
    atomic_init(&l->count, 0);
    atomic_init(&l->sum_bits, dbits(0));
    atomic_init(&l->sumsq_bits, dbits(0));
    atomic_init(&l->seq, 0);
    atomic_init(&l->min_ns, INT64_MAX);
    atomic_init(&l->max_ns, INT64_MIN);
    atomic_init(&l->imin_ns, INT64_MAX);
    atomic_init(&l->imax_ns, INT64_MIN);
}

void lp_latency_publish(struct lp_latency *l, struct lp_latency_batch *b)
{
    if (b->n == 0)
        return;
    if (b->min_ns < atomic_load_explicit(&l->min_ns, memory_order_relaxed))
        atomic_store_explicit(&l->min_ns, b->min_ns, memory_order_relaxed);
    if (b->max_ns > atomic_load_explicit(&l->max_ns, memory_order_relaxed))
        atomic_store_explicit(&l->max_ns, b->max_ns, memory_order_relaxed);
    /* The interval extremes are also reset by the control thread: compare-and-swap. */
    int64_t cur = atomic_load_explicit(&l->imin_ns, memory_order_relaxed);
    while (b->min_ns < cur &&
           !atomic_compare_exchange_weak_explicit(&l->imin_ns, &cur, b->min_ns, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
    cur = atomic_load_explicit(&l->imax_ns, memory_order_relaxed);
    while (b->max_ns > cur &&
           !atomic_compare_exchange_weak_explicit(&l->imax_ns, &cur, b->max_ns, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
    /* Single writer for these: plain load + store keeps locked instructions off the path;
     * the sequence lets the control thread read count, sums and histogram of the same
     * batches (a final reading while a burst still runs once had one sample's sum too many;
     * an interval's histogram once had one sample more than its count). */
    uint64_t seq = atomic_load_explicit(&l->seq, memory_order_relaxed);
    atomic_store_explicit(&l->seq, seq + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    for (unsigned i = 0; i < b->npend; i++)
        lp_hist_add_at(b->hist, b->pend[i]);
    b->npend = 0;
    double sum = bitsd(atomic_load_explicit(&l->sum_bits, memory_order_relaxed)) + b->sum_ns;
    double sumsq = bitsd(atomic_load_explicit(&l->sumsq_bits, memory_order_relaxed)) + b->sumsq_ns2;
    atomic_store_explicit(&l->sum_bits, dbits(sum), memory_order_relaxed);
    atomic_store_explicit(&l->sumsq_bits, dbits(sumsq), memory_order_relaxed);
    atomic_store_explicit(&l->count, atomic_load_explicit(&l->count, memory_order_relaxed) + b->n,
                          memory_order_relaxed);
    atomic_store_explicit(&l->seq, seq + 2, memory_order_release);
    lp_latency_batch_reset(b);
}

void lp_latency_read(const struct lp_latency *l, struct lp_latency_snap *s)
{
    lp_latency_read_hist(l, NULL, NULL, s);
}

void lp_latency_read_hist(const struct lp_latency *l, const struct lp_hist *h, uint32_t *buckets,
                          struct lp_latency_snap *s)
{
    uint64_t before, after;
    do {
        while ((before = atomic_load_explicit(&l->seq, memory_order_acquire)) & 1u)
            sched_yield(); /* a publish is a few dozen stores, unless its thread lost the CPU */
        s->count = atomic_load_explicit(&l->count, memory_order_relaxed);
        s->sum_ns = bitsd(atomic_load_explicit(&l->sum_bits, memory_order_relaxed));
        s->sumsq_ns2 = bitsd(atomic_load_explicit(&l->sumsq_bits, memory_order_relaxed));
        if (h && buckets)
            lp_hist_read(h, buckets);
        atomic_thread_fence(memory_order_acquire);
        after = atomic_load_explicit(&l->seq, memory_order_relaxed);
    } while (before != after);
    s->min_ns = atomic_load_explicit(&l->min_ns, memory_order_relaxed);
    s->max_ns = atomic_load_explicit(&l->max_ns, memory_order_relaxed);
}

void lp_latency_take_interval(struct lp_latency *l, int64_t *min_ns, int64_t *max_ns)
{
    *min_ns = atomic_exchange_explicit(&l->imin_ns, INT64_MAX, memory_order_relaxed);
    *max_ns = atomic_exchange_explicit(&l->imax_ns, INT64_MIN, memory_order_relaxed);
}

void lp_latency_stat_between(const struct lp_latency_snap *now, const struct lp_latency_snap *before,
                             int64_t min_ns, int64_t max_ns, struct lp_latency_stat *out)
{
    memset(out, 0, sizeof(*out));
    uint64_t n = now->count > before->count ? now->count - before->count : 0;
    out->count = n;
    if (n == 0)
        return;
    double sum = now->sum_ns - before->sum_ns, sumsq = now->sumsq_ns2 - before->sumsq_ns2;
    double mean = sum / (double)n;
    double m2 = sumsq - sum * mean; /* sum of squared deviations, ns^2 */
    out->mean_ms = mean / 1e6;
    out->stdev_ms = n > 1 && m2 > 0 ? sqrt(m2 / (double)(n - 1)) / 1e6 : 0;
    out->min_ms = min_ns == INT64_MAX ? out->mean_ms : (double)min_ns / 1e6;
    out->max_ms = max_ns == INT64_MIN ? out->mean_ms : (double)max_ns / 1e6;
}

double lp_latency_stat_m2(const struct lp_latency_stat *s)
{
    double sd = s->stdev_ms / 1e3;
    return s->count > 1 ? sd * sd * (double)(s->count - 1) : 0;
}

void lp_latency_stat_from_moments(struct lp_latency_stat *out, uint64_t count, double mean_s, double min_s,
                                  double max_s, double m2_s2)
{
    memset(out, 0, sizeof(*out));
    out->count = count;
    if (count == 0)
        return;
    out->mean_ms = mean_s * 1e3;
    out->min_ms = min_s * 1e3;
    out->max_ms = max_s * 1e3;
    out->stdev_ms = count > 1 && m2_s2 > 0 ? sqrt(m2_s2 / (double)(count - 1)) * 1e3 : 0;
}

void lp_latency_stat_merge(struct lp_latency_stat *a, const struct lp_latency_stat *b)
{
    if (b->count == 0)
        return;
    if (a->count == 0) {
        *a = *b;
        return;
    }
    /* Pooled mean and sum of squared deviations (Chan et al.), in seconds. */
    double na = (double)a->count, nb = (double)b->count, n = na + nb;
    double ma = a->mean_ms / 1e3, mb = b->mean_ms / 1e3, delta = mb - ma;
    double m2 = lp_latency_stat_m2(a) + lp_latency_stat_m2(b) + delta * delta * na * nb / n;
    double mean = ma + delta * nb / n;
    double mn = a->min_ms < b->min_ms ? a->min_ms : b->min_ms;
    double mx = a->max_ms > b->max_ms ? a->max_ms : b->max_ms;
    lp_latency_stat_from_moments(a, a->count + b->count, mean, mn / 1e3, mx / 1e3, m2);
}

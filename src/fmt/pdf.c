/* iperf2's latency PDFs from linkperf's HDR buckets (see pdf.h). The confidence and
 * outlier rules are 2.1.8's histogram_print, on the same float fractions. */
#include "fmt/pdf.h"

#include <stdbool.h>
#include <string.h>

#include "linkperf/hist.h"

uint64_t lp_pdf_bin_ns(const struct lp_histogram_spec *h)
{
    return (uint64_t)h->bin_width * (h->unit_ms ? 1000000u : 1000u);
}

/* One bin's step of 2.1.8's running sums. */
struct walk {
    const struct lp_histogram_spec *h;
    struct lp_pdf_summary *s;
    uint64_t running;
    uint32_t fence_lo, fence_hi, outside3;
};

static void step(struct walk *w, uint32_t bin, uint64_t cnt)
{
    struct lp_pdf_summary *s = w->s;
    w->running += cnt;
    /* 2.1.8 divides in float and compares with doubles: the same here, so a sample that
     * sits exactly on a bound lands where it would there. */
    double frac = (double)((float)w->running / (float)s->population);
    if (!s->lower_bin && frac > w->h->ci_lower / 100.0)
        s->lower_bin = bin;
    if (frac < 0.1)
        w->fence_lo = bin;
    if (frac < 0.9)
        w->fence_hi = bin;
    else if (!w->outside3)
        w->outside3 = w->fence_hi + 3 * (w->fence_hi - w->fence_lo);
    else if (bin - 1 > w->outside3) /* 2.1.8 compares its 0-based index */
        s->outliers += cnt;
    if (!s->upper_bin && frac > w->h->ci_upper / 100.0)
        s->upper_bin = bin;
    if (!s->p997_bin && frac > 99.7 / 100.0)
        s->p997_bin = bin;
}

void lp_pdf_compute(const uint32_t *now, const uint32_t *before, const struct lp_histogram_spec *h,
                    lp_pdf_visit visit, void *ctx, struct lp_pdf_summary *out)
{
    struct walk w = {.h = h, .s = out};
    uint64_t bin_ns = lp_pdf_bin_ns(h), pending = 0;
    uint32_t bin = 0;
    bool listing = visit != NULL;

    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < LP_HIST_BUCKETS; i++)
        out->population += now[i] - (before ? before[i] : 0);
    if (!out->population || !bin_ns)
        return;
    /* Buckets ascend, so bins do: a bin is complete when a bucket maps past it. */
    for (unsigned i = 0; i <= LP_HIST_BUCKETS; i++) {
        uint32_t this_bin = 0;
        uint64_t cnt = 0;
        if (i < LP_HIST_BUCKETS) {
            uint64_t low, width;
            cnt = now[i] - (before ? before[i] : 0);
            if (!cnt)
                continue;
            lp_hist_bucket(i, &low, &width);
            uint64_t idx = (low + (width - 1) / 2) / bin_ns;
            if (idx >= h->bins) {
                out->above += cnt;
                continue;
            }
            this_bin = (uint32_t)idx + 1;
            if (pending && this_bin == bin) {
                pending += cnt;
                continue;
            }
        }
        if (pending) {
            step(&w, bin, pending);
            if (listing && visit(ctx, bin, pending))
                listing = false;
        }
        bin = this_bin;
        pending = cnt;
    }
    /* 2.1.8 names the last bin when a bound was never passed (samples out of bounds). */
    if (!out->upper_bin)
        out->upper_bin = h->bins;
    if (!out->p997_bin)
        out->p997_bin = h->bins;
}

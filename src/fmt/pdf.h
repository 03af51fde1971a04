/* iperf2's latency PDFs (--histograms): equal bins of one width, the samples of each, and the
 * bins that hold the confidence bounds, as 2.1.8's histogram_print reports them.
 *
 * linkperf keeps its samples in the HDR buckets of linkperf/hist.h (at most 1.6 % of their
 * value wide) and does not keep a second, linear histogram on the data path: each bucket's
 * count goes to the bin of the bucket's midpoint. Counts are exact; a sample within a bucket
 * width of a bin edge may be shown in the neighbouring bin. Arithmetic only: the text and
 * JSON looks both print from it. */
#ifndef LP_FMT_PDF_H
#define LP_FMT_PDF_H

#include <stdint.h>

#include "linkperf/spec.h"

/* The bins that the summary and visitor speak of are numbered from 1, as iperf2 prints them
 * (bin k holds [(k-1) w, k w)). */
struct lp_pdf_summary {
    uint64_t population;         /* every sample, in or out of the bins */
    uint64_t below, above;       /* out of bounds: 2.1.8's obl/obu (below is 0: no sample
                                  * is negative here, a clock step counts as 0) */
    uint64_t outliers;           /* past 3 inter-decile ranges over the 90th percentile */
    uint32_t lower_bin, upper_bin; /* the first bin past ci_lower % and past ci_upper % */
    uint32_t p997_bin;           /* the first past 99.7 % */
};

/* Called for each non-empty bin in order; return nonzero to stop listing (the summary is
 * still computed over every bin). */
typedef int (*lp_pdf_visit)(void *ctx, uint32_t bin, uint64_t count);

/* The PDF of the samples in now minus before (before NULL: none), LP_HIST_BUCKETS counts
 * each, in the bins of h. visit may be NULL. */
void lp_pdf_compute(const uint32_t *now, const uint32_t *before, const struct lp_histogram_spec *h,
                    lp_pdf_visit visit, void *ctx, struct lp_pdf_summary *out);

/* The bin width in ns of a spec (its width in its unit). */
uint64_t lp_pdf_bin_ns(const struct lp_histogram_spec *h);

#endif

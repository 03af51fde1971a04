/* iperf2's latency PDFs from linkperf's HDR buckets (src/fmt/pdf.c): bins listed in order and
 * summing with the out-of-bounds samples to the count, 2.1.8's confidence bins and outliers on
 * known samples, the difference of two readings, and hostile settings (1 bin, a width that
 * swallows everything, an empty reading) bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmt/pdf.h"
#include "linkperf/hist.h"

struct got {
    uint32_t bin[LP_HIST_BUCKETS];
    uint64_t cnt[LP_HIST_BUCKETS];
    unsigned n;
};

static int visit(void *ctx, uint32_t bin, uint64_t count)
{
    struct got *g = ctx;
    g->bin[g->n] = bin;
    g->cnt[g->n++] = count;
    return 0;
}

static void put(uint32_t *h, int64_t ns, uint32_t times)
{
    h[lp_hist_index(ns)] += times;
}

static const struct lp_histogram_spec us100 = {.on = true, .bin_width = 100, .bins = 10000, .ci_lower = 5,
                                              .ci_upper = 95};

static void bins_and_bounds(void **state)
{
    (void)state;
    uint32_t *h = calloc(LP_HIST_BUCKETS, sizeof(*h));
    struct got *g = calloc(1, sizeof(*g));
    struct lp_pdf_summary s;
    /* 90 samples at 50 us (bin 1), 9 at 250 us (bin 3), 1 at 5 ms (bin 51): the 5 % and 95 %
     * bounds fall in bins 1 and 3, 99.7 % in 51, which is past 3 inter-decile ranges. */
    put(h, 50000, 90);
    put(h, 250000, 9);
    put(h, 5000000, 1);
    lp_pdf_compute(h, NULL, &us100, visit, g, &s);
    assert_int_equal(s.population, 100);
    assert_int_equal(g->n, 3);
    assert_int_equal(g->bin[0], 1);
    assert_int_equal(g->cnt[0], 90);
    assert_int_equal(g->bin[1], 3);
    assert_int_equal(g->bin[2], 51);
    assert_int_equal(s.lower_bin, 1);
    assert_int_equal(s.upper_bin, 3);
    assert_int_equal(s.p997_bin, 51);
    assert_int_equal(s.outliers, 1);
    assert_int_equal(s.above, 0);
    free(g);
    free(h);
}

static void difference_and_out_of_bounds(void **state)
{
    (void)state;
    uint32_t *now = calloc(LP_HIST_BUCKETS, sizeof(*now)), *before = calloc(LP_HIST_BUCKETS, sizeof(*before));
    struct got *g = calloc(1, sizeof(*g));
    struct lp_pdf_summary s;
    struct lp_histogram_spec small = {.on = true, .bin_width = 10, .bins = 5, .ci_lower = 5, .ci_upper = 95};
    put(before, 15000, 3);
    put(now, 15000, 10); /* 7 new in bin 2 */
    put(now, 1000000, 4); /* 1 ms: past 5 bins of 10 us */
    lp_pdf_compute(now, before, &small, visit, g, &s);
    assert_int_equal(s.population, 11);
    assert_int_equal(s.above, 4);
    assert_int_equal(g->n, 1);
    assert_int_equal(g->bin[0], 2);
    assert_int_equal(g->cnt[0], 7);
    assert_int_equal(s.upper_bin, 5); /* 95 % never reached in the bins: the last one */
    free(g);
    free(before);
    free(now);
}

static void hostile_settings(void **state)
{
    (void)state;
    uint32_t *h = calloc(LP_HIST_BUCKETS, sizeof(*h));
    struct got *g = calloc(1, sizeof(*g));
    struct lp_pdf_summary s;
    struct lp_histogram_spec one = {.on = true, .bin_width = 1000000, .unit_ms = true, .bins = 1, .ci_upper = 100};
    lp_pdf_compute(h, NULL, &one, visit, g, &s); /* empty */
    assert_int_equal(s.population, 0);
    assert_int_equal(g->n, 0);
    put(h, 0, 1);
    put(h, INT64_MAX, 2); /* the last bucket, past 2^41 ns (2199 s): over the one 1000 s bin */
    lp_pdf_compute(h, NULL, &one, visit, g, &s);
    assert_int_equal(s.population, 3);
    assert_int_equal(g->n, 1);
    assert_int_equal(g->cnt[0], 1);
    assert_int_equal(s.above, 2);
    assert_int_equal(lp_pdf_bin_ns(&one), 1000000000000ull);
    free(g);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bins_and_bounds),
        cmocka_unit_test(difference_and_out_of_bounds),
        cmocka_unit_test(hostile_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

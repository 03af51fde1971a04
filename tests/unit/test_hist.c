/* The latency histogram (linkperf/hist.h, src/stats/hist.c): every value lands in a bucket
 * that holds it and is at most 1/64 of it wide, buckets tile the range in order, and
 * percentiles of known samples come out within a bucket of the exact ones. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/hist.h"

static void buckets_hold_their_values(void **state)
{
    (void)state;
    /* Every bucket starts where the previous one ended. */
    uint64_t next = 0;
    for (unsigned i = 0; i < LP_HIST_BUCKETS; i++) {
        uint64_t low, width;
        lp_hist_bucket(i, &low, &width);
        assert_int_equal(low, next);
        assert_int_equal(lp_hist_index((int64_t)low), i);
        assert_int_equal(lp_hist_index((int64_t)(low + width - 1)), i);
        if (low >= 128)
            assert_true(width * 64 <= low); /* at most 1/64 of its value wide */
        next = low + width;
    }
    assert_true(next == (uint64_t)1 << 41);
    assert_int_equal(lp_hist_index(-5), 0);                        /* a clock step */
    assert_int_equal(lp_hist_index(INT64_MAX), LP_HIST_BUCKETS - 1); /* past the range */
}

static void percentiles_of_known_samples(void **state)
{
    (void)state;
    struct lp_hist *h = calloc(1, sizeof(*h));
    uint32_t *now = calloc(LP_HIST_BUCKETS, sizeof(*now)), *before = calloc(LP_HIST_BUCKETS, sizeof(*before));
    assert_non_null(h);
    assert_non_null(now);
    assert_non_null(before);
    /* 1000 samples of 1..1000 us, then a before-reading, then 1000 of 10 ms. */
    for (int64_t v = 1; v <= 1000; v++)
        lp_hist_add(h, v * 1000);
    lp_hist_read(h, before);
    for (int k = 0; k < 1000; k++)
        lp_hist_add(h, 10 * 1000 * 1000);
    lp_hist_read(h, now);

    struct lp_latency_stat all = {.count = 2000, .min_ms = 0.001, .max_ms = 10.0};
    lp_hist_percentiles(now, NULL, &all);
    assert_true(all.has_pct);
    assert_true(fabs(all.p50_ms - 1.0) <= 1.0 / 64);  /* the 1000th sample: 1 ms */
    assert_true(fabs(all.p90_ms - 10.0) <= 10.0 / 64);
    assert_true(all.p999_ms <= all.max_ms);           /* held to the exact extremes */

    struct lp_latency_stat first = {.count = 1000, .min_ms = 0.001, .max_ms = 1.0};
    lp_hist_percentiles(before, NULL, &first);
    assert_true(fabs(first.p50_ms - 0.5) <= 0.5 / 64);
    assert_true(fabs(first.p90_ms - 0.9) <= 0.9 / 64);
    assert_true(fabs(first.p99_ms - 0.99) <= 0.99 / 64);

    struct lp_latency_stat later = {.count = 1000, .min_ms = 10.0, .max_ms = 10.0};
    lp_hist_percentiles(now, before, &later); /* only what came after the reading */
    assert_true(later.p50_ms == 10.0 && later.p999_ms == 10.0);

    struct lp_latency_stat none = {0};
    lp_hist_percentiles(now, now, &none);
    assert_false(none.has_pct);
    free(h);
    free(now);
    free(before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buckets_hold_their_values),
        cmocka_unit_test(percentiles_of_known_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* One-way latency statistics: batches published by a worker, interval and whole-test
 * statistics read by the control thread, pooling of streams, iperf2's moments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats/latency.h"

static void close_to(double got, double want, double tol)
{
    if (fabs(got - want) > tol)
        fail_msg("got %.9f, want %.9f (tolerance %g)", got, want, tol);
}

/* Samples 1, 2, 3 ms then 10 ms: mean, min, max, sample standard deviation per interval
 * and over the whole stream. */
static void intervals_and_total(void **state)
{
    (void)state;
    struct lp_latency l;
    struct lp_latency_batch b = {0}; /* no histogram */
    struct lp_latency_snap s0 = {0}, s1, s2;
    struct lp_latency_stat st;
    int64_t mn, mx;

    lp_latency_init(&l);
    lp_latency_batch_reset(&b);
    lp_latency_batch_add(&b, 1000000);
    lp_latency_batch_add(&b, 2000000);
    lp_latency_publish(&l, &b);
    lp_latency_batch_add(&b, 3000000);
    lp_latency_publish(&l, &b);
    lp_latency_read(&l, &s1);
    lp_latency_take_interval(&l, &mn, &mx);
    lp_latency_stat_between(&s1, &s0, mn, mx, &st);
    assert_int_equal(st.count, 3);
    close_to(st.mean_ms, 2.0, 1e-9);
    close_to(st.min_ms, 1.0, 1e-9);
    close_to(st.max_ms, 3.0, 1e-9);
    close_to(st.stdev_ms, 1.0, 1e-9);

    lp_latency_batch_add(&b, 10000000);
    lp_latency_publish(&l, &b);
    lp_latency_read(&l, &s2);
    lp_latency_take_interval(&l, &mn, &mx);
    lp_latency_stat_between(&s2, &s1, mn, mx, &st);
    assert_int_equal(st.count, 1);
    close_to(st.min_ms, 10.0, 1e-9); /* the interval's own extremes, not the stream's */
    close_to(st.max_ms, 10.0, 1e-9);
    close_to(st.stdev_ms, 0.0, 1e-12);

    lp_latency_stat_between(&s2, &s0, s2.min_ns, s2.max_ns, &st);
    assert_int_equal(st.count, 4);
    close_to(st.mean_ms, 4.0, 1e-9);
    close_to(st.min_ms, 1.0, 1e-9);
    close_to(st.max_ms, 10.0, 1e-9);
    close_to(st.stdev_ms, sqrt((9.0 + 4.0 + 1.0 + 36.0) / 3.0), 1e-9);

    /* An interval without samples. */
    lp_latency_take_interval(&l, &mn, &mx);
    lp_latency_stat_between(&s2, &s2, mn, mx, &st);
    assert_int_equal(st.count, 0);
}

/* Clocks apart: negative latencies are kept as they are (the report says what it saw). */
static void negative_samples(void **state)
{
    (void)state;
    struct lp_latency l;
    struct lp_latency_batch b = {0}; /* no histogram */
    struct lp_latency_snap s0 = {0}, s1;
    struct lp_latency_stat st;
    lp_latency_init(&l);
    lp_latency_batch_reset(&b);
    lp_latency_batch_add(&b, -5000000);
    lp_latency_batch_add(&b, -3000000);
    lp_latency_publish(&l, &b);
    lp_latency_read(&l, &s1);
    lp_latency_stat_between(&s1, &s0, s1.min_ns, s1.max_ns, &st);
    close_to(st.mean_ms, -4.0, 1e-9);
    close_to(st.min_ms, -5.0, 1e-9);
    close_to(st.max_ms, -3.0, 1e-9);
}

/* Pooling two streams gives what one stream with all the samples would. */
static void merge_equals_pooled(void **state)
{
    (void)state;
    struct lp_latency_stat a, b, all;
    /* a: 1, 2, 3 ms; b: 10, 20 ms; all five together */
    lp_latency_stat_from_moments(&a, 3, 0.002, 0.001, 0.003, 2e-6);
    lp_latency_stat_from_moments(&b, 2, 0.015, 0.010, 0.020, 5e-5);
    lp_latency_stat_merge(&a, &b);
    double mean = (1 + 2 + 3 + 10 + 20) / 5.0;
    double m2 = 0;
    const double xs[] = {1, 2, 3, 10, 20};
    for (int i = 0; i < 5; i++)
        m2 += (xs[i] - mean) * (xs[i] - mean);
    lp_latency_stat_from_moments(&all, 5, mean / 1e3, 0.001, 0.020, m2 / 1e6);
    assert_int_equal(a.count, 5);
    close_to(a.mean_ms, all.mean_ms, 1e-9);
    close_to(a.stdev_ms, all.stdev_ms, 1e-9);
    close_to(a.min_ms, 1.0, 1e-9);
    close_to(a.max_ms, 20.0, 1e-9);
    /* m2 back out, as the iperf2 report carries it */
    close_to(lp_latency_stat_m2(&a), m2 / 1e6, 1e-12);
    /* merging nothing changes nothing; merging into nothing copies */
    struct lp_latency_stat none = {0}, copy = {0};
    lp_latency_stat_merge(&a, &none);
    assert_int_equal(a.count, 5);
    lp_latency_stat_merge(&copy, &b);
    assert_int_equal(copy.count, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(intervals_and_total),
        cmocka_unit_test(negative_samples),
        cmocka_unit_test(merge_equals_pooled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

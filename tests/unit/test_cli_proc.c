/* The stop deadline behind iperf2's server -t and --stop-after: it stops like a signal
 * would, once, after the time asked for and not before. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <time.h>

#include "cli/proc.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_deadline_stops(void **state)
{
    char err[256] = "";
    struct lp_cli_signals *s = lp_cli_signals_start(err, sizeof(err));
    double start = now_s();

    (void)state;
    assert_non_null(s);
    assert_int_equal(lp_cli_signals_deadline(s, 0.2, err, sizeof(err)), 0);
    assert_false(lp_cli_signals_stopped(s));
    while (!lp_cli_signals_stopped(s) && now_s() - start < 5) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    assert_true(lp_cli_signals_stopped(s));
    assert_true(now_s() - start >= 0.19);
    assert_true(now_s() - start < 2);
    lp_cli_signals_free(s);
}

static void test_no_deadline_no_stop(void **state)
{
    char err[256] = "";
    struct lp_cli_signals *s = lp_cli_signals_start(err, sizeof(err));
    struct timespec wait = {0, 100000000};

    (void)state;
    assert_non_null(s);
    nanosleep(&wait, NULL);
    assert_false(lp_cli_signals_stopped(s));
    lp_cli_signals_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deadline_stops),
        cmocka_unit_test(test_no_deadline_no_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

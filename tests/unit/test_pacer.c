/* Token-bucket pacing: credit accrues at the rate, is capped, and the due time of the next
 * block is exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/pacer.h"

#define MS 1000000ull

static void credit_accrues_at_rate(void **state)
{
    (void)state;
    struct lp_pacer p;
    lp_pacer_init(&p, 8000000 /* 1 MB/s */, 1 << 30, 0);
    assert_true(lp_pacer_credit(&p, 10 * MS) == 10000); /* 10 ms = 10 kB */
    lp_pacer_spend(&p, 10000);
    assert_true(lp_pacer_credit(&p, 10 * MS) == 0);
    assert_true(lp_pacer_credit(&p, 11 * MS) == 1000);
}

static void cap_bounds_catch_up(void **state)
{
    (void)state;
    struct lp_pacer p;
    lp_pacer_init(&p, 8000000, 5000, 0);
    /* One second stalled would be 1 MB of credit; the cap keeps the burst to 5 kB. */
    assert_true(lp_pacer_credit(&p, 1000 * MS) == 5000);
}

static void due_time_of_next_block(void **state)
{
    (void)state;
    struct lp_pacer p;
    lp_pacer_init(&p, 8000000, 1 << 30, 0);
    lp_pacer_credit(&p, 0);
    /* 1500 bytes at 1 MB/s: due after 1.5 ms. */
    uint64_t due = lp_pacer_due_ns(&p, 1500);
    assert_true(due >= 1500000 && due <= 1500002);
    assert_true(lp_pacer_credit(&p, due) >= 1500);
}

static void long_run_average_is_exact(void **state)
{
    (void)state;
    /* Simulate a sender woken every 0.37 ms sending whole 1470-byte blocks while credit allows. */
    struct lp_pacer p;
    uint64_t rate = 100000000; /* 100 Mbit/s */
    lp_pacer_init(&p, rate, lp_pacer_default_cap(rate, 1470), 0);
    uint64_t sent = 0, t = 0;
    for (; t < 2000 * MS; t += 370000) {
        while (lp_pacer_credit(&p, t) >= 1470) {
            lp_pacer_spend(&p, 1470);
            sent += 1470;
        }
    }
    double got_bps = (double)sent * 8 / ((double)t / 1e9);
    assert_true(got_bps > 0.999 * (double)rate && got_bps < 1.001 * (double)rate);
}

static void default_cap(void **state)
{
    (void)state;
    assert_true(lp_pacer_default_cap(1000000, 1470) == 4 * 1470); /* 10 ms is less than 4 blocks */
    assert_true(lp_pacer_default_cap(8000000000ull, 1470) == 10000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(credit_accrues_at_rate),
        cmocka_unit_test(cap_bounds_catch_up),
        cmocka_unit_test(due_time_of_next_block),
        cmocka_unit_test(long_run_average_is_exact),
        cmocka_unit_test(default_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

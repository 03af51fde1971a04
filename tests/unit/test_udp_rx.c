/* UDP receiver arithmetic as iperf3 defines it: loss from gaps, out-of-order cancelling a
 * counted loss, RFC 1889 jitter smoothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/udp_rx.h"

static void in_order_no_loss(void **state)
{
    (void)state;
    struct lp_udp_rx rx;
    lp_udp_rx_init(&rx);
    for (uint64_t s = 1; s <= 100; s++)
        lp_udp_rx_packet(&rx, s, 0.001);
    assert_true(rx.max_seq == 100);
    assert_true(rx.lost == 0);
    assert_true(rx.out_of_order == 0);
    assert_true(rx.received == 100);
    assert_true(rx.jitter_s == 0.0); /* constant transit: no jitter */
}

static void gap_counts_loss(void **state)
{
    (void)state;
    struct lp_udp_rx rx;
    lp_udp_rx_init(&rx);
    uint64_t seqs[] = {1, 2, 5, 6, 10};
    for (size_t i = 0; i < 5; i++)
        lp_udp_rx_packet(&rx, seqs[i], 0);
    assert_true(rx.max_seq == 10);
    assert_true(rx.lost == 5); /* 3, 4, 7, 8, 9 */
    assert_int_equal((int)lp_udp_lost_percent(rx.lost, rx.max_seq), 50);
}

/* Sequence numbers a hostile or broken peer sends (64-bit counters): the loss saturates at
 * INT64_MAX and never goes negative; printed as "-4/18446744073709551615" before. */
static void huge_sequence_numbers_saturate(void **state)
{
    (void)state;
    struct lp_udp_rx rx;
    lp_udp_rx_init(&rx);
    lp_udp_rx_packet(&rx, 1, 0);
    lp_udp_rx_packet(&rx, UINT64_C(1) << 63, 0);
    assert_true(rx.lost == (int64_t)((UINT64_C(1) << 63) - 2)); /* 2 .. 2^63 - 1 */
    lp_udp_rx_packet(&rx, UINT64_MAX - 3, 0);
    lp_udp_rx_packet(&rx, UINT64_MAX, 0);
    assert_true(rx.max_seq == UINT64_MAX);
    assert_true(rx.lost == INT64_MAX);
    lp_udp_rx_packet(&rx, 5, 0); /* late: cancels one */
    assert_true(rx.lost == INT64_MAX - 1);
    assert_true(lp_udp_lost_percent(rx.lost, rx.max_seq) > 49.0);
    assert_true(lp_udp_lost_percent(rx.lost, rx.max_seq) <= 100.0);
}

static void late_packet_is_out_of_order_and_not_lost(void **state)
{
    (void)state;
    struct lp_udp_rx rx;
    lp_udp_rx_init(&rx);
    uint64_t seqs[] = {1, 3, 2, 4};
    for (size_t i = 0; i < 4; i++)
        lp_udp_rx_packet(&rx, seqs[i], 0);
    assert_true(rx.lost == 0);
    assert_true(rx.out_of_order == 1);
    /* A duplicate with nothing lost stays out-of-order and cannot make loss negative. */
    lp_udp_rx_packet(&rx, 2, 0);
    assert_true(rx.lost == 0);
    assert_true(rx.out_of_order == 2);
}

static void jitter_follows_rfc1889(void **state)
{
    (void)state;
    struct lp_udp_rx rx;
    lp_udp_rx_init(&rx);
    /* transit alternates 0 and 1 ms: D = 1 ms each step, J converges towards 1 ms as
     * J += (D - J) / 16 */
    double expect = 0;
    for (uint64_t s = 1; s <= 50; s++) {
        lp_udp_rx_packet(&rx, s, (s % 2) ? 0.0 : 0.001);
        if (s > 1)
            expect += (0.001 - expect) / 16.0;
    }
    assert_true(fabs(rx.jitter_s - expect) < 1e-12);
    assert_true(rx.jitter_s > 0.00095 && rx.jitter_s < 0.001);
}

static void lost_percent_guards_zero(void **state)
{
    (void)state;
    assert_true(lp_udp_lost_percent(0, 0) == 0.0);
    assert_true(lp_udp_lost_percent(1, 4) == 25.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_order_no_loss),
        cmocka_unit_test(gap_counts_loss),
        cmocka_unit_test(huge_sequence_numbers_saturate),
        cmocka_unit_test(late_packet_is_out_of_order_and_not_lost),
        cmocka_unit_test(jitter_follows_rfc1889),
        cmocka_unit_test(lost_percent_guards_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

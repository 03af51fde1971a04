/* iperf2 --isochronous frame arithmetic (stats/frames.c): 2.1.8's frame sizes (the 1249-byte
 * frames of tests/golden/evidence/iperf2/isochronous.txt for 100k at 10 fps), how a frame is
 * cut into datagrams, late senders' miss/slip, and the receiver's frame count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/frames.h"
#include "wire/iperf2.h"

static void sizes_as_stock(void **state)
{
    (void)state;
    /* stdev 0: exp(log(1250)) is 1249.99..., truncated like 2.1.8's. */
    assert_int_equal(lp_frame_size(100e3 / 8 / 10, 0, 0), 1249);
    assert_int_equal(lp_frame_size(1e6 / 8 / 5, 0, 0), 25000);
    assert_int_equal(lp_frame_size(20e6 / 8 / 60, 0, 0), 41666);
    /* The median of the lognormal is below its mean; z moves the size the right way. */
    uint32_t lo = lp_frame_size(10000, 3000, -1), mid = lp_frame_size(10000, 3000, 0),
             hi = lp_frame_size(10000, 3000, 1);
    assert_true(lo < mid && mid < 10000 && 10000 < hi);
    assert_int_equal(lp_frame_size(0.2, 0, 0), 1); /* never an empty frame */
}

static void datagrams_of_a_frame(void **state)
{
    (void)state;
    /* The capture's 25000-byte frame: 17 x 1470, then the 10 left padded to 108. */
    assert_int_equal(lp_frame_dgrams(25000, 1470), 18);
    assert_int_equal(lp_frame_dgram_len(25000, 1470), 1470);
    assert_int_equal(lp_frame_dgram_len(10, 1470), LP_FRAME_MIN_DGRAM);
    assert_int_equal(lp_frame_dgram_len(1249, 1470), 1249);
    assert_int_equal(lp_frame_dgrams(1249, 1470), 1);
    assert_int_equal(LP_FRAME_MIN_DGRAM, LP_I2_ISOCH_AT + LP_I2_ISOCH_LEN);
}

static void late_sender_misses(void **state)
{
    (void)state;
    struct lp_frame_tx c = {0};
    const uint64_t period = 100000000; /* 100 ms */
    assert_int_equal(lp_frame_due(&c, 1, 0, period), 1);
    assert_int_equal(lp_frame_due(&c, 2, 150000000, period), 2); /* late, inside its own period */
    /* Woken 3.5 periods after frame 3 was due: ids 3..5 are gone, 6 goes now. */
    assert_int_equal(lp_frame_due(&c, 3, 550000000, period), 6);
    assert_int_equal(c.tx, 3);
    assert_int_equal(c.miss, 3);
    assert_int_equal(c.slip, 1);
}

static void receiver_counts(void **state)
{
    (void)state;
    struct lp_frame_rx r;
    lp_frame_rx_init(&r);
    assert_false(lp_frame_rx_add(&r, 0, 0, 0, 0, 1470)); /* the header datagram */
    /* frame 1: 1470 + 1470 + 108 (the padded last piece says 108/108, as 2.1.8's) */
    assert_false(lp_frame_rx_add(&r, 1, 0, 3000, 3000, 1470));
    assert_false(lp_frame_rx_add(&r, 1, 0, 3000, 1530, 1470));
    assert_true(lp_frame_rx_add(&r, 1, 0, 108, 108, 108));
    /* frame 2 loses its middle datagram */
    lp_frame_rx_add(&r, 2, 1, 3000, 3000, 1470);
    assert_false(lp_frame_rx_add(&r, 2, 1, 108, 108, 108));
    /* frame 3 nothing at all (frame 4 names it); frame 4 loses its first */
    lp_frame_rx_add(&r, 4, 3, 3000, 1530, 1470);
    lp_frame_rx_add(&r, 4, 3, 108, 108, 108);
    /* frame 5 whole, in one datagram; a repeat of it (a FIN) is not another frame */
    assert_true(lp_frame_rx_add(&r, 5, 4, 1249, 1249, 1249));
    assert_false(lp_frame_rx_add(&r, 5, 4, 1249, 1249, 1470));
    /* the sender ran late and skipped ids 6..8 (never sent: not lost); 9 whole */
    assert_true(lp_frame_rx_add(&r, 9, 5, 1249, 1249, 1249));
    /* frame 10 cut short by the end */
    lp_frame_rx_add(&r, 10, 9, 3000, 3000, 1470);
    lp_frame_rx_end(&r);
    assert_int_equal(r.rx, 3);
    assert_int_equal(r.lost, 4);
}

static void deltas(void **state)
{
    (void)state;
    struct lp_frame_counts a = {.on = true, .tx = 10, .miss = 1, .slip = 1}, b = {.on = true, .tx = 4};
    struct lp_frame_counts d = lp_frame_counts_delta(&a, &b);
    assert_true(d.on);
    assert_int_equal(d.tx, 6);
    assert_int_equal(d.miss, 1);
    struct lp_frame_counts off = {0};
    assert_false(lp_frame_counts_delta(&off, &off).on);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_as_stock),
        cmocka_unit_test(datagrams_of_a_frame),
        cmocka_unit_test(late_sender_misses),
        cmocka_unit_test(receiver_counts),
        cmocka_unit_test(deltas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* UDP receiver statistics (see udp_rx.h). Kept identical to iperf3's definitions so the
 * numbers agree with a stock peer; the arithmetic is unit-tested. */
#include "stats/udp_rx.h"

#include <math.h>
#include <string.h>

void lp_udp_rx_init(struct lp_udp_rx *rx)
{
    memset(rx, 0, sizeof(*rx));
}

void lp_udp_rx_packet(struct lp_udp_rx *rx, uint64_t seq, double transit_s)
{
    rx->received++;
    if (seq > rx->max_seq) {
        /* A peer may send any 64-bit number: the gap can pass what int64 holds. lost is
         * never negative (a late arrival only cancels a counted loss), so it saturates. */
        uint64_t gap = seq - rx->max_seq - 1;
        uint64_t room = (uint64_t)INT64_MAX - (uint64_t)rx->lost;
        rx->lost += (int64_t)(gap < room ? gap : room);
        rx->max_seq = seq;
    } else {
        /* A datagram we had counted as lost (or a duplicate) arrived late. */
        rx->out_of_order++;
        if (rx->lost > 0)
            rx->lost--;
    }
    if (rx->have_transit) {
        double d = fabs(transit_s - rx->prev_transit_s);
        rx->jitter_s += (d - rx->jitter_s) / 16.0;
    }
    rx->prev_transit_s = transit_s;
    rx->have_transit = true;
}

double lp_udp_lost_percent(int64_t lost, uint64_t expected)
{
    if (expected == 0)
        return 0.0;
    return 100.0 * (double)lost / (double)expected;
}

/* UDP receiver statistics (see udp_rx.h). Kept identical to iperf3's definitions so the
 * numbers agree with a stock peer; the arithmetic is unit-tested. */
#include "stats/udp_rx.h"

#include <string.h>

void lp_udp_rx_init(struct lp_udp_rx *rx)
{
    memset(rx, 0, sizeof(*rx));
}

double lp_udp_lost_percent(int64_t lost, uint64_t expected)
{
    if (expected == 0)
        return 0.0;
    return 100.0 * (double)lost / (double)expected;
}

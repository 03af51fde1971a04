/* Receiver-side UDP arithmetic as iperf3 defines it: loss from sequence gaps, out-of-order
 * (a late datagram also cancels one counted loss), RFC 1889 jitter. Pure; no I/O. */
#ifndef LP_UDP_RX_H
#define LP_UDP_RX_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

struct lp_udp_rx {
    uint64_t max_seq;        /* highest sequence number seen: iperf3's receiver "packets" */
    int64_t lost;            /* gaps minus late arrivals */
    uint64_t out_of_order;   /* datagrams with seq <= max_seq */
    uint64_t received;       /* datagrams received */
    double jitter_s;         /* smoothed |D| (RFC 1889 section 6.3.1) */
    double prev_transit_s;
    bool have_transit;
};

void lp_udp_rx_init(struct lp_udp_rx *rx);
/* One datagram with sequence number seq (first is 1) whose transit time (arrival clock
 * minus the sender's timestamp, any constant offset) was transit_s. Inline: a receiver calls
 * it for each of millions of datagrams a second. */
static inline void lp_udp_rx_packet(struct lp_udp_rx *rx, uint64_t seq, double transit_s)
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
/* Percentage of lost over expected, 0 when nothing was expected. */
double lp_udp_lost_percent(int64_t lost, uint64_t expected);

#endif

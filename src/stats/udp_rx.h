/* Receiver-side UDP arithmetic as iperf3 defines it: loss from sequence gaps, out-of-order
 * (a late datagram also cancels one counted loss), RFC 1889 jitter. Pure; no I/O. */
#ifndef LP_UDP_RX_H
#define LP_UDP_RX_H

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
 * minus the sender's timestamp, any constant offset) was transit_s. */
void lp_udp_rx_packet(struct lp_udp_rx *rx, uint64_t seq, double transit_s);
/* Percentage of lost over expected, 0 when nothing was expected. */
double lp_udp_lost_percent(int64_t lost, uint64_t expected);

#endif

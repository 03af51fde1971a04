/* linkperf's UDP round trips (-u --bounceback over the iperf3 dialect, and under-load's UDP
 * probes): the client sends a probe datagram every period, a linkperf server echoes each one
 * back at once (or after a hold), and the client times the round trip. No stock iperf 2.1.8
 * or iperf3 has this; a stock iperf3 server counts the probes as an ordinary UDP test and
 * sends nothing back.
 *
 * A probe, all big-endian: the iperf3 UDP header first (sec, usec, seq: 12 bytes, 16 with
 * 64-bit counters), so the server's UDP receiver arithmetic counts the way up as any iperf3
 * test; then, at LP_UE_OFF_MAGIC, linkperf's echo fields. The client's monotonic send time
 * comes back untouched, so a round trip needs no per-probe state at the client; the wall
 * clock stamps give the one-way split where both clocks agree. */
#ifndef LP_UDP_ECHO_H
#define LP_UDP_ECHO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"
#include "core/stream.h"

#define LP_UE_OFF_MAGIC 16     /* after the longest iperf3 header */
#define LP_UE_MAGIC 0x4C505545u /* "LPUE" */
#define LP_UE_OFF_TX_MONO 20   /* client send time, its monotonic clock (ns) */
#define LP_UE_OFF_TX_WALL 28   /* client send time, wall clock (ns) */
#define LP_UE_OFF_SRV_RX 36    /* server receive time, wall clock (ns) */
#define LP_UE_OFF_SRV_TX 44    /* server send time, wall clock (ns) */
#define LP_UE_MIN 52u          /* a probe is at least its header */
#define LP_UE_MAX 65507u       /* the largest UDP payload over IPv4 */
#define LP_UE_DEFAULT 64u      /* -l without a value */
#define LP_UE_PERIOD_DEFAULT_S 0.01 /* a probe every 10 ms, as under-load's TCP probes */
#define LP_UE_PERIOD_MIN_S 0.0001   /* --bounceback-period's floor for UDP (10 000 periods a second) */
#define LP_UE_HOLD_MAX_US 500000u /* --bounceback-hold's bound for UDP (the held ring) */
#define LP_UE_HOLD_SLOTS 128u  /* probes a server holds at once (50 at 10 ms and 0.5 s) */
/* How long after its last probe a client waits for the echoes still on their way (inside
 * the control's LP_BB_END_GRACE_NS, so both ends count the same probes). */
#define LP_UE_DRAIN_NS (LP_NS_PER_S)
#define LP_UE_WINDOW 4096u     /* seqs a client remembers to tell duplicates from late echoes */

/* lp_stream_new for LP_STREAM_UDP_BOUNCE / LP_STREAM_UDP_ECHO: the probe buffer and state.
 * false when out of memory. */
bool lp_udp_echo_setup(struct lp_stream *s);
void lp_udp_echo_free(struct lp_stream *s);
void lp_udp_echo_start(struct lp_stream *s);
void lp_udp_echo_io(struct lp_stream *s, uint32_t events);
void lp_udp_echo_timer(struct lp_stream *s);

/* Client: probes sent, echoes back (each probe once), duplicates, late ones (read by any
 * thread: published counters). */
struct lp_udp_echo_counts {
    uint64_t sent, returned, duplicates, reordered;
};
void lp_udp_echo_counts(const struct lp_stream *s, struct lp_udp_echo_counts *c);

#endif

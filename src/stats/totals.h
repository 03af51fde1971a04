/* From stream counters to the numbers in interval and end records: a row's counts and rate,
 * a stream's whole-test span, and the sums over streams ([SUM]: jitter averaged, retransmits
 * only when every stream has them; this end's own rows for iperf2's [SUM]). Pure arithmetic
 * on the record types: the caller owns the clock and reads the counters (unit/test_totals.c). */
#ifndef LP_TOTALS_H
#define LP_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

#include "linkperf/record.h"
#include "stats/sched.h"

/* A stream's counters at one reading (what its worker published). Every count only grows but
 * lost, which a late datagram lowers; the differences between two readings are taken modulo
 * 2^64, so a counter that wrapped between them still gives the right count. */
struct lp_totals_counts {
    uint64_t bytes;
    uint64_t packets;        /* UDP: datagrams sent, or received */
    uint64_t max_seq;        /* UDP receiver: highest sequence number (the datagrams expected) */
    int64_t lost;
    uint64_t out_of_order;
    double jitter_s;         /* the receiver's jitter now (not a count: not differenced) */
};

/* bits per second over seconds; 0 over no time. */
double lp_totals_bps(uint64_t bytes, double seconds);

/* ---- one interval ---- */

/* A row's counts between two readings (last: at the previous cut), and its rate over
 * s->seconds (set it first). UDP: a sender's row counts datagrams sent, a receiver's the
 * datagrams expected, with the loss, reordering and jitter of the interval. */
void lp_totals_sample(struct lp_sample *s, bool udp, bool sender, const struct lp_totals_counts *now,
                      const struct lp_totals_counts *last);

/* Interval sums: add each row of a direction (njit counts the UDP receiver rows whose jitter
 * is averaged), then close the sum on the cut's window; `like` is one of its rows (the sum
 * takes its direction and kind). */
void lp_totals_sample_add(struct lp_sample *sum, const struct lp_sample *s, unsigned *njit);
void lp_totals_sample_close(struct lp_sample *sum, const struct lp_sample *like, unsigned njit,
                            const struct lp_sched_window *w);

/* ---- the whole test ---- */

/* The run's clock as the caller read it. */
struct lp_totals_clock {
    bool started;
    uint64_t meas_ns;        /* the measurement start (after -O) */
    uint64_t end_ns;         /* when the run finished, or now while it runs */
};
/* Seconds measured: 0 before the start. */
double lp_totals_run_seconds(const struct lp_totals_clock *c);
/* A stream's total covers the run, or its own span when it joined late (start_ns) or ended
 * early (end_ns; 0 = not), in seconds from its origin (origin_ns: an iperf2 -r second leg's
 * start, else the run's meas_ns). A span that ends before it starts lasts 0 seconds. */
void lp_totals_span(struct lp_total *t, const struct lp_totals_clock *c, uint64_t origin_ns, uint64_t start_ns,
                    uint64_t end_ns);
/* A stream's whole-test counts (final reading minus base: the end of -O) and its rate over
 * t->seconds (set the span first); present. */
void lp_totals_counts(struct lp_total *t, bool udp, bool sender, const struct lp_totals_counts *final,
                      const struct lp_totals_counts *base);

/* A direction's [SUM]: add each stream's total of one side (absent ones count for nothing;
 * all_retr, start it true, stays true while every total has retransmits), then close it: the
 * longest stream's time, the rate over it, the jitter averaged over the totals added,
 * retransmits only on a TCP sender side whose every stream had them, and on the sender side
 * no jitter or loss (iperf3 reports 0 there). */
void lp_totals_add(struct lp_total *sum, const struct lp_total *t, unsigned *njit, bool *all_retr);
void lp_totals_close(struct lp_total *sum, unsigned njit, bool all_retr, bool sender_side);

/* This end's own rows of an END (n streams) summed into own (see struct lp_own_sum). */
void lp_totals_own(const struct lp_stream_end *se, unsigned n, struct lp_own_sum *own);

#endif

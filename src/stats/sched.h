/* The report schedule of a run: interval k covers [start + k*iv, start + (k+1)*iv) of the
 * monotonic clock, start being the measurement start (after -O) or the start of iperf2 -r's
 * second leg. Deadlines come from this arithmetic alone, never from the time the last report
 * was cut, so a timer that fires late delays one report and moves no later boundary. Also
 * the decisions around it: when a timer cuts, what window a cut covers (real times and on
 * the schedule), each stream's row in it, whether the test's last partial interval is kept,
 * the end deadline with -O. Pure arithmetic: the caller owns the clock and the timers
 * (unit/test_sched.c). */
#ifndef LP_SCHED_H
#define LP_SCHED_H

#include <stdbool.h>
#include <stdint.h>

/* A report interval in nanoseconds, rounded to the nearest one: -i 0.3 is 300000000 ns
 * (truncating 0.3 * 1e9 gives 299999999 and a boundary that creeps 1 ns per interval).
 * 0 (or less) means no interval reports. */
static inline uint64_t lp_sched_iv_ns(double interval_s)
{
    return interval_s > 0 ? (uint64_t)(interval_s * 1e9 + 0.5) : 0;
}

/* Boundary k: start + k*iv. */
static inline uint64_t lp_sched_at(uint64_t start_ns, uint64_t iv_ns, uint64_t k)
{
    return start_ns + k * iv_ns;
}

/* The index of the last boundary at or before now (0 before the start; iv must not be 0). */
static inline uint64_t lp_sched_index(uint64_t start_ns, uint64_t iv_ns, uint64_t now_ns)
{
    return now_ns > start_ns ? (now_ns - start_ns) / iv_ns : 0;
}

/* The boundary a timer that fired at now should be armed for next: the first one after now.
 * A timer that was more than one interval late skips the boundaries it missed (their report
 * is the late one) instead of firing once per missed boundary with nothing in between. */
static inline uint64_t lp_sched_next(uint64_t start_ns, uint64_t iv_ns, uint64_t now_ns)
{
    return lp_sched_index(start_ns, iv_ns, now_ns) + 1;
}

/* ---- the run's clock: -t, -O ---- */

/* When a timed test ends: -t after the start, plus the -O seconds (iperf3's -t does not count
 * them). 0 = no deadline: no -t, or the test ends by an amount (-n/-k). */
uint64_t lp_sched_end_deadline(uint64_t start_ns, double duration_s, unsigned omit_s, bool by_amount);
/* When -O's omitted seconds end (0 = no -O). The schedule restarts there. */
uint64_t lp_sched_omit_end(uint64_t start_ns, unsigned omit_s);

/* A stream attached at now_ns to a run that began measuring at meas_ns. One that joins over
 * LP_SCHED_LATE_JOIN_NS late (an iperf2 -r leg, a -d connection back) has a span of its own
 * from now, and runs its own -t: the run's end deadline moves to its end if that is later
 * (intervals near the end are folded only near this stream's end too). */
#define LP_SCHED_LATE_JOIN_NS 100000000ull
struct lp_sched_join {
    bool late;
    uint64_t start_ns;       /* late: its own start (now), else 0 */
    uint64_t end_deadline_ns;/* the run's deadline, moved or not (0 stays 0) */
};
void lp_sched_join(uint64_t meas_ns, uint64_t now_ns, double duration_s, uint64_t end_deadline_ns,
                   struct lp_sched_join *j);

/* ---- the interval timer ---- */

/* What the interval timer does when it fires at now_ns, armed for boundary due_k. */
struct lp_sched_tick {
    bool early;              /* fired before its boundary (a clock read before the timer's):
                              * only re-arm, for arm_ns */
    bool cut;                /* cut an interval ending on boundary end_k */
    uint64_t end_k;          /* the boundary it is due for or, over an interval late, the last
                              * one passed: one report covers the missed ones */
    uint64_t next_k;         /* the boundary to arm for next (due_k again when early) */
    uint64_t arm_ns;         /* when that is */
};
/* An interval ending within a tenth of an interval before the end deadline is not cut: the
 * final cut takes it, so the last row is not a sliver (not while -O omits: the deadline is
 * measured after it). Once every stream has ended (streams_ended), neither is any later one. */
void lp_sched_tick(uint64_t origin_ns, uint64_t iv_ns, uint64_t due_k, uint64_t now_ns,
                   uint64_t end_deadline_ns, bool omitting, bool streams_ended, struct lp_sched_tick *t);

/* ---- cuts ---- */

/* One cut: the interval from the last cut to now, on the schedule from from_k to to_k. */
struct lp_sched_cut {
    uint64_t origin_ns;      /* where the schedule and the report's times count from */
    uint64_t iv_ns;          /* 0: no interval reports (a cut at the end of -O) */
    uint64_t from_ns, to_ns; /* the last cut, now */
    uint64_t from_k;         /* the boundary the last cut ended on */
    uint64_t to_k;           /* the boundary this one ends on; <= from_k: it ends at to_ns (the
                              * test's last cut, the end of -O) */
};

/* The window of an interval record, in seconds from the origin: its real times (what iperf3
 * prints) and its place on the schedule (what iperf2 prints: 1.0000-2.0000), nom_n whole
 * intervals when the cut came over an interval late (one row each), 1 otherwise. A window
 * that ends at to_ns never ends before it starts on the schedule. */
struct lp_sched_window {
    double start_s, end_s;
    double nom_start_s, nom_end_s;
    unsigned nom_n;
};
void lp_sched_window(const struct lp_sched_cut *c, struct lp_sched_window *w);

/* One stream's row in a cut: it covers its own part of the interval, from when it joined
 * (start_ns, 0 = with the run) to when it ended (end_ns, 0 = still running), in seconds
 * from its own origin (origin_ns: iperf2 -r's second leg has its own clock). On the schedule
 * too it starts when it joined and ends when it ended within the window (2.1.8:
 * "2.0000-2.5014"), or on the last boundary it passed. */
struct lp_sched_row {
    double start_s, end_s, seconds;
    double nom_start_s, nom_end_s;
    unsigned nom_n;
};
void lp_sched_row(const struct lp_sched_cut *c, const struct lp_sched_window *w, uint64_t origin_ns,
                  uint64_t start_ns, uint64_t end_ns, struct lp_sched_row *row);
/* Whether a stream has no row in the cut: it ended before the interval began and nothing
 * arrived since (iperf2 -r: the first leg's rows stop where it ended, as 2.1.8's do). */
bool lp_sched_row_gone(const struct lp_sched_cut *c, uint64_t end_ns, bool moved);

/* ---- the test's end ---- */

/* The last interval, when the test is over at now_ns. It ends where the last stream ended
 * (streams_end_ns, 0 = some had not; ignored when after now or before the last cut: the
 * bookkeeping that followed is not measured time), else now. It is cut (cut) when it carried
 * data (moved) or is at least a tenth of an interval long; otherwise it is dropped: the
 * counters it has are in the totals only. No interval reports (iv_ns 0): never cut. */
struct lp_sched_last {
    bool cut;
    uint64_t at_ns;          /* where it ends */
    uint64_t end_k;          /* the boundary it passed last (the window's to_k) */
};
void lp_sched_last(uint64_t origin_ns, uint64_t iv_ns, uint64_t last_cut_ns, uint64_t now_ns,
                   uint64_t streams_end_ns, bool moved, struct lp_sched_last *l);

#endif

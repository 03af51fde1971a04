/* The report schedule of a run: interval k covers [start + k*iv, start + (k+1)*iv) of the
 * monotonic clock, start being the measurement start (after -O). Deadlines come from this
 * arithmetic alone, never from the time the last report was cut, so a timer that fires late
 * delays one report and moves no later boundary. Pure functions (unit/test_sched.c). */
#ifndef LP_SCHED_H
#define LP_SCHED_H

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

#endif

/* Clocks: monotonic nanoseconds for intervals and deadlines, wall time for display only. */
#ifndef LP_CLOCK_H
#define LP_CLOCK_H

#include <stdint.h>
#include <time.h>

#define LP_NS_PER_S 1000000000ull
#define LP_NS_PER_MS 1000000ull
#define LP_NS_PER_US 1000ull

static inline uint64_t lp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * LP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static inline double lp_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline uint64_t lp_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * LP_NS_PER_S + (uint64_t)ts.tv_nsec;
}

static inline double lp_ns_to_s(uint64_t ns) { return (double)ns / 1e9; }

#endif

/* The latency histogram's bucket layout, which every layer that reads one needs (the engine
 * fills them: src/stats/hist.h). HDR style: values in ns, exact below 128 ns, then 64
 * linear sub-buckets per power of two (a bucket is at most 1/64 = 1.6 % of its value wide),
 * up to 2^41 ns (36 min; larger values count in the last bucket). */
#ifndef LINKPERF_HIST_H
#define LINKPERF_HIST_H

#include <stdint.h>

#define LP_HIST_SUB_BITS 7u                         /* values below 2^7 are their own bucket */
#define LP_HIST_HALF (1u << (LP_HIST_SUB_BITS - 1)) /* 64 sub-buckets per octave */
#define LP_HIST_MAX_SHIFT 34u                       /* the largest shift: 2^(34+7) ns */
#define LP_HIST_BUCKETS ((LP_HIST_MAX_SHIFT + 2u) * LP_HIST_HALF) /* 2304 */

/* The bucket of a value (negative values, a clock step, count as 0). */
static inline unsigned lp_hist_index(int64_t ns)
{
    uint64_t v = ns < 0 ? 0 : (uint64_t)ns;
    if (v < (1u << LP_HIST_SUB_BITS))
        return (unsigned)v;
    unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - (LP_HIST_SUB_BITS - 1); /* >= 1 */
    if (shift > LP_HIST_MAX_SHIFT)
        return LP_HIST_BUCKETS - 1;
    return shift * LP_HIST_HALF + (unsigned)(v >> shift); /* v >> shift is in 64..127 */
}

/* The lowest value of bucket i and its width, in ns. */
static inline void lp_hist_bucket(unsigned i, uint64_t *low_ns, uint64_t *width_ns)
{
    if (i < (1u << LP_HIST_SUB_BITS)) {
        *low_ns = i;
        *width_ns = 1;
        return;
    }
    unsigned shift = i / LP_HIST_HALF - 1, sub = i % LP_HIST_HALF + LP_HIST_HALF;
    *low_ns = (uint64_t)sub << shift;
    *width_ns = (uint64_t)1 << shift;
}

#endif

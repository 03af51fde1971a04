/* Token bucket (see pacer.h). Credit accrues continuously at the rate; the cap keeps a
 * sender that was stalled from bursting to "catch up", so pacing stays even over time. */
#include "stats/pacer.h"

void lp_pacer_init(struct lp_pacer *p, uint64_t rate_bps, uint64_t cap_bytes, uint64_t now_ns)
{
    p->rate_bps = rate_bps;
    p->cap_bytes = cap_bytes;
    p->last_ns = now_ns;
    p->credit_bytes = 0;
}

uint64_t lp_pacer_credit(struct lp_pacer *p, uint64_t now_ns)
{
    if (now_ns > p->last_ns) {
        p->credit_bytes += (double)(now_ns - p->last_ns) * (double)p->rate_bps / 8e9;
        p->last_ns = now_ns;
        if (p->credit_bytes > (double)p->cap_bytes)
            p->credit_bytes = (double)p->cap_bytes;
    }
    return p->credit_bytes > 0 ? (uint64_t)p->credit_bytes : 0;
}

void lp_pacer_spend(struct lp_pacer *p, uint64_t bytes)
{
    p->credit_bytes -= (double)bytes;
}

uint64_t lp_pacer_due_ns(const struct lp_pacer *p, uint64_t bytes)
{
    double missing = (double)bytes - p->credit_bytes;
    if (missing <= 0 || p->rate_bps == 0)
        return p->last_ns;
    return p->last_ns + (uint64_t)(missing * 8e9 / (double)p->rate_bps) + 1;
}

uint64_t lp_pacer_default_cap(uint64_t rate_bps, uint32_t blksize)
{
    uint64_t cap = rate_bps / 8 / 100; /* 10 ms */
    uint64_t min = 4ull * blksize;
    return cap > min ? cap : min;
}

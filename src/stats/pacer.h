/* Token-bucket pacing on the monotonic clock: how many bytes a sender may send now and
 * when the next block becomes due. Pure arithmetic; the caller owns the clock and I/O. */
#ifndef LP_PACER_H
#define LP_PACER_H

#include <stdint.h>

struct lp_pacer {
    uint64_t rate_bps;     /* 0 = unlimited */
    uint64_t cap_bytes;    /* most credit that may build up (bounds catch-up bursts) */
    uint64_t last_ns;      /* time credit was last updated */
    double credit_bytes;
};

/* cap: bytes of credit the bucket may hold; at least one block is always allowed. */
void lp_pacer_init(struct lp_pacer *p, uint64_t rate_bps, uint64_t cap_bytes, uint64_t now_ns);
/* Credit available at now_ns (bytes). */
uint64_t lp_pacer_credit(struct lp_pacer *p, uint64_t now_ns);
/* Spend bytes of credit (may go negative by less than one block). */
void lp_pacer_spend(struct lp_pacer *p, uint64_t bytes);
/* Earliest time at which `bytes` of credit will be available. */
uint64_t lp_pacer_due_ns(const struct lp_pacer *p, uint64_t bytes);
/* Default cap: 10 ms of traffic at the rate, but never less than four blocks. */
uint64_t lp_pacer_default_cap(uint64_t rate_bps, uint32_t blksize);

#endif

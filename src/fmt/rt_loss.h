/* UDP round trips (linkperf -u --bounceback, core/udp_echo.h) as the formatters show them:
 * the end that sent the probes has their count in its packets and the echoes that came back
 * (each once) in its latency count, so the round trips lost are the difference. The one rule
 * text, -J and CSV share. Internal to src/fmt. */
#ifndef LP_FMT_RT_LOSS_H
#define LP_FMT_RT_LOSS_H

#include <stdbool.h>
#include <stdint.h>

#include "linkperf/record.h"

/* false: t is not a UDP round-trip total. */
static inline bool lp_fmt_rt_loss(const struct lp_total *t, bool sender, uint64_t *sent, int64_t *lost,
                                  double *lost_percent)
{
    if (!t->present || !t->is_udp || !sender || !t->has_latency)
        return false;
    *sent = t->packets;
    *lost = (int64_t)t->packets - (int64_t)t->latency.count;
    *lost_percent = t->packets ? 100.0 * (double)*lost / (double)t->packets : 0;
    return true;
}

#endif

/* Defaults for struct lp_spec (iperf3's, so a bare command behaves like iperf3's). */
#include <string.h>

#include "linkperf/spec.h"

void lp_spec_init(struct lp_spec *spec, enum lp_role role)
{
    memset(spec, 0, sizeof(*spec));
    spec->role = role;
    spec->dialect = LP_DIALECT_IPERF3;
    spec->proto = LP_PROTO_TCP;
    spec->dir = LP_DIR_FORWARD;
    spec->family = LP_FAMILY_ANY;
    spec->port = LP_DEFAULT_PORT;
    spec->streams = 1;
    spec->duration_s = LP_DEFAULT_DURATION_S;
    spec->pacing_timer_us = LP_DEFAULT_PACING_TIMER_US;
    spec->tos = -1;
    spec->report.interval_s = LP_DEFAULT_INTERVAL_S;
    spec->rcv_timeout_ms = LP_DEFAULT_RCV_TIMEOUT_MS;
}

uint32_t lp_spec_blksize(const struct lp_spec *spec)
{
    if (spec->blksize)
        return spec->blksize;
    return spec->proto == LP_PROTO_UDP ? LP_DEFAULT_UDP_BLKSIZE : LP_DEFAULT_TCP_BLKSIZE;
}

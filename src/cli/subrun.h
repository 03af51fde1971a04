/* The measurement subcommands (under-load, rfc2544) run ordinary tests one after another,
 * or side by side, and read their END records: what one such test brought back, and the
 * running of it. */
#ifndef LP_CLI_SUBRUN_H
#define LP_CLI_SUBRUN_H

#include <stdbool.h>

#include "cli/proc.h"
#include "linkperf/engine.h"

struct lp_subrun {
    bool ended, failed;
    char error[256];
    double up_bps, down_bps;       /* TCP or UDP: this end's own totals, by direction */
    uint64_t sent_packets;         /* UDP: datagrams this end sent */
    uint64_t received_packets;     /* ...and the receiver took in (its count less its loss) */
    bool has_peer_report;          /* the receiver's numbers came back */
    struct lp_latency_stat rtt;    /* a latency stream's (no histogram pointers kept) */
};

/* Run one client to its end, filling r. slot: where another thread finds it to stop it (may
 * be NULL); sig: a stop signal stops it (may be NULL). Returns the client's result code. */
int lp_subrun_client(const struct lp_spec *sp, struct lp_subrun *r, struct lp_client **slot,
                     struct lp_cli_signals *sig);

#endif

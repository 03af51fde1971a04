/* The measurement subcommands (under-load, rfc2544) run ordinary tests one after another,
 * or side by side, and read their END records: what one such test brought back, and the
 * running of it. */
#ifndef LP_CLI_SUBRUN_H
#define LP_CLI_SUBRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The server a subcommand measures and how it reports: the options every one of them takes
 * (-c, -p, -4, -6, -J), parsed in one place. */
struct lp_subrun_target {
    char host[LP_HOST_MAX];
    uint16_t port;
    bool port_given;
    enum lp_family family;
    bool json;
};

/* argv[*i] is one of the shared options: takes it (and its value, advancing *i) and returns
 * 1; returns 0 when it is none of them, -1 with why filled when its value is missing or bad. */
int lp_subrun_take_option(int argc, char **argv, int *i, struct lp_subrun_target *t, char *why,
                          size_t whylen);

/* Points a test's spec at the target (host, port, address family). */
void lp_subrun_aim(struct lp_spec *sp, const struct lp_subrun_target *t);

struct cJSON;
/* Prints a subcommand's -J document on stdout and frees it; -1 when it cannot be printed. */
int lp_subrun_print_json(struct cJSON *doc);

#endif

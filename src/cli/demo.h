/* linkperf demo: a loopback server in a thread, then a 5 s TCP and a 5 s UDP client test. */
#ifndef LP_CLI_DEMO_H
#define LP_CLI_DEMO_H

#include "cli/config.h"
#include "cli/output.h"
#include "cli/proc.h"

#define LP_CLI_DEMO_SECONDS 5.0
#define LP_CLI_DEMO_UDP_BPS 100000000ull

/* Returns the process exit status: 0 when both tests succeeded, else 1. */
int lp_cli_demo_run(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                    struct lp_cli_signals *sig);

#endif

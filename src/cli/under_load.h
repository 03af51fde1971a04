/* linkperf under-load (under_load.c): latency under load against an iperf2 server. */
#ifndef LP_CLI_UNDER_LOAD_H
#define LP_CLI_UNDER_LOAD_H

#include <stddef.h>

#include "cli/subrun.h"

/* argv[0] is "under-load". Returns the exit status. */
int lp_under_load_main(int argc, char **argv);

struct cJSON;
/* The page's entry points. check: whether argv is a command line under-load takes (0, or -1
 * with the message the CLI would print in why; --help is refused), its target in *to (may be
 * NULL). run: measures it with ctl's progress and stop; *doc is the -J document (what
 * finished, with "error" when a phase failed; NULL when out of memory). 0, or -1 with why. */
int lp_under_load_check(int argc, char *const argv[], struct lp_subrun_target *to, char *why, size_t whylen);
int lp_under_load_run(int argc, char *const argv[], const struct lp_subrun_ctl *ctl, struct cJSON **doc,
                      char *why, size_t whylen);

#endif

/* linkperf rfc2544 (rfc2544.c): RFC 2544's benchmarks from UDP tests. */
#ifndef LP_CLI_RFC2544_H
#define LP_CLI_RFC2544_H

#include <stddef.h>

#include "cli/subrun.h"

/* argv[0] is "rfc2544". Returns the exit status. */
int lp_rfc2544_main(int argc, char **argv);

struct cJSON;
/* The page's entry points, as lp_under_load_check and lp_under_load_run (under_load.h): the
 * same parser and search as the CLI's, progress and stop through ctl, the -J document in
 * *doc. */
int lp_rfc2544_check(int argc, char *const argv[], struct lp_subrun_target *to, char *why, size_t whylen);
int lp_rfc2544_run(int argc, char *const argv[], const struct lp_subrun_ctl *ctl, struct cJSON **doc, char *why,
                   size_t whylen);

#endif

/* argv -> struct lp_cli_config, driven by an option table. Never prints, never exits:
 * a bad command line comes back as -1 and a one-line message naming the option. */
#ifndef LP_CLI_PARSE_H
#define LP_CLI_PARSE_H

#include "cli/config.h"
#include "cli/options.h"
#include "cli/values.h"

/* Whether a program name (argv[0]) asks for iperf2: linkperf2, or a name iperf2 goes by
 * (iperf, iperf.exe, iperf2 ...: starting with "iperf" but not "iperf3"). */
bool lp_cli_name_is_iperf2(const char *argv0);

/* Parse with iperf3's spelling, or iperf2's when argv[0] names iperf2
 * (lp_cli_name_is_iperf2) or --iperf2 appears anywhere (cfg->iperf2 then says so). Initialises cfg. Returns 0 or -1
 * (err filled); on -1 the caller exits with LP_CLI_EXIT_USAGE. argv[1] == "demo" selects
 * LP_CLI_ACTION_DEMO. */
int lp_cli_parse(int argc, char *const argv[], struct lp_cli_config *cfg,
                 struct lp_cli_err *err);
/* The same with a given table. */
int lp_cli_parse_table(const struct lp_cli_table *t, int argc, char *const argv[],
                       struct lp_cli_config *cfg, struct lp_cli_err *err);

#endif

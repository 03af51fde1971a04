/* `linkperf history`: the runs the CLI, the server and the page recorded (src/store), from
 * the command line: list, show, export (iperf3 JSON or CSV), delete, info. And the one-time
 * notice a first recording prints. */
#ifndef LP_CLI_HISTORY_H
#define LP_CLI_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

struct lp_store;

/* When st was just created by this open: the line saying where runs are recorded and how to
 * turn it off (the first recording says so once). Returns whether buf was filled. */
bool lp_cli_history_notice(const struct lp_store *st, char *buf, size_t len);
/* The subcommand: argv[0] is "history". Returns the exit status (2 on a bad command line,
 * 1 when a run is not there). */
int lp_cli_history_main(int argc, char **argv);

#endif

/* --help text and the roff man page, both generated from an option table so that neither
 * can drift from what the parser accepts. */
#ifndef LP_CLI_HELP_H
#define LP_CLI_HELP_H

#include "cli/options.h"

/* Each returns a malloc'd NUL-terminated string (caller frees), NULL when out of memory. */
char *lp_cli_help_text(const struct lp_cli_table *t);
/* iperf3's "Optional features available: ..." line for -v, from the table's supported rows. */
char *lp_cli_features_text(const struct lp_cli_table *t);
/* The page documents both spellings: t (iperf3's) and t2 (iperf2's, IPERF2 MODE). */
char *lp_cli_man_page(const struct lp_cli_table *t, const struct lp_cli_table *t2);

#endif

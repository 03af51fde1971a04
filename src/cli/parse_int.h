/* Internal to parse.c and checks.c: the state of one parse and the helpers the
 * combination checks use to find rows by key and word their messages. */
#ifndef LP_CLI_PARSE_INT_H
#define LP_CLI_PARSE_INT_H

#include "cli/parse.h"

#define MAX_ROWS 128   /* rows in one table; checked, so a bigger table fails loudly */

/* Per-parse state: which rows were seen and the text each last had (for messages). */
struct lp_cli_parse_state {
    const struct lp_cli_table *t;
    struct lp_cli_config *cfg;
    struct lp_cli_err *err;
    bool seen[MAX_ROWS];
    const char *text[MAX_ROWS];
};

size_t lp_cli_row_index(const struct lp_cli_parse_state *st, const struct lp_cli_opt *o);
/* The row a combination check means, whatever this table calls it (NULL if it has none). */
const struct lp_cli_opt *lp_cli_row(const struct lp_cli_parse_state *st, enum lp_cli_key key);
bool lp_cli_seen(const struct lp_cli_parse_state *st, enum lp_cli_key key);
const char *lp_cli_text(const struct lp_cli_parse_state *st, enum lp_cli_key key);
void lp_cli_label(const struct lp_cli_parse_state *st, enum lp_cli_key key, char *buf,
                  size_t len);
/* Each sets st->err and returns -1. */
int lp_cli_fail(struct lp_cli_parse_state *st, const struct lp_cli_opt *o, const char *what);
int lp_cli_conflict(struct lp_cli_parse_state *st, enum lp_cli_key a, enum lp_cli_key b);
int lp_cli_out_of_range(struct lp_cli_parse_state *st, const struct lp_cli_opt *o,
                        const char *text, const char *range, const char *suffix);

/* checks.c: roles, modes, dialect, defaults that depend on the whole line, exclusions. */
int lp_cli_check_line(struct lp_cli_parse_state *st);

#endif

/* A growable text buffer with an optional hard limit, for generated help/man text and
 * per-test server output. Allocation failure is sticky and reported by lp_cli_buf_take. */
#ifndef LP_CLI_BUF_H
#define LP_CLI_BUF_H

#include <stdbool.h>
#include <stddef.h>

/* Owns p. Starts zeroed ({0}); limit 0 means unbounded. */
struct lp_cli_buf {
    char *p;
    size_t len, cap;
    size_t limit;      /* bytes kept at most; the rest is dropped and truncated set */
    bool truncated;
    bool oom;
};

void lp_cli_buf_append(struct lp_cli_buf *b, const char *s, size_t n);
void lp_cli_buf_puts(struct lp_cli_buf *b, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void lp_cli_buf_printf(struct lp_cli_buf *b, const char *fmt, ...);
/* The NUL-terminated text (caller frees), or NULL after an allocation failure. Resets b. */
char *lp_cli_buf_take(struct lp_cli_buf *b);
void lp_cli_buf_free(struct lp_cli_buf *b);

#endif

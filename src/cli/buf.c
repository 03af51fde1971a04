/* Growable text buffer used by the generators and the server-output capture.
 * It never aborts: a failed allocation marks the buffer and later appends are dropped. */
#include "cli/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(struct lp_cli_buf *b, size_t extra)
{
    size_t want = b->len + extra + 1, cap = b->cap ? b->cap : 256;
    char *p;

    if (b->oom)
        return false;
    if (want <= b->cap)
        return true;
    while (cap < want)
        cap *= 2;
    p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void lp_cli_buf_append(struct lp_cli_buf *b, const char *s, size_t n)
{
    if (b->limit && b->len + n > b->limit) {
        n = b->limit - b->len;
        b->truncated = true;
    }
    if (n == 0 || !reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void lp_cli_buf_puts(struct lp_cli_buf *b, const char *s)
{
    lp_cli_buf_append(b, s, strlen(s));
}

void lp_cli_buf_printf(struct lp_cli_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[512], *big;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        lp_cli_buf_append(b, small, (size_t)n);
        return;
    }
    big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    lp_cli_buf_append(b, big, (size_t)n);
    free(big);
}

char *lp_cli_buf_take(struct lp_cli_buf *b)
{
    char *p;

    if (b->oom || !reserve(b, 0)) {
        lp_cli_buf_free(b);
        return NULL;
    }
    p = b->p;
    p[b->len] = '\0';
    b->p = NULL;
    b->len = b->cap = 0;
    b->truncated = false;
    return p;
}

void lp_cli_buf_free(struct lp_cli_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->truncated = b->oom = false;
}

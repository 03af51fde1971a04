/* Where the formatter tests (test_fmt_*.c) let a formatter write instead of stdout and
 * stderr: a sink of whole lines per channel for the text looks and CSV, and a growing one for
 * JSON documents. Include after <cmocka.h>. */
#ifndef LP_TEST_FMT_SINK_H
#define LP_TEST_FMT_SINK_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/fmt.h"

/* ---- lines: stdout and stderr apart ---- */

struct sink {
    char out[65536], err[8192];
    size_t nout, nerr;
    bool raw; /* set: pieces too (the iperf3 look writes a server's output as it came) */
};

static inline void sink_write(void *user, enum lp_out_channel ch, const char *s, size_t n)
{
    struct sink *k = user;
    char *b = ch == LP_OUT_STDERR ? k->err : k->out;
    size_t *len = ch == LP_OUT_STDERR ? &k->nerr : &k->nout;
    size_t cap = ch == LP_OUT_STDERR ? sizeof(k->err) : sizeof(k->out);

    assert_true(*len + n < cap);
    /* Whole lines or whole blocks only: the line writer (fmt/lines.c) never splits one. */
    assert_true(k->raw || (n > 0 && s[n - 1] == '\n'));
    memcpy(b + *len, s, n);
    *len += n;
    b[*len] = '\0';
}

/* A formatter of look writing into k, emptied first; opts NULL: unit 'a'. */
static inline struct lp_fmt *sink_fmt(struct sink *k, enum lp_fmt_look look,
                                      const struct lp_fmt_opts *opts)
{
    struct lp_out out = {.write = sink_write, .user = k};
    struct lp_fmt_opts d = {.unit = 'a'};
    struct lp_fmt *f;

    memset(k, 0, sizeof(*k));
    f = lp_fmt_new(look, opts ? opts : &d, &out);
    assert_non_null(f);
    return f;
}

/* ---- documents: stdout only, any size ---- */

struct doc_sink {
    char *buf;
    size_t n;
    int writes;
};

static inline void doc_sink_write(void *user, enum lp_out_channel ch, const char *s, size_t n)
{
    struct doc_sink *k = user;

    assert_int_equal(ch, LP_OUT_STDOUT);
    k->buf = realloc(k->buf, k->n + n + 1);
    assert_non_null(k->buf);
    memcpy(k->buf + k->n, s, n);
    k->n += n;
    k->buf[k->n] = '\0';
    k->writes++;
}

#endif

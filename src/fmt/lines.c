/* One line writer for every text look, so that the prefixes and the cutting of over-long
 * lines cannot drift apart between them. */
#include "fmt/lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void lp_fmt_lines_init(struct lp_fmt_lines *l, struct lp_fmt_opts *own,
                       const struct lp_fmt_opts *opts, const struct lp_out *out, bool prefixed)
{
    *own = opts ? *opts : (struct lp_fmt_opts){.unit = 'a'};
    l->out = out ? *out : (struct lp_out){0};
    l->stamp_format[0] = '\0';
    l->title[0] = '\0';
    l->wall = 0;
    /* iperf3's default prefix is the locale's date and time and a space. */
    if (prefixed && own->timestamps)
        snprintf(l->stamp_format, sizeof(l->stamp_format), "%s",
                 own->timestamp_format[0] ? own->timestamp_format : "%c ");
    if (prefixed && own->title)
        snprintf(l->title, sizeof(l->title), "%s", own->title);
    own->title = NULL;
}

void lp_fmt_lines_write(const struct lp_fmt_lines *l, enum lp_out_channel ch, const char *s,
                        size_t n)
{
    if (l->out.write && n)
        l->out.write(l->out.user, ch, s, n);
}

/* --timestamps prefix: strftime of the record's wall clock in local time, like iperf3. */
static size_t stamp(const struct lp_fmt_lines *l, char *b, size_t n)
{
    time_t t = (time_t)(l->wall > 0 ? l->wall : (double)time(NULL));
    struct tm tm;
    size_t k;

    if (!l->stamp_format[0] || !localtime_r(&t, &tm))
        return 0;
    /* The format is the user's --timestamps=FORMAT by design. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    k = strftime(b, n, l->stamp_format, &tm);
#pragma GCC diagnostic pop
    return k;
}

void lp_fmt_lines_vprintf(const struct lp_fmt_lines *l, enum lp_out_channel ch, bool titled,
                          const char *fmt, va_list ap)
{
    char b[LP_FMT_LINE_MAX];
    size_t n = stamp(l, b, sizeof(b) - 1);
    int k;

    if (titled && l->title[0]) {
        k = snprintf(b + n, sizeof(b) - n, "%s:  ", l->title);
        n = k < 0 ? n : n + (size_t)k;
    }
    if (n < sizeof(b) - 1) {
        k = vsnprintf(b + n, sizeof(b) - n, fmt, ap);
        n = k < 0 ? n : n + (size_t)k;
    }
    if (n > sizeof(b) - 2)
        n = sizeof(b) - 2;
    b[n++] = '\n';
    lp_fmt_lines_write(l, ch, b, n);
}

void lp_fmt_lines_printf(const struct lp_fmt_lines *l, enum lp_out_channel ch, bool titled,
                         const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    lp_fmt_lines_vprintf(l, ch, titled, fmt, ap);
    va_end(ap);
}

void lp_fmt_lines_long(const struct lp_fmt_lines *l, enum lp_out_channel ch, bool titled, const char *s)
{
    char pre[LP_FMT_LINE_MAX];
    size_t n = stamp(l, pre, sizeof(pre) - 1), len = strlen(s);
    int k;

    if (titled && l->title[0]) {
        k = snprintf(pre + n, sizeof(pre) - n, "%s:  ", l->title);
        n = k < 0 ? n : n + (size_t)k;
        if (n > sizeof(pre) - 1)
            n = sizeof(pre) - 1;
    }
    char *b = malloc(n + len + 1);
    if (!b) { /* no memory for the whole line: its first part, cut as any other */
        lp_fmt_lines_printf(l, ch, titled, "%s", s);
        return;
    }
    memcpy(b, pre, n);
    memcpy(b + n, s, len);
    b[n + len] = '\n';
    lp_fmt_lines_write(l, ch, b, n + len + 1);
    free(b);
}

void lp_fmt_lines_debug(const struct lp_fmt_lines *l, const struct lp_rec_debug *d)
{
    if (d->message)
        lp_fmt_lines_printf(l, LP_OUT_STDERR, false, "linkperf: debug: %s", d->message);
}

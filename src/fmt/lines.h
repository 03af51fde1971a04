/* The line writer of the text looks (iperf3 text, iperf2 text, CSV): where their output goes
 * and the --timestamps and -T prefixes a line gets. Internal to src/fmt. */
#ifndef LP_FMT_LINES_H
#define LP_FMT_LINES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "fmt/fmt.h"

#define LP_FMT_LINE_MAX 1024 /* bytes of one line, its newline included */

/* Owns copies of the prefixes; borrows out.user. */
struct lp_fmt_lines {
    struct lp_out out;
    char stamp_format[64];     /* --timestamps: strftime format of the prefix; "" = none */
    char title[LP_TITLE_MAX];  /* -T: titled lines start "title:  "; "" = none */
    double wall;               /* wall clock of the record being formatted; 0 = now */
};

/* A line look's start, the same for each: its own options *own = *opts (opts NULL: unit
 * 'a'), the lines' prefixes from them when prefixed (CSV: none, its lines carry their own
 * time), and own->title NULL afterwards: the lines keep a copy of the title, opts->title may
 * not outlive the call. */
void lp_fmt_lines_init(struct lp_fmt_lines *l, struct lp_fmt_opts *own,
                       const struct lp_fmt_opts *opts, const struct lp_out *out, bool prefixed);
/* Raw bytes, no prefix (a block written as it is, a line built by the caller). */
void lp_fmt_lines_write(const struct lp_fmt_lines *l, enum lp_out_channel ch, const char *s,
                        size_t n);
/* One line: the stamp, the title when titled, the text, a newline. An over-long line is cut
 * to LP_FMT_LINE_MAX but always ends with its newline. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 0)))
#endif
void lp_fmt_lines_vprintf(const struct lp_fmt_lines *l, enum lp_out_channel ch, bool titled,
                          const char *fmt, va_list ap);
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void lp_fmt_lines_printf(const struct lp_fmt_lines *l, enum lp_out_channel ch, bool titled,
                         const char *fmt, ...);

/* One line of any length (iperf2's histogram lines run to many kilobytes): the stamp, the
 * title when titled, s, a newline, in one write. */
void lp_fmt_lines_long(const struct lp_fmt_lines *l, enum lp_out_channel ch, bool titled, const char *s);

/* A debug record (-d) as every line look prints it: one untitled line on stderr. */
void lp_fmt_lines_debug(const struct lp_fmt_lines *l, const struct lp_rec_debug *d);

#endif

/* Internal to the text formatter: its state and the row builders shared by text.c
 * (fixed lines, record dispatch) and text_rows.c (interval and summary tables). */
#ifndef LP_FMT_TEXT_INT_H
#define LP_FMT_TEXT_INT_H

#include "fmt/fmt.h"
#include "fmt/lines.h"
#include "fmt/looks.h"

/* One test's text output. Owns copies of the options it needs; borrows lines.out.user. */
struct lp_fmt_text {
    struct lp_fmt base;          /* first: see fmt/looks.h */
    struct lp_fmt_opts opts;     /* opts.title NULL: the lines have the title */
    struct lp_fmt_lines lines;
    enum lp_role role;

    /* From LP_REC_CONNECTING (client): printed with the START lines. */
    bool have_peer;
    struct lp_endpoint peer;

    /* From LP_REC_START. */
    bool have_start;
    bool udp, bidir;

    bool version_done;           /* -V server: version + system lines printed */
    bool header_done;            /* interval column header printed */
    bool sep_last;               /* the last line printed was the "- - -" separator */
    bool completed;              /* a full END arrived and no fatal error: "iperf Done." */
    bool failed;                 /* a fatal error arrived */
};

/* One output line: timestamp and title prefixes, the text, a newline. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void lp_text_line(struct lp_fmt_text *f, const char *fmt, ...);
void lp_text_separator(struct lp_fmt_text *f);

void lp_text_interval(struct lp_fmt_text *f, const struct lp_rec_interval *iv);
void lp_text_summary(struct lp_fmt_text *f, const struct lp_rec_end *end);

#endif

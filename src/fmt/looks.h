/* Internal to src/fmt: the interface every look implements and the looks' constructors,
 * which only the factory (fmt.c) calls. */
#ifndef LP_FMT_LOOKS_H
#define LP_FMT_LOOKS_H

#include "fmt/fmt.h"

/* What a look does with a formatter; document NULL: the look makes none. */
struct lp_fmt_ops {
    void (*record)(struct lp_fmt *f, const struct lp_record *rec);
    char *(*document)(const struct lp_fmt *f);
    void (*free)(struct lp_fmt *f);
};

/* Each look's state begins with this member, so its struct lp_fmt * converts back to the
 * look's own type (C11 6.7.2.1: a pointer to a struct is a pointer to its first member). */
struct lp_fmt {
    const struct lp_fmt_ops *ops;
};

struct lp_fmt *lp_fmt_text_new(const struct lp_fmt_opts *opts, const struct lp_out *out);
struct lp_fmt *lp_fmt_text2_new(const struct lp_fmt_opts *opts, const struct lp_out *out);
struct lp_fmt *lp_fmt_csv_new(const struct lp_fmt_opts *opts, const struct lp_out *out);
struct lp_fmt *lp_fmt_json_new(const struct lp_fmt_opts *opts, const struct lp_out *out,
                               bool stream);

#endif

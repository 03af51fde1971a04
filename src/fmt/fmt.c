/* The formatters' one factory and the calls of their interface: the only place that
 * knows which look is which type. */
#include "fmt/looks.h"

struct lp_fmt *lp_fmt_new(enum lp_fmt_look look, const struct lp_fmt_opts *opts,
                          const struct lp_out *out)
{
    switch (look) {
    case LP_FMT_TEXT: return lp_fmt_text_new(opts, out);
    case LP_FMT_TEXT2: return lp_fmt_text2_new(opts, out);
    case LP_FMT_CSV: return lp_fmt_csv_new(opts, out);
    case LP_FMT_JSON: return lp_fmt_json_new(opts, out, false);
    case LP_FMT_JSON_STREAM: return lp_fmt_json_new(opts, out, true);
    }
    return NULL;
}

void lp_fmt_record(struct lp_fmt *f, const struct lp_record *rec)
{
    if (f && rec)
        f->ops->record(f, rec);
}

char *lp_fmt_document(const struct lp_fmt *f)
{
    return f && f->ops->document ? f->ops->document(f) : NULL;
}

void lp_fmt_free(struct lp_fmt *f)
{
    if (f)
        f->ops->free(f);
}

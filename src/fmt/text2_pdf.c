/* iperf2's histogram lines ("[  1] 0.0000-1.0000 sec F8-PDF: bin(w=100us):cnt(13013)=1:2372,
 * ... (5.00/95.00/99.7%=1/42/91,Outliers=0,obl/obu=0/0)"), from the bins stats/pdf.c makes.
 * The text only: which rows get one is text2_rows.c's choice. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/text2_int.h"
#include "linkperf/hist.h"
#include "fmt/pdf.h"

/* The bin list grows as needed: a bin per non-empty HDR bucket at most. */
struct list {
    char *b;
    size_t n, cap;
    bool failed;
};

static int add_bin(void *ctx, uint32_t bin, uint64_t count)
{
    struct list *l = ctx;
    char one[48];
    int k = snprintf(one, sizeof(one), "%s%" PRIu32 ":%" PRIu64, l->n ? "," : "", bin, count);
    if (k < 0)
        return 1;
    if (l->n + (size_t)k + 1 > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        while (cap < l->n + (size_t)k + 1)
            cap *= 2;
        char *nb = realloc(l->b, cap);
        if (!nb) {
            l->failed = true;
            return 1;
        }
        l->b = nb;
        l->cap = cap;
    }
    memcpy(l->b + l->n, one, (size_t)k + 1);
    l->n += (size_t)k;
    return 0;
}

void lp_text2_pdf_line(struct lp_fmt_text2 *f, const char *id, double a, double b, const struct lp_latency_stat *l,
                       const char *name, bool final, const struct lp_histogram_spec *h)
{
    struct list bins = {0};
    struct lp_pdf_summary s;

    if (!l->hist)
        return;
    lp_pdf_compute(l->hist, l->hist_base, h, add_bin, &bins, &s);
    /* 2.1.8 prints a line for an interval with no sample too; it ends its list by cutting
     * the last character, so with no bin listed the "=" goes: "cnt(0) (5.00/...". */
    char bounds[160];
    if (h->ci_upper > 99.7)
        snprintf(bounds, sizeof(bounds), "(%.2f/99.7/%.2f/%%=%u/%u/%u,Outliers=%" PRIu64 ",obl/obu=%" PRIu64
                 "/%" PRIu64 ")", h->ci_lower, h->ci_upper, s.lower_bin, s.p997_bin, s.upper_bin, s.outliers,
                 s.below, s.above);
    else
        snprintf(bounds, sizeof(bounds), "(%.2f/%.2f/99.7%%=%u/%u/%u,Outliers=%" PRIu64 ",obl/obu=%" PRIu64
                 "/%" PRIu64 ")", h->ci_lower, h->ci_upper, s.lower_bin, s.upper_bin, s.p997_bin, s.outliers,
                 s.below, s.above);
    char head[LP_TEXT2_ID_MAX + 128];
    snprintf(head, sizeof(head), "%s %4.4f-%4.4f sec %s%s-PDF: bin(w=%" PRIu32 "%s):cnt(%" PRIu64 ")%s", id,
             a < 0 ? 0 : a, b < 0 ? 0 : b, name, final ? "(f)" : "", h->bin_width, h->unit_ms ? "ms" : "us",
             s.population, bins.n ? "=" : "");
    size_t len = strlen(head) + (bins.b ? bins.n : 0) + strlen(bounds) + 2;
    char *line = bins.failed ? NULL : malloc(len);
    if (line) {
        snprintf(line, len, "%s%s %s", head, bins.b ? bins.b : "", bounds);
        lp_fmt_lines_long(&f->lines, LP_OUT_STDOUT, true, line);
    } else {
        lp_text2_line(f, "%s... %s", head, bounds); /* out of memory: the counts without bins */
    }
    free(line);
    free(bins.b);
}

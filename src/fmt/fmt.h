/* Formatters: turn engine records into iperf3- or iperf2-compatible text, CSV, -J JSON
 * documents and --json-stream lines, behind one interface (struct lp_fmt, made by
 * lp_fmt_new for a look). They write through struct lp_out and never touch sockets. */
#ifndef LP_FMT_H
#define LP_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linkperf/record.h"

enum lp_out_channel { LP_OUT_STDOUT = 1, LP_OUT_STDERR = 2 };

/* Where formatted output goes. write() gets whole lines or whole documents. */
struct lp_out {
    void (*write)(void *user, enum lp_out_channel ch, const char *s, size_t n);
    void *user;
};

struct lp_fmt_opts {
    char unit;               /* -f: one of k m g t K M G T a A (default 'a'); b B too (iperf2 look) */
    bool verbose;            /* -V */
    bool timestamps;         /* --timestamps: prefix each text line */
    char timestamp_format[64]; /* strftime format; "" = iperf3's default "%c " */
    const char *title;       /* -T: prefix "title:  " on text lines (NULL = none) */
    /* iperf2 look (linkperf --iperf2): */
    bool enhanced;           /* -e: enhanced columns */
    char exclude[8];         /* -x letters: C connection, D data, M multicast, S settings, V server reports */
    bool print_mss;          /* -m */
    bool csv_header;         /* --csv-header: a first line naming the CSV fields */
    bool csv_latency;        /* --csv-latency: each row's latency percentiles appended */
};

/* What a formatter makes of a test's records. */
enum lp_fmt_look {
    LP_FMT_TEXT,        /* iperf3 3.12's text layout */
    LP_FMT_TEXT2,       /* iperf 2.1.8's text layout (as Debian ships it): --iperf2, linkperf2 */
    LP_FMT_CSV,         /* iperf2 -y C: comma-separated lines with 2.1.8's fields and order */
    LP_FMT_JSON,        /* -J: one iperf3 3.12-schema document per test, written at DONE */
    LP_FMT_JSON_STREAM, /* --json-stream: one compact JSON object per line as records arrive */
};

/* One test's formatter, whatever its look: one instance per test. Owns its state and
 * copies of the options it needs; borrows out->user. */
struct lp_fmt;

/* The formatter of look writing to out (opts NULL: defaults); NULL when out of memory. */
struct lp_fmt *lp_fmt_new(enum lp_fmt_look look, const struct lp_fmt_opts *opts,
                          const struct lp_out *out);
/* Consumes one record (its pointers are borrowed for the call), writing what the look
 * prints for it. NULL f or rec: nothing. */
void lp_fmt_record(struct lp_fmt *f, const struct lp_record *rec);
/* The whole document of the records so far, malloc'd: the JSON looks' -J document, as
 * iperf3 -J prints it. NULL when the look makes no document (the text looks) or out of
 * memory. */
char *lp_fmt_document(const struct lp_fmt *f);
/* Ends the formatter; a -J test that never got DONE writes its document first. */
void lp_fmt_free(struct lp_fmt *f);

/* One element of the document's "intervals" array, as compact JSON text (the same values a
 * -J formatter keeps for iv, for a consumer that keeps intervals elsewhere, like the
 * history); malloc'd, NULL when out of memory. */
char *lp_fmt_json_interval_text(const struct lp_rec_interval *iv);

/* Units (iperf3 rules). Parse "10M", "1.5G", "256K": base 1000 for rates, 1024 for sizes.
 * Return 0, or -1 on a malformed number or overflow. */
int lp_units_parse(const char *s, bool base1024, uint64_t *out);
/* Format a byte count like iperf3's Transfer column ("2.53 GBytes", " 895 KBytes"). */
void lp_units_bytes(char *buf, size_t len, double bytes);
/* Format a rate like iperf3's Bitrate column with -f unit ("21.7 Gbits/sec"). */
void lp_units_rate(char *buf, size_t len, double bits_per_second, char unit);

#endif

/* Formatters: turn engine records into iperf3-compatible text, -J JSON documents and
 * --json-stream lines. They write through struct lp_out and never touch sockets. */
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
    char unit;               /* -f: one of k m g t K M G T a A (default 'a') */
    bool verbose;            /* -V */
    bool timestamps;         /* --timestamps: prefix each text line */
    char timestamp_format[64]; /* strftime format; "" = iperf3's default "%c " */
    const char *title;       /* -T: prefix "title:  " on text lines (NULL = none) */
    /* iperf2 look (linkperf --iperf2): */
    bool enhanced;           /* -e: enhanced columns */
    char exclude[8];         /* -x letters: C connection, D data, M multicast, S settings, V server reports */
    bool print_mss;          /* -m */
    bool csv_header;         /* --csv-header: a first line naming the CSV fields */
};

/* Text output in iperf3's layout. One instance per test. */
struct lp_fmt_text;
struct lp_fmt_text *lp_fmt_text_new(const struct lp_fmt_opts *opts, const struct lp_out *out);
void lp_fmt_text_record(struct lp_fmt_text *f, const struct lp_record *rec);
void lp_fmt_text_free(struct lp_fmt_text *f);

/* Text output in iperf2's layout (iperf 2.1.8 as Debian ships it). One instance per test. */
struct lp_fmt_text2;
struct lp_fmt_text2 *lp_fmt_text2_new(const struct lp_fmt_opts *opts, const struct lp_out *out);
void lp_fmt_text2_record(struct lp_fmt_text2 *f, const struct lp_record *rec);
void lp_fmt_text2_free(struct lp_fmt_text2 *f);

/* iperf2 -y C: comma-separated lines with iperf 2.1.8's fields and order. */
struct lp_fmt_csv;
struct lp_fmt_csv *lp_fmt_csv_new(const struct lp_fmt_opts *opts, const struct lp_out *out);
void lp_fmt_csv_record(struct lp_fmt_csv *f, const struct lp_record *rec);
void lp_fmt_csv_free(struct lp_fmt_csv *f);

/* -J: one iperf3 3.12-schema document per test, written when the test is DONE.
 * --json-stream (stream=true): one compact JSON object per line as records arrive. */
struct lp_fmt_json;
struct lp_fmt_json *lp_fmt_json_new(const struct lp_fmt_opts *opts, const struct lp_out *out,
                                    bool stream);
void lp_fmt_json_record(struct lp_fmt_json *f, const struct lp_record *rec);
/* The document built so far (start/intervals/end), formatted like iperf3 -J; malloc'd. */
char *lp_fmt_json_document(const struct lp_fmt_json *f);
/* One element of the document's "intervals" array, as compact JSON text (the same values a
 * -J formatter keeps for iv, for a consumer that keeps intervals elsewhere, like the
 * history); malloc'd, NULL when out of memory. */
char *lp_fmt_json_interval_text(const struct lp_rec_interval *iv);
void lp_fmt_json_free(struct lp_fmt_json *f);

/* Units (iperf3 rules). Parse "10M", "1.5G", "256K": base 1000 for rates, 1024 for sizes.
 * Return 0, or -1 on a malformed number or overflow. */
int lp_units_parse(const char *s, bool base1024, uint64_t *out);
/* Format a byte count like iperf3's Transfer column ("2.53 GBytes", " 895 KBytes"). */
void lp_units_bytes(char *buf, size_t len, double bytes);
/* Format a rate like iperf3's Bitrate column with -f unit ("21.7 Gbits/sec"). */
void lp_units_rate(char *buf, size_t len, double bits_per_second, char unit);

#endif

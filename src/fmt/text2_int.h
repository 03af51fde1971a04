/* Internal to the iperf2-look text formatter: its state, and what text2.c (banners,
 * connection lines, record dispatch) and text2_rows.c (report rows) share. */
#ifndef LP_FMT_TEXT2_INT_H
#define LP_FMT_TEXT2_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fmt/fmt.h"
#include "fmt/lines.h"
#include "fmt/looks.h"
#include "linkperf/spec.h"

#define LP_TEXT2_DASHES "------------------------------------------------------------"

/* Row layouts. iperf2 prints a layout's column header the first time a row of that layout
 * appears after a connection line or a "Server Report:" line. */
enum {
    LP_T2_PLAIN = 1u << 0,      /* TCP, UDP sender: up to Bandwidth */
    LP_T2_UDP_RX = 1u << 1,     /* UDP receiver: + jitter, lost/total */
    LP_T2_ENH_TCP_TX = 1u << 2, /* -e TCP sender: + Write/Err Rtry Cwnd/RTT(var) NetPwr */
    LP_T2_ENH_UDP_TX = 1u << 3, /* -e UDP sender: + Write/Err PPS */
    LP_T2_UDP_RX_LAT = 1u << 4, /* UDP receiver with -e or trip-times: + latency, PPS, NetPwr */
    LP_T2_TCP_RX_LAT = 1u << 5, /* TCP receiver of trip-times bursts: + burst latency, NetPwr */
    LP_T2_BB = 1u << 6,         /* --bounceback client: + BB cnt=avg/min/max/stdev, Rtry, Cwnd/RTT, RPS */
};

/* What the formatter keeps of one stream (from START, and -e values from intervals). */
struct lp_text2_stream {
    struct lp_stream_id sid;
    struct lp_endpoint local, remote;
    uint32_t mss;
    bool final_done;             /* its final row is out (END may repeat it) */
    bool report_done;            /* its Server Report is out (iperf2 -r: at the leg's end) */
    bool has_last;               /* -e: TCP numbers of its last interval */
    uint64_t cwnd;
    uint32_t rtt_us, rttvar_us;
};

/* One test's output in iperf2's layout. Owns its stream table and copies of the options
 * and spec it needs; borrows lines.out.user. */
struct lp_fmt_text2 {
    struct lp_fmt base;          /* first: see fmt/looks.h */
    struct lp_fmt_opts opts;     /* opts.title NULL: the lines have the title */
    struct lp_fmt_lines lines;
    enum lp_role role;

    bool listening_done;         /* a server prints its banner once */
    bool have_connecting;        /* client: kept for the banner */
    struct lp_rec_connecting connecting;
    bool client_banner_done;

    bool have_spec;
    struct lp_spec spec;         /* from START */
    time_t start_time;

    struct lp_text2_stream *streams;
    unsigned nstreams, cap;
    unsigned headers;            /* LP_T2_* headers printed since the last reset */
};

/* One stdout line: --timestamps and title prefixes, the text, a newline. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void lp_text2_line(struct lp_fmt_text2 *f, const char *fmt, ...);

bool lp_text2_excluded(const struct lp_fmt_text2 *f, char what);
/* The stream START told us about (same id and direction), or NULL. */
struct lp_text2_stream *lp_text2_stream(struct lp_fmt_text2 *f, const struct lp_stream_id *sid);
/* The number shown in "[  1]": iperf2's transfer id, else the socket. */
int lp_text2_id(const struct lp_stream_id *sid);
/* "[  1]", or "[ *1]" when starred; with an iperf2 permit key, 2.1.8's "[key(1)]" and
 * "[key(*1)]". b: LP_TEXT2_ID_MAX bytes. */
#define LP_TEXT2_ID_MAX (LP_PERMIT_KEY_MAX + 32)
void lp_text2_idstr(const struct lp_fmt_text2 *f, char *b, size_t n, int id, bool star);
/* iperf2's "[ *1]": a client receiving on its own connection, a server sending on one it
 * opened (-d/-r) or on a --full-duplex connection. */
bool lp_text2_star(const struct lp_fmt_text2 *f, const struct lp_stream_id *sid);
bool lp_text2_udp(const struct lp_fmt_text2 *f);

void lp_text2_interval(struct lp_fmt_text2 *f, const struct lp_rec_interval *iv);
void lp_text2_end(struct lp_fmt_text2 *f, const struct lp_rec_end *end);
/* -r: the first leg's own rows now, as 2.1.8 prints them when the leg ends (END skips them). */
void lp_text2_leg_end(struct lp_fmt_text2 *f, const struct lp_rec_end *end);

/* iperf2's numbers. Transfer: bytes in the upper-case form of the -f letter. */
void lp_text2_bytes(char *buf, size_t len, double bytes, char unit);
/* Socket buffer sizes: adaptive, singular labels ("128 KByte", "4.00 MByte"). */
void lp_text2_size(char *buf, size_t len, double bytes);
/* The same in Byte whatever the size (2.1.8's 'B': "131072 Byte", " 100 Byte", "80.0 Byte"). */
void lp_text2_size_in_bytes(char *buf, size_t len, double bytes);
/* Bandwidth: -f letter (lower case bits/1000, upper case bytes/1024, a/A adaptive). */
void lp_text2_rate(char *buf, size_t len, double bits_per_second, char unit);
void lp_text2_rate1(char *buf, size_t len, double bits_per_second); /* --isochronous banner */

/* iperf2's "<id> a-b sec NAME[(f)]-PDF: bin(w=..):cnt(n)=bin:count,... (bounds)" line of a
 * latency distribution (l->hist; none: no line), in the bins of h (text2_pdf.c). */
void lp_text2_pdf_line(struct lp_fmt_text2 *f, const char *id, double a, double b, const struct lp_latency_stat *l,
                       const char *name, bool final, const struct lp_histogram_spec *h);

#endif

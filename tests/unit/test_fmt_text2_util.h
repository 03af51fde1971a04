/* Helpers for the iperf2-look formatter tests (text2 and CSV): blocks of stock iperf 2.1.8
 * output from tests/golden/evidence/iperf2, an output sink, and builders for the records the
 * engine emits. Include after <cmocka.h>. */
#ifndef LP_TEST_FMT_TEXT2_UTIL_H
#define LP_TEST_FMT_TEXT2_UTIL_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evidence.h"
#include "fmt/fmt.h"
#include "fmt_sink.h"
#include "stats/totals.h"
#include "stats/udp_rx.h"

/* ---- capture blocks ---- */

#define CAP "iperf2/cli_outputs.txt"      /* stock 2.1.8 runs, one section a run */
#define CAP2 "iperf2/cli_outputs_fmt.txt" /* the same with -f letters, -e, -m, ... */
#define DASHES "------------------------------------------------------------"

#define BLK_MAX 200

/* The lines of one "### server" / "### client" part of a "=================== title" section. */
struct block {
    char *line[BLK_MAX];
    int n;
};

static inline bool starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static inline void block_load(struct block *b, const char *file, const char *title, const char *side)
{
    char *text = lp_evidence_slurp(file), *save = NULL;
    char want[256];
    int state = 0; /* 0 looking for the title, 1 for the side, 2 inside */

    assert_non_null(text);
    memset(b, 0, sizeof(*b));
    snprintf(want, sizeof(want), "=================== %s", title);
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (state == 0) {
            if (!strcmp(l, want))
                state = 1;
        } else if (state == 1) {
            if (starts(l, "==="))
                break;
            if (starts(l, side))
                state = 2;
        } else {
            if (starts(l, "###") || starts(l, "==") || starts(l, "(The server process"))
                break;
            assert_true(b->n < BLK_MAX);
            b->line[b->n++] = strdup(l);
        }
    }
    free(text);
    if (state != 2)
        fail_msg("no block '%s' / '%s' in %s", title, side, file);
}

static inline void block_free(struct block *b)
{
    for (int i = 0; i < b->n; i++)
        free(b->line[i]);
    b->n = 0;
}

static inline int block_find(const struct block *b, const char *line)
{
    for (int i = 0; i < b->n; i++)
        if (!strcmp(b->line[i], line))
            return i;
    fail_msg("line not in the capture: '%s'", line);
    return -1;
}

/* Documented deviations are applied to the capture as edits, each checked to apply. */
static inline void block_replace(struct block *b, const char *old, const char *repl)
{
    int i = block_find(b, old);
    free(b->line[i]);
    b->line[i] = strdup(repl);
}

static inline void block_delete(struct block *b, const char *old)
{
    int i = block_find(b, old);
    free(b->line[i]);
    memmove(&b->line[i], &b->line[i + 1], (size_t)(b->n - i - 1) * sizeof(char *));
    b->n--;
}

/* The nth (1-based) copy of a line that occurs more than once. */
static inline void block_delete_nth(struct block *b, const char *old, int nth)
{
    for (int i = 0; i < b->n; i++) {
        if (strcmp(b->line[i], old) || --nth > 0)
            continue;
        free(b->line[i]);
        memmove(&b->line[i], &b->line[i + 1], (size_t)(b->n - i - 1) * sizeof(char *));
        b->n--;
        return;
    }
    fail_msg("line not in the capture that often: '%s'", old);
}

static inline void block_insert_before(struct block *b, const char *before, const char *line)
{
    int i = block_find(b, before);
    assert_true(b->n < BLK_MAX);
    memmove(&b->line[i + 1], &b->line[i], (size_t)(b->n - i) * sizeof(char *));
    b->line[i] = strdup(line);
    b->n++;
}

/* after == NULL: append. */
static inline void block_insert_after(struct block *b, const char *after, const char *line)
{
    int i = after ? block_find(b, after) + 1 : b->n;
    assert_true(b->n < BLK_MAX);
    memmove(&b->line[i + 1], &b->line[i], (size_t)(b->n - i) * sizeof(char *));
    b->line[i] = strdup(line);
    b->n++;
}

/* The 2.1.8 line that starts with prefix (unique enough for the tests). */
static inline const char *block_line(const struct block *b, const char *prefix)
{
    for (int i = 0; i < b->n; i++)
        if (starts(b->line[i], prefix))
            return b->line[i];
    fail_msg("no line starting with '%s'", prefix);
    return NULL;
}

/* text must be the block's lines, each with its newline, nothing more. */
static inline void expect_block(const char *text, const struct block *b)
{
    const char *p = text;
    int i = 0;

    for (; *p && i < b->n; i++) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (strlen(b->line[i]) != n || strncmp(p, b->line[i], n) != 0) {
            print_error("line %d differs\n  want: '%s'\n  got:  '%.*s'\n--- got all:\n%s", i + 1,
                        b->line[i], (int)n, p, text);
            fail();
        }
        p = nl ? nl + 1 : p + n;
    }
    if (*p || i != b->n) {
        print_error("line count differs (want %d)\n--- got:\n%s", b->n, text);
        fail();
    }
}

/* ---- units as the captures print them ---- */

#define KB(x) ((x) * 1024.0)
#define MB(x) ((x) * 1048576.0)
#define GB(x) ((x) * 1073741824.0)
#define Kb(x) ((x) * 1e3)
#define Mb(x) ((x) * 1e6)
#define Gb(x) ((x) * 1e9)

/* Local wall time of a capture's clock (the tests run with TZ=UTC). */
static inline double utc(int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi,
                    .tm_sec = s};
    return (double)timegm(&tm);
}

/* ---- records, built the way src/core/run.c and src/proto/i2_*.c emit them ---- */

enum { RX = 0, TX = 1, INIT = 2, REV = 4 };

#define SC_MAX 16

struct sc {
    struct sink k;
    struct lp_out out;
    struct lp_fmt *f;
    enum lp_role role;
    struct lp_spec spec;
    double wall;
    time_t start_time;
    struct lp_stream_conn conn[SC_MAX];
    unsigned nconn;
    struct lp_sample smp[SC_MAX];
    unsigned nsmp;
    struct lp_stream_end end[SC_MAX];
    unsigned nend;
    bool sum_set;                /* the next interval's forward sum, as a capture shows it */
    double sum_bytes, sum_bps;
};

static inline struct lp_stream_id sid_of(int id, unsigned flags)
{
    struct lp_stream_id s = {.id = id,
                             .socket = id + 2,
                             .sender = (flags & TX) != 0,
                             .initiator = (flags & INIT) != 0,
                             .reverse = (flags & REV) != 0};
    return s;
}

static inline void sc_emit(struct sc *s, struct lp_record *r)
{
    r->role = s->role;
    r->test_id = 1;
    r->wall_time = s->wall;
    lp_fmt_record(s->f, r);
}

/* An iperf2-dialect test as the engine describes it; adjust s->spec after. */
static inline void sc_setup(struct sc *s, enum lp_role role, enum lp_proto proto)
{
    memset(s, 0, sizeof(*s));
    s->out.write = sink_write;
    s->out.user = &s->k;
    s->role = role;
    lp_spec_init(&s->spec, role);
    s->spec.dialect = LP_DIALECT_IPERF2;
    s->spec.proto = proto;
    s->spec.port = 25001;
    snprintf(s->spec.host, sizeof(s->spec.host), "127.0.0.1");
    s->spec.blksize = proto == LP_PROTO_UDP ? 1470 : 131072;
    s->spec.rate_bps = proto == LP_PROTO_UDP ? 1048576 : 0;
    s->spec.duration_s = 1;
}

/* A test of look (LP_FMT_TEXT2 or LP_FMT_CSV) as sc_setup makes it; opts NULL: unit 'a'. */
static inline struct sc *sc_new(enum lp_fmt_look look, enum lp_role role, enum lp_proto proto,
                                const struct lp_fmt_opts *opts)
{
    struct sc *s = malloc(sizeof(*s));
    struct lp_fmt_opts o = {.unit = 'a'};

    assert_non_null(s);
    sc_setup(s, role, proto);
    if (opts)
        o = *opts;
    s->f = lp_fmt_new(look, &o, &s->out);
    assert_non_null(s->f);
    return s;
}

static inline void sc_free(struct sc *s)
{
    lp_fmt_free(s->f);
    free(s);
}

static inline void sc_done(struct sc *s);

/* DONE, then the output must be the block (after its edits) and nothing went to stderr. */
static inline void sc_finish(struct sc *s, struct block *b)
{
    sc_done(s);
    expect_block(s->k.out, b);
    assert_int_equal(s->k.nerr, 0);
    sc_free(s);
    block_free(b);
}

static inline void sc_listen(struct sc *s, unsigned port, unsigned port2, int tcp_window, int udp_buffer)
{
    struct lp_record r = {.kind = LP_REC_LISTENING};
    r.u.listening.port = (uint16_t)port;
    r.u.listening.port2 = (uint16_t)port2;
    r.u.listening.test_number = 1;
    r.u.listening.tcp_window = tcp_window;
    r.u.listening.udp_buffer = udp_buffer;
    sc_emit(s, &r);
}

/* Client: before the first connection, with the socket buffer it got. */
static inline void sc_connecting(struct sc *s, unsigned port, int window, bool requested)
{
    struct lp_record r = {.kind = LP_REC_CONNECTING};
    snprintf(r.u.connecting.peer.host, sizeof(r.u.connecting.peer.host), "%s", s->spec.host);
    r.u.connecting.peer.port = (uint16_t)port;
    r.u.connecting.dialect = s->spec.dialect;
    r.u.connecting.proto = s->spec.proto;
    r.u.connecting.window = window;
    r.u.connecting.window_requested = requested;
    sc_emit(s, &r);
}

static inline struct lp_stream_conn *sc_conn(struct sc *s, int id, unsigned flags, unsigned lport,
                                      unsigned rport)
{
    struct lp_stream_conn *c;

    assert_true(s->nconn < SC_MAX);
    c = &s->conn[s->nconn++];
    memset(c, 0, sizeof(*c));
    c->sid = sid_of(id, flags);
    snprintf(c->local.host, sizeof(c->local.host), "127.0.0.1");
    snprintf(c->remote.host, sizeof(c->remote.host), "127.0.0.1");
    c->local.port = (uint16_t)lport;
    c->remote.port = (uint16_t)rport;
    return c;
}

static inline void sc_tcpinfo(struct lp_stream_conn *c, uint32_t icwnd, uint32_t mss, uint32_t irtt)
{
    c->icwnd_pkts = icwnd;
    c->mss = mss;
    c->irtt_us = irtt;
}

/* START listing the first n connections (the engine repeats START when a stream joins). */
static inline void sc_start(struct sc *s, unsigned n)
{
    struct lp_record r = {.kind = LP_REC_START};
    r.u.start.spec = &s->spec;
    r.u.start.version = "linkperf test";
    r.u.start.timestamp = s->start_time;
    r.u.start.nstreams = n;
    r.u.start.streams = s->conn;
    sc_emit(s, &r);
}

static inline struct lp_sample *sc_sample(struct sc *s, int id, unsigned flags, double st, double en,
                                   double bytes, double bps)
{
    struct lp_sample *m;

    assert_true(s->nsmp < SC_MAX);
    m = &s->smp[s->nsmp++];
    memset(m, 0, sizeof(*m));
    m->sid = sid_of(id, flags);
    m->start_s = st;
    m->end_s = en;
    m->seconds = en - st;
    m->bytes = (uint64_t)llround(bytes);
    m->bits_per_second = bps;
    m->is_udp = s->spec.proto == LP_PROTO_UDP;
    return m;
}

static inline void sc_udp_rx(struct lp_sample *m, double jitter_ms, int64_t lost, uint64_t total)
{
    m->jitter_ms = jitter_ms;
    m->lost_packets = lost;
    m->packets = total;
    m->lost_percent = total ? 100.0 * (double)lost / (double)total : 0;
}

static inline void sum_into(struct lp_sample *sum, const struct lp_sample *m, bool *first)
{
    if (*first) {
        sum->start_s = m->start_s;
        sum->end_s = m->end_s;
        sum->seconds = m->seconds;
        sum->sid.sender = m->sid.sender;
        sum->is_udp = m->is_udp;
        *first = false;
    }
    sum->bytes += m->bytes;
    sum->packets += m->packets;
    sum->lost_packets += m->lost_packets;
    sum->out_of_order += m->out_of_order;
    sum->retransmits += m->retransmits;
    sum->has_tcp_info |= m->has_tcp_info;
}

/* The engine's sum of both directions, from its direction sums (as a capture shows them: a
 * test may set the forward sum's numbers). The rate is the directions' rates added. */
static inline void sc_sum_both(struct lp_rec_interval *iv)
{
    struct lp_sample *b = &iv->sum_both;
    const struct lp_sample *r = &iv->sum_reverse;

    *b = iv->sum;
    if (!iv->has_sum_reverse)
        return;
    b->bytes += r->bytes;
    b->bits_per_second += r->bits_per_second;
    b->packets += r->packets;
    b->lost_packets += r->lost_packets;
    b->out_of_order += r->out_of_order;
    b->retransmits += r->retransmits;
    b->has_tcp_info |= r->has_tcp_info;
    if (r->end_s > b->end_s)
        b->end_s = r->end_s;
    b->lost_percent = lp_udp_lost_percent(b->lost_packets, b->packets);
}

/* INTERVAL with the engine's sums (reverse streams apart only in bidir), then a new one. */
static inline void sc_interval(struct sc *s)
{
    struct lp_record r = {.kind = LP_REC_INTERVAL};
    struct lp_rec_interval *iv = &r.u.interval;
    bool ff = true, fr = true;

    for (unsigned i = 0; i < s->nsmp; i++) {
        bool rev = s->smp[i].sid.reverse && s->spec.dir == LP_DIR_BIDIR;
        sum_into(rev ? &iv->sum_reverse : &iv->sum, &s->smp[i], rev ? &fr : &ff);
    }
    iv->has_sum_reverse = !fr;
    if (iv->sum.seconds > 0)
        iv->sum.bits_per_second = (double)iv->sum.bytes * 8.0 / iv->sum.seconds;
    if (iv->sum_reverse.seconds > 0)
        iv->sum_reverse.bits_per_second = (double)iv->sum_reverse.bytes * 8.0 / iv->sum_reverse.seconds;
    iv->sum.lost_percent = lp_udp_lost_percent(iv->sum.lost_packets, iv->sum.packets);
    iv->sum_reverse.lost_percent = lp_udp_lost_percent(iv->sum_reverse.lost_packets, iv->sum_reverse.packets);
    if (s->sum_set) {
        iv->sum.bytes = (uint64_t)llround(s->sum_bytes);
        iv->sum.bits_per_second = s->sum_bps;
        s->sum_set = false;
    }
    sc_sum_both(iv);
    iv->nstreams = s->nsmp;
    iv->streams = s->smp;
    sc_emit(s, &r);
    s->nsmp = 0;
}

static inline struct lp_stream_end *sc_end_of(struct sc *s, int id, unsigned flags)
{
    struct lp_stream_id sid = sid_of(id, flags);

    for (unsigned i = 0; i < s->nend; i++)
        if (s->end[i].sid.id == id && s->end[i].sid.sender == sid.sender)
            return &s->end[i];
    assert_true(s->nend < SC_MAX);
    memset(&s->end[s->nend], 0, sizeof(s->end[0]));
    s->end[s->nend].sid = sid;
    return &s->end[s->nend++];
}

static inline void total_set(struct sc *s, struct lp_total *t, double st, double en, double bytes, double bps)
{
    memset(t, 0, sizeof(*t));
    t->present = true;
    t->start_s = st;
    t->end_s = en;
    t->seconds = en - st;
    t->bytes = (uint64_t)llround(bytes);
    t->bits_per_second = bps;
    t->is_udp = s->spec.proto == LP_PROTO_UDP;
}

/* This end's own row of a stream (sender row when it sends, receiver row when it receives). */
static inline struct lp_total *sc_total(struct sc *s, int id, unsigned flags, double st, double en,
                                 double bytes, double bps)
{
    struct lp_stream_end *e = sc_end_of(s, id, flags);
    struct lp_total *t = e->sid.sender ? &e->sender : &e->receiver;

    total_set(s, t, st, en, bytes, bps);
    return t;
}

/* The peer's UDP report on a stream this end sends on (the receiver row). */
static inline struct lp_total *sc_report(struct sc *s, int id, unsigned flags, double st, double en,
                                  double bytes, double bps, double jitter_ms, int64_t lost,
                                  uint64_t total)
{
    struct lp_stream_end *e = sc_end_of(s, id, flags);

    total_set(s, &e->receiver, st, en, bytes, bps);
    e->receiver.jitter_ms = jitter_ms;
    e->receiver.lost_packets = lost;
    e->receiver.packets = total;
    e->receiver.lost_percent = total ? 100.0 * (double)lost / (double)total : 0;
    return &e->receiver;
}

static inline void total_udp_rx(struct lp_total *t, double jitter_ms, int64_t lost, uint64_t total)
{
    t->jitter_ms = jitter_ms;
    t->lost_packets = lost;
    t->packets = total;
    t->lost_percent = total ? 100.0 * (double)lost / (double)total : 0;
}

static inline void sc_end(struct sc *s)
{
    struct lp_record r = {.kind = LP_REC_END};

    r.u.end.nstreams = s->nend;
    r.u.end.streams = s->end;
    r.u.end.bidir = s->spec.dir == LP_DIR_BIDIR;
    lp_totals_own(s->end, s->nend, &r.u.end.own); /* as src/core/run.c does */
    sc_emit(s, &r);
    s->nend = 0;
}

static inline void sc_error(struct sc *s, const char *msg, bool fatal)
{
    struct lp_record r = {.kind = LP_REC_ERROR};

    r.u.error.message = msg;
    r.u.error.fatal = fatal;
    sc_emit(s, &r);
}

static inline void sc_done(struct sc *s)
{
    struct lp_record r = {.kind = LP_REC_DONE};

    sc_emit(s, &r);
}

/* ---- records of the captures that more than one test plays ---- */

/* The "tcp_i" client of CAP (iperf -c 127.0.0.1 -p 25001 -t 1.5 -i 0.5), with the numbers it
 * shows: the golden text2 test compares with it, the JPerf check parses it. */
static inline void sc_tcp_i_client(struct sc *s)
{
    s->spec.report.interval_s = 0.5;
    sc_connecting(s, 25001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 43716, 25001), 319, 32741, 30);
    sc_start(s, 1);
    sc_sample(s, 1, TX | INIT, 0.0, 0.5, GB(1.51), Gb(26.0));
    sc_interval(s);
    sc_sample(s, 1, TX | INIT, 0.5, 1.0, GB(1.54), Gb(26.4));
    sc_interval(s);
    sc_sample(s, 1, TX | INIT, 1.0, 1.5, GB(1.54), Gb(26.4));
    sc_interval(s);
    sc_total(s, 1, TX | INIT, 0, 1.5013, GB(4.59), Gb(26.2));
    sc_end(s);
}

/* The "udp_i" server of CAP (iperf -s -p 25001 -u -i 0.5), as the tcp_i client above. */
static inline void sc_udp_i_server(struct sc *s)
{
    sc_listen(s, 25001, 0, 0, 212992);
    sc_conn(s, 1, RX, 25001, 40968);
    sc_start(s, 1);
    sc_udp_rx(sc_sample(s, 1, RX, 0.0, 0.5, KB(123), Mb(2.02)), 0.003, 0, 86);
    sc_interval(s);
    sc_udp_rx(sc_sample(s, 1, RX, 0.5, 1.0, KB(123), Mb(2.02)), 0.003, 0, 86);
    sc_interval(s);
    sc_udp_rx(sc_sample(s, 1, RX, 1.0, 1.5, KB(122), Mb(2.00)), 0.004, 0, 85);
    sc_interval(s);
    total_udp_rx(sc_total(s, 1, RX, 0, 1.5114, KB(372), Mb(2.02)), 0.003, 0, 259);
    sc_end(s);
}

/* ---- JPerf 2.0.2's parser (IperfThread.parseLine), for the parsability checks ---- */

/* Lines it looks at: "[", spaces/digits, "]", optional spaces, a digit. */
static inline bool jperf_matches(const char *l)
{
    const char *p = l;

    if (*p++ != '[')
        return false;
    while (*p == ' ' || (*p >= '0' && *p <= '9'))
        p++;
    if (p == l + 1 || *p++ != ']')
        return false;
    while (*p == ' ' || *p == '\t')
        p++;
    return *p >= '0' && *p <= '9';
}

static inline bool jperf_sep(char c)
{
    return c == '-' || c == '[' || c == ']' || c == ' ' || c == '\t';
}

/* Java's String.split("[-\\[\\]\\s]+"): a leading empty token is kept, trailing ones dropped. */
static inline int jperf_tokens(const char *l, char tok[][32], int max)
{
    int n = 0;
    const char *p = l;

    for (;;) {
        const char *q = p;
        while (*q && !jperf_sep(*q))
            q++;
        if (n < max)
            snprintf(tok[n], 32, "%.*s", (int)(q - p), p);
        n++;
        if (!*q)
            break;
        while (*q && jperf_sep(*q))
            q++;
        p = q;
        if (!*p)
            break;
    }
    return n;
}

#endif

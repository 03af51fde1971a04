/* Text formatter against real iperf3 3.12 output. Each captured block (the evidence files
 * plus a few more captures kept below) is read back into the records the engine would
 * emit for it; formatting those records must reproduce the block byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evidence.h"
#include "fmt/fmt.h"
#include "fmt_sink.h"

/* ---- capture blocks ---- */

#define MAXL 256
#define MAXS 8
#define MAXIV 12

struct block {
    char name[160];
    char *line[MAXL];
    int n;
};

/* Everything the engine would have said for one block. */
struct scen {
    enum lp_role role;
    struct lp_fmt_opts opts;
    char title[64];
    struct lp_spec spec;
    bool listening;
    unsigned lport, testno;
    bool connecting;
    double connect_wall;
    struct lp_endpoint peer;
    struct lp_stream_conn conn[MAXS];
    unsigned nconn;
    char version[64], sysinfo[160], cookie[64];
    int tcp_mss_default;
    time_t start_time;
    struct lp_sample iv[MAXIV][MAXS];
    unsigned ivn[MAXIV];
    struct lp_sample ivsum[MAXIV][2];
    bool ivhas[MAXIV][2];
    unsigned niv;
    struct lp_stream_end end[MAXS];
    unsigned nend;
    struct lp_direction_end dir[2];
    struct lp_cpu_util cpu;
    char snd_cc[16], rcv_cc[16];
    bool has_end, done;
    uint64_t pending_ooo;
    char server_text[8192];
    bool has_server_text;
    bool in_summary, in_server_output;
};

static double byte_unit(const char *u)
{
    static const char *const names[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
    double f = 1;

    for (int i = 0; i < 5; i++, f *= 1024)
        if (!strcmp(u, names[i]))
            return f;
    fail_msg("unknown byte unit %s", u);
    return 0;
}

static double rate_unit(const char *u)
{
    static const char *const bits[] = {"bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec",
                                       "Tbits/sec"};
    double f = 1;

    for (int i = 0; i < 5; i++, f *= 1000)
        if (!strcmp(u, bits[i]))
            return f;
    /* "KBytes/sec" etc.: bytes in powers of 1024. */
    char b[32];
    snprintf(b, sizeof(b), "%s", u);
    char *slash = strchr(b, '/');
    assert_non_null(slash);
    *slash = '\0';
    return 8 * byte_unit(b);
}

/* One table row, split into its columns. */
struct row {
    bool sum;
    int sock;
    bool tagged, sender;
    double st, en, bytes, bps;
    int ntok;            /* numbers between Bitrate and the tag (TCP) */
    double tok[3];
    char cwnd_unit[16];
    bool udp_loss;
    double jitter, pct;
    int64_t lost;
    uint64_t total;
    char tag[16];
};

static void parse_row(const char *l, struct row *r)
{
    char xu[16], ru[24], rest[256];
    const char *p;
    int n = 0;

    memset(r, 0, sizeof(*r));
    r->sum = !strncmp(l, "[SUM]", 5);
    r->sock = r->sum ? -1 : atoi(l + 1);
    p = l + 5;
    if (*p == '[') {
        r->tagged = true;
        r->sender = p[1] == 'T';
        p += 6;
    }
    assert_int_equal(sscanf(p, " %lf-%lf sec %lf %15s %lf %23s%n", &r->st, &r->en, &r->bytes,
                            xu, &r->bps, ru, &n), 6);
    r->bytes = (double)(uint64_t)(r->bytes * byte_unit(xu) + 0.5);
    r->bps *= rate_unit(ru);
    snprintf(rest, sizeof(rest), "%s", p + n);
    /* The last word is the tag when it is one. */
    size_t k = strlen(rest);
    while (k && rest[k - 1] == ' ')
        k--;
    rest[k] = '\0';
    char *sp = strrchr(rest, ' ');
    const char *last = sp ? sp + 1 : rest;
    if (!strcmp(last, "sender") || !strcmp(last, "receiver") || !strcmp(last, "(omitted)")) {
        snprintf(r->tag, sizeof(r->tag), "%.*s", (int)sizeof(r->tag) - 1, last);
        if (sp)
            *sp = '\0';
        else
            rest[0] = '\0';
    }
    if (strstr(rest, " ms ")) {
        r->udp_loss = true;
        assert_int_equal(sscanf(rest, " %lf ms %" SCNd64 "/%" SCNu64 " (%lf%%)", &r->jitter,
                                &r->lost, &r->total, &r->pct), 4);
        return;
    }
    char *tok = strtok(rest, " ");
    for (; tok && r->ntok < 3; tok = strtok(NULL, " ")) {
        if (r->ntok == 2) {
            r->cwnd_unit[0] = '\0';
            snprintf(r->cwnd_unit, sizeof(r->cwnd_unit), "%s", tok);
            r->ntok = 3;
            break;
        }
        r->tok[r->ntok++] = atof(tok);
    }
}

/* A stream's direction flags from its row (bidir role tag) or from the test's direction. */
static void row_sid(const struct scen *s, const struct row *r, struct lp_stream_id *sid)
{
    bool client = s->role == LP_ROLE_CLIENT;

    if (r->tagged) {
        sid->sender = r->sender;
        sid->reverse = client ? !r->sender : r->sender;
    } else {
        sid->reverse = s->spec.dir == LP_DIR_REVERSE;
        sid->sender = client ? !sid->reverse : sid->reverse;
    }
    sid->socket = r->sock < 0 ? 0 : r->sock;
    sid->id = sid->socket;
}

static void fill_sample(const struct scen *s, const struct row *r, struct lp_sample *m)
{
    memset(m, 0, sizeof(*m));
    row_sid(s, r, &m->sid);
    m->start_s = r->st;
    m->end_s = r->en;
    m->seconds = r->en - r->st;
    m->bytes = (uint64_t)r->bytes;
    m->bits_per_second = r->bps;
    m->omitted = !strcmp(r->tag, "(omitted)");
    m->is_udp = s->spec.proto == LP_PROTO_UDP;
    if (r->udp_loss) {
        m->jitter_ms = r->jitter;
        m->lost_packets = r->lost;
        m->packets = r->total;
        m->lost_percent = r->pct;
    } else if (m->is_udp) {
        m->packets = (uint64_t)r->tok[0];
    } else if (r->ntok >= 1) {
        m->has_tcp_info = true;
        m->retransmits = (int64_t)r->tok[0];
        if (r->ntok == 3)
            m->snd_cwnd = (uint64_t)(r->tok[1] * byte_unit(r->cwnd_unit) + 0.5);
    }
}

static void fill_total(const struct scen *s, const struct row *r, struct lp_total *t)
{
    memset(t, 0, sizeof(*t));
    t->present = true;
    t->start_s = r->st;
    t->end_s = t->seconds = r->en;
    t->bytes = (uint64_t)r->bytes;
    t->bits_per_second = r->bps;
    t->is_udp = s->spec.proto == LP_PROTO_UDP;
    if (r->udp_loss) {
        t->jitter_ms = r->jitter;
        t->lost_packets = r->lost;
        t->packets = r->total;
        t->lost_percent = r->pct;
    } else if (r->ntok >= 1) {
        t->has_retransmits = true;
        t->retransmits = (int64_t)r->tok[0];
    }
}

static struct lp_stream_end *end_for(struct scen *s, int sock)
{
    for (unsigned i = 0; i < s->nend; i++)
        if (s->end[i].sid.socket == sock)
            return &s->end[i];
    assert_true(s->nend < MAXS);
    struct lp_stream_end *e = &s->end[s->nend++];
    struct row r = {.sock = sock};
    row_sid(s, &r, &e->sid);
    return e;
}

static void interval_row(struct scen *s, const struct row *r)
{
    bool omitted = !strcmp(r->tag, "(omitted)");
    unsigned g = s->niv ? s->niv - 1 : 0;
    const struct lp_sample *first = &s->iv[g][0];
    struct lp_sample m;

    /* A new interval starts when the time span or the omitted flag changes. */
    if (!s->niv || first->start_s != r->st || first->end_s != r->en || first->omitted != omitted) {
        assert_true(s->niv < MAXIV);
        g = s->niv++;
    }
    fill_sample(s, r, &m);
    if (r->sum) {
        int d = r->tagged && m.sid.reverse ? 1 : 0;
        s->ivsum[g][d] = m;
        s->ivhas[g][d] = true;
    } else {
        assert_true(s->ivn[g] < MAXS);
        s->iv[g][s->ivn[g]++] = m;
    }
}

static void summary_row(struct scen *s, const struct row *r)
{
    struct lp_total t;
    bool sender_row = !strcmp(r->tag, "sender");

    fill_total(s, r, &t);
    if (r->sum) {
        struct lp_stream_id sid;
        row_sid(s, r, &sid);
        struct lp_direction_end *de = &s->dir[r->tagged && sid.reverse ? 1 : 0];
        de->present = true;
        *(sender_row ? &de->sent : &de->received) = t;
        return;
    }
    struct lp_stream_end *e = end_for(s, r->sock);
    row_sid(s, r, &e->sid);
    if (sender_row) {
        e->sender = t;
    } else {
        t.out_of_order = s->pending_ooo;
        s->pending_ooo = 0;
        e->receiver = t;
    }
}

static bool prefixed(const char *l, const char *p)
{
    return !strncmp(l, p, strlen(p));
}

static void parse_line(struct scen *s, const char *l)
{
    char a[160], b[160];
    unsigned u1, u2, u3;
    int i1, i2;
    struct tm tm;

    if (s->in_server_output) {
        size_t n = strlen(s->server_text);
        snprintf(s->server_text + n, sizeof(s->server_text) - n, "%s\n", l);
        return;
    }
    if (!*l || prefixed(l, "- - -") || prefixed(l, "Test Complete."))
        return;
    if (strstr(l, "statistics not available)")) {
        /* Keeps the stream's place in the summary; the missing side stays absent. */
        if (!prefixed(l, "[SUM]"))
            end_for(s, atoi(l + 1));
        return;
    }
    if (!strcmp(l, "-----------------------------------------------------------")) {
        s->listening = true;
        s->role = LP_ROLE_SERVER;
    } else if (sscanf(l, "Server listening on %u (test #%u)", &u1, &u2) == 2) {
        s->lport = u1;
        s->testno = u2;
    } else if (sscanf(l, "Accepted connection from %159[^,], port %u", a, &u1) == 2 ||
               sscanf(l, "Connecting to host %159[^,], port %u", a, &u1) == 2) {
        s->connecting = true;
        snprintf(s->peer.host, sizeof(s->peer.host), "%s", a);
        s->peer.port = (uint16_t)u1;
    } else if (prefixed(l, "Reverse mode")) {
        s->spec.dir = LP_DIR_REVERSE;
    } else if (sscanf(l, "[%d] local %159s port %u connected to %159s port %u", &i1, a, &u1, b,
                      &u2) == 5) {
        struct lp_stream_conn *c = &s->conn[s->nconn++];
        c->sid.socket = c->sid.id = i1;
        snprintf(c->local.host, sizeof(c->local.host), "%s", a);
        c->local.port = (uint16_t)u1;
        snprintf(c->remote.host, sizeof(c->remote.host), "%s", b);
        c->remote.port = (uint16_t)u2;
    } else if (prefixed(l, "[ ID]")) {
        if (strstr(l, "[Role]"))
            s->spec.dir = LP_DIR_BIDIR;
        if (strstr(l, "Datagrams"))
            s->spec.proto = LP_PROTO_UDP;
        /* A server has no "Reverse mode" line: it sends when its intervals show Cwnd or
         * sent datagrams. */
        if (s->role == LP_ROLE_SERVER && s->spec.dir != LP_DIR_BIDIR && !s->niv &&
            (strstr(l, "Cwnd") || strstr(l, "Bitrate         Total Datagrams")))
            s->spec.dir = LP_DIR_REVERSE;
        if (s->niv)
            s->in_summary = true;
    } else if (strstr(l, "datagrams received out-of-order")) {
        const char *p = strstr(l, "sec  ");
        s->pending_ooo = strtoull(p + 5, NULL, 10);
    } else if (l[0] == '[') {
        struct row r;
        parse_row(l, &r);
        if (s->in_summary) {
            s->has_end = true;
            summary_row(s, &r);
        } else {
            interval_row(s, &r);
        }
    } else if (!strcmp(l, "Server output:")) {
        s->in_server_output = s->has_server_text = true;
    } else if (!strcmp(l, "iperf Done.")) {
        s->done = true;
    } else if (prefixed(l, "iperf ") && !s->version[0]) {
        snprintf(s->version, sizeof(s->version), "%s", l);
    } else if (prefixed(l, "Linux ")) {
        snprintf(s->sysinfo, sizeof(s->sysinfo), "%s", l);
    } else if (sscanf(l, "Control connection MSS %d", &i1) == 1) {
        s->tcp_mss_default = i1;
    } else if (prefixed(l, "Time: ")) {
        memset(&tm, 0, sizeof(tm));
        assert_non_null(strptime(l + 6, "%a, %d %b %Y %H:%M:%S GMT", &tm));
        if (s->role == LP_ROLE_SERVER)
            s->connect_wall = (double)timegm(&tm);
        else
            s->start_time = timegm(&tm);
    } else if (sscanf(l, "      Cookie: %63s", s->cookie) == 1) {
    } else if (sscanf(l, "      TCP MSS: %d", &i1) == 1) {
        s->tcp_mss_default = i1;
    } else if (sscanf(l, "      Target Bitrate: %" SCNu64, &s->spec.rate_bps) == 1) {
    } else if (sscanf(l, "Starting Test: protocol: %7[A-Z], %u streams, %u byte blocks, "
                         "omitting %u seconds, %d second test, tos %d",
                      a, &u1, &u2, &u3, &i1, &i2) == 6) {
        s->spec.streams = u1;
        s->spec.blksize = u2;
        s->spec.omit_s = u3;
        s->spec.duration_s = i1;
        s->spec.tos = i2;
    } else if (prefixed(l, "CPU Utilization: local/sender")) {
        assert_int_equal(sscanf(l, "CPU Utilization: local/sender %lf%% (%lf%%u/%lf%%s), "
                                   "remote/receiver %lf%% (%lf%%u/%lf%%s)",
                                &s->cpu.host_total, &s->cpu.host_user, &s->cpu.host_system,
                                &s->cpu.remote_total, &s->cpu.remote_user,
                                &s->cpu.remote_system), 6);
    } else if (prefixed(l, "CPU Utilization: local/receiver")) {
    } else if (sscanf(l, "snd_tcp_congestion %15s", s->snd_cc) == 1) {
    } else if (sscanf(l, "rcv_tcp_congestion %15s", s->rcv_cc) == 1) {
    } else {
        fail_msg("unparsed capture line: \"%s\"", l);
    }
}

/* -f for the client blocks of text_outputs_formats.txt, read from the block name. */
static char unit_of(const char *name)
{
    if (prefixed(name, "fmt_f") && strstr(name, ": client"))
        return name[5];
    return 'a';
}

static void build(struct scen *s, const struct block *b)
{
    const char *tp = strstr(b->name, "-T ");
    size_t tl = 0;

    memset(s, 0, sizeof(*s));
    lp_spec_init(&s->spec, LP_ROLE_CLIENT);
    s->spec.tos = 0;
    s->role = LP_ROLE_CLIENT;
    s->opts.unit = unit_of(b->name);
    if (tp) {
        sscanf(tp + 3, "%63[^) ]", s->title);
        s->opts.title = s->title;
        tl = strlen(s->title) + 3;
    }
    for (int i = 0; i < b->n; i++) {
        const char *l = b->line[i];
        if (tl && !s->in_server_output) {
            assert_true(strlen(l) >= tl);
            l += tl;
        }
        parse_line(s, l);
        if (s->role == LP_ROLE_SERVER)
            s->spec.role = LP_ROLE_SERVER;
    }
    s->opts.verbose = s->version[0] != '\0';
    /* "Server output:" ran to the end: the block's last two lines are the client's own. */
    if (s->has_server_text) {
        char *t = s->server_text;
        size_t n = strlen(t);
        assert_true(n > 14 && !strcmp(t + n - 14, "\n\niperf Done.\n"));
        t[n - 13] = '\0';
        n = strlen(t);
        t[n - 1] = '\0'; /* the client adds the newline after the block */
        s->done = true;
    }
}

/* Feed the records in engine order. */
static void play(struct scen *s, struct lp_fmt *f)
{
    struct lp_record rec;
    struct lp_stream_end ends[MAXS];

    memset(&rec, 0, sizeof(rec));
    rec.role = s->role;
    rec.test_id = 1;
    if (s->listening) {
        rec.kind = LP_REC_LISTENING;
        rec.u.listening.port = (uint16_t)s->lport;
        rec.u.listening.test_number = s->testno;
        lp_fmt_record(f, &rec);
    }
    if (s->connecting) {
        memset(&rec.u, 0, sizeof(rec.u));
        rec.kind = LP_REC_CONNECTING;
        rec.wall_time = s->connect_wall;
        rec.u.connecting.peer = s->peer;
        lp_fmt_record(f, &rec);
        rec.wall_time = 0;
    }
    /* Stream directions as the tables show them. */
    for (unsigned i = 0; i < s->nconn; i++)
        for (unsigned j = 0; j < s->nend; j++)
            if (s->end[j].sid.socket == s->conn[i].sid.socket)
                s->conn[i].sid = s->end[j].sid;
    memset(&rec.u, 0, sizeof(rec.u));
    rec.kind = LP_REC_START;
    rec.u.start.spec = &s->spec;
    rec.u.start.version = s->version;
    rec.u.start.system_info = s->sysinfo;
    rec.u.start.timestamp = s->start_time;
    rec.u.start.cookie = s->cookie;
    rec.u.start.control_peer = s->peer;
    rec.u.start.tcp_mss_default = s->tcp_mss_default;
    rec.u.start.nstreams = s->nconn;
    rec.u.start.streams = s->conn;
    lp_fmt_record(f, &rec);
    for (unsigned g = 0; g < s->niv; g++) {
        memset(&rec.u, 0, sizeof(rec.u));
        rec.kind = LP_REC_INTERVAL;
        rec.u.interval.nstreams = s->ivn[g];
        rec.u.interval.streams = s->iv[g];
        rec.u.interval.sum = s->ivsum[g][0];
        rec.u.interval.has_sum_reverse = s->ivhas[g][1];
        rec.u.interval.sum_reverse = s->ivsum[g][1];
        lp_fmt_record(f, &rec);
    }
    if (s->has_end) {
        memcpy(ends, s->end, sizeof(ends));
        memset(&rec.u, 0, sizeof(rec.u));
        rec.kind = LP_REC_END;
        rec.u.end.nstreams = s->nend;
        rec.u.end.streams = ends;
        rec.u.end.forward = s->dir[0];
        rec.u.end.forward.present = true;
        rec.u.end.reverse = s->dir[1];
        rec.u.end.bidir = s->spec.dir == LP_DIR_BIDIR;
        rec.u.end.cpu = s->cpu;
        rec.u.end.sender_congestion = s->snd_cc[0] ? s->snd_cc : NULL;
        rec.u.end.receiver_congestion = s->rcv_cc[0] ? s->rcv_cc : NULL;
        rec.u.end.server_output_text = s->has_server_text ? s->server_text : NULL;
        lp_fmt_record(f, &rec);
    }
    if (s->done) {
        memset(&rec.u, 0, sizeof(rec.u));
        rec.kind = LP_REC_DONE;
        lp_fmt_record(f, &rec);
    }
}

/* Format a block's records and compare with the block; skip its first `skip` lines on
 * both sides (a -V server's version lines name linkperf and this machine). */
static void check_block(const struct block *b, int skip)
{
    static struct scen s;
    static struct sink k;
    char want[65536];
    size_t n = 0;
    const char *got;
    struct lp_fmt *f;

    build(&s, b);
    f = sink_fmt(&k, LP_FMT_TEXT, &s.opts);
    play(&s, f);
    lp_fmt_free(f);
    for (int i = skip; i < b->n; i++)
        n += (size_t)snprintf(want + n, sizeof(want) - n, "%s\n", b->line[i]);
    got = k.out;
    for (int i = 0; i < skip; i++)
        got = strchr(got, '\n') + 1;
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "block \"%s\" differs.\n--- want\n%s--- got\n%s---\n", b->name, want, got);
        fail();
    }
    assert_int_equal(k.nerr, 0);
}

static char *slurp(const char *path)
{
    char *s = lp_test_slurp(path);
    assert_non_null(s);
    return s;
}

/* Split an evidence file into its "######## name" blocks. The capture script left one
 * blank line after each server block (a real 3.12 server prints none: checked with
 * iperf3 -s -1), so trailing blank lines are dropped. */
static int load_blocks(char *text, struct block *bl, int max)
{
    int nb = -1;
    char *p = text;

    while (*p) {
        char *e = strchr(p, '\n');
        if (e)
            *e = '\0';
        if (prefixed(p, "######## ")) {
            assert_true(nb + 1 < max);
            nb++;
            snprintf(bl[nb].name, sizeof(bl[nb].name), "%s", p + 9);
            bl[nb].n = 0;
        } else if (nb >= 0) {
            assert_true(bl[nb].n < MAXL);
            bl[nb].line[bl[nb].n++] = p;
        }
        if (!e)
            break;
        p = e + 1;
    }
    for (int i = 0; i <= nb; i++)
        while (bl[i].n && !bl[i].line[bl[i].n - 1][0])
            bl[i].n--;
    return nb + 1;
}

static bool is_skipped(const char *name)
{
    /* Truncated or tail-only captures: not whole outputs. */
    return strstr(name, "first 40 lines") || !strcmp(name, "server tail");
}

static void check_file(const char *path)
{
    static struct block bl[48];
    char *text = slurp(path);
    int n = load_blocks(text, bl, 48), checked = 0;

    for (int i = 0; i < n; i++) {
        if (is_skipped(bl[i].name))
            continue;
        check_block(&bl[i], !strcmp(bl[i].name, "verbose -V server") ? 2 : 0);
        print_message("same bytes: %s\n", bl[i].name);
        checked++;
    }
    assert_true(checked >= 10);
    free(text);
}

static void test_evidence_basic(void **state)
{
    (void)state;
    check_file(LP_EVIDENCE_DIR "/text_outputs_basic.txt");
}

static void test_evidence_formats(void **state)
{
    (void)state;
    check_file(LP_EVIDENCE_DIR "/text_outputs_formats.txt");
}

/* More iperf3 3.12 captures taken on loopback for this test (the reordering ones through
 * a small UDP proxy that delays every 7th datagram). */
static const char *const extra[][2] = {
    {"bidir -V client (-t 2 --bidir -V)",
     "iperf 3.12\n"
     "Linux vm 6.18.44-fc-v769 #1 SMP PREEMPT_DYNAMIC @0 x86_64\n"
     "Control connection MSS 32768\n"
     "Time: Mon, 30 Nov 2026 13:56:00 GMT\n"
     "Connecting to host 127.0.0.1, port 5296\n"
     "      Cookie: 4xw2tfbgsv5d2a2hpk7ii3n3mty4lxrlhh4m\n"
     "      TCP MSS: 32768 (default)\n"
     "[  5] local 127.0.0.1 port 41988 connected to 127.0.0.1 port 5296\n"
     "[  7] local 127.0.0.1 port 42000 connected to 127.0.0.1 port 5296\n"
     "Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, omitting 0 seconds, 2 second test, tos 0\n"
     "[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd\n"
     "[  5][TX-C]   0.00-1.00   sec   289 MBytes  2.42 Gbits/sec    6   1023 KBytes       \n"
     "[  7][RX-C]   0.00-1.00   sec  2.22 GBytes  19.0 Gbits/sec                  \n"
     "[  5][TX-C]   1.00-2.00   sec   236 MBytes  1.98 Gbits/sec    4   1023 KBytes       \n"
     "[  7][RX-C]   1.00-2.00   sec  2.22 GBytes  19.0 Gbits/sec                  \n"
     "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
     "Test Complete. Summary Results:\n"
     "[ ID][Role] Interval           Transfer     Bitrate         Retr\n"
     "[  5][TX-C]   0.00-2.00   sec   525 MBytes  2.20 Gbits/sec   10             sender\n"
     "[  5][TX-C]   0.00-2.00   sec   520 MBytes  2.18 Gbits/sec                  receiver\n"
     "CPU Utilization: local/sender 40.5% (1.6%u/38.9%s), remote/receiver 98.8% (1.2%u/97.6%s)\n"
     "CPU Utilization: local/receiver 40.5% (1.6%u/38.9%s), remote/sender 98.8% (1.2%u/97.6%s)\n"
     "snd_tcp_congestion bbr\n"
     "rcv_tcp_congestion bbr\n"
     "[  7][RX-C]   0.00-2.00   sec  4.44 GBytes  19.1 Gbits/sec   45             sender\n"
     "[  7][RX-C]   0.00-2.00   sec  4.43 GBytes  19.0 Gbits/sec                  receiver\n"
     "snd_tcp_congestion bbr\n"
     "rcv_tcp_congestion bbr\n"
     "\n"
     "iperf Done.\n"
    },
    {"UDP bidir -V client with reordering (-u -b 2M -l 1000 --bidir -V)",
     "iperf 3.12\n"
     "Linux vm 6.18.44-fc-v769 #1 SMP PREEMPT_DYNAMIC @0 x86_64\n"
     "Control connection MSS 32768\n"
     "Time: Mon, 30 Nov 2026 13:57:44 GMT\n"
     "Connecting to host 127.0.0.1, port 5294\n"
     "      Cookie: dmwtayitlt5y6zagomol6ygy7z5hvw5udful\n"
     "      Target Bitrate: 2000000\n"
     "[  5] local 127.0.0.1 port 51083 connected to 127.0.0.1 port 5294\n"
     "[  7] local 127.0.0.1 port 40873 connected to 127.0.0.1 port 5294\n"
     "Starting Test: protocol: UDP, 1 streams, 1000 byte blocks, omitting 0 seconds, 2 second test, tos 0\n"
     "[ ID][Role] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
     "[  5][TX-C]   0.00-1.00   sec   244 KBytes  2.00 Mbits/sec            250  \n"
     "[  7][RX-C]   0.00-1.00   sec   255 KBytes  2.09 Mbits/sec  1.284 ms  0/261 (0%)  \n"
     "[  5][TX-C]   1.00-2.00   sec   244 KBytes  2.00 Mbits/sec            250  \n"
     "[  7][RX-C]   1.00-2.00   sec   244 KBytes  2.00 Mbits/sec  1.190 ms  0/250 (0%)  \n"
     "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
     "Test Complete. Summary Results:\n"
     "[ ID][Role] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
     "[  5][TX-C]   0.00-2.00   sec   488 KBytes  2.00 Mbits/sec  0.000 ms  0/500 (0%)  sender\n"
     "[  5][TX-C]   0.00-2.04   sec   488 KBytes  1.96 Mbits/sec  1.213 ms  0/500 (0%)  receiver\n"
     "CPU Utilization: local/sender 4.5% (2.2%u/2.3%s), remote/receiver 3.1% (0.5%u/2.6%s)\n"
     "CPU Utilization: local/receiver 4.5% (2.2%u/2.3%s), remote/sender 3.1% (0.5%u/2.6%s)\n"
     "[  7][RX-C]   0.00-2.00   sec   499 KBytes  2.04 Mbits/sec  0.000 ms  0/511 (0%)  sender\n"
     "[SUM][RX-C]  0.0- 2.0 sec  73 datagrams received out-of-order\n"
     "[  7][RX-C]   0.00-2.04   sec   499 KBytes  2.00 Mbits/sec  1.190 ms  0/511 (0%)  receiver\n"
     "\n"
     "iperf Done.\n"
    },
    {"reverse -P 2 -V server",
     "iperf 3.12\n"
     "Linux vm 6.18.44-fc-v769 #1 SMP PREEMPT_DYNAMIC @0 x86_64\n"
     "-----------------------------------------------------------\n"
     "Server listening on 5296 (test #1)\n"
     "-----------------------------------------------------------\n"
     "Time: Mon, 30 Nov 2026 13:55:18 GMT\n"
     "Accepted connection from 127.0.0.1, port 41708\n"
     "      Cookie: xml522hv5rq5xvpupymxkqkkjskfaexdenbu\n"
     "      TCP MSS: 0 (default)\n"
     "      Target Bitrate: 100000000\n"
     "[  5] local 127.0.0.1 port 5296 connected to 127.0.0.1 port 41724\n"
     "[  8] local 127.0.0.1 port 5296 connected to 127.0.0.1 port 41730\n"
     "Starting Test: protocol: TCP, 2 streams, 131072 byte blocks, omitting 0 seconds, 1 second test, tos 0\n"
     "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
     "[  5]   0.00-1.00   sec  12.0 MBytes   101 Mbits/sec    0   1.12 MBytes       \n"
     "[  8]   0.00-1.00   sec  12.0 MBytes   101 Mbits/sec    0   1.12 MBytes       \n"
     "[SUM]   0.00-1.00   sec  24.0 MBytes   201 Mbits/sec    0             \n"
     "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
     "Test Complete. Summary Results:\n"
     "[ ID] Interval           Transfer     Bitrate         Retr\n"
     "[  5]   0.00-1.00   sec  12.0 MBytes   101 Mbits/sec    0             sender\n"
     "[  5] (receiver statistics not available)\n"
     "[  8]   0.00-1.00   sec  12.0 MBytes   101 Mbits/sec    0             sender\n"
     "[  8] (receiver statistics not available)\n"
     "[SUM]   0.00-1.00   sec  24.0 MBytes   201 Mbits/sec    0             sender\n"
     "[SUM] (receiver statistics not available)\n"
     "CPU Utilization: local/sender 2.8% (2.8%u/0.0%s), remote/receiver 0.0% (0.0%u/0.0%s)\n"
     "snd_tcp_congestion bbr\n"
    },
    {"UDP server with reordering (-u -b 2M -l 1000)",
     "-----------------------------------------------------------\n"
     "Server listening on 5293 (test #1)\n"
     "-----------------------------------------------------------\n"
     "Accepted connection from 127.0.0.1, port 49294\n"
     "[  5] local 127.0.0.1 port 5293 connected to 127.0.0.1 port 48668\n"
     "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
     "[  5]   0.00-1.00   sec   233 KBytes  1.91 Mbits/sec  1.357 ms  0/239 (0%)  \n"
     "[  5]   1.00-2.00   sec   243 KBytes  1.99 Mbits/sec  1.082 ms  0/249 (0%)  \n"
     "[  5]   2.00-2.04   sec  11.7 KBytes  2.17 Mbits/sec  1.218 ms  0/12 (0%)  \n"
     "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
     "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
     "[SUM]  0.0- 2.0 sec  71 datagrams received out-of-order\n"
     "[  5]   0.00-2.04   sec   488 KBytes  1.96 Mbits/sec  1.218 ms  0/500 (0%)  receiver\n"
    },
    {"UDP bidir -P 2 client (-u -b 2M --bidir -P 2 -t 1)",
     "Connecting to host 127.0.0.1, port 5296\n"
     "[  5] local 127.0.0.1 port 53358 connected to 127.0.0.1 port 5296\n"
     "[  7] local 127.0.0.1 port 40949 connected to 127.0.0.1 port 5296\n"
     "[  9] local 127.0.0.1 port 42307 connected to 127.0.0.1 port 5296\n"
     "[ 12] local 127.0.0.1 port 46898 connected to 127.0.0.1 port 5296\n"
     "[ ID][Role] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
     "[  5][TX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec            8  \n"
     "[  7][TX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec            8  \n"
     "[SUM][TX-C]   0.00-1.00   sec   512 KBytes  4.19 Mbits/sec            16  \n"
     "[  9][RX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.028 ms  0/8 (0%)  \n"
     "[ 12][RX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.016 ms  0/8 (0%)  \n"
     "[SUM][RX-C]   0.00-1.00   sec   512 KBytes  4.19 Mbits/sec  0.022 ms  0/16 (0%)  \n"
     "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
     "[ ID][Role] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
     "[  5][TX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.000 ms  0/8 (0%)  sender\n"
     "[  5][TX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.034 ms  0/8 (0%)  receiver\n"
     "[  7][TX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.000 ms  0/8 (0%)  sender\n"
     "[  7][TX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.034 ms  0/8 (0%)  receiver\n"
     "[SUM][TX-C]   0.00-1.00   sec   512 KBytes  4.19 Mbits/sec  0.000 ms  0/16 (0%)  sender\n"
     "[SUM][TX-C]   0.00-1.00   sec   512 KBytes  4.19 Mbits/sec  0.034 ms  0/16 (0%)  receiver\n"
     "[  9][RX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.000 ms  0/8 (0%)  sender\n"
     "[  9][RX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.028 ms  0/8 (0%)  receiver\n"
     "[ 12][RX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.000 ms  0/8 (0%)  sender\n"
     "[ 12][RX-C]   0.00-1.00   sec   256 KBytes  2.10 Mbits/sec  0.016 ms  0/8 (0%)  receiver\n"
     "[SUM][RX-C]   0.00-1.00   sec   512 KBytes  4.19 Mbits/sec  0.000 ms  0/16 (0%)  sender\n"
     "[SUM][RX-C]   0.00-1.00   sec   512 KBytes  4.19 Mbits/sec  0.022 ms  0/16 (0%)  receiver\n"
     "\n"
     "iperf Done.\n"
    },
};

static void test_more_captures(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
        char *text = strdup(extra[i][1]);
        struct block b;
        char *p = text;
        memset(&b, 0, sizeof(b));
        snprintf(b.name, sizeof(b.name), "%s", extra[i][0]);
        while (*p) {
            char *e = strchr(p, '\n');
            *e = '\0';
            b.line[b.n++] = p;
            p = e + 1;
        }
        check_block(&b, strstr(b.name, "server") && strstr(b.name, "-V") ? 2 : 0);
        print_message("same bytes: %s\n", b.name);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evidence_basic),
        cmocka_unit_test(test_evidence_formats),
        cmocka_unit_test(test_more_captures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* iperf2 -y C: one comma-separated line per stream per interval and per stream at the end,
 * with iperf 2.1.8's fields and order. No banners, no [SUM] lines, no server report lines
 * (2.1.8 prints none of them in CSV); errors go to stderr as text. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmt/lines.h"
#include "fmt/looks.h"
#include "fmt/rt_loss.h"

#define CSV_TCP_FIELDS "time,src_ip,src_port,dst_ip,dst_port,id,start-end,bytes,bits_per_sec"
#define CSV_UDP_FIELDS ",jitter_ms,lost,total,loss_percent,out_of_order"
#define CSV_LATENCY_FIELDS ",lat_count,lat_min_ms,lat_p50_ms,lat_p90_ms,lat_p99_ms,lat_p99_9_ms,lat_max_ms"

/* The endpoints of a stream, from START. */
struct csv_stream {
    struct lp_stream_id sid;
    struct lp_endpoint local, remote;
    bool final_done;
};

/* One test's CSV lines. Owns its stream table; borrows lines.out.user. */
struct lp_fmt_csv {
    struct lp_fmt base;          /* first: see fmt/looks.h */
    struct lp_fmt_opts opts;
    struct lp_fmt_lines lines;   /* no prefixes: CSV lines carry their own time */
    bool udp, header_done;
    struct csv_stream *streams;
    unsigned nstreams, cap;
};

static struct csv_stream *find(struct lp_fmt_csv *f, const struct lp_stream_id *sid)
{
    for (unsigned i = 0; i < f->nstreams; i++)
        if (f->streams[i].sid.id == sid->id && f->streams[i].sid.sender == sid->sender)
            return &f->streams[i];
    return NULL;
}

static void on_start(struct lp_fmt_csv *f, const struct lp_rec_start *st)
{
    if (st->spec)
        f->udp = st->spec->proto == LP_PROTO_UDP;
    /* START repeats when streams join later: add the new ones. */
    for (unsigned i = 0; i < st->nstreams; i++) {
        const struct lp_stream_conn *c = &st->streams[i];
        struct csv_stream *s = find(f, &c->sid);
        if (!s) {
            if (f->nstreams == f->cap) {
                unsigned cap = f->cap ? f->cap * 2 : 8;
                struct csv_stream *n = realloc(f->streams, cap * sizeof(*n));
                if (!n)
                    return;
                f->streams = n;
                f->cap = cap;
            }
            s = &f->streams[f->nstreams++];
            memset(s, 0, sizeof(*s));
        }
        s->sid = c->sid;
        s->local = c->local;
        s->remote = c->remote;
    }
}

/* Local time of the report; with -e iperf2 adds milliseconds. */
static void stamp(const struct lp_fmt_csv *f, char *b, size_t n)
{
    double w = f->lines.wall > 0 ? f->lines.wall : (double)time(NULL);
    long long ms = llround(w * 1000.0);
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    size_t k;

    b[0] = '\0';
    if (!localtime_r(&t, &tm) || (k = strftime(b, n, "%Y%m%d%H%M%S", &tm)) == 0)
        return;
    if (f->opts.enhanced)
        snprintf(b + k, n - k, ".%03d", (int)(ms % 1000));
}

/* One row's numbers, sample or total alike. */
struct csv_row {
    double start, end, bps;
    uint64_t bytes, packets, ooo;
    int64_t lost;
    double jitter_ms, lost_percent;
    const struct lp_latency_stat *lat; /* NULL: none measured */
};

static void line(struct lp_fmt_csv *f, const struct lp_stream_id *sid, bool udp, const struct csv_row *r)
{
    static const struct lp_endpoint none = {.host = "", .port = 0};
    const struct csv_stream *s = find(f, sid);
    const struct lp_endpoint *src = &none, *dst = &none;
    char b[LP_FMT_LINE_MAX], when[32];
    int n;

    if (!f->header_done && f->opts.csv_header) {
        const char *h = udp ? CSV_TCP_FIELDS CSV_UDP_FIELDS : CSV_TCP_FIELDS;
        char hl[sizeof(CSV_TCP_FIELDS CSV_UDP_FIELDS CSV_LATENCY_FIELDS "\n")];
        int k = snprintf(hl, sizeof(hl), "%s%s\n", h, f->opts.csv_latency ? CSV_LATENCY_FIELDS : "");
        lp_fmt_lines_write(&f->lines, LP_OUT_STDOUT, hl, k > 0 ? (size_t)k : 0);
    }
    f->header_done = true;
    /* iperf 2.1.8 names the data's source first: the client in a forward test, the server
     * with -R and on -d/-r legs, each half of a full-duplex connection its own way. */
    if (s) {
        src = sid->sender ? &s->local : &s->remote;
        dst = sid->sender ? &s->remote : &s->local;
    }
    stamp(f, when, sizeof(when));
    n = snprintf(b, sizeof(b), "%s,%s,%u,%s,%u,%d,%.1f-%.1f,%" PRIu64 ",%.0f", when, src->host,
                 (unsigned)src->port, dst->host, (unsigned)dst->port, sid->id > 0 ? sid->id : sid->socket,
                 r->start < 0 ? 0 : r->start, r->end < 0 ? 0 : r->end, r->bytes, r->bps < 0 ? 0 : floor(r->bps + 0.5));
    if (udp && n > 0 && (size_t)n < sizeof(b)) {
        /* A sender's line has the receiver's columns too: no jitter, no loss, its count. */
        if (sid->sender)
            n += snprintf(b + n, sizeof(b) - (size_t)n, ",0.000,0,%" PRIu64 ",0.000,0", r->packets);
        else
            n += snprintf(b + n, sizeof(b) - (size_t)n, ",%.3f,%" PRId64 ",%" PRIu64 ",%.3f,%" PRIu64,
                          r->jitter_ms, r->lost, r->packets, r->lost_percent, r->ooo);
    }
    if (f->opts.csv_latency && n > 0 && (size_t)n < sizeof(b)) {
        const struct lp_latency_stat *l = r->lat;
        if (l && l->count && l->has_pct)
            n += snprintf(b + n, sizeof(b) - (size_t)n, ",%" PRIu64 ",%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", l->count,
                          l->min_ms, l->p50_ms, l->p90_ms, l->p99_ms, l->p999_ms, l->max_ms);
        else if (l && l->count) /* iperf2's transit numbers: no histogram came with them */
            n += snprintf(b + n, sizeof(b) - (size_t)n, ",%" PRIu64 ",%.6f,,,,,%.6f", l->count, l->min_ms, l->max_ms);
        else
            n += snprintf(b + n, sizeof(b) - (size_t)n, ",,,,,,,");
    }
    if (n < 0)
        return;
    if ((size_t)n > sizeof(b) - 2)
        n = (int)sizeof(b) - 2;
    b[n++] = '\n';
    lp_fmt_lines_write(&f->lines, LP_OUT_STDOUT, b, (size_t)n);
}

/* iperf2 prints the schedule's boundaries (struct lp_sample); a window over missed intervals
 * makes one row each, the data in the first, as 2.1.8 does. */
static void on_interval(struct lp_fmt_csv *f, const struct lp_rec_interval *iv)
{
    for (unsigned i = 0; i < iv->nstreams; i++) {
        const struct lp_sample *s = &iv->streams[i];
        unsigned n = s->nominal_count ? s->nominal_count : 1;
        double step = s->nominal_count ? (s->nominal_end_s - s->nominal_start_s) / n : 0;
        struct csv_row r = {s->start_s, s->end_s, s->bits_per_second, s->bytes, s->packets,
                            s->out_of_order, s->lost_packets, s->jitter_ms, s->lost_percent,
                            s->has_latency ? &s->latency : NULL};
        if (s->omitted)
            continue;
        for (unsigned j = 0; j < n; j++) {
            if (s->nominal_count) {
                r.start = s->nominal_start_s + j * step;
                r.end = j + 1 == n ? s->nominal_end_s : s->nominal_start_s + (j + 1) * step;
            }
            line(f, &s->sid, s->is_udp || f->udp, &r);
            r.bps = r.jitter_ms = r.lost_percent = 0;
            r.bytes = r.packets = r.ooo = 0;
            r.lost = 0;
            r.lat = NULL;
        }
    }
}

/* This end's own row of each stream; a UDP client's copy of the server's report is not
 * printed (2.1.8 does not either). */
static void on_end(struct lp_fmt_csv *f, const struct lp_rec_end *end)
{
    for (unsigned i = 0; i < end->nstreams; i++) {
        const struct lp_stream_end *se = &end->streams[i];
        const struct lp_total *t = se->sid.sender ? &se->sender : &se->receiver;
        struct csv_stream *s = find(f, &se->sid);
        struct csv_row r = {t->start_s, t->end_s, t->bits_per_second, t->bytes, t->packets,
                            t->out_of_order, t->lost_packets, t->jitter_ms, t->lost_percent,
                            t->has_latency ? &t->latency : NULL};
        uint64_t sent;
        int64_t lost;
        if (!t->present || (s && s->final_done))
            continue;
        if (lp_fmt_rt_loss(t, se->sid.sender, &sent, &lost, &r.lost_percent)) /* UDP round trips */
            r.lost = lost;
        if (s)
            s->final_done = true;
        line(f, &se->sid, t->is_udp || f->udp, &r);
    }
}

static void on_error(struct lp_fmt_csv *f, const struct lp_rec_error *e)
{
    const char *msg = e->message ? e->message : "unknown error";

    lp_fmt_lines_printf(&f->lines, LP_OUT_STDERR, false, e->fatal ? "linkperf: error - %s" : "%s", msg);
}

static void csv_record(struct lp_fmt *base, const struct lp_record *rec)
{
    struct lp_fmt_csv *f = (struct lp_fmt_csv *)base;

    f->lines.wall = rec->wall_time;
    switch (rec->kind) {
    case LP_REC_START:
        on_start(f, &rec->u.start);
        break;
    case LP_REC_INTERVAL:
        on_interval(f, &rec->u.interval);
        break;
    case LP_REC_END:
        on_end(f, &rec->u.end);
        break;
    case LP_REC_ERROR:
        on_error(f, &rec->u.error);
        break;
    case LP_REC_DEBUG:
        lp_fmt_lines_debug(&f->lines, &rec->u.debug);
        break;
    case LP_REC_LISTENING:
    case LP_REC_CONNECTING:
    case LP_REC_LEG_END: /* the final lines come at END, in order */
    case LP_REC_DONE:
        break; /* CSV carries measurements only: no banners */
    }
}

static void csv_free(struct lp_fmt *base)
{
    struct lp_fmt_csv *f = (struct lp_fmt_csv *)base;

    free(f->streams);
    free(f);
}

static const struct lp_fmt_ops csv_ops = {.record = csv_record, .free = csv_free};

struct lp_fmt *lp_fmt_csv_new(const struct lp_fmt_opts *opts, const struct lp_out *out)
{
    struct lp_fmt_csv *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    lp_fmt_lines_init(&f->lines, &f->opts, opts, out, false);
    f->base.ops = &csv_ops;
    return &f->base;
}

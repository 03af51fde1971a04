/* Text output in iperf 2.1.8's layout (linkperf --iperf2): banners, connection lines, errors,
 * record dispatch. The report rows live in text2_rows.c; nothing here measures anything. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "fmt/text2_int.h"

void lp_text2_line(struct lp_fmt_text2 *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    lp_fmt_lines_vprintf(&f->lines, LP_OUT_STDOUT, true, fmt, ap);
    va_end(ap);
}

/* Errors go to stderr with the timestamp but without the title (as the iperf3 look). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void err_line(struct lp_fmt_text2 *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    lp_fmt_lines_vprintf(&f->lines, LP_OUT_STDERR, false, fmt, ap);
    va_end(ap);
}

/* ---- helpers shared with text2_rows.c ---- */

bool lp_text2_excluded(const struct lp_fmt_text2 *f, char what)
{
    for (size_t i = 0; i < sizeof(f->opts.exclude) && f->opts.exclude[i]; i++)
        if ((f->opts.exclude[i] & ~0x20) == (what & ~0x20))
            return true;
    return false;
}

int lp_text2_id(const struct lp_stream_id *sid)
{
    return sid->id > 0 ? sid->id : sid->socket;
}

void lp_text2_idstr(const struct lp_fmt_text2 *f, char *b, size_t n, int id, bool star)
{
    char num[16];

    if (f->have_spec && f->spec.dialect == LP_DIALECT_IPERF2 && f->spec.iperf2.permit_key[0]) {
        snprintf(b, n, star ? "[%.*s(*%d)]" : "[%.*s(%d)]", LP_PERMIT_KEY_MAX, f->spec.iperf2.permit_key, id);
        return;
    }
    if (!star) {
        snprintf(b, n, "[%3d]", id);
        return;
    }
    snprintf(num, sizeof(num), "*%d", id);
    snprintf(b, n, "[%3s]", num);
}

bool lp_text2_udp(const struct lp_fmt_text2 *f)
{
    return f->have_spec && f->spec.proto == LP_PROTO_UDP;
}

bool lp_text2_star(const struct lp_fmt_text2 *f, const struct lp_stream_id *sid)
{
    /* From the 2.1.8 captures: a -R server sends unmarked; its -d/-r legs and the sending
     * half of a --full-duplex connection are marked. A client marks what it receives on
     * connections it opened (-R, full duplex), not the -d/-r legs it accepted. */
    if (f->role == LP_ROLE_CLIENT)
        return !sid->sender && sid->initiator;
    return sid->sender && (sid->initiator || (f->have_spec && f->spec.dir == LP_DIR_BIDIR));
}

struct lp_text2_stream *lp_text2_stream(struct lp_fmt_text2 *f, const struct lp_stream_id *sid)
{
    for (unsigned i = 0; i < f->nstreams; i++)
        if (f->streams[i].sid.id == sid->id && f->streams[i].sid.sender == sid->sender)
            return &f->streams[i];
    return NULL;
}

static struct lp_text2_stream *stream_add(struct lp_fmt_text2 *f, const struct lp_stream_conn *c)
{
    struct lp_text2_stream *s;

    if (f->nstreams == f->cap) {
        unsigned cap = f->cap ? f->cap * 2 : 8;
        struct lp_text2_stream *n = realloc(f->streams, cap * sizeof(*n));
        if (!n)
            return NULL;
        f->streams = n;
        f->cap = cap;
    }
    s = &f->streams[f->nstreams++];
    memset(s, 0, sizeof(*s));
    s->sid = c->sid;
    s->local = c->local;
    s->remote = c->remote;
    s->mss = c->mss;
    return s;
}

/* ---- banners ---- */

static const char *proto_name(enum lp_proto p)
{
    return p == LP_PROTO_UDP ? "UDP" : "TCP";
}

/* A buffer size: adaptive ("128 KByte"), or with -f b / -f B the exact count, as 2.1.8
 * prints it then ("131072 Byte"). */
static void buffer_size(const struct lp_fmt_text2 *f, char *buf, size_t len, int bytes)
{
    if (tolower((unsigned char)f->opts.unit) == 'b')
        snprintf(buf, len, "%d Byte", bytes);
    else
        lp_text2_size(buf, len, bytes);
}

/* Buffer size line: "TCP window size:  128 KByte (default)". */
static void buffer_line(struct lp_fmt_text2 *f, bool udp, int actual, bool requested, int wanted)
{
    char a[32], w[32], tail[64] = " (default)";

    if (actual <= 0)
        return;
    buffer_size(f, a, sizeof(a), actual);
    if (requested) {
        tail[0] = '\0';
        if (wanted > 0 && wanted != actual) {
            buffer_size(f, w, sizeof(w), wanted);
            snprintf(tail, sizeof(tail), " (WARNING: requested %s)", w);
        }
    }
    lp_text2_line(f, "%s: %s%s", udp ? "UDP buffer size" : "TCP window size", a, tail);
}

static uint32_t spec_blksize(const struct lp_spec *sp);

/* -m / -M: 2.1.8 prints TCP_MAXSEG as its socket reports it before any connection exists,
 * in the banner: what -M set ("MSS req size 1400 bytes (per TCP_MAXSEG)"), else the value
 * of an unconnected TCP socket (Linux: 536); a UDP socket has none (0). The MSS a
 * connection got is on its connection line (icwnd/mss/irtt). */
#define T2_UNCONNECTED_TCP_MSS 536

static void mss_line(struct lp_fmt_text2 *f, bool udp, const struct lp_spec *sp)
{
    int asked = sp ? (int)sp->mss : 0;
    int v = udp ? 0 : asked > 0 ? asked : T2_UNCONNECTED_TCP_MSS;

    if (!f->opts.print_mss && asked <= 0)
        return;
    if (asked > 0)
        lp_text2_line(f, "MSS req size %d bytes (per TCP_MAXSEG)", v);
    else
        lp_text2_line(f, "MSS size %d bytes", v);
}

/* A server's -e: "Read buffer size:  128 KByte (Dist bin width=16.0 KByte)", the read
 * length and the width of each of the 8 bins of its Reads=Dist column (always adaptive). */
static void read_buffer_line(struct lp_fmt_text2 *f, bool udp, const struct lp_spec *sp)
{
    struct lp_spec as = *sp;
    char len[32], bin[32];

    as.proto = udp ? LP_PROTO_UDP : LP_PROTO_TCP;
    as.dialect = LP_DIALECT_IPERF2; /* the look: 2.1.8's defaults (UDP 1470) */
    uint32_t n = spec_blksize(&as);
    buffer_size(f, len, sizeof(len), (int)n);
    lp_text2_size(bin, sizeof(bin), (double)(n / 8));
    lp_text2_line(f, "Read buffer size: %s (Dist bin width=%s)", len, bin);
}

static void listening_lines(struct lp_fmt_text2 *f, bool udp, const struct lp_rec_listening *l)
{
    char pid[32] = "", also[32] = "";

    if (f->opts.enhanced)
        snprintf(pid, sizeof(pid), " with pid %ld", (long)getpid());
    if (l->port2 && l->port2 != l->port)
        snprintf(also, sizeof(also), " (and %u)", (unsigned)l->port2);
    lp_text2_line(f, "Server listening on %s port %u%s%s", proto_name(udp), (unsigned)l->port, also,
                  pid);
    if (f->opts.enhanced && l->spec)
        read_buffer_line(f, udp, l->spec);
    if (l->spec && l->spec->iperf2.hist.on) {
        const struct lp_histogram_spec *hs = &l->spec->iperf2.hist;
        lp_text2_line(f, "Enabled receive histograms bin-width=%0.3f ms, bins=%u (clients should use --trip-times)",
                      hs->unit_ms ? (double)hs->bin_width : hs->bin_width / 1e3, (unsigned)hs->bins);
    }
    mss_line(f, udp, l->spec);
    buffer_line(f, udp, udp ? l->udp_buffer : l->tcp_window, !udp && l->tcp_window_wanted > 0,
                udp ? 0 : l->tcp_window_wanted);
    if (!udp && l->permit_key && l->permit_key[0]) {
        if (l->permit_key_timeout_s > 0)
            lp_text2_line(f, "Permit key is '%.*s' (timeout in %.1f seconds)", LP_PERMIT_KEY_MAX, l->permit_key,
                          l->permit_key_timeout_s);
        else
            lp_text2_line(f, "Permit key is '%.*s' (WARN: no timeout)", LP_PERMIT_KEY_MAX, l->permit_key);
    }
}

/* A server listens on TCP and UDP at once; its banner names the one it was started for, as
 * 2.1.8's (-s: TCP, -s -u: UDP; scripts and users read the one they asked for). A listener
 * whose buffer size is unknown is named as TCP; a client's -d/-r listener has one of the
 * two. */
static void on_listening(struct lp_fmt_text2 *f, const struct lp_rec_listening *l)
{
    bool both = l->tcp_window > 0 && l->udp_buffer > 0;
    bool tcp = both ? l->asked != LP_PROTO_UDP : l->tcp_window > 0 || l->udp_buffer <= 0;
    bool udp = both ? l->asked == LP_PROTO_UDP : l->udp_buffer > 0;

    if (f->listening_done)
        return;
    f->listening_done = true;
    if (lp_text2_excluded(f, 'S'))
        return;
    lp_text2_line(f, LP_TEXT2_DASHES);
    if (tcp)
        listening_lines(f, false, l);
    if (udp)
        listening_lines(f, true, l);
    lp_text2_line(f, LP_TEXT2_DASHES);
}

static uint32_t spec_blksize(const struct lp_spec *sp)
{
    if (sp->blksize)
        return sp->blksize;
    if (sp->dialect == LP_DIALECT_IPERF2 && sp->proto == LP_PROTO_UDP)
        return LP_IPERF2_UDP_BLKSIZE;
    return lp_spec_blksize(sp);
}

static void sending_line(struct lp_fmt_text2 *f, const struct lp_spec *sp)
{
    uint32_t blk = spec_blksize(sp);

    if (sp->rate_bps)
        lp_text2_line(f, "Sending %u byte datagrams, IPG target: %.2f us (kalman adjust)", blk,
                      (double)blk * 8.0 / (double)sp->rate_bps * 1e6);
    else
        lp_text2_line(f, "Sending %u byte datagrams", blk);
}

/* 2.1.8's --isochronous settings line. */
static void isoch_banner(struct lp_fmt_text2 *f, const struct lp_isoch_spec *is)
{
    char mean[32], sd[32];
    lp_text2_rate1(mean, sizeof(mean), is->mean_bps);
    lp_text2_rate1(sd, sizeof(sd), is->stdev_bps);
    lp_text2_line(f, "Isochronous: %.2f frames/sec mean=%s, stddev=%s, Period/IPG=%.2f/%.3f ms", is->fps, mean, sd,
                  1e3 / is->fps, is->ipg_s * 1e3);
}

/* "Client connecting to H, TCP port P" and its settings, before the first connection line
 * (or before the error when the connection never came up). */
/* 2.1.8's bounceback settings lines (sizes in its adaptive 'A' form). */
static void bounceback_banner(struct lp_fmt_text2 *f, const struct lp_spec *sp)
{
    const struct lp_bounceback_spec *bb = &sp->iperf2.bb;
    char sz[32];

    lp_text2_size(sz, sizeof(sz), spec_blksize(sp));
    if (bb->period_s > 0)
        lp_text2_line(f, "Bursting: %s writes %u times every %0.2f second(s)", sz, bb->burst, bb->period_s);
    lp_text2_line(f, "Bounce-back test (size=%s) (server hold req=%u usecs%s)", sz, (unsigned)bb->hold_us,
                  bb->no_quickack ? "" : " & tcp_quickack");
}

static void client_banner(struct lp_fmt_text2 *f)
{
    const struct lp_rec_connecting *c = &f->connecting;
    const struct lp_spec *sp = f->have_spec ? &f->spec : NULL;
    bool udp = sp ? sp->proto == LP_PROTO_UDP : c->proto == LP_PROTO_UDP;
    char pid[64] = "";

    if (f->client_banner_done || !f->have_connecting)
        return;
    f->client_banner_done = true;
    if (lp_text2_excluded(f, 'S'))
        return;
    if (f->opts.enhanced && sp)
        snprintf(pid, sizeof(pid), " with pid %ld (%u flows)", (long)getpid(), sp->streams);
    lp_text2_line(f, LP_TEXT2_DASHES);
    lp_text2_line(f, "Client connecting to %s, %s port %u%s", c->peer.host, proto_name(udp),
                  (unsigned)c->peer.port, pid);
    if (f->opts.enhanced && sp) {
        char sz[32];
        lp_text2_size_in_bytes(sz, sizeof(sz), spec_blksize(sp));
        if (!udp)
            lp_text2_line(f, "Write buffer size: %s", sz);
        if (sp->iperf2.bb.on)
            bounceback_banner(f, sp);
        if (sp->iperf2.isoch.on)
            isoch_banner(f, &sp->iperf2.isoch);
    }
    mss_line(f, udp, sp);
    if (f->opts.enhanced && sp) {
        lp_text2_line(f, "TOS set to 0x%x %s", sp->tos > 0 ? (unsigned)sp->tos : 0u,
                      sp->nodelay ? "and nodelay (Nagle off)" : "(Nagle on)");
    }
    if (udp && sp && !sp->iperf2.isoch.on) /* 2.1.8's isochronous banner replaces it */
        sending_line(f, sp);
    buffer_line(f, udp, c->window, c->window_requested, sp ? sp->window_bytes : 0);
    lp_text2_line(f, LP_TEXT2_DASHES);
}

/* A server's -d/-r leg: it connects back to the client's listener. The leg's buffer size is
 * in no record, so its line is left out. */
static void leg_banner(struct lp_fmt_text2 *f, const struct lp_stream_conn *c)
{
    bool udp = lp_text2_udp(f);

    if (lp_text2_excluded(f, 'S'))
        return;
    lp_text2_line(f, LP_TEXT2_DASHES);
    lp_text2_line(f, "Client connecting to %s, %s port %u", c->remote.host, proto_name(udp),
                  (unsigned)c->remote.port);
    if (udp)
        sending_line(f, &f->spec);
    lp_text2_line(f, LP_TEXT2_DASHES);
}

/* ---- connection lines ---- */

static bool tag_reverse(const struct lp_fmt_text2 *f, const struct lp_stream_conn *c)
{
    const struct lp_spec *sp = &f->spec;

    if (f->role == LP_ROLE_SERVER && c->sid.initiator)
        return true; /* a -d/-r leg */
    if (!f->have_spec)
        return false;
    /* iperf3's --bidir uses a connection per direction: its reverse ones say so. */
    return sp->dir == LP_DIR_REVERSE ||
           (sp->dialect == LP_DIALECT_IPERF3 && sp->dir == LP_DIR_BIDIR && c->sid.reverse);
}

/* --bounceback-txdelay: 2.1.8's line under the exchanges' connection, the delay in whole
 * seconds rounded up (0.5 -> 1, 2.2 -> 3), its start that much after the current time. */
static void txdelay_line(struct lp_fmt_text2 *f, const char *id, double delay_s)
{
    time_t now = f->start_time > 0 ? f->start_time : time(NULL);
    long secs = (long)delay_s;
    secs += secs < delay_s;
    time_t at = now + secs;
    struct tm tn, ta;
    char when_now[64], when_at[32];
    if (!localtime_r(&now, &tn) || !localtime_r(&at, &ta) ||
        !strftime(when_now, sizeof(when_now), "%Y-%m-%d %H:%M:%S (%Z)", &tn) ||
        !strftime(when_at, sizeof(when_at), "%Y-%m-%d %H:%M:%S", &ta))
        return;
    lp_text2_line(f, "%s Client traffic to start in %ld seconds at %s current time is %s", id, secs, when_at,
                  when_now);
}

static void connection_line(struct lp_fmt_text2 *f, const struct lp_stream_conn *c)
{
    const struct lp_spec *sp = &f->spec;
    char id[LP_TEXT2_ID_MAX], tags[256] = "", when[64];
    size_t n = 0;
    bool udp = lp_text2_udp(f);

#define TAG(...)                                                                                    \
    do {                                                                                            \
        int k_ = snprintf(tags + n, sizeof(tags) - n, __VA_ARGS__);                                 \
        if (k_ > 0)                                                                                 \
            n = (size_t)k_ < sizeof(tags) - n ? n + (size_t)k_ : sizeof(tags) - 1;                  \
    } while (0)

    if (tag_reverse(f, c))
        TAG(" (reverse)");
    if (f->have_spec && sp->dialect == LP_DIALECT_IPERF2 && sp->dir == LP_DIR_BIDIR)
        TAG(" (full-duplex)");
    if (f->have_spec && sp->dialect == LP_DIALECT_IPERF2 && sp->iperf2.isoch.on)
        TAG(" (isoch)");
    if (f->have_spec && sp->dialect == LP_DIALECT_IPERF2 && sp->iperf2.trip_times)
        TAG(" (trip-times)");
    /* Full duplex over UDP implies it (2.1.8 says so on both ends). */
    if (udp && f->have_spec &&
        (sp->iperf2.no_udp_fin || (sp->dialect == LP_DIALECT_IPERF2 && sp->dir == LP_DIR_BIDIR)))
        TAG(" (no-udp-fin)");
    if (f->have_spec && lp_spec_bb_stream(sp, c->sid.id))
        TAG(" (bb%s len/hold=%u/%u)", sp->iperf2.bb.no_quickack ? "" : " w/quickack", (unsigned)lp_spec_blksize(sp),
            (unsigned)sp->iperf2.bb.hold_us);
    else if (f->have_spec && sp->iperf2.bb.on) /* --bounceback-congest's load, as 2.1.8 tags it */
        TAG("%s", sp->iperf2.bb.congest_dir == LP_DIR_BIDIR    ? " (full-duplex)"
                  : sp->iperf2.bb.congest_dir == LP_DIR_REVERSE ? " (reverse)"
                                                                : "");
    if (f->opts.enhanced && c->sid.socket > 0)
        TAG(" (sock=%d)", c->sid.socket);
    if (f->opts.enhanced && c->peer_version[0])
        TAG(" (peer %.15s)", c->peer_version);
    /* A connection that asks for TCP_QUICKACK (the --bounceback-congest load: its client, or
     * a server that read the flag in its header), after the sock and peer tags as 2.1.8. */
    if (f->have_spec && ((sp->iperf2.bb.on && !lp_spec_bb_stream(sp, c->sid.id) && !sp->iperf2.bb.no_quickack) ||
                         (f->role == LP_ROLE_SERVER && sp->iperf2.quickack)))
        TAG(" (qack)");
    if (!udp && (c->icwnd_pkts || c->mss || c->irtt_us))
        TAG(" (icwnd/mss/irtt=%u/%u/%u)", c->icwnd_pkts, c->mss, c->irtt_us);
    if (f->opts.enhanced && f->start_time > 0) {
        struct tm tm;
        if (localtime_r(&f->start_time, &tm) &&
            strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S (%Z)", &tm) > 0)
            TAG(" on %s", when);
    }
#undef TAG
    /* Only a server's -d/-r leg is marked on its connection line. */
    lp_text2_idstr(f, id, sizeof(id), lp_text2_id(&c->sid), f->role == LP_ROLE_SERVER && c->sid.initiator);
    lp_text2_line(f, "%s local %s port %u connected with %s port %u%s", id, c->local.host,
                  (unsigned)c->local.port, c->remote.host, (unsigned)c->remote.port, tags);
    if (f->role == LP_ROLE_CLIENT && f->have_spec && lp_spec_bb_stream(sp, c->sid.id) && sp->iperf2.bb.txdelay_s > 0)
        txdelay_line(f, id, sp->iperf2.bb.txdelay_s);
}

static bool same_connection(const struct lp_text2_stream *s, const struct lp_stream_conn *c)
{
    return s->local.port == c->local.port && s->remote.port == c->remote.port &&
           !strcmp(s->local.host, c->local.host) && !strcmp(s->remote.host, c->remote.host);
}

/* START may come again when a stream joins later (-d/-r legs, -P stragglers): only the
 * streams not seen before get their lines. A --full-duplex connection carries two streams
 * and gets one line. */
static void on_start(struct lp_fmt_text2 *f, const struct lp_rec_start *st)
{
    if (st->spec) {
        f->spec = *st->spec;
        f->have_spec = true;
    }
    if (st->timestamp > 0)
        f->start_time = st->timestamp;
    if (f->role == LP_ROLE_CLIENT)
        client_banner(f);
    for (unsigned i = 0; i < st->nstreams; i++) {
        const struct lp_stream_conn *c = &st->streams[i];
        bool seen = false;
        if (lp_text2_stream(f, &c->sid))
            continue;
        for (unsigned j = 0; j < f->nstreams; j++)
            seen |= same_connection(&f->streams[j], c);
        if (!stream_add(f, c))
            return;
        if (seen)
            continue;
        if (f->role == LP_ROLE_SERVER && c->sid.initiator)
            leg_banner(f, c);
        if (!lp_text2_excluded(f, 'C'))
            connection_line(f, c);
        f->headers = 0;
    }
}

/* ---- errors ---- */

/* 2.1.8's report_peer_fail: a connection refused for its permit key, on stdout with the
 * connection lines (-x C hides it too); with -e its socket and when, as they print it. */
static void drop_line(struct lp_fmt_text2 *f, const struct lp_stream_conn *c)
{
    char tags[256] = "", when[64];
    size_t n = 0;
    int k;
    struct tm tm;
    time_t t = (time_t)(f->lines.wall > 0 ? f->lines.wall : (double)time(NULL));

    if (lp_text2_excluded(f, 'C'))
        return;
    if (f->opts.enhanced && c->sid.socket > 0 && (k = snprintf(tags, sizeof(tags), " (sock=%d)", c->sid.socket)) > 0)
        n = (size_t)k;
    if ((c->icwnd_pkts || c->mss || c->irtt_us) &&
        (k = snprintf(tags + n, sizeof(tags) - n, " (icwnd/mss/irtt=%u/%u/%u)", c->icwnd_pkts, c->mss,
                      c->irtt_us)) > 0)
        n = (size_t)k < sizeof(tags) - n ? n + (size_t)k : sizeof(tags) - 1;
    if (f->opts.enhanced && localtime_r(&t, &tm) && strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S (%Z)", &tm) > 0)
        snprintf(tags + n, sizeof(tags) - n, " on %s", when);
    lp_text2_line(f, "[drop] local %s port %u connection with %s port %u%s (permit key fail)", c->local.host,
                  (unsigned)c->local.port, c->remote.host, (unsigned)c->remote.port, tags);
}

static void on_error(struct lp_fmt_text2 *f, const struct lp_rec_error *e)
{
    const char *msg = e->message ? e->message : "unknown error";
    const struct lp_text2_stream *only = NULL;
    unsigned senders = 0;

    if (e->dropped) {
        drop_line(f, e->dropped);
        return;
    }
    if (e->fatal) {
        /* iperf2 shows the client banner before a connection fails. */
        if (f->role == LP_ROLE_CLIENT)
            client_banner(f);
        err_line(f, "linkperf: error - %s", msg);
        return;
    }
    /* The record names no stream; a warning of a one-sender test is that stream's, shown
     * like iperf2's "[  1] WARNING: ...". */
    for (unsigned i = 0; i < f->nstreams; i++) {
        if (f->streams[i].sid.sender) {
            only = &f->streams[i];
            senders++;
        }
    }
    if (senders == 1 && !strncasecmp(msg, "WARNING", 7))
        err_line(f, "[%3d] %s", lp_text2_id(&only->sid), msg);
    else
        err_line(f, "%s", msg);
}

static void text2_record(struct lp_fmt *base, const struct lp_record *rec)
{
    struct lp_fmt_text2 *f = (struct lp_fmt_text2 *)base;

    f->lines.wall = rec->wall_time;
    f->role = rec->role;
    switch (rec->kind) {
    case LP_REC_LISTENING:
        on_listening(f, &rec->u.listening);
        break;
    case LP_REC_CONNECTING:
        /* A server prints nothing when a peer connects; a client's banner waits for START
         * (it names the datagram size and rate of the spec) or for the error. */
        if (rec->role == LP_ROLE_CLIENT) {
            f->connecting = rec->u.connecting;
            f->have_connecting = true;
        }
        break;
    case LP_REC_START:
        on_start(f, &rec->u.start);
        break;
    case LP_REC_INTERVAL:
        lp_text2_interval(f, &rec->u.interval);
        break;
    case LP_REC_END:
        lp_text2_end(f, &rec->u.end);
        break;
    case LP_REC_LEG_END:
        lp_text2_leg_end(f, &rec->u.end);
        break;
    case LP_REC_ERROR:
        on_error(f, &rec->u.error);
        break;
    case LP_REC_DEBUG:
        lp_fmt_lines_debug(&f->lines, &rec->u.debug);
        break;
    case LP_REC_DONE:
        break; /* iperf2 prints nothing more */
    }
}

static void text2_free(struct lp_fmt *base)
{
    struct lp_fmt_text2 *f = (struct lp_fmt_text2 *)base;

    free(f->streams);
    free(f);
}

static const struct lp_fmt_ops text2_ops = {.record = text2_record, .free = text2_free};

struct lp_fmt *lp_fmt_text2_new(const struct lp_fmt_opts *opts, const struct lp_out *out)
{
    struct lp_fmt_text2 *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    lp_fmt_lines_init(&f->lines, &f->opts, opts, out, true);
    f->base.ops = &text2_ops;
    return &f->base;
}

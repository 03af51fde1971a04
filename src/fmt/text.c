/* Text output in iperf3 3.12's layout: banner, connection lines, -V extras, errors, the
 * closing lines. The tables live in text_rows.c; nothing here computes a measurement. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "fmt/fmt_util.h"
#include "fmt/looks.h"
#include "fmt/text_int.h"

#define DASHES "-----------------------------------------------------------"

void lp_text_line(struct lp_fmt_text *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    lp_fmt_lines_vprintf(&f->lines, LP_OUT_STDOUT, true, fmt, ap);
    va_end(ap);
    f->sep_last = false;
}

/* iperf3 prints errors with the timestamp but without the -T title. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void err_line(struct lp_fmt_text *f, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    lp_fmt_lines_vprintf(&f->lines, LP_OUT_STDERR, false, fmt, ap);
    va_end(ap);
}

void lp_text_separator(struct lp_fmt_text *f)
{
    lp_text_line(f, "- - - - - - - - - - - - - - - - - - - - - - - - -");
    f->sep_last = true;
}

/* ---- records ---- */

static void on_listening(struct lp_fmt_text *f, const struct lp_rec_listening *l)
{
    if (f->opts.verbose && !f->version_done) {
        char sys[LP_SYSINFO_MAX];
        lp_fmt_sysinfo(sys, sizeof(sys));
        lp_text_line(f, "%s", LP_VERSION_STR);
        lp_text_line(f, "%s", sys);
        f->version_done = true;
    }
    lp_text_line(f, DASHES);
    lp_text_line(f, "Server listening on %u (test #%u)", (unsigned)l->port, l->test_number);
    /* iperf3's line names one port; a linkperf server without -p serves 5001 too. */
    if (l->port2 && l->port2 != l->port)
        lp_text_line(f, "Also listening on %u (both ports serve iperf3, iperf2 and JPerf clients, TCP and UDP)",
                     (unsigned)l->port2);
    /* iperf2 --permit-key: which key (it may have been made up for the server), as 2.1.8. */
    if (l->permit_key && l->permit_key[0] && l->permit_key_timeout_s > 0)
        lp_text_line(f, "Permit key is '%.*s' (timeout in %.1f seconds)", LP_PERMIT_KEY_MAX, l->permit_key,
                     l->permit_key_timeout_s);
    else if (l->permit_key && l->permit_key[0])
        lp_text_line(f, "Permit key is '%.*s' (WARN: no timeout)", LP_PERMIT_KEY_MAX, l->permit_key);
    lp_text_line(f, DASHES);
}

static void on_connecting(struct lp_fmt_text *f, const struct lp_record *rec)
{
    const struct lp_endpoint *p = &rec->u.connecting.peer;

    if (rec->role == LP_ROLE_CLIENT) {
        /* iperf3 says "Connecting to host" only once the control connection is up, so a
         * refused or busy server prints just the error. The line waits for START. */
        f->have_peer = true;
        f->peer = *p;
        return;
    }
    if (f->opts.verbose) {
        char when[64];
        lp_fmt_gmt(when, sizeof(when), rec->wall_time > 0 ? (time_t)rec->wall_time : time(NULL));
        lp_text_line(f, "Time: %s", when);
    }
    lp_text_line(f, "Accepted connection from %s, port %u", p->host, (unsigned)p->port);
}

static void client_intro(struct lp_fmt_text *f, const struct lp_rec_start *st)
{
    const struct lp_endpoint *peer = f->have_peer ? &f->peer : &st->control_peer;

    if (f->opts.verbose) {
        char when[64];
        lp_text_line(f, "%s", st->version ? st->version : LP_VERSION_STR);
        if (st->system_info)
            lp_text_line(f, "%s", st->system_info);
        if (st->tcp_mss_default > 0)
            lp_text_line(f, "Control connection MSS %d", st->tcp_mss_default);
        lp_fmt_gmt(when, sizeof(when), st->timestamp);
        lp_text_line(f, "Time: %s", when);
    }
    lp_text_line(f, "Connecting to host %s, port %u", peer->host, (unsigned)peer->port);
    if (st->spec && st->spec->dir == LP_DIR_REVERSE)
        lp_text_line(f, "Reverse mode, remote host %s is sending", peer->host);
}

static void test_params(struct lp_fmt_text *f, const struct lp_rec_start *st)
{
    const struct lp_spec *sp = st->spec;

    if (st->cookie)
        lp_text_line(f, "      Cookie: %s", st->cookie);
    if (!sp)
        return;
    if (sp->proto == LP_PROTO_TCP) {
        if (st->tcp_mss > 0)
            lp_text_line(f, "      TCP MSS: %d", st->tcp_mss);
        else
            lp_text_line(f, "      TCP MSS: %d (default)", st->tcp_mss_default);
    }
    if (sp->rate_bps)
        lp_text_line(f, "      Target Bitrate: %" PRIu64, sp->rate_bps);
}

static void starting_test(struct lp_fmt_text *f, const struct lp_spec *sp)
{
    char what[64];

    if (sp->bytes)
        snprintf(what, sizeof(what), "%" PRIu64 " bytes to send", sp->bytes);
    else if (sp->blocks)
        snprintf(what, sizeof(what), "%" PRIu64 " blocks to send", sp->blocks);
    else
        snprintf(what, sizeof(what), "%d second test", (int)sp->duration_s);
    lp_text_line(f, "Starting Test: protocol: %s, %u streams, %u byte blocks, omitting %u seconds, "
                    "%s, tos %d",
                 sp->proto == LP_PROTO_UDP ? "UDP" : "TCP", sp->streams, lp_spec_blksize(sp),
                 sp->omit_s, what, sp->tos < 0 ? 0 : sp->tos);
}

static void on_start(struct lp_fmt_text *f, const struct lp_record *rec)
{
    const struct lp_rec_start *st = &rec->u.start;

    f->have_start = true;
    if (st->spec) {
        f->udp = st->spec->proto == LP_PROTO_UDP;
        f->bidir = st->spec->dir == LP_DIR_BIDIR;
    }
    if (rec->role == LP_ROLE_CLIENT)
        client_intro(f, st);
    if (f->opts.verbose)
        test_params(f, st);
    for (unsigned i = 0; i < st->nstreams; i++) {
        const struct lp_stream_conn *c = &st->streams[i];
        lp_text_line(f, "[%3d] local %s port %u connected to %s port %u", c->sid.socket,
                     c->local.host, (unsigned)c->local.port, c->remote.host,
                     (unsigned)c->remote.port);
    }
    if (f->opts.verbose && st->spec)
        starting_test(f, st->spec);
}

/* --get-server-output: iperf3 writes this block raw, without timestamp or title. */
static void server_output(struct lp_fmt_text *f, const struct lp_rec_end *end)
{
    static const char text_hdr[] = "Server output:\n", json_hdr[] = "Server JSON output:\n";
    char *pretty = NULL;
    const char *body;

    if (end->server_output_json) {
        cJSON *doc = cJSON_Parse(end->server_output_json);
        if (doc)
            pretty = cJSON_Print(doc);
        cJSON_Delete(doc);
        body = pretty ? pretty : end->server_output_json;
        lp_text_line(f, "%s", "");
        lp_fmt_lines_write(&f->lines, LP_OUT_STDOUT, json_hdr, sizeof(json_hdr) - 1);
    } else {
        body = end->server_output_text;
        lp_text_line(f, "%s", "");
        lp_fmt_lines_write(&f->lines, LP_OUT_STDOUT, text_hdr, sizeof(text_hdr) - 1);
    }
    lp_fmt_lines_write(&f->lines, LP_OUT_STDOUT, body, strlen(body));
    lp_fmt_lines_write(&f->lines, LP_OUT_STDOUT, "\n", 1);
    free(pretty);
}

static void on_error(struct lp_fmt_text *f, const struct lp_rec_error *e)
{
    const char *msg = e->message ? e->message : "unknown error";

    if (e->fatal)
        err_line(f, "linkperf: error - %s", msg);
    else
        err_line(f, "linkperf: %s", msg);
}

static void text_record(struct lp_fmt *base, const struct lp_record *rec)
{
    struct lp_fmt_text *f = (struct lp_fmt_text *)base;

    f->lines.wall = rec->wall_time;
    f->role = rec->role;
    switch (rec->kind) {
    case LP_REC_LISTENING:
        on_listening(f, &rec->u.listening);
        break;
    case LP_REC_CONNECTING:
        on_connecting(f, rec);
        break;
    case LP_REC_START:
        on_start(f, rec);
        break;
    case LP_REC_INTERVAL:
        lp_text_interval(f, &rec->u.interval);
        break;
    case LP_REC_END:
        f->completed = !rec->u.end.partial;
        lp_text_summary(f, &rec->u.end);
        if (rec->role == LP_ROLE_CLIENT &&
            (rec->u.end.server_output_json || rec->u.end.server_output_text))
            server_output(f, &rec->u.end);
        break;
    case LP_REC_ERROR:
        f->failed |= rec->u.error.fatal;
        on_error(f, &rec->u.error);
        break;
    case LP_REC_DEBUG:
        lp_fmt_lines_debug(&f->lines, &rec->u.debug);
        break;
    case LP_REC_LEG_END:
        break; /* iperf3's look summarises at END */
    case LP_REC_DONE:
        /* iperf3 says "iperf Done." only after a test that ran to its end. */
        if (rec->role == LP_ROLE_CLIENT && f->completed && !f->failed) {
            lp_text_line(f, "%s", "");
            lp_text_line(f, "iperf Done.");
        }
        break;
    }
}

static void text_free(struct lp_fmt *base)
{
    free((struct lp_fmt_text *)base);
}

static const struct lp_fmt_ops text_ops = {.record = text_record, .free = text_free};

struct lp_fmt *lp_fmt_text_new(const struct lp_fmt_opts *opts, const struct lp_out *out)
{
    struct lp_fmt_text *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    lp_fmt_lines_init(&f->lines, &f->opts, opts, out, true);
    f->base.ops = &text_ops;
    return &f->base;
}

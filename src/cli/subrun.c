/* One test of a measurement subcommand, the CLI's way of running them, and the command-line
 * loop they share (see subrun.h). */
#include "cli/subrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli/values.h"

static void take_record(const struct lp_record *rec, void *user)
{
    struct lp_subrun *t = user;
    if (rec->kind == LP_REC_ERROR) {
        t->failed = true;
        if (!t->error[0] && rec->u.error.message)
            snprintf(t->error, sizeof(t->error), "%s", rec->u.error.message);
        return;
    }
    if (rec->kind != LP_REC_END)
        return;
    const struct lp_rec_end *e = &rec->u.end;
    t->ended = true;
    for (unsigned i = 0; i < e->nstreams; i++) {
        const struct lp_stream_end *s = &e->streams[i];
        const struct lp_total *own = s->sid.sender ? &s->sender : &s->receiver;
        if (own->present) {
            if (s->sid.sender)
                t->up_bps += own->bits_per_second;
            else
                t->down_bps += own->bits_per_second;
            if (s->sid.sender && own->has_retransmits) {
                t->has_retransmits = true;
                t->retransmits += own->retransmits;
            }
            if (own->has_latency && own->latency.count) {
                t->rtt = own->latency;
                t->rtt.hist = t->rtt.hist_base = NULL;
            }
        }
        /* UDP we sent: what the receiver says it took in (its expected count, the highest
         * sequence number, less the gaps it saw; datagrams lost after the last one that
         * arrived are in neither, so they count as lost against what we sent). */
        if (s->sid.sender && s->sender.is_udp) {
            t->sent_packets += s->sender.packets;
            if (s->receiver.present) {
                t->has_peer_report = true;
                int64_t got = (int64_t)s->receiver.packets - s->receiver.lost_packets;
                t->received_packets += got > 0 ? (uint64_t)got : 0;
            }
        }
    }
}

int lp_subrun_client(const struct lp_spec *sp, struct lp_subrun *r, struct lp_client **slot,
                     const struct lp_subrun_ctl *ctl)
{
    struct lp_sink sink = {.record = take_record, .user = r};
    char err[256] = "";
    struct lp_client *c = lp_client_new(sp, &sink, err, sizeof(err));
    if (!c) {
        r->failed = true;
        snprintf(r->error, sizeof(r->error), "%s", err);
        return -1;
    }
    if (slot)
        __atomic_store_n(slot, c, __ATOMIC_RELEASE);
    if (ctl && ctl->target)
        ctl->target(ctl->user, c);
    int rc = lp_client_run(c);
    if (ctl && ctl->target)
        ctl->target(ctl->user, NULL);
    if (slot)
        __atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
    lp_client_free(c);
    if (rc != 0 && rc != LP_ECANCEL)
        r->failed = true;
    return rc;
}

/* ---- the CLI's control: stderr and signals ---- */

void lp_subrun_progress_text(const char *name, const struct lp_subrun_progress *p, char *buf, size_t len)
{
    snprintf(buf, len, "linkperf: %s: %s (%s%.0f s left)", name, p->line, p->left_bound ? "at most " : "",
             p->left_s > 0 ? p->left_s : 0);
}

static void cli_progress(void *user, const struct lp_subrun_progress *p)
{
    const struct lp_subrun_cli *c = user;
    char line[320];
    if (c->quiet)
        return;
    lp_subrun_progress_text(c->name, p, line, sizeof(line));
    fprintf(stderr, "%s\n", line);
}

static void cli_target(void *user, struct lp_client *cl)
{
    const struct lp_subrun_cli *c = user;
    lp_cli_signals_target(c->sig, cl, NULL);
}

static int cli_stopped(void *user)
{
    const struct lp_subrun_cli *c = user;
    return lp_cli_signals_stopped(c->sig);
}

void lp_subrun_cli_ctl(struct lp_subrun_cli *c, struct lp_subrun_ctl *ctl)
{
    *ctl = (struct lp_subrun_ctl){.progress = cli_progress, .target = cli_target,
                                  .stopped = cli_stopped, .user = c};
}

/* ---- the command line ---- */

static int take_shared(int argc, char *const argv[], int *i, struct lp_subrun_target *t, char *why,
                          size_t whylen)
{
    const char *o = argv[*i];
    if (!strcmp(o, "-J") || !strcmp(o, "--json")) {
        t->json = true;
        return 1;
    }
    if (!strcmp(o, "-4") || !strcmp(o, "-6")) {
        t->family = o[1] == '4' ? LP_FAMILY_INET : LP_FAMILY_INET6;
        return 1;
    }
    if (!strcmp(o, "--no-history")) {
        t->no_history = true;
        return 1;
    }
    bool host = !strcmp(o, "-c") || !strcmp(o, "--client");
    bool port = !strcmp(o, "-p") || !strcmp(o, "--port");
    bool db = !strcmp(o, "--db");
    if (!host && !port && !db)
        return 0;
    if (*i + 1 >= argc) {
        snprintf(why, whylen, "option %s needs a value", o);
        return -1;
    }
    const char *v = argv[++*i];
    double d;
    if (db) {
        if (!*v || strlen(v) >= sizeof(t->db)) {
            snprintf(why, whylen, "option --db: '%s' is not a file name", v);
            return -1;
        }
        snprintf(t->db, sizeof(t->db), "%s", v);
        return 1;
    }
    if (host) {
        if (!*v || strlen(v) >= sizeof(t->host)) {
            snprintf(why, whylen, "option -c: '%s' is not a host name or address", v);
            return -1;
        }
        snprintf(t->host, sizeof(t->host), "%s", v);
        return 1;
    }
    if (lp_cli_value_int(v, false, &d) < 0 || d < 1 || d > 65535) {
        snprintf(why, whylen, "option -p: '%s' is out of range (1..65535)", v);
        return -1;
    }
    t->port = (uint16_t)d;
    t->port_given = true;
    return 1;
}

int lp_subrun_parse(int argc, char *const argv[], struct lp_subrun_target *t, lp_subrun_take_fn take,
                    void *args, char *why, size_t whylen)
{
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-h") || !strcmp(o, "--help"))
            return 1;
        int shared = take_shared(argc, argv, &i, t, why, whylen);
        if (shared < 0)
            return -1;
        if (shared)
            continue;
        /* Every other option takes a value: one without is named as such even when unknown. */
        if (i + 1 >= argc) {
            snprintf(why, whylen, "option %s needs a value", o);
            return -1;
        }
        int rc = take(args, o, argv[++i], why, whylen);
        if (rc == LP_SUBRUN_UNKNOWN)
            snprintf(why, whylen, "unknown option %s", o);
        if (rc < 0)
            return -1;
    }
    if (!t->host[0]) {
        snprintf(why, whylen, "give the server with -c host");
        return -1;
    }
    return 0;
}

int lp_subrun_number(const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end || errno || !(d >= lo && d <= hi))
        return -1;
    *out = d;
    return 0;
}

int lp_subrun_print_json(cJSON *doc)
{
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (!text)
        return -1;
    puts(text);
    cJSON_free(text);
    return 0;
}

void lp_subrun_aim(struct lp_spec *sp, const struct lp_subrun_target *t)
{
    snprintf(sp->host, sizeof(sp->host), "%s", t->host);
    sp->port = t->port;
    sp->family = t->family;
}

double lp_subrun_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One test of a measurement subcommand (see subrun.h). */
#include "cli/subrun.h"

#include <stdio.h>
#include <string.h>

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
                     struct lp_cli_signals *sig)
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
    if (sig)
        lp_cli_signals_target(sig, c, NULL);
    int rc = lp_client_run(c);
    if (sig)
        lp_cli_signals_target(sig, NULL, NULL);
    if (slot)
        __atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
    lp_client_free(c);
    if (rc != 0 && rc != LP_ECANCEL)
        r->failed = true;
    return rc;
}

int lp_subrun_take_option(int argc, char **argv, int *i, struct lp_subrun_target *t, char *why,
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
    bool host = !strcmp(o, "-c") || !strcmp(o, "--client");
    bool port = !strcmp(o, "-p") || !strcmp(o, "--port");
    if (!host && !port)
        return 0;
    if (*i + 1 >= argc) {
        snprintf(why, whylen, "option %s needs a value", o);
        return -1;
    }
    const char *v = argv[++*i];
    double d;
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

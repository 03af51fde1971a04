/* One test of a measurement subcommand (see subrun.h). */
#include "cli/subrun.h"

#include <stdio.h>
#include <string.h>

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

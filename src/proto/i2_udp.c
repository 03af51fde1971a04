/* iperf2 UDP end-of-test exchange (see i2_udp.h). */
#include "proto/i2_udp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/clock.h"
#include "stats/latency.h"

static void send_fin(struct lp_i2_fin *f)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    lp_i2_udp_prefix_put(f->dgram, -f->next_seq, (uint32_t)ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000));
    ssize_t w = send(f->fd, f->dgram, f->len, MSG_DONTWAIT);
    (void)w; /* a lost FIN is what the retries are for */
    /* Each retry counts one further (iperf2 does the same, so receivers see new numbers). */
    f->next_seq++;
    f->sent++;
}

static void fin_finish(struct lp_i2_fin *f, bool got, const struct lp_i2_report *r)
{
    f->active = false;
    lp_timer_cancel(f->loop, &f->timer);
    free(f->dgram);
    f->dgram = NULL;
    if (f->done)
        f->done(f, got, r);
}

static void on_fin_timer(struct lp_timer *t)
{
    struct lp_i2_fin *f = lp_container_of(t, struct lp_i2_fin, timer);
    /* Any datagram from the receiver ends the wait; a report is parsed if it is one. */
    uint8_t buf[1500];
    for (;;) {
        ssize_t r = recv(f->fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (r < 0)
            break;
        struct lp_i2_report rep;
        /* A stale 52-byte ack of type 2 (2.0.13-era) is not a report. */
        if (r == 52 && buf[3] == 2)
            continue;
        bool ok = lp_i2_report_decode(buf, (size_t)r, &rep);
        fin_finish(f, ok, ok ? &rep : NULL);
        return;
    }
    if (lp_now_ns() >= f->deadline_ns) {
        fin_finish(f, false, NULL);
        return;
    }
    send_fin(f);
    lp_timer_arm(f->loop, &f->timer, lp_now_ns() + LP_I2_FIN_INTERVAL_MS * LP_NS_PER_MS);
}

int lp_i2_fin_start(struct lp_i2_fin *f, struct lp_loop *loop, int fd, const uint8_t *tmpl, size_t len,
                    uint64_t last_seq, bool wait_report, lp_i2_fin_done_fn done, void *owner)
{
    memset(f, 0, sizeof(*f));
    f->dgram = malloc(len < LP_I2_UDP_PREFIX ? LP_I2_UDP_PREFIX : len);
    if (!f->dgram)
        return -ENOMEM;
    memcpy(f->dgram, tmpl, len);
    f->len = len < LP_I2_UDP_PREFIX ? LP_I2_UDP_PREFIX : len;
    f->loop = loop;
    f->fd = fd;
    f->next_seq = (int64_t)last_seq + 1;
    f->wait_report = wait_report;
    f->done = done;
    f->owner = owner;
    f->active = true;
    lp_timer_init(&f->timer, on_fin_timer);
    send_fin(f);
    if (!wait_report) {
        fin_finish(f, false, NULL);
        return 0;
    }
    f->deadline_ns = lp_now_ns() + LP_I2_FIN_WAIT_MS * LP_NS_PER_MS;
    lp_timer_arm(loop, &f->timer, lp_now_ns() + LP_I2_FIN_INTERVAL_MS * LP_NS_PER_MS);
    return 0;
}

void lp_i2_fin_cancel(struct lp_i2_fin *f)
{
    if (!f->active)
        return;
    f->active = false;
    lp_timer_cancel(f->loop, &f->timer);
    free(f->dgram);
    f->dgram = NULL;
}

void lp_i2_report_to_result(const struct lp_i2_report *r, int id, struct lp_peer_stream *p)
{
    memset(p, 0, sizeof(*p));
    p->id = id;
    p->bytes = r->bytes;
    p->end_time = (double)r->stop_sec + (double)r->stop_usec / 1e6;
    p->errors = (int64_t)r->errors;
    p->out_of_order = r->out_of_order;
    p->packets = r->datagrams;
    p->jitter_s = (double)r->jitter_sec + (double)r->jitter_usec / 1e6;
    if (r->has_transit && r->transit_count) {
        p->has_latency = true;
        lp_latency_stat_from_moments(&p->latency, r->transit_count, r->transit_mean_s, r->transit_min_s,
                                     r->transit_max_s, r->transit_m2_s2);
    }
}

/* ---- the receiver's report ---- */

static void send_report(struct lp_i2_reporter *r)
{
    ssize_t w = send(r->fd, r->report, sizeof(r->report), MSG_DONTWAIT);
    (void)w;
    r->sent++;
}

static void reporter_finish(struct lp_i2_reporter *r, bool acked)
{
    r->active = false;
    lp_timer_cancel(r->loop, &r->timer);
    if (r->done)
        r->done(r, acked);
}

static void on_report_timer(struct lp_timer *t)
{
    struct lp_i2_reporter *r = lp_container_of(t, struct lp_i2_reporter, timer);
    bool more = false;
    uint8_t buf[64];
    while (recv(r->fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC) >= 0)
        more = true;
    /* Silence for 250 ms means the sender got the report. */
    if (!more) {
        reporter_finish(r, true);
        return;
    }
    if (r->sent >= LP_I2_REPORT_TRIES) {
        reporter_finish(r, false);
        return;
    }
    send_report(r);
    lp_timer_arm(r->loop, &r->timer, lp_now_ns() + LP_I2_REPORT_WAIT_MS * LP_NS_PER_MS);
}

void lp_i2_reporter_start(struct lp_i2_reporter *r, struct lp_loop *loop, int fd, const struct lp_i2_report *rep,
                          lp_i2_reporter_done_fn done, void *owner)
{
    memset(r, 0, sizeof(*r));
    r->loop = loop;
    r->fd = fd;
    r->done = done;
    r->owner = owner;
    r->active = true;
    lp_i2_report_encode(r->report, rep);
    lp_timer_init(&r->timer, on_report_timer);
    send_report(r);
    lp_timer_arm(loop, &r->timer, lp_now_ns() + LP_I2_REPORT_WAIT_MS * LP_NS_PER_MS);
}

void lp_i2_reporter_cancel(struct lp_i2_reporter *r)
{
    if (!r->active)
        return;
    r->active = false;
    lp_timer_cancel(r->loop, &r->timer);
}

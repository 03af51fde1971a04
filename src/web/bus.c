/* Event ring for the web UI's SSE streams. One mutex and one condition variable: publishers
 * are the engine's record callbacks (a few hundred events a second at most), readers are the
 * SSE connections' threads. Does not format JSON; callers hand in finished lines. */
#include "web/bus.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct bus_event {
    uint64_t id;
    char *text; /* the whole SSE event, "id: ...\n\n" */
    size_t len;
};

struct lp_bus {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct bus_event ring[LP_BUS_EVENTS_MAX];
    uint64_t first; /* id of the oldest event kept (== next_id when empty) */
    uint64_t next_id;
    size_t bytes;
    int closed;
};

static struct bus_event *slot(struct lp_bus *b, uint64_t id)
{
    return &b->ring[id % LP_BUS_EVENTS_MAX];
}

struct lp_bus *lp_bus_new(void)
{
    struct lp_bus *b = calloc(1, sizeof(*b));
    pthread_condattr_t ca;

    if (!b)
        return NULL;
    pthread_mutex_init(&b->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->cv, &ca);
    pthread_condattr_destroy(&ca);
    b->first = b->next_id = 1;
    return b;
}

static void drop_oldest(struct lp_bus *b)
{
    struct bus_event *e = slot(b, b->first);

    b->bytes -= e->len;
    free(e->text);
    e->text = NULL;
    b->first++;
}

uint64_t lp_bus_publish(struct lp_bus *b, const char *name, const char *json)
{
    size_t n = strlen(name) + strlen(json) + 48;
    char *text = malloc(n);
    uint64_t id;
    int len;

    if (!text)
        return 0;
    pthread_mutex_lock(&b->mu);
    id = b->next_id++;
    len = snprintf(text, n, "id: %" PRIu64 "\nevent: %s\ndata: %s\n\n", id, name, json);
    while (b->first < id && (id - b->first >= LP_BUS_EVENTS_MAX ||
                             b->bytes + (size_t)len > LP_BUS_BYTES_MAX))
        drop_oldest(b);
    slot(b, id)->id = id;
    slot(b, id)->text = text;
    slot(b, id)->len = (size_t)len;
    b->bytes += (size_t)len;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return id;
}

/* replay: a new page gets what the ring still holds (runs started before it opened);
 * a reconnecting one (last_id > 0, the Last-Event-ID header) what came after last_id. */
void lp_bus_cursor_init(struct lp_bus *b, struct lp_bus_cursor *c, uint64_t last_id, int replay)
{
    pthread_mutex_lock(&b->mu);
    c->next = last_id > 0 ? last_id + 1 : replay ? b->first : b->next_id;
    c->offset = 0;
    pthread_mutex_unlock(&b->mu);
}

static void deadline_after(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

long lp_bus_read(struct lp_bus *b, struct lp_bus_cursor *c, char *buf, size_t cap,
                 int timeout_ms)
{
    struct timespec until;
    size_t out = 0;

    deadline_after(&until, timeout_ms);
    pthread_mutex_lock(&b->mu);
    while (!b->closed && c->next >= b->next_id) {
        if (pthread_cond_timedwait(&b->cv, &b->mu, &until) == ETIMEDOUT)
            break;
    }
    if (b->closed && c->next >= b->next_id) { /* what was published still goes out */
        pthread_mutex_unlock(&b->mu);
        return -1;
    }
    if (c->next < b->first) { /* fell behind the ring: what it missed is gone */
        static const char gap[] = "event: gap\ndata: {}\n\n";
        c->next = b->first;
        c->offset = 0;
        if (cap >= sizeof(gap) - 1) {
            memcpy(buf, gap, sizeof(gap) - 1);
            out = sizeof(gap) - 1;
        }
    }
    while (c->next < b->next_id && out < cap) {
        struct bus_event *e = slot(b, c->next);
        size_t n = e->len - c->offset;

        if (n > cap - out) {
            if (out > 0) /* whole events per read when they fit */
                break;
            n = cap - out;
        }
        memcpy(buf + out, e->text + c->offset, n);
        out += n;
        c->offset += n;
        if (c->offset == e->len) {
            c->next++;
            c->offset = 0;
        }
    }
    pthread_mutex_unlock(&b->mu);
    return (long)out;
}

void lp_bus_close(struct lp_bus *b)
{
    pthread_mutex_lock(&b->mu);
    b->closed = 1;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

void lp_bus_free(struct lp_bus *b)
{
    if (!b)
        return;
    while (b->first < b->next_id)
        drop_oldest(b);
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
    free(b);
}

/* The page's connection gate (see gate.h). */
#include "web/gate.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "core/clock.h"

struct slot {
    int fd;
    bool used, proven, shut;
    uint64_t opened_ns;
};

struct lp_web_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t watchdog;
    bool stop, thread_ok;
    unsigned sse;
    struct slot slots[LP_WEB_GATE_SLOTS];
};

/* Once a second: shut down the connections that are still unproven after their time. The
 * fd is still open here: libmicrohttpd closes it only after lp_web_gate_closed, which takes
 * the same lock, so a shutdown never reaches a socket that reused the number. */
static void *watch(void *arg)
{
    struct lp_web_gate *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&g->cv, &g->mu, &ts);
        uint64_t now = lp_now_ns();
        for (unsigned i = 0; i < LP_WEB_GATE_SLOTS; i++) {
            struct slot *s = &g->slots[i];
            if (s->used && !s->proven && !s->shut &&
                now - s->opened_ns > (uint64_t)LP_WEB_GATE_UNPROVEN_S * LP_NS_PER_S) {
                shutdown(s->fd, SHUT_RDWR);
                s->shut = true;
            }
        }
    }
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

struct lp_web_gate *lp_web_gate_new(void)
{
    struct lp_web_gate *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (pthread_create(&g->watchdog, NULL, watch, g) != 0) {
        lp_web_gate_free(g);
        return NULL;
    }
    g->thread_ok = true;
    return g;
}

void lp_web_gate_free(struct lp_web_gate *g)
{
    if (!g)
        return;
    if (g->thread_ok) {
        pthread_mutex_lock(&g->mu);
        g->stop = true;
        pthread_cond_signal(&g->cv);
        pthread_mutex_unlock(&g->mu);
        pthread_join(g->watchdog, NULL);
    }
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

/* At the limit the oldest unproven connection makes room: a page that has the token sends
 * its request within a millisecond of connecting, so holding slots now takes a flood of new
 * connections, not a few slow ones. */
bool lp_web_gate_admit(struct lp_web_gate *g)
{
    pthread_mutex_lock(&g->mu);
    unsigned live = 0;
    struct slot *oldest = NULL;
    for (unsigned i = 0; i < LP_WEB_GATE_SLOTS; i++) {
        struct slot *s = &g->slots[i];
        if (!s->used || s->proven || s->shut)
            continue;
        live++;
        if (!oldest || s->opened_ns < oldest->opened_ns)
            oldest = s;
    }
    if (live >= LP_WEB_GATE_UNPROVEN_MAX && oldest) {
        shutdown(oldest->fd, SHUT_RDWR);
        oldest->shut = true;
    }
    pthread_mutex_unlock(&g->mu);
    return true;
}

void lp_web_gate_opened(struct lp_web_gate *g, int fd, void **ctx)
{
    *ctx = NULL;
    pthread_mutex_lock(&g->mu);
    for (unsigned i = 0; i < LP_WEB_GATE_SLOTS; i++) {
        struct slot *s = &g->slots[i];
        if (!s->used) {
            *s = (struct slot){.fd = fd, .used = true, .opened_ns = lp_now_ns()};
            *ctx = s;
            break;
        }
    }
    pthread_mutex_unlock(&g->mu);
}

void lp_web_gate_closed(struct lp_web_gate *g, void **ctx)
{
    struct slot *s = *ctx;
    if (!s)
        return;
    pthread_mutex_lock(&g->mu);
    s->used = false;
    pthread_mutex_unlock(&g->mu);
    *ctx = NULL;
}

void lp_web_gate_proven(struct lp_web_gate *g, void *ctx)
{
    struct slot *s = ctx;
    if (!s)
        return;
    pthread_mutex_lock(&g->mu);
    if (s->used)
        s->proven = true;
    pthread_mutex_unlock(&g->mu);
}

bool lp_web_gate_sse_begin(struct lp_web_gate *g)
{
    pthread_mutex_lock(&g->mu);
    bool ok = g->sse < LP_WEB_GATE_SSE_MAX;
    if (ok)
        g->sse++;
    pthread_mutex_unlock(&g->mu);
    return ok;
}

void lp_web_gate_sse_end(struct lp_web_gate *g)
{
    pthread_mutex_lock(&g->mu);
    if (g->sse)
        g->sse--;
    pthread_mutex_unlock(&g->mu);
}

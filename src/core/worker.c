/* Worker threads: start, pick, stop. What a stream does on its worker lives in stream.c. */
#include "core/worker.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Large enough for the biggest TCP read we issue and the biggest UDP datagram batch. */
#define LP_WORKER_SCRATCH (2u * 1024u * 1024u)

static void *worker_main(void *arg)
{
    struct lp_worker *w = arg;
    lp_loop_run(&w->loop);
    return NULL;
}

int lp_workers_start(struct lp_workers *ws, unsigned n)
{
    memset(ws, 0, sizeof(*ws));
    if (n == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus > 0 ? (unsigned)cpus : 1;
    }
    if (n > LP_MAX_WORKERS)
        n = LP_MAX_WORKERS;
    ws->w = calloc(n, sizeof(*ws->w));
    if (!ws->w)
        return -ENOMEM;
    for (unsigned i = 0; i < n; i++) {
        struct lp_worker *w = &ws->w[i];
        w->index = i;
        w->scratch_len = LP_WORKER_SCRATCH;
        w->scratch = malloc(w->scratch_len);
        int err = w->scratch ? lp_loop_init(&w->loop) : -ENOMEM;
        int rc = err == 0 ? pthread_create(&w->thread, NULL, worker_main, w) : 0;
        if (rc != 0) { /* pthread_create returns a positive error number */
            lp_loop_destroy(&w->loop);
            err = -rc;
        }
        if (err < 0) {
            free(w->scratch);
            ws->n = i;
            lp_workers_stop(ws);
            return err;
        }
        ws->n = i + 1;
    }
    return 0;
}

struct lp_worker *lp_workers_pick(struct lp_workers *ws)
{
    struct lp_worker *w = &ws->w[ws->next % ws->n];
    ws->next++;
    return w;
}

void lp_workers_stop(struct lp_workers *ws)
{
    for (unsigned i = 0; i < ws->n; i++)
        lp_loop_stop(&ws->w[i].loop);
    for (unsigned i = 0; i < ws->n; i++) {
        pthread_join(ws->w[i].thread, NULL);
        lp_loop_destroy(&ws->w[i].loop);
        free(ws->w[i].scratch);
    }
    free(ws->w);
    memset(ws, 0, sizeof(*ws));
}

/* Worker pool: a fixed set of threads, each running its own event loop. Data streams are
 * assigned to workers round-robin; a stream is only ever touched by its worker's thread. */
#ifndef LP_WORKER_H
#define LP_WORKER_H

#include <pthread.h>

#include "core/loop.h"

#define LP_MAX_WORKERS 64

struct lp_worker {
    struct lp_loop loop;
    pthread_t thread;
    unsigned index;
    char *scratch;            /* receive buffer shared by this worker's streams */
    size_t scratch_len;
};

struct lp_workers {
    unsigned n;
    unsigned next;            /* round-robin cursor (control thread only) */
    struct lp_worker *w;
};

/* Start n workers (0 = one per online CPU). Returns 0 or a negative errno. */
int lp_workers_start(struct lp_workers *ws, unsigned n);
struct lp_worker *lp_workers_pick(struct lp_workers *ws);
/* Stop and join every worker. Streams must have been detached before. */
void lp_workers_stop(struct lp_workers *ws);

#endif

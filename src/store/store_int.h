/* What store.c and store_query.c share: the store itself. Not for other modules. */
#ifndef LP_STORE_INT_H
#define LP_STORE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

/* The mutex makes each multi-statement change (a run's interval rows) one unit. The
 * statements every interval runs are prepared once (under mu) and finalized at close. */
struct lp_store {
    sqlite3 *db;
    pthread_mutex_t mu;
    sqlite3_stmt *ins_interval, *ins_interval_doc;
    bool created;                /* this open made the file */
    char path[4096];
    uint64_t max_bytes;          /* the size cap (LINKPERF_HISTORY_MAX or the default) */
};

/* The oldest runs go (never keep_id, the run being recorded) while the pages in use pass
 * the size cap. Called with mu held or from the recording thread like every insert. */
void lp_store_keep_size(struct lp_store *s, int64_t keep_id);

#endif

/* What store.c and store_query.c share: the store itself. Not for other modules. */
#ifndef LP_STORE_INT_H
#define LP_STORE_INT_H

#include <pthread.h>
#include <sqlite3.h>

/* The mutex makes each multi-statement change (a run's interval rows) one unit. The
 * statements every interval runs are prepared once (under mu) and finalized at close. */
struct lp_store {
    sqlite3 *db;
    pthread_mutex_t mu;
    sqlite3_stmt *ins_interval, *ins_interval_doc;
};

#endif

/* The engine: what a client or a server owns once for all its tests (the control loop, the
 * workers, the record sink) and the calls that stamp and deliver records. Dialect-neutral;
 * lp_run (core/run.h) borrows it. */
#ifndef LP_CORE_ENGINE_H
#define LP_CORE_ENGINE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/loop.h"
#include "core/worker.h"
#include "linkperf/engine.h"
#include "linkperf/record.h"

/* What client and server share: the control loop, the workers, the sink. */
struct lp_engine {
    struct lp_loop loop;
    struct lp_workers workers;
    struct lp_sink sink;
    char system_info[LP_SYSINFO_MAX];
    unsigned debug;          /* emit LP_REC_DEBUG records (-d) */
};

/* Returns 0, or a negative errno with the reason in err. */
int lp_engine_init(struct lp_engine *e, const struct lp_sink *sink, unsigned threads, char *err, size_t errlen);
void lp_engine_fini(struct lp_engine *e);
/* Stamp and deliver a record. */
void lp_engine_emit(struct lp_engine *e, struct lp_record *rec);
void lp_engine_error(struct lp_engine *e, enum lp_role role, unsigned test_id, int code, bool fatal,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void lp_engine_verror(struct lp_engine *e, enum lp_role role, unsigned test_id, int code, bool fatal,
                      const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));
/* -d tracing; a no-op unless debugging was asked for. */
void lp_engine_debug(struct lp_engine *e, enum lp_role role, unsigned test_id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif

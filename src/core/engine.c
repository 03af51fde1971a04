/* The engine context shared by client and server: control loop, workers, record delivery.
 * Records are stamped here so every sink sees the same wall time. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "core/clock.h"
#include "core/engine.h"

int lp_engine_init(struct lp_engine *e, const struct lp_sink *sink, unsigned threads, char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->sink = *sink;
    struct utsname u;
    if (uname(&u) == 0) {
        /* Truncation of an over-long uname line is harmless: it is only displayed. */
        char line[5 * sizeof(u.sysname) + 8];
        snprintf(line, sizeof(line), "%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version, u.machine);
        snprintf(e->system_info, sizeof(e->system_info), "%.*s", (int)sizeof(e->system_info) - 1, line);
    }
    int rc = lp_loop_init(&e->loop);
    if (rc < 0) {
        snprintf(err, errlen, "cannot create the event loop: %s", strerror(-rc));
        return rc;
    }
    rc = lp_workers_start(&e->workers, threads);
    if (rc < 0) {
        snprintf(err, errlen, "cannot start worker threads: %s", strerror(-rc));
        lp_loop_destroy(&e->loop);
        return rc;
    }
    return 0;
}

void lp_engine_fini(struct lp_engine *e)
{
    lp_workers_stop(&e->workers);
    lp_loop_destroy(&e->loop);
}

void lp_engine_emit(struct lp_engine *e, struct lp_record *rec)
{
    rec->wall_time = lp_wall_s();
    if (e->sink.record)
        e->sink.record(rec, e->sink.user);
}

/* One line of text in an ERROR or DEBUG record. */
static void emit_line(struct lp_engine *e, struct lp_record *rec, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void emit_line(struct lp_engine *e, struct lp_record *rec, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (rec->kind == LP_REC_ERROR)
        rec->u.error.message = msg;
    else
        rec->u.debug.message = msg;
    lp_engine_emit(e, rec);
}

void lp_engine_verror(struct lp_engine *e, enum lp_role role, unsigned test_id, int code, bool fatal,
                      const char *fmt, va_list ap)
{
    struct lp_record rec = {.kind = LP_REC_ERROR, .role = role, .test_id = test_id};
    rec.u.error.code = code;
    rec.u.error.fatal = fatal;
    emit_line(e, &rec, fmt, ap);
}

void lp_engine_error(struct lp_engine *e, enum lp_role role, unsigned test_id, int code, bool fatal,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lp_engine_verror(e, role, test_id, code, fatal, fmt, ap);
    va_end(ap);
}

void lp_engine_debug(struct lp_engine *e, enum lp_role role, unsigned test_id, const char *fmt, ...)
{
    if (!e->debug)
        return;
    struct lp_record rec = {.kind = LP_REC_DEBUG, .role = role, .test_id = test_id};
    va_list ap;
    va_start(ap, fmt);
    emit_line(e, &rec, fmt, ap);
    va_end(ap);
}

const char *lp_strerror(int err)
{
    switch (err) {
    case LP_OK:
        return "success";
    case LP_EINVAL:
        return "invalid test specification";
    case LP_EPEER:
        return "the peer broke the protocol";
    case LP_ECLOSED:
        return "the control connection closed unexpectedly";
    case LP_EBUSY:
        return "the server is busy running a test. try again later";
    case LP_ETIMEOUT:
        return "timed out";
    case LP_ECANCEL:
        return "interrupted";
    case LP_ESERVER:
        return "the server reported an error";
    case LP_ERESOLVE:
        return "cannot resolve the host name";
    default:
        return err < 0 && err > -4096 ? strerror(-err) : "unknown error";
    }
}

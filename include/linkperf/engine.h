/* The engine API: run a client test, or serve tests. The engine emits records to a
 * sink and returns error values; it never prints and never exits the process. */
#ifndef LINKPERF_ENGINE_H
#define LINKPERF_ENGINE_H

#include <stddef.h>

#include "linkperf/record.h"
#include "linkperf/spec.h"

/* Engine calls return 0 or a negative error: one of these, or a negative errno. The text
 * that explains it is written once, where it happens: into the caller's err buffer
 * (lp_client_new, lp_server_new) or as an LP_REC_ERROR record during a test
 * (docs/internals/engine.md, Errors). */
enum {
    LP_OK = 0,
    LP_EINVAL = -1000,   /* bad spec */
    LP_EPEER = -1001,    /* the peer broke the protocol */
    LP_ECLOSED = -1002,  /* the peer closed the control connection */
    LP_EBUSY = -1003,    /* the server refused: busy / access denied */
    LP_ETIMEOUT = -1004, /* a deadline passed */
    LP_ECANCEL = -1005,  /* stopped by the user (signal) */
    LP_ESERVER = -1006,  /* the server reported an error */
    LP_ERESOLVE = -1007, /* host name did not resolve */
};

struct lp_sink {
    lp_sink_fn record;
    /* Server only, for tests whose client asked --get-server-output: the output of that
     * test so far, as a malloc'd string the engine frees; *is_json tells whether it is a
     * JSON document. May be NULL (then no server output is sent). */
    char *(*server_output)(unsigned test_id, int *is_json, void *user);
    void *user;
};

struct lp_client;
struct lp_server;

/* Client: one test against spec->host. lp_client_new returns NULL with the reason in err
 * (always set then). lp_client_run blocks until the test is over and returns 0 or a negative
 * error (an LP_REC_ERROR record carries the message). */
struct lp_client *lp_client_new(const struct lp_spec *spec, const struct lp_sink *sink,
                                char *err, size_t errlen);
int lp_client_run(struct lp_client *c);
/* Ask a running client to stop: it reports partial results and tells the server.
 * Async-signal-safe. */
void lp_client_stop(struct lp_client *c);
void lp_client_free(struct lp_client *c);

/* Server: serves many tests at once until stopped (or after one test with one_off).
 * lp_server_new returns NULL with the reason in err (always set then); lp_server_run
 * returns 0 or a negative error. */
struct lp_server *lp_server_new(const struct lp_spec *spec, const struct lp_sink *sink,
                                char *err, size_t errlen);
int lp_server_run(struct lp_server *s);
void lp_server_stop(struct lp_server *s); /* async-signal-safe */
void lp_server_free(struct lp_server *s);

/* iperf3 authentication (src/auth/i3auth.h), set before run; the caller keeps it and frees
 * it after the client or server. A client sends a token made with it in every test's
 * parameters; a server admits only iperf3 tests whose token it accepts, and no iperf2 test
 * unless --permit-key admits it. */
struct lp_i3auth_client;
struct lp_i3auth_server;
void lp_client_set_auth(struct lp_client *c, const struct lp_i3auth_client *a);
void lp_server_set_auth(struct lp_server *s, struct lp_i3auth_server *a);

/* Short human text for an engine error value. */
const char *lp_strerror(int err);

#endif

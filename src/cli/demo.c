/* The `make run` demo: serve on 127.0.0.1 (any free port) in a background thread, learn
 * the port from the LISTENING record, run two client tests and print the client side.
 * The server's own records are not printed: the demo shows what a user's client sees. */
#include "cli/demo.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define LISTEN_WAIT_S 10

/* Shared between the demo thread and the server thread; guarded by mu. */
struct demo_server {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    struct lp_server *server;
    unsigned port;          /* 0 until LISTENING */
    bool done;              /* lp_server_run returned */
    int rc;
    char error[256];        /* first error record, shown if the server never listens */
};

static void server_record(const struct lp_record *rec, void *user)
{
    struct demo_server *d = user;

    pthread_mutex_lock(&d->mu);
    if (rec->kind == LP_REC_LISTENING && !d->port) {
        d->port = rec->u.listening.port;
        pthread_cond_broadcast(&d->cond);
    } else if (rec->kind == LP_REC_ERROR && !d->error[0] && rec->u.error.message) {
        snprintf(d->error, sizeof(d->error), "%s", rec->u.error.message);
    }
    pthread_mutex_unlock(&d->mu);
}

static void *server_thread(void *arg)
{
    struct demo_server *d = arg;
    int rc = lp_server_run(d->server);

    pthread_mutex_lock(&d->mu);
    d->done = true;
    d->rc = rc;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->mu);
    return NULL;
}

/* Wait for the port; 0 when the server failed or took too long. */
static unsigned wait_port(struct demo_server *d)
{
    struct timespec deadline;
    unsigned port;

    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += LISTEN_WAIT_S;
    pthread_mutex_lock(&d->mu);
    while (!d->port && !d->done) {
        if (pthread_cond_timedwait(&d->cond, &d->mu, &deadline) == ETIMEDOUT)
            break;
    }
    port = d->port;
    pthread_mutex_unlock(&d->mu);
    return port;
}

static int run_client(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                      struct lp_cli_signals *sig, unsigned port, bool udp)
{
    struct lp_spec spec = cfg->spec;
    struct lp_sink sink;
    struct lp_client *c;
    char err[256] = "";
    int rc;

    spec.role = LP_ROLE_CLIENT;
    snprintf(spec.host, sizeof(spec.host), "127.0.0.1");
    spec.port = (uint16_t)port;
    spec.duration_s = LP_CLI_DEMO_SECONDS;
    spec.proto = udp ? LP_PROTO_UDP : LP_PROTO_TCP;
    spec.rate_bps = udp ? LP_CLI_DEMO_UDP_BPS : 0;
    /* Headings go to stderr under -J so stdout stays valid JSON. */
    lp_cli_output_printf(out, cfg->json ? LP_OUT_STDERR : LP_OUT_STDOUT,
                         "\n=== linkperf demo: %s test, %.0f seconds%s, to the local "
                         "server on 127.0.0.1 port %u ===\n",
                         udp ? "UDP" : "TCP", LP_CLI_DEMO_SECONDS,
                         udp ? " at 100 Mbit/s" : "", port);
    lp_cli_output_sink(out, &sink);
    c = lp_client_new(&spec, &sink, err, sizeof(err));
    if (!c) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: demo client: %s\n", err);
        return -1;
    }
    lp_cli_signals_target(sig, c, NULL);
    rc = lp_client_run(c);
    lp_cli_signals_target(sig, NULL, NULL);
    lp_client_free(c);
    return rc;
}

int lp_cli_demo_run(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                    struct lp_cli_signals *sig)
{
    struct demo_server d = {.mu = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    struct lp_sink sink = {.record = server_record, .server_output = NULL, .user = &d};
    struct lp_spec spec;
    pthread_t thread;
    char err[256] = "";
    unsigned port;
    int rc_tcp = -1, rc_udp = -1;

    lp_spec_init(&spec, LP_ROLE_SERVER);
    snprintf(spec.bind_addr, sizeof(spec.bind_addr), "127.0.0.1");
    spec.port = 0;
    spec.threads = cfg->spec.threads;
    spec.max_tests = cfg->spec.max_tests;
    d.server = lp_server_new(&spec, &sink, err, sizeof(err));
    if (!d.server) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: demo server: %s\n", err);
        return LP_CLI_EXIT_FAIL;
    }
    if (pthread_create(&thread, NULL, server_thread, &d) != 0) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: cannot start the demo server\n");
        lp_server_free(d.server);
        return LP_CLI_EXIT_FAIL;
    }
    port = wait_port(&d);
    if (!port) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: the demo server did not start%s%s\n",
                             d.error[0] ? ": " : "", d.error);
    } else {
        rc_tcp = run_client(cfg, out, sig, port, false);
        if (!lp_cli_signals_stopped(sig))
            rc_udp = run_client(cfg, out, sig, port, true);
    }
    lp_server_stop(d.server);
    pthread_join(thread, NULL);
    lp_server_free(d.server);
    pthread_cond_destroy(&d.cond);
    pthread_mutex_destroy(&d.mu);
    return rc_tcp == 0 && rc_udp == 0 ? LP_CLI_EXIT_OK : LP_CLI_EXIT_FAIL;
}

/* Tests started from the web page: each runs the engine in a thread of its own and turns its
 * records into bus events (iperf3 --json-stream objects for the chart, iperf-style text lines
 * for the text pane). The arguments are the CLI's: the page builds a linkperf command line and
 * the same parser checks it, so what runs is exactly the command the page shows. */
#ifndef LP_WEB_RUNS_H
#define LP_WEB_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/values.h"
#include "linkperf/engine.h"
#include "web/bus.h"

#define LP_WEB_ARGS_MAX 128        /* arguments of one command line */
#define LP_WEB_ARG_LEN_MAX 1024    /* bytes of one argument */
#define LP_WEB_RUNS_KEPT 32        /* runs the status lists (running and finished) */
#define LP_WEB_RUNS_ACTIVE_MAX 8   /* runs at once */

/* Owns every run (threads, engine objects, formatters); borrows the bus. */
struct lp_web_runs;

struct lp_store;
/* store: where runs are recorded (NULL: nowhere); borrowed. */
struct lp_web_runs *lp_web_runs_new(struct lp_bus *bus, struct lp_store *store);
/* Parses and checks argv (without the program name) like the CLI does, refusing what a
 * page may not ask (a daemon, log or pid files, stdin, help/version output). Returns 0, or
 * -1 with err set and *option pointing at the option named in the message ("" if none). */
int lp_web_check_args(const struct lp_web_runs *w, int argc, char *const argv[],
                      struct lp_cli_err *err, char *option, size_t optlen);
/* A page served on an address other than loopback: tests from it to private, link-local,
 * loopback and metadata addresses are refused (linkperf ui --allow-private-targets lifts
 * it). */
void lp_web_runs_restrict_targets(struct lp_web_runs *w, bool on);
/* Starts a run of argv; returns its id (> 0), or -1 with err/option set as above. */
int lp_web_runs_start(struct lp_web_runs *r, int argc, char *const argv[],
                      struct lp_cli_err *err, char *option, size_t optlen);
/* A server the page did not start (linkperf -s --web): its records, through *out, show as
 * run id like any other, with cfg's text look. Returns the id (> 0) or -1. Later, server
 * tells the run what the page's Stop stops (NULL when it is gone); detach ends the run with
 * the engine's result rc. */
struct lp_cli_config;
struct lp_server;
int lp_web_runs_attach(struct lp_web_runs *w, const struct lp_cli_config *cfg, int argc,
                       char *const argv[], struct lp_sink *out);
void lp_web_runs_server(struct lp_web_runs *w, int id, struct lp_server *server);
void lp_web_runs_detach(struct lp_web_runs *w, int id, int rc);
/* Asks run id to stop (it ends with its partial results). 0, or -1 when no such run runs. */
int lp_web_runs_stop(struct lp_web_runs *r, unsigned id);
/* {"runs":[{"id":..,"state":..,"args":[..],"started_ms":..,"error":".."}]}, malloc'd. */
char *lp_web_runs_status(struct lp_web_runs *r);
/* Stops every run, waits for their threads and frees everything. */
void lp_web_runs_free(struct lp_web_runs *r);

#endif

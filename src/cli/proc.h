/* Process plumbing for main: signal handling that stops the engine, -D daemonizing and
 * the -I pid file. */
#ifndef LP_CLI_PROC_H
#define LP_CLI_PROC_H

#include <stddef.h>

#include "linkperf/engine.h"

/* Owns a thread that sigwait()s for SIGINT/SIGTERM/SIGHUP (and SIGALRM from its own
 * deadline timer) and stops the current target.
 * Start it before creating engine threads: they inherit the blocked signal mask, so the
 * signals are only ever taken by this thread (no handler, no global). Also ignores
 * SIGPIPE. A second SIGINT ends the process at once with status 130. */
struct lp_cli_signals;

struct lp_cli_signals *lp_cli_signals_start(char *err, size_t errlen);
/* What a signal stops now (either or both may be NULL). A signal that came while there was
 * no target stops the next one as soon as it is set. */
void lp_cli_signals_target(struct lp_cli_signals *s, struct lp_client *c,
                           struct lp_server *srv);
/* Stop the target as a signal would, this many seconds from now (iperf2's server -t,
 * --stop-after). Returns 0 or -1 with err. */
int lp_cli_signals_deadline(struct lp_cli_signals *s, double seconds, char *err, size_t errlen);
/* Whether a stop signal (or the deadline) has arrived. */
int lp_cli_signals_stopped(struct lp_cli_signals *s);
void lp_cli_signals_free(struct lp_cli_signals *s);

/* -D: fork into the background, new session, cwd "/", stdin/stdout/stderr to /dev/null or,
 * when log_fd >= 0, stdout/stderr to the log. Call before any thread exists. The parent
 * exits 0 here. Returns 0 or -1 with err. */
int lp_cli_daemonize(int log_fd, char *err, size_t errlen);

/* Make path absolute (relative to the current directory) so it survives chdir("/"). */
int lp_cli_abspath(char *path, size_t size, char *err, size_t errlen);
/* -I: write our pid; remove it at exit. */
int lp_cli_pidfile_write(const char *path, char *err, size_t errlen);
void lp_cli_pidfile_remove(const char *path);

#endif

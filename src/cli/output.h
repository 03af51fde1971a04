/* The CLI's record sink: one formatter per test (iperf3 text, iperf2 text with --iperf2,
 * CSV with --csv / -y C, or JSON with -J), written to stdout/stderr or a log file, plus the
 * server-output capture for --get-server-output. */
#ifndef LP_CLI_OUTPUT_H
#define LP_CLI_OUTPUT_H

#include <stdio.h>

#include "cli/config.h"
#include "fmt/fmt.h"
#include "linkperf/engine.h"

#define LP_CLI_SERVER_OUTPUT_MAX (1024u * 1024u) /* per test text kept for the client */

/* Owns: the log file (if any), the per-test formatters, their text captures, a mutex.
 * Borrows nothing from cfg after lp_cli_output_new returns. */
struct lp_cli_output;

/* Opens --logfile for append when set. NULL on failure with a message in err. */
struct lp_cli_output *lp_cli_output_new(const struct lp_cli_config *cfg, char *err,
                                        size_t errlen);
/* Fill an engine sink that feeds this output (record + server_output). */
void lp_cli_output_sink(struct lp_cli_output *o, struct lp_sink *sink);
/* A line of the CLI's own (demo headings, errors) through the same destination. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void lp_cli_output_printf(struct lp_cli_output *o, enum lp_out_channel ch, const char *fmt,
                          ...);
/* The log file's descriptor, or -1 (for -D, which points stdout/stderr at it). */
int lp_cli_output_log_fd(struct lp_cli_output *o);
/* Formatter instances still open (tests that never got LP_REC_DONE); for tests. */
unsigned lp_cli_output_open_tests(struct lp_cli_output *o);
/* Frees every remaining formatter; call after the engine has stopped. */
void lp_cli_output_free(struct lp_cli_output *o);

#endif

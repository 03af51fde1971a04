/* Run history in SQLite: every test a linkperf client, server or the web page runs, with its
 * command line, its intervals and its iperf3-schema result. A run is written when it starts
 * (marked incomplete) and completed at its end, each step in its own transaction, so a run
 * cut short (a crash, a kill) is kept, marked incomplete. Nothing here prints. */
#ifndef LP_STORE_H
#define LP_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linkperf/engine.h"

#define LP_STORE_PATH_MAX 4096

/* Owns the SQLite connection (WAL; one writer at a time across processes). Thread-safe. */
struct lp_store;

/* "$XDG_DATA_HOME/linkperf/history.db", or under ~/.local/share. -1 when neither is set. */
int lp_store_default_path(char *buf, size_t len);
/* Opens (creating the file, its directory and the schema) path, or the default when path is
 * NULL or "". NULL with a message in err. */
struct lp_store *lp_store_open(const char *path, char *err, size_t errlen);
void lp_store_close(struct lp_store *s);
/* Whether this open created the file (the CLI then says once where it records), and its path. */
bool lp_store_created(const struct lp_store *s);
const char *lp_store_path(const struct lp_store *s);
/* LINKPERF_NO_HISTORY set (and not "0"): record nothing, as --no-history. */
bool lp_store_env_off(void);
/* The bytes the runs take, the cap they are kept under (oldest runs go first; 64 MiB, or
 * LINKPERF_HISTORY_MAX), and how many runs there are (-1 on error). */
void lp_store_size(struct lp_store *s, uint64_t *used, uint64_t *max, int64_t *runs);

/* A tee in front of a sink: every record goes to next (if any), and each test's records
 * into the store. source says who ran it ("cli", "ui"); command is the linkperf command
 * line. Owns its per-test state; borrows s and next. */
struct lp_store_tap;
struct lp_store_tap *lp_store_tap_new(struct lp_store *s, const char *source,
                                      const char *command, const struct lp_sink *next);
void lp_store_tap_sink(struct lp_store_tap *t, struct lp_sink *out);
/* Sets (or replaces) the sink records are passed on to; before the tap's sink is used. */
void lp_store_tap_set_next(struct lp_store_tap *t, const struct lp_sink *next);
/* Tests still open (no DONE record) stay in the store as incomplete. */
void lp_store_tap_free(struct lp_store_tap *t);

/* A measurement subcommand's run from the page (rfc2544, under-load): no records, one row
 * whose result_json is the subcommand's -J report. begin inserts it (incomplete) and returns
 * its id (0 when it could not); end adds how long it took, the report (NULL: none), the
 * error ("" if none) and whether it finished. */
struct lp_store_report {
    const char *source, *command, *host, *proto, *dialect;
    int port;
};
int64_t lp_store_report_begin(struct lp_store *s, const struct lp_store_report *r);
void lp_store_report_end(struct lp_store *s, int64_t id, double duration_s, const char *report,
                         const char *error, bool complete);

/* Queries for the web page; results are malloc'd JSON text (NULL on error). */
struct lp_store_filter {
    const char *text;     /* substring of command, host or title ("" = any) */
    const char *proto;    /* "tcp", "udp" or "" */
    int64_t since_ms, until_ms; /* started in [since, until) (0 = open) */
    unsigned limit;       /* at most this many, newest first (0 = 200) */
};
/* {"runs":[{id, started_ms, source, command, role, host, port, proto, dialect, streams,
 * duration_s, bytes, bps_sent, bps_received, jitter_ms, lost, packets, retransmits, complete,
 * error, title}]} */
char *lp_store_list(struct lp_store *s, const struct lp_store_filter *f);
/* One run with its intervals: {"run":{...}, "intervals":[{seq, stream, sender, start_s,
 * end_s, bytes, bps, omitted, retransmits, cwnd, rtt_us, jitter_ms, lost, packets, and
 * latency (a stream's, from its interval document, when it has one)}], "end": the -J
 * document's end (when it has one), "report": a measurement's whole -J report (rfc2544,
 * under-load)}; NULL when there is no such run. */
char *lp_store_get(struct lp_store *s, int64_t id);
/* The run's iperf3 -J document (as the CLI would print it), or NULL. */
char *lp_store_result_json(struct lp_store *s, int64_t id);
/* The run's intervals as CSV with a header line, or NULL when there is no such run. */
char *lp_store_intervals_csv(struct lp_store *s, int64_t id);
/* Deletes a run and its intervals; 0, or -1 when there is none. */
int lp_store_delete(struct lp_store *s, int64_t id);

/* Profiles: named settings of the page (a command line's arguments as a JSON array).
 * {"profiles":[{"name","args":[...],"saved_ms"}]} by name; save replaces; delete: 0 or -1. */
char *lp_store_profiles(struct lp_store *s);
int lp_store_profile_save(struct lp_store *s, const char *name, const char *args_json);
int lp_store_profile_delete(struct lp_store *s, const char *name);

#endif

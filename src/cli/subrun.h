/* The measurement subcommands (under-load, rfc2544) run ordinary tests one after another,
 * or side by side, and read their END records: what one such test brought back, and the
 * running of it. */
#ifndef LP_CLI_SUBRUN_H
#define LP_CLI_SUBRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/proc.h"
#include "linkperf/engine.h"

struct lp_subrun {
    bool ended, failed;
    char error[256];
    double up_bps, down_bps;       /* TCP or UDP: this end's own totals, by direction */
    uint64_t sent_packets;         /* UDP: datagrams this end sent */
    uint64_t received_packets;     /* ...and the receiver took in (its count less its loss) */
    bool has_peer_report;          /* the receiver's numbers came back */
    struct lp_latency_stat rtt;    /* a latency stream's (no histogram pointers kept) */
    bool has_retransmits;          /* TCP: this end's senders' retransmits are known... */
    int64_t retransmits;           /* ...and their sum (a retransmitted probe waits an RTO) */
};

/* Where a measurement has got to: what the CLI prints as one line on stderr and a page run
 * publishes on its bus. */
struct lp_subrun_progress {
    const char *test;          /* rfc2544: "throughput", "latency", "loss", "back-to-back";
                                  under-load: the phase ("idle", "up", "down", "both") */
    unsigned frame_bytes;      /* rfc2544: the frame size being tried (0: none) */
    unsigned step, steps;      /* rfc2544: the trial of this search (steps 0: open-ended);
                                  under-load: phase step of steps */
    double line_fraction;      /* rfc2544: the offered load, of the line rate (< 0: none) */
    double rate_bps;           /* the UDP payload rate asked for (0: none) */
    uint64_t frames;           /* back-to-back: the burst's frames (0: none) */
    double elapsed_s, left_s;  /* since the start; what is left, at most (see left_bound) */
    bool left_bound;           /* left_s is --max-time's bound, not the planned end */
    const char *line;          /* the whole of it as words, without the time left */
};

/* The one line the CLI prints for p: "linkperf: NAME: <line> (at most <n> s left)". */
void lp_subrun_progress_text(const char *name, const struct lp_subrun_progress *p, char *buf,
                             size_t len);

/* Who runs a measurement: where progress goes, what stops it. The CLI's (lp_subrun_cli_ctl)
 * prints and takes signals; a page run's publishes and takes the page's Stop. Every member
 * may be NULL. */
struct lp_subrun_ctl {
    void (*progress)(void *user, const struct lp_subrun_progress *p);
    void (*target)(void *user, struct lp_client *c); /* the client a stop stops (NULL: none) */
    int (*stopped)(void *user);
    void *user;
};

/* The CLI's: progress as "linkperf: NAME: <line> (<n> s left)" on stderr unless quiet,
 * signals stop the client running. Borrows sig and name; fills ctl to point at c. */
struct lp_subrun_cli {
    struct lp_cli_signals *sig;
    const char *name;
    bool quiet;
};
void lp_subrun_cli_ctl(struct lp_subrun_cli *c, struct lp_subrun_ctl *ctl);

static inline int lp_subrun_stopped(const struct lp_subrun_ctl *ctl)
{
    return ctl && ctl->stopped ? ctl->stopped(ctl->user) : 0;
}

/* Run one client to its end, filling r. slot: where another thread finds it to stop it (may
 * be NULL); ctl: what stops it (may be NULL). Returns the client's result code. */
int lp_subrun_client(const struct lp_spec *sp, struct lp_subrun *r, struct lp_client **slot,
                     const struct lp_subrun_ctl *ctl);

/* The server a subcommand measures and how it reports: the options every one of them takes
 * (-c, -p, -4, -6, -J, --no-history, --db), parsed in one place. */
struct lp_subrun_target {
    char host[LP_HOST_MAX];
    uint16_t port;
    bool port_given;
    enum lp_family family;
    enum lp_dialect dialect;   /* the control protocol the subcommand speaks to it */
    bool json;
    bool no_history;           /* --no-history: the CLI records nothing */
    char db[4096];             /* --db PATH: the history database ("" = the default) */
};

/* A subcommand's own option o with its value v: 0, -1 with why filled (a bad value), or
 * LP_SUBRUN_UNKNOWN when o is none of its options. */
#define LP_SUBRUN_UNKNOWN (-2)
typedef int (*lp_subrun_take_fn)(void *args, const char *o, const char *v, char *why,
                                 size_t whylen);

/* The loop of every subcommand's parser (argv[0] is the subcommand): -h/--help, the shared
 * options into t (-c, -p, -4, -6, -J, --no-history, --db), every other option with its value through take.
 * Returns 0, 1 for --help, -1 with why filled ("option -x needs a value", "unknown option",
 * take's message, no -c). */
int lp_subrun_parse(int argc, char *const argv[], struct lp_subrun_target *t, lp_subrun_take_fn take,
                    void *args, char *why, size_t whylen);

/* A decimal number (no units) in lo..hi into *out: 0, or -1 when it is not one. */
int lp_subrun_number(const char *v, double lo, double hi, double *out);

/* CLOCK_MONOTONIC in seconds: a measurement's elapsed time and its --max-time. */
double lp_subrun_now_s(void);

/* Points a test's spec at the target (host, port, address family). */
void lp_subrun_aim(struct lp_spec *sp, const struct lp_subrun_target *t);

struct cJSON;
/* Prints a subcommand's -J document on stdout and frees it; -1 when it cannot be printed. */
int lp_subrun_print_json(struct cJSON *doc);

/* The CLI's record of a measurement in the run history (subrun_history.c), as the page
 * keeps its own: one row whose result is the -J report. begin opens the history unless
 * --no-history (a history that cannot be opened costs a warning, never the run); end
 * stores the report (not consumed; NULL: none) and closes it. argv[0] is the subcommand. */
struct lp_store;
struct lp_subrun_history {
    struct lp_store *store;
    int64_t id;
    double t0;
};
void lp_subrun_history_begin(struct lp_subrun_history *h, const struct lp_subrun_target *t, const char *proto,
                             int argc, char *const argv[]);
void lp_subrun_history_end(struct lp_subrun_history *h, const struct cJSON *doc, const char *error,
                           bool complete);

#endif

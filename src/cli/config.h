/* What the command line asks for: the test spec plus everything that is the CLI's own
 * business (output format, log file, pid file, daemon). Plain data, safe to copy. */
#ifndef LP_CLI_CONFIG_H
#define LP_CLI_CONFIG_H

#include <stdbool.h>

#include "fmt/fmt.h"
#include "linkperf/spec.h"

#define LP_CLI_PATH_MAX 4096
#define LP_CLI_DEFAULT_MAX_TESTS 64u
#define LP_CLI_EXIT_OK 0
#define LP_CLI_EXIT_FAIL 1   /* a test failed / the server could not run */
#define LP_CLI_EXIT_USAGE 2  /* bad command line */

enum lp_cli_action {
    LP_CLI_ACTION_RUN,     /* -s or -c */
    LP_CLI_ACTION_DEMO,    /* linkperf demo */
    LP_CLI_ACTION_HELP,
    LP_CLI_ACTION_VERSION,
    LP_CLI_ACTION_MAN,
};

/* Values the iperf2 spelling only knows the meaning of once the role is known (-c is a
 * host or an allowlist, -P streams or a connection limit, -b a rate or packets/s). The
 * parser fills and consumes them; nothing else reads them. */
struct lp_cli_scratch {
    char c_arg[LP_ALLOW_MAX];        /* iperf2 -c as given */
    double pps;                      /* iperf2 -b Npps (0 = a rate was given) */
    bool dialect_given;              /* --dialect */
    bool dash_d;                     /* iperf3 spelling: -d as a letter, which is iperf3's
                                      * --debug, not iperf2's dual test: main says so */
};

/* iperf3 authentication (src/auth): paths and names only; main.c loads the keys. Kept out
 * of the spec, which the history records and every test copies. */
struct lp_cli_auth {
    char private_key[LP_CLI_PATH_MAX];  /* server --rsa-private-key-path */
    char users[LP_CLI_PATH_MAX];        /* server --authorized-users-path */
    unsigned skew_s;                    /* server --time-skew-threshold (0 = default) */
    char username[256];                 /* client --username */
    char public_key[LP_CLI_PATH_MAX];   /* client --rsa-public-key-path */
    bool pkcs1;                         /* --use-pkcs1-padding */
};

/* fmt.title is left NULL here: it would point into spec.title and break copying by value;
 * the output module points it at its own copy. */
/* --test-tags: when a server's text lines start with their test's [test N]. */
enum lp_cli_test_tags {
    LP_CLI_TAGS_AUTO,   /* once the test overlaps another, to its end */
    LP_CLI_TAGS_ALWAYS,
    LP_CLI_TAGS_NEVER,
};

struct lp_cli_config {
    enum lp_cli_action action;
    bool role_given;                 /* -s or -c seen */
    bool iperf2;                     /* iperf2 spelling (--iperf2, linkperf2): iperf2 look */
    struct lp_spec spec;
    struct lp_fmt_opts fmt;
    bool json;                       /* -J (also set by --json-stream) */
    bool json_stream;                /* --json-stream: one JSON object per line */
    bool csv;                        /* --csv, iperf2 -y C: iperf2's CSV lines */
    double stop_after_s;             /* server: stop after this long (iperf2 server -t);
                                      * 0 = run until stopped */
    bool forceflush;
    bool daemon;                     /* -D */
    unsigned debug;                  /* -d/--debug[=n]: protocol trace (also in spec.report.debug) */
    char logfile[LP_CLI_PATH_MAX];   /* "" = stdout/stderr */
    char pidfile[LP_CLI_PATH_MAX];   /* "" = none */
    char db[LP_CLI_PATH_MAX];        /* --db: the history database ("" = the default path) */
    bool no_history;                 /* --no-history: record nothing */
    char web[128];                   /* server --web HOST:PORT: the page too ("" = no) */
    enum lp_cli_test_tags test_tags; /* server --test-tags (iperf3 text look only) */
    char metrics[128];               /* server --metrics HOST:PORT ("" = none) */
    struct lp_cli_auth auth;         /* iperf3 authentication (see above) */
    struct lp_cli_scratch parse;     /* parser scratch (see above) */
};

/* Defaults: an iperf3 client spec, adaptive units, no files. */
void lp_cli_config_init(struct lp_cli_config *cfg);

#endif

/* The measurement subcommands a page may run (linkperf rfc2544, linkperf under-load): the
 * CLI's own parser and search (cli/), run with the page's progress and Stop instead of stderr
 * and signals, their progress and report turned into bus events and the report into the
 * history. runs.c starts them as runs like any other; this is what differs. */
#ifndef LP_WEB_MEASURE_RUNS_H
#define LP_WEB_MEASURE_RUNS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "cli/subrun.h"
#include "cli/values.h"
#include "linkperf/engine.h"
#include "web/bus.h"

/* A subcommand. proto: the history's. */
struct lp_web_measure {
    const char *name, *proto;
    int (*check)(int argc, char *const argv[], struct lp_subrun_target *to, char *why,
                 size_t whylen);
    int (*run)(int argc, char *const argv[], const struct lp_subrun_ctl *ctl, cJSON **doc,
               char *why, size_t whylen);
};

/* The subcommand argv[0] names, or NULL when it names none. */
const struct lp_web_measure *lp_web_measure_of(const char *arg0);
/* Its command line, by its own parser, and what a page may not ask of it (-J, --db): 0, or
 * -1 with err set. to: the server it measures. */
int lp_web_measure_parse(const struct lp_web_measure *m, int argc, char *const argv[],
                         struct lp_subrun_target *to, struct lp_cli_err *err);

/* One run of a measurement: what it reads and whom it tells. */
struct lp_store;
struct lp_web_measure_run {
    const struct lp_web_measure *m;
    unsigned id;                    /* the run's id in its events */
    int argc;
    char *const *argv;
    const struct lp_subrun_target *to;
    struct lp_bus *bus;
    struct lp_store *store;         /* NULL: no history */
    /* The page's Stop: the client a trial runs now (NULL between trials), and whether Stop
     * was asked; user is theirs. */
    void (*target)(void *user, struct lp_client *c);
    int (*stopped)(void *user);
    void *user;
    char *error;                    /* "rfc2544: ..." when it fails */
    size_t errlen;
};
/* Runs it to its end: "progress" and "text" events while it runs, its report as a
 * "report" event and the history's result. Returns the subcommand's result (0 or -1). */
int lp_web_measure_main(const struct lp_web_measure_run *mr);

/* Publishes obj as event on bus and frees it (the events of every run). */
void lp_web_publish(struct lp_bus *bus, const char *event, cJSON *obj);

#endif

/* A measurement subcommand's run in the history, from the command line (subrun.h): what
 * main.c does for a test's records, for a measurement's one report. */
#include "cli/subrun.h"

#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "cli/cmdline.h"
#include "cli/history.h"
#include "store/store.h"

void lp_subrun_history_begin(struct lp_subrun_history *h, const struct lp_subrun_target *t, const char *proto,
                             int argc, char *const argv[])
{
    char err[4096 + 128];

    *h = (struct lp_subrun_history){.t0 = lp_subrun_now_s()};
    if (t->no_history || lp_store_env_off())
        return;
    h->store = lp_store_open(t->db, err, sizeof(err));
    if (!h->store) {
        fprintf(stderr, "linkperf: %s (not recording this run)\n", err);
        return;
    }
    if (lp_cli_history_notice(h->store, err, sizeof(err)))
        fputs(err, stderr);
    char *cmd = lp_cli_command_line(argc, argv);
    struct lp_store_report row = {"cli", cmd ? cmd : "linkperf", t->host, proto,
                                  t->dialect == LP_DIALECT_IPERF2 ? "iperf2" : "iperf3", t->port};
    h->id = lp_store_report_begin(h->store, &row);
    free(cmd);
}

void lp_subrun_history_end(struct lp_subrun_history *h, const struct cJSON *doc, const char *error,
                           bool complete)
{
    if (!h->store)
        return;
    char *text = doc ? cJSON_Print(doc) : NULL; /* as -J prints it */
    if (h->id)
        lp_store_report_end(h->store, h->id, lp_subrun_now_s() - h->t0, text, error ? error : "", complete);
    free(text);
    lp_store_close(h->store);
    h->store = NULL;
}

/* A page's measurement runs (rfc2544, under-load): the subcommand's progress and report as
 * bus events, its report in the history (see measure_runs.h). Moved out of runs.c, which
 * starts, stops and lists them like every other run. */
#include "web/measure_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "cli/rfc2544.h"
#include "cli/under_load.h"
#include "store/store.h"

/* A subcommand's message, room left for its name in front ("under-load: ") in an error. */
#define MEASURE_WHY_MAX (LP_CLI_ERR_MAX - 16)

static const struct lp_web_measure measures[] = {
    {"rfc2544", "udp", lp_rfc2544_check, lp_rfc2544_run},
    {"under-load", "tcp", lp_under_load_check, lp_under_load_run},
};

const struct lp_web_measure *lp_web_measure_of(const char *arg0)
{
    for (size_t i = 0; i < sizeof(measures) / sizeof(measures[0]); i++)
        if (strcmp(arg0, measures[i].name) == 0)
            return &measures[i];
    return NULL;
}

int lp_web_measure_parse(const struct lp_web_measure *m, int argc, char *const argv[],
                         struct lp_subrun_target *to, struct lp_cli_err *err)
{
    char why[MEASURE_WHY_MAX];

    if (m->check(argc, argv, to, why, sizeof(why)) < 0)
        return lp_cli_err_set(err, "%s: %s", m->name, why);
    if (to->json)
        return lp_cli_err_set(err, "option -J/--json: the page gets the report as JSON anyway");
    if (to->db[0])
        return lp_cli_err_set(err, "option --db: the page writes no files (its history is "
                                   "the one linkperf ui was started with)");
    return 0;
}

void lp_web_publish(struct lp_bus *bus, const char *event, cJSON *obj)
{
    char *json = cJSON_PrintUnformatted(obj);

    if (json)
        lp_bus_publish(bus, event, json);
    free(json);
    cJSON_Delete(obj);
}

static void measure_progress(void *user, const struct lp_subrun_progress *p)
{
    const struct lp_web_measure_run *mr = user;
    char line[320];
    cJSON *o = cJSON_CreateObject(), *pr = cJSON_AddObjectToObject(o, "progress");

    lp_subrun_progress_text(mr->m->name, p, line, sizeof(line));
    cJSON_AddNumberToObject(o, "id", mr->id);
    cJSON_AddStringToObject(pr, "test", p->test ? p->test : "");
    cJSON_AddNumberToObject(pr, "frame_bytes", p->frame_bytes);
    cJSON_AddNumberToObject(pr, "step", p->step);
    cJSON_AddNumberToObject(pr, "steps", p->steps);
    if (p->line_fraction >= 0)
        cJSON_AddNumberToObject(pr, "line_fraction", p->line_fraction);
    cJSON_AddNumberToObject(pr, "rate_bps", p->rate_bps);
    cJSON_AddNumberToObject(pr, "frames", (double)p->frames);
    cJSON_AddNumberToObject(pr, "elapsed_s", p->elapsed_s);
    cJSON_AddNumberToObject(pr, "left_s", p->left_s > 0 ? p->left_s : 0);
    cJSON_AddBoolToObject(pr, "left_bound", p->left_bound);
    cJSON_AddStringToObject(pr, "line", line);
    lp_web_publish(mr->bus, "progress", o);
    /* The text pane shows what the CLI prints on stderr (test 0: the run's own lines). */
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", mr->id);
    cJSON_AddNumberToObject(o, "test", 0);
    cJSON_AddStringToObject(o, "line", line);
    cJSON_AddBoolToObject(o, "stderr", true);
    lp_web_publish(mr->bus, "text", o);
}

static void measure_target(void *user, struct lp_client *c)
{
    const struct lp_web_measure_run *mr = user;
    mr->target(mr->user, c);
}

static int measure_stopped(void *user)
{
    const struct lp_web_measure_run *mr = user;
    return mr->stopped(mr->user);
}

int lp_web_measure_main(const struct lp_web_measure_run *mr)
{
    struct lp_subrun_ctl ctl = {measure_progress, measure_target, measure_stopped, (void *)mr};
    char why[MEASURE_WHY_MAX] = "";
    char *cmd = lp_cli_command_line(mr->argc, mr->argv), *text = NULL;
    struct lp_store_report row = {"ui", cmd ? cmd : "linkperf", mr->to->host, mr->m->proto,
                                  mr->to->dialect == LP_DIALECT_IPERF2 ? "iperf2" : "iperf3",
                                  mr->to->port};
    int64_t hid = mr->store ? lp_store_report_begin(mr->store, &row) : 0;
    double t0 = lp_subrun_now_s();
    cJSON *doc = NULL, *o;
    int rc = mr->m->run(mr->argc, mr->argv, &ctl, &doc, why, sizeof(why));

    text = doc ? cJSON_Print(doc) : NULL; /* as the CLI's -J prints it */
    if (doc) {
        o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "id", mr->id);
        cJSON_AddItemToObject(o, "report", doc);
        lp_web_publish(mr->bus, "report", o);
    }
    if (mr->store)
        lp_store_report_end(mr->store, hid, lp_subrun_now_s() - t0, text, why,
                            rc == 0 && !mr->stopped(mr->user));
    free(text);
    free(cmd);
    if (rc < 0)
        snprintf(mr->error, mr->errlen, "%s: %s", mr->m->name, why[0] ? why : "failed");
    return rc;
}

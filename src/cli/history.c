/* `linkperf history` (see history.h). The store answers in the JSON it gives the page; this
 * file only lays it out for a terminal, so the page and the CLI show the same runs. */
#include "cli/history.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "store/store.h"

#define HISTORY_PATH_MAX LP_STORE_PATH_MAX

bool lp_cli_history_notice(const struct lp_store *st, char *buf, size_t len)
{
    if (!st || !lp_store_created(st))
        return false;
    snprintf(buf, len,
             "linkperf: recording runs in %s (said once; `linkperf history` lists them, --no-history "
             "or LINKPERF_NO_HISTORY=1 records nothing)\n",
             lp_store_path(st));
    return true;
}

static int usage(const char *why)
{
    if (why) {
        fprintf(stderr, "linkperf: history: %s (see linkperf history --help)\n", why);
        return 2;
    }
    printf("Usage: linkperf history [list] [--limit N] [--grep TEXT] [--proto tcp|udp] [--db PATH]\n"
           "       linkperf history show ID [--db PATH]\n"
           "       linkperf history export ID [--json | --csv] [--db PATH]\n"
           "       linkperf history delete ID... [--db PATH]\n"
           "       linkperf history info [--db PATH]\n"
           "The runs linkperf recorded: every CLI test, server test and page run (newest first).\n"
           "  list      one line per run (default: the last 20)\n"
           "  show      a run's settings and its intervals\n"
           "  export    --json (default): the run's iperf3 -J document, as the test printed it\n"
           "            (a measurement run: its -J report); --csv: its intervals\n"
           "  delete    removes runs and their intervals\n"
           "  info      where the history is and its size\n"
           "The history is $XDG_DATA_HOME/linkperf/history.db (or ~/.local/share/...), kept to\n"
           "64 MiB (LINKPERF_HISTORY_MAX=SIZE, K/M/G) and 20000 runs, the oldest going first.\n"
           "--no-history or LINKPERF_NO_HISTORY=1 makes a test record nothing.\n");
    return 0;
}

/* The history's path, and whether it exists: reading a history never creates one. */
static int locate(const char *db, char *path, size_t len, bool *exists)
{
    struct stat sb;
    if (db && db[0])
        snprintf(path, len, "%s", db);
    else if (lp_store_default_path(path, len) < 0)
        return usage("neither XDG_DATA_HOME nor HOME is set: give --db PATH");
    *exists = stat(path, &sb) == 0;
    return 0;
}

static struct lp_store *open_store(const char *path)
{
    char err[HISTORY_PATH_MAX + 128];
    struct lp_store *st = lp_store_open(path, err, sizeof(err));
    if (!st)
        fprintf(stderr, "linkperf: %s\n", err);
    return st;
}

static double num(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static void when(double ms, char *buf, size_t len)
{
    time_t t = (time_t)(ms / 1000.0);
    struct tm tm;
    if (!localtime_r(&t, &tm) || strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(buf, len, "-");
}

/* A rate column: Mbit/s, or "-" where the run has none (a refused test, a measurement). */
static void mbit(double bps, char *buf, size_t len)
{
    if (bps < 0)
        snprintf(buf, len, "%12s", "-");
    else
        snprintf(buf, len, "%12.2f", bps / 1e6);
}

/* What became of a run: done, the error it ended with, or incomplete (cut short, or running). */
static void status(const cJSON *run, char *buf, size_t len)
{
    const char *err = str(run, "error");
    if (err[0])
        snprintf(buf, len, "error: %.60s", err);
    else
        snprintf(buf, len, "%s", num(run, "complete", 0) ? "done" : "incomplete");
}

static int list(struct lp_store *st, unsigned limit, const char *grep, const char *proto)
{
    struct lp_store_filter f = {.text = grep, .proto = proto, .limit = limit};
    char *text = lp_store_list(st, &f);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    if (!cJSON_IsArray(runs)) {
        cJSON_Delete(doc);
        fprintf(stderr, "linkperf: history: the runs could not be read\n");
        return 1;
    }
    printf("%6s  %-19s  %-6s %-6s %-26s %-5s %-7s %3s %8s %12s %12s  %s\n", "ID", "STARTED", "SOURCE", "ROLE", "PEER",
           "PROTO", "DIALECT", "P", "SECONDS", "SENT Mbit/s", "RECV Mbit/s", "STATUS");
    const cJSON *r;
    cJSON_ArrayForEach(r, runs) {
        char at[32], peer[300], sent[32], recv[32], why[80];
        when(num(r, "started_ms", 0), at, sizeof(at));
        double port = num(r, "port", 0);
        if (port > 0)
            snprintf(peer, sizeof(peer), "%.200s:%.0f", str(r, "host"), port);
        else
            snprintf(peer, sizeof(peer), "%.200s", str(r, "host")[0] ? str(r, "host") : "-");
        mbit(num(r, "bps_sent", -1), sent, sizeof(sent));
        mbit(num(r, "bps_received", -1), recv, sizeof(recv));
        status(r, why, sizeof(why));
        printf("%6.0f  %-19s  %-6s %-6s %-26s %-5s %-7s %3.0f %8.2f %s %s  %s\n", num(r, "id", 0), at, str(r, "source"),
               str(r, "role"), peer, str(r, "proto"), str(r, "dialect"), num(r, "streams", 0), num(r, "duration_s", 0),
               sent, recv, why);
    }
    cJSON_Delete(doc);
    return 0;
}

static int show(struct lp_store *st, int64_t id)
{
    char *text = lp_store_get(st, id);
    if (!text) {
        fprintf(stderr, "linkperf: history: no run %" PRId64 "\n", id);
        return 1;
    }
    cJSON *doc = cJSON_Parse(text);
    free(text);
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    char at[32], why[80];
    when(num(run, "started_ms", 0), at, sizeof(at));
    status(run, why, sizeof(why));
    printf("run %" PRId64 ": %s\n  started  %s (%s, %s)\n  peer     %s port %.0f, %s, %s, %.0f stream(s)\n"
           "  seconds  %.3f\n  bytes    %.0f\n  status   %s\n",
           id, str(run, "command"), at, str(run, "source"), str(run, "role"), str(run, "host"), num(run, "port", 0),
           str(run, "proto"), str(run, "dialect"), num(run, "streams", 0), num(run, "duration_s", 0),
           num(run, "bytes", 0), why);
    if (str(run, "title")[0])
        printf("  title    %s\n", str(run, "title"));
    const cJSON *ivs = cJSON_GetObjectItemCaseSensitive(doc, "intervals");
    if (cJSON_IsArray(ivs) && cJSON_GetArraySize(ivs) > 0) {
        printf("\n%6s %-8s %17s %14s %12s\n", "STREAM", "SIDE", "INTERVAL (s)", "BYTES", "Mbit/s");
        const cJSON *iv;
        cJSON_ArrayForEach(iv, ivs) {
            /* the store keeps an interval's sum as stream 0, the reverse sum (--bidir) as -1 */
            double sid = num(iv, "stream", 0);
            char stream[24];
            snprintf(stream, sizeof(stream), sid > 0 ? "%.0f" : sid == 0 ? "SUM" : "SUM-R", sid);
            printf("%6s %-8s %8.2f-%-8.2f %14.0f %12.2f%s\n", stream,
                   num(iv, "sender", 0) ? "sender" : "receiver", num(iv, "start_s", 0), num(iv, "end_s", 0),
                   num(iv, "bytes", 0), num(iv, "bps", 0) / 1e6, num(iv, "omitted", 0) ? "  (omitted)" : "");
        }
    } else if (cJSON_GetObjectItemCaseSensitive(doc, "report")) {
        printf("\n(a measurement run: `linkperf history export %" PRId64 "` prints its report)\n", id);
    }
    cJSON_Delete(doc);
    return 0;
}

static int export_run(struct lp_store *st, int64_t id, bool csv)
{
    char *text = csv ? lp_store_intervals_csv(st, id) : lp_store_result_json(st, id);
    if (!text) {
        fprintf(stderr, "linkperf: history: run %" PRId64 " %s\n", id,
                csv ? "is not there" : "is not there or has no result (cut short before its end)");
        return 1;
    }
    size_t n = strlen(text);
    fputs(text, stdout);
    if (n && text[n - 1] != '\n')
        putchar('\n');
    free(text);
    return 0;
}

static int info(const char *path, bool exists)
{
    printf("history: %s\n", path);
    if (!exists) {
        printf("  none yet (the first recorded run creates it)\n");
        return 0;
    }
    struct lp_store *st = open_store(path);
    if (!st)
        return 1;
    uint64_t used, max;
    int64_t runs;
    lp_store_size(st, &used, &max, &runs);
    printf("  %" PRId64 " runs, %.1f MiB in use of a %.1f MiB cap (LINKPERF_HISTORY_MAX); the oldest\n"
           "  runs go first past the cap or 20000 runs\n"
           "  --no-history or LINKPERF_NO_HISTORY=1 records nothing\n",
           runs, (double)used / 1048576.0, (double)max / 1048576.0);
    lp_store_close(st);
    return 0;
}

static int parse_id(const char *s, int64_t *id)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v <= 0)
        return -1;
    *id = v;
    return 0;
}

int lp_cli_history_main(int argc, char **argv)
{
    const char *verb = "list", *db = NULL, *grep = "", *proto = "";
    unsigned limit = 20;
    bool csv = false, json = false;
    int64_t ids[64];
    size_t nids = 0;
    char why[160];
    int i = 1;

    if (i < argc && argv[i][0] != '-')
        verb = argv[i++];
    if (strcmp(verb, "list") && strcmp(verb, "show") && strcmp(verb, "export") && strcmp(verb, "delete") &&
        strcmp(verb, "info")) {
        snprintf(why, sizeof(why), "'%.40s' is not list, show, export, delete or info", verb);
        return usage(why);
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return usage(NULL);
        if (strcmp(a, "--csv") == 0 || strcmp(a, "--json") == 0) {
            *(a[2] == 'c' ? &csv : &json) = true;
            continue;
        }
        if (a[0] != '-') {
            if (nids == sizeof(ids) / sizeof(ids[0]) || parse_id(a, &ids[nids]) < 0) {
                snprintf(why, sizeof(why), "'%.40s' is not a run id (a number from linkperf history list)", a);
                return usage(why);
            }
            nids++;
            continue;
        }
        if (i + 1 >= argc) {
            snprintf(why, sizeof(why), "option %.40s needs a value", a);
            return usage(why);
        }
        const char *v = argv[++i];
        if (strcmp(a, "--db") == 0) {
            db = v;
        } else if (strcmp(a, "--grep") == 0) {
            grep = v;
        } else if (strcmp(a, "--proto") == 0) {
            if (strcmp(v, "tcp") && strcmp(v, "udp"))
                return usage("option --proto: tcp or udp");
            proto = v;
        } else if (strcmp(a, "--limit") == 0) {
            int64_t n;
            if (parse_id(v, &n) < 0 || n > 100000)
                return usage("option --limit: a number of runs in 1..100000");
            limit = (unsigned)n;
        } else {
            snprintf(why, sizeof(why), "unknown option %.40s", a);
            return usage(why);
        }
    }
    bool one = strcmp(verb, "show") == 0 || strcmp(verb, "export") == 0;
    if (one && nids != 1)
        return usage(nids ? "one run id at a time" : "which run? (its id from linkperf history list)");
    if (strcmp(verb, "delete") == 0 && nids == 0)
        return usage("which runs? (their ids from linkperf history list)");
    if ((strcmp(verb, "list") == 0 || strcmp(verb, "info") == 0) && nids)
        return usage("list and info take no run id");
    if (csv && json)
        return usage("--csv or --json, not both");
    if ((csv || json) && strcmp(verb, "export") != 0)
        return usage("--csv and --json go with export");

    char path[HISTORY_PATH_MAX];
    bool exists;
    if (locate(db, path, sizeof(path), &exists) != 0)
        return 2;
    if (strcmp(verb, "info") == 0)
        return info(path, exists);
    if (!exists) {
        if (strcmp(verb, "list") == 0) {
            printf("no runs recorded yet (%s)\n", path);
            return 0;
        }
        fprintf(stderr, "linkperf: history: no history at %s\n", path);
        return 1;
    }
    struct lp_store *st = open_store(path);
    if (!st)
        return 1;
    int rc = 0;
    if (strcmp(verb, "list") == 0) {
        rc = list(st, limit, grep, proto);
    } else if (strcmp(verb, "show") == 0) {
        rc = show(st, ids[0]);
    } else if (strcmp(verb, "export") == 0) {
        rc = export_run(st, ids[0], csv);
    } else {
        for (size_t k = 0; k < nids; k++) {
            if (lp_store_delete(st, ids[k]) < 0) {
                fprintf(stderr, "linkperf: history: no run %" PRId64 "\n", ids[k]);
                rc = 1;
            } else {
                printf("deleted run %" PRId64 "\n", ids[k]);
            }
        }
    }
    lp_store_close(st);
    return rc;
}

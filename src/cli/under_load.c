/* linkperf under-load: latency under load (RRUL-like phases, crusader's defaults). Each
 * phase runs ordinary iperf2 tests against the server at once: a --bounceback probe (one
 * 100-byte exchange every 10 ms, its round trips in linkperf's histogram) and, except in the
 * idle phase, N TCP streams loading the link up (forward), down (-R) or both
 * (--full-duplex). Every piece is iperf 2.1's wire protocol, so a stock `iperf -s` serves it
 * as well as `linkperf -s`. The report is each phase's throughput and round-trip
 * percentiles, and what load added to the idle ones (the bufferbloat number). The page runs
 * the same measurement (lp_under_load_run: its progress and Stop through a lp_subrun_ctl);
 * nothing here knows who prints. */
#include "cli/under_load.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/proc.h"
#include "cli/subrun.h"
#include "cli/values.h"
#include "core/udp_echo.h"
#include "linkperf/engine.h"

#define UL_STREAMS_DEFAULT 8
#define UL_PHASE_DEFAULT_S 10.0
#define UL_PROBE_PERIOD_S 0.01
#define UL_WARMUP_MAX_S 1.0 /* load alone first: slow start over, the queue built */

enum ul_phase { UL_IDLE, UL_UP, UL_DOWN, UL_BOTH, UL_PHASES };
static const char *const phase_names[UL_PHASES] = {"idle", "up", "down", "both"};

struct ul_args {
    struct lp_subrun_target to; /* -c, -p, -4, -6, -J */
    unsigned streams;
    double phase_s;
    char congestion[LP_CONGESTION_MAX]; /* -C for the load streams ("" = the system's) */
    bool udp_probe;             /* --probe udp: linkperf's UDP round trips (core/udp_echo.h) */
};

struct ul_result {
    struct lp_subrun load, probe;
};

static void client_spec(const struct ul_args *a, struct lp_spec *sp, double seconds)
{
    lp_spec_init(sp, LP_ROLE_CLIENT);
    sp->dialect = LP_DIALECT_IPERF2;
    lp_subrun_aim(sp, &a->to);
    sp->duration_s = seconds;
    sp->report.interval_s = 0;
}

struct ul_load {
    struct lp_spec spec;
    struct lp_subrun *take;
    struct lp_client *client;    /* while it runs (atomic) */
};

static void *load_thread(void *arg)
{
    struct ul_load *l = arg;
    lp_subrun_client(&l->spec, l->take, &l->client, NULL);
    return NULL;
}

static double warmup_s(const struct ul_args *a, enum ul_phase ph)
{
    return ph == UL_IDLE ? 0 : (a->phase_s / 4 < UL_WARMUP_MAX_S ? a->phase_s / 4 : UL_WARMUP_MAX_S);
}

/* One phase: the load (if any) on a thread, the probe here once the load had its warm-up. */
static int run_phase(const struct ul_args *a, enum ul_phase ph, const struct lp_subrun_ctl *ctl,
                     struct ul_result *r)
{
    double warm = warmup_s(a, ph);
    struct ul_load load = {.take = &r->load};
    pthread_t th;
    bool loading = ph != UL_IDLE;

    if (loading) {
        client_spec(a, &load.spec, a->phase_s + warm);
        load.spec.streams = a->streams;
        snprintf(load.spec.congestion, sizeof(load.spec.congestion), "%s", a->congestion);
        load.spec.dir = ph == UL_UP ? LP_DIR_FORWARD : ph == UL_DOWN ? LP_DIR_REVERSE : LP_DIR_BIDIR;
        if (pthread_create(&th, NULL, load_thread, &load) != 0) {
            snprintf(r->load.error, sizeof(r->load.error), "cannot start the load thread");
            r->load.failed = true;
            return -1;
        }
        usleep((useconds_t)(warm * 1e6));
    }
    struct lp_spec probe;
    client_spec(a, &probe, a->phase_s);
    probe.blksize = 100;
    probe.nodelay = true;
    if (a->udp_probe) {
        /* A datagram waits behind no TCP stream's queue of its own: only the link's. It is
         * linkperf's UDP echo over iperf3, which only a linkperf server answers (it tells
         * either dialect by its first bytes, on the same port). */
        probe.dialect = LP_DIALECT_IPERF3;
        probe.proto = LP_PROTO_UDP;
        probe.blksize = LP_UE_DEFAULT;
        probe.nodelay = false;
    }
    probe.iperf2.bb.on = true;
    probe.iperf2.bb.burst = 1;
    probe.iperf2.bb.period_s = UL_PROBE_PERIOD_S;
    probe.iperf2.bb.period_given = true;
    lp_subrun_client(&probe, &r->probe, NULL, ctl);
    if (loading) {
        /* A stop (Ctrl-C) ends the probe; the load too. */
        if (lp_subrun_stopped(ctl)) {
            struct lp_client *lc = __atomic_load_n(&load.client, __ATOMIC_ACQUIRE);
            if (lc)
                lp_client_stop(lc);
        }
        pthread_join(th, NULL);
    }
    return r->probe.failed || (loading && r->load.failed) ? -1 : 0;
}

static void mbits(char *b, size_t n, double bps, bool shown)
{
    if (shown)
        snprintf(b, n, "%9.2f", bps / 1e6);
    else
        snprintf(b, n, "%9s", "-");
}

static void print_text(const struct ul_args *a, const struct ul_result *r, unsigned done)
{
    const struct lp_latency_stat *idle = &r[UL_IDLE].probe.rtt;
    printf("linkperf under-load: %s port %u, %u TCP streams, %.0f s a phase, a %u-byte %s round trip every %.0f ms\n",
           a->to.host, (unsigned)a->to.port, a->streams, a->phase_s, a->udp_probe ? LP_UE_DEFAULT : 100u,
           a->udp_probe ? "UDP" : "TCP", UL_PROBE_PERIOD_S * 1e3);
    printf("phase   up Mbit/s  down Mbit/s  probes   RTT min/p50/p90/p99/max (ms)           added p50/p99 (ms)\n");
    for (unsigned p = 0; p < done; p++) {
        const struct lp_latency_stat *l = &r[p].probe.rtt;
        char up[16], down[16], added[48] = "";
        mbits(up, sizeof(up), r[p].load.up_bps, p == UL_UP || p == UL_BOTH);
        mbits(down, sizeof(down), r[p].load.down_bps, p == UL_DOWN || p == UL_BOTH);
        if (p != UL_IDLE && idle->has_pct && l->has_pct)
            snprintf(added, sizeof(added), "%+.3f/%+.3f", l->p50_ms - idle->p50_ms, l->p99_ms - idle->p99_ms);
        printf("%-6s %s    %s  %6llu   %.3f/%.3f/%.3f/%.3f/%.3f   %s\n", phase_names[p], up, down,
               (unsigned long long)l->count, l->min_ms, l->p50_ms, l->p90_ms, l->p99_ms, l->max_ms, added);
    }
}

static cJSON *rtt_json(const struct lp_latency_stat *l)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "count", (double)l->count);
    cJSON_AddNumberToObject(o, "min_ms", l->min_ms);
    cJSON_AddNumberToObject(o, "mean_ms", l->mean_ms);
    cJSON_AddNumberToObject(o, "p50_ms", l->p50_ms);
    cJSON_AddNumberToObject(o, "p90_ms", l->p90_ms);
    cJSON_AddNumberToObject(o, "p99_ms", l->p99_ms);
    cJSON_AddNumberToObject(o, "p99_9_ms", l->p999_ms);
    cJSON_AddNumberToObject(o, "max_ms", l->max_ms);
    return o;
}

static cJSON *build_json(const struct ul_args *a, const struct ul_result *r, unsigned done, const char *error)
{
    cJSON *doc = cJSON_CreateObject(), *ul = doc ? cJSON_AddObjectToObject(doc, "under_load") : NULL;
    cJSON *phases = ul ? cJSON_AddArrayToObject(ul, "phases") : NULL;
    if (!phases) {
        cJSON_Delete(doc);
        return NULL;
    }
    cJSON_AddStringToObject(ul, "host", a->to.host);
    cJSON_AddNumberToObject(ul, "port", a->to.port);
    cJSON_AddNumberToObject(ul, "streams", a->streams);
    cJSON_AddNumberToObject(ul, "phase_seconds", a->phase_s);
    cJSON_AddNumberToObject(ul, "probe_period_ms", UL_PROBE_PERIOD_S * 1e3);
    cJSON_AddStringToObject(ul, "probe", a->udp_probe ? "udp" : "tcp");
    const struct lp_latency_stat *idle = &r[UL_IDLE].probe.rtt;
    for (unsigned p = 0; p < done; p++) {
        cJSON *o = cJSON_CreateObject();
        if (!o)
            break;
        cJSON_AddItemToArray(phases, o);
        cJSON_AddStringToObject(o, "name", phase_names[p]);
        cJSON_AddNumberToObject(o, "up_bits_per_second", r[p].load.up_bps);
        cJSON_AddNumberToObject(o, "down_bits_per_second", r[p].load.down_bps);
        cJSON_AddItemToObject(o, "rtt", rtt_json(&r[p].probe.rtt));
        /* a probe segment the queue dropped waits for TCP's retransmission: its round trip
         * is the RTO, not the queue (a UDP probe is lost instead) */
        if (r[p].probe.has_retransmits)
            cJSON_AddNumberToObject(o, "probe_retransmits", (double)r[p].probe.retransmits);
        if (p != UL_IDLE && idle->has_pct && r[p].probe.rtt.has_pct) {
            cJSON_AddNumberToObject(o, "added_p50_ms", r[p].probe.rtt.p50_ms - idle->p50_ms);
            cJSON_AddNumberToObject(o, "added_p99_ms", r[p].probe.rtt.p99_ms - idle->p99_ms);
        }
    }
    if (error)
        cJSON_AddStringToObject(ul, "error", error);
    return doc;
}

static int usage(const char *why)
{
    if (why) {
        fprintf(stderr, "linkperf: under-load: %s (see linkperf under-load --help)\n", why);
        return 2;
    }
    printf("Usage: linkperf under-load -c host [-p port] [-P streams] [-t seconds] [-C algo] [-J] [-4|-6]\n"
           "                           [--probe tcp|udp] [--no-history] [--db path]\n"
           "  Latency under load: a 100-byte TCP round trip every 10 ms (iperf2 --bounceback)\n"
           "  while the link is idle, then loaded by N TCP streams up, down and both ways.\n"
           "  -c host     a linkperf or stock iperf 2.1 server (iperf2 protocol)\n"
           "  -p port     its port (default 5001)\n"
           "  -P n        load streams, 1..%d (default %d)\n"
           "  -t s        seconds a phase, 2..3600 (default %.0f)\n"
           "  -C algo     the load streams' congestion control (bbr keeps queues short, cubic\n"
           "              fills them: the bufferbloat a bulk download causes)\n"
           "  --probe udp the probes as 64-byte UDP echoes instead (linkperf -u --bounceback):\n"
           "              they wait behind no TCP queue of their own; only a linkperf server\n"
           "              answers them\n"
           "  -J          the report as JSON\n"
           "  --no-history  do not record the run in the history (--db path: that file)\n",
           LP_MAX_STREAMS, UL_STREAMS_DEFAULT, UL_PHASE_DEFAULT_S);
    return 0;
}

static int take_option(void *args, const char *o, const char *v, char *why, size_t whylen)
{
    struct ul_args *a = args;
    double d;
    if (!strcmp(o, "-P") || !strcmp(o, "--parallel")) {
        if (lp_cli_value_int(v, false, &d) < 0 || d < 1 || d > LP_MAX_STREAMS) {
            snprintf(why, whylen, "option -P: '%s' is out of range (1..%d)", v, LP_MAX_STREAMS);
            return -1;
        }
        a->streams = (unsigned)d;
    } else if (!strcmp(o, "-C") || !strcmp(o, "--congestion")) {
        if (!*v || strlen(v) >= sizeof(a->congestion)) {
            snprintf(why, whylen, "option -C: '%s' is not a congestion control name", v);
            return -1;
        }
        snprintf(a->congestion, sizeof(a->congestion), "%s", v);
    } else if (!strcmp(o, "--probe")) {
        if (strcmp(v, "udp") && strcmp(v, "tcp")) {
            snprintf(why, whylen, "option --probe: '%s' is neither tcp nor udp", v);
            return -1;
        }
        a->udp_probe = !strcmp(v, "udp");
    } else if (!strcmp(o, "-t") || !strcmp(o, "--time")) {
        if (lp_subrun_number(v, 2, 3600, &a->phase_s) < 0) {
            snprintf(why, whylen, "option -t: '%s' is out of range (2..3600 seconds)", v);
            return -1;
        }
    } else {
        return LP_SUBRUN_UNKNOWN;
    }
    return 0;
}

static int parse_args(int argc, char *const argv[], struct ul_args *a, char *why, size_t whylen)
{
    *a = (struct ul_args){.to = {.port = 5001, .dialect = LP_DIALECT_IPERF2}, .streams = UL_STREAMS_DEFAULT,
                          .phase_s = UL_PHASE_DEFAULT_S};
    return lp_subrun_parse(argc, argv, &a->to, take_option, a, why, whylen);
}

int lp_under_load_check(int argc, char *const argv[], struct lp_subrun_target *to, char *why, size_t whylen)
{
    struct ul_args a;
    int rc = parse_args(argc, argv, &a, why, whylen);
    if (rc == 1)
        snprintf(why, whylen, "--help: not a test");
    if (rc == 0 && to)
        *to = a.to;
    return rc == 0 ? 0 : -1;
}

/* What is left of the plan once phase p starts (the probe after each load's warm-up). */
static double left_from(const struct ul_args *a, unsigned p)
{
    double s = 0;
    for (; p < UL_PHASES; p++)
        s += a->phase_s + warmup_s(a, (enum ul_phase)p);
    return s;
}

static void progress(const struct lp_subrun_ctl *ctl, const struct ul_args *a, unsigned p, double t0)
{
    char line[160];
    if (!ctl || !ctl->progress)
        return;
    snprintf(line, sizeof(line), "phase %u/%u, %s: %.0f s%s", p + 1, UL_PHASES, phase_names[p], a->phase_s,
             p == UL_IDLE ? "" : " with the load");
    struct lp_subrun_progress pr = {.test = phase_names[p], .step = p + 1, .steps = UL_PHASES,
                                    .line_fraction = -1, .elapsed_s = lp_subrun_now_s() - t0,
                                    .left_s = left_from(a, p), .line = line};
    ctl->progress(ctl->user, &pr);
}

/* Every phase in turn, until one fails or a stop: r[] and *done the phases that finished;
 * -1 with why when one failed. */
static int measure(const struct ul_args *a, const struct lp_subrun_ctl *ctl, struct ul_result *r, unsigned *done,
                   char *why, size_t whylen)
{
    double t0 = lp_subrun_now_s();
    memset(r, 0, sizeof(*r) * UL_PHASES);
    *done = 0;
    for (unsigned p = 0; p < UL_PHASES && !lp_subrun_stopped(ctl); p++) {
        progress(ctl, a, p, t0);
        if (run_phase(a, (enum ul_phase)p, ctl, &r[p]) < 0) {
            if (lp_subrun_stopped(ctl)) /* a stop cuts the phase short: not a failure */
                break;
            const struct lp_subrun *t = r[p].probe.failed ? &r[p].probe : &r[p].load;
            snprintf(why, whylen, "phase %s: %s %s", phase_names[p], t == &r[p].probe ? "probe:" : "load:",
                     t->error[0] ? t->error : "the test failed");
            return -1;
        }
        *done = p + 1;
    }
    return 0;
}

int lp_under_load_run(int argc, char *const argv[], const struct lp_subrun_ctl *ctl, cJSON **doc, char *why,
                      size_t whylen)
{
    struct ul_args a;
    struct ul_result r[UL_PHASES];
    unsigned done;
    *doc = NULL;
    if (parse_args(argc, argv, &a, why, whylen) != 0)
        return -1;
    int rc = measure(&a, ctl, r, &done, why, whylen);
    *doc = build_json(&a, r, done, rc < 0 ? why : NULL);
    return rc;
}

int lp_under_load_main(int argc, char **argv)
{
    struct ul_args a;
    char why[400];
    int rc = parse_args(argc, argv, &a, why, sizeof(why));
    if (rc)
        return usage(rc == 1 ? NULL : why);
    char err[256];
    struct lp_subrun_cli cli = {.name = "under-load", .sig = lp_cli_signals_start(err, sizeof(err))};
    if (!cli.sig) {
        fprintf(stderr, "linkperf: under-load: %s\n", err);
        return 1;
    }
    struct lp_subrun_ctl ctl;
    struct lp_subrun_history hist;
    struct ul_result r[UL_PHASES];
    unsigned done;
    lp_subrun_cli_ctl(&cli, &ctl);
    lp_subrun_history_begin(&hist, &a.to, "tcp", argc, argv);
    /* Progress on stderr, so -J keeps stdout a document. */
    rc = measure(&a, &ctl, r, &done, why, sizeof(why));
    lp_cli_signals_free(cli.sig);
    cJSON *doc = build_json(&a, r, done, rc < 0 ? why : NULL);
    lp_subrun_history_end(&hist, doc, rc < 0 ? why : "", rc == 0 && done == UL_PHASES);
    if (a.to.json) {
        lp_subrun_print_json(doc);
    } else {
        cJSON_Delete(doc);
        print_text(&a, r, done);
    }
    if (rc < 0) {
        fprintf(stderr, "linkperf: under-load: %s\n", why);
        return 1;
    }
    return 0;
}

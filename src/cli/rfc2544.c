/* linkperf rfc2544: RFC 2544's benchmarks for a device or link, from ordinary UDP tests
 * against any server linkperf tests (linkperf, stock iperf3 or iperf2, the board agent):
 *
 * - throughput: per frame size, a binary search for the highest offered rate at which a
 *   trial loses no frame (26.1);
 * - latency at that rate: round trips of a --bounceback probe running beside a trial at the
 *   throughput rate (iperf2 servers; RFC 2544 timestamps frames, which UDP tests cannot
 *   without synchronised clocks) (26.2);
 * - frame loss rate: trials from 100 % of the line rate down in 10 % steps until two in a
 *   row lose nothing (26.3);
 * - back-to-back: a binary search for the longest burst at line rate that arrives whole
 *   (26.4).
 *
 * Frame sizes are Ethernet's with FCS; the line rate counts each frame's preamble and
 * inter-frame gap too (frame + 20 bytes on the wire), and a frame of f bytes carries f - 46
 * bytes of UDP payload over IPv4 (f - 66 over IPv6): -l for the trial. The page runs the same
 * search (lp_rfc2544_run), its progress and Stop through a lp_subrun_ctl. */
#include "cli/rfc2544.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/subrun.h"
#include "cli/values.h"
#include "linkperf/engine.h"

#define RFC_MAX_FRAMES 16
#define RFC_WIRE_EXTRA 20u   /* preamble 8 + inter-frame gap 12 */
#define RFC_HDRS_V4 46u      /* Ethernet 14 + FCS 4 + IPv4 20 + UDP 8 */
#define RFC_HDRS_V6 66u      /* ... IPv6 40 */
#define RFC_MIN_PAYLOAD_I3 16u  /* iperf3's UDP header with 64-bit counters */
#define RFC_MIN_PAYLOAD_I2 76u  /* iperf2's datagram prefix and test header */
#define RFC_LOSS_STEP 0.10
#define RFC_B2B_MAX_S 2.0    /* the longest burst tried: this long at line rate */
#define RFC_B2B_STEPS 10
#define RFC_REFUSED_RETRIES 50      /* a stock iperf3 server's listener shut between tests: */
#define RFC_REFUSED_WAIT_US 100000  /* ...up to 5 s of tries for it to open again */
#define RFC_DRAIN_MS 500     /* after a trial's last frame, frames still on the way count */

static const unsigned default_frames[] = {64, 128, 256, 512, 1024, 1280, 1518};

struct rfc_args {
    struct lp_subrun_target to; /* -c, -p, -4, -6, -J; --dialect */
    double line_bps;         /* -b: the line rate (frames on the wire) */
    unsigned frames[RFC_MAX_FRAMES], nframes;
    double trial_s, resolution, max_time_s;
    unsigned tests;          /* RFC_T_* to run */
};

enum { RFC_T_TPUT = 1, RFC_T_LAT = 2, RFC_T_LOSS = 4, RFC_T_B2B = 8, RFC_T_ALL = 15 };
static const char *const test_names[] = {"throughput", "latency", "loss", "back-to-back"};

struct rfc_trial {
    double fraction;         /* of the line rate */
    uint64_t sent, received;
};

struct rfc_frame {
    unsigned frame, payload;
    bool skipped;                   /* the dialect's header does not fit the frame */
    bool done_tput, done_loss, done_b2b, done_lat;
    double tput_fraction;           /* highest fraction with no loss */
    unsigned tput_trials;
    struct rfc_trial loss[11];
    unsigned nloss;
    uint64_t b2b_frames;            /* longest burst that arrived whole */
    bool has_latency;
    struct lp_latency_stat rtt;
    struct rfc_trial lat_trial;     /* the trial the round trips ran beside */
};

struct rfc_state {
    const struct rfc_args *a;
    const struct lp_subrun_ctl *ctl;
    double t0;
    bool out_of_time, stopped;
    bool connected;          /* a trial has reached the server */
    char error[400];
};

static unsigned payload_of(const struct rfc_args *a, unsigned frame)
{
    unsigned hdrs = a->to.family == LP_FAMILY_INET6 ? RFC_HDRS_V6 : RFC_HDRS_V4;
    return frame > hdrs ? frame - hdrs : 0;
}

/* The UDP payload rate (iperf's -b) that puts frames of this size on the line at fraction
 * of its rate. */
static double payload_bps(const struct rfc_args *a, const struct rfc_frame *f, double fraction)
{
    return a->line_bps * fraction * f->payload / (double)(f->frame + RFC_WIRE_EXTRA);
}

static double frames_per_s(const struct rfc_args *a, const struct rfc_frame *f, double fraction)
{
    return a->line_bps * fraction / 8.0 / (double)(f->frame + RFC_WIRE_EXTRA);
}

static bool may_run(struct rfc_state *st)
{
    if (lp_subrun_stopped(st->ctl))
        st->stopped = true;
    else if (lp_subrun_now_s() - st->t0 >= st->a->max_time_s)
        st->out_of_time = true;
    return !st->stopped && !st->out_of_time && !st->error[0];
}

static void trial_spec(const struct rfc_args *a, const struct rfc_frame *f, double fraction, struct lp_spec *sp)
{
    lp_spec_init(sp, LP_ROLE_CLIENT);
    sp->dialect = a->to.dialect;
    lp_subrun_aim(sp, &a->to);
    sp->proto = LP_PROTO_UDP;
    sp->blksize = f->payload;
    sp->rate_bps = (uint64_t)payload_bps(a, f, fraction);
    if (!sp->rate_bps)
        sp->rate_bps = 1;
    sp->duration_s = a->trial_s;
    sp->report.interval_s = 0;
    sp->drain_ms = RFC_DRAIN_MS; /* iperf2's receiver counts until the FIN, behind them anyway */
    sp->udp_no_gso = true;       /* frames one by one, as a tester sends them */
}

/* Says what is tried now: pr has the test, the frame size, the step and what in words. */
static void progress(struct rfc_state *st, const struct lp_spec *sp, struct lp_subrun_progress *pr)
{
    if (!st->ctl || !st->ctl->progress)
        return;
    pr->rate_bps = (double)sp->rate_bps;
    pr->elapsed_s = lp_subrun_now_s() - st->t0;
    pr->left_s = st->a->max_time_s - pr->elapsed_s; /* trials start until --max-time */
    pr->left_bound = true;
    st->ctl->progress(st->ctl->user, pr);
}

/* One trial: sent and received frames. false (with st->error) when it did not run. */
static bool run_trial(struct rfc_state *st, const struct lp_spec *sp, struct rfc_trial *t,
                      struct lp_subrun_progress *pr)
{
    struct lp_subrun r = {0};
    const char *what = pr->line;
    progress(st, sp, pr);
    int rc = lp_subrun_client(sp, &r, NULL, st->ctl);
    /* A stock iperf3 server closes its listener after a test and opens it again, and says
     * "busy" until it has put the last test away: a trial that follows quickly (sooner still
     * on a loaded server) may meet either for a moment. Once a trial has connected, either is
     * that moment, not a missing server: tried again for a while. */
    for (unsigned n = 0; (rc == -ECONNREFUSED || rc == LP_EBUSY) && st->connected && n < RFC_REFUSED_RETRIES &&
                         !lp_subrun_stopped(st->ctl); n++) {
        usleep(RFC_REFUSED_WAIT_US);
        memset(&r, 0, sizeof(r));
        rc = lp_subrun_client(sp, &r, NULL, st->ctl);
    }
    if (lp_subrun_stopped(st->ctl)) {
        st->stopped = true;
        return false;
    }
    if (r.failed || !r.ended || !r.has_peer_report) {
        snprintf(st->error, sizeof(st->error), "%s: %s", what,
                 r.error[0] ? r.error : !r.has_peer_report ? "the receiver's counts did not come back"
                                                           : "the trial failed");
        return false;
    }
    st->connected = true;
    t->sent = r.sent_packets;
    t->received = r.received_packets > r.sent_packets ? r.sent_packets : r.received_packets;
    return true;
}

static bool lossless(const struct rfc_trial *t)
{
    return t->sent > 0 && t->received >= t->sent;
}

static void throughput(struct rfc_state *st, struct rfc_frame *f)
{
    double lo = 0, hi = 1.0, x = 1.0;
    char what[160];
    while (may_run(st)) {
        struct lp_spec sp;
        struct rfc_trial t = {.fraction = x};
        trial_spec(st->a, f, x, &sp);
        snprintf(what, sizeof(what), "throughput, %u-byte frames: trial %u at %.2f %% of the line rate", f->frame,
                 f->tput_trials + 1, x * 100);
        struct lp_subrun_progress pr = {.test = "throughput", .frame_bytes = f->frame, .step = f->tput_trials + 1,
                                        .line_fraction = x, .line = what};
        if (!run_trial(st, &sp, &t, &pr))
            return;
        f->tput_trials++;
        if (lossless(&t))
            lo = x;
        else
            hi = x;
        if (lo == 1.0 || hi - lo <= st->a->resolution) {
            f->tput_fraction = lo;
            f->done_tput = true;
            return;
        }
        x = (lo + hi) / 2;
    }
}

/* The loss rate from 100 % down, until two trials in a row lose nothing. */
static void loss_rate(struct rfc_state *st, struct rfc_frame *f)
{
    char what[160];
    unsigned clean = 0;
    for (unsigned k = 0; k < 10 && clean < 2 && may_run(st); k++) {
        double x = 1.0 - RFC_LOSS_STEP * k;
        struct lp_spec sp;
        struct rfc_trial *t = &f->loss[f->nloss];
        t->fraction = x;
        trial_spec(st->a, f, x, &sp);
        snprintf(what, sizeof(what), "frame loss, %u-byte frames: %.0f %% of the line rate", f->frame, x * 100);
        struct lp_subrun_progress pr = {.test = "loss", .frame_bytes = f->frame, .step = k + 1, .steps = 10,
                                        .line_fraction = x, .line = what};
        if (!run_trial(st, &sp, t, &pr))
            return;
        f->nloss++;
        clean = lossless(t) ? clean + 1 : 0;
    }
    f->done_loss = clean >= 2 || f->nloss == 10;
}

/* The longest burst at line rate that arrives whole: -k frames, sent at the line rate. */
static void back_to_back(struct rfc_state *st, struct rfc_frame *f)
{
    uint64_t lo = 0, hi = (uint64_t)(frames_per_s(st->a, f, 1.0) * RFC_B2B_MAX_S) + 1, n = hi;
    char what[160];
    for (unsigned k = 0; k < RFC_B2B_STEPS && may_run(st); k++) {
        struct lp_spec sp;
        struct rfc_trial t = {.fraction = 1.0};
        trial_spec(st->a, f, 1.0, &sp);
        sp.duration_s = 0;
        sp.blocks = n;
        snprintf(what, sizeof(what), "back-to-back, %u-byte frames: a burst of %llu", f->frame, (unsigned long long)n);
        struct lp_subrun_progress pr = {.test = "back-to-back", .frame_bytes = f->frame, .step = k + 1,
                                        .steps = RFC_B2B_STEPS, .line_fraction = 1.0, .frames = n, .line = what};
        if (!run_trial(st, &sp, &t, &pr))
            return;
        if (lossless(&t))
            lo = n;
        else
            hi = n;
        if (lo == hi || hi - lo <= 1 || (lo && (double)(hi - lo) / (double)lo < 0.01))
            break;
        n = lo + (hi - lo) / 2;
    }
    f->b2b_frames = lo;
    f->done_b2b = may_run(st) || lo > 0;
}

struct rfc_probe {
    struct lp_spec spec;
    struct lp_subrun r;
    struct lp_client *client;   /* while it runs (atomic): a stop ends it with the trial */
};

static void *probe_thread(void *arg)
{
    struct rfc_probe *p = arg;
    lp_subrun_client(&p->spec, &p->r, &p->client, NULL);
    return NULL;
}

/* Round trips beside a trial at the throughput rate (iperf2 servers answer --bounceback). A
 * probe that brought no round trip back is an error, not an empty column: the server does not
 * answer --bounceback (iperf 2.0, the board agent without LPA_IPERF2_BOUNCEBACK) and the test
 * asked for cannot be measured there. */
static void latency(struct rfc_state *st, struct rfc_frame *f)
{
    if (st->a->to.dialect != LP_DIALECT_IPERF2 || !f->done_tput || !may_run(st))
        return;
    struct rfc_probe p;
    memset(&p, 0, sizeof(p));
    lp_spec_init(&p.spec, LP_ROLE_CLIENT);
    p.spec.dialect = LP_DIALECT_IPERF2;
    lp_subrun_aim(&p.spec, &st->a->to);
    p.spec.duration_s = st->a->trial_s;
    p.spec.blksize = 100;
    p.spec.nodelay = true;
    p.spec.iperf2.bb = (struct lp_bounceback_spec){.on = true, .burst = 1, .period_s = 0.01, .period_given = true};
    char what[160];
    snprintf(what, sizeof(what), "latency, %u-byte frames: at %.2f %% of the line rate", f->frame,
             f->tput_fraction * 100);
    pthread_t th;
    if (pthread_create(&th, NULL, probe_thread, &p) != 0) {
        snprintf(st->error, sizeof(st->error), "%s: cannot start the --bounceback probe's thread", what);
        return;
    }
    struct lp_spec sp;
    struct rfc_trial *t = &f->lat_trial;
    t->fraction = f->tput_fraction > 0 ? f->tput_fraction : st->a->resolution;
    trial_spec(st->a, f, t->fraction, &sp);
    struct lp_subrun_progress pr = {.test = "latency", .frame_bytes = f->frame, .step = 1, .steps = 1,
                                    .line_fraction = f->tput_fraction, .line = what};
    bool ok = run_trial(st, &sp, t, &pr);
    if (!ok) { /* stopped or failed: the probe has nothing left to measure beside */
        struct lp_client *c = __atomic_load_n(&p.client, __ATOMIC_ACQUIRE);
        if (c)
            lp_client_stop(c);
    }
    pthread_join(th, NULL);
    if (!ok)
        return;
    if (p.r.error[0]) {
        snprintf(st->error, sizeof(st->error), "%s: the --bounceback probe failed: %.200s", what, p.r.error);
        return;
    }
    if (p.r.failed || !p.r.rtt.count) {
        snprintf(st->error, sizeof(st->error), "%s: the --bounceback probe got no round trip back (the server "
                 "must answer iperf 2.1's --bounceback: iperf 2.1 or later, linkperf -s, the board agent built "
                 "with LPA_IPERF2_BOUNCEBACK=1)", what);
        return;
    }
    f->has_latency = true;
    f->rtt = p.r.rtt;
    f->done_lat = true;
}

/* ---- report ---- */

static void print_text(const struct rfc_args *a, const struct rfc_frame *fr, unsigned n, const struct rfc_state *st)
{
    printf("linkperf rfc2544: %s port %u (%s), line rate %.3f Mbit/s, %.1f s trials, resolution %.1f %%\n", a->to.host,
           (unsigned)a->to.port, a->to.dialect == LP_DIALECT_IPERF2 ? "iperf2" : "iperf3", a->line_bps / 1e6, a->trial_s,
           a->resolution * 100);
    printf("\nThroughput (RFC 2544 26.1) and latency at it (26.2, round trips)\n");
    printf("frame  payload   %% line   frames/s      Mbit/s (L2)  payload Mbit/s  trials  RTT min/p50/p99/max (ms)\n");
    for (unsigned i = 0; i < n; i++) {
        const struct rfc_frame *f = &fr[i];
        if (f->skipped) {
            printf("%5u  %7u   skipped: the %s header needs %u bytes of payload\n", f->frame, f->payload,
                   a->to.dialect == LP_DIALECT_IPERF2 ? "iperf2" : "iperf3",
                   a->to.dialect == LP_DIALECT_IPERF2 ? RFC_MIN_PAYLOAD_I2 : RFC_MIN_PAYLOAD_I3);
            continue;
        }
        if (!f->done_tput)
            continue;
        double fps = frames_per_s(a, f, f->tput_fraction);
        char lat[80] = "-";
        if (f->has_latency)
            snprintf(lat, sizeof(lat), "%.3f/%.3f/%.3f/%.3f", f->rtt.min_ms, f->rtt.p50_ms, f->rtt.p99_ms,
                     f->rtt.max_ms);
        printf("%5u  %7u  %6.2f  %10.0f  %12.3f  %14.3f  %6u  %s\n", f->frame, f->payload, f->tput_fraction * 100, fps,
               fps * f->frame * 8 / 1e6, payload_bps(a, f, f->tput_fraction) / 1e6, f->tput_trials, lat);
    }
    printf("\nFrame loss rate (26.3): %% of frames lost at %% of the line rate\n");
    for (unsigned i = 0; i < n; i++) {
        const struct rfc_frame *f = &fr[i];
        if (f->skipped || !f->nloss)
            continue;
        printf("%5u:", f->frame);
        for (unsigned k = 0; k < f->nloss; k++) {
            const struct rfc_trial *t = &f->loss[k];
            printf(" %.0f%%=%.3f%%", t->fraction * 100,
                   t->sent ? 100.0 * (double)(t->sent - t->received) / (double)t->sent : 0.0);
        }
        printf("\n");
    }
    printf("\nBack-to-back (26.4): the longest burst at line rate that arrived whole\n");
    for (unsigned i = 0; i < n; i++) {
        const struct rfc_frame *f = &fr[i];
        if (!f->skipped && f->done_b2b)
            printf("%5u: %llu frames (%.3f ms at line rate)\n", f->frame, (unsigned long long)f->b2b_frames,
                   (double)f->b2b_frames / frames_per_s(a, f, 1.0) * 1e3);
    }
    if (st->out_of_time)
        printf("\n--max-time %.0f s reached: the tables above are what finished.\n", a->max_time_s);
}

static cJSON *build_json(const struct rfc_args *a, const struct rfc_frame *fr, unsigned n, const struct rfc_state *st)
{
    cJSON *doc = cJSON_CreateObject(), *o = doc ? cJSON_AddObjectToObject(doc, "rfc2544") : NULL;
    cJSON *arr = o ? cJSON_AddArrayToObject(o, "frames") : NULL;
    if (!arr) {
        cJSON_Delete(doc);
        return NULL;
    }
    cJSON_AddStringToObject(o, "host", a->to.host);
    cJSON_AddNumberToObject(o, "port", a->to.port);
    cJSON_AddStringToObject(o, "dialect", a->to.dialect == LP_DIALECT_IPERF2 ? "iperf2" : "iperf3");
    cJSON_AddNumberToObject(o, "line_bits_per_second", a->line_bps);
    cJSON_AddNumberToObject(o, "trial_seconds", a->trial_s);
    cJSON_AddNumberToObject(o, "resolution", a->resolution);
    cJSON_AddBoolToObject(o, "out_of_time", st->out_of_time);
    if (st->error[0])
        cJSON_AddStringToObject(o, "error", st->error);
    for (unsigned i = 0; i < n; i++) {
        const struct rfc_frame *f = &fr[i];
        cJSON *x = cJSON_CreateObject();
        if (!x)
            break;
        cJSON_AddItemToArray(arr, x);
        cJSON_AddNumberToObject(x, "frame_bytes", f->frame);
        cJSON_AddNumberToObject(x, "payload_bytes", f->payload);
        cJSON_AddBoolToObject(x, "skipped", f->skipped);
        if (f->done_tput) {
            cJSON *t = cJSON_AddObjectToObject(x, "throughput");
            cJSON_AddNumberToObject(t, "line_fraction", f->tput_fraction);
            cJSON_AddNumberToObject(t, "frames_per_second", frames_per_s(a, f, f->tput_fraction));
            cJSON_AddNumberToObject(t, "payload_bits_per_second", payload_bps(a, f, f->tput_fraction));
            cJSON_AddNumberToObject(t, "trials", f->tput_trials);
        }
        if (f->has_latency) {
            cJSON *l = cJSON_AddObjectToObject(x, "latency_rtt");
            cJSON_AddNumberToObject(l, "count", (double)f->rtt.count);
            cJSON_AddNumberToObject(l, "min_ms", f->rtt.min_ms);
            cJSON_AddNumberToObject(l, "p50_ms", f->rtt.p50_ms);
            cJSON_AddNumberToObject(l, "p90_ms", f->rtt.p90_ms);
            cJSON_AddNumberToObject(l, "p99_ms", f->rtt.p99_ms);
            cJSON_AddNumberToObject(l, "max_ms", f->rtt.max_ms);
            /* Frames the trial beside the probe lost: the queue overflowed, and a probe's
             * segment may have waited for TCP's retransmission. */
            cJSON_AddNumberToObject(l, "trial_sent", (double)f->lat_trial.sent);
            cJSON_AddNumberToObject(l, "trial_received", (double)f->lat_trial.received);
        }
        if (f->nloss) {
            cJSON *l = cJSON_AddArrayToObject(x, "frame_loss");
            for (unsigned k = 0; k < f->nloss; k++) {
                cJSON *t = cJSON_CreateObject();
                cJSON_AddNumberToObject(t, "line_fraction", f->loss[k].fraction);
                cJSON_AddNumberToObject(t, "sent", (double)f->loss[k].sent);
                cJSON_AddNumberToObject(t, "received", (double)f->loss[k].received);
                cJSON_AddItemToArray(l, t);
            }
        }
        if (f->done_b2b)
            cJSON_AddNumberToObject(x, "back_to_back_frames", (double)f->b2b_frames);
    }
    return doc;
}

/* ---- command line ---- */

static int usage(const char *why)
{
    if (why) {
        fprintf(stderr, "linkperf: rfc2544: %s (see linkperf rfc2544 --help)\n", why);
        return 2;
    }
    printf("Usage: linkperf rfc2544 -c host -b line-rate [-p port] [--dialect iperf3|iperf2]\n"
           "                        [--frames 64,128,...] [--trial s] [--resolution pct]\n"
           "                        [--max-time s] [-J] [-4|-6] [--no-history] [--db path]\n"
           "  RFC 2544 throughput, latency, frame loss rate and back-to-back from UDP tests.\n"
           "  -c host        a linkperf, iperf3 or iperf2 server, or the board agent\n"
           "  -b rate        the line rate in bits/s (k/m/g, 1000-based): frames on the wire,\n"
           "                 preamble and gap included\n"
           "  -p port        default 5201 (iperf3) or 5001 (iperf2)\n"
           "  --dialect d    iperf3 (default) or iperf2 (latency needs iperf2: --bounceback)\n"
           "  --frames list  Ethernet frame sizes 64..9018 (default 64,128,256,512,1024,1280,1518)\n"
           "  --trial s      seconds a trial, 0.5..600 (default 2; RFC 2544 asks for 60)\n"
           "  --resolution p the throughput search stops within p %% of the line rate,\n"
           "                 0.1..50 (default 1)\n"
           "  --max-time s   stop starting trials after this long, 1..86400 (default 3600)\n"
           "  --tests list   of throughput, latency, loss, back-to-back (default all; latency\n"
           "                 needs throughput)\n"
           "  -J             the report as JSON\n"
           "  --no-history   do not record the run in the history (--db path: that file)\n");
    return 0;
}

static int parse_frames(const char *v, struct rfc_args *a)
{
    char buf[256], *save = NULL;
    if (strlen(v) >= sizeof(buf))
        return -1;
    snprintf(buf, sizeof(buf), "%s", v);
    a->nframes = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        double d;
        if (a->nframes >= RFC_MAX_FRAMES || lp_cli_value_int(t, false, &d) < 0 || d < 64 || d > 9018)
            return -1;
        a->frames[a->nframes++] = (unsigned)d;
    }
    return a->nframes ? 0 : -1;
}

static int parse_tests(const char *v, struct rfc_args *a)
{
    char buf[128], *save = NULL;
    if (strlen(v) >= sizeof(buf))
        return -1;
    snprintf(buf, sizeof(buf), "%s", v);
    a->tests = 0;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        unsigned k = 0;
        while (k < 4 && strcmp(t, test_names[k]))
            k++;
        if (k == 4)
            return -1;
        a->tests |= 1u << k;
    }
    if ((a->tests & RFC_T_LAT) && !(a->tests & RFC_T_TPUT))
        return -1;
    return a->tests ? 0 : -1;
}

static int take_option(void *args, const char *o, const char *v, char *why, size_t whylen)
{
    struct rfc_args *a = args;
    double d;
    if (!strcmp(o, "-b") || !strcmp(o, "--bitrate")) {
        if (lp_cli_value_units(v, 1000, &d) < 0 || d < 1e5 || d > 4e11) {
            snprintf(why, whylen, "option -b: '%s' is not a line rate in 100k..400G (bits/s)", v);
            return -1;
        }
        a->line_bps = d;
    } else if (!strcmp(o, "--dialect")) {
        if (strcmp(v, "iperf3") && strcmp(v, "iperf2")) {
            snprintf(why, whylen, "option --dialect: '%s' is not iperf3 or iperf2", v);
            return -1;
        }
        a->to.dialect = v[5] == '2' ? LP_DIALECT_IPERF2 : LP_DIALECT_IPERF3;
    } else if (!strcmp(o, "--frames")) {
        if (parse_frames(v, a) < 0) {
            snprintf(why, whylen, "option --frames: '%s' is not a list of up to %d frame sizes in 64..9018", v,
                     RFC_MAX_FRAMES);
            return -1;
        }
    } else if (!strcmp(o, "--trial")) {
        if (lp_subrun_number(v, 0.5, 600, &a->trial_s) < 0) {
            snprintf(why, whylen, "option --trial: '%s' is out of range (0.5..600 seconds)", v);
            return -1;
        }
    } else if (!strcmp(o, "--resolution")) {
        if (lp_subrun_number(v, 0.1, 50, &d) < 0) {
            snprintf(why, whylen, "option --resolution: '%s' is out of range (0.1..50 %%)", v);
            return -1;
        }
        a->resolution = d / 100;
    } else if (!strcmp(o, "--tests")) {
        if (parse_tests(v, a) < 0) {
            snprintf(why, whylen, "option --tests: '%s' is not a list of throughput, latency, loss, "
                     "back-to-back (latency needs throughput)", v);
            return -1;
        }
    } else if (!strcmp(o, "--max-time")) {
        if (lp_subrun_number(v, 1, 86400, &a->max_time_s) < 0) {
            snprintf(why, whylen, "option --max-time: '%s' is out of range (1..86400 seconds)", v);
            return -1;
        }
    } else {
        return LP_SUBRUN_UNKNOWN;
    }
    return 0;
}

static int parse_args(int argc, char *const argv[], struct rfc_args *a, char *why, size_t whylen)
{
    memset(a, 0, sizeof(*a));
    a->trial_s = 2;
    a->resolution = 0.01;
    a->max_time_s = 3600;
    a->tests = RFC_T_ALL;
    a->nframes = sizeof(default_frames) / sizeof(default_frames[0]);
    memcpy(a->frames, default_frames, sizeof(default_frames));
    int rc = lp_subrun_parse(argc, argv, &a->to, take_option, a, why, whylen);
    if (rc)
        return rc;
    if (!(a->line_bps > 0)) {
        snprintf(why, whylen, "give the line rate with -b (e.g. -b 100m for Fast Ethernet)");
        return -1;
    }
    if (!a->to.port_given)
        a->to.port = a->to.dialect == LP_DIALECT_IPERF2 ? 5001 : 5201;
    return 0;
}

int lp_rfc2544_check(int argc, char *const argv[], struct lp_subrun_target *to, char *why, size_t whylen)
{
    struct rfc_args a;
    int rc = parse_args(argc, argv, &a, why, whylen);
    if (rc == 1)
        snprintf(why, whylen, "--help: not a test");
    if (rc == 0 && to)
        *to = a.to;
    return rc == 0 ? 0 : -1;
}

/* Each test over the frame sizes in turn, until --max-time, a stop or a failed trial
 * (st->error). */
static void measure(struct rfc_state *st, struct rfc_frame *fr)
{
    const struct rfc_args *a = st->a;
    memset(fr, 0, sizeof(*fr) * RFC_MAX_FRAMES);
    unsigned min = a->to.dialect == LP_DIALECT_IPERF2 ? RFC_MIN_PAYLOAD_I2 : RFC_MIN_PAYLOAD_I3;
    for (unsigned i = 0; i < a->nframes; i++) {
        fr[i].frame = a->frames[i];
        fr[i].payload = payload_of(a, a->frames[i]);
        fr[i].skipped = fr[i].payload < min || fr[i].payload > LP_MAX_UDP_BLKSIZE;
    }
    static void (*const run[])(struct rfc_state *, struct rfc_frame *) = {throughput, latency, loss_rate,
                                                                          back_to_back};
    for (unsigned k = 0; k < 4; k++)
        for (unsigned i = 0; (a->tests & (1u << k)) && i < a->nframes && may_run(st); i++)
            if (!fr[i].skipped)
                run[k](st, &fr[i]);
}

int lp_rfc2544_run(int argc, char *const argv[], const struct lp_subrun_ctl *ctl, cJSON **doc, char *why,
                   size_t whylen)
{
    struct rfc_args a;
    struct rfc_frame fr[RFC_MAX_FRAMES];
    *doc = NULL;
    if (parse_args(argc, argv, &a, why, whylen) != 0)
        return -1;
    struct rfc_state st = {.a = &a, .ctl = ctl, .t0 = lp_subrun_now_s()};
    measure(&st, fr);
    *doc = build_json(&a, fr, a.nframes, &st);
    snprintf(why, whylen, "%s", st.error);
    return st.error[0] ? -1 : 0;
}

int lp_rfc2544_main(int argc, char **argv)
{
    struct rfc_args a;
    char why[400];
    int rc = parse_args(argc, argv, &a, why, sizeof(why));
    if (rc)
        return usage(rc == 1 ? NULL : why);
    char err[256];
    /* Progress on stderr, but none with -J (a script reads the document). */
    struct lp_subrun_cli cli = {.name = "rfc2544", .quiet = a.to.json, .sig = lp_cli_signals_start(err, sizeof(err))};
    if (!cli.sig) {
        fprintf(stderr, "linkperf: rfc2544: %s\n", err);
        return 1;
    }
    struct lp_subrun_ctl ctl;
    struct lp_subrun_history hist;
    lp_subrun_cli_ctl(&cli, &ctl);
    lp_subrun_history_begin(&hist, &a.to, "udp", argc, argv);
    struct rfc_state st = {.a = &a, .ctl = &ctl, .t0 = lp_subrun_now_s()};
    struct rfc_frame fr[RFC_MAX_FRAMES];
    measure(&st, fr);
    lp_cli_signals_free(cli.sig);
    cJSON *doc = build_json(&a, fr, a.nframes, &st);
    lp_subrun_history_end(&hist, doc, st.error, !st.error[0] && !st.stopped);
    if (a.to.json) {
        lp_subrun_print_json(doc);
    } else {
        cJSON_Delete(doc);
        print_text(&a, fr, a.nframes, &st);
    }
    if (st.error[0]) {
        fprintf(stderr, "linkperf: rfc2544: %s\n", st.error);
        return 1;
    }
    return 0;
}

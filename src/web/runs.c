/* Web runs: one thread per test, the engine's records turned into bus events. Formatting is
 * the formatters' (src/fmt): a json-stream formatter for the chart's data and the text
 * formatter of the command line's look for the text pane. Nothing here prints. */
#include "web/runs.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cmdline.h"
#include "cli/config.h"
#include "cli/parse.h"
#include "fmt/fmt.h"
#include "linkperf/engine.h"
#include "store/store.h"
#include "web/measure_runs.h"

enum run_state { RUN_RUNNING, RUN_DONE, RUN_FAILED, RUN_STOPPED };
static const char *const state_names[] = {"running", "done", "failed", "stopped"};

struct run;

/* The formatters of one test of a run (a server run has many). Owns them. */
struct web_test {
    struct web_test *next;
    struct run *run;
    unsigned test_id;
    struct lp_out json_out, text_out;
    struct lp_fmt *json;        /* --json-stream look: the chart's data */
    struct lp_fmt *text;        /* the command line's text look (iperf3's, or iperf2's) */
};

/* One run. Owns its argv copy, engine object (while running) and tests; borrows the table. */
struct run {
    struct lp_web_runs *owner;
    unsigned id;
    enum run_state state;       /* under owner->mu */
    bool stop_requested;        /* under owner->mu */
    bool joined;
    pthread_t thread;
    int argc;
    char **argv;
    uint64_t started_ms;
    struct lp_cli_config cfg;
    const struct lp_web_measure *measure; /* a measurement subcommand's run, else NULL */
    struct lp_subrun_target to;    /* ...and the server it measures */
    char title[LP_TITLE_MAX];
    struct lp_client *client;   /* under owner->mu; NULL once the run is over */
    struct lp_server *server;
    pthread_mutex_t rec_mu;     /* records of a server's concurrent tests */
    struct web_test *tests;
    char error[LP_CLI_ERR_MAX]; /* the last error record's message */
};

struct lp_web_runs {
    pthread_mutex_t mu;
    struct lp_bus *bus;
    struct lp_store *store;
    struct run *runs[LP_WEB_RUNS_KEPT];
    unsigned next_id;
    bool restrict_targets; /* set once, before the page serves */
};

static uint64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- argument checks ---- */

/* "option -t/--time: ..." or "unknown option --bogus ...": the option the message names. */
static void option_of(const char *msg, char *option, size_t optlen)
{
    const char *p = strstr(msg, "option ");
    size_t n = 0;

    option[0] = '\0';
    if (!p || optlen == 0)
        return;
    p += strlen("option ");
    while (p[n] && p[n] != ':' && p[n] != ' ')
        n++;
    if (n >= optlen)
        n = optlen - 1;
    memcpy(option, p, n);
    option[n] = '\0';
}

/* Addresses a page reachable from elsewhere must not aim tests at: this machine (loopback,
 * unspecified), its private and shared networks, link-local ones (169.254.169.254 is the
 * cloud metadata service), multicast and broadcast. */
static bool private_v4(uint32_t a)
{
    return (a >> 24) == 0 || (a >> 24) == 10 || (a >> 24) == 127 || (a >> 16) == 0xA9FE ||
           (a >> 20) == 0xAC1 || (a >> 16) == 0xC0A8 || (a >> 22) == (0x6440 >> 6) ||
           (a >> 28) >= 0xE;
}

static bool private_addr(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET)
        return private_v4(ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr));
    if (sa->sa_family != AF_INET6)
        return true;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a)) {
        uint32_t v4;
        memcpy(&v4, &a->s6_addr[12], 4);
        return private_v4(ntohl(v4));
    }
    return IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_LINKLOCAL(a) ||
           IN6_IS_ADDR_SITELOCAL(a) || IN6_IS_ADDR_MULTICAST(a) || (a->s6_addr[0] & 0xFE) == 0xFC;
}

/* A client's host, every address it resolves to. A name that does not resolve is left to
 * the run, which reports it as the CLI does. */
static int check_host(const char *host, struct lp_cli_err *err)
{
    struct addrinfo hints, *res = NULL, *ai;
    int rc = 0;

    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return 0;
    for (ai = res; ai && rc == 0; ai = ai->ai_next)
        if (private_addr(ai->ai_addr))
            rc = lp_cli_err_set(err, "option -c/--client: %s is a private, link-local or "
                                     "loopback address, and this page is served beyond "
                                     "loopback (linkperf ui --allow-private-targets allows it)",
                                host);
    freeaddrinfo(res);
    return rc;
}

void lp_web_runs_restrict_targets(struct lp_web_runs *w, bool on)
{
    w->restrict_targets = on;
}

/* The bounds of every command line from the page, before any parser reads it. */
static int check_sizes(int argc, char *const argv[], struct lp_cli_err *err)
{
    if (argc < 1 || argc > LP_WEB_ARGS_MAX)
        return lp_cli_err_set(err, "a command line has 1 to %d arguments", LP_WEB_ARGS_MAX);
    for (int i = 0; i < argc; i++)
        if (strlen(argv[i]) > LP_WEB_ARG_LEN_MAX)
            return lp_cli_err_set(err, "argument %d is longer than %d bytes", i + 1,
                                  LP_WEB_ARG_LEN_MAX);
    return 0;
}

static int parse_args(int argc, char *const argv[], struct lp_cli_config *cfg,
                      struct lp_cli_err *err)
{
    char *full[LP_WEB_ARGS_MAX + 2];
    int i;

    full[0] = (char *)"linkperf";
    for (i = 0; i < argc; i++)
        full[i + 1] = argv[i];
    full[argc + 1] = NULL;
    if (strcmp(argv[0], "ui") == 0 || strcmp(argv[0], "lwip-tune") == 0)
        return lp_cli_err_set(err, "'%s' is not a test", argv[0]);
    if (lp_cli_parse(argc + 1, full, cfg, err) < 0)
        return -1;
    if (cfg->action != LP_CLI_ACTION_RUN)
        return lp_cli_err_set(err, "the page runs tests only (no demo, help, version or man)");
    if (cfg->daemon)
        return lp_cli_err_set(err, "option -D/--daemon: not from the page");
    if (cfg->logfile[0] || cfg->pidfile[0])
        return lp_cli_err_set(err, "option %s: the page writes no files",
                              cfg->logfile[0] ? "--logfile" : "-I/--pidfile");
    if (cfg->spec.iperf2.from_stdin)
        return lp_cli_err_set(err, "option --stdin: the page has no standard input");
    /* The page's user is not necessarily the one who started it (any local user reaches
     * loopback): -F sent /etc/shadow to a listener of theirs when root ran the page. */
    if (cfg->spec.iperf2.file[0])
        return lp_cli_err_set(err, "option -F/--file: the page reads no local files");
    if (cfg->db[0])
        return lp_cli_err_set(err, "option --db: the page writes no files (its history is "
                                   "the one linkperf ui was started with)");
    /* Keys are local files too, and a password would come from this process's environment. */
    if (cfg->auth.public_key[0] || cfg->auth.username[0] || cfg->auth.private_key[0] ||
        cfg->auth.users[0])
        return lp_cli_err_set(err, "options --username, --rsa-public-key-path, "
                                   "--rsa-private-key-path, --authorized-users-path: the page "
                                   "reads no local files (run authenticated tests from the "
                                   "command line)");
    return 0;
}

/* Everything a page run is checked for: a test's or a server's command line (cfg), or a
 * measurement's (*m and to), and where it aims. */
static int check_run(const struct lp_web_runs *w, int argc, char *const argv[],
                     struct lp_cli_config *cfg, const struct lp_web_measure **m,
                     struct lp_subrun_target *to, struct lp_cli_err *err)
{
    int rc;

    *m = NULL;
    if (check_sizes(argc, argv, err) < 0)
        return -1;
    *m = lp_web_measure_of(argv[0]);
    rc = *m ? lp_web_measure_parse(*m, argc, argv, to, err) : parse_args(argc, argv, cfg, err);
    if (rc == 0 && w && w->restrict_targets && (*m || cfg->spec.role == LP_ROLE_CLIENT))
        rc = check_host(*m ? to->host : cfg->spec.host, err);
    return rc;
}

int lp_web_check_args(const struct lp_web_runs *w, int argc, char *const argv[],
                      struct lp_cli_err *err, char *option, size_t optlen)
{
    struct lp_cli_config *cfg = malloc(sizeof(*cfg)); /* large: paths */
    const struct lp_web_measure *m;
    struct lp_subrun_target to;
    int rc;

    if (!cfg)
        return lp_cli_err_set(err, "out of memory");
    rc = check_run(w, argc, argv, cfg, &m, &to, err);
    free(cfg);
    if (rc < 0)
        option_of(err->msg, option, optlen);
    return rc;
}

/* ---- records to events ---- */

static void publish(struct run *r, const char *event, cJSON *obj)
{
    lp_web_publish(r->owner->bus, event, obj);
}

static cJSON *event_head(struct run *r, unsigned test_id)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "id", r->id);
    cJSON_AddNumberToObject(o, "test", test_id);
    return o;
}

/* One json-stream line: {"id":R,"test":T,"rec":<the line's object>}. */
static void on_json(void *user, enum lp_out_channel ch, const char *s, size_t n)
{
    struct web_test *t = user;
    char *copy = strndup(s, n);
    cJSON *o, *rec;

    (void)ch;
    if (!copy)
        return;
    rec = cJSON_Parse(copy);
    free(copy);
    if (!rec)
        return;
    o = event_head(t->run, t->test_id);
    cJSON_AddItemToObject(o, "rec", rec);
    publish(t->run, "rec", o);
}

/* Text: one event per line, without its newline. */
static void on_text(void *user, enum lp_out_channel ch, const char *s, size_t n)
{
    struct web_test *t = user;

    while (n > 0) {
        const char *nl = memchr(s, '\n', n);
        size_t len = nl ? (size_t)(nl - s) : n;
        char *line = strndup(s, len);
        cJSON *o;

        if (line) {
            o = event_head(t->run, t->test_id);
            cJSON_AddStringToObject(o, "line", line);
            cJSON_AddBoolToObject(o, "stderr", ch == LP_OUT_STDERR);
            publish(t->run, "text", o);
            free(line);
        }
        len += nl ? 1 : 0;
        s += len;
        n -= len;
    }
}

static struct web_test *test_of(struct run *r, unsigned test_id)
{
    struct web_test *t;

    for (t = r->tests; t; t = t->next)
        if (t->test_id == test_id)
            return t;
    t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->run = r;
    t->test_id = test_id;
    t->json_out = (struct lp_out){on_json, t};
    t->text_out = (struct lp_out){on_text, t};
    t->json = lp_fmt_new(LP_FMT_JSON_STREAM, &r->cfg.fmt, &t->json_out);
    t->text = lp_fmt_new(r->cfg.iperf2 ? LP_FMT_TEXT2 : LP_FMT_TEXT, &r->cfg.fmt, &t->text_out);
    t->next = r->tests;
    r->tests = t;
    return t;
}

static void test_free(struct web_test *t)
{
    lp_fmt_free(t->json);
    lp_fmt_free(t->text);
    free(t);
}

static void drop_test(struct run *r, unsigned test_id)
{
    struct web_test **pp;

    for (pp = &r->tests; *pp; pp = &(*pp)->next) {
        if ((*pp)->test_id == test_id) {
            struct web_test *t = *pp;
            *pp = t->next;
            test_free(t);
            return;
        }
    }
}

/* Tests that never got DONE (a server stopped mid-test; the server's own test 0). */
static void drop_tests(struct run *r)
{
    while (r->tests) {
        struct web_test *t = r->tests;
        r->tests = t->next;
        test_free(t);
    }
}

static void on_record(const struct lp_record *rec, void *user)
{
    struct run *r = user;
    struct web_test *t;

    if (rec->kind == LP_REC_DEBUG)
        return;
    pthread_mutex_lock(&r->rec_mu);
    if (rec->kind == LP_REC_ERROR && rec->u.error.message)
        snprintf(r->error, sizeof(r->error), "%s", rec->u.error.message);
    t = test_of(r, rec->test_id);
    if (t) {
        lp_fmt_record(t->json, rec);
        lp_fmt_record(t->text, rec);
        if (rec->kind == LP_REC_DONE && rec->test_id != 0)
            drop_test(r, rec->test_id);
    }
    pthread_mutex_unlock(&r->rec_mu);
}

/* ---- run threads ---- */

static void publish_state(struct run *r)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "id", r->id);
    cJSON_AddStringToObject(o, "state", state_names[r->state]);
    cJSON_AddStringToObject(o, "error", r->state == RUN_FAILED ? r->error : "");
    publish(r, "state", o);
}

/* What the page's Stop stops, set under the table's lock (a Stop that came first applies). */
static void engine_set(struct run *r, struct lp_client *c, struct lp_server *s)
{
    pthread_mutex_lock(&r->owner->mu);
    r->client = c;
    r->server = s;
    if (r->stop_requested && c)
        lp_client_stop(c);
    if (r->stop_requested && s)
        lp_server_stop(s);
    pthread_mutex_unlock(&r->owner->mu);
}

/* ---- measurement runs (measure_runs.c): the page's Stop ---- */

static void measure_target(void *user, struct lp_client *c)
{
    engine_set(user, c, NULL);
}

static int measure_stopped(void *user)
{
    struct run *r = user;
    int stop;

    pthread_mutex_lock(&r->owner->mu);
    stop = r->stop_requested;
    pthread_mutex_unlock(&r->owner->mu);
    return stop;
}

static int measure_main(struct run *r)
{
    struct lp_web_measure_run mr = {r->measure, r->id, r->argc, r->argv, &r->to, r->owner->bus,
                                    r->owner->store, measure_target, measure_stopped, r,
                                    r->error, sizeof(r->error)};
    return lp_web_measure_main(&mr);
}

static void *run_main(void *arg)
{
    struct run *r = arg;
    struct lp_web_runs *w = r->owner;
    struct lp_sink sink = {.record = on_record, .server_output = NULL, .user = r};
    struct lp_store_tap *tap = NULL;
    char err[LP_CLI_ERR_MAX] = "";
    int rc = -1;

    if (w->store && !r->measure) { /* the history gets every record on its way to the page */
        char *cmd = lp_cli_command_line(r->argc, r->argv);
        tap = lp_store_tap_new(w->store, "ui", cmd ? cmd : "linkperf", &sink);
        free(cmd);
        if (tap)
            lp_store_tap_sink(tap, &sink);
    }

    if (r->measure) {
        rc = measure_main(r);
    } else if (r->cfg.spec.role == LP_ROLE_SERVER) {
        struct lp_server *s = lp_server_new(&r->cfg.spec, &sink, err, sizeof(err));
        engine_set(r, NULL, s);
        if (s)
            rc = lp_server_run(s);
        engine_set(r, NULL, NULL);
        lp_server_free(s);
    } else {
        struct lp_client *c = lp_client_new(&r->cfg.spec, &sink, err, sizeof(err));
        engine_set(r, c, NULL);
        if (c)
            rc = lp_client_run(c);
        engine_set(r, NULL, NULL);
        lp_client_free(c);
    }
    lp_store_tap_free(tap); /* a test without DONE stays recorded as incomplete */
    pthread_mutex_lock(&r->rec_mu);
    drop_tests(r);
    if (err[0] && !r->error[0])
        snprintf(r->error, sizeof(r->error), "%s", err);
    if (rc < 0 && !r->error[0])
        snprintf(r->error, sizeof(r->error), "%s", lp_strerror(rc));
    pthread_mutex_unlock(&r->rec_mu);
    pthread_mutex_lock(&w->mu);
    r->state = r->stop_requested ? RUN_STOPPED : rc == 0 ? RUN_DONE : RUN_FAILED;
    if (r->stop_requested && rc < 0 && rc != LP_ECANCEL)
        r->state = RUN_FAILED;
    publish_state(r);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void run_free(struct run *r)
{
    int i;

    if (!r)
        return;
    if (!r->joined)
        pthread_join(r->thread, NULL);
    drop_tests(r); /* an attached run's, whose server is gone */
    for (i = 0; i < r->argc; i++)
        free(r->argv[i]);
    free(r->argv);
    pthread_mutex_destroy(&r->rec_mu);
    free(r);
}

struct lp_web_runs *lp_web_runs_new(struct lp_bus *bus, struct lp_store *store)
{
    struct lp_web_runs *w = calloc(1, sizeof(*w));

    if (!w)
        return NULL;
    pthread_mutex_init(&w->mu, NULL);
    w->bus = bus;
    w->store = store;
    w->next_id = 1;
    return w;
}

/* A slot for a new run under w->mu: a free one, else the oldest finished run's. -1: all
 * LP_WEB_RUNS_ACTIVE_MAX runs are running (or every slot is). */
static int take_slot(struct lp_web_runs *w, struct run **old)
{
    int i, active = 0, oldest = -1;

    *old = NULL;
    for (i = 0; i < LP_WEB_RUNS_KEPT; i++) {
        struct run *r = w->runs[i];
        if (r && r->state == RUN_RUNNING)
            active++;
        else if (r && (oldest < 0 || r->id < w->runs[oldest]->id))
            oldest = i;
    }
    if (active >= LP_WEB_RUNS_ACTIVE_MAX)
        return -1;
    for (i = 0; i < LP_WEB_RUNS_KEPT; i++)
        if (!w->runs[i])
            return i;
    if (oldest < 0)
        return -1;
    *old = w->runs[oldest];
    w->runs[oldest] = NULL;
    return oldest;
}

static cJSON *args_json(int argc, char *const argv[])
{
    cJSON *a = cJSON_CreateArray();
    int i;

    for (i = 0; i < argc; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
    return a;
}

int lp_web_runs_start(struct lp_web_runs *w, int argc, char *const argv[],
                      struct lp_cli_err *err, char *option, size_t optlen)
{
    struct run *r = calloc(1, sizeof(*r)), *old = NULL;
    int i, slot, id;
    cJSON *o;

    option[0] = '\0';
    if (!r)
        return lp_cli_err_set(err, "out of memory");
    pthread_mutex_init(&r->rec_mu, NULL);
    r->owner = w;
    r->joined = true; /* until the thread exists */
    if (check_run(w, argc, argv, &r->cfg, &r->measure, &r->to, err) < 0) {
        option_of(err->msg, option, optlen);
        run_free(r);
        return -1;
    }
    snprintf(r->title, sizeof(r->title), "%s", r->cfg.spec.title);
    r->cfg.fmt.title = r->title[0] ? r->title : NULL;
    r->argv = calloc((size_t)argc, sizeof(char *));
    for (i = 0; r->argv && i < argc; i++)
        if ((r->argv[r->argc++] = strdup(argv[i])) == NULL)
            break;
    if (!r->argv || r->argc != argc || r->argv[argc - 1] == NULL) {
        run_free(r);
        return lp_cli_err_set(err, "out of memory");
    }
    r->started_ms = wall_ms();
    pthread_mutex_lock(&w->mu);
    slot = take_slot(w, &old);
    if (slot < 0) {
        pthread_mutex_unlock(&w->mu);
        run_free(r);
        return lp_cli_err_set(err, "%d tests are running already: stop one first",
                              LP_WEB_RUNS_ACTIVE_MAX);
    }
    r->id = id = (int)w->next_id++;
    r->state = RUN_RUNNING;
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", r->id);
    cJSON_AddItemToObject(o, "args", args_json(r->argc, r->argv));
    cJSON_AddStringToObject(o, "state", "running");
    cJSON_AddNumberToObject(o, "started_ms", (double)r->started_ms);
    publish(r, "run", o);
    if (pthread_create(&r->thread, NULL, run_main, r) != 0) {
        pthread_mutex_unlock(&w->mu);
        run_free(r);
        run_free(old);
        return lp_cli_err_set(err, "cannot start a thread for the test");
    }
    r->joined = false;
    w->runs[slot] = r;
    pthread_mutex_unlock(&w->mu);
    run_free(old); /* a finished run: its thread has returned or is about to */
    return id;
}

static struct run *run_by_id(struct lp_web_runs *w, unsigned id)
{
    int i;

    for (i = 0; i < LP_WEB_RUNS_KEPT; i++)
        if (w->runs[i] && w->runs[i]->id == id)
            return w->runs[i];
    return NULL;
}

int lp_web_runs_attach(struct lp_web_runs *w, const struct lp_cli_config *cfg, int argc,
                       char *const argv[], struct lp_sink *out)
{
    struct run *r = calloc(1, sizeof(*r)), *old = NULL;
    int i, slot;
    cJSON *o;

    if (!r)
        return -1;
    pthread_mutex_init(&r->rec_mu, NULL);
    r->owner = w;
    r->joined = true; /* no thread of ours */
    r->cfg = *cfg;
    snprintf(r->title, sizeof(r->title), "%s", r->cfg.spec.title);
    r->cfg.fmt.title = r->title[0] ? r->title : NULL;
    r->argv = calloc((size_t)(argc > 0 ? argc : 1), sizeof(char *));
    for (i = 0; r->argv && i < argc; i++)
        if ((r->argv[r->argc++] = strdup(argv[i])) == NULL)
            break;
    r->started_ms = wall_ms();
    pthread_mutex_lock(&w->mu);
    slot = r->argv ? take_slot(w, &old) : -1;
    if (slot < 0) {
        pthread_mutex_unlock(&w->mu);
        run_free(r);
        return -1;
    }
    r->id = w->next_id++;
    r->state = RUN_RUNNING;
    w->runs[slot] = r;
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", r->id);
    cJSON_AddItemToObject(o, "args", args_json(r->argc, r->argv));
    cJSON_AddStringToObject(o, "state", "running");
    cJSON_AddNumberToObject(o, "started_ms", (double)r->started_ms);
    publish(r, "run", o);
    pthread_mutex_unlock(&w->mu);
    run_free(old);
    *out = (struct lp_sink){.record = on_record, .server_output = NULL, .user = r};
    return (int)r->id;
}

void lp_web_runs_server(struct lp_web_runs *w, int id, struct lp_server *server)
{
    struct run *r;

    pthread_mutex_lock(&w->mu);
    r = run_by_id(w, (unsigned)id);
    if (r) {
        r->server = server;
        if (server && r->stop_requested)
            lp_server_stop(server);
    }
    pthread_mutex_unlock(&w->mu);
}

void lp_web_runs_detach(struct lp_web_runs *w, int id, int rc)
{
    struct run *r;

    pthread_mutex_lock(&w->mu);
    r = run_by_id(w, (unsigned)id);
    if (r && r->state == RUN_RUNNING) {
        r->server = NULL;
        if (rc < 0 && rc != LP_ECANCEL && !r->error[0])
            snprintf(r->error, sizeof(r->error), "%s", lp_strerror(rc));
        r->state = r->stop_requested ? RUN_STOPPED
                   : rc == 0 || rc == LP_ECANCEL ? RUN_DONE : RUN_FAILED;
        publish_state(r);
    }
    pthread_mutex_unlock(&w->mu);
}

int lp_web_runs_stop(struct lp_web_runs *w, unsigned id)
{
    int i, rc = -1;

    pthread_mutex_lock(&w->mu);
    for (i = 0; i < LP_WEB_RUNS_KEPT; i++) {
        struct run *r = w->runs[i];
        if (!r || r->id != id || r->state != RUN_RUNNING)
            continue;
        r->stop_requested = true;
        if (r->client)
            lp_client_stop(r->client);
        if (r->server)
            lp_server_stop(r->server);
        rc = 0;
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

char *lp_web_runs_status(struct lp_web_runs *w)
{
    cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "runs");
    char *s;
    int i;

    pthread_mutex_lock(&w->mu);
    for (i = 0; i < LP_WEB_RUNS_KEPT; i++) {
        struct run *r = w->runs[i];
        cJSON *e;
        if (!r)
            continue;
        e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "id", r->id);
        cJSON_AddStringToObject(e, "state", state_names[r->state]);
        cJSON_AddItemToObject(e, "args", args_json(r->argc, r->argv));
        cJSON_AddNumberToObject(e, "started_ms", (double)r->started_ms);
        cJSON_AddStringToObject(e, "error", r->state == RUN_FAILED ? r->error : "");
        cJSON_AddItemToArray(a, e);
    }
    pthread_mutex_unlock(&w->mu);
    s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

void lp_web_runs_free(struct lp_web_runs *w)
{
    int i;

    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    for (i = 0; i < LP_WEB_RUNS_KEPT; i++) {
        struct run *r = w->runs[i];
        if (!r || r->state != RUN_RUNNING)
            continue;
        r->stop_requested = true;
        if (r->client)
            lp_client_stop(r->client);
        if (r->server)
            lp_server_stop(r->server);
    }
    pthread_mutex_unlock(&w->mu);
    for (i = 0; i < LP_WEB_RUNS_KEPT; i++)
        run_free(w->runs[i]);
    pthread_mutex_destroy(&w->mu);
    free(w);
}

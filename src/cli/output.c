/* Record sink for the CLI: routes each test's records to its own formatter instance (iperf3
 * text, iperf2 text, CSV or JSON) and writes the result out; keeps a bounded copy of each
 * server test's text for the client. It does not format anything itself: the layout
 * belongs to src/fmt. */
#include "cli/output.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/buf.h"

static const char truncated_note[] = "\n[linkperf: server output truncated at 1 MiB]\n";

/* One test's formatter. Owns the formatter and the capture; borrows o. */
struct test_out {
    struct test_out *next;
    struct lp_cli_output *o;
    unsigned test_id;
    bool capture_on;               /* server text/CSV: keep a copy for --get-server-output */
    bool tagged;                   /* its lines start with [test N] (--test-tags) */
    bool mid_line;                 /* the last write did not end a line */
    struct lp_out out;
    struct lp_fmt *f;              /* of o->look */
    struct lp_cli_buf capture;
};

/* The mutex makes records of concurrent tests and server_output calls safe whichever
 * engine threads they come from; formatting a record is cheap, so one lock is enough. */
struct lp_cli_output {
    pthread_mutex_t mu;
    FILE *log;
    enum lp_fmt_look look;         /* which formatter every test gets: fixed by the command line */
    bool forceflush;
    struct lp_fmt_opts fmt;
    char title[LP_TITLE_MAX];
    enum lp_cli_test_tags tags;    /* iperf3 text look; NEVER for the others */
    struct test_out *tests;
};

/* Write errors (a closed pipe, a full disk) are ignored like iperf3 does: the test goes
 * on and its exit status still reports it. SIGPIPE is ignored by main. */
static void emit(struct lp_cli_output *o, enum lp_out_channel ch, const char *s, size_t n)
{
    FILE *f = o->log ? o->log : (ch == LP_OUT_STDERR ? stderr : stdout);

    (void)!fwrite(s, 1, n, f);
    if (o->forceflush)
        fflush(f);
}

static void flush_all(struct lp_cli_output *o)
{
    if (o->log) {
        fflush(o->log);
    } else {
        fflush(stdout);
        fflush(stderr);
    }
}

/* A tagged test's text, each line after "[test N] " (the copy for its client stays as is). */
static void emit_tagged(struct test_out *t, enum lp_out_channel ch, const char *s, size_t n)
{
    char tag[24];
    int tn = snprintf(tag, sizeof(tag), "[test %u] ", t->test_id);
    while (n) {
        const char *nl = memchr(s, '\n', n);
        size_t k = nl ? (size_t)(nl - s) + 1 : n;
        if (!t->mid_line && tn > 0)
            emit(t->o, ch, tag, (size_t)tn);
        emit(t->o, ch, s, k);
        t->mid_line = !nl;
        s += k;
        n -= k;
    }
}

static void test_write(void *user, enum lp_out_channel ch, const char *s, size_t n)
{
    struct test_out *t = user;

    if (t->capture_on)
        lp_cli_buf_append(&t->capture, s, n);
    if (t->tagged)
        emit_tagged(t, ch, s, n);
    else
        emit(t->o, ch, s, n);
}

/* --test-tags auto: a server test is tagged from the moment another test runs beside it
 * (the banner, test 0, belongs to none). Called with mu held, before the record prints. */
static void update_tags(struct lp_cli_output *o)
{
    unsigned live = 0;
    for (struct test_out *t = o->tests; t; t = t->next)
        live += t->test_id != 0 && t->capture_on;
    for (struct test_out *t = o->tests; t; t = t->next)
        if (t->test_id != 0 && t->capture_on &&
            (o->tags == LP_CLI_TAGS_ALWAYS || (o->tags == LP_CLI_TAGS_AUTO && live > 1)))
            t->tagged = true;
}

static struct test_out *find(struct lp_cli_output *o, unsigned test_id, struct test_out ***link)
{
    struct test_out **pp;

    for (pp = &o->tests; *pp; pp = &(*pp)->next) {
        if ((*pp)->test_id == test_id) {
            if (link)
                *link = pp;
            return *pp;
        }
    }
    return NULL;
}

static void test_free(struct test_out *t)
{
    lp_fmt_free(t->f);
    lp_cli_buf_free(&t->capture);
    free(t);
}

/* -J and --json-stream: the server hands an iperf3 client its JSON document, not text. */
static bool json_look(enum lp_fmt_look look)
{
    return look == LP_FMT_JSON || look == LP_FMT_JSON_STREAM;
}

static struct test_out *test_new(struct lp_cli_output *o, const struct lp_record *rec)
{
    struct test_out *t = calloc(1, sizeof(*t));

    if (!t)
        return NULL;
    t->o = o;
    t->test_id = rec->test_id;
    /* The LISTENING banner (test 0) belongs to no test, and a client has no use for it.
     * Whatever text the test produced (iperf3 or iperf2 layout, CSV) is what an iperf3
     * client asking --get-server-output receives. */
    t->capture_on = !json_look(o->look) && rec->role == LP_ROLE_SERVER && rec->test_id != 0;
    t->capture.limit = LP_CLI_SERVER_OUTPUT_MAX;
    t->out.write = test_write;
    t->out.user = t;
    t->f = lp_fmt_new(o->look, &o->fmt, &t->out);
    if (!t->f) {
        free(t);
        return NULL;
    }
    t->next = o->tests;
    o->tests = t;
    return t;
}

static void on_record(const struct lp_record *rec, void *user)
{
    struct lp_cli_output *o = user;
    struct test_out *t, **link = NULL;

    pthread_mutex_lock(&o->mu);
    t = find(o, rec->test_id, &link);
    if (!t && (t = test_new(o, rec)) != NULL && o->tags != LP_CLI_TAGS_NEVER)
        update_tags(o);
    if (t) {
        bool done = rec->kind == LP_REC_DONE;
        lp_fmt_record(t->f, rec);
        if (!done && o->look == LP_FMT_JSON && rec->role == LP_ROLE_SERVER && rec->test_id == 0 &&
            rec->kind == LP_REC_ERROR) {
            /* An error that belongs to no test (a refused client, a bad header) is printed
             * at once as a document of its own, as iperf3 -s -J does; kept for a document at
             * exit, a long-running server would show only the first, and only when it
             * stops. */
            struct lp_record d = *rec;
            d.kind = LP_REC_DONE;
            lp_fmt_record(t->f, &d);
            done = true;
        }
        if (done) {
            if (!link)
                link = &o->tests; /* just created: it is the head */
            *link = t->next;
            test_free(t);
        }
    } else if (rec->kind == LP_REC_ERROR && rec->u.error.message) {
        /* No memory for a formatter: an error must still reach the user. */
        emit(o, LP_OUT_STDERR, "linkperf: ", 10);
        emit(o, LP_OUT_STDERR, rec->u.error.message, strlen(rec->u.error.message));
        emit(o, LP_OUT_STDERR, "\n", 1);
    }
    flush_all(o);
    pthread_mutex_unlock(&o->mu);
}

static char *capture_copy(struct test_out *t)
{
    size_t n = t->capture.len;
    size_t extra = t->capture.truncated ? sizeof(truncated_note) : 1;
    char *s = malloc(n + extra);

    if (!s)
        return NULL;
    if (n)
        memcpy(s, t->capture.p, n);
    s[n] = '\0';
    if (t->capture.truncated)
        memcpy(s + n, truncated_note, sizeof(truncated_note));
    return s;
}

static char *on_server_output(unsigned test_id, int *is_json, void *user)
{
    struct lp_cli_output *o = user;
    struct test_out *t;
    char *s = NULL;

    pthread_mutex_lock(&o->mu);
    t = find(o, test_id, NULL);
    if (t && json_look(o->look)) {
        s = lp_fmt_document(t->f);
        *is_json = 1;
    } else if (t) {
        s = capture_copy(t);
        *is_json = 0;
    }
    pthread_mutex_unlock(&o->mu);
    return s;
}

struct lp_cli_output *lp_cli_output_new(const struct lp_cli_config *cfg, char *err,
                                        size_t errlen)
{
    struct lp_cli_output *o = calloc(1, sizeof(*o));

    if (!o) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (cfg->logfile[0]) {
        o->log = fopen(cfg->logfile, "ae");
        if (!o->log) {
            snprintf(err, errlen, "cannot open log file %s: %s", cfg->logfile,
                     strerror(errno));
            free(o);
            return NULL;
        }
    }
    pthread_mutex_init(&o->mu, NULL);
    o->forceflush = cfg->forceflush;
    if (cfg->json)
        o->look = cfg->json_stream ? LP_FMT_JSON_STREAM : LP_FMT_JSON;
    else if (cfg->csv)
        o->look = LP_FMT_CSV;
    else
        o->look = cfg->iperf2 ? LP_FMT_TEXT2 : LP_FMT_TEXT;
    o->fmt = cfg->fmt;
    /* The iperf2 look numbers its transfers across tests already ([  1], [  2]), and CSV and
     * JSON are read by programs: only iperf3's text gets tags. */
    o->tags = o->look == LP_FMT_TEXT ? cfg->test_tags : LP_CLI_TAGS_NEVER;
    snprintf(o->title, sizeof(o->title), "%s", cfg->spec.title);
    o->fmt.title = o->title[0] ? o->title : NULL;
    return o;
}

void lp_cli_output_sink(struct lp_cli_output *o, struct lp_sink *sink)
{
    sink->record = on_record;
    sink->server_output = on_server_output;
    sink->user = o;
}

void lp_cli_output_printf(struct lp_cli_output *o, enum lp_out_channel ch, const char *fmt,
                          ...)
{
    char line[1024];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(line))
        n = (int)sizeof(line) - 1;
    pthread_mutex_lock(&o->mu);
    emit(o, ch, line, (size_t)n);
    flush_all(o);
    pthread_mutex_unlock(&o->mu);
}

int lp_cli_output_log_fd(struct lp_cli_output *o)
{
    return o->log ? fileno(o->log) : -1;
}

unsigned lp_cli_output_open_tests(struct lp_cli_output *o)
{
    struct test_out *t;
    unsigned n = 0;

    pthread_mutex_lock(&o->mu);
    for (t = o->tests; t; t = t->next)
        n++;
    pthread_mutex_unlock(&o->mu);
    return n;
}

void lp_cli_output_free(struct lp_cli_output *o)
{
    if (!o)
        return;
    while (o->tests) {
        struct test_out *t = o->tests;
        o->tests = t->next;
        test_free(t);
    }
    if (o->log)
        fclose(o->log);
    pthread_mutex_destroy(&o->mu);
    free(o);
}

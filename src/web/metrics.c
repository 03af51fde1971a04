/* --metrics (see metrics.h). The counters are fed by the server's records on the engine's
 * threads and read by the HTTP thread, both under one mutex; a scrape formats a few hundred
 * lines, so holding it for that is cheap. What a running test has moved is the sum of its
 * interval rows; when it ends its own final count replaces that (never less, so a counter
 * that includes running tests does not go backwards). */
#include "web/metrics.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/buf.h"
#include "linkperf/record.h"
#include "linkperf/spec.h"
#include "web/listen.h"

#define TESTS_TRACKED 64    /* running tests with series of their own; more are only counted */
#define CLIENTS_TRACKED 32  /* client addresses with a counter of their own; others: "other" */
#define SCRAPERS_MAX 8

enum { DIALECTS = 2, PROTOS = 2, DIRS = 2 }; /* iperf3/iperf2, tcp/udp, received/sent */
static const char *const dialect_names[DIALECTS] = {"iperf3", "iperf2"};
static const char *const proto_names[PROTOS] = {"tcp", "udp"};
static const char *const dir_names[DIRS] = {"received", "sent"};

/* Why a connection or a test was refused, from the server's own words (one table: the
 * messages live in src/proto; a new refusal without an entry counts as "other"). */
static const struct {
    const char *words, *reason;
} refusals[] = {
    {"not in the allowed clients", "not_allowed"},
    {"permit key", "permit_key"},
    {"authorization failed", "authentication"},
    {"authentication", "authentication"},
    {"duration", "duration"},
    {"header", "bad_header"},
    {"parameter", "bad_parameters"},
    {"bounceback message size", "bad_header"},
    {"too many", "too_many_tests"},
};
#define REASONS (sizeof(refusals) / sizeof(refusals[0]) + 1)

struct test_row {
    bool used, started, ended;
    unsigned id;
    int dialect, proto;
    bool rx_forward, tx_reverse;   /* the server receives the forward sum, sends the reverse */
    char client[LP_HOST_MAX];
    uint64_t bytes[DIRS];          /* so far: its interval rows */
    double bps[DIRS];              /* its last interval */
    uint64_t packets, lost;        /* UDP receiver, so far */
    double jitter_ms;
    int64_t retransmits;           /* TCP sender, so far */
    bool error;
    char reason[24];
};

struct lp_metrics {
    struct MHD_Daemon *d;
    pthread_mutex_t mu;
    char url[128];
    struct lp_sink next;
    bool has_next;
    struct test_row tests[TESTS_TRACKED];
    /* counters */
    uint64_t served[DIALECTS][PROTOS], failed[DIALECTS][PROTOS];
    uint64_t refused[REASONS];
    uint64_t bytes_done[DIALECTS][PROTOS][DIRS];
    uint64_t udp_packets, udp_lost;
    uint64_t retransmits;
    uint64_t untracked;            /* tests beyond TESTS_TRACKED */
    struct {
        char addr[LP_HOST_MAX];
        uint64_t tests;
    } clients[CLIENTS_TRACKED];
    uint64_t other_clients;
};

static const char *reason_of(const char *msg)
{
    for (size_t i = 0; msg && i < REASONS - 1; i++)
        if (strstr(msg, refusals[i].words))
            return refusals[i].reason;
    return "other";
}

static size_t reason_index(const char *reason)
{
    for (size_t i = 0; i < REASONS - 1; i++)
        if (strcmp(refusals[i].reason, reason) == 0)
            return i;
    return REASONS - 1;
}

static const char *reason_name(size_t i)
{
    return i < REASONS - 1 ? refusals[i].reason : "other";
}

static struct test_row *row_of(struct lp_metrics *m, unsigned id, bool make)
{
    struct test_row *free_row = NULL;
    for (size_t i = 0; i < TESTS_TRACKED; i++) {
        if (m->tests[i].used && m->tests[i].id == id)
            return &m->tests[i];
        if (!m->tests[i].used && !free_row)
            free_row = &m->tests[i];
    }
    if (!make)
        return NULL;
    if (!free_row) {
        m->untracked++;
        return NULL;
    }
    memset(free_row, 0, sizeof(*free_row));
    free_row->used = true;
    free_row->id = id;
    return free_row;
}

static void count_client(struct lp_metrics *m, const char *addr)
{
    for (size_t i = 0; i < CLIENTS_TRACKED; i++) {
        if (!m->clients[i].addr[0])
            snprintf(m->clients[i].addr, sizeof(m->clients[i].addr), "%s", addr);
        if (strcmp(m->clients[i].addr, addr) == 0) {
            m->clients[i].tests++;
            return;
        }
    }
    m->other_clients++;
}

static void on_start(struct lp_metrics *m, struct test_row *t, const struct lp_rec_start *st)
{
    const struct lp_spec *sp = st->spec;
    t->started = true;
    t->dialect = sp->dialect == LP_DIALECT_IPERF2 ? 1 : 0;
    t->proto = sp->proto == LP_PROTO_UDP ? 1 : 0;
    /* The forward sum is what the client sends: the server receives it, except with -R
     * where the only direction is the server's sending. */
    t->rx_forward = sp->dir != LP_DIR_REVERSE;
    t->tx_reverse = sp->dir == LP_DIR_BIDIR;
    snprintf(t->client, sizeof(t->client), "%s", st->control_peer.host);
    count_client(m, t->client);
}

static void add_sample(struct test_row *t, int dir, const struct lp_sample *s)
{
    if (s->omitted)
        return;
    t->bytes[dir] += s->bytes;
    t->bps[dir] = s->bits_per_second;
    if (dir == 0 && s->is_udp) {
        t->packets += s->packets;
        t->lost += s->lost_packets > 0 ? (uint64_t)s->lost_packets : 0;
        t->jitter_ms = s->jitter_ms;
    }
    if (dir == 1 && s->retransmits > 0)
        t->retransmits += (uint64_t)s->retransmits;
}

static void on_interval(struct test_row *t, const struct lp_rec_interval *iv)
{
    if (t->rx_forward) {
        add_sample(t, 0, &iv->sum);
        if (iv->has_sum_reverse)
            add_sample(t, 1, &iv->sum_reverse);
    } else {
        add_sample(t, 1, &iv->sum);
    }
}

static uint64_t at_least(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The test's own final counts become the counters' (never below what its rows said). */
static void on_end(struct lp_metrics *m, struct test_row *t, const struct lp_rec_end *e)
{
    uint64_t rx = t->bytes[0], tx = t->bytes[1];
    if (t->rx_forward && e->forward.present)
        rx = at_least(rx, e->forward.received.bytes);
    if (!t->rx_forward && e->forward.present)
        tx = at_least(tx, e->forward.sent.bytes);
    if (e->reverse.present)
        tx = at_least(tx, e->reverse.sent.bytes);
    m->bytes_done[t->dialect][t->proto][0] += rx;
    m->bytes_done[t->dialect][t->proto][1] += tx;
    const struct lp_total *r = t->rx_forward && e->forward.present ? &e->forward.received : NULL;
    if (r && r->is_udp) {
        m->udp_packets += at_least(t->packets, r->packets);
        m->udp_lost += at_least(t->lost, r->lost_packets > 0 ? (uint64_t)r->lost_packets : 0);
    } else {
        m->udp_packets += t->packets;
        m->udp_lost += t->lost;
    }
    uint64_t retr = (uint64_t)(t->retransmits > 0 ? t->retransmits : 0);
    if (e->forward.present && e->forward.sent.has_retransmits && e->forward.sent.retransmits > 0)
        retr = at_least(retr, (uint64_t)e->forward.sent.retransmits);
    m->retransmits += retr;
    t->ended = true;
}

static void on_record(const struct lp_record *rec, void *user)
{
    struct lp_metrics *m = user;
    if (m->has_next)
        m->next.record(rec, m->next.user);
    if (rec->role != LP_ROLE_SERVER || rec->kind == LP_REC_DEBUG || rec->kind == LP_REC_LISTENING)
        return;
    pthread_mutex_lock(&m->mu);
    if (rec->test_id == 0) {
        /* a connection refused before it became a test */
        if (rec->kind == LP_REC_ERROR)
            m->refused[reason_index(reason_of(rec->u.error.message))]++;
        pthread_mutex_unlock(&m->mu);
        return;
    }
    struct test_row *t = row_of(m, rec->test_id, rec->kind != LP_REC_DONE);
    if (t) {
        switch (rec->kind) {
        case LP_REC_START: on_start(m, t, &rec->u.start); break;
        case LP_REC_INTERVAL:
            if (t->started && !t->ended)
                on_interval(t, &rec->u.interval);
            break;
        case LP_REC_END:
            if (t->started && !t->ended)
                on_end(m, t, &rec->u.end);
            break;
        case LP_REC_ERROR:
            if (rec->u.error.fatal && !t->error) {
                t->error = true;
                snprintf(t->reason, sizeof(t->reason), "%s", reason_of(rec->u.error.message));
            }
            break;
        case LP_REC_DONE:
            if (!t->started)
                m->refused[reason_index(t->error ? t->reason : "other")]++;
            else if (t->error)
                m->failed[t->dialect][t->proto]++;
            else
                m->served[t->dialect][t->proto]++;
            if (t->started && !t->ended) { /* cut short without an END: what its rows said */
                m->bytes_done[t->dialect][t->proto][0] += t->bytes[0];
                m->bytes_done[t->dialect][t->proto][1] += t->bytes[1];
            }
            t->used = false;
            break;
        default: break;
        }
    }
    pthread_mutex_unlock(&m->mu);
}

static char *forward_server_output(unsigned test_id, int *is_json, void *user)
{
    struct lp_metrics *m = user;
    return m->has_next && m->next.server_output ? m->next.server_output(test_id, is_json, m->next.user) : NULL;
}

void lp_metrics_sink(struct lp_metrics *m, const struct lp_sink *next, struct lp_sink *out)
{
    m->has_next = next != NULL;
    if (next)
        m->next = *next;
    out->record = on_record;
    out->server_output = next && next->server_output ? forward_server_output : NULL;
    out->user = m;
}

/* ---- exposition ---- */

static void family(struct lp_cli_buf *b, const char *name, const char *type, const char *help)
{
    lp_cli_buf_printf(b, "# TYPE %s %s\n# HELP %s %s\n", name, type, name, help);
}

/* A label value: the client addresses are numeric, but escape as the format asks anyway. */
static void label(struct lp_cli_buf *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            lp_cli_buf_printf(b, "\\%c", *v);
        else if (*v == '\n')
            lp_cli_buf_puts(b, "\\n");
        else
            lp_cli_buf_printf(b, "%c", *v);
    }
}

static void test_labels(struct lp_cli_buf *b, const struct test_row *t)
{
    lp_cli_buf_printf(b, "{test=\"%u\",dialect=\"%s\",proto=\"%s\",client=\"", t->id, dialect_names[t->dialect],
                      proto_names[t->proto]);
    label(b, t->client);
    lp_cli_buf_puts(b, "\"");
}

char *lp_metrics_text(struct lp_metrics *m)
{
    struct lp_cli_buf b = {0};
    pthread_mutex_lock(&m->mu);
    family(&b, "linkperf_build", "info", "this linkperf and the protocols it speaks");
    /* LP_VERSION_STR is "linkperf x.y.z": the label is the version alone */
    const char *version = strchr(LP_VERSION_STR, ' ') ? strchr(LP_VERSION_STR, ' ') + 1 : LP_VERSION_STR;
    lp_cli_buf_printf(&b, "linkperf_build_info{version=\"%s\",iperf3=\"3.12\",iperf2=\"2.1.8\"} 1\n", version);

    unsigned running[DIALECTS][PROTOS] = {{0}};
    uint64_t bytes[DIALECTS][PROTOS][DIRS];
    memcpy(bytes, m->bytes_done, sizeof(bytes));
    for (size_t i = 0; i < TESTS_TRACKED; i++) {
        const struct test_row *t = &m->tests[i];
        if (!t->used || !t->started)
            continue;
        if (!t->ended)
            running[t->dialect][t->proto]++;
        if (!t->ended)
            for (int d = 0; d < DIRS; d++)
                bytes[t->dialect][t->proto][d] += t->bytes[d];
    }
    family(&b, "linkperf_tests_running", "gauge", "tests running now");
    for (int d = 0; d < DIALECTS; d++)
        for (int p = 0; p < PROTOS; p++)
            lp_cli_buf_printf(&b, "linkperf_tests_running{dialect=\"%s\",proto=\"%s\"} %u\n", dialect_names[d],
                              proto_names[p], running[d][p]);
    family(&b, "linkperf_tests_served", "counter", "tests that ran to their end");
    for (int d = 0; d < DIALECTS; d++)
        for (int p = 0; p < PROTOS; p++)
            lp_cli_buf_printf(&b, "linkperf_tests_served_total{dialect=\"%s\",proto=\"%s\"} %llu\n",
                              dialect_names[d], proto_names[p], (unsigned long long)m->served[d][p]);
    family(&b, "linkperf_tests_failed", "counter", "tests that started and ended with an error");
    for (int d = 0; d < DIALECTS; d++)
        for (int p = 0; p < PROTOS; p++)
            lp_cli_buf_printf(&b, "linkperf_tests_failed_total{dialect=\"%s\",proto=\"%s\"} %llu\n",
                              dialect_names[d], proto_names[p], (unsigned long long)m->failed[d][p]);
    family(&b, "linkperf_tests_refused", "counter", "connections and tests refused before they ran, by reason");
    for (size_t r = 0; r < REASONS; r++) {
        bool dup = false; /* two words may name one reason: one series each */
        for (size_t q = 0; q < r; q++)
            dup |= strcmp(reason_name(q), reason_name(r)) == 0;
        if (!dup)
            lp_cli_buf_printf(&b, "linkperf_tests_refused_total{reason=\"%s\"} %llu\n", reason_name(r),
                              (unsigned long long)m->refused[r]);
    }
    family(&b, "linkperf_bytes", "counter", "payload bytes the server received and sent, running tests included");
    for (int d = 0; d < DIALECTS; d++)
        for (int p = 0; p < PROTOS; p++)
            for (int x = 0; x < DIRS; x++)
                lp_cli_buf_printf(&b, "linkperf_bytes_total{dialect=\"%s\",proto=\"%s\",direction=\"%s\"} %llu\n",
                                  dialect_names[d], proto_names[p], dir_names[x],
                                  (unsigned long long)bytes[d][p][x]);
    uint64_t pk = m->udp_packets, lost = m->udp_lost, retr = m->retransmits;
    for (size_t i = 0; i < TESTS_TRACKED; i++) {
        const struct test_row *t = &m->tests[i];
        if (t->used && t->started && !t->ended) {
            pk += t->packets;
            lost += t->lost;
            retr += (uint64_t)(t->retransmits > 0 ? t->retransmits : 0);
        }
    }
    family(&b, "linkperf_udp_datagrams", "counter", "UDP datagrams the server expected as a receiver");
    lp_cli_buf_printf(&b, "linkperf_udp_datagrams_total %llu\n", (unsigned long long)pk);
    family(&b, "linkperf_udp_lost_datagrams", "counter", "of them, lost");
    lp_cli_buf_printf(&b, "linkperf_udp_lost_datagrams_total %llu\n", (unsigned long long)lost);
    family(&b, "linkperf_tcp_retransmits", "counter", "TCP retransmits of the tests' senders");
    lp_cli_buf_printf(&b, "linkperf_tcp_retransmits_total %llu\n", (unsigned long long)retr);
    family(&b, "linkperf_client_tests", "counter", "tests by client address (the first 32; others as other)");
    for (size_t i = 0; i < CLIENTS_TRACKED && m->clients[i].addr[0]; i++) {
        lp_cli_buf_puts(&b, "linkperf_client_tests_total{client=\"");
        label(&b, m->clients[i].addr);
        lp_cli_buf_printf(&b, "\"} %llu\n", (unsigned long long)m->clients[i].tests);
    }
    lp_cli_buf_printf(&b, "linkperf_client_tests_total{client=\"other\"} %llu\n",
                      (unsigned long long)m->other_clients);
    family(&b, "linkperf_tests_untracked", "counter", "tests beyond the 64 with series of their own");
    lp_cli_buf_printf(&b, "linkperf_tests_untracked_total %llu\n", (unsigned long long)m->untracked);

    /* each running test */
    static const struct {
        const char *name, *type, *help;
    } per_test[] = {
        {"linkperf_test_received_bytes", "gauge", "a running test's bytes received so far"},
        {"linkperf_test_sent_bytes", "gauge", "a running test's bytes sent so far"},
        {"linkperf_test_bits_per_second", "gauge", "a running test's rate in its last interval, each way"},
        {"linkperf_test_udp_jitter_seconds", "gauge", "a running UDP test's jitter at its last interval"},
        {"linkperf_test_udp_lost_datagrams", "gauge", "a running UDP test's datagrams lost so far"},
        {"linkperf_test_tcp_retransmits", "gauge", "a running TCP test's retransmits so far (server sending)"},
    };
    for (size_t f = 0; f < sizeof(per_test) / sizeof(per_test[0]); f++) {
        family(&b, per_test[f].name, per_test[f].type, per_test[f].help);
        for (size_t i = 0; i < TESTS_TRACKED; i++) {
            const struct test_row *t = &m->tests[i];
            if (!t->used || !t->started || t->ended || (f >= 3 && f <= 4 && t->proto != 1) ||
                (f == 5 && t->proto != 0))
                continue;
            for (int x = 0; x < (f == 2 ? DIRS : 1); x++) {
                lp_cli_buf_puts(&b, per_test[f].name);
                test_labels(&b, t);
                if (f == 2)
                    lp_cli_buf_printf(&b, ",direction=\"%s\"", dir_names[x]);
                double v = f == 0 ? (double)t->bytes[0] : f == 1 ? (double)t->bytes[1] : f == 2 ? t->bps[x]
                           : f == 3 ? t->jitter_ms / 1e3 : f == 4 ? (double)t->lost : (double)t->retransmits;
                lp_cli_buf_printf(&b, "} %.17g\n", v);
            }
        }
    }
    pthread_mutex_unlock(&m->mu);
    lp_cli_buf_puts(&b, "# EOF\n");
    return lp_cli_buf_take(&b);
}

/* ---- HTTP ---- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, char *body)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_len, void **ctx)
{
    struct lp_metrics *m = cls;
    (void)version, (void)upload, (void)ctx;
    if (*upload_len) { /* no body is read: a scrape is a GET */
        *upload_len = 0;
        return MHD_YES;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", strdup("GET /metrics\n"));
    if (strcmp(url, "/metrics") != 0)
        return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", strdup("linkperf serves /metrics\n"));
    char *text = lp_metrics_text(m);
    if (!text)
        return MHD_NO;
    return reply(c, MHD_HTTP_OK, "application/openmetrics-text; version=1.0.0; charset=utf-8", text);
}

struct lp_metrics *lp_metrics_start(const char *listen, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    char host[64], why[160];
    int port;
    if (lp_web_parse_listen(listen, &ss, host, sizeof(host), &port, why, sizeof(why)) < 0) {
        snprintf(err, errlen, "--metrics %s: not HOST:PORT with a numeric address (or localhost) and a port 0..65535",
                 listen);
        return NULL;
    }
    struct lp_metrics *m = calloc(1, sizeof(*m));
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&m->mu, NULL);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
    if (ss.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    m->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, m, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)SCRAPERS_MAX, MHD_OPTION_CONNECTION_TIMEOUT,
                            (unsigned)10, MHD_OPTION_END);
    if (!m->d) {
        snprintf(err, errlen, "--metrics %s: cannot listen there (in use, or not an address of this host)", listen);
        pthread_mutex_destroy(&m->mu);
        free(m);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned bound = info ? info->port : (unsigned)port;
    snprintf(m->url, sizeof(m->url), ss.ss_family == AF_INET6 ? "http://[%s]:%u/metrics" : "http://%s:%u/metrics",
             host, bound);
    return m;
}

const char *lp_metrics_url(const struct lp_metrics *m)
{
    return m->url;
}

void lp_metrics_free(struct lp_metrics *m)
{
    if (!m)
        return;
    MHD_stop_daemon(m->d);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

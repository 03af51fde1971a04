/* The history's recording tap (src/store): memory stays flat over a run of any length, and
 * the exported result document is byte for byte the -J document of the same records.
 *
 * Flatness without a clock: an hour of -i 0.1 (36000 synthetic interval records, two TCP
 * streams) goes through the tap as fast as SQLite takes it; the heap in use after the whole
 * hour must be within a small bound of what it was after its first tenth. Before the fix the
 * tap built the whole -J document in memory (each interval a cJSON tree, ~4.5 KB with two
 * streams) and this grew by ~146 MB. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <malloc.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt/fmt.h"
#include "linkperf/engine.h"
#include "store/store.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LP_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LP_TEST_ASAN 1
#endif
#ifdef LP_TEST_ASAN
/* libasan's (gcc 12 ships no sanitizer/allocator_interface.h to declare it). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

/* Bytes of heap in use now: ASan's own count under the sanitizers (glibc's arenas are not
 * used there), else glibc's (small chunks plus mmapped big ones). */
static size_t heap_in_use(void)
{
#ifdef LP_TEST_ASAN
    return __sanitizer_get_current_allocated_bytes();
#else
    struct mallinfo2 mi = mallinfo2();

    return mi.uordblks + mi.hblkhd;
#endif
}

/* ---- a store in a temporary directory ---- */

struct tmpdb {
    char dir[64], path[128];
    struct lp_store *s;
};

static void tmpdb_open(struct tmpdb *t)
{
    char err[256] = "";

    snprintf(t->dir, sizeof(t->dir), "/tmp/lp-store-test-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof(t->path), "%s/history.db", t->dir);
    t->s = lp_store_open(t->path, err, sizeof(err));
    if (!t->s)
        fail_msg("lp_store_open: %s", err);
}

static void tmpdb_close(struct tmpdb *t)
{
    static const char *const sfx[] = {"", "-wal", "-shm"};
    char p[160];

    lp_store_close(t->s);
    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        snprintf(p, sizeof(p), "%s%s", t->path, sfx[i]);
        unlink(p);
    }
    rmdir(t->dir);
}

/* The newest run's id (lp_store_list is newest first). */
static int64_t newest_run(struct lp_store *s)
{
    struct lp_store_filter f = {"", "", 0, 0, 1};
    char *text = lp_store_list(s, &f);
    cJSON *o = cJSON_Parse(text), *run;
    int64_t id;

    run = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "runs"), 0);
    assert_non_null(run);
    id = (int64_t)cJSON_GetObjectItem(run, "id")->valuedouble;
    cJSON_Delete(o);
    free(text);
    return id;
}

static int64_t count_rows(const char *path, const char *sql, int64_t run)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int64_t n = -1;

    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_int64(st, 1, run);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* ---- synthetic records of one test ---- */

#define NS 2

struct fake {
    enum lp_role role;
    bool udp, bidir;
    struct lp_spec spec;
    struct lp_stream_conn conn[NS];
    struct lp_sample iv[NS];
    struct lp_stream_end se[NS];
};

static struct lp_record rec_of(const struct fake *f, enum lp_record_kind kind)
{
    struct lp_record r;

    memset(&r, 0, sizeof(r));
    r.kind = kind;
    r.role = f->role;
    r.test_id = 1;
    return r;
}

static void fake_init(struct fake *f, enum lp_role role, bool udp, bool bidir)
{
    memset(f, 0, sizeof(*f));
    f->role = role;
    f->udp = udp;
    f->bidir = bidir;
    lp_spec_init(&f->spec, role);
    f->spec.proto = udp ? LP_PROTO_UDP : LP_PROTO_TCP;
    f->spec.dir = bidir ? LP_DIR_BIDIR : LP_DIR_FORWARD;
    f->spec.streams = bidir ? 1 : NS;
    f->spec.duration_s = 3600;
    f->spec.rate_bps = 1000000;
    snprintf(f->spec.host, sizeof(f->spec.host), "192.0.2.7");
    snprintf(f->spec.title, sizeof(f->spec.title), "a \"quoted\"\ttitle");
    for (int i = 0; i < NS; i++) {
        struct lp_stream_conn *c = &f->conn[i];
        c->sid.id = i ? 3 + i : 1;
        c->sid.socket = 5 + i;
        /* A server receives; a bidir test's second stream goes the other way. */
        c->sid.sender = (role == LP_ROLE_CLIENT) != (bidir && i == 1);
        c->sid.reverse = bidir && i == 1;
        snprintf(c->local.host, sizeof(c->local.host), "192.0.2.1");
        c->local.port = (uint16_t)(40000 + i);
        snprintf(c->remote.host, sizeof(c->remote.host), "192.0.2.7");
        c->remote.port = 5201;
    }
}

static void feed(const struct lp_sink *tap, struct lp_fmt *json, const struct lp_record *r)
{
    tap->record(r, tap->user);
    if (json)
        lp_fmt_record(json, r);
}

static void fake_start(const struct fake *f, const struct lp_sink *tap, struct lp_fmt *json)
{
    struct lp_record r = rec_of(f, LP_REC_CONNECTING);

    snprintf(r.u.connecting.peer.host, sizeof(r.u.connecting.peer.host), "192.0.2.7");
    r.u.connecting.peer.port = 5201;
    r.u.connecting.proto = f->spec.proto;
    feed(tap, json, &r);
    r = rec_of(f, LP_REC_START);
    r.u.start.spec = &f->spec;
    r.u.start.version = LP_VERSION_STR;
    r.u.start.system_info = "Linux test 6.1.0 #1 SMP x86_64";
    r.u.start.timestamp = 1700000000;
    r.u.start.timestamp_ms = 1700000000123u;
    r.u.start.cookie = "abcdefghijklmnopqrstuvwxyz0123456789";
    snprintf(r.u.start.control_peer.host, sizeof(r.u.start.control_peer.host), "192.0.2.7");
    r.u.start.control_peer.port = 5201;
    r.u.start.tcp_mss_default = 1448;
    r.u.start.sndbuf_actual = 16384;
    r.u.start.rcvbuf_actual = 131072;
    r.u.start.nstreams = f->spec.streams + (f->bidir ? 1 : 0);
    r.u.start.streams = f->conn;
    feed(tap, json, &r);
}

/* Interval k (0-based) at -i 0.1, with numbers that print in every way cJSON prints them:
 * integers past 2^31, doubles that need 17 digits, seconds as iperf3's float. */
static void fake_interval(struct fake *f, const struct lp_sink *tap, struct lp_fmt *json,
                          unsigned k)
{
    struct lp_record r = rec_of(f, LP_REC_INTERVAL);
    struct lp_rec_interval *iv = &r.u.interval;
    unsigned n = f->spec.streams + (f->bidir ? 1 : 0);
    double a = k * 0.1 + 0.0000731, b = (k + 1) * 0.1 + 0.0000729;

    for (unsigned i = 0; i < n; i++) {
        struct lp_sample *x = &f->iv[i];
        memset(x, 0, sizeof(*x));
        x->sid = f->conn[i].sid;
        x->start_s = a;
        x->end_s = b;
        x->seconds = b - a;
        x->bytes = 3000000000ull + k * 7u + i;
        x->bits_per_second = x->bytes * 8 / (b - a) + 1.0 / 3.0;
        x->omitted = k < 2;
        x->is_udp = f->udp;
        if (f->udp) {
            x->packets = 1000u + k;
            x->lost_packets = (int64_t)(k % 3);
            x->jitter_ms = 0.01 * k + 1e-9;
            x->lost_percent = 100.0 * (double)x->lost_packets / (double)x->packets;
            x->has_latency = !x->sid.sender;
            x->latency = (struct lp_latency_stat){
                .count = k + 1u, .mean_ms = 0.25, .min_ms = 0.125, .max_ms = 2.5, .stdev_ms = sqrt(2.0)};
        } else if (x->sid.sender) {
            x->has_tcp_info = true;
            x->retransmits = (int64_t)(k % 5);
            x->snd_cwnd = 1048576u + k;
            x->snd_wnd = 3145728u;
            x->rtt_us = 41u + k % 7u;
            x->rttvar_us = 9;
            x->pmtu = 65535;
        }
    }
    iv->nstreams = n;
    iv->streams = f->iv;
    iv->sum = f->iv[0];
    iv->sum.sid.id = iv->sum.sid.socket = 0;
    iv->sum.bytes = f->bidir ? f->iv[0].bytes : f->iv[0].bytes + f->iv[1].bytes;
    if (f->bidir) {
        iv->has_sum_reverse = true;
        iv->sum_reverse = f->iv[1];
        iv->sum_reverse.sid.id = iv->sum_reverse.sid.socket = 0;
    }
    feed(tap, json, &r);
}

static void fake_end(struct fake *f, const struct lp_sink *tap, struct lp_fmt *json)
{
    struct lp_record r = rec_of(f, LP_REC_END);
    struct lp_rec_end *e = &r.u.end;
    struct lp_total t;

    memset(&t, 0, sizeof(t));
    t.present = true;
    t.end_s = t.seconds = 3600.000087;
    t.bytes = 450000000000ull;
    t.bits_per_second = 999999.5;
    t.is_udp = f->udp;
    t.has_retransmits = !f->udp;
    t.retransmits = 17;
    t.packets = 3600000;
    for (unsigned i = 0; i < NS; i++) {
        f->se[i].sid = f->conn[i].sid;
        f->se[i].sender = f->se[i].receiver = t;
    }
    e->nstreams = f->spec.streams + (f->bidir ? 1 : 0);
    e->streams = f->se;
    e->forward = (struct lp_direction_end){true, t, t};
    e->reverse = (struct lp_direction_end){f->bidir, t, t};
    e->bidir = f->bidir;
    e->cpu = (struct lp_cpu_util){1.5, 0.5, 1.0, 2.25, 1.125, 1.125};
    e->sender_congestion = e->receiver_congestion = "cubic";
    feed(tap, json, &r);
    r = rec_of(f, LP_REC_DONE);
    feed(tap, json, &r);
}

/* ---- the tests ---- */

struct capture {
    char *buf;
    size_t n;
};

static void capture_write(void *user, enum lp_out_channel ch, const char *s, size_t n)
{
    struct capture *c = user;

    if (ch != LP_OUT_STDOUT)
        return;
    c->buf = realloc(c->buf, c->n + n + 1);
    assert_non_null(c->buf);
    memcpy(c->buf + c->n, s, n);
    c->n += n;
    c->buf[c->n] = '\0';
}

/* What the history exports for a run is what a -J formatter printed for the same records:
 * client and server, TCP with two streams, UDP with latency, bidir with its reverse sums;
 * the first run has more intervals than the export reads at a time (512). */
static void test_export_is_the_document(void **state)
{
    static const struct {
        enum lp_role role;
        bool udp, bidir;
    } cases[] = {
        {LP_ROLE_CLIENT, false, false}, {LP_ROLE_SERVER, false, false},
        {LP_ROLE_CLIENT, true, false},  {LP_ROLE_SERVER, true, false},
        {LP_ROLE_CLIENT, false, true},  {LP_ROLE_SERVER, true, true},
    };
    struct tmpdb db;

    (void)state;
    tmpdb_open(&db);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct lp_store_tap *tap = lp_store_tap_new(db.s, "cli", "linkperf -c 192.0.2.7", NULL);
        struct capture cap = {NULL, 0};
        struct lp_out out = {capture_write, &cap};
        struct lp_fmt_opts o;
        struct lp_fmt *json;
        struct lp_sink sink;
        struct fake f;
        char *doc;

        memset(&o, 0, sizeof(o));
        o.unit = 'a';
        json = lp_fmt_new(LP_FMT_JSON, &o, &out);
        assert_non_null(tap);
        assert_non_null(json);
        lp_store_tap_sink(tap, &sink);
        fake_init(&f, cases[c].role, cases[c].udp, cases[c].bidir);
        fake_start(&f, &sink, json);
        for (unsigned k = 0; k < (c == 0 ? 1100u : 25u); k++)
            fake_interval(&f, &sink, json, k);
        fake_end(&f, &sink, json);
        lp_fmt_free(json);
        lp_store_tap_free(tap);
        assert_non_null(cap.buf);
        doc = lp_store_result_json(db.s, newest_run(db.s));
        assert_non_null(doc);
        if (strcmp(doc, cap.buf) != 0)
            fail_msg("case %zu: the export (%zu bytes) is not the -J document (%zu bytes)", c,
                     strlen(doc), cap.n);
        free(doc);
        free(cap.buf);
    }
    tmpdb_close(&db);
}

/* An hour of -i 0.1 keeps the heap where its first six minutes left it. */
static void test_memory_flat(void **state)
{
    enum { TENTH = 3600, HOUR = 36000 };
    /* Slack for the allocator's and SQLite's bookkeeping (its page cache is bounded and full
     * by the first tenth); the cJSON document of the 32400 intervals between was ~146 MB,
     * one byte kept per interval would already be 32 KB. */
    const size_t bound = 64 * 1024;
    struct tmpdb db;
    struct lp_store_tap *tap;
    struct lp_sink sink;
    struct fake f;
    size_t at_tenth = 0, at_hour;
    int64_t run, sql_tenth = 0;

    (void)state;
    tmpdb_open(&db);
    tap = lp_store_tap_new(db.s, "cli", "linkperf -c 192.0.2.7 -t 3600 -i 0.1 -P 2", NULL);
    assert_non_null(tap);
    lp_store_tap_sink(tap, &sink);
    fake_init(&f, LP_ROLE_CLIENT, false, false);
    fake_start(&f, &sink, NULL);
    for (unsigned k = 0; k < HOUR; k++) {
        fake_interval(&f, &sink, NULL, k);
        if (k + 1 == TENTH) {
            at_tenth = heap_in_use();
            sql_tenth = sqlite3_memory_used();
        }
    }
    at_hour = heap_in_use();
    print_message("heap in use: %zu bytes after %d intervals, %zu after %d (%+lld; SQLite's "
                  "part %lld, then %lld)\n", at_tenth, TENTH, at_hour, HOUR,
                  (long long)at_hour - (long long)at_tenth, (long long)sql_tenth,
                  (long long)sqlite3_memory_used());
    if (at_hour > at_tenth + bound)
        fail_msg("the heap grew by %zu bytes over %d intervals (bound %zu): the tap keeps "
                 "something per interval", at_hour - at_tenth, HOUR - TENTH, bound);
    fake_end(&f, &sink, NULL);
    lp_store_tap_free(tap);
    run = newest_run(db.s);
    /* Everything was recorded: every interval's rows and its document element. */
    assert_int_equal(count_rows(db.path, "SELECT count(*) FROM interval_docs WHERE run_id = ?1",
                                run), HOUR);
    assert_int_equal(count_rows(db.path, "SELECT count(*) FROM intervals WHERE run_id = ?1 AND"
                                         " stream = 0", run), HOUR);
    assert_int_equal(count_rows(db.path, "SELECT complete FROM runs WHERE id = ?1", run), 1);
    tmpdb_close(&db);
}

static void ignore_record(const struct lp_record *r, void *user)
{
    (void)r, (void)user;
}

static void discard_write(void *user, enum lp_out_channel ch, const char *s, size_t n)
{
    (void)user, (void)ch, (void)s, (void)n;
}

/* --json-stream (the page's runs and `linkperf -c --json-stream`): a client's formatter
 * prints each interval and keeps none, so an hour moves the heap by no more than the tap's. */
static void test_stream_memory_flat(void **state)
{
    enum { TENTH = 3600, HOUR = 36000 };
    const size_t bound = 64 * 1024;
    struct lp_out out = {discard_write, NULL};
    struct lp_sink none = {.record = ignore_record};
    struct lp_fmt_opts o;
    struct lp_fmt *json;
    struct fake f;
    size_t at_tenth = 0, at_hour;

    (void)state;
    memset(&o, 0, sizeof(o));
    o.unit = 'a';
    json = lp_fmt_new(LP_FMT_JSON_STREAM, &o, &out);
    assert_non_null(json);
    fake_init(&f, LP_ROLE_CLIENT, false, false);
    fake_start(&f, &none, json);
    for (unsigned k = 0; k < HOUR; k++) {
        fake_interval(&f, &none, json, k);
        if (k + 1 == TENTH)
            at_tenth = heap_in_use();
    }
    at_hour = heap_in_use();
    if (at_hour > at_tenth + bound)
        fail_msg("a --json-stream client's heap grew by %zu bytes over %d intervals (bound "
                 "%zu)", at_hour - at_tenth, HOUR - TENTH, bound);
    fake_end(&f, &none, json);
    lp_fmt_free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_export_is_the_document),
        cmocka_unit_test(test_memory_flat),
        cmocka_unit_test(test_stream_memory_flat),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SQLite history: schema, the recording tap and the queries the web page makes. One
 * connection per process, serialised by a mutex (a run's rows go in as one transaction per
 * record); other processes write to the same file through SQLite's WAL and busy timeout. */
#include "store/store.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fmt/fmt.h"
#include "store/store_int.h"

#define SCHEMA_VERSION 1
#define TAP_TESTS_MAX 256 /* tests of one server recorded at once; more are not recorded */
/* Runs kept: the oldest go when there are more (a server that strangers test must not fill
 * the disk with their runs). Checked every PRUNE_EVERY inserts. */
#define RUNS_KEPT 20000
#define PRUNE_EVERY 64
/* And bytes kept: rows alone do not bound a file whose runs each hold their intervals (one
 * -i 0.1 day is 864 000 rows). LINKPERF_HISTORY_MAX overrides it (64K..1T, K/M/G: 1024). */
#define BYTES_KEPT_DEFAULT (64ull << 20)
#define BYTES_KEPT_MIN (64ull << 10)


static const char schema[] =
    "CREATE TABLE IF NOT EXISTS runs ("
    " id INTEGER PRIMARY KEY, started_ms INTEGER NOT NULL, source TEXT NOT NULL,"
    " command TEXT NOT NULL, role TEXT NOT NULL, host TEXT NOT NULL DEFAULT '',"
    " port INTEGER, proto TEXT, dialect TEXT, streams INTEGER, reverse INTEGER, bidir INTEGER,"
    " duration_s REAL, bytes INTEGER, bps_sent REAL, bps_received REAL, jitter_ms REAL,"
    " lost INTEGER, packets INTEGER, retransmits INTEGER, complete INTEGER NOT NULL DEFAULT 0,"
    " error TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '', result_json TEXT);"
    "CREATE INDEX IF NOT EXISTS runs_started ON runs(started_ms);"
    "CREATE TABLE IF NOT EXISTS intervals ("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL,"
    " stream INTEGER NOT NULL, sender INTEGER, start_s REAL, end_s REAL, bytes INTEGER,"
    " bps REAL, omitted INTEGER, retransmits INTEGER, cwnd INTEGER, rtt_us INTEGER,"
    " jitter_ms REAL, lost INTEGER, packets INTEGER, PRIMARY KEY (run_id, seq, stream));"
    /* Each interval's element of the -J document's "intervals" array (compact JSON): the
     * run's result_json is stored without them and the export puts them back
     * (store_query.c), so a recording process keeps no interval in memory. */
    "CREATE TABLE IF NOT EXISTS interval_docs ("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL,"
    " doc TEXT NOT NULL, PRIMARY KEY (run_id, seq));"
    "CREATE TABLE IF NOT EXISTS profiles (name TEXT PRIMARY KEY, args TEXT NOT NULL,"
    " saved_ms INTEGER NOT NULL);";

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int lp_store_default_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;

    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/linkperf/history.db", xdg);
    else if (home && home[0])
        n = snprintf(buf, len, "%s/.local/share/linkperf/history.db", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* mkdir -p of the directory part of path (0700: the history is the user's own). */
static int make_parents(char *path)
{
    char *p;

    for (p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) < 0 && errno != EEXIST) {
            *p = '/';
            return -1;
        }
        *p = '/';
    }
    return 0;
}

bool lp_store_env_off(void)
{
    const char *v = getenv("LINKPERF_NO_HISTORY");
    return v && v[0] && strcmp(v, "0") != 0;
}

/* LINKPERF_HISTORY_MAX as bytes; 0 when unset or not a size in range (the default then). */
static uint64_t env_max_bytes(void)
{
    const char *v = getenv("LINKPERF_HISTORY_MAX");
    char *end;
    if (!v || !v[0])
        return 0;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (errno || end == v || *end || n > (1ull << 40) >> shift)
        return 0;
    n <<= shift;
    return n >= BYTES_KEPT_MIN && n <= (1ull << 40) ? n : 0;
}

struct lp_store *lp_store_open(const char *path, char *err, size_t errlen)
{
    char buf[LP_STORE_PATH_MAX];
    struct lp_store *s;
    char *msg = NULL;

    if (!path || !path[0]) {
        if (lp_store_default_path(buf, sizeof(buf)) < 0) {
            snprintf(err, errlen, "history: neither XDG_DATA_HOME nor HOME is set (use --db "
                                  "PATH or --no-history)");
            return NULL;
        }
    } else if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf)) {
        snprintf(err, errlen, "history: --db path too long");
        return NULL;
    }
    if (make_parents(buf) < 0) {
        snprintf(err, errlen, "history: cannot create the directory of %s: %s", buf,
                 strerror(errno));
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    struct stat sb;
    s->created = stat(buf, &sb) < 0 && errno == ENOENT;
    snprintf(s->path, sizeof(s->path), "%s", buf);
    s->max_bytes = env_max_bytes();
    if (!s->max_bytes)
        s->max_bytes = BYTES_KEPT_DEFAULT;
    if (sqlite3_open_v2(buf, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                         SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_busy_timeout(s->db, 5000);
    /* WAL with synchronous=NORMAL: a commit is a write, not an fsync (a power cut may lose
     * the last runs, never the file); the engine's control threads record, so a commit
     * must stay cheap. The page cache is the connection's only memory that grows with the
     * file: a recording needs the right edges of four B-trees and the page's queries scan
     * more than any cache holds, so 512 KiB (SQLite's default: 2 MB), and a long run's
     * memory is flat once its first half megabyte of rows is written. */
    /* A new file gives the pages of deleted runs back to the disk (a file made before
     * keeps them free for new runs); auto_vacuum must be chosen before the first table. */
    if ((s->created && sqlite3_exec(s->db, "PRAGMA auto_vacuum=INCREMENTAL;", NULL, NULL, &msg) != SQLITE_OK) ||
        sqlite3_exec(s->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                            " PRAGMA foreign_keys=ON; PRAGMA cache_size=-512;"
                            /* the WAL cut back to 1 MiB after each checkpoint: SQLite
                             * leaves it at its largest (3.5 MB after an afternoon) */
                            " PRAGMA journal_size_limit=1048576;", NULL, NULL,
                     &msg) != SQLITE_OK ||
        sqlite3_exec(s->db, schema, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(s->db, "PRAGMA user_version=1;", NULL, NULL, &msg) != SQLITE_OK)
        goto fail;
    return s;
fail:
    snprintf(err, errlen, "history: %s: %s", buf, msg ? msg : sqlite3_errmsg(s->db));
    sqlite3_free(msg);
    lp_store_close(s);
    return NULL;
}

void lp_store_close(struct lp_store *s)
{
    if (!s)
        return;
    /* An unfinalized statement would keep the connection (and its memory) open. */
    sqlite3_finalize(s->ins_interval);
    sqlite3_finalize(s->ins_interval_doc);
    sqlite3_close(s->db);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* ---- statements ---- */

/* Binds ('i' int64, 'd' double, 't' text, 'n' null) from ap, in order. */
static void bind_all(sqlite3_stmt *st, const char *types, va_list ap)
{
    int i;

    for (i = 0; types[i]; i++) {
        switch (types[i]) {
        case 'i': sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t)); break;
        case 'd': sqlite3_bind_double(st, i + 1, va_arg(ap, double)); break;
        case 't': sqlite3_bind_text(st, i + 1, va_arg(ap, const char *), -1, SQLITE_TRANSIENT);
                  break;
        default: sqlite3_bind_null(st, i + 1); break;
        }
    }
}

/* Runs sql with the given binds, one step. Returns SQLITE_DONE / SQLITE_ROW or an error
 * code. */
static int exec_bind(sqlite3 *db, const char *sql, const char *types, ...)
{
    sqlite3_stmt *st;
    va_list ap;
    int rc;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return SQLITE_ERROR;
    va_start(ap, types);
    bind_all(st, types, ap);
    va_end(ap);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc;
}

/* exec_bind with a statement prepared once into *slot (the store's, under its mutex) and
 * reset after each step: what every interval runs, many times a second for hours. */
static int exec_cached(sqlite3 *db, sqlite3_stmt **slot, const char *sql, const char *types,
                       ...)
{
    va_list ap;
    int rc;

    if (!*slot && sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL) !=
                      SQLITE_OK) {
        sqlite3_finalize(*slot);
        *slot = NULL;
        return SQLITE_ERROR;
    }
    va_start(ap, types);
    bind_all(*slot, types, ap);
    va_end(ap);
    rc = sqlite3_step(*slot);
    sqlite3_reset(*slot);
    sqlite3_clear_bindings(*slot);
    return rc;
}

/* ---- the recording tap ---- */

/* One test being recorded. Owns the -J formatter that builds its result document from every
 * record but the intervals (those go to interval_docs as they come: memory stays flat over a
 * run of any length). */
struct tap_test {
    unsigned test_id;
    int64_t run_id;        /* 0 until its row exists */
    int64_t seq;
    bool ended;            /* END seen and not partial */
    unsigned failed;       /* interval records not written (disk full, a damaged file) */
    bool warned;           /* the first failed write was reported on stderr */
    char fail_msg[128];    /* SQLite's message for the first one */
    struct lp_out out;
    struct lp_fmt *json;   /* -J look, for the runs' result_json */
    struct lp_store_tap *tap;
};

struct lp_store_tap {
    struct lp_store *s;
    char *source, *command;
    struct lp_sink next;
    bool has_next;
    struct tap_test *tests[TAP_TESTS_MAX];
};

static struct tap_test *tap_find(struct lp_store_tap *t, unsigned test_id, bool create);

/* The -J document arrives through out.write at DONE. */
static void on_doc(void *user, enum lp_out_channel ch, const char *text, size_t n)
{
    struct tap_test *tt = user;
    char *doc;

    if (ch != LP_OUT_STDOUT || tt->run_id == 0)
        return;
    doc = strndup(text, n);
    if (doc)
        exec_bind(tt->tap->s->db, "UPDATE runs SET result_json=?1 WHERE id=?2", "ti", doc,
                  tt->run_id);
    free(doc);
}

static struct tap_test *tap_find(struct lp_store_tap *t, unsigned test_id, bool create)
{
    int i, free_slot = -1;

    for (i = 0; i < TAP_TESTS_MAX; i++) {
        if (t->tests[i] && t->tests[i]->test_id == test_id)
            return t->tests[i];
        if (!t->tests[i] && free_slot < 0)
            free_slot = i;
    }
    if (!create || free_slot < 0)
        return NULL;
    t->tests[free_slot] = calloc(1, sizeof(struct tap_test));
    if (t->tests[free_slot]) {
        struct tap_test *tt = t->tests[free_slot];
        struct lp_fmt_opts o;

        memset(&o, 0, sizeof(o));
        o.unit = 'a';
        tt->test_id = test_id;
        tt->tap = t;
        tt->out = (struct lp_out){on_doc, tt};
        tt->json = lp_fmt_new(LP_FMT_JSON, &o, &tt->out);
    }
    return t->tests[free_slot];
}

static void tap_drop(struct lp_store_tap *t, struct tap_test *tt)
{
    int i;

    for (i = 0; i < TAP_TESTS_MAX; i++)
        if (t->tests[i] == tt)
            t->tests[i] = NULL;
    lp_fmt_free(tt->json);
    free(tt);
}

static const char *proto_name(enum lp_proto p) { return p == LP_PROTO_UDP ? "udp" : "tcp"; }
static const char *dialect_name(enum lp_dialect d)
{
    return d == LP_DIALECT_IPERF2 ? "iperf2" : "iperf3";
}

static void row_insert(struct lp_store_tap *t, struct tap_test *tt, const struct lp_record *rec)
{
    const char *host = "";
    int port = 0;
    const char *proto = NULL, *dialect = NULL;

    if (rec->kind == LP_REC_CONNECTING) {
        host = rec->u.connecting.peer.host;
        port = rec->u.connecting.peer.port;
        proto = proto_name(rec->u.connecting.proto);
        dialect = dialect_name(rec->u.connecting.dialect);
    }
    if (exec_bind(t->s->db, "INSERT INTO runs (started_ms, source, command, role, host, port,"
                            " proto, dialect) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)", "itttti" "tt",
                  wall_ms(), t->source, t->command,
                  rec->role == LP_ROLE_SERVER ? "server" : "client", host, (int64_t)port,
                  proto ? proto : "tcp", dialect ? dialect : "iperf3") == SQLITE_DONE)
        tt->run_id = sqlite3_last_insert_rowid(t->s->db);
    if (tt->run_id > RUNS_KEPT && tt->run_id % PRUNE_EVERY == 0)
        exec_bind(t->s->db, "DELETE FROM runs WHERE id <= ?1", "i",
                  (int64_t)(tt->run_id - RUNS_KEPT));
    /* the byte cap, checked as each run begins: the run being recorded may pass it */
    lp_store_keep_size(t->s, tt->run_id);
}

static void row_start(struct lp_store_tap *t, struct tap_test *tt, const struct lp_rec_start *st)
{
    const struct lp_spec *sp = st->spec;
    const char *host = sp->role == LP_ROLE_CLIENT ? sp->host : st->control_peer.host;

    exec_bind(t->s->db, "UPDATE runs SET started_ms=?1, host=?2, port=?3, proto=?4, dialect=?5,"
                        " streams=?6, reverse=?7, bidir=?8, title=?9 WHERE id=?10",
              "itittiiiti", (int64_t)st->timestamp_ms, host, (int64_t)sp->port,
              proto_name(sp->proto), dialect_name(sp->dialect), (int64_t)sp->streams,
              (int64_t)(sp->dir == LP_DIR_REVERSE), (int64_t)(sp->dir == LP_DIR_BIDIR), sp->title,
              tt->run_id);
}

/* A write the history could not make: the run must not look complete, and the user must
 * hear it once (the run's row may be unwritable too, so stderr says it first). */
static void write_failed(struct tap_test *tt, const char *what)
{
    sqlite3 *db = tt->tap->s->db;
    if (!tt->warned) {
        snprintf(tt->fail_msg, sizeof(tt->fail_msg), "%s", sqlite3_errmsg(db));
        fprintf(stderr, "linkperf: warning: history: cannot record %s of test %u (%s); the run "
                        "is kept marked incomplete\n", what, tt->test_id, tt->fail_msg);
        tt->warned = true;
    }
}

static int interval_row(struct lp_store *s, int64_t run, int64_t seq, int stream,
                        const struct lp_sample *x)
{
    return exec_cached(s->db, &s->ins_interval,
              "INSERT OR REPLACE INTO intervals (run_id, seq, stream, sender, start_s, end_s,"
              " bytes, bps, omitted, retransmits, cwnd, rtt_us, jitter_ms, lost, packets)"
              " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)",
              "iiiiddidiiiidii", run, seq, (int64_t)stream, (int64_t)x->sid.sender, x->start_s,
              x->end_s, (int64_t)x->bytes, x->bits_per_second, (int64_t)x->omitted,
              (int64_t)(x->has_tcp_info ? x->retransmits : 0),
              (int64_t)(x->has_tcp_info ? x->snd_cwnd : 0),
              (int64_t)(x->has_tcp_info ? x->rtt_us : 0), x->jitter_ms,
              (int64_t)x->lost_packets, (int64_t)x->packets);
}

static void row_interval(struct lp_store_tap *t, struct tap_test *tt,
                         const struct lp_rec_interval *iv)
{
    char *doc = lp_fmt_json_interval_text(iv);
    unsigned i;
    bool ok = doc != NULL;

    tt->seq++;
    sqlite3_exec(t->s->db, "BEGIN", NULL, NULL, NULL);
    for (i = 0; i < iv->nstreams; i++)
        ok &= interval_row(t->s, tt->run_id, tt->seq, iv->streams[i].sid.id,
                           &iv->streams[i]) == SQLITE_DONE;
    ok &= interval_row(t->s, tt->run_id, tt->seq, 0, &iv->sum) == SQLITE_DONE;
    if (iv->has_sum_reverse)
        ok &= interval_row(t->s, tt->run_id, tt->seq, -1, &iv->sum_reverse) == SQLITE_DONE;
    ok = ok && exec_cached(t->s->db, &t->s->ins_interval_doc,
                           "INSERT OR REPLACE INTO interval_docs (run_id, seq, doc)"
                           " VALUES (?1,?2,?3)", "iit", tt->run_id, tt->seq, doc) == SQLITE_DONE;
    free(doc);
    if (!ok)
        write_failed(tt, "an interval");
    /* All of an interval's rows or none: a page never shows a sum without its streams. */
    if (sqlite3_exec(t->s->db, ok ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK) {
        if (ok)
            write_failed(tt, "an interval");
        ok = false;
        sqlite3_exec(t->s->db, "ROLLBACK", NULL, NULL, NULL);
    }
    tt->failed += !ok;
}

static void row_end(struct lp_store_tap *t, struct tap_test *tt, const struct lp_rec_end *e)
{
    const struct lp_direction_end *d = e->forward.present ? &e->forward : &e->reverse;
    const struct lp_total *rx = &d->received, *tx = &d->sent;

    char note[256] = "";

    tt->ended = !e->partial;
    if (tt->failed)
        snprintf(note, sizeof(note), "history: %u of %lld intervals could not be recorded (%s)",
                 tt->failed, (long long)tt->seq, tt->fail_msg);
    /* The note goes next to a test error already there; complete only if nothing was lost. */
    if (exec_bind(t->s->db, "UPDATE runs SET duration_s=?1, bytes=?2, bps_sent=?3, bps_received=?4,"
                            " jitter_ms=?5, lost=?6, packets=?7, retransmits=?8, complete=?9,"
                            " error=CASE WHEN ?11 = '' THEN error WHEN error = '' THEN ?11"
                            " ELSE error || '; ' || ?11 END WHERE id=?10",
                  "didddiiiiit", rx->present ? rx->seconds : tx->seconds,
                  (int64_t)(rx->present ? rx->bytes : tx->bytes), tx->bits_per_second,
                  rx->bits_per_second, rx->jitter_ms, (int64_t)rx->lost_packets,
                  (int64_t)(rx->present ? rx->packets : tx->packets),
                  (int64_t)(tx->has_retransmits ? tx->retransmits : 0),
                  (int64_t)(tt->ended && !tt->failed), tt->run_id, note) != SQLITE_DONE)
        write_failed(tt, "the end");
    if (tt->failed)
        fprintf(stderr, "linkperf: warning: %s of test %u\n", note, tt->test_id);
}

/* ---- a measurement's report ---- */

int64_t lp_store_report_begin(struct lp_store *s, const struct lp_store_report *r)
{
    int64_t id = 0;

    pthread_mutex_lock(&s->mu);
    if (exec_bind(s->db, "INSERT INTO runs (started_ms, source, command, role, host, port, proto,"
                         " dialect) VALUES (?1,?2,?3,'client',?4,?5,?6,?7)", "itttitt",
                  wall_ms(), r->source, r->command, r->host, (int64_t)r->port, r->proto,
                  r->dialect) == SQLITE_DONE)
        id = sqlite3_last_insert_rowid(s->db);
    lp_store_keep_size(s, id);
    pthread_mutex_unlock(&s->mu);
    return id;
}

void lp_store_report_end(struct lp_store *s, int64_t id, double duration_s, const char *report,
                         const char *error, bool complete)
{
    if (id <= 0)
        return;
    pthread_mutex_lock(&s->mu);
    /* A NULL report binds SQL NULL (sqlite3_bind_text of a NULL pointer). */
    exec_bind(s->db, "UPDATE runs SET duration_s=?1, result_json=?2, error=?3, complete=?4"
                     " WHERE id=?5", "dttii", duration_s, report, error ? error : "",
              (int64_t)complete, id);
    pthread_mutex_unlock(&s->mu);
}

static void tap_record(const struct lp_record *rec, void *user)
{
    struct lp_store_tap *t = user;
    struct tap_test *tt;

    if (t->has_next)
        t->next.record(rec, t->next.user);
    if (rec->kind == LP_REC_DEBUG || rec->kind == LP_REC_LISTENING ||
        (rec->role == LP_ROLE_SERVER && rec->test_id == 0))
        return; /* the server's own records are not a test */
    pthread_mutex_lock(&t->s->mu);
    tt = tap_find(t, rec->test_id, true);
    if (!tt)
        goto out;
    /* A client's run is recorded from its first record (a refused connect is history too);
     * a server's only once a test starts: connections that never become a test (scans,
     * garbage, refusals) leave no rows. */
    if (tt->run_id == 0 && rec->kind != LP_REC_DONE &&
        (rec->role == LP_ROLE_CLIENT || rec->kind == LP_REC_START))
        row_insert(t, tt, rec);
    /* The document, written at DONE (on_doc); its intervals are rows (row_interval). */
    if (tt->json && rec->kind != LP_REC_INTERVAL)
        lp_fmt_record(tt->json, rec);
    if (tt->run_id != 0) {
        switch (rec->kind) {
        case LP_REC_START: row_start(t, tt, &rec->u.start); break;
        case LP_REC_INTERVAL: row_interval(t, tt, &rec->u.interval); break;
        case LP_REC_END: row_end(t, tt, &rec->u.end); break;
        case LP_REC_ERROR:
            exec_bind(t->s->db, "UPDATE runs SET error=?1 WHERE id=?2", "ti",
                      rec->u.error.message ? rec->u.error.message : "error", tt->run_id);
            break;
        default: break;
        }
    }
    if (rec->kind == LP_REC_DONE)
        tap_drop(t, tt);
out:
    pthread_mutex_unlock(&t->s->mu);
}

static char *tap_server_output(unsigned test_id, int *is_json, void *user)
{
    struct lp_store_tap *t = user;

    return t->has_next && t->next.server_output
               ? t->next.server_output(test_id, is_json, t->next.user) : NULL;
}

struct lp_store_tap *lp_store_tap_new(struct lp_store *s, const char *source,
                                      const char *command, const struct lp_sink *next)
{
    struct lp_store_tap *t = calloc(1, sizeof(*t));

    if (!t)
        return NULL;
    t->s = s;
    t->source = strdup(source);
    t->command = strdup(command ? command : "");
    if (next) {
        t->next = *next;
        t->has_next = true;
    }
    if (!t->source || !t->command) {
        lp_store_tap_free(t);
        return NULL;
    }
    return t;
}

void lp_store_tap_set_next(struct lp_store_tap *t, const struct lp_sink *next)
{
    t->next = *next;
    t->has_next = true;
}

void lp_store_tap_sink(struct lp_store_tap *t, struct lp_sink *out)
{
    out->record = tap_record;
    out->server_output = t->has_next && t->next.server_output ? tap_server_output : NULL;
    out->user = t;
}

void lp_store_tap_free(struct lp_store_tap *t)
{
    int i;

    if (!t)
        return;
    if (t->s)
        pthread_mutex_lock(&t->s->mu);
    for (i = 0; i < TAP_TESTS_MAX; i++)
        if (t->tests[i])
            tap_drop(t, t->tests[i]);
    if (t->s)
        pthread_mutex_unlock(&t->s->mu);
    free(t->source);
    free(t->command);
    free(t);
}

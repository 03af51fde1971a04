/* History queries for the web page: listing with filters, one run with its intervals, its
 * iperf3 document, CSV, deletion. Results are JSON (cJSON) or CSV text. */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/store_int.h"


static const char run_columns[] =
    "id, started_ms, source, command, role, host, port, proto, dialect, streams, reverse, bidir,"
    " duration_s,"
    " bytes, bps_sent, bps_received, jitter_ms, lost, packets, retransmits, complete, error,"
    " title";

/* One row of any query as an object keyed by column name (NULL columns are JSON null). */
static cJSON *row_object(sqlite3_stmt *st)
{
    cJSON *o = cJSON_CreateObject();
    int i, n = sqlite3_column_count(st);

    for (i = 0; i < n; i++) {
        const char *name = sqlite3_column_name(st, i);
        switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER:
            cJSON_AddNumberToObject(o, name, (double)sqlite3_column_int64(st, i));
            break;
        case SQLITE_FLOAT:
            cJSON_AddNumberToObject(o, name, sqlite3_column_double(st, i));
            break;
        case SQLITE_TEXT:
            cJSON_AddStringToObject(o, name, (const char *)sqlite3_column_text(st, i));
            break;
        default:
            cJSON_AddNullToObject(o, name);
            break;
        }
    }
    return o;
}

static char *finish(cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);

    cJSON_Delete(o);
    return s;
}

char *lp_store_list(struct lp_store *s, const struct lp_store_filter *f)
{
    char sql[768];
    sqlite3_stmt *st;
    cJSON *o, *a;
    const char *text = f && f->text ? f->text : "", *proto = f && f->proto ? f->proto : "";
    unsigned limit = f && f->limit ? f->limit : 200;

    snprintf(sql, sizeof(sql),
             "SELECT %s FROM runs WHERE (?1 = '' OR instr(lower(command), lower(?1)) > 0 OR"
             " instr(lower(host), lower(?1)) > 0 OR instr(lower(title), lower(?1)) > 0)"
             " AND (?2 = '' OR proto = ?2) AND (?3 = 0 OR started_ms >= ?3)"
             " AND (?4 = 0 OR started_ms < ?4) ORDER BY started_ms DESC, id DESC LIMIT ?5",
             run_columns);
    pthread_mutex_lock(&s->mu);
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        pthread_mutex_unlock(&s->mu);
        return NULL;
    }
    sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, proto, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, f ? f->since_ms : 0);
    sqlite3_bind_int64(st, 4, f ? f->until_ms : 0);
    sqlite3_bind_int64(st, 5, limit > 10000 ? 10000 : limit);
    o = cJSON_CreateObject();
    a = cJSON_AddArrayToObject(o, "runs");
    while (sqlite3_step(st) == SQLITE_ROW)
        cJSON_AddItemToArray(a, row_object(st));
    sqlite3_finalize(st);
    pthread_mutex_unlock(&s->mu);
    return finish(o);
}

/* Each interval row with its stream's latency, which lives in the interval's document only
 * (one home: interval_docs). A document's "streams" are in the order the tap wrote the rows
 * (rowid order within the interval), so a stream row's rank among the interval's stream rows
 * (stream > 0) is its index in the document. Runs without documents get no latency. */
static const char intervals_sql[] =
    "WITH lat AS (SELECT d.seq, CAST(j.key AS INTEGER) AS idx,"
    "  json_extract(j.value, '$.latency') AS latency"
    "  FROM interval_docs d, json_each(d.doc, '$.streams') j"
    "  WHERE d.run_id = ?1 AND json_valid(d.doc) AND json_type(j.value, '$.latency') = 'object'),"
    " rows AS (SELECT *, CASE WHEN stream > 0 THEN count(*) FILTER (WHERE stream > 0)"
    "  OVER (PARTITION BY seq ORDER BY rowid ROWS UNBOUNDED PRECEDING) - 1 END AS idx"
    "  FROM intervals WHERE run_id = ?1)"
    " SELECT rows.seq, stream, sender, start_s, end_s, bytes, bps, omitted, retransmits, cwnd,"
    " rtt_us, jitter_ms, lost, packets, lat.latency FROM rows"
    " LEFT JOIN lat ON lat.seq = rows.seq AND lat.idx = rows.idx ORDER BY rows.seq, stream";

/* A row of intervals_sql: the last column is JSON text, put in as an object (or left out). */
static cJSON *interval_object(sqlite3_stmt *st)
{
    cJSON *o = row_object(st), *lat;
    int last = sqlite3_column_count(st) - 1;

    cJSON_DeleteItemFromObject(o, "latency");
    if (sqlite3_column_type(st, last) == SQLITE_TEXT &&
        (lat = cJSON_Parse((const char *)sqlite3_column_text(st, last))))
        cJSON_AddItemToObject(o, "latency", lat);
    return o;
}

/* From the run's stored document: its "end" (the latency histograms), or the whole report
 * of a measurement subcommand (no iperf3 document: "rfc2544" or "under_load" at the top). */
static void add_document_parts(sqlite3 *db, int64_t id, cJSON *o)
{
    sqlite3_stmt *st;

    if (sqlite3_prepare_v2(db, "SELECT CASE WHEN json_valid(result_json) THEN"
                               " json_extract(result_json, '$.end') END,"
                               " CASE WHEN json_valid(result_json) AND"
                               " (json_type(result_json, '$.rfc2544') = 'object' OR"
                               " json_type(result_json, '$.under_load') = 'object')"
                               " THEN result_json END FROM runs WHERE id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        static const char *const names[] = {"end", "report"};
        for (int i = 0; i < 2; i++) {
            cJSON *part = sqlite3_column_type(st, i) == SQLITE_TEXT
                              ? cJSON_Parse((const char *)sqlite3_column_text(st, i)) : NULL;
            if (part)
                cJSON_AddItemToObject(o, names[i], part);
        }
    }
    sqlite3_finalize(st);
}

char *lp_store_get(struct lp_store *s, int64_t id)
{
    char sql[512];
    sqlite3_stmt *st;
    cJSON *o = NULL, *a;

    snprintf(sql, sizeof(sql), "SELECT %s FROM runs WHERE id = ?1", run_columns);
    pthread_mutex_lock(&s->mu);
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            o = cJSON_CreateObject();
            cJSON_AddItemToObject(o, "run", row_object(st));
        }
        sqlite3_finalize(st);
    }
    /* A SQLite without JSON or window functions (before 3.38 / 3.30): rows without latency. */
    if (o && (sqlite3_prepare_v2(s->db, intervals_sql, -1, &st, NULL) == SQLITE_OK ||
              sqlite3_prepare_v2(s->db, "SELECT seq, stream, sender, start_s, end_s, bytes, bps,"
                                        " omitted, retransmits, cwnd, rtt_us, jitter_ms, lost,"
                                        " packets, NULL AS latency FROM intervals"
                                        " WHERE run_id = ?1 ORDER BY seq, stream", -1, &st,
                                 NULL) == SQLITE_OK)) {
        sqlite3_bind_int64(st, 1, id);
        a = cJSON_AddArrayToObject(o, "intervals");
        while (sqlite3_step(st) == SQLITE_ROW)
            cJSON_AddItemToArray(a, interval_object(st));
        sqlite3_finalize(st);
    }
    if (o)
        add_document_parts(s->db, id, o);
    pthread_mutex_unlock(&s->mu);
    return o ? finish(o) : NULL;
}

/* A growable string for the CSV and the result document. */
struct text {
    char *s;
    size_t len, cap;
};

static void text_addn(struct text *t, const char *piece, size_t n)
{
    if (!t->s)
        return;
    if (t->len + n + 1 > t->cap) {
        char *p = realloc(t->s, (t->len + n + 1) * 2);
        if (!p) {
            free(t->s);
            t->s = NULL;
            return;
        }
        t->s = p;
        t->cap = (t->len + n + 1) * 2;
    }
    memcpy(t->s + t->len, piece, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void text_add(struct text *t, const char *piece)
{
    text_addn(t, piece, strlen(piece));
}

/* What cJSON_Print writes for the stored document's empty "intervals" (a root key: one tab). */
static const char no_intervals[] = "\n\t\"intervals\":\t[]";

/* Interval documents read per lock: the engine's control threads record under the same
 * mutex, so exporting an hour-long run (36000 intervals, ~0.6 s of formatting) must not hold
 * it throughout; the formatting happens outside it. */
#define EXPORT_BATCH 512

/* One element (compact JSON) appended as cJSON_Print formats it at depth 0, indented two
 * levels more: in the root object, in its array. cJSON's indentation is the tabs after each
 * newline, and JSON text holds no raw newline inside a string. */
static bool add_element(struct text *t, const char *compact, bool first)
{
    cJSON *o = cJSON_Parse(compact);
    char *el = o ? cJSON_Print(o) : NULL, *p, *nl;

    cJSON_Delete(o);
    if (!el)
        return false; /* a damaged row: the others still export */
    if (!first)
        text_add(t, ", ");
    for (p = el; (nl = strchr(p, '\n')); p = nl + 1) {
        text_addn(t, p, (size_t)(nl + 1 - p));
        text_add(t, "\t\t");
    }
    text_add(t, p);
    free(el);
    return true;
}

/* The document with its "intervals" put back from interval_docs: byte for byte what the -J
 * formatter printed with them in. Takes doc; returns it unchanged for runs without interval
 * documents (runs recorded before them have their intervals in result_json already); NULL
 * when out of memory. Called without the mutex. */
static char *with_intervals(struct lp_store *s, int64_t id, char *doc)
{
    char *at = strstr(doc, no_intervals), *batch[EXPORT_BATCH];
    struct text t = {NULL, 0, 0};
    int64_t after = -1;
    size_t head;
    int n = 0, rows, got, i;

    if (!at)
        return doc;
    head = (size_t)(at - doc) + sizeof(no_intervals) - 2; /* up to and with the '[' */
    do {
        sqlite3_stmt *st;
        rows = got = 0;
        pthread_mutex_lock(&s->mu);
        if (sqlite3_prepare_v2(s->db, "SELECT seq, doc FROM interval_docs WHERE run_id = ?1"
                                      " AND seq > ?2 ORDER BY seq LIMIT ?3", -1, &st,
                               NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, id);
            sqlite3_bind_int64(st, 2, after);
            sqlite3_bind_int(st, 3, EXPORT_BATCH);
            while (rows < EXPORT_BATCH && sqlite3_step(st) == SQLITE_ROW) {
                const char *el = (const char *)sqlite3_column_text(st, 1);
                rows++;
                after = sqlite3_column_int64(st, 0);
                if (el && (batch[got] = strdup(el)))
                    got++;
            }
            sqlite3_finalize(st);
        }
        pthread_mutex_unlock(&s->mu);
        for (i = 0; i < got; i++) {
            if (!t.s && !n) {
                t.cap = strlen(doc) + 1024;
                t.s = malloc(t.cap);
                if (t.s)
                    t.s[0] = '\0';
                text_addn(&t, doc, head);
            }
            n += add_element(&t, batch[i], n == 0);
            free(batch[i]);
        }
    } while (rows == EXPORT_BATCH);
    if (n == 0) {
        free(t.s);
        return doc;
    }
    text_add(&t, doc + head);
    free(doc);
    return t.s;
}

char *lp_store_result_json(struct lp_store *s, int64_t id)
{
    sqlite3_stmt *st;
    char *doc = NULL;

    pthread_mutex_lock(&s->mu);
    if (sqlite3_prepare_v2(s->db, "SELECT result_json FROM runs WHERE id = ?1", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
            doc = strdup((const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->mu);
    return doc ? with_intervals(s, id, doc) : NULL;
}

char *lp_store_intervals_csv(struct lp_store *s, int64_t id)
{
    static const char header[] = "run,interval,stream,sender,start_s,end_s,bytes,bits_per_second,"
                                 "omitted,retransmits,snd_cwnd,rtt_us,jitter_ms,lost_packets,"
                                 "packets\n";
    struct text t = {malloc(1024), 0, 1024};
    sqlite3_stmt *st;
    char line[512];
    int found = 0;

    if (!t.s)
        return NULL;
    t.s[0] = '\0';
    text_add(&t, header);
    pthread_mutex_lock(&s->mu);
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM runs WHERE id = ?1", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        found = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0;
        sqlite3_finalize(st);
    }
    if (found && sqlite3_prepare_v2(s->db, "SELECT seq, stream, sender, start_s, end_s, bytes,"
                                           " bps, omitted, retransmits, cwnd, rtt_us, jitter_ms,"
                                           " lost, packets FROM intervals WHERE run_id = ?1"
                                           " ORDER BY seq, stream", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            snprintf(line, sizeof(line),
                     "%" PRId64 ",%lld,%lld,%lld,%.6f,%.6f,%lld,%.0f,%lld,%lld,%lld,%lld,%.3f,"
                     "%lld,%lld\n", id, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                     sqlite3_column_int64(st, 2), sqlite3_column_double(st, 3),
                     sqlite3_column_double(st, 4), sqlite3_column_int64(st, 5),
                     sqlite3_column_double(st, 6), sqlite3_column_int64(st, 7),
                     sqlite3_column_int64(st, 8), sqlite3_column_int64(st, 9),
                     sqlite3_column_int64(st, 10), sqlite3_column_double(st, 11),
                     sqlite3_column_int64(st, 12), sqlite3_column_int64(st, 13));
            text_add(&t, line);
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->mu);
    if (!found) {
        free(t.s);
        return NULL;
    }
    return t.s;
}

static int64_t query_int(sqlite3 *db, const char *sql, int64_t bind)
{
    sqlite3_stmt *st;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_bind_parameter_count(st) > 0)
        sqlite3_bind_int64(st, 1, bind);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The pages in use: the file less its free pages (which new rows reuse). */
static uint64_t used_bytes(sqlite3 *db)
{
    int64_t pages = query_int(db, "PRAGMA page_count", 0), free_pages = query_int(db, "PRAGMA freelist_count", 0),
            size = query_int(db, "PRAGMA page_size", 0);
    return pages > 0 && free_pages >= 0 && size > 0 && pages >= free_pages ? (uint64_t)(pages - free_pages) * (uint64_t)size
                                                                           : 0;
}

void lp_store_keep_size(struct lp_store *s, int64_t keep_id)
{
    bool deleted = false;
    /* An eighth of the other runs at a time, oldest first, until the rest fits. */
    for (int round = 0; round < 64 && used_bytes(s->db) > s->max_bytes; round++) {
        int64_t others = query_int(s->db, "SELECT count(*) FROM runs WHERE id != ?1", keep_id);
        if (others <= 0)
            break;
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(s->db, "DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE id != ?1"
                                      " ORDER BY id LIMIT ?2)", -1, &st, NULL) != SQLITE_OK)
            break;
        sqlite3_bind_int64(st, 1, keep_id);
        sqlite3_bind_int64(st, 2, others / 8 > 0 ? others / 8 : 1);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
            break;
        deleted = true;
    }
    if (deleted) /* a file made with auto_vacuum gives the pages back (else: a no-op) */
        sqlite3_exec(s->db, "PRAGMA incremental_vacuum;", NULL, NULL, NULL);
}

bool lp_store_created(const struct lp_store *s)
{
    return s->created;
}

const char *lp_store_path(const struct lp_store *s)
{
    return s->path;
}

void lp_store_size(struct lp_store *s, uint64_t *used, uint64_t *max, int64_t *runs)
{
    pthread_mutex_lock(&s->mu);
    *used = used_bytes(s->db);
    *max = s->max_bytes;
    *runs = query_int(s->db, "SELECT count(*) FROM runs", 0);
    pthread_mutex_unlock(&s->mu);
}

int lp_store_delete(struct lp_store *s, int64_t id)
{
    sqlite3_stmt *st;
    int changed = 0;

    pthread_mutex_lock(&s->mu);
    if (sqlite3_prepare_v2(s->db, "DELETE FROM runs WHERE id = ?1", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) == SQLITE_DONE)
            changed = sqlite3_changes(s->db);
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->mu);
    return changed > 0 ? 0 : -1;
}

char *lp_store_profiles(struct lp_store *s)
{
    sqlite3_stmt *st;
    cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "profiles");

    pthread_mutex_lock(&s->mu);
    if (sqlite3_prepare_v2(s->db, "SELECT name, args, saved_ms FROM profiles ORDER BY name", -1,
                           &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            cJSON *p = cJSON_CreateObject();
            cJSON *args = cJSON_Parse((const char *)sqlite3_column_text(st, 1));
            cJSON_AddStringToObject(p, "name", (const char *)sqlite3_column_text(st, 0));
            cJSON_AddItemToObject(p, "args", args ? args : cJSON_CreateArray());
            cJSON_AddNumberToObject(p, "saved_ms", (double)sqlite3_column_int64(st, 2));
            cJSON_AddItemToArray(a, p);
        }
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->mu);
    return finish(o);
}

static int simple_change(struct lp_store *s, const char *sql, const char *a, const char *b)
{
    sqlite3_stmt *st;
    int changed = -1;

    pthread_mutex_lock(&s->mu);
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, a, -1, SQLITE_TRANSIENT);
        if (b)
            sqlite3_bind_text(st, 2, b, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) == SQLITE_DONE)
            changed = sqlite3_changes(s->db);
        sqlite3_finalize(st);
    }
    pthread_mutex_unlock(&s->mu);
    return changed > 0 ? 0 : -1;
}

int lp_store_profile_save(struct lp_store *s, const char *name, const char *args_json)
{
    return simple_change(s, "INSERT OR REPLACE INTO profiles (name, args, saved_ms) VALUES"
                            " (?1, ?2, CAST(strftime('%s','now') AS INTEGER) * 1000)",
                         name, args_json);
}

int lp_store_profile_delete(struct lp_store *s, const char *name)
{
    return simple_change(s, "DELETE FROM profiles WHERE name = ?1", name, NULL);
}

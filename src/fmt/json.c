/* -J: collects one test's records into iperf3 3.12's document and prints it when the test
 * is done; --json-stream: one compact event line per record. Layout only, no arithmetic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt/json_int.h"
#include "fmt/looks.h"

/* One test's JSON output. Owns every cJSON tree and string below; borrows out->user. */
struct lp_fmt_json {
    struct lp_fmt base;          /* first: see fmt/looks.h */
    struct lp_out out;
    bool stream;
    char title[LP_TITLE_MAX];
    char extra_data[LP_EXTRA_DATA_MAX];
    enum lp_role role;
    bool udp;
    struct lp_histogram_spec pdf; /* iperf2 --histograms of a trip-times test (from START) */
    bool have_start;
    bool printed;
    cJSON *start, *intervals, *end;
    char *server_output_text;
    cJSON *server_output_json;
    char *error;
    bool error_fatal;
};

static void write_out(struct lp_fmt_json *f, const char *s, size_t n)
{
    if (f->out.write && n)
        f->out.write(f->out.user, LP_OUT_STDOUT, s, n);
}

/* Print a tree (borrowed) as one line plus newline. */
static void emit_line(struct lp_fmt_json *f, const cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);

    if (!s)
        return;
    write_out(f, s, strlen(s));
    write_out(f, "\n", 1);
    free(s);
}

/* --json-stream: {"event":name,"data":data}; data stays owned by the caller. */
static void emit_event(struct lp_fmt_json *f, const char *name, cJSON *data)
{
    cJSON *ev = cJSON_CreateObject();

    if (!ev || !data) {
        cJSON_Delete(ev);
        return;
    }
    cJSON_AddStringToObject(ev, "event", name);
    cJSON_AddItemReferenceToObject(ev, "data", data);
    emit_line(f, ev);
    cJSON_Delete(ev);
}

static void emit_event_string(struct lp_fmt_json *f, const char *name, const char *text)
{
    cJSON *s = cJSON_CreateString(text);

    emit_event(f, name, s);
    cJSON_Delete(s);
}

static void set_tree(cJSON **slot, cJSON *o)
{
    if (!o)
        return; /* out of memory: keep what we had rather than lose the section */
    cJSON_Delete(*slot);
    *slot = o;
}

static void on_start(struct lp_fmt_json *f, const struct lp_rec_start *st)
{
    set_tree(&f->start, lp_json_start(st, f->role));
    f->have_start = true;
    if (st->spec) {
        f->udp = st->spec->proto == LP_PROTO_UDP;
        /* 2.1.8 keeps its PDFs for trip-times tests only (its clocks are then in step). */
        if (st->spec->iperf2.hist.on && st->spec->iperf2.trip_times)
            f->pdf = st->spec->iperf2.hist;
        if (!f->title[0])
            snprintf(f->title, sizeof(f->title), "%s", st->spec->title);
        snprintf(f->extra_data, sizeof(f->extra_data), "%s", st->spec->extra_data);
    }
    if (f->stream)
        emit_event(f, "start", f->start);
}

static void on_interval(struct lp_fmt_json *f, const struct lp_rec_interval *iv)
{
    cJSON *o = lp_json_interval(iv, &f->pdf);

    if (!o)
        return;
    if (f->stream)
        emit_event(f, "interval", o);
    /* A stream has printed the interval: only a server keeps it, for a client asking
     * --get-server-output (the document). A client's memory stays flat however long it
     * runs (the page's runs are streams too). */
    if (f->stream && f->role != LP_ROLE_SERVER) {
        cJSON_Delete(o);
        return;
    }
    cJSON_AddItemToArray(f->intervals, o);
}

static void on_end(struct lp_fmt_json *f, const struct lp_rec_end *end)
{
    bool udp = f->udp;

    if (!f->have_start && end->nstreams)
        udp = end->streams[0].sender.is_udp || end->streams[0].receiver.is_udp;
    set_tree(&f->end, lp_json_end(end, f->role, udp, &f->pdf));
    /* The document tells what the streams did use: a kernel may refuse GSO at the first
     * write, after the start was reported (a --json-stream start event stays as it was). */
    cJSON *ts = f->have_start ? cJSON_GetObjectItemCaseSensitive(f->start, "test_start") : NULL;
    if (ts) {
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(ts, "gso"), end->offload.gso);
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(ts, "gro"), end->offload.gro);
    }
    if (end->server_output_json) {
        /* Embedded as an object, like iperf3; text that does not parse is dropped. */
        cJSON_Delete(f->server_output_json);
        f->server_output_json = cJSON_Parse(end->server_output_json);
    } else if (end->server_output_text) {
        free(f->server_output_text);
        f->server_output_text = strdup(end->server_output_text);
    }
    if (!f->stream)
        return;
    if (f->server_output_json)
        emit_event(f, "server_output_json", f->server_output_json);
    else if (f->server_output_text)
        emit_event_string(f, "server_output_text", f->server_output_text);
    emit_event(f, "end", f->end);
}

static void on_error(struct lp_fmt_json *f, const struct lp_rec_error *e)
{
    const char *msg = e->message ? e->message : "unknown error";

    /* Keep the first fatal error (the cause, not its echoes); a warning only fills an
     * empty slot. */
    if (!f->error || (e->fatal && !f->error_fatal)) {
        free(f->error);
        f->error = strdup(msg);
        f->error_fatal = e->fatal;
    }
    if (f->stream)
        emit_event_string(f, "error", msg);
}

static char *document_text(const struct lp_fmt_json *f);

static void print_document(struct lp_fmt_json *f)
{
    char *doc = document_text(f);

    f->printed = true;
    if (doc)
        write_out(f, doc, strlen(doc));
    free(doc);
}

static void json_record(struct lp_fmt *base, const struct lp_record *rec)
{
    struct lp_fmt_json *f = (struct lp_fmt_json *)base;

    f->role = rec->role;
    switch (rec->kind) {
    case LP_REC_LISTENING:
    case LP_REC_CONNECTING:
    case LP_REC_LEG_END: /* END has every stream */
    case LP_REC_DEBUG: /* tracing is text on stderr; it would corrupt the document */
        break; /* iperf3's document has no banner; connecting_to comes with START */
    case LP_REC_START:
        on_start(f, &rec->u.start);
        break;
    case LP_REC_INTERVAL:
        on_interval(f, &rec->u.interval);
        break;
    case LP_REC_END:
        on_end(f, &rec->u.end);
        break;
    case LP_REC_ERROR:
        on_error(f, &rec->u.error);
        break;
    case LP_REC_DONE:
        if (!f->stream && !f->printed)
            print_document(f);
        break;
    }
}

/* The document built so far (start/intervals/end), formatted like iperf3 -J. */
static char *document_text(const struct lp_fmt_json *f)
{
    cJSON *root = cJSON_CreateObject();
    char *s = NULL, *out = NULL;
    size_t n;

    if (!root)
        return NULL;
    /* References: the document borrows the sections, so printing it twice is cheap. */
    cJSON_AddItemReferenceToObject(root, "start", f->start);
    cJSON_AddItemReferenceToObject(root, "intervals", f->intervals);
    cJSON_AddItemReferenceToObject(root, "end", f->end);
    if (f->title[0])
        cJSON_AddStringToObject(root, "title", f->title);
    if (f->extra_data[0])
        cJSON_AddStringToObject(root, "extra_data", f->extra_data);
    if (f->server_output_json)
        cJSON_AddItemReferenceToObject(root, "server_output_json", f->server_output_json);
    else if (f->server_output_text)
        cJSON_AddStringToObject(root, "server_output_text", f->server_output_text);
    if (f->error)
        cJSON_AddStringToObject(root, "error", f->error);
    s = cJSON_Print(root);
    cJSON_Delete(root);
    if (!s)
        return NULL;
    /* iperf3 ends the document with a newline. */
    n = strlen(s);
    out = realloc(s, n + 2);
    if (!out) {
        free(s);
        return NULL;
    }
    out[n] = '\n';
    out[n + 1] = '\0';
    return out;
}

char *lp_fmt_json_interval_text(const struct lp_rec_interval *iv)
{
    cJSON *o = lp_json_interval(iv, NULL);
    char *s = o ? cJSON_PrintUnformatted(o) : NULL;

    cJSON_Delete(o);
    return s;
}

static char *json_document(const struct lp_fmt *base)
{
    return document_text((const struct lp_fmt_json *)base);
}

static void json_free(struct lp_fmt *base)
{
    struct lp_fmt_json *f = (struct lp_fmt_json *)base;

    /* A test that never got DONE (an engine cut short) still owes its document. */
    if (!f->stream && !f->printed && (f->have_start || f->error) && f->start)
        print_document(f);
    cJSON_Delete(f->start);
    cJSON_Delete(f->intervals);
    cJSON_Delete(f->end);
    cJSON_Delete(f->server_output_json);
    free(f->server_output_text);
    free(f->error);
    free(f);
}

static const struct lp_fmt_ops json_ops = {
    .record = json_record, .document = json_document, .free = json_free};

struct lp_fmt *lp_fmt_json_new(const struct lp_fmt_opts *opts, const struct lp_out *out,
                               bool stream)
{
    struct lp_fmt_json *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    if (out)
        f->out = *out;
    f->stream = stream;
    if (opts && opts->title)
        snprintf(f->title, sizeof(f->title), "%s", opts->title);
    f->start = lp_json_start_empty();
    f->intervals = cJSON_CreateArray();
    f->end = cJSON_CreateObject();
    if (!f->start || !f->intervals || !f->end) {
        json_free(&f->base);
        return NULL;
    }
    f->base.ops = &json_ops;
    return &f->base;
}

/* The web UI's HTTP side on libmicrohttpd (a thread per connection: SSE readers may block):
 * routing, the security checks every request passes, the JSON API and the SSE stream. The
 * page's own logic is in ui/; runs and events in runs.c and bus.c. */
#include "web/web.h"
#include "web/listen.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cmdline.h"
#include "cli/optdoc.h"
#include "linkperf/record.h"
#include "net/sock.h"
#include "web/assets.h"
#include "web/body.h"
#include "web/bus.h"
#include "web/gate.h"
#include "store/store.h"
#include "web/runs.h"

/* A comment line this often: a stream whose page has gone finds out at its next write, so its
 * thread (and its place under the connection limits) is freed within a second or two. */
#define SSE_KEEPALIVE_MS 1000
#define CONNECTIONS_MAX 64
#define CONNECTIONS_PER_IP_MAX 32
/* A connection silent this long is closed: a request arrives whole at once, and the event
 * stream sends a keep-alive every SSE_KEEPALIVE_MS. Partial requests held open (64 of them
 * filled the page's connections for 127 s with 120 here) now free their slots in seconds. */
#define CONNECTION_IDLE_S 10
#define HOSTS_MAX 4

struct lp_web {
    struct MHD_Daemon *daemon;
    struct lp_bus *bus;
    struct lp_web_runs *runs;
    struct lp_web_gate *gate;         /* who holds the connections (gate.h) */
    struct lp_store *store;           /* NULL with --no-history */
    char *options;                    /* GET /api/options: made once, it never changes */
    char token[LP_WEB_TOKEN_MAX + 1]; /* "" = none needed */
    char csrf[33];
    char url[LP_WEB_TOKEN_MAX + 96];
    char hosts[HOSTS_MAX][80];        /* Host headers accepted; none listed = any */
    int nhosts;
};

/* A request's upload: the body of a POST, bounded. */
struct request {
    char *body;
    size_t len;
    bool too_big;
};

/* ---- helpers ---- */

static bool same(const char *a, const char *b) /* constant time in the length of b */
{
    size_t i, na = strlen(a), nb = strlen(b);
    unsigned diff = (unsigned)(na ^ nb);

    for (i = 0; i < nb; i++)
        diff |= (unsigned)(unsigned char)b[i] ^ (unsigned)(unsigned char)(i < na ? a[i] : 0);
    return diff == 0;
}

static void add_common_headers(struct MHD_Response *r)
{
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Content-Security-Policy",
                            "default-src 'self'; img-src 'self' data: blob:; "
                            "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'");
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             const void *data, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, mode);
    enum MHD_Result ret;

    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    add_common_headers(r);
    ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* Takes obj (and frees it). */
static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned status, cJSON *obj)
{
    char *s = cJSON_PrintUnformatted(obj);
    enum MHD_Result ret;

    cJSON_Delete(obj);
    if (!s)
        return MHD_NO;
    ret = reply(c, status, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE);
    return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status, const char *msg,
                                   const char *option)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddBoolToObject(o, "ok", false);
    cJSON_AddStringToObject(o, "error", msg);
    cJSON_AddStringToObject(o, "option", option ? option : "");
    return reply_json(c, status, o);
}

static const char *header(struct MHD_Connection *c, const char *name)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* ---- checks every request passes ---- */

/* DNS rebinding: a page of another site that makes its name point at 127.0.0.1 still sends
 * its own name as Host; a loopback bind answers only to its own names. */
static bool host_ok(const struct lp_web *w, struct MHD_Connection *c)
{
    const char *h = header(c, "Host");
    int i;

    if (w->nhosts == 0)
        return true;
    for (i = 0; h && i < w->nhosts; i++)
        if (strcmp(h, w->hosts[i]) == 0)
            return true;
    return false;
}

static bool token_ok(const struct lp_web *w, struct MHD_Connection *c)
{
    const char *t;

    if (!w->token[0])
        return true;
    t = header(c, "X-Linkperf-Token");
    if (!t) /* EventSource cannot set headers */
        t = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    return t && same(t, w->token);
}

/* A state-changing request comes from the page itself: JSON (which a plain form cannot
 * send cross-site), the CSRF token the page read from /api/info, and no foreign Origin. */
static const char *post_problem(const struct lp_web *w, struct MHD_Connection *c)
{
    const char *type = header(c, "Content-Type"), *csrf = header(c, "X-CSRF-Token");
    const char *origin = header(c, "Origin"), *host = header(c, "Host");
    char want[128];

    if (!type || strncmp(type, "application/json", 16) != 0)
        return "Content-Type must be application/json";
    if (!csrf || !same(csrf, w->csrf))
        return "missing or wrong X-CSRF-Token (read it from /api/info)";
    if (origin) {
        snprintf(want, sizeof(want), "http://%s", host ? host : "");
        if (strcmp(origin, want) != 0)
            return "cross-origin request refused";
    }
    return NULL;
}

/* ---- API ---- */

/* Takes body. {"name", "args"} to save, {"name"} to delete. A name is 1..64 bytes of
 * printable text; args what /api/run takes. */
static enum MHD_Result api_profile_change(struct lp_web *w, struct MHD_Connection *c,
                                          const char *url, cJSON *body)
{
    cJSON *name = cJSON_GetObjectItemCaseSensitive(body, "name");
    char *argv[LP_WEB_ARGS_MAX + 1];
    enum MHD_Result ret;
    const char *problem;
    int rc = -1;

    if (!w->store) {
        cJSON_Delete(body);
        return reply_error(c, 404, "history is off (--no-history): no profiles", NULL);
    }
    problem = lp_web_body_name_problem(name);
    if (problem) {
        cJSON_Delete(body);
        return reply_error(c, 400, problem, NULL);
    }
    if (strcmp(url, "/api/profiles/save") == 0) {
        cJSON *args = cJSON_GetObjectItemCaseSensitive(body, "args");
        int n = lp_web_body_args(body, argv, LP_WEB_ARGS_MAX), i;
        char *text;
        for (i = 0; i < n; i++)
            if (strlen(argv[i]) > LP_WEB_ARG_LEN_MAX)
                n = -1;
        if (n < 0) {
            cJSON_Delete(body);
            return reply_error(c, 400, "args must be an array of at most 128 strings", NULL);
        }
        text = cJSON_PrintUnformatted(args);
        rc = text ? lp_store_profile_save(w->store, name->valuestring, text) : -1;
        free(text);
    } else if (strcmp(url, "/api/profiles/delete") == 0) {
        rc = lp_store_profile_delete(w->store, name->valuestring);
    } else {
        cJSON_Delete(body);
        return reply_error(c, 404, "not found", NULL);
    }
    cJSON_Delete(body);
    if (rc < 0)
        return reply_error(c, 404, "no such profile", NULL);
    ret = reply_json(c, 200, cJSON_CreateObject());
    return ret;
}

static enum MHD_Result api_post(struct lp_web *w, struct MHD_Connection *c, const char *url,
                                struct request *rq)
{
    char *argv[LP_WEB_ARGS_MAX + 1];
    struct lp_cli_err err;
    char option[64];
    cJSON *body, *o;
    int argc, id;
    enum MHD_Result ret;

    if (rq->too_big)
        return reply_error(c, 413, "request body too large", NULL);
    body = cJSON_ParseWithLength(rq->body ? rq->body : "", rq->len);
    if (!cJSON_IsObject(body)) {
        cJSON_Delete(body);
        return reply_error(c, 400, "the body is not a JSON object", NULL);
    }
    if (strncmp(url, "/api/profiles/", 14) == 0)
        return api_profile_change(w, c, url, body);
    if (strcmp(url, "/api/history/delete") == 0 || strcmp(url, "/api/stop") == 0) {
        bool history = url[5] == 'h';
        double which = lp_web_body_id(body, history ? 1e15 : 4e9);
        bool ok = which > 0 &&
                  (history ? w->store && lp_store_delete(w->store, (int64_t)which) == 0
                           : lp_web_runs_stop(w->runs, (unsigned)which) == 0);
        cJSON_Delete(body);
        if (!ok)
            return reply_error(c, 404, history ? "no such run in the history"
                                               : "no such running test", NULL);
        o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "ok", true);
        return reply_json(c, 200, o);
    }
    argc = lp_web_body_args(body, argv, LP_WEB_ARGS_MAX);
    if (argc <= 0) {
        cJSON_Delete(body);
        return reply_error(c, 400, "args must be a non-empty array of at most 128 strings",
                           NULL);
    }
    argv[argc] = NULL;
    if (strcmp(url, "/api/check") == 0) {
        if (lp_web_check_args(w->runs, argc, argv, &err, option, sizeof(option)) < 0) {
            ret = reply_error(c, 200, err.msg, option);
        } else {
            char *cmd = lp_cli_command_line(argc, argv);
            o = cJSON_CreateObject();
            cJSON_AddBoolToObject(o, "ok", true);
            cJSON_AddStringToObject(o, "command", cmd ? cmd : "");
            free(cmd);
            ret = reply_json(c, 200, o);
        }
        cJSON_Delete(body);
        return ret;
    }
    id = lp_web_runs_start(w->runs, argc, argv, &err, option, sizeof(option));
    cJSON_Delete(body);
    if (id < 0)
        return reply_error(c, 400, err.msg, option);
    o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", true);
    cJSON_AddNumberToObject(o, "id", id);
    return reply_json(c, 200, o);
}

/* ---- history ---- */

/* "/api/history/123[/suffix]": the id and what follows it ("" for none); -1 when malformed. */
static int64_t history_id(const char *url, const char **rest)
{
    const char *p = url + strlen("/api/history/");
    int64_t id = 0;
    int digits = 0;

    while (*p >= '0' && *p <= '9' && digits < 15) {
        id = id * 10 + (*p++ - '0');
        digits++;
    }
    if (digits == 0 || (*p && *p != '/'))
        return -1;
    *rest = p;
    return id;
}

static int64_t arg_ms(struct MHD_Connection *c, const char *name)
{
    const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
    long long x = v ? strtoll(v, NULL, 10) : 0;

    return x > 0 ? (int64_t)x : 0;
}

static enum MHD_Result attachment(struct MHD_Connection *c, const char *type, char *data,
                                  const char *filename)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(data), data,
                                                             MHD_RESPMEM_MUST_FREE);
    char disp[128];
    enum MHD_Result ret;

    if (!r) {
        free(data);
        return MHD_NO;
    }
    snprintf(disp, sizeof(disp), "attachment; filename=\"%s\"", filename);
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Content-Disposition", disp);
    add_common_headers(r);
    ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result api_history_get(struct lp_web *w, struct MHD_Connection *c,
                                       const char *url)
{
    const char *rest = "";
    char name[64], *s;
    int64_t id;

    if (!w->store)
        return reply_error(c, 404, "history is off (--no-history)", NULL);
    if (strcmp(url, "/api/history") == 0) {
        struct lp_store_filter f = {
            MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "q"),
            MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "proto"),
            arg_ms(c, "since"), arg_ms(c, "until"), (unsigned)arg_ms(c, "limit")};
        if (f.text && strlen(f.text) > 256)
            return reply_error(c, 400, "search text longer than 256 bytes", NULL);
        if (f.proto && strcmp(f.proto, "tcp") != 0 && strcmp(f.proto, "udp") != 0 &&
            f.proto[0])
            return reply_error(c, 400, "proto is tcp or udp", NULL);
        s = lp_store_list(w->store, &f);
        return s ? reply(c, 200, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE)
                 : reply_error(c, 500, "history query failed", NULL);
    }
    id = history_id(url, &rest);
    if (id < 0)
        return reply_error(c, 404, "not found", NULL);
    if (rest[0] == '\0') {
        s = lp_store_get(w->store, id);
        return s ? reply(c, 200, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE)
                 : reply_error(c, 404, "no such run", NULL);
    }
    if (strcmp(rest, "/result.json") == 0) {
        s = lp_store_result_json(w->store, id);
        snprintf(name, sizeof(name), "linkperf-run-%lld.json", (long long)id);
        return s ? attachment(c, "application/json", s, name)
                 : reply_error(c, 404, "no result document for this run", NULL);
    }
    if (strcmp(rest, "/intervals.csv") == 0) {
        s = lp_store_intervals_csv(w->store, id);
        snprintf(name, sizeof(name), "linkperf-run-%lld.csv", (long long)id);
        return s ? attachment(c, "text/csv; charset=utf-8", s, name)
                 : reply_error(c, 404, "no such run", NULL);
    }
    return reply_error(c, 404, "not found", NULL);
}

/* ---- SSE ---- */

struct sse {
    struct lp_bus *bus;
    struct lp_bus_cursor cur;
    struct lp_web_gate *gate;
};

static void sse_free(void *cls)
{
    struct sse *s = cls;
    lp_web_gate_sse_end(s->gate);
    free(s);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    static const char keepalive[] = ": keepalive\n\n";
    struct sse *s = cls;
    long n;

    (void)pos;
    n = lp_bus_read(s->bus, &s->cur, buf, max, SSE_KEEPALIVE_MS);
    if (n < 0)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n == 0 && max >= sizeof(keepalive) - 1) {
        memcpy(buf, keepalive, sizeof(keepalive) - 1);
        n = (long)sizeof(keepalive) - 1;
    }
    return (ssize_t)n;
}

static enum MHD_Result api_events(struct lp_web *w, struct MHD_Connection *c)
{
    const char *last = header(c, "Last-Event-ID");
    const char *since = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
    struct sse *s;
    struct MHD_Response *r;
    unsigned long long id = 0;
    enum MHD_Result ret;

    /* Each stream holds a connection (and a thread) for as long as its page is open. */
    if (!lp_web_gate_sse_begin(w->gate))
        return reply_error(c, 503, "too many event streams are open (close a page)", NULL);
    s = calloc(1, sizeof(*s));
    if (!s) {
        lp_web_gate_sse_end(w->gate);
        return MHD_NO;
    }
    if (last || since)
        id = strtoull(last ? last : since, NULL, 10);
    s->bus = w->bus;
    s->gate = w->gate;
    lp_bus_cursor_init(w->bus, &s->cur, id, 1);
    r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, s, sse_free);
    if (!r) {
        sse_free(s);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    add_common_headers(r);
    ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

/* ---- routing ---- */

/* Every state-changing call: POST only, and only past post_problem's checks (JSON, the CSRF
 * token, no foreign Origin). */
static enum MHD_Result route_post(struct lp_web *w, struct MHD_Connection *c, const char *url,
                                  struct request *rq, bool post)
{
    const char *problem;

    if (!post)
        return reply_error(c, 405, "method not allowed", NULL);
    problem = post_problem(w, c);
    if (problem)
        return reply_error(c, 403, problem, NULL);
    return api_post(w, c, url, rq);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
    struct lp_web *w = cls;
    struct request *rq = *con_cls;
    bool get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
    const struct lp_web_asset *a;

    (void)version;
    if (!rq) { /* first call: headers only */
        rq = calloc(1, sizeof(*rq));
        if (!rq)
            return MHD_NO;
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size > 0) { /* a piece of the body */
        if (rq->len + *upload_size > LP_WEB_BODY_MAX) {
            rq->too_big = true;
        } else {
            char *b = realloc(rq->body, rq->len + *upload_size + 1);
            if (!b)
                return MHD_NO;
            memcpy(b + rq->len, upload, *upload_size);
            rq->body = b;
            rq->len += *upload_size;
            b[rq->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (!host_ok(w, c))
        return reply_error(c, 421, "this server answers to its own address only", NULL);
    if (strncmp(url, "/api/", 5) != 0) {
        if (strcmp(url, "/index.html") == 0)
            url = "/";
        a = lp_web_asset_find(url);
        if (!a)
            return reply_error(c, 404, "not found", NULL);
        if (!get)
            return reply_error(c, 405, "method not allowed", NULL);
        return reply(c, 200, a->type, a->data, a->len, MHD_RESPMEM_PERSISTENT);
    }
    if (!token_ok(w, c))
        return reply_error(c, 401, "token required (use the URL linkperf ui printed)", NULL);
    {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        if (ci)
            lp_web_gate_proven(w->gate, ci->socket_context);
    }
    if (strcmp(url, "/api/info") == 0 || strcmp(url, "/api/status") == 0 ||
        strcmp(url, "/api/events") == 0 || strcmp(url, "/api/options") == 0) {
        if (!get)
            return reply_error(c, 405, "method not allowed", NULL);
        if (strcmp(url, "/api/events") == 0)
            return api_events(w, c);
        if (strcmp(url, "/api/options") == 0) /* the page's fields, ranges and messages */
            return reply(c, 200, "application/json", w->options, strlen(w->options),
                         MHD_RESPMEM_PERSISTENT);
        if (strcmp(url, "/api/status") == 0) {
            char *s = lp_web_runs_status(w->runs);
            if (!s)
                return MHD_NO;
            return reply(c, 200, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE);
        } else {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "version", LP_VERSION_STR);
            cJSON_AddStringToObject(o, "csrf", w->csrf);
            cJSON_AddBoolToObject(o, "token_required", w->token[0] != '\0');
            return reply_json(c, 200, o);
        }
    }
    if (strcmp(url, "/api/profiles") == 0 || strncmp(url, "/api/profiles/", 14) == 0) {
        if (strcmp(url, "/api/profiles") == 0) {
            char *s;
            if (!get)
                return reply_error(c, 405, "method not allowed", NULL);
            if (!w->store)
                return reply_error(c, 404, "history is off (--no-history): no profiles", NULL);
            s = lp_store_profiles(w->store);
            return s ? reply(c, 200, "application/json", s, strlen(s), MHD_RESPMEM_MUST_FREE)
                     : reply_error(c, 500, "profiles query failed", NULL);
        }
        return route_post(w, c, url, rq, post);
    }
    if (strcmp(url, "/api/history") == 0 || strncmp(url, "/api/history/", 13) == 0) {
        if (strcmp(url, "/api/history/delete") == 0)
            return route_post(w, c, url, rq, post);
        if (!get)
            return reply_error(c, 405, "method not allowed", NULL);
        return api_history_get(w, c, url);
    }
    if (strcmp(url, "/api/check") == 0 || strcmp(url, "/api/run") == 0 ||
        strcmp(url, "/api/stop") == 0)
        return route_post(w, c, url, rq, post);
    return reply_error(c, 404, "not found", NULL);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode code)
{
    struct request *rq = *con_cls;

    (void)cls;
    (void)c;
    (void)code;
    if (rq) {
        free(rq->body);
        free(rq);
        *con_cls = NULL;
    }
}

/* ---- start / stop ---- */

int lp_web_parse_listen(const char *s, struct sockaddr_storage *ss, char *host, size_t hostlen,
                        int *port, char *err, size_t errlen)
{
    const char *colon = strrchr(s, ':');
    char h[64] = "127.0.0.1";
    char *end;
    long p;

    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':' || (size_t)(close - s - 1) >= sizeof(h))
            goto bad;
        memcpy(h, s + 1, (size_t)(close - s - 1));
        h[close - s - 1] = '\0';
        colon = close + 1;
    } else if (colon) {
        if ((size_t)(colon - s) >= sizeof(h) || colon == s)
            goto bad;
        memcpy(h, s, (size_t)(colon - s));
        h[colon - s] = '\0';
    }
    p = strtol(colon ? colon + 1 : s, &end, 10);
    if (*end || end == (colon ? colon + 1 : s) || p < 0 || p > 65535)
        goto bad;
    if (strcmp(h, "localhost") == 0)
        strcpy(h, "127.0.0.1");
    memset(ss, 0, sizeof(*ss));
    if (inet_pton(AF_INET, h, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
        ((struct sockaddr_in *)ss)->sin_family = AF_INET;
        ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)p);
    } else if (inet_pton(AF_INET6, h, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
        ((struct sockaddr_in6 *)ss)->sin6_family = AF_INET6;
        ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)p);
    } else {
        goto bad;
    }
    snprintf(host, hostlen, "%s", h);
    *port = (int)p;
    return 0;
bad:
    snprintf(err, errlen, "--listen %s: not HOST:PORT with a numeric address (or localhost) "
                          "and a port 0..65535", s);
    return -1;
}

static void random_hex(char *out, size_t bytes)
{
    unsigned char b[64];
    size_t i;

    if (bytes > sizeof(b) || getrandom(b, bytes, 0) != (ssize_t)bytes)
        abort(); /* the kernel's random source is always there on Linux >= 3.17 */
    for (i = 0; i < bytes; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static enum MHD_Result gate_admit(void *cls, const struct sockaddr *addr, socklen_t len)
{
    struct lp_web *w = cls;
    (void)addr, (void)len;
    return lp_web_gate_admit(w->gate) ? MHD_YES : MHD_NO;
}

static void gate_notify(void *cls, struct MHD_Connection *c, void **ctx,
                        enum MHD_ConnectionNotificationCode toe)
{
    struct lp_web *w = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci)
            lp_web_gate_opened(w->gate, ci->connect_fd, ctx);
    } else {
        lp_web_gate_closed(w->gate, ctx);
    }
}

static struct MHD_Daemon *start_daemon(struct lp_web *w, struct sockaddr_storage *ss)
{
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_ITC; /* MHD_quiesce_daemon needs it */

    if (ss->ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    return MHD_start_daemon(flags, 0, gate_admit, w, handle, w,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)ss,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, w,
                            MHD_OPTION_NOTIFY_CONNECTION, gate_notify, w,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTIONS_MAX,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)CONNECTIONS_PER_IP_MAX,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_IDLE_S,
                            MHD_OPTION_END);
}

struct lp_web *lp_web_start(const struct lp_web_opts *o, char *err, size_t errlen)
{
    struct lp_web *w = calloc(1, sizeof(*w));
    struct sockaddr_storage ss;
    char host[64], hostport[80];
    const union MHD_DaemonInfo *info;
    int port;
    bool v6, loopback;

    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (lp_web_parse_listen(o->listen ? o->listen : "127.0.0.1:8080", &ss, host, sizeof(host), &port,
                     err, errlen) < 0)
        goto fail;
    loopback = lp_sock_is_loopback(&ss);
    if (o->token && (strlen(o->token) < 8 || strlen(o->token) > LP_WEB_TOKEN_MAX ||
                     strspn(o->token, "0123456789abcdefghijklmnopqrstuvwxyz"
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.") != strlen(o->token))) {
        snprintf(err, errlen, "--token: 8 to %d letters, digits, '-', '_' or '.'",
                 LP_WEB_TOKEN_MAX);
        goto fail;
    }
    /* A token on loopback too: every local user can reach 127.0.0.1, and the page runs
     * tests (and, before it refused them, read files) as the user who started it. */
    if (o->token)
        snprintf(w->token, sizeof(w->token), "%s", o->token);
    else
        random_hex(w->token, 16);
    random_hex(w->csrf, 16);
    w->options = lp_cli_options_json();
    if (!w->options) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (!o->no_history && !lp_store_env_off() && (w->store = lp_store_open(o->db, err, errlen)) == NULL)
        goto fail;
    w->bus = lp_bus_new();
    w->runs = w->bus ? lp_web_runs_new(w->bus, w->store) : NULL;
    if (!w->runs) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    lp_web_runs_restrict_targets(w->runs, !loopback && !o->allow_private_targets);
    w->gate = lp_web_gate_new();
    if (!w->gate) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    w->daemon = start_daemon(w, &ss);
    if (!w->daemon && !o->listen) { /* the default port is taken: any free one */
        ((struct sockaddr_in *)&ss)->sin_port = 0;
        w->daemon = start_daemon(w, &ss);
    }
    if (!w->daemon) {
        snprintf(err, errlen, "cannot listen on %s port %d (in use, or not an address of "
                              "this machine)", host, port);
        goto fail;
    }
    info = MHD_get_daemon_info(w->daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info && info->port)
        port = info->port;
    v6 = ss.ss_family == AF_INET6;
    snprintf(hostport, sizeof(hostport), v6 ? "[%s]:%d" : "%s:%d", host, port);
    snprintf(w->url, sizeof(w->url), "http://%s/%s%s", hostport, w->token[0] ? "?token=" : "",
             w->token);
    if (loopback) { /* the names this server answers to */
        snprintf(w->hosts[w->nhosts++], sizeof(w->hosts[0]), "%s", hostport);
        snprintf(w->hosts[w->nhosts++], sizeof(w->hosts[0]), "localhost:%d", port);
        if (strcmp(host, "127.0.0.1") != 0 && !v6)
            snprintf(w->hosts[w->nhosts++], sizeof(w->hosts[0]), "127.0.0.1:%d", port);
        if (!v6)
            snprintf(w->hosts[w->nhosts++], sizeof(w->hosts[0]), "[::1]:%d", port);
    }
    return w;
fail:
    lp_web_free(w);
    return NULL;
}

int lp_web_attach(struct lp_web *w, const struct lp_cli_config *cfg, int argc,
                  char *const argv[], struct lp_sink *out)
{
    return lp_web_runs_attach(w->runs, cfg, argc, argv, out);
}

void lp_web_attach_server(struct lp_web *w, int id, struct lp_server *server)
{
    lp_web_runs_server(w->runs, id, server);
}

void lp_web_detach(struct lp_web *w, int id, int rc)
{
    lp_web_runs_detach(w->runs, id, rc);
}

const char *lp_web_url(const struct lp_web *w)
{
    return w->url;
}

void lp_web_free(struct lp_web *w)
{
    if (!w)
        return;
    lp_web_runs_free(w->runs); /* runs publish their last events first */
    if (w->bus)
        lp_bus_close(w->bus);  /* SSE readers end their streams once they have sent all */
    if (w->daemon) {
        /* No new connections; the ones open (the answer to the Stop that ended a server,
         * streams sending their last events) get up to a second to finish. */
        MHD_socket ls = MHD_quiesce_daemon(w->daemon);
        int i;
        for (i = 0; i < 100; i++) {
            const union MHD_DaemonInfo *n =
                MHD_get_daemon_info(w->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
            if (!n || n->num_connections == 0)
                break;
            usleep(10000);
        }
        MHD_stop_daemon(w->daemon);
        if (ls != MHD_INVALID_SOCKET)
            close(ls);
    }
    lp_web_gate_free(w->gate); /* after the daemon: its threads call the gate */
    lp_bus_free(w->bus);
    lp_store_close(w->store);
    free(w->options);
    free(w);
}

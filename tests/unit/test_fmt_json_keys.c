/* -J key structure: records shaped like the engine's (src/core/run.c) for each kind of
 * test must give the same set of key paths, in the same order, as the real iperf3 3.21
 * document of that kind in tests/golden/evidence/json321_*.json, and every key path of the
 * real iperf3 3.12 document of that kind (json_*.json) in 3.12's relative order: 3.21's
 * keys, and still a superset of 3.12's for its consumers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "fmt/fmt.h"
#include "fmt_sink.h"

/* ---- key paths ---- */

#define MAXP 1024

struct paths {
    char *p[MAXP];
    int n;
};

static void walk(const cJSON *o, const char *path, struct paths *ps)
{
    char sub[256];

    assert_true(ps->n < MAXP);
    ps->p[ps->n++] = strdup(path);
    if (cJSON_IsArray(o)) {
        snprintf(sub, sizeof(sub), "%s[]", path);
        for (const cJSON *c = o->child; c; c = c->next)
            for (const cJSON *g = c->child; cJSON_IsObject(c) && g; g = g->next) {
                char k[600];
                snprintf(k, sizeof(k), "%s.%s", sub, g->string);
                walk(g, k, ps);
            }
    } else if (cJSON_IsObject(o)) {
        for (const cJSON *c = o->child; c; c = c->next) {
            char k[600];
            snprintf(k, sizeof(k), "%s.%s", path, c->string);
            walk(c, k, ps);
        }
    }
}

/* Paths in document order, each kept at its last occurrence: 3.12 repeats some start keys
 * (-P, -b on a server); the last copy is where the key ends up in a parsed document. */
static void dedupe_keep_last(struct paths *ps)
{
    int w = 0;

    for (int i = 0; i < ps->n; i++) {
        bool later = false;
        for (int j = i + 1; j < ps->n && !later; j++)
            later = !strcmp(ps->p[i], ps->p[j]);
        if (later)
            free(ps->p[i]);
        else
            ps->p[w++] = ps->p[i];
    }
    ps->n = w;
}

static void paths_of(const char *doc, struct paths *ps)
{
    cJSON *o = cJSON_Parse(doc);

    assert_non_null(o);
    ps->n = 0;
    walk(o, "", ps);
    dedupe_keep_last(ps);
    cJSON_Delete(o);
}

static void paths_free(struct paths *ps)
{
    for (int i = 0; i < ps->n; i++)
        free(ps->p[i]);
    ps->n = 0;
}

static bool has(const struct paths *ps, const char *p)
{
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(ps->p[i], p))
            return true;
    return false;
}

static char *slurp(const char *name)
{
    char *s = lp_evidence_slurp(name);
    assert_non_null(s);
    return s;
}

/* Every path of want is in got and they come in the same relative order (got may have
 * more); exact: got has no other path either. Prints any difference when loud. */
static bool paths_match(const char *doc, const char *capture, bool exact, bool loud)
{
    char *want_doc = slurp(capture);
    struct paths got, want;
    bool ok = true;

    paths_of(doc, &got);
    paths_of(want_doc, &want);
    for (int i = 0; i < want.n; i++)
        if (!has(&got, want.p[i])) {
            if (loud)
                fprintf(stderr, "%s: missing %s\n", capture, want.p[i]);
            ok = false;
        }
    for (int i = 0; exact && i < got.n; i++)
        if (!has(&want, got.p[i])) {
            if (loud)
                fprintf(stderr, "%s: extra %s\n", capture, got.p[i]);
            ok = false;
        }
    /* Order: our paths that the capture has, against the capture's. */
    for (int i = 0, j = 0; ok && i < got.n; i++) {
        if (!has(&want, got.p[i]))
            continue;
        if (strcmp(got.p[i], want.p[j])) {
            if (loud)
                fprintf(stderr, "%s: order differs at %s (the capture has %s)\n", capture,
                        got.p[i], want.p[j]);
            ok = false;
        }
        j++;
    }
    if (!ok && loud)
        fprintf(stderr, "--- our document\n%s", doc);
    paths_free(&got);
    paths_free(&want);
    free(want_doc);
    return ok;
}

static bool same_paths(const char *doc, const char *capture, bool loud)
{
    return paths_match(doc, capture, true, loud);
}

/* name is the 3.12 capture's, json_X.json; json321_X.json is 3.21's of the same kind. */
static void compare_with(const char *doc, const char *name)
{
    char n321[128];

    assert_true(strncmp(name, "json_", 5) == 0);
    snprintf(n321, sizeof(n321), "json321_%s", name + 5);
    assert_true(paths_match(doc, n321, true, true));
    assert_true(paths_match(doc, name, false, true));
}

/* ---- engine-shaped records ---- */

struct kind {
    enum lp_role role;
    enum lp_proto proto;
    enum lp_dir dir;
    unsigned streams;
    uint64_t rate;
    const char *server_text, *server_json;
};

#define NS 8

struct run {
    struct kind k;
    struct lp_spec spec;
    struct lp_stream_conn conn[NS];
    unsigned n;
    struct lp_fmt *f;
    struct lp_record rec;
};

static void send(struct run *r, enum lp_record_kind kind)
{
    r->rec.kind = kind;
    r->rec.role = r->k.role;
    r->rec.test_id = 1;
    lp_fmt_record(r->f, &r->rec);
    memset(&r->rec.u, 0, sizeof(r->rec.u));
}

static void setup_streams(struct run *r)
{
    bool bidir = r->k.dir == LP_DIR_BIDIR;
    unsigned total = bidir ? 2 * r->k.streams : r->k.streams;

    for (unsigned i = 0; i < total; i++) {
        struct lp_stream_conn *c = &r->conn[i];
        bool reverse = bidir ? i >= r->k.streams : r->k.dir == LP_DIR_REVERSE;
        c->sid.id = i ? (int)i + 2 : 1;
        c->sid.socket = 5 + 2 * (int)i;
        c->sid.reverse = reverse;
        c->sid.sender = r->k.role == LP_ROLE_CLIENT ? !reverse : reverse;
        snprintf(c->local.host, sizeof(c->local.host), "127.0.0.1");
        snprintf(c->remote.host, sizeof(c->remote.host), "127.0.0.1");
        c->local.port = (uint16_t)(40000 + i);
        c->remote.port = 5201;
    }
    r->n = total;
}

static void play_start(struct run *r)
{
    struct lp_rec_start *st = &r->rec.u.start;

    st->spec = &r->spec;
    st->version = LP_VERSION_STR;
    st->system_info = "Linux host 6.1.0 #1 SMP x86_64";
    st->timestamp = 1796044257;
    st->timestamp_ms = 1796044257000ull;
    st->cookie = "22yplu6yt454yiqksi5jqwy34oaz6p2kyet6";
    snprintf(st->control_peer.host, sizeof(st->control_peer.host), "127.0.0.1");
    st->control_peer.port = r->k.role == LP_ROLE_CLIENT ? 5201 : 46114;
    st->tcp_mss_default = r->k.proto == LP_PROTO_TCP ? 32768 : 0;
    st->sndbuf_actual = 16384;
    st->rcvbuf_actual = 131072;
    st->nstreams = r->n;
    st->streams = r->conn;
    send(r, LP_REC_START);
}

static void sample(const struct run *r, const struct lp_stream_conn *c, double t,
                   struct lp_sample *s)
{
    memset(s, 0, sizeof(*s));
    s->sid = c->sid;
    s->start_s = t;
    s->end_s = t + 1.000073;
    s->seconds = 1.000073;
    s->bytes = 12582912;
    s->bits_per_second = 100656144.5;
    s->is_udp = r->k.proto == LP_PROTO_UDP;
    if (s->is_udp && c->sid.sender) {
        s->packets = 384;
    } else if (s->is_udp) {
        s->packets = 384;
        s->jitter_ms = 0.012;
        s->lost_percent = 0;
    } else if (c->sid.sender) {
        s->has_tcp_info = true;
        s->retransmits = 1;
        s->snd_cwnd = 1178694;
        s->snd_wnd = 371712;
        s->rtt_us = 95;
        s->rttvar_us = 28;
        s->pmtu = 65535;
    }
}

static void add_to(struct lp_sample *sum, const struct lp_sample *s)
{
    bool first = sum->seconds == 0;

    if (first) {
        *sum = *s;
        memset(&sum->sid, 0, sizeof(sum->sid));
        sum->sid.sender = s->sid.sender;
        sum->sid.reverse = s->sid.reverse;
        return;
    }
    sum->bytes += s->bytes;
    sum->packets += s->packets;
    sum->retransmits += s->retransmits;
}

static void play_intervals(struct run *r)
{
    struct lp_sample s[NS];
    bool bidir = r->k.dir == LP_DIR_BIDIR;

    for (int t = 0; t < 2; t++) {
        struct lp_rec_interval *iv = &r->rec.u.interval;
        for (unsigned i = 0; i < r->n; i++) {
            sample(r, &r->conn[i], t, &s[i]);
            if (bidir && s[i].sid.reverse) {
                add_to(&iv->sum_reverse, &s[i]);
                iv->has_sum_reverse = true;
            } else {
                add_to(&iv->sum, &s[i]);
            }
        }
        iv->nstreams = r->n;
        iv->streams = s;
        send(r, LP_REC_INTERVAL);
    }
}

/* Local numbers from this end's counters, the peer's from the results exchange: both
 * present, as on a linkperf client or server after the exchange. */
static struct lp_total side(const struct run *r, bool sends, bool local)
{
    struct lp_total t = {.present = true, .end_s = 2.000079, .seconds = 2.000079,
                         .bytes = 25034752, .bits_per_second = 100105172.4};

    t.is_udp = r->k.proto == LP_PROTO_UDP;
    if (t.is_udp) {
        t.packets = 764;
        if (!sends)
            t.jitter_ms = 0.03;
    } else if (sends) {
        t.has_retransmits = true;
        t.retransmits = 2;
        t.has_tcp_extra = local;
        t.max_snd_cwnd = local ? 1178694 : 0;
    }
    return t;
}

static void play_end(struct run *r)
{
    struct lp_stream_end se[NS];
    struct lp_rec_end *end = &r->rec.u.end;

    for (unsigned i = 0; i < r->n; i++) {
        bool sends = r->conn[i].sid.sender;
        se[i].sid = r->conn[i].sid;
        se[i].sender = side(r, true, sends);
        se[i].receiver = side(r, false, !sends);
        bool rev = r->k.dir == LP_DIR_BIDIR && se[i].sid.reverse;
        struct lp_direction_end *de = rev ? &end->reverse : &end->forward;
        de->present = true;
        de->sent = se[i].sender;
        de->sent.jitter_ms = 0;
        de->received = se[i].receiver;
    }
    end->nstreams = r->n;
    end->streams = se;
    end->bidir = r->k.dir == LP_DIR_BIDIR;
    end->cpu.host_total = 22.9;
    end->cpu.remote_total = 74.9;
    if (r->k.proto == LP_PROTO_TCP) {
        end->sender_congestion = "bbr";
        end->receiver_congestion = "cubic";
    }
    end->server_output_text = r->k.server_text;
    end->server_output_json = r->k.server_json;
    send(r, LP_REC_END);
}

static char *run_kind(const struct kind *k)
{
    static struct run r;
    struct doc_sink snk = {0};
    struct lp_out out = {doc_sink_write, &snk};
    struct lp_fmt_opts opts = {.unit = 'a'};

    memset(&r, 0, sizeof(r));
    r.k = *k;
    lp_spec_init(&r.spec, k->role);
    r.spec.proto = k->proto;
    r.spec.dir = k->dir;
    r.spec.streams = k->streams;
    r.spec.duration_s = 2;
    r.spec.rate_bps = k->rate;
    r.f = lp_fmt_new(LP_FMT_JSON, &opts, &out);
    assert_non_null(r.f);
    setup_streams(&r);
    play_start(&r);
    play_intervals(&r);
    play_end(&r);
    send(&r, LP_REC_DONE);
    lp_fmt_free(r.f);
    assert_non_null(snk.buf);
    return snk.buf;
}

static void check_kind(const struct kind *k, const char *capture)
{
    char *doc = run_kind(k);

    compare_with(doc, capture);
    free(doc);
}

static void test_tcp_client(void **state)
{
    struct kind k = {LP_ROLE_CLIENT, LP_PROTO_TCP, LP_DIR_FORWARD, 1, 0, NULL, NULL};

    (void)state;
    check_kind(&k, "json_tcp_client.json");
    k.streams = 2;
    k.rate = 100000000;
    check_kind(&k, "json_tcp_P2_client.json");
    k.streams = 1;
    k.dir = LP_DIR_REVERSE;
    check_kind(&k, "json_tcp_reverse_client.json");
    k.dir = LP_DIR_BIDIR;
    check_kind(&k, "json_tcp_bidir_client.json");
}

static void test_tcp_server(void **state)
{
    struct kind k = {LP_ROLE_SERVER, LP_PROTO_TCP, LP_DIR_FORWARD, 1, 0, NULL, NULL};

    (void)state;
    check_kind(&k, "json_tcp_server.json");
    k.dir = LP_DIR_BIDIR;
    k.rate = 100000000;
    check_kind(&k, "json_tcp_bidir_server.json");
}

static void test_udp(void **state)
{
    struct kind k = {LP_ROLE_CLIENT, LP_PROTO_UDP, LP_DIR_FORWARD, 1, 10000000, NULL, NULL};

    (void)state;
    check_kind(&k, "json_udp_client.json");
    k.dir = LP_DIR_BIDIR;
    check_kind(&k, "json_udp_bidir_client.json");
    k.role = LP_ROLE_SERVER;
    k.dir = LP_DIR_FORWARD;
    check_kind(&k, "json_udp_server.json");
}

static void test_server_output(void **state)
{
    struct kind k = {LP_ROLE_CLIENT, LP_PROTO_TCP, LP_DIR_FORWARD, 1, 100000000,
                     "Accepted connection from 127.0.0.1, port 57280\n", NULL};
    char *cap = slurp("json321_get_server_output_json_client.json");
    cJSON *o = cJSON_Parse(cap);
    char *inner;

    (void)state;
    check_kind(&k, "json_get_server_output_text_client.json");
    /* The embedded server document is passed through, so its keys are the server's own:
     * 3.21's here, which has all of 3.12's. */
    assert_non_null(o);
    inner = cJSON_Print(cJSON_GetObjectItem(o, "server_output_json"));
    k.server_text = NULL;
    k.server_json = inner;
    check_kind(&k, "json_get_server_output_json_client.json");
    free(inner);
    cJSON_Delete(o);
    free(cap);
}

static void test_error_before_start(void **state)
{
    struct doc_sink snk = {0};
    struct lp_out out = {doc_sink_write, &snk};
    struct lp_fmt_opts opts = {.unit = 'a'};
    struct lp_fmt *f = lp_fmt_new(LP_FMT_JSON, &opts, &out);
    struct lp_record rec = {.kind = LP_REC_CONNECTING, .role = LP_ROLE_CLIENT, .test_id = 1};

    (void)state;
    lp_fmt_record(f, &rec);
    rec.kind = LP_REC_ERROR;
    rec.u.error.message = "the server is busy running a test. try again later";
    rec.u.error.fatal = true;
    lp_fmt_record(f, &rec);
    assert_null(snk.buf); /* the document waits for DONE */
    memset(&rec.u, 0, sizeof(rec.u));
    rec.kind = LP_REC_DONE;
    lp_fmt_record(f, &rec);
    lp_fmt_free(f);
    compare_with(snk.buf, "json_error_busy_client.json");
    assert_non_null(strstr(snk.buf, "\"error\":\t\"the server is busy running a test. try again "
                                    "later\"\n}\n"));
    free(snk.buf);
}

/* The comparison itself must notice a wrong kind of document, a missing key and a key
 * out of order. */
static void test_walker_sees_differences(void **state)
{
    struct kind k = {LP_ROLE_CLIENT, LP_PROTO_TCP, LP_DIR_FORWARD, 1, 0, NULL, NULL};
    char *doc = run_kind(&k), *p;

    (void)state;
    assert_false(same_paths(doc, "json321_udp_client.json", false));
    assert_false(same_paths(doc, "json321_tcp_server.json", false));
    assert_false(same_paths(doc, "json321_tcp_bidir_client.json", false));
    p = strstr(doc, "\"pmtu\"");
    assert_non_null(p);
    memcpy(p, "\"pmtx\"", 6);
    assert_false(same_paths(doc, "json321_tcp_client.json", false));
    memcpy(p, "\"pmtu\"", 6);
    assert_true(same_paths(doc, "json321_tcp_client.json", false));
    /* 3.12's capture lacks 3.21's keys: not the same set, yet all of it is there in order. */
    assert_false(same_paths(doc, "json_tcp_client.json", false));
    assert_true(paths_match(doc, "json_tcp_client.json", false, false));
    /* A key 3.21 added, renamed: an extra path for 3.21, harmless for 3.12's subset. */
    p = strstr(doc, "\"reorder\"");
    assert_non_null(p);
    memcpy(p, "\"reordex\"", 9);
    assert_false(same_paths(doc, "json321_tcp_client.json", false));
    assert_true(paths_match(doc, "json_tcp_client.json", false, false));
    memcpy(p, "\"reorder\"", 9);
    /* A key 3.12 has, gone (every copy of it): missing for 3.12 too. */
    for (p = doc; (p = strstr(p, "\"pmtu\"")) != NULL; p++)
        memcpy(p, "\"pmtx\"", 6);
    assert_false(paths_match(doc, "json_tcp_client.json", false, false));
    for (p = doc; (p = strstr(p, "\"pmtx\"")) != NULL; p++)
        memcpy(p, "\"pmtu\"", 6);
    assert_true(paths_match(doc, "json_tcp_client.json", false, false));
    /* Move "cookie" to the end of "start": same set, wrong order. */
    cJSON *o = cJSON_Parse(doc), *start = cJSON_GetObjectItem(o, "start");
    cJSON_AddItemToObject(start, "cookie", cJSON_DetachItemFromObject(start, "cookie"));
    p = cJSON_Print(o);
    assert_false(same_paths(p, "json321_tcp_client.json", false));
    assert_false(paths_match(p, "json_tcp_client.json", false, false));
    free(p);
    cJSON_Delete(o);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_client),    cmocka_unit_test(test_tcp_server),
        cmocka_unit_test(test_udp),           cmocka_unit_test(test_server_output),
        cmocka_unit_test(test_error_before_start), cmocka_unit_test(test_walker_sees_differences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

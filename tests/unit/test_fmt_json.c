/* -J output byte for byte: the numbers of a real iperf3 3.21 document (3.12's keys and
 * 3.21's additions) are read back into records, and formatting those records must print
 * the very same document (the captures whose start object repeats keys are checked up to
 * those duplicates). Also --json-stream lines and lp_fmt_document. */
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

static char *slurp(const char *name)
{
    char *s = lp_evidence_slurp(name);
    assert_non_null(s);
    return s;
}

/* ---- a 3.12 document read back into records ---- */

#define NS 8
#define NIV 8

struct replay {
    enum lp_role role;
    struct lp_spec spec;
    struct lp_stream_conn conn[NS];
    struct lp_rec_start start;
    struct lp_sample iv[NIV][NS];
    struct lp_rec_interval ivr[NIV];
    unsigned niv;
    struct lp_stream_end se[NS];
    struct lp_rec_end end;
    bool has_end;
    char *server_json;
};

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);

    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static bool flag(const cJSON *o, const char *k)
{
    return cJSON_IsTrue(cJSON_GetObjectItem(o, k));
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void read_endpoint(const cJSON *o, struct lp_endpoint *e)
{
    snprintf(e->host, sizeof(e->host), "%s", str(o, "host"));
    e->port = (uint16_t)num(o, "port");
}

static void read_start(struct replay *r, const cJSON *st)
{
    const cJSON *ts = cJSON_GetObjectItem(st, "test_start"), *c;
    unsigned i = 0;

    r->role = cJSON_GetObjectItem(st, "accepted_connection") ? LP_ROLE_SERVER : LP_ROLE_CLIENT;
    lp_spec_init(&r->spec, r->role);
    r->spec.proto = !strcmp(str(ts, "protocol"), "UDP") ? LP_PROTO_UDP : LP_PROTO_TCP;
    r->spec.dir = num(ts, "reverse") ? LP_DIR_REVERSE : LP_DIR_FORWARD;
    r->spec.streams = (unsigned)num(ts, "num_streams");
    r->spec.blksize = (uint32_t)num(ts, "blksize");
    r->spec.omit_s = (unsigned)num(ts, "omit");
    r->spec.duration_s = num(ts, "duration");
    r->spec.bytes = (uint64_t)num(ts, "bytes");
    r->spec.blocks = (uint64_t)num(ts, "blocks");
    r->spec.tos = (int)num(ts, "tos");
    r->spec.rate_bps = (uint64_t)num(ts, "target_bitrate");
    r->spec.fq_rate_bps = (uint64_t)num(ts, "fqrate");
    r->spec.report.interval_s = num(ts, "interval");
    if (num(ts, "bidir"))
        r->spec.dir = LP_DIR_BIDIR;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(st, "connected"))
    {
        struct lp_stream_conn *k = &r->conn[i++];
        k->sid.socket = (int)num(c, "socket");
        snprintf(k->local.host, sizeof(k->local.host), "%s", str(c, "local_host"));
        k->local.port = (uint16_t)num(c, "local_port");
        snprintf(k->remote.host, sizeof(k->remote.host), "%s", str(c, "remote_host"));
        k->remote.port = (uint16_t)num(c, "remote_port");
    }
    r->start.spec = &r->spec;
    r->start.version = str(st, "version");
    r->start.system_info = str(st, "system_info");
    r->start.timestamp = (time_t)num(cJSON_GetObjectItem(st, "timestamp"), "timesecs");
    r->start.timestamp_ms = (uint64_t)num(cJSON_GetObjectItem(st, "timestamp"), "timemillisecs");
    r->start.cookie = str(st, "cookie");
    read_endpoint(cJSON_GetObjectItem(st, r->role == LP_ROLE_SERVER ? "accepted_connection"
                                                                    : "connecting_to"),
                  &r->start.control_peer);
    r->start.tcp_mss = (int)num(st, "tcp_mss");
    r->start.tcp_mss_default = (int)num(st, "tcp_mss_default");
    r->start.sock_bufsize = (int)num(st, "sock_bufsize");
    r->start.sndbuf_actual = (int)num(st, "sndbuf_actual");
    r->start.rcvbuf_actual = (int)num(st, "rcvbuf_actual");
    r->start.nstreams = i;
    r->start.streams = r->conn;
}

/* Stream direction from its "sender" flag: in bidir the client sends forward. */
static void sid_of(const struct replay *r, const cJSON *o, struct lp_stream_id *sid)
{
    sid->socket = (int)num(o, "socket");
    sid->sender = flag(o, "sender");
    if (r->spec.dir == LP_DIR_BIDIR)
        sid->reverse = r->role == LP_ROLE_CLIENT ? !sid->sender : sid->sender;
    else
        sid->reverse = r->spec.dir == LP_DIR_REVERSE;
}

static void read_sample(const struct replay *r, const cJSON *o, struct lp_sample *s)
{
    sid_of(r, o, &s->sid);
    s->start_s = num(o, "start");
    s->end_s = num(o, "end");
    s->seconds = num(o, "seconds");
    s->bytes = (uint64_t)num(o, "bytes");
    s->bits_per_second = num(o, "bits_per_second");
    s->omitted = flag(o, "omitted");
    s->is_udp = r->spec.proto == LP_PROTO_UDP;
    if (cJSON_GetObjectItem(o, "retransmits")) {
        s->has_tcp_info = true;
        s->retransmits = (int64_t)num(o, "retransmits");
        s->snd_cwnd = (uint64_t)num(o, "snd_cwnd");
        s->snd_wnd = (uint64_t)num(o, "snd_wnd");
        s->rtt_us = (uint32_t)num(o, "rtt");
        s->rttvar_us = (uint32_t)num(o, "rttvar");
        s->pmtu = (uint32_t)num(o, "pmtu");
        s->reorder = (int64_t)num(o, "reorder");
    }
    s->packets = (uint64_t)num(o, "packets");
    s->jitter_ms = num(o, "jitter_ms");
    s->lost_packets = (int64_t)num(o, "lost_packets");
    s->lost_percent = num(o, "lost_percent");
}

static void read_total(const struct replay *r, const cJSON *o, struct lp_total *t)
{
    t->present = o != NULL;
    t->start_s = num(o, "start");
    t->end_s = num(o, "end");
    t->seconds = num(o, "seconds");
    t->bytes = (uint64_t)num(o, "bytes");
    t->bits_per_second = num(o, "bits_per_second");
    t->is_udp = r->spec.proto == LP_PROTO_UDP;
    if (cJSON_GetObjectItem(o, "retransmits")) {
        t->has_retransmits = true;
        t->retransmits = (int64_t)num(o, "retransmits");
    }
    if (cJSON_GetObjectItem(o, "max_snd_cwnd")) {
        t->has_tcp_extra = true;
        t->max_snd_cwnd = (uint64_t)num(o, "max_snd_cwnd");
        t->max_snd_wnd = (uint64_t)num(o, "max_snd_wnd");
        t->max_rtt_us = (uint32_t)num(o, "max_rtt");
        t->min_rtt_us = (uint32_t)num(o, "min_rtt");
        t->mean_rtt_us = (uint32_t)num(o, "mean_rtt");
        t->reorder = (int64_t)num(o, "reorder");
    }
    t->jitter_ms = num(o, "jitter_ms");
    t->lost_packets = (int64_t)num(o, "lost_packets");
    t->packets = (uint64_t)num(o, "packets");
    t->lost_percent = num(o, "lost_percent");
    t->out_of_order = (uint64_t)num(o, "out_of_order");
}

/* UDP keeps one object per stream: the sending side's span and bytes, the receiving
 * side's loss figures; split it back into the two totals. */
static void read_udp_stream(const struct replay *r, const cJSON *u, struct lp_stream_end *e)
{
    read_total(r, u, &e->sender);
    read_total(r, u, &e->receiver);
    e->sender.jitter_ms = 0;
    e->sender.lost_packets = 0;
    e->sender.lost_percent = 0;
}

static void read_dir(const struct replay *r, const cJSON *end, const char *sfx,
                     struct lp_direction_end *de)
{
    char k[64];

    snprintf(k, sizeof(k), "sum_sent%s", sfx);
    read_total(r, cJSON_GetObjectItem(end, k), &de->sent);
    snprintf(k, sizeof(k), "sum_received%s", sfx);
    read_total(r, cJSON_GetObjectItem(end, k), &de->received);
    de->present = de->sent.present;
}

static void read_end(struct replay *r, const cJSON *end)
{
    const cJSON *s;
    unsigned i = 0;

    cJSON_ArrayForEach(s, cJSON_GetObjectItem(end, "streams"))
    {
        struct lp_stream_end *e = &r->se[i++];
        const cJSON *u = cJSON_GetObjectItem(s, "udp");
        if (u) {
            sid_of(r, u, &e->sid);
            read_udp_stream(r, u, e);
        } else {
            sid_of(r, cJSON_GetObjectItem(s, "sender"), &e->sid);
            read_total(r, cJSON_GetObjectItem(s, "sender"), &e->sender);
            read_total(r, cJSON_GetObjectItem(s, "receiver"), &e->receiver);
        }
    }
    r->end.nstreams = i;
    r->end.streams = r->se;
    r->end.bidir = r->spec.dir == LP_DIR_BIDIR;
    read_dir(r, end, "", &r->end.forward);
    if (r->end.bidir)
        read_dir(r, end, "_bidir_reverse", &r->end.reverse);
    const cJSON *cpu = cJSON_GetObjectItem(end, "cpu_utilization_percent");
    r->end.cpu.host_total = num(cpu, "host_total");
    r->end.cpu.host_user = num(cpu, "host_user");
    r->end.cpu.host_system = num(cpu, "host_system");
    r->end.cpu.remote_total = num(cpu, "remote_total");
    r->end.cpu.remote_user = num(cpu, "remote_user");
    r->end.cpu.remote_system = num(cpu, "remote_system");
    r->end.sender_congestion = str(end, "sender_tcp_congestion");
    r->end.receiver_congestion = str(end, "receiver_tcp_congestion");
    r->has_end = true;
}

static void read_doc(struct replay *r, const cJSON *doc)
{
    const cJSON *iv, *s, *end = cJSON_GetObjectItem(doc, "end");

    memset(r, 0, sizeof(*r));
    read_start(r, cJSON_GetObjectItem(doc, "start"));
    if (cJSON_GetObjectItem(end, "sum_sent_bidir_reverse"))
        r->spec.dir = LP_DIR_BIDIR;
    cJSON_ArrayForEach(iv, cJSON_GetObjectItem(doc, "intervals"))
    {
        struct lp_rec_interval *ri = &r->ivr[r->niv];
        unsigned n = 0;
        cJSON_ArrayForEach(s, cJSON_GetObjectItem(iv, "streams"))
            read_sample(r, s, &r->iv[r->niv][n++]);
        ri->nstreams = n;
        ri->streams = r->iv[r->niv];
        read_sample(r, cJSON_GetObjectItem(iv, "sum"), &ri->sum);
        if (cJSON_GetObjectItem(iv, "sum_bidir_reverse")) {
            ri->has_sum_reverse = true;
            read_sample(r, cJSON_GetObjectItem(iv, "sum_bidir_reverse"), &ri->sum_reverse);
        }
        r->niv++;
    }
    read_end(r, end);
    r->end.server_output_text = str(doc, "server_output_text");
    if (cJSON_GetObjectItem(doc, "server_output_json")) {
        r->server_json = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc, "server_output_json"));
        r->end.server_output_json = r->server_json;
    }
}

static char *replay_doc(struct replay *r, bool stream)
{
    struct doc_sink k = {0};
    struct lp_out out = {doc_sink_write, &k};
    struct lp_fmt_opts opts = {.unit = 'a'};
    struct lp_fmt *f = lp_fmt_new(stream ? LP_FMT_JSON_STREAM : LP_FMT_JSON, &opts, &out);
    struct lp_record rec = {.role = r->role, .test_id = 1};

    assert_non_null(f);
    rec.kind = LP_REC_START;
    rec.u.start = r->start;
    lp_fmt_record(f, &rec);
    for (unsigned i = 0; i < r->niv; i++) {
        rec.kind = LP_REC_INTERVAL;
        rec.u.interval = r->ivr[i];
        lp_fmt_record(f, &rec);
    }
    rec.kind = LP_REC_END;
    rec.u.end = r->end;
    lp_fmt_record(f, &rec);
    rec.kind = LP_REC_DONE;
    lp_fmt_record(f, &rec);
    lp_fmt_free(f);
    free(r->server_json);
    r->server_json = NULL;
    return k.buf;
}

/* 3.12 repeats some start keys (per stream with -P, target_bitrate on a server); cJSON
 * keeps the copies in order, so drop all but the last to get the document we print. */
static void drop_duplicates(cJSON *o)
{
    cJSON *c = o->child;

    while (c) {
        cJSON *next = c->next;
        for (cJSON *d = next; d; d = d->next)
            if (!strcmp(c->string, d->string)) {
                cJSON_Delete(cJSON_DetachItemViaPointer(o, c));
                break;
            }
        c = next;
    }
}

static void check_same_bytes(const char *capture, bool has_duplicates)
{
    static struct replay r;
    char *want = slurp(capture), *got, *expect;
    cJSON *doc = cJSON_Parse(want);

    assert_non_null(doc);
    read_doc(&r, doc);
    got = replay_doc(&r, false);
    assert_non_null(got);
    drop_duplicates(cJSON_GetObjectItem(doc, "start"));
    expect = cJSON_Print(doc);
    /* Without duplicates the file itself is what cJSON prints, plus iperf3's newline. */
    if (!has_duplicates) {
        assert_int_equal(strlen(expect) + 1, strlen(want));
        assert_memory_equal(expect, want, strlen(want) - 1);
    }
    if (strncmp(got, expect, strlen(expect)) || strcmp(got + strlen(expect), "\n")) {
        fprintf(stderr, "%s differs:\n--- want\n%s\n--- got\n%s", capture, expect, got);
        fail();
    }
    print_message("same bytes: %s\n", capture);
    cJSON_free(expect);
    cJSON_Delete(doc);
    free(got);
    free(want);
}

static void test_same_bytes(void **state)
{
    static const struct {
        const char *name;
        bool dups; /* iperf3 repeated start keys in this one */
    } caps[] = {
        {"json321_tcp_client.json", false},
        {"json321_tcp_P2_client.json", true},
        {"json321_tcp_reverse_client.json", false},
        {"json321_tcp_bidir_client.json", true},
        {"json321_tcp_server.json", false},
        {"json321_tcp_bidir_server.json", true},
        {"json321_udp_client.json", false},
        {"json321_udp_server.json", true},
        {"json321_udp_bidir_client.json", true},
        {"json321_get_server_output_text_client.json", false},
        {"json321_get_server_output_json_client.json", false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
        check_same_bytes(caps[i].name, caps[i].dups);
}

/* ---- --json-stream ---- */

static void test_json_stream(void **state)
{
    static struct replay r;
    char *cap = slurp("json321_get_server_output_text_client.json");
    cJSON *doc = cJSON_Parse(cap);
    char *lines, *line, *save = NULL;
    const char *want[] = {"start", "interval", "interval", "server_output_text", "end"};
    int n = 0;

    (void)state;
    read_doc(&r, doc);
    lines = replay_doc(&r, true);
    assert_non_null(lines);
    for (line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save), n++) {
        cJSON *ev = cJSON_Parse(line);
        assert_non_null(ev);
        assert_true(n < 5);
        assert_string_equal(cJSON_GetObjectItem(ev, "event")->valuestring, want[n]);
        assert_non_null(cJSON_GetObjectItem(ev, "data"));
        /* Compact: one object per line, no tab layout. */
        assert_null(strchr(line, '\t'));
        if (n == 0)
            assert_true(cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(ev, "data"),
                                                           "test_start")));
        if (n == 3)
            assert_true(cJSON_IsString(cJSON_GetObjectItem(ev, "data")));
        cJSON_Delete(ev);
    }
    assert_int_equal(n, 5);
    free(lines);
    cJSON_Delete(doc);
    free(cap);
}

static void test_stream_error_event(void **state)
{
    struct doc_sink k = {0};
    struct lp_out out = {doc_sink_write, &k};
    struct lp_fmt *f = lp_fmt_new(LP_FMT_JSON_STREAM, NULL, &out);
    struct lp_record rec = {.kind = LP_REC_ERROR, .role = LP_ROLE_CLIENT, .test_id = 1};

    (void)state;
    rec.u.error.message = "unable to connect to server: Connection refused";
    rec.u.error.fatal = true;
    lp_fmt_record(f, &rec);
    rec.kind = LP_REC_DONE;
    lp_fmt_record(f, &rec);
    lp_fmt_free(f);
    assert_string_equal(k.buf, "{\"event\":\"error\",\"data\":\"unable to connect to server: "
                               "Connection refused\"}\n");
    free(k.buf);
}

/* ---- document API, details ---- */

static void test_document_so_far(void **state)
{
    static struct replay r;
    char *cap = slurp("json_tcp_server.json");
    cJSON *doc = cJSON_Parse(cap), *mine;
    struct doc_sink k = {0};
    struct lp_out out = {doc_sink_write, &k};
    struct lp_fmt_opts opts = {.unit = 'a', .title = "mytitle"};
    struct lp_fmt *f = lp_fmt_new(LP_FMT_JSON, &opts, &out);
    struct lp_record rec = {.role = LP_ROLE_SERVER, .test_id = 1};
    char *s;

    (void)state;
    read_doc(&r, doc);
    snprintf(r.spec.extra_data, sizeof(r.spec.extra_data), "xd");
    rec.kind = LP_REC_START;
    rec.u.start = r.start;
    lp_fmt_record(f, &rec);
    rec.kind = LP_REC_INTERVAL;
    rec.u.interval = r.ivr[0];
    lp_fmt_record(f, &rec);
    /* What a server sends as server_output_json: the document so far, nothing printed. */
    s = lp_fmt_document(f);
    assert_non_null(s);
    assert_int_equal(k.n, 0);
    mine = cJSON_Parse(s);
    assert_non_null(mine);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(mine, "intervals")), 1);
    assert_string_equal(cJSON_GetObjectItem(mine, "title")->valuestring, "mytitle");
    assert_string_equal(cJSON_GetObjectItem(mine, "extra_data")->valuestring, "xd");
    /* 3.12 stores an interval's length as a float. */
    assert_non_null(strstr(s, "\"seconds\":\t1.0001349449157715,"));
    cJSON_Delete(mine);
    free(s);
    /* An error ends the test: the document still comes out, once, at DONE. */
    rec.kind = LP_REC_ERROR;
    rec.u.error.message = "control socket has closed unexpectedly";
    rec.u.error.fatal = true;
    lp_fmt_record(f, &rec);
    rec.kind = LP_REC_DONE;
    lp_fmt_record(f, &rec);
    lp_fmt_record(f, &rec);
    lp_fmt_free(f);
    assert_int_equal(k.writes, 1);
    assert_non_null(strstr(k.buf, "\t\"title\":\t\"mytitle\",\n\t\"extra_data\":\t\"xd\",\n"
                                  "\t\"error\":\t\"control socket has closed unexpectedly\"\n}\n"));
    free(k.buf);
    cJSON_Delete(doc);
    free(cap);
}

/* No DONE (an engine torn down mid-test): free() still prints what there is. */
static void test_free_flushes(void **state)
{
    struct doc_sink k = {0};
    struct lp_out out = {doc_sink_write, &k};
    struct lp_fmt *f = lp_fmt_new(LP_FMT_JSON, NULL, &out);
    struct lp_record rec = {.kind = LP_REC_ERROR, .role = LP_ROLE_CLIENT, .test_id = 1};
    cJSON *doc;

    (void)state;
    rec.u.error.message = "interrupt - the client has terminated";
    lp_fmt_record(f, &rec);
    lp_fmt_free(f);
    doc = cJSON_Parse(k.buf);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "error")->valuestring,
                        "interrupt - the client has terminated");
    cJSON_Delete(doc);
    free(k.buf);

    /* A server's listening banner alone prints nothing. */
    memset(&k, 0, sizeof(k));
    f = lp_fmt_new(LP_FMT_JSON, NULL, &out);
    rec.kind = LP_REC_LISTENING;
    rec.role = LP_ROLE_SERVER;
    rec.u.listening.port = 5201;
    lp_fmt_record(f, &rec);
    lp_fmt_free(f);
    assert_int_equal(k.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_bytes),       cmocka_unit_test(test_json_stream),
        cmocka_unit_test(test_stream_error_event), cmocka_unit_test(test_document_so_far),
        cmocka_unit_test(test_free_flushes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

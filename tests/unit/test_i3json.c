/* iperf3 control JSON: our parameter encoding is byte-identical to stock iperf3 3.12's for
 * the captured command lines; every captured parameter and results message decodes; hostile
 * messages are refused with a reason instead of crashing or being trusted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "evidence.h"
#include "linkperf/engine.h"
#include "proto/i3json.h"

static const char *evidence_files[] = {
    "wire_tcp_slow.txt", "wire_tcp_rev_slow.txt", "wire_tcp_bidir_slow.txt", "wire_tcp_p3_slow.txt",
    "wire_params_tcp.txt", "wire_params_udp.txt", "wire_udp.txt", "wire_udp_64.txt", "wire_udp_rev.txt",
    "wire_udp_default.txt", "wire_udp_bidir_json.txt", "wire_gso_text.txt", "wire_gso_srvjson_clijson.txt",
    "wire_auth_ok.txt", "wire_auth_bad.txt",
};

struct tally {
    unsigned params, results, auth;
};

static struct lp_spec server_defaults(void)
{
    struct lp_spec s;
    lp_spec_init(&s, LP_ROLE_SERVER);
    return s;
}

static void check_json_line(const char *line, void *arg)
{
    struct tally *t = arg;
    const char *p = strstr(line, "ascii: {");
    if (!p)
        return;
    const char *json = p + 7;
    size_t len = strlen(json);
    char err[256] = "";
    if (strstr(json, "\"tcp\":true") || strstr(json, "\"udp\":true")) {
        struct lp_spec s = server_defaults();
        char token[4096];
        int code = lp_i3_params_decode(json, len, &s, token, sizeof(token), NULL, err, sizeof(err));
        assert_int_equal(code, 0);
        if (token[0]) /* 3.12's token for a 2048-bit key: 256 bytes in base64 */
            assert_int_equal(strlen(token), 344), t->auth++;
        /* Re-encoding what we decoded gives stock iperf3's exact bytes, the token in its
         * place (server_affinity, from -A, is the one option linkperf does not implement). */
        if (!strstr(json, "server_affinity")) {
            s.role = LP_ROLE_CLIENT;
            char *again = lp_i3_params_encode(&s, token[0] ? token : NULL, "3.12");
            assert_string_equal(again, json);
            free(again);
        }
        t->params++;
    } else if (strstr(json, "\"cpu_util_total\"")) {
        struct lp_peer_results r;
        memset(&r, 0, sizeof(r));
        if (len > 0 && json[len - 1] != '}')
            return; /* the capture truncated a long line */
        assert_int_equal(lp_i3_results_decode(json, len, &r, err, sizeof(err)), 0);
        assert_true(r.nstreams >= 1);
        /* 3.12 prints -1 as 18446744073709551615. */
        if (strstr(json, "\"sender_has_retransmits\":18446744073709551615"))
            assert_int_equal(r.sender_has_retransmits, -1);
        for (unsigned i = 0; i < r.nstreams; i++)
            assert_true(r.streams[i].id == 1 || r.streams[i].id >= 3);
        lp_peer_results_release(&r);
        t->results++;
    }
}

static void stock_messages_decode_and_reencode(void **state)
{
    (void)state;
    struct tally t = {0};
    for (size_t i = 0; i < sizeof(evidence_files) / sizeof(evidence_files[0]); i++)
        assert_true(lp_evidence_lines(evidence_files[i], check_json_line, &t) > 0);
    assert_true(t.params >= 12);
    assert_true(t.results >= 10);
    assert_int_equal(t.auth, 2);
}

static void params_map_to_spec(void **state)
{
    (void)state;
    const char *j = "{\"udp\":true,\"omit\":0,\"time\":0,\"num\":0,\"blockcount\":100,\"parallel\":2,\"len\":1200,"
                    "\"bandwidth\":5000000,\"pacing_timer\":1000,\"burst\":10,\"udp_counters_64bit\":1,"
                    "\"dont_fragment\":1,\"bidirectional\":true,\"client_version\":\"3.12\"}";
    struct lp_spec s = server_defaults();
    char err[200];
    assert_int_equal(lp_i3_params_decode(j, strlen(j), &s, NULL, 0, NULL, err, sizeof(err)), 0);
    assert_int_equal(s.proto, LP_PROTO_UDP);
    assert_int_equal(s.dir, LP_DIR_BIDIR);
    assert_true(s.blocks == 100);
    assert_int_equal(s.streams, 2);
    assert_int_equal(s.blksize, 1200);
    assert_true(s.rate_bps == 5000000);
    assert_int_equal(s.burst, 10);
    assert_true(s.udp_counters_64bit);
    assert_true(s.dont_fragment);
}

static void hostile_params_are_refused(void **state)
{
    (void)state;
    static const char *bad[] = {
        "",                                                       /* empty */
        "[]",                                                     /* not an object */
        "{\"tcp\":true",                                          /* truncated */
        "{\"omit\":0}",                                           /* no protocol */
        "{\"tcp\":true,\"time\":10,\"parallel\":\"x\"}",          /* wrong type (CVE-2024-53580) */
        "{\"tcp\":true,\"time\":-5}",                             /* negative */
        "{\"tcp\":true,\"time\":10,\"parallel\":500}",            /* beyond 128 streams */
        "{\"tcp\":true,\"time\":10,\"len\":99999999}",            /* block too large */
        "{\"udp\":true,\"time\":10,\"len\":8}",                   /* UDP block below the header */
        "{\"tcp\":true,\"time\":1e300}",                          /* absurd duration */
        "{\"tcp\":true,\"time\":10,\"title\":42}",                /* number where a string goes */
        "{\"tcp\":true,\"time\":10,\"congestion\":\"../../x\"}",  /* not a congestion name */
        "{\"tcp\":true,\"time\":10,\"window\":1e12}",             /* window beyond 512 MiB */
        "{\"tcp\":true,\"time\":10,\"TOS\":300}",                 /* TOS out of range */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct lp_spec s = server_defaults();
        char err[200] = "";
        int i3_code = 0;
        int rc = lp_i3_params_decode(bad[i], strlen(bad[i]), &s, NULL, 0, &i3_code, err, sizeof(err));
        if (rc == 0)
            fail_msg("accepted hostile parameters #%zu: %s", i, bad[i]);
        assert_int_equal(rc, LP_EPEER);  /* the return convention: a negative code */
        assert_true(i3_code > 0);        /* what goes to the client: iperf3's number */
        assert_true(err[0] != '\0');
    }
    /* An over-long title is refused rather than truncated silently. */
    char big[600];
    int n = snprintf(big, sizeof(big), "{\"tcp\":true,\"time\":1,\"title\":\"");
    memset(big + n, 'a', 300);
    strcpy(big + n + 300, "\"}");
    struct lp_spec s = server_defaults();
    char err[200];
    assert_int_equal(lp_i3_params_decode(big, strlen(big), &s, NULL, 0, NULL, err, sizeof(err)), LP_EPEER);
}

static void hostile_results_are_refused(void **state)
{
    (void)state;
    static const char *bad[] = {
        "{}",
        "{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,\"sender_has_retransmits\":0}",
        "{\"cpu_util_total\":\"x\",\"cpu_util_user\":1,\"cpu_util_system\":0,\"sender_has_retransmits\":0,\"streams\":[]}",
        "{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,\"sender_has_retransmits\":0,"
        "\"streams\":[{\"id\":1,\"bytes\":-5,\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0}]}",
        "{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,\"sender_has_retransmits\":0,"
        "\"streams\":[{\"id\":1}]}",
        "{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,\"sender_has_retransmits\":0,"
        "\"streams\":[7]}",
        /* counts no uint64_t holds (a double cast to uint64_t past 2^64 is undefined) */
        "{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,\"sender_has_retransmits\":0,"
        "\"streams\":[{\"id\":1,\"bytes\":1e300,\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0}]}",
        "{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,\"sender_has_retransmits\":0,"
        "\"streams\":[{\"id\":1,\"bytes\":1,\"retransmits\":0,\"jitter\":0,\"errors\":0,"
        "\"packets\":18446744073709551616}]}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct lp_peer_results r;
        memset(&r, 0, sizeof(r));
        char err[200] = "";
        if (lp_i3_results_decode(bad[i], strlen(bad[i]), &r, err, sizeof(err)) == 0)
            fail_msg("accepted hostile results #%zu", i);
        assert_true(err[0] != '\0');
        lp_peer_results_release(&r);
    }
    /* More streams than any test can have: refused before anything is trusted. */
    size_t cap = 64 + 300 * 80;
    char *many = malloc(cap);
    size_t off = (size_t)snprintf(many, cap, "{\"cpu_util_total\":1,\"cpu_util_user\":1,\"cpu_util_system\":0,"
                                             "\"sender_has_retransmits\":0,\"streams\":[");
    for (int i = 0; i < 300; i++)
        off += (size_t)snprintf(many + off, cap - off, "%s{\"id\":%d,\"bytes\":1,\"retransmits\":0,\"jitter\":0,"
                                "\"errors\":0,\"packets\":0}", i ? "," : "", i + 1);
    snprintf(many + off, cap - off, "]}");
    struct lp_peer_results r;
    memset(&r, 0, sizeof(r));
    char err[200];
    assert_int_not_equal(lp_i3_results_decode(many, strlen(many), &r, err, sizeof(err)), 0);
    free(many);
}

static void results_round_trip(void **state)
{
    (void)state;
    struct lp_peer_results r, back;
    memset(&r, 0, sizeof(r));
    memset(&back, 0, sizeof(back));
    r.cpu_total = 12.5;
    r.cpu_user = 2.5;
    r.cpu_system = 10;
    r.sender_has_retransmits = -1;
    r.nstreams = 2;
    r.streams[0] = (struct lp_peer_stream){.id = 1, .bytes = 5793906688ull, .retransmits = -1, .end_time = 2.000113};
    r.streams[1] = (struct lp_peer_stream){.id = 3, .bytes = 77, .retransmits = 4, .jitter_s = 0.0001, .errors = 2, .packets = 99};
    r.server_output_text = "Accepted connection\n";
    char *json = lp_i3_results_encode(&r);
    assert_non_null(json);
    char err[200];
    assert_int_equal(lp_i3_results_decode(json, strlen(json), &back, err, sizeof(err)), 0);
    assert_int_equal(back.sender_has_retransmits, -1);
    assert_int_equal(back.nstreams, 2);
    assert_true(back.streams[0].bytes == 5793906688ull);
    assert_true(back.streams[1].packets == 99);
    assert_true(back.streams[1].errors == 2);
    assert_string_equal(back.server_output_text, "Accepted connection\n");
    assert_non_null(lp_peer_results_find(&back, 3));
    assert_null(lp_peer_results_find(&back, 2));
    lp_peer_results_release(&back);
    free(json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stock_messages_decode_and_reencode),
        cmocka_unit_test(params_map_to_spec),
        cmocka_unit_test(hostile_params_are_refused),
        cmocka_unit_test(hostile_results_are_refused),
        cmocka_unit_test(results_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Text formatter cases the captures do not cover: linkperf's two-row server summary,
 * errors, --timestamps, the server-output block with -T, -V banner lines. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fmt/fmt.h"
#include "fmt_sink.h"

struct fx {
    struct sink k;
    struct lp_out out;
    struct lp_fmt_opts opts;
    struct lp_fmt *f;
    struct lp_spec spec;
    struct lp_stream_conn conn[2];
    struct lp_record rec;
};

static struct fx *fx_new(enum lp_role role)
{
    struct fx *x = calloc(1, sizeof(*x));

    assert_non_null(x);
    x->out.write = sink_write;
    x->out.user = &x->k;
    x->k.raw = true;
    x->opts.unit = 'a';
    lp_spec_init(&x->spec, role);
    x->rec.role = role;
    x->rec.test_id = 1;
    return x;
}

static void fx_open(struct fx *x)
{
    x->f = lp_fmt_new(LP_FMT_TEXT, &x->opts, &x->out);
    assert_non_null(x->f);
}

static void fx_free(struct fx *x)
{
    lp_fmt_free(x->f);
    free(x);
}

static void fx_send(struct fx *x, enum lp_record_kind kind)
{
    x->rec.kind = kind;
    lp_fmt_record(x->f, &x->rec);
    memset(&x->rec.u, 0, sizeof(x->rec.u));
}

static void fx_start(struct fx *x)
{
    struct lp_rec_start *st = &x->rec.u.start;

    x->conn[0].sid.socket = 5;
    x->conn[0].sid.sender = x->spec.role == LP_ROLE_CLIENT;
    snprintf(x->conn[0].local.host, sizeof(x->conn[0].local.host), "127.0.0.1");
    snprintf(x->conn[0].remote.host, sizeof(x->conn[0].remote.host), "127.0.0.1");
    x->conn[0].local.port = 5201;
    x->conn[0].remote.port = 46122;
    st->spec = &x->spec;
    st->version = LP_VERSION_STR;
    st->system_info = "Linux test";
    st->cookie = "22yplu6yt454yiqksi5jqwy34oaz6p2kyet6";
    st->nstreams = 1;
    st->streams = x->conn;
    snprintf(st->control_peer.host, sizeof(st->control_peer.host), "10.0.0.1");
    st->control_peer.port = 5201;
    fx_send(x, LP_REC_START);
}

static struct lp_total total(double secs, uint64_t bytes)
{
    struct lp_total t = {.present = true, .end_s = secs, .seconds = secs, .bytes = bytes};

    t.bits_per_second = (double)bytes * 8 / secs;
    return t;
}

/* linkperf's server knows the client's numbers too, so it prints the summary the way the
 * iperf3 client does: both rows, with the Retr column. */
static void test_server_prints_both_rows(void **state)
{
    struct fx *x = fx_new(LP_ROLE_SERVER);
    struct lp_stream_end se = {.sid = {.id = 1, .socket = 5}};
    const char *want =
        "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-2.00   sec  5.40 GBytes  23.2 Gbits/sec    7             sender\n"
        "[  5]   0.00-2.00   sec  5.40 GBytes  23.2 Gbits/sec                  receiver\n";

    (void)state;
    fx_open(x);
    se.sender = total(2.000079, 5799936000ull);
    se.sender.has_retransmits = true;
    se.sender.retransmits = 7;
    se.receiver = total(2.000113, 5793906688ull);
    x->rec.u.end.nstreams = 1;
    x->rec.u.end.streams = &se;
    x->rec.u.end.forward.present = true;
    fx_send(x, LP_REC_END);
    fx_send(x, LP_REC_DONE);
    assert_string_equal(x->k.out, want); /* and no "iperf Done." on a server */
    fx_free(x);
}

static void test_errors_go_to_stderr(void **state)
{
    struct fx *x = fx_new(LP_ROLE_CLIENT);

    (void)state;
    x->opts.title = "tt";
    fx_open(x);
    snprintf(x->rec.u.connecting.peer.host, LP_HOST_MAX, "127.0.0.1");
    x->rec.u.connecting.peer.port = 5111;
    fx_send(x, LP_REC_CONNECTING);
    x->rec.u.error.message = "unable to connect to server: Connection refused";
    x->rec.u.error.fatal = true;
    fx_send(x, LP_REC_ERROR);
    x->rec.u.error.message = "interrupt - the client has terminated";
    fx_send(x, LP_REC_ERROR);
    fx_send(x, LP_REC_DONE);
    /* Like iperf3: nothing on stdout before the control connection is up (not even
     * "iperf Done."), and errors carry no -T title. */
    assert_string_equal(x->k.err, "linkperf: error - unable to connect to server: Connection "
                                  "refused\nlinkperf: interrupt - the client has terminated\n");
    assert_int_equal(x->k.nout, 0);
    fx_free(x);
}

static void test_timestamps(void **state)
{
    struct fx *x = fx_new(LP_ROLE_SERVER);

    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    x->opts.timestamps = true;
    x->opts.title = "tt";
    fx_open(x);
    x->rec.wall_time = 1796044257.5; /* Mon, 30 Nov 2026 13:10:57 GMT */
    x->rec.u.listening.port = 5201;
    x->rec.u.listening.test_number = 3;
    fx_send(x, LP_REC_LISTENING);
    x->rec.u.error.message = "boom";
    x->rec.u.error.fatal = true;
    fx_send(x, LP_REC_ERROR);
    /* iperf3's default format is "%c " in the local time zone. */
    assert_string_equal(x->k.out,
                        "Mon Nov 30 13:10:57 2026 tt:  -----------------------------------------------------------\n"
                        "Mon Nov 30 13:10:57 2026 tt:  Server listening on 5201 (test #3)\n"
                        "Mon Nov 30 13:10:57 2026 tt:  -----------------------------------------------------------\n");
    assert_string_equal(x->k.err, "Mon Nov 30 13:10:57 2026 linkperf: error - boom\n");
    fx_free(x);

    x = fx_new(LP_ROLE_SERVER);
    x->opts.timestamps = true;
    snprintf(x->opts.timestamp_format, sizeof(x->opts.timestamp_format), "%s", "%H:%M:%S");
    fx_open(x);
    x->rec.wall_time = 1796044257.5;
    snprintf(x->rec.u.connecting.peer.host, LP_HOST_MAX, "127.0.0.1");
    x->rec.u.connecting.peer.port = 46114;
    fx_send(x, LP_REC_CONNECTING);
    assert_string_equal(x->k.out, "13:10:57Accepted connection from 127.0.0.1, port 46114\n");
    fx_free(x);
}

/* An interrupted test (partial END) shows its summary but not "iperf Done.". */
static void test_interrupted_client(void **state)
{
    struct fx *x = fx_new(LP_ROLE_CLIENT);
    struct lp_stream_end se = {.sid = {.id = 1, .socket = 5, .sender = true}};

    (void)state;
    fx_open(x);
    x->rec.u.error.message = "interrupt - the client has terminated";
    fx_send(x, LP_REC_ERROR);
    se.sender = total(2.5, 3500000000ull);
    se.sender.has_retransmits = true;
    se.sender.retransmits = 18;
    x->rec.u.end.nstreams = 1;
    x->rec.u.end.streams = &se;
    x->rec.u.end.forward.present = true;
    x->rec.u.end.partial = true;
    fx_send(x, LP_REC_END);
    fx_send(x, LP_REC_DONE);
    assert_string_equal(x->k.out,
                        "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
                        "[ ID] Interval           Transfer     Bitrate         Retr\n"
                        "[  5]   0.00-2.50   sec  3.26 GBytes  11.2 Gbits/sec   18             sender\n");
    assert_string_equal(x->k.err, "linkperf: interrupt - the client has terminated\n");
    fx_free(x);
}

/* --get-server-output with -T: iperf3 writes the block raw, the blank lines around it
 * carry the title (captured from iperf3 3.12 -T tt --timestamps). */
static void test_server_output_text_with_title(void **state)
{
    struct fx *x = fx_new(LP_ROLE_CLIENT);
    const char *server = "Accepted connection from 127.0.0.1, port 59746\n"
                         "[  5]   0.00-1.00   sec  2.41 GBytes  20.7 Gbits/sec                  receiver\n";
    const char *tail = "tt:  \n"
                       "Server output:\n"
                       "Accepted connection from 127.0.0.1, port 59746\n"
                       "[  5]   0.00-1.00   sec  2.41 GBytes  20.7 Gbits/sec                  receiver\n"
                       "\n"
                       "tt:  \n"
                       "tt:  iperf Done.\n";
    const char *got;

    (void)state;
    x->opts.title = "tt";
    fx_open(x);
    x->rec.u.end.server_output_text = server;
    fx_send(x, LP_REC_END);
    fx_send(x, LP_REC_DONE);
    got = strstr(x->k.out, "tt:  \nServer output:");
    assert_non_null(got);
    assert_string_equal(got, tail);
    fx_free(x);
}

static void test_server_json_output(void **state)
{
    struct fx *x = fx_new(LP_ROLE_CLIENT);
    const char *got;

    (void)state;
    fx_open(x);
    x->rec.u.end.server_output_json = "{\"end\":{\"receiver_tcp_congestion\":\"bbr\"}}";
    fx_send(x, LP_REC_END);
    fx_send(x, LP_REC_DONE);
    got = strstr(x->k.out, "\nServer JSON output:\n");
    assert_non_null(got);
    /* Re-printed in iperf3's tab layout, then the usual closing lines. */
    assert_string_equal(got, "\nServer JSON output:\n{\n\t\"end\":\t{\n"
                             "\t\t\"receiver_tcp_congestion\":\t\"bbr\"\n\t}\n}\n\niperf Done.\n");
    fx_free(x);
}

static void test_verbose_lines(void **state)
{
    struct fx *x = fx_new(LP_ROLE_SERVER);
    char want[512];
    const char *p;

    (void)state;
    x->opts.verbose = true;
    fx_open(x);
    x->rec.u.listening.port = 5201;
    x->rec.u.listening.test_number = 1;
    fx_send(x, LP_REC_LISTENING);
    x->rec.u.listening.port = 5201;
    x->rec.u.listening.test_number = 2;
    fx_send(x, LP_REC_LISTENING);
    /* Version and system lines once, before the first banner. */
    snprintf(want, sizeof(want), "%s\n", LP_VERSION_STR);
    assert_memory_equal(x->k.out, want, strlen(want));
    p = strstr(x->k.out + strlen(want), LP_VERSION_STR);
    assert_null(p);
    fx_free(x);

    x = fx_new(LP_ROLE_CLIENT);
    x->opts.verbose = true;
    x->spec.bytes = 10485760;
    x->spec.mss = 1400;
    x->spec.tos = 16;
    x->spec.dir = LP_DIR_REVERSE;
    fx_open(x);
    x->rec.u.start.tcp_mss = 1400;
    x->rec.u.start.tcp_mss_default = 32768;
    fx_start(x);
    assert_non_null(strstr(x->k.out, "Connecting to host 10.0.0.1, port 5201\n"
                                     "Reverse mode, remote host 10.0.0.1 is sending\n"
                                     "      Cookie: 22yplu6yt454yiqksi5jqwy34oaz6p2kyet6\n"
                                     "      TCP MSS: 1400\n"
                                     "[  5] local 127.0.0.1 port 5201 connected to 127.0.0.1 port 46122\n"
                                     "Starting Test: protocol: TCP, 1 streams, 131072 byte blocks, "
                                     "omitting 0 seconds, 10485760 bytes to send, tos 16\n"));
    assert_non_null(strstr(x->k.out, "Control connection MSS 32768\nTime: "));
    fx_free(x);
}

/* A TCP sender without tcp_info: plain rows and no Retr/Cwnd columns. */
static void test_sender_without_tcp_info(void **state)
{
    struct fx *x = fx_new(LP_ROLE_CLIENT);
    struct lp_sample s = {.sid = {.id = 1, .socket = 5, .sender = true},
                          .end_s = 1, .seconds = 1, .bytes = 1048576, .bits_per_second = 8388608};

    (void)state;
    fx_open(x);
    x->rec.u.interval.nstreams = 1;
    x->rec.u.interval.streams = &s;
    x->rec.u.interval.sum = s;
    fx_send(x, LP_REC_INTERVAL);
    assert_string_equal(x->k.out,
                        "[ ID] Interval           Transfer     Bitrate\n"
                        "[  5]   0.00-1.00   sec  1.00 MBytes  8.39 Mbits/sec                  \n");
    fx_free(x);
}

/* -d lines are the same in every line look: stderr, stamped but never titled; none for a
 * record without a message. */
static void test_debug_lines(void **state)
{
    static const enum lp_fmt_look looks[] = {LP_FMT_TEXT, LP_FMT_TEXT2, LP_FMT_CSV};
    struct lp_fmt_opts o = {.unit = 'a', .title = "tt", .timestamps = true};
    struct lp_record r = {.kind = LP_REC_DEBUG, .role = LP_ROLE_CLIENT, .test_id = 1,
                          .wall_time = 1796044257.0};
    static struct sink k;

    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    snprintf(o.timestamp_format, sizeof(o.timestamp_format), "%%T ");
    for (size_t i = 0; i < sizeof(looks) / sizeof(looks[0]); i++) {
        struct lp_fmt *f = sink_fmt(&k, looks[i], &o);
        r.u.debug.message = "header sent";
        lp_fmt_record(f, &r);
        r.u.debug.message = NULL;
        lp_fmt_record(f, &r);
        /* CSV lines carry their own time: no prefix there. */
        assert_string_equal(k.err, looks[i] == LP_FMT_CSV ? "linkperf: debug: header sent\n"
                                                          : "13:10:57 linkperf: debug: header sent\n");
        assert_int_equal(k.nout, 0);
        lp_fmt_free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_prints_both_rows),
        cmocka_unit_test(test_errors_go_to_stderr),
        cmocka_unit_test(test_interrupted_client),
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_server_output_text_with_title),
        cmocka_unit_test(test_server_json_output),
        cmocka_unit_test(test_verbose_lines),
        cmocka_unit_test(test_sender_without_tcp_info),
        cmocka_unit_test(test_debug_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

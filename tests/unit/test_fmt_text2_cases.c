/* iperf2-look text: the cases the 2.1.8 captures do not pin line for line. The units on every
 * -f letter, the record shapes the engine actually emits (-r with one END, full duplex with
 * two transfer ids, repeated START), banners, -x, -m, -e sums, errors, prefixes, iperf3-dialect
 * tests, and what JPerf 2.0.2 can parse of our lines compared with 2.1.8's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <unistd.h>

#include "fmt/text2_int.h"
#include "test_fmt_text2_util.h"

static void expect_out(struct sc *s, const char *want)
{
    if (strcmp(s->k.out, want)) {
        print_error("--- want:\n%s--- got:\n%s", want, s->k.out);
        fail();
    }
}

/* ---- units ---- */

static void units(void **state)
{
    char b[64];
    static const struct {
        char unit;
        double bytes, bps;
        const char *xfer, *rate;
    } t[] = {
        {'a', 0, 0, "0.000 Bytes", "0.000 bits/sec"},
        {'a', 999, 999, " 999 Bytes", " 999 bits/sec"},
        {'a', 1023, 1000, "1023 Bytes", "1.00 Kbits/sec"},
        {'a', 1024, 999499, "1.00 KBytes", " 999 Kbits/sec"},
        {'a', 1048064, 999600, "1024 KBytes", "1000 Kbits/sec"},
        {'a', 1073217536, 1e12, "1024 MBytes", "1.00 Tbits/sec"},
        {'a', 5.5 * 1099511627776.0, 5e15, "5.50 TBytes", "5000 Tbits/sec"},
        {'A', 1047552, 629630.0 * 8, "1023 KBytes", " 615 KBytes/sec"},
        {'A', 1048576, 1048576.0 * 8, "1.00 MBytes", "1.00 MBytes/sec"},
        {'b', 192570, 5075662, "192570 Bytes", "5075662 bits/sec"},
        {'B', 192570, 629630.0 * 8, "192570 Bytes", "629630 Bytes/sec"},
        {'k', 192570, 5075662, " 188 KBytes", "5076 Kbits/sec"},
        {'K', 189630, 629630.0 * 8, " 185 KBytes", " 615 KBytes/sec"},
        {'m', 189630, 5.04e6, "0.181 MBytes", "5.04 Mbits/sec"},
        {'M', 1047552, 0.601 * 1048576 * 8, "0.999 MBytes", "0.601 MBytes/sec"},
        {'g', 189630, 5.04e6, "0.000 GBytes", "0.005 Gbits/sec"},
        {'G', 1047552, 0.059 * 1073741824.0 * 8, "0.001 GBytes", "0.059 GBytes/sec"},
        {'t', 1e9, 1.8e10, "0.001 TBytes", "0.018 Tbits/sec"},
        {'T', 1e9, 2e9 * 8, "0.001 TBytes", "0.002 TBytes/sec"},
        {'x', 438304768, 16.5e9, " 418 MBytes", "16.5 Gbits/sec"}, /* any other letter: adaptive */
        {'\0', 10234, 4.82e6, "9.99 KBytes", "4.82 Mbits/sec"},
        {'a', 10235, 99.94, "10.0 KBytes", "99.9 bits/sec"},
        {'a', 102348, 99.96, "99.9 KBytes", " 100 bits/sec"},
        {'a', 102349, 0.9994, " 100 KBytes", "0.999 bits/sec"},
    };
    (void)state;

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        lp_text2_bytes(b, sizeof(b), t[i].bytes, t[i].unit);
        assert_string_equal(b, t[i].xfer);
        lp_text2_rate(b, sizeof(b), t[i].bps, t[i].unit);
        assert_string_equal(b, t[i].rate);
    }
    lp_text2_size(b, sizeof(b), 131072);
    assert_string_equal(b, " 128 KByte");
    lp_text2_size(b, sizeof(b), 16384);
    assert_string_equal(b, "16.0 KByte");
    lp_text2_size(b, sizeof(b), 4194304);
    assert_string_equal(b, "4.00 MByte");
    lp_text2_size(b, sizeof(b), 100);
    assert_string_equal(b, " 100 Byte");
    /* A short buffer is cut, never overrun. */
    lp_text2_rate(b, 6, 5075662, 'b');
    assert_string_equal(b, "50756");
}

/* ---- banners ---- */

/* A linkperf server listens on TCP and UDP, and on a second port: one banner says all. */
static void server_banner(void **state)
{
    struct lp_fmt_opts e = {.unit = 'a', .enhanced = true};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    char want[512];
    (void)state;

    sc_listen(s, 5001, 5201, 131072, 212992);
    sc_listen(s, 5001, 5201, 131072, 212992); /* after each test: printed once */
    /* It serves both; the banner names the -s it was started as (TCP), as 2.1.8's. */
    expect_out(s, DASHES "\n"
                  "Server listening on TCP port 5001 (and 5201)\n"
                  "TCP window size:  128 KByte (default)\n" DASHES "\n");
    sc_free(s);

    /* Buffer sizes unknown: the TCP line alone. -e names the process. */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, &e);
    sc_listen(s, 5001, 0, 0, 0);
    snprintf(want, sizeof(want), DASHES "\nServer listening on TCP port 5001 with pid %ld\n" DASHES "\n",
             (long)getpid());
    expect_out(s, want);
    sc_free(s);
}

/* The client banner waits for START (it names the datagram size and rate); -w shows what was
 * asked for when the kernel gave something else. */
static void client_banner(void **state)
{
    struct lp_fmt_opts e = {.unit = 'a', .enhanced = true};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    char want[1024];
    (void)state;

    s->spec.window_bytes = 65536;
    sc_connecting(s, 25161, 131072, true);
    assert_int_equal(s->k.nout, 0);
    sc_conn(s, 1, TX | INIT, 40000, 25161);
    sc_start(s, 1);
    expect_out(s, DASHES "\n"
                  "Client connecting to 127.0.0.1, TCP port 25161\n"
                  "TCP window size:  128 KByte (WARNING: requested 64.0 KByte)\n" DASHES "\n"
                  "[  1] local 127.0.0.1 port 40000 connected with 127.0.0.1 port 25161\n");
    sc_free(s);

    /* UDP with -e; a rate of 0 (unlimited) has no IPG target. */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, &e);
    s->spec.rate_bps = 0;
    s->spec.streams = 2;
    s->spec.tos = 0x10;
    sc_connecting(s, 5001, 2097152, true); /* -w 1M, got 2M */
    s->spec.window_bytes = 1048576;
    sc_start(s, 0);
    snprintf(want, sizeof(want),
             DASHES "\n"
             "Client connecting to 127.0.0.1, UDP port 5001 with pid %ld (2 flows)\n"
             "TOS set to 0x10 (Nagle on)\n"
             "Sending 1470 byte datagrams\n"
             "UDP buffer size: 2.00 MByte (WARNING: requested 1.00 MByte)\n" DASHES "\n",
             (long)getpid());
    expect_out(s, want);
    sc_free(s);
}

/* ---- record shapes of the engine ---- */

/* -r as the engine emits it: START again when the leg joins, one END at the test's end. */
static void tradeoff_single_end(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    (void)state;

    s->spec.iperf2.tradeoff = true;
    sc_listen(s, 25002, 0, 131072, 0);
    sc_connecting(s, 25001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 57828, 25001), 319, 32741, 49);
    sc_start(s, 1);
    sc_conn(s, 2, RX | REV, 25002, 35996);
    sc_start(s, 2);
    sc_total(s, 1, TX | INIT, 0, 1.0063, GB(3.84), Gb(32.7));
    sc_total(s, 2, RX | REV, 1.0063, 2.0073, GB(3.53), Gb(30.3));
    sc_end(s);
    sc_done(s);
    /* No [SUM]: the legs ran one after the other. */
    expect_out(s, DASHES "\n"
                  "Server listening on TCP port 25002\n"
                  "TCP window size:  128 KByte (default)\n" DASHES "\n" DASHES "\n"
                  "Client connecting to 127.0.0.1, TCP port 25001\n"
                  "TCP window size: 16.0 KByte (default)\n" DASHES "\n"
                  "[  1] local 127.0.0.1 port 57828 connected with 127.0.0.1 port 25001 "
                  "(icwnd/mss/irtt=319/32741/49)\n"
                  "[  2] local 127.0.0.1 port 25002 connected with 127.0.0.1 port 35996\n"
                  "[ ID] Interval       Transfer     Bandwidth\n"
                  "[  1] 0.0000-1.0063 sec  3.84 GBytes  32.7 Gbits/sec\n"
                  "[  2] 1.0063-2.0073 sec  3.53 GBytes  30.3 Gbits/sec\n");
    sc_free(s);
}

/* Full duplex with the engine's numbering (a transfer id per half): one connection line, and
 * each half keeps its own id. A repeated END prints nothing twice. */
static void full_duplex_two_ids(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    (void)state;

    s->spec.dir = LP_DIR_BIDIR;
    sc_conn(s, 1, RX, 5001, 40000);
    sc_conn(s, 2, TX | REV, 5001, 40000);
    sc_start(s, 1);
    sc_start(s, 2);
    sc_sample(s, 1, RX, 0, 1, GB(1), Gb(8.59));
    sc_sample(s, 2, TX | REV, 0, 1, GB(2), Gb(17.2));
    sc_interval(s);
    sc_total(s, 1, RX, 0, 1, GB(1), Gb(8.59));
    sc_total(s, 2, TX | REV, 0, 1, GB(2), Gb(17.2));
    sc_end(s);
    sc_total(s, 1, RX, 0, 1, GB(1), Gb(8.59));
    sc_end(s);
    sc_done(s);
    expect_out(s, "[  1] local 127.0.0.1 port 5001 connected with 127.0.0.1 port 40000 (full-duplex)\n"
                  "[ ID] Interval       Transfer     Bandwidth\n"
                  "[  1] 0.0000-1.0000 sec  1.00 GBytes  8.59 Gbits/sec\n"
                  "[ *2] 0.0000-1.0000 sec  2.00 GBytes  17.2 Gbits/sec\n"
                  "[SUM] 0.0000-1.0000 sec  3.00 GBytes  25.8 Gbits/sec\n"
                  "[  1] 0.0000-1.0000 sec  1.00 GBytes  8.59 Gbits/sec\n"
                  "[ *2] 0.0000-1.0000 sec  2.00 GBytes  17.2 Gbits/sec\n"
                  "[SUM] 0.0000-1.0000 sec  3.00 GBytes  25.8 Gbits/sec\n");
    sc_free(s);
}

/* Several UDP senders: a [SUM-n] count of what they sent, then each server report. A stream
 * whose report never came has no block. */
static void udp_senders_sum(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    struct lp_total *t;
    (void)state;

    s->spec.streams = 2;
    sc_connecting(s, 5001, 212992, false);
    sc_conn(s, 1, TX | INIT, 40001, 5001);
    sc_conn(s, 2, TX | INIT, 40002, 5001);
    sc_start(s, 2);
    sc_total(s, 1, TX | INIT, 0, 1.0117, KB(250), Mb(2.02))->packets = 175;
    sc_total(s, 2, TX | INIT, 0, 1.0116, KB(250), Mb(2.02))->packets = 175;
    t = sc_report(s, 1, TX | INIT, 0, 1.0115, KB(251), Mb(2.03), 0.009, 0, 174);
    t->out_of_order = 1;
    sc_end(s);
    sc_error(s, "WARNING: did not receive ack of last datagram after 10 tries.", false);
    sc_done(s);
    assert_non_null(strstr(s->k.out,
                           "[ ID] Interval       Transfer     Bandwidth\n"
                           "[  1] 0.0000-1.0117 sec   250 KBytes  2.02 Mbits/sec\n"
                           "[  1] Sent 175 datagrams\n"
                           "[  2] 0.0000-1.0116 sec   250 KBytes  2.02 Mbits/sec\n"
                           "[  2] Sent 175 datagrams\n"
                           "[SUM] 0.0000-1.0117 sec   500 KBytes  4.05 Mbits/sec\n"
                           "[SUM-2] Sent 350 datagrams\n"
                           "[  1] Server Report:\n"
                           "[ ID] Interval       Transfer     Bandwidth        Jitter   Lost/Total Datagrams\n"
                           "[  1] 0.0000-1.0115 sec   251 KBytes  2.03 Mbits/sec   0.009 ms 0/174 (0%)\n"
                           "[  1] 0.0000-1.0115 sec  1 datagrams received out-of-order\n"));
    assert_null(strstr(s->k.out, "[  2] Server Report:"));
    /* Two senders: the warning cannot name its stream. */
    assert_string_equal(s->k.err, "WARNING: did not receive ack of last datagram after 10 tries.\n");
    sc_free(s);
}

/* The [SUM] rows print the engine's sums (INTERVAL's sum_both, END's own), not sums the
 * formatter makes of the rows above them: records whose sums differ from their rows' show
 * the sums. */
static void sum_line(char *b, size_t n, double a, double e, uint64_t bytes, double bps)
{
    char x[64], r[64];

    lp_text2_bytes(x, sizeof(x), (double)bytes, 'B');
    lp_text2_rate(r, sizeof(r), bps, 'B');
    snprintf(b, n, "[SUM] %4.4f-%4.4f sec  %s  %s\n", a, e, x, r);
}

static void sums_from_the_engine(void **state)
{
    struct lp_fmt_opts o = {.unit = 'B'};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, &o);
    struct lp_record r = {.kind = LP_REC_INTERVAL};
    struct lp_rec_interval *iv = &r.u.interval;
    char want[256];
    (void)state;

    s->spec.dir = LP_DIR_BIDIR;
    sc_conn(s, 1, RX, 5001, 40000);
    sc_conn(s, 2, TX | REV, 5001, 40000);
    sc_start(s, 2);
    sc_sample(s, 1, RX, 0, 1, 1000, 8000);
    sc_sample(s, 2, TX | REV, 0, 1, 2000, 16000);
    iv->nstreams = s->nsmp;
    iv->streams = s->smp;
    iv->sum = s->smp[0];
    iv->sum_reverse = s->smp[1];
    iv->has_sum_reverse = true;
    iv->sum_both = s->smp[0];
    iv->sum_both.bytes = s->smp[0].bytes + s->smp[1].bytes + 777; /* not the rows' sum */
    iv->sum_both.bits_per_second = 12345;
    iv->sum_both.end_s = 1.25;
    sc_emit(s, &r);
    s->nsmp = 0;
    sum_line(want, sizeof(want), 0, iv->sum_both.end_s, iv->sum_both.bytes, iv->sum_both.bits_per_second);
    assert_non_null(strstr(s->k.out, want));

    struct lp_record e = {.kind = LP_REC_END};
    sc_total(s, 1, RX, 0, 1, 1000, 8000);
    sc_total(s, 2, TX | REV, 0.5, 2, 2000, 16000);
    e.u.end.nstreams = s->nend;
    e.u.end.streams = s->end;
    e.u.end.bidir = true;
    lp_totals_own(s->end, s->nend, &e.u.end.own);
    e.u.end.own.sum.bytes += 555;
    e.u.end.own.sum.bits_per_second *= 3;
    sc_emit(s, &e);
    const struct lp_total *own = &e.u.end.own.sum;
    sum_line(want, sizeof(want), own->start_s, own->end_s, own->bytes, own->bits_per_second);
    assert_non_null(strstr(s->k.out, want));
    sc_free(s);

    /* "[SUM-n] Sent N datagrams": n and N are END's. */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, &o);
    s->spec.streams = 2;
    sc_conn(s, 1, TX | INIT, 40001, 5001);
    sc_conn(s, 2, TX | INIT, 40002, 5001);
    sc_start(s, 2);
    sc_total(s, 1, TX | INIT, 0, 1, 14700, 117600)->packets = 10;
    sc_total(s, 2, TX | INIT, 0, 1, 14700, 117600)->packets = 10;
    memset(&e, 0, sizeof(e));
    e.kind = LP_REC_END;
    e.u.end.nstreams = s->nend;
    e.u.end.streams = s->end;
    lp_totals_own(s->end, s->nend, &e.u.end.own);
    e.u.end.own.udp_sent += 11;
    sc_emit(s, &e);
    snprintf(want, sizeof(want), "[SUM-%u] Sent %" PRIu64 " datagrams\n", e.u.end.own.udp_senders,
             e.u.end.own.udp_sent);
    assert_non_null(strstr(s->k.out, want));
    sc_free(s);
}

/* ---- errors ---- */

static void errors(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    (void)state;

    /* Refused: the banner iperf2 shows before connecting, then the error on stderr. */
    sc_connecting(s, 25198, 16384, false);
    sc_error(s, "unable to connect to server 127.0.0.1 port 25198: Connection refused", true);
    sc_done(s);
    expect_out(s, DASHES "\n"
                  "Client connecting to 127.0.0.1, TCP port 25198\n"
                  "TCP window size: 16.0 KByte (default)\n" DASHES "\n");
    assert_string_equal(s->k.err, "linkperf: error - unable to connect to server 127.0.0.1 port 25198: "
                                  "Connection refused\n");
    sc_free(s);

    /* A one-sender UDP test: the warning names the stream, like 2.1.8's "[  3] WARNING". */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    sc_connecting(s, 25198, 212992, false);
    sc_conn(s, 1, TX | INIT, 49541, 25198);
    sc_start(s, 1);
    sc_total(s, 1, TX | INIT, 0, 0.3032, KB(40.2), Mb(1.09))->packets = 29;
    sc_end(s);
    sc_error(s, "WARNING: did not receive ack of last datagram after 10 tries.", false);
    sc_error(s, "interrupt - the client has terminated", false);
    sc_done(s);
    assert_non_null(strstr(s->k.out, "[  1] 0.0000-0.3032 sec  40.2 KBytes  1.09 Mbits/sec\n"
                                     "[  1] Sent 29 datagrams\n"));
    assert_null(strstr(s->k.out, "Server Report"));
    assert_string_equal(s->k.err, "[  1] WARNING: did not receive ack of last datagram after 10 tries.\n"
                                  "interrupt - the client has terminated\n");
    sc_free(s);
}

/* ---- options ---- */

static struct sc *udp_client_run(const struct lp_fmt_opts *o)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, o);

    sc_connecting(s, 5001, 212992, false);
    sc_conn(s, 1, TX | INIT, 40000, 5001);
    sc_start(s, 1);
    sc_sample(s, 1, TX | INIT, 0, 0.5, KB(64), Mb(1.05))->packets = 45;
    sc_interval(s);
    sc_total(s, 1, TX | INIT, 0, 1.0209, KB(134), Mb(1.07))->packets = 92;
    sc_report(s, 1, TX | INIT, 0, 1.0211, KB(134), Mb(1.07), 0.026, 0, 93);
    sc_end(s);
    sc_done(s);
    return s;
}

static void exclusions(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a'};
    struct sc *s;
    (void)state;

    snprintf(o.exclude, sizeof(o.exclude), "S");
    s = udp_client_run(&o);
    assert_null(strstr(s->k.out, DASHES));
    assert_null(strstr(s->k.out, "Client connecting"));
    assert_non_null(strstr(s->k.out, "[  1] local"));
    sc_free(s);

    snprintf(o.exclude, sizeof(o.exclude), "c");
    s = udp_client_run(&o);
    assert_null(strstr(s->k.out, "[  1] local"));
    assert_non_null(strstr(s->k.out, "Client connecting"));
    assert_non_null(strstr(s->k.out, "[  1] 0.0000-0.5000 sec"));
    sc_free(s);

    /* D: no data rows of this end; the server's report is V's. */
    snprintf(o.exclude, sizeof(o.exclude), "D");
    s = udp_client_run(&o);
    assert_null(strstr(s->k.out, "0.0000-0.5000"));
    assert_null(strstr(s->k.out, "Sent 92"));
    assert_non_null(strstr(s->k.out, "[  1] Server Report:\n"));
    assert_non_null(strstr(s->k.out, "[  1] 0.0000-1.0211 sec   134 KBytes  1.07 Mbits/sec   0.026 ms 0/93 (0%)\n"));
    sc_free(s);

    snprintf(o.exclude, sizeof(o.exclude), "V");
    s = udp_client_run(&o);
    assert_null(strstr(s->k.out, "Server Report"));
    assert_null(strstr(s->k.out, "0.026 ms"));
    assert_non_null(strstr(s->k.out, "[  1] Sent 92 datagrams\n"));
    sc_free(s);

    /* M (multicast) changes nothing here; all of them leave nothing. */
    snprintf(o.exclude, sizeof(o.exclude), "M");
    s = udp_client_run(&o);
    {
        struct sc *plain = udp_client_run(NULL);
        assert_string_equal(s->k.out, plain->k.out);
        sc_free(plain);
    }
    sc_free(s);
    snprintf(o.exclude, sizeof(o.exclude), "CDMSV");
    s = udp_client_run(&o);
    assert_int_equal(s->k.nout, 0);
    sc_free(s);
}

/* -m: 2.1.8's one banner line (test_fmt_text2_banner compares it with captures), and no
 * line after any connection's report, whatever MSS the connections got. */
static void print_mss(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .print_mss = true};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, &o);
    const char *rows;
    (void)state;

    s->spec.dir = LP_DIR_BIDIR;
    sc_connecting(s, 5001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 40000, 5001), 10, 1448, 300);
    sc_tcpinfo(sc_conn(s, 2, RX | INIT | REV, 40000, 5001), 10, 1448, 300);
    sc_tcpinfo(sc_conn(s, 3, TX | INIT, 40003, 5001), 319, 32741, 40);
    sc_start(s, 3);
    sc_total(s, 1, TX | INIT, 0, 1, MB(100), Mb(839));
    sc_total(s, 2, RX | INIT | REV, 0, 1, MB(100), Mb(839));
    sc_total(s, 3, TX | INIT, 0, 1, MB(100), Mb(839));
    sc_end(s);
    assert_non_null(strstr(s->k.out, "Client connecting to 127.0.0.1, TCP port 5001\n"
                                     "MSS size 536 bytes\n"
                                     "TCP window size: 16.0 KByte (default)\n"));
    rows = strstr(s->k.out, "[ ID]");
    assert_non_null(rows);
    assert_null(strstr(rows, "MSS"));
    sc_free(s);

    /* UDP: "MSS size 0 bytes", and nothing after. */
    s = udp_client_run(&o);
    rows = strstr(s->k.out, "MSS size 0 bytes\n");
    assert_non_null(rows);
    assert_null(strstr(rows + 1, "MSS"));
    sc_free(s);
}

/* -e: the [SUM] rows continue the sender columns (2.1.8 -e -P 2). */
static void enhanced_sums(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .enhanced = true};
    struct block b;
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, &o);
    struct lp_sample *m;
    (void)state;

    s->spec.streams = 2;
    sc_conn(s, 2, TX | INIT, 33534, 25164);
    sc_conn(s, 1, TX | INIT, 33530, 25164);
    sc_start(s, 2);
    m = sc_sample(s, 2, TX | INIT, 0, 0.25, MB(587), 28293476.0 * 87 * 8);
    m->has_tcp_info = true, m->snd_cwnd = 1023 * 1024, m->rtt_us = 87, m->rttvar_us = 24;
    m = sc_sample(s, 1, TX | INIT, 0, 0.25, MB(566), 33458439.0 * 71 * 8);
    m->has_tcp_info = true, m->snd_cwnd = 895 * 1024, m->rtt_us = 71, m->rttvar_us = 7;
    s->sum_set = true, s->sum_bytes = GB(1.13), s->sum_bps = Gb(38.7);
    sc_interval(s);
    sc_done(s);
    block_load(&b, CAP2, "TCP -e -P 2 with -i 0.25", "### client");
    /* The rows as 2.1.8 printed them, Write/Err aside. */
    assert_non_null(strstr(s->k.out, "[  2] 0.0000-0.2500 sec   587 MBytes  19.7 Gbits/sec  -/-          0     "
                                     "1023K/87(24) us  28293476\n"));
    assert_non_null(strstr(block_line(&b, "[  2] 0.0000-0.2500"), "          0     1023K/87(24) us  28293476"));
    assert_non_null(strstr(s->k.out, "[SUM] 0.0000-0.2500 sec  1.13 GBytes  38.7 Gbits/sec  -/-         0\n"));
    assert_string_equal(block_line(&b, "[SUM] 0.0000-0.2500"),
                        "[SUM] 0.0000-0.2500 sec  1.13 GBytes  38.7 Gbits/sec  9226/0         0");
    block_free(&b);
    sc_free(s);

    /* UDP senders: datagrams and packets per second. */
    s = udp_client_run(&o);
    assert_non_null(strstr(s->k.out, "[ ID] Interval            Transfer     Bandwidth      Write/Err  PPS\n"
                                     "[  1] 0.0000-0.5000 sec  64.0 KBytes  1.05 Mbits/sec  45/-       90 pps\n"));
    assert_non_null(strstr(s->k.out, "[  1] 0.0000-1.0209 sec   134 KBytes  1.07 Mbits/sec  92/-       90 pps\n"
                                     "[  1] Sent 92 datagrams\n"));
    sc_free(s);
}

/* -e connection lines: socket, the peer's version, the start time. */
static void enhanced_connection(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .enhanced = true};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, &o);
    struct lp_stream_conn *c;
    (void)state;

    s->start_time = (time_t)utc(2026, 11, 30, 13, 13, 34);
    c = sc_conn(s, 1, RX, 25001, 43750);
    c->sid.socket = 3;
    snprintf(c->peer_version, sizeof(c->peer_version), "2.1.8");
    sc_start(s, 1);
    expect_out(s, "[  1] local 127.0.0.1 port 25001 connected with 127.0.0.1 port 43750 (sock=3) (peer 2.1.8) "
                  "on 2026-11-30 13:13:34 (UTC)\n");
    sc_free(s);
}

/* --timestamps and a title prefix stdout lines; errors get the time but not the title. */
static void prefixes(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .timestamps = true, .title = "lab"};
    struct sc *s;
    (void)state;

    snprintf(o.timestamp_format, sizeof(o.timestamp_format), "%%H:%%M:%%S ");
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, &o);
    s->wall = utc(2026, 11, 30, 9, 8, 7);
    sc_conn(s, 1, RX, 5001, 40000);
    sc_start(s, 1);
    sc_error(s, "boom", true);
    expect_out(s, "09:08:07 lab:  [  1] local 127.0.0.1 port 5001 connected with 127.0.0.1 port 40000\n");
    assert_string_equal(s->k.err, "09:08:07 linkperf: error - boom\n");
    sc_free(s);
}

/* ---- iperf3-dialect tests in the iperf2 look ---- */

static void iperf3_dialect(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct lp_stream_end *e;
    (void)state;

    /* TCP after the results exchange: both rows known, this end's printed. */
    s->spec.dialect = LP_DIALECT_IPERF3;
    s->spec.port = 5201;
    sc_connecting(s, 5201, 16384, false);
    sc_conn(s, 1, TX | INIT, 40000, 5201)->sid.socket = 5;
    sc_start(s, 1);
    sc_sample(s, 1, TX | INIT, 0, 1, GB(2.5), Gb(21.5))->omitted = true; /* -O: left out */
    sc_interval(s);
    sc_sample(s, 1, TX | INIT, 0, 1, GB(2.5), Gb(21.5));
    sc_interval(s);
    sc_total(s, 1, TX | INIT, 0, 1, GB(2.5), Gb(21.5));
    e = &s->end[0];
    total_set(s, &e->receiver, 0, 1.0004, GB(2.49), Gb(21.4));
    sc_end(s);
    sc_done(s);
    expect_out(s, DASHES "\n"
                  "Client connecting to 127.0.0.1, TCP port 5201\n"
                  "TCP window size: 16.0 KByte (default)\n" DASHES "\n"
                  "[  1] local 127.0.0.1 port 40000 connected with 127.0.0.1 port 5201\n"
                  "[ ID] Interval       Transfer     Bandwidth\n"
                  "[  1] 0.0000-1.0000 sec  2.50 GBytes  21.5 Gbits/sec\n"
                  "[  1] 0.0000-1.0000 sec  2.50 GBytes  21.5 Gbits/sec\n");
    sc_free(s);

    /* --bidir over two connections: the reverse one says so; the receiving stream is marked.
     * An iperf3 UDP receiver row of a sent stream is its report. */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    s->spec.dialect = LP_DIALECT_IPERF3;
    s->spec.dir = LP_DIR_BIDIR;
    sc_conn(s, 1, TX | INIT, 40000, 5201);
    sc_conn(s, 3, RX | INIT | REV, 40001, 5201);
    sc_start(s, 2);
    sc_total(s, 1, TX | INIT, 0, 10, MB(1.25), Mb(1.05))->packets = 896;
    sc_report(s, 1, TX | INIT, 0, 10.04, MB(1.25), Mb(1.04), 0.01, 2, 896);
    total_udp_rx(sc_total(s, 3, RX | INIT | REV, 0, 10.04, MB(1.25), Mb(1.04)), 0.02, 0, 896);
    sc_end(s);
    assert_non_null(strstr(s->k.out, "[  3] local 127.0.0.1 port 40001 connected with 127.0.0.1 port 5201 (reverse)\n"));
    assert_non_null(strstr(s->k.out, "[ *3] 0.0000-10.0400 sec  1.25 MBytes  1.04 Mbits/sec   0.020 ms 0/896 (0%)\n"));
    assert_non_null(strstr(s->k.out, "[  1] Server Report:\n"));
    assert_non_null(strstr(s->k.out, "[  1] 0.0000-10.0400 sec  1.25 MBytes  1.04 Mbits/sec   0.010 ms 2/896 (0.22%)\n"));
    sc_free(s);
}

/* ---- robustness ---- */

static void odd_records(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct lp_record r = {.kind = LP_REC_START};
    struct lp_stream_conn *c;
    char *nl;
    (void)state;

    /* Rows before any START, a START without spec, an END with nothing present. */
    sc_sample(s, 7, RX, 0, 1, 1000, 8000);
    sc_interval(s);
    sc_emit(s, &r);
    sc_end_of(s, 7, RX);
    sc_end(s);
    expect_out(s, "[ ID] Interval       Transfer     Bandwidth\n"
                  "[  7] 0.0000-1.0000 sec  1000 Bytes  8.00 Kbits/sec\n");
    sc_free(s);

    /* A host name near LP_HOST_MAX: the line is cut, still one line with its newline. */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    c = sc_conn(s, 1, RX, 5001, 40000);
    memset(c->remote.host, 'h', sizeof(c->remote.host) - 1);
    c->remote.host[sizeof(c->remote.host) - 1] = '\0';
    memset(c->local.host, 'l', sizeof(c->local.host) - 1);
    c->local.host[sizeof(c->local.host) - 1] = '\0';
    sc_start(s, 1);
    nl = strchr(s->k.out, '\n');
    assert_non_null(nl);
    assert_int_equal(nl[1], '\0');
    sc_free(s);

    /* Null arguments are ignored. */
    lp_fmt_record(NULL, &r);
    lp_fmt_free(NULL);
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    lp_fmt_record(s->f, NULL);
    sc_free(s);
}

/* ---- JPerf 2.0.2 ---- */

/* What JPerf does with each stdout line: -1 ignored, else its token count. */
static int jperf(const char *l)
{
    char tok[24][32];
    int n;

    if (!jperf_matches(l))
        return -1;
    n = jperf_tokens(l, tok, 24);
    if (n == 9) {
        /* start, end and bandwidth must parse as numbers, the unit is a rate. */
        char *e;
        for (int i = 2; i <= 7; i += (i == 3 ? 4 : 1)) {
            strtod(tok[i], &e);
            assert_true(*tok[i] && !*e);
        }
        assert_non_null(strstr(tok[8], "/sec"));
    }
    return n;
}

struct jp {
    int n, tok[64];
};

static void jperf_text(const char *text, struct jp *j)
{
    char *copy = strdup(text), *save = NULL;

    j->n = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        assert_true(j->n < 64);
        j->tok[j->n++] = jperf(l);
    }
    free(copy);
}

static void jperf_block(struct block *b, struct jp *j)
{
    j->n = 0;
    for (int i = 0; i < b->n; i++)
        j->tok[j->n++] = jperf(b->line[i]);
}

/* JPerf sees our lines as it sees 2.1.8's: TCP and UDP sender rows are its 9-token rows;
 * UDP receiver rows have 13 tokens ("0/895" is one), so JPerf skips them for both (it wants
 * 14, which only 2.0.5's "   0/  895" spacing gives); [SUM], [ *N], Sent and report lines are
 * not matched at all. */
static void jperf_parsability(void **state)
{
    struct jp ours, theirs;
    struct block b;
    struct sc *s;
    int nine = 0, thirteen = 0;
    (void)state;

    /* TCP client with intervals, against tcp_i. */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    sc_tcp_i_client(s);
    jperf_text(s->k.out, &ours);
    block_load(&b, CAP, "tcp_i", "### client");
    jperf_block(&b, &theirs);
    assert_int_equal(ours.n, theirs.n);
    assert_memory_equal(ours.tok, theirs.tok, sizeof(int) * (size_t)ours.n);
    for (int i = 0; i < ours.n; i++)
        nine += ours.tok[i] == 9;
    assert_int_equal(nine, 4);
    block_free(&b);
    sc_free(s);

    /* UDP server with intervals, against udp_i: the same lines, its receiver rows 13 tokens. */
    s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    sc_udp_i_server(s);
    jperf_text(s->k.out, &ours);
    block_load(&b, CAP, "udp_i", "### server");
    jperf_block(&b, &theirs);
    assert_int_equal(ours.n, theirs.n);
    assert_memory_equal(ours.tok, theirs.tok, sizeof(int) * (size_t)ours.n);
    for (int i = 0; i < ours.n; i++)
        thirteen += ours.tok[i] == 13;
    assert_int_equal(thirteen, 4);
    block_free(&b);
    sc_free(s);

    /* 2.0.5's padded receiver row is the one JPerf charts. */
    assert_int_equal(jperf("[  3]  0.0- 0.5 sec  60.3 KBytes   988 Kbits/sec   0.010 ms    0/   42 (0%)"), 14);
    /* The lines JPerf never matches, ours and 2.1.8's alike. */
    assert_int_equal(jperf("[SUM] 0.0000-1.0030 sec  4.51 GBytes  38.6 Gbits/sec"), -1);
    assert_int_equal(jperf("[ *1] 0.0000-1.0013 sec  2.60 GBytes  22.3 Gbits/sec"), -1);
    assert_int_equal(jperf("[  1] Sent 896 datagrams"), -1);
    assert_int_equal(jperf("[  1] Server Report:"), -1);
    assert_int_equal(jperf("[  1] local 127.0.0.1 port 45586 connected with 127.0.0.1 port 25001"), -1);
    assert_int_equal(jperf("[  1] MSS size 1448 bytes (MTU 1500 bytes, ethernet)"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(units),
        cmocka_unit_test(server_banner),
        cmocka_unit_test(client_banner),
        cmocka_unit_test(tradeoff_single_end),
        cmocka_unit_test(full_duplex_two_ids),
        cmocka_unit_test(udp_senders_sum),
        cmocka_unit_test(sums_from_the_engine),
        cmocka_unit_test(errors),
        cmocka_unit_test(exclusions),
        cmocka_unit_test(print_mss),
        cmocka_unit_test(enhanced_sums),
        cmocka_unit_test(enhanced_connection),
        cmocka_unit_test(prefixes),
        cmocka_unit_test(iperf3_dialect),
        cmocka_unit_test(odd_records),
        cmocka_unit_test(jperf_parsability),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}

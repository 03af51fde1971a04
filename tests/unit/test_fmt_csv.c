/* iperf2 -y C against real iperf 2.1.8 CSV. Records carry the captured numbers (CSV prints
 * exact byte counts and rates, so nothing is rounded here); the lines must equal the
 * capture's, field for field. Where 2.1.8 prints a known bug (1970 time stamps on final
 * lines, total -1 on a UDP sender's final line, "::,0" for a full-duplex peer) the capture is
 * edited to the correct value first, one named edit each. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_fmt_text2_util.h"

static void exact_sample(struct sc *s, int id, unsigned flags, double st, double en, uint64_t bytes,
                         double bps)
{
    sc_sample(s, id, flags, st, en, (double)bytes, bps);
}

/* ---- TCP ---- */

static void tcp_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    sc_conn(s, 1, RX, 25001, 55566);
    sc_start(s, 1);
    s->wall = utc(2026, 11, 30, 13, 15, 45);
    exact_sample(s, 1, RX, 0, 0.5, 1948558469, 31176935504.0);
    sc_interval(s);
    exact_sample(s, 1, RX, 0.5, 1.0, 1812178788, 28994860608.0);
    sc_interval(s);
    sc_total(s, 1, RX, 0, 1.0011, 3766878268.0, 30101853901.0);
    sc_end(s);
    block_load(&b, CAP, "tcp_csv", "### server");
    sc_finish(s, &b);
}

static void tcp_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    sc_connecting(s, 25001, 16384, false);
    sc_conn(s, 1, TX | INIT, 55566, 25001);
    sc_start(s, 1);
    s->wall = utc(2026, 11, 30, 13, 15, 45);
    exact_sample(s, 1, TX | INIT, 0, 0.5, 1954545724, 31272731584.0);
    sc_interval(s);
    exact_sample(s, 1, TX | INIT, 0.5, 1.0, 1812201472, 28995223552.0);
    sc_interval(s);
    sc_total(s, 1, TX | INIT, 0, 1.0017, 3766878268.0, 30084334041.0);
    sc_end(s);
    block_load(&b, CAP, "tcp_csv", "### client");
    sc_finish(s, &b);
}

/* -e: milliseconds after the time (2.1.8's final lines say 19700101000000.000). */
static void tcp_enhanced(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .enhanced = true};
    struct block b;
    (void)state;

    for (int side = 0; side < 2; side++) {
        struct sc *s = sc_new(LP_FMT_CSV, side ? LP_ROLE_CLIENT : LP_ROLE_SERVER, LP_PROTO_TCP, &o);
        bool client = side == 1;
        sc_conn(s, 1, client ? TX | INIT : RX, client ? 55578 : 25001, client ? 25001 : 55578);
        sc_start(s, 1);
        s->wall = utc(2026, 11, 30, 13, 15, 50) + 0.509;
        sc_total(s, 1, client ? TX | INIT : RX, 0, 0.5, 1729757244.0,
                 client ? 27539739115.0 : 27652776960.0);
        sc_end(s);
        block_load(&b, CAP, "tcp_csv_e", client ? "### client" : "### server");
        {
            char fixed[256];
            snprintf(fixed, sizeof(fixed), "20261130131550.509%s", strchr(b.line[0], ','));
            block_replace(&b, b.line[0], fixed);
        }
        sc_finish(s, &b);
    }
}

static void tcp_enhanced_intervals(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .enhanced = true};
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_SERVER, LP_PROTO_TCP, &o);
    struct block b;
    (void)state;

    sc_conn(s, 1, RX, 25140, 54476);
    sc_start(s, 1);
    s->wall = utc(2026, 11, 30, 16, 46, 34) + 0.706;
    exact_sample(s, 1, RX, 0, 0.25, 569507794, 18224249408.0);
    sc_interval(s);
    s->wall += 0.25;
    exact_sample(s, 1, RX, 0.25, 0.5, 580190261, 18566088352.0);
    sc_interval(s);
    sc_total(s, 1, RX, 0, 0.5004, 1150287932.0, 18390997573.0);
    sc_end(s);
    block_load(&b, CAP2, "tcp_csv -e with -i 0.25", "### server");
    sc_finish(s, &b);
}

/* -P 2: one line per stream, no [SUM] line (2.1.8 prints none). */
static void tcp_p2(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.streams = 2;
    sc_conn(s, 2, TX | INIT, 60258, 25134);
    sc_conn(s, 1, TX | INIT, 60248, 25134);
    sc_start(s, 2);
    s->wall = utc(2026, 11, 30, 16, 46, 8);
    exact_sample(s, 2, TX | INIT, 0, 0.25, 538837052, 17242785664.0);
    exact_sample(s, 1, TX | INIT, 0, 0.25, 459931708, 14717814656.0);
    sc_interval(s);
    exact_sample(s, 2, TX | INIT, 0.25, 0.5, 604766208, 19352518656.0);
    exact_sample(s, 1, TX | INIT, 0.25, 0.5, 468844544, 15003025408.0);
    sc_interval(s);
    sc_total(s, 2, TX | INIT, 0, 0.5034, 1143734332.0, 18173227303.0);
    sc_total(s, 1, TX | INIT, 0, 0.5028, 928907324.0, 14781661495.0);
    sc_end(s);
    block_load(&b, CAP2, "tcp_csv -P 2 (client -i 0.25)", "### client");
    sc_finish(s, &b);
}

static void tcp_p2_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.streams = 2;
    sc_conn(s, 1, RX, 25134, 60248);
    sc_conn(s, 2, RX, 25134, 60258);
    sc_start(s, 2);
    s->wall = utc(2026, 11, 30, 16, 46, 8);
    sc_total(s, 1, RX, 0, 0.5023, 928907324.0, 14793431857.0);
    sc_total(s, 2, RX, 0, 0.5010, 1143734332.0, 18261035915.0);
    sc_end(s);
    block_load(&b, CAP2, "tcp_csv -P 2 (client -i 0.25)", "### server");
    /* 2.1.8 stamps final lines without -i with the epoch. */
    block_replace(&b, "19700101000000,127.0.0.1,60248,127.0.0.1,25134,1,0.0-0.5,928907324,14793431857",
                  "20261130164608,127.0.0.1,60248,127.0.0.1,25134,1,0.0-0.5,928907324,14793431857");
    block_replace(&b, "19700101000000,127.0.0.1,60258,127.0.0.1,25134,2,0.0-0.5,1143734332,18261035915",
                  "20261130164608,127.0.0.1,60258,127.0.0.1,25134,2,0.0-0.5,1143734332,18261035915");
    sc_finish(s, &b);
}

/* -d: the data's source first, so the server's leg names the server first. */
static void tcp_dual(void **state)
{
    struct block b;
    (void)state;

    for (int side = 0; side < 2; side++) {
        bool client = side == 1;
        struct sc *s = sc_new(LP_FMT_CSV, client ? LP_ROLE_CLIENT : LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
        s->spec.iperf2.dual = true;
        if (client) {
            sc_conn(s, 1, TX | INIT, 42938, 25135);
            sc_conn(s, 2, RX | REV, 25136, 52334);
        } else {
            sc_conn(s, 1, RX, 25135, 42938);
            sc_conn(s, 2, TX | INIT | REV, 52334, 25136);
        }
        sc_start(s, 1);
        sc_start(s, 2);
        s->wall = utc(2026, 11, 30, 16, 46, 10);
        sc_total(s, 1, client ? TX | INIT : RX, 0, 0.5, 1207828540.0,
                 client ? 19211104258.0 : 19270682068.0);
        sc_total(s, 2, client ? RX | REV : TX | INIT | REV, 0, 0.5, 1212022784.0,
                 client ? 19455556190.0 : 18839646980.0);
        sc_end(s);
        block_load(&b, CAP2, "tcp_csv -d", client ? "### client" : "### server");
        for (int i = 0; i < b.n; i++)
            if (starts(b.line[i], "19700101000000,")) {
                char fixed[256];
                snprintf(fixed, sizeof(fixed), "20261130164610%s", b.line[i] + 14);
                block_replace(&b, b.line[i], fixed);
            }
        if (!client) {
            /* 2.1.8 printed the leg's text banner among its CSV lines. */
            block_delete(&b, "Client connecting to 127.0.0.1, TCP port 25136");
            block_delete(&b, "TCP window size: 4.00 MByte (default)");
            block_delete(&b, DASHES);
            block_delete(&b, DASHES);
        }
        sc_finish(s, &b);
    }
}

/* Full duplex: one connection, each half names its own data source first. */
static void tcp_full_duplex(void **state)
{
    struct block b;
    (void)state;

    for (int side = 0; side < 2; side++) {
        bool client = side == 1;
        struct sc *s = sc_new(LP_FMT_CSV, client ? LP_ROLE_CLIENT : LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
        s->spec.dir = LP_DIR_BIDIR;
        if (client) {
            sc_conn(s, 1, TX | INIT, 59206, 25138);
            sc_conn(s, 1, RX | INIT | REV, 59206, 25138);
        } else {
            sc_conn(s, 1, RX, 25138, 59206);
            sc_conn(s, 1, TX | REV, 25138, 59206);
        }
        sc_start(s, 2);
        s->wall = utc(2026, 11, 30, 16, 46, 12);
        if (client) {
            sc_total(s, 1, RX | INIT | REV, 0, 0.5, 931921920.0, 14831343705.0);
            sc_total(s, 1, TX | INIT, 0, 0.5, 401735740.0, 6427463321.0);
        } else {
            sc_total(s, 1, RX, 0, 0.5, 401735740.0, 6392548895.0);
            sc_total(s, 1, TX | REV, 0, 0.5, 931921920.0, 14909915764.0);
        }
        sc_end(s);
        block_load(&b, CAP2, "tcp_csv --full-duplex", client ? "### client" : "### server");
        for (int i = 0; i < b.n; i++) {
            char fixed[256];
            snprintf(fixed, sizeof(fixed), "20261130164612%s", b.line[i] + 14);
            block_replace(&b, b.line[i], fixed);
        }
        if (client) /* 2.1.8 did not know the peer of the receiving half */
            block_replace(&b, "20261130164612,127.0.0.1,25138,::,0,1,0.0-0.5,931921920,14831343705",
                          "20261130164612,127.0.0.1,25138,127.0.0.1,59206,1,0.0-0.5,931921920,14831343705");
        sc_finish(s, &b);
    }
}

/* ---- UDP ---- */

static void udp_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    struct lp_sample *m;
    struct block b;
    (void)state;

    sc_conn(s, 1, RX, 25001, 50786);
    sc_start(s, 1);
    s->wall = utc(2026, 11, 30, 13, 15, 48);
    m = sc_sample(s, 1, RX, 0, 0.5, 127890, 2046240);
    sc_udp_rx(m, 0.002, 0, 87);
    sc_interval(s);
    s->wall += 1;
    sc_udp_rx(sc_sample(s, 1, RX, 0.5, 1.0, 124950, 1999200), 0.002, 0, 85);
    sc_interval(s);
    total_udp_rx(sc_total(s, 1, RX, 0, 1.0114, 255780, 2023087), 0.002, 0, 174);
    sc_end(s);
    block_load(&b, CAP, "udp_csv", "### server");
    sc_finish(s, &b);
}

static void udp_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.rate_bps = 2000000;
    sc_connecting(s, 25001, 212992, false);
    sc_conn(s, 1, TX | INIT, 50786, 25001);
    sc_start(s, 1);
    s->wall = utc(2026, 11, 30, 13, 15, 48);
    sc_sample(s, 1, TX | INIT, 0, 0.5, 127890, 2046240)->packets = 87;
    sc_interval(s);
    s->wall += 1;
    sc_sample(s, 1, TX | INIT, 0.5, 1.0, 124950, 1999200)->packets = 85;
    sc_interval(s);
    sc_total(s, 1, TX | INIT, 0, 1.0115, 255780, 2023051)->packets = 174;
    /* The server's report is in the records; 2.1.8 prints no line for it in CSV. */
    sc_report(s, 1, TX | INIT, 0, 1.0114, 255780, 2023087, 0.002, 0, 174);
    sc_end(s);
    block_load(&b, CAP, "udp_csv", "### client");
    /* A sender's final line has its datagram count (2.1.8: -1 and -0.000). */
    block_replace(&b, "20261130131549,127.0.0.1,50786,127.0.0.1,25001,1,0.0-1.0,255780,2023051,0.000,0,-1,-0.000,0",
                  "20261130131549,127.0.0.1,50786,127.0.0.1,25001,1,0.0-1.0,255780,2023051,0.000,0,174,0.000,0");
    sc_finish(s, &b);
}

/* -R: the server sends, so it is the source on both ends' lines. */
static void udp_reverse(void **state)
{
    struct block b;
    (void)state;

    for (int side = 0; side < 2; side++) {
        bool client = side == 1;
        struct sc *s = sc_new(LP_FMT_CSV, client ? LP_ROLE_CLIENT : LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
        s->spec.dir = LP_DIR_REVERSE;
        if (client)
            sc_conn(s, 1, RX | INIT | REV, 52220, 25137);
        else
            sc_conn(s, 1, TX | REV, 25137, 52220);
        sc_start(s, 1);
        s->wall = utc(2026, 11, 30, 16, 46, 11);
        if (client)
            total_udp_rx(sc_total(s, 1, RX | INIT | REV, 0, 0.5162, 69090, 1072072), 0.065, 0, 47);
        else
            sc_total(s, 1, TX | REV, 0, 0.5162, 69090, 1070812)->packets = 47;
        sc_end(s);
        block_load(&b, CAP2, "udp_csv -R", client ? "### client" : "### server");
        if (client) {
            block_replace(&b, b.line[0], "20261130164611,127.0.0.1,25137,127.0.0.1,52220,1,0.0-0.5,69090,1072072,0.065,0,47,0.000,0");
        } else {
            assert_string_equal(b.line[0], "19700101000000,127.0.0.1,25137,127.0.0.1,52220,1,0.0-0.5,69090,1070812,0.000,0,-1,-0.000,0");
            block_replace(&b, b.line[0], "20261130164611,127.0.0.1,25137,127.0.0.1,52220,1,0.0-0.5,69090,1070812,0.000,0,47,0.000,0");
        }
        sc_finish(s, &b);
    }
}

static void udp_enhanced_intervals(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .enhanced = true};
    struct block b;
    (void)state;

    for (int side = 0; side < 2; side++) {
        bool client = side == 1;
        unsigned fl = client ? TX | INIT : RX;
        struct sc *s = sc_new(LP_FMT_CSV, client ? LP_ROLE_CLIENT : LP_ROLE_SERVER, LP_PROTO_UDP, &o);
        struct lp_sample *m;
        if (client)
            sc_conn(s, 1, fl, 48967, 25139);
        else
            sc_conn(s, 1, fl, 25139, 48967);
        sc_start(s, 1);
        s->wall = utc(2026, 11, 30, 16, 46, 32) + 0.509;
        m = sc_sample(s, 1, fl, 0, 0.25, 35280, 1128960);
        if (client)
            m->packets = 24;
        else
            sc_udp_rx(m, 0.031, 0, 24);
        sc_interval(s);
        s->wall += 0.25;
        m = sc_sample(s, 1, fl, 0.25, 0.5, 32340, 1034880);
        if (client)
            m->packets = 22;
        else
            sc_udp_rx(m, 0.060, 0, 22);
        sc_interval(s);
        if (client)
            sc_total(s, 1, fl, 0, 0.5162, 70560, 1093343)->packets = 48;
        else
            total_udp_rx(sc_total(s, 1, fl, 0, 0.5161, 70560, 1093508), 0.061, 0, 48);
        sc_end(s);
        block_load(&b, CAP2, "udp_csv -e with -i 0.25", client ? "### client" : "### server");
        if (client)
            block_replace(&b, "20261130164632.759,127.0.0.1,48967,127.0.0.1,25139,1,0.0-0.5,70560,1093343,0.000,0,-1,-0.000,0",
                          "20261130164632.759,127.0.0.1,48967,127.0.0.1,25139,1,0.0-0.5,70560,1093343,0.000,0,48,0.000,0");
        sc_finish(s, &b);
    }
}

/* ---- fields ---- */

static int fields(const char *l)
{
    int n = 1;

    for (; *l; l++)
        n += *l == ',';
    return n;
}

struct csv_census {
    int tcp, udp;
};

/* Every CSV line 2.1.8 printed (both evidence files): 9 fields for TCP, 14 for UDP, in the
 * same shapes our lines have. */
static void each_csv_line(const char *l, void *arg)
{
    struct csv_census *c = arg;
    size_t d = strspn(l, "0123456789");

    /* YYYYMMDDHHMMSS, with -e .mmm, then a comma. */
    if (d == 14 && l[d] == '.' && strspn(l + d + 1, "0123456789") == 3)
        d += 4;
    if ((d != 14 && d != 18) || l[d] != ',')
        return;
    assert_true(fields(l) == 9 || fields(l) == 14);
    if (fields(l) == 9)
        c->tcp++;
    else
        c->udp++;
}

/* Field by field: time, address, port, address, port, id, a-b, bytes, rate[, jitter, lost,
 * total, percent, out-of-order]. */
static void check_shape(const char *l, bool udp)
{
    char when[32], a[64], b[64], rest[128];
    unsigned p1, p2;
    int id, n = 0;
    double st, en, jit, pc;
    unsigned long long bytes, rate, total, ooo;
    long long lost;

    assert_int_equal(fields(l), udp ? 14 : 9);
    assert_int_equal(sscanf(l, "%31[0-9.],%63[^,],%u,%63[^,],%u,%d,%lf-%lf,%llu,%llu%n", when, a, &p1, b,
                            &p2, &id, &st, &en, &bytes, &rate, &n),
                     10);
    assert_true(strlen(when) == 14 || strlen(when) == 18);
    snprintf(rest, sizeof(rest), "%s", l + n);
    if (udp)
        assert_int_equal(sscanf(rest, ",%lf,%lld,%llu,%lf,%llu", &jit, &lost, &total, &pc, &ooo), 5);
    else
        assert_string_equal(rest, "");
}

static void fields_as_2_1_8(void **state)
{
    struct csv_census c = {0, 0};
    const char *kinds[4][2] = {{"tcp", "server"}, {"tcp", "client"}, {"udp", "server"}, {"udp", "client"}};
    (void)state;

    assert_true(lp_evidence_lines(CAP, each_csv_line, &c) > 0);
    assert_true(lp_evidence_lines(CAP2, each_csv_line, &c) > 0);
    /* 2.1.8 and 2.0.6-era lines of both files (2.0.6's UDP client also prints a 9-field line). */
    assert_int_equal(c.tcp, 31);
    assert_int_equal(c.udp, 16);

    /* Ours, for each protocol and role, with intervals and -e. */
    for (int k = 0; k < 4; k++) {
        for (int e = 0; e < 2; e++) {
            struct lp_fmt_opts o = {.unit = 'a', .enhanced = e == 1};
            bool udp = kinds[k][0][0] == 'u', client = kinds[k][1][0] == 'c';
            unsigned fl = client ? TX | INIT : RX;
            struct sc *s = sc_new(LP_FMT_CSV, client ? LP_ROLE_CLIENT : LP_ROLE_SERVER,
                                   udp ? LP_PROTO_UDP : LP_PROTO_TCP, &o);
            char *save = NULL;
            int lines = 0;
            sc_conn(s, 1, fl, 40000, 5001);
            sc_start(s, 1);
            s->wall = utc(2026, 11, 30, 12, 0, 0);
            sc_udp_rx(sc_sample(s, 1, fl, 0, 1, 1000, 8000), 0.5, 1, 10);
            sc_interval(s);
            total_udp_rx(sc_total(s, 1, fl, 0, 1, 1000, 8000), 0.5, 1, 10);
            if (client && udp)
                sc_report(s, 1, fl, 0, 1, 1000, 8000, 0.5, 1, 10);
            sc_end(s);
            sc_done(s);
            for (char *l = strtok_r(s->k.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                check_shape(l, udp);
                lines++;
            }
            assert_int_equal(lines, 2);
            sc_free(s);
        }
    }
}

/* --csv-header: one line naming the fields, as many as the data lines have. */
static void header_line(void **state)
{
    (void)state;
    for (int udp = 0; udp < 2; udp++) {
        struct lp_fmt_opts o = {.unit = 'a', .csv_header = true};
        struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_SERVER, udp ? LP_PROTO_UDP : LP_PROTO_TCP, &o);
        char *save = NULL, *h, *d1, *d2;
        sc_conn(s, 1, RX, 5001, 40000);
        sc_start(s, 1);
        sc_sample(s, 1, RX, 0, 1, 1000, 8000);
        sc_interval(s);
        sc_total(s, 1, RX, 0, 1, 1000, 8000);
        sc_end(s);
        h = strtok_r(s->k.out, "\n", &save);
        d1 = strtok_r(NULL, "\n", &save);
        d2 = strtok_r(NULL, "\n", &save);
        assert_non_null(d2);
        assert_null(strtok_r(NULL, "\n", &save));
        assert_string_equal(h, udp ? "time,src_ip,src_port,dst_ip,dst_port,id,start-end,bytes,"
                                     "bits_per_sec,jitter_ms,lost,total,loss_percent,out_of_order"
                                   : "time,src_ip,src_port,dst_ip,dst_port,id,start-end,bytes,"
                                     "bits_per_sec");
        assert_int_equal(fields(h), fields(d1));
        assert_int_equal(fields(h), udp ? 14 : 9);
        sc_free(s);
    }
}

/* Banners, debug and errors never reach stdout; a repeated START or END adds nothing. */
static void only_data_on_stdout(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct lp_record r = {.kind = LP_REC_DEBUG};
    (void)state;

    sc_listen(s, 5002, 0, 131072, 0);
    sc_connecting(s, 5001, 16384, false);
    sc_conn(s, 1, TX | INIT, 40000, 5001);
    sc_start(s, 1);
    sc_start(s, 1);
    r.u.debug.message = "header sent";
    sc_emit(s, &r);
    sc_sample(s, 1, TX | INIT, 0, 1, 1000, 8000)->omitted = true; /* an iperf3 -O second */
    sc_interval(s);
    sc_total(s, 1, TX | INIT, 0, 1, 1000, 8000);
    sc_end(s);
    sc_total(s, 1, TX | INIT, 0, 1, 1000, 8000);
    sc_end(s);
    sc_error(s, "WARNING: did not receive ack of last datagram after 10 tries.", false);
    sc_error(s, "unable to connect to server: Connection refused", true);
    sc_done(s);
    assert_int_equal(fields(s->k.out), 9);
    assert_non_null(strstr(s->k.out, ",127.0.0.1,40000,127.0.0.1,5001,1,0.0-1.0,1000,8000\n"));
    assert_string_equal(s->k.err, "linkperf: debug: header sent\n"
                                  "WARNING: did not receive ack of last datagram after 10 tries.\n"
                                  "linkperf: error - unable to connect to server: Connection refused\n");
    sc_free(s);
}

/* An iperf3-dialect UDP client has both rows after the results exchange: its own is printed.
 * A stream no START named still gets its fields (empty addresses). */
static void iperf3_dialect_and_unknown_stream(void **state)
{
    struct sc *s = sc_new(LP_FMT_CSV, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    (void)state;

    s->spec.dialect = LP_DIALECT_IPERF3;
    sc_conn(s, 1, TX | INIT, 40000, 5201);
    sc_start(s, 1);
    s->wall = utc(2026, 11, 30, 12, 0, 0);
    sc_total(s, 1, TX | INIT, 0, 10, 1310720, 1048576)->packets = 896;
    sc_report(s, 1, TX | INIT, 0, 10.04, 1310720, 1044000, 0.01, 2, 896);
    sc_total(s, 3, RX, 0, 10, 1470, 1176);
    sc_end(s);
    assert_string_equal(s->k.out,
                        "20261130120000,127.0.0.1,40000,127.0.0.1,5201,1,0.0-10.0,1310720,1048576,0.000,0,896,0.000,0\n"
                        "20261130120000,,0,,0,3,0.0-10.0,1470,1176,0.000,0,0,0.000,0\n");
    sc_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tcp_server),
        cmocka_unit_test(tcp_client),
        cmocka_unit_test(tcp_enhanced),
        cmocka_unit_test(tcp_enhanced_intervals),
        cmocka_unit_test(tcp_p2),
        cmocka_unit_test(tcp_p2_server),
        cmocka_unit_test(tcp_dual),
        cmocka_unit_test(tcp_full_duplex),
        cmocka_unit_test(udp_server),
        cmocka_unit_test(udp_client),
        cmocka_unit_test(udp_reverse),
        cmocka_unit_test(udp_enhanced_intervals),
        cmocka_unit_test(fields_as_2_1_8),
        cmocka_unit_test(header_line),
        cmocka_unit_test(only_data_on_stdout),
        cmocka_unit_test(iperf3_dialect_and_unknown_stream),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}

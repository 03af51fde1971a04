/* iperf2-look text against real iperf 2.1.8 output. Each test builds the records the engine
 * emits for one captured run, with the numbers the capture shows, and compares what the
 * formatter prints with the captured block line by line. Where linkperf deliberately differs
 * (docs/internals/output.md, "iperf2 look"), the capture is edited first, one named edit per
 * difference, and each edit must apply. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <unistd.h>

#include "test_fmt_text2_util.h"

/* The server's -d/-r leg banner has no buffer size line: no record carries the leg's. */
#define NO_LEG_WINDOW(b, line) block_delete(b, line)

/* ---- TCP ---- */

#define T_PLAIN "TCP plain: server 'iperf -s', client '-t 1'"

static void tcp_plain_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    sc_listen(s, 25001, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, RX, 25001, 45586), 320, 32768, 29);
    sc_start(s, 1);
    sc_total(s, 1, RX, 0, 1.0003, GB(4.79), Gb(41.1));
    sc_end(s);
    block_load(&b, CAP, T_PLAIN, "### server");
    sc_finish(s, &b);
}

static void tcp_plain_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    sc_connecting(s, 25001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 45586, 25001), 319, 32741, 40);
    sc_start(s, 1);
    sc_total(s, 1, TX | INIT, 0, 1.0043, GB(4.79), Gb(40.9));
    sc_end(s);
    block_load(&b, CAP, T_PLAIN, "### client");
    sc_finish(s, &b);
}

#define T_DUAL "TCP -d (dual) with -L 25002"

static void tcp_dual_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.iperf2.dual = true;
    sc_listen(s, 25001, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, RX, 25001, 57824), 320, 32768, 25);
    sc_start(s, 1);
    /* The leg joins: the engine repeats START with both streams. */
    sc_tcpinfo(sc_conn(s, 2, TX | INIT | REV, 35990, 25002), 319, 32741, 14);
    sc_start(s, 2);
    sc_total(s, 1, RX, 0, 1.0011, GB(2.77), Gb(23.8));
    sc_total(s, 2, TX | INIT | REV, 0, 1.0020, GB(2.99), Gb(25.7));
    sc_end(s);
    block_load(&b, CAP, T_DUAL, "### server");
    NO_LEG_WINDOW(&b, "TCP window size: 16.0 KByte (default)");
    /* Final [SUM]: from 0 to the latest row's end, bytes over that span (2.1.8 times its
     * [SUM] on a clock of its own, here before either stream's end). */
    block_replace(&b, "[SUM] 0.0000-1.0001 sec  5.76 GBytes  49.5 Gbits/sec",
                  "[SUM] 0.0000-1.0020 sec  5.76 GBytes  49.4 Gbits/sec");
    sc_finish(s, &b);
}

static void tcp_dual_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.iperf2.dual = true;
    s->spec.iperf2.listen_port = 25002;
    sc_listen(s, 25002, 0, 131072, 0);
    sc_connecting(s, 25001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 57824, 25001), 319, 32741, 44);
    sc_start(s, 1);
    sc_conn(s, 2, RX | REV, 25002, 35990);
    sc_start(s, 2);
    sc_total(s, 2, RX | REV, 0, 0.9999, GB(2.99), Gb(25.7));
    sc_total(s, 1, TX | INIT, 0, 1.0028, GB(2.77), Gb(23.7));
    sc_end(s);
    block_load(&b, CAP, T_DUAL, "### client");
    /* As 2.1.8's client: no [SUM] for -d with one stream each way (it prints one with
     * -d -P 2, and on the server). */
    sc_finish(s, &b);
}

#define T_TRADE "TCP -r (tradeoff) with -L 25002"

/* -r with one END per leg: 2.1.8's order exactly. (The engine's single END at the test's
 * end is checked in test_fmt_text2_cases.) */
static void tcp_tradeoff_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.iperf2.tradeoff = true;
    sc_listen(s, 25001, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, RX, 25001, 57828), 320, 32768, 30);
    sc_start(s, 1);
    sc_total(s, 1, RX, 0, 1.0014, GB(3.84), Gb(32.9));
    sc_end(s);
    sc_tcpinfo(sc_conn(s, 2, TX | INIT | REV, 35996, 25002), 319, 32741, 45);
    sc_start(s, 2);
    sc_total(s, 2, TX | INIT | REV, 0, 1.0170, GB(3.53), Gb(29.8));
    sc_end(s);
    block_load(&b, CAP, T_TRADE, "### server");
    NO_LEG_WINDOW(&b, "TCP window size: 3.76 MByte (default)");
    sc_finish(s, &b);
}

static void tcp_tradeoff_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.iperf2.tradeoff = true;
    sc_listen(s, 25002, 0, 131072, 0);
    sc_connecting(s, 25001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 57828, 25001), 319, 32741, 49);
    sc_start(s, 1);
    sc_total(s, 1, TX | INIT, 0, 1.0063, GB(3.84), Gb(32.7));
    sc_end(s);
    sc_conn(s, 2, RX | REV, 25002, 35996);
    sc_start(s, 2);
    sc_total(s, 2, RX | REV, 0, 1.0010, GB(3.53), Gb(30.3));
    sc_end(s);
    block_load(&b, CAP, T_TRADE, "### client");
    sc_finish(s, &b);
}

#define T_REV "TCP -R (reverse, 2.1.x)"

static void tcp_reverse_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_REVERSE;
    sc_listen(s, 25001, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, TX | REV, 25001, 56568), 320, 32768, 32);
    sc_start(s, 1);
    sc_total(s, 1, TX | REV, 0, 1.0106, GB(2.60), Gb(22.1));
    sc_end(s);
    block_load(&b, CAP, T_REV, "### server");
    sc_finish(s, &b);
}

static void tcp_reverse_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_REVERSE;
    sc_connecting(s, 25001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, RX | INIT | REV, 56568, 25001), 319, 32741, 49);
    sc_start(s, 1);
    sc_total(s, 1, RX | INIT | REV, 0, 1.0013, GB(2.60), Gb(22.3));
    sc_end(s);
    block_load(&b, CAP, T_REV, "### client");
    sc_finish(s, &b);
}

#define T_FD "TCP --full-duplex"

/* Both halves of the connection carry transfer id 1, as in 2.1.8. */
static void tcp_fd_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_BIDIR;
    sc_listen(s, 25001, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, RX, 25001, 56576), 320, 32768, 21);
    sc_tcpinfo(sc_conn(s, 1, TX | REV, 25001, 56576), 320, 32768, 21);
    sc_start(s, 2);
    sc_total(s, 1, TX | REV, 0, 1.0005, GB(1.97), Gb(17.0));
    sc_total(s, 1, RX, 0, 1.0014, GB(1.88), Gb(16.1));
    sc_end(s);
    block_load(&b, CAP, T_FD, "### server");
    sc_finish(s, &b);
}

static void tcp_fd_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_BIDIR;
    s->spec.report.interval_s = 0; /* captured without -i: 2.1.8's final [SUM] (none with -i) */
    sc_connecting(s, 25001, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 56576, 25001), 319, 32741, 36);
    sc_tcpinfo(sc_conn(s, 1, RX | INIT | REV, 56576, 25001), 319, 32741, 36);
    sc_start(s, 2);
    sc_total(s, 1, RX | INIT | REV, 0, 1.0020, GB(1.97), Gb(16.9));
    sc_total(s, 1, TX | INIT, 0, 1.0009, GB(1.88), Gb(16.1));
    sc_end(s);
    block_load(&b, CAP, T_FD, "### client");
    block_replace(&b, "[SUM] 0.0000-1.0010 sec  3.85 GBytes  33.0 Gbits/sec",
                  "[SUM] 0.0000-1.0020 sec  3.85 GBytes  33.0 Gbits/sec");
    sc_finish(s, &b);
}

#define T_P2 "TCP -P 2"

static void tcp_p2_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.streams = 2;
    sc_listen(s, 25001, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, RX, 25001, 55392), 320, 32768, 33);
    sc_tcpinfo(sc_conn(s, 2, RX, 25001, 55408), 320, 32768, 14);
    sc_start(s, 2);
    sc_total(s, 2, RX, 0, 0.9991, GB(2.27), Gb(19.5));
    sc_total(s, 1, RX, 0, 1.0030, GB(2.24), Gb(19.2));
    sc_end(s);
    block_load(&b, CAP, T_P2, "### server");
    sc_finish(s, &b);
}

static void tcp_p2_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    const char *early = "[  2] local 127.0.0.1 port 55392 connected with 127.0.0.1 port 25001 "
                        "(icwnd/mss/irtt=319/32741/37)";
    (void)state;

    s->spec.streams = 2;
    sc_connecting(s, 25001, 4194304, false);
    sc_tcpinfo(sc_conn(s, 2, TX | INIT, 55392, 25001), 319, 32741, 37);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 55408, 25001), 319, 32741, 12);
    sc_start(s, 2);
    sc_total(s, 1, TX | INIT, 0, 1.0096, GB(2.27), Gb(19.3));
    sc_total(s, 2, TX | INIT, 0, 1.0084, GB(2.24), Gb(19.1));
    sc_end(s);
    block_load(&b, CAP, T_P2, "### client");
    /* 2.1.8's threads printed one connection line before the banner. */
    block_delete(&b, early);
    block_insert_before(&b, block_line(&b, "[  1] local"), early);
    block_replace(&b, "[SUM] 0.0000-1.0014 sec  4.51 GBytes  38.7 Gbits/sec",
                  "[SUM] 0.0000-1.0096 sec  4.51 GBytes  38.4 Gbits/sec");
    sc_finish(s, &b);
}

static void tcp_intervals_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.report.interval_s = 0.5;
    sc_listen(s, 25001, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, RX, 25001, 43716), 320, 32768, 24);
    sc_start(s, 1);
    sc_sample(s, 1, RX, 0.0, 0.5, GB(1.51), Gb(26.0));
    sc_interval(s);
    sc_sample(s, 1, RX, 0.5, 1.0, GB(1.53), Gb(26.4));
    sc_interval(s);
    sc_sample(s, 1, RX, 1.0, 1.5, GB(1.54), Gb(26.5));
    sc_interval(s);
    sc_total(s, 1, RX, 0, 1.5001, GB(4.59), Gb(26.3));
    sc_end(s);
    block_load(&b, CAP, "tcp_i", "### server");
    sc_finish(s, &b);
}

static void tcp_intervals_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    sc_tcp_i_client(s);
    block_load(&b, CAP, "tcp_i", "### client");
    sc_finish(s, &b);
}

/* -P 2 -i 0.5: per-interval [SUM] rows from the engine's interval sums. */
static void tcp_p2_intervals_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_TCP, NULL);
    struct block b;
    (void)state;

    s->spec.streams = 2;
    sc_listen(s, 25104, 0, 131072, 0);
    sc_tcpinfo(sc_conn(s, 1, RX, 25104, 56684), 320, 32768, 21);
    sc_tcpinfo(sc_conn(s, 2, RX, 25104, 56690), 320, 32768, 21);
    sc_start(s, 2);
    sc_sample(s, 1, RX, 0.0, 0.5, GB(1.06), Gb(18.3));
    sc_sample(s, 2, RX, 0.0, 0.5, GB(1.05), Gb(18.0));
    s->sum_set = true, s->sum_bytes = GB(2.11), s->sum_bps = Gb(36.3);
    sc_interval(s);
    sc_sample(s, 1, RX, 0.5, 1.0, GB(1.14), Gb(19.5));
    sc_sample(s, 2, RX, 0.5, 1.0, GB(1.10), Gb(19.0));
    s->sum_set = true, s->sum_bytes = GB(2.24), s->sum_bps = Gb(38.5);
    sc_interval(s);
    sc_total(s, 1, RX, 0, 1.0020, GB(2.21), Gb(18.9));
    sc_total(s, 2, RX, 0, 1.0008, GB(2.15), Gb(18.5));
    sc_end(s);
    block_load(&b, CAP2, "TCP -P 2 with -i 0.5", "### server");
    block_replace(&b, "[SUM] 0.0000-1.0021 sec  4.36 GBytes  37.4 Gbits/sec",
                  "[SUM] 0.0000-1.0020 sec  4.36 GBytes  37.4 Gbits/sec");
    sc_finish(s, &b);
}

/* -e: the TCP sender columns from the records (Write/Err is not counted: "-/-"; without an
 * interval the final row has the mean RTT and no variance). */
static void tcp_enhanced_client(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .enhanced = true};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, &o);
    struct lp_stream_conn *c;
    struct lp_total *t;
    struct block b;
    char pid[96];
    (void)state;

    s->start_time = (time_t)utc(2026, 11, 30, 13, 12, 21);
    sc_connecting(s, 25001, 16384, false);
    c = sc_conn(s, 1, TX | INIT, 38916, 25001);
    sc_tcpinfo(c, 319, 32741, 53);
    c->sid.socket = 3;
    sc_start(s, 1);
    /* NetPwr 92951027 = bytes/s over 37 µs. */
    t = sc_total(s, 1, TX | INIT, 0, 1.0027, GB(3.21), 92951027.0 * 37 * 8);
    t->has_retransmits = true;
    t->retransmits = 27;
    t->has_tcp_extra = true;
    t->max_snd_cwnd = 895 * 1024;
    t->mean_rtt_us = 37;
    sc_end(s);
    block_load(&b, CAP, "TCP client -e", "### client");
    snprintf(pid, sizeof(pid), "Client connecting to 127.0.0.1, TCP port 25001 with pid %ld (1 flows)",
             (long)getpid());
    block_replace(&b, "Client connecting to 127.0.0.1, TCP port 25001 with pid 12189 (1 flows)", pid);
    /* No interface name after the address, no connect time: not in the records. */
    block_replace(&b,
                  "[  1] local 127.0.0.1%lo port 38916 connected with 127.0.0.1 port 25001 (sock=3) "
                  "(icwnd/mss/irtt=319/32741/53) (ct=0.15 ms) on 2026-11-30 13:12:21 (UTC)",
                  "[  1] local 127.0.0.1 port 38916 connected with 127.0.0.1 port 25001 (sock=3) "
                  "(icwnd/mss/irtt=319/32741/53) on 2026-11-30 13:12:21 (UTC)");
    block_replace(&b,
                  "[  1] 0.0000-1.0027 sec  3.21 GBytes  27.5 Gbits/sec  26311/0         27      "
                  "895K/37(6) us  92951027",
                  "[  1] 0.0000-1.0027 sec  3.21 GBytes  27.5 Gbits/sec  -/-         27      "
                  "895K/37(-) us  92951027");
    sc_finish(s, &b);
}

/* -e with intervals: the interval rows carry cwnd, RTT and its variance. */
static void tcp_enhanced_intervals_client(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .enhanced = true};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, &o);
    struct lp_sample *m;
    struct lp_total *t;
    struct block b;
    char pid[96];
    (void)state;

    s->start_time = (time_t)utc(2026, 11, 30, 16, 34, 2);
    s->spec.report.interval_s = 0.5;
    sc_connecting(s, 25113, 16384, false);
    sc_tcpinfo(sc_conn(s, 1, TX | INIT, 35994, 25113), 319, 32741, 21);
    s->conn[0].sid.socket = 3;
    sc_start(s, 1);
    m = sc_sample(s, 1, TX | INIT, 0, 0.5, GB(1.06), 31992646.0 * 71 * 8);
    m->has_tcp_info = true, m->retransmits = 0, m->snd_cwnd = 895 * 1024, m->rtt_us = 71, m->rttvar_us = 22;
    sc_interval(s);
    m = sc_sample(s, 1, TX | INIT, 0.5, 1.0, GB(1.05), 23467349.0 * 96 * 8);
    m->has_tcp_info = true, m->retransmits = 0, m->snd_cwnd = 1023 * 1024, m->rtt_us = 96, m->rttvar_us = 24;
    sc_interval(s);
    t = sc_total(s, 1, TX | INIT, 0, 1.0118, GB(2.11), 31054460.0 * 72 * 8);
    t->has_retransmits = true;
    sc_end(s);
    block_load(&b, CAP2, "TCP -e with -i 0.5", "### client");
    snprintf(pid, sizeof(pid), "Client connecting to 127.0.0.1, TCP port 25113 with pid %ld (1 flows)",
             (long)getpid());
    block_replace(&b, "Client connecting to 127.0.0.1, TCP port 25113 with pid 15931 (1 flows)", pid);
    block_replace(&b,
                  "[  1] local 127.0.0.1%lo port 35994 connected with 127.0.0.1 port 25113 (sock=3) "
                  "(icwnd/mss/irtt=319/32741/21) (ct=0.05 ms) on 2026-11-30 16:34:02 (UTC)",
                  "[  1] local 127.0.0.1 port 35994 connected with 127.0.0.1 port 25113 (sock=3) "
                  "(icwnd/mss/irtt=319/32741/21) on 2026-11-30 16:34:02 (UTC)");
    block_replace(&b, "[  1] 0.0000-0.5000 sec  1.06 GBytes  18.2 Gbits/sec  8665/0          0      "
                      "895K/71(22) us  31992646",
                  "[  1] 0.0000-0.5000 sec  1.06 GBytes  18.2 Gbits/sec  -/-          0      "
                  "895K/71(22) us  31992646");
    block_replace(&b, "[  1] 0.5000-1.0000 sec  1.05 GBytes  18.0 Gbits/sec  8594/0          0     "
                      "1023K/96(24) us  23467349",
                  "[  1] 0.5000-1.0000 sec  1.05 GBytes  18.0 Gbits/sec  -/-          0     "
                  "1023K/96(24) us  23467349");
    /* The final row repeats the last interval's cwnd/RTT (2.1.8 reads them once more). */
    block_replace(&b, "[  1] 0.0000-1.0118 sec  2.11 GBytes  17.9 Gbits/sec  17260/0          0     "
                      "1023K/72(12) us  31054460",
                  "[  1] 0.0000-1.0118 sec  2.11 GBytes  17.9 Gbits/sec  -/-          0     "
                  "1023K/96(24) us  23290845");
    sc_finish(s, &b);
}

/* ---- UDP ---- */

#define U_PLAIN "UDP plain: server 'iperf -s -u', client '-u -b 10M -t 1'"

static void udp_plain_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    sc_listen(s, 25001, 0, 0, 212992);
    sc_conn(s, 1, RX, 25001, 55672);
    sc_start(s, 1);
    total_udp_rx(sc_total(s, 1, RX, 0, 1.0018, MB(1.25), Mb(10.5)), 0.003, 0, 895);
    sc_end(s);
    block_load(&b, CAP, U_PLAIN, "### server");
    sc_finish(s, &b);
}

static void udp_plain_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.rate_bps = 10485760; /* 2.1.8's -b 10M */
    sc_connecting(s, 25001, 212992, false);
    sc_conn(s, 1, TX | INIT, 55672, 25001);
    sc_start(s, 1);
    sc_total(s, 1, TX | INIT, 0, 1.0016, MB(1.25), Mb(10.5))->packets = 896;
    sc_report(s, 1, TX | INIT, 0, 1.0018, MB(1.25), Mb(10.5), 0.002, 0, 895);
    sc_end(s);
    block_load(&b, CAP, U_PLAIN, "### client");
    sc_finish(s, &b);
}

static void udp_intervals_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    sc_udp_i_server(s);
    block_load(&b, CAP, "udp_i", "### server");
    sc_finish(s, &b);
}

static void udp_intervals_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.rate_bps = 2000000;
    sc_connecting(s, 25001, 212992, false);
    sc_conn(s, 1, TX | INIT, 40968, 25001);
    sc_start(s, 1);
    sc_sample(s, 1, TX | INIT, 0.0, 0.5, KB(125), Mb(2.05));
    sc_interval(s);
    sc_sample(s, 1, TX | INIT, 0.5, 1.0, KB(122), Mb(2.00));
    sc_interval(s);
    sc_sample(s, 1, TX | INIT, 1.0, 1.5, KB(122), Mb(2.00));
    sc_interval(s);
    sc_total(s, 1, TX | INIT, 0, 1.5113, KB(372), Mb(2.02))->packets = 260;
    sc_report(s, 1, TX | INIT, 0, 1.5114, KB(372), Mb(2.02), 0.003, 0, 259);
    sc_end(s);
    block_load(&b, CAP, "udp_i", "### client");
    sc_finish(s, &b);
}

/* Two UDP receivers: out-of-order lines per stream and for the [SUM]. */
static void udp_p2_intervals_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    struct lp_sample *m;
    struct lp_total *t;
    struct block b;
    (void)state;

    s->spec.streams = 2;
    sc_listen(s, 25112, 0, 0, 212992);
    sc_conn(s, 1, RX, 25112, 38321);
    sc_conn(s, 2, RX, 25112, 44386);
    sc_start(s, 2);
    sc_udp_rx(sc_sample(s, 2, RX, 0.0, 0.5, KB(125), Mb(2.05)), 0.017, 1, 88);
    m = sc_sample(s, 1, RX, 0.0, 0.5, KB(126), Mb(2.07));
    sc_udp_rx(m, 0.020, 0, 87);
    m->out_of_order = 1;
    s->sum_set = true, s->sum_bytes = KB(251), s->sum_bps = Mb(4.12);
    sc_interval(s);
    sc_udp_rx(sc_sample(s, 2, RX, 0.5, 1.0, KB(122), Mb(2.00)), 0.011, 0, 85);
    sc_udp_rx(sc_sample(s, 1, RX, 0.5, 1.0, KB(122), Mb(2.00)), 0.010, 0, 85);
    sc_interval(s);
    total_udp_rx(sc_total(s, 2, RX, 0, 1.0056, KB(248.4), Mb(2.02)), 0.010, 1, 174);
    t = sc_total(s, 1, RX, 0, 1.0115, KB(251.4), Mb(2.03));
    total_udp_rx(t, 0.009, 0, 174);
    t->out_of_order = 1;
    sc_end(s);
    block_load(&b, CAP2, "UDP -P 2 with -i 0.5", "### server");
    /* 2.1.8 printed a second column header before its first [SUM]. */
    block_delete_nth(&b, "[ ID] Interval       Transfer     Bandwidth", 1);
    /* The [SUM]'s lost is the sum of the rows' (2.1.8 subtracts the out-of-order datagrams of
     * the whole group once more). */
    block_replace(&b, "[SUM] 0.0000-0.5000 sec   251 KBytes  4.12 Mbits/sec   0/175 (0%)",
                  "[SUM] 0.0000-0.5000 sec   251 KBytes  4.12 Mbits/sec   1/175 (0.57%)");
    block_replace(&b, "[SUM] 0.0000-1.0115 sec   500 KBytes  4.05 Mbits/sec   0/348 (0%)",
                  "[SUM] 0.0000-1.0115 sec   500 KBytes  4.05 Mbits/sec   1/348 (0.29%)");
    sc_finish(s, &b);
}

#define U_DUAL "UDP -d with -L 25002"

static void udp_dual_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.iperf2.dual = true;
    s->spec.rate_bps = 1000000;
    sc_listen(s, 25002, 0, 0, 212992);
    sc_connecting(s, 25001, 212992, false);
    sc_conn(s, 1, TX | INIT, 42552, 25001);
    sc_start(s, 1);
    sc_conn(s, 2, RX | REV, 25002, 39479);
    sc_start(s, 2);
    total_udp_rx(sc_total(s, 2, RX | REV, 0, 1.0232, KB(126), Mb(1.01)), 0.002, 0, 88);
    sc_total(s, 1, TX | INIT, 0, 1.0233, KB(128), Mb(1.02))->packets = 90;
    sc_report(s, 1, TX | INIT, 0, 1.0228, KB(128), Mb(1.02), 0.002, 0, 89);
    sc_end(s);
    block_load(&b, CAP, U_DUAL, "### client");
    /* As 2.1.8's client: no [SUM] for -d with one stream each way. */
    sc_finish(s, &b);
}

/* The -i capture, where 2.1.8 put the leg's banner before its connection line as for TCP. */
static void udp_dual_intervals_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.iperf2.dual = true;
    s->spec.report.interval_s = 0.25;
    sc_listen(s, 25166, 0, 0, 212992);
    sc_conn(s, 1, RX, 25166, 53264);
    sc_start(s, 1);
    sc_conn(s, 2, TX | INIT | REV, 43575, 25167);
    sc_start(s, 2);
    sc_udp_rx(sc_sample(s, 1, RX, 0.0, 0.25, KB(34.5), Mb(1.13)), 0.022, 0, 24);
    sc_sample(s, 2, TX | INIT | REV, 0.0, 0.25, KB(33.0), Mb(1.08))->packets = 23;
    sc_interval(s);
    sc_udp_rx(sc_sample(s, 1, RX, 0.25, 0.5, KB(31.6), Mb(1.03)), 0.016, 0, 22);
    sc_sample(s, 2, TX | INIT | REV, 0.25, 0.5, KB(31.6), Mb(1.03))->packets = 22;
    sc_interval(s);
    total_udp_rx(sc_total(s, 1, RX, 0, 0.5162, KB(68.9), Mb(1.09)), 0.014, 0, 48);
    sc_total(s, 2, TX | INIT | REV, 0, 0.5160, KB(67.5), Mb(1.07))->packets = 48;
    sc_report(s, 2, TX | INIT | REV, 0, 0.5160, KB(67.5), Mb(1.07), 0.020, 0, 47);
    sc_end(s);
    block_load(&b, CAP2, "UDP -d with -i 0.25", "### server");
    block_delete_nth(&b, "UDP buffer size:  208 KByte (default)", 2); /* the leg's */
    block_replace(&b, "[SUM] 0.0000-0.2500 sec  67.5 KBytes  2.21 Mbits/sec   0/47 (0%)",
                  "[SUM] 0.0000-0.2500 sec  67.5 KBytes  2.21 Mbits/sec");
    block_replace(&b, "[SUM] 0.2500-0.5000 sec  63.2 KBytes  2.07 Mbits/sec   0/44 (0%)",
                  "[SUM] 0.2500-0.5000 sec  63.2 KBytes  2.07 Mbits/sec");
    block_replace(&b, "[SUM] 0.0000-0.5166 sec   136 KBytes  2.16 Mbits/sec   0/96 (0%)",
                  "[SUM] 0.0000-0.5162 sec   136 KBytes  2.16 Mbits/sec");
    sc_finish(s, &b);
}

#define U_REV "UDP -R"

static void udp_reverse_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_REVERSE;
    s->spec.iperf2.no_udp_fin = true; /* the 2.1.8 -R client's header asks for it */
    sc_listen(s, 25001, 0, 0, 212992);
    sc_conn(s, 1, TX | REV, 25001, 38840);
    sc_start(s, 1);
    sc_total(s, 1, TX | REV, 0, 1.0233, KB(126), Mb(1.01))->packets = 89;
    sc_end(s);
    block_load(&b, CAP, U_REV, "### server");
    sc_finish(s, &b);
}

static void udp_reverse_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_REVERSE;
    s->spec.rate_bps = 1000000;
    sc_connecting(s, 25001, 212992, false);
    sc_conn(s, 1, RX | INIT | REV, 38840, 25001);
    sc_start(s, 1);
    total_udp_rx(sc_total(s, 1, RX | INIT | REV, 0, 1.0230, KB(126), Mb(1.01)), 0.003, 0, 88);
    sc_end(s);
    block_load(&b, CAP, U_REV, "### client");
    sc_finish(s, &b);
}

#define U_FD "UDP --full-duplex"
#define PPS_HDR "[ ID] Interval       Transfer     Bandwidth    Datagrams   PPS"

static void udp_fd_server(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_SERVER, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_BIDIR;
    sc_listen(s, 25001, 0, 0, 212992);
    sc_conn(s, 1, RX, 25001, 49877);
    sc_conn(s, 1, TX | REV, 25001, 49877);
    sc_start(s, 2);
    sc_total(s, 1, TX | REV, 0, 1.0232, KB(126), Mb(1.01))->packets = 89;
    total_udp_rx(sc_total(s, 1, RX, 0, 1.0234, KB(128), Mb(1.02)), 0.004, 0, 89);
    sc_end(s);
    block_load(&b, CAP, U_FD, "### server");
    /* The [SUM] of a sender and a receiver keeps the Bandwidth layout (2.1.8: a datagram
     * count and packets/s under a header of their own). */
    block_delete(&b, PPS_HDR);
    block_replace(&b, "[SUM] 0.0000-1.0234 sec   254 KBytes  2.03 Mbits/sec 178     174 pps",
                  "[SUM] 0.0000-1.0234 sec   254 KBytes  2.03 Mbits/sec");
    sc_finish(s, &b);
}

static void udp_fd_client(void **state)
{
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, NULL);
    struct block b;
    (void)state;

    s->spec.dir = LP_DIR_BIDIR;
    s->spec.rate_bps = 1000000;
    s->spec.report.interval_s = 0; /* captured without -i */
    sc_connecting(s, 25001, 212992, false);
    sc_conn(s, 1, TX | INIT, 49877, 25001);
    sc_conn(s, 1, RX | INIT | REV, 49877, 25001);
    sc_start(s, 2);
    total_udp_rx(sc_total(s, 1, RX | INIT | REV, 0, 1.0234, KB(126), Mb(1.01)), 0.012, 0, 88);
    sc_total(s, 1, TX | INIT, 0, 1.0233, KB(128), Mb(1.02))->packets = 90;
    sc_end(s);
    block_load(&b, CAP, U_FD, "### client");
    block_delete(&b, PPS_HDR);
    block_replace(&b, "[SUM] 0.0000-1.0234 sec   254 KBytes  2.03 Mbits/sec 178     174 pps",
                  "[SUM] 0.0000-1.0234 sec   254 KBytes  2.03 Mbits/sec");
    /* One UDP sender: no "[SUM-n] Sent" (2.1.8 counted the received datagrams in too). */
    block_delete(&b, "[SUM-2] Sent 178 datagrams");
    sc_finish(s, &b);
}

/* ---- every -f letter ---- */

#define T_FORMATS                                                                                  \
    "-f formats (client UDP lines, -u -b 5m -t 0.3; first line of each is the client-side line; "  \
    "-f b also shows the server report line)"

static void one_format(char unit, double end, double bytes, double bps, bool report)
{
    struct lp_fmt_opts o = {.unit = unit};
    struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_UDP, &o);
    struct block b;
    char side[16];
    const char *p;
    int i = 0;

    sc_connecting(s, 25001, 212992, false);
    sc_conn(s, 1, TX | INIT, 40000, 25001);
    sc_start(s, 1);
    sc_total(s, 1, TX | INIT, 0, end, bytes, bps)->packets = 131;
    if (report)
        sc_report(s, 1, TX | INIT, 0, 0.3035, 192570, 5075780, 0.001, 0, 131);
    sc_end(s);
    sc_done(s);
    snprintf(side, sizeof(side), "== -f %c", unit);
    block_load(&b, CAP, T_FORMATS, side);
    /* The data rows of our output, in order, are the capture's lines. */
    for (p = s->k.out; *p; p = strchr(p, '\n') + 1) {
        if (!starts(p, "[  1] 0.0000"))
            continue;
        assert_true(i < b.n);
        assert_memory_equal(p, b.line[i], strlen(b.line[i]));
        assert_int_equal(p[strlen(b.line[i])], '\n');
        i++;
    }
    assert_int_equal(i, b.n);
    block_free(&b);
    sc_free(s);
}

static void every_format_letter(void **state)
{
    (void)state;
    one_format('b', 0.3035, 192570, 5075662, true);
    one_format('k', 0.3035, 192570, 5075662, false);
    one_format('m', 0.3011, 189630, Mb(5.04), false);
    one_format('g', 0.3012, 189630, Mb(5.04), false);
    one_format('B', 0.3012, 189630, 629630.0 * 8, false);
    one_format('K', 0.3012, 189630, 629630.0 * 8, false);
    one_format('M', 0.3011, 189630, MB(0.601) * 8, false);
    one_format('G', 0.3011, 189630, MB(0.601) * 8, false);
    one_format('a', 0.3011, 189630, Mb(5.04), false);
    one_format('A', 0.3012, 189630, 629630.0 * 8, false);
}

/* The -n N -l N runs: exact byte counts around each precision and unit boundary. */
static void unit_boundaries(void **state)
{
    char *text = lp_evidence_slurp(CAP2), *save = NULL, *l;
    unsigned long long n = 0;
    char unit = 'a', want[256] = "";
    int rows = 0;
    (void)state;

    assert_non_null(text);
    l = strstr(text, "=================== unit boundaries");
    assert_non_null(l);
    for (l = strtok_r(l, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        const char *f;
        if (starts(l, "### client:")) {
            assert_int_equal(sscanf(l, "### client: iperf -c 127.0.0.1 -p 25170 -n %llu", &n), 1);
            f = strstr(l, "-f ");
            unit = f ? f[3] : 'a';
        } else if (starts(l, "[  1]") && n) {
            struct lp_fmt_opts o = {.unit = unit};
            struct sc *s = sc_new(LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, &o);
            double end, rate;
            char runit[32];
            const char *r = strstr(l, "Bytes  ");
            assert_non_null(r);
            assert_int_equal(sscanf(l, "[  1] 0.0000-%lf sec", &end), 1);
            assert_int_equal(sscanf(r + 7, "%lf %31s", &rate, runit), 2);
            rate *= !strcmp(runit, "bits/sec")     ? 1
                    : !strcmp(runit, "Kbits/sec")  ? 1e3
                    : !strcmp(runit, "Mbits/sec")  ? 1e6
                    : !strcmp(runit, "Gbits/sec")  ? 1e9
                    : !strcmp(runit, "Bytes/sec")  ? 8
                    : !strcmp(runit, "KBytes/sec") ? 8 * 1024.0
                    : !strcmp(runit, "MBytes/sec") ? 8 * 1048576.0
                                                   : 8 * 1073741824.0;
            sc_conn(s, 1, TX | INIT, 40000, 25170);
            sc_start(s, 1);
            sc_total(s, 1, TX | INIT, 0, end, (double)n, rate);
            sc_end(s);
            snprintf(want, sizeof(want), "%s\n", l);
            assert_non_null(strstr(s->k.out, want));
            sc_free(s);
            n = 0;
            rows++;
        } else if (starts(l, "===") && rows) {
            break;
        }
    }
    assert_int_equal(rows, 15);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tcp_plain_server),
        cmocka_unit_test(tcp_plain_client),
        cmocka_unit_test(tcp_dual_server),
        cmocka_unit_test(tcp_dual_client),
        cmocka_unit_test(tcp_tradeoff_server),
        cmocka_unit_test(tcp_tradeoff_client),
        cmocka_unit_test(tcp_reverse_server),
        cmocka_unit_test(tcp_reverse_client),
        cmocka_unit_test(tcp_fd_server),
        cmocka_unit_test(tcp_fd_client),
        cmocka_unit_test(tcp_p2_server),
        cmocka_unit_test(tcp_p2_client),
        cmocka_unit_test(tcp_intervals_server),
        cmocka_unit_test(tcp_intervals_client),
        cmocka_unit_test(tcp_p2_intervals_server),
        cmocka_unit_test(tcp_enhanced_client),
        cmocka_unit_test(tcp_enhanced_intervals_client),
        cmocka_unit_test(udp_plain_server),
        cmocka_unit_test(udp_plain_client),
        cmocka_unit_test(udp_intervals_server),
        cmocka_unit_test(udp_intervals_client),
        cmocka_unit_test(udp_p2_intervals_server),
        cmocka_unit_test(udp_dual_client),
        cmocka_unit_test(udp_dual_intervals_server),
        cmocka_unit_test(udp_reverse_server),
        cmocka_unit_test(udp_reverse_client),
        cmocka_unit_test(udp_fd_server),
        cmocka_unit_test(udp_fd_client),
        cmocka_unit_test(every_format_letter),
        cmocka_unit_test(unit_boundaries),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}

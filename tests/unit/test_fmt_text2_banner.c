/* The iperf2 look of the banners. A server serves TCP and UDP on one port, but names the
 * protocol it was started for, as 2.1.8 does (iperf -s: TCP lines only; iperf -s -u: UDP
 * only); a client's -d/-r listener names the one it has. -m, -M and -e add the lines 2.1.8
 * adds, where it adds them: compared with captured 2.1.8 banners line by line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <unistd.h>

#include "fmt/text2_int.h"
#include "test_fmt_text2_util.h"

static void banner(struct sink *k, enum lp_proto asked, int tcp_window, int udp_buffer)
{
    struct lp_fmt_opts o = {.unit = 'B'};
    struct lp_fmt *f = sink_fmt(k, LP_FMT_TEXT2, &o);
    struct lp_record r = {.kind = LP_REC_LISTENING, .role = LP_ROLE_SERVER};
    r.u.listening.port = 5001;
    r.u.listening.tcp_window = tcp_window;
    r.u.listening.udp_buffer = udp_buffer;
    r.u.listening.asked = asked;
    lp_fmt_record(f, &r);
    lp_fmt_free(f);
}

static void names_what_was_asked(void **state)
{
    (void)state;
    struct sink k;
    banner(&k, LP_PROTO_TCP, 131072, 212992);
    assert_string_equal(k.out, "------------------------------------------------------------\n"
                               "Server listening on TCP port 5001\n"
                               "TCP window size: 131072 Byte (default)\n"
                               "------------------------------------------------------------\n");
    banner(&k, LP_PROTO_UDP, 131072, 212992);
    assert_string_equal(k.out, "------------------------------------------------------------\n"
                               "Server listening on UDP port 5001\n"
                               "UDP buffer size: 212992 Byte (default)\n"
                               "------------------------------------------------------------\n");
    /* a listener with one socket (a client's -d/-r leg) names that one */
    banner(&k, LP_PROTO_TCP, 0, 212992);
    assert_non_null(strstr(k.out, "Server listening on UDP port 5001\n"));
    assert_null(strstr(k.out, "TCP"));
}


/* The banner part of a captured block: up to its second line of dashes, the pid replaced
 * with ours. */
static void banner_block(struct block *b, const char *title, const char *side)
{
    int dashes = 0;

    block_load(b, CAP2, title, side);
    for (int i = 0; i < b->n; i++) {
        char *w = strstr(b->line[i], " with pid "), line[256];
        if (w) {
            const char *rest = strchr(w + 10, ' ');
            snprintf(line, sizeof(line), "%.*s with pid %ld%s", (int)(w - b->line[i]), b->line[i],
                     (long)getpid(), rest ? rest : "");
            free(b->line[i]);
            b->line[i] = strdup(line);
        }
        if (!strncmp(b->line[i], "-----", 5) && ++dashes == 2) {
            for (int j = i + 1; j < b->n; j++)
                free(b->line[j]);
            b->n = i + 1;
            break;
        }
    }
}

/* A server's banner, from its own options (-l, -M) as the listening record names them. */
static void server_banner(struct sink *k, const struct lp_fmt_opts *o, struct lp_spec *sp, int window)
{
    struct lp_fmt *f = sink_fmt(k, LP_FMT_TEXT2, o);
    struct lp_record r = {.kind = LP_REC_LISTENING, .role = LP_ROLE_SERVER};
    r.u.listening.port = (uint16_t)sp->port;
    r.u.listening.tcp_window = sp->proto == LP_PROTO_UDP ? 0 : window;
    r.u.listening.udp_buffer = sp->proto == LP_PROTO_UDP ? window : 0;
    r.u.listening.asked = sp->proto;
    r.u.listening.spec = sp;
    lp_fmt_record(f, &r);
    lp_fmt_free(f);
}

static void server_spec(struct lp_spec *sp, enum lp_proto proto, unsigned port, uint32_t mss)
{
    lp_spec_init(sp, LP_ROLE_SERVER);
    sp->proto = proto;
    sp->port = (uint16_t)port;
    sp->mss = mss;
}

static void mss_and_read_buffer_server(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .print_mss = true};
    struct lp_spec sp;
    struct sink k;
    struct block b;
    (void)state;

    server_spec(&sp, LP_PROTO_TCP, 25100, 0); /* iperf -s -m */
    server_banner(&k, &o, &sp, 131072);
    banner_block(&b, "TCP -m", "### server");
    expect_block(k.out, &b);
    block_free(&b);

    o.enhanced = true; /* iperf -s -m -e */
    server_spec(&sp, LP_PROTO_TCP, 25101, 0);
    server_banner(&k, &o, &sp, 131072);
    banner_block(&b, "TCP -m -e -M 1400", "### server");
    expect_block(k.out, &b);
    block_free(&b);

    o.print_mss = false; /* iperf -s -u -e: the UDP read length, 1470 */
    server_spec(&sp, LP_PROTO_UDP, 25114, 0);
    server_banner(&k, &o, &sp, 212992);
    banner_block(&b, "UDP -e with -i 0.5", "### server");
    expect_block(k.out, &b);
    block_free(&b);

    o.enhanced = false, o.print_mss = true; /* iperf -s -u -m: a UDP socket has no MSS */
    server_spec(&sp, LP_PROTO_UDP, 25102, 0);
    server_banner(&k, &o, &sp, 212992);
    banner_block(&b, "UDP -m", "### server");
    expect_block(k.out, &b);
    block_free(&b);

    /* -M on a server (2.1.8: "MSS req size 1000 bytes (per TCP_MAXSEG)"; UDP: 0) */
    server_spec(&sp, LP_PROTO_TCP, 5001, 1000);
    server_banner(&k, &o, &sp, 131072);
    assert_non_null(strstr(k.out, "Server listening on TCP port 5001\n"
                                  "MSS req size 1000 bytes (per TCP_MAXSEG)\n"
                                  "TCP window size:  128 KByte (default)\n"));
    sp.proto = LP_PROTO_UDP;
    server_banner(&k, &o, &sp, 212992);
    assert_non_null(strstr(k.out, "MSS req size 0 bytes (per TCP_MAXSEG)\nUDP buffer size:"));
    /* -e -l 2M -f b: the read length exactly, the bin width adaptive */
    o.enhanced = true, o.print_mss = false, o.unit = 'b';
    server_spec(&sp, LP_PROTO_TCP, 5001, 0);
    sp.blksize = 2 * 1024 * 1024;
    server_banner(&k, &o, &sp, 131072);
    assert_non_null(strstr(k.out, "Read buffer size: 2097152 Byte (Dist bin width= 256 KByte)\n"
                                  "TCP window size: 131072 Byte (default)\n"));
}

/* A client's banner: CONNECTING, then START with its options. */
static void client_banner_of(struct sink *k, const struct lp_fmt_opts *o, const struct lp_spec *sp, int window)
{
    struct lp_fmt *f = sink_fmt(k, LP_FMT_TEXT2, o);
    struct lp_record r = {.kind = LP_REC_CONNECTING, .role = LP_ROLE_CLIENT, .test_id = 1};
    snprintf(r.u.connecting.peer.host, sizeof(r.u.connecting.peer.host), "%s", sp->host);
    r.u.connecting.peer.port = (uint16_t)sp->port;
    r.u.connecting.dialect = LP_DIALECT_IPERF2;
    r.u.connecting.proto = sp->proto;
    r.u.connecting.window = window;
    lp_fmt_record(f, &r);
    struct lp_record st = {.kind = LP_REC_START, .role = LP_ROLE_CLIENT, .test_id = 1};
    st.u.start.spec = sp;
    lp_fmt_record(f, &st);
    lp_fmt_free(f);
}

static void client_spec(struct lp_spec *sp, enum lp_proto proto, unsigned port, uint32_t mss)
{
    lp_spec_init(sp, LP_ROLE_CLIENT);
    sp->dialect = LP_DIALECT_IPERF2;
    sp->proto = proto;
    sp->port = (uint16_t)port;
    sp->mss = mss;
    sp->streams = 1;
    snprintf(sp->host, sizeof(sp->host), "127.0.0.1");
    if (proto == LP_PROTO_UDP)
        sp->rate_bps = 1048576;
}

static void mss_client(void **state)
{
    struct lp_fmt_opts o = {.unit = 'a', .print_mss = true};
    struct lp_spec sp;
    struct sink k;
    struct block b;
    (void)state;

    client_spec(&sp, LP_PROTO_TCP, 25100, 0); /* -m */
    client_banner_of(&k, &o, &sp, 16384);
    banner_block(&b, "TCP -m", "### client");
    expect_block(k.out, &b);
    block_free(&b);

    o.enhanced = true; /* -m -e -M 1400: after Write buffer size, before TOS */
    client_spec(&sp, LP_PROTO_TCP, 25101, 1400);
    client_banner_of(&k, &o, &sp, 16384);
    banner_block(&b, "TCP -m -e -M 1400", "### client");
    expect_block(k.out, &b);
    block_free(&b);

    o.enhanced = false; /* -u -m: before the Sending line */
    client_spec(&sp, LP_PROTO_UDP, 25102, 0);
    client_banner_of(&k, &o, &sp, 212992);
    banner_block(&b, "UDP -m", "### client");
    expect_block(k.out, &b);
    block_free(&b);

    o.print_mss = false; /* no -m: no line */
    client_spec(&sp, LP_PROTO_TCP, 25100, 0);
    client_banner_of(&k, &o, &sp, 16384);
    assert_null(strstr(k.out, "MSS"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(names_what_was_asked),
                                       cmocka_unit_test(mss_and_read_buffer_server),
                                       cmocka_unit_test(mss_client)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

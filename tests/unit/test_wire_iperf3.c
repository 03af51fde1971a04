/* iperf3 wire codecs: cookie, length prefix, UDP datagram header (checked against datagrams
 * captured from stock iperf3 3.12), stream numbering, client versions and the error numbers
 * each version knows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "evidence.h"
#include "wire/iperf3.h"

static void cookie_alphabet_and_validity(void **state)
{
    (void)state;
    uint8_t e[36];
    for (int i = 0; i < 36; i++)
        e[i] = (uint8_t)(i * 37 + 11);
    char c[LP_I3_COOKIE_SIZE];
    lp_i3_cookie_from_entropy(c, e);
    assert_int_equal(strlen(c), 36);
    for (int i = 0; i < 36; i++)
        assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz234567", c[i]));
    assert_true(lp_i3_cookie_valid((const uint8_t *)c));
    uint8_t bad[LP_I3_COOKIE_SIZE];
    memcpy(bad, c, sizeof(bad));
    bad[36] = 'x'; /* not NUL-terminated */
    assert_false(lp_i3_cookie_valid(bad));
    memcpy(bad, c, sizeof(bad));
    bad[3] = 0x01; /* control character */
    assert_false(lp_i3_cookie_valid(bad));
}

static void length_prefix_is_big_endian(void **state)
{
    (void)state;
    uint8_t b[4];
    lp_i3_put_len(b, 0x91);
    assert_memory_equal(b, "\x00\x00\x00\x91", 4);
    lp_i3_put_len(b, 0x01020304);
    assert_int_equal(lp_i3_get_len(b), 0x01020304);
    const uint8_t max[4] = {0xff, 0xff, 0xff, 0xff};
    assert_int_equal(lp_i3_get_len(max), 0xffffffffu);
}

static void udp_header_round_trip(void **state)
{
    (void)state;
    uint8_t buf[32];
    struct lp_i3_udp_hdr h = {.sec = 392, .usec = 199547, .seq = 0x1122334455ull}, g;
    assert_int_equal(lp_i3_udp_hdr_put(buf, sizeof(buf), &h, true), 16);
    assert_int_equal(lp_i3_udp_hdr_get(buf, 16, &g, true), 16);
    assert_int_equal(g.sec, 392);
    assert_int_equal(g.usec, 199547);
    assert_true(g.seq == 0x1122334455ull);
    /* 32-bit counters keep only the low word. */
    assert_int_equal(lp_i3_udp_hdr_put(buf, sizeof(buf), &h, false), 12);
    assert_int_equal(lp_i3_udp_hdr_get(buf, 12, &g, false), 12);
    assert_true(g.seq == 0x22334455ull);
    /* Too short: refused, nothing read. */
    assert_int_equal(lp_i3_udp_hdr_get(buf, 11, &g, false), 0);
    assert_int_equal(lp_i3_udp_hdr_get(buf, 15, &g, true), 0);
    assert_int_equal(lp_i3_udp_hdr_put(buf, 15, &h, true), 0);
}

struct seq_check {
    bool counters64;
    uint64_t expect_next;
    unsigned seen;
};

static void check_datagram_line(const char *line, void *arg)
{
    struct seq_check *sc = arg;
    /* Data datagrams only (the 4-byte hello and reply are not numbered). */
    if (!strstr(line, "len=1400 first24=") && !strstr(line, "len=32768 first24="))
        return;
    uint8_t b[24];
    size_t n = lp_evidence_hex(strstr(line, "first24=") + 8, b, sizeof(b));
    assert_int_equal(n, 24);
    struct lp_i3_udp_hdr h;
    assert_true(lp_i3_udp_hdr_get(b, n, &h, sc->counters64) > 0);
    if (sc->seen == 0)
        assert_true(h.seq == 1);
    else
        assert_true(h.seq >= sc->expect_next); /* the capture shows first and last few only */
    assert_true(h.usec < 1000000);
    sc->expect_next = h.seq + 1;
    sc->seen++;
}

static void udp_headers_from_stock_iperf3(void **state)
{
    (void)state;
    struct seq_check sc64 = {.counters64 = true};
    assert_true(lp_evidence_lines("wire_udp_64.txt", check_datagram_line, &sc64) > 0);
    assert_true(sc64.seen >= 4);
    struct seq_check sc32 = {.counters64 = false};
    assert_true(lp_evidence_lines("wire_udp.txt", check_datagram_line, &sc32) > 0);
    assert_true(sc32.seen >= 4);
}

static void handshake_words_match_the_capture(void **state)
{
    (void)state;
    uint8_t b[4];
    lp_i3_put_u32(b, LP_I3_UDP_HELLO);
    assert_memory_equal(b, "9876", 4); /* 39 38 37 36 in wire_udp_64.txt */
    lp_i3_put_u32(b, LP_I3_UDP_REPLY);
    assert_memory_equal(b, "6789", 4);
}

static void stream_ids_skip_two(void **state)
{
    (void)state;
    assert_int_equal(lp_i3_stream_id(0), 1);
    assert_int_equal(lp_i3_stream_id(1), 3);
    assert_int_equal(lp_i3_stream_id(2), 4);
    assert_int_equal(lp_i3_stream_id(7), 9);
}

static void client_versions(void **state)
{
    (void)state;
    assert_int_equal(lp_i3_version_parse("3.12"), 31200);
    assert_int_equal(lp_i3_version_parse("3.21+"), 32100);
    assert_int_equal(lp_i3_version_parse("3.17.1"), 31701);
    assert_int_equal(lp_i3_version_parse("3.1b3"), 30100);
    assert_int_equal(lp_i3_version_parse("3.15-mt-beta1"), 31500);
    assert_int_equal(lp_i3_version_parse("3"), 0);
    assert_int_equal(lp_i3_version_parse("x3.12"), 0);
    assert_int_equal(lp_i3_version_parse(""), 0);
    assert_int_equal(lp_i3_version_parse(NULL), 0);
    assert_int_equal(lp_i3_version_parse("3.1234"), 0); /* a part of four digits */
}

static void expect_error(int code, const char *version, int i_errno, int err)
{
    struct lp_i3_server_error e = lp_i3_server_error_for(code, lp_i3_version_parse(version));
    assert_int_equal(e.i_errno, i_errno);
    assert_int_equal(e.err, err);
}

/* A stock client prints "int_errno=N: " for a number its version lacks, and the text of 114
 * ends in ": " + strerror(errno): each refusal is sent as words the client has. */
static void errors_by_client_version(void **state)
{
    (void)state;
    expect_error(LP_I3E_AUTHTEST, "3.12", LP_I3E_AUTHTEST, 0);
    expect_error(LP_I3E_AUTHTEST, "3.21+", LP_I3E_AUTHTEST, 0);
    expect_error(LP_I3E_AUTHTEST, "3.1", LP_I3E_RECVPARAMS, LP_I3_ERRNO_EACCES);
    expect_error(LP_I3E_RECVPARAMS, "3.12", LP_I3E_RECVPARAMS, LP_I3_ERRNO_EINVAL);
    expect_error(LP_I3E_RECVPARAMS, NULL, LP_I3E_RECVPARAMS, LP_I3_ERRNO_EINVAL);
    expect_error(LP_I3E_MAXDURATION, "3.12", LP_I3E_DURATION, 0);
    expect_error(LP_I3E_MAXDURATION, "3.18", LP_I3E_RECVPARAMS, LP_I3_ERRNO_ERANGE);
    expect_error(LP_I3E_MAXDURATION, "3.20", LP_I3E_MAXDURATION, 0);
    expect_error(LP_I3E_TESTEXPIRED, "3.12", LP_I3E_SERVERTERM, 0);
    expect_error(LP_I3E_TESTEXPIRED, "3.21", LP_I3E_TESTEXPIRED, 0);
    expect_error(LP_I3E_NOMSG, "3.9", LP_I3E_SERVERTERM, 0);
    expect_error(LP_I3E_NOMSG, "3.10", LP_I3E_NOMSG, 0);
    expect_error(LP_I3E_MAXDURATION, NULL, LP_I3E_MAXDURATION, 0); /* unknown: the newest */
}

/* The whole SERVER_ERROR message: the state byte, then i_errno and errno big-endian, as the
 * handshake words are written. */
static void server_error_message(void **state)
{
    (void)state;
    struct lp_i3_server_error e = lp_i3_server_error_for(LP_I3E_RECVPARAMS, 0);
    uint8_t got[LP_I3_SERVER_ERROR_LEN], want[LP_I3_SERVER_ERROR_LEN];
    want[0] = (uint8_t)LP_I3_SERVER_ERROR;
    lp_i3_put_u32(want + 1, (uint32_t)e.i_errno);
    lp_i3_put_u32(want + 5, (uint32_t)e.err);
    lp_i3_server_error_put(got, e);
    assert_memory_equal(got, want, sizeof(want));
    assert_int_equal(got[0], 0xFE); /* -2, signed on the wire */
    assert_int_equal(lp_i3_get_u32(got + 1), LP_I3E_RECVPARAMS);
}

/* A board draws its cookie one character at a time: the alphabet of lp_i3_cookie_from_entropy. */
static void cookie_characters(void **state)
{
    (void)state;
    uint8_t e[36];
    char c[LP_I3_COOKIE_SIZE];
    for (int i = 0; i < 36; i++)
        e[i] = (uint8_t)(i * 7 + 200);
    lp_i3_cookie_from_entropy(c, e);
    for (int i = 0; i < 36; i++)
        assert_int_equal(c[i], lp_i3_cookie_char(e[i]));
    for (unsigned v = 0; v < 64; v++)
        assert_int_equal(lp_i3_cookie_char(v), "abcdefghijklmnopqrstuvwxyz234567"[v % 32]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cookie_alphabet_and_validity),
        cmocka_unit_test(length_prefix_is_big_endian),
        cmocka_unit_test(udp_header_round_trip),
        cmocka_unit_test(udp_headers_from_stock_iperf3),
        cmocka_unit_test(handshake_words_match_the_capture),
        cmocka_unit_test(stream_ids_skip_two),
        cmocka_unit_test(client_versions),
        cmocka_unit_test(errors_by_client_version),
        cmocka_unit_test(server_error_message),
        cmocka_unit_test(cookie_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

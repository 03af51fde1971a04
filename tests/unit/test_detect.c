/* First-bytes classification on the shared server port (src/proto/detect.c): every verdict,
 * on every prefix of each input, with and without the peer having closed. The expected verdict
 * of a prefix follows from the rules in docs/internals/engine.md ("One server, two
 * protocols"), written out below as a reference independent of the code's structure; the
 * headline verdicts are also asserted directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "proto/detect.h"
#include "wire/iperf2.h"
#include "wire/iperf3.h"

/* Stock 2.1.8 "--permit-key=secretkey -n 1000000": a 62-byte keyed header and the key. */
static const char *keyed_hdr =
    "50 01 00 7c 00 00 00 01 00 00 3b 03 00 00 00 00 00 00 00 00 00 0f 42 40 00 00 00 00 00 00 00 00 "
    "00 00 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 09 73 65 "
    "63 72 65 74 6b 65 79";
#define KEYED_HL 62u
#define KEY_LEN 9u

/* ---- the reference ---- */

static uint32_t word(const uint8_t *b, size_t len)
{
    uint32_t w = 0;
    for (size_t i = 0; i < 4; i++)
        w = w << 8 | (i < len ? b[i] : 0);
    return w;
}

static bool base32(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
}

struct want {
    enum lp_detect_verdict v;
    size_t want, used, hdr_len;
};

/* The verdict on exactly got bytes. */
static struct want judge(const uint8_t *b, size_t got)
{
    struct want w = {.used = got};
    bool cookie = got == 37 && b[36] == 0;
    for (size_t i = 0; cookie && i < 36; i++)
        cookie = b[i] >= 0x21 && b[i] <= 0x7e;
    if (cookie) {
        w.v = LP_DETECT_IPERF3;
        return w;
    }
    uint32_t f = word(b, got);
    if (f & LP_I2_BOUNCEBACK) { /* a bounceback message: 64 bytes say its size and hold */
        w.hdr_len = 64;
        w.v = got >= 64 ? LP_DETECT_BOUNCEBACK : LP_DETECT_SHORT;
        return w;
    }
    int hl = lp_i2_tcp_header_len(f);
    if (hl < 0) {
        w.v = (f & LP_I2_KEYCHECK) ? LP_DETECT_BAD_KEY : LP_DETECT_BAD_LENGTH;
        return w;
    }
    w.hdr_len = (size_t)hl;
    w.v = (size_t)hl > got ? LP_DETECT_SHORT
          : hl == 0        ? LP_DETECT_I2_NONE
          : (f & LP_I2_KEYCHECK) ? LP_DETECT_I2_KEYED
                                 : LP_DETECT_I2_PLAIN;
    return w;
}

/* Wait for need bytes, or judge what there is if the peer closed first. */
static struct want need_or_judge(const uint8_t *b, size_t len, bool eof, size_t need)
{
    if (len >= need)
        return judge(b, need);
    if (eof)
        return judge(b, len);
    struct want w = {.v = LP_DETECT_MORE, .want = need};
    return w;
}

static struct want reference(const uint8_t *b, size_t len, bool eof)
{
    if (len == 0) {
        struct want w = {.v = eof ? LP_DETECT_EMPTY : LP_DETECT_MORE, .want = 4};
        return w;
    }
    if (len < 4)
        return need_or_judge(b, len, eof, 4);
    /* Four base32 characters: an iperf3 cookie's 37 bytes decide. */
    if (base32(b[0]) && base32(b[1]) && base32(b[2]) && base32(b[3]))
        return need_or_judge(b, len, eof, 37);
    uint32_t f = word(b, 4);
    if (f & LP_I2_BOUNCEBACK)
        return need_or_judge(b, len, eof, 64);
    int hl = lp_i2_tcp_header_len(f);
    if (hl <= 0)
        return judge(b, 4); /* junk or header-less: the first word decides */
    if (len < (size_t)hl || !(f & LP_I2_KEYCHECK))
        return need_or_judge(b, len, eof, (size_t)hl);
    /* A keyed header: its last two bytes give the key's length, the key follows. */
    unsigned kl = (unsigned)b[hl - 2] << 8 | b[hl - 1];
    bool key_ok = kl >= LP_I2_KEY_MIN && kl <= LP_I2_KEY_MAX;
    return need_or_judge(b, len, eof, (size_t)hl + (key_ok ? kl : 0));
}

/* Every prefix of buf[0..n), closed or not, against the reference. */
static void every_prefix(const uint8_t *buf, size_t n)
{
    for (size_t len = 0; len <= n; len++) {
        for (int eof = 0; eof <= 1; eof++) {
            struct lp_detect d;
            struct want w = reference(buf, len, eof);
            lp_detect_tcp(buf, len, eof, &d);
            if (d.verdict != w.v || d.used != w.used || d.hdr_len != w.hdr_len ||
                (w.v == LP_DETECT_MORE && d.want != w.want))
                fail_msg("prefix %zu%s: verdict %d used %zu hdr %zu want %zu; expected %d used %zu hdr %zu want %zu",
                         len, eof ? " (closed)" : "", d.verdict, d.used, d.hdr_len, d.want, w.v, w.used,
                         w.hdr_len, w.want);
            if (len >= 4)
                assert_int_equal(d.flags, word(buf, 4));
        }
    }
}

static struct lp_detect detect(const uint8_t *b, size_t len, bool eof)
{
    struct lp_detect d;
    lp_detect_tcp(b, len, eof, &d);
    return d;
}

/* ---- inputs ---- */

static void iperf3_cookie(void **state)
{
    uint8_t entropy[36], buf[64];
    char cookie[LP_I3_COOKIE_SIZE];
    (void)state;
    for (int i = 0; i < 36; i++)
        entropy[i] = (uint8_t)(i * 37 + 11);
    lp_i3_cookie_from_entropy(cookie, entropy);
    memcpy(buf, cookie, LP_I3_COOKIE_SIZE);
    memset(buf + LP_I3_COOKIE_SIZE, 0x5a, sizeof(buf) - LP_I3_COOKIE_SIZE); /* what follows: not looked at */
    every_prefix(buf, sizeof(buf));
    struct lp_detect d = detect(buf, LP_I3_COOKIE_SIZE, false);
    assert_int_equal(d.verdict, LP_DETECT_IPERF3);
    assert_int_equal(d.used, LP_I3_COOKIE_SIZE);
    assert_int_equal(detect(buf, 4, false).want, LP_I3_COOKIE_SIZE);
    /* 37 cookie-like bytes that are no cookie (no NUL): iperf2's, by their first word. */
    buf[36] = 'x';
    every_prefix(buf, sizeof(buf));
    assert_int_not_equal(detect(buf, 37, false).verdict, LP_DETECT_IPERF3);
}

static void iperf2_plain_header(void **state)
{
    struct lp_i2_header h = {.num_threads = 2, .buflen = 131072, .amount = -1000};
    uint8_t buf[LP_I2_TCP_HDR_LEN + 20];
    (void)state;
    size_t hl = lp_i2_header_encode(buf, sizeof(buf), &h);
    assert_int_equal(hl, LP_I2_TCP_HDR_LEN);
    memset(buf + hl, '0', sizeof(buf) - hl); /* payload */
    every_prefix(buf, sizeof(buf));
    struct lp_detect d = detect(buf, hl, false);
    assert_int_equal(d.verdict, LP_DETECT_I2_PLAIN);
    assert_int_equal(d.hdr_len, hl);
    assert_int_equal(d.used, hl);
    assert_int_equal(detect(buf, 4, false).want, hl);
    /* Closed inside the header: no test. */
    d = detect(buf, hl - 1, true);
    assert_int_equal(d.verdict, LP_DETECT_SHORT);
    assert_int_equal(d.hdr_len, hl);
}

static void iperf2_keyed_header(void **state)
{
    uint8_t buf[128];
    (void)state;
    size_t n = lp_evidence_hex(keyed_hdr, buf, sizeof(buf));
    assert_int_equal(n, KEYED_HL + KEY_LEN);
    every_prefix(buf, n);
    /* The header first, then the key whose length ends it. */
    assert_int_equal(detect(buf, 4, false).want, KEYED_HL);
    assert_int_equal(detect(buf, KEYED_HL, false).want, KEYED_HL + KEY_LEN);
    struct lp_detect d = detect(buf, n, false);
    assert_int_equal(d.verdict, LP_DETECT_I2_KEYED);
    assert_int_equal(d.hdr_len, KEYED_HL);
    assert_int_equal(d.used, KEYED_HL + KEY_LEN);
    /* Closed inside the key: the dialect gets what arrived (and refuses it). */
    d = detect(buf, KEYED_HL + 3, true);
    assert_int_equal(d.verdict, LP_DETECT_I2_KEYED);
    assert_int_equal(d.used, KEYED_HL + 3);
    /* A key length out of 4..128: decided at the header, the dialect drops it. */
    for (unsigned kl = 0; kl < 300; kl += 1 + kl / 8) {
        buf[KEYED_HL - 2] = (uint8_t)(kl >> 8);
        buf[KEYED_HL - 1] = (uint8_t)kl;
        every_prefix(buf, n);
        if (kl < LP_I2_KEY_MIN || kl > LP_I2_KEY_MAX)
            assert_int_equal(detect(buf, KEYED_HL, false).used, KEYED_HL);
    }
}

static void iperf2_without_header(void **state)
{
    const uint8_t buf[] = "0123456789012345678901234567890123456789"; /* a -C client's data */
    (void)state;
    every_prefix(buf, sizeof(buf) - 1);
    struct lp_detect d = detect(buf, 4, false);
    assert_int_equal(d.verdict, LP_DETECT_I2_NONE);
    assert_int_equal(d.hdr_len, 0);
    assert_int_equal(d.used, 4);
    /* A 2-byte stream that ended: payload too. */
    d = detect(buf, 2, true);
    assert_int_equal(d.verdict, LP_DETECT_I2_NONE);
    assert_int_equal(d.used, 2);
    /* flags 0 (2.0.5-era): no header either. */
    const uint8_t zeros[8] = {0};
    every_prefix(zeros, sizeof(zeros));
    assert_int_equal(detect(zeros, 4, false).verdict, LP_DETECT_I2_NONE);
}

/* A first word and what it must say, after any bytes. */
static void first_word_says(uint32_t flags, enum lp_detect_verdict v)
{
    uint8_t buf[300];
    memset(buf, 0xa5, sizeof(buf));
    buf[0] = (uint8_t)(flags >> 24), buf[1] = (uint8_t)(flags >> 16);
    buf[2] = (uint8_t)(flags >> 8), buf[3] = (uint8_t)flags;
    every_prefix(buf, sizeof(buf));
    struct lp_detect d = detect(buf, 4, false);
    assert_int_equal(d.verdict, v);
    assert_int_equal(d.used, 4);
    assert_int_equal(d.flags, flags);
}

static void junk(void **state)
{
    (void)state;
    first_word_says(LP_I2_VERSION1 | LP_I2_KEYCHECK, LP_DETECT_BAD_KEY); /* no LEN to find the key */
    first_word_says(LP_I2_EXTEND | LP_I2_KEYCHECK | LP_I2_LEN_BIT | (10u << 1), LP_DETECT_BAD_KEY);
    for (unsigned len = 0; len < LP_I2_V1_LEN; len += 5)
        first_word_says(LP_I2_EXTEND | LP_I2_LEN_BIT | (len << 1), LP_DETECT_BAD_LENGTH);
}

/* A --bounceback message: its first 64 bytes (size, hold) decide, whatever else the
 * flags say; closed before them, it is short. */
static void bounceback(void **state)
{
    (void)state;
    uint8_t buf[100];
    memset(buf, 0x5a, sizeof(buf));
    buf[0] = 0x00, buf[1] = 0x80, buf[2] = 0x00, buf[3] = 0x00;
    every_prefix(buf, sizeof(buf));
    struct lp_detect d = detect(buf, 4, false);
    assert_int_equal(d.verdict, LP_DETECT_MORE);
    assert_int_equal(d.want, 64);
    d = detect(buf, 64, false);
    assert_int_equal(d.verdict, LP_DETECT_BOUNCEBACK);
    assert_int_equal(d.used, 64);
    d = detect(buf, 63, true);
    assert_int_equal(d.verdict, LP_DETECT_SHORT);
    buf[0] = 0x80; /* VERSION1 as well: still a bounceback message */
    d = detect(buf, 100, false);
    assert_int_equal(d.verdict, LP_DETECT_BOUNCEBACK);
    assert_int_equal(d.used, 64);
}

static void empty_and_nothing_yet(void **state)
{
    (void)state;
    struct lp_detect d = detect(NULL, 0, true);
    assert_int_equal(d.verdict, LP_DETECT_EMPTY);
    d = detect(NULL, 0, false);
    assert_int_equal(d.verdict, LP_DETECT_MORE);
    assert_int_equal(d.want, 4);
}

/* Every first byte, with every length of what follows: the promises hold for any input. */
static void any_first_bytes(void **state)
{
    uint8_t buf[LP_DETECT_MAX + 8];
    (void)state;
    for (unsigned b0 = 0; b0 < 256; b0 += 3) {
        for (unsigned b1 = 0; b1 < 256; b1 += 51) {
            memset(buf, (int)(b0 ^ b1), sizeof(buf));
            buf[0] = (uint8_t)b0, buf[1] = (uint8_t)b1, buf[2] = 0x00, buf[3] = (uint8_t)(b0 * 7);
            every_prefix(buf, sizeof(buf));
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(iperf3_cookie),
        cmocka_unit_test(iperf2_plain_header),
        cmocka_unit_test(iperf2_keyed_header),
        cmocka_unit_test(iperf2_without_header),
        cmocka_unit_test(junk),
        cmocka_unit_test(bounceback),
        cmocka_unit_test(empty_and_nothing_yet),
        cmocka_unit_test(any_first_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

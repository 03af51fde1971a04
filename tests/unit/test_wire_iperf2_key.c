/* iperf2 --permit-key on the wire (src/wire/iperf2_extras.c), against the bytes stock iperf 2.1.8
 * sends (docs/internals/permit-key.md): the keyed header's length rule, the key length at
 * LEN-2, the bounds 4..128, the comparison, and our client's encoder byte for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "evidence.h"
#include "wire/iperf2.h"

/* "iperf -c 127.0.0.1 -p 15107 --permit-key=secretkey -n 1000000": its first 71 bytes. */
static const char *keyed_hdr =
    "50 01 00 7c 00 00 00 01 00 00 3b 03 00 00 00 00 00 00 00 00 00 0f 42 40 00 00 00 00 00 00 00 00 "
    "00 00 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 09 73 65 "
    "63 72 65 74 6b 65 79";
/* The same with --trip-times: LEN 82 (the 80-byte header and the length), key at 82. */
static const char *keyed_trip_hdr =
    "50 01 00 a4 00 00 00 01 00 00 3b 03 00 00 00 00 00 00 00 00 00 0f 42 40 00 00 00 00 00 00 00 00 "
    "00 10 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
    "6b 0f a2 c8 00 0b 48 cb 00 00 00 00 00 00 00 00 00 09 73 65 63 72 65 74 6b 65 79";

static const uint8_t key[] = "secretkey";
#define KEYLEN 9u

static void keyed_header_from_stock(void **state)
{
    (void)state;
    uint8_t b[128];
    assert_int_equal(lp_evidence_hex(keyed_hdr, b, sizeof(b)), 71);
    uint32_t flags = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    assert_true(flags & LP_I2_KEYCHECK);
    int hl = lp_i2_tcp_header_len(flags);
    assert_int_equal(hl, 62);
    assert_int_equal(lp_i2_key_len(b, (size_t)hl), KEYLEN);
    assert_true(lp_i2_key_matches(b, 71, 62, key, KEYLEN));
    /* The header under the key is an ordinary 2.1.8 one. */
    struct lp_i2_header h;
    assert_int_equal(lp_i2_header_decode(b, (size_t)hl, &h), 0);
    assert_true(h.has_ext);
    assert_int_equal(h.num_threads, 1);
    assert_int_equal(h.mport, 15107);
    assert_int_equal(h.amount, 1000000);
    assert_true(lp_i2_ack_wanted(h.flags));

    assert_int_equal(lp_evidence_hex(keyed_trip_hdr, b, sizeof(b)), 91);
    flags = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    hl = lp_i2_tcp_header_len(flags);
    assert_int_equal(hl, 82);
    assert_int_equal(lp_i2_key_len(b, (size_t)hl), KEYLEN);
    assert_true(lp_i2_key_matches(b, 91, 82, key, KEYLEN));
    uint32_t sec, usec;
    assert_true(lp_i2_header_start_time(b, (size_t)hl, false, &sec, &usec));
    assert_int_equal(sec, 0x6b0fa2c8u);
    assert_int_equal(usec, 0x000b48cbu);
}

static void key_mismatches(void **state)
{
    (void)state;
    uint8_t b[128];
    lp_evidence_hex(keyed_hdr, b, sizeof(b));
    assert_false(lp_i2_key_matches(b, 71, 62, (const uint8_t *)"secretkex", KEYLEN)); /* last byte */
    assert_false(lp_i2_key_matches(b, 71, 62, (const uint8_t *)"xecretkey", KEYLEN)); /* first byte */
    assert_false(lp_i2_key_matches(b, 71, 62, (const uint8_t *)"secretke", 8));       /* shorter */
    assert_false(lp_i2_key_matches(b, 71, 62, (const uint8_t *)"secretkeyy", 10));    /* longer */
    assert_false(lp_i2_key_matches(b, 70, 62, key, KEYLEN));  /* the key's last byte missing */
    assert_false(lp_i2_key_matches(b, 61, 62, key, KEYLEN));  /* less than the header */
    assert_false(lp_i2_key_matches(b, 71, 60, key, KEYLEN));  /* not its LEN */
    /* A NUL inside the key is a byte like any other (2.1.8's strncmp stops there). */
    b[66] = 0;
    assert_false(lp_i2_key_matches(b, 71, 62, key, KEYLEN));
}

static void key_length_bounds(void **state)
{
    (void)state;
    uint8_t b[LP_I2_KEYED_HDR_MAX];
    memset(b, 'k', sizeof(b));
    lp_evidence_hex(keyed_hdr, b, 62);
    static const struct {
        unsigned len;
        int want;
    } cases[] = {{0, -1}, {3, -1}, {4, 4}, {128, 128}, {129, -1}, {0xffff, -1}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        b[60] = (uint8_t)(cases[i].len >> 8);
        b[61] = (uint8_t)cases[i].len;
        assert_int_equal(lp_i2_key_len(b, 62), cases[i].want);
    }
    /* Not a keyed header, or not of the length its LEN says. */
    b[60] = 0, b[61] = 9;
    assert_int_equal(lp_i2_key_len(b, 63), -1);
    assert_int_equal(lp_i2_key_len(b, 25), -1);
    b[0] = 0x40; /* KEYCHECK off: a plain 2.1.8 header of 62 bytes */
    assert_int_equal(lp_i2_key_len(b, 62), -1);
    /* KEYCHECK without LEN, or a LEN that leaves no room for the length after the v1 part. */
    assert_int_equal(lp_i2_tcp_header_len(0x50000000u), -1);
    assert_int_equal(lp_i2_tcp_header_len(0x50010032u), -1); /* LEN 25 */
    assert_int_equal(lp_i2_tcp_header_len(0x50010034u), 26); /* LEN 26: v1 and the length */
    assert_int_equal(lp_i2_tcp_header_len(0x500101feu), 255);
    /* A header-less stream whose first word has the bit (a -C client's "0123") stays payload. */
    assert_int_equal(lp_i2_tcp_header_len(0x30313233u), 0);
    assert_int_equal(lp_i2_key_len((const uint8_t *)"0123456789012345678901234567890123456789", 40), -1);
}

static void encoder_matches_stock(void **state)
{
    (void)state;
    uint8_t want[128], got[LP_I2_TRIP_TCP_HDR_LEN + 2 + LP_I2_KEY_MAX];
    lp_evidence_hex(keyed_hdr, want, sizeof(want));
    struct lp_i2_header h = {.num_threads = 1, .mport = 15107, .amount = 1000000};
    assert_int_equal(lp_i2_header_encode_keyed(got, sizeof(got), &h, key, KEYLEN), 71);
    assert_memory_equal(got, want, 71);

    lp_evidence_hex(keyed_trip_hdr, want, sizeof(want));
    h.upper = LP_I2_UP_TRIPTIME;
    h.start_sec = 0x6b0fa2c8u;
    h.start_usec = 0x000b48cbu;
    assert_int_equal(lp_i2_header_encode_keyed(got, sizeof(got), &h, key, KEYLEN), 91);
    assert_memory_equal(got, want, 91);

    /* Round trip of the longest key; refusals of keys out of bounds and of short buffers. */
    uint8_t k128[LP_I2_KEY_MAX];
    memset(k128, 'z', sizeof(k128));
    h.upper = 0;
    size_t n = lp_i2_header_encode_keyed(got, sizeof(got), &h, k128, sizeof(k128));
    assert_int_equal(n, 62 + 128);
    assert_int_equal(lp_i2_key_len(got, 62), 128);
    assert_true(lp_i2_key_matches(got, n, 62, k128, sizeof(k128)));
    assert_int_equal(lp_i2_header_encode_keyed(got, sizeof(got), &h, k128, 3), 0);
    assert_int_equal(lp_i2_header_encode_keyed(got, sizeof(got), &h, k128, 129), 0);
    assert_int_equal(lp_i2_header_encode_keyed(got, 70, &h, key, KEYLEN), 0);
    assert_int_equal(lp_i2_header_encode_keyed(got, 71, &h, key, KEYLEN), 71);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keyed_header_from_stock),
        cmocka_unit_test(key_mismatches),
        cmocka_unit_test(key_length_bounds),
        cmocka_unit_test(encoder_matches_stock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* iperf2 codecs against bytes captured from stock iperf 2.1.8 (hex copied from the project's
 * protocol evidence): header length rule, header fields, the ack, UDP prefix and the
 * 128-byte server report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "evidence.h"
#include "wire/iperf2.h"

static size_t hex(const char *s, uint8_t *out, size_t max)
{
    return lp_evidence_hex(s, out, max);
}

/* "iperf -c 127.0.0.1 -p 25001 -t 1 -l 64K -w 256K -b 100m -S 0x10": its first 60 bytes. */
static const char *tcp_opts_hdr =
    "40 01 00 78 00 00 00 01 00 00 61 a9 00 01 00 00 00 00 00 00 ff ff ff 9c 00 00 00 00 00 00 00 00 "
    "00 00 00 00 00 02 00 01 00 08 00 03 00 00 00 10 05 f5 e1 00 00 00 00 00 00 00 00 00";

static void header_length_rule(void **state)
{
    (void)state;
    assert_int_equal(lp_i2_tcp_header_len(0x40010078u), 60);  /* 2.1.x plain */
    assert_int_equal(lp_i2_tcp_header_len(0x40010080u), 64);  /* 2.2.x plain */
    assert_int_equal(lp_i2_tcp_header_len(0xC0010079u), 60);  /* -d */
    assert_int_equal(lp_i2_tcp_header_len(0x80000001u), 24);  /* 2.0.5-era -d, no LEN */
    assert_int_equal(lp_i2_tcp_header_len(0x40000000u), 60);  /* 2.0.10 extended, no LEN */
    assert_int_equal(lp_i2_tcp_header_len(0x00000000u), 0);   /* 2.0.5 plain: payload */
    assert_int_equal(lp_i2_tcp_header_len(0x30313233u), 0);   /* -C digits: payload */
    assert_int_equal(lp_i2_tcp_header_len(0x00800000u), -1);  /* bounceback: not served */
    assert_int_equal(lp_i2_tcp_header_len(0x5001007cu), 62);  /* --permit-key: to the key length */
    assert_int_equal(lp_i2_tcp_header_len(0x50000000u), -1);  /* keyed without LEN */
    assert_int_equal(lp_i2_tcp_header_len(0x40010002u), -1);  /* LEN 1: below a v1 header */
}

static void decode_captured_header(void **state)
{
    (void)state;
    uint8_t b[64];
    assert_int_equal(hex(tcp_opts_hdr, b, sizeof(b)), 60);
    struct lp_i2_header h;
    assert_int_equal(lp_i2_header_decode(b, 60, &h), 0);
    assert_int_equal(h.flags, 0x40010078u);
    assert_int_equal(h.num_threads, 1);
    assert_int_equal(h.mport, 25001);
    assert_int_equal(h.buflen, 65536);                    /* -l 64K */
    assert_true(lp_i2_amount_seconds(h.amount) == 1.0);   /* -t 1 */
    assert_true(h.has_ext);
    assert_int_equal(h.version_u, 0x00020001u);
    assert_int_equal(h.version_l, 0x00080003u);
    assert_int_equal(h.tos, 0x10);                        /* -S 0x10 */
    assert_true(h.rate_bps == 100000000ull);              /* -b 100m */
    assert_true(lp_i2_ack_wanted(h.flags));
}

static void encode_matches_stock_bytes(void **state)
{
    (void)state;
    uint8_t want[64], got[64];
    hex(tcp_opts_hdr, want, sizeof(want));
    struct lp_i2_header h = {.num_threads = 1, .mport = 25001, .buflen = 65536,
                             .amount = lp_i2_amount_from_seconds(1.0), .tos = 0x10, .rate_bps = 100000000};
    assert_int_equal(lp_i2_header_encode(got, sizeof(got), &h), 60);
    assert_memory_equal(got, want, 60);
    /* -n 1M: a positive amount. */
    h.amount = 1048576;
    lp_i2_header_encode(got, sizeof(got), &h);
    assert_memory_equal(got + 20, "\x00\x10\x00\x00", 4);
    /* -d sets VERSION1 and RUN_NOW (0xc0010079 on the wire) */
    h.flags = LP_I2_VERSION1 | LP_I2_RUN_NOW;
    lp_i2_header_encode(got, sizeof(got), &h);
    assert_memory_equal(got, "\xc0\x01\x00\x79", 4);
}

static void udp_header_matches_stock_bytes(void **state)
{
    (void)state;
    /* U+16.. of "iperf -c 127.0.0.1 -p 25001 -u -b 10M -t 1": flags 0x48010098, rate 10M (1024-based) */
    uint8_t want[64], got[64];
    hex("48 01 00 98 00 00 00 01 00 00 61 a9 00 00 00 00 00 00 00 00 ff ff ff 9c 00 00 00 00 00 00 00 00 "
        "00 00 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 a0 00 00 00 00 00 00 00 00 00 00",
        want, sizeof(want));
    struct lp_i2_header h = {.num_threads = 1, .mport = 25001, .amount = lp_i2_amount_from_seconds(1.0),
                             .rate_bps = 10485760};
    assert_int_equal(lp_i2_header_encode_udp(got, sizeof(got), &h), 60);
    assert_memory_equal(got, want, 60);
}

static void ack_matches_stock_bytes(void **state)
{
    (void)state;
    uint8_t want[28], got[28];
    hex("00 00 00 02 00 00 00 1c 00 00 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 00 00 00", want, 28);
    lp_i2_ack_encode(got);
    assert_memory_equal(got, want, 28);
    assert_false(lp_i2_ack_wanted(0x44010078u)); /* -R: no ack */
    assert_true(lp_i2_ack_wanted(0x46010078u));  /* -X: ack */
}

static void udp_prefix_and_fin(void **state)
{
    (void)state;
    uint8_t first[32], fin[32];
    /* first and FIN datagram of "iperf -c ... -u -b 10M -t 1" (flags 0x48010098 at U+16) */
    hex("00 00 00 01 6b 0d 76 6d 00 02 0d 38 00 00 00 00 48 01 00 98", first, sizeof(first));
    hex("ff ff fc 81 6b 0d 76 6e 00 02 14 9a ff ff ff ff 48 01 00 98", fin, sizeof(fin));
    uint32_t flags = lp_i2_udp_flags(first, 20);
    assert_int_equal(flags, 0x48010098u);
    bool s64 = flags & LP_I2_SEQNO64B;
    int64_t seq;
    uint32_t sec, usec;
    assert_true(lp_i2_udp_prefix_get(first, 20, s64, &seq, &sec, &usec));
    assert_true(seq == 1);
    assert_int_equal(sec, 0x6b0d766d);
    assert_true(lp_i2_udp_prefix_get(fin, 20, s64, &seq, &sec, &usec));
    assert_true(seq == -895); /* -(894 data datagrams + 1) */
    uint8_t again[16];
    lp_i2_udp_prefix_put(again, -895, 0x6b0d766e, 0x0002149a);
    assert_memory_equal(again, fin, 16);
    /* A header-less client's digits at U+16 are not flags. */
    assert_int_equal(lp_i2_udp_flags((const uint8_t *)"0123456789012345678901234", 20), 0);
}

static void server_report(void **state)
{
    (void)state;
    uint8_t b[128];
    /* the 128-byte report of the udp_plain capture: 895 datagrams, 1315650 bytes, 1.001838 s */
    hex("00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 88 00 00 00 00 00 00 00 00 14 13 42 00 00 00 01 "
        "00 00 07 2e 00 00 00 00 00 00 00 00 00 00 03 7f 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 01 "
        "00 00 00 00 00 00 00 36 00 00 00 00 00 00 12 cb 00 00 00 00 00 00 00 05 00 00 43 d1 00 0d 1c 51 "
        "00 00 00 00 ff ff ff fd 00 00 03 7f 00 00 03 7d 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00",
        b, sizeof(b));
    struct lp_i2_report r;
    assert_true(lp_i2_report_decode(b, 128, &r));
    assert_true(r.bytes == 1315650);
    assert_int_equal(r.stop_sec, 1);
    assert_int_equal(r.stop_usec, 1838);
    assert_true(r.datagrams == 895);
    assert_true(r.errors == 0 && r.out_of_order == 0);
    assert_int_equal(r.jitter_usec, 2);
    /* Our encoding carries the same counters back. */
    uint8_t enc[128];
    lp_i2_report_encode(enc, &r);
    struct lp_i2_report back;
    assert_true(lp_i2_report_decode(enc, 128, &back));
    assert_memory_equal(&back, &r, sizeof(r));
    /* 2.0.5-era layout: report at U+12 (udp evidence old_srv_udp), 32-bit counts. */
    uint8_t old[64];
    hex("ff ff ff a7 6b 0d 77 7a 00 02 9e ee 80 00 00 00 00 00 00 00 00 01 f9 50 00 00 00 01 00 00 5b 3b "
        "00 00 00 01 00 00 00 00 00 00 00 59 00 00 00 00 00 00 00 22 00 02 00 01 00 08 00 03 00 00 00 00",
        old, sizeof(old));
    assert_true(lp_i2_report_decode(old, 64, &r));
    assert_true(r.bytes == 129360);
    assert_true(r.errors == 1);
    assert_true(r.datagrams == 89);
    /* Neither layout: refused. */
    memset(old, 0, sizeof(old));
    assert_false(lp_i2_report_decode(old, 64, &r));
}


/* --trip-times, TCP: "iperf -c 127.0.0.1 -p 25001 -t 1 --trip-times" sent this 80-byte header
 * (tcp_first_bytes evidence, tcp_trip), start time 0x6b0d763b.0x00026898 at T+64. */
static void trip_tcp_header_matches_stock_bytes(void **state)
{
    (void)state;
    uint8_t want[80], got[80];
    hex("40 01 00 a0 00 00 00 01 00 00 61 a9 00 00 00 00 00 00 00 00 ff ff ff 9c 00 00 00 00 00 00 00 00 "
        "00 10 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "
        "6b 0d 76 3b 00 02 68 98 00 00 00 00 00 00 00 00",
        want, sizeof(want));
    struct lp_i2_header h = {.num_threads = 1, .mport = 25001, .amount = -100, .upper = LP_I2_UP_TRIPTIME,
                             .start_sec = 0x6b0d763bu, .start_usec = 0x00026898u};
    assert_int_equal(lp_i2_header_encode(got, 60, &h), 0); /* too small for the long form */
    assert_int_equal(lp_i2_header_encode(got, sizeof(got), &h), 80);
    assert_memory_equal(got, want, 80);
    assert_int_equal(lp_i2_tcp_header_len(0x400100A0u), 80);
    uint32_t sec = 0, usec = 0;
    assert_true(lp_i2_header_start_time(want, 80, false, &sec, &usec));
    assert_int_equal(sec, 0x6b0d763bu);
    assert_int_equal(usec, 0x00026898u);
    /* A plain header has no start time; a truncated one neither. */
    uint8_t plain[60];
    hex(tcp_opts_hdr, plain, sizeof(plain));
    assert_false(lp_i2_header_start_time(plain, 60, false, &sec, &usec));
    assert_false(lp_i2_header_start_time(want, 70, false, &sec, &usec));
}

/* --trip-times, UDP (udp_datagrams evidence, udp_trip): flags 0x680100D8 at U+16 (UDPTESTS,
 * LEN 108), -b 1m, and the start time at U+112. */
static void trip_udp_header_matches_stock_bytes(void **state)
{
    (void)state;
    uint8_t want[80], got[LP_I2_TRIP_UDP_HDR_LEN];
    hex("68 01 00 d8 00 00 00 01 00 00 61 a9 00 00 00 00 00 00 00 00 ff ff ff 9c 00 00 00 00 00 00 00 00 "
        "00 10 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 0f 42 40 00 00 00 00 00 00 00 00 00 00 00 00 "
        "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        want, sizeof(want));
    struct lp_i2_header h = {.num_threads = 1, .mport = 25001, .amount = -100, .upper = LP_I2_UP_TRIPTIME,
                             .rate_bps = 1000000, .start_sec = 7, .start_usec = 8};
    assert_int_equal(lp_i2_header_encode_udp(got, sizeof(got), &h), LP_I2_TRIP_UDP_HDR_LEN);
    assert_memory_equal(got, want, 80);
    uint32_t sec = 0, usec = 0;
    assert_true(lp_i2_header_start_time(got, sizeof(got), true, &sec, &usec));
    assert_int_equal(sec, 7);
    assert_int_equal(usec, 8);
}

/* The 52-byte ack a 2.1.8 server sent that trip-times client (tcp_trip). */
static void trip_ack_matches_stock_bytes(void **state)
{
    (void)state;
    uint8_t want[52], got[LP_I2_ACK_TS_LEN];
    hex("00 00 00 02 00 00 00 34 00 00 00 00 00 02 00 01 00 08 00 03 00 00 00 00 00 00 00 00 6b 0d 76 3b "
        "00 02 68 98 6b 0d 76 3b 00 02 67 f8 6b 0d 76 3b 00 02 69 c2",
        want, sizeof(want));
    lp_i2_ack_encode_ts(got, 0x6b0d763bu, 0x26898u, 0x6b0d763bu, 0x267f8u, 0x6b0d763bu, 0x269c2u);
    assert_memory_equal(got, want, 52);
}

static void burst_header_round_trip(void **state)
{
    (void)state;
    struct lp_i2_burst b = {.start_sec = 1, .start_usec = 2, .write_sec = 0x6b0d763bu, .write_usec = 999999,
                            .id = 42, .size = 131072, .seq = 0x100000005ull, .period_us = 16666}, back;
    uint8_t buf[LP_I2_BURST_LEN];
    lp_i2_burst_put(buf, &b);
    /* burst size at offset 48 and write time at 20, where a 2.1.8 receiver reads them */
    assert_int_equal(buf[48] << 24 | buf[49] << 16 | buf[50] << 8 | buf[51], 131072);
    assert_int_equal(buf[20], 0x6b);
    /* and the --isochronous frame period at 40, where 2.1.8 writes it */
    assert_int_equal(buf[40] << 24 | buf[41] << 16 | buf[42] << 8 | buf[43], 16666);
    lp_i2_burst_get(buf, &back);
    /* field by field: the struct has padding */
    assert_int_equal(back.start_sec, b.start_sec);
    assert_int_equal(back.start_usec, b.start_usec);
    assert_int_equal(back.write_sec, b.write_sec);
    assert_int_equal(back.write_usec, b.write_usec);
    assert_int_equal(back.id, b.id);
    assert_int_equal(back.size, b.size);
    assert_true(back.seq == b.seq);
    assert_int_equal(back.period_us, b.period_us);
}

/* A report with transit statistics: flags gain EXTEND (0xC8000000, what 2.1.8 -e sends), m2
 * travels scaled by 10^12, and a decoder gets the numbers back. */
static void server_report_transit(void **state)
{
    (void)state;
    struct lp_i2_report r = {.bytes = 1000, .datagrams = 10, .has_transit = true, .transit_count = 10,
                             .transit_min_s = 0.000004, .transit_max_s = 0.000079, .transit_sum_s = 0.00021,
                             .transit_mean_s = 0.000021, .transit_m2_s2 = 5.76e-10, .ipg_count = 87},
                        back;
    uint8_t enc[128];
    lp_i2_report_encode(enc, &r);
    assert_int_equal(enc[16], 0xC8);
    assert_true(lp_i2_report_decode(enc, 128, &back));
    assert_true(back.has_transit);
    assert_int_equal(back.transit_count, 10);
    assert_int_equal(back.ipg_count, 87);
    assert_true(back.transit_min_s > 0.0000039 && back.transit_min_s < 0.0000041);
    assert_true(back.transit_max_s > 0.0000789 && back.transit_max_s < 0.0000791);
    assert_true(back.transit_mean_s > 0.0000209 && back.transit_mean_s < 0.0000211);
    assert_true(back.transit_m2_s2 > 5.75e-10 && back.transit_m2_s2 < 5.77e-10);
    /* Without transit fields: 0x88, and nothing decoded as transit. */
    r.has_transit = false;
    lp_i2_report_encode(enc, &r);
    assert_int_equal(enc[16], 0x88);
    assert_true(lp_i2_report_decode(enc, 128, &back));
    assert_false(back.has_transit);
}

/* The report's jitter, from the peer's timestamps: rounded to the microsecond (carrying into
 * the seconds), saturated past 2^32 - 1 s (the old (uint32_t) cast of 5e9 was undefined and
 * sent 705032704 s on x86), 0 when negative or NaN. */
static void report_jitter_saturates(void **state)
{
    (void)state;
    struct lp_i2_report r;
    lp_i2_report_set_jitter(&r, 1.5);
    assert_int_equal(r.jitter_sec, 1);
    assert_int_equal(r.jitter_usec, 500000);
    lp_i2_report_set_jitter(&r, 0.0000126);
    assert_int_equal(r.jitter_sec, 0);
    assert_int_equal(r.jitter_usec, 13);
    lp_i2_report_set_jitter(&r, 2.9999996);
    assert_int_equal(r.jitter_sec, 3);
    assert_int_equal(r.jitter_usec, 0);
    lp_i2_report_set_jitter(&r, 5e9);
    assert_int_equal(r.jitter_sec, UINT32_MAX);
    assert_int_equal(r.jitter_usec, 999999);
    lp_i2_report_set_jitter(&r, 4294967294.75);
    assert_int_equal(r.jitter_sec, 4294967294u);
    assert_int_equal(r.jitter_usec, 750000);
    lp_i2_report_set_jitter(&r, -1.0);
    assert_int_equal(r.jitter_sec, 0);
    assert_int_equal(r.jitter_usec, 0);
    lp_i2_report_set_jitter(&r, NAN);
    assert_int_equal(r.jitter_sec, 0);
    assert_int_equal(r.jitter_usec, 0);
}

/* The functions a board links instead of the host's (agent/, the shared codec): the plain
 * header, the core of the decoder, the ack as data and the report's counts give what the host's
 * encoders and decoders give, on the bytes stock 2.1.8 sent. */
static void board_header_codecs_match_the_host_ones(void **state)
{
    (void)state;
    uint8_t want[64], got[LP_I2_TCP_HDR_LEN];
    hex(tcp_opts_hdr, want, sizeof(want));
    struct lp_i2_header h, core;
    assert_int_equal(lp_i2_header_decode(want, 60, &h), 0);
    h.flags &= ~(LP_I2_EXTEND | LP_I2_LEN_BIT | LP_I2_LEN_MASK); /* the encoder sets them */
    lp_i2_header_encode_plain(got, &h, false);
    assert_memory_equal(got, want, 60);
    uint8_t host[LP_I2_TCP_HDR_LEN];
    assert_int_equal(lp_i2_header_encode_udp(host, sizeof(host), &h), 60);
    lp_i2_header_encode_plain(got, &h, true);
    assert_memory_equal(got, host, 60);
    /* The core decoder: the fields that say what test to run, the rest left 0. */
    assert_int_equal(lp_i2_header_decode_core(want, 60, &core), 0);
    assert_int_equal(lp_i2_header_decode(want, 60, &h), 0);
    assert_int_equal(core.flags, h.flags);
    assert_int_equal(core.mport, h.mport);
    assert_int_equal(core.buflen, h.buflen);
    assert_int_equal(core.amount, h.amount);
    assert_int_equal(core.upper, h.upper);
    assert_true(core.rate_bps == h.rate_bps);
    assert_int_equal(core.num_threads, 0);
    assert_int_equal(core.tos, 0);
    assert_false(core.has_ext);
    assert_int_equal(lp_i2_header_decode_core(want, 23, &core), -1);
    /* Without room for the extension, neither decoder reads it. */
    assert_int_equal(lp_i2_header_decode_core(want, 59, &core), 0);
    assert_int_equal(core.upper, 0);
    assert_true(core.rate_bps == 0);
    assert_false(lp_i2_header_has_ext(h.flags, 59));
    assert_true(lp_i2_header_has_ext(h.flags, 60));
    /* The ack as data is the ack the encoder copies out. */
    uint8_t ack[LP_I2_ACK_LEN];
    lp_i2_ack_encode(ack);
    assert_memory_equal(lp_i2_ack, ack, LP_I2_ACK_LEN);
}

static void board_report_codecs_match_the_host_ones(void **state)
{
    (void)state;
    /* udp_plain (2.1.8 server, no -e) and udp_srv_e (-e: EXTEND and transit fields). */
    uint8_t plain[128], srv_e[128];
    hex("00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 88 00 00 00 00 00 00 00 00 14 13 42 00 00 00 01 "
        "00 00 07 2e 00 00 00 00 00 00 00 00 00 00 03 7f 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 01 "
        "00 00 00 00 00 00 00 36 00 00 00 00 00 00 12 cb 00 00 00 00 00 00 00 05 00 00 43 d1 00 0d 1c 51 "
        "00 00 00 00 ff ff ff fd 00 00 03 7f 00 00 03 7d 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00",
        plain, sizeof(plain));
    hex("00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 c8 00 00 00 00 00 00 00 00 01 ff 0e 00 00 00 01 "
        "00 00 5b 9f 00 00 00 00 00 00 00 00 00 00 00 59 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 04 "
        "00 00 00 00 00 00 00 4f 00 00 00 00 00 00 07 60 00 00 00 00 00 00 00 15 00 00 17 c2 00 0e 66 cc "
        "00 00 00 00 00 00 00 03 00 00 00 59 00 00 00 56 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00",
        srv_e, sizeof(srv_e));
    const uint8_t *caps[2] = {plain, srv_e};
    for (int i = 0; i < 2; i++) {
        struct lp_i2_report full, counts;
        assert_true(lp_i2_report_decode(caps[i], 128, &full));
        memset(&counts, 0x5a, sizeof(counts));
        assert_true(lp_i2_report_decode_counts(caps[i], 128, &counts));
        assert_int_equal(counts.flags, full.flags);
        assert_true(counts.bytes == full.bytes && counts.datagrams == full.datagrams);
        assert_true(counts.errors == full.errors && counts.out_of_order == full.out_of_order);
        assert_int_equal(counts.stop_sec, full.stop_sec);
        assert_int_equal(counts.stop_usec, full.stop_usec);
        assert_int_equal(counts.jitter_sec, full.jitter_sec);
        assert_int_equal(counts.jitter_usec, full.jitter_usec);
        assert_false(counts.has_transit);
        assert_int_equal(counts.transit_count, 0x5a5a5a5au); /* not touched */
        /* Encoded by a board (flags 0: the encoder's VERSION1 | SEQNO64B), read by the host:
         * the counts come back, without transit. */
        uint8_t enc[128];
        struct lp_i2_report board = full;
        board.flags = 0;
        lp_i2_report_encode_counts(enc, &board);
        struct lp_i2_report back;
        assert_true(lp_i2_report_decode(enc, 128, &back));
        assert_false(back.has_transit);
        assert_true(back.bytes == full.bytes && back.datagrams == full.datagrams);
        assert_int_equal(back.stop_usec, full.stop_usec);
        assert_int_equal(back.jitter_usec, full.jitter_usec);
        /* Where a 2.1.8 client reads a report without -e, the bytes are stock's: the base
         * fields, cntTransit, IPGsum and the high words (not the transit ones, nor cntIPG). */
        assert_memory_equal(enc + 16, plain + 16, 4); /* 0x88000000: no EXTEND */
        assert_memory_equal(enc + 20, caps[i] + 20, 36);
        if (i == 0) {
            assert_memory_equal(enc + 104, plain + 104, 4);
            assert_memory_equal(enc + 112, plain + 112, 16);
        }
        /* Encoded by the host, read by a board. */
        lp_i2_report_encode(enc, &full);
        assert_true(lp_i2_report_decode_counts(enc, 128, &back));
        assert_true(back.bytes == full.bytes && back.errors == full.errors);
        assert_int_equal(back.stop_sec, full.stop_sec);
        assert_int_equal(lp_i2_report_at(caps[i], 128), 16);
    }
    /* The 2.0.5-era layout sits at U+12; a datagram with neither is no report. */
    uint8_t old[64];
    hex("ff ff ff a7 6b 0d 77 7a 00 02 9e ee 80 00 00 00 00 00 00 00 00 01 f9 50 00 00 00 01 00 00 5b 3b "
        "00 00 00 01 00 00 00 00 00 00 00 59 00 00 00 00 00 00 00 22 00 02 00 01 00 08 00 03 00 00 00 00",
        old, sizeof(old));
    assert_int_equal(lp_i2_report_at(old, 64), 12);
    assert_int_equal(lp_i2_report_at(old, 12 + LP_I2_REPORT_BASE_LEN - 1), 0);
    struct lp_i2_report r;
    assert_true(lp_i2_report_decode_counts(old, 64, &r));
    assert_true(r.datagrams == 89 && r.errors == 1);
    memset(old, 0, sizeof(old));
    assert_false(lp_i2_report_decode_counts(old, 64, &r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_length_rule),       cmocka_unit_test(decode_captured_header),
        cmocka_unit_test(encode_matches_stock_bytes), cmocka_unit_test(udp_header_matches_stock_bytes),
        cmocka_unit_test(ack_matches_stock_bytes),
        cmocka_unit_test(udp_prefix_and_fin),       cmocka_unit_test(server_report),
        cmocka_unit_test(trip_tcp_header_matches_stock_bytes),
        cmocka_unit_test(trip_udp_header_matches_stock_bytes),
        cmocka_unit_test(trip_ack_matches_stock_bytes),
        cmocka_unit_test(burst_header_round_trip),
        cmocka_unit_test(board_header_codecs_match_the_host_ones),
        cmocka_unit_test(board_report_codecs_match_the_host_ones),
        cmocka_unit_test(server_report_transit),
        cmocka_unit_test(report_jitter_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

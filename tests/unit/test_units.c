/* Units: lp_units_parse (iperf3 option suffixes) and the Transfer / Bitrate / Cwnd column
 * formatters, checked against number/text pairs taken from real iperf3 3.12 runs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "fmt/fmt.h"

/* ---- parsing ---- */

static void parse_ok(const char *s, bool base1024, uint64_t want)
{
    uint64_t v = 12345;

    if (lp_units_parse(s, base1024, &v) != 0)
        fail_msg("\"%s\" rejected", s);
    if (v != want)
        fail_msg("\"%s\" (base %d) -> %llu, want %llu", s, base1024 ? 1024 : 1000,
                 (unsigned long long)v, (unsigned long long)want);
}

static void parse_bad(const char *s, bool base1024)
{
    uint64_t v = 777;

    if (lp_units_parse(s, base1024, &v) == 0)
        fail_msg("\"%s\" accepted as %llu", s, (unsigned long long)v);
    assert_int_equal(v, 777); /* untouched on failure */
}

static void test_parse_rates(void **state)
{
    (void)state;
    parse_ok("0", false, 0);
    parse_ok("100", false, 100);
    parse_ok("10M", false, 10000000);
    parse_ok("10m", false, 10000000);
    parse_ok("1k", false, 1000);
    parse_ok("1K", false, 1000);
    parse_ok("1.5G", false, 1500000000);
    parse_ok("2t", false, 2000000000000ull);
    parse_ok("0.001k", false, 1);
    parse_ok("200K", false, 200000);
    parse_ok("18446744073709551615", false, UINT64_MAX);
}

static void test_parse_sizes(void **state)
{
    (void)state;
    parse_ok("256K", true, 262144);
    parse_ok("128k", true, 131072);
    parse_ok("10M", true, 10485760);
    parse_ok("20M", true, 20971520);
    parse_ok("1.5M", true, 1572864);
    parse_ok(".5K", true, 512);
    parse_ok("1.", true, 1);
    parse_ok("1g", true, 1073741824);
    parse_ok("1T", true, 1099511627776ull);
    parse_ok("16777215T", true, 16777215ull << 40);
    /* Fractions are truncated toward zero like iperf3's cast. */
    parse_ok("1.3K", true, 1331);
    parse_ok("0.0000000000000000001K", true, 0);
}

static void test_parse_rejects(void **state)
{
    static const char *const bad[] = {
        "", "M", "k", ".", "abc", "10X", "10MB", "10 M", " 5", "5 ", "-5", "+5", "1.2.3",
        "1e3", "0x10", "5%", "1,5M", "18446744073709551616", "99999999999999999999999",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        parse_bad(bad[i], false);
        parse_bad(bad[i], true);
    }
    parse_bad("16777216T", true);      /* 2^64: one past the top */
    parse_bad("17179869184G", true);
    parse_bad("18446744073709551615K", false);
    parse_bad("18446744073709551.616k", false);
    assert_int_equal(lp_units_parse(NULL, false, &(uint64_t){0}), -1);
}

/* ---- formatting ---- */

static void bytes_is(double b, const char *want)
{
    char buf[64];

    lp_units_bytes(buf, sizeof(buf), b);
    assert_string_equal(buf, want);
}

static void rate_is(double bps, char unit, const char *want)
{
    char buf[64];

    lp_units_rate(buf, sizeof(buf), bps, unit);
    assert_string_equal(buf, want);
}

static void test_bytes_column(void **state)
{
    (void)state;
    bytes_is(0, "0.00 Bytes");
    bytes_is(1000, "1000 Bytes");
    bytes_is(1023, "1023 Bytes");
    bytes_is(1024, "1.00 KBytes");
    /* snd_cwnd values of json_tcp_client.json / json_tcp_P2_client.json and the Cwnd
     * column of the same kind of run. */
    bytes_is(916762, " 895 KBytes");
    bytes_is(1047552, "1023 KBytes");
    bytes_is(1178694, "1.12 MBytes");
    bytes_is(2818048000.0, "2.62 GBytes");
    bytes_is(5793906688.0, "5.40 GBytes");
    bytes_is(12517376, "11.9 MBytes");
    bytes_is(32768, "32.0 KBytes");
    bytes_is(393216, " 384 KBytes");
    bytes_is(750649344, " 716 MBytes");
    bytes_is(10.0 * 1099511627776.0, "10.0 TBytes");
    bytes_is(5000.0 * 1099511627776.0, "5000 TBytes"); /* TBytes is the last unit */
    /* Boundaries of the 2/1/0-decimals rule. */
    bytes_is(9.994, "9.99 Bytes");
    bytes_is(9.996, "10.0 Bytes");
    bytes_is(99.94, "99.9 Bytes");
    bytes_is(99.96, " 100 Bytes");
}

static void test_rate_column(void **state)
{
    (void)state;
    rate_is(0, 'a', "0.00 bits/sec");
    rate_is(999, 'a', " 999 bits/sec");
    rate_is(1000, 'a', "1.00 Kbits/sec");
    rate_is(22542739369.985767, 'a', "22.5 Gbits/sec");
    rate_is(10091978.849184446, 'a', "10.1 Mbits/sec");
    rate_is(9960983.96141146, 'a', "9.96 Mbits/sec");
    rate_is(100.4e6, 'a', " 100 Mbits/sec");
    rate_is(2.5e15, 'a', "2500 Tbits/sec");
    /* Pinned units. */
    rate_is(29390615000.0, 'k', "29390615 Kbits/sec");
    rate_is(3142933.931734688, 'g', "0.00 Gbits/sec");
    rate_is(3142933.931734688, 'm', "3.14 Mbits/sec");
    rate_is(3142933.931734688, 't', "0.00 Tbits/sec");
    rate_is(261686.5718723671, 'K', "31.9 KBytes/sec");
    rate_is(20228671258.564877, 'M', "2411 MBytes/sec");
    rate_is(20228671258.564877, 'G', "2.35 GBytes/sec");
    rate_is(20228671258.564877, 'A', "2.35 GBytes/sec");
    rate_is(8.0 * 1023, 'A', "1023 Bytes/sec");
    rate_is(8.0 * 1024, 'A', "1.00 KBytes/sec");
    /* An unknown letter falls back to adaptive bits. */
    rate_is(22542739369.985767, '\0', "22.5 Gbits/sec");
}

/* Real pairs: iperf3 -s -J and a text client with --get-server-output, so the client's
 * sender summary row and the server's JSON numbers describe the same stream. */
struct pair {
    double bytes, bps;
    char unit;
    const char *row;
};

static const struct pair pairs[] = {
    {2786590720, 11129485015.973278, 'a',
     "[  5]   0.00-2.00   sec  2.60 GBytes  11.1 Gbits/sec   21             sender"},
    {2764308480, 11040491015.375185, 'a',
     "[  7]   0.00-2.00   sec  2.57 GBytes  11.0 Gbits/sec   12             sender"},
    {5550899200, 22169976031.34846, 'a',
     "[SUM]   0.00-2.00   sec  5.17 GBytes  22.2 Gbits/sec   33             sender"},
    {12517376, 50059091.70892455, 'a',
     "[  5]   0.00-2.00   sec  11.9 MBytes  50.1 Mbits/sec  0.000 ms  0/382 (0%)  sender"},
    {2627993600, 21008066701.573612, 'k',
     "[  5]   0.00-1.00   sec  2.45 GBytes  21008067 Kbits/sec   37             sender"},
    {2532311040, 20228671258.564877, 'M',
     "[  5]   0.00-1.00   sec  2.36 GBytes  2411 MBytes/sec   10             sender"},
    {393216, 3142933.931734688, 'g',
     "[  5]   0.00-1.00   sec   384 KBytes  0.00 Gbits/sec    0             sender"},
    {32768, 261686.5718723671, 'K',
     "[  5]   0.00-1.00   sec  32.0 KBytes  31.9 KBytes/sec  0.000 ms  0/1 (0%)  sender"},
    {250216448, 1000018276.5106573, 'a',
     "[  5]   0.00-2.00   sec   239 MBytes  1.00 Gbits/sec    0             sender"},
    {750649344, 3000054829.531972, 'a',
     "[SUM]   0.00-2.00   sec   716 MBytes  3.00 Gbits/sec    0             sender"},
};

static void check_pair(double bytes, double bps, char unit, const char *row)
{
    char xfer[64], rate[64], want[160];

    lp_units_bytes(xfer, sizeof(xfer), bytes);
    lp_units_rate(rate, sizeof(rate), bps, unit);
    snprintf(want, sizeof(want), "sec  %s  %s", xfer, rate);
    if (!strstr(row, want))
        fail_msg("\"%s\" not in \"%s\"", want, row);
}

static void test_real_pairs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
        check_pair(pairs[i].bytes, pairs[i].bps, pairs[i].unit, pairs[i].row);
}

static char *slurp(const char *path)
{
    char *s = lp_test_slurp(path);
    assert_non_null(s);
    return s;
}

/* The evidence file itself: the client's JSON holds the server's receiver totals and the
 * server's text summary row for the very same numbers. */
static void test_evidence_pair(void **state)
{
    char *s = slurp(LP_EVIDENCE_DIR "/json_get_server_output_text_client.json");
    cJSON *doc, *rx, *text;
    const char *row;

    (void)state;
    assert_non_null(s);
    doc = cJSON_Parse(s);
    assert_non_null(doc);
    rx = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(doc,
                                 "end"), "streams"), 0), "receiver");
    text = cJSON_GetObjectItem(doc, "server_output_text");
    assert_non_null(rx);
    assert_true(cJSON_IsString(text));
    row = strstr(text->valuestring, "receiver");
    assert_non_null(row);
    while (row > text->valuestring && row[-1] != '\n')
        row--;
    check_pair(cJSON_GetObjectItem(rx, "bytes")->valuedouble,
               cJSON_GetObjectItem(rx, "bits_per_second")->valuedouble, 'a', row);
    cJSON_Delete(doc);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_rates),   cmocka_unit_test(test_parse_sizes),
        cmocka_unit_test(test_parse_rejects), cmocka_unit_test(test_bytes_column),
        cmocka_unit_test(test_rate_column),   cmocka_unit_test(test_real_pairs),
        cmocka_unit_test(test_evidence_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

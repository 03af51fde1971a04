/* The agent's text formatter (agent/src/lpa_format.c): exact iperf2 and iperf3 rows for TCP
 * and UDP intervals and finals, unit switching, 64-bit counts, zero durations, and its
 * integer number formatting checked against the C library's printf over many values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compiler.h"
#include "lpa.h"
#include "lpa_format.h"

/* Knuth's MMIX LCG for the random inputs: the next state modulo 2^64, a wrap by design. */
static LP_WRAPS uint64_t lcg64(uint64_t s) {
  return s * 6364136223846793005ull + 1442695040888963407ull;
}

/* ---- capture ---- */

struct cap {
  char text[4096];
  size_t len;
  int calls;
};

static void cap_print(const char *text, void *arg) {
  struct cap *c = arg;
  size_t n = strlen(text);
  assert_true(c->len + n < sizeof(c->text));
  /* every call is one whole line */
  assert_true(n > 0 && text[n - 1] == '\n');
  assert_null(memchr(text, '\n', n - 1));
  assert_true(n <= LPA_LINE_MAX);
  memcpy(c->text + c->len, text, n + 1);
  c->len += n;
  c->calls++;
}

static const char *fmt(const struct lpa_report *r) {
  static struct cap c;
  memset(&c, 0, sizeof(c));
  lpa_format_report(r, cap_print, &c);
  return c.text;
}

static struct lpa_report rep(uint8_t kind, uint8_t dialect, uint8_t proto, uint8_t dir) {
  struct lpa_report r;
  memset(&r, 0, sizeof(r));
  r.kind = kind;
  r.dialect = dialect;
  r.proto = proto;
  r.dir = dir;
  IP_ADDR4(&r.peer, 10, 0, 0, 1);
  r.peer_port = 5001;
  return r;
}

#define I2 LPA_DIALECT_IPERF2
#define I3 LPA_DIALECT_IPERF3
#define TCP LPA_PROTO_TCP
#define UDP LPA_PROTO_UDP
#define RX LPA_DIR_RX
#define TX LPA_DIR_TX

/* ---- iperf2 ---- */

static void test_iperf2_tcp(void **state) {
  struct lpa_report r = rep(LPA_REPORT_INTERVAL, I2, TCP, RX);
  (void)state;
  r.end_ms = 1000;
  r.bytes = 11744051; /* 11.2 MiB */
  r.bps = 94100000;
  assert_string_equal(fmt(&r), "[  1] 0.00-1.00 sec  11.2 MBytes  94.1 Mbits/sec\n");
  r.kind = LPA_REPORT_FINAL;
  r.session = 2;
  r.start_ms = 0;
  r.end_ms = 10004;
  r.bytes = 5368709120ull; /* 5 GiB: past 32 bits */
  r.bps = 4293000000ull;
  assert_string_equal(fmt(&r), "[  3] 0.00-10.00 sec  5.00 GBytes  4.29 Gbits/sec\n");
  r.dir = TX; /* a TCP sender's row is the same */
  assert_string_equal(fmt(&r), "[  3] 0.00-10.00 sec  5.00 GBytes  4.29 Gbits/sec\n");
  r.stream = 1; /* the second connection of a -d/-r test has IDs of its own */
  {
    char want[80];
    snprintf(want, sizeof(want), "[%3u] 0.00-10.00 sec  5.00 GBytes  4.29 Gbits/sec\n",
             3u + LPA_MAX_SESSIONS);
    assert_string_equal(fmt(&r), want);
  }
}

static void test_iperf2_udp_rx(void **state) {
  struct lpa_report r = rep(LPA_REPORT_INTERVAL, I2, UDP, RX);
  (void)state;
  r.start_ms = 1000;
  r.end_ms = 2000;
  r.bytes = 1310720;
  r.bps = 10500000;
  r.jitter_us = 3;
  r.packets = 895;
  assert_string_equal(fmt(&r),
                      "[  1] 1.00-2.00 sec  1.25 MBytes  10.5 Mbits/sec   0.003 ms 0/895 (0%)\n");
  r.jitter_us = 12345;
  r.lost = 1;
  r.packets = 11;
  r.out_of_order = 2;
  assert_string_equal(fmt(&r),
                      "[  1] 1.00-2.00 sec  1.25 MBytes  10.5 Mbits/sec  12.345 ms 1/11 (9.1%)\n"
                      "[  1] 1.00-2.00 sec  2 datagrams received out-of-order\n");
}

static void test_iperf2_udp_tx_and_server_report(void **state) {
  struct lpa_report r = rep(LPA_REPORT_FINAL, I2, UDP, TX);
  (void)state;
  r.end_ms = 10000;
  r.bytes = 1317120; /* 896 x 1470 */
  r.bps = 1053696;
  r.packets = 896;
  assert_string_equal(fmt(&r), "[  1] 0.00-10.00 sec  1.26 MBytes  1.05 Mbits/sec\n"
                               "[  1] Sent 896 datagrams\n");
  /* The server's numbers for the datagrams this side sent: the receiver layout. */
  r.kind = LPA_REPORT_PEER;
  r.end_ms = 10001;
  r.jitter_us = 41;
  r.lost = 0;
  r.packets = 896;
  assert_string_equal(fmt(&r),
                      "[  1] Server Report:\n"
                      "[  1] 0.00-10.00 sec  1.26 MBytes  1.05 Mbits/sec   0.041 ms 0/896 (0%)\n");
}

static void test_iperf2_start_error_done(void **state) {
  struct lpa_report r = rep(LPA_REPORT_START, I2, TCP, RX);
  (void)state;
  r.peer_port = 40000;
  assert_string_equal(fmt(&r), "[  1] connected with 10.0.0.1 port 40000 (TCP, receiving)\n"
                               "[ ID] Interval       Transfer     Bandwidth\n");
  r.proto = UDP;
  assert_string_equal(fmt(&r), "[  1] connected with 10.0.0.1 port 40000 (UDP, receiving)\n"
                               "[ ID] Interval       Transfer     Bandwidth        Jitter   "
                               "Lost/Total Datagrams\n");
  r.dir = TX;
  r.peer_port = 5001;
  assert_string_equal(fmt(&r), "[  1] connected with 10.0.0.1 port 5001 (UDP, sending)\n"
                               "[ ID] Interval       Transfer     Bandwidth\n");
  r = rep(LPA_REPORT_ERROR, I2, TCP, TX);
  r.error = LPA_ERR_CONNECT;
  assert_string_equal(fmt(&r), "[  1] error: connect failed\n");
  r.error = LPA_ERR_COUNT; /* a code this build does not know */
  assert_string_equal(fmt(&r), "[  1] error: unknown error\n");
  r = rep(LPA_REPORT_DONE, I2, TCP, TX);
  assert_string_equal(fmt(&r), "");
}

/* ---- iperf3 ---- */

static void test_iperf3_tcp(void **state) {
  struct lpa_report r = rep(LPA_REPORT_INTERVAL, I3, TCP, TX);
  (void)state;
  r.end_ms = 1000;
  r.bytes = 11744051;
  r.bps = 94100000;
  assert_string_equal(fmt(&r), "[  1]   0.00-1.00   sec  11.2 MBytes  94.1 Mbits/sec                  \n");
  /* -O: an interval of the omitted seconds, as iperf3 3.12 tags it (a receiver's row) */
  r.omitted = 1;
  assert_string_equal(fmt(&r), "[  1]   0.00-1.00   sec  11.2 MBytes  94.1 Mbits/sec                  "
                               "(omitted)\n");
  r.omitted = 0;
  r.kind = LPA_REPORT_FINAL;
  r.end_ms = 10000;
  r.bytes = 117440512;
  r.bps = 93952409;
  assert_string_equal(fmt(&r),
                      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
                      "[ ID] Interval           Transfer     Bitrate\n"
                      "[  1]   0.00-10.00  sec   112 MBytes  94.0 Mbits/sec                  sender\n");
  /* The peer received what we sent: its row is the receiver's. */
  r.kind = LPA_REPORT_PEER;
  r.end_ms = 10040;
  r.bps = 93578000;
  assert_string_equal(fmt(&r),
                      "[  1]   0.00-10.04  sec   112 MBytes  93.6 Mbits/sec                  receiver\n");
  r = rep(LPA_REPORT_START, I3, TCP, RX);
  r.peer_port = 5201;
  assert_string_equal(fmt(&r), "[  1] connected to 10.0.0.1 port 5201 (TCP, receiving)\n"
                               "[ ID] Interval           Transfer     Bitrate\n");
}

static void test_iperf3_udp(void **state) {
  struct lpa_report r = rep(LPA_REPORT_INTERVAL, I3, UDP, TX);
  (void)state;
  r.end_ms = 1000;
  r.bytes = 1245000;
  r.bps = 9960000;
  r.packets = 38;
  assert_string_equal(fmt(&r), "[  1]   0.00-1.00   sec  1.19 MBytes  9.96 Mbits/sec  38  \n");
  r.dir = RX;
  r.jitter_us = 104;
  r.packets = 77;
  assert_string_equal(fmt(&r),
                      "[  1]   0.00-1.00   sec  1.19 MBytes  9.96 Mbits/sec  0.104 ms  0/77 (0%)  \n");
  r.kind = LPA_REPORT_FINAL;
  r.lost = 34175;
  r.packets = 256075;
  r.out_of_order = 3;
  r.end_ms = 10000;
  assert_string_equal(fmt(&r),
                      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
                      "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total "
                      "Datagrams\n"
                      "[SUM]  0.0-10.0 sec  3 datagrams received out-of-order\n"
                      "[  1]   0.00-10.00  sec  1.19 MBytes  9.96 Mbits/sec  0.104 ms  "
                      "34175/256075 (13%)  receiver\n");
  /* A sender's summary: jitter 0 and its own count, as iperf3 prints it. */
  r = rep(LPA_REPORT_FINAL, I3, UDP, TX);
  r.end_ms = 10000;
  r.bytes = 1250000;
  r.bps = 1000000;
  r.packets = 856;
  assert_string_equal(fmt(&r),
                      "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
                      "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total "
                      "Datagrams\n"
                      "[  1]   0.00-10.00  sec  1.19 MBytes  1.00 Mbits/sec  0.000 ms  0/856 (0%)  "
                      "sender\n");
  r = rep(LPA_REPORT_START, I3, UDP, TX);
  assert_string_equal(fmt(&r), "[  1] connected to 10.0.0.1 port 5001 (UDP, sending)\n"
                               "[ ID] Interval           Transfer     Bitrate         Total "
                               "Datagrams\n");
}

/* ---- columns ---- */

static const char *columns(uint64_t bytes, uint64_t bps, uint8_t dialect) {
  static char out[128];
  struct lpa_report r = rep(LPA_REPORT_INTERVAL, dialect, TCP, RX);
  const char *s, *p;
  r.bytes = bytes;
  r.bps = bps;
  s = fmt(&r);
  p = strstr(s, "sec  ");
  assert_non_null(p);
  snprintf(out, sizeof(out), "%s", p + 5);
  out[strcspn(out, "\n")] = '\0';
  /* iperf3's trailing pad is not part of the columns */
  for (p = out + strlen(out); p > out && p[-1] == ' ';) *(char *)--p = '\0';
  return out;
}

static void test_units_switch(void **state) {
  (void)state;
  assert_string_equal(columns(0, 0, I2), "0.000 Bytes  0.000 bits/sec");
  assert_string_equal(columns(0, 0, I3), "0.00 Bytes  0.00 bits/sec");
  assert_string_equal(columns(1, 1, I3), "1.00 Bytes  1.00 bits/sec");
  assert_string_equal(columns(999, 999, I2), " 999 Bytes   999 bits/sec");
  assert_string_equal(columns(1023, 1000, I2), "1023 Bytes  1.00 Kbits/sec");
  assert_string_equal(columns(1024, 999999, I2), "1.00 KBytes  1000 Kbits/sec");
  assert_string_equal(columns(1048575, 1000000, I3), "1024 KBytes  1.00 Mbits/sec");
  assert_string_equal(columns(1048576, 999950000, I3), "1.00 MBytes  1000 Mbits/sec");
  assert_string_equal(columns(1073741824, 1000000000, I2), "1.00 GBytes  1.00 Gbits/sec");
  assert_string_equal(columns(10995116277760ull, 40900000000ull, I2), "10.0 TBytes  40.9 Gbits/sec");
  assert_string_equal(columns(UINT64_MAX, UINT64_MAX, I3), "16777216 TBytes  18446744 Tbits/sec");
  /* precision by size: 2 decimals below 9.995, 1 below 99.95, none above */
  assert_string_equal(columns(10229, 9994999, I3), "9.99 KBytes  9.99 Mbits/sec");
  assert_string_equal(columns(10230, 9995000, I3), "9.99 KBytes  10.0 Mbits/sec");
  assert_string_equal(columns(102348, 99949999, I3), "99.9 KBytes  99.9 Mbits/sec");
  assert_string_equal(columns(102400, 99950000, I3), " 100 KBytes   100 Mbits/sec");
  /* printf's tie on an exact binary value goes to even: 1.125 -> 1.12, 1.375 -> 1.38 */
  assert_string_equal(columns(1152, 1125, I3), "1.12 KBytes  1.12 Kbits/sec");
  assert_string_equal(columns(1408, 1375, I3), "1.38 KBytes  1.38 Kbits/sec");
}

/* Interval times: two decimals (iperf2 width 4, iperf3 %6.2f-%-6.2f), zero-length and long. */
static void test_times(void **state) {
  struct lpa_report r = rep(LPA_REPORT_FINAL, I2, TCP, RX);
  (void)state;
  assert_string_equal(fmt(&r), "[  1] 0.00-0.00 sec  0.000 Bytes  0.000 bits/sec\n");
  r.start_ms = 86399995;
  r.end_ms = 4294967295u;
  assert_string_equal(fmt(&r), "[  1] 86400.00-4294967.30 sec  0.000 Bytes  0.000 bits/sec\n");
  r.dialect = I3;
  r.kind = LPA_REPORT_INTERVAL;
  r.start_ms = 5;
  r.end_ms = 15;
  assert_string_equal(fmt(&r), "[  1]   0.00-0.02   sec  0.00 Bytes  0.00 bits/sec                  \n");
  r.session = 254;
  assert_string_equal(fmt(&r), "[255]   0.00-0.02   sec  0.00 Bytes  0.00 bits/sec                  \n");
}

/* ---- %.2g percentages ---- */

static const char *pct(uint64_t lost, uint64_t total) {
  static char out[64];
  struct lpa_report r = rep(LPA_REPORT_INTERVAL, I2, UDP, RX);
  const char *s, *a;
  r.lost = lost;
  r.packets = total;
  s = fmt(&r);
  a = strchr(s, '(');
  assert_non_null(a);
  snprintf(out, sizeof(out), "%s", a + 1);
  out[strcspn(out, "%")] = '\0';
  return out;
}

static void test_percent(void **state) {
  (void)state;
  assert_string_equal(pct(0, 0), "0");
  assert_string_equal(pct(5, 0), "0"); /* nothing expected: no division by zero */
  assert_string_equal(pct(0, 100), "0");
  assert_string_equal(pct(1, 11), "9.1");
  assert_string_equal(pct(34175, 256075), "13");
  assert_string_equal(pct(1, 3), "33");
  assert_string_equal(pct(1, 8), "12");     /* 12.5: tie, to even */
  assert_string_equal(pct(3, 8), "38");     /* 37.5: tie, to even */
  assert_string_equal(pct(1, 800), "0.12"); /* 0.125 */
  assert_string_equal(pct(1, 100), "1");
  assert_string_equal(pct(1, 1000), "0.1");
  assert_string_equal(pct(12, 1000000), "0.0012");
  assert_string_equal(pct(1, 1000000), "0.0001");
  assert_string_equal(pct(1, 10000000), "1e-05");
  assert_string_equal(pct(123, 1000000000000ull), "1.2e-08");
  assert_string_equal(pct(999, 1000), "1e+02"); /* 99.9 rounds up to 100 */
  assert_string_equal(pct(100, 100), "1e+02");
  assert_string_equal(pct(3, 2), "1.5e+02");
  assert_string_equal(pct(UINT64_MAX, UINT64_MAX), "1e+02");
  assert_string_equal(pct(1, UINT64_MAX), "5.4e-18");
}

/* num / den at 10^k (k < 0: divided) ends exactly on a half: the one case where printf,
 * rounding a double that is not exactly the decimal value, may go either way. */
static int exact_tie(uint64_t num, uint64_t den, int k) {
  unsigned __int128 n = num, d = den;
  for (; k > 0; k--) n *= 10;
  for (; k < 0; k++) d *= 10;
  return 2 * (n % d) == d;
}

/* Decimal exponent of v > 0 as %e prints it (after rounding to `sig` digits). */
static int exp10_of(double v, int sig) {
  char b[64];
  snprintf(b, sizeof(b), "%.*e", sig - 1, v);
  return atoi(strchr(b, 'e') + 1);
}

static void test_percent_vs_printf(void **state) {
  uint64_t seed = 12345;
  int i, ties = 0;
  (void)state;
  for (i = 0; i < 100000; i++) {
    uint64_t total, lost;
    char want[64];
    double v;
    seed = lcg64(seed);
    total = (seed >> 20) % ((i % 7 == 0) ? 100u : 10000000u) + 1;
    seed = lcg64(seed);
    lost = (seed >> 20) % (total + 1);
    if (i % 3 == 0) lost = lost % 50;
    v = 100.0 * (double)lost / (double)total;
    snprintf(want, sizeof(want), "%.2g", v);
    if (strcmp(pct(lost, total), want) != 0) {
      /* two significant digits: the tie is at 10^(1 - exponent) */
      if (lost == 0 || !exact_tie(100 * lost, total, 1 - exp10_of(v, 3)))
        fail_msg("%llu/%llu: %s, printf %s", (unsigned long long)lost, (unsigned long long)total,
                 pct(lost, total), want);
      ties++;
    }
  }
  assert_true(ties < 100);
}

/* printf's choice of precision for a column value. */
static void ref_number(char *out, size_t n, double y, int iperf2) {
  if (iperf2 && y < 0.9995) snprintf(out, n, "%4.3f", y);
  else if (y < 9.995) snprintf(out, n, "%4.2f", y);
  else if (y < 99.95) snprintf(out, n, "%4.1f", y);
  else snprintf(out, n, "%4.0f", y);
}

/* Both columns against printf. Bytes: x / 1024^n is exact in a double, so printf is the
 * reference. Bits: x / 1000^n is not; where the decimal value is exactly a tie printf may
 * round either way, and only there a difference is allowed. */
static void test_columns_vs_printf(void **state) {
  static const char *const b_units[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
  static const char *const r_units[] = {"bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec",
                                        "Tbits/sec"};
  uint64_t seed = 99;
  int i, ties = 0;
  (void)state;
  for (i = 0; i < 200000; i++) {
    uint64_t x, xr, p = 1;
    double v, vr;
    int u = 0, ur = 0, iperf2 = i & 1, dec, k;
    char a[32], b[32], want[96], mine[96];
    seed = lcg64(seed);
    x = seed >> (seed % 53 + 11); /* all magnitudes, below 2^53 */
    seed = lcg64(seed);
    xr = seed >> (seed % 53 + 11);
    for (v = (double)x; v >= 1024.0 && u < 4; u++) v /= 1024.0;
    for (vr = (double)xr; vr >= 1000.0 && ur < 4; ur++) vr /= 1000.0;
    ref_number(a, sizeof(a), v, iperf2);
    ref_number(b, sizeof(b), vr, iperf2);
    snprintf(want, sizeof(want), "%s %s  %s %s", a, b_units[u], b, r_units[ur]);
    snprintf(mine, sizeof(mine), "%s", columns(x, xr, iperf2 ? I2 : I3));
    if (strcmp(mine, want) == 0) continue;
    /* only the bits column may differ, and only on a tie */
    dec = (int)strlen(b) - (int)strcspn(b, ".") - 1;
    if (dec < 0) dec = 0;
    for (k = 0; k < ur; k++) p *= 1000;
    snprintf(want, sizeof(want), "%s %s  ", a, b_units[u]);
    if (strncmp(mine, want, strlen(want)) != 0 || !exact_tie(xr, p, dec))
      fail_msg("%llu / %llu: \"%s\", printf \"%s %s\"", (unsigned long long)x,
               (unsigned long long)xr, mine, want, b);
    ties++;
  }
  assert_true(ties < 2000);
}

/* ---- robustness ---- */

/* Every error code has its own words; the ones the tests elsewhere look for are as written. */
static void test_error_texts(void **state) {
  unsigned i, j;
  (void)state;
  for (i = 1; i < LPA_ERR_COUNT; i++) {
    const char *t = lpa_error_text(i);
    assert_true(strlen(t) > 5 && strlen(t) < 100);
    for (j = 1; j < i; j++) assert_string_not_equal(t, lpa_error_text(j));
  }
  assert_string_equal(lpa_error_text(LPA_ERR_STOPPED), "stopped");
  assert_string_equal(lpa_error_text(LPA_ERR_NO_REPORT), "no report from the peer");
  assert_string_equal(lpa_error_text(LPA_ERR_I3_SERVER_BUSY),
                      "the iperf3 server is busy running a test. try again later");
  assert_string_equal(lpa_error_text(0), "no error");
  assert_string_equal(lpa_error_text(LPA_ERR_COUNT), "unknown error");
  assert_string_equal(lpa_error_text(100000u), "unknown error");
}

static void test_long_text_and_null_print(void **state) {
  char big[600];
  struct lpa_line l;
  struct lpa_report r = rep(LPA_REPORT_ERROR, I3, TCP, RX);
  struct cap c;
  (void)state;
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  memset(&c, 0, sizeof(c));
  lpa_line_init(&l);
  lpa_line_str(&l, "[  1] error: ");
  lpa_line_str(&l, big);
  lpa_line_print(&l, cap_print, &c); /* cap_print checks the line fits and ends with '\n' */
  assert_int_equal(strlen(c.text), LPA_LINE_MAX);
  assert_memory_equal(c.text, "[  1] error: xxx", 16);
  r.error = LPA_ERR_STOPPED;
  lpa_format_report(&r, NULL, NULL);
  lpa_format_report(NULL, cap_print, NULL);
  r.kind = 77; /* unknown kind: nothing */
  assert_string_equal(fmt(&r), "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_iperf2_tcp),
      cmocka_unit_test(test_error_texts),
      cmocka_unit_test(test_iperf2_udp_rx),
      cmocka_unit_test(test_iperf2_udp_tx_and_server_report),
      cmocka_unit_test(test_iperf2_start_error_done),
      cmocka_unit_test(test_iperf3_tcp),
      cmocka_unit_test(test_iperf3_udp),
      cmocka_unit_test(test_units_switch),
      cmocka_unit_test(test_times),
      cmocka_unit_test(test_percent),
      cmocka_unit_test(test_percent_vs_printf),
      cmocka_unit_test(test_columns_vs_printf),
      cmocka_unit_test(test_long_text_and_null_print),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The agent's console (agent/src/lpa_cmd.c): every option with its range and error, the
 * iperf2 and iperf3 suffix rules, dual/tradeoff/reverse, stop, help, bad lines, and the
 * printing of a started session's reports. lpa_start/lpa_stop are fakes that record what the
 * console asked for; the parser and formatter are the real ones. */
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
#include "lpa_net.h"

/* Knuth's MMIX LCG for the random inputs: the next state modulo 2^64, a wrap by design. */
static LP_WRAPS uint64_t lcg64(uint64_t s) {
  return s * 6364136223846793005ull + 1442695040888963407ull;
}

/* ---- fakes of the agent core ---- */

#define FAKE_MAX 64
static struct {
  struct lpa_config cfg[FAKE_MAX];
  lpa_report_fn fn[FAKE_MAX];
  void *arg[FAKE_MAX];
  int nstart;
  int next_index;  /* index the next successful lpa_start returns */
  int start_err;   /* nonzero: lpa_start fails with it */
  int done_inside; /* lpa_start reports START + DONE before returning (a session that ends at
                    * once, with the netconn/socket back end's own thread) */
  int keep;        /* ok() leaves started sessions running (default: they end at once) */
  int index[FAKE_MAX];
  int alive[FAKE_MAX];
  int stops[FAKE_MAX];
  int nstop;
  int stop_ret;
  int lock_depth;
  int locks;
} fake;

void lpa_net_lock(void) {
  assert_int_equal(fake.lock_depth, 0); /* never nested: lpa_start takes it too */
  fake.lock_depth++;
  fake.locks++;
}

int lpa_net_conns_in_use(void) { return 3; }

void lpa_net_unlock(void) {
  assert_int_equal(fake.lock_depth, 1);
  fake.lock_depth--;
}

/* A report of start i's session (or of a session its server accepted). */
static void emit(int i, uint8_t kind, uint8_t session) {
  struct lpa_report r;
  if (kind == LPA_REPORT_DONE && session == fake.index[i]) fake.alive[i] = 0;
  memset(&r, 0, sizeof(r));
  r.kind = kind;
  r.session = session;
  r.dialect = fake.cfg[i].dialect;
  r.proto = fake.cfg[i].proto;
  r.peer = fake.cfg[i].peer;
  r.peer_port = 5001;
  fake.fn[i](&r, fake.arg[i]);
}

int lpa_start(const struct lpa_config *cfg, lpa_report_fn fn, void *arg) {
  int i = fake.nstart;
  assert_int_equal(fake.lock_depth, 0);
  assert_true(i < FAKE_MAX);
  assert_non_null(fn);
  fake.cfg[i] = *cfg;
  fake.fn[i] = fn;
  fake.arg[i] = arg;
  fake.nstart++;
  if (fake.start_err) return fake.start_err;
  fake.index[i] = fake.next_index;
  fake.alive[i] = 1;
  if (fake.done_inside) {
    fake.lock_depth++; /* reports run under the agent lock */
    emit(i, LPA_REPORT_START, (uint8_t)fake.next_index);
    emit(i, LPA_REPORT_DONE, (uint8_t)fake.next_index);
    fake.lock_depth--;
  }
  return fake.next_index;
}

int lpa_stop(int session) {
  assert_int_equal(fake.lock_depth, 0);
  fake.stops[fake.nstop++] = session;
  return fake.stop_ret;
}

void lpa_config_defaults(struct lpa_config *cfg, uint8_t role, uint8_t proto, uint8_t dialect) {
  memset(cfg, 0, sizeof(*cfg));
  cfg->role = role;
  cfg->proto = proto;
  cfg->dialect = dialect;
}

/* ---- output capture ---- */

struct cap {
  char text[8192];
  size_t len;
  int lines;
};
static struct cap out;

static void cap_print(const char *text, void *arg) {
  struct cap *c = arg;
  size_t n = strlen(text);
  assert_true(c->len + n < sizeof(c->text));
  assert_true(n > 0 && text[n - 1] == '\n');
  memcpy(c->text + c->len, text, n + 1);
  c->len += n;
  c->lines++;
}

/* Every running session ends, as the core would end it: DONE through its callback. */
static void finish_all(void) {
  int i;
  for (i = 0; i < fake.nstart; i++)
    if (fake.alive[i]) emit(i, LPA_REPORT_DONE, (uint8_t)fake.index[i]);
}

static int setup(void **state) {
  (void)state;
  finish_all();
  memset(&fake, 0, sizeof(fake));
  memset(&out, 0, sizeof(out));
  return 0;
}

/* Run a line; on success the config it started, which must be the latest one recorded. */
static int run(const char *line) {
  memset(&out, 0, sizeof(out));
  return lpa_command(line, cap_print, &out);
}

static const struct lpa_config *ok(const char *line) {
  int n = fake.nstart, rc = run(line);
  if (rc < 0) fail_msg("\"%s\" refused: %s", line, out.text);
  assert_int_equal(fake.nstart, n + 1);
  assert_int_equal(fake.lock_depth, 0);
  if (!fake.keep) finish_all();
  return &fake.cfg[n];
}

/* A refused line: LPA_EINVAL, nothing started, one line naming what was wrong. */
static void refused(const char *line, const char *want) {
  int n = fake.nstart, rc = run(line);
  if (rc != LPA_EINVAL) fail_msg("\"%s\" -> %d, want LPA_EINVAL (%s)", line, rc, out.text);
  assert_int_equal(fake.nstart, n);
  assert_int_equal(out.lines, 1);
  if (strstr(out.text, want) == NULL) fail_msg("\"%s\": \"%s\" lacks \"%s\"", line, out.text, want);
}

/* ---- servers ---- */

static void test_servers(void **state) {
  const struct lpa_config *c;
  (void)state;
  c = ok("iperf -s");
  assert_int_equal(c->role, LPA_ROLE_SERVER);
  assert_int_equal(c->dialect, LPA_DIALECT_IPERF2);
  assert_int_equal(c->port, 5001);
  assert_int_equal(c->interval_ms, 0);
  assert_string_equal(out.text, "[  1] iperf server listening on TCP and UDP port 5001\n");
  fake.next_index = 2;
  c = ok("iperf3 -s -p 5300 -i 2");
  assert_int_equal(c->role, LPA_ROLE_SERVER);
  assert_int_equal(c->dialect, LPA_DIALECT_IPERF3);
  assert_int_equal(c->port, 5300);
  assert_int_equal(c->interval_ms, 2000);
  assert_string_equal(out.text, "[  3] iperf3 server listening on port 5300\n");
  c = ok("  iperf\t-s -u -i 0  \r\n");
  assert_int_equal(c->proto, LPA_PROTO_UDP);
  assert_int_equal(c->interval_ms, LPA_INTERVAL_NONE);
  assert_int_equal(ok("iperf3 -s")->port, 5201);
  /* the server's limit (0 here: lpa_start's LPA_SERVER_MAX_SEND_MS) */
  assert_int_equal(ok("iperf -s --server-max-duration 2")->duration_ms, 2000);
  assert_int_equal(ok("iperf -s")->duration_ms, 0);
  assert_int_equal(ok("iperf3 -s --server-max-duration=60")->duration_ms, 60000);
  assert_int_equal(run("iperf3 -s"), 2); /* the session index */
}

static void test_server_refusals(void **state) {
  (void)state;
  refused("iperf -s -t 5", "-t: a client option (not with -s)");
  refused("iperf3 -s -t 5", "-t: a client option (not with -s)");
  refused("iperf -s --server-max-duration 0", "--server-max-duration 0: seconds 1..86400");
  refused("iperf3 -s --server-max-duration 1.5", "seconds 1..86400");
  refused("iperf -c 10.0.0.1 --server-max-duration 5", "a server option (not with -c)");
  refused("iperf -s -M 5", "-M: unknown option");
  refused("iperf -s -b 1M", "-b: a client option");
  refused("iperf -s -d", "-d: a client option");
  refused("iperf3 -s -R", "-R: a client option");
  refused("iperf3 -s -u", "-u: a client option");
  refused("iperf -s -c 10.0.0.1", "-s and -c exclude each other");
  refused("iperf -u", "need -s or -c HOST");
  refused("iperf3", "need -s or -c HOST");
}

/* ---- clients ---- */

static void test_client_basic(void **state) {
  const struct lpa_config *c;
  (void)state;
  fake.next_index = 1;
  c = ok("iperf -c 192.168.1.10 -u -b 50M -t 5 -i 1");
  assert_int_equal(c->role, LPA_ROLE_CLIENT);
  assert_int_equal(c->proto, LPA_PROTO_UDP);
  assert_int_equal(c->dialect, LPA_DIALECT_IPERF2);
  assert_int_equal(ip4_addr_get_u32(ip_2_ip4(&c->peer)), PP_HTONL(LWIP_MAKEU32(192, 168, 1, 10)));
  assert_int_equal(c->rate_bps, 52428800); /* iperf2 2.1: M = 1024 x 1024 */
  assert_int_equal(c->duration_ms, 5000);
  assert_int_equal(c->interval_ms, 1000);
  assert_int_equal(c->port, 5001);
  assert_int_equal(c->mode, LPA_MODE_ONEWAY);
  assert_string_equal(out.text, "[  2] iperf client: UDP to 192.168.1.10 port 5001\n");
  c = ok("iperf3 -c 10.0.0.2");
  assert_int_equal(c->proto, LPA_PROTO_TCP);
  assert_int_equal(c->port, 5201);
  assert_int_equal(c->duration_ms, 0); /* the core's default */
  assert_int_equal(c->rate_bps, 0);
  assert_int_equal(c->len, 0);
  assert_string_equal(out.text, "[  2] iperf3 client: TCP to 10.0.0.2 port 5201\n");
}

static void test_modes(void **state) {
  (void)state;
  assert_int_equal(ok("iperf -c 10.0.0.1 -d")->mode, LPA_MODE_DUAL);
  assert_string_equal(out.text, "[  1] iperf client: TCP to 10.0.0.1 port 5001, dual test\n");
  assert_int_equal(ok("iperf -c 10.0.0.1 -r -L 6001")->mode, LPA_MODE_TRADEOFF);
  assert_int_equal(fake.cfg[fake.nstart - 1].back_port, 6001);
  assert_string_equal(out.text, "[  1] iperf client: TCP to 10.0.0.1 port 5001, tradeoff\n");
  assert_int_equal(ok("iperf -c 10.0.0.1 -u -R")->mode, LPA_MODE_REVERSE);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -R")->mode, LPA_MODE_REVERSE);
  assert_string_equal(out.text, "[  1] iperf3 client: TCP to 10.0.0.1 port 5201, reverse\n");
  assert_int_equal(ok("iperf3 -c 10.0.0.1 --reverse")->mode, LPA_MODE_REVERSE);
  assert_int_equal(ok("iperf -c 10.0.0.1 -R -R")->mode, LPA_MODE_REVERSE);
  refused("iperf -c 10.0.0.1 -d -r", "-r: -d, -r and -R exclude each other");
  refused("iperf -c 10.0.0.1 -R -d", "exclude each other");
  /* iperf3 has no -d (its -d is --debug), -r or -L */
  refused("iperf3 -c 10.0.0.1 -d", "iperf3: -d: unknown option");
  refused("iperf3 -c 10.0.0.1 -r", "-r: unknown option");
  refused("iperf3 -c 10.0.0.1 -L 6000", "-L: unknown option");
  refused("iperf3 -c 10.0.0.1 --dualtest", "--dualtest: unknown option");
  assert_int_equal(ok("iperf -c 10.0.0.1 -P 1")->mode, LPA_MODE_ONEWAY);
  refused("iperf -c 10.0.0.1 -P 2", "-P 2: the agent's iperf2 client runs one stream");
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -P 2")->streams, 2);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -P4")->streams, 4); /* LPA_MAX_STREAMS 4 */
  assert_int_equal(ok("iperf3 -c 10.0.0.1")->streams, 0);
  refused("iperf3 -c 10.0.0.1 -P 5", "-P 5: more streams than LPA_MAX_STREAMS");
  refused("iperf3 -c 10.0.0.1 -P 0", "-P 0: streams 1..128");
  refused("iperf3 -c 10.0.0.1 -P 129", "streams 1..128");
  /* iperf3 --bidir: both ways at once, twice -P streams */
  assert_int_equal(ok("iperf3 -c 10.0.0.1 --bidir")->mode, LPA_MODE_DUAL);
  assert_string_equal(out.text, "[  1] iperf3 client: TCP to 10.0.0.1 port 5201, bidir\n");
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -u --bidir -P 2")->streams, 2);
  refused("iperf3 -c 10.0.0.1 --bidir -P 3", "-P: --bidir runs twice -P streams");
  refused("iperf3 -c 10.0.0.1 --bidir -R", "-R: --bidir and -R exclude each other");
  refused("iperf3 -c 10.0.0.1 -R --bidir", "--bidir: --bidir and -R exclude each other");
  refused("iperf -c 10.0.0.1 --bidir", "--bidir: unknown option");
  refused("iperf3 -s --bidir", "a client option");
  /* iperf3 -O: seconds not counted at the start */
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -O 2")->omit_s, 2);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 --omit=600")->omit_s, 600);
  refused("iperf3 -c 10.0.0.1 -O 601", "-O 601: seconds 0..600");
  refused("iperf3 -c 10.0.0.1 -O 1.5", "seconds 0..600");
  refused("iperf -c 10.0.0.1 -O 1", "-O: unknown option");
  refused("iperf3 -s -O 1", "a client option");
}

static void test_ports(void **state) {
  (void)state;
  assert_int_equal(ok("iperf -c 10.0.0.1 -p 1")->port, 1);
  assert_int_equal(ok("iperf -c 10.0.0.1 -p 65535")->port, 65535);
  assert_int_equal(ok("iperf -c 10.0.0.1 -p5002")->port, 5002);
  assert_int_equal(ok("iperf -c 10.0.0.1 --port 5003")->port, 5003);
  assert_int_equal(ok("iperf -c 10.0.0.1 --port=5004")->port, 5004);
  assert_int_equal(ok("iperf -c 10.0.0.1 -L 1 -d")->back_port, 1);
  refused("iperf -c 10.0.0.1 -p 0", "-p 0: port 1..65535");
  refused("iperf -c 10.0.0.1 -p 65536", "-p 65536: port 1..65535");
  refused("iperf -c 10.0.0.1 -p 50x", "port 1..65535");
  refused("iperf -c 10.0.0.1 -p -1", "port 1..65535");
  refused("iperf -c 10.0.0.1 -p 1.5", "port 1..65535");
  refused("iperf -c 10.0.0.1 -p 99999999999999999999999", "port 1..65535");
  refused("iperf -c 10.0.0.1 -L 0 -d", "-L 0: port 1..65535");
  refused("iperf -c 10.0.0.1 -p", "-p: needs a value");
  refused("iperf -c 10.0.0.1 --port", "--port: needs a value");
  refused("iperf -c", "-c: needs a value");
}

static void test_hosts(void **state) {
  const struct lpa_config *c;
  (void)state;
  c = ok("iperf -c10.1.2.3");
  assert_int_equal(ip4_addr_get_u32(ip_2_ip4(&c->peer)), PP_HTONL(LWIP_MAKEU32(10, 1, 2, 3)));
  c = ok("iperf3 --client 255.255.255.254");
  assert_int_equal(ip4_addr_get_u32(ip_2_ip4(&c->peer)), PP_HTONL(LWIP_MAKEU32(255, 255, 255, 254)));
  refused("iperf -c board.local", "-c board.local: not an IP address");
  refused("iperf -c 10.0.0.256", "not an IP address");
  refused("iperf -c 10.0.0.1.2", "not an IP address");
  refused("iperf -c 0.0.0.0", "not an IP address");
  refused("iperf -c ''", "not an IP address");
}

static void test_time_interval(void **state) {
  (void)state;
  assert_int_equal(ok("iperf -c 10.0.0.1 -t 0.5")->duration_ms, 500);
  assert_int_equal(ok("iperf -c 10.0.0.1 -t 1.25")->duration_ms, 1250);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -t 0.1")->duration_ms, 100);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -t 86400")->duration_ms, 86400000);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -t 3.")->duration_ms, 3000);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -t .5")->duration_ms, 500);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 --time=7")->duration_ms, 7000);
  refused("iperf -c 10.0.0.1 -t 0", "-t 0: seconds 0.1..86400");
  refused("iperf -c 10.0.0.1 -t 0.05", "seconds 0.1..86400");
  refused("iperf -c 10.0.0.1 -t 86400.001", "seconds 0.1..86400");
  refused("iperf -c 10.0.0.1 -t 1.2345", "at most 3 decimals");
  refused("iperf -c 10.0.0.1 -t 1s", "seconds 0.1..86400");
  refused("iperf -c 10.0.0.1 -t .", "seconds");
  refused("iperf -c 10.0.0.1 -t 1..2", "seconds");
  refused("iperf -c 10.0.0.1 -t 99999999999999999999", "seconds");
  assert_int_equal(ok("iperf -c 10.0.0.1 -i 0")->interval_ms, LPA_INTERVAL_NONE);
  assert_int_equal(ok("iperf -c 10.0.0.1 -i 0.1")->interval_ms, 100);
  assert_int_equal(ok("iperf -c 10.0.0.1 -i 0.5")->interval_ms, 500);
  assert_int_equal(ok("iperf -c 10.0.0.1 -i 3600")->interval_ms, 3600000);
  assert_int_equal(ok("iperf -c 10.0.0.1")->interval_ms, 0);
  refused("iperf -c 10.0.0.1 -i 0.05", "-i 0.05: seconds 0 (no interim reports) or 0.1..3600");
  refused("iperf -c 10.0.0.1 -i 3601", "0.1..3600");
  refused("iperf -c 10.0.0.1 -i x", "0.1..3600");
  refused("iperf -c 10.0.0.1 -t 5 -n 1M", "-t and -n exclude each other");
}

/* iperf2 2.1: k/m/g = 1000, K/M/G = 1024 for -n, -l and -b. iperf3: -b is 1000-based in
 * both cases, -n and -l 1024-based in both. */
static void test_suffixes(void **state) {
  (void)state;
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 10m")->rate_bps, 10000000);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 10M")->rate_bps, 10485760);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 1.5m")->rate_bps, 1500000);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 2g")->rate_bps, 2000000000);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 2G")->rate_bps, 2147483648ull);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 64k")->rate_bps, 64000);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 64K")->rate_bps, 65536);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 123")->rate_bps, 123);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -b 10M")->rate_bps, 10000000);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -b 10m")->rate_bps, 10000000);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -b 1G")->rate_bps, 1000000000);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 --bitrate 5k")->rate_bps, 5000);
  assert_int_equal(ok("iperf -c 10.0.0.1 --bandwidth 5k")->rate_bps, 5000);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 100g")->rate_bps, 100000000000ull);
  assert_int_equal(ok("iperf -c 10.0.0.1 -b 0")->rate_bps, 0); /* TCP: no limit */

  assert_int_equal(ok("iperf -c 10.0.0.1 -n 1k")->amount_bytes, 1000);
  assert_int_equal(ok("iperf -c 10.0.0.1 -n 1K")->amount_bytes, 1024);
  assert_int_equal(ok("iperf -c 10.0.0.1 -n 1.5K")->amount_bytes, 1536);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -n 1k")->amount_bytes, 1024);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -n 50M")->amount_bytes, 52428800);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 --bytes 5G")->amount_bytes, 5368709120ull); /* > 4 GiB */
  assert_int_equal(ok("iperf -c 10.0.0.1 --num 7g")->amount_bytes, 7000000000ull);
  assert_int_equal(ok("iperf -c 10.0.0.1 -n 1")->amount_bytes, 1);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -n 16000000G")->amount_bytes, 16000000ull << 30);

  assert_int_equal(ok("iperf -c 10.0.0.1 -l 64K")->len, 65536);
  assert_int_equal(ok("iperf -c 10.0.0.1 -l 64k")->len, 64000);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -l 64k")->len, 65536);
  assert_int_equal(ok("iperf3 -c 10.0.0.1 --length 1M")->len, 1048576);
  assert_int_equal(ok("iperf -c 10.0.0.1 --len=1460")->len, 1460);

  refused("iperf -c 10.0.0.1 -b 101g", "-b 101g: bits/s 0..100000000000");
  refused("iperf -c 10.0.0.1 -b 10x", "-b 10x: bits/s");
  refused("iperf -c 10.0.0.1 -b 10MM", "bits/s");
  refused("iperf -c 10.0.0.1 -b 10pps", "bits/s");
  refused("iperf3 -c 10.0.0.1 -b 10M/100", "bits/s");
  refused("iperf -c 10.0.0.1 -b 1.0001m", "bits/s");
  refused("iperf -c 10.0.0.1 -b M", "bits/s");
  refused("iperf -c 10.0.0.1 -n 0", "-n 0: bytes 1..");
  refused("iperf -c 10.0.0.1 -n 17179869184G", "bytes 1..");
  refused("iperf -c 10.0.0.1 -n 5T", "bytes 1..");
  refused("iperf -c 10.0.0.1 -n -5", "bytes 1..");
}

static void test_lengths_by_protocol(void **state) {
  (void)state;
  assert_int_equal(ok("iperf -c 10.0.0.1 -l 1")->len, 1);
  refused("iperf -c 10.0.0.1 -l 0", "-l 0: TCP write bytes 1..1048576");
  refused("iperf3 -c 10.0.0.1 -l 1025K", "-l 1025K: TCP write bytes 1..1048576");
  /* UDP: a datagram must hold the protocol's header, and the agent reads at most
   * LPA_UDP_MAX_LEN; -l before -u is checked against UDP too */
  assert_int_equal(ok("iperf -c 10.0.0.1 -l 40 -u")->len, 40);
  refused("iperf -c 10.0.0.1 -l 39 -u", "-l 39: UDP datagram bytes 40..");
  assert_int_equal(ok("iperf3 -c 10.0.0.1 -u -l 16")->len, 16);
  refused("iperf3 -c 10.0.0.1 -u -l 15", "UDP datagram bytes 16..");
  {
    char line[64], want[64];
    snprintf(line, sizeof(line), "iperf -c 10.0.0.1 -u -l %d", LPA_UDP_MAX_LEN);
    assert_int_equal(ok(line)->len, LPA_UDP_MAX_LEN);
    snprintf(line, sizeof(line), "iperf -c 10.0.0.1 -u -l %d", LPA_UDP_MAX_LEN + 1);
    snprintf(want, sizeof(want), "UDP datagram bytes 40..%d", LPA_UDP_MAX_LEN);
    refused(line, want);
  }
  refused("iperf -c 10.0.0.1 -u -b 0", "-b 0: UDP needs a rate");
  assert_int_equal(ok("iperf -c 10.0.0.1 -u -b 1")->rate_bps, 1);
}

/* getopt's grouping and attached values; long names. */
static void test_option_forms(void **state) {
  const struct lpa_config *c;
  (void)state;
  c = ok("iperf -ud -c 10.0.0.1");
  assert_int_equal(c->proto, LPA_PROTO_UDP);
  assert_int_equal(c->mode, LPA_MODE_DUAL);
  c = ok("iperf -uRc 10.0.0.1 -t5");
  assert_int_equal(c->proto, LPA_PROTO_UDP);
  assert_int_equal(c->mode, LPA_MODE_REVERSE);
  assert_int_equal(c->duration_ms, 5000);
  c = ok("iperf3 --client 10.0.0.1 --udp --interval 0.5 --parallel 1");
  assert_int_equal(c->proto, LPA_PROTO_UDP);
  assert_int_equal(c->interval_ms, 500);
  c = ok("iperf --server --udp");
  assert_int_equal(c->role, LPA_ROLE_SERVER);
  refused("iperf -c 10.0.0.1 -w 64K", "iperf: -w: unknown option");
  refused("iperf -c 10.0.0.1 -uw", "-w: unknown option");
  refused("iperf3 -c 10.0.0.1 --window=64K", "--window: unknown option");
  refused("iperf3 -c 10.0.0.1 --udp=1", "--udp: takes no value");
  refused("iperf3 -c 10.0.0.1 --", "--: unknown option");
  refused("iperf -c 10.0.0.1 -", "unexpected word");
  refused("iperf -c 10.0.0.1 extra", "unexpected word");
  refused("iperf -c 10.0.0.1 -t 5 5", "unexpected word");
}

/* ---- other commands and bad lines ---- */

static void test_help(void **state) {
  (void)state;
  assert_int_equal(run("help"), 0);
  assert_true(out.lines >= 8);
  assert_non_null(strstr(out.text, "iperf3 -s"));
  assert_non_null(strstr(out.text, "stop [ID]"));
  assert_non_null(strstr(out.text, "-R"));
  assert_int_equal(run("iperf -h"), 0);
  assert_true(out.lines >= 8);
  assert_int_equal(run("iperf3 --help"), 0);
  assert_int_equal(run("iperf -c 10.0.0.1 -h"), 0);
  assert_int_equal(run("?"), 0);
  assert_int_equal(fake.nstart, 0);
  /* no help line is longer than a serial terminal */
  {
    const char *p = out.text;
    while (*p) {
      size_t n = strcspn(p, "\n");
      assert_true(n <= 80);
      p += n + 1;
    }
  }
}

static void test_stop(void **state) {
  char line[32];
  (void)state;
  assert_int_equal(run("stop"), 0);
  assert_int_equal(fake.nstop, 1);
  assert_int_equal(fake.stops[0], -1);
  assert_string_equal(out.text, "stopped all sessions\n");
  assert_int_equal(run("stop 2"), 0);
  assert_int_equal(fake.stops[1], 1); /* IDs are session index + 1, as the report lines show */
  assert_string_equal(out.text, "stopped session 2\n");
  snprintf(line, sizeof(line), "stop %d", LPA_MAX_SESSIONS);
  assert_int_equal(run(line), 0);
  assert_int_equal(fake.stops[2], LPA_MAX_SESSIONS - 1);
  fake.stop_ret = LPA_ENOENT;
  assert_int_equal(run("stop 1"), LPA_ENOENT);
  assert_string_equal(out.text, "stop: no such session\n");
  assert_int_equal(run("stop"), LPA_ENOENT);
  assert_string_equal(out.text, "stop: nothing is running\n");
  assert_int_equal(fake.nstop, 5);
  /* a test's second connection (iperf2 -d/-r) prints IDs from LPA_MAX_SESSIONS + 1 on */
  fake.stop_ret = 0;
  snprintf(line, sizeof(line), "stop %d", LPA_MAX_SESSIONS + 2);
  assert_int_equal(run(line), 0);
  assert_int_equal(fake.stops[5], 1);
  fake.stop_ret = LPA_ENOENT;
  snprintf(line, sizeof(line), "stop %d", 2 * LPA_MAX_SESSIONS + 1);
  assert_int_equal(run(line), LPA_EINVAL);
  assert_int_equal(run("stop 0"), LPA_EINVAL);
  assert_non_null(strstr(out.text, "stop: 0: ID 1.."));
  assert_int_equal(run("stop x"), LPA_EINVAL);
  assert_int_equal(run("stop 1 2"), LPA_EINVAL);
  assert_string_equal(out.text, "stop: usage: stop [ID]\n");
  assert_int_equal(fake.nstop, 6);
}

static void test_stats(void **state) {
  char want[64];
  (void)state;
  assert_int_equal(run("stats"), 0);
  snprintf(want, sizeof(want), "conns 3 in use of %d\n", (int)LPA_MAX_CONNS);
  assert_string_equal(out.text, want);
}

static void test_bad_lines(void **state) {
  char line[400];
  (void)state;
  assert_int_equal(lpa_command(NULL, cap_print, &out), 0);
  assert_int_equal(run(""), 0);
  assert_int_equal(out.lines, 0);
  assert_int_equal(run(" \t\r\n"), 0);
  assert_int_equal(out.lines, 0);
  assert_int_equal(run("foo -s"), LPA_EINVAL);
  assert_string_equal(out.text, "console: foo: unknown command (try help)\n");
  assert_int_equal(run("IPERF -s"), LPA_EINVAL);
  assert_int_equal(run("iperf2 -s"), LPA_EINVAL);
  assert_int_equal(run("\x01\x02\xff"), LPA_EINVAL);
  assert_int_equal(run("iperf \xff"), LPA_EINVAL);
  /* exactly the longest line is fine, one more character is refused whole */
  memset(line, ' ', sizeof(line));
  memcpy(line, "iperf -s", 8);
  line[160] = '\0';
  assert_int_equal(run(line), 0);
  line[160] = ' ';
  line[161] = '\0';
  assert_int_equal(run(line), LPA_EINVAL);
  assert_string_equal(out.text, "console: line too long\n");
  memset(line, 'x', sizeof(line) - 1);
  line[sizeof(line) - 1] = '\0';
  assert_int_equal(run(line), LPA_EINVAL);
  /* more words than the parser holds */
  strcpy(line, "iperf -c 10.0.0.1");
  while (strlen(line) < 150) strcat(line, " -u");
  assert_int_equal(run(line), LPA_EINVAL);
  assert_string_equal(out.text, "console: too many words\n");
  assert_int_equal(fake.nstart, 1);
  /* a NULL print function is allowed: the result still says what happened */
  assert_int_equal(lpa_command("iperf -p 0 -s", NULL, NULL), LPA_EINVAL);
  assert_int_equal(lpa_command("iperf -s", NULL, NULL), 0);
}

/* Every garbage line is answered with a result and at most a few lines, never a crash. */
static void test_fuzz(void **state) {
  static const char *const words[] = {"iperf", "iperf3", "-s", "-c", "10.0.0.1", "-u", "-p",
                                      "-t", "-n", "-b", "-l", "-i", "-d", "-r", "-R", "-L",
                                      "-P", "1", "0", "5M", "1.5", "-", "--", "--udp", "=",
                                      "--port=", "x", "stop", "help", "65536", "-ud", "-p5"};
  uint64_t seed = 7;
  int i, j;
  (void)state;
  for (i = 0; i < 20000; i++) {
    char line[256] = "";
    int n, rc;
    seed = lcg64(seed);
    n = (int)(seed >> 60);
    for (j = 0; j < n; j++) {
      seed = lcg64(seed);
      if (j) strcat(line, " ");
      strcat(line, words[(seed >> 33) % (sizeof(words) / sizeof(words[0]))]);
    }
    rc = run(line);
    assert_true(rc == 0 || rc == LPA_EINVAL || rc == LPA_ENOENT);
    assert_true(rc != LPA_EINVAL || out.lines == 1);
    assert_int_equal(fake.lock_depth, 0);
    finish_all();
    if (fake.nstart == FAKE_MAX) fake.nstart = 0;
  }
}

/* ---- reports of started sessions ---- */

static void test_reports_printed(void **state) {
  struct cap other;
  struct lpa_report r;
  (void)state;
  fake.keep = 1;
  fake.next_index = 0;
  ok("iperf -c 10.0.0.1 -t 1");
  fake.next_index = 1;
  memset(&other, 0, sizeof(other));
  assert_int_equal(lpa_command("iperf3 -s", cap_print, &other), 1);
  memset(&out, 0, sizeof(out));
  memset(&other, 0, sizeof(other));
  /* each session's reports go to the console that started it */
  memset(&r, 0, sizeof(r));
  r.kind = LPA_REPORT_INTERVAL;
  r.dialect = LPA_DIALECT_IPERF2;
  r.end_ms = 1000;
  r.bytes = 11744051;
  r.bps = 94100000;
  fake.fn[0](&r, fake.arg[0]);
  assert_string_equal(out.text, "[  1] 0.00-1.00 sec  11.2 MBytes  94.1 Mbits/sec\n");
  assert_int_equal(other.lines, 0);
  /* a test the iperf3 server accepted (session 3) reports through the server's binding */
  r.session = 3;
  r.dialect = LPA_DIALECT_IPERF3;
  fake.fn[1](&r, fake.arg[1]);
  assert_string_equal(other.text,
                      "[  4]   0.00-1.00   sec  11.2 MBytes  94.1 Mbits/sec                  \n");
  assert_int_equal(out.lines, 1);
  emit(1, LPA_REPORT_DONE, 3); /* the accepted test ends (DONE prints nothing) */
  assert_int_equal(other.lines, 1);
}

/* Bindings are freed at the last DONE: many more starts than sessions never run out, also
 * when lpa_start fails or the session ends before lpa_start returns. */
static void test_binding_lifetime(void **state) {
  int i, k, first;
  (void)state;
  fake.keep = 1;
  for (i = 0; i < 3 * LPA_MAX_SESSIONS; i++) {
    fake.next_index = i % LPA_MAX_SESSIONS;
    ok("iperf -c 10.0.0.1");
    emit(fake.nstart - 1, LPA_REPORT_START, (uint8_t)fake.next_index);
    emit(fake.nstart - 1, LPA_REPORT_DONE, (uint8_t)fake.next_index);
  }
  fake.start_err = LPA_ENET;
  for (i = 0; i < 3 * LPA_MAX_SESSIONS; i++) {
    assert_int_equal(run("iperf -c 10.0.0.1"), LPA_ENET);
    assert_non_null(strstr(out.text, "iperf: the stack refused"));
  }
  fake.start_err = LPA_EINVAL;
  assert_int_equal(run("iperf -c 10.0.0.1"), LPA_EINVAL);
  assert_non_null(strstr(out.text, "the agent refused this test"));
  fake.start_err = LPA_EBUSY;
  assert_int_equal(run("iperf -c 10.0.0.1"), LPA_EBUSY);
  assert_string_equal(out.text, "iperf: all sessions are busy (stop one first)\n");
  fake.start_err = 0;
  fake.done_inside = 1;
  for (i = 0; i < 3 * LPA_MAX_SESSIONS; i++) {
    ok("iperf -c 10.0.0.1");
    /* the START lines, then the acknowledgement (the session has already ended) */
    assert_int_equal(out.lines, 3);
    assert_non_null(strstr(out.text, "connected with 10.0.0.1"));
  }
  fake.done_inside = 0;
  /* a server whose accepted tests end keeps its binding until its own DONE */
  first = fake.nstart;
  fake.next_index = 0;
  ok("iperf -s");
  for (k = 1; k < 3; k++) {
    emit(first, LPA_REPORT_START, (uint8_t)k);
    emit(first, LPA_REPORT_DONE, (uint8_t)k);
  }
  for (i = 1; i < LPA_MAX_SESSIONS; i++) {
    fake.next_index = i;
    ok("iperf -s");
  }
  k = fake.nstart;
  assert_int_equal(run("iperf -s"), LPA_EBUSY);
  assert_string_equal(out.text, "iperf: all sessions are busy (stop one first)\n");
  assert_int_equal(fake.nstart, k); /* refused before lpa_start */
  emit(first, LPA_REPORT_DONE, 0);
  fake.next_index = 0;
  ok("iperf -s");
  assert_int_equal(fake.lock_depth, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_servers, setup),
      cmocka_unit_test_setup(test_server_refusals, setup),
      cmocka_unit_test_setup(test_client_basic, setup),
      cmocka_unit_test_setup(test_modes, setup),
      cmocka_unit_test_setup(test_ports, setup),
      cmocka_unit_test_setup(test_hosts, setup),
      cmocka_unit_test_setup(test_time_interval, setup),
      cmocka_unit_test_setup(test_suffixes, setup),
      cmocka_unit_test_setup(test_lengths_by_protocol, setup),
      cmocka_unit_test_setup(test_option_forms, setup),
      cmocka_unit_test_setup(test_help, setup),
      cmocka_unit_test_setup(test_stop, setup),
      cmocka_unit_test_setup(test_bad_lines, setup),
      cmocka_unit_test_setup(test_stats, setup),
      cmocka_unit_test_setup(test_fuzz, setup),
      cmocka_unit_test_setup(test_reports_printed, setup),
      cmocka_unit_test_setup(test_binding_lifetime, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

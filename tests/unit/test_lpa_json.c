/* The agent's bounded JSON reader/writer (agent/src/lpa_json.c) on the messages stock iperf3
 * sends and on hostile text: every truncation, deep nesting, huge numbers, bad escapes, NUL
 * bytes and random mutations must fail cleanly and never read past the given length (each
 * input lives in a heap block of exactly its size, so a sanitizer build sees any overread). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

/* The agent file is self-contained C99: compile it into this test. */
#include "../../agent/src/lpa_json.c"
#include "core/compiler.h"

/* The C standard's example rand() for the mutations: the next state modulo 2^32, a wrap by
 * design. */
static LP_WRAPS uint32_t lcg32(uint32_t s) {
  return s * 1103515245u + 12345u;
}

/* A heap copy of exactly n bytes (no terminator): reads past n hit the allocator's redzone. */
static char *exact(const char *s, size_t n) {
  char *p = malloc(n ? n : 1);
  assert_non_null(p);
  memcpy(p, s, n);
  return p;
}

static int parse_n(const char *s, size_t n, struct lpa_json *root) {
  char *p = exact(s, n);
  struct lpa_json r;
  int rc = lpa_json_parse(p, n, &r);
  if (root != NULL) *root = r; /* only used by callers that keep p alive: see parse_keep */
  free(p);
  return rc;
}

static int parse_s(const char *s) { return parse_n(s, strlen(s), NULL); }

static const char params[] =
    "{\"tcp\":true,\"omit\":0,\"time\":2,\"num\":0,\"blockcount\":0,\"parallel\":1,"
    "\"reverse\":true,\"len\":131072,\"bandwidth\":200000000,\"pacing_timer\":1000,"
    "\"client_version\":\"3.12\"}";

static const char results[] =
    "{\"cpu_util_total\":1.0070654065058535,\"cpu_util_user\":0,\"cpu_util_system\":"
    "1.0071154023062063,\"sender_has_retransmits\":18446744073709551615,"
    "\"congestion_used\":\"bbr\",\"streams\":[{\"id\":1,\"bytes\":50069504,\"retransmits\":"
    "18446744073709551615,\"jitter\":9.6612338629991577e-05,\"errors\":0,\"packets\":77,"
    "\"start_time\":0,\"end_time\":2.000161},{\"id\":3,\"bytes\":5,\"retransmits\":-1,"
    "\"jitter\":0,\"errors\":2,\"packets\":0,\"start_time\":0,\"end_time\":1e1}]}";

static void test_params(void **state) {
  struct lpa_json root, v;
  int64_t n;
  int b;
  char buf[16];
  (void)state;
  assert_int_equal(lpa_json_parse(params, strlen(params), &root), 0);
  assert_int_equal(lpa_json_type(&root), LPA_JSON_OBJECT);
  assert_int_equal(lpa_json_get_bool(&root, "tcp", &b), 0);
  assert_int_equal(b, 1);
  assert_int_equal(lpa_json_get_bool(&root, "udp", &b), LPA_JSON_ENOENT);
  assert_int_equal(lpa_json_get_int(&root, "len", &n), 0);
  assert_int_equal(n, 131072);
  assert_int_equal(lpa_json_get_int(&root, "bandwidth", &n), 0);
  assert_int_equal(n, 200000000);
  assert_int_equal(lpa_json_get_int(&root, "client_version", &n), LPA_JSON_ETYPE);
  assert_int_equal(lpa_json_get_bool(&root, "time", &b), LPA_JSON_ETYPE);
  assert_int_equal(lpa_json_get(&root, "client_version", &v), 0);
  assert_int_equal(lpa_json_string(&v, buf, sizeof(buf)), 4);
  assert_string_equal(buf, "3.12");
  assert_true(lpa_json_streq(&v, "3.12"));
  assert_false(lpa_json_streq(&v, "3.1"));
  assert_false(lpa_json_streq(&v, "3.123"));
  assert_int_equal(lpa_json_count(&root), 11);
  /* a key prefix is not the key */
  assert_int_equal(lpa_json_get(&root, "tc", &v), LPA_JSON_ENOENT);
  assert_int_equal(lpa_json_get(&root, "", &v), LPA_JSON_ENOENT);
}

static void test_results(void **state) {
  struct lpa_json root, arr, st, v;
  int64_t n;
  (void)state;
  assert_int_equal(lpa_json_parse(results, strlen(results), &root), 0);
  assert_int_equal(lpa_json_get_int(&root, "sender_has_retransmits", &n), 0);
  assert_int_equal(n, -1); /* 3.12 prints -1 as 2^64 - 1 */
  assert_int_equal(lpa_json_get(&root, "streams", &arr), 0);
  assert_int_equal(lpa_json_type(&arr), LPA_JSON_ARRAY);
  assert_int_equal(lpa_json_count(&arr), 2);
  assert_int_equal(lpa_json_index(&arr, 2, &st), LPA_JSON_ENOENT);
  assert_int_equal(lpa_json_index(&arr, 0, &st), 0);
  assert_int_equal(lpa_json_get_int(&st, "bytes", &n), 0);
  assert_int_equal(n, 50069504);
  assert_int_equal(lpa_json_get(&st, "jitter", &v), 0);
  assert_int_equal(lpa_json_scaled(&v, 6, &n), 0);
  assert_int_equal(n, 96); /* 9.66e-05 s in microseconds, truncated */
  assert_int_equal(lpa_json_get(&st, "end_time", &v), 0);
  assert_int_equal(lpa_json_scaled(&v, 6, &n), 0);
  assert_int_equal(n, 2000161);
  assert_int_equal(lpa_json_index(&arr, 1, &st), 0);
  assert_int_equal(lpa_json_get_int(&st, "retransmits", &n), 0);
  assert_int_equal(n, -1);
  assert_int_equal(lpa_json_get(&st, "end_time", &v), 0);
  assert_int_equal(lpa_json_scaled(&v, 6, &n), 0);
  assert_int_equal(n, 10000000);
  /* a member value is not looked into: "id" exists only inside the array */
  assert_int_equal(lpa_json_get_int(&root, "id", &n), LPA_JSON_ENOENT);
  assert_int_equal(lpa_json_get(&arr, "id", &v), LPA_JSON_ETYPE);
  assert_int_equal(lpa_json_index(&root, 0, &v), LPA_JSON_ETYPE);
}

static int64_t num(const char *s, unsigned dec, int *rc) {
  struct lpa_json root;
  int64_t v = 12345;
  char *p = exact(s, strlen(s));
  assert_int_equal(lpa_json_parse(p, strlen(s), &root), 0);
  *rc = lpa_json_scaled(&root, dec, &v);
  free(p);
  return v;
}

static void test_numbers(void **state) {
  int rc;
  (void)state;
  assert_int_equal(num("0", 0, &rc), 0);
  assert_int_equal(rc, 0);
  assert_int_equal(num("-0", 0, &rc), 0);
  assert_int_equal(num("-1", 0, &rc), -1);
  assert_int_equal(num("9223372036854775807", 0, &rc), INT64_MAX);
  assert_int_equal(rc, 0);
  assert_int_equal(num("-9223372036854775808", 0, &rc), INT64_MIN);
  assert_int_equal(rc, 0);
  assert_int_equal(num("-9223372036854775809", 0, &rc), INT64_MIN);
  assert_int_equal(rc, LPA_JSON_ERANGE);
  assert_int_equal(num("18446744073709551615", 0, &rc), -1);
  assert_int_equal(rc, 0);
  assert_int_equal(num("9223372036854775808", 0, &rc), INT64_MIN);
  assert_int_equal(rc, 0);
  assert_int_equal(num("18446744073709551616", 0, &rc), INT64_MAX);
  assert_int_equal(rc, LPA_JSON_ERANGE);
  assert_int_equal(num("99999999999999999999999999999999999999999", 0, &rc), INT64_MAX);
  assert_int_equal(rc, LPA_JSON_ERANGE);
  assert_int_equal(num("1e3", 0, &rc), 1000);
  assert_int_equal(rc, 0);
  assert_int_equal(num("1E+3", 0, &rc), 1000);
  assert_int_equal(num("1.9", 0, &rc), 1);
  assert_int_equal(num("-1.9", 0, &rc), -1);
  assert_int_equal(num("2.5", 3, &rc), 2500);
  assert_int_equal(num("0.0000001", 6, &rc), 0);
  assert_int_equal(num("1.5e-400", 6, &rc), 0);
  assert_int_equal(rc, 0);
  assert_int_equal(num("1e999999999999", 0, &rc), INT64_MAX);
  assert_int_equal(rc, LPA_JSON_ERANGE);
  assert_int_equal(num("-1e30", 0, &rc), INT64_MIN);
  assert_int_equal(rc, LPA_JSON_ERANGE);
  assert_int_equal(num("1e19", 0, &rc), INT64_MAX); /* not a plain integer: no wrap */
  assert_int_equal(rc, LPA_JSON_ERANGE);
  assert_int_equal(num("0.000000000000000000000000000000000000000000000000001e51", 0, &rc), 1);
  assert_int_equal(num("123456789012345678901234567890e-20", 0, &rc), 1234567890);
  assert_int_equal(num("0.12345678901234567890123456789", 9, &rc), 123456789);
  /* malformed numbers are syntax errors */
  assert_int_equal(parse_s("01"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("-"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("1."), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s(".5"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("1e"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("1e+"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("+1"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("0x10"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("NaN"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("Infinity"), LPA_JSON_ESYNTAX);
}

static long str(const char *s, char *buf, size_t cap) {
  struct lpa_json root;
  long r;
  char *p = exact(s, strlen(s));
  int rc = lpa_json_parse(p, strlen(s), &root);
  if (rc < 0) {
    free(p);
    return rc;
  }
  r = lpa_json_string(&root, buf, cap);
  free(p);
  return r;
}

static void test_strings(void **state) {
  char b[32];
  (void)state;
  assert_int_equal(str("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", b, sizeof(b)), 12);
  assert_memory_equal(b, "a\"b\\c/d\b\f\n\r\t", 13);
  assert_int_equal(str("\"\\u00e9\\u20AC\"", b, sizeof(b)), 5);
  assert_memory_equal(b, "\xc3\xa9\xe2\x82\xac", 6);
  assert_int_equal(str("\"\\ud83d\\ude00\"", b, sizeof(b)), 4);
  assert_memory_equal(b, "\xf0\x9f\x98\x80", 5);
  assert_int_equal(str("\"\\u0041\"", b, sizeof(b)), 1);
  assert_string_equal(b, "A");
  /* bad escapes */
  assert_int_equal(str("\"\\x41\"", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"\\u12\"", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"\\u12g4\"", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"\\udc00\"", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"\\ud800\"", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"\\ud800\\u0041\"", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"\\", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"\\u", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"abc", b, sizeof(b)), LPA_JSON_ESYNTAX);
  assert_int_equal(str("\"a\tb\"", b, sizeof(b)), LPA_JSON_ESYNTAX); /* raw control char */
  /* \u0000 parses but cannot become a C string */
  assert_int_equal(str("\"a\\u0000b\"", b, sizeof(b)), LPA_JSON_ESYNTAX);
  /* too small a buffer: reported, terminated, never overrun */
  memset(b, 'x', sizeof(b));
  assert_int_equal(str("\"hello\"", b, 5), LPA_JSON_ESPACE);
  assert_int_equal(b[4], '\0');
  assert_int_equal(b[5], 'x');
  assert_int_equal(str("\"hello\"", b, 6), 5);
  assert_int_equal(str("\"\"", b, 1), 0);
  assert_int_equal(str("\"a\"", b, 0), LPA_JSON_ESPACE);
  /* escaped keys compare unescaped */
  {
    static const char doc[] = "{\"\\u0074cp\":true,\"a\\\"b\":1}";
    struct lpa_json root;
    int v = 0;
    int64_t n = 0;
    assert_int_equal(lpa_json_parse(doc, strlen(doc), &root), 0);
    assert_int_equal(lpa_json_get_bool(&root, "tcp", &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(lpa_json_get_int(&root, "a\"b", &n), 0);
    assert_int_equal(n, 1);
  }
}

static void test_truncated(void **state) {
  const char *docs[] = {params, results, "[1,[2,{\"a\":\"b\"}],null,false,true,-1.5e3]"};
  size_t d, n;
  (void)state;
  for (d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
    size_t len = strlen(docs[d]);
    assert_int_equal(parse_n(docs[d], len, NULL), 0);
    for (n = 0; n < len; n++) assert_true(parse_n(docs[d], n, NULL) < 0);
  }
}

static void test_nul_and_trailing(void **state) {
  static const char a[] = "{\"a\":1}";
  static const char b[] = "{\"a\0\":1}";
  static const char c[] = "{\"a\":1\0}";
  (void)state;
  assert_int_equal(parse_n(a, sizeof(a), NULL), LPA_JSON_ESYNTAX); /* the NUL trails */
  assert_int_equal(parse_n(a, sizeof(a) - 1, NULL), 0);
  assert_int_equal(parse_n(b, sizeof(b) - 1, NULL), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_n(c, sizeof(c) - 1, NULL), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s(" {\"a\":1} \n"), 0);
  assert_int_equal(parse_s("{\"a\":1} {}"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("{\"a\":1,}"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("[1,]"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("{\"a\" 1}"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("{1:1}"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("{\"a\":tru}"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("{\"a\":nul"), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s(""), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("   "), LPA_JSON_ESYNTAX);
  assert_int_equal(parse_s("{}"), 0);
  assert_int_equal(parse_s("[]"), 0);
  assert_int_equal(parse_s("\"x\""), 0);
  assert_int_equal(lpa_json_parse(NULL, 0, NULL), LPA_JSON_ESYNTAX);
}

static void test_depth(void **state) {
  enum { BIG = 100000 };
  char *p = malloc(2 * BIG);
  int k;
  (void)state;
  assert_non_null(p);
  for (k = 1; k <= LPA_JSON_MAX_DEPTH + 1; k++) {
    memset(p, '[', (size_t)k);
    memset(p + k, ']', (size_t)k);
    assert_int_equal(parse_n(p, 2u * (size_t)k, NULL),
                     k <= LPA_JSON_MAX_DEPTH ? 0 : LPA_JSON_EDEPTH);
  }
  /* very deep input is refused at the limit, not by running out of stack */
  memset(p, '[', BIG);
  memset(p + BIG, ']', BIG);
  assert_int_equal(parse_n(p, 2 * BIG, NULL), LPA_JSON_EDEPTH);
  for (k = 0; k < BIG; k++) memcpy(p + 5 * (k % (BIG / 5)), "{\"a\":", 5);
  assert_int_equal(parse_n(p, BIG, NULL), LPA_JSON_EDEPTH);
  free(p);
}

/* Random byte flips, insertions and cuts of real messages: whatever parses must also survive
 * every lookup the agent makes. */
static void test_mutations(void **state) {
  const char *docs[] = {params, results};
  uint32_t seed = 12345;
  int round;
  (void)state;
  for (round = 0; round < 20000; round++) {
    const char *src = docs[round & 1];
    size_t len = strlen(src), n = len, k;
    char *p = malloc(len + 8);
    struct lpa_json root, arr, st, v;
    int64_t x;
    char sb[8];
    int flips;
    assert_non_null(p);
    memcpy(p, src, len);
    for (flips = 0; flips < 1 + (round % 4); flips++) {
      seed = lcg32(seed);
      k = (seed >> 8) % n;
      switch ((seed >> 4) & 3) {
      case 0: p[k] = (char)(seed >> 24); break;
      case 1: p[k] = "{}[]\",:\\0-e."[(seed >> 20) % 12]; break;
      case 2: n = k + 1; break;
      default: p[k] = '\0'; break;
      }
    }
    {
      char *q = exact(p, n);
      if (lpa_json_parse(q, n, &root) == 0) {
        (void)lpa_json_get_int(&root, "time", &x);
        (void)lpa_json_get_int(&root, "sender_has_retransmits", &x);
        (void)lpa_json_count(&root);
        if (lpa_json_get(&root, "client_version", &v) == 0) (void)lpa_json_string(&v, sb, sizeof(sb));
        if (lpa_json_get(&root, "streams", &arr) == 0 && lpa_json_index(&arr, 0, &st) == 0) {
          (void)lpa_json_get_int(&st, "bytes", &x);
          if (lpa_json_get(&st, "jitter", &v) == 0) (void)lpa_json_scaled(&v, 6, &x);
        }
      }
      free(q);
    }
    free(p);
  }
}

static void test_writer(void **state) {
  char buf[512];
  struct lpa_jw w;
  struct lpa_json root, arr, st;
  int64_t n;
  long len;
  (void)state;
  lpa_jw_init(&w, buf, sizeof(buf));
  lpa_jw_object(&w, NULL);
  lpa_jw_scaled(&w, "cpu_util_total", 0, 0);
  lpa_jw_int(&w, "sender_has_retransmits", -1);
  lpa_jw_array(&w, "streams");
  lpa_jw_object(&w, NULL);
  lpa_jw_int(&w, "id", 1);
  lpa_jw_uint(&w, "bytes", UINT64_MAX);
  lpa_jw_scaled(&w, "jitter", 96, 6);
  lpa_jw_scaled(&w, "end_time", 2000161, 6);
  lpa_jw_scaled(&w, "neg", -1500, 3);
  lpa_jw_end(&w);
  lpa_jw_object(&w, NULL);
  lpa_jw_end(&w);
  lpa_jw_end(&w);
  lpa_jw_bool(&w, "t", 1);
  lpa_jw_bool(&w, "f", 0);
  lpa_jw_string(&w, "s", "a\"b\\c\n\x01");
  lpa_jw_array(&w, "e");
  lpa_jw_end(&w);
  lpa_jw_end(&w);
  len = lpa_jw_finish(&w);
  assert_string_equal(buf,
                      "{\"cpu_util_total\":0,\"sender_has_retransmits\":-1,\"streams\":[{\"id\":1,"
                      "\"bytes\":18446744073709551615,\"jitter\":0.000096,\"end_time\":2.000161,"
                      "\"neg\":-1.500},{}],\"t\":true,\"f\":false,\"s\":\"a\\\"b\\\\c\\u000a"
                      "\\u0001\",\"e\":[]}");
  assert_int_equal(len, (long)strlen(buf));
  /* what we write, we read */
  assert_int_equal(lpa_json_parse(buf, (size_t)len, &root), 0);
  assert_int_equal(lpa_json_get(&root, "streams", &arr), 0);
  assert_int_equal(lpa_json_index(&arr, 0, &st), 0);
  assert_int_equal(lpa_json_get_int(&st, "bytes", &n), 0);
  assert_int_equal(n, -1);
  {
    char s[16];
    struct lpa_json v;
    assert_int_equal(lpa_json_get(&root, "s", &v), 0);
    assert_int_equal(lpa_json_string(&v, s, sizeof(s)), 7);
    assert_string_equal(s, "a\"b\\c\n\x01");
  }
}

static void test_writer_overflow(void **state) {
  char buf[64];
  size_t cap;
  (void)state;
  for (cap = 0; cap < 48; cap++) {
    struct lpa_jw w;
    memset(buf, 'Z', sizeof(buf));
    lpa_jw_init(&w, buf, cap);
    lpa_jw_object(&w, NULL);
    lpa_jw_int(&w, "parallel", 1234567);
    lpa_jw_string(&w, "client_version", "x");
    lpa_jw_end(&w);
    if (cap > 41) assert_int_equal(lpa_jw_finish(&w), 41);
    else assert_int_equal(lpa_jw_finish(&w), LPA_JSON_ESPACE);
    assert_int_equal(buf[cap], 'Z'); /* nothing written at or past cap */
    if (cap > 0) assert_int_equal(buf[strlen(buf) < cap ? strlen(buf) : cap - 1], '\0');
  }
  {
    struct lpa_jw w;
    lpa_jw_init(&w, buf, sizeof(buf));
    lpa_jw_end(&w);
    assert_int_equal(lpa_jw_finish(&w), LPA_JSON_ESYNTAX);
    lpa_jw_init(&w, buf, sizeof(buf));
    lpa_jw_object(&w, NULL);
    assert_int_equal(lpa_jw_finish(&w), LPA_JSON_ESYNTAX);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_params),         cmocka_unit_test(test_results),
      cmocka_unit_test(test_numbers),        cmocka_unit_test(test_strings),
      cmocka_unit_test(test_truncated),      cmocka_unit_test(test_nul_and_trailing),
      cmocka_unit_test(test_depth),          cmocka_unit_test(test_mutations),
      cmocka_unit_test(test_writer),         cmocka_unit_test(test_writer_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

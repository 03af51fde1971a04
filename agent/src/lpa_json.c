/* Bounded JSON for the iperf3 control messages: a validating reader that finds values in place
 * and a writer into a fixed buffer. It does not build trees, convert to floating point or
 * allocate; every read is checked against the text's length, and nesting is capped. */
#include <string.h>

/* Only the iperf3 module uses this file: a build without it (LPA_IPERF3 0, from -D or
 * lpa_config.h as lpa_opts.h reads them) compiles it to nothing. lpa_opts.h itself is not
 * included: the unit test builds this file without lwIP's headers. */
#ifdef LPA_HAVE_CONFIG_H
#include "lpa_config.h"
#endif
#if !defined(LPA_IPERF3) || LPA_IPERF3

#include "lpa_json.h"

/* ---- reader ---- */

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int hex_val(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static size_t skip_ws(const char *p, size_t i, size_t n) {
  while (i < n && is_ws(p[i])) i++;
  return i;
}

/* Four hex digits at p[i..i+3], all before n. */
static long hex4(const char *p, size_t i, size_t n) {
  long v = 0;
  size_t k;
  if (n < 4 || i > n - 4) return -1;
  for (k = 0; k < 4; k++) {
    int h = hex_val(p[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

/* One decoded character of the string whose body continues at p[*i] (the opening quote is
 * behind): writes its UTF-8 bytes to out and returns their count, 0 at the closing quote (then
 * *i is past it), or LPA_JSON_ESYNTAX. */
static int dec_char(const char *p, size_t n, size_t *i, uint8_t out[4]) {
  unsigned char c;
  long u;
  if (*i >= n) return LPA_JSON_ESYNTAX;
  c = (unsigned char)p[*i];
  if (c == '"') {
    (*i)++;
    return 0;
  }
  if (c < 0x20) return LPA_JSON_ESYNTAX; /* control characters (and NUL) must be escaped */
  if (c != '\\') {
    out[0] = c;
    (*i)++;
    return 1;
  }
  if (*i + 1 >= n) return LPA_JSON_ESYNTAX;
  c = (unsigned char)p[*i + 1];
  *i += 2;
  switch (c) {
  case '"': case '\\': case '/': out[0] = c; return 1;
  case 'b': out[0] = '\b'; return 1;
  case 'f': out[0] = '\f'; return 1;
  case 'n': out[0] = '\n'; return 1;
  case 'r': out[0] = '\r'; return 1;
  case 't': out[0] = '\t'; return 1;
  case 'u': break;
  default: return LPA_JSON_ESYNTAX;
  }
  u = hex4(p, *i, n);
  if (u < 0) return LPA_JSON_ESYNTAX;
  *i += 4;
  if (u >= 0xDC00 && u <= 0xDFFF) return LPA_JSON_ESYNTAX; /* a low surrogate alone */
  if (u >= 0xD800 && u <= 0xDBFF) {                     /* needs its low half next */
    long lo;
    if (*i + 1 >= n || p[*i] != '\\' || p[*i + 1] != 'u') return LPA_JSON_ESYNTAX;
    lo = hex4(p, *i + 2, n);
    if (lo < 0xDC00 || lo > 0xDFFF) return LPA_JSON_ESYNTAX;
    *i += 6;
    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
    out[0] = (uint8_t)(0xF0 | (u >> 18));
    out[1] = (uint8_t)(0x80 | ((u >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((u >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (u & 0x3F));
    return 4;
  }
  if (u < 0x80) {
    out[0] = (uint8_t)u;
    return 1;
  }
  if (u < 0x800) {
    out[0] = (uint8_t)(0xC0 | (u >> 6));
    out[1] = (uint8_t)(0x80 | (u & 0x3F));
    return 2;
  }
  out[0] = (uint8_t)(0xE0 | (u >> 12));
  out[1] = (uint8_t)(0x80 | ((u >> 6) & 0x3F));
  out[2] = (uint8_t)(0x80 | (u & 0x3F));
  return 3;
}

static int skip_string(const char *p, size_t n, size_t *i) {
  uint8_t tmp[4];
  int r;
  if (*i >= n || p[*i] != '"') return LPA_JSON_ESYNTAX;
  (*i)++;
  while ((r = dec_char(p, n, i, tmp)) > 0) {
  }
  return r;
}

static int skip_number(const char *p, size_t n, size_t *i) {
  size_t k = *i;
  if (k < n && p[k] == '-') k++;
  if (k >= n || !is_digit(p[k])) return LPA_JSON_ESYNTAX;
  if (p[k] == '0') k++;
  else
    while (k < n && is_digit(p[k])) k++;
  if (k < n && p[k] == '.') {
    k++;
    if (k >= n || !is_digit(p[k])) return LPA_JSON_ESYNTAX;
    while (k < n && is_digit(p[k])) k++;
  }
  if (k < n && (p[k] == 'e' || p[k] == 'E')) {
    k++;
    if (k < n && (p[k] == '+' || p[k] == '-')) k++;
    if (k >= n || !is_digit(p[k])) return LPA_JSON_ESYNTAX;
    while (k < n && is_digit(p[k])) k++;
  }
  *i = k;
  return 0;
}

static int skip_word(const char *p, size_t n, size_t *i, const char *w) {
  size_t l = strlen(w);
  if (n - *i < l || memcmp(p + *i, w, l) != 0) return LPA_JSON_ESYNTAX;
  *i += l;
  return 0;
}

static int skip_value(const char *p, size_t n, size_t *i, int depth);

/* An object or array starting at p[*i]; depth counts the containers around it. */
static int skip_container(const char *p, size_t n, size_t *i, int depth) {
  char close = p[*i] == '{' ? '}' : ']';
  int obj = close == '}';
  int r;
  if (depth >= LPA_JSON_MAX_DEPTH) return LPA_JSON_EDEPTH;
  *i = skip_ws(p, *i + 1, n);
  if (*i < n && p[*i] == close) {
    (*i)++;
    return 0;
  }
  for (;;) {
    if (obj) {
      if ((r = skip_string(p, n, i)) < 0) return r;
      *i = skip_ws(p, *i, n);
      if (*i >= n || p[*i] != ':') return LPA_JSON_ESYNTAX;
      *i = skip_ws(p, *i + 1, n);
    }
    if ((r = skip_value(p, n, i, depth + 1)) < 0) return r;
    *i = skip_ws(p, *i, n);
    if (*i >= n) return LPA_JSON_ESYNTAX;
    if (p[*i] == close) {
      (*i)++;
      return 0;
    }
    if (p[*i] != ',') return LPA_JSON_ESYNTAX;
    *i = skip_ws(p, *i + 1, n);
  }
}

static int skip_value(const char *p, size_t n, size_t *i, int depth) {
  if (*i >= n) return LPA_JSON_ESYNTAX;
  switch (p[*i]) {
  case '{':
  case '[': return skip_container(p, n, i, depth);
  case '"': return skip_string(p, n, i);
  case 't': return skip_word(p, n, i, "true");
  case 'f': return skip_word(p, n, i, "false");
  case 'n': return skip_word(p, n, i, "null");
  default: return skip_number(p, n, i);
  }
}

int lpa_json_parse(const char *text, size_t len, struct lpa_json *root) {
  size_t i, start;
  int r;
  if (text == NULL) return LPA_JSON_ESYNTAX;
  i = skip_ws(text, 0, len);
  start = i;
  if ((r = skip_value(text, len, &i, 0)) < 0) return r;
  if (skip_ws(text, i, len) != len) return LPA_JSON_ESYNTAX;
  root->p = text + start;
  root->len = i - start;
  return 0;
}

enum lpa_json_type lpa_json_type(const struct lpa_json *v) {
  if (v == NULL || v->p == NULL || v->len == 0) return LPA_JSON_BAD;
  switch (v->p[0]) {
  case '{': return LPA_JSON_OBJECT;
  case '[': return LPA_JSON_ARRAY;
  case '"': return LPA_JSON_STRING;
  case 't': return LPA_JSON_TRUE;
  case 'f': return LPA_JSON_FALSE;
  case 'n': return LPA_JSON_NULL;
  default: return (v->p[0] == '-' || is_digit(v->p[0])) ? LPA_JSON_NUMBER : LPA_JSON_BAD;
  }
}

/* Walks the members of an object or the elements of an array; each step re-validates what it
 * passes, so a hand-made lpa_json cannot lead the walk past its len. */
struct walk {
  const char *p;
  size_t n, i;
  int obj, done;
};

static int walk_begin(struct walk *w, const struct lpa_json *v, int want_obj) {
  enum lpa_json_type t = lpa_json_type(v);
  if (t != (want_obj ? LPA_JSON_OBJECT : LPA_JSON_ARRAY)) return LPA_JSON_ETYPE;
  w->p = v->p;
  w->n = v->len;
  w->obj = want_obj;
  w->i = skip_ws(w->p, 1, w->n);
  w->done = w->i < w->n && w->p[w->i] == (want_obj ? '}' : ']');
  return 0;
}

/* 1 with the next key (objects) and value, 0 at the end, or an error. */
static int walk_next(struct walk *w, struct lpa_json *key, struct lpa_json *val) {
  size_t s;
  int r;
  if (w->done) return 0;
  if (w->obj) {
    s = w->i;
    if ((r = skip_string(w->p, w->n, &w->i)) < 0) return r;
    key->p = w->p + s;
    key->len = w->i - s;
    w->i = skip_ws(w->p, w->i, w->n);
    if (w->i >= w->n || w->p[w->i] != ':') return LPA_JSON_ESYNTAX;
    w->i = skip_ws(w->p, w->i + 1, w->n);
  }
  s = w->i;
  if ((r = skip_value(w->p, w->n, &w->i, 1)) < 0) return r;
  val->p = w->p + s;
  val->len = w->i - s;
  w->i = skip_ws(w->p, w->i, w->n);
  if (w->i >= w->n) return LPA_JSON_ESYNTAX;
  if (w->p[w->i] == (w->obj ? '}' : ']')) w->done = 1;
  else if (w->p[w->i] == ',') w->i = skip_ws(w->p, w->i + 1, w->n);
  else return LPA_JSON_ESYNTAX;
  return 1;
}

int lpa_json_streq(const struct lpa_json *v, const char *s) {
  size_t i = 1, k = 0, sl;
  uint8_t ch[4];
  int r;
  if (lpa_json_type(v) != LPA_JSON_STRING || s == NULL) return 0;
  sl = strlen(s);
  while ((r = dec_char(v->p, v->len, &i, ch)) > 0) {
    if (sl - k < (size_t)r || memcmp(s + k, ch, (size_t)r) != 0) return 0;
    k += (size_t)r;
  }
  return r == 0 && k == sl;
}

int lpa_json_get(const struct lpa_json *obj, const char *key, struct lpa_json *out) {
  struct walk w;
  struct lpa_json k, v;
  int r = walk_begin(&w, obj, 1);
  if (r < 0) return r;
  while ((r = walk_next(&w, &k, &v)) > 0) {
    if (lpa_json_streq(&k, key)) {
      *out = v;
      return 0;
    }
  }
  return r < 0 ? r : LPA_JSON_ENOENT;
}

int lpa_json_index(const struct lpa_json *arr, size_t idx, struct lpa_json *out) {
  struct walk w;
  struct lpa_json k, v;
  size_t n = 0;
  int r = walk_begin(&w, arr, 0);
  if (r < 0) return r;
  while ((r = walk_next(&w, &k, &v)) > 0) {
    if (n++ == idx) {
      *out = v;
      return 0;
    }
  }
  return r < 0 ? r : LPA_JSON_ENOENT;
}

long lpa_json_count(const struct lpa_json *v) {
  struct walk w;
  struct lpa_json k, e;
  long n = 0;
  int r = walk_begin(&w, v, lpa_json_type(v) == LPA_JSON_OBJECT);
  if (r < 0) return r;
  while ((r = walk_next(&w, &k, &e)) > 0) n++;
  return r < 0 ? r : n;
}

#define U64_MAX_DIV10 (UINT64_MAX / 10u)

int lpa_json_scaled(const struct lpa_json *v, unsigned decimals, int64_t *out) {
  const char *p;
  size_t i = 0, n, end = 0;
  uint64_t m = 0;
  long exp10 = (long)decimals, e = 0;
  int neg = 0, sat = 0, plain = 1, eneg = 0;
  if (lpa_json_type(v) != LPA_JSON_NUMBER) return LPA_JSON_ETYPE;
  p = v->p;
  n = v->len;
  if (skip_number(p, n, &end) < 0 || end != n) return LPA_JSON_ESYNTAX;
  if (p[i] == '-') {
    neg = 1;
    i++;
  }
  /* Mantissa digits go into m while it has room; whole-number digits that do not fit raise the
   * exponent instead, fraction digits that do not fit are dropped (truncation). */
  for (; i < n && is_digit(p[i]); i++) {
    if (m <= U64_MAX_DIV10 && m * 10u <= UINT64_MAX - (uint64_t)(p[i] - '0'))
      m = m * 10u + (uint64_t)(p[i] - '0');
    else
      exp10++;
  }
  if (i < n && p[i] == '.') {
    plain = 0;
    for (i++; i < n && is_digit(p[i]); i++) {
      if (m <= U64_MAX_DIV10 && m * 10u <= UINT64_MAX - (uint64_t)(p[i] - '0')) {
        m = m * 10u + (uint64_t)(p[i] - '0');
        exp10--;
      }
    }
  }
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    plain = 0;
    i++;
    if (p[i] == '+' || p[i] == '-') eneg = p[i++] == '-';
    for (; i < n && is_digit(p[i]); i++)
      if (e < 100000) e = e * 10 + (p[i] - '0'); /* beyond this every result saturates or is 0 */
    exp10 += eneg ? -e : e;
  }
  if (exp10 > 0 && decimals == 0) plain = 0; /* digits were dropped: not a wrap candidate */
  for (; exp10 > 0 && m != 0; exp10--) {
    if (m > U64_MAX_DIV10) {
      sat = 1;
      m = UINT64_MAX;
      break;
    }
    m *= 10u;
  }
  for (; exp10 < 0 && m != 0; exp10++) m /= 10u;
  if (neg) {
    if (m > (uint64_t)INT64_MAX + 1u) {
      *out = INT64_MIN;
      return LPA_JSON_ERANGE;
    }
    *out = m == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)m;
    return sat ? LPA_JSON_ERANGE : 0;
  }
  if (m > (uint64_t)INT64_MAX) {
    if (plain && decimals == 0 && !sat) { /* iperf3 3.12's unsigned -1 and friends */
      *out = (int64_t)(m - (uint64_t)INT64_MAX - 1u) + INT64_MIN;
      return 0;
    }
    *out = INT64_MAX;
    return LPA_JSON_ERANGE;
  }
  *out = (int64_t)m;
  return sat ? LPA_JSON_ERANGE : 0;
}

int lpa_json_int(const struct lpa_json *v, int64_t *out) { return lpa_json_scaled(v, 0, out); }

int lpa_json_bool(const struct lpa_json *v, int *out) {
  enum lpa_json_type t = lpa_json_type(v);
  if (t != LPA_JSON_TRUE && t != LPA_JSON_FALSE) return LPA_JSON_ETYPE;
  *out = t == LPA_JSON_TRUE;
  return 0;
}

long lpa_json_string(const struct lpa_json *v, char *buf, size_t cap) {
  size_t i = 1, k = 0;
  uint8_t ch[4];
  int r;
  if (lpa_json_type(v) != LPA_JSON_STRING) return LPA_JSON_ETYPE;
  if (cap == 0) return LPA_JSON_ESPACE;
  while ((r = dec_char(v->p, v->len, &i, ch)) > 0) {
    if (r == 1 && ch[0] == 0) return LPA_JSON_ESYNTAX; /* \u0000 would cut a C string */
    if (cap - 1 - k < (size_t)r) {
      buf[k] = '\0';
      return LPA_JSON_ESPACE;
    }
    memcpy(buf + k, ch, (size_t)r);
    k += (size_t)r;
  }
  buf[k] = '\0';
  return r < 0 ? r : (long)k;
}

int lpa_json_get_int(const struct lpa_json *obj, const char *key, int64_t *out) {
  struct lpa_json v;
  int r = lpa_json_get(obj, key, &v);
  return r < 0 ? r : lpa_json_int(&v, out);
}

int lpa_json_get_bool(const struct lpa_json *obj, const char *key, int *out) {
  struct lpa_json v;
  int r = lpa_json_get(obj, key, &v);
  return r < 0 ? r : lpa_json_bool(&v, out);
}

/* ---- writer ---- */

static void put(struct lpa_jw *w, const char *s, size_t n) {
  if (w->failed) return;
  if (w->cap == 0 || n > w->cap - 1 - w->len) {
    w->failed = 1;
    return;
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
  w->buf[w->len] = '\0';
}

static void put_c(struct lpa_jw *w, char c) { put(w, &c, 1); }

static void put_str(struct lpa_jw *w, const char *s) {
  static const char hex[] = "0123456789abcdef";
  put_c(w, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      put(w, e, 2);
    } else if (c < 0x20) {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      put(w, e, 6);
    } else {
      put_c(w, (char)c);
    }
  }
  put_c(w, '"');
}

/* The comma and the key before a value at the current depth. */
static void lead(struct lpa_jw *w, const char *key) {
  uint32_t bit = 1u << (w->depth & 31);
  if (w->need_comma & bit) put_c(w, ',');
  w->need_comma |= bit;
  if (key != NULL) {
    put_str(w, key);
    put_c(w, ':');
  }
}

void lpa_jw_init(struct lpa_jw *w, char *buf, size_t cap) {
  memset(w, 0, sizeof(*w));
  w->buf = buf;
  w->cap = cap;
  if (cap != 0) buf[0] = '\0';
}

static void open(struct lpa_jw *w, const char *key, char c) {
  lead(w, key);
  put_c(w, c);
  if (w->depth + 1 > LPA_JSON_MAX_DEPTH) {
    w->failed = 2;
    return;
  }
  w->depth++;
  w->need_comma &= ~(1u << w->depth);
  if (c == '[') w->is_array |= 1u << w->depth;
  else w->is_array &= ~(1u << w->depth);
}

void lpa_jw_object(struct lpa_jw *w, const char *key) { open(w, key, '{'); }
void lpa_jw_array(struct lpa_jw *w, const char *key) { open(w, key, '['); }

void lpa_jw_end(struct lpa_jw *w) {
  if (w->depth == 0) {
    w->failed = 2;
    return;
  }
  put_c(w, (w->is_array & (1u << w->depth)) ? ']' : '}');
  w->depth--;
}

static void put_uint(struct lpa_jw *w, uint64_t v) {
  char d[20];
  size_t n = 0;
  do {
    d[sizeof(d) - 1 - n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0);
  put(w, d + sizeof(d) - n, n);
}

void lpa_jw_uint(struct lpa_jw *w, const char *key, uint64_t v) {
  lead(w, key);
  put_uint(w, v);
}

/* |v| without a wrap: -(v + 1) fits in int64_t even for INT64_MIN, whose magnitude does not. */
static uint64_t magnitude(int64_t v) {
  return v < 0 ? (uint64_t)(-(v + 1)) + 1u : (uint64_t)v;
}

void lpa_jw_int(struct lpa_jw *w, const char *key, int64_t v) {
  lead(w, key);
  if (v < 0) put_c(w, '-');
  put_uint(w, magnitude(v));
}

void lpa_jw_scaled(struct lpa_jw *w, const char *key, int64_t v, unsigned decimals) {
  uint64_t m, div = 1, fp;
  unsigned k;
  char d[18];
  if (decimals > 18) decimals = 18;
  for (k = 0; k < decimals; k++) div *= 10u;
  lead(w, key);
  if (v < 0) put_c(w, '-');
  m = magnitude(v);
  put_uint(w, m / div);
  if (decimals == 0) return;
  put_c(w, '.');
  fp = m % div;
  for (k = 0; k < decimals; k++) {
    d[decimals - 1 - k] = (char)('0' + fp % 10u);
    fp /= 10u;
  }
  put(w, d, decimals);
}

void lpa_jw_bool(struct lpa_jw *w, const char *key, int v) {
  lead(w, key);
  if (v) put(w, "true", 4);
  else put(w, "false", 5);
}

void lpa_jw_string(struct lpa_jw *w, const char *key, const char *s) {
  lead(w, key);
  put_str(w, s != NULL ? s : "");
}

long lpa_jw_finish(struct lpa_jw *w) {
  if (w->failed == 1) return LPA_JSON_ESPACE;
  if (w->failed || w->depth != 0) return LPA_JSON_ESYNTAX;
  return (long)w->len;
}

#else
typedef int lpa_json_not_selected; /* ISO C wants something in every translation unit */
#endif /* LPA_IPERF3 */

/* A small, bounded JSON reader and writer for the iperf3 control messages: the reader works in
 * place on (ptr, len) text and never reads past len; the writer appends to a fixed buffer. No
 * allocation, no floating point, no libc beyond <string.h>. Not a general JSON library: it does
 * not build trees, and numbers are read as (scaled) 64-bit integers. */
#ifndef LPA_JSON_H
#define LPA_JSON_H

#include <stddef.h>
#include <stdint.h>

/* Nesting deeper than this is refused (the iperf3 messages use 3 levels). */
#define LPA_JSON_MAX_DEPTH 16 /* at most 31: the writer keeps one bit per level */

enum lpa_json_type {
  LPA_JSON_BAD = 0,
  LPA_JSON_OBJECT,
  LPA_JSON_ARRAY,
  LPA_JSON_STRING,
  LPA_JSON_NUMBER,
  LPA_JSON_TRUE,
  LPA_JSON_FALSE,
  LPA_JSON_NULL
};

/* One value: p points at its first character, len covers the whole value (a string's quotes,
 * an object's braces). Borrowed from the text it was found in. */
struct lpa_json {
  const char *p;
  size_t len;
};

/* Errors (negative). */
#define LPA_JSON_ESYNTAX (-1) /* not JSON, truncated, or bytes after the value */
#define LPA_JSON_EDEPTH (-2)  /* nested deeper than LPA_JSON_MAX_DEPTH */
#define LPA_JSON_ENOENT (-3)  /* no such key / index */
#define LPA_JSON_ETYPE (-4)   /* the value has another type */
#define LPA_JSON_ERANGE (-5)  /* a number out of range (the result is saturated) */
#define LPA_JSON_ESPACE (-6)  /* the output buffer is too small */

/* The whole text must be exactly one value (whitespace around it allowed). On success *root
 * covers the value. */
int lpa_json_parse(const char *text, size_t len, struct lpa_json *root);
enum lpa_json_type lpa_json_type(const struct lpa_json *v);

/* Member key of object obj (keys compared after unescaping; the first match wins). */
int lpa_json_get(const struct lpa_json *obj, const char *key, struct lpa_json *out);
/* Element i (from 0) of array arr. */
int lpa_json_index(const struct lpa_json *arr, size_t i, struct lpa_json *out);
/* Number of elements of an array or members of an object; negative on error. */
long lpa_json_count(const struct lpa_json *v);

/* Numbers. scaled: value x 10^decimals, truncated toward zero, saturated at the int64 limits
 * (then LPA_JSON_ERANGE). int: decimals 0, except that a plain integer in [2^63, 2^64) wraps to
 * its two's complement value, because iperf3 3.12 and 3.13 print -1 as 18446744073709551615. */
int lpa_json_scaled(const struct lpa_json *v, unsigned decimals, int64_t *out);
int lpa_json_int(const struct lpa_json *v, int64_t *out);
/* true / false; anything else is LPA_JSON_ETYPE. */
int lpa_json_bool(const struct lpa_json *v, int *out);
/* The unescaped string into buf (NUL-terminated, \u0000 refused); returns its length, or
 * LPA_JSON_ESPACE when it needs more than cap - 1 bytes. */
long lpa_json_string(const struct lpa_json *v, char *buf, size_t cap);
/* 1 when string v equals s after unescaping, 0 otherwise (also when v is not a string). */
int lpa_json_streq(const struct lpa_json *v, const char *s);

/* Convenience lookups in an object; a missing key leaves *out unchanged and returns
 * LPA_JSON_ENOENT. */
int lpa_json_get_int(const struct lpa_json *obj, const char *key, int64_t *out);
int lpa_json_get_bool(const struct lpa_json *obj, const char *key, int *out);

/* Writer. Values are appended with a key inside objects (key != NULL) or without one inside
 * arrays and at the top (key == NULL); commas are placed automatically. On overflow the
 * writer stops writing and lpa_jw_finish() reports it. */
struct lpa_jw {
  char *buf;
  size_t cap;
  size_t len;
  uint32_t need_comma; /* bit d: the container at depth d already has an element */
  uint32_t is_array;   /* bit d: the container at depth d is an array */
  uint8_t depth;
  uint8_t failed;
};

void lpa_jw_init(struct lpa_jw *w, char *buf, size_t cap);
void lpa_jw_object(struct lpa_jw *w, const char *key);
void lpa_jw_array(struct lpa_jw *w, const char *key);
void lpa_jw_end(struct lpa_jw *w); /* closes the innermost object or array */
void lpa_jw_int(struct lpa_jw *w, const char *key, int64_t v);
void lpa_jw_uint(struct lpa_jw *w, const char *key, uint64_t v);
/* v / 10^decimals printed with exactly that many decimals (2000082, 6 -> 2.000082). */
void lpa_jw_scaled(struct lpa_jw *w, const char *key, int64_t v, unsigned decimals);
void lpa_jw_bool(struct lpa_jw *w, const char *key, int v);
void lpa_jw_string(struct lpa_jw *w, const char *key, const char *s);
/* Length written (not counting the NUL the writer keeps after it), or LPA_JSON_ESPACE /
 * LPA_JSON_ESYNTAX (containers left open or closed too often). */
long lpa_jw_finish(struct lpa_jw *w);

#endif

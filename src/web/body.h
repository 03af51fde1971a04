/* Reading the JSON bodies of the web API's POSTs (http.c): pure functions of the parsed
 * body, no connection, so that the body fuzzer (tests/fuzz/fuzz_web_body.c) reads bodies
 * with the code the server runs. Nothing here answers, runs or stores. */
#ifndef LP_WEB_BODY_H
#define LP_WEB_BODY_H

#include <cjson/cJSON.h>

#define LP_WEB_BODY_MAX (64u * 1024u) /* a larger POST body is answered 413, never parsed */

/* {"id": N} with 1 <= N < max: N, else 0 (/api/stop, /api/history/delete). */
double lp_web_body_id(const cJSON *body, double max);

/* {"args": [strings]} -> argv, pointers into body (the caller keeps it until done): the
 * count, or -1 when args is not an array of at most max strings. */
int lp_web_body_args(const cJSON *body, char **argv, int max);

/* A profile's "name": NULL when it is 1..64 bytes of printable text, else the words the
 * answer gives ("name: 1 to 64 characters"). */
const char *lp_web_body_name_problem(const cJSON *name);

#endif

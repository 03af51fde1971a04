/* iperf3 control-channel JSON: the client's parameters and the results both ends exchange.
 * Decoding is typed and range-checked: a peer's JSON is untrusted input. */
#ifndef LP_I3JSON_H
#define LP_I3JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/peer.h"
#include "linkperf/record.h"
#include "linkperf/spec.h"

/* Encode the parameters a client sends (compact JSON, iperf3 3.12 key order); malloc'd.
 * authtoken: iperf3's authentication token (base64), or NULL. */
char *lp_i3_params_encode(const struct lp_spec *spec, const char *authtoken,
                          const char *client_version);

/* Decode a client's parameters onto *out (which holds the server's settings: port, limits,
 * threads ...). Returns 0, or LP_EPEER with a message in err and, in *i3_code (may be NULL),
 * the iperf3 error number to send the client (wire data: LP_I3E_*). token (may be NULL):
 * receives the "authtoken" string ("" when there is none). */
int lp_i3_params_decode(const char *json, size_t len, struct lp_spec *out, char *token,
                        size_t tokenlen, int *i3_code, char *err, size_t errlen);
/* The parameters' "client_version" (every iperf3 since 3.1 sends one) as lp_i3_version_parse
 * reads it, 0 when absent: which error numbers the client knows, also when the rest of the
 * parameters is refused. */
unsigned lp_i3_params_client_version(const char *json, size_t len);

/* Encode (compact). server_output_json, if set, must be a JSON document: it is embedded as
 * an object. Returns malloc'd text or NULL. */
char *lp_i3_results_encode(const struct lp_peer_results *r);
/* Returns 0 or LP_EPEER with a message in err. Frees nothing in *r first: start from zeroed. */
int lp_i3_results_decode(const char *json, size_t len, struct lp_peer_results *r, char *err, size_t errlen);

#endif

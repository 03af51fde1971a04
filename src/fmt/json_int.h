/* Internal to the JSON formatter: builders that turn one record into the cJSON object
 * iperf3 3.12 prints for it (json_obj.c), used by json.c for -J and --json-stream. */
#ifndef LP_FMT_JSON_INT_H
#define LP_FMT_JSON_INT_H

#include <cjson/cJSON.h>

#include "fmt/fmt.h"

/* The "start" object before any START record: what iperf3 shows when a test fails early. */
cJSON *lp_json_start_empty(void);
/* The "start" object. Key order follows 3.12, which differs between client and server. */
cJSON *lp_json_start(const struct lp_rec_start *st, enum lp_role role);
/* One element of "intervals". pdf: a server's --histograms (NULL or off: none), whose bins
 * each stream's latency then carries as "pdf". */
cJSON *lp_json_interval(const struct lp_rec_interval *iv, const struct lp_histogram_spec *pdf);
/* The "end" object. */
cJSON *lp_json_end(const struct lp_rec_end *end, enum lp_role role, bool udp, const struct lp_histogram_spec *pdf);

#endif

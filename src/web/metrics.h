/* `linkperf -s --metrics HOST:PORT`: the server's tests as OpenMetrics text (Prometheus reads
 * it) on GET /metrics, from the same records the output prints. Counters (tests served,
 * refused, bytes, UDP datagrams and losses, TCP retransmits) never go backwards; gauges hold
 * each running test's bytes, rate, jitter and loss; per-client counters are bounded. */
#ifndef LP_WEB_METRICS_H
#define LP_WEB_METRICS_H

#include <stddef.h>

#include "linkperf/engine.h"

/* Owns the HTTP daemon and the counters. */
struct lp_metrics;

/* Serves on listen ("HOST:PORT", "[V6]:PORT", "PORT"; port 0: a free one). NULL with a
 * message in err. */
struct lp_metrics *lp_metrics_start(const char *listen, char *err, size_t errlen);
/* The address it serves on ("http://127.0.0.1:9464/metrics"). */
const char *lp_metrics_url(const struct lp_metrics *m);
/* A sink that counts every record, then hands it to next (which stays the caller's). */
void lp_metrics_sink(struct lp_metrics *m, const struct lp_sink *next, struct lp_sink *out);
/* The exposition text as served (malloc'd; caller frees), NULL when out of memory. */
char *lp_metrics_text(struct lp_metrics *m);
void lp_metrics_free(struct lp_metrics *m);

#endif

/* A peer's results as the engine uses them, whatever the dialect: the iperf3 adapter fills
 * them from the peer's results JSON (proto/i3json.c), the iperf2 adapter from a server report
 * (proto/i2_udp.c). The engine reads them to print the peer's side of the END records. */
#ifndef LP_CORE_PEER_H
#define LP_CORE_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "linkperf/record.h"
#include "linkperf/spec.h"

struct lp_peer_stream {
    int id;
    uint64_t bytes;
    int64_t retransmits;
    double jitter_s;
    int64_t errors;
    uint64_t packets;
    double start_time, end_time;
    uint64_t out_of_order;   /* not on iperf3's wire: filled from an iperf2 server report */
    bool has_latency;        /* nor this: an iperf2 server report's transit fields */
    struct lp_latency_stat latency;
};

/* Both directions of a bidirectional test: up to LP_MAX_STREAMS each. */
#define LP_PEER_MAX_STREAMS (2 * LP_MAX_STREAMS)

struct lp_peer_results {
    double cpu_total, cpu_user, cpu_system;
    int sender_has_retransmits;      /* 1, 0 or -1 (only receives) */
    char congestion[LP_CONGESTION_MAX];
    unsigned nstreams;
    struct lp_peer_stream streams[LP_PEER_MAX_STREAMS];
    char *server_output_text;        /* malloc'd or NULL */
    char *server_output_json;        /* malloc'd document text or NULL */
};

/* Frees the server output texts (the struct itself is the caller's). */
void lp_peer_results_release(struct lp_peer_results *r);
/* The stream with this id, or NULL. */
const struct lp_peer_stream *lp_peer_results_find(const struct lp_peer_results *r, int id);

#endif

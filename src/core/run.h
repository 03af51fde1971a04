/* A test run, independent of the control dialect: its streams, the interval clock, omit
 * handling, and the arithmetic that turns stream counters into interval and end records.
 * Lives on the control thread. Owns its streams; borrows the engine. */
#ifndef LP_RUN_H
#define LP_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cpu.h"
#include "core/engine.h"
#include "core/loop.h"
#include "core/peer.h"
#include "core/stream.h"
#include "core/worker.h"
#include "linkperf/engine.h"
#include "linkperf/record.h"
#include "net/sock.h"

/* Control-side view of one stream. */
struct lp_run_stream {
    struct lp_stream *ds;
    struct lp_stream_conn conn;
    uint64_t order;                 /* arrival order (server) */
    struct lp_stream_counters last, base, final;
    uint64_t retr_last, retr_base, retr_final;
    bool has_tcp_info;
    uint64_t max_cwnd, max_snd_wnd;
    uint32_t max_rtt, min_rtt;
    uint64_t rtt_sum, rtt_n;
    int64_t reorder;                /* tcpi_reord_seen at the last sample (-1 = unknown) */
    bool settled;                   /* its worker will not touch it again */
    bool attached;
    bool joined;                    /* was attached once (attached goes false when it ends) */
    uint64_t start_ns, end_ns;      /* a stream that joined late or ended early (iperf2 -r legs):
                                     * its own span; 0 = the run's */
    uint64_t origin_ns;             /* its times count from here (0 = meas_ns): the second leg
                                     * of iperf2 -r has its own clock (lp_run_attach_stream) */
    struct lp_latency_snap lat_last, lat_base, lat_final; /* receivers with cfg.latency */
    /* Its latency histogram's counts at the same moments (one allocation, NULL until the
     * first cut of a stream with a histogram), and scratch for a reading. */
    uint32_t *hist_last, *hist_base, *hist_final, *hist_now;
    uint32_t *hist_block;        /* owns the four above (one allocation) */
    uint64_t peer_wnd, wnd_since_ns; /* lp_run_delivered: the peer's window, unchanged since */
    uint64_t unsent_last;            /* lp_run_delivered: bytes queued at the last look */
};

struct lp_run;
typedef void (*lp_run_event_fn)(struct lp_run *r, struct lp_run_stream *rs, enum lp_stream_event ev);

struct lp_run {
    struct lp_engine *eng;
    struct lp_spec spec;
    unsigned id;
    const char *cookie;             /* the START record's cookie, borrowed from the dialect
                                     * (iperf3's test cookie); "" when it has none */
    struct lp_endpoint ctrl_peer;

    struct lp_run_stream *streams;
    unsigned nstreams, cap;
    /* Rows of the records that list every stream, cap of each, grown with streams (where a
     * failure is reported as the stream's): START's connections, INTERVAL's samples, END's
     * and LEG_END's totals. Emitting a record then needs no memory, so no record is ever
     * dropped. */
    struct lp_stream_conn *conns;
    struct lp_sample *samples;
    struct lp_stream_end *ends;
    struct lp_stream_budget budget;
    lp_run_event_fn on_event;
    void *owner;

    bool started, finished;         /* TEST_RUNNING seen; final interval cut */
    bool end_emitted;               /* the END record went out */
    bool omitting;
    bool rx_held;                   /* lp_run_quiesce left UDP receivers counting */
    uint64_t stop_ns;               /* lp_run_stop_clock (0: lp_run_finish's own time) */
    uint64_t run_ns, meas_ns, last_cut_ns, final_ns, end_deadline_ns;
    uint64_t deliver_ns;            /* lp_run_delivered: when something last moved (0: not
                                     * waiting yet) */
    /* The report schedule from meas_ns (stats/sched.h): the boundary the interval timer is
     * armed for, and the one where the last cut ended on the schedule. */
    uint64_t sched_next, cut_k;
    /* iperf2 -r: where the second leg's clock and schedule start (0 = none, meas_ns). */
    uint64_t leg_ns;
    struct lp_timer interval_timer, omit_timer;
    struct lp_cpu_snap cpu0, cpu1;
    int tcp_mss_default, sndbuf, rcvbuf;
    char congestion[LP_CONGESTION_MAX];
};

void lp_run_init(struct lp_run *r, struct lp_engine *e, const struct lp_spec *spec, unsigned id);
/* Free streams (they must be settled or never attached) and cancel timers. */
void lp_run_release(struct lp_run *r);

/* Number of data streams the spec calls for (doubled in bidir). */
unsigned lp_run_expected(const struct lp_spec *spec);
/* Whether the local end sends on the n-th stream (creation order) of role's side. */
bool lp_run_stream_sends(const struct lp_spec *spec, enum lp_role role, unsigned n, bool *reverse);

/* Add a connected data socket (takes ownership of fd). Returns NULL only when out of memory
 * (fd is then still the caller's). */
struct lp_run_stream *lp_run_add_stream(struct lp_run *r, int fd, uint64_t order);
/* How one stream takes part in the test, as the control dialect decides it. */
struct lp_run_role {
    bool sends, reverse, initiator;
    int id;                         /* iperf3 stream id or iperf2 transfer id */
    uint32_t blksize;               /* 0 = the spec's */
    enum lp_stream_wire wire;
    bool udp_seq64;
    const uint8_t *udp_template;    /* iperf2 UDP sender: header bytes after the prefix */
    size_t udp_template_len;
    int file_fd;                    /* TCP sender: -F content (-1 = none); borrowed */
    bool no_budget;                 /* not bound by -n/-k (a reverse leg with its own amount) */
    bool icmp_stops;                /* UDP sender: an ICMP error ends it (after the grace) */
    uint64_t icmp_grace_ns;
    bool latency;                   /* receiver: measure one-way latency */
    bool trip_bursts;               /* iperf2 --trip-times TCP burst framing */
    struct lp_isoch_config isoch;   /* iperf2 UDP sender: --isochronous frames */
    uint32_t trip_start_sec, trip_start_usec;
    const uint8_t *lead;            /* TCP sender: a header sent before the data (borrowed) */
    size_t lead_len;
    uint32_t skip_lead;             /* TCP receiver of bursts: header bytes ahead of them */
    /* --bounceback: a client (sends) or server (echo) of request/response messages of
     * blksize bytes; an echo's lead is the first message's bytes already read. */
    bool bounce;
    struct lp_bounce_config bb;
};

/* A --bounceback stream's role from the spec: a client's (sends) exchanges, bursts and
 * period, a server's (echo) hold, capped at LP_I2_BB_HOLD_MAX_US. last_ns: no burst starts
 * that long after the first (0: the test's clock ends the stream). */
void lp_run_bounce_role(const struct lp_spec *sp, bool sends, uint64_t last_ns, struct lp_run_role *role);
/* Set the -n/-k budget from the spec (before streams start). */
void lp_run_prepare_budget(struct lp_run *r);
/* Turn an added stream into a data-path stream with the given role. Returns 0 or -ENOMEM
 * (its socket is then closed). */
int lp_run_setup_stream(struct lp_run *r, struct lp_run_stream *rs, const struct lp_run_role *role);
/* Sort by arrival order, then give the n-th stream the id stream_id(n) (the dialect's
 * numbering: iperf3's 1,3,4,...), its role and its endpoints. Returns 0 or -ENOMEM. */
int lp_run_finalize_streams(struct lp_run *r, int (*stream_id)(unsigned n));
/* Attach a stream set up after the run began (iperf2 streams arrive one by one). */
void lp_run_attach_stream(struct lp_run *r, struct lp_run_stream *rs);
/* The stream's traffic is over: its totals cover its own span, not the whole run. */
void lp_run_stream_ended(struct lp_run *r, struct lp_run_stream *rs);

void lp_run_emit_start(struct lp_run *r);
/* TEST_RUNNING: attach streams to workers, start the interval/omit clocks. */
void lp_run_begin(struct lp_run *r);
/* The client's end of a test: detach senders; receivers count what is queued, then keep
 * draining without counting. With hold_udp_rx, UDP receivers go on counting until
 * lp_run_release_rx: what a server sends until TEST_END reaches it belongs to the test, and
 * a UDP sender counts a datagram as it leaves. lp_run_quiesced tells when that is done
 * (not waiting for held receivers). */
void lp_run_quiesce(struct lp_run *r, bool hold_udp_rx);
void lp_run_release_rx(struct lp_run *r);
bool lp_run_quiesced(const struct lp_run *r);
/* No interval is cut after now: lp_run_finish ends the last one here, with whatever the
 * counters take until then (held receivers). */
void lp_run_stop_clock(struct lp_run *r);
/* After the senders used up a -n/-k budget: true once what they wrote can have been counted
 * by the receiver (lp_run_delivered's comment says how that is judged); else poll again in
 * LP_RUN_DELIVER_POLL_NS. */
#define LP_RUN_DELIVER_POLL_NS (2ull * LP_NS_PER_MS)
bool lp_run_delivered(struct lp_run *r);
/* Detach every stream (receivers count what is queued first). */
void lp_run_detach_all(struct lp_run *r);
bool lp_run_all_settled(const struct lp_run *r);
/* Close the data sockets of settled streams (counters stay readable). iperf3 servers do
 * this at TEST_END, and a stock client in reverse mode waits for that EOF. */
void lp_run_close_streams(struct lp_run *r);
/* Cut the last interval and freeze the totals. */
void lp_run_finish(struct lp_run *r);

/* How long the receiving streams have gone without data (0 when none receives yet). */
uint64_t lp_run_rx_idle_ns(const struct lp_run *r);
/* The same, counting from since_ns (lp_now_ns clock) when nothing has been received since. */
uint64_t lp_run_rx_idle_since_ns(const struct lp_run *r, uint64_t since_ns);

void lp_run_local_results(const struct lp_run *r, struct lp_peer_results *out);
/* iperf2 -r: the streams that have ended so far, with this end's totals (and a UDP
 * sender's peer report from `peer`, NULL = none), as an LP_REC_LEG_END (2.1.8 prints a
 * leg's summary when the leg ends). */
void lp_run_emit_leg_end(struct lp_run *r, const struct lp_peer_results *peer);
/* Emit LP_REC_END from local totals and the peer's results (NULL when none arrived). */
void lp_run_emit_end(struct lp_run *r, const struct lp_peer_results *peer, bool partial,
                     const char *server_output_text, const char *server_output_json);
void lp_run_emit_simple(struct lp_run *r, enum lp_record_kind kind);
/* A test cut short: if it ran and no END went out yet, report what was measured (a partial
 * END, local rows only). */
void lp_run_report_partial(struct lp_run *r);

#endif

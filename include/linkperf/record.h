/* Typed records the engine emits while a test runs. Formatters (text, JSON, CSV),
 * the web UI and the history store consume them; the engine never prints.
 * Every pointer inside a record is borrowed: valid only during the sink call. */
#ifndef LINKPERF_RECORD_H
#define LINKPERF_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "linkperf/spec.h"

#define LP_ADDR_STR_MAX 64   /* textual IPv4/IPv6 address, incl. NUL */
#define LP_SYSINFO_MAX 256
#define LP_VERSION_STR "linkperf 0.1.0"

enum lp_record_kind {
    LP_REC_LISTENING,   /* server: ready for a test (iperf3 prints its banner) */
    LP_REC_CONNECTING,  /* client: connecting; server: accepted a control connection */
    LP_REC_START,       /* all streams connected, test about to run */
    LP_REC_INTERVAL,    /* one reporting interval */
    LP_REC_END,         /* final summary (after results exchange) */
    LP_REC_ERROR,       /* the test (or the server) failed; message says why */
    LP_REC_DONE,        /* the test is over; nothing more for this test */
    LP_REC_DEBUG,       /* -d: a protocol step, for diagnosing a peer (not part of results) */
    LP_REC_LEG_END,     /* iperf2 -r client: the first leg's streams ended (u.end: only
                         * theirs, this end's own totals); LP_REC_END later has every stream */
};

struct lp_endpoint {
    char host[LP_HOST_MAX];    /* numeric address, or the host name as the user gave it */
    uint16_t port;
};

/* One data stream, as iperf3 identifies it. */
struct lp_stream_id {
    int id;          /* iperf3 stream id: 1, 3, 4, 5, ... (same on both ends);
                      * iperf2 transfer id: 1, 2, 3, ... (this end's numbering) */
    int socket;      /* local descriptor number, shown as "[  5]" */
    bool sender;     /* this end sends on the stream */
    bool reverse;    /* payload flows server -> client on this stream */
    bool initiator;  /* this end opened the connection (iperf2 marks the other role "[ *N]") */
};

struct lp_stream_conn {
    struct lp_stream_id sid;
    struct lp_endpoint local, remote;
    /* TCP at connect time (iperf2's "(icwnd/mss/irtt=320/32768/29)"); 0 when unknown */
    uint32_t icwnd_pkts, mss, irtt_us;
    char peer_version[16];   /* iperf2: the peer's version from its header ("2.1.8"), or "" */
};

struct lp_rec_listening {
    uint16_t port;
    unsigned test_number;   /* iperf3's "(test #n)" counter */
    uint16_t port2;         /* second port served (0 = none) */
    int tcp_window;         /* receive buffer of the TCP listener (iperf2's "TCP window size") */
    int udp_buffer;         /* receive buffer of the UDP socket */
    int tcp_window_wanted;  /* the server's -w (0 = none); tcp_window is then what -w gives */
    const char *permit_key; /* iperf2 --permit-key the server requires (NULL = none) */
    double permit_key_timeout_s; /* how long it accepts tests (0 = no limit) */
    const struct lp_spec *spec; /* the listener's own options (server: its command line;
                                 * -l, -M for iperf2's banner); NULL = not known */
    enum lp_proto asked;    /* server: the protocol it was started for (-u: UDP); it serves
                             * both, an iperf2 banner names this one as 2.1.8's does */
};

struct lp_rec_connecting {
    struct lp_endpoint peer; /* client: server host as given and port; server: client ctrl addr */
    enum lp_dialect dialect; /* how the peer is spoken to (a server sees both) */
    enum lp_proto proto;
    int window;              /* client: send buffer of its socket (iperf2 "TCP window size") */
    bool window_requested;   /* -w was given (else iperf2 prints "(default)") */
};

/* Which UDP offloads this end's streams use: any sender with GSO, any receiver with GRO
 * (iperf3 3.20+'s test_start.gso/.gro, which there say what --gsro asked for). */
struct lp_udp_offload {
    bool gso, gro;
};

struct lp_rec_start {
    const struct lp_spec *spec;          /* effective spec (server: built from client params) */
    const char *version;                 /* "linkperf x.y.z" */
    const char *system_info;             /* uname-style line */
    time_t timestamp;                    /* wall clock at test start */
    uint64_t timestamp_ms;
    const char *cookie;                  /* iperf3 cookie (36 chars) */
    struct lp_endpoint control_peer;     /* connecting_to / accepted_connection */
    int tcp_mss;                         /* -M as requested (0 when unset) */
    int tcp_mss_default;                 /* actual MSS of the control/data socket */
    int sock_bufsize;                    /* -w as requested */
    int sndbuf_actual, rcvbuf_actual;    /* of the first data socket */
    unsigned nstreams;
    const struct lp_stream_conn *streams;
    struct lp_udp_offload offload;       /* of this end's streams when the test starts */
};

/* One-way latency (iperf2 --trip-times; UDP also with -e): receive time minus the sender's
 * timestamp, per datagram (UDP) or per burst (TCP). Meaningful with synchronised clocks. */
struct lp_latency_stat {
    uint64_t count;              /* datagrams, bursts or round trips measured */
    double mean_ms, min_ms, max_ms, stdev_ms;
    /* From the histogram (HDR-style buckets at most 1.6 % wide; a bucket's midpoint): one
     * stream's, not a sum's. */
    bool has_pct;
    double p50_ms, p90_ms, p99_ms, p999_ms;
    /* The distribution: hist minus hist_base, LP_HIST_BUCKETS counts each (linkperf/hist.h;
     * hist_base NULL: none), or hist NULL. An interval's point into the run's scratch and
     * hold only while its record is delivered (the next cut reuses them); a total's hold
     * until the run is released. */
    const uint32_t *hist, *hist_base;
};

/* Per-interval numbers of one stream, or a sum over streams of one direction. */
/* iperf2 --isochronous frames of a stream: a sender's isoch:tx/miss/slip (frames sent, frame
 * ids skipped because it was late, late starts), a receiver's Frame:rx/lost (frames whose
 * every datagram arrived, frames with one missing). In a sample, this interval's; in a
 * total, the test's. */
struct lp_frame_counts {
    bool on;
    uint64_t tx, miss, slip;
    uint64_t rx, lost;
};

struct lp_sample {
    struct lp_stream_id sid;     /* sums: id = socket = 0 */
    double start_s, end_s;       /* seconds since the test (or post-omit) start */
    double seconds;              /* end_s - start_s */
    /* The same window on the report schedule, as iperf2 prints it: interval k is
     * [k*i, (k+1)*i) of the test clock (-i i) whenever its cut happened. The last window
     * ends at end_s, or on the boundary it passed when the test ended just after one.
     * nominal_count: the rows the window makes, 1, or n when the cut came over an interval
     * late and the window spans n whole intervals (iperf2 prints a row for each, the data in
     * the first, as 2.1.8 does for missed reports); 0 = not on a schedule (use start_s, end_s). */
    double nominal_start_s, nominal_end_s;
    unsigned nominal_count;
    uint64_t bytes;
    double bits_per_second;
    bool omitted;

    /* TCP sender with tcp_info (Linux). retransmits is also set on TCP sender sums. */
    bool has_tcp_info;
    int64_t retransmits;         /* in this interval */
    uint64_t snd_cwnd;           /* bytes */
    uint64_t snd_wnd;            /* bytes */
    uint32_t rtt_us, rttvar_us, pmtu;
    int64_t reorder;             /* tcp_info's tcpi_reord_seen now: reordering events since
                                  * the connection opened, not this interval's (as iperf3
                                  * 3.20+ reports it); -1 = the kernel does not say */

    /* UDP. Sender: packets sent. Receiver: packets expected (highest seq delta),
     * lost and out-of-order in this interval, jitter at the end of it. */
    bool is_udp;
    uint64_t packets;
    int64_t lost_packets;
    uint64_t out_of_order;
    double jitter_ms;
    double lost_percent;

    bool has_latency;            /* receiver measuring one-way latency */
    struct lp_latency_stat latency;

    struct lp_frame_counts frames; /* --isochronous streams */
};

struct lp_rec_interval {
    unsigned nstreams;
    const struct lp_sample *streams;   /* in stream order */
    struct lp_sample sum;              /* client->server streams (or the only direction) */
    bool has_sum_reverse;              /* bidir: sum over server->client streams */
    struct lp_sample sum_reverse;
    struct lp_sample sum_both;         /* every stream of both directions in one sum (iperf2's
                                        * [SUM] covers both ways of -d and --full-duplex); the
                                        * same numbers as sum when there is no sum_reverse */
};

/* Whole-test totals of one side (sender or receiver) of a stream or a direction. */
struct lp_total {
    bool present;
    double start_s, end_s, seconds;
    uint64_t bytes;
    double bits_per_second;

    bool has_retransmits;        /* TCP sender with counters known */
    int64_t retransmits;
    bool has_tcp_extra;          /* max/min/mean below measured locally */
    uint64_t max_snd_cwnd, max_snd_wnd;
    uint32_t max_rtt_us, min_rtt_us, mean_rtt_us;
    int64_t reorder;             /* with has_tcp_extra: tcpi_reord_seen at the last sample
                                  * (-1 = unknown); a peer's is not exchanged, so 0 there,
                                  * as iperf3 3.20+ prints it */

    bool is_udp;
    double jitter_ms;
    int64_t lost_packets;
    uint64_t packets;
    double lost_percent;
    uint64_t out_of_order;

    bool has_latency;
    struct lp_latency_stat latency;

    struct lp_frame_counts frames; /* --isochronous streams */
};

struct lp_stream_end {
    struct lp_stream_id sid;
    struct lp_total sender;      /* numbers of the end that sent on this stream */
    struct lp_total receiver;    /* numbers of the end that received */
};

struct lp_direction_end {
    bool present;
    struct lp_total sent;        /* sum over the direction's streams, sender side */
    struct lp_total received;    /* receiver side */
};

/* This end's own row of every stream, summed: its sender total where it sends, its receiver
 * total where it receives. iperf2 prints those rows and a [SUM] of them; the direction sums
 * would mix a -d leg's rows with the peer's report. */
struct lp_own_sum {
    struct lp_total sum;         /* from the earliest row's start to the latest row's end, the
                                  * rate over that span; has_retransmits: some row has them;
                                  * jitter is not summed (0) */
    unsigned rows;               /* rows summed: streams with this end's total present */
    unsigned udp_senders;        /* of them, UDP streams this end sends on */
    uint64_t udp_sent;           /* and the datagrams those sent ("[SUM-n] Sent N datagrams") */
};

struct lp_cpu_util {
    double host_total, host_user, host_system;
    double remote_total, remote_user, remote_system;
};

struct lp_rec_end {
    unsigned nstreams;
    const struct lp_stream_end *streams;
    struct lp_direction_end forward;   /* client -> server */
    struct lp_direction_end reverse;   /* server -> client */
    struct lp_own_sum own;             /* this end's rows of every stream, summed */
    bool bidir;
    struct lp_cpu_util cpu;
    const char *sender_congestion;     /* NULL when unknown */
    const char *receiver_congestion;
    const char *server_output_text;    /* client with --get-server-output, or NULL */
    const char *server_output_json;    /* raw JSON text of the server's document, or NULL */
    bool partial;                      /* the test was cut short */
    struct lp_udp_offload offload;     /* what this end's streams used in the end (a kernel
                                        * may refuse GSO at the first write) */
};

struct lp_rec_error {
    int code;              /* iperf3 i_errno-compatible when one applies, else 0 */
    const char *message;   /* one line, no trailing newline */
    bool fatal;            /* the test ended because of it */
    /* An iperf2 connection refused for its permit key (2.1.8 prints "[drop] local ...
     * (permit key fail)" for it instead of an error); NULL otherwise. */
    const struct lp_stream_conn *dropped;
};

struct lp_rec_debug {
    const char *message;   /* one line, no trailing newline */
};

struct lp_record {
    enum lp_record_kind kind;
    enum lp_role role;
    unsigned test_id;      /* server: per-process test number; client: 1 */
    double wall_time;      /* seconds since the epoch when emitted (for --timestamps) */
    union {
        struct lp_rec_listening listening;
        struct lp_rec_connecting connecting;
        struct lp_rec_start start;
        struct lp_rec_interval interval;
        struct lp_rec_end end;
        struct lp_rec_error error;
        struct lp_rec_debug debug;
    } u;
};

/* A consumer of records. Called on the engine's control thread, one record at a time
 * per test; must not block for long. */
typedef void (*lp_sink_fn)(const struct lp_record *rec, void *user);

#endif

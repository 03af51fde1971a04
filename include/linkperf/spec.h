/* linkperf test specification: the single description of a test.
 * Produced by the CLI (and later the web form, profiles, .jperf import); consumed
 * by the engine. Plain data: no pointers, no ownership, safe to copy by value. */
#ifndef LINKPERF_SPEC_H
#define LINKPERF_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#define LP_HOST_MAX 256         /* host names and numeric addresses, incl. NUL */
#define LP_TITLE_MAX 256        /* -T title, incl. NUL */
#define LP_EXTRA_DATA_MAX 1024  /* --extra-data, incl. NUL */
#define LP_CONGESTION_MAX 16    /* TCP_CA_NAME_MAX on Linux, incl. NUL */
#define LP_PERMIT_KEY_MIN 4     /* iperf2 --permit-key: 4..128 bytes, excl. NUL */
#define LP_PERMIT_KEY_MAX 128
#define LP_PERMIT_KEY_TIMEOUT_S 20.0 /* iperf2 --permit-key-timeout's default */

#define LP_DEFAULT_PORT 5201
#define LP_DEFAULT_IPERF2_PORT 5001
#define LP_PATH_MAX 4096
#define LP_ALLOW_MAX 1024
#define LP_IPERF2_UDP_BLKSIZE 1470u   /* iperf2's default datagram payload (IPv4) */
#define LP_DEFAULT_DURATION_S 10.0
#define LP_DEFAULT_INTERVAL_S 1.0
#define LP_DEFAULT_TCP_BLKSIZE (128u * 1024u)
#define LP_DEFAULT_UDP_BLKSIZE 1460u   /* iperf3 uses the control MSS when known */
#define LP_DEFAULT_UDP_RATE_BPS (1024ull * 1024ull) /* iperf3's "1M" is 1048576 */
#define LP_DEFAULT_PACING_TIMER_US 1000u
#define LP_DEFAULT_RCV_TIMEOUT_MS 120000u
#define LP_MAX_STREAMS 128
#define LP_MAX_BLKSIZE (1024u * 1024u)
#define LP_MIN_UDP_BLKSIZE 16u
#define LP_MAX_UDP_BLKSIZE 65507u
#define LP_MAX_DURATION_S 86400.0
#define LP_MAX_WINDOW (512 * 1024 * 1024)

enum lp_role { LP_ROLE_CLIENT = 0, LP_ROLE_SERVER = 1 };
enum lp_proto { LP_PROTO_TCP = 0, LP_PROTO_UDP = 1 };
/* Direction of payload, seen from the client. */
enum lp_dir { LP_DIR_FORWARD = 0, LP_DIR_REVERSE = 1, LP_DIR_BIDIR = 2 };
enum lp_dialect { LP_DIALECT_IPERF3 = 0, LP_DIALECT_IPERF2 = 1 };
enum lp_family { LP_FAMILY_ANY = 0, LP_FAMILY_INET = 4, LP_FAMILY_INET6 = 6 };

/* What the engine needs to know about reporting; how it looks is the formatter's business. */
struct lp_report_spec {
    double interval_s;       /* 0 disables interval records */
    bool get_server_output;  /* client: ask the server for its output */
    bool server_output_json; /* server: its own output is -J (so it sends server_output_json) */
    unsigned debug;          /* -d: 0 = off; >0 emits LP_REC_DEBUG records of protocol steps */
    bool enhanced;           /* iperf2 -e: enhanced reports (output only; nothing on the wire) */
    bool print_mss;          /* iperf2 -m: print the TCP MSS */
};

/* iperf2 dialect (spec->dialect == LP_DIALECT_IPERF2). Direction uses the common fields:
 * LP_DIR_REVERSE is iperf2's -R (server sends on the client's connection), LP_DIR_BIDIR is
 * --full-duplex (both ways on one connection); -d/-r are the legacy server-opened reverse
 * connection, simultaneous or after the forward test. */
/* iperf2 --bounceback: TCP request/response; each message is -l bytes (default 100). */
struct lp_bounceback_spec {
    bool on;
    unsigned burst;              /* --bounceback=N: exchanges per burst (client; the
                                  * command line settles the default: 10, or 1 back to back) */
    double period_s;             /* --bounceback-period: a burst starts every period_s
                                  * (client; default 1; 0 = back to back) */
    bool period_given;
    uint32_t hold_us;            /* --bounceback-hold (ms on the command line) */
    bool no_quickack;            /* --bounceback-no-quickack */
    unsigned congest;            /* --bounceback-congest: this many ordinary TCP tests run
                                  * beside the exchanges as the load (0 = none; 2.1.8's
                                  * default 1) */
    enum lp_dir congest_dir;     /* their direction: up (forward), down (reverse) or bidir
                                  * (full duplex, 2.1.8's default) */
    double txdelay_s;            /* --bounceback-txdelay: the client's exchanges start this
                                  * long after connecting (the load does not wait, and runs
                                  * that much longer) */
};

/* iperf2's --histograms (server): latency PDFs of equal bins, printed with each report of
 * a --trip-times test (TCP bursts "F8", UDP datagrams "T8"). */
struct lp_histogram_spec {
    bool on;
    uint32_t bin_width;          /* in microseconds, or milliseconds with unit_ms */
    bool unit_ms;
    uint32_t bins;
    double ci_lower, ci_upper;   /* percent: the bins holding these are named */
};

/* iperf2's --isochronous[=fps:mean,stdev] and --ipg (client, UDP): frames at fps, each of
 * a size drawn from a lognormal of mean/stdev (bits/s over the second), sent as datagrams
 * ipg apart (core/isoch.c). A server sets on when its client's header has the ISOCH flag. */
struct lp_isoch_spec {
    bool on;                     /* the client sends frames; a server: its client does */
    double fps;                  /* frames per second */
    double mean_bps, stdev_bps;  /* load, bits/s (2.1.8's default 20m, 0) */
    double ipg_s;                /* --ipg: gap between a frame's datagrams (default 0) */
};

struct lp_iperf2_spec {
    bool dual;                   /* -d: reverse connection at the same time */
    bool tradeoff;               /* -r: reverse connection after the forward test */
    uint16_t listen_port;        /* -L: where the client listens for -d/-r (0 = the server port) */
    bool compat;                 /* -C: no iperf2 header (talk to 2.0.x-era peers) */
    bool no_udp_fin;             /* --no-udp-fin: no end-of-test report exchange */
    char file[LP_PATH_MAX];      /* -F: send this file's content ("" = generated payload) */
    bool from_stdin;             /* -I: send standard input */
    int mcast_ttl;               /* -T: multicast TTL (0 = OS default) */
    bool trip_times;             /* --trip-times: timestamped TCP bursts, one-way latency at
                                  * the receiver (server: the client asked for it) */
    char permit_key[LP_PERMIT_KEY_MAX + 1]; /* --permit-key ("" = none): a client sends it
                                  * after its TCP header; a server serves only iperf2 TCP
                                  * clients that send it (no UDP, no iperf3 without auth) */
    double permit_key_timeout_s; /* server with a key: accept tests for this long after
                                  * starting, then exit when they end (0 = no limit) */
    struct lp_bounceback_spec bb;
    struct lp_histogram_spec hist; /* --histograms */
    struct lp_isoch_spec isoch;  /* --isochronous, --ipg */
    bool quickack;               /* server: the client's header asked for TCP_QUICKACK (2.1.8's
                                  * --bounceback-congest load), shown as "(qack)" */
};

struct lp_spec {
    enum lp_role role;
    enum lp_dialect dialect;
    enum lp_proto proto;
    enum lp_dir dir;
    enum lp_family family;

    char host[LP_HOST_MAX];      /* client: server to test against */
    uint16_t port;               /* server port (control and data) */
    char bind_addr[LP_HOST_MAX]; /* -B: local address ("" = any) */
    char bind_dev[32];           /* --bind-dev: SO_BINDTODEVICE ("" = none) */
    uint16_t cport;              /* --cport: client data port (0 = ephemeral) */

    unsigned streams;       /* -P: streams per direction, 1..LP_MAX_STREAMS */
    double duration_s;      /* -t: seconds; 0 when ended by bytes or blocks */
    uint64_t bytes;         /* -n: total bytes to send (0 = unused) */
    uint64_t blocks;        /* -k: total blocks to send (0 = unused) */
    unsigned omit_s;        /* -O: seconds omitted from the start */
    uint32_t blksize;       /* -l: write/datagram size (0 = protocol default) */
    uint64_t rate_bps;      /* -b: per stream, bits/s (0 = unlimited) */
    unsigned burst;         /* -b RATE/BURST: packets per burst (0 = paced evenly) */
    uint32_t pacing_timer_us;

    int window_bytes;                 /* -w: SO_SNDBUF/SO_RCVBUF (0 = OS default) */
    int mss;                          /* -M: TCP_MAXSEG (0 = OS default) */
    bool nodelay;                     /* -N */
    char congestion[LP_CONGESTION_MAX]; /* -C ("" = OS default) */
    int tos;                          /* -S/--dscp: IP TOS byte, -1 = leave alone */
    bool udp_counters_64bit;
    bool repeating_payload;
    bool skip_rx_copy;                /* TCP receive with MSG_TRUNC: count without copying */
    bool zerocopy;                    /* -Z: send without copying where the kernel can */
    bool copy;                        /* --copy: TCP data through user space both ways, as an
                                       * application moves it (default: sendfile from a
                                       * memory file and MSG_TRUNC receives) */
    bool dont_fragment;               /* --dont-fragment: IPv4 DF on UDP */
    uint64_t fq_rate_bps;             /* --fq-rate: SO_MAX_PACING_RATE (0 = unset) */
    unsigned connect_timeout_ms;      /* --connect-timeout: control connect (0 = OS default) */
    unsigned snd_timeout_ms;          /* --snd-timeout: TCP_USER_TIMEOUT (0 = OS default) */
    unsigned drain_ms;                /* iperf3 client: after its senders stopped, this long
                                       * before TEST_END, so what is still queued on the path
                                       * is counted (RFC 2544 trials; 0 = none) */
    bool udp_no_gso;                  /* UDP senders: no GSO, each datagram its own packet from
                                       * the socket on (RFC 2544 trials: a qdisc or device
                                       * sees, and drops, frames, not batches of them) */

    char title[LP_TITLE_MAX];         /* -T */
    char extra_data[LP_EXTRA_DATA_MAX];

    struct lp_report_spec report;
    struct lp_iperf2_spec iperf2;

    unsigned threads;              /* worker threads (0 = one per online CPU) */

    /* Server side. */
    bool one_off;                  /* -1: serve one test, then return */
    unsigned idle_timeout_s;       /* --idle-timeout: 0 = none */
    unsigned server_max_duration_s;/* --server-max-duration: 0 = none */
    unsigned rcv_timeout_ms;       /* --rcv-timeout: receiver idle limit during a test */
    unsigned max_tests;            /* concurrent tests the server accepts (0 = default) */
    uint16_t port2;                /* a second port served as well (0 = none): by default
                                    * the server answers on 5201 and 5001 */
    char allow[LP_ALLOW_MAX];      /* clients allowed: host, CIDR or comma list ("" = all);
                                    * JPerf's "Client Limit", iperf2 2.0's server -c */
    char trust_udp[LP_ALLOW_MAX];  /* --trust-udp: clients an iperf2 UDP -R/-d/full-duplex
                                    * test sends to without proof (same list form) */
    unsigned max_conns;            /* serve this many tests, then return (0 = forever);
                                    * JPerf's "Num Connections", iperf2's server -P */
};

/* With --bounceback-congest, the load's connections come after the -P bounceback ones: iperf2
 * transfer ids 1..streams exchange messages, the ones past them are the load. */
static inline bool lp_spec_bb_stream(const struct lp_spec *sp, int id)
{
    return sp->iperf2.bb.on && (!sp->iperf2.bb.congest || id <= (int)sp->streams);
}

/* Fill a spec with iperf3's defaults for the given role. */
void lp_spec_init(struct lp_spec *spec, enum lp_role role);

/* Effective block size (applies the protocol default when blksize is 0). */
uint32_t lp_spec_blksize(const struct lp_spec *spec);

#endif

/* A data stream: one TCP connection or connected UDP socket that sends or receives
 * payload. The control thread creates it and reads its published counters; once attached,
 * only its worker thread does I/O on it. Owns its descriptor and send buffer. */
#ifndef LP_STREAM_H
#define LP_STREAM_H

#include <stdatomic.h>
#include <sys/types.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/isoch.h"
#include "core/loop.h"
#include "core/worker.h"
#include "stats/pacer.h"
#include "stats/latency.h"
#include "stats/udp_rx.h"
#include "wire/iperf2.h"

enum lp_stream_kind {
    LP_STREAM_TCP_SEND, LP_STREAM_TCP_RECV, LP_STREAM_UDP_SEND, LP_STREAM_UDP_RECV,
    LP_STREAM_TCP_BOUNCE, /* iperf2 --bounceback client: write a message, time its echo */
    LP_STREAM_TCP_ECHO,   /* ... and its server: read a message, stamp it, write it back */
    LP_STREAM_UDP_BOUNCE, /* linkperf UDP round trips (core/udp_echo.h): send probes, time echoes */
    LP_STREAM_UDP_ECHO,   /* ... and its server: count each probe, send it back */
};

/* --bounceback (core/bounce.c). */
struct lp_bounce_config {
    uint32_t hold_us;        /* the server waits this long before it answers */
    unsigned burst;          /* client: exchanges per period */
    uint64_t period_ns;      /* client: a burst starts every period (0 = back to back) */
    uint64_t last_ns;        /* client: no burst starts this long after the first one or
                              * later (the test's end is near; 0 = no limit) */
    bool quickack;           /* TCP_QUICKACK after each write (client) or before a hold */
    bool tos_set;            /* client: the message carries tos */
    uint16_t tos;
    bool clock_synced;       /* client: --trip-times (the server may trust our clock) */
    uint64_t max_probes;     /* UDP round trips: probes -k/-n allow (0 = until -t) */
    uint64_t delay_ns;       /* client: --bounceback-txdelay, before the first burst */
};

/* Worker state of a bounceback stream. */
struct lp_bounce {
    uint32_t have;           /* bytes of the message read */
    uint32_t woff;           /* bytes of the message written */
    enum { LP_BB_READ, LP_BB_WRITE, LP_BB_HOLD, LP_BB_IDLE, LP_BB_DONE } state;
    unsigned left;           /* client: exchanges left in this burst */
    uint32_t burst_id;
    uint64_t sent_ns;        /* client: when the message being timed was written */
    uint64_t next_ns;        /* client: when the next burst starts */
    uint64_t first_ns;       /* client: when the first one did */
};

/* How UDP datagrams are stamped: iperf3 (sec, usec, seq; monotonic clock) or iperf2 (prefix
 * id, sec, usec, id2 on the wall clock, a negative id ending the flow). */
enum lp_stream_wire { LP_WIRE_IPERF3 = 0, LP_WIRE_IPERF2 = 1 };

/* What a worker tells the control thread about a stream. */
enum lp_stream_event {
    LP_SEV_DETACHED,   /* no longer on its worker (after lp_stream_detach or on its own) */
    LP_SEV_FINISHED,   /* sender used up the byte/block budget; detached */
    LP_SEV_EOF,        /* receiver saw the peer close; detached */
    LP_SEV_ERROR,      /* socket error (stream->error); detached */
    LP_SEV_RX_TARGET,  /* receivers together reached the byte target; still attached */
    LP_SEV_FROZEN,     /* counting stopped after a final drain (lp_stream_freeze); still attached */
};

/* Limits shared by all streams of one test (and so by several workers). */
struct lp_stream_budget {
    atomic_int_least64_t remaining; /* bytes or blocks still to send; only if limited */
    bool limited;
    bool blocks;                    /* remaining counts writes, not bytes */
    bool whole_blocks;              /* TCP: every -l block is written whole, the last one may
                                     * pass the budget (an iperf3 receiver counts whole reads) */
    atomic_uint_least64_t rx_total; /* bytes received by all receiving streams */
    uint64_t rx_target;             /* 0 = none */
    atomic_bool rx_target_hit;
    /* Senders to a peer that has not shown it asked for the traffic (an iperf2 UDP header
     * can come from a spoofed address): together they send at most credit_base +
     * credit_mult x the bytes this test's receivers got (an amplification bound), and wait
     * (starved) when they would send more. */
    bool credit;
    uint64_t credit_base;
    unsigned credit_mult;
    atomic_uint_least64_t credit_rx, credit_tx;
    atomic_bool starved;
};

struct lp_stream;
struct lp_udp_echo;
typedef void (*lp_stream_notify_fn)(struct lp_stream *s, enum lp_stream_event ev);

/* One event the worker sends the control thread about its stream. Embedded in the stream,
 * one per kind of event that can be in flight at a time, so sending allocates nothing and
 * cannot fail. `post` travels on the control loop; a terminal event first waits on the
 * worker's loop (`defer`) until the epoll batch that produced it is over. Borrows s. */
struct lp_stream_msg {
    struct lp_post post, defer;
    struct lp_stream *s;
    enum lp_stream_event ev;
};

struct lp_stream_config {
    enum lp_stream_kind kind;
    int fd;
    uint32_t blksize;
    uint64_t rate_bps;       /* 0 = unlimited */
    unsigned burst;          /* packets per burst with a rate (0 = even pacing) */
    bool udp_counters64;
    bool skip_rx_copy;
    bool repeating_payload;
    bool zerocopy;           /* -Z: MSG_ZEROCOPY where the kernel lends the pages, else send() */
    bool no_gso;             /* UDP sender: one datagram per packet all the way (no GSO) */
    bool coalesce;           /* TCP sender: several blocks a write where nothing counts blocks */
    enum lp_stream_wire wire;
    bool udp_seq64;          /* iperf2 receiver: the flow uses 64-bit sequence numbers */
    const uint8_t *udp_template; /* iperf2 sender: bytes after the prefix of every datagram */
    size_t udp_template_len;     /* (copied into the stream) */
    bool has_file;           /* TCP sender: send file_fd's content (-F), cycling at its end */
    int file_fd;             /* borrowed; the caller closes it after the stream */
    int window_bytes;        /* -w, bounds the receive low-watermark */
    bool latency;            /* receiver: one-way latency (iperf2 UDP timestamps, TCP bursts) */
    bool icmp_stops;         /* UDP sender: an ICMP error (ECONNREFUSED) ends the stream... */
    uint64_t icmp_grace_ns;  /* ...once it has sent this long (a peer's socket may be late) */
    bool trip_bursts;        /* iperf2 --trip-times TCP: every write is a timestamped burst
                              * (sender), the byte stream is parsed as bursts (receiver) */
    uint32_t trip_start_sec, trip_start_usec; /* sender: the start time the header carried */
    const uint8_t *lead;     /* TCP sender: bytes sent once before the data, not counted (an
                              * iperf2 server's own header ahead of -R trip-times bursts) */
    size_t lead_len;         /* (copied into the stream) */
    uint32_t skip_lead;      /* TCP receiver: such a header to skip before the bursts */
    struct lp_isoch_config isoch;    /* UDP_SEND: iperf2 --isochronous frames (core/isoch.c) */
    struct lp_bounce_config bb;      /* TCP_BOUNCE / TCP_ECHO (an echo's first bytes, already
                                      * read, are its lead) */
    struct lp_stream_budget *budget; /* may be NULL */
    struct lp_loop *ctrl_loop;       /* where notifications are posted */
    lp_stream_notify_fn notify;
    void *owner;
};

/* UDP receive buffers without -w: room for a burst while the reading thread is off the CPU,
 * so our own socket's drops are not counted as the link's loss. A test's stream asks for
 * the larger (past net.core.rmem_max where allowed); the server's shared socket, which
 * holds only flows not yet handed to their own socket, for the smaller (up to rmem_max). */
#define LP_STREAM_UDP_RCVBUF (4 * 1024 * 1024)
#define LP_STREAM_UDP_RCVBUF_MAX (32 * 1024 * 1024)

struct lp_stream_counters {
    uint64_t bytes;
    uint64_t packets;       /* UDP: datagrams sent, or received */
    uint64_t max_seq;       /* UDP receiver: highest sequence number */
    int64_t lost;
    uint64_t out_of_order;
    double jitter_s;
    uint64_t last_rx_ns;
    struct lp_frame_counts frames; /* --isochronous streams (core/isoch.c) */
};

/* Owns its descriptor, payload and batch buffers, and the queue nodes below (which the loops
 * borrow while they are queued: a stream is freed only once settled, when no request or
 * event of it can still be queued). Borrows cfg's budget, loop and owner, and its worker. */
struct lp_stream {
    struct lp_handler h;
    struct lp_stream_config cfg;
    struct lp_worker *worker;
    uint8_t *payload;          /* sender: blksize bytes of filler */

    /* worker-only state */
    struct lp_pacer pacer;
    struct lp_timer pace_timer;
    uint32_t events;
    uint64_t next_seq;
    struct lp_udp_rx rx;
    int64_t transit_base_ns;
    bool have_transit_base;
    bool attached;
    int rcvlowat;              /* TCP receiver: current SO_RCVLOWAT */
    int send_flags;            /* MSG_ZEROCOPY when enabled on the socket */
    uint8_t *batch_buf;        /* UDP sender, small datagrams: batch_n of them back to back */
    bool fin_seen;             /* iperf2 receiver: the sender's end-of-test datagram arrived */
    uint64_t seq_floor;        /* UDP receiver: datagrams numbered below it were counted already
                                * (a multicast flow's copies read from the listener); 0 = none */
    off_t file_off;
    unsigned gso_segs;         /* datagrams per UDP GSO write (0 = no GSO) */
    bool gso_wrote;            /* a write with GSO was accepted */
    unsigned batch_n;          /* datagrams batch_buf holds */
    bool gro;                  /* UDP receiver: UDP_GRO is on, messages may hold many datagrams */
    uint64_t rate_t0_ns, rate_bytes;
    uint64_t attach_ns;        /* when it started on its worker */
    struct lp_latency_batch lat_batch;
    uint32_t burst_size;       /* trip-times sender: bytes per burst */
    uint32_t burst_off;        /* sender: bytes of the current burst written; receiver: bytes of
                                * the current burst header (< 92) or payload left to read */
    uint32_t burst_id;
    uint32_t burst_cur;        /* sender: size of the burst being written */
    int64_t burst_write_ns;    /* receiver: write time of the burst being read (wall clock) */
    uint64_t burst_seq;        /* sender: bytes written before the current burst */
    bool in_burst_body;        /* receiver: reading payload (burst_off counts down) */
    uint8_t burst_hdr[LP_I2_BURST_LEN];
    uint8_t lead[LP_I2_TRIP_TCP_HDR_LEN];
    uint32_t lead_off;         /* sender: lead bytes written; receiver: lead bytes still to skip */
    struct lp_bounce bb;       /* TCP_BOUNCE / TCP_ECHO; their message is in payload */
    struct lp_isoch *iso;      /* UDP_SEND / UDP_RECV with cfg.isoch.on (core/isoch.c) */
    struct lp_udp_echo *ue;    /* UDP_BOUNCE / UDP_ECHO (core/udp_echo.c); probe in payload */
    uint32_t block_left;       /* TCP sender (budget->whole_blocks): bytes of a taken block
                                * not written yet, written before the budget is asked again */

    /* published by the worker, read by the control thread */
    atomic_uint_least64_t bytes, packets, max_seq, out_of_order, jitter_bits, last_rx_ns;
    atomic_int_least64_t lost;
    atomic_bool counting;      /* false: drain without counting (after the test end) */
    atomic_bool gso_used;      /* UDP sender: writes with GSO (read by the run for its reports) */
    atomic_int error;          /* negative errno of the first socket error */
    struct lp_latency lat;     /* cfg.latency: published per batch */

    /* Requests the control thread posts to the worker, each at most once per stream. */
    struct lp_post req_attach, req_freeze, req_detach;
    /* What the worker sends back, each at most once per stream: the receive target (one
     * stream of a run reaches it), the answer to a freeze, the stream's own end (FINISHED,
     * EOF or ERROR: only while attached, or when attaching fails), the answer to a
     * detach. An end and a detach answer can be in flight together, hence two nodes. */
    struct lp_stream_msg msg_target, msg_frozen, msg_end, msg_detached;

    /* control-thread bookkeeping: safe to free once every request is answered and the
     * stream is off its worker (lp_stream_settle) */
    bool attach_requested;
    bool detach_requested;     /* a detach request was posted (it always gets a reply) */
    bool detach_replied;
    bool off_worker;           /* a terminal event arrived */
    bool freeze_requested, frozen; /* a freeze always gets a reply too */
};

/* NULL only when out of memory. */
struct lp_stream *lp_stream_new(const struct lp_stream_config *cfg);
/* Whether this stream sends with UDP GSO (decided when made; false again if the kernel
 * refuses it at the first write) and receives with UDP GRO: what -J's test_start.gso and
 * .gro report for this end. Safe from any thread. */
bool lp_stream_uses_gso(const struct lp_stream *s);
bool lp_stream_uses_gro(const struct lp_stream *s);
/* Post the stream to worker w; I/O starts there. Once per stream; cannot fail (a failure on
 * the worker comes back as LP_SEV_ERROR). */
void lp_stream_attach(struct lp_stream *s, struct lp_worker *w);
/* Post a detach; LP_SEV_DETACHED follows (also when the stream already detached itself).
 * A no-op before attach or after an earlier detach. */
void lp_stream_detach(struct lp_stream *s);
/* Receivers: count what is already queued, then stop counting (keep draining). Answered
 * with LP_SEV_FROZEN. Detaching a receiver also counts what is queued first. A no-op before
 * attach, after a detach request or after an earlier freeze. */
void lp_stream_freeze(struct lp_stream *s);
void lp_stream_read(const struct lp_stream *s, struct lp_stream_counters *c);
/* Account one received datagram (iperf2 server: the first datagram of a flow arrives on the
 * shared socket). Only before the stream is attached, or on its worker. Returns true if it
 * was the sender's end-of-test datagram. */
bool lp_stream_udp_account(struct lp_stream *s, const uint8_t *buf, size_t len, uint64_t arrival_ns);
/* Before attach: every datagram numbered at most the highest seen so far is a copy of one
 * already counted (a multicast flow socket gets the group's datagrams beside the listener,
 * which the flow's first datagrams were read from). */
void lp_stream_udp_counted_through_max(struct lp_stream *s);
/* Count bytes received before the stream was attached (payload read while classifying). */
void lp_stream_add_rx_bytes(struct lp_stream *s, uint64_t n);
/* Control thread, once the stream is off its worker: count what the control thread itself
 * sent on it (iperf2's first FIN datagram, which the receiver counts as data). */
void lp_stream_add_tx(struct lp_stream *s, uint64_t bytes, uint64_t packets);
/* The next sequence number a UDP sender would use (read it once the stream is settled). */
static inline uint64_t lp_stream_next_seq(const struct lp_stream *s) { return s->next_seq; }
/* Control thread: account for an event; true once the worker will never touch s again and
 * no request or event of s is queued anywhere. */
bool lp_stream_settle(struct lp_stream *s, enum lp_stream_event ev);
/* Control thread, only once settled (or never attached): close the descriptor and free. */
void lp_stream_free(struct lp_stream *s);

#endif

/* iperf3 wire protocol inside the agent: state shared by the server (lpa_iperf3.c) and the
 * client (lpa_iperf3_client.c). Not part of the public API. */
#ifndef LPA_IPERF3_H
#define LPA_IPERF3_H

#include "lpa_core.h"
#include "lpa_json.h"
#include "wire/iperf3.h"

/* Tests (server tests and clients) that can run at once; each holds a control buffer of
 * LPA_IPERF3_JSON_MAX bytes and LPA_MAX_STREAMS + 1 flows. A listener needs no test slot. */
#ifndef LPA_IPERF3_TESTS
#define LPA_IPERF3_TESTS 2
#endif
#if LPA_IPERF3_TESTS < 1 || LPA_IPERF3_TESTS > LPA_MAX_SESSIONS
#error "LPA_IPERF3_TESTS must be 1..LPA_MAX_SESSIONS"
#endif

#define I3_OMIT_MAX 600u       /* -O: at most 600 s, as iperf3 */
#define I3_STALL_MS 10000u  /* a handshake step that makes no progress for 10 s ends the test */
#define I3_IDLE_MS 30000u      /* a running test that moves no data for 30 s ends */

enum i3_kind { I3_LISTENER = 1, I3_SERVER, I3_CLIENT };
/* What the control reader expects next. */
enum i3_rd { RD_NONE = 0, RD_COOKIE, RD_STATE, RD_LEN, RD_BODY, RD_ERRNO };
/* Where a test is. */
enum i3_phase {
  PH_CONNECTING = 0, /* client: control connection pending */
  PH_COOKIE,         /* server: reading the cookie */
  PH_PARAMS,         /* parameters requested / being sent */
  PH_STREAMS,        /* data streams being connected */
  PH_RUNNING,
  PH_DRAIN,          /* server: TEST_END seen, counting what is still in flight */
  PH_FLUSH,          /* client -n: waiting until the server has acknowledged all data */
  PH_ENDED,          /* TEST_END sent/seen, results not yet exchanged (a receiving client
                      * still counts: PH_COLLECT ends that) */
  PH_COLLECT,        /* client: results asked for; a receiving side first reads what lwIP holds */
  PH_RESULTS,        /* reading the peer's results */
  PH_DISPLAY         /* results exchanged: waiting for DISPLAY_RESULTS / IPERF_DONE */
};

struct i3_stream {
  struct lpa_conn *conn; /* TCP data connection; client UDP: its own endpoint */
  ip_addr_t ip;          /* server UDP: the stream's client address */
  uint16_t port;
  uint8_t ok;            /* client: connected (cookie sent / hello answered) */
  lpa_ms_t hello_ms;     /* client UDP: when the last hello went out */
  struct lpa_flow f;
  struct lpa_flow_mark om; /* -O: the counters when the omitted seconds ended (not counted) */
};

/* One test. Owns its connections (ctrl, streams, udp) until i3_close_all(). */
struct i3_test {
  uint8_t used;
  uint8_t phase, rd;
  uint8_t udp, reverse, use64;
  uint8_t bidir;           /* --bidir: the second half of the streams flows the other way */
  uint8_t dir0;            /* this side's direction on the first `parallel` streams */
  uint8_t rx_seen;         /* a receiver's first data arrived (its clock starts there) */
  uint8_t parallel, nstreams; /* streams per direction asked for (-P); streams connected
                               * (server) or opened (client), up to I3_WANT(t) */
  struct lpa_conn *ctrl;
  struct lpa_conn *udp_ep; /* server UDP: the endpoint on the test port, shared by streams */
  char cookie[LP_I3_COOKIE_SIZE];
  uint8_t hdr[8];
  uint32_t need, have;     /* bytes the current read wants / has */
  uint16_t out_off, out_len;
  uint32_t len;            /* block / datagram size */
  uint32_t time_s;         /* as sent in the parameters */
  uint32_t dur_ms;         /* senders stop after this long (0: no time limit) */
  uint64_t amount;         /* -n, or -k blocks x len; 0: by time */
  uint32_t peer_version;   /* server: the client's, as lp_i3_version_parse() gives it */
  uint64_t rate_bps;       /* per stream */
  uint64_t rx_mark;        /* client PH_COLLECT: the bytes received when the last tick ran */
  lpa_ms_t deadline;       /* handshake steps give up at this time */
  lpa_ms_t run_ms;         /* TEST_RUNNING */
  lpa_ms_t end_ms;         /* the measured part of the test ended */
  lpa_ms_t tx_end;         /* --bidir: this side's sending ended (tx_ended set) */
  uint32_t omit_ms;        /* -O: the time at the start that is not counted */
  lpa_ms_t omit_at;        /* when it ends (omit_wait set) */
  uint8_t tx_ended;        /* tx_end is set */
  uint8_t tails;           /* server, TCP, after TEST_END: data streams send on (srv_send_tails) */
  uint8_t pump_first;      /* the stream lpa_i3_pump() serves first next time (round robin) */
  uint8_t omit_wait;       /* -O: omit_at has not come yet */
  uint8_t omitted;         /* -O: the streams' omit marks (om) are taken */
  uint8_t run_early;       /* client: data came before TEST_RUNNING was read; it started */
  struct lpa_session *parent; /* server test: its listener */
  struct i3_stream st[LPA_MAX_STREAMS];
  struct { /* server TCP: data connections whose cookie is still arriving */
    struct lpa_conn *conn;
    uint8_t have;
  } pend[LPA_MAX_STREAMS];
  struct lpa_flow sum;     /* the first `parallel` streams together: the reports */
  struct lpa_flow sum2;    /* --bidir: the other direction's streams (reported as the
                            * test's second connection, LPA_SECOND) */
  uint8_t buf[LPA_IPERF3_JSON_MAX + 16]; /* JSON in, or what is queued out */
};

/* Per session: what kind it is, the listener's socket and test, or the test's slot. */
struct i3_slot {
  uint8_t kind;
  struct lpa_conn *listen;
  struct lpa_session *test; /* listener: the test it is running */
  struct i3_test *t;
};

extern struct i3_slot lpa_i3[LPA_MAX_SESSIONS];
/* Data streams a test has in all: -P per direction, twice that with --bidir. */
#define I3_WANT(t) ((t)->parallel * ((t)->bidir ? 2 : 1))
/* This side's direction on stream i: the first `parallel` streams go dir0, the rest back. */
/* This side sends on some stream (-R on the server, forward on the client, --bidir). */
#define I3_SENDS(t) ((t)->bidir || (t)->dir0 == LPA_DIR_TX)
/* This side receives on some stream (forward on the server, -R on the client, --bidir). */
#define I3_RECEIVES(t) ((t)->bidir || (t)->dir0 == LPA_DIR_RX)
#define I3_STREAM_DIR(t, i) ((uint8_t)((i) < (t)->parallel ? (t)->dir0 : (t)->dir0 ^ 1u))
#define I3(s) (lpa_i3[(s)->index].t)

struct i3_test *lpa_i3_alloc(struct lpa_session *s, uint8_t kind);
void lpa_i3_close_all(struct lpa_session *s);
void lpa_i3_fail(struct lpa_session *s, uint8_t why); /* why: enum lpa_error */
/* Control channel: queue bytes (sent as the stack takes them). Returns 0, or -1 when they did
 * not fit: then the session has ended (as with every -1 below). */
int lpa_i3_send(struct lpa_session *s, const void *data, size_t n);
int lpa_i3_send_state(struct lpa_session *s, uint8_t state);
void lpa_i3_flush(struct lpa_session *s);
void lpa_i3_expect(struct i3_test *t, uint8_t rd, uint32_t need);
/* Feeds control bytes to the reader; calls back with whole items. Returns 0, or -1 when the
 * session ended inside a callback. */
typedef int (*lpa_i3_item_fn)(struct lpa_session *s, uint8_t rd);
int lpa_i3_feed(struct lpa_session *s, const uint8_t *d, size_t n, lpa_i3_item_fn item);
/* Streams and flows. */
/* TEST_RUNNING: t->dir0, t->bidir and the streams are set. */
void lpa_i3_run(struct lpa_session *s, lpa_ms_t now);
void lpa_i3_sum_sync(struct i3_test *t);
/* Interval reports of the sums that are due (from tick). */
void lpa_i3_intervals(struct lpa_session *s, lpa_ms_t now);
/* --bidir: this side's sending ends now (final report of that half); finish ends the rest. */
void lpa_i3_finish_tx(struct lpa_session *s, lpa_ms_t now);
void lpa_i3_finish(struct lpa_session *s, lpa_ms_t end);
int lpa_i3_pump(struct lpa_session *s, lpa_ms_t now);
void lpa_i3_rx(struct lpa_session *s, struct lpa_flow *f, size_t n, lpa_ms_t now);
void lpa_i3_udp_rx(struct lpa_session *s, struct lpa_flow *f, const uint8_t *d, size_t n,
                   uint32_t arrival_us);
/* Results: queue ours (length + JSON; flush 0 when a state byte follows at once); read the
 * peer's from buf[0..have) as a PEER report per direction. */
int lpa_i3_send_results(struct lpa_session *s, int flush);
lpa_ms_t lpa_i3_tx_end(const struct i3_test *t, lpa_ms_t now);
int lpa_i3_peer_results(struct lpa_session *s);
/* The index of the data stream on connection c, or -1. */
int lpa_i3_find_stream(const struct i3_test *t, const struct lpa_conn *c);
void lpa_i3_report_start(struct lpa_session *s, uint8_t dir);

#if LPA_CLIENT
int lpa_i3_client_start(struct lpa_session *s);
#endif

#endif

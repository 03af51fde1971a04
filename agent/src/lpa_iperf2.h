/* iperf2 wire protocol inside the agent: shared state of the TCP part (lpa_iperf2.c) and the
 * UDP part (lpa_iperf2_udp.c). Not part of the public API.
 *
 * One design for every test, client or server, TCP or UDP: a test has two flows, one from the
 * client to the server and one back (-d, -r, -R, --full-duplex). They are kept as seen from this
 * end, the one it sends (tx) and the one it receives (rx), so the handlers are the same for both
 * roles (and reach either flow at a fixed offset: smaller code than indexing by role): data on
 * the receiving flow's connection is counted, the sending flow is pumped, and the test ends
 * when neither runs and nothing is pending (a header, a connection back, a TCP flush, a UDP FIN
 * exchange). Only how the flows are set up differs by role. */
#ifndef LPA_IPERF2_H
#define LPA_IPERF2_H

#include "lpa_core.h"
#include "wire/bytes.h"
#include "wire/iperf2.h"

/* Header bytes a server keeps for parsing: the 2.1 header (v1 + extension); longer headers
 * are read to their end and the rest skipped. The client builds its header here too. */
#define I2_HDR_KEEP LP_I2_TCP_HDR_LEN
/* A datagram shorter than the prefix and the v1 header cannot start a test. */
#define I2_UDP_MIN_LEN (LP_I2_UDP_PREFIX + LP_I2_V1_LEN)

/* A server test and a client differ in t->server only; the listener has its own kind. */
enum i2_kind { I2_LISTENER = 1, I2_TEST, I2_CLIENT };
/* t->mode: lpa_mode's values, and a server's --full-duplex (TCP: both flows on one connection)
 * and --bounceback (read directly, not through I2_MODE: a build without two-way tests has it). */
#define I2_MODE_FULLDUPLEX 4u
#define I2_MODE_BOUNCEBACK 5u
/* t->phase: START until a client is connected (TCP) or a server has the header; BACK while the
 * flow back is being set up (a server connecting back, a client waiting for it); RUN. A test ends
 * only in RUN. */
enum { I2_START = 0, I2_RUN, I2_BACK };

#if LPA_IPERF2_BOUNCEBACK
/* A --bounceback server test (t->mode I2_MODE_BOUNCEBACK): one message at a time, read whole,
 * held, echoed. The client writes the next only after it has read the echo, so bytes that come
 * while a message is held or being echoed are not a bounceback client's. */
enum { I2_BB_READ = 0, I2_BB_HOLD, I2_BB_WRITE };
struct i2_bb {
  uint8_t state;     /* I2_BB_* */
  uint16_t size;     /* bytes per message, from the first one's size field; 0 until it is in */
  uint16_t have;     /* bytes of the current message read */
  uint16_t sent;     /* bytes of its echo the stack has taken */
  lpa_ms_t due;      /* a held echo goes out at this time */
  uint32_t hold_ms;  /* the first message's hold, rounded up to the agent's clock */
  uint8_t msg[LPA_IPERF2_BB_MAX_LEN];
};
#endif

/* Small fields first: the ones every handler touches sit at offsets a Thumb load or store
 * reaches in 16 bits; the buffers go last. */
struct i2_state {
  uint8_t kind;       /* enum i2_kind; 0: the session has ended */
  uint8_t server;     /* 1 for a server's test: tx is the flow back */
  uint8_t mode;       /* LPA_MODE_* or I2_MODE_FULLDUPLEX */
  uint8_t phase;
  uint8_t flushing;   /* TCP: the sending flow has queued its last byte and shut down (it
                       * runs until the flush ends) */
  /* UDP end of test: a receiver answers FINs with its report (built from the finished flow)
   * for a while; a sender repeats its FIN until a report comes back. */
  uint8_t use64;      /* the sender numbers datagrams with 64 bits */
  uint8_t rx_reports; /* reports sent */
  uint8_t tries;      /* UDP FINs sent; TCP connections back refused */
  uint8_t tx_done;    /* the FIN exchange of our sending flow is over */
  uint16_t dport;     /* where our flow goes on s->peer: UDP datagrams, a server's -d/-r (the
                       * client's port for the flow back, from its request) */
  uint16_t hdr_need;  /* header length once the flags word is in */
  uint16_t hdr_seen;
  struct lpa_session *parent;  /* the listener a test came from */
  struct lpa_conn *conn;       /* TCP test connection / UDP client endpoint */
  struct lpa_conn *back;       /* -d/-r second connection (UDP: the endpoint it uses) */
  struct lpa_conn *tcp_listen, *udp_listen; /* the listener's, or a -d/-r client's */
  lpa_ms_t deadline;  /* the current phase gives up at this time */
  lpa_ms_t rx_linger; /* UDP: keep answering FINs until then */
  lpa_ms_t tx_next;   /* UDP: next FIN or -R request; TCP: the flush gives up */
  struct lpa_flow tx, rx;      /* the flow this end sends, the one it receives */
  uint8_t hdr[I2_HDR_KEEP];
#if LPA_IPERF2_BOUNCEBACK
  struct i2_bb bb;
#endif
};

extern struct i2_state lpa_i2[LPA_MAX_SESSIONS];
#define I2(s) ((struct i2_state *)(s)->state)
/* The test's mode; a build without two-way tests has one, and folds the others away. */
#define I2_MODE(t) (LPA_IPERF2_BIDIR ? (t)->mode : LPA_MODE_ONEWAY)
/* A server's test (not a client): a build with one role folds the other away. */
#define I2_SERVER(t) (LPA_CLIENT && LPA_SERVER ? (t)->server : !LPA_CLIENT)
/* A -R client gives the server's time this much more, from the first data on (its receiving
 * flow's limit_ms, which only such a flow has). */
#define I2_REVERSE_SLOP_MS 2000u
/* The flow back, stream 1 of the reports: -d, -r and --full-duplex (not -R: it is the only one). */
#define I2_BACK_DIR(t) (I2_MODE(t) != LPA_MODE_REVERSE ? LPA_SECOND : 0u)

/* A server's test from the listener ls, or NULL when every session is in use. */
struct lpa_session *lpa_i2_test_new(struct lpa_session *ls, uint8_t proto);
/* A server's test takes the client's request: its mode, where -d/-r go back (dport), and the
 * flow back's limits (tx, not started). */
void lpa_i2_request(struct lpa_session *s, const struct lp_i2_header *rq);
/* A server's flow back starts now on c (TCP -d/-r: once connected). */
void lpa_i2_send_back(struct lpa_session *s, struct lpa_conn *c, lpa_ms_t now);
/* Ends a session whose flows are all done: closes what is open, reports DONE. */
void lpa_i2_close_all(struct lpa_session *s);
void lpa_i2_fail(struct lpa_session *s, uint8_t why); /* why: enum lpa_error */
/* The handlers of every iperf2 session. */
extern const struct lpa_proto_ops lpa_i2_test_ops;

#if LPA_IPERF2_BOUNCEBACK
/* A server's test whose flags word (t->hdr) is a bounceback message's: it echoes from now on. */
void lpa_i2_bb_begin(struct lpa_session *s, lpa_ms_t now);
/* Bytes of the test connection (n 0: the client closed). */
void lpa_i2_bb_recv(struct lpa_session *s, const uint8_t *d, size_t n, lpa_ms_t now);
/* A held echo that is due, an echo the stack had no room for: at each tick and when sendable. */
void lpa_i2_bb_pump(struct lpa_session *s, lpa_ms_t now);
#endif

#if LPA_UDP
/* A UDP client's start: its flows, the first datagrams at the next tick. */
void lpa_i2_udp_start(struct lpa_session *s, lpa_ms_t now);
void lpa_i2_udp_on_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                       const ip_addr_t *from, uint16_t port, uint32_t arrival_us);
void lpa_i2_udp_tick(struct lpa_session *s, lpa_ms_t now);
#endif

#endif

/* iperf2 wire protocol inside the agent: shared state of the TCP part (lpa_iperf2.c) and the
 * UDP part (lpa_iperf2_udp.c). Not part of the public API. */
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

enum i2_kind { I2_LISTENER = 1, I2_TCP_TEST, I2_UDP_TEST, I2_TCP_CLIENT, I2_UDP_CLIENT };

/* Small fields first: the ones every handler touches sit at offsets a Thumb load or store
 * reaches in 16 bits; the buffers go last. */
struct i2_state {
  uint8_t kind;       /* enum i2_kind */
  uint8_t phase;      /* per kind, see the .c files */
  /* UDP end of test: a receiver answers FINs with its report (built from the finished flow)
   * for a while; a sender repeats its FIN until a report comes back. */
  uint8_t use64;           /* the sender numbers datagrams with 64 bits */
  uint8_t rx_reports;      /* reports sent */
  uint8_t tx_fins;         /* FINs sent */
  uint8_t back_tries;      /* TCP -d/-r: connections back refused so far */
  uint8_t tx_done;         /* the FIN exchange of our sending flow is over */
  uint16_t hdr_need;  /* header length once the flags word is in */
  uint16_t hdr_seen;
  struct lpa_session *parent;  /* the listener a test came from */
  struct lpa_conn *conn;       /* TCP test connection / UDP client endpoint */
  struct lpa_conn *back;       /* -d/-r second connection, or the client's listener */
  struct lpa_conn *tcp_listen, *udp_listen;
  lpa_ms_t deadline;           /* the current phase gives up at this time */
  lpa_ms_t rx_linger;      /* keep answering FINs until then */
  lpa_ms_t tx_fin_next;
  struct lp_i2_header req;     /* what the client asks for: read from hdr, or written into it */
  struct lpa_flow fwd;         /* client to server */
  struct lpa_flow rev;         /* server to client (-d, -r, -R) */
  uint8_t hdr[I2_HDR_KEEP];
};

extern struct i2_state lpa_i2[LPA_MAX_SESSIONS];
#define I2(s) ((struct i2_state *)(s)->state)
/* The flow back runs (never in a build without two-way tests: the test folds away). */
#define I2_REV_RUNNING(t) (LPA_IPERF2_BIDIR && (t)->rev.state == LPA_FLOW_RUNNING)

/* Sender limits from a request (server side). */
void lpa_i2_sender_limits(struct lpa_flow *f, const struct lp_i2_header *rq);
/* Ends a session whose flows are all done: closes what is open, reports DONE. */
void lpa_i2_close_all(struct lpa_session *s);
struct lpa_session *lpa_i2_test_new(struct lpa_session *ls, uint8_t proto, uint8_t kind);
/* The handlers of every iperf2 test session (the listener has its own). */
extern const struct lpa_proto_ops lpa_i2_test_ops;
void lpa_i2_fail(struct lpa_session *s, uint8_t why); /* why: enum lpa_error */

#if LPA_UDP
void lpa_i2_udp_client_start(struct lpa_session *s);
void lpa_i2_udp_on_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                       const ip_addr_t *from, uint16_t port, uint32_t arrival_us);
void lpa_i2_udp_tick(struct lpa_session *s, lpa_ms_t now);
void lpa_i2_udp_listener_rx(struct lpa_session *listener, const uint8_t *data, size_t len,
                            const ip_addr_t *from, uint16_t from_port, uint32_t arrival_us);
#endif

#endif

/* iperf2 wire protocol inside the agent: shared state of the TCP part (lpa_iperf2.c) and the
 * UDP part (lpa_iperf2_udp.c). Not part of the public API. */
#ifndef LPA_IPERF2_H
#define LPA_IPERF2_H

#include "lpa_core.h"

/* Flags word (first word of the client header). */
#define I2_VERSION1 0x80000000u  /* -d/-r: the server connects back */
#define I2_EXTEND 0x40000000u    /* extension block present */
#define I2_SEQNO64B 0x08000000u  /* UDP: 64-bit sequence numbers */
#define I2_VERSION2 0x04000000u  /* 2.1 role request (-R, --full-duplex) */
#define I2_PEERDETECT 0x02000000u
#define I2_BOUNCEBACK 0x00800000u
#define I2_LEN_BIT 0x00010000u
#define I2_RUN_NOW 0x00000001u   /* with VERSION1: dual, else tradeoff */
#define I2_UPPER_REVERSE 0x0400u
#define I2_UPPER_FULLDUPLEX 0x0800u

#define I2_TCP_HDR_LEN 60        /* v1 header + 2.1 extension block */
#define I2_UDP_PREFIX 16
#define I2_UDP_HDR_LEN 76        /* prefix + v1 header + extension */
#define I2_UDP_MIN_LEN 40        /* prefix + v1 header: smaller datagrams cannot carry a test */
#define I2_REPORT_LEN 128
#define I2_HDR_KEEP 60           /* header bytes kept for parsing; longer headers are skipped */

/* What a client asks for, read from (or written into) the header. */
struct i2_request {
  uint32_t flags;
  uint16_t upper;
  uint16_t back_port;
  uint32_t buf_len;  /* 0: the receiver's default */
  int32_t amount;    /* < 0: -amount x 10 ms; > 0: bytes */
  uint64_t rate_bps; /* 0: unlimited (TCP) */
};

enum i2_kind { I2_LISTENER = 1, I2_TCP_TEST, I2_UDP_TEST, I2_TCP_CLIENT, I2_UDP_CLIENT };

struct i2_state {
  uint8_t kind;       /* enum i2_kind */
  uint8_t phase;      /* per kind, see the .c files */
  uint16_t hdr_need;  /* header length once the flags word is in */
  uint16_t hdr_seen;
  uint8_t hdr[I2_HDR_KEEP];
  struct i2_request req;
  struct lpa_session *parent;  /* the listener a test came from */
  struct lpa_conn *conn;       /* TCP test connection / UDP client endpoint */
  struct lpa_conn *back;       /* -d/-r second connection, or the client's listener */
  struct lpa_conn *tcp_listen, *udp_listen;
  struct lpa_flow fwd;         /* client to server */
  struct lpa_flow rev;         /* server to client (-d, -r, -R) */
  lpa_ms_t deadline;           /* the current phase gives up at this time */
  /* UDP end of test: a receiver answers FINs with its report for a while; a sender repeats its
   * FIN until a report comes back. */
  uint8_t use64;           /* the sender numbers datagrams with 64 bits */
  uint8_t rx_reports;      /* reports sent */
  uint8_t tx_fins;         /* FINs sent */
  uint8_t back_tries;      /* TCP -d/-r: connections back refused so far */
  uint8_t tx_done;         /* the FIN exchange of our sending flow is over */
  lpa_ms_t rx_linger;      /* keep answering FINs until then */
  lpa_ms_t tx_fin_next;
  uint8_t report[I2_REPORT_LEN];
};

extern struct i2_state lpa_i2[LPA_MAX_SESSIONS];
#define I2(s) ((struct i2_state *)(s)->state)
/* The flow back runs (never in a build without two-way tests: the test folds away). */
#define I2_REV_RUNNING(t) (LPA_IPERF2_BIDIR && (t)->rev.state == LPA_FLOW_RUNNING)

void lpa_i2_put_request(uint8_t *hdr, const struct i2_request *rq);
void lpa_i2_get_request(const uint8_t *hdr, size_t len, struct i2_request *rq);
/* Sender limits from a request (server side) or the config (client side). */
void lpa_i2_sender_limits(struct lpa_flow *f, const struct i2_request *rq);
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

/* Sessions, flows and reports: the protocol-independent part of the agent, shared by the iperf2
 * and iperf3 modules and driven by the back end's events. Not part of the public API. */
#ifndef LPA_CORE_H
#define LPA_CORE_H

#include "lwip/sys.h" /* sys_now(): the default clocks of lpa_opts.h */
#include "lpa.h"
#include "lpa_net.h"

struct lpa_session;

/* Agent time: milliseconds of LPA_NOW_MS() in 32 bits, compared modulo 2^32 with LPA_DUE (the
 * clock may wrap; nothing the agent compares is more than 24 days apart, a test lasts at most
 * a day). 32-bit times are much smaller code on a Cortex-M than 64-bit microseconds, which are
 * kept only where iperf needs them: UDP arrival times for jitter, the senders' stamps. */
typedef uint32_t lpa_ms_t;
#define LPA_DUE(now, t) ((int32_t)((uint32_t)(now) - (uint32_t)(t)) >= 0) /* t has come */
#define LPA_LATER(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0) /* a after b */

/* A protocol module's handlers for one session; any may be NULL. */
struct lpa_proto_ops {
  void (*on_accept)(struct lpa_session *s, struct lpa_conn *c);
  void (*on_connected)(struct lpa_session *s, struct lpa_conn *c, int ok);
  void (*on_recv)(struct lpa_session *s, struct lpa_conn *c, const uint8_t *data, size_t len);
  void (*on_sendable)(struct lpa_session *s, struct lpa_conn *c);
  void (*on_error)(struct lpa_session *s, struct lpa_conn *c);
  void (*on_udp)(struct lpa_session *s, struct lpa_conn *c, const uint8_t *data, size_t len,
                 const ip_addr_t *from, uint16_t from_port, uint32_t arrival_us);
  void (*tick)(struct lpa_session *s, lpa_ms_t now);
  /* lpa_stop(): end the test now (final reports) or close the listener; must end the session. */
  void (*stop)(struct lpa_session *s);
};

/* A listener or one test. Protocol modules keep their own per-session state in arrays indexed
 * by `index`, so this struct does not grow with the protocols compiled in. The order leaves no
 * hole before cfg (8-byte aligned) and keeps the small fields within reach of a Cortex-M's
 * 16-bit loads (bytes up to offset 31, halfwords up to 62). */
struct lpa_session {
  uint8_t used;
  uint8_t index;
  uint16_t peer_port;
  void *state; /* the protocol module's per-session state */
  ip_addr_t peer;
  const struct lpa_proto_ops *ops;
  struct lpa_config cfg;
  lpa_report_fn fn; /* borrowed from the starter (a server's tests inherit it) */
  void *arg;
};

enum lpa_flow_state { LPA_FLOW_IDLE = 0, LPA_FLOW_RUNNING = 1, LPA_FLOW_DONE = 2 };

/* Receive statistics of one UDP flow, as iperf2 and iperf3 compute them. */
struct lpa_udp_rx {
  uint64_t max_seq;        /* highest sequence number seen */
  uint64_t lost_raw;       /* gaps seen, before late arrivals are taken back */
  uint64_t out_of_order;
  uint32_t prev_transit_us; /* arrival - sent stamp, modulo 2^32 */
  uint32_t jitter_us16;    /* running jitter, microseconds x 16 (RFC 1889 filter) */
};

/* A flow's counters at the start of the current interval (reports show the differences). */
struct lpa_flow_mark {
  lpa_ms_t at_ms;
  uint64_t bytes, seq, lost, ooo;
};

/* One direction of data on one connection or UDP endpoint. The fields of 32 bits and less come
 * first, packed, then the 64-bit ones: little padding (144 bytes on a 32-bit target, not 160). */
struct lpa_flow {
  struct lpa_conn *conn;
  uint8_t dir;   /* enum lpa_dir */
  uint8_t proto; /* enum lpa_proto */
  uint8_t state; /* enum lpa_flow_state */
  uint8_t stream; /* lpa_report.stream: 1 for a test's second connection (LPA_SECOND) */
  uint8_t interim; /* interval reports wanted */
  uint8_t omitting; /* iperf3 -O: its interval reports are in the omitted seconds */
  uint16_t head_sent; /* sender: header bytes the caller sent before the flow: on the wire
                       * (limits, pacing) but not in bytes */
  lpa_ms_t start_ms;
  lpa_ms_t last_ms;  /* last data sent or received */
  uint32_t limit_ms; /* sender: stop sending this long after the start (0: no time limit) */
  uint32_t len;      /* sender: bytes per write / datagram */
  uint16_t send_errors; /* sender: UDP datagrams the stack had no buffer for */
  uint8_t udp_seen;  /* UDP receiver: a datagram has come (rx's transit is set). Here, not in
                      * rx: the padding before bytes holds it, at a short offset */
  uint64_t bytes;
  /* sender */
  uint64_t amount;   /* stop after this many bytes (0: no byte limit) */
  uint64_t rate_bps; /* 0: as fast as the stack takes it */
  uint64_t seq;      /* UDP: datagrams sent (make_head numbers the next one seq + 1) */
  struct lpa_udp_rx rx;
  struct lpa_flow_mark ivl; /* last: only the interval code reaches it, at a long offset */
};

/* Sessions. new: NULL when all LPA_MAX_SESSIONS are in use. end: reports DONE, frees. */
struct lpa_session *lpa_session_new(const struct lpa_config *cfg, lpa_report_fn fn, void *arg);
void lpa_session_end(struct lpa_session *s);
/* The session table, for walking it (a slot is in use when used is set); a protocol module's
 * state array has the same indexes. */
extern struct lpa_session lpa_sessions[LPA_MAX_SESSIONS];
#define lpa_now_ms() ((lpa_ms_t)LPA_NOW_MS())

/* Reports: fills session, dialect, proto and peer, then calls the session's callback. */
void lpa_report_emit(struct lpa_session *s, struct lpa_report *r);
/* A report without numbers: ERROR (enum lpa_error), DONE. */
void lpa_report_simple(struct lpa_session *s, uint8_t kind, uint8_t error);
/* Or'ed into the dir argument of lpa_flow_init: the flow is the test's second connection
 * (iperf2 -d/-r back, --full-duplex), reported with stream 1. */
#define LPA_SECOND 2u
#define lpa_report_error(s, error) lpa_report_simple((s), LPA_REPORT_ERROR, (error))

/* Flows. start: the clock of the flow begins (interval reports count from the session start).
 * A sender's limits: limit_ms / amount / rate_bps / len set by the caller. */
void lpa_flow_init(struct lpa_flow *f, struct lpa_conn *c, uint8_t dir, uint8_t proto);
void lpa_flow_start(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now);
/* start, then a START report of the flow's direction and stream. */
void lpa_flow_begin(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now);
/* Sender, for a RUNNING flow only (every caller checks: no second test here): TCP writes until
 * the stack is full; UDP sends the datagrams due by now, each with the head built by make_head
 * (which returns its length, at most LPA_UDP_HEAD_MAX, with the sender's stamp from
 * LPA_WALL_US()) to to:to_port (NULL: the connected peer). Both stop when the rate says wait or
 * a limit is reached. Returns 1 when the flow has sent everything it will send, 0 otherwise, -1
 * on a broken TCP connection. TCP callers pass NULL, NULL, NULL, 0. */
typedef size_t (*lpa_udp_head_fn)(void *ctx, struct lpa_flow *f, uint8_t *head);
int lpa_flow_pump(struct lpa_flow *f, lpa_ms_t now, lpa_udp_head_fn make_head, void *ctx,
                  const ip_addr_t *to, uint16_t to_port);
/* Receivers. */
void lpa_flow_rx(struct lpa_flow *f, size_t bytes, lpa_ms_t now);
/* A UDP datagram: seq counts from 1 (iperf2 and iperf3); sent_us is the sender's stamp and
 * arrival_us ours, both modulo 2^32 (only transit differences count). lpa_flow_rx counts its
 * bytes. */
void lpa_flow_udp_rx(struct lpa_flow *f, uint64_t seq, uint32_t sent_us, uint32_t arrival_us);
/* Lost datagrams as iperf reports them: gaps minus late arrivals, never negative. */
uint64_t lpa_udp_lost(const struct lpa_udp_rx *rx);
/* Emits an interval report when the flow's interval has elapsed (call from tick). */
void lpa_flow_interval(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now);
/* Emits a report of the flow's counters: INTERVAL (since the last one, which it starts), START,
 * FINAL or PEER (the whole flow, from start_ms to end). A PEER report is what the peer measured:
 * its numbers are put into the finished flow first (bytes, seq or rx, start_ms 0, end its
 * duration). */
void lpa_flow_report(struct lpa_session *s, struct lpa_flow *f, uint8_t kind, lpa_ms_t end);
/* Emits the last partial interval (if any) and the final report; the flow becomes DONE. */
void lpa_flow_finish(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t end);

/* Events from the back end (lpa_net.h): owner is the session that opened (or accepted) the
 * connection. Each goes to the session's handler when it has one: a free session has no ops
 * (lpa_session_end clears them), so ops alone says it is live; the back ends never give a NULL
 * owner. Inline, so that a back end's callback calls the handler itself: a function here would
 * only pass its arguments on, and reload the ones that go on the stack. */
#define LPA_LIVE(s, h) ((s)->ops != NULL && (s)->ops->h != NULL)
static inline void lpa_core_on_accept(void *owner, struct lpa_conn *c) {
  struct lpa_session *s = (struct lpa_session *)owner;
  if (LPA_LIVE(s, on_accept)) s->ops->on_accept(s, c);
  else lpa_net_close(c);
}
/* lwIP turned a connection to this listener away (no pcb or netconn left): the client saw a
 * reset or no answer, and the board's user needs to know why. Only a live listener's
 * connection hears of a refusal: a listener ends with its session. */
static inline void lpa_core_on_refused(void *owner) {
  lpa_report_error((struct lpa_session *)owner, LPA_ERR_NO_PCB);
}
static inline void lpa_core_on_connected(void *owner, struct lpa_conn *c, int ok) {
  struct lpa_session *s = (struct lpa_session *)owner;
  if (LPA_LIVE(s, on_connected)) s->ops->on_connected(s, c, ok);
  else if (ok) lpa_net_close(c);
}
/* TCP data; len == 0: the peer closed its side (FIN). */
static inline void lpa_core_on_recv(void *owner, struct lpa_conn *c, const uint8_t *data,
                                    size_t len) {
  struct lpa_session *s = (struct lpa_session *)owner;
  if (LPA_LIVE(s, on_recv)) s->ops->on_recv(s, c, data, len);
}
static inline void lpa_core_on_sendable(void *owner, struct lpa_conn *c) {
  struct lpa_session *s = (struct lpa_session *)owner;
  if (LPA_LIVE(s, on_sendable)) s->ops->on_sendable(s, c);
}
/* The connection broke (reset, timeout); c is already gone. */
static inline void lpa_core_on_error(void *owner, struct lpa_conn *c) {
  struct lpa_session *s = (struct lpa_session *)owner;
  if (LPA_LIVE(s, on_error)) s->ops->on_error(s, c);
}
/* UDP datagram of len bytes; data holds at least its first min(len, LPA_UDP_HEAD_MAX) bytes
 * contiguously (the headers the protocols read); arrival_us is LPA_NOW_US() at reception
 * (modulo 2^32: jitter needs differences only). */
static inline void lpa_core_on_udp(void *owner, struct lpa_conn *c, const uint8_t *data,
                                   size_t len, const ip_addr_t *from, uint16_t from_port,
                                   uint32_t arrival_us) {
  struct lpa_session *s = (struct lpa_session *)owner;
  if (LPA_LIVE(s, on_udp)) s->ops->on_udp(s, c, data, len, from, from_port, arrival_us);
}

/* Every LPA_TICK_MS (and whenever convenient): timers, pacing, interval reports. Inline, as the
 * events: each back end calls it from one place. */
static inline void lpa_core_tick(void) {
  lpa_ms_t now = lpa_now_ms();
  struct lpa_session *s;
  for (s = lpa_sessions; s < lpa_sessions + LPA_MAX_SESSIONS; s++)
    if (LPA_LIVE(s, tick)) s->ops->tick(s, now);
}

/* Protocol modules: start a server or client for s->cfg (set s->ops); 0 or LPA_E*. */
int lpa_iperf2_start(struct lpa_session *s);
int lpa_iperf3_start(struct lpa_session *s);

#endif

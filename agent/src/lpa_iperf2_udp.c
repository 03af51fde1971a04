/* iperf2 over UDP: a server's tests (demultiplexed by the listener on the client's address and
 * port), the paced sender, the datagrams' heads, and the FIN / server-report exchange that ends
 * a flow (-R has none). The rest of a test is lpa_iperf2.c's, as for TCP. */
#include <string.h>

#include "lpa_iperf2.h"

#if LPA_UDP

#define FIN_GAP_MS 10u         /* a sender repeats its FIN every 10 ms ... */
#define FIN_TRIES 200          /* ... for 2 s, as iperf2 does */
#define REQUEST_GAP_MS 20u     /* a -R client repeats its request until data comes */
#define REPORT_LINGER_MS 500u  /* a receiver answers late FINs for this long */
#define REPORTS_MAX 9

/* The start of the datagram f sends next, numbered f->seq + 1 (f->seq counts those sent; for
 * a FIN it is negative already: lpa_i2_udp_tick): the prefix, and a client's header after it
 * as far as the datagram has room (it goes in every datagram, as iperf2's does; a server's
 * flow back carries none, like iperf2's). Returns its length. */
static size_t head_seq(void *ctx, struct lpa_flow *f, uint8_t *h) {
  const struct i2_state *t = (const struct i2_state *)ctx;
  size_t n = LP_I2_UDP_HDR_END < f->len ? LP_I2_UDP_HDR_END : f->len;
  uint64_t now = LPA_WALL_US();
  lp_i2_udp_prefix_put(h, (int64_t)(f->seq + 1), (uint32_t)(now / 1000000u),
                       (uint32_t)(now % 1000000u));
  if (I2_SERVER(t)) return LP_I2_UDP_PREFIX;
  memcpy(h + LP_I2_UDP_PREFIX, t->hdr, n - LP_I2_UDP_PREFIX);
  return n;
}

/* Sends f's next head (whole datagram of f's length) where f sends. */
static void send_seq(struct lpa_session *s, struct lpa_flow *f) {
  struct i2_state *t = I2(s);
  uint8_t h[LP_I2_UDP_HDR_END];
  (void)lpa_net_udp_send(f->conn, h, head_seq(t, f, h), f->len, &s->peer, t->dport);
}

/* A receiver's report on its finished flow f: sent back through its endpoint to from:port. */
static void report_send(const struct lpa_flow *f, const ip_addr_t *from, uint16_t port) {
  struct lp_i2_report r;
  uint8_t out[LP_I2_REPORT_LEN];
  uint32_t dur = f->last_ms - f->start_ms; /* ms */
  uint32_t j = f->rx.jitter_us16 / 16;
  r.flags = 0; /* the codec's default; it reads only the counts set here, not the transit */
  r.bytes = f->bytes;
  r.stop_sec = dur / 1000u;
  r.stop_usec = dur % 1000u * 1000u;
  r.errors = lpa_udp_lost(&f->rx);
  r.out_of_order = f->rx.out_of_order;
  r.datagrams = f->rx.max_seq;
  r.jitter_sec = j / 1000000u;
  r.jitter_usec = j % 1000000u;
  lp_i2_report_encode_counts(out, &r);
  (void)lpa_net_udp_send(f->conn, out, LP_I2_REPORT_LEN, LP_I2_REPORT_LEN, from, port);
}

/* The peer's report on our sending flow f: its numbers replace ours in f (finished, its final
 * report out) and go out as a PEER report. Returns 0 when d is no report, or one whose duration
 * is absurd. */
static int report_parse(struct lpa_session *s, struct lpa_flow *f, const uint8_t *d, size_t n) {
  struct lp_i2_report r;
  if (!lp_i2_report_decode_counts(d, n, &r) || r.stop_sec > 86400u * 30u || r.stop_usec >= 1000000u)
    return 0;
  f->bytes = r.bytes;
  f->rx.out_of_order = r.out_of_order;
  f->rx.lost_raw = r.errors + r.out_of_order; /* lost, as reported */
  f->seq = r.datagrams; /* a sender's report counts datagrams in seq */
  f->rx.jitter_us16 = (r.jitter_sec * 1000000u + r.jitter_usec) * 16u;
  f->start_ms = 0;
  lpa_flow_report(s, f, LPA_REPORT_PEER, r.stop_sec * 1000u + r.stop_usec / 1000u);
  return 1;
}

/* A server's flow back on an endpoint of its own (-d/-r), to the client's port for it. */
static void send_back_open(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  t->back = lpa_net_udp_open(0, &s->peer, t->dport, s);
  if (t->back == NULL) lpa_i2_fail(s, LPA_ERR_BACK_OPEN);
  else lpa_i2_send_back(s, t->back, now);
}

/* Receiver: one datagram on the endpoint of our receiving flow f. A FIN ends the flow and
 * is answered with its report (not with -R: iperf2 has no FIN exchange there). */
static void rx_datagram(struct lpa_session *s, struct lpa_flow *f, const uint8_t *d, size_t n,
                        const ip_addr_t *from, uint16_t port, uint32_t arrival_us) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  int64_t seq; /* negative: a FIN, numbered as the datagram after the last */
  uint32_t sec, usec;
  int fin;
  if (!lp_i2_udp_prefix_get(d, n, t->use64 != 0, &seq, &sec, &usec)) return;
  fin = seq < 0;
  if (f->state != LPA_FLOW_DONE) { /* idle or running: this datagram is data */
    if (f->state == LPA_FLOW_IDLE) {
      if (fin) return; /* the end of an earlier test */
      lpa_flow_begin(s, f, now);
      t->phase = I2_RUN; /* a client's flow back has come */
    }
    /* The send time modulo 2^32 us: jitter needs differences only. */
    lpa_flow_udp_rx(f, fin ? 0u - (uint64_t)seq : (uint64_t)seq, sec * 1000000u + usec, arrival_us);
    lpa_flow_rx(f, n, now);
    if (!fin) return;
    lpa_flow_finish(s, f, now);
    if (I2_SERVER(t) && I2_MODE(t) == LPA_MODE_TRADEOFF) send_back_open(s, now);
  }
  /* Here f is done: it was, or this FIN has finished it. */
  if (I2_MODE(t) != LPA_MODE_REVERSE && t->rx_reports < REPORTS_MAX && s->used) {
    /* Built again for every FIN answered: the finished flow no longer changes, and a stack
     * buffer costs no static RAM per session. */
    report_send(f, from, port);
    t->rx_reports++;
    t->rx_linger = now + REPORT_LINGER_MS;
  }
}

/* A client's start: its flows (a -R client's sending flow is done from the start, its request
 * repeated by the tick). */
void lpa_i2_udp_start(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  t->phase = I2_RUN;
  t->use64 = 1; /* our header says so */
  if (I2_MODE(t) == LPA_MODE_REVERSE) {
    t->tx.state = LPA_FLOW_DONE;
    t->tx_done = 1;
  } else {
    lpa_flow_begin(s, &t->tx, now);
  }
}

#if LPA_SERVER
/* A server's new test: the first datagram's header (d, n) says what it is; use64: its flags
 * say 64-bit numbers (the listener has read them already). Its data comes on c, the
 * listener's endpoint. */
static void server_start(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                         int use64, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lp_i2_header hdr, *rq = &hdr;
  t->phase = I2_RUN;
  t->use64 = (uint8_t)use64;
  /* rx is a zeroed TCP receiver (lpa_i2_test_new): a UDP one on c is that with its proto and
   * connection set (smaller than initialising it again). */
  t->rx.conn = c;
  t->rx.proto = LPA_PROTO_UDP;
  if (!LPA_IPERF2_BIDIR) return; /* the header is for a flow of ours (-d, -r, -R) */
  (void)lp_i2_header_decode_core(d + LP_I2_UDP_PREFIX, n - LP_I2_UDP_PREFIX, rq);
  if (rq->rate_bps == 0) rq->rate_bps = 1048576u;
  /* A length out of LP_I2_UDP_PREFIX..LPA_UDP_MAX_LEN (0: the client's default) is iperf2's. */
  if (rq->buflen - LP_I2_UDP_PREFIX > LPA_UDP_MAX_LEN - LP_I2_UDP_PREFIX) rq->buflen = 1470;
  lpa_i2_request(s, rq);
  if (I2_MODE(t) == I2_MODE_FULLDUPLEX) t->mode = LPA_MODE_ONEWAY; /* TCP only */
  if (I2_MODE(t) == LPA_MODE_REVERSE) {
    /* We send to the client's own port; its header datagrams are not data. */
    t->rx.state = LPA_FLOW_DONE;
    lpa_i2_send_back(s, t->rx.conn, now);
  }
  if (I2_MODE(t) == LPA_MODE_DUAL) send_back_open(s, now);
}

/* The listener: a datagram goes to the test of its sender, a new one when it is none's. c is
 * the listener's endpoint (udp_listen: the only one a listener has). */
static void listener_rx(struct lpa_session *ls, struct lpa_conn *c, const uint8_t *d, size_t n,
                        const ip_addr_t *from, uint16_t port, uint32_t arrival_us) {
  struct lpa_session *s = NULL;
  lpa_ms_t now = lpa_now_ms();
  int i;
  for (i = 0; i < LPA_MAX_SESSIONS; i++) {
    /* A UDP test of this listener from from:port: an iperf2 state's kind is 0 once its session
     * has ended (lpa_i2_close_all), and slot i of lpa_i2 belongs to session i. */
    struct lpa_session *o = &lpa_sessions[i];
    if (lpa_i2[i].kind == I2_TEST && lpa_i2[i].parent == ls && o->cfg.proto == LPA_PROTO_UDP &&
        o->peer_port == port && ip_addr_cmp(&o->peer, from)) {
      s = o;
      break;
    }
  }
  if (s == NULL) {
    /* Not the start of a test: too short for a header, or a FIN (numbered as the header says),
     * the end of an earlier test. */
    int64_t seq;
    uint32_t sec, usec;
    int use64;
    if (n < I2_UDP_MIN_LEN) return;
    use64 = (lp_i2_udp_flags(d, n) & LP_I2_SEQNO64B) != 0;
    if (lp_i2_udp_prefix_get(d, n, use64, &seq, &sec, &usec) && seq < 0) return;
    s = lpa_i2_test_new(ls, LPA_PROTO_UDP);
    if (s == NULL) return; /* busy: the client gets no report and says so */
    ip_addr_copy(s->peer, *from);
    s->peer_port = I2(s)->dport = port; /* -R sends there */
    server_start(s, c, d, n, use64, now);
    if (!s->used) return;
  }
  lpa_i2_udp_on_udp(s, c, d, n, from, port, arrival_us);
}
#endif

void lpa_i2_udp_on_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                       const ip_addr_t *from, uint16_t port, uint32_t arrival_us) {
  struct i2_state *t = I2(s);
  struct lpa_flow *rx = &t->rx, *tx = &t->tx;
#if LPA_SERVER
  if (t->kind == I2_LISTENER) {
    listener_rx(s, c, d, n, from, port, arrival_us);
    return;
  }
#endif
  if (rx->conn == c)
    rx_datagram(s, rx, d, n, from, port, arrival_us);
  else if (tx->state == LPA_FLOW_DONE && !t->tx_done && report_parse(s, tx, d, n))
    t->tx_done = 1;
}

/* Sender: datagrams at the flow's rate; after the limit FINs until the peer's report comes
 * (-R: one FIN, no exchange). A -R client repeats its request until the data comes (its
 * sending flow is done from the start, its exchange over). */
void lpa_i2_udp_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lpa_flow *tx = &t->tx;
  int reverse = I2_MODE(t) == LPA_MODE_REVERSE;
  lpa_ms_t gap = FIN_GAP_MS;
  if (tx->state == LPA_FLOW_RUNNING) {
    if (lpa_flow_pump(tx, now, head_seq, t, &s->peer, t->dport)) {
      lpa_flow_finish(s, tx, now);
      /* Its final report has the count: from here on seq + 1 numbers the FINs, negated, as
       * on the wire (the peer's report replaces it). ~count is -count - 1: the first FIN,
       * after the tick's seq--, is -(count + 1). */
      tx->seq = ~tx->seq;
    }
    return;
  }
  if (!LPA_DUE(now, t->tx_next)) return;
  if (reverse && !I2_SERVER(t)) {
    if (t->rx.state != LPA_FLOW_IDLE) return;
    /* iperf2 repeats datagram 1: seq stays 0 (this flow never sends: lpa_i2_udp_start). */
    gap = REQUEST_GAP_MS;
  } else {
    if (tx->state != LPA_FLOW_DONE || t->tx_done) return;
    if (t->tries >= FIN_TRIES) {
      lpa_report_error(s, LPA_ERR_NO_REPORT);
      t->tx_done = 1;
      return;
    }
    tx->seq--; /* like iperf2: every FIN carries the next number, negated (seq is already) */
    t->tries++;
  }
  send_seq(s, tx);
  t->tx_next = now + gap;
  if (reverse) t->tx_done = 1; /* -R: one FIN (a -R client's exchange is over already) */
}

#endif

/* iperf2 over UDP: the server side of a test (demultiplexed by the listener on the client's
 * address and port), the paced client, -d/-r flows back, -R, and the FIN / server-report
 * exchange that ends a UDP test. */
#include <string.h>

#include "lwip/sys.h"
#include "lpa_iperf2.h"

#if LPA_UDP

#define FIN_GAP_MS 10u           /* a sender repeats its FIN every 10 ms ... */
#define FIN_TRIES 200            /* ... for 2 s, as iperf2 does */
#define REPORT_LINGER_MS 500u    /* a receiver answers late FINs for this long */
#define REPORTS_MAX 9
#define UDP_IDLE_MS 30000u

/* Sequence number of a datagram; returns 1 for a FIN (negative number, absolute value in seq). */
static int parse_seq(int use64, const uint8_t *d, uint64_t *seq) {
  uint32_t id = lpa_get32(d), id2 = lpa_get32(d + 12);
  int64_t v = id2 == 0xFFFFFFFFu || use64 ? (int64_t)(((uint64_t)id2 << 32) | id)
                                           : (int64_t)(int32_t)id;
  *seq = (uint64_t)(v < 0 ? -v : v);
  return v < 0;
}

static size_t put_prefix(uint8_t *h, int64_t seq) {
  uint64_t now = LPA_WALL_US();
  lpa_put32(h, (uint32_t)seq);
  lpa_put32(h + 4, (uint32_t)(now / 1000000u));
  lpa_put32(h + 8, (uint32_t)(now % 1000000u));
  lpa_put32(h + 12, (uint32_t)((uint64_t)seq >> 32));
  return I2_UDP_PREFIX;
}

/* The server report, built as host-order words and written big-endian in one loop (smaller
 * than a store per field). */
static void report_build(uint8_t *r, const struct lpa_flow *f) {
  uint32_t w[I2_REPORT_LEN / 4];
  uint32_t dur = f->last_ms - f->start_ms; /* ms */
  uint64_t lost = lpa_udp_lost(&f->rx), pkts = f->rx.max_seq, ooo = f->rx.out_of_order;
  uint32_t j = f->rx.jitter_us16 / 16;
  int i;
  memset(w, 0, sizeof(w));
  w[4] = I2_VERSION1 | I2_SEQNO64B;
  w[5] = (uint32_t)(f->bytes >> 32);
  w[6] = (uint32_t)f->bytes;
  w[7] = dur / 1000u;
  w[8] = dur % 1000u * 1000u;
  w[9] = (uint32_t)lost;
  w[10] = (uint32_t)ooo;
  w[11] = (uint32_t)pkts;
  w[12] = j / 1000000u;
  w[13] = j % 1000000u;
  /* Six (s, us) transit pairs fill words 14..25 (zero: no trip-times), so cntTransit is word
   * 26 (byte 104), cntIPG 27, IPGsum 28 and the high words 29..31 (bytes 116..127) -- what a
   * stock 2.1.8 client reads (protocols/iperf2.md's table puts them 4 bytes early). */
  w[27] = dur != 0 ? (uint32_t)(pkts * 1000u / dur) : 0;
  w[28] = 1;
  w[29] = (uint32_t)(lost >> 32);
  w[30] = (uint32_t)(ooo >> 32);
  w[31] = (uint32_t)(pkts >> 32);
  for (i = 0; i < I2_REPORT_LEN / 4; i++) lpa_put32(r + 4 * i, w[i]);
}

/* The peer's report on our sending flow f. Reads the 2.0.13+ layout (at +16) or the
 * 2.0.5-era one (at +12); anything else is not a report. Words: flags, bytes high, bytes low,
 * seconds, microseconds, lost, out of order, datagrams, jitter s, jitter us; 2.0.13+ with
 * 64-bit sequence numbers adds the high words of lost, out of order, datagrams at 116. The
 * numbers replace ours in f (finished, its final report out) and go out as a PEER report. */
static int report_parse(struct lpa_session *s, struct lpa_flow *f, const uint8_t *d, size_t n) {
  uint32_t w[13];
  size_t at;
  int i;
  if (n >= 16 + 40 && (lpa_get32(d + 16) & I2_VERSION1)) at = 16;
  else if (n >= 12 + 40 && (lpa_get32(d + 12) & I2_VERSION1)) at = 12;
  else return 0;
  for (i = 0; i < 10; i++) w[i] = lpa_get32(d + at + 4 * i);
  for (i = 10; i < 13; i++)
    w[i] = at == 16 && n >= I2_REPORT_LEN && (w[0] & I2_SEQNO64B) ? lpa_get32(d + 76 + 4 * i) : 0;
  if (w[3] > 86400u * 30u || w[4] >= 1000000u) return 0;
  f->bytes = ((uint64_t)w[1] << 32) | w[2];
  f->rx.out_of_order = ((uint64_t)w[11] << 32) | w[6];
  f->rx.lost_raw = (((uint64_t)w[10] << 32) | w[5]) + f->rx.out_of_order; /* lost, as reported */
  f->seq = ((uint64_t)w[12] << 32) | w[7]; /* a sender's report counts datagrams in seq */
  f->rx.jitter_us16 = (w[8] * 1000000u + w[9]) * 16u;
  f->start_ms = 0;
  lpa_flow_report(s, f, LPA_REPORT_PEER, w[3] * 1000u + w[4] / 1000u);
  return 1;
}

/* Receiver: one datagram of flow f; the report goes back through c to from:port (c NULL: no
 * report, as for -R where iperf2 has no FIN exchange). */
static void rx_datagram(struct lpa_session *s, struct lpa_flow *f, struct lpa_conn *c,
                        const uint8_t *d, size_t n, const ip_addr_t *from, uint16_t port,
                        uint32_t arrival_us) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  uint64_t seq;
  int fin;
  if (n < I2_UDP_PREFIX) return;
  fin = parse_seq(t->use64, d, &seq);
  if (f->state == LPA_FLOW_IDLE) {
    if (fin) return; /* the end of an earlier test */
    lpa_report_start(s, LPA_DIR_RX | (f->stream ? LPA_SECOND : 0));
    lpa_flow_start(s, f, now);
  }
  if (f->state == LPA_FLOW_RUNNING) {
    lpa_flow_udp_rx(f, seq, lpa_get32(d + 4) * 1000000u + lpa_get32(d + 8), arrival_us);
    lpa_flow_rx(f, n, now);
    if (!fin) return;
    lpa_flow_finish(s, f, now);
    report_build(t->report, f);
  }
  if (f->state == LPA_FLOW_DONE && c != NULL && t->rx_reports < REPORTS_MAX) {
    (void)lpa_net_udp_send(c, t->report, I2_REPORT_LEN, I2_REPORT_LEN, from, port);
    t->rx_reports++;
    t->rx_linger = now + REPORT_LINGER_MS;
  }
}

static size_t data_head(void *ctx, struct lpa_flow *f, uint8_t *h) {
  struct i2_state *t = ctx;
  size_t n = I2_UDP_HDR_LEN < f->len ? I2_UDP_HDR_LEN : f->len;
  put_prefix(h, (int64_t)f->seq);
  if (t->kind == I2_UDP_CLIENT) memcpy(h + I2_UDP_PREFIX, t->hdr, n - I2_UDP_PREFIX);
  else n = I2_UDP_PREFIX; /* a server's flow back carries no header, like iperf2's */
  return n;
}

/* Sender: after the limit, FINs (the client's own, or the server's on a flow back) until the
 * peer's report arrives. Returns 1 when the exchange is over. */
static int tx_fin_step(struct lpa_session *s, struct lpa_flow *f, const ip_addr_t *to,
                       uint16_t port, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  uint8_t h[I2_UDP_HDR_LEN];
  size_t n;
  if (t->tx_done) return 1;
  if (!LPA_DUE(now, t->tx_fin_next)) return 0;
  if (t->tx_fins >= FIN_TRIES) {
    lpa_report_error(s, LPA_ERR_NO_REPORT);
    t->tx_done = 1;
    return 1;
  }
  f->seq++; /* like iperf2: every FIN carries the next number, negated */
  n = data_head(t, f, h);
  put_prefix(h, -(int64_t)f->seq);
  (void)lpa_net_udp_send(f->conn, h, n, f->len, to, port);
  t->tx_fins++;
  t->tx_fin_next = now + FIN_GAP_MS;
  return 0;
}

static void udp_sender_tick(struct lpa_session *s, struct lpa_flow *f, const ip_addr_t *to,
                            uint16_t port, int fin_exchange, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  if (f->state == LPA_FLOW_RUNNING) {
    if (lpa_flow_pump(f, now, data_head, t, to, port)) lpa_flow_finish(s, f, now);
  } else if (f->state == LPA_FLOW_DONE && !t->tx_done) {
    if (fin_exchange) {
      (void)tx_fin_step(s, f, to, port, now);
    } else { /* -R: one FIN, no exchange */
      uint8_t h[I2_UDP_PREFIX];
      put_prefix(h, -(int64_t)(f->seq + 1));
      (void)lpa_net_udp_send(f->conn, h, sizeof(h), f->len, to, port);
      t->tx_done = 1;
    }
  }
}


#if LPA_SERVER
/* ---- server side of a UDP test ---- */


static void udp_test_begin(struct lpa_session *s, const uint8_t *d, size_t n, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct i2_request *rq = &t->req;
  lpa_i2_get_request(d + I2_UDP_PREFIX, n - I2_UDP_PREFIX, rq);
  t->use64 = (rq->flags & I2_SEQNO64B) != 0;
  if (!LPA_IPERF2_BIDIR) return; /* the rest is for a flow of ours (-d, -r, -R) */
  if (rq->rate_bps == 0) rq->rate_bps = 1048576u;
  if (rq->buf_len == 0 || rq->buf_len > LPA_UDP_MAX_LEN) rq->buf_len = 1470;
  if (rq->buf_len < I2_UDP_PREFIX) rq->buf_len = I2_UDP_PREFIX;
  if ((rq->flags & I2_VERSION2) && (rq->upper & I2_UPPER_REVERSE)) {
    /* -R: we send to the client's own port; its header datagrams are not data. */
    lpa_flow_open(s, &t->rev, I2(t->parent)->udp_listen, LPA_DIR_TX, LPA_PROTO_UDP, now);
    lpa_i2_sender_limits(&t->rev, rq);
    t->fwd.state = LPA_FLOW_DONE;
    t->rx_linger = now;
  }
}

static void udp_start_back(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  t->back = lpa_net_udp_open(0, &s->peer, t->req.back_port, s);
  if (t->back == NULL) {
    lpa_i2_fail(s, LPA_ERR_BACK_OPEN);
    return;
  }
  lpa_flow_open(s, &t->rev, t->back, LPA_DIR_TX | LPA_SECOND, LPA_PROTO_UDP, now);
  lpa_i2_sender_limits(&t->rev, &t->req);
}

void lpa_i2_udp_listener_rx(struct lpa_session *ls, const uint8_t *d, size_t n,
                            const ip_addr_t *from, uint16_t port, uint32_t arrival_us) {
  struct lpa_session *s = NULL;
  struct i2_state *t;
  lpa_ms_t now = lpa_now_ms();
  uint64_t seq;
  int i;
  for (i = 0; i < LPA_MAX_SESSIONS; i++) {
    /* A UDP test of this listener from from:port: an iperf2 state's kind is 0 once its session
     * has ended (lpa_i2_close_all), and slot i of lpa_i2 belongs to session i. */
    struct lpa_session *o = &lpa_sessions[i];
    if (lpa_i2[i].kind == I2_UDP_TEST && lpa_i2[i].parent == ls && o->peer_port == port &&
        ip_addr_cmp(&o->peer, from)) {
      s = o;
      break;
    }
  }
  if (s == NULL) {
    if (n < I2_UDP_MIN_LEN || parse_seq(0, d, &seq)) return; /* not the start of a test */
    s = lpa_i2_test_new(ls, LPA_PROTO_UDP, I2_UDP_TEST);
    if (s == NULL) return; /* busy: the client gets no report and says so */
    t = I2(s);
    ip_addr_copy(s->peer, *from);
    s->peer_port = port;
    t->fwd.proto = LPA_PROTO_UDP; /* a zeroed flow (state_new) is an idle receiver */
    udp_test_begin(s, d, n, now);
    if (LPA_IPERF2_BIDIR && (t->req.flags & I2_VERSION1) && (t->req.flags & I2_RUN_NOW))
      udp_start_back(s, now);
  }
  t = I2(s);
  if (LPA_IPERF2_BIDIR && t->fwd.state == LPA_FLOW_DONE && t->rev.state != LPA_FLOW_IDLE &&
      t->rev.conn != t->back)
    return; /* -R: the client's header datagrams */
  rx_datagram(s, &t->fwd, I2(ls)->udp_listen, d, n, from, port, arrival_us);
  if (LPA_IPERF2_BIDIR && t->fwd.state == LPA_FLOW_DONE && (t->req.flags & I2_VERSION1) &&
      !(t->req.flags & I2_RUN_NOW) && t->rev.state == LPA_FLOW_IDLE)
    udp_start_back(s, now); /* tradeoff: our turn */
}

static void udp_test_on_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                            const ip_addr_t *from, uint16_t port, uint32_t at) {
  struct i2_state *t = I2(s);
  (void)from;
  (void)port;
  (void)at;
  if (c == t->back && t->rev.state == LPA_FLOW_DONE && !t->tx_done && report_parse(s, &t->rev, d, n))
    t->tx_done = 1;
}

static void udp_test_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  int reverse = t->rev.conn != NULL && t->rev.conn != t->back;
  if (LPA_IPERF2_BIDIR)
    udp_sender_tick(s, &t->rev, reverse ? &s->peer : NULL, reverse ? s->peer_port : 0, !reverse,
                    now);
  if (!s->used || t->kind == 0) return;
  if (t->fwd.state == LPA_FLOW_RUNNING && now - t->fwd.last_ms > UDP_IDLE_MS) {
    lpa_i2_fail(s, LPA_ERR_IDLE);
    return;
  }
  /* Done once late FINs are answered and our flow (if any) has had its report; a -d/-r test
   * waits for its tradeoff turn, unless this build has no two-way tests. */
  if (t->fwd.state == LPA_FLOW_DONE && LPA_DUE(now, t->rx_linger) &&
      (!LPA_IPERF2_BIDIR || ((t->rev.state == LPA_FLOW_IDLE || t->tx_done) &&
                             !((t->req.flags & I2_VERSION1) && t->rev.state == LPA_FLOW_IDLE))))
    lpa_i2_close_all(s);
}


#endif /* LPA_SERVER */

#if LPA_CLIENT
/* ---- client ---- */

static void udp_client_on_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d,
                              size_t n, const ip_addr_t *from, uint16_t port, uint32_t at) {
  struct i2_state *t = I2(s);
  if (c == t->conn) {
    if (LPA_IPERF2_BIDIR && s->cfg.mode == LPA_MODE_REVERSE) {
      rx_datagram(s, &t->rev, NULL, d, n, from, port, at);
      return;
    }
    if (t->fwd.state == LPA_FLOW_DONE && !t->tx_done && report_parse(s, &t->fwd, d, n))
      t->tx_done = 1;
    return;
  }
  if (LPA_IPERF2_BIDIR && c == t->back) rx_datagram(s, &t->rev, c, d, n, from, port, at);
}

static void udp_client_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  int want_back = LPA_IPERF2_BIDIR && (s->cfg.mode == LPA_MODE_DUAL ||
                                       s->cfg.mode == LPA_MODE_TRADEOFF);
  if (LPA_IPERF2_BIDIR && s->cfg.mode == LPA_MODE_REVERSE) {
    /* Repeat the request until data comes (the first datagrams may meet no listener yet). */
    if (t->rev.state == LPA_FLOW_IDLE && LPA_DUE(now, t->tx_fin_next)) {
      uint8_t h[I2_UDP_HDR_LEN];
      size_t n;
      t->fwd.seq = 1; /* iperf2 repeats datagram 1 */
      n = data_head(t, &t->fwd, h);
      (void)lpa_net_udp_send(t->conn, h, n, t->fwd.len, NULL, 0);
      t->tx_fin_next = now + 20u;
      if (t->tx_fins++ > 100) lpa_i2_fail(s, LPA_ERR_NO_DATA);
    } else if (t->rev.state == LPA_FLOW_RUNNING && t->fwd.limit_ms != 0 &&
               LPA_DUE(now, t->deadline)) {
      lpa_flow_finish(s, &t->rev, now);
    } else if (t->rev.state == LPA_FLOW_DONE && LPA_DUE(now, t->rx_linger)) {
      lpa_i2_close_all(s);
    }
    return;
  }
  udp_sender_tick(s, &t->fwd, NULL, 0, 1, now);
  if (!s->used || t->kind == 0 || !t->tx_done) return;
  if (want_back && t->rev.state == LPA_FLOW_IDLE) {
    if (t->phase == 0) { /* wait 3 s at most for the server's flow */
      t->phase = 1;
      t->deadline = now + 3000u;
    }
    if (LPA_DUE(now, t->deadline)) lpa_i2_fail(s, LPA_ERR_NO_BACK_FLOW);
    return;
  }
  if (LPA_IPERF2_BIDIR && t->rev.state == LPA_FLOW_RUNNING && now - t->rev.last_ms > 3000u)
    lpa_i2_fail(s, LPA_ERR_BACK_STOPPED);
  else if (!I2_REV_RUNNING(t) && LPA_DUE(now, t->rx_linger))
    lpa_i2_close_all(s);
}


/* After lpa_iperf2_start opened t->conn (and t->back for -d/-r) and built the header: the
 * flows, the first datagrams at the next tick. */
void lpa_i2_udp_client_start(struct lpa_session *s) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  t->use64 = 1;
  if (LPA_IPERF2_BIDIR) {
    lpa_flow_init(&t->rev, t->back, LPA_DIR_RX | LPA_SECOND, LPA_PROTO_UDP); /* -d/-r back */
    if (s->cfg.mode == LPA_MODE_REVERSE) {
      lpa_flow_init(&t->rev, t->conn, LPA_DIR_RX, LPA_PROTO_UDP);
      t->fwd.state = LPA_FLOW_DONE;
      t->tx_done = 1;
      return;
    }
  }
  lpa_report_start(s, LPA_DIR_TX);
  lpa_flow_start(s, &t->fwd, now);
}
#endif /* LPA_CLIENT */

/* The UDP tests' handlers in lpa_i2_test_ops. */
void lpa_i2_udp_on_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                       const ip_addr_t *from, uint16_t port, uint32_t arrival_us) {
#if LPA_SERVER
  if (I2(s)->kind == I2_LISTENER) {
    lpa_i2_udp_listener_rx(s, d, n, from, port, arrival_us);
    return;
  }
#endif
#if LPA_CLIENT
  if (I2(s)->kind == I2_UDP_CLIENT) {
    udp_client_on_udp(s, c, d, n, from, port, arrival_us);
    return;
  }
#endif
#if LPA_SERVER
  if (LPA_IPERF2_BIDIR && I2(s)->kind == I2_UDP_TEST) udp_test_on_udp(s, c, d, n, from, port, arrival_us);
#else
  (void)s; (void)c; (void)d; (void)n; (void)from; (void)port; (void)arrival_us;
#endif
}

void lpa_i2_udp_tick(struct lpa_session *s, lpa_ms_t now) {
#if LPA_CLIENT
  if (I2(s)->kind == I2_UDP_CLIENT) {
    udp_client_tick(s, now);
    return;
  }
#endif
#if LPA_SERVER
  udp_test_tick(s, now);
#else
  (void)s; (void)now;
#endif
}

#endif

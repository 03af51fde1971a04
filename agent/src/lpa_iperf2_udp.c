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

static void put_prefix(uint8_t *h, int64_t seq) {
  uint64_t now = LPA_WALL_US();
  lp_i2_udp_prefix_put(h, seq, (uint32_t)(now / 1000000u), (uint32_t)(now % 1000000u));
}

/* The server report on flow f, our receiving flow, finished. */
static void report_build(uint8_t *out, const struct lpa_flow *f) {
  struct lp_i2_report r;
  uint32_t dur = f->last_ms - f->start_ms; /* ms */
  uint32_t j = f->rx.jitter_us16 / 16;
  memset(&r, 0, sizeof(r));
  r.bytes = f->bytes;
  r.stop_sec = dur / 1000u;
  r.stop_usec = dur % 1000u * 1000u;
  r.errors = lpa_udp_lost(&f->rx);
  r.out_of_order = f->rx.out_of_order;
  r.datagrams = f->rx.max_seq;
  r.jitter_sec = j / 1000000u;
  r.jitter_usec = j % 1000000u;
  lp_i2_report_encode_counts(out, &r);
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

/* Receiver: one datagram of flow f; the report goes back through c to from:port (c NULL: no
 * report, as for -R where iperf2 has no FIN exchange). */
static void rx_datagram(struct lpa_session *s, struct lpa_flow *f, struct lpa_conn *c,
                        const uint8_t *d, size_t n, const ip_addr_t *from, uint16_t port,
                        uint32_t arrival_us) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  int64_t seq; /* negative: a FIN, numbered as the datagram after the last */
  uint32_t sec, usec;
  int fin;
  if (!lp_i2_udp_prefix_get(d, n, t->use64 != 0, &seq, &sec, &usec)) return;
  fin = seq < 0;
  if (f->state == LPA_FLOW_IDLE) {
    if (fin) return; /* the end of an earlier test */
    lpa_report_start(s, LPA_DIR_RX | (f->stream ? LPA_SECOND : 0));
    lpa_flow_start(s, f, now);
  }
  if (f->state == LPA_FLOW_RUNNING) {
    /* The send time modulo 2^32 us: jitter needs differences only. */
    lpa_flow_udp_rx(f, fin ? 0u - (uint64_t)seq : (uint64_t)seq, sec * 1000000u + usec, arrival_us);
    lpa_flow_rx(f, n, now);
    if (!fin) return;
    lpa_flow_finish(s, f, now);
  }
  if (f->state == LPA_FLOW_DONE && c != NULL && t->rx_reports < REPORTS_MAX) {
    /* Built again for every FIN answered: the finished flow no longer changes, and a stack
     * buffer costs no static RAM per session. */
    uint8_t report[LP_I2_REPORT_LEN];
    report_build(report, f);
    (void)lpa_net_udp_send(c, report, LP_I2_REPORT_LEN, LP_I2_REPORT_LEN, from, port);
    t->rx_reports++;
    t->rx_linger = now + REPORT_LINGER_MS;
  }
}

/* The start of a datagram numbered seq (negative: a FIN): the prefix, and the client's header
 * after it as far as the datagram has room (it goes in every datagram, as iperf2's does).
 * Returns its length. */
static size_t head_seq(const struct i2_state *t, const struct lpa_flow *f, uint8_t *h,
                       int64_t seq) {
  size_t n = LP_I2_UDP_HDR_END < f->len ? LP_I2_UDP_HDR_END : f->len;
  put_prefix(h, seq);
  if (t->kind == I2_UDP_CLIENT) memcpy(h + LP_I2_UDP_PREFIX, t->hdr, n - LP_I2_UDP_PREFIX);
  else n = LP_I2_UDP_PREFIX; /* a server's flow back carries no header, like iperf2's */
  return n;
}

static size_t data_head(void *ctx, struct lpa_flow *f, uint8_t *h) {
  return head_seq((const struct i2_state *)ctx, f, h, (int64_t)f->seq);
}

/* Sender: after the limit, FINs (the client's own, or the server's on a flow back) until the
 * peer's report arrives. Returns 1 when the exchange is over. */
static int tx_fin_step(struct lpa_session *s, struct lpa_flow *f, const ip_addr_t *to,
                       uint16_t port, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  uint8_t h[LP_I2_UDP_HDR_END];
  size_t n;
  if (t->tx_done) return 1;
  if (!LPA_DUE(now, t->tx_fin_next)) return 0;
  if (t->tx_fins >= FIN_TRIES) {
    lpa_report_error(s, LPA_ERR_NO_REPORT);
    t->tx_done = 1;
    return 1;
  }
  f->seq++; /* like iperf2: every FIN carries the next number, negated */
  n = head_seq(t, f, h, -(int64_t)f->seq);
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
    } else { /* -R: one FIN, no exchange; a server's flow: the prefix alone */
      uint8_t h[LP_I2_UDP_HDR_END];
      size_t n = head_seq(t, f, h, -(int64_t)(f->seq + 1));
      (void)lpa_net_udp_send(f->conn, h, n, f->len, to, port);
      t->tx_done = 1;
    }
  }
}


#if LPA_SERVER
/* ---- server side of a UDP test ---- */


static void udp_test_begin(struct lpa_session *s, const uint8_t *d, size_t n, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lp_i2_header *rq = &t->req;
  if (!LPA_IPERF2_BIDIR) return; /* the header is for a flow of ours (-d, -r, -R) */
  (void)lp_i2_header_decode_core(d + LP_I2_UDP_PREFIX, n - LP_I2_UDP_PREFIX, rq);
  if (rq->rate_bps == 0) rq->rate_bps = 1048576u;
  if (rq->buflen == 0 || rq->buflen > LPA_UDP_MAX_LEN) rq->buflen = 1470;
  if (rq->buflen < LP_I2_UDP_PREFIX) rq->buflen = LP_I2_UDP_PREFIX;
  if ((rq->flags & LP_I2_VERSION2) && (rq->upper & LP_I2_UP_REVERSE)) {
    /* -R: we send to the client's own port; its header datagrams are not data. */
    lpa_flow_open(s, &t->rev, I2(t->parent)->udp_listen, LPA_DIR_TX, LPA_PROTO_UDP, now);
    lpa_i2_sender_limits(&t->rev, rq);
    t->fwd.state = LPA_FLOW_DONE;
    t->rx_linger = now;
  }
}

static void udp_start_back(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  t->back = lpa_net_udp_open(0, &s->peer, (uint16_t)t->req.mport, s);
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
  int64_t seq;
  uint32_t sec, usec;
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
    /* Not the start of a test: too short for a header, or a FIN (numbered as the header says),
     * the end of an earlier test. */
    int use64;
    if (n < I2_UDP_MIN_LEN) return;
    use64 = (lp_i2_udp_flags(d, n) & LP_I2_SEQNO64B) != 0;
    if (lp_i2_udp_prefix_get(d, n, use64 != 0, &seq, &sec, &usec) && seq < 0) return;
    s = lpa_i2_test_new(ls, LPA_PROTO_UDP, I2_UDP_TEST);
    if (s == NULL) return; /* busy: the client gets no report and says so */
    t = I2(s);
    ip_addr_copy(s->peer, *from);
    s->peer_port = port;
    t->fwd.proto = LPA_PROTO_UDP; /* a zeroed flow (state_new) is an idle receiver */
    t->use64 = (uint8_t)use64;
    udp_test_begin(s, d, n, now);
    if (LPA_IPERF2_BIDIR && (t->req.flags & LP_I2_VERSION1) && (t->req.flags & LP_I2_RUN_NOW))
      udp_start_back(s, now);
  }
  t = I2(s);
  if (LPA_IPERF2_BIDIR && t->fwd.state == LPA_FLOW_DONE && t->rev.state != LPA_FLOW_IDLE &&
      t->rev.conn != t->back)
    return; /* -R: the client's header datagrams */
  rx_datagram(s, &t->fwd, I2(ls)->udp_listen, d, n, from, port, arrival_us);
  if (LPA_IPERF2_BIDIR && t->fwd.state == LPA_FLOW_DONE && (t->req.flags & LP_I2_VERSION1) &&
      !(t->req.flags & LP_I2_RUN_NOW) && t->rev.state == LPA_FLOW_IDLE)
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
                             !((t->req.flags & LP_I2_VERSION1) && t->rev.state == LPA_FLOW_IDLE))))
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
      uint8_t h[LP_I2_UDP_HDR_END];
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

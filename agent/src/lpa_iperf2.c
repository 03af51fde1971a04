/* iperf2 over TCP: the listener (TCP and UDP on one port), the server side of a TCP test with
 * -d, -r, -R and --full-duplex, and the TCP client. UDP tests are in lpa_iperf2_udp.c. The test
 * header is parsed and skipped, never counted as data. */
#include <string.h>

#include "lpa_iperf2.h"

struct i2_state lpa_i2[LPA_MAX_SESSIONS];

#define HEADER_TIMEOUT_MS 4000u  /* iperf2's server waits 4 s for the flags word */
#define IDLE_TIMEOUT_MS 30000u   /* a test with no data for this long is over */
#define BACK_TRIES 20              /* -d/-r: connections back tried 50 ms apart (1 s) */
#define BACK_RETRY_MS 50u
#define BACK_SLOP_MS 3000u       /* how long a -d/-r client waits for the connection back */

void lpa_i2_sender_limits(struct lpa_flow *f, const struct lp_i2_header *rq) {
  /* amount < 0: a time in 10 ms units, up to 2^31 of them (kept below 2^32 ms) */
  uint32_t cs = (uint32_t)(-(int64_t)rq->amount);
  if (rq->amount < 0) f->limit_ms = cs > 429496729u ? 0xFFFFFFFFu : cs * 10u;
  else f->amount = (uint64_t)rq->amount;
  if (f->amount == 0 && f->limit_ms == 0) f->limit_ms = 10000u;
  f->rate_bps = rq->rate_bps;
  f->len = rq->buflen;
}

/* A session's iperf2 state, cleared. Its timers start as "now" (times compare modulo 2^32:
 * zero is not "long ago"). */
static struct i2_state *state_new(struct lpa_session *s) {
  struct i2_state *t = &lpa_i2[s->index];
  memset(t, 0, sizeof(*t));
  t->deadline = t->rx_linger = t->tx_fin_next = lpa_now_ms();
  s->state = t;
  return t;
}

#if LPA_CLIENT
/* Client: the test header for s->cfg into t->hdr and the forward flow on t->conn with the
 * config's limits. */
static void client_setup(struct lpa_session *s, int udp, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lp_i2_header *rq = &t->req;
  const struct lpa_config *cfg = &s->cfg;
  struct lpa_flow *f = &t->fwd;
  uint32_t flags = 0;
  if (LPA_IPERF2_BIDIR && cfg->mode == LPA_MODE_DUAL) flags = LP_I2_VERSION1 | LP_I2_RUN_NOW;
  if (LPA_IPERF2_BIDIR && cfg->mode == LPA_MODE_TRADEOFF) flags = LP_I2_VERSION1;
  if (LPA_IPERF2_BIDIR && cfg->mode == LPA_MODE_REVERSE) {
    /* UDPTESTS with -R: the upper flags are meaningful. */
    flags = LP_I2_VERSION2 | (udp ? LP_I2_UDPTESTS : 0);
    rq->upper = LP_I2_UP_REVERSE;
  }
  rq->flags = flags;
  rq->num_threads = 1;
  rq->mport = cfg->back_port;
  rq->buflen = cfg->len;
  rq->amount = cfg->amount_bytes != 0 ? (int32_t)(cfg->amount_bytes & 0x7FFFFFFFu)
                                      : -(int32_t)((cfg->duration_ms + 9u) / 10u);
  rq->rate_bps = cfg->rate_bps;
  lp_i2_header_encode_plain(t->hdr, rq, udp != 0);
  lpa_flow_init(f, t->conn, LPA_DIR_TX, cfg->proto);
  f->amount = cfg->amount_bytes;
  if (f->amount == 0) f->limit_ms = cfg->duration_ms;
  f->rate_bps = cfg->rate_bps;
  f->len = cfg->len;
  /* -R: the server sends for the test's time; give up 2 s after it (iperf2's slop). */
  t->deadline = now + f->limit_ms + 2000u; /* only when limit_ms is set */
}
#endif

#if LPA_SERVER
/* Server: a session for a test the listener ls received, or NULL when all are in use. */
struct lpa_session *lpa_i2_test_new(struct lpa_session *ls, uint8_t proto, uint8_t kind) {
  struct lpa_session *s = lpa_session_new(&ls->cfg, ls->fn, ls->arg);
  struct i2_state *t;
  if (s == NULL) return NULL;
  s->cfg.proto = proto;
  s->ops = &lpa_i2_test_ops;
  t = state_new(s);
  t->kind = kind;
  t->parent = ls;
  return s;
}
#endif

static void close_conn(struct lpa_conn **c) {
  if (*c != NULL) lpa_net_close(*c);
  *c = NULL;
}

void lpa_i2_close_all(struct lpa_session *s) {
  struct i2_state *t = I2(s);
  close_conn(&t->conn);
  close_conn(&t->back);
  close_conn(&t->tcp_listen);
  close_conn(&t->udp_listen);
  t->kind = 0;
  lpa_session_end(s);
}

void lpa_i2_fail(struct lpa_session *s, uint8_t why) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  lpa_report_error(s, why);
  lpa_flow_finish(s, &t->fwd, now);
  if (LPA_IPERF2_BIDIR) lpa_flow_finish(s, &t->rev, now);
  lpa_i2_close_all(s);
}


static void test_stop(struct lpa_session *s) {
  if (I2(s)->kind == I2_LISTENER) lpa_i2_close_all(s);
  else lpa_i2_fail(s, LPA_ERR_STOPPED);
}

/* A TCP connection of a test broke (c is already gone). A client always reports it; a server
 * only when the connection still carried a flow (a client that resets after its last byte
 * ends the test normally). */
static void tcp_error(struct lpa_session *s, struct lpa_conn *c) {
  struct i2_state *t = I2(s);
  if (c == t->conn) t->conn = NULL;
  if (LPA_IPERF2_BIDIR && c == t->back) t->back = NULL; /* only two-way tests have these */
  if (LPA_IPERF2_BIDIR && c == t->tcp_listen) t->tcp_listen = NULL;
  if (t->kind == I2_TCP_CLIENT ||
      (LPA_IPERF2_BIDIR && t->rev.conn == c && t->rev.state == LPA_FLOW_RUNNING) ||
      (t->fwd.state == LPA_FLOW_RUNNING && c == t->fwd.conn))
    lpa_i2_fail(s, LPA_ERR_RESET);
  else
    lpa_i2_close_all(s);
}

#if LPA_SERVER
/* ---- server: one TCP test ---- */

static int flows_done(const struct i2_state *t) {
  return t->fwd.state != LPA_FLOW_RUNNING && !I2_REV_RUNNING(t);
}

enum { TT_HEADER = 0, TT_RUN, TT_BACK_PENDING };

/* Sends what a sending flow may send now; finishes it when its limit is reached. */
static void pump(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now) {
  int r;
  if (f->state != LPA_FLOW_RUNNING || f->dir != LPA_DIR_TX) return;
  r = lpa_flow_pump(f, now, NULL, NULL, NULL, 0);
  if (r < 0) {
    lpa_i2_fail(s, LPA_ERR_BROKEN);
  } else if (r > 0) {
    lpa_flow_finish(s, f, now);
    if (f->conn != NULL) lpa_net_tcp_shutdown_tx(f->conn);
  }
}

static void tcp_test_connect_back(struct lpa_session *s) {
  struct i2_state *t = I2(s);
  t->back = lpa_net_tcp_connect(&s->peer, (uint16_t)t->req.mport, s);
  if (t->back == NULL) lpa_i2_fail(s, LPA_ERR_BACK_CONNECT);
  else t->phase = TT_BACK_PENDING;
}

/* Our sending flow (-d/-r on the connection back, -R/--full-duplex on the test's own). */
static void tcp_test_send(struct lpa_session *s, struct lpa_conn *c, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  /* Only -R sends alone; -d/-r and --full-duplex have a forward flow with its own lines. */
  uint8_t second = c != t->conn || (t->req.upper & LP_I2_UP_FULLDUPLEX) ? LPA_SECOND : 0;
  lpa_flow_open(s, &t->rev, c, LPA_DIR_TX | second, LPA_PROTO_TCP, now);
  lpa_i2_sender_limits(&t->rev, &t->req);
  pump(s, &t->rev, now);
}

/* The whole header is in: decide what the test is and answer it. */
static void tcp_test_begin(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lp_i2_header *rq = &t->req;
  t->phase = TT_RUN;
  if (lp_i2_ack_wanted(lp_wire_get32(t->hdr)))
    (void)lpa_net_tcp_send(t->conn, lp_i2_ack, LP_I2_ACK_LEN, 0);
  if (!LPA_IPERF2_BIDIR) return; /* the rest of the header is for a flow of ours */
  (void)lp_i2_header_decode_core(t->hdr, t->hdr_seen < I2_HDR_KEEP ? t->hdr_seen : I2_HDR_KEEP, rq);
  if ((rq->flags & LP_I2_VERSION2) && (rq->upper & (LP_I2_UP_REVERSE | LP_I2_UP_FULLDUPLEX))) {
    if (rq->upper & LP_I2_UP_REVERSE) t->fwd.state = LPA_FLOW_DONE; /* nothing comes our way */
    tcp_test_send(s, t->conn, now);
  } else if ((rq->flags & LP_I2_VERSION1) && (rq->flags & LP_I2_RUN_NOW)) {
    tcp_test_connect_back(s);
  }
}

static void tcp_test_end_forward(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  lpa_flow_finish(s, &t->fwd, now);
  if (LPA_IPERF2_BIDIR && t->phase == TT_RUN && (t->req.flags & LP_I2_VERSION1) &&
      !(t->req.flags & LP_I2_RUN_NOW) &&
      t->back == NULL && t->rev.state == LPA_FLOW_IDLE) {
    close_conn(&t->conn);
    tcp_test_connect_back(s); /* tradeoff: our turn now */
  }
}

static void tcp_test_maybe_end(struct lpa_session *s) {
  struct i2_state *t = I2(s);
  if (t->kind != 0 && t->phase != TT_BACK_PENDING && t->phase != TT_HEADER && flows_done(t))
    lpa_i2_close_all(s);
}

static void tcp_test_recv(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  if (LPA_IPERF2_BIDIR && c != t->conn) { /* the -d/-r connection: the client's listener sends nothing */
    if (n == 0) {
      lpa_flow_finish(s, &t->rev, now);
      tcp_test_maybe_end(s);
    }
    return;
  }
  if (n == 0) {
    tcp_test_end_forward(s, now);
    if (!LPA_IPERF2_BIDIR || t->rev.conn != c || t->rev.state != LPA_FLOW_RUNNING)
      close_conn(&t->conn);
    if (LPA_IPERF2_BIDIR && t->rev.conn == c && t->rev.state == LPA_FLOW_RUNNING &&
        (t->req.upper & LP_I2_UP_REVERSE))
      lpa_flow_finish(s, &t->rev, now); /* -R: the client hung up, we are done sending */
    tcp_test_maybe_end(s);
    return;
  }
  while (n != 0 && t->phase == TT_HEADER) {
    /* A byte at a time (a header is read once): the flags word, then the rest of the length
     * it implies; the first I2_HDR_KEEP bytes are kept for parsing, the rest skipped. */
    if (t->hdr_seen < I2_HDR_KEEP) t->hdr[t->hdr_seen] = *d;
    t->hdr_seen++;
    d++;
    n--;
    if (t->hdr_seen == 4) {
      /* No header (or one this agent does not parse): the four bytes were data. */
      int need = lp_i2_tcp_header_len(lp_wire_get32(t->hdr));
      if (need <= 0) {
        lpa_flow_rx(&t->fwd, 4, now);
        t->phase = TT_RUN;
      } else {
        t->hdr_need = (uint16_t)need;
      }
    }
    if (t->hdr_seen == t->hdr_need) tcp_test_begin(s, now);
  }
  if (n != 0 && t->fwd.state == LPA_FLOW_RUNNING) lpa_flow_rx(&t->fwd, n, now);
}

static void tcp_test_connected(struct lpa_session *s, struct lpa_conn *c, int ok) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  if (!ok) {
    /* A stock client starts its -d listener in a thread of its own: a connection back within
     * a millisecond of the header can find it not listening yet. Try again for a while. */
    t->back = NULL;
    if (++t->back_tries < BACK_TRIES) t->deadline = now + BACK_RETRY_MS;
    else lpa_i2_fail(s, LPA_ERR_BACK_REFUSED);
    return;
  }
  t->phase = TT_RUN;
  tcp_test_send(s, c, now);
}

static void tcp_test_sendable(struct lpa_session *s, struct lpa_conn *c) {
  struct i2_state *t = I2(s);
  if (c == t->rev.conn) pump(s, &t->rev, lpa_now_ms());
  if (s->used && I2(s)->kind != 0) tcp_test_maybe_end(s);
}

static void tcp_test_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  if (t->phase == TT_HEADER && LPA_DUE(now, t->deadline)) {
    lpa_i2_fail(s, LPA_ERR_NO_HEADER);
    return;
  }
  if (LPA_IPERF2_BIDIR && t->phase == TT_BACK_PENDING && t->back == NULL &&
      LPA_DUE(now, t->deadline))
    tcp_test_connect_back(s); /* the retry after a refusal */
  if (LPA_IPERF2_BIDIR) pump(s, &t->rev, now);
  if (!s->used || t->kind == 0) return;
  if (t->fwd.state == LPA_FLOW_RUNNING && now - t->fwd.last_ms > IDLE_TIMEOUT_MS) {
    lpa_i2_fail(s, LPA_ERR_IDLE);
    return;
  }
  tcp_test_maybe_end(s);
}


/* ---- server: the listener ---- */

static void listener_accept(struct lpa_session *ls, struct lpa_conn *c) {
  struct lpa_session *s = lpa_i2_test_new(ls, LPA_PROTO_TCP, I2_TCP_TEST);
  struct i2_state *t;
  lpa_ms_t now = lpa_now_ms();
  if (s == NULL) { /* busy: the client sees a reset, the running tests go on */
    lpa_net_close(c);
    return;
  }
  t = I2(s);
  t->conn = c;
  t->deadline = now + HEADER_TIMEOUT_MS;
  lpa_net_set_owner(c, s);
  lpa_net_peer(c, &s->peer, &s->peer_port);
  lpa_flow_open(s, &t->fwd, c, LPA_DIR_RX, LPA_PROTO_TCP, now);
}

static int start_listener(struct lpa_session *s) {
  struct i2_state *t = I2(s);
  t->kind = I2_LISTENER;
  t->tcp_listen = lpa_net_tcp_listen(s->cfg.port, s);
  if (t->tcp_listen == NULL) return LPA_ENET;
#if LPA_UDP
  t->udp_listen = lpa_net_udp_open(s->cfg.port, NULL, 0, s);
  if (t->udp_listen == NULL) {
    close_conn(&t->tcp_listen);
    return LPA_ENET;
  }
#endif
  return 0;
}
#endif /* LPA_SERVER */

#if LPA_CLIENT
/* ---- client: TCP ---- */

enum { TC_CONNECTING = 0, TC_RUN, TC_FLUSH, TC_WAIT_BACK };

static void tcp_client_maybe_end(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  int want_back = LPA_IPERF2_BIDIR && (s->cfg.mode == LPA_MODE_DUAL ||
                                       s->cfg.mode == LPA_MODE_TRADEOFF);
  if (t->fwd.state == LPA_FLOW_RUNNING || I2_REV_RUNNING(t)) return;
  if (t->phase == TC_FLUSH || t->phase == TC_CONNECTING) return;
  if (want_back && t->rev.state == LPA_FLOW_IDLE) {
    if (t->phase != TC_WAIT_BACK) {
      t->phase = TC_WAIT_BACK;
      t->deadline = now + BACK_SLOP_MS;
    }
    return;
  }
  lpa_i2_close_all(s);
}

static void tcp_client_pump(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  int r;
  if (t->fwd.state != LPA_FLOW_RUNNING) return; /* -R: DONE from the start */
  r = lpa_flow_pump(&t->fwd, now, NULL, NULL, NULL, 0);
  if (r < 0) {
    lpa_i2_fail(s, LPA_ERR_BROKEN);
  } else if (r > 0 && t->phase == TC_RUN) {
    /* Everything is queued: the test ends when the server has it all (or closes). */
    lpa_net_tcp_shutdown_tx(t->conn);
    t->phase = TC_FLUSH;
    t->deadline = now + 10000u;
  }
}

static void tcp_client_connected(struct lpa_session *s, struct lpa_conn *c, int ok) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  int reverse = LPA_IPERF2_BIDIR && s->cfg.mode == LPA_MODE_REVERSE;
  if (!ok) {
    t->conn = NULL;
    lpa_i2_fail(s, LPA_ERR_CONNECT);
    return;
  }
  if (reverse) t->deadline = now + t->fwd.limit_ms + 2000u; /* from the connection on */
  t->phase = TC_RUN;
  /* The header goes first and is not data; it fits any empty send buffer. With -R only the
   * header goes out, and the data comes back on this connection. */
  if (lpa_net_tcp_send(c, t->hdr, LP_I2_TCP_HDR_LEN, reverse ? 0 : LPA_SEND_MORE) !=
      (long)LP_I2_TCP_HDR_LEN) {
    lpa_i2_fail(s, LPA_ERR_SEND_HEADER);
    return;
  }
  if (reverse) {
    t->fwd.state = LPA_FLOW_DONE;
    lpa_flow_open(s, &t->rev, c, LPA_DIR_RX, LPA_PROTO_TCP, now);
    return;
  }
  t->fwd.head_sent = LP_I2_TCP_HDR_LEN;
  lpa_report_start(s, LPA_DIR_TX);
  lpa_flow_start(s, &t->fwd, now);
  tcp_client_pump(s, now);
}

static void tcp_client_flushed(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  lpa_flow_finish(s, &t->fwd, now);
  t->phase = TC_RUN;
  if (LPA_IPERF2_BIDIR) tcp_client_maybe_end(s, now); /* a flow back may still run */
  else lpa_i2_close_all(s);
}

static void tcp_client_recv(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  (void)d;
  if (c == t->conn && (!LPA_IPERF2_BIDIR || s->cfg.mode != LPA_MODE_REVERSE)) {
    /* the server's header ack, then EOF */
    if (n == 0) {
      if (t->phase == TC_FLUSH) tcp_client_flushed(s, now);
      else if (t->fwd.state == LPA_FLOW_RUNNING) lpa_i2_fail(s, LPA_ERR_CLOSED);
      if (s->used && t->kind != 0) close_conn(&t->conn);
    }
    return;
  }
  if (!LPA_IPERF2_BIDIR) return; /* the rest is the server's flow (-d, -r, -R) */
  if (n == 0) {
    lpa_flow_finish(s, &t->rev, now);
    if (c == t->conn) t->conn = NULL;
    if (c == t->back) t->back = NULL;
    lpa_net_close(c);
    tcp_client_maybe_end(s, now);
    return;
  }
  lpa_flow_rx(&t->rev, n, now);
}

static void tcp_client_accept(struct lpa_session *s, struct lpa_conn *c) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  if (t->back != NULL || t->rev.state != LPA_FLOW_IDLE) {
    lpa_net_close(c);
    return;
  }
  t->back = c;
  lpa_net_set_owner(c, s);
  close_conn(&t->tcp_listen); /* one connection back per test */
  lpa_flow_open(s, &t->rev, c, LPA_DIR_RX | LPA_SECOND, LPA_PROTO_TCP, now);
  if (t->phase == TC_WAIT_BACK) t->phase = TC_RUN;
}

static void tcp_client_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  tcp_client_pump(s, now);
  if (!s->used || t->kind == 0) return;
  if (t->phase == TC_FLUSH && (lpa_net_tcp_unacked(t->conn) == 0 || LPA_DUE(now, t->deadline))) {
    tcp_client_flushed(s, now);
  } else if (LPA_IPERF2_BIDIR && t->phase == TC_WAIT_BACK && LPA_DUE(now, t->deadline)) {
    lpa_i2_fail(s, LPA_ERR_NO_BACK_CONN);
  } else if (LPA_IPERF2_BIDIR && s->cfg.mode == LPA_MODE_REVERSE && t->phase != TC_CONNECTING &&
             t->fwd.limit_ms != 0 && LPA_DUE(now, t->deadline)) { /* set once connected */
    lpa_flow_finish(s, &t->rev, now);
    lpa_i2_close_all(s);
  } else if (LPA_IPERF2_BIDIR && t->rev.state == LPA_FLOW_RUNNING &&
             now - t->rev.last_ms > IDLE_TIMEOUT_MS) {
    lpa_i2_fail(s, LPA_ERR_IDLE);
  }
}

static void tcp_client_sendable(struct lpa_session *s, struct lpa_conn *c) {
  (void)c;
  tcp_client_pump(s, lpa_now_ms());
}

#endif

/* ---- one set of handlers for every session (the listener, TCP or UDP tests, client or
 * server): one table instead of five, each handler picks by kind. The listener only ever gets
 * accept, UDP, tick and stop. ---- */

static void test_accept(struct lpa_session *s, struct lpa_conn *c) {
#if LPA_SERVER
  if (I2(s)->kind == I2_LISTENER) {
    listener_accept(s, c);
    return;
  }
#endif
#if LPA_CLIENT
  if (LPA_IPERF2_BIDIR && I2(s)->kind == I2_TCP_CLIENT) {
    tcp_client_accept(s, c);
    return;
  }
#endif
  (void)s;
  lpa_net_close(c);
}

static void test_connected(struct lpa_session *s, struct lpa_conn *c, int ok) {
#if LPA_CLIENT
  if (I2(s)->kind == I2_TCP_CLIENT) {
    tcp_client_connected(s, c, ok);
    return;
  }
#endif
#if LPA_SERVER
  if (LPA_IPERF2_BIDIR) tcp_test_connected(s, c, ok);
#else
  (void)s; (void)c; (void)ok;
#endif
}

static void test_recv(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n) {
#if LPA_CLIENT
  if (I2(s)->kind == I2_TCP_CLIENT) {
    tcp_client_recv(s, c, d, n);
    return;
  }
#endif
#if LPA_SERVER
  tcp_test_recv(s, c, d, n);
#else
  (void)s; (void)c; (void)d; (void)n;
#endif
}

static void test_sendable(struct lpa_session *s, struct lpa_conn *c) {
#if LPA_CLIENT
  if (I2(s)->kind == I2_TCP_CLIENT) {
    tcp_client_sendable(s, c);
    return;
  }
#endif
#if LPA_SERVER
  if (LPA_IPERF2_BIDIR) tcp_test_sendable(s, c);
#else
  (void)s; (void)c;
#endif
}

static void test_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  uint8_t kind = t->kind;
  (void)kind; /* a server-only TCP build has one kind of test */
  lpa_flow_interval(s, &t->fwd, now); /* interval reports first, whatever the kind */
  if (LPA_IPERF2_BIDIR) lpa_flow_interval(s, &t->rev, now);
  if (kind == I2_LISTENER) return;
#if LPA_UDP
  if (kind == I2_UDP_TEST || kind == I2_UDP_CLIENT) {
    lpa_i2_udp_tick(s, now);
    return;
  }
#endif
#if LPA_CLIENT
  if (kind == I2_TCP_CLIENT) {
    tcp_client_tick(s, now);
    return;
  }
#endif
#if LPA_SERVER
  tcp_test_tick(s, now);
#else
  (void)s; (void)now;
#endif
}

#if LPA_UDP
#define UDP_HANDLER lpa_i2_udp_on_udp
#else
#define UDP_HANDLER NULL
#endif
const struct lpa_proto_ops lpa_i2_test_ops = {
    test_accept, test_connected, test_recv, test_sendable, tcp_error, UDP_HANDLER, test_tick,
    test_stop};

/* ---- entry ---- */

int lpa_iperf2_start(struct lpa_session *s) {
  state_new(s);
  s->ops = &lpa_i2_test_ops; /* lpa_start clears it again when this fails */
  if (s->cfg.role == LPA_ROLE_SERVER) {
#if LPA_SERVER
    return start_listener(s);
#else
    return LPA_EINVAL;
#endif
  }
#if LPA_CLIENT
  {
    /* The connection to the server, and for -d/-r where the server's flow comes back: a
     * listener (TCP) or a bound endpoint (UDP) on the back port. */
    struct i2_state *t = I2(s);
    int udp = s->cfg.proto == LPA_PROTO_UDP;
    int back = s->cfg.mode == LPA_MODE_DUAL || s->cfg.mode == LPA_MODE_TRADEOFF;
    if ((!LPA_IPERF2_BIDIR && s->cfg.mode != LPA_MODE_ONEWAY) || (!LPA_UDP && udp) ||
        (udp && s->cfg.len < I2_UDP_MIN_LEN))
      return LPA_EINVAL;
    ip_addr_copy(s->peer, s->cfg.peer);
    s->peer_port = s->cfg.port;
    if (back && LPA_IPERF2_BIDIR) {
      if (udp) t->back = lpa_net_udp_open(s->cfg.back_port, NULL, 0, s);
      else t->tcp_listen = lpa_net_tcp_listen(s->cfg.back_port, s);
      if (t->back == NULL && t->tcp_listen == NULL) return LPA_ENET;
    }
    t->conn = udp ? lpa_net_udp_open(0, &s->peer, s->peer_port, s)
                  : lpa_net_tcp_connect(&s->peer, s->peer_port, s);
    if (t->conn == NULL) {
      if (LPA_IPERF2_BIDIR) {
        close_conn(&t->back);
        close_conn(&t->tcp_listen);
      }
      return LPA_ENET;
    }
    t->kind = udp ? I2_UDP_CLIENT : I2_TCP_CLIENT;
    client_setup(s, udp, lpa_now_ms());
#if LPA_UDP
    if (udp) lpa_i2_udp_client_start(s);
#endif
    return 0;
  }
#else
  return LPA_EINVAL;
#endif
}

/* iperf2: the listener (TCP and UDP on one port), the handlers every test shares, and TCP tests,
 * client and server, with -d, -r, -R and a server's --full-duplex. UDP's own part is in
 * lpa_iperf2_udp.c. The test header is parsed and skipped, never counted as data. */
#include <string.h>

#include "lpa_iperf2.h"
#if LPA_IPERF2_BOUNCEBACK
#include "wire/iperf2_bb.h"
#endif

struct i2_state lpa_i2[LPA_MAX_SESSIONS];

#define HEADER_TIMEOUT_MS 4000u  /* iperf2's server waits 4 s for the flags word */
#define IDLE_TIMEOUT_MS 30000u   /* a receiving flow with no data this long, a connect this slow */
#define BACK_TRIES 20            /* -d/-r: connections back tried 50 ms apart (1 s) */
#define BACK_RETRY_MS 50u
#define BACK_SLOP_MS 3000u       /* a -d/-r client waits this long for the flow back */
#define FLUSH_TIMEOUT_MS 10000u  /* a TCP sender waits this long for its last byte's ACK */

/* A session's iperf2 state, cleared. Its timers start as "now" (times compare modulo 2^32:
 * zero is not "long ago"). */
static struct i2_state *state_new(struct lpa_session *s, uint8_t kind) {
  struct i2_state *t = &lpa_i2[s->index];
  memset(t, 0, sizeof(*t));
  t->kind = kind;
  t->deadline = t->rx_linger = t->tx_next = lpa_now_ms();
  s->state = t;
  s->ops = &lpa_i2_test_ops; /* lpa_start clears it again when the start fails */
  return t;
}

/* Zeroed, each flow is what lpa_flow_init makes of a TCP receiver without a connection: a TCP
 * server's test only sets its receiving flow's connection (smaller than initialising it). The
 * array's size is negative, and the build fails, if that stops being true (C99 has no
 * _Static_assert). */
typedef char i2_zeroed_flow_is_tcp_rx[LPA_DIR_RX == 0 && LPA_PROTO_TCP == 0 ? 1 : -1];

struct lpa_session *lpa_i2_test_new(struct lpa_session *ls, uint8_t proto) {
  struct lpa_session *s = lpa_session_new(&ls->cfg, ls->fn, ls->arg);
  if (s != NULL) {
    struct i2_state *t = state_new(s, I2_TEST);
    s->cfg.proto = proto;
    t->server = 1; /* state_new leaves it 0, as a listener and a client have it */
    t->parent = ls;
  }
  return s;
}

/* c is gone or going: no field of the test names it any more (a slot freed here can come back
 * for the connection the test opens next). */
static void forget(struct i2_state *t, struct lpa_conn *c) {
  if (t->conn == c) t->conn = NULL;
  if (t->back == c) t->back = NULL;
  if (t->tx.conn == c) t->tx.conn = NULL;
  if (t->rx.conn == c) t->rx.conn = NULL;
}

static void drop(struct i2_state *t, struct lpa_conn *c) {
  lpa_net_close(c);
  forget(t, c);
}

static void close_conns(struct i2_state *t) {
  lpa_net_close(t->conn); /* each accepts NULL */
  lpa_net_close(t->back);
  lpa_net_close(t->tcp_listen);
  lpa_net_close(t->udp_listen);
}

void lpa_i2_close_all(struct lpa_session *s) {
  struct i2_state *t = I2(s);
  t->kind = 0;
  close_conns(t);
  lpa_session_end(s);
}

void lpa_i2_fail(struct lpa_session *s, uint8_t why) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  lpa_report_error(s, why);
  lpa_flow_finish(s, &t->tx, now);
  lpa_flow_finish(s, &t->rx, now);
  lpa_i2_close_all(s);
}

static uint8_t request_mode(const struct lp_i2_header *rq) {
  if ((rq->flags & LP_I2_VERSION2) && (rq->upper & LP_I2_UP_REVERSE)) return LPA_MODE_REVERSE;
  if ((rq->flags & LP_I2_VERSION2) && (rq->upper & LP_I2_UP_FULLDUPLEX)) return I2_MODE_FULLDUPLEX;
  if (rq->flags & LP_I2_VERSION1)
    return rq->flags & LP_I2_RUN_NOW ? LPA_MODE_DUAL : LPA_MODE_TRADEOFF;
  return LPA_MODE_ONEWAY;
}

void lpa_i2_request(struct lpa_session *s, const struct lp_i2_header *rq) {
  struct i2_state *t = I2(s);
  struct lpa_flow *f = &t->tx;
  /* amount < 0: a time in 10 ms units, up to 2^31 of them; 0: for ever (iperf 2.1's -t 0).
   * Every flow back ends by the server's time at the latest (a UDP request may name anyone:
   * lpa_opts.h). */
  uint32_t cs = (uint32_t)(-(int64_t)rq->amount), most = s->cfg.duration_ms;
  t->mode = request_mode(rq);
  if (I2_MODE(t) == LPA_MODE_DUAL || I2_MODE(t) == LPA_MODE_TRADEOFF)
    t->dport = (uint16_t)rq->mport; /* where -d/-r connect or send back */
  lpa_flow_init(f, NULL, LPA_DIR_TX | I2_BACK_DIR(t), s->cfg.proto);
  f->limit_ms = most;
  if (rq->amount > 0) f->amount = (uint64_t)rq->amount;
  else if (cs - 1u < most / 10u) f->limit_ms = cs * 10u; /* cs 0 wraps: most */
  /* Past 2^36 bit/s (69 Gbit/s, more than a board sends) the pacing's products would
   * overflow within a day: such a rate is no limit. */
  f->rate_bps = rq->rate_bps >> 36 ? 0 : rq->rate_bps;
  f->len = rq->buflen;
}

void lpa_i2_send_back(struct lpa_session *s, struct lpa_conn *c, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  t->tx.conn = c;
  lpa_flow_begin(s, &t->tx, now);
}

/* Neither flow runs and nothing is pending: a test in RUN that needs nothing more ends. A test
 * with a flow back that has not started yet: a client waits for it a while. (A TCP flush is
 * pending only while the sending flow still runs.) */
static int test_idle(struct lpa_session *s, struct i2_state *t, lpa_ms_t now) {
  struct lpa_flow *tx = &t->tx;
  if (t->phase != I2_RUN || t->tx.state == LPA_FLOW_RUNNING ||
      t->rx.state == LPA_FLOW_RUNNING || !LPA_DUE(now, t->rx_linger) ||
      (tx->state == LPA_FLOW_DONE && s->cfg.proto == LPA_PROTO_UDP && !t->tx_done))
    return 0;
  if (I2_MODE(t) != LPA_MODE_ONEWAY && t->rx.state == LPA_FLOW_IDLE) {
    /* Only a client is here (a server's flow back starts with its phase): -d/-r, or UDP -R
     * repeating its request. */
    t->phase = I2_BACK;
    t->deadline = now + BACK_SLOP_MS;
    return 0;
  }
  return 1;
}

/* ---- TCP ---- */

static void connect_back(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  t->back = lpa_net_tcp_connect(&s->peer, t->dport, s);
  if (t->back == NULL) {
    lpa_i2_fail(s, LPA_ERR_BACK_CONNECT);
    return;
  }
  t->phase = I2_BACK;
  t->deadline = now + IDLE_TIMEOUT_MS;
}

/* The sending flow writes what the stack takes; after its last byte it shuts its side down. A
 * server's flow ends there; a client's once that is acknowledged (tick), or when the server
 * closes (tcp_eof): its final report is what the server got. */
static void tcp_pump(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lpa_flow *tx = &t->tx;
  int r;
  if (t->flushing) {
    if (lpa_net_tcp_unacked(tx->conn) == 0 || LPA_DUE(now, t->tx_next)) {
      t->flushing = 0;
      lpa_flow_finish(s, tx, now);
    }
    return;
  }
  if (tx->state != LPA_FLOW_RUNNING) return;
  r = lpa_flow_pump(tx, now, NULL, NULL, NULL, 0);
  if (r < 0) {
    lpa_i2_fail(s, LPA_ERR_BROKEN);
  } else if (r > 0) {
    lpa_net_tcp_shutdown_tx(tx->conn);
    t->tx_next = now + FLUSH_TIMEOUT_MS;
    if (I2_SERVER(t)) lpa_flow_finish(s, tx, now);
    else t->flushing = 1;
  }
}

/* A server has the whole header: decide what the test is and answer it. */
static void tcp_begin(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lp_i2_header rq;
  t->phase = I2_RUN;
  if (lp_i2_ack_wanted(lp_wire_get32(t->hdr)))
    (void)lpa_net_tcp_send(t->conn, lp_i2_ack, LP_I2_ACK_LEN, 0);
  if (!LPA_IPERF2_BIDIR) return; /* the rest of the header is for a flow of ours */
  (void)lp_i2_header_decode_core(t->hdr, t->hdr_seen < I2_HDR_KEEP ? t->hdr_seen : I2_HDR_KEEP,
                                 &rq);
  lpa_i2_request(s, &rq);
  if (I2_MODE(t) == LPA_MODE_REVERSE) t->rx.state = LPA_FLOW_DONE; /* nothing comes our way */
  if (I2_MODE(t) >= LPA_MODE_REVERSE) lpa_i2_send_back(s, t->conn, now); /* -R, --full-duplex */
  if (I2_MODE(t) == LPA_MODE_DUAL) connect_back(s, now);
}

/* The peer closed its side of c. */
static void tcp_eof(struct lpa_session *s, struct lpa_conn *c, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lpa_flow *rx = &t->rx, *tx = &t->tx;
  if (rx->conn == c && rx->state == LPA_FLOW_RUNNING) {
    lpa_flow_finish(s, rx, now); /* the end of the peer's data */
  } else if (tx->conn == c) {
    /* The receiver hung up: a -R client, or a server that has all of our data. A server that
     * leaves a client's test early is an error. */
    if (!I2_SERVER(t) && !t->flushing && tx->state == LPA_FLOW_RUNNING) {
      lpa_i2_fail(s, LPA_ERR_CLOSED);
      return;
    }
    t->flushing = 0;
    lpa_flow_finish(s, tx, now);
  }
  if (tx->conn != c || tx->state != LPA_FLOW_RUNNING) drop(t, c); /* --full-duplex sends on */
  /* -r: our turn now, once the peer's data has ended (a server's -r connects back only
   * here: its flow back is idle until then, and runs or is done after). */
  if (I2_SERVER(t) && I2_MODE(t) == LPA_MODE_TRADEOFF && t->tx.state == LPA_FLOW_IDLE)
    connect_back(s, now);
}

/* A server reads the header a byte at a time (it comes once): the flags word, then the rest
 * of the length it implies; the first I2_HDR_KEEP bytes are kept for parsing. Returns how many
 * of the n bytes at d are data (those after the header, or all with the first four when there
 * is none). */
static size_t tcp_header(struct lpa_session *s, const uint8_t *d, size_t n, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  while (n != 0 && t->phase == I2_START) {
    if (t->hdr_seen < I2_HDR_KEEP) t->hdr[t->hdr_seen] = *d;
    t->hdr_seen++;
    d++;
    n--;
    if (t->hdr_seen == 4) {
      /* No header (or one this agent does not parse): the four bytes were data. */
      int need = lp_i2_tcp_header_len(lp_wire_get32(t->hdr));
#if LPA_IPERF2_BOUNCEBACK
      if (lp_i2_bb_is(t->hdr)) { /* no test header: this is the first message's start */
        lpa_i2_bb_begin(s, now);
        break;
      }
#endif
      if (need <= 0) {
        n += 4;
        t->phase = I2_RUN;
      } else {
        t->hdr_need = (uint16_t)need;
      }
    }
    if (t->hdr_seen == t->hdr_need) tcp_begin(s, now);
  }
  return n;
}

static void tcp_recv(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n) {
  struct i2_state *t = I2(s);
  struct lpa_flow *rx = &t->rx;
  lpa_ms_t now = lpa_now_ms();
#if LPA_IPERF2_BOUNCEBACK
  size_t rest;
  if (t->mode == I2_MODE_BOUNCEBACK) {
    lpa_i2_bb_recv(s, d, n, now); /* its close too */
    return;
  }
#endif
  if (n == 0) {
    tcp_eof(s, c, now);
    return;
  }
#if LPA_IPERF2_BOUNCEBACK
  rest = tcp_header(s, d, n, now);
  if (t->mode == I2_MODE_BOUNCEBACK) { /* it began in these bytes: the rest are its own */
    if (rest != 0) lpa_i2_bb_recv(s, d + (n - rest), rest, now);
    return;
  }
  n = rest;
#else
  n = tcp_header(s, d, n, now);
#endif
  /* A client's connection carries the server's header ack: no flow receives there. A server's
   * receiving flow runs on c. */
  if (rx->conn == c && rx->state == LPA_FLOW_RUNNING) lpa_flow_rx(rx, n, now);
}

static void tcp_connected(struct lpa_session *s, struct lpa_conn *c, int ok) {
  struct i2_state *t = I2(s);
  lpa_ms_t now = lpa_now_ms();
  if (!ok) {
    forget(t, c);
    /* A stock client starts its -d listener in a thread of its own: a connection back within
     * a millisecond of the header can find it not listening yet. Try again for a while. */
    if (I2_SERVER(t) && ++t->tries < BACK_TRIES) t->deadline = now + BACK_RETRY_MS;
    else lpa_i2_fail(s, I2_SERVER(t) ? LPA_ERR_BACK_REFUSED : LPA_ERR_CONNECT);
    return;
  }
  t->phase = I2_RUN;
  if (I2_SERVER(t)) {
    lpa_i2_send_back(s, c, now);
    return;
  }
  /* The header goes first and is not data; it fits any empty send buffer. With -R only the
   * header goes out, and the data comes back on this connection. */
  if (lpa_net_tcp_send(c, t->hdr, LP_I2_TCP_HDR_LEN,
                       I2_MODE(t) == LPA_MODE_REVERSE ? 0 : LPA_SEND_MORE) !=
      (long)LP_I2_TCP_HDR_LEN) {
    lpa_i2_fail(s, LPA_ERR_SEND_HEADER);
    return;
  }
  t->tx.head_sent = LP_I2_TCP_HDR_LEN;
  /* -R: the flow back starts, on c since client_setup; tx never starts (it stays IDLE: a TCP
   * test only asks whether its sending flow runs), and the pump finds nothing to send. */
  lpa_flow_begin(s, I2_MODE(t) == LPA_MODE_REVERSE ? &t->rx : &t->tx, now);
  tcp_pump(s, now);
}

/* A TCP connection of a test broke (c is already gone). A client always reports it; a server
 * only while a flow runs (a client that resets after its last byte ends the test normally). */
static void test_error(struct lpa_session *s, struct lpa_conn *c) {
  struct i2_state *t = I2(s);
  forget(t, c);
  if (!I2_SERVER(t) || t->tx.state == LPA_FLOW_RUNNING || t->rx.state == LPA_FLOW_RUNNING)
    lpa_i2_fail(s, LPA_ERR_RESET);
  else
    lpa_i2_close_all(s);
}

/* ---- the listener, and a -d/-r client's listener for the connection back ---- */

static void test_accept(struct lpa_session *s, struct lpa_conn *c) {
  struct i2_state *t = I2(s);
  if (LPA_SERVER && t->kind == I2_LISTENER) {
    s = lpa_i2_test_new(s, LPA_PROTO_TCP); /* the test's session from here on */
    if (s == NULL) { /* busy: the client sees a reset, the running tests go on */
      lpa_net_close(c);
      return;
    }
    t = I2(s);
    t->conn = t->rx.conn = c; /* rx: a TCP receiver as state_new left it (see there) */
    t->deadline += HEADER_TIMEOUT_MS; /* from state_new's now */
    lpa_net_peer(c, &s->peer, &s->peer_port);
  } else {
    if (!LPA_IPERF2_BIDIR || t->back != NULL || t->rx.state != LPA_FLOW_IDLE) {
      lpa_net_close(c);
      return;
    }
    t->back = t->rx.conn = c;
    lpa_net_close(t->tcp_listen); /* one connection back per test */
    t->tcp_listen = NULL;
    t->phase = I2_RUN;
  }
  /* Either way the test receives on c. */
  lpa_net_set_owner(c, s);
  lpa_flow_begin(s, &t->rx, lpa_now_ms());
}

/* ---- every session's handlers ---- */

/* The TCP sender of a test: its flow, or a bounceback test's echo. */
static void tcp_send_more(struct lpa_session *s, lpa_ms_t now) {
#if LPA_IPERF2_BOUNCEBACK
  if (I2(s)->mode == I2_MODE_BOUNCEBACK) {
    lpa_i2_bb_pump(s, now);
    return;
  }
#endif
  tcp_pump(s, now);
}

static void test_sendable(struct lpa_session *s, struct lpa_conn *c) {
  (void)c;
  tcp_send_more(s, lpa_now_ms());
}

static void test_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct lpa_flow *rx = &t->rx;
  lpa_flow_interval(s, &t->tx, now); /* interval reports first, whatever the kind */
  lpa_flow_interval(s, &t->rx, now);
  if (t->kind == I2_LISTENER) return;
#if LPA_UDP
  if (s->cfg.proto == LPA_PROTO_UDP) {
    lpa_i2_udp_tick(s, now);
  } else
#endif
  {
    tcp_send_more(s, now);
  }
  if (t->kind == 0) return; /* ended */
  if (rx->state == LPA_FLOW_RUNNING && now - rx->last_ms > IDLE_TIMEOUT_MS) {
    lpa_i2_fail(s, LPA_ERR_IDLE);
    return;
  }
  if (rx->state == LPA_FLOW_RUNNING &&
      now - rx->start_ms > (I2_SERVER(t) ? s->cfg.duration_ms : rx->limit_ms) - 1u) {
    /* A server's test ends at its time limit, whatever the peer sends: no stranger holds
     * the board for ever (flows back stop there too: lpa_i2_send_back). A -R client's flow
     * ends when the server's time and some slop are over (limit 0: none, the - 1u wraps). */
    if (I2_SERVER(t)) {
      lpa_i2_fail(s, LPA_ERR_EXPIRED);
      return;
    }
    lpa_flow_finish(s, rx, now); /* a client's flow runs in RUN only */
  }
  if (t->phase != I2_RUN) {
    /* No header, no connection; a server retries its connection back, a client has waited
     * long enough for it. Out of RUN a test does not end by itself. */
    if (!LPA_DUE(now, t->deadline)) return;
    if (t->phase == I2_START) lpa_i2_fail(s, I2_SERVER(t) ? LPA_ERR_NO_HEADER : LPA_ERR_CONNECT);
    else if (I2_SERVER(t) && t->back == NULL && s->cfg.proto == LPA_PROTO_TCP) connect_back(s, now);
    else lpa_i2_fail(s, LPA_ERR_NO_BACK_CONN);
    return;
  }
  if (test_idle(s, t, now)) lpa_i2_close_all(s);
}

static void test_stop(struct lpa_session *s) {
  if (I2(s)->kind == I2_LISTENER) lpa_i2_close_all(s);
  else lpa_i2_fail(s, LPA_ERR_STOPPED);
}

#if LPA_UDP
#define UDP_HANDLER lpa_i2_udp_on_udp
#else
#define UDP_HANDLER NULL
#endif
const struct lpa_proto_ops lpa_i2_test_ops = {
    test_accept, tcp_connected, tcp_recv, test_sendable, test_error, UDP_HANDLER, test_tick,
    test_stop};

/* ---- entry ---- */

/* A client's header for s->cfg into t->hdr, and its sending flow on t->conn. */
static void client_setup(struct lpa_session *s, int udp) {
  struct i2_state *t = I2(s);
  struct lp_i2_header hdr, *rq = &hdr;
  const struct lpa_config *cfg = &s->cfg;
  struct lpa_flow *f = &t->tx;
  memset(rq, 0, sizeof(*rq));
  if (I2_MODE(t) == LPA_MODE_DUAL) rq->flags = LP_I2_VERSION1 | LP_I2_RUN_NOW;
  if (I2_MODE(t) == LPA_MODE_TRADEOFF) rq->flags = LP_I2_VERSION1;
  if (I2_MODE(t) == LPA_MODE_REVERSE) {
    /* UDPTESTS with -R: the upper flags are meaningful. */
    rq->flags = LP_I2_VERSION2 | (udp ? LP_I2_UDPTESTS : 0);
    rq->upper = LP_I2_UP_REVERSE;
  }
  rq->num_threads = 1;
  rq->mport = cfg->back_port;
  /* The request and our sending flow have the same limits. */
  lpa_flow_init(f, t->conn, LPA_DIR_TX, cfg->proto);
  f->len = rq->buflen = cfg->len;
  f->rate_bps = rq->rate_bps = cfg->rate_bps;
  f->amount = cfg->amount_bytes;
  if (f->amount != 0) {
    rq->amount = (int32_t)(f->amount & 0x7FFFFFFFu);
  } else {
    f->limit_ms = cfg->duration_ms;
    rq->amount = -(int32_t)((f->limit_ms + 9u) / 10u);
  }
  lp_i2_header_encode_plain(t->hdr, rq, udp != 0);
  /* The flow back: -R on this connection, ending by the server's time and some slop at last;
   * -d/-r on the connection back (TCP: accepted later) or the endpoint for it (UDP). */
  f = &t->rx;
  if (I2_MODE(t) != LPA_MODE_REVERSE) {
    lpa_flow_init(f, t->back, LPA_DIR_RX | LPA_SECOND, cfg->proto);
  } else {
    lpa_flow_init(f, t->conn, LPA_DIR_RX, cfg->proto);
    if (t->tx.limit_ms) f->limit_ms = t->tx.limit_ms + I2_REVERSE_SLOP_MS;
  }
}

int lpa_iperf2_start(struct lpa_session *s) {
  int udp = s->cfg.proto == LPA_PROTO_UDP;
  struct i2_state *t;
  if (s->cfg.role == LPA_ROLE_SERVER) {
    if (!LPA_SERVER) return LPA_EINVAL;
    t = state_new(s, I2_LISTENER);
    t->tcp_listen = lpa_net_tcp_listen(s->cfg.port, s);
    if (LPA_UDP) t->udp_listen = lpa_net_udp_open(s->cfg.port, NULL, 0, s);
    if (t->tcp_listen == NULL || (LPA_UDP && t->udp_listen == NULL)) goto fail;
    return 0;
  }
  if (!LPA_CLIENT || (!LPA_IPERF2_BIDIR && s->cfg.mode != LPA_MODE_ONEWAY) || (!LPA_UDP && udp) ||
      (udp && s->cfg.len < I2_UDP_MIN_LEN))
    return LPA_EINVAL;
  t = state_new(s, I2_CLIENT);
  t->mode = s->cfg.mode;
  ip_addr_copy(s->peer, s->cfg.peer);
  s->peer_port = t->dport = s->cfg.port;
  /* For -d/-r, where the server's flow comes back: a listener (TCP) or a bound endpoint (UDP)
   * on the back port. */
  if ((I2_MODE(t) == LPA_MODE_DUAL || I2_MODE(t) == LPA_MODE_TRADEOFF)) {
    struct lpa_conn *b;
    if (udp) b = t->back = lpa_net_udp_open(s->cfg.back_port, NULL, 0, s);
    else b = t->tcp_listen = lpa_net_tcp_listen(s->cfg.back_port, s);
    if (b == NULL) return LPA_ENET;
  }
  t->conn = udp ? lpa_net_udp_open(0, &s->peer, s->peer_port, s)
                : lpa_net_tcp_connect(&s->peer, s->peer_port, s);
  if (t->conn == NULL) goto fail;
  t->deadline += IDLE_TIMEOUT_MS; /* for the connection */
  client_setup(s, udp);
#if LPA_UDP
  if (udp) lpa_i2_udp_start(s, lpa_now_ms());
#endif
  return 0;
fail:
  close_conns(t);
  return LPA_ENET;
}

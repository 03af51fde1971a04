/* iperf3 client: control connection and cookie, parameters, data streams opened one after the
 * other (TCP: connect + cookie; UDP: hello until the reply), sending or (-R) receiving until the
 * time or byte count, TEST_END, the results exchange and IPERF_DONE. The client decides the
 * end of the test, as in iperf3; unlike a stock client, its receiving side then counts what
 * the server sent before it read TEST_END. -P streams (cfg.streams), twice that with --bidir (mode
 * LPA_MODE_DUAL): the first half sends, the second receives. -O (cfg.omit_s): the test runs
 * that much longer and the first seconds are not counted, as in iperf3. */
#include <string.h>

#include "lwip/sys.h"
#include "lpa_iperf3.h"

#if LPA_IPERF3 && LPA_CLIENT

#define HELLO_RETRY_MS 1000u /* a UDP hello without reply is repeated after 1 s */
#define FLUSH_MAX_MS 5000u   /* -n: wait this long at most for the server to have it all */
#define COLLECT_MAX_MS 2000u /* results asked: read what lwIP holds for this long at most */

static const struct lpa_proto_ops cli_ops;

/* 36 characters of iperf3's cookie alphabet and a NUL. Not secret, only unlikely to repeat. */
static void make_cookie(struct lpa_session *s, char *ck) {
  uint64_t x = LPA_NOW_US() ^ ((uint64_t)s->index << 40) ^ 0x9E3779B97F4A7C15ull;
  int i;
#ifdef LWIP_RAND
  x ^= (uint64_t)(uint32_t)LWIP_RAND() << 20;
#endif
  for (i = 0; i < LP_I3_COOKIE_SIZE - 1; i++) {
    x ^= x >> 12; /* xorshift64* */
    x ^= x << 25;
    x ^= x >> 27;
    ck[i] = lp_i3_cookie_char((unsigned)((x * 0x2545F4914F6CDD1Dull) >> 59));
  }
  ck[LP_I3_COOKIE_SIZE - 1] = '\0';
}

static int send_params(struct lpa_session *s) {
  struct i3_test *t = I3(s);
  uint8_t *p = t->buf + t->out_len;
  size_t room = sizeof(t->buf) - t->out_len;
  struct lpa_jw w;
  long len;
  if (room < 8) {
    lpa_i3_fail(s, LPA_ERR_I3_OUTPUT);
    return -1;
  }
  lpa_jw_init(&w, (char *)p + 4, room - 4);
  lpa_jw_object(&w, NULL);
  lpa_jw_bool(&w, t->udp ? "udp" : "tcp", 1);
  lpa_jw_uint(&w, "omit", t->omit_ms / 1000u);
  lpa_jw_uint(&w, "time", t->time_s);
  lpa_jw_uint(&w, "num", t->amount);
  lpa_jw_int(&w, "blockcount", 0);
  lpa_jw_int(&w, "parallel", t->parallel);
  if (t->reverse) lpa_jw_bool(&w, "reverse", 1);
  if (t->bidir) lpa_jw_bool(&w, "bidirectional", 1);
  lpa_jw_uint(&w, "len", t->len);
  if (t->rate_bps != 0) lpa_jw_uint(&w, "bandwidth", t->rate_bps);
  lpa_jw_int(&w, "pacing_timer", 1000);
  lpa_jw_string(&w, "client_version", "linkperf-agent");
  lpa_jw_end(&w);
  len = lpa_jw_finish(&w);
  if (len < 0) {
    lpa_i3_fail(s, LPA_ERR_I3_PARAMS_SIZE);
    return -1;
  }
  lp_i3_put_len(p, (uint32_t)len);
  t->out_len = (uint16_t)(t->out_len + 4 + (size_t)len);
  lpa_i3_flush(s);
  return 0;
}

static void send_hello(struct i3_test *t, struct i3_stream *st, lpa_ms_t now) {
  static const uint8_t hello[4] = {LP_WIRE_BE32(LP_I3_UDP_HELLO)};
  (void)t;
  (void)lpa_net_udp_send(st->conn, hello, sizeof(hello), sizeof(hello), NULL, 0);
  st->hello_ms = now;
}

static int open_stream(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  struct i3_stream *st = &t->st[t->nstreams];
  memset(st, 0, sizeof(*st));
  t->nstreams++;
  t->deadline = now + I3_STALL_MS;
  if (t->udp) {
    st->conn = lpa_net_udp_open(0, &s->cfg.peer, s->cfg.port, s);
    if (st->conn != NULL) send_hello(t, st, now);
  } else {
    st->conn = lpa_net_tcp_connect(&s->cfg.peer, s->cfg.port, s);
  }
  if (st->conn == NULL) {
    lpa_i3_fail(s, LPA_ERR_I3_STREAM_OPEN);
    return -1;
  }
  lpa_flow_init(&st->f, st->conn, I3_STREAM_DIR(t, t->nstreams - 1),
                t->udp ? LPA_PROTO_UDP : LPA_PROTO_TCP);
  return 0;
}

/* A stream is ready: open the next, or wait for TEST_START. */
static void stream_ready(struct lpa_session *s, struct i3_stream *st, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  st->ok = 1;
  t->deadline = now + I3_STALL_MS;
  if (t->nstreams < I3_WANT(t)) (void)open_stream(s, now);
}

/* The client's end condition is reached: TEST_END, then the server asks for results. A
 * receiving side (-R, --bidir) goes on counting: the server sends until it reads TEST_END,
 * and what it sent before is on its way, or already in lwIP's mailboxes behind a tick that
 * came late on a busy board. The receiving flows end when the results are asked for
 * (collect_tick), as the agent's server counts what is in flight after TEST_END. */
static int end_test(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  if (t->bidir) lpa_i3_finish_tx(s, now);
  if (I3_RECEIVES(t)) t->end_ms = now;
  else lpa_i3_finish(s, lpa_i3_tx_end(t, now));
  t->phase = PH_ENDED;
  t->deadline = now + I3_STALL_MS;
  return lpa_i3_send_state(s, LP_I3_TEST_END);
}

static struct lpa_flow *rx_sum(struct i3_test *t) {
  lpa_i3_sum_sync(t);
  return t->sum.dir == LPA_DIR_RX ? &t->sum : &t->sum2;
}

static int send_results(struct lpa_session *s) {
  struct i3_test *t = I3(s);
  t->phase = PH_RESULTS;
  return lpa_i3_send_results(s, 1);
}

/* EXCHANGE_RESULTS came: the server has stopped sending, and everything it sent arrived
 * before this message or was dropped on the way. The back ends read every connection before
 * they tick, so a tick with no more bytes than the one before means lwIP holds nothing more
 * for the receiving streams: they end at their last arrival (or TEST_END) and the results
 * go out. The raw back end has delivered it all already: the first tick sends. */
static void collect_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  struct lpa_flow *rx = rx_sum(t);
  lpa_ms_t end = t->end_ms;
  if (rx->bytes != t->rx_mark && !LPA_DUE(now, t->deadline)) {
    t->rx_mark = rx->bytes;
    return;
  }
  if (LPA_LATER(rx->last_ms, end)) end = rx->last_ms;
  lpa_i3_finish(s, end);
  t->deadline = now + I3_STALL_MS;
  (void)send_results(s);
}

static uint8_t server_error(uint32_t e) {
  switch (e) {
  case LP_I3E_DURATION:
  case LP_I3E_MAXDURATION: return LPA_ERR_I3_REFUSED_DURATION;
  case LP_I3E_TESTEXPIRED: return LPA_ERR_I3_EXPIRED;
  case LP_I3E_NUMSTREAMS: return LPA_ERR_I3_REFUSED_STREAMS;
  case LP_I3E_BLOCKSIZE: return LPA_ERR_I3_REFUSED_BLOCKSIZE;
  case LP_I3E_UNIMP: return LPA_ERR_I3_REFUSED_UNIMP;
  case LP_I3E_AUTHTEST: return LPA_ERR_I3_REFUSED_AUTH;
  default: return LPA_ERR_I3_REFUSED;
  }
}

static int cli_state(struct lpa_session *s, uint8_t b, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  lpa_i3_expect(t, RD_STATE, 1);
  t->deadline = now + I3_STALL_MS;
  switch (b) {
  case LP_I3_PARAM_EXCHANGE:
    if (t->phase != PH_PARAMS) break;
    return send_params(s);
  case LP_I3_CREATE_STREAMS:
    if (t->phase != PH_PARAMS) break;
    t->phase = PH_STREAMS;
    return open_stream(s, now);
  case LP_I3_TEST_START:
    return 0;
  case LP_I3_TEST_RUNNING:
    if (t->run_early && t->phase != PH_STREAMS) { /* cli_udp started the test already */
      t->run_early = 0;
      return 0;
    }
    /* The server answers a UDP stream's hello over UDP and then says TEST_START/RUNNING over
     * TCP; a thread back end may read the control connection first. The server would not be
     * running without the stream, so the last stream counts as ready. */
    if (t->phase == PH_STREAMS && t->nstreams == I3_WANT(t) && !t->st[t->nstreams - 1].ok)
      t->st[t->nstreams - 1].ok = 1;
    if (t->phase != PH_STREAMS || t->nstreams != I3_WANT(t)) break;
    lpa_i3_run(s, now);
    if (I3_SENDS(t) && lpa_i3_pump(s, now) < 0) return -1;
    return 0;
  case LP_I3_EXCHANGE_RESULTS:
    if (t->phase != PH_ENDED) break;
    lpa_i3_expect(t, RD_LEN, 4);
    if (I3_RECEIVES(t)) {
      t->phase = PH_COLLECT;
      t->rx_mark = rx_sum(t)->bytes;
      t->deadline = now + COLLECT_MAX_MS;
      return 0;
    }
    return send_results(s);
  case LP_I3_DISPLAY_RESULTS:
    if (t->phase != PH_DISPLAY) break;
    if (lpa_i3_send_state(s, LP_I3_IPERF_DONE) < 0) return -1;
    lpa_i3_close_all(s); /* a graceful close: IPERF_DONE goes out before the FIN */
    return -1;
  case LP_I3_SERVER_TERMINATE:
    lpa_i3_fail(s, LPA_ERR_I3_SERVER_TERMINATED);
    return -1;
  case (uint8_t)LP_I3_ACCESS_DENIED:
    lpa_i3_fail(s, LPA_ERR_I3_SERVER_BUSY);
    return -1;
  case (uint8_t)LP_I3_SERVER_ERROR:
    lpa_i3_expect(t, RD_ERRNO, 4);
    return 0;
  default:
    break;
  }
  lpa_i3_fail(s, LPA_ERR_I3_SERVER_MSG);
  return -1;
}

static int cli_item(struct lpa_session *s, uint8_t rd) {
  struct i3_test *t = I3(s);
  lpa_ms_t now = lpa_now_ms();
  if (rd == RD_STATE) return cli_state(s, t->hdr[0], now);
  if (rd == RD_ERRNO) {
    lpa_i3_fail(s, server_error(lp_wire_get32(t->hdr)));
    return -1;
  }
  if (rd == RD_BODY && t->phase == PH_RESULTS) {
    if (lpa_i3_peer_results(s) < 0) {
      lpa_i3_fail(s, LPA_ERR_I3_SERVER_RESULTS);
      return -1;
    }
    t->have = 0;
    t->phase = PH_DISPLAY;
    t->deadline = now + I3_STALL_MS;
    lpa_i3_expect(t, RD_STATE, 1);
    return 0;
  }
  lpa_i3_fail(s, LPA_ERR_I3_MSG);
  return -1;
}

static void cli_connected(struct lpa_session *s, struct lpa_conn *c, int ok) {
  struct i3_test *t = I3(s);
  lpa_ms_t now = lpa_now_ms();
  int i;
  if (c == t->ctrl) {
    if (!ok) {
      t->ctrl = NULL;
      lpa_i3_fail(s, LPA_ERR_I3_SERVER_CONNECT);
      return;
    }
    make_cookie(s, t->cookie);
    t->phase = PH_PARAMS;
    t->deadline = now + I3_STALL_MS;
    lpa_i3_expect(t, RD_STATE, 1);
    (void)lpa_i3_send(s, t->cookie, LP_I3_COOKIE_SIZE);
    return;
  }
  i = lpa_i3_find_stream(t, c);
  if (i < 0) return;
  if (!ok) {
    t->st[i].conn = NULL;
    lpa_i3_fail(s, LPA_ERR_I3_STREAM_CONNECT);
    return;
  }
  if (lpa_net_tcp_send(c, t->cookie, LP_I3_COOKIE_SIZE, 0) != (long)LP_I3_COOKIE_SIZE) {
    lpa_i3_fail(s, LPA_ERR_I3_COOKIE);
    return;
  }
  stream_ready(s, &t->st[i], now);
}

static void check_rx_end(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  if (t->phase != PH_RUNNING || !t->reverse) return;
  lpa_i3_sum_sync(t);
  if ((t->amount != 0 && t->sum.bytes >= t->amount) ||
      (t->dur_ms != 0 && now - t->run_ms >= t->omit_ms + t->dur_ms))
    (void)end_test(s, now);
}

static void cli_recv(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n) {
  struct i3_test *t = I3(s);
  lpa_ms_t now = lpa_now_ms();
  int i;
  if (c == t->ctrl) {
    if (n != 0) (void)lpa_i3_feed(s, d, n, cli_item);
    else if (t->phase == PH_DISPLAY) lpa_i3_close_all(s);
    else lpa_i3_fail(s, LPA_ERR_I3_SERVER_CLOSED);
    return;
  }
  if ((i = lpa_i3_find_stream(t, c)) < 0) return;
  if (n == 0) {
    t->st[i].conn = NULL;
    t->st[i].f.conn = NULL;
    lpa_net_close(c);
    if (t->phase == PH_RUNNING) lpa_i3_fail(s, LPA_ERR_I3_SERVER_STREAM_CLOSED);
    return;
  }
  lpa_i3_rx(s, &t->st[i].f, n, now);
  if (t->amount != 0) check_rx_end(s, now);
}

static void cli_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                    const ip_addr_t *from, uint16_t port, uint32_t arrival_us) {
  struct i3_test *t = I3(s);
  int i = lpa_i3_find_stream(t, c);
  lpa_ms_t now = lpa_now_ms();
  (void)from;
  (void)port;
  if (i < 0) return;
  if (!t->st[i].ok) {
    /* The reply: "6789" from 3.12 on, other 4 bytes from older servers. */
    if (n == 4 && t->phase == PH_STREAMS) stream_ready(s, &t->st[i], now);
    return;
  }
  if (t->phase == PH_STREAMS && t->nstreams == I3_WANT(t) &&
      n >= lp_i3_udp_hdr_len(t->use64 != 0)) {
    /* Data before TEST_RUNNING was read: a stock server sends none before it sent
     * TEST_RUNNING, but a thread back end reads the sockets one after the other (the UDP
     * one may be read first, or TEST_RUNNING may land just after the control socket was
     * read). Start the test now, as TEST_RUNNING would, so this datagram and those behind
     * it are counted, not dropped by a flow that is not running yet and later reported
     * lost with no drop anywhere. */
    t->st[t->nstreams - 1].ok = 1;
    t->run_early = 1;
    lpa_i3_run(s, now);
    if (I3_SENDS(t) && lpa_i3_pump(s, now) < 0) return;
    if (!s->used || I3(s) != t) return;
  }
  lpa_i3_udp_rx(s, &t->st[i].f, d, n, arrival_us);
  if (t->amount != 0) check_rx_end(s, now);
}

static void cli_sendable(struct lpa_session *s, struct lpa_conn *c) {
  struct i3_test *t = I3(s);
  if (c == t->ctrl) lpa_i3_flush(s);
  else if (t->phase == PH_RUNNING && I3_SENDS(t)) (void)lpa_i3_pump(s, lpa_now_ms());
}

static void cli_error(struct lpa_session *s, struct lpa_conn *c) {
  struct i3_test *t = I3(s);
  int i;
  if (c == t->ctrl) {
    t->ctrl = NULL;
    if (t->phase == PH_DISPLAY) lpa_i3_close_all(s);
    else lpa_i3_fail(s, LPA_ERR_I3_CTRL_RESET);
    return;
  }
  if ((i = lpa_i3_find_stream(t, c)) < 0) return;
  t->st[i].conn = NULL;
  t->st[i].f.conn = NULL;
  if (t->phase <= PH_RUNNING) lpa_i3_fail(s, LPA_ERR_I3_DATA_RESET);
}

static int all_acked(const struct i3_test *t) {
  int i;
  for (i = 0; i < t->nstreams; i++)
    if (t->st[i].conn != NULL && lpa_net_tcp_unacked(t->st[i].conn) != 0) return 0;
  return 1;
}

static void cli_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  int r;
  if (t->out_len != 0) lpa_i3_flush(s); /* one the stack had no memory for (see srv_tick) */
  switch (t->phase) {
  case PH_RUNNING:
    lpa_i3_intervals(s, now);
    if (t->reverse) {
      check_rx_end(s, now);
      if (s->used && I3(s) == t && t->phase == PH_RUNNING && now - t->sum.last_ms > I3_IDLE_MS)
        lpa_i3_fail(s, LPA_ERR_I3_SERVER_IDLE);
      return;
    }
    r = lpa_i3_pump(s, now);
    if (r <= 0) return;
    if (t->amount != 0 && !t->udp) { /* -n: end when the server has it all, not when queued */
      t->phase = PH_FLUSH;
      t->deadline = now + FLUSH_MAX_MS;
      return;
    }
    (void)end_test(s, now);
    return;
  case PH_COLLECT:
    collect_tick(s, now);
    return;
  case PH_FLUSH:
    if (all_acked(t) || LPA_DUE(now, t->deadline)) {
      t->phase = PH_RUNNING;
      (void)end_test(s, now);
    }
    return;
  case PH_STREAMS:
    if (t->udp && t->nstreams != 0 && !t->st[t->nstreams - 1].ok &&
        now - t->st[t->nstreams - 1].hello_ms >= HELLO_RETRY_MS)
      send_hello(t, &t->st[t->nstreams - 1], now);
    break;
  default:
    break;
  }
  if (LPA_DUE(now, t->deadline)) lpa_i3_fail(s, LPA_ERR_I3_SERVER_STALL);
}

static void cli_stop(struct lpa_session *s) {
  struct i3_test *t = I3(s);
  if (t->ctrl != NULL && t->phase >= PH_PARAMS && lpa_i3_send_state(s, LP_I3_CLIENT_TERMINATE) < 0)
    return;
  lpa_i3_fail(s, LPA_ERR_STOPPED);
}

static const struct lpa_proto_ops cli_ops = {NULL,      cli_connected, cli_recv, cli_sendable,
                                             cli_error, cli_udp,       cli_tick, cli_stop};

int lpa_i3_client_start(struct lpa_session *s) {
  const struct lpa_config *cfg = &s->cfg;
  struct i3_test *t;
  unsigned par = cfg->streams != 0 ? cfg->streams : 1u;
  if (cfg->mode != LPA_MODE_ONEWAY && cfg->mode != LPA_MODE_REVERSE && cfg->mode != LPA_MODE_DUAL)
    return LPA_EINVAL;
  if (par * (cfg->mode == LPA_MODE_DUAL ? 2u : 1u) > LPA_MAX_STREAMS) return LPA_EINVAL;
  if (cfg->proto == LPA_PROTO_UDP && cfg->len < 16) return LPA_EINVAL;
  if (cfg->omit_s > I3_OMIT_MAX) return LPA_EINVAL;
  t = lpa_i3_alloc(s, I3_CLIENT);
  if (t == NULL) return LPA_EBUSY;
  t->udp = cfg->proto == LPA_PROTO_UDP;
  t->reverse = cfg->mode == LPA_MODE_REVERSE;
  t->bidir = cfg->mode == LPA_MODE_DUAL;
  t->dir0 = t->reverse ? LPA_DIR_RX : LPA_DIR_TX;
  t->parallel = (uint8_t)par;
  t->omit_ms = (uint32_t)cfg->omit_s * 1000u;
  t->len = cfg->len != 0 ? cfg->len : t->udp ? 1460u : 131072u;
  t->rate_bps = cfg->rate_bps;
  t->amount = cfg->amount_bytes;
  t->time_s = t->amount != 0 ? 0 : (cfg->duration_ms + 999u) / 1000u;
  t->dur_ms = t->amount != 0 ? 0 : cfg->duration_ms;
  t->deadline = lpa_now_ms() + I3_STALL_MS;
  ip_addr_copy(s->peer, cfg->peer);
  s->peer_port = cfg->port;
  s->ops = &cli_ops;
  t->ctrl = lpa_net_tcp_connect(&cfg->peer, cfg->port, s);
  if (t->ctrl == NULL) {
    t->used = 0;
    lpa_i3[s->index].t = NULL;
    lpa_i3[s->index].kind = 0;
    return LPA_ENET;
  }
  return 0;
}

#else
typedef int lpa_iperf3_client_not_selected; /* ISO C wants something in every translation unit */
#endif

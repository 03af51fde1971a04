/* iperf3 over lwIP: the control channel (cookie, state bytes, length-prefixed JSON), data
 * streams, the results exchange, and the server (one test at a time, like iperf3: a second
 * client is told ACCESS_DENIED). The client is in lpa_iperf3_client.c. Every byte from the
 * network is untrusted: reads are bounded by LPA_IPERF3_JSON_MAX and every handshake step
 * times out. --bidir runs both directions at once (the second half of the streams flows
 * back); -O (omit): the first seconds are sent but not counted. */
#include <string.h>

#include "lpa_iperf3.h"

#if LPA_IPERF3

struct i3_slot lpa_i3[LPA_MAX_SESSIONS];
static struct i3_test pool[LPA_IPERF3_TESTS];

#define DRAIN_QUIET_MS 100u /* after TEST_END, in-flight data counts until 100 ms of quiet */
#define DRAIN_MAX_MS 2000u  /* ... or for 2 s at most */
#define EXPIRE_LINGER_MS 2000u /* a test ended at the server's limit waits for the client */

struct i3_test *lpa_i3_alloc(struct lpa_session *s, uint8_t kind) {
  int i;
  for (i = 0; i < LPA_IPERF3_TESTS; i++) {
    struct i3_test *t = &pool[i];
    if (t->used) continue;
    memset(t, 0, sizeof(*t));
    t->used = 1;
    lpa_i3[s->index].kind = kind;
    lpa_i3[s->index].t = t;
    return t;
  }
  return NULL;
}

static void close_conn(struct lpa_conn **c) {
  if (*c != NULL) lpa_net_close(*c);
  *c = NULL;
}

void lpa_i3_close_all(struct lpa_session *s) {
  struct i3_slot *slot = &lpa_i3[s->index];
  struct i3_test *t = slot->t;
  int i;
  if (t != NULL) {
    close_conn(&t->ctrl);
    for (i = 0; i < LPA_MAX_STREAMS; i++) {
      close_conn(&t->st[i].conn);
      close_conn(&t->pend[i].conn);
    }
    close_conn(&t->udp_ep);
    if (t->parent != NULL && t->parent->used && lpa_i3[t->parent->index].kind == I3_LISTENER &&
        lpa_i3[t->parent->index].test == s)
      lpa_i3[t->parent->index].test = NULL;
    t->used = 0;
  }
  close_conn(&slot->listen);
  slot->t = NULL;
  slot->test = NULL;
  slot->kind = 0;
  lpa_session_end(s);
}

void lpa_i3_fail(struct lpa_session *s, uint8_t why) {
  struct i3_test *t = I3(s);
  lpa_report_error(s, why);
  if (t != NULL && (t->sum.state == LPA_FLOW_RUNNING || t->sum2.state == LPA_FLOW_RUNNING))
    lpa_i3_finish(s, lpa_now_ms());
  lpa_i3_close_all(s);
}

void lpa_i3_report_start(struct lpa_session *s, uint8_t dir) {
  struct lpa_report r;
  memset(&r, 0, sizeof(r));
  r.kind = LPA_REPORT_START;
  r.dir = dir & 1u;
  r.stream = (uint8_t)(dir >> 1);
  lpa_report_emit(s, &r);
}

/* ---- control channel ---- */

void lpa_i3_flush(struct lpa_session *s) {
  struct i3_test *t = I3(s);
  while (t->out_off < t->out_len && t->ctrl != NULL) {
    long n = lpa_net_tcp_send(t->ctrl, t->buf + t->out_off, t->out_len - t->out_off, LPA_SEND_NOW);
    if (n <= 0) return; /* full: on_sendable calls again; broken: on_error follows */
    t->out_off = (uint16_t)(t->out_off + n);
  }
  if (t->out_off == t->out_len) t->out_off = t->out_len = 0;
}

int lpa_i3_send(struct lpa_session *s, const void *data, size_t n) {
  struct i3_test *t = I3(s);
  if (n > sizeof(t->buf) - t->out_len || (t->rd == RD_BODY && t->have != 0)) {
    lpa_i3_fail(s, LPA_ERR_I3_OUTPUT);
    return -1;
  }
  memcpy(t->buf + t->out_len, data, n);
  t->out_len = (uint16_t)(t->out_len + n);
  lpa_i3_flush(s);
  return 0;
}

int lpa_i3_send_state(struct lpa_session *s, uint8_t state) { return lpa_i3_send(s, &state, 1); }

void lpa_i3_expect(struct i3_test *t, uint8_t rd, uint32_t need) {
  t->rd = rd;
  t->need = need;
  t->have = 0;
}

int lpa_i3_feed(struct lpa_session *s, const uint8_t *d, size_t n, lpa_i3_item_fn item) {
  struct i3_test *t = I3(s);
  while (n > 0) {
    uint8_t *dst;
    size_t take;
    uint8_t rd = t->rd;
    if (rd == RD_NONE) {
      lpa_i3_fail(s, LPA_ERR_I3_CTRL_DATA);
      return -1;
    }
    dst = rd == RD_COOKIE ? (uint8_t *)t->cookie : rd == RD_BODY ? t->buf : t->hdr;
    take = t->need - t->have;
    if (take > n) take = n;
    memcpy(dst + t->have, d, take);
    t->have += (uint32_t)take;
    d += take;
    n -= take;
    if (t->have < t->need) break;
    if (rd == RD_LEN) {
      uint32_t len = lp_i3_get_len(t->hdr);
      if (len == 0 || len > LPA_IPERF3_JSON_MAX) {
        lpa_i3_fail(s, LPA_ERR_I3_JSON_SIZE);
        return -1;
      }
      if (t->out_len != 0) {
        lpa_i3_fail(s, LPA_ERR_I3_JSON_EARLY);
        return -1;
      }
      lpa_i3_expect(t, RD_BODY, len);
      continue;
    }
    t->rd = RD_NONE; /* the handler says what comes next */
    if (item(s, rd) < 0 || !s->used || I3(s) != t) return -1;
  }
  return 0;
}

/* ---- streams ---- */

static size_t udp_head(void *ctx, struct lpa_flow *f, uint8_t *h) {
  struct i3_test *t = (struct i3_test *)ctx;
  uint64_t now = LPA_WALL_US();
  struct lp_i3_udp_hdr u;
  u.sec = (uint32_t)(now / 1000000u);
  u.usec = (uint32_t)(now % 1000000u);
  u.seq = f->seq + 1; /* the datagram after those sent */
  return lp_i3_udp_hdr_put(h, LP_I3_UDP_HDR64, &u, t->use64 != 0);
}

/* A receiver's clock starts with the first data, not at TEST_RUNNING: the sender starts when
 * TEST_RUNNING reaches it, which lwIP's Nagle can delay by the peer's delayed ACK (40 ms). */
static void rx_first(struct lpa_session *s, struct i3_test *t, lpa_ms_t now) {
  int i;
  if (t->rx_seen) return;
  t->rx_seen = 1;
  if (!t->bidir) t->run_ms = now; /* --bidir: the sending half keeps its clock */
  for (i = 0; i < t->nstreams; i++) {
    struct lpa_flow *f = &t->st[i].f;
    if (f->state == LPA_FLOW_RUNNING && f->dir == LPA_DIR_RX) f->start_ms = f->ivl.at_ms = now;
  }
  lpa_flow_start(s, t->sum.dir == LPA_DIR_RX ? &t->sum : &t->sum2, now);
  if (!t->bidir && t->omit_wait) t->omit_at = now + t->omit_ms;
}

void lpa_i3_rx(struct lpa_session *s, struct lpa_flow *f, size_t n, lpa_ms_t now) {
  if (f->state != LPA_FLOW_RUNNING || f->dir != LPA_DIR_RX) return;
  rx_first(s, I3(s), now);
  lpa_flow_rx(f, n, now);
}

void lpa_i3_udp_rx(struct lpa_session *s, struct lpa_flow *f, const uint8_t *d, size_t n,
                   uint32_t arrival_us) {
  struct i3_test *t = I3(s);
  lpa_ms_t now = lpa_now_ms();
  struct lp_i3_udp_hdr u;
  if (f->state != LPA_FLOW_RUNNING || f->dir != LPA_DIR_RX ||
      !lp_i3_udp_hdr_get(d, n, &u, t->use64 != 0))
    return;
  rx_first(s, t, now);
  lpa_flow_udp_rx(f, u.seq, u.sec * 1000000u + u.usec, arrival_us); /* modulo 2^32 */
  lpa_flow_rx(f, n, now);
}

/* TEST_RUNNING: every stream's flow and the sum flows start now; senders get their limits
 * (the byte or block count is shared out over a direction's streams, as iperf3 counts it in
 * total). */
void lpa_i3_run(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  uint8_t proto = t->udp ? LPA_PROTO_UDP : LPA_PROTO_TCP;
  int i;
  t->run_ms = now;
  t->omit_wait = t->omit_ms != 0;
  t->omit_at = now + t->omit_ms;
  for (i = 0; i < t->nstreams; i++) {
    struct lpa_flow *f = &t->st[i].f;
    uint64_t k = (uint64_t)(i < t->parallel ? i : i - t->parallel); /* within its direction */
    f->dir = I3_STREAM_DIR(t, i);
    f->proto = proto;
    lpa_flow_start(s, f, now);
    f->interim = 0; /* the sums report */
    if (f->dir != LPA_DIR_TX) continue;
    f->limit_ms = t->dur_ms != 0 ? t->omit_ms + t->dur_ms : 0; /* iperf3: -t after -O */
    f->amount = t->amount / t->parallel + (k < t->amount % t->parallel ? 1u : 0u);
    if (t->amount != 0 && f->amount == 0) f->state = LPA_FLOW_DONE;
    f->rate_bps = t->rate_bps;
    f->len = t->len;
  }
  lpa_flow_init(&t->sum, NULL, t->dir0, proto);
  lpa_i3_report_start(s, t->dir0);
  lpa_flow_start(s, &t->sum, now);
  if (t->bidir) {
    lpa_flow_init(&t->sum2, NULL, (uint8_t)((t->dir0 ^ 1u) | LPA_SECOND), proto);
    lpa_i3_report_start(s, (uint8_t)((t->dir0 ^ 1u) | LPA_SECOND));
    lpa_flow_start(s, &t->sum2, now);
  }
  t->phase = PH_RUNNING;
}

/* A sum flow mirrors the counters of the streams of its direction. */
static void sum_sync(struct i3_test *t, struct lpa_flow *sum) {
  uint64_t bytes = 0, seq = 0, jit = 0;
  lpa_ms_t last = sum->start_ms;
  struct lpa_udp_rx rx;
  int i, n = 0;
  memset(&rx, 0, sizeof(rx));
  for (i = 0; i < t->nstreams; i++) {
    const struct lpa_flow *f = &t->st[i].f;
    const struct lpa_flow_mark *om = &t->st[i].om; /* zero without -O */
    if (f->dir != sum->dir) continue;
    n++;
    bytes += f->bytes - om->bytes;
    seq += f->seq - (f->dir == LPA_DIR_TX ? om->seq : 0);
    rx.max_seq += f->rx.max_seq - (f->dir == LPA_DIR_RX ? om->seq : 0);
    rx.lost_raw += f->rx.lost_raw - om->lost;
    rx.out_of_order += f->rx.out_of_order - om->ooo;
    jit += f->rx.jitter_us16;
    if (LPA_LATER(f->last_ms, last)) last = f->last_ms;
  }
  if (n != 0) rx.jitter_us16 = (uint32_t)(jit / (uint64_t)n);
  sum->bytes = bytes;
  sum->seq = seq;
  sum->rx = rx;
  sum->last_ms = last;
}

/* The sum flows mirror the streams' counters, so reports cover the whole test. */
void lpa_i3_sum_sync(struct i3_test *t) {
  sum_sync(t, &t->sum);
  if (t->bidir) sum_sync(t, &t->sum2);
}

/* -O: the omitted seconds are over: what the streams counted so far is marked off and the sum
 * flows start again (their reports count from here, as iperf3's do). */
static void omit_check(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  int i;
  if (!t->omit_wait || !LPA_DUE(now, t->omit_at)) return;
  t->omit_wait = 0;
  t->omitted = 1;
  for (i = 0; i < t->nstreams; i++) {
    const struct lpa_flow *f = &t->st[i].f;
    struct lpa_flow_mark *om = &t->st[i].om;
    om->at_ms = now;
    om->bytes = f->bytes;
    om->seq = f->dir == LPA_DIR_TX ? f->seq : f->rx.max_seq;
    om->lost = f->rx.lost_raw;
    om->ooo = f->rx.out_of_order;
  }
  if (t->sum.state == LPA_FLOW_RUNNING) lpa_flow_start(s, &t->sum, now);
  if (t->bidir && t->sum2.state == LPA_FLOW_RUNNING) lpa_flow_start(s, &t->sum2, now);
}

void lpa_i3_intervals(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  /* The intervals due before the omitted seconds end are shown, tagged, as iperf3 does;
   * then the sums start again. */
  t->sum.omitting = t->sum2.omitting = t->omit_wait;
  lpa_i3_sum_sync(t);
  lpa_flow_interval(s, &t->sum, now);
  if (t->bidir) lpa_flow_interval(s, &t->sum2, now);
  omit_check(s, now);
}

/* The sending half of a --bidir test has ended (its final report) while the other half still
 * counts what is in flight. */
void lpa_i3_finish_tx(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  struct lpa_flow *sum = t->sum.dir == LPA_DIR_TX ? &t->sum : &t->sum2;
  int i;
  if (t->tx_ended) return;
  omit_check(s, now);
  t->tx_ended = 1;
  t->tx_end = lpa_i3_tx_end(t, now);
  if (LPA_LATER(t->run_ms, t->tx_end)) t->tx_end = t->run_ms;
  lpa_i3_sum_sync(t);
  for (i = 0; i < t->nstreams; i++)
    if (t->st[i].f.dir == LPA_DIR_TX && t->st[i].f.state == LPA_FLOW_RUNNING)
      t->st[i].f.state = LPA_FLOW_DONE;
  lpa_flow_finish(s, sum, t->tx_end);
}

void lpa_i3_finish(struct lpa_session *s, lpa_ms_t end) {
  struct i3_test *t = I3(s);
  int i;
  omit_check(s, end);
  lpa_i3_sum_sync(t);
  for (i = 0; i < t->nstreams; i++)
    if (t->st[i].f.state == LPA_FLOW_RUNNING) t->st[i].f.state = LPA_FLOW_DONE;
  if (LPA_LATER(t->run_ms, end)) end = t->run_ms;
  t->end_ms = end;
  lpa_flow_finish(s, &t->sum, end);
  if (t->bidir) lpa_flow_finish(s, &t->sum2, end);
}

/* When sending ended: the last write of sending streams that all reached their limit, else
 * now. */
lpa_ms_t lpa_i3_tx_end(const struct i3_test *t, lpa_ms_t now) {
  lpa_ms_t end = t->run_ms;
  int i;
  for (i = 0; i < t->nstreams; i++) {
    if (t->st[i].f.dir != LPA_DIR_TX) continue;
    if (t->st[i].f.state == LPA_FLOW_RUNNING) return now;
    if (LPA_LATER(t->st[i].f.last_ms, end)) end = t->st[i].f.last_ms;
  }
  return end;
}

/* Sends what the sending streams may send now. Returns 1 when all have reached their limit,
 * 0 otherwise, -1 when the session ended (a broken connection). */
int lpa_i3_pump(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  int j, running = 0;
  /* Round robin: a call starts after the stream that last got data out. On a small heap
   * (lwIP's default 1600 bytes) the first stream would otherwise take all an ACK freed, every
   * time, and the others never send (a stock server showed -P 2's second stream with 0 bytes). */
  uint8_t first = t->pump_first < t->nstreams ? t->pump_first : 0;
  for (j = 0; j < t->nstreams; j++) {
    int i = (first + j) % t->nstreams;
    struct i3_stream *st = &t->st[i];
    struct lpa_flow *f = &st->f;
    int r;
    if (f->state != LPA_FLOW_RUNNING || f->dir != LPA_DIR_TX) continue;
    if (t->udp) {
      int server = lpa_i3[s->index].kind == I3_SERVER;
      r = lpa_flow_pump(f, now, udp_head, t, server ? &st->ip : NULL, server ? st->port : 0);
    } else if (f->conn == NULL) {
      r = 1;
    } else {
      uint64_t before = f->bytes;
      r = lpa_flow_pump(f, now, NULL, NULL, NULL, 0);
      if (r < 0) {
        lpa_i3_fail(s, LPA_ERR_I3_SEND_BROKEN);
        return -1;
      }
      if (f->bytes != before) t->pump_first = (uint8_t)(i + 1);
    }
    if (r > 0) f->state = LPA_FLOW_DONE;
    else running = 1;
  }
  return !running;
}

/* ---- results ---- */

/* UDP loss in the omitted seconds: gaps minus late arrivals then, never negative. */
static uint64_t omit_lost(const struct lpa_flow_mark *om) {
  return om->lost > om->ooo ? om->lost - om->ooo : 0;
}

int lpa_i3_send_results(struct lpa_session *s, int flush) {
  struct i3_test *t = I3(s);
  uint8_t *p = t->buf + t->out_len;
  size_t room = sizeof(t->buf) - t->out_len;
  struct lpa_jw w;
  long len;
  int i, sends = t->bidir || t->dir0 == LPA_DIR_TX;
  if (room < 4 + 2) {
    lpa_i3_fail(s, LPA_ERR_I3_OUTPUT);
    return -1;
  }
  lpa_jw_init(&w, (char *)p + 4, room - 4 - 1); /* one byte stays for a state after it */
  lpa_jw_object(&w, NULL);
  lpa_jw_int(&w, "cpu_util_total", 0);
  lpa_jw_int(&w, "cpu_util_user", 0);
  lpa_jw_int(&w, "cpu_util_system", 0);
  /* 0: a sender without retransmit counters; -1: this side only receives */
  lpa_jw_int(&w, "sender_has_retransmits", sends ? 0 : -1);
  lpa_jw_array(&w, "streams");
  for (i = 0; i < t->nstreams; i++) {
    const struct lpa_flow *f = &t->st[i].f;
    const struct lpa_flow_mark *om = &t->st[i].om;
    int udp_rx = t->udp && f->dir == LPA_DIR_RX;
    lpa_ms_t end = f->dir == LPA_DIR_TX && t->tx_ended ? t->tx_end : t->end_ms;
    lpa_ms_t start = t->omitted && LPA_LATER(om->at_ms, f->start_ms) ? om->at_ms
                                                                     : f->start_ms; /* after -O */
    lpa_jw_object(&w, NULL);
    lpa_jw_int(&w, "id", lp_i3_stream_id((unsigned)i));
    lpa_jw_uint(&w, "bytes", f->bytes - om->bytes);
    lpa_jw_int(&w, "retransmits", -1);
    lpa_jw_scaled(&w, "jitter", udp_rx ? f->rx.jitter_us16 / 16 : 0, 6);
    /* UDP counts are totals, as iperf3 sends them; from 3.14 the omitted part goes along (a
     * 3.12 peer subtracts its own omitted count from packets, and shows errors whole). */
    lpa_jw_uint(&w, "errors", udp_rx ? lpa_udp_lost(&f->rx) : 0);
    if (t->omitted) lpa_jw_uint(&w, "omitted_errors", udp_rx ? omit_lost(om) : 0);
    lpa_jw_uint(&w, "packets", !t->udp ? 0 : udp_rx ? f->rx.max_seq : f->seq);
    if (t->omitted) lpa_jw_uint(&w, "omitted_packets", t->udp ? om->seq : 0);
    lpa_jw_int(&w, "start_time", 0);
    lpa_jw_scaled(&w, "end_time", LPA_LATER(end, start) ? (int64_t)(uint32_t)(end - start) * 1000 : 0,
                  6);
    lpa_jw_end(&w);
  }
  lpa_jw_end(&w);
  lpa_jw_end(&w);
  len = lpa_jw_finish(&w);
  if (len < 0) {
    lpa_i3_fail(s, LPA_ERR_I3_RESULTS_SIZE);
    return -1;
  }
  lp_i3_put_len(p, (uint32_t)len);
  t->out_len = (uint16_t)(t->out_len + 4 + (size_t)len);
  if (flush) lpa_i3_flush(s);
  return 0;
}

/* The peer's results JSON (in buf) as a PEER report per direction (one, or two with --bidir,
 * where the stream id says which of ours the peer measured): bytes summed over its streams,
 * the longest stream time, UDP loss and datagrams summed, jitter averaged. */
int lpa_i3_peer_results(struct lpa_session *s) {
  struct i3_test *t = I3(s);
  struct lpa_json root, arr, st, v;
  struct lpa_report r[2];
  int64_t x, end_us[2] = {0, 0}, jit[2] = {0, 0};
  unsigned cnt[2] = {0, 0};
  size_t i;
  int g;
  if (lpa_json_parse((const char *)t->buf, t->have, &root) < 0 ||
      lpa_json_get(&root, "streams", &arr) < 0 || lpa_json_type(&arr) != LPA_JSON_ARRAY)
    return -1;
  memset(r, 0, sizeof(r));
  for (i = 0; i < 128 && lpa_json_index(&arr, i, &st) == 0; i++) {
    struct lpa_report *q;
    int64_t idx = -1, y;
    if (lpa_json_type(&st) != LPA_JSON_OBJECT) return -1;
    /* ids 1, 3, 4, ... are streams 0, 1, 2, ...; the second `parallel` flow back. An id the
     * test does not have counts with the first half (as before ids were checked). */
    if (lpa_json_get_int(&st, "id", &x) == 0)
      idx = x == 1 ? 0 : x >= 3 && x - 2 < t->nstreams ? x - 2 : -1;
    g = t->bidir && idx >= t->parallel ? 1 : 0;
    q = &r[g];
    cnt[g]++;
    if (lpa_json_get_int(&st, "bytes", &x) < 0 || x < 0) return -1;
    q->bytes += (uint64_t)x;
    if (lpa_json_get(&st, "end_time", &v) == 0 && lpa_json_scaled(&v, 6, &x) == 0 &&
        x > end_us[g])
      end_us[g] = x;
    if (lpa_json_get(&st, "jitter", &v) == 0 && lpa_json_scaled(&v, 6, &x) == 0 && x > 0 &&
        x < 86400000000ll)
      jit[g] += x;
    /* UDP counts are totals; the omitted part is taken off as iperf3 does: what a 3.14+ peer
     * says it was, else (3.12) our own count of the stream's omitted datagrams. */
    if (lpa_json_get_int(&st, "errors", &x) == 0 && x > 0) {
      if (lpa_json_get_int(&st, "omitted_errors", &y) == 0 && y > 0) x = y < x ? x - y : 0;
      q->lost += (uint64_t)x;
    }
    if (lpa_json_get_int(&st, "packets", &x) == 0 && x > 0) {
      if (lpa_json_get_int(&st, "omitted_packets", &y) < 0)
        y = idx >= 0 && t->st[idx].om.seq < (uint64_t)INT64_MAX ? (int64_t)t->st[idx].om.seq : 0;
      if (y > 0) x = y < x ? x - y : 0;
      q->packets += (uint64_t)x;
    }
  }
  for (g = 0; g < (t->bidir ? 2 : 1); g++) {
    struct lpa_report *q = &r[g];
    int64_t e = end_us[g];
    q->kind = LPA_REPORT_PEER;
    /* A PEER report names this side's direction (lpa.h): the peer measured the other end. */
    q->dir = (uint8_t)(g == 0 ? t->dir0 : t->dir0 ^ 1u);
    q->stream = (uint8_t)g;
    if (e <= 0) e = (int64_t)(uint32_t)(t->end_ms - t->run_ms) * 1000; /* pre-3.2 peer: ours */
    if (e > 86400000000ll * 2) e = 86400000000ll * 2;
    q->end_ms = (uint32_t)(e / 1000);
    q->bps = e > 0 ? q->bytes * 8000000u / (uint64_t)e : 0;
    if (cnt[g] != 0) q->jitter_us = (uint32_t)(jit[g] / (int64_t)cnt[g]);
    if (q->packets > 0 && q->lost > q->packets) q->lost = q->packets;
    lpa_report_emit(s, q);
  }
  return 0;
}

/* The index of the data stream on connection c, or -1. */
int lpa_i3_find_stream(const struct i3_test *t, const struct lpa_conn *c) {
  int i;
  for (i = 0; i < t->nstreams; i++)
    if (t->st[i].conn == c) return i;
  return -1;
}

#if LPA_SERVER

/* ---- server: one test ---- */

static const struct lpa_proto_ops srv_ops;

static void deny(struct lpa_conn *c) {
  static const uint8_t busy = (uint8_t)LP_I3_ACCESS_DENIED;
  (void)lpa_net_tcp_send(c, &busy, 1, 0);
  lpa_net_close(c);
}

/* SERVER_ERROR with iperf3's error number as a client of version peer (0: unknown) numbers
 * it, so that it prints the words, then the end. */
static int refuse(struct lpa_session *s, unsigned peer, int code, uint8_t why) {
  uint8_t m[LP_I3_SERVER_ERROR_LEN];
  lp_i3_server_error_put(m, lp_i3_server_error_for(code, peer));
  if (lpa_i3_send(s, m, sizeof(m)) == 0) lpa_i3_fail(s, why);
  return -1;
}

static int64_t get_int(const struct lpa_json *o, const char *key, int64_t dflt) {
  int64_t v = dflt;
  if (lpa_json_get_int(o, key, &v) < 0) return dflt;
  return v;
}

/* iperf3 3.12 takes a flag's presence as set; later versions want the literal true. */
static int get_flag(const struct lpa_json *o, const char *key) {
  struct lpa_json v;
  int64_t n;
  if (lpa_json_get(o, key, &v) < 0) return 0;
  if (lpa_json_type(&v) == LPA_JSON_TRUE) return 1;
  return lpa_json_int(&v, &n) == 0 && n != 0;
}

static int srv_params(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  struct lpa_json root, v;
  int64_t time_s, num, blocks, len, rate, par, omit;
  char version[24] = "";
  unsigned peer;
  if (lpa_json_parse((const char *)t->buf, t->have, &root) < 0 ||
      lpa_json_type(&root) != LPA_JSON_OBJECT)
    return refuse(s, 0, LP_I3E_RECVPARAMS, LPA_ERR_I3_PARAMS);
  if (lpa_json_get(&root, "client_version", &v) < 0 ||
      lpa_json_string(&v, version, sizeof(version)) < 0)
    version[0] = '\0'; /* unknown: the newest numbering */
  peer = t->peer_version = lp_i3_version_parse(version);
  t->udp = lpa_json_get(&root, "udp", &v) == 0;
  if (!t->udp && lpa_json_get(&root, "tcp", &v) < 0)
    return refuse(s, peer, LP_I3E_UNIMP, LPA_ERR_I3_PROTO);
  t->bidir = (uint8_t)get_flag(&root, "bidirectional");
  par = get_int(&root, "parallel", 1);
  if (par < 1 || par * (t->bidir ? 2 : 1) > LPA_MAX_STREAMS)
    return refuse(s, peer, LP_I3E_NUMSTREAMS, LPA_ERR_I3_STREAMS);
  time_s = get_int(&root, "time", 10);
  if (time_s < 0 || time_s > 86400)
    return refuse(s, peer, LP_I3E_DURATION, LPA_ERR_I3_DURATION);
  omit = get_int(&root, "omit", 0);
  if (omit < 0 || omit > I3_OMIT_MAX) return refuse(s, peer, LP_I3E_OMIT, LPA_ERR_I3_OMIT);
  /* The server's longest test (duration_ms: the console's --server-max-duration, else
   * LPA_SERVER_MAX_SEND_MS): as linkperf's server does, a test sure to run longer is refused. */
  if ((time_s + omit) * 1000 > (int64_t)s->cfg.duration_ms)
    return refuse(s, peer, LP_I3E_MAXDURATION, LPA_ERR_I3_DURATION);
  t->omit_ms = (uint32_t)omit * 1000u;
  num = get_int(&root, "num", 0);
  blocks = get_int(&root, "blockcount", 0);
  t->reverse = (uint8_t)(!t->bidir && get_flag(&root, "reverse")); /* iperf3: not both */
  t->dir0 = t->reverse ? LPA_DIR_TX : LPA_DIR_RX;
  len = get_int(&root, "len", t->udp ? 1460 : 131072);
  if (t->udp ? (len < 16 || len > 65507 || (I3_SENDS(t) && len > LPA_UDP_MAX_LEN))
             : (len < 1 || len > 1048576))
    return refuse(s, peer, LP_I3E_BLOCKSIZE, LPA_ERR_I3_BLOCKSIZE);
  rate = get_int(&root, "bandwidth", t->udp ? 1048576 : 0);
  t->use64 = (uint8_t)get_flag(&root, "udp_counters_64bit");
  t->parallel = (uint8_t)par;
  t->len = (uint32_t)len;
  t->time_s = (uint32_t)time_s;
  t->rate_bps = rate > 0 ? (uint64_t)rate : 0;
  t->amount = num > 0 ? (uint64_t)num : 0;
  if (t->amount == 0 && blocks > 0 && blocks < INT64_MAX / len) t->amount = (uint64_t)(blocks * len);
  t->dur_ms = t->amount == 0 ? (uint32_t)time_s * 1000u : 0;
  if (t->udp) {
    t->udp_ep = lpa_net_udp_open(s->cfg.port, NULL, 0, s);
    if (t->udp_ep == NULL)
      return refuse(s, peer, LP_I3E_RECVPARAMS, LPA_ERR_I3_UDP_PORT);
  }
  s->cfg.proto = t->udp ? LPA_PROTO_UDP : LPA_PROTO_TCP;
  t->phase = PH_STREAMS;
  t->deadline = now + I3_STALL_MS;
  lpa_i3_expect(t, RD_STATE, 1);
  return lpa_i3_send_state(s, LP_I3_CREATE_STREAMS);
}

/* All streams are connected: the test runs. */
static int srv_begin(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  /* One write: one segment (the control connection has no Nagle, see LPA_SEND_NOW). */
  static const uint8_t go[2] = {LP_I3_TEST_START, LP_I3_TEST_RUNNING};
  if (lpa_i3_send(s, go, sizeof(go)) < 0) return -1;
  lpa_i3_run(s, now);
  if (I3_SENDS(t) && lpa_i3_pump(s, now) < 0) return -1;
  return 0;
}

/* The measured part is over: results are asked for. */
static int srv_end_measure(struct lpa_session *s, lpa_ms_t end, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  lpa_i3_finish(s, end);
  t->phase = PH_RESULTS;
  t->deadline = now + I3_STALL_MS;
  lpa_i3_expect(t, RD_LEN, 4);
  return lpa_i3_send_state(s, LP_I3_EXCHANGE_RESULTS);
}

/* A stock iperf3 3.12 client makes its data sockets blocking after TEST_END and, until the
 * results are shown, reads whatever arrives in whole -l blocks (128 KiB by default). A kernel
 * sender has that much in flight; lwIP's default TCP_SND_BUF is 1072 bytes, so the client sat
 * in read() and the test stalled until the agent gave up 10 s later. So our TCP streams go on
 * sending after TEST_END, uncounted, until the test closes -- after what the control
 * connection has to send, which needs the same heap. */
static void srv_send_tails(struct lpa_session *s) {
  struct i3_test *t = I3(s);
  int i;
  if (!t->tails || t->out_len != 0) return;
  for (i = 0; i < t->nstreams; i++) {
    const struct i3_stream *st = &t->st[i];
    if (st->f.dir == LPA_DIR_TX && st->conn != NULL)
      while (lpa_net_tcp_send(st->conn, lpa_pattern, (size_t)LPA_PATTERN_LEN * LPA_PATTERN_SENDS,
                              LPA_SEND_PATTERN | LPA_SEND_STATIC) > 0) {
      }
  }
}

static int srv_state(struct lpa_session *s, uint8_t b, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  lpa_i3_expect(t, RD_STATE, 1);
  if (b == LP_I3_TEST_START) return 0; /* a client may echo it; iperf3 ignores it too */
  if (b == LP_I3_CLIENT_TERMINATE) {
    lpa_i3_fail(s, LPA_ERR_I3_CLIENT_TERMINATED);
    return -1;
  }
  if (b == LP_I3_TEST_END && t->phase == PH_RUNNING) {
    t->end_ms = now;
    t->tails = !t->udp;
    if (t->reverse) return srv_end_measure(s, lpa_i3_tx_end(t, now), now);
    if (t->bidir) lpa_i3_finish_tx(s, now); /* sending stops; the other half drains */
    /* Data the client wrote before TEST_END may still be on its way: count it. */
    t->phase = PH_DRAIN;
    t->deadline = now + DRAIN_MAX_MS;
    lpa_i3_expect(t, RD_NONE, 0);
    return 0;
  }
  if (b == LP_I3_IPERF_DONE && t->phase == PH_DISPLAY) {
    lpa_i3_close_all(s);
    return -1;
  }
  lpa_i3_fail(s, LPA_ERR_I3_CLIENT_MSG);
  return -1;
}

static int srv_item(struct lpa_session *s, uint8_t rd) {
  struct i3_test *t = I3(s);
  lpa_ms_t now = lpa_now_ms();
  t->deadline = now + I3_STALL_MS;
  if (rd == RD_COOKIE) {
    t->phase = PH_PARAMS;
    lpa_i3_expect(t, RD_LEN, 4);
    return lpa_i3_send_state(s, LP_I3_PARAM_EXCHANGE);
  }
  if (rd == RD_STATE) return srv_state(s, t->hdr[0], now);
  if (rd == RD_BODY && t->phase == PH_PARAMS) return srv_params(s, now);
  if (rd == RD_BODY && t->phase == PH_RESULTS) {
    if (lpa_i3_peer_results(s) < 0) {
      lpa_i3_fail(s, LPA_ERR_I3_CLIENT_RESULTS);
      return -1;
    }
    t->have = 0; /* buf is free again for our results */
    if (lpa_i3_send_results(s, 0) < 0 || lpa_i3_send_state(s, LP_I3_DISPLAY_RESULTS) < 0)
      return -1;
    t->phase = PH_DISPLAY;
    lpa_i3_expect(t, RD_STATE, 1);
    return 0;
  }
  lpa_i3_fail(s, LPA_ERR_I3_MSG);
  return -1;
}

static int find_pending(const struct i3_test *t, const struct lpa_conn *c) {
  int i;
  for (i = 0; i < LPA_MAX_STREAMS; i++)
    if (t->pend[i].conn == c) return i;
  return -1;
}

/* A TCP data connection during CREATE_STREAMS: its cookie decides. */
static void srv_add_pending(struct lpa_session *s, struct lpa_conn *c) {
  struct i3_test *t = I3(s);
  int i = find_pending(t, NULL);
  if (i < 0 || t->nstreams >= I3_WANT(t)) {
    deny(c);
    return;
  }
  t->pend[i].conn = c;
  t->pend[i].have = 0;
  lpa_net_set_owner(c, s);
}

static void srv_pending_rx(struct lpa_session *s, int pi, const uint8_t *d, size_t n) {
  struct i3_test *t = I3(s);
  struct lpa_conn *c = t->pend[pi].conn;
  struct i3_stream *st;
  size_t take = LP_I3_COOKIE_SIZE - t->pend[pi].have;
  lpa_ms_t now = lpa_now_ms();
  if (take > n) take = n;
  if (n == 0 || memcmp(d, t->cookie + t->pend[pi].have, take) != 0 ||
      t->nstreams >= I3_WANT(t)) {
    t->pend[pi].conn = NULL;
    if (n == 0) lpa_net_close(c);
    else deny(c); /* iperf3 answers a wrong cookie with ACCESS_DENIED; the test goes on */
    return;
  }
  t->pend[pi].have = (uint8_t)(t->pend[pi].have + take);
  if (t->pend[pi].have < LP_I3_COOKIE_SIZE) return;
  t->pend[pi].conn = NULL;
  st = &t->st[t->nstreams++];
  memset(st, 0, sizeof(*st));
  st->conn = c;
  lpa_flow_init(&st->f, c, LPA_DIR_RX, LPA_PROTO_TCP);
  t->deadline = now + I3_STALL_MS;
  if (t->nstreams == I3_WANT(t)) (void)srv_begin(s, now);
}

static void srv_recv(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n) {
  struct i3_test *t = I3(s);
  int i;
  if (c == t->ctrl) {
    if (n != 0) {
      (void)lpa_i3_feed(s, d, n, srv_item);
    } else if (t->phase == PH_DISPLAY) {
      lpa_i3_close_all(s); /* EOF instead of IPERF_DONE: the results were exchanged */
    } else {
      lpa_i3_fail(s, LPA_ERR_I3_CLIENT_CLOSED);
    }
    return;
  }
  i = lpa_i3_find_stream(t, c);
  if (i >= 0) {
    struct lpa_flow *f = &t->st[i].f;
    if (n == 0) { /* the client closed a data stream: nothing more comes on it */
      t->st[i].conn = NULL;
      f->conn = NULL;
      lpa_net_close(c);
    } else {
      lpa_i3_rx(s, f, n, lpa_now_ms());
    }
    return;
  }
  i = find_pending(t, c);
  if (i >= 0) {
    size_t take = LP_I3_COOKIE_SIZE - t->pend[i].have;
    srv_pending_rx(s, i, d, n < take ? n : take);
    if (n > take && s->used && I3(s) == t && (i = lpa_i3_find_stream(t, c)) >= 0)
      lpa_i3_rx(s, &t->st[i].f, n - take, lpa_now_ms());
  }
}

static void srv_sendable(struct lpa_session *s, struct lpa_conn *c) {
  struct i3_test *t = I3(s);
  if (c == t->ctrl) lpa_i3_flush(s);
  else if (t->phase == PH_RUNNING && I3_SENDS(t)) (void)lpa_i3_pump(s, lpa_now_ms());
  else srv_send_tails(s);
}

static void srv_error(struct lpa_session *s, struct lpa_conn *c) {
  struct i3_test *t = I3(s);
  int i;
  if (c == t->ctrl) {
    t->ctrl = NULL;
    if (t->phase == PH_DISPLAY) lpa_i3_close_all(s);
    else lpa_i3_fail(s, LPA_ERR_I3_CTRL_RESET);
    return;
  }
  if ((i = find_pending(t, c)) >= 0) {
    t->pend[i].conn = NULL;
    return;
  }
  if ((i = lpa_i3_find_stream(t, c)) >= 0) {
    t->st[i].conn = NULL;
    t->st[i].f.conn = NULL;
    if (t->phase == PH_RUNNING) lpa_i3_fail(s, LPA_ERR_I3_DATA_RESET);
  }
}

static void srv_udp(struct lpa_session *s, struct lpa_conn *c, const uint8_t *d, size_t n,
                    const ip_addr_t *from, uint16_t port, uint32_t arrival_us) {
  static const uint8_t reply[4] = {LP_WIRE_BE32(LP_I3_UDP_REPLY)};
  struct i3_test *t = I3(s);
  struct i3_stream *st = NULL;
  lpa_ms_t now = lpa_now_ms();
  int i;
  if (c != t->udp_ep) return;
  for (i = 0; i < t->nstreams; i++)
    if (t->st[i].port == port && ip_addr_cmp(&t->st[i].ip, from)) st = &t->st[i];
  if (t->phase == PH_STREAMS) {
    /* Any datagram from a new address is a stream's hello (iperf3 does not check it either). */
    if (st == NULL && t->nstreams < I3_WANT(t)) {
      st = &t->st[t->nstreams++];
      memset(st, 0, sizeof(*st));
      ip_addr_copy(st->ip, *from);
      st->port = port;
      lpa_flow_init(&st->f, c, LPA_DIR_RX, LPA_PROTO_UDP);
    }
    if (st != NULL) (void)lpa_net_udp_send(c, reply, sizeof(reply), sizeof(reply), from, port);
    t->deadline = now + I3_STALL_MS;
    if (t->nstreams == I3_WANT(t)) (void)srv_begin(s, now);
    return;
  }
  if (st != NULL) lpa_i3_udp_rx(s, &st->f, d, n, arrival_us);
}

/* The server's limit is reached: SERVER_ERROR numbered for the client, the final reports, and
 * the connections stay open until the client has read it and hung up (EXPIRE_LINGER_MS at
 * most): closed at once, a data stream a client still writes to broke first ("Broken pipe")
 * and hid the reason. */
static void srv_expire(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  uint8_t m[LP_I3_SERVER_ERROR_LEN];
  lp_i3_server_error_put(m, lp_i3_server_error_for(LP_I3E_TESTEXPIRED, t->peer_version));
  if (lpa_i3_send(s, m, sizeof(m)) < 0) return; /* failed and ended */
  lpa_report_error(s, LPA_ERR_I3_EXPIRED);
  lpa_i3_finish(s, now);
  t->phase = PH_DISPLAY;
  t->deadline = now + EXPIRE_LINGER_MS;
}

static void srv_tick(struct lpa_session *s, lpa_ms_t now) {
  struct i3_test *t = I3(s);
  /* A control message the stack had no memory for (lwIP's 1600-byte default heap, filled by
   * our own data segments) waits for no ACK of its own: try again every tick. */
  if (t->out_len != 0) lpa_i3_flush(s);
  srv_send_tails(s);
  switch (t->phase) {
  case PH_RUNNING:
  case PH_DRAIN:
    lpa_i3_intervals(s, now);
    if (t->phase == PH_DRAIN) {
      lpa_ms_t last = LPA_LATER(t->sum.last_ms, t->end_ms) ? t->sum.last_ms : t->end_ms;
      if (now - last >= DRAIN_QUIET_MS || LPA_DUE(now, t->deadline))
        (void)srv_end_measure(s, last, now);
      return;
    }
    if (I3_SENDS(t) && lpa_i3_pump(s, now) < 0) return;
    if (now - t->sum.last_ms > I3_IDLE_MS) lpa_i3_fail(s, LPA_ERR_I3_IDLE);
    /* A test by amount (-n, -k) has no time to refuse: it ends at the server's limit. */
    else if (t->dur_ms == 0 && now - t->run_ms >= s->cfg.duration_ms)
      srv_expire(s, now);
    return;
  case PH_DISPLAY:
    if (LPA_DUE(now, t->deadline)) lpa_i3_close_all(s); /* no IPERF_DONE: fine, results are in */
    return;
  default:
    if (LPA_DUE(now, t->deadline)) lpa_i3_fail(s, LPA_ERR_I3_CLIENT_STALL);
    return;
  }
}

static void srv_stop(struct lpa_session *s) {
  if (lpa_i3_send_state(s, LP_I3_SERVER_TERMINATE) == 0) lpa_i3_fail(s, LPA_ERR_STOPPED);
}

static const struct lpa_proto_ops srv_ops = {NULL,       NULL,    srv_recv, srv_sendable,
                                             srv_error,  srv_udp, srv_tick, srv_stop};

/* ---- server: the listener ---- */

static void lst_accept(struct lpa_session *ls, struct lpa_conn *c) {
  struct lpa_session *test = lpa_i3[ls->index].test, *s;
  struct i3_test *t;
  if (test != NULL) {
    t = I3(test);
    if (t != NULL && t->phase == PH_STREAMS && !t->udp) srv_add_pending(test, c);
    else deny(c); /* one test at a time, as iperf3 */
    return;
  }
  s = lpa_session_new(&ls->cfg, ls->fn, ls->arg);
  if (s == NULL) {
    deny(c);
    return;
  }
  t = lpa_i3_alloc(s, I3_SERVER);
  if (t == NULL) {
    s->used = 0; /* nothing was reported yet: free silently */
    deny(c);
    return;
  }
  lpa_i3[ls->index].test = s;
  t->parent = ls;
  t->ctrl = c;
  t->phase = PH_COOKIE;
  t->deadline = lpa_now_ms() + I3_STALL_MS;
  lpa_i3_expect(t, RD_COOKIE, LP_I3_COOKIE_SIZE);
  s->ops = &srv_ops;
  lpa_net_set_owner(c, s);
  lpa_net_peer(c, &s->peer, &s->peer_port);
}

static void lst_stop(struct lpa_session *s) { lpa_i3_close_all(s); }

static const struct lpa_proto_ops lst_ops = {lst_accept, NULL, NULL, NULL,
                                             NULL,       NULL, NULL, lst_stop};

#endif /* LPA_SERVER */

int lpa_iperf3_start(struct lpa_session *s) {
  struct i3_slot *slot = &lpa_i3[s->index];
  memset(slot, 0, sizeof(*slot));
  if (s->cfg.role == LPA_ROLE_SERVER) {
#if LPA_SERVER
    slot->kind = I3_LISTENER;
    s->ops = &lst_ops;
    slot->listen = lpa_net_tcp_listen(s->cfg.port, s);
    if (slot->listen == NULL) {
      slot->kind = 0;
      return LPA_ENET;
    }
    return 0;
#endif
  }
#if LPA_CLIENT
  if (s->cfg.role == LPA_ROLE_CLIENT) return lpa_i3_client_start(s);
#endif
  return LPA_EINVAL;
}

#else
typedef int lpa_iperf3_not_selected; /* ISO C wants something in every translation unit */
#endif /* LPA_IPERF3 */

/* Flows: sending at a rate or as fast as the stack takes it, counting what arrives, UDP jitter
 * and loss, and turning the counters into interval and final reports. Knows no wire format. */
#include <string.h>

#include "lpa_core.h"

#define LAST_INTERVAL_MIN_MS 20u

void lpa_flow_init(struct lpa_flow *f, struct lpa_conn *c, uint8_t dir, uint8_t proto) {
  memset(f, 0, sizeof(*f));
  f->conn = c;
  f->dir = dir & 1u;
  f->stream = (uint8_t)(dir >> 1);
  f->proto = proto;
}

/* The flow's clock begins: what lpa_flow_start and lpa_flow_begin share. */
static void flow_run(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now) {
  f->state = LPA_FLOW_RUNNING;
  f->start_ms = now;
  f->last_ms = now;
  f->interim = s->cfg.interval_ms != LPA_INTERVAL_NONE;
}

void lpa_flow_start(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now) {
  flow_run(s, f, now);
  memset(&f->ivl, 0, sizeof(f->ivl));
  f->ivl.at_ms = now;
}

/* The START report is the flow's report at its first instant: a flow begins fresh from
 * lpa_flow_init, so every count in it is zero, as a START report's are. The report sets the
 * interval marks to the start (lpa_flow_start's job), so they are not set twice. */
void lpa_flow_begin(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now) {
  flow_run(s, f, now);
  lpa_flow_report(s, f, LPA_REPORT_START, now);
}

/* One loop for both protocols (code size): TCP writes until the stack is full, UDP sends at
 * most LPA_UDP_BURST datagrams a call. The loop counts n += proto, which is 0 for TCP (no
 * burst limit) and 1 for UDP: smaller than testing the protocol beside the count. The array's
 * size is negative, and the build fails, if those values change (C99 has no _Static_assert). */
typedef char lpa_flow_proto_counts[LPA_PROTO_TCP == 0 && LPA_PROTO_UDP == 1 ? 1 : -1];

int lpa_flow_pump(struct lpa_flow *f, lpa_ms_t now, lpa_udp_head_fn make_head, void *ctx,
                  const ip_addr_t *to, uint16_t to_port) {
#if LPA_UDP
  uint8_t head[LPA_UDP_HEAD_MAX];
#else
  (void)make_head; (void)ctx; (void)to; (void)to_port;
#endif
  int n;
  for (n = 0; n < LPA_UDP_BURST; n += f->proto) {
    long sent = (long)f->len;
    uint64_t done = f->bytes + f->head_sent; /* on the wire so far */
    uint32_t elapsed = now - f->start_ms;
    if ((f->limit_ms != 0 && elapsed >= f->limit_ms) || (f->amount != 0 && done >= f->amount))
      return 1; /* a limit is reached */
    /* Pacing: the bytes sent so far are due at rate_bps after elapsed ms (both products stay
     * far below 2^64 for a day at 10 Gbit/s); not yet: wait. */
    if (f->rate_bps != 0 && (uint64_t)elapsed * f->rate_bps < done * 8000u) return 0;
#if LPA_UDP
    if (f->proto == LPA_PROTO_UDP) {
      if (lpa_net_udp_send(f->conn, head, make_head(ctx, f, head), f->len, to, to_port) != 0) {
        f->send_errors++; /* no buffer: this datagram goes out next tick with the same number */
        return 0;
      }
      f->seq++;
    } else
#endif
    {
      size_t chunk = (size_t)LPA_PATTERN_LEN * LPA_PATTERN_SENDS;
      uint64_t left = f->amount - done;
      if (f->len - 1u < chunk) chunk = f->len; /* len 0 (none) wraps */
      if (f->amount != 0 && left < chunk) chunk = (size_t)left;
      sent = lpa_net_tcp_send(f->conn, lpa_pattern, chunk,
                              LPA_SEND_PATTERN | LPA_SEND_STATIC | LPA_SEND_MORE);
      if (sent <= 0) return -(sent < 0); /* -1: broken, 0: the stack is full */
    }
    lpa_flow_rx(f, (size_t)sent, now);
  }
  return 0;
}

void lpa_flow_rx(struct lpa_flow *f, size_t bytes, lpa_ms_t now) {
  f->bytes += bytes;
  f->last_ms = now;
}

void lpa_flow_udp_rx(struct lpa_flow *f, uint64_t seq, uint32_t sent_us, uint32_t arrival_us) {
  struct lpa_udp_rx *rx = &f->rx;
  uint32_t transit = arrival_us - sent_us;
  uint64_t gap;
  /* RFC 1889 jitter, J += (|D| - J) / 16, kept as 16 J in integers. The first datagram only
   * seeds the transit time (iperf 2.1 seeds it with 0 and so adds the clock offset / 16). */
  if (f->udp_seen) {
    int32_t d = (int32_t)(transit - rx->prev_transit_us);
    uint32_t ad = d < 0 ? 0u - (uint32_t)d : (uint32_t)d;
    rx->jitter_us16 = rx->jitter_us16 + ad - (rx->jitter_us16 + 8) / 16;
  }
  rx->prev_transit_us = transit;
  f->udp_seen = 1;
  /* Datagrams skipped, modulo 2^64: 0 for the next in order, which the gap case then takes
   * (one comparison less than a case of its own). */
  gap = seq - rx->max_seq - 1;
  if (gap != 0 && seq <= rx->max_seq) {
    rx->out_of_order++;
  } else {
    rx->lost_raw += gap;
    rx->max_seq = seq;
  }
}

uint64_t lpa_udp_lost(const struct lpa_udp_rx *rx) {
  return rx->lost_raw > rx->out_of_order ? rx->lost_raw - rx->out_of_order : 0;
}

/* One report of a flow: the interval since the last one (INTERVAL, which starts the next) or
 * the whole flow (START, FINAL, PEER). Counters are read as differences from the interval's
 * start marks; for the whole flow they are first set back to its start (zero counts), which
 * loses nothing: START comes at the flow's start, FINAL and PEER after its last interval. The
 * counters a flow does not keep stay zero (a TCP flow's datagrams, a sender's loss and
 * jitter), so every report copies all of them. */
void lpa_flow_report(struct lpa_session *s, struct lpa_flow *f, uint8_t kind, lpa_ms_t end) {
  struct lpa_report r;
  struct lpa_flow_mark *m = &f->ivl;
  uint64_t seq = f->dir == LPA_DIR_RX ? f->rx.max_seq : f->seq;
  uint64_t lost = lpa_udp_lost(&f->rx);
  uint32_t dur;
  if (kind != LPA_REPORT_INTERVAL) {
    memset(m, 0, sizeof(*m));
    m->at_ms = f->start_ms;
  }
  memset(&r, 0, sizeof(r));
  r.kind = kind;
  r.dir = f->dir;
  r.stream = f->stream;
  r.start_ms = m->at_ms - f->start_ms;
  r.end_ms = end - f->start_ms;
  r.bytes = f->bytes - m->bytes;
  dur = end - m->at_ms; /* never negative: callers keep end at or after the marks */
  r.bps = dur != 0 ? r.bytes * 8000u / dur : 0;
  r.packets = seq - m->seq;
  r.jitter_us = f->rx.jitter_us16 / 16;
  r.lost = lost - m->lost;
  r.out_of_order = f->rx.out_of_order - m->ooo;
#if LPA_IPERF3 /* only iperf3 omits (a build without it does not pay for the test) */
  r.omitted = kind == LPA_REPORT_INTERVAL && f->omitting;
#endif
  /* The next interval starts here. */
  m->at_ms = end;
  m->bytes = f->bytes;
  m->seq = seq;
  m->lost = lost;
  m->ooo = f->rx.out_of_order;
  lpa_report_emit(s, &r);
}

void lpa_flow_interval(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t now) {
  uint32_t ivl = s->cfg.interval_ms;
  while (f->state == LPA_FLOW_RUNNING && f->interim && LPA_DUE(now, f->ivl.at_ms + ivl))
    lpa_flow_report(s, f, LPA_REPORT_INTERVAL, f->ivl.at_ms + ivl);
}

void lpa_flow_finish(struct lpa_session *s, struct lpa_flow *f, lpa_ms_t end) {
  if (f->state != LPA_FLOW_RUNNING) return;
  if (!LPA_DUE(end, f->start_ms)) end = f->start_ms;
  /* The last, partial interval, unless it is a sliver (the FIN datagram, the last ACK) that
   * would print a meaningless rate; its bytes are in the final report. */
  lpa_flow_interval(s, f, end);
  if (f->interim && LPA_DUE(end, f->ivl.at_ms + LAST_INTERVAL_MIN_MS))
    lpa_flow_report(s, f, LPA_REPORT_INTERVAL, end);
  f->state = LPA_FLOW_DONE;
  lpa_flow_report(s, f, LPA_REPORT_FINAL, end);
}

/* iperf 2.1's --bounceback, server side: each message is read whole, stamped with its receive
 * time, held as long as the first message asks (capped), stamped with its send time and written
 * back. No test header, no report to the client. Not a client: the agent does not send
 * bounceback tests. Every byte is the peer's: a bad message ends its session, nothing else. */
#include <string.h>

#include "lpa_iperf2.h"

#if LPA_IPERF2_BOUNCEBACK
#include "wire/iperf2_bb.h"

/* The longest hold granted, in the agent's milliseconds (as linkperf's server: 10 s). */
#define HOLD_MAX_MS (LP_I2_BB_HOLD_MAX_US / 1000u)

/* The agent's wall clock into the message at off (LP_I2_BB_OFF_SERVER_RX or _TX). */
static void stamp(uint8_t *msg, unsigned off) {
  uint64_t us = LPA_WALL_US();
  lp_i2_bb_stamp(msg, off, (uint32_t)(us / 1000000u), (uint32_t)(us % 1000000u));
}

/* The client closed, or the session ends for a reason of its own (why: 0 for none). */
static void end(struct lpa_session *s, uint8_t why, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  if (why != 0) {
    lpa_i2_fail(s, why);
    return;
  }
  lpa_flow_finish(s, &t->rx, now);
  lpa_flow_finish(s, &t->tx, now);
  lpa_i2_close_all(s);
}

void lpa_i2_bb_begin(struct lpa_session *s, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct i2_bb *b = &t->bb;
  t->mode = I2_MODE_BOUNCEBACK;
  t->phase = I2_RUN;
  memcpy(b->msg, t->hdr, 4); /* the flags word: tcp_header has read it */
  b->have = 4;
  lpa_flow_rx(&t->rx, 4, now);
  /* The echoes are the test's second flow (stream 1), on the same connection. */
  lpa_flow_init(&t->tx, t->conn, LPA_DIR_TX | LPA_SECOND, LPA_PROTO_TCP);
  lpa_flow_begin(s, &t->tx, now);
}

/* The first LP_I2_BB_MIN bytes are in: the message's size and hold, for the whole test (as
 * 2.1.8's server and linkperf's take them). 0, or an error for a size out of range. */
static uint8_t first_header(struct i2_bb *b) {
  struct lp_i2_bb h;
  uint32_t hold;
  if (!lp_i2_bb_decode(b->msg, b->have, &h) || h.size < LP_I2_BB_MIN ||
      h.size > LPA_IPERF2_BB_MAX_LEN)
    return LPA_ERR_I2_BOUNCEBACK;
  b->size = (uint16_t)h.size;
  /* A hold is a lower bound on the echo's delay: rounded up, and one more millisecond, since
   * the clock's current one may be all but over when the message comes. */
  hold = h.hold_us / 1000u + (h.hold_us % 1000u != 0) + (h.hold_us != 0);
  b->hold_ms = hold < HOLD_MAX_MS ? hold : HOLD_MAX_MS;
  return 0;
}

static uint8_t echo(struct i2_state *t, struct i2_bb *b, lpa_ms_t now);

/* A whole message: held, or echoed at once. 0, or an error when it is not a bounceback
 * message (the first passed first_header; a later one is checked here). */
static uint8_t message(struct i2_state *t, struct i2_bb *b, lpa_ms_t now) {
  if (!lp_i2_bb_is(b->msg)) return LPA_ERR_I2_BOUNCEBACK;
  stamp(b->msg, LP_I2_BB_OFF_SERVER_RX);
  b->state = I2_BB_HOLD;
  b->due = now + b->hold_ms;
  return echo(t, b, now);
}

void lpa_i2_bb_recv(struct lpa_session *s, const uint8_t *d, size_t n, lpa_ms_t now) {
  struct i2_state *t = I2(s);
  struct i2_bb *b = &t->bb;
  uint8_t why = 0;
  if (n == 0) { /* the client's close: 2.1.8's way to end; within a message it is cut short */
    end(s, b->have != 0 ? LPA_ERR_I2_BOUNCEBACK : 0, now);
    return;
  }
  while (n != 0 && why == 0) {
    uint32_t want = (b->size != 0 ? b->size : LP_I2_BB_MIN) - b->have;
    size_t take = n < want ? n : want;
    if (b->state != I2_BB_READ) {
      why = LPA_ERR_I2_BOUNCEBACK; /* more than one message at a time */
      break;
    }
    memcpy(b->msg + b->have, d, take);
    b->have = (uint16_t)(b->have + take);
    lpa_flow_rx(&t->rx, take, now);
    d += take;
    n -= take;
    if (b->size == 0 && b->have == LP_I2_BB_MIN) why = first_header(b);
    if (why == 0 && b->size != 0 && b->have == b->size) why = message(t, b, now);
  }
  if (why != 0) end(s, why, now);
}

/* The echo, once its hold is over: what the stack takes now, the rest when it has room.
 * 0, or an error for a broken connection. */
static uint8_t echo(struct i2_state *t, struct i2_bb *b, lpa_ms_t now) {
  long r;
  if (b->state == I2_BB_HOLD) {
    if (!LPA_DUE(now, b->due)) return 0;
    stamp(b->msg, LP_I2_BB_OFF_SERVER_TX);
    b->state = I2_BB_WRITE;
    b->sent = 0;
  }
  if (b->state != I2_BB_WRITE) return 0;
  /* SEND_NOW: each echo goes out at once, not held by Nagle (2.1.8's server sets TCP_NODELAY
   * on a bounceback connection); the back end copies: msg is reused. */
  r = lpa_net_tcp_send(t->conn, b->msg + b->sent, (size_t)(b->size - b->sent), LPA_SEND_NOW);
  if (r < 0) return LPA_ERR_BROKEN;
  b->sent = (uint16_t)(b->sent + r);
  lpa_flow_rx(&t->tx, (size_t)r, now);
  if (b->sent == b->size) { /* the next message may come */
    b->state = I2_BB_READ;
    b->have = 0;
  }
  return 0;
}

void lpa_i2_bb_pump(struct lpa_session *s, lpa_ms_t now) {
  uint8_t why = echo(I2(s), &I2(s)->bb, now);
  if (why != 0) end(s, why, now);
}

#endif

/* Link emulation: each direction is a serializer (a frame of N bytes occupies the link for
 * (N + overhead) * 8 / rate seconds) behind a drop-tail byte queue, followed by a fixed
 * delay line. Loss is drawn when a frame enters, so a lost frame uses no link time.
 * It does not reorder, duplicate or corrupt frames, and has no jitter. */
#include "lpa_link.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t lpa_link_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64 to spread a small seed, xorshift64* to draw: fast, seedable, and each
 * direction has its own stream so TX losses do not depend on RX traffic. */
static uint64_t splitmix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15u;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  return x ^ (x >> 31);
}

static uint32_t draw_ppm(struct lpa_link_pipe *p)
{
  uint64_t x = p->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  p->rng = x;
  uint64_t r = (x * 0x2545f4914f6cdd1du) >> 32;    /* uniform in [0, 2^32) */
  return (uint32_t)((r * 1000000u) >> 32);         /* uniform in [0, 1e6) */
}

int lpa_link_init(struct lpa_link *l, const struct lpa_link_cfg *cfg)
{
  pthread_condattr_t a;
  memset(l, 0, sizeof *l);
  l->cfg = *cfg;
  if (l->cfg.loss_ppm > 1000000u)
    return -1;
  if (l->cfg.rate_bps && !l->cfg.queue_bytes) {
    l->cfg.queue_bytes = l->cfg.rate_bps / 80u;    /* 100 ms */
    if (l->cfg.queue_bytes < 2u * LPA_LINK_FRAME_MAX)
      l->cfg.queue_bytes = 2u * LPA_LINK_FRAME_MAX;
  }
  for (int d = 0; d < 2; d++) {
    l->pipe[d].rng = splitmix(l->cfg.loss_seed + (uint64_t)d * 0x632be59bd9b4e019u);
    if (!l->pipe[d].rng)
      l->pipe[d].rng = 1;
    l->pipe[d].loss_span = UINT64_MAX;
  }
  pthread_mutex_init(&l->mu, NULL);
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&l->cv, &a);
  pthread_condattr_destroy(&a);
  return 0;
}

void lpa_link_destroy(struct lpa_link *l)
{
  for (int d = 0; d < 2; d++) {
    struct lpa_frame *f = l->pipe[d].head;
    while (f) {
      struct lpa_frame *n = f->next;
      free(f);
      f = n;
    }
    l->pipe[d].head = l->pipe[d].tail = NULL;
  }
  pthread_cond_destroy(&l->cv);
  pthread_mutex_destroy(&l->mu);
}

int lpa_link_shaped(const struct lpa_link *l)
{
  return l->cfg.rate_bps != 0 || l->cfg.delay_ns != 0;
}

/* Decides where a frame of len bytes goes and, when queued, when it comes out. */
static int admit(struct lpa_link *l, struct lpa_link_pipe *p, size_t len, uint64_t now,
                 uint64_t *due)
{
  uint64_t start = now;
  if (p->held_bytes + len > LPA_LINK_HOLD_MAX)
    return LPA_LINK_DROP;
  if (l->cfg.rate_bps) {
    double wire = (double)(len + l->cfg.overhead_bytes);
    double backlog = 0;
    if (p->busy_until_ns > now) {
      start = p->busy_until_ns;
      backlog = (double)(p->busy_until_ns - now) * (double)l->cfg.rate_bps / 8e9;
    }
    if (backlog + wire > (double)l->cfg.queue_bytes)
      return LPA_LINK_DROP;
    p->busy_until_ns = start + (uint64_t)(wire * 8e9 / (double)l->cfg.rate_bps + 0.5);
    start = p->busy_until_ns;
  }
  *due = start + l->cfg.delay_ns;
  return LPA_LINK_QUEUED;
}

/* Whether this frame is drawn for loss: the direction is selected and the frame falls in
 * the loss window (which it moves along). */
static int in_loss_window(struct lpa_link *l, struct lpa_link_pipe *p, int dir)
{
  if (!l->cfg.loss_ppm ||
      !(l->cfg.loss_dirs & (dir == LPA_LINK_TX ? LPA_LINK_LOSS_TX : LPA_LINK_LOSS_RX)))
    return 0;
  if (p->loss_skip) {
    p->loss_skip--;
    return 0;
  }
  if (!p->loss_span)
    return 0;
  if (p->loss_span != UINT64_MAX)
    p->loss_span--;
  return 1;
}

int lpa_link_offer(struct lpa_link *l, int dir, const void *frame, size_t len, uint64_t now_ns)
{
  struct lpa_link_pipe *p = &l->pipe[dir];
  int r = LPA_LINK_PASS;
  uint64_t due = 0;
  if (len > LPA_LINK_FRAME_MAX)
    len = LPA_LINK_FRAME_MAX;
  pthread_mutex_lock(&l->mu);
  l->c.frames[dir]++;
  l->c.bytes[dir] += len;
  if (in_loss_window(l, p, dir) && draw_ppm(p) < l->cfg.loss_ppm) {
    l->c.lost[dir]++;
    r = LPA_LINK_DROP;
  } else if (lpa_link_shaped(l)) {
    struct lpa_frame *f = NULL;
    r = admit(l, p, len, now_ns, &due);
    if (r == LPA_LINK_QUEUED) {
      f = malloc(sizeof *f + len);
      if (!f)
        r = LPA_LINK_DROP;
    }
    if (r == LPA_LINK_DROP) {
      l->c.qdrop[dir]++;
    } else {
      f->next = NULL;
      f->due_ns = due;
      f->len = (uint32_t)len;
      memcpy(f->data, frame, len);
      p->held_bytes += len;
      if (p->tail) {
        p->tail->next = f;
      } else {
        p->head = f;
        pthread_cond_signal(&l->cv);    /* the waiter may be sleeping past this due time */
      }
      p->tail = f;
    }
  }
  pthread_mutex_unlock(&l->mu);
  return r;
}

struct lpa_frame *lpa_link_take(struct lpa_link *l, int dir, uint64_t now_ns)
{
  struct lpa_link_pipe *p = &l->pipe[dir];
  struct lpa_frame *first = NULL, *last = NULL;
  pthread_mutex_lock(&l->mu);
  while (p->head && p->head->due_ns <= now_ns) {
    struct lpa_frame *f = p->head;
    p->head = f->next;
    p->held_bytes -= f->len;
    f->next = NULL;
    if (last)
      last->next = f;
    else
      first = f;
    last = f;
  }
  if (!p->head)
    p->tail = NULL;
  pthread_mutex_unlock(&l->mu);
  return first;
}

static uint64_t next_due_locked(struct lpa_link *l)
{
  uint64_t t = UINT64_MAX;
  for (int d = 0; d < 2; d++)
    if (l->pipe[d].head && l->pipe[d].head->due_ns < t)
      t = l->pipe[d].head->due_ns;
  return t;
}

uint64_t lpa_link_next_due(struct lpa_link *l)
{
  pthread_mutex_lock(&l->mu);
  uint64_t t = next_due_locked(l);
  pthread_mutex_unlock(&l->mu);
  return t;
}

int lpa_link_wait(struct lpa_link *l)
{
  pthread_mutex_lock(&l->mu);
  uint64_t due = next_due_locked(l);
  if (!l->stop && due > lpa_link_now_ns()) {
    if (due == UINT64_MAX) {
      pthread_cond_wait(&l->cv, &l->mu);
    } else {
      struct timespec ts = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };
      pthread_cond_timedwait(&l->cv, &l->mu, &ts);
    }
  }
  int run = !l->stop;
  pthread_mutex_unlock(&l->mu);
  return run;
}

void lpa_link_stop(struct lpa_link *l)
{
  pthread_mutex_lock(&l->mu);
  l->stop = 1;
  pthread_cond_broadcast(&l->cv);
  pthread_mutex_unlock(&l->mu);
}

void lpa_link_count_err(struct lpa_link *l, int dir)
{
  pthread_mutex_lock(&l->mu);
  l->c.errs[dir]++;
  pthread_mutex_unlock(&l->mu);
}

void lpa_link_set_loss_window(struct lpa_link *l, uint32_t ppm, unsigned dirs, uint64_t skip,
                              uint64_t span)
{
  pthread_mutex_lock(&l->mu);
  l->cfg.loss_ppm = ppm > 1000000u ? 1000000u : ppm;
  l->cfg.loss_dirs = dirs;
  for (int d = 0; d < 2; d++) {
    l->pipe[d].loss_skip = skip;
    l->pipe[d].loss_span = span;
  }
  pthread_mutex_unlock(&l->mu);
}

void lpa_link_set_loss(struct lpa_link *l, uint32_t ppm, unsigned dirs)
{
  lpa_link_set_loss_window(l, ppm, dirs, 0, UINT64_MAX);
}

void lpa_link_counters(struct lpa_link *l, struct lpa_link_counters *out)
{
  pthread_mutex_lock(&l->mu);
  *out = l->c;
  pthread_mutex_unlock(&l->mu);
}

void lpa_link_reset_counters(struct lpa_link *l)
{
  pthread_mutex_lock(&l->mu);
  memset(&l->c, 0, sizeof l->c);
  pthread_mutex_unlock(&l->mu);
}

int lpa_link_format(const struct lpa_link_counters *c, char *buf, size_t n)
{
  return snprintf(buf, n,
                  "link: tx_frames=%" PRIu64 " rx_frames=%" PRIu64 " dropped_tx=%" PRIu64
                  " dropped_rx=%" PRIu64 " qdrop_tx=%" PRIu64 " qdrop_rx=%" PRIu64
                  " tx_bytes=%" PRIu64 " rx_bytes=%" PRIu64 " tx_err=%" PRIu64
                  " rx_nobuf=%" PRIu64,
                  c->frames[0], c->frames[1], c->lost[0], c->lost[1], c->qdrop[0], c->qdrop[1],
                  c->bytes[0], c->bytes[1], c->errs[0], c->errs[1]);
}

/* Link emulation: each direction is a serializer (a frame of N bytes occupies the link for
 * (N + overhead) * 8 / rate seconds) behind a drop-tail byte queue, followed by a fixed
 * delay line. With tx_desc the transmit side is a MAC's descriptor ring instead: a frame
 * holds a descriptor until it is serialized, and a sender that finds none free waits. With
 * the CPU model, frames cost CPU time as they are produced (TX) and taken in (RX, behind a
 * receive ring of rx_desc descriptors). Loss is drawn when a frame enters, so a lost frame
 * uses no link time.
 * It does not reorder, duplicate or corrupt frames, and has no jitter. */
#include "lpa_link.h"

#include <errno.h>
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
  if (l->cfg.loss_ppm > 1000000u || l->cfg.tx_desc > LPA_LINK_DESC_MAX)
    return -1;
  if (l->cfg.cpu.hz == 0)
    l->cfg.rx_desc = 0;
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

static void free_frames(struct lpa_frame *f)
{
  while (f) {
    struct lpa_frame *n = f->next;
    free(f);
    f = n;
  }
}

void lpa_link_destroy(struct lpa_link *l)
{
  for (int d = 0; d < 2; d++) {
    free_frames(l->pipe[d].head);
    free_frames(l->pipe[d].ring_head);
    l->pipe[d].head = l->pipe[d].tail = l->pipe[d].ring_head = l->pipe[d].ring_tail = NULL;
  }
  pthread_cond_destroy(&l->cv);
  pthread_mutex_destroy(&l->mu);
}

int lpa_link_shaped(const struct lpa_link *l)
{
  return l->cfg.rate_bps != 0 || l->cfg.delay_ns != 0 || l->cfg.cpu.hz != 0;
}

/* CPU model: nanoseconds the modelled CPU spends on a frame of len bytes. */
static uint64_t cpu_cost_ns(const struct lpa_link *l, int dir, size_t len)
{
  const struct lpa_link_cpu *c = &l->cfg.cpu;
  uint64_t cycles = c->frame[dir] + (uint64_t)c->byte_milli[dir] * len / 1000u;
  return cycles * 1000000000u / c->hz;
}

/* Gives the CPU a job of cost ns that may start at `at`; returns when it is done. */
static uint64_t cpu_run(struct lpa_link *l, uint64_t at, uint64_t cost)
{
  uint64_t start = l->cpu_free_ns > at ? l->cpu_free_ns : at;
  l->cpu_free_ns = start + cost;
  l->c.cpu_busy_ns += cost;
  return l->cpu_free_ns;
}

/* Sleeps, the mutex released, until `until` (CLOCK_MONOTONIC). */
static void sleep_unlocked(struct lpa_link *l, uint64_t until)
{
  struct timespec ts = { (time_t)(until / 1000000000u), (long)(until % 1000000000u) };
  pthread_mutex_unlock(&l->mu);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
  pthread_mutex_lock(&l->mu);
}

/* The CPU model's TX side: the CPU produces the frame (after what it already has to do);
 * the frame reaches the MAC when it is done. The sender is held back only once it runs more
 * than 1 ms ahead of the model (a sleep per frame would add the host's timer slack, ~50 us,
 * to every frame); the frame's own time is the model's either way. */
#define CPU_AHEAD_NS 1000000u
static uint64_t cpu_produce(struct lpa_link *l, size_t len, uint64_t now)
{
  uint64_t done = cpu_run(l, now, cpu_cost_ns(l, LPA_LINK_TX, len));
  if (done > now + CPU_AHEAD_NS)
    sleep_unlocked(l, done - CPU_AHEAD_NS);
  return done;
}

/* How many frames of the receive ring the CPU has not finished at time t. */
static uint32_t ring_busy_at(const struct lpa_link_pipe *p, uint64_t t)
{
  uint32_t n = 0;
  for (const struct lpa_frame *f = p->ring_head; f; f = f->next)
    n += f->due_ns > t;
  return n;
}

/* The CPU model's RX side: a frame off the wire at f->due_ns enters the receive ring (or is
 * dropped when all rx_desc descriptors hold frames the CPU has not finished), and is due to
 * lwIP when the CPU is done with it. */
static void cpu_receive(struct lpa_link *l, struct lpa_link_pipe *p, struct lpa_frame *f)
{
  if (l->cfg.rx_desc && ring_busy_at(p, f->due_ns) >= l->cfg.rx_desc) {
    l->c.rxring_drop++;
    free(f);
    return;
  }
  f->due_ns = cpu_run(l, f->due_ns, cpu_cost_ns(l, LPA_LINK_RX, f->len));
  f->next = NULL;
  if (p->ring_tail)
    p->ring_tail->next = f;
  else
    p->ring_head = f;
  p->ring_tail = f;
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

/* tx_desc: sleeps (the mutex released) until the oldest descriptor's frame is serialized,
 * when every descriptor holds a frame still on its way out. Returns the time after. */
static uint64_t wait_for_descriptor(struct lpa_link *l, struct lpa_link_pipe *p, uint64_t now)
{
  uint64_t free_at = p->desc_free_ns[p->desc_next];
  if (free_at <= now)
    return now;
  l->c.tx_waits++;
  l->c.tx_wait_ns += free_at - now;
  sleep_unlocked(l, free_at);
  return free_at;
}

static int has_ring(const struct lpa_link *l, int dir)
{
  return dir == LPA_LINK_TX && l->cfg.tx_desc && l->cfg.rate_bps;
}

int lpa_link_offer(struct lpa_link *l, int dir, const void *frame, size_t len, uint64_t now_ns)
{
  struct lpa_link_pipe *p = &l->pipe[dir];
  int r = LPA_LINK_PASS;
  uint64_t due = 0;
  if (len > LPA_LINK_FRAME_MAX)
    len = LPA_LINK_FRAME_MAX;
  pthread_mutex_lock(&l->mu);
  if (dir == LPA_LINK_TX && l->cfg.cpu.hz)
    now_ns = cpu_produce(l, len, now_ns);
  if (has_ring(l, dir))
    now_ns = wait_for_descriptor(l, p, now_ns);
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
      if (has_ring(l, dir)) {
        p->desc_free_ns[p->desc_next] = p->busy_until_ns;
        p->desc_next = (p->desc_next + 1) % l->cfg.tx_desc;
      }
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

/* Unlinks the frames of list (*head, *tail) due at now, oldest first. */
static struct lpa_frame *pop_due(struct lpa_frame **head, struct lpa_frame **tail, uint64_t now,
                                 uint64_t *bytes)
{
  struct lpa_frame *first = NULL, *last = NULL;
  while (*head && (*head)->due_ns <= now) {
    struct lpa_frame *f = *head;
    *head = f->next;
    if (bytes)
      *bytes -= f->len;
    f->next = NULL;
    if (last)
      last->next = f;
    else
      first = f;
    last = f;
  }
  if (!*head)
    *tail = NULL;
  return first;
}

struct lpa_frame *lpa_link_take(struct lpa_link *l, int dir, uint64_t now_ns)
{
  struct lpa_link_pipe *p = &l->pipe[dir];
  pthread_mutex_lock(&l->mu);
  struct lpa_frame *f = pop_due(&p->head, &p->tail, now_ns, &p->held_bytes);
  if (dir == LPA_LINK_RX && l->cfg.cpu.hz) {
    while (f) {
      struct lpa_frame *n = f->next;
      cpu_receive(l, p, f);
      f = n;
    }
    f = pop_due(&p->ring_head, &p->ring_tail, now_ns, NULL);
  }
  pthread_mutex_unlock(&l->mu);
  return f;
}

static uint64_t next_due_locked(struct lpa_link *l)
{
  uint64_t t = UINT64_MAX;
  for (int d = 0; d < 2; d++) {
    if (l->pipe[d].head && l->pipe[d].head->due_ns < t)
      t = l->pipe[d].head->due_ns;
    if (l->pipe[d].ring_head && l->pipe[d].ring_head->due_ns < t)
      t = l->pipe[d].ring_head->due_ns;
  }
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
                  " rx_nobuf=%" PRIu64 " tx_waits=%" PRIu64 " tx_wait_us=%" PRIu64
                  " cpu_busy_us=%" PRIu64 " rxring_drop=%" PRIu64,
                  c->frames[0], c->frames[1], c->lost[0], c->lost[1], c->qdrop[0], c->qdrop[1],
                  c->bytes[0], c->bytes[1], c->errs[0], c->errs[1], c->tx_waits,
                  c->tx_wait_ns / 1000u, c->cpu_busy_ns / 1000u, c->rxring_drop);
}

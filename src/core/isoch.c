/* iperf2 --isochronous UDP sender (see isoch.h). */
#include "core/isoch.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

#include "core/bounce.h"
#include "core/clock.h"
#include "core/stream.h"
#include "wire/iperf2.h"

struct lp_isoch {
    uint64_t t0_ns;             /* frame 1's start (monotonic) */
    uint64_t period_ns;
    uint32_t t0_sec, t0_usec;   /* the same on the wall clock, in every block */
    uint64_t next_id;           /* the next frame due */
    uint32_t id, prev_id;       /* frame being sent */
    uint32_t size, left;        /* its size, bytes not yet sent */
    bool in_frame, header_sent;
    uint64_t rng;
    struct lp_frame_tx count;   /* worker's */
    struct lp_frame_rx rxc;     /* receiver: its owner thread's */
    atomic_uint_least64_t tx, miss, slip, rx, lost; /* published */
};

static double uniform(struct lp_isoch *t)
{
    /* xorshift64* (Vigna): its multiply and shifts drop bits by design; unsigned wraps. */
    t->rng ^= t->rng >> 12;
    t->rng ^= t->rng << 25;
    t->rng ^= t->rng >> 27;
    uint64_t r = t->rng * 2685821657736338717ull;
    return ((double)(r >> 11) + 1.0) / 9007199254740992.0; /* (0, 1] */
}

struct lp_isoch_config lp_isoch_config_of(const struct lp_isoch_spec *is)
{
    struct lp_isoch_config c = {.on = is->on, .fps = is->fps};
    if (!is->on || !(is->fps > 0))
        return (struct lp_isoch_config){0};
    c.mean_bytes = is->mean_bps / (8.0 * is->fps);
    c.stdev_bytes = is->stdev_bps / (8.0 * is->fps);
    c.ipg_ns = (uint64_t)(is->ipg_s * 1e9 + 0.5);
    return c;
}

bool lp_isoch_setup(struct lp_stream *s)
{
    struct lp_isoch *t = calloc(1, sizeof(*t));
    if (!t)
        return false;
    t->period_ns = s->cfg.isoch.fps > 0 ? (uint64_t)(1e9 / s->cfg.isoch.fps) : 0;
    lp_frame_rx_init(&t->rxc);
    t->rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)t;
    t->next_id = 1;
    s->iso = t;
    return true;
}

void lp_isoch_free(struct lp_stream *s)
{
    free(s->iso);
    s->iso = NULL;
}

void lp_isoch_read(const struct lp_stream *s, struct lp_frame_counts *out)
{
    struct lp_isoch *t = s->iso;
    *out = (struct lp_frame_counts){0};
    if (!t)
        return;
    out->on = true;
    out->tx = atomic_load_explicit(&t->tx, memory_order_relaxed);
    out->miss = atomic_load_explicit(&t->miss, memory_order_relaxed);
    out->slip = atomic_load_explicit(&t->slip, memory_order_relaxed);
    out->rx = atomic_load_explicit(&t->rx, memory_order_relaxed);
    out->lost = atomic_load_explicit(&t->lost, memory_order_relaxed);
}

static void publish(struct lp_isoch *t)
{
    atomic_store_explicit(&t->tx, t->count.tx, memory_order_relaxed);
    atomic_store_explicit(&t->miss, t->count.miss, memory_order_relaxed);
    atomic_store_explicit(&t->slip, t->count.slip, memory_order_relaxed);
}

void lp_isoch_rx(struct lp_stream *s, const uint8_t *head, size_t headlen, size_t len)
{
    struct lp_isoch *t = s->iso;
    if (!t || headlen < LP_I2_ISOCH_AT + LP_I2_ISOCH_LEN)
        return;
    struct lp_i2_isoch b;
    lp_i2_isoch_get(head, &b);
    lp_frame_rx_add(&t->rxc, b.id, b.prev_id, b.size, b.remaining, (uint32_t)len);
    atomic_store_explicit(&t->rx, t->rxc.rx, memory_order_relaxed);
    atomic_store_explicit(&t->lost, t->rxc.lost, memory_order_relaxed);
}

static bool counting(const struct lp_stream *s)
{
    return atomic_load_explicit(&s->counting, memory_order_relaxed);
}

/* One datagram of len bytes with the given block (all zero for the header datagram). Returns
 * 0, -EAGAIN (come back when writable) or another negative errno. */
static int send_one(struct lp_stream *s, uint32_t len, const struct lp_i2_isoch *b)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    lp_i2_udp_prefix_put(s->payload, (int64_t)s->next_seq, (uint32_t)ts.tv_sec, (uint32_t)(ts.tv_nsec / 1000));
    lp_i2_isoch_put(s->payload, b);
    ssize_t w = send(s->h.fd, s->payload, len, MSG_DONTWAIT);
    if (w < 0) {
        int e = errno;
        return e == EWOULDBLOCK || e == ENOBUFS || e == EINTR ? -EAGAIN : -e;
    }
    s->next_seq++;
    if (counting(s)) {
        lp_stream_io_count(s, (uint64_t)w);
        uint64_t p = atomic_load_explicit(&s->packets, memory_order_relaxed);
        atomic_store_explicit(&s->packets, p + 1, memory_order_relaxed);
    }
    return 0;
}

static void begin_frame(struct lp_stream *s, struct lp_isoch *t, uint64_t now)
{
    uint64_t id = lp_frame_due(&t->count, t->next_id, now - t->t0_ns, t->period_ns);
    t->prev_id = t->id;
    t->id = (uint32_t)id;
    t->next_id = id + 1;
    t->size = lp_frame_size(s->cfg.isoch.mean_bytes, s->cfg.isoch.stdev_bytes,
                            s->cfg.isoch.stdev_bytes > 0 ? lp_frame_normal(uniform(t), uniform(t)) : 0);
    t->left = t->size;
    t->in_frame = true;
    publish(t);
}

static void wait_until(struct lp_stream *s, uint64_t when)
{
    lp_stream_io_events(s, 0);
    lp_timer_arm(&s->worker->loop, &s->pace_timer, when);
}

/* After a send: whether to go on. A full socket waits for room; a refused datagram (no one
 * listens yet, ICMP) is no failure, as for every UDP sender; anything else ends the stream. */
static bool sent(struct lp_stream *s, int rc)
{
    if (rc == -EAGAIN) {
        lp_stream_io_events(s, EPOLLOUT);
        return false;
    }
    if (rc < 0 && rc != -ECONNREFUSED) {
        lp_stream_io_fail(s, rc);
        return false;
    }
    return true;
}

void lp_isoch_io(struct lp_stream *s)
{
    struct lp_isoch *t = s->iso;
    uint32_t blk = s->cfg.blksize;

    if (!t->header_sent) {
        /* 2.1.8 sends seq 1 first, its frame block zero, before frame 1. */
        struct lp_i2_isoch zero = {0};
        if (!sent(s, send_one(s, blk, &zero)))
            return;
        t->header_sent = true;
    }
    for (int n = 0; n < 256; n++) { /* fairness: at most this many datagrams per turn */
        uint64_t now = lp_now_ns();
        if (!t->in_frame) {
            uint64_t due = t->t0_ns + (t->next_id - 1) * t->period_ns;
            if (now < due) {
                wait_until(s, due);
                return;
            }
            begin_frame(s, t, now);
        }
        uint32_t len = lp_frame_dgram_len(t->left, blk);
        /* A last piece padded to the block's end: 2.1.8 writes its length as size and
         * remaining (its receivers see a frame end there). */
        bool padded = len > t->left;
        struct lp_i2_isoch b = {.period_us = (uint32_t)(t->period_ns / 1000), .start_sec = t->t0_sec,
                                .start_usec = t->t0_usec, .prev_id = t->prev_id, .id = t->id,
                                .size = padded ? len : t->size, .remaining = padded ? len : t->left};
        if (!sent(s, send_one(s, len, &b)))
            return;
        t->left = len >= t->left ? 0 : t->left - len;
        if (t->left == 0) {
            t->in_frame = false;
        } else if (s->cfg.isoch.ipg_ns) {
            wait_until(s, lp_now_ns() + s->cfg.isoch.ipg_ns);
            return;
        }
    }
    /* Back after the other streams of this worker had their turn. */
    wait_until(s, lp_now_ns());
}

bool lp_isoch_tcp_frame(struct lp_stream *s, uint32_t min, uint32_t *id, uint32_t *size)
{
    struct lp_isoch *t = s->iso;
    uint64_t now = lp_now_ns();
    if (!t->t0_ns)
        t->t0_ns = now; /* frame 1 starts as the stream first can write */
    uint64_t due = t->t0_ns + (t->next_id - 1) * t->period_ns;
    if (now < due) {
        wait_until(s, due);
        return false;
    }
    begin_frame(s, t, now);
    t->in_frame = false; /* the stream keeps the burst's progress */
    *id = t->id;
    *size = t->size < min ? min : t->size;
    return true;
}

void lp_isoch_start(struct lp_stream *s)
{
    struct lp_isoch *t = s->iso;
    uint64_t w = lp_wall_ns();
    t->t0_ns = lp_now_ns();
    t->t0_sec = (uint32_t)(w / LP_NS_PER_S);
    t->t0_usec = (uint32_t)(w % LP_NS_PER_S / 1000);
    lp_isoch_io(s);
}

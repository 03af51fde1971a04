/* --bounceback on the worker. The client writes one -l byte message, waits for all of its
 * echo, and takes the round trip from its write to the echo's last byte (2.1.8's RTT: the
 * server's hold is part of it); a burst is --bounceback=N such exchanges back to back, and
 * a burst starts every --bounceback-period. The server (echo) reads a whole message, stamps
 * its receive time, waits the hold the message asks for, stamps its send time and writes
 * the message back. Both count the bytes of both directions, as 2.1.8 does: the server as
 * they move, the client per finished exchange. */
#include "core/bounce.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "wire/iperf2_bb.h"

#define LP_BB_EXCHANGES_PER_EVENT 16 /* fairness between streams sharing a worker */

static void wall_stamp(uint8_t *msg, unsigned off)
{
    uint64_t w = lp_wall_ns();
    lp_i2_bb_stamp(msg, off, (uint32_t)(w / LP_NS_PER_S), (uint32_t)(w % LP_NS_PER_S / 1000));
}

static void quickack(struct lp_stream *s)
{
    int one = 1;
    if (s->cfg.bb.quickack)
        setsockopt(s->h.fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
}

static bool counting(const struct lp_stream *s)
{
    return atomic_load_explicit(&s->counting, memory_order_relaxed);
}

/* Read what is left of the message. 1: whole; 0: wait; -1: the stream ended. */
static int read_message(struct lp_stream *s)
{
    uint32_t size = s->cfg.blksize;
    while (s->bb.have < size) {
        ssize_t r = recv(s->h.fd, s->payload + s->bb.have, size - s->bb.have, MSG_DONTWAIT);
        if (r > 0) {
            s->bb.have += (uint32_t)r;
            if (counting(s) && s->cfg.kind == LP_STREAM_TCP_ECHO)
                lp_stream_io_count(s, (uint64_t)r);
            atomic_store_explicit(&s->last_rx_ns, lp_now_ns(), memory_order_relaxed);
            continue;
        }
        if (r == 0) {
            lp_stream_io_end(s, LP_SEV_EOF);
            return -1;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            lp_stream_io_events(s, EPOLLIN);
            return 0;
        }
        lp_stream_io_fail(s, -errno);
        return -1;
    }
    return 1;
}

/* Write what is left of the message. 1: all written; 0: wait; -1: the stream ended. */
static int write_message(struct lp_stream *s)
{
    uint32_t size = s->cfg.blksize;
    while (s->bb.woff < size) {
        ssize_t w = send(s->h.fd, s->payload + s->bb.woff, size - s->bb.woff, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w > 0) {
            s->bb.woff += (uint32_t)w;
            if (counting(s) && s->cfg.kind == LP_STREAM_TCP_ECHO)
                lp_stream_io_count(s, (uint64_t)w);
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            lp_stream_io_events(s, EPOLLOUT);
            return 0;
        }
        lp_stream_io_fail(s, w < 0 ? -errno : -EPIPE);
        return -1;
    }
    return 1;
}

/* ---- client ---- */

static void client_send(struct lp_stream *s)
{
    struct lp_i2_bb b = {.size = s->cfg.blksize, .id = s->bb.burst_id, .hold_us = s->cfg.bb.hold_us,
                         .tos = s->cfg.bb.tos};
    uint64_t w = lp_wall_ns();
    b.client_tx_sec = (uint32_t)(w / LP_NS_PER_S);
    b.client_tx_usec = (uint32_t)(w % LP_NS_PER_S / 1000);
    b.bbflags = (uint16_t)((s->cfg.bb.quickack ? LP_I2_BB_QUICKACK : 0) | (s->cfg.bb.tos_set ? LP_I2_BB_TOS : 0) |
                           (s->cfg.bb.clock_synced ? LP_I2_BB_CLOCKSYNCED : 0));
    lp_i2_bb_encode(s->payload, &b);
    s->bb.woff = 0;
    s->bb.have = 0;
    s->bb.state = LP_BB_WRITE;
    s->bb.sent_ns = lp_now_ns();
}

/* The test's time is up (cfg.bb.last_ns after the first burst). */
static bool client_over(const struct lp_stream *s, uint64_t t)
{
    return s->cfg.bb.last_ns && t >= s->bb.first_ns + s->cfg.bb.last_ns;
}

/* The burst is over: sleep until the next period begins (a late one starts at once, and
 * the periods it missed are skipped, as 2.1.8's frame counter skips ticks). No burst starts
 * at or past the test's end: the stream is finished then. */
static void client_idle(struct lp_stream *s)
{
    uint64_t now = lp_now_ns(), p = s->cfg.bb.period_ns;
    s->bb.burst_id++;
    if (client_over(s, now)) {
        lp_stream_io_end(s, LP_SEV_FINISHED);
        return;
    }
    if (!p) {
        s->bb.left = s->cfg.bb.burst;
        client_send(s);
        return;
    }
    s->bb.next_ns += p;
    if (s->bb.next_ns <= now) {
        uint64_t late = (now - s->bb.next_ns) / p + 1;
        s->bb.next_ns += late * p;
        s->bb.burst_id += (uint32_t)late;
    }
    s->bb.state = LP_BB_IDLE;
    lp_stream_io_events(s, 0);
    /* The test ends before that burst: wait out the time (2.1.8's last row ends at -t). */
    if (client_over(s, s->bb.next_ns)) {
        s->bb.state = LP_BB_DONE;
        lp_timer_arm(&s->worker->loop, &s->pace_timer, s->bb.first_ns + s->cfg.bb.last_ns);
        return;
    }
    lp_timer_arm(&s->worker->loop, &s->pace_timer, s->bb.next_ns);
}

static void client_run(struct lp_stream *s)
{
    for (int i = 0; i < LP_BB_EXCHANGES_PER_EVENT && s->attached; i++) {
        if (s->bb.state == LP_BB_WRITE) {
            int w = write_message(s);
            if (w <= 0)
                return;
            quickack(s);
            s->bb.state = LP_BB_READ;
        }
        if (s->bb.state != LP_BB_READ)
            return;
        int r = read_message(s);
        if (r <= 0)
            return;
        /* An echo of something else: the peer is not a bounceback server. */
        if (!lp_i2_bb_is(s->payload)) {
            lp_stream_io_fail(s, -EPROTO);
            return;
        }
        /* The client counts an exchange when it is over, both ways at once (2.1.8 reports
         * the write and the read together), so a row's bytes are its cnt x 2 x size. */
        if (counting(s)) {
            lp_stream_io_count(s, 2 * (uint64_t)s->cfg.blksize);
            lp_latency_batch_add(&s->lat_batch, (int64_t)(lp_now_ns() - s->bb.sent_ns));
            lp_latency_publish(&s->lat, &s->lat_batch);
        }
        if (--s->bb.left > 0)
            client_send(s);
        else {
            client_idle(s);
            if (!s->attached || s->bb.state == LP_BB_IDLE)
                return;
        }
    }
    /* More to do than one event's share: come back on the next writable event. */
    if (s->attached)
        lp_stream_io_events(s, s->bb.state == LP_BB_WRITE ? EPOLLOUT : EPOLLIN);
}

/* ---- server ---- */

static void echo_answer(struct lp_stream *s)
{
    wall_stamp(s->payload, LP_I2_BB_OFF_SERVER_TX);
    s->bb.woff = 0;
    s->bb.state = LP_BB_WRITE;
}

static void echo_run(struct lp_stream *s)
{
    for (int i = 0; i < LP_BB_EXCHANGES_PER_EVENT && s->attached; i++) {
        if (s->bb.state == LP_BB_WRITE) {
            if (write_message(s) <= 0)
                return;
            s->bb.have = 0;
            s->bb.state = LP_BB_READ;
        }
        if (s->bb.state != LP_BB_READ)
            return;
        if (read_message(s) <= 0)
            return;
        if (!lp_i2_bb_is(s->payload)) {
            lp_stream_io_fail(s, -EPROTO); /* not a bounceback message: a confused or bad peer */
            return;
        }
        if (lp_wire_get16(s->payload + LP_I2_BB_OFF_BBFLAGS) & LP_I2_BB_STOP) {
            lp_stream_io_end(s, LP_SEV_EOF);
            return;
        }
        wall_stamp(s->payload, LP_I2_BB_OFF_SERVER_RX);
        if (s->cfg.bb.hold_us) {
            quickack(s);
            s->bb.state = LP_BB_HOLD;
            lp_stream_io_events(s, 0);
            lp_timer_arm(&s->worker->loop, &s->pace_timer, lp_now_ns() + (uint64_t)s->cfg.bb.hold_us * 1000u);
            return;
        }
        echo_answer(s);
    }
    if (s->attached)
        lp_stream_io_events(s, s->bb.state == LP_BB_WRITE ? EPOLLOUT : EPOLLIN);
}

/* ---- entry points ---- */

bool lp_bounce_setup(struct lp_stream *s, const uint8_t *lead, size_t lead_len)
{
    uint32_t size = s->cfg.blksize < LP_I2_BB_MIN ? LP_I2_BB_MIN : s->cfg.blksize;
    s->cfg.blksize = size;
    s->payload = malloc(size);
    if (!s->payload)
        return false;
    /* 2.1.8's filler past the header: the digits "0123456789" over and over. */
    for (uint32_t i = 0; i < size; i++)
        s->payload[i] = (uint8_t)('0' + i % 10);
    if (s->cfg.kind == LP_STREAM_TCP_ECHO && lead) {
        s->bb.have = (uint32_t)(lead_len < size ? lead_len : size);
        memcpy(s->payload, lead, s->bb.have);
    }
    s->bb.burst_id = 1;
    s->bb.left = s->cfg.bb.burst ? s->cfg.bb.burst : 1;
    s->cfg.latency = s->cfg.kind == LP_STREAM_TCP_BOUNCE;
    return true;
}

void lp_bounce_start(struct lp_stream *s)
{
    if (s->cfg.kind == LP_STREAM_TCP_BOUNCE) {
        /* --bounceback-txdelay: the first burst, and the -t the exchanges run, start after
         * the delay (2.1.8 sleeps before its first write). */
        s->bb.next_ns = s->bb.first_ns = lp_now_ns() + s->cfg.bb.delay_ns;
        if (s->cfg.bb.delay_ns) {
            s->bb.state = LP_BB_IDLE;
            lp_stream_io_events(s, 0);
            lp_timer_arm(&s->worker->loop, &s->pace_timer, s->bb.first_ns);
            return;
        }
        client_send(s);
        client_run(s);
    } else {
        s->bb.state = LP_BB_READ;
        echo_run(s);
    }
}

void lp_bounce_io(struct lp_stream *s, uint32_t events)
{
    (void)events;
    if (s->cfg.kind == LP_STREAM_TCP_BOUNCE)
        client_run(s);
    else
        echo_run(s);
}

void lp_bounce_timer(struct lp_stream *s)
{
    if (s->bb.state == LP_BB_HOLD) {
        echo_answer(s);
        echo_run(s);
    } else if (s->bb.state == LP_BB_DONE) {
        lp_stream_io_end(s, LP_SEV_FINISHED);
    } else if (s->bb.state == LP_BB_IDLE) {
        s->bb.left = s->cfg.bb.burst ? s->cfg.bb.burst : 1;
        client_send(s);
        client_run(s);
    }
}

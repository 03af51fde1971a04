/* The data path: TCP and UDP send/receive loops run by a worker thread, with pacing,
 * byte budgets and batched UDP system calls. No reporting here: counters are published
 * for the control thread, which cuts intervals from them. */
#include "core/stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <linux/errqueue.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/bounce.h"
#include "core/udp_echo.h"
#include "core/clock.h"
#include "core/compiler.h"
#include "wire/iperf2.h"
#include "wire/iperf3.h"

#define LP_TCP_WRITES_PER_EVENT 16  /* fairness between streams sharing a worker */
#define LP_TCP_READS_PER_EVENT 16
#define LP_TCP_READ_MAX (256u * 1024u)
#define LP_TCP_WRITE_MAX (1024u * 1024u) /* a coalesced write (cfg.coalesce) */
#define LP_UDP_BATCH 64
#define LP_UDP_RX_HEAD 108          /* bytes of each datagram we actually copy: iperf2's
                                     * headers through the --isochronous frame block */
#define LP_UDP_GRO_MSG 65536u       /* one GRO message: at most an IP packet's 64 KiB */
#define LP_UDP_GRO_BATCH 16         /* GRO messages per recvmmsg */
#define LP_MIN_PACE_NS (20u * 1000u) /* do not wake more often than every 20 us */

static void do_attach(struct lp_post *p);
static void do_freeze(struct lp_post *p);
static void do_detach(struct lp_post *p);

static void msg_deliver(struct lp_post *p)
{
    struct lp_stream_msg *m = lp_container_of(p, struct lp_stream_msg, post);
    m->s->cfg.notify(m->s, m->ev);
}

/* The worker's batch is over: the terminal event may leave. The control thread may free
 * the stream as soon as it is posted, so nothing is touched after that. */
static void msg_send(struct lp_post *p)
{
    struct lp_stream_msg *m = lp_container_of(p, struct lp_stream_msg, defer);
    lp_loop_post(m->s->cfg.ctrl_loop, &m->post);
}

static void msg_init(struct lp_stream *s, struct lp_stream_msg *m)
{
    m->s = s;
    lp_post_init(&m->post, msg_deliver);
    lp_post_init(&m->defer, msg_send);
}

/* A non-terminal event (RX_TARGET, FROZEN): the stream stays attached, so it may leave now. */
static void post_event(struct lp_stream *s, struct lp_stream_msg *m, enum lp_stream_event ev)
{
    m->ev = ev;
    lp_loop_post(s->cfg.ctrl_loop, &m->post);
}

/* A terminal event tells the control thread it may free the stream. The worker may still
 * hold an epoll event for the stream's descriptor in the batch it is handling, so the event
 * leaves only after that batch (lp_loop_defer): otherwise the stale event would run through
 * freed memory (seen once in ~150 runs as a jump to a heap address). */
static void post_event_after_batch(struct lp_stream *s, struct lp_stream_msg *m, enum lp_stream_event ev)
{
    m->ev = ev;
    lp_loop_defer(&s->worker->loop, &m->defer);
}

/* Bytes at the front of each datagram that change per datagram. */
static size_t udp_stamp_len(const struct lp_stream_config *cfg)
{
    return cfg->wire == LP_WIRE_IPERF2 ? LP_I2_UDP_PREFIX : lp_i3_udp_hdr_len(cfg->udp_counters64);
}

static void udp_stamp(const struct lp_stream *s, uint8_t *out, uint64_t seq, const struct timespec *ts)
{
    uint32_t usec = (uint32_t)(ts->tv_nsec / 1000);
    if (s->cfg.wire == LP_WIRE_IPERF2) {
        lp_i2_udp_prefix_put(out, (int64_t)seq, (uint32_t)ts->tv_sec, usec);
    } else {
        struct lp_i3_udp_hdr h = {(uint32_t)ts->tv_sec, usec, seq};
        lp_i3_udp_hdr_put(out, LP_I3_UDP_HDR64, &h, s->cfg.udp_counters64);
    }
}

/* One xorshift64 step (Marsaglia 2003): its left shifts drop bits out of the word by design. */
static LP_WRAPS uint64_t xorshift64(uint64_t x)
{
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

static void fill_payload(uint8_t *buf, size_t len, bool repeating)
{
    if (repeating) {
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)('0' + i % 10);
        return;
    }
    /* Incompressible filler (xorshift), so link-layer compression cannot flatter results. */
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)(uintptr_t)buf ^ (uint64_t)time(NULL);
    for (size_t i = 0; i < len; i++) {
        x = xorshift64(x);
        buf[i] = (uint8_t)x;
    }
}

/* Done when the stream is made, not when its worker attaches it: the peer may already be
 * sending, and a loaded worker attaches late (seen: 9 of 39 32 KB datagrams dropped by the
 * default buffer before the attach under ASan). */
static void udp_recv_socket_setup(struct lp_stream *s)
{
    int one = 1;
    setsockopt(s->h.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    /* GRO: the kernel hands over a GSO sender's datagrams (loopback) or a NIC's coalesced run
     * of them as one message, which udp_recv splits. Kernels before 5.0 refuse it. */
    s->gro = setsockopt(s->h.fd, IPPROTO_UDP, UDP_GRO, &one, sizeof(one)) == 0;
    /* Without -w, give UDP receivers room for bursts: drops in our own socket would be
     * counted as link loss. Past net.core.rmem_max where allowed (CAP_NET_ADMIN), else up
     * to it: 1470-byte datagrams from a GSO sender on loopback, 4 MiB lost 1.1-1.4 %, 32 MiB
     * nothing (docs/BENCHMARKS.md). */
    if (s->cfg.window_bytes <= 0) {
        int big = LP_STREAM_UDP_RCVBUF_MAX;
        if (setsockopt(s->h.fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) < 0)
            setsockopt(s->h.fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    }
}

static void udp_batch_setup(struct lp_stream *s);

/* A stream that measures latency keeps its histogram (stats/hist.h). */
static bool latency_hist(struct lp_stream *s)
{
    if (!s->cfg.latency)
        return true;
    s->lat_batch.hist = calloc(1, sizeof(*s->lat_batch.hist));
    return s->lat_batch.hist != NULL;
}

struct lp_stream *lp_stream_new(const struct lp_stream_config *cfg)
{
    struct lp_stream *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->cfg = *cfg;
    s->h.fd = cfg->fd;
    lp_post_init(&s->req_attach, do_attach);
    lp_post_init(&s->req_freeze, do_freeze);
    lp_post_init(&s->req_detach, do_detach);
    msg_init(s, &s->msg_target);
    msg_init(s, &s->msg_frozen);
    msg_init(s, &s->msg_end);
    msg_init(s, &s->msg_detached);
    lp_timer_init(&s->pace_timer, NULL);
    lp_udp_rx_init(&s->rx);
    lp_latency_init(&s->lat);
    lp_latency_batch_reset(&s->lat_batch);
    s->next_seq = 1;
    atomic_init(&s->counting, true);
    atomic_init(&s->gso_used, false);
    if (cfg->kind == LP_STREAM_UDP_RECV)
        udp_recv_socket_setup(s);
    if (cfg->kind == LP_STREAM_TCP_SEND && (cfg->trip_bursts || cfg->isoch.on)) {
        /* Each write is one burst and starts with its header, so a burst is at least that
         * (--isochronous: a frame is a burst, written -l bytes at a time). */
        s->burst_size = cfg->blksize > LP_I2_BURST_LEN ? cfg->blksize : LP_I2_BURST_LEN;
        s->cfg.blksize = s->burst_size;
        s->cfg.zerocopy = false; /* the header changes under the kernel's feet otherwise */
        s->cfg.has_file = false;
    }
    if (cfg->kind == LP_STREAM_TCP_BOUNCE || cfg->kind == LP_STREAM_TCP_ECHO) {
        if (!lp_bounce_setup(s, cfg->lead, cfg->lead_len) || !latency_hist(s)) {
            free(s->payload);
            free(s);
            return NULL;
        }
        s->cfg.lead = NULL;
        s->cfg.lead_len = 0;
        return s;
    }
    if (cfg->kind == LP_STREAM_UDP_BOUNCE || cfg->kind == LP_STREAM_UDP_ECHO) {
        s->cfg.lead = NULL;
        s->cfg.lead_len = 0;
        if (!lp_udp_echo_setup(s) || !latency_hist(s)) {
            lp_udp_echo_free(s);
            free(s->payload);
            free(s);
            return NULL;
        }
        return s;
    }
    if (!latency_hist(s)) {
        free(s);
        return NULL;
    }
    if (cfg->kind == LP_STREAM_TCP_SEND && cfg->lead && cfg->lead_len) {
        s->cfg.lead_len = cfg->lead_len < sizeof(s->lead) ? cfg->lead_len : sizeof(s->lead);
        memcpy(s->lead, cfg->lead, s->cfg.lead_len);
    } else {
        s->cfg.lead_len = 0;
    }
    s->cfg.lead = NULL; /* borrowed: do not keep it */
    if (cfg->kind == LP_STREAM_TCP_RECV && cfg->trip_bursts)
        s->lead_off = cfg->skip_lead;
    if (cfg->kind == LP_STREAM_TCP_SEND || cfg->kind == LP_STREAM_UDP_SEND) {
        s->payload = malloc(s->cfg.blksize ? s->cfg.blksize : 1);
        if (!s->payload) {
            free(s->lat_batch.hist);
            free(s);
            return NULL;
        }
        /* iperf2 peers expect its digit filler; the header template follows the prefix. */
        fill_payload(s->payload, s->cfg.blksize, cfg->repeating_payload || cfg->wire == LP_WIRE_IPERF2);
        if (cfg->udp_template && cfg->udp_template_len) {
            size_t at = udp_stamp_len(cfg);
            size_t n = cfg->udp_template_len;
            if (at < cfg->blksize) {
                if (n > cfg->blksize - at)
                    n = cfg->blksize - at;
                memcpy(s->payload + at, cfg->udp_template, n);
            }
        }
        s->cfg.udp_template = NULL; /* borrowed: do not keep it */
    }
    if (cfg->kind == LP_STREAM_UDP_RECV && cfg->isoch.on && !lp_isoch_setup(s)) {
        free(s->lat_batch.hist);
        free(s);
        return NULL;
    }
    if (cfg->kind == LP_STREAM_TCP_SEND && cfg->isoch.on && !lp_isoch_setup(s)) {
        free(s->payload);
        free(s->lat_batch.hist);
        free(s);
        return NULL;
    }
    if (cfg->kind == LP_STREAM_UDP_SEND && cfg->isoch.on) {
        if (!lp_isoch_setup(s)) {
            free(s->payload);
            free(s->lat_batch.hist);
            free(s);
            return NULL;
        }
        return s; /* one datagram at a time, of varying length: no batches */
    }
    /* GSO is decided here, not when the worker attaches, so that the test's start report
     * can say whether this end sends with it (-J test_start.gso). */
    if (cfg->kind == LP_STREAM_UDP_SEND && !cfg->no_gso)
        udp_batch_setup(s);
    return s;
}

void lp_stream_free(struct lp_stream *s)
{
    if (!s)
        return;
    if (s->h.fd >= 0)
        close(s->h.fd);
    lp_udp_echo_free(s);
    lp_isoch_free(s);
    free(s->payload);
    free(s->batch_buf);
    free(s->lat_batch.hist);
    free(s);
}

bool lp_stream_settle(struct lp_stream *s, enum lp_stream_event ev)
{
    switch (ev) {
    case LP_SEV_DETACHED:
        s->off_worker = true;
        if (s->detach_requested)
            s->detach_replied = true;
        break;
    case LP_SEV_FINISHED:
    case LP_SEV_EOF:
    case LP_SEV_ERROR:
        s->off_worker = true;
        break;
    case LP_SEV_FROZEN:
        s->frozen = true;
        break;
    case LP_SEV_RX_TARGET:
        break;
    }
    /* A pending answer is a node of s still queued on a loop: wait for it too. */
    return s->off_worker && (!s->detach_requested || s->detach_replied) && (!s->freeze_requested || s->frozen);
}


void lp_stream_read(const struct lp_stream *s, struct lp_stream_counters *c)
{
    c->bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed);
    c->packets = atomic_load_explicit(&s->packets, memory_order_relaxed);
    c->max_seq = atomic_load_explicit(&s->max_seq, memory_order_relaxed);
    c->lost = atomic_load_explicit(&s->lost, memory_order_relaxed);
    c->out_of_order = atomic_load_explicit(&s->out_of_order, memory_order_relaxed);
    uint64_t jb = atomic_load_explicit(&s->jitter_bits, memory_order_relaxed);
    memcpy(&c->jitter_s, &jb, sizeof(jb));
    c->last_rx_ns = atomic_load_explicit(&s->last_rx_ns, memory_order_relaxed);
    lp_isoch_read(s, &c->frames);
}

static void add_bytes(struct lp_stream *s, uint64_t n)
{
    /* Single writer: a relaxed load+store is enough and avoids a locked add. */
    uint64_t v = atomic_load_explicit(&s->bytes, memory_order_relaxed);
    atomic_store_explicit(&s->bytes, v + n, memory_order_relaxed);
}

static void add_packets(struct lp_stream *s, uint64_t n)
{
    uint64_t v = atomic_load_explicit(&s->packets, memory_order_relaxed);
    atomic_store_explicit(&s->packets, v + n, memory_order_relaxed);
}

/* ---- attach / detach (run on the worker) ---- */

static void worker_detach(struct lp_stream *s, enum lp_stream_event why)
{
    if (!s->attached)
        return;
    lp_loop_del(&s->worker->loop, &s->h);
    lp_timer_cancel(&s->worker->loop, &s->pace_timer);
    s->attached = false;
    post_event_after_batch(s, &s->msg_end, why);
}

static void fail(struct lp_stream *s, int err)
{
    int expected = 0;
    atomic_compare_exchange_strong(&s->error, &expected, err);
    worker_detach(s, LP_SEV_ERROR);
}

static void set_events(struct lp_stream *s, uint32_t ev)
{
    if (ev == s->events)
        return;
    if (lp_loop_mod(&s->worker->loop, &s->h, ev) == 0)
        s->events = ev;
}

void lp_stream_io_count(struct lp_stream *s, uint64_t bytes)
{
    add_bytes(s, bytes);
}

void lp_stream_io_end(struct lp_stream *s, enum lp_stream_event why)
{
    worker_detach(s, why);
}

void lp_stream_io_fail(struct lp_stream *s, int err)
{
    fail(s, err);
}

void lp_stream_io_events(struct lp_stream *s, uint32_t ev)
{
    set_events(s, ev);
}

/* Take up to want units from the shared budget; returns what was granted. */
static uint64_t budget_take(struct lp_stream *s, uint64_t want)
{
    struct lp_stream_budget *b = s->cfg.budget;
    if (!b || !b->limited)
        return want;
    int64_t before = atomic_fetch_sub(&b->remaining, (int64_t)want);
    if (before <= 0) {
        atomic_fetch_add(&b->remaining, (int64_t)want);
        return 0;
    }
    if ((uint64_t)before < want) {
        atomic_fetch_add(&b->remaining, (int64_t)(want - (uint64_t)before));
        return (uint64_t)before;
    }
    return want;
}

static void budget_return(struct lp_stream *s, uint64_t units)
{
    if (s->cfg.budget && s->cfg.budget->limited && units)
        atomic_fetch_add(&s->cfg.budget->remaining, (int64_t)units);
}

static bool budget_exhausted(const struct lp_stream *s)
{
    const struct lp_stream_budget *b = s->cfg.budget;
    return b && b->limited && atomic_load(&b->remaining) <= 0;
}

static void note_rx(struct lp_stream *s, uint64_t n)
{
    struct lp_stream_budget *b = s->cfg.budget;
    if (b && b->credit)
        atomic_fetch_add(&b->credit_rx, n);
    if (!b || !b->rx_target)
        return;
    uint64_t total = atomic_fetch_add(&b->rx_total, n) + n;
    if (total >= b->rx_target && !atomic_exchange(&b->rx_target_hit, true))
        post_event(s, &s->msg_target, LP_SEV_RX_TARGET);
}

/* How many of n datagrams of blk bytes the test's credit allows now (n without credit).
 * At 0 the stream is marked starved and looks again in LP_CREDIT_POLL_NS. */
#define LP_CREDIT_POLL_NS (20ull * LP_NS_PER_MS)
static unsigned credit_allows(struct lp_stream *s, unsigned n, size_t blk, uint64_t now)
{
    struct lp_stream_budget *b = s->cfg.budget;
    if (!b || !b->credit)
        return n;
    uint64_t rx = atomic_load(&b->credit_rx), tx = atomic_load(&b->credit_tx);
    uint64_t allowed = b->credit_base + (rx > UINT64_MAX / 64 ? UINT64_MAX / 64 : rx) * b->credit_mult;
    uint64_t can = allowed > tx ? (allowed - tx) / blk : 0;
    if (can >= n)
        return n;
    if (can == 0) {
        atomic_store(&b->starved, true);
        lp_timer_arm(&s->worker->loop, &s->pace_timer, now + LP_CREDIT_POLL_NS);
        set_events(s, 0);
    }
    return (unsigned)can;
}

/* Returns false when the stream may not send now (a pacing timer is armed). */
static bool pace_allows(struct lp_stream *s, uint64_t bytes, uint64_t now)
{
    if (!s->cfg.rate_bps)
        return true;
    if (lp_pacer_credit(&s->pacer, now) >= bytes)
        return true;
    uint64_t due = lp_pacer_due_ns(&s->pacer, bytes);
    if (due < now + LP_MIN_PACE_NS)
        due = now + LP_MIN_PACE_NS;
    lp_timer_arm(&s->worker->loop, &s->pace_timer, due);
    set_events(s, 0);
    return false;
}

/* ---- TCP ---- */

/* MSG_ZEROCOPY completions arrive on the error queue; the payload never changes, so they
 * only need reaping (to release the socket's option memory), not matching. A completion
 * that says the kernel copied after all (loopback, veth: the data is delivered locally, so
 * the pages cannot be lent) turns -Z into plain send(): on loopback, send() of the default
 * 1 MiB writes beat sendfile() from a memory file at every block size but 64 KiB
 * (docs/internals/engine.md), so no other method is kept. */
static void reap_zerocopy(struct lp_stream *s)
{
    union {
        char buf[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
        struct cmsghdr align;
    } ctl;
    bool copied = false;
    for (int i = 0; i < 64; i++) {
        struct msghdr m = {.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
        if (recvmsg(s->h.fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
            break;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
            struct sock_extended_err ee;
            if (c->cmsg_len < CMSG_LEN(sizeof(ee)))
                continue;
            memcpy(&ee, CMSG_DATA(c), sizeof(ee));
            if (ee.ee_origin == SO_EE_ORIGIN_ZEROCOPY && (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED))
                copied = true;
        }
    }
    if (copied)
        s->send_flags = 0;
}

/* -F: the file's content, from the kernel's page cache straight to the socket; a test
 * longer than the file starts it over. Returns the bytes sent or a negative errno; an empty
 * file is -ENODATA (the test ends at once). */
static ssize_t send_file(struct lp_stream *s, size_t n)
{
    ssize_t w = sendfile(s->h.fd, s->cfg.file_fd, &s->file_off, n);
    if (w == 0) {
        s->file_off = 0;
        w = sendfile(s->h.fd, s->cfg.file_fd, &s->file_off, n);
        if (w == 0)
            return -ENODATA;
    }
    return w < 0 ? -errno : w;
}

/* One TCP write of n bytes from `from` (or the -F file). Returns the bytes sent or a
 * negative errno. */
static ssize_t tcp_write(struct lp_stream *s, const uint8_t *from, size_t n)
{
    if (s->cfg.has_file)
        return send_file(s, n);
    if (n <= s->cfg.blksize) {
        ssize_t w = send(s->h.fd, from, n, MSG_DONTWAIT | MSG_NOSIGNAL | s->send_flags);
        return w < 0 ? -errno : w;
    }
    /* A coalesced write: the block again and again, the same bytes as one send() each. */
    struct iovec iov[LP_TCP_WRITE_MAX / LP_DEFAULT_TCP_BLKSIZE];
    size_t k = 0;
    for (size_t left = n; left && k < sizeof(iov) / sizeof(iov[0]); k++) {
        size_t part = left < s->cfg.blksize ? left : s->cfg.blksize;
        iov[k] = (struct iovec){.iov_base = (void *)from, .iov_len = part};
        left -= part;
    }
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = k};
    ssize_t w = sendmsg(s->h.fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL | s->send_flags);
    return w < 0 ? -errno : w;
}

/* --trip-times sender: stamp the header of the next burst. A burst is burst_size bytes,
 * less when the -n budget ends first (its size field says so, so the receiver's framing
 * stays right). --isochronous: the frame's id and size are set already (burst_cur). */
static void burst_begin(struct lp_stream *s, size_t len)
{
    bool frame = s->iso != NULL;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct lp_i2_burst b = {.start_sec = s->cfg.trip_start_sec,
                            .start_usec = s->cfg.trip_start_usec,
                            .write_sec = (uint32_t)ts.tv_sec,
                            .write_usec = (uint32_t)(ts.tv_nsec / 1000),
                            .id = frame ? s->burst_id : ++s->burst_id,
                            .size = frame ? s->burst_cur : (uint32_t)(len < s->burst_size ? len : s->burst_size),
                            .seq = s->burst_seq,
                            .period_us = frame ? (uint32_t)(1e6 / s->cfg.isoch.fps) : 0};
    if (b.size < LP_I2_BURST_LEN)
        b.size = LP_I2_BURST_LEN;
    s->burst_cur = b.size;
    lp_i2_burst_put(s->payload, &b);
}

static void burst_advance(struct lp_stream *s, size_t written)
{
    s->burst_off += (uint32_t)written;
    if (s->burst_off >= s->burst_cur) {
        s->burst_seq += s->burst_cur;
        s->burst_off = 0;
        if (s->iso) /* the frame is written: the next one is drawn when due */
            s->burst_cur = 0;
    }
}

/* The lead (a header ahead of the data): false while it is not all written. */
static bool lead_sent(struct lp_stream *s)
{
    while (s->lead_off < s->cfg.lead_len) {
        ssize_t w = send(s->h.fd, s->lead + s->lead_off, s->cfg.lead_len - s->lead_off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                set_events(s, EPOLLOUT);
            else
                fail(s, -errno);
            return false;
        }
        s->lead_off += (uint32_t)w;
    }
    return true;
}

/* Whole-block budgets: a block is taken while any budget remains, so the stream's last block
 * may pass it (by less than one block per stream, as a stock iperf3 sender does). */
static uint64_t budget_take_block(struct lp_stream *s, uint64_t n)
{
    struct lp_stream_budget *b = s->cfg.budget;
    if (atomic_fetch_sub(&b->remaining, (int64_t)n) > 0)
        return n;
    atomic_fetch_add(&b->remaining, (int64_t)n);
    return 0;
}

static bool whole_blocks(const struct lp_stream *s)
{
    return s->cfg.budget && s->cfg.budget->whole_blocks && s->cfg.budget->limited;
}

/* How many bytes the next TCP write may carry: the rest of a block already taken, or what the
 * budget grants now (0: the budget is used up). */
static size_t tcp_grant(struct lp_stream *s, size_t n, bool blocks)
{
    if (s->block_left)
        return s->block_left;
    if (whole_blocks(s))
        return (size_t)budget_take_block(s, n);
    uint64_t grant = budget_take(s, blocks ? 1 : n);
    if (blocks)
        return grant ? n : 0;
    return (size_t)grant;
}

/* Give back what a write did not carry: nothing of a whole block (its rest is written next,
 * so the receiver's block framing stays), else the unwritten bytes. */
static void tcp_unsent(struct lp_stream *s, size_t n, ssize_t w, bool blocks)
{
    size_t sent = w > 0 ? (size_t)w : 0;
    if (whole_blocks(s)) {
        if (s->block_left || sent > 0)
            s->block_left = (uint32_t)(n - sent);
        else /* a fresh block that did not go out at all */
            budget_return(s, n);
        return;
    }
    if (blocks)
        budget_return(s, w < 0 ? 1 : 0);
    else if (sent < n)
        budget_return(s, n - sent);
}

/* Several blocks a write where only bytes count: no budget (-n/-k take whole blocks), no
 * pacing, no file, no trip-times bursts. */
static bool coalesced_writes(const struct lp_stream *s)
{
    return s->cfg.coalesce && !s->cfg.rate_bps && !s->cfg.has_file && !s->burst_size && !s->block_left &&
           (!s->cfg.budget || !s->cfg.budget->limited) && s->cfg.blksize <= LP_TCP_WRITE_MAX / 2;
}

static void tcp_send(struct lp_stream *s)
{
    if (!lead_sent(s))
        return;
    uint64_t now = s->cfg.rate_bps ? lp_now_ns() : 0;
    bool blocks = s->cfg.budget && s->cfg.budget->blocks;
    for (int i = 0; i < LP_TCP_WRITES_PER_EVENT; i++) {
        size_t n = s->block_left ? s->block_left : s->cfg.blksize;
        size_t at = s->burst_off; /* where in the payload this write starts */
        if (s->iso) {
            /* --isochronous: a frame begins when due; it is written a block at a time, the
             * burst header in the first (2.1.8's later blocks repeat the buffer as filler). */
            /* (burst_cur 0: no frame pending; a frame whose first write found the socket full
             * is still pending, not drawn and counted again) */
            if (s->burst_cur == 0 && !lp_isoch_tcp_frame(s, LP_I2_BURST_LEN, &s->burst_id, &s->burst_cur))
                return;
            at = s->burst_off % s->cfg.blksize;
            n = s->burst_cur - s->burst_off;
            if (n > s->cfg.blksize - at)
                n = s->cfg.blksize - at;
        } else if (s->burst_size) {
            n = s->burst_size - s->burst_off;
        } else if (coalesced_writes(s)) {
            n = LP_TCP_WRITE_MAX / s->cfg.blksize * s->cfg.blksize;
        }
        if (!pace_allows(s, n, now))
            return;
        n = tcp_grant(s, n, blocks);
        if (n == 0) {
            worker_detach(s, LP_SEV_FINISHED);
            return;
        }
        if (s->burst_size && s->burst_off == 0)
            burst_begin(s, n);
        const uint8_t *from = s->payload + (s->burst_size ? at : 0);
        ssize_t w = tcp_write(s, from, n);
        int err = w < 0 ? (int)-w : 0;
        tcp_unsent(s, n, w, blocks);
        if (w < 0) {
            if (err == ENOBUFS && s->send_flags) { /* too many completions pending */
                reap_zerocopy(s);
                set_events(s, EPOLLOUT);
                return;
            }
            if (err == EAGAIN || err == EWOULDBLOCK || err == EINTR) {
                set_events(s, EPOLLOUT);
                return;
            }
            if (err == ENODATA) { /* empty -F file: nothing to send */
                worker_detach(s, LP_SEV_FINISHED);
                return;
            }
            fail(s, -err);
            return;
        }
        if (s->burst_size)
            burst_advance(s, (size_t)w);
        if (atomic_load_explicit(&s->counting, memory_order_relaxed))
            add_bytes(s, (uint64_t)w);
        if (s->cfg.rate_bps)
            lp_pacer_spend(&s->pacer, (uint64_t)w);
        if (!s->block_left && budget_exhausted(s)) {
            worker_detach(s, LP_SEV_FINISHED);
            return;
        }
        if ((size_t)w < n) { /* socket buffer full */
            set_events(s, EPOLLOUT);
            return;
        }
    }
    set_events(s, EPOLLOUT);
}

/* Wake the receiver only once about LP_RCVLOWAT_NS worth of data is queued: far fewer
 * wake-ups (and context switches on the sender's side) at high rates, while interval
 * figures stay accurate to that much data. The kernel still wakes us when the window
 * is nearly closed, at EOF, and we drain on freeze/detach, so nothing is left uncounted. */
#define LP_RCVLOWAT_NS (2u * 1000u * 1000u)
#define LP_RCVLOWAT_MAX (256 * 1024)
#define LP_RCVLOWAT_PERIOD_NS (20u * 1000u * 1000u)

static void set_rcvlowat(struct lp_stream *s, int v)
{
    if (v == s->rcvlowat)
        return;
    if (setsockopt(s->h.fd, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v)) == 0)
        s->rcvlowat = v;
}

/* Near a receive target (-n in reverse mode) every byte must wake us: the last bytes of
 * the test would otherwise sit below the low-watermark. */
#define LP_RCVLOWAT_TARGET_SLACK (64ull << 20)

static bool near_rx_target(const struct lp_stream *s)
{
    const struct lp_stream_budget *b = s->cfg.budget;
    if (!b || !b->rx_target)
        return false;
    uint64_t total = atomic_load_explicit(&b->rx_total, memory_order_relaxed);
    return total + LP_RCVLOWAT_TARGET_SLACK >= b->rx_target;
}

static void adapt_rcvlowat(struct lp_stream *s, uint64_t got, uint64_t now)
{
    if (near_rx_target(s)) {
        set_rcvlowat(s, 1);
        return;
    }
    s->rate_bytes += got;
    if (!s->rate_t0_ns) {
        s->rate_t0_ns = now;
        return;
    }
    uint64_t dt = now - s->rate_t0_ns;
    if (dt < LP_RCVLOWAT_PERIOD_NS)
        return;
    double want = (double)s->rate_bytes * LP_RCVLOWAT_NS / (double)dt;
    int v = 1;
    while (v < LP_RCVLOWAT_MAX && v * 2 <= want)
        v *= 2;
    if (s->cfg.window_bytes > 0 && v > s->cfg.window_bytes / 4)
        v = s->cfg.window_bytes / 4 > 0 ? s->cfg.window_bytes / 4 : 1;
    set_rcvlowat(s, v);
    s->rate_t0_ns = now;
    s->rate_bytes = 0;
    /* If the traffic stops or slows sharply, data below the watermark would wait unseen:
     * a watchdog drops the watermark when a whole period passes without a read. */
    if (v > 1 && !lp_timer_armed(&s->pace_timer))
        lp_timer_arm(&s->worker->loop, &s->pace_timer, now + LP_RCVLOWAT_PERIOD_NS);
}

static void rcvlowat_watchdog(struct lp_stream *s)
{
    uint64_t now = lp_now_ns();
    uint64_t last = atomic_load_explicit(&s->last_rx_ns, memory_order_relaxed);
    if (now - last >= LP_RCVLOWAT_PERIOD_NS) {
        set_rcvlowat(s, 1);
        s->rate_t0_ns = 0;
        s->rate_bytes = 0;
        return;
    }
    lp_timer_arm(&s->worker->loop, &s->pace_timer, last + LP_RCVLOWAT_PERIOD_NS);
}

/* --trip-times receiver: walk the bursts in what was just read. A burst's latency is taken
 * when its last byte has been read (iperf2 does the same), against its write time. */
static size_t burst_scan(struct lp_stream *s, const uint8_t *p, size_t n, int64_t now_wall_ns)
{
    size_t lead = 0;
    if (s->lead_off) { /* the sender's own header ahead of its bursts: not payload */
        lead = s->lead_off < n ? s->lead_off : n;
        s->lead_off -= (uint32_t)lead;
        p += lead;
        n -= lead;
    }
    while (n) {
        if (!s->in_burst_body) {
            size_t take = LP_I2_BURST_LEN - s->burst_off;
            if (take > n)
                take = n;
            memcpy(s->burst_hdr + s->burst_off, p, take);
            s->burst_off += (uint32_t)take;
            p += take;
            n -= take;
            if (s->burst_off < LP_I2_BURST_LEN)
                return lead;
            struct lp_i2_burst b;
            lp_i2_burst_get(s->burst_hdr, &b);
            /* A size below the header's own is a lie: treat the burst as just its header. */
            s->burst_off = b.size > LP_I2_BURST_LEN ? b.size - LP_I2_BURST_LEN : 0;
            s->burst_write_ns = (int64_t)b.write_sec * (int64_t)LP_NS_PER_S + (int64_t)(b.write_usec % 1000000u) * 1000;
            s->in_burst_body = true;
        } else {
            size_t take = s->burst_off < n ? s->burst_off : n;
            s->burst_off -= (uint32_t)take;
            p += take;
            n -= take;
        }
        if (s->in_burst_body && s->burst_off == 0) {
            if (s->cfg.latency)
                lp_latency_batch_add(&s->lat_batch, now_wall_ns - s->burst_write_ns);
            s->in_burst_body = false;
        }
    }
    return lead;
}

static void tcp_recv(struct lp_stream *s)
{
    bool trunc = s->cfg.skip_rx_copy && !s->cfg.trip_bursts; /* bursts must be read to be parsed */
    int flags = MSG_DONTWAIT | (trunc ? MSG_TRUNC : 0);
    /* A discarding read copies nothing, but recv() still promises the buffer holds `len`
     * bytes (and the sanitizers check that it does): never more than the scratch buffer. */
    size_t len = s->worker->scratch_len;
    if (!trunc && len > LP_TCP_READ_MAX)
        len = LP_TCP_READ_MAX;
    uint64_t got = 0;
    for (int i = 0; i < LP_TCP_READS_PER_EVENT; i++) {
        ssize_t r = recv(s->h.fd, s->worker->scratch, len, flags);
        if (r > 0) {
            got += (uint64_t)r;
            if (s->cfg.trip_bursts && atomic_load_explicit(&s->counting, memory_order_relaxed))
                got -= burst_scan(s, (const uint8_t *)s->worker->scratch, (size_t)r, (int64_t)lp_wall_ns());
            continue;
        }
        if (r == 0) {
            if (got)
                break; /* account first; EOF is seen again on the next event */
            worker_detach(s, LP_SEV_EOF);
            return;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            break;
        fail(s, -errno);
        return;
    }
    if (got && atomic_load_explicit(&s->counting, memory_order_relaxed)) {
        uint64_t now = lp_now_ns();
        add_bytes(s, got);
        note_rx(s, got);
        atomic_store_explicit(&s->last_rx_ns, now, memory_order_relaxed);
        adapt_rcvlowat(s, got, now);
        lp_latency_publish(&s->lat, &s->lat_batch);
    }
}

/* ---- UDP ---- */

/* Datagrams up to this size are built in one contiguous batch buffer, which UDP GSO can
 * send as a few large writes that the kernel cuts into datagrams. */
#define LP_UDP_CONTIG_MAX 8192u
#define LP_UDP_GSO_BYTES 65507u      /* the limit of one UDP write (IPv4) */
#define LP_UDP_GSO_MAX_SEGS 128u     /* UDP_MAX_SEGMENTS since Linux 6.9 */
#define LP_UDP_GSO_OLD_SEGS 64u      /* ... and on older kernels with GSO */
#define LP_UDP_TX_MSGS 16u           /* GSO writes per sendmmsg */
#define LP_UDP_TX_BYTES (256u * 1024u) /* a GSO sender's batch buffer, at most */

/* Send n datagrams (headers stamped with ts, sequence numbers from next_seq). Returns how
 * many left, or a negative errno. */
static int udp_send_batch(struct lp_stream *s, unsigned n, const struct timespec *ts)
{
    struct mmsghdr msgs[LP_UDP_BATCH];
    struct iovec iov[LP_UDP_BATCH][2];
    uint8_t hdrs[LP_UDP_BATCH][LP_I2_UDP_PREFIX];
    size_t hlen = udp_stamp_len(&s->cfg);
    size_t blk = s->cfg.blksize;
    unsigned m = 0;
    unsigned per = s->batch_buf && s->gso_segs ? s->gso_segs : 1;

    if (n > per * LP_UDP_BATCH)
        n = per * LP_UDP_BATCH; /* one mmsghdr per write */
    memset(msgs, 0, sizeof(msgs[0]) * ((n + per - 1) / per));
    if (s->batch_buf) {
        /* Contiguous: stamp headers in place; with GSO one message carries many datagrams. */
        for (unsigned i = 0; i < n; i++)
            udp_stamp(s, s->batch_buf + i * blk, s->next_seq + i, ts);
        for (unsigned i = 0; i < n; i += per, m++) {
            unsigned cnt = n - i < per ? n - i : per;
            iov[m][0].iov_base = s->batch_buf + i * blk;
            iov[m][0].iov_len = cnt * blk;
            msgs[m].msg_hdr.msg_iov = iov[m];
            msgs[m].msg_hdr.msg_iovlen = 1;
        }
    } else {
        for (unsigned i = 0; i < n; i++, m++) {
            udp_stamp(s, hdrs[i], s->next_seq + i, ts);
            iov[i][0].iov_base = hdrs[i];
            iov[i][0].iov_len = hlen;
            iov[i][1].iov_base = s->payload + hlen;
            iov[i][1].iov_len = blk - hlen;
            msgs[i].msg_hdr.msg_iov = iov[i];
            msgs[i].msg_hdr.msg_iovlen = 2;
        }
    }
    int sent = sendmmsg(s->h.fd, msgs, m, MSG_DONTWAIT);
    if (sent < 0)
        return -errno;
    unsigned dgrams = 0;
    for (int j = 0; j < sent; j++)
        dgrams += (unsigned)(iov[j][0].iov_len + (s->batch_buf ? 0 : iov[j][1].iov_len)) / (unsigned)blk;
    return (int)dgrams;
}

/* A kernel older than 6.9 takes 64 datagrams a write; without GSO at all (older still, or a
 * route that refuses it) keep sending one datagram a message. */
static void udp_gso_step_down(struct lp_stream *s)
{
    if (s->gso_segs > LP_UDP_GSO_OLD_SEGS) {
        s->gso_segs = LP_UDP_GSO_OLD_SEGS;
        return;
    }
    int zero = 0;
    setsockopt(s->h.fd, IPPROTO_UDP, UDP_SEGMENT, &zero, sizeof(zero));
    s->gso_segs = 0;
    if (!s->gso_wrote) /* refused at its first write: this test did not use GSO after all */
        atomic_store(&s->gso_used, false);
}

/* An ICMP error (port unreachable: nobody listens there, or a spoofed request named a
 * victim) ends a sender that asked for it, once past its grace time. */
static bool icmp_ends(const struct lp_stream *s, uint64_t now)
{
    return s->cfg.icmp_stops && now - s->attach_ns >= s->cfg.icmp_grace_ns;
}

/* EPOLLERR on a UDP sender: the pending error is read (clearing it; epoll reports EPOLLERR
 * whatever events were asked for, so leaving it would spin the worker). */
static bool udp_send_error(struct lp_stream *s)
{
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(s->h.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err == 0)
        return false;
    if (err == ECONNREFUSED && !icmp_ends(s, lp_now_ns()))
        return false;
    fail(s, -err);
    return true;
}

static void udp_send(struct lp_stream *s)
{
    size_t blk = s->cfg.blksize;
    bool blocks = s->cfg.budget && s->cfg.budget->blocks;

    for (int round = 0; round < 4; round++) {
        uint64_t now = lp_now_ns();
        unsigned n = s->gso_segs ? s->batch_n : LP_UDP_BATCH;
        if (s->batch_buf && n > s->batch_n)
            n = s->batch_n; /* GSO refused after all: the buffer may hold fewer */
        if (s->cfg.rate_bps) {
            uint64_t need = (uint64_t)blk * (s->cfg.burst ? s->cfg.burst : 1);
            if (!pace_allows(s, need, now))
                return;
            uint64_t can = lp_pacer_credit(&s->pacer, now) / blk;
            if (can < n)
                n = (unsigned)(can ? can : 1);
        }
        n = credit_allows(s, n, blk, now);
        if (n == 0)
            return;
        uint64_t grant = budget_take(s, blocks ? n : (uint64_t)n * blk);
        if (grant == 0) {
            worker_detach(s, LP_SEV_FINISHED);
            return;
        }
        unsigned granted = blocks ? (unsigned)grant : (unsigned)((grant + blk - 1) / blk);
        if (granted < n)
            n = granted;
        /* Sender timestamp: one reading per batch; they leave together. iperf3 stamps the
         * monotonic clock, iperf2 the wall clock (its trip-times need it). */
        struct timespec ts;
        clock_gettime(s->cfg.wire == LP_WIRE_IPERF2 ? CLOCK_REALTIME : CLOCK_MONOTONIC, &ts);
        int sent = udp_send_batch(s, n, &ts);
        while (sent < 0 && s->gso_segs && (sent == -EIO || sent == -EINVAL || sent == -EOPNOTSUPP)) {
            udp_gso_step_down(s);
            sent = udp_send_batch(s, n, &ts);
        }
        if (sent < 0) {
            budget_return(s, blocks ? n : (uint64_t)n * blk);
            if (sent == -EAGAIN || sent == -EWOULDBLOCK || sent == -ENOBUFS || sent == -EINTR) {
                set_events(s, EPOLLOUT);
                return;
            }
            if (sent == -ECONNREFUSED && !icmp_ends(s, now)) /* from an earlier datagram */
                continue;
            fail(s, sent);
            return;
        }
        if ((unsigned)sent < n)
            budget_return(s, blocks ? n - (unsigned)sent : (uint64_t)(n - (unsigned)sent) * blk);
        s->next_seq += (uint64_t)sent;
        s->gso_wrote |= s->gso_segs != 0;
        if (s->cfg.budget && s->cfg.budget->credit)
            atomic_fetch_add(&s->cfg.budget->credit_tx, (uint64_t)sent * blk);
        if (atomic_load_explicit(&s->counting, memory_order_relaxed)) {
            add_bytes(s, (uint64_t)sent * blk);
            add_packets(s, (uint64_t)sent);
        }
        if (s->cfg.rate_bps)
            lp_pacer_spend(&s->pacer, (uint64_t)sent * blk);
        if (budget_exhausted(s)) {
            worker_detach(s, LP_SEV_FINISHED);
            return;
        }
        if ((unsigned)sent < n) {
            set_events(s, EPOLLOUT);
            return;
        }
    }
    /* Unpaced: let epoll tell us when there is room. Paced: the timer drives us; if we are
     * behind, come back right after other streams had their turn. */
    if (!s->cfg.rate_bps) {
        set_events(s, EPOLLOUT);
    } else {
        uint64_t now = lp_now_ns();
        if (pace_allows(s, (uint64_t)blk * (s->cfg.burst ? s->cfg.burst : 1), now)) {
            set_events(s, 0);
            lp_timer_arm(&s->worker->loop, &s->pace_timer, now);
        }
    }
}

static uint64_t ts_to_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * LP_NS_PER_S + (uint64_t)ts->tv_nsec;
}

void lp_stream_udp_publish(struct lp_stream *s)
{
    uint64_t jb;
    memcpy(&jb, &s->rx.jitter_s, sizeof(jb));
    atomic_store_explicit(&s->max_seq, s->rx.max_seq, memory_order_relaxed);
    atomic_store_explicit(&s->lost, s->rx.lost, memory_order_relaxed);
    atomic_store_explicit(&s->out_of_order, s->rx.out_of_order, memory_order_relaxed);
    atomic_store_explicit(&s->jitter_bits, jb, memory_order_relaxed);
    lp_latency_publish(&s->lat, &s->lat_batch);
}

/* Sequence number and send time of a received datagram; fin is set by iperf2's negative
 * end-of-test number (accounted by its absolute value, as iperf2 does). */
static bool udp_parse(const struct lp_stream *s, const uint8_t *buf, size_t len, uint64_t *seq, uint64_t *sent_ns,
                      bool *fin)
{
    *fin = false;
    if (s->cfg.wire == LP_WIRE_IPERF2) {
        int64_t sq;
        uint32_t sec, usec;
        if (!lp_i2_udp_prefix_get(buf, len, s->cfg.udp_seq64, &sq, &sec, &usec))
            return false;
        /* A zero prefix is the peer's report or ack (2.1.8 answers the FIN of a full-duplex
         * flow on the same socket), never data: every data datagram carries its send time. */
        if (sq == 0 && sec == 0 && usec == 0)
            return false;
        if (sq < 0) {
            *fin = true;
            sq = sq == INT64_MIN ? INT64_MAX : -sq;
        }
        *seq = (uint64_t)sq;
        *sent_ns = (uint64_t)sec * LP_NS_PER_S + (uint64_t)usec * 1000u;
        return true;
    }
    struct lp_i3_udp_hdr h;
    if (!lp_i3_udp_hdr_get(buf, len, &h, s->cfg.udp_counters64))
        return false;
    *seq = h.seq;
    *sent_ns = (uint64_t)h.sec * LP_NS_PER_S + (uint64_t)h.usec * 1000u;
    return true;
}

/* Statistics for one datagram (owner thread). Returns its length, or 0 if it is not ours. */
static size_t udp_account(struct lp_stream *s, const uint8_t *head, size_t headlen, size_t len, uint64_t arrival,
                          bool *fin)
{
    uint64_t seq, sent;
    if (!udp_parse(s, head, headlen, &seq, &sent, fin))
        return 0; /* too short to be ours: not counted */
    if (seq < s->seq_floor)
        return 0; /* a second copy of a datagram counted from the listener */
    /* Transit relative to the first datagram keeps full precision in a double. */
    int64_t transit = (int64_t)arrival - (int64_t)sent;
    if (!s->have_transit_base) {
        s->transit_base_ns = transit;
        s->have_transit_base = true;
    }
    lp_udp_rx_packet(&s->rx, seq, (double)(transit - s->transit_base_ns) / 1e9);
    if (s->cfg.latency)
        lp_latency_batch_add(&s->lat_batch, transit);
    if (s->iso && !*fin)
        lp_isoch_rx(s, head, headlen, len);
    return len;
}

void lp_stream_add_rx_bytes(struct lp_stream *s, uint64_t n)
{
    add_bytes(s, n);
    atomic_store_explicit(&s->last_rx_ns, lp_now_ns(), memory_order_relaxed);
}

void lp_stream_add_tx(struct lp_stream *s, uint64_t bytes, uint64_t packets)
{
    add_bytes(s, bytes);
    add_packets(s, packets);
}

bool lp_stream_udp_account(struct lp_stream *s, const uint8_t *buf, size_t len, uint64_t arrival_ns)
{
    bool fin = false;
    size_t got = udp_account(s, buf, len < LP_UDP_RX_HEAD ? len : LP_UDP_RX_HEAD, len, arrival_ns, &fin);
    if (got) {
        if (s->cfg.budget && s->cfg.budget->credit)
            atomic_fetch_add(&s->cfg.budget->credit_rx, got);
        add_bytes(s, got);
        add_packets(s, 1);
        lp_stream_udp_publish(s);
        atomic_store_explicit(&s->last_rx_ns, lp_now_ns(), memory_order_relaxed);
    }
    s->fin_seen |= fin;
    return fin;
}

void lp_stream_udp_counted_through_max(struct lp_stream *s)
{
    if (s->rx.received)
        s->seq_floor = s->rx.max_seq + 1;
}

/* Where a received message came from and how the kernel cut it: its arrival time (the
 * kernel's stamp, else the batch's clock reading) and, for a GRO message, the length of each
 * datagram in it (0: one datagram). */
static void udp_msg_meta(struct msghdr *mh, uint64_t *arrival, size_t *seg)
{
    *seg = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec kts;
            memcpy(&kts, CMSG_DATA(c), sizeof(kts));
            *arrival = ts_to_ns(&kts);
        } else if (c->cmsg_level == IPPROTO_UDP && c->cmsg_type == UDP_GRO) {
            int gso = 0;
            memcpy(&gso, CMSG_DATA(c), sizeof(gso));
            *seg = gso > 0 ? (size_t)gso : 0;
        }
    }
}

/* Account every datagram of one received message: len bytes, of which the first have bytes
 * were copied to p; a GRO message holds datagrams of seg bytes each (the last may be
 * shorter). A datagram whose header was not copied is not counted. */
static size_t udp_account_msg(struct lp_stream *s, const uint8_t *p, size_t have, size_t len, size_t seg,
                              uint64_t arrival, uint64_t *pkts, bool *fin)
{
    size_t bytes = 0;
    if (seg == 0 || seg >= len)
        seg = len;
    for (size_t off = 0; off < len && off < have && !*fin; off += seg) {
        size_t dlen = len - off < seg ? len - off : seg;
        size_t hlen = have - off < dlen ? have - off : dlen;
        size_t got = udp_account(s, p + off, hlen < LP_UDP_RX_HEAD ? hlen : LP_UDP_RX_HEAD, dlen, arrival, fin);
        bytes += got;
        *pkts += got ? 1 : 0;
    }
    return bytes;
}

/* Without GRO only each datagram's header is copied (MSG_TRUNC still reports its length);
 * with GRO one message is many datagrams and each one's header sits inside it, so the whole
 * message is read (one copy, but one system call and one socket buffer entry for up to 64 KiB). */
static void udp_recv(struct lp_stream *s)
{
    struct mmsghdr msgs[LP_UDP_BATCH];
    struct iovec iov[LP_UDP_BATCH];
    union {
        char buf[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl[LP_UDP_BATCH];
    uint8_t *base = (uint8_t *)s->worker->scratch;
    size_t buflen = s->gro ? LP_UDP_GRO_MSG : LP_UDP_RX_HEAD;
    size_t fit = s->worker->scratch_len / buflen;
    int batch = fit < (size_t)(s->gro ? LP_UDP_GRO_BATCH : LP_UDP_BATCH) ? (int)fit : (s->gro ? LP_UDP_GRO_BATCH : LP_UDP_BATCH);
    bool any = false;

    for (int round = 0; round < 8 && !s->fin_seen; round++) {
        memset(msgs, 0, sizeof(msgs[0]) * (size_t)batch);
        for (int i = 0; i < batch; i++) {
            iov[i].iov_base = base + (size_t)i * buflen;
            iov[i].iov_len = buflen;
            msgs[i].msg_hdr.msg_iov = &iov[i];
            msgs[i].msg_hdr.msg_iovlen = 1;
            msgs[i].msg_hdr.msg_control = ctl[i].buf;
            msgs[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
        }
        int n = recvmmsg(s->h.fd, msgs, (unsigned)batch, MSG_DONTWAIT | MSG_TRUNC, NULL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            if (errno == ECONNREFUSED)
                continue;
            fail(s, -errno);
            return;
        }
        if (n == 0)
            break;
        struct timespec batch_ts;
        clock_gettime(CLOCK_REALTIME, &batch_ts);
        bool counting = atomic_load_explicit(&s->counting, memory_order_relaxed);
        uint64_t bytes = 0, pkts = 0;
        for (int i = 0; i < n && counting && !s->fin_seen; i++) {
            size_t len = msgs[i].msg_len, seg;
            uint64_t arrival = ts_to_ns(&batch_ts);
            udp_msg_meta(&msgs[i].msg_hdr, &arrival, &seg);
            /* iperf2's FIN: its sender is done, later FINs are answered by the control thread. */
            bytes += udp_account_msg(s, iov[i].iov_base, len < buflen ? len : buflen, len, seg, arrival, &pkts,
                                     &s->fin_seen);
        }
        if (bytes) {
            add_bytes(s, bytes);
            add_packets(s, pkts);
            note_rx(s, bytes);
            any = true;
        }
        if (n < batch)
            break;
    }
    if (any) {
        lp_stream_udp_publish(s);
        atomic_store_explicit(&s->last_rx_ns, lp_now_ns(), memory_order_relaxed);
    }
    if (s->fin_seen)
        worker_detach(s, LP_SEV_EOF);
}

/* ---- dispatch ---- */

static void on_io(struct lp_handler *h, uint32_t events)
{
    struct lp_stream *s = lp_container_of(h, struct lp_stream, h);
    if (!s->attached)
        return;
    switch (s->cfg.kind) {
    case LP_STREAM_TCP_SEND:
        if ((events & EPOLLERR) && s->cfg.zerocopy)
            reap_zerocopy(s);
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            tcp_send(s);
        break;
    case LP_STREAM_TCP_RECV:
        tcp_recv(s);
        break;
    case LP_STREAM_UDP_SEND:
        if ((events & EPOLLERR) && udp_send_error(s))
            break;
        if (s->iso) {
            if (events & ~(uint32_t)EPOLLERR)
                lp_isoch_io(s);
            break;
        }
        /* Paced and waiting for its timer: only the error woke it. */
        if ((events & ~(uint32_t)EPOLLERR) || !s->cfg.rate_bps || !lp_timer_armed(&s->pace_timer))
            udp_send(s);
        break;
    case LP_STREAM_UDP_RECV:
        udp_recv(s);
        break;
    case LP_STREAM_TCP_BOUNCE:
    case LP_STREAM_TCP_ECHO:
        lp_bounce_io(s, events);
        break;
    case LP_STREAM_UDP_BOUNCE:
    case LP_STREAM_UDP_ECHO:
        lp_udp_echo_io(s, events);
        break;
    }
}

static void on_pace(struct lp_timer *t)
{
    struct lp_stream *s = lp_container_of(t, struct lp_stream, pace_timer);
    if (!s->attached)
        return;
    if (s->cfg.kind == LP_STREAM_TCP_SEND)
        tcp_send(s);
    else if (s->cfg.kind == LP_STREAM_TCP_BOUNCE || s->cfg.kind == LP_STREAM_TCP_ECHO)
        lp_bounce_timer(s);
    else if (s->cfg.kind == LP_STREAM_UDP_BOUNCE || s->cfg.kind == LP_STREAM_UDP_ECHO)
        lp_udp_echo_timer(s);
    else if (s->cfg.kind == LP_STREAM_TCP_RECV)
        rcvlowat_watchdog(s);
    else if (s->iso && s->cfg.kind == LP_STREAM_UDP_SEND)
        lp_isoch_io(s);
    else
        udp_send(s);
}

static void udp_batch_setup(struct lp_stream *s)
{
    size_t blk = s->cfg.blksize;
    if (blk > LP_UDP_CONTIG_MAX)
        return;
    unsigned segs = LP_UDP_GSO_BYTES / (unsigned)blk;
    if (segs > LP_UDP_GSO_MAX_SEGS)
        segs = LP_UDP_GSO_MAX_SEGS;
    int gso = (int)blk;
    bool use_gso = segs >= 2 && setsockopt(s->h.fd, IPPROTO_UDP, UDP_SEGMENT, &gso, sizeof(gso)) == 0;
    /* With GSO several writes go per system call: up to LP_UDP_TX_MSGS of them, in at most
     * LP_UDP_TX_BYTES (a whole write at the least). */
    unsigned n = LP_UDP_BATCH;
    if (use_gso) {
        unsigned by_bytes = LP_UDP_TX_BYTES / (unsigned)blk;
        n = LP_UDP_TX_MSGS * segs;
        if (n > by_bytes)
            n = by_bytes > segs ? by_bytes : segs;
    }
    s->batch_buf = malloc((size_t)n * blk);
    if (!s->batch_buf) {
        int zero = 0;
        if (use_gso) /* GSO cuts only contiguous datagrams */
            setsockopt(s->h.fd, IPPROTO_UDP, UDP_SEGMENT, &zero, sizeof(zero));
        return; /* the iovec path needs no extra memory */
    }
    for (unsigned i = 0; i < n; i++)
        memcpy(s->batch_buf + i * blk, s->payload, blk);
    s->batch_n = n;
    s->gso_segs = use_gso ? segs : 0;
    atomic_store(&s->gso_used, use_gso);
}

bool lp_stream_uses_gso(const struct lp_stream *s)
{
    return atomic_load(&s->gso_used);
}

bool lp_stream_uses_gro(const struct lp_stream *s)
{
    return s->cfg.kind == LP_STREAM_UDP_RECV && s->gro;
}

static void do_attach(struct lp_post *p)
{
    struct lp_stream *s = lp_container_of(p, struct lp_stream, req_attach);
    uint32_t ev = (s->cfg.kind == LP_STREAM_TCP_RECV || s->cfg.kind == LP_STREAM_UDP_RECV ||
                   s->cfg.kind == LP_STREAM_TCP_ECHO)
                      ? EPOLLIN
                      : EPOLLOUT;
    s->h.fn = on_io;
    s->pace_timer.fn = on_pace;
    if (s->cfg.rate_bps) {
        uint64_t cap = lp_pacer_default_cap(s->cfg.rate_bps, s->cfg.blksize);
        uint64_t burst = (uint64_t)s->cfg.blksize * s->cfg.burst;
        lp_pacer_init(&s->pacer, s->cfg.rate_bps, cap > burst ? cap : burst, lp_now_ns());
        /* Start with one block of credit so the first datagram leaves at once. */
        s->pacer.credit_bytes = (double)s->cfg.blksize * (s->cfg.burst ? s->cfg.burst : 1);
    }
    s->rcvlowat = 1;
    if (s->cfg.kind == LP_STREAM_TCP_SEND && s->cfg.zerocopy) {
        int one = 1;
        /* MSG_ZEROCOPY first: on a NIC that can send from user pages it saves the copy.
         * Kernels without SO_ZEROCOPY send() as usual (send_flags stays 0). */
        if (setsockopt(s->h.fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) == 0)
            s->send_flags = MSG_ZEROCOPY;
    }
    s->events = ev;
    int err = lp_loop_add(&s->worker->loop, &s->h, ev);
    if (err < 0) {
        atomic_store(&s->error, err);
        post_event_after_batch(s, &s->msg_end, LP_SEV_ERROR);
        return;
    }
    s->attached = true;
    s->attach_ns = lp_now_ns();
    atomic_store_explicit(&s->last_rx_ns, s->attach_ns, memory_order_relaxed);
    /* An iperf2 flow whose FIN was counted before it was attached (every datagram of it
     * queued on the server's shared socket: a loaded server) has nothing left to read, and
     * no datagram may ever come to wake it: it ends now, as udp_recv ends at a FIN. */
    if (s->cfg.kind == LP_STREAM_UDP_RECV && s->fin_seen)
        worker_detach(s, LP_SEV_EOF);
    if (s->cfg.kind == LP_STREAM_TCP_BOUNCE || s->cfg.kind == LP_STREAM_TCP_ECHO)
        lp_bounce_start(s);
    if (s->cfg.kind == LP_STREAM_UDP_BOUNCE || s->cfg.kind == LP_STREAM_UDP_ECHO)
        lp_udp_echo_start(s);
    if (s->iso && s->cfg.kind == LP_STREAM_UDP_SEND)
        lp_isoch_start(s);
}

/* Count whatever is queued right now (receivers), so a stop loses nothing that arrived. */
static void drain(struct lp_stream *s)
{
    if (!s->attached)
        return;
    if (s->cfg.kind == LP_STREAM_TCP_RECV) {
        set_rcvlowat(s, 1);
        for (int i = 0; i < 64 && s->attached; i++) {
            uint64_t before = atomic_load_explicit(&s->bytes, memory_order_relaxed);
            tcp_recv(s);
            if (atomic_load_explicit(&s->bytes, memory_order_relaxed) == before)
                break;
        }
    } else if (s->cfg.kind == LP_STREAM_UDP_RECV) {
        udp_recv(s);
    }
}

static void do_freeze(struct lp_post *p)
{
    struct lp_stream *s = lp_container_of(p, struct lp_stream, req_freeze);
    drain(s);
    atomic_store_explicit(&s->counting, false, memory_order_relaxed);
    post_event(s, &s->msg_frozen, LP_SEV_FROZEN);
}

static void do_detach(struct lp_post *p)
{
    struct lp_stream *s = lp_container_of(p, struct lp_stream, req_detach);
    drain(s);
    if (s->attached) {
        lp_loop_del(&s->worker->loop, &s->h);
        lp_timer_cancel(&s->worker->loop, &s->pace_timer);
        s->attached = false;
    }
    /* always answered: the control thread counts on it */
    post_event_after_batch(s, &s->msg_detached, LP_SEV_DETACHED);
}

void lp_stream_attach(struct lp_stream *s, struct lp_worker *w)
{
    if (s->attach_requested)
        return;
    s->attach_requested = true;
    s->worker = w;
    lp_loop_post(&w->loop, &s->req_attach);
}

void lp_stream_freeze(struct lp_stream *s)
{
    if (!s->worker || s->freeze_requested || s->detach_requested)
        return;
    s->freeze_requested = true;
    lp_loop_post(&s->worker->loop, &s->req_freeze);
}

void lp_stream_detach(struct lp_stream *s)
{
    if (!s->worker || s->detach_requested)
        return;
    s->detach_requested = true;
    lp_loop_post(&s->worker->loop, &s->req_detach);
}

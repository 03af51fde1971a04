/* UDP round trips on the worker (udp_echo.h). The client's timer sends --bounceback=n
 * probes every period until -t (or its -k/-n budget of probes) is over, then waits
 * LP_UE_DRAIN_NS for the echoes still out and ends; every echo that comes back adds its
 * round trip (now minus the send time it carries) to the stream's latency. The server
 * counts each probe as an iperf3 UDP receiver does (loss and jitter of the way up), stamps
 * it and sends it back, at once or after the hold the test asked for. */
#include "core/udp_echo.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "core/bounce.h"
#include "stats/udp_rx.h"
#include "wire/bytes.h"
#include "wire/iperf3.h"

#define LP_UE_READS_PER_EVENT 64 /* fairness between streams sharing a worker */

/* The layout udp_echo.h describes: ours after the longest iperf3 header, fields in a row. */
_Static_assert(LP_UE_OFF_MAGIC >= LP_I3_UDP_HDR64, "echo fields overlap the iperf3 header");
_Static_assert(LP_UE_OFF_TX_MONO == LP_UE_OFF_MAGIC + 4 && LP_UE_OFF_TX_WALL == LP_UE_OFF_TX_MONO + 8 &&
                   LP_UE_OFF_SRV_RX == LP_UE_OFF_TX_WALL + 8 && LP_UE_OFF_SRV_TX == LP_UE_OFF_SRV_RX + 8 &&
                   LP_UE_MIN == LP_UE_OFF_SRV_TX + 8,
               "echo fields out of order");

struct lp_udp_echo {
    /* client */
    uint64_t first_ns, next_ns;
    uint64_t sent;                  /* probes sent (worker) */
    uint64_t max_seq;               /* highest seq echoed back */
    uint64_t returned;              /* probes that came back (each once) */
    uint8_t seen[LP_UE_WINDOW / 8]; /* seqs max_seq-WINDOW+1..max_seq that came back */
    bool draining;
    atomic_uint_least64_t duplicates, reordered;
    /* server: probes held, in arrival order (a ring; hold is the same for all) */
    unsigned head, count;
    uint64_t due_ns[LP_UE_HOLD_SLOTS];
    uint32_t len[LP_UE_HOLD_SLOTS];
    uint8_t *ring;                  /* LP_UE_HOLD_SLOTS x blksize; only with a hold */
};

static void put64(uint8_t *p, uint64_t v)
{
    lp_wire_put32(p, (uint32_t)(v >> 32));
    lp_wire_put32(p + 4, (uint32_t)v);
}

static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)lp_wire_get32(p) << 32 | lp_wire_get32(p + 4);
}

static bool counting(const struct lp_stream *s)
{
    return atomic_load_explicit(&s->counting, memory_order_relaxed);
}

static bool is_probe(const uint8_t *p, size_t len)
{
    return len >= LP_UE_MIN && lp_wire_get32(p + LP_UE_OFF_MAGIC) == LP_UE_MAGIC;
}

/* ---- client ---- */

static bool window_test_set(struct lp_udp_echo *e, uint64_t seq)
{
    unsigned bit = (unsigned)(seq % LP_UE_WINDOW);
    bool was = e->seen[bit / 8] & (1u << (bit % 8));
    e->seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
    return was;
}

/* A new highest seq: forget the ones that fall out of the window. */
static void window_advance(struct lp_udp_echo *e, uint64_t seq)
{
    uint64_t from = e->max_seq + 1;
    if (seq - e->max_seq >= LP_UE_WINDOW)
        memset(e->seen, 0, sizeof(e->seen));
    else
        for (uint64_t q = from; q <= seq; q++) {
            unsigned bit = (unsigned)(q % LP_UE_WINDOW);
            e->seen[bit / 8] &= (uint8_t)~(1u << (bit % 8));
        }
    e->max_seq = seq;
}

static void client_send(struct lp_stream *s)
{
    struct lp_udp_echo *e = s->ue;
    uint64_t wall = lp_wall_ns();
    struct lp_i3_udp_hdr h = {(uint32_t)(wall / LP_NS_PER_S), (uint32_t)(wall % LP_NS_PER_S / 1000), e->sent + 1};
    lp_i3_udp_hdr_put(s->payload, s->cfg.blksize, &h, s->cfg.udp_counters64);
    lp_wire_put32(s->payload + LP_UE_OFF_MAGIC, LP_UE_MAGIC);
    put64(s->payload + LP_UE_OFF_TX_WALL, wall);
    put64(s->payload + LP_UE_OFF_TX_MONO, lp_now_ns());
    ssize_t w = send(s->h.fd, s->payload, s->cfg.blksize, MSG_DONTWAIT);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNREFUSED &&
        errno != ENOBUFS) {
        lp_stream_io_fail(s, -errno);
        return;
    }
    /* A probe the kernel would not take is sent all the same as far as the count goes: it
     * did not come back, so it is a lost round trip. */
    e->sent++;
    if (counting(s))
        lp_stream_add_tx(s, s->cfg.blksize, 1);
}

static bool budget_left(const struct lp_stream *s)
{
    return !s->cfg.bb.max_probes || s->ue->sent < s->cfg.bb.max_probes;
}

static void client_drain(struct lp_stream *s)
{
    struct lp_udp_echo *e = s->ue;
    e->draining = true;
    if (e->returned == e->sent) { /* nothing is out: no need to wait */
        lp_stream_io_end(s, LP_SEV_FINISHED);
        return;
    }
    lp_timer_arm(&s->worker->loop, &s->pace_timer, lp_now_ns() + LP_UE_DRAIN_NS);
}

/* The period's probes, then the timer for the next period (missed periods are skipped). */
static void client_tick(struct lp_stream *s)
{
    struct lp_udp_echo *e = s->ue;
    /* The CLI keeps the period at LP_UE_PERIOD_MIN_S or more; a spec made elsewhere too. */
    uint64_t min_p = (uint64_t)(LP_UE_PERIOD_MIN_S * 1e9);
    uint64_t now = lp_now_ns(), p = s->cfg.bb.period_ns > min_p ? s->cfg.bb.period_ns : min_p;
    if ((s->cfg.bb.last_ns && now >= e->first_ns + s->cfg.bb.last_ns) || !budget_left(s)) {
        client_drain(s);
        return;
    }
    for (unsigned i = 0; i < (s->cfg.bb.burst ? s->cfg.bb.burst : 1) && s->attached && budget_left(s); i++)
        client_send(s);
    if (!s->attached)
        return;
    e->next_ns += p;
    if (e->next_ns <= now)
        e->next_ns += ((now - e->next_ns) / p + 1) * p;
    lp_timer_arm(&s->worker->loop, &s->pace_timer, e->next_ns);
}

static void client_echo(struct lp_stream *s, const uint8_t *p, size_t len, uint64_t now)
{
    struct lp_udp_echo *e = s->ue;
    struct lp_i3_udp_hdr h;
    if (!is_probe(p, len) || !lp_i3_udp_hdr_get(p, len, &h, s->cfg.udp_counters64))
        return; /* not an echo of ours */
    if (h.seq == 0 || h.seq > e->sent)
        return; /* never sent: a confused or bad peer's datagram, not a round trip */
    if (h.seq > e->max_seq) {
        window_advance(e, h.seq);
        window_test_set(e, h.seq);
    } else if (e->max_seq - h.seq >= LP_UE_WINDOW) {
        /* Too old to tell a duplicate from a late echo: not counted twice either way. */
        atomic_fetch_add_explicit(&e->duplicates, 1, memory_order_relaxed);
        return;
    } else if (window_test_set(e, h.seq)) {
        atomic_fetch_add_explicit(&e->duplicates, 1, memory_order_relaxed);
        return;
    } else {
        atomic_fetch_add_explicit(&e->reordered, 1, memory_order_relaxed);
    }
    e->returned++;
    uint64_t tx = get64(p + LP_UE_OFF_TX_MONO);
    if (counting(s) && tx <= now)
        lp_latency_batch_add(&s->lat_batch, (int64_t)(now - tx));
}

/* ---- server ---- */

static void server_send(struct lp_stream *s, uint8_t *p, size_t len)
{
    put64(p + LP_UE_OFF_SRV_TX, lp_wall_ns());
    ssize_t w = send(s->h.fd, p, len, MSG_DONTWAIT);
    /* A full buffer or a client gone: that echo is lost, as on the wire. */
    (void)w;
}

static void server_release(struct lp_stream *s, uint64_t now)
{
    struct lp_udp_echo *e = s->ue;
    while (e->count && e->due_ns[e->head] <= now) {
        server_send(s, e->ring + (size_t)e->head * s->cfg.blksize, e->len[e->head]);
        e->head = (e->head + 1) % LP_UE_HOLD_SLOTS;
        e->count--;
    }
    if (e->count)
        lp_timer_arm(&s->worker->loop, &s->pace_timer, e->due_ns[e->head]);
}

static void server_probe(struct lp_stream *s, uint8_t *p, size_t len, uint64_t wall)
{
    struct lp_udp_echo *e = s->ue;
    struct lp_i3_udp_hdr h;
    if (!lp_i3_udp_hdr_get(p, len, &h, s->cfg.udp_counters64))
        return;
    if (counting(s)) {
        int64_t transit = (int64_t)wall - (int64_t)((uint64_t)h.sec * LP_NS_PER_S + (uint64_t)h.usec * 1000u);
        if (!s->have_transit_base) {
            s->transit_base_ns = transit;
            s->have_transit_base = true;
        }
        lp_udp_rx_packet(&s->rx, h.seq, (double)(transit - s->transit_base_ns) / 1e9);
        lp_stream_add_rx_bytes(s, len);
    }
    /* Only a probe goes back, at most its own size: the peer's hello or a stray datagram is
     * not reflected. */
    if (!is_probe(p, len))
        return;
    put64(p + LP_UE_OFF_SRV_RX, wall);
    if (!s->cfg.bb.hold_us) {
        server_send(s, p, len);
        return;
    }
    if (e->count == LP_UE_HOLD_SLOTS)
        return; /* more held than the ring holds: this one is dropped (a lost round trip) */
    unsigned slot = (e->head + e->count) % LP_UE_HOLD_SLOTS;
    memcpy(e->ring + (size_t)slot * s->cfg.blksize, p, len);
    e->len[slot] = (uint32_t)len;
    e->due_ns[slot] = lp_now_ns() + (uint64_t)s->cfg.bb.hold_us * 1000u;
    if (!e->count++)
        lp_timer_arm(&s->worker->loop, &s->pace_timer, e->due_ns[slot]);
}

/* ---- both ---- */

static void read_all(struct lp_stream *s)
{
    bool client = s->cfg.kind == LP_STREAM_UDP_BOUNCE, any = false;
    for (int i = 0; i < LP_UE_READS_PER_EVENT && s->attached; i++) {
        ssize_t r = recv(s->h.fd, s->payload, s->cfg.blksize, MSG_DONTWAIT | MSG_TRUNC);
        if (r < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            if (errno == ECONNREFUSED)
                continue; /* an ICMP error for an earlier datagram: no echo came of it */
            lp_stream_io_fail(s, -errno);
            return;
        }
        size_t len = (size_t)r < s->cfg.blksize ? (size_t)r : s->cfg.blksize; /* MSG_TRUNC: longer ones cut */
        any = true;
        if (client)
            client_echo(s, s->payload, len, lp_now_ns());
        else
            server_probe(s, s->payload, len, lp_wall_ns());
    }
    if (!any)
        return;
    atomic_store_explicit(&s->last_rx_ns, lp_now_ns(), memory_order_relaxed);
    if (!client) {
        lp_stream_udp_publish(s);
        return;
    }
    lp_latency_publish(&s->lat, &s->lat_batch);
    /* Every probe came back after the last one went: no need to wait out the drain. */
    if (s->ue->draining && s->ue->returned == s->ue->sent)
        lp_stream_io_end(s, LP_SEV_FINISHED);
}

bool lp_udp_echo_setup(struct lp_stream *s)
{
    uint32_t size = s->cfg.blksize < LP_UE_MIN ? LP_UE_MIN : s->cfg.blksize;
    s->cfg.blksize = size > LP_UE_MAX ? LP_UE_MAX : size;
    s->payload = calloc(1, s->cfg.blksize);
    s->ue = calloc(1, sizeof(*s->ue));
    if (!s->payload || !s->ue)
        return false;
    if (s->cfg.kind == LP_STREAM_UDP_ECHO && s->cfg.bb.hold_us) {
        s->ue->ring = malloc((size_t)LP_UE_HOLD_SLOTS * s->cfg.blksize);
        if (!s->ue->ring)
            return false;
    }
    s->cfg.latency = s->cfg.kind == LP_STREAM_UDP_BOUNCE;
    return true;
}

void lp_udp_echo_free(struct lp_stream *s)
{
    if (s->ue)
        free(s->ue->ring);
    free(s->ue);
    s->ue = NULL;
}

void lp_udp_echo_start(struct lp_stream *s)
{
    lp_stream_io_events(s, EPOLLIN);
    if (s->cfg.kind != LP_STREAM_UDP_BOUNCE)
        return;
    s->ue->first_ns = s->ue->next_ns = lp_now_ns();
    client_tick(s);
}

void lp_udp_echo_io(struct lp_stream *s, uint32_t events)
{
    (void)events;
    read_all(s);
}

void lp_udp_echo_timer(struct lp_stream *s)
{
    if (s->cfg.kind == LP_STREAM_UDP_ECHO)
        server_release(s, lp_now_ns());
    else if (s->ue->draining)
        lp_stream_io_end(s, LP_SEV_FINISHED);
    else
        client_tick(s);
}

void lp_udp_echo_counts(const struct lp_stream *s, struct lp_udp_echo_counts *c)
{
    struct lp_latency_snap ls;
    lp_latency_read(&s->lat, &ls);
    c->sent = atomic_load_explicit(&s->packets, memory_order_relaxed);
    c->returned = ls.count;
    c->duplicates = s->ue ? atomic_load_explicit(&s->ue->duplicates, memory_order_relaxed) : 0;
    c->reordered = s->ue ? atomic_load_explicit(&s->ue->reordered, memory_order_relaxed) : 0;
}

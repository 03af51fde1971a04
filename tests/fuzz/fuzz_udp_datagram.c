/* UDP datagrams, iperf2's and iperf3's:
 * - as a listener's first datagram from an unknown peer (i2s_udp): the flags word at U+16,
 *   the 16-byte prefix (64-bit numbers when the flags say so) and the header behind it, from
 *   at most the 256 bytes the listener reads;
 * - as a train a receiver counts (the per-datagram parse of src/core/stream.c, which is static
 *   there, so its few lines are repeated here): the input cut into 16-byte datagram heads, each
 *   through lp_i2_udp_prefix_get (FINs' negative numbers included) and lp_i3_udp_hdr_get into
 *   the real loss / out-of-order / jitter arithmetic (lp_udp_rx_packet) and latency sums. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "stats/latency.h"
#include "stats/udp_rx.h"
#include "wire/iperf2.h"
#include "wire/iperf3.h"

#define NS_PER_S 1000000000u

static void first_datagram(const uint8_t *buf, size_t len)
{
    uint32_t flags = lp_i2_udp_flags(buf, len);
    int64_t seq;
    uint32_t sec, usec;
    if (!lp_i2_udp_prefix_get(buf, len, flags & LP_I2_SEQNO64B, &seq, &sec, &usec) || seq <= 0)
        return;
    struct lp_i2_header h;
    if (flags && len >= LP_I2_UDP_PREFIX + LP_I2_V1_LEN) {
        lp_i2_header_decode(buf + LP_I2_UDP_PREFIX, len - LP_I2_UDP_PREFIX, &h);
        lp_i2_header_start_time(buf + LP_I2_UDP_PREFIX, len - LP_I2_UDP_PREFIX, true, &h.start_sec, &h.start_usec);
        (void)lp_i2_amount_seconds(h.amount);
    }
}

struct receiver {
    struct lp_udp_rx rx;
    struct lp_latency_batch lat;
    int64_t transit_base;
    bool have_base;
};

/* udp_account() of stream.c: transit relative to the first datagram's. */
static void account(struct receiver *r, uint64_t seq, uint64_t sent_ns, uint64_t arrival_ns)
{
    int64_t transit = (int64_t)arrival_ns - (int64_t)sent_ns;
    if (!r->have_base) {
        r->transit_base = transit;
        r->have_base = true;
    }
    lp_udp_rx_packet(&r->rx, seq, (double)(transit - r->transit_base) / 1e9);
    lp_latency_batch_add(&r->lat, transit);
}

static void iperf2_datagram(struct receiver *r, const uint8_t *buf, size_t len, bool seq64, uint64_t now)
{
    int64_t sq;
    uint32_t sec, usec;
    if (!lp_i2_udp_prefix_get(buf, len, seq64, &sq, &sec, &usec) || (sq == 0 && sec == 0 && usec == 0))
        return;
    if (sq < 0) /* a FIN: counted by its absolute value */
        sq = sq == INT64_MIN ? INT64_MAX : -sq;
    account(r, (uint64_t)sq, (uint64_t)sec * NS_PER_S + (uint64_t)usec * 1000u, now);
}

static void iperf3_datagram(struct receiver *r, const uint8_t *buf, size_t len, bool counters64, uint64_t now)
{
    struct lp_i3_udp_hdr h;
    if (lp_i3_udp_hdr_get(buf, len, &h, counters64))
        account(r, h.seq, (uint64_t)h.sec * NS_PER_S + (uint64_t)h.usec * 1000u, now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t head = size < LP_I2_TCP_HDR_MAX ? size : LP_I2_TCP_HDR_MAX;
    uint8_t *buf = malloc(head ? head : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, head);
    first_datagram(buf, head);
    bool wide = lp_i2_udp_flags(buf, head) & LP_I2_SEQNO64B;
    free(buf);

    struct receiver r2, r3;
    memset(&r2, 0, sizeof(r2));
    memset(&r3, 0, sizeof(r3));
    lp_udp_rx_init(&r2.rx);
    lp_udp_rx_init(&r3.rx);
    lp_latency_batch_reset(&r2.lat);
    lp_latency_batch_reset(&r3.lat);
    /* Arrivals 1 ms apart from the first datagram's send time: transit and jitter then come
     * from the input's timestamps, as on a real link. */
    uint64_t now = 0;
    int64_t sq;
    uint32_t sec, usec;
    if (lp_i2_udp_prefix_get(data, size, false, &sq, &sec, &usec))
        now = (uint64_t)sec * NS_PER_S + (uint64_t)usec * 1000u;
    for (size_t off = 0; off < size; off += LP_I2_UDP_PREFIX, now += 1000000u) {
        size_t len = size - off < LP_I2_UDP_PREFIX ? size - off : LP_I2_UDP_PREFIX;
        uint8_t d[LP_I2_UDP_PREFIX];
        memcpy(d, data + off, len);
        iperf2_datagram(&r2, d, len, wide, now);
        iperf3_datagram(&r3, d, len, wide, now);
    }
    (void)lp_udp_lost_percent(r2.rx.lost, r2.rx.max_seq);
    (void)lp_udp_lost_percent(r3.rx.lost, r3.rx.max_seq);
    return 0;
}

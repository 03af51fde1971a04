/* The TCP byte stream an iperf2 --trip-times receiver reads: the sender's header when there is
 * one (its length from lp_i2_tcp_header_len, skipped like the stream's skip_lead), then bursts,
 * each opened by a 92-byte burst header (lp_i2_burst_get) whose size says where the next
 * begins, and whose write time gives the burst's latency. The walk itself is burst_scan() of
 * src/core/stream.c, static there: its rules are repeated below, over reads of varying sizes
 * so that burst headers arrive split across reads, as they do from a socket. */
#include <string.h>

#include "fuzz.h"
#include "stats/latency.h"
#include "wire/iperf2.h"

#define NS_PER_S 1000000000

struct scan {
    uint32_t lead;                   /* header bytes still to skip */
    uint8_t hdr[LP_I2_BURST_LEN];
    uint32_t off;                    /* header bytes held, or body bytes left */
    bool in_body;
    int64_t write_ns;
    struct lp_latency_batch lat;
};

static void scan(struct scan *s, const uint8_t *p, size_t n, int64_t now_ns)
{
    size_t lead = s->lead < n ? s->lead : n;
    s->lead -= (uint32_t)lead;
    p += lead;
    n -= lead;
    while (n) {
        if (!s->in_body) {
            size_t take = LP_I2_BURST_LEN - s->off < n ? LP_I2_BURST_LEN - s->off : n;
            memcpy(s->hdr + s->off, p, take);
            s->off += (uint32_t)take;
            p += take;
            n -= take;
            if (s->off < LP_I2_BURST_LEN)
                return;
            struct lp_i2_burst b;
            lp_i2_burst_get(s->hdr, &b);
            /* A size below the header's own is a lie: the burst is just its header. */
            s->off = b.size > LP_I2_BURST_LEN ? b.size - LP_I2_BURST_LEN : 0;
            s->write_ns = (int64_t)b.write_sec * NS_PER_S + (int64_t)(b.write_usec % 1000000u) * 1000;
            s->in_body = true;
        } else {
            size_t take = s->off < n ? s->off : n;
            s->off -= (uint32_t)take;
            p += take;
            n -= take;
        }
        if (s->in_body && s->off == 0) {
            lp_latency_batch_add(&s->lat, now_ns - s->write_ns);
            s->in_body = false;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t reads[] = {1, 7, 92, 3, 200, 64, 1460};
    struct scan s;
    memset(&s, 0, sizeof(s));
    lp_latency_batch_reset(&s.lat);
    if (size >= 4) {
        int hl = lp_i2_tcp_header_len((uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 |
                                      (uint32_t)data[2] << 8 | data[3]);
        s.lead = hl > 0 ? (uint32_t)hl : 0;
    }
    int64_t now = (int64_t)0x6b0d763b * NS_PER_S; /* the capture's clock: latencies near 0 */
    for (size_t off = 0, k = 0; off < size; k++) {
        size_t n = reads[k % (sizeof(reads) / sizeof(reads[0]))];
        if (n > size - off)
            n = size - off;
        scan(&s, data + off, n, now);
        off += n;
        now += 100000;
    }
    struct lp_latency l;
    struct lp_latency_snap snap, zero;
    struct lp_latency_stat st;
    int64_t mn, mx;
    lp_latency_init(&l);
    lp_latency_publish(&l, &s.lat);
    lp_latency_read(&l, &snap);
    lp_latency_take_interval(&l, &mn, &mx);
    memset(&zero, 0, sizeof(zero));
    lp_latency_stat_between(&snap, &zero, mn, mx, &st);
    return 0;
}

/* iperf2 codecs (see iperf2.h and the project's iperf2 protocol notes). */
#include "wire/iperf2.h"

#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

int lp_i2_tcp_header_len(uint32_t flags)
{
    /* Order matters: a header-less stream's first word is arbitrary payload (the digits
     * "0123" of a -C client carry the KEYCHECK bit). */
    if (flags & LP_I2_BOUNCEBACK)
        return -1;
    if (!(flags & (LP_I2_VERSION1 | LP_I2_VERSION2 | LP_I2_EXTEND)))
        return 0;
    if (flags & LP_I2_KEYCHECK) {
        /* A keyed header: LEN must say where its key length ends, past the version-1 part. */
        int len = (int)((flags & LP_I2_LEN_MASK) >> 1);
        return (flags & LP_I2_LEN_BIT) && len >= (int)LP_I2_V1_LEN + 2 && len <= (int)LP_I2_TCP_HDR_MAX ? len : -1;
    }
    if (flags & LP_I2_LEN_BIT) {
        int len = (int)((flags & LP_I2_LEN_MASK) >> 1);
        return len >= (int)LP_I2_V1_LEN && len <= (int)LP_I2_TCP_HDR_MAX ? len : -1;
    }
    int len = 0;
    if (flags & (LP_I2_VERSION1 | LP_I2_EXTEND))
        len += LP_I2_V1_LEN;
    if (flags & (LP_I2_VERSION2 | LP_I2_EXTEND))
        len += LP_I2_EXT_LEN;
    return len < (int)LP_I2_V1_LEN ? (int)(LP_I2_V1_LEN + LP_I2_EXT_LEN) : len;
}

static void encode_body(uint8_t *b, const struct lp_i2_header *h, uint32_t flags)
{
    put32(b, flags);
    put32(b + 4, (uint32_t)h->num_threads);
    put32(b + 8, h->mport);
    put32(b + 12, h->buflen);
    put32(b + 16, 0); /* mWinBand: unused since 2.1 */
    put32(b + 20, (uint32_t)h->amount);
    uint8_t *e = b + LP_I2_V1_LEN;
    memset(e, 0, LP_I2_EXT_LEN);
    put16(e + 8, h->upper);
    put16(e + 10, h->lower);
    put32(e + 12, h->version_u ? h->version_u : LP_I2_VERSION_U);
    put32(e + 16, h->version_l ? h->version_l : LP_I2_VERSION_L);
    put16(e + 22, h->tos);
    put32(e + 24, (uint32_t)h->rate_bps);
    put32(e + 28, (uint32_t)(h->rate_bps >> 32) << 8);
}

/* Where the start time sits, counted from the flags word (T+64; U+112 is 96 past U+16). */
#define TRIP_TCP_AT 64u
#define TRIP_UDP_AT 96u

size_t lp_i2_header_encode(uint8_t *buf, size_t len, const struct lp_i2_header *h)
{
    bool trip = h->upper & LP_I2_UP_TRIPTIME;
    size_t n = trip ? LP_I2_TRIP_TCP_HDR_LEN : LP_I2_TCP_HDR_LEN;
    if (len < n)
        return 0;
    uint32_t flags = (h->flags & ~LP_I2_LEN_MASK) | LP_I2_EXTEND | LP_I2_LEN_BIT | (uint32_t)(n << 1);
    encode_body(buf, h, flags);
    if (trip) {
        memset(buf + LP_I2_TCP_HDR_LEN, 0, n - LP_I2_TCP_HDR_LEN);
        put32(buf + TRIP_TCP_AT, h->start_sec);
        put32(buf + TRIP_TCP_AT + 4, h->start_usec);
    }
    return n;
}

int lp_i2_key_len(const uint8_t *hdr, size_t hlen)
{
    if (hlen < LP_I2_V1_LEN + 2 || hlen > LP_I2_TCP_HDR_MAX)
        return -1;
    uint32_t flags = get32(hdr);
    if (!(flags & LP_I2_KEYCHECK) || lp_i2_tcp_header_len(flags) != (int)hlen)
        return -1;
    unsigned n = get16(hdr + hlen - 2);
    return n >= LP_I2_KEY_MIN && n <= LP_I2_KEY_MAX ? (int)n : -1;
}

bool lp_i2_key_matches(const uint8_t *buf, size_t len, size_t hlen, const uint8_t *key, size_t key_len)
{
    int n = len >= hlen ? lp_i2_key_len(buf, hlen) : -1;
    if (n < 0 || (size_t)n != key_len || len - hlen < key_len)
        return false;
    /* No early exit: the time taken does not tell how many leading bytes matched. */
    volatile uint8_t diff = 0;
    for (size_t i = 0; i < key_len; i++)
        diff |= (uint8_t)(buf[hlen + i] ^ key[i]);
    return diff == 0;
}

size_t lp_i2_header_encode_keyed(uint8_t *buf, size_t len, const struct lp_i2_header *h, const uint8_t *key,
                                 size_t key_len)
{
    uint8_t base[LP_I2_TRIP_TCP_HDR_LEN];
    size_t n = lp_i2_header_encode(base, sizeof(base), h);
    if (!n || key_len < LP_I2_KEY_MIN || key_len > LP_I2_KEY_MAX || len < n + 2 + key_len)
        return 0;
    memcpy(buf, base, n);
    uint32_t flags = (get32(base) & ~LP_I2_LEN_MASK) | LP_I2_KEYCHECK | (uint32_t)((n + 2) << 1);
    put32(buf, flags);
    put16(buf + n, (uint16_t)key_len);
    memcpy(buf + n + 2, key, key_len);
    return n + 2 + key_len;
}

size_t lp_i2_header_encode_udp(uint8_t *buf, size_t len, const struct lp_i2_header *h)
{
    bool trip = h->upper & LP_I2_UP_TRIPTIME;
    size_t n = trip ? LP_I2_TRIP_UDP_HDR_LEN : LP_I2_TCP_HDR_LEN;
    if (len < n)
        return 0;
    uint32_t lenf = trip ? LP_I2_TRIP_UDP_LEN_FIELD : LP_I2_UDP_HDR_END;
    uint32_t flags = (h->flags & ~LP_I2_LEN_MASK) | LP_I2_EXTEND | LP_I2_SEQNO64B | LP_I2_LEN_BIT | (lenf << 1) |
                     (trip ? LP_I2_UDPTESTS : 0);
    encode_body(buf, h, flags);
    if (trip) {
        memset(buf + LP_I2_TCP_HDR_LEN, 0, n - LP_I2_TCP_HDR_LEN);
        put32(buf + TRIP_UDP_AT, h->start_sec);
        put32(buf + TRIP_UDP_AT + 4, h->start_usec);
    }
    return n;
}

bool lp_i2_header_start_time(const uint8_t *hdr, size_t len, bool udp, uint32_t *sec, uint32_t *usec)
{
    size_t at = udp ? TRIP_UDP_AT : TRIP_TCP_AT;
    if (len < at + 8 || len < LP_I2_V1_LEN + LP_I2_EXT_LEN)
        return false;
    if (!(get32(hdr) & (LP_I2_EXTEND | LP_I2_VERSION2)) || !(get16(hdr + LP_I2_V1_LEN + 8) & LP_I2_UP_TRIPTIME))
        return false;
    *sec = get32(hdr + at);
    *usec = get32(hdr + at + 4);
    return true;
}

int lp_i2_header_decode(const uint8_t *buf, size_t len, struct lp_i2_header *h)
{
    memset(h, 0, sizeof(*h));
    if (len < LP_I2_V1_LEN)
        return -1;
    h->flags = get32(buf);
    h->num_threads = (int32_t)get32(buf + 4);
    h->mport = get32(buf + 8);
    h->buflen = get32(buf + 12);
    h->amount = (int32_t)get32(buf + 20);
    if ((h->flags & (LP_I2_EXTEND | LP_I2_VERSION2)) && len >= LP_I2_V1_LEN + LP_I2_EXT_LEN) {
        const uint8_t *e = buf + LP_I2_V1_LEN;
        h->has_ext = true;
        h->upper = get16(e + 8);
        h->lower = get16(e + 10);
        h->version_u = get32(e + 12);
        h->version_l = get32(e + 16);
        h->tos = get16(e + 22);
        h->rate_bps = (uint64_t)get32(e + 24) | (uint64_t)(get32(e + 28) >> 8) << 32;
    }
    return 0;
}

bool lp_i2_ack_wanted(uint32_t flags)
{
    return ((flags & LP_I2_EXTEND) && !(flags & LP_I2_VERSION2)) || (flags & LP_I2_V2PEERDETECT);
}

void lp_i2_ack_encode(uint8_t out[LP_I2_ACK_LEN])
{
    memset(out, 0, LP_I2_ACK_LEN);
    put32(out, 2);                 /* CLIENTHDRACK */
    put32(out + 4, LP_I2_ACK_LEN);
    put32(out + 12, LP_I2_VERSION_U);
    put32(out + 16, LP_I2_VERSION_L);
}

void lp_i2_ack_encode_ts(uint8_t out[LP_I2_ACK_TS_LEN], uint32_t sent_sec, uint32_t sent_usec, uint32_t rx_sec,
                         uint32_t rx_usec, uint32_t tx_sec, uint32_t tx_usec)
{
    memset(out, 0, LP_I2_ACK_TS_LEN);
    lp_i2_ack_encode(out);
    put32(out + 4, LP_I2_ACK_TS_LEN);
    put32(out + 28, sent_sec);
    put32(out + 32, sent_usec);
    put32(out + 36, rx_sec);
    put32(out + 40, rx_usec);
    put32(out + 44, tx_sec);
    put32(out + 48, tx_usec);
}

void lp_i2_burst_put(uint8_t out[LP_I2_BURST_LEN], const struct lp_i2_burst *b)
{
    memset(out, 0, LP_I2_BURST_LEN);
    put32(out + 12, b->start_sec);
    put32(out + 16, b->start_usec);
    put32(out + 20, b->write_sec);
    put32(out + 24, b->write_usec);
    put32(out + 44, b->id);
    put32(out + 48, b->size);
    put32(out + 52, (uint32_t)b->seq);
    put32(out + 56, (uint32_t)(b->seq >> 32));
}

void lp_i2_burst_get(const uint8_t in[LP_I2_BURST_LEN], struct lp_i2_burst *b)
{
    b->start_sec = get32(in + 12);
    b->start_usec = get32(in + 16);
    b->write_sec = get32(in + 20);
    b->write_usec = get32(in + 24);
    b->id = get32(in + 44);
    b->size = get32(in + 48);
    b->seq = (uint64_t)get32(in + 56) << 32 | get32(in + 52);
}

double lp_i2_amount_seconds(int32_t amount)
{
    return amount < 0 ? -(double)amount / 100.0 : 0.0;
}

int32_t lp_i2_amount_from_seconds(double seconds)
{
    double cs = seconds * 100.0 + 0.5;
    if (cs > 2147483647.0)
        cs = 2147483647.0;
    return -(int32_t)cs;
}

void lp_i2_udp_prefix_put(uint8_t out[LP_I2_UDP_PREFIX], int64_t seq, uint32_t sec, uint32_t usec)
{
    uint64_t u = (uint64_t)seq;
    put32(out, (uint32_t)u);
    put32(out + 4, sec);
    put32(out + 8, usec);
    put32(out + 12, (uint32_t)(u >> 32));
}

bool lp_i2_udp_prefix_get(const uint8_t *buf, size_t len, bool seq64, int64_t *seq, uint32_t *sec, uint32_t *usec)
{
    if (len < LP_I2_UDP_PREFIX)
        return false;
    uint32_t id = get32(buf);
    *sec = get32(buf + 4);
    *usec = get32(buf + 8);
    if (seq64)
        *seq = (int64_t)((uint64_t)get32(buf + 12) << 32 | id);
    else
        *seq = (int32_t)id;
    return true;
}

uint32_t lp_i2_udp_flags(const uint8_t *buf, size_t len)
{
    if (len < LP_I2_UDP_PREFIX + 4)
        return 0;
    uint32_t f = get32(buf + LP_I2_UDP_PREFIX);
    /* "6789" is the digit filler of a header-less client, not flags (2.1.8 misreads it as
     * SMALL_TRIPTIMES). Any word with bytes from the digit range is treated the same. */
    if (f == 0x36373839u)
        return 0;
    return f;
}

/* A non-negative number of seconds as (whole, millionths); negative or absurd values
 * (clocks apart) are sent as 0 rather than wrapped. */
static void put_pair(uint8_t *p, double v)
{
    if (!(v >= 0) || v > 2147483647.0)
        v = 0;
    uint32_t whole = (uint32_t)v;
    put32(p, whole);
    put32(p + 4, (uint32_t)((v - (double)whole) * 1e6));
}

static double get_pair(const uint8_t *p)
{
    return (double)(int32_t)get32(p) + (double)(int32_t)get32(p + 4) / 1e6;
}

void lp_i2_report_encode(uint8_t out[LP_I2_REPORT_LEN], const struct lp_i2_report *r)
{
    memset(out, 0, LP_I2_REPORT_LEN);
    uint8_t *p = out + LP_I2_UDP_PREFIX;
    put32(p, (r->flags ? r->flags : LP_I2_VERSION1 | LP_I2_SEQNO64B) | (r->has_transit ? LP_I2_EXTEND : 0));
    put32(p + 4, (uint32_t)(r->bytes >> 32));
    put32(p + 8, (uint32_t)r->bytes);
    put32(p + 12, r->stop_sec);
    put32(p + 16, r->stop_usec);
    put32(p + 20, (uint32_t)r->errors);
    put32(p + 24, (uint32_t)r->out_of_order);
    put32(p + 28, (uint32_t)r->datagrams);
    put32(p + 32, r->jitter_sec);
    put32(p + 36, r->jitter_usec);
    if (r->has_transit) {
        /* (seconds, millionths) pairs; m2 travels scaled by 10^12, as 2.1.x sends it. */
        put_pair(p + 40, r->transit_min_s);
        put_pair(p + 48, r->transit_max_s);
        put_pair(p + 56, r->transit_sum_s);
        put_pair(p + 64, r->transit_mean_s);
        put_pair(p + 72, r->transit_m2_s2 * 1e12);
        put32(p + 88, r->transit_count);
        put32(p + 92, r->ipg_count);
    } else {
        put32(p + 88, (uint32_t)r->datagrams); /* cntTransit */
    }
    put32(p + 96, 1);                      /* IPGsum, as 2.1.x sends */
    put32(p + 100, (uint32_t)(r->errors >> 32));
    put32(p + 104, (uint32_t)(r->out_of_order >> 32));
    put32(p + 108, (uint32_t)(r->datagrams >> 32));
}

void lp_i2_report_set_jitter(struct lp_i2_report *r, double seconds)
{
    /* A double past 2^32 cast to uint32_t is undefined, and a peer whose timestamps alternate
     * between 0 and 2^32 - 1 s (+ 4295 s of microseconds) takes the RFC 1889 jitter past
     * 2^32 s within a few hundred datagrams. */
    if (!(seconds > 0)) {
        r->jitter_sec = r->jitter_usec = 0;
        return;
    }
    if (seconds >= (double)UINT32_MAX) {
        r->jitter_sec = UINT32_MAX;
        r->jitter_usec = 999999;
        return;
    }
    uint32_t whole = (uint32_t)seconds;
    uint32_t usec = (uint32_t)((seconds - (double)whole) * 1e6 + 0.5);
    if (usec >= 1000000u) { /* 0.9999996 s rounds to 1 s 0 us, not 0 s 1000000 us */
        whole++;            /* at most UINT32_MAX: seconds < 2^32 - 1 */
        usec -= 1000000u;
    }
    r->jitter_sec = whole;
    r->jitter_usec = usec;
}

static void decode_report_at(const uint8_t *p, size_t avail, struct lp_i2_report *r)
{
    r->flags = get32(p);
    r->bytes = (uint64_t)get32(p + 4) << 32 | get32(p + 8);
    r->stop_sec = get32(p + 12);
    r->stop_usec = get32(p + 16);
    r->errors = get32(p + 20);
    r->out_of_order = get32(p + 24);
    r->datagrams = get32(p + 28);
    r->jitter_sec = get32(p + 32);
    r->jitter_usec = get32(p + 36);
    if ((r->flags & LP_I2_EXTEND) && avail >= 96) {
        r->has_transit = true;
        r->transit_min_s = get_pair(p + 40);
        r->transit_max_s = get_pair(p + 48);
        r->transit_sum_s = get_pair(p + 56);
        r->transit_mean_s = get_pair(p + 64);
        r->transit_m2_s2 = get_pair(p + 72) * 1e-12;
        r->transit_count = get32(p + 88);
        r->ipg_count = get32(p + 92);
    }
    if ((r->flags & LP_I2_SEQNO64B) && avail >= 112) {
        r->errors |= (uint64_t)get32(p + 100) << 32;
        r->out_of_order |= (uint64_t)get32(p + 104) << 32;
        r->datagrams |= (uint64_t)get32(p + 108) << 32;
    }
}

bool lp_i2_report_decode(const uint8_t *buf, size_t len, struct lp_i2_report *r)
{
    memset(r, 0, sizeof(*r));
    if (len >= 16 + 40 && (get32(buf + 16) & LP_I2_VERSION1)) {
        decode_report_at(buf + 16, len - 16, r);
        return true;
    }
    if (len >= 12 + 40 && (get32(buf + 12) & LP_I2_VERSION1)) {
        decode_report_at(buf + 12, len - 12, r);
        r->flags &= ~LP_I2_SEQNO64B; /* the 2.0.5-era layout has only 32-bit counts */
        r->has_transit = false;      /* nor transit fields: the rest is echoed payload */
        return true;
    }
    return false;
}

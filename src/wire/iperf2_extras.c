/* iperf2's optional features on the wire: trip-times headers (the start time, the ack with
 * timestamps, TCP burst headers), the enhanced server report (transit times), --permit-key, and
 * test durations in seconds. The host's dialects use them; the board agent does not (they use
 * floating point), so its file lists leave this file out. See iperf2.h. */
#include "wire/iperf2.h"

#include <string.h>

#include "wire/bytes.h"

/* Where the start time sits, counted from the flags word (T+64; U+112 is 96 past U+16). */
#define TRIP_TCP_AT 64u
#define TRIP_UDP_AT 96u

int lp_i2_header_decode(const uint8_t *buf, size_t len, struct lp_i2_header *h)
{
    if (lp_i2_header_decode_core(buf, len, h) < 0)
        return -1;
    h->num_threads = (int32_t)lp_wire_get32(buf + 4);
    h->has_ext = lp_i2_header_has_ext(h->flags, len);
    if (h->has_ext) {
        const uint8_t *e = buf + LP_I2_V1_LEN;
        h->lower = lp_wire_get16(e + 10);
        h->version_u = lp_wire_get32(e + 12);
        h->version_l = lp_wire_get32(e + 16);
        h->tos = lp_wire_get16(e + 22);
    }
    return 0;
}

/* The plain header, made a trip-times one when h asks for it: its LEN, UDPTESTS (UDP) and the
 * block up to the start time. */
static size_t encode(uint8_t *buf, size_t len, const struct lp_i2_header *h, bool udp)
{
    /* An isochronous UDP header counts its frame block (U+76..107) too, as 2.1.8's; an
     * isochronous TCP one is a trip-times one without the flag (its start time, 80 bytes). */
    bool isoch = h->upper & LP_I2_UP_ISOCH;
    bool trip = (h->upper & LP_I2_UP_TRIPTIME) || (isoch && !udp);
    bool longer = trip || isoch;
    size_t n = !longer ? LP_I2_TCP_HDR_LEN : udp ? LP_I2_TRIP_UDP_HDR_LEN : LP_I2_TRIP_TCP_HDR_LEN;
    if (len < n)
        return 0;
    lp_i2_header_encode_plain(buf, h, udp);
    if (!longer)
        return n;
    uint32_t lenf = udp ? LP_I2_TRIP_UDP_LEN_FIELD : (uint32_t)n;
    uint32_t flags = (lp_wire_get32(buf) & ~LP_I2_LEN_MASK) | lenf << 1 | (udp ? LP_I2_UDPTESTS : 0);
    lp_wire_put32(buf, flags);
    memset(buf + LP_I2_TCP_HDR_LEN, 0, n - LP_I2_TCP_HDR_LEN);
    if (!trip)
        return n;
    size_t at = udp ? TRIP_UDP_AT : TRIP_TCP_AT;
    lp_wire_put32(buf + at, h->start_sec);
    lp_wire_put32(buf + at + 4, h->start_usec);
    return n;
}

size_t lp_i2_header_encode(uint8_t *buf, size_t len, const struct lp_i2_header *h)
{
    return encode(buf, len, h, false);
}

size_t lp_i2_header_encode_udp(uint8_t *buf, size_t len, const struct lp_i2_header *h)
{
    return encode(buf, len, h, true);
}

bool lp_i2_header_start_time(const uint8_t *hdr, size_t len, bool udp, uint32_t *sec, uint32_t *usec)
{
    size_t at = udp ? TRIP_UDP_AT : TRIP_TCP_AT;
    if (len < at + 8 || !lp_i2_header_has_ext(lp_wire_get32(hdr), len) ||
        !(lp_wire_get16(hdr + LP_I2_V1_LEN + 8) & LP_I2_UP_TRIPTIME))
        return false;
    *sec = lp_wire_get32(hdr + at);
    *usec = lp_wire_get32(hdr + at + 4);
    return true;
}

int lp_i2_key_len(const uint8_t *hdr, size_t hlen)
{
    if (hlen < LP_I2_V1_LEN + 2 || hlen > LP_I2_TCP_HDR_MAX)
        return -1;
    uint32_t flags = lp_wire_get32(hdr);
    if (!(flags & LP_I2_KEYCHECK) || lp_i2_tcp_header_len(flags) != (int)hlen)
        return -1;
    unsigned n = lp_wire_get16(hdr + hlen - 2);
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
    uint32_t flags = (lp_wire_get32(base) & ~LP_I2_LEN_MASK) | LP_I2_KEYCHECK | (uint32_t)((n + 2) << 1);
    lp_wire_put32(buf, flags);
    lp_wire_put16(buf + n, (uint16_t)key_len);
    memcpy(buf + n + 2, key, key_len);
    return n + 2 + key_len;
}

void lp_i2_ack_encode(uint8_t out[LP_I2_ACK_LEN])
{
    memcpy(out, lp_i2_ack, LP_I2_ACK_LEN);
}

void lp_i2_ack_encode_ts(uint8_t out[LP_I2_ACK_TS_LEN], uint32_t sent_sec, uint32_t sent_usec, uint32_t rx_sec,
                         uint32_t rx_usec, uint32_t tx_sec, uint32_t tx_usec)
{
    memset(out, 0, LP_I2_ACK_TS_LEN);
    lp_i2_ack_encode(out);
    lp_wire_put32(out + 4, LP_I2_ACK_TS_LEN);
    lp_wire_put32(out + 28, sent_sec);
    lp_wire_put32(out + 32, sent_usec);
    lp_wire_put32(out + 36, rx_sec);
    lp_wire_put32(out + 40, rx_usec);
    lp_wire_put32(out + 44, tx_sec);
    lp_wire_put32(out + 48, tx_usec);
}

void lp_i2_burst_put(uint8_t out[LP_I2_BURST_LEN], const struct lp_i2_burst *b)
{
    memset(out, 0, LP_I2_BURST_LEN);
    lp_wire_put32(out + 12, b->start_sec);
    lp_wire_put32(out + 16, b->start_usec);
    lp_wire_put32(out + 20, b->write_sec);
    lp_wire_put32(out + 24, b->write_usec);
    lp_wire_put32(out + 40, b->period_us);
    lp_wire_put32(out + 44, b->id);
    lp_wire_put32(out + 48, b->size);
    lp_wire_put32(out + 52, (uint32_t)b->seq);
    lp_wire_put32(out + 56, (uint32_t)(b->seq >> 32));
}

void lp_i2_burst_get(const uint8_t in[LP_I2_BURST_LEN], struct lp_i2_burst *b)
{
    b->start_sec = lp_wire_get32(in + 12);
    b->start_usec = lp_wire_get32(in + 16);
    b->write_sec = lp_wire_get32(in + 20);
    b->write_usec = lp_wire_get32(in + 24);
    b->period_us = lp_wire_get32(in + 40);
    b->id = lp_wire_get32(in + 44);
    b->size = lp_wire_get32(in + 48);
    b->seq = (uint64_t)lp_wire_get32(in + 56) << 32 | lp_wire_get32(in + 52);
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

/* A non-negative number of seconds as (whole, millionths); negative or absurd values
 * (clocks apart) are sent as 0 rather than wrapped. */
static void put_pair(uint8_t *p, double v)
{
    if (!(v >= 0) || v > 2147483647.0)
        v = 0;
    uint32_t whole = (uint32_t)v;
    lp_wire_put32(p, whole);
    lp_wire_put32(p + 4, (uint32_t)((v - (double)whole) * 1e6));
}

static double get_pair(const uint8_t *p)
{
    return (double)(int32_t)lp_wire_get32(p) + (double)(int32_t)lp_wire_get32(p + 4) / 1e6;
}

void lp_i2_report_encode(uint8_t out[LP_I2_REPORT_LEN], const struct lp_i2_report *r)
{
    lp_i2_report_encode_counts(out, r);
    if (!r->has_transit)
        return;
    uint8_t *p = out + LP_I2_UDP_PREFIX;
    lp_wire_put32(p, lp_wire_get32(p) | LP_I2_EXTEND); /* the enhanced fields are valid */
    /* (seconds, millionths) pairs; m2 travels scaled by 10^12, as 2.1.x sends it. */
    put_pair(p + 40, r->transit_min_s);
    put_pair(p + 48, r->transit_max_s);
    put_pair(p + 56, r->transit_sum_s);
    put_pair(p + 64, r->transit_mean_s);
    put_pair(p + 72, r->transit_m2_s2 * 1e12);
    lp_wire_put32(p + 88, r->transit_count);
    lp_wire_put32(p + 92, r->ipg_count);
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

bool lp_i2_report_decode(const uint8_t *buf, size_t len, struct lp_i2_report *r)
{
    memset(r, 0, sizeof(*r));
    if (!lp_i2_report_decode_counts(buf, len, r))
        return false;
    size_t at = lp_i2_report_at(buf, len);
    const uint8_t *p = buf + at;
    if ((r->flags & LP_I2_EXTEND) && len - at >= 96) {
        /* The 2.0.5-era layout has no transit fields: the rest is echoed payload. */
        r->has_transit = at == 16;
        r->transit_min_s = get_pair(p + 40);
        r->transit_max_s = get_pair(p + 48);
        r->transit_sum_s = get_pair(p + 56);
        r->transit_mean_s = get_pair(p + 64);
        r->transit_m2_s2 = get_pair(p + 72) * 1e-12;
        r->transit_count = lp_wire_get32(p + 88);
        r->ipg_count = lp_wire_get32(p + 92);
    }
    return true;
}

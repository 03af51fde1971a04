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
    if (flags & LP_I2_KEYCHECK)
        return -1;
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

size_t lp_i2_header_encode(uint8_t *buf, size_t len, const struct lp_i2_header *h)
{
    if (len < LP_I2_TCP_HDR_LEN)
        return 0;
    uint32_t flags = (h->flags & ~LP_I2_LEN_MASK) | LP_I2_EXTEND | LP_I2_LEN_BIT | (LP_I2_TCP_HDR_LEN << 1);
    encode_body(buf, h, flags);
    return LP_I2_TCP_HDR_LEN;
}

size_t lp_i2_header_encode_udp(uint8_t *buf, size_t len, const struct lp_i2_header *h)
{
    if (len < LP_I2_TCP_HDR_LEN)
        return 0;
    uint32_t flags = (h->flags & ~LP_I2_LEN_MASK) | LP_I2_EXTEND | LP_I2_SEQNO64B | LP_I2_LEN_BIT |
                     (LP_I2_UDP_HDR_END << 1);
    encode_body(buf, h, flags);
    return LP_I2_TCP_HDR_LEN;
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

void lp_i2_report_encode(uint8_t out[LP_I2_REPORT_LEN], const struct lp_i2_report *r)
{
    memset(out, 0, LP_I2_REPORT_LEN);
    uint8_t *p = out + LP_I2_UDP_PREFIX;
    put32(p, r->flags ? r->flags : LP_I2_VERSION1 | LP_I2_SEQNO64B);
    put32(p + 4, (uint32_t)(r->bytes >> 32));
    put32(p + 8, (uint32_t)r->bytes);
    put32(p + 12, r->stop_sec);
    put32(p + 16, r->stop_usec);
    put32(p + 20, (uint32_t)r->errors);
    put32(p + 24, (uint32_t)r->out_of_order);
    put32(p + 28, (uint32_t)r->datagrams);
    put32(p + 32, r->jitter_sec);
    put32(p + 36, r->jitter_usec);
    /* Transit statistics (p+40..p+87) stay 0: they need synchronised clocks. */
    put32(p + 88, (uint32_t)r->datagrams); /* cntTransit */
    put32(p + 96, 1);                      /* IPGsum, as 2.1.x sends */
    put32(p + 100, (uint32_t)(r->errors >> 32));
    put32(p + 104, (uint32_t)(r->out_of_order >> 32));
    put32(p + 108, (uint32_t)(r->datagrams >> 32));
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
        return true;
    }
    return false;
}

/* iperf2 codecs every iperf2 endpoint needs, the board agent's included: the test header (the
 * 2.1 form without trip-times), its acknowledgement and the server report's counts. No floating
 * point or 64-bit division: a board links these alone. The optional features (trip-times,
 * bursts, the enhanced report, --permit-key, durations in seconds) are in iperf2_extras.c.
 * See iperf2.h and the project's iperf2 protocol notes. */
#include "wire/iperf2.h"

#include <string.h>

#include "wire/bytes.h"

/* The header from its flags word on, as words: the v1 part (flags, numThreads, port, buffer
 * length, mWinBand, amount) and the 2.1 extension (type, length, upper and lower flags, the two
 * version words, reserved and tos, rate low, rate high and units, one more). */
void lp_i2_header_encode_plain(uint8_t out[LP_I2_TCP_HDR_LEN], const struct lp_i2_header *h, bool udp)
{
    memset(out, 0, LP_I2_TCP_HDR_LEN);
    /* A UDP header's LEN counts the 16-byte prefix before it. */
    lp_wire_put32(out, (h->flags & ~LP_I2_LEN_MASK) | LP_I2_EXTEND | LP_I2_LEN_BIT |
                           (udp ? LP_I2_SEQNO64B | LP_I2_UDP_HDR_END << 1 : LP_I2_TCP_HDR_LEN << 1));
    lp_wire_put32(out + 4, (uint32_t)h->num_threads);
    lp_wire_put32(out + 8, h->mport);
    lp_wire_put32(out + 12, h->buflen);
    lp_wire_put32(out + 20, (uint32_t)h->amount);
    lp_wire_put16(out + 32, h->upper); /* the lower flags after it: 0, as 2.1.x sends */
    lp_wire_put32(out + 36, LP_I2_VERSION_U); /* we speak as 2.1.8, whatever h says */
    lp_wire_put32(out + 40, LP_I2_VERSION_L);
    lp_wire_put32(out + 44, h->tos);
    lp_wire_put32(out + 48, (uint32_t)h->rate_bps);
    lp_wire_put32(out + 52, (uint32_t)(h->rate_bps >> 32) << 8);
}

int lp_i2_header_decode_core(const uint8_t *buf, size_t len, struct lp_i2_header *h)
{
    memset(h, 0, sizeof(*h));
    if (len < LP_I2_V1_LEN)
        return -1;
    h->flags = lp_wire_get32(buf);
    h->mport = lp_wire_get32(buf + 8);
    h->buflen = lp_wire_get32(buf + 12);
    h->amount = (int32_t)lp_wire_get32(buf + 20);
    if (lp_i2_header_has_ext(h->flags, len)) {
        const uint8_t *e = buf + LP_I2_V1_LEN;
        h->upper = lp_wire_get16(e + 8);
        h->rate_bps = (uint64_t)lp_wire_get32(e + 24) | (uint64_t)(lp_wire_get32(e + 28) >> 8) << 32;
    }
    return 0;
}

/* CLIENTHDRACK (2), the ack's length, our version words: the same 28 bytes for every test. */
const uint8_t lp_i2_ack[LP_I2_ACK_LEN] = {
    LP_WIRE_BE32(2), LP_WIRE_BE32(LP_I2_ACK_LEN), LP_WIRE_BE32(0),
    LP_WIRE_BE32(LP_I2_VERSION_U), LP_WIRE_BE32(LP_I2_VERSION_L), LP_WIRE_BE32(0), LP_WIRE_BE32(0)};

/* The report's counts, from its flags (U+16): flags, bytes high and low, stop sec and usec,
 * lost, out of order, datagrams, jitter sec and usec; after the transit fields, cntTransit,
 * cntIPG, IPGsum, then the high words of lost, out of order and datagrams. */
void lp_i2_report_encode_counts(uint8_t out[LP_I2_REPORT_LEN], const struct lp_i2_report *r)
{
    memset(out, 0, LP_I2_REPORT_LEN);
    uint8_t *p = out + LP_I2_UDP_PREFIX;
    lp_wire_put32(p, r->flags ? r->flags : LP_I2_VERSION1 | LP_I2_SEQNO64B);
    lp_wire_put32(p + 4, (uint32_t)(r->bytes >> 32));
    lp_wire_put32(p + 8, (uint32_t)r->bytes);
    lp_wire_put32(p + 12, r->stop_sec);
    lp_wire_put32(p + 16, r->stop_usec);
    lp_wire_put32(p + 20, (uint32_t)r->errors);
    lp_wire_put32(p + 24, (uint32_t)r->out_of_order);
    /* Loaded once: the compiler must assume that the stores through out change *r. */
    uint32_t datagrams = (uint32_t)r->datagrams;
    lp_wire_put32(p + 28, datagrams);
    lp_wire_put32(p + 32, r->jitter_sec);
    lp_wire_put32(p + 36, r->jitter_usec);
    lp_wire_put32(p + 88, datagrams); /* cntTransit, as 2.1.x sends without -e */
    lp_wire_put32(p + 96, 1);                      /* IPGsum, as 2.1.x sends */
    lp_wire_put32(p + 100, (uint32_t)(r->errors >> 32));
    lp_wire_put32(p + 104, (uint32_t)(r->out_of_order >> 32));
    lp_wire_put32(p + 108, (uint32_t)(r->datagrams >> 32));
}

bool lp_i2_report_decode_counts(const uint8_t *buf, size_t len, struct lp_i2_report *r)
{
    size_t at = lp_i2_report_at(buf, len);
    if (!at)
        return false;
    const uint8_t *p = buf + at;
    uint32_t flags = lp_wire_get32(p);
    r->has_transit = false;
    /* The 2.0.5-era layout (at 12) has only 32-bit counts, whatever its flags say; the flags
     * as sent still decide whether the high words below are read. */
    r->flags = at == 12 ? flags & ~LP_I2_SEQNO64B : flags;
    r->bytes = (uint64_t)lp_wire_get32(p + 4) << 32 | lp_wire_get32(p + 8);
    r->stop_sec = lp_wire_get32(p + 12);
    r->stop_usec = lp_wire_get32(p + 16);
    r->errors = lp_wire_get32(p + 20);
    r->out_of_order = lp_wire_get32(p + 24);
    r->datagrams = lp_wire_get32(p + 28);
    r->jitter_sec = lp_wire_get32(p + 32);
    r->jitter_usec = lp_wire_get32(p + 36);
    if ((flags & LP_I2_SEQNO64B) && len - at >= LP_I2_REPORT_LEN - LP_I2_UDP_PREFIX) {
        r->errors |= (uint64_t)lp_wire_get32(p + 100) << 32;
        r->out_of_order |= (uint64_t)lp_wire_get32(p + 104) << 32;
        r->datagrams |= (uint64_t)lp_wire_get32(p + 108) << 32;
    }
    return true;
}

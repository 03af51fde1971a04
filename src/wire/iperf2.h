/* iperf2 wire codecs: the test header a client sends first (TCP) or in every datagram (UDP),
 * the header acknowledgement, the UDP datagram prefix and the server's end-of-test report.
 * Freestanding C99 (no I/O, no allocation): the host's dialects and the board agent (agent/)
 * both use it. Big-endian fields. iperf2.c (and the inline codecs here) is what every endpoint
 * needs, with no floating point; iperf2_extras.c holds the optional features, which the
 * agent does not build. */
#ifndef LP_WIRE_IPERF2_H
#define LP_WIRE_IPERF2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/bytes.h"

/* Flags word (first word of the header). */
#define LP_I2_VERSION1 0x80000000u       /* legacy -d/-r: the server connects back */
#define LP_I2_EXTEND 0x40000000u         /* extension block present */
#define LP_I2_UDPTESTS 0x20000000u
#define LP_I2_KEYCHECK 0x10000000u       /* --permit-key: a key follows the header */
#define LP_I2_SEQNO64B 0x08000000u       /* UDP: 64-bit sequence numbers */
#define LP_I2_VERSION2 0x04000000u       /* -R / --full-duplex request */
#define LP_I2_V2PEERDETECT 0x02000000u   /* -X: client waits for the ack */
#define LP_I2_BOUNCEBACK 0x00800000u     /* a --bounceback message (wire/iperf2_bb.h), not a header */
#define LP_I2_SMALL_TRIPTIMES 0x00020000u
#define LP_I2_LEN_BIT 0x00010000u        /* bits 1..8 carry the header length */
#define LP_I2_LEN_MASK 0x000001FEu
#define LP_I2_RUN_NOW 0x00000001u        /* with VERSION1: -d (else -r) */

/* Upper flags (16 bits of the extension block). */
#define LP_I2_UP_ISOCH 0x0001u
#define LP_I2_UP_NOUDPFIN 0x0008u
#define LP_I2_UP_TRIPTIME 0x0010u
#define LP_I2_UP_REVERSE 0x0400u
#define LP_I2_UP_FULLDUPLEX 0x0800u
#define LP_I2_UP_PERIODICBURST 0x2000u
#define LP_I2_UP_TCPQUICKACK 0x8000u     /* TCP_QUICKACK (2.1.8 sends it with the --bounceback-congest load) */

#define LP_I2_V1_LEN 24u                 /* flags .. mAmount */
#define LP_I2_EXT_LEN 36u                /* 2.1.x extension block */
#define LP_I2_TCP_HDR_LEN 60u            /* what 2.1.x clients send */
#define LP_I2_TCP_HDR_MAX 256u           /* largest header a reader accepts */
#define LP_I2_UDP_PREFIX 16u             /* id, sec, usec, id2 */
#define LP_I2_UDP_HDR_END 76u            /* prefix + v1 + extension */
#define LP_I2_ACK_LEN 28u
#define LP_I2_ACK_TS_LEN 52u             /* the ack with timestamps (trip-times) */
#define LP_I2_TRIP_TCP_HDR_LEN 80u       /* TCP header with the start-time block (trip-times) */
#define LP_I2_TRIP_UDP_HDR_LEN 112u      /* UDP: header bytes after the prefix, up to U+128 */
#define LP_I2_TRIP_UDP_LEN_FIELD 108u    /* what its LEN field says (counts the prefix) */
#define LP_I2_BURST_LEN 92u              /* TCP burst header (trip-times) */
#define LP_I2_REPORT_LEN 128u
#define LP_I2_REPORT_BASE_LEN 40u        /* flags .. jitter: what every report layout carries */
#define LP_I2_DEFAULT_PORT 5001

/* We present ourselves with 2.1.8's version words: the behaviour we implement is 2.1.x's. */
#define LP_I2_VERSION_U 0x00020001u
#define LP_I2_VERSION_L 0x00080003u

struct lp_i2_header {
    uint32_t flags;
    int32_t num_threads;     /* client -P */
    uint32_t mport;          /* where the client listens for -d/-r */
    uint32_t buflen;         /* client -l, 0 = receiver's default */
    int32_t amount;          /* < 0: -t in 10 ms units; > 0: -n bytes (31 bits) */
    bool has_ext;            /* decoded: the 2.1 extension block was there */
    uint16_t upper, lower;   /* encoders send lower as 0, as 2.1.x does */
    uint32_t version_u, version_l; /* decoded; encoders send ours, LP_I2_VERSION_U/L */
    uint16_t tos;
    uint64_t rate_bps;       /* offered rate; 0 = unlimited (TCP) */
    uint32_t start_sec, start_usec; /* with LP_I2_UP_TRIPTIME: the client's start (wall clock) */
};

/* TCP: the total header length implied by the first word (iperf2.md 3.4): 0 when the 4 bytes
 * are ordinary payload (no header), else 24..256; -1 for a bounceback message (no test
 * header: iperf2_bb.h), a length field out of range, or a keyed header (KEYCHECK) without one.
 * A keyed header's length counts its key's length field, not the key (lp_i2_key_len). */
static inline int lp_i2_tcp_header_len(uint32_t flags)
{
    /* Order matters: a header-less stream's first word is arbitrary payload (the digits
     * "0123" of a -C client carry the KEYCHECK bit). */
    if (flags & LP_I2_BOUNCEBACK)
        return -1;
    if (!(flags & (LP_I2_VERSION1 | LP_I2_VERSION2 | LP_I2_EXTEND)))
        return 0;
    if (flags & LP_I2_LEN_BIT) {
        /* A keyed header's LEN must say where its key length ends, past the version-1 part. */
        int len = (int)((flags & LP_I2_LEN_MASK) >> 1);
        int min = (int)LP_I2_V1_LEN + (flags & LP_I2_KEYCHECK ? 2 : 0);
        return len >= min && len <= (int)LP_I2_TCP_HDR_MAX ? len : -1;
    }
    if (flags & LP_I2_KEYCHECK)
        return -1;
    /* No LEN (2.0.x): the parts the flags announce, at least one of them. */
    return ((flags & (LP_I2_VERSION1 | LP_I2_EXTEND)) ? (int)LP_I2_V1_LEN : 0) +
           ((flags & (LP_I2_VERSION2 | LP_I2_EXTEND)) ? (int)LP_I2_EXT_LEN : 0);
}

/* iperf2 --permit-key (2.1.8, TCP only). A keyed header has KEYCHECK and LEN set, and LEN
 * counts a 16-bit key length that ends it; the key's bytes follow, not counted by LEN
 * (2.1.8: flags 0x5001007c, the 60-byte header, the length at 60, the key at 62). 2.1.8
 * accepts keys of 4..128 bytes. */
#define LP_I2_KEY_MIN 4u
#define LP_I2_KEY_MAX 128u
#define LP_I2_KEYED_HDR_MAX (LP_I2_TCP_HDR_MAX + LP_I2_KEY_MAX) /* header and key, at most */
/* The key length of the keyed header in hdr (hlen bytes, its LEN): LP_I2_KEY_MIN..
 * LP_I2_KEY_MAX, or -1 when hdr is not a keyed header of hlen bytes or the length is out of
 * those bounds. Reads hdr[0..hlen) only. */
int lp_i2_key_len(const uint8_t *hdr, size_t hlen);
/* Whether buf (len bytes: the keyed header of hlen bytes, then what followed it) carries
 * exactly key (key_len bytes). The bytes are compared in a time that does not depend on
 * them (the length is on the wire in the clear anyway). */
bool lp_i2_key_matches(const uint8_t *buf, size_t len, size_t hlen, const uint8_t *key, size_t key_len);
/* lp_i2_header_encode's header made a keyed one: KEYCHECK, LEN counting the 2-byte key
 * length, then the key (2.1.8's client). Returns the total length (header + 2 + key_len), or
 * 0 if buf is too small or key_len is out of LP_I2_KEY_MIN..LP_I2_KEY_MAX. */
size_t lp_i2_header_encode_keyed(uint8_t *buf, size_t len, const struct lp_i2_header *h, const uint8_t *key,
                                 size_t key_len);

/* Encode the 2.1-style 60-byte header (v1 + extension, LEN set); with LP_I2_UP_TRIPTIME in
 * upper, the 80-byte one carrying the start time. Returns the length, or 0 if buf is too
 * small. Sets EXTEND and LEN itself. */
size_t lp_i2_header_encode(uint8_t *buf, size_t len, const struct lp_i2_header *h);
/* The header as it sits at U+16 of every UDP datagram (60 bytes; LEN counts the 16-byte
 * prefix too, SEQNO64B set); with LP_I2_UP_TRIPTIME 112 bytes (UDPTESTS set, start time at
 * U+112). Returns the length, or 0 if buf is too small. */
size_t lp_i2_header_encode_udp(uint8_t *buf, size_t len, const struct lp_i2_header *h);
/* The 60-byte header of lp_i2_header_encode (udp false) or lp_i2_header_encode_udp (udp true)
 * for a test without trip-times (the encoders add their block when h's upper flags ask for
 * it). For a board's client, which sends no trip-times: it links none of that code. */
void lp_i2_header_encode_plain(uint8_t out[LP_I2_TCP_HDR_LEN], const struct lp_i2_header *h, bool udp);
/* Whether a header of len bytes with these flags has the 2.1 extension block: EXTEND or
 * VERSION2 is set and len covers it. */
static inline bool lp_i2_header_has_ext(uint32_t flags, size_t len)
{
    return (flags & (LP_I2_EXTEND | LP_I2_VERSION2)) && len >= LP_I2_V1_LEN + LP_I2_EXT_LEN;
}

/* Decode a header of len bytes (the flags word at buf[0]). The extension is read when
 * EXTEND or VERSION2 is set and len allows. Returns 0, or -1 if shorter than 24 bytes. */
int lp_i2_header_decode(const uint8_t *buf, size_t len, struct lp_i2_header *h);
/* lp_i2_header_decode of the fields that say what test to run: flags, mport, buflen, amount,
 * and from the extension upper and rate_bps. The rest (has_ext, num_threads, lower, the
 * version words, tos) stays 0: a board's server, which runs one stream per connection and sets
 * no TOS, links none of that code. */
int lp_i2_header_decode_core(const uint8_t *buf, size_t len, struct lp_i2_header *h);

/* The client's start time of a trip-times header (hdr at the flags word; udp: the header
 * of a datagram, taken at U+16). False when absent or too short. */
bool lp_i2_header_start_time(const uint8_t *hdr, size_t len, bool udp, uint32_t *sec, uint32_t *usec);

/* Whether a 2.1.x server acknowledges this header (iperf2.md 3.5). */
static inline bool lp_i2_ack_wanted(uint32_t flags)
{
    return ((flags & LP_I2_EXTEND) && !(flags & LP_I2_VERSION2)) || (flags & LP_I2_V2PEERDETECT);
}
/* The 28-byte ack (CLIENTHDRACK, our version words), the same for every test: as data, for a
 * caller that can send from constant memory, or copied out. */
extern const uint8_t lp_i2_ack[LP_I2_ACK_LEN];
void lp_i2_ack_encode(uint8_t out[LP_I2_ACK_LEN]);
/* The 52-byte ack a trip-times client reads: the client's start time echoed, when the
 * server accepted the connection and when it sends this (wall clock, sec/usec pairs). */
void lp_i2_ack_encode_ts(uint8_t out[LP_I2_ACK_TS_LEN], uint32_t sent_sec, uint32_t sent_usec, uint32_t rx_sec,
                         uint32_t rx_usec, uint32_t tx_sec, uint32_t tx_usec);

/* TCP trip-times burst header: every burst (one -l write; --isochronous: one frame) starts
 * with it. */
struct lp_i2_burst {
    uint32_t start_sec, start_usec;   /* stream start */
    uint32_t write_sec, write_usec;   /* when the burst was written */
    uint32_t id;                      /* 1, 2, ... */
    uint32_t size;                    /* bytes in the burst including these 92 */
    uint64_t seq;                     /* bytes written before it */
    uint32_t period_us;               /* --isochronous: the frame period (else 0) */
};
void lp_i2_burst_put(uint8_t out[LP_I2_BURST_LEN], const struct lp_i2_burst *b);
void lp_i2_burst_get(const uint8_t in[LP_I2_BURST_LEN], struct lp_i2_burst *b);

/* The --isochronous frame block of every UDP datagram, at U+76..107 (2.1.x): all zero in
 * the header datagram (seq 1); a FIN repeats the last frame's. When a frame's last piece is
 * padded up to the block's end (108 bytes), 2.1.8 writes 108 as both size and remaining. */
#define LP_I2_ISOCH_AT 76u
#define LP_I2_ISOCH_LEN 32u
struct lp_i2_isoch {
    uint32_t period_us;               /* 1e6 / fps */
    uint32_t start_sec, start_usec;   /* the first frame's start (wall clock), constant */
    uint32_t prev_id, id;             /* previous frame id (0 before frame 1), this frame's */
    uint32_t size;                    /* bytes of the frame */
    uint32_t remaining;               /* bytes of the frame left before this datagram */
};
static inline void lp_i2_isoch_put(uint8_t *dgram, const struct lp_i2_isoch *b)
{
    uint8_t *p = dgram + LP_I2_ISOCH_AT;
    lp_wire_put32(p, b->period_us);
    lp_wire_put32(p + 4, b->start_sec);
    lp_wire_put32(p + 8, b->start_usec);
    lp_wire_put32(p + 12, b->prev_id);
    lp_wire_put32(p + 16, b->id);
    lp_wire_put32(p + 20, b->size);
    lp_wire_put32(p + 24, b->remaining);
    lp_wire_put32(p + 28, 0);
}
static inline void lp_i2_isoch_get(const uint8_t *dgram, struct lp_i2_isoch *b)
{
    const uint8_t *p = dgram + LP_I2_ISOCH_AT;
    b->period_us = lp_wire_get32(p);
    b->start_sec = lp_wire_get32(p + 4);
    b->start_usec = lp_wire_get32(p + 8);
    b->prev_id = lp_wire_get32(p + 12);
    b->id = lp_wire_get32(p + 16);
    b->size = lp_wire_get32(p + 20);
    b->remaining = lp_wire_get32(p + 24);
}

/* Test duration in seconds from mAmount (0 when it is a byte count). */
double lp_i2_amount_seconds(int32_t amount);
int32_t lp_i2_amount_from_seconds(double seconds);

/* UDP prefix. id2 carries the high half of a 64-bit sequence number (0xFFFFFFFF for a
 * negative one, the end-of-test FIN). The prefix codecs are inline: they run for every
 * datagram on the host, and a board's code calls them once. */
static inline void lp_i2_udp_prefix_put(uint8_t out[LP_I2_UDP_PREFIX], int64_t seq, uint32_t sec, uint32_t usec)
{
    uint64_t u = (uint64_t)seq;
    lp_wire_put32(out, (uint32_t)u);
    lp_wire_put32(out + 4, sec);
    lp_wire_put32(out + 8, usec);
    lp_wire_put32(out + 12, (uint32_t)(u >> 32));
}

/* seq64: the flow negotiated 64-bit numbers (SEQNO64B in its first datagram); else the id is
 * a signed 32-bit value. Returns false if len < 16. */
static inline bool lp_i2_udp_prefix_get(const uint8_t *buf, size_t len, bool seq64, int64_t *seq, uint32_t *sec,
                                        uint32_t *usec)
{
    if (len < LP_I2_UDP_PREFIX)
        return false;
    uint32_t id = lp_wire_get32(buf);
    *sec = lp_wire_get32(buf + 4);
    *usec = lp_wire_get32(buf + 8);
    if (seq64)
        *seq = (int64_t)((uint64_t)lp_wire_get32(buf + 12) << 32 | id);
    else
        *seq = (int32_t)id;
    return true;
}

/* The flags word of a UDP datagram (U+16), or 0 when absent or when it is the digit filler
 * "6789" a header-less (-C) client sends there (2.1.8 misreads it as SMALL_TRIPTIMES). */
static inline uint32_t lp_i2_udp_flags(const uint8_t *buf, size_t len)
{
    if (len < LP_I2_UDP_PREFIX + 4)
        return 0;
    uint32_t f = lp_wire_get32(buf + LP_I2_UDP_PREFIX);
    return f == 0x36373839u ? 0 : f;
}

/* The server's end-of-test report (the "ack of the FIN"), 128 bytes on the wire. */
struct lp_i2_report {
    uint32_t flags;
    uint64_t bytes;
    uint32_t stop_sec, stop_usec;   /* measurement duration */
    uint64_t errors;                /* lost datagrams */
    uint64_t out_of_order;
    uint64_t datagrams;             /* highest sequence number seen */
    uint32_t jitter_sec, jitter_usec;
    /* Enhanced fields (flags carry LP_I2_EXTEND): one-way transit over the test. */
    bool has_transit;
    uint32_t transit_count;
    double transit_min_s, transit_max_s, transit_sum_s, transit_mean_s;
    double transit_m2_s2;           /* sum of squared deviations */
    uint32_t ipg_count;             /* datagrams per second (2.1.x's cntIPG) */
};
void lp_i2_report_encode(uint8_t out[LP_I2_REPORT_LEN], const struct lp_i2_report *r);
/* The report without the enhanced (transit) fields, whatever has_transit says: what a 2.1.x
 * server sends without -e (flags as given, 0 for VERSION1 | SEQNO64B). No floating point, for
 * a board. */
void lp_i2_report_encode_counts(uint8_t out[LP_I2_REPORT_LEN], const struct lp_i2_report *r);
/* jitter_sec/jitter_usec from a jitter in seconds, rounded to the microsecond. The jitter comes
 * from the peer's timestamps, so it may be anything: past 2^32 - 1 s it saturates, negative or
 * NaN is 0. */
void lp_i2_report_set_jitter(struct lp_i2_report *r, double seconds);
/* Where a report sits in a datagram of len bytes: its flags word at U+16 (2.1.x, 2.0.13) or
 * U+12 (the 2.0.5-era layout), with room for the base fields; 0 when neither word carries
 * VERSION1, as every report's does. */
static inline size_t lp_i2_report_at(const uint8_t *buf, size_t len)
{
    if (len >= 16 + LP_I2_REPORT_BASE_LEN && (lp_wire_get32(buf + 16) & LP_I2_VERSION1))
        return 16;
    if (len >= 12 + LP_I2_REPORT_BASE_LEN && (lp_wire_get32(buf + 12) & LP_I2_VERSION1))
        return 12;
    return 0;
}
/* Parse a report from a datagram: the 2.1.x layout at U+16, or the 2.0.5-era one at U+12.
 * Returns false if neither carries the VERSION1 flag. */
bool lp_i2_report_decode(const uint8_t *buf, size_t len, struct lp_i2_report *r);
/* lp_i2_report_decode of the counts, the duration and the jitter: has_transit is set false
 * and the transit fields (and ipg_count) are not touched. No floating point, for a board. */
bool lp_i2_report_decode_counts(const uint8_t *buf, size_t len, struct lp_i2_report *r);

#endif

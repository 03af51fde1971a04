/* iperf3 wire constants and freestanding codecs: state bytes, cookie, JSON frame length,
 * UDP datagram header and stream-setup handshake. No I/O, no allocation; C99, shared by the
 * host's dialects and the board agent (agent/). */
#ifndef LP_WIRE_IPERF3_H
#define LP_WIRE_IPERF3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/bytes.h"

/* Control state bytes (signed on the wire). */
enum lp_i3_state {
    LP_I3_TEST_START = 1,
    LP_I3_TEST_RUNNING = 2,
    LP_I3_TEST_END = 4,
    LP_I3_PARAM_EXCHANGE = 9,
    LP_I3_CREATE_STREAMS = 10,
    LP_I3_SERVER_TERMINATE = 11,
    LP_I3_CLIENT_TERMINATE = 12,
    LP_I3_EXCHANGE_RESULTS = 13,
    LP_I3_DISPLAY_RESULTS = 14,
    LP_I3_IPERF_DONE = 16,
    LP_I3_ACCESS_DENIED = -1,
    LP_I3_SERVER_ERROR = -2,
};

/* iperf3 i_errno values we send or interpret. */
enum {
    LP_I3E_CTRLCLOSE = 109,
    LP_I3E_MESSAGE = 110,
    LP_I3E_RECVPARAMS = 114,
    LP_I3E_RECVRESULTS = 117,
    LP_I3E_CLIENTTERM = 119,
    LP_I3E_SERVERTERM = 120,
    LP_I3E_ACCESSDENIED = 121,
    LP_I3E_AUTHTEST = 142,
    LP_I3E_NOMSG = 144,
    LP_I3E_STREAMID = 208,
    LP_I3E_MAXDURATION = 37,
    LP_I3E_DURATION = 5,
    LP_I3E_NUMSTREAMS = 6,
    LP_I3E_BLOCKSIZE = 7,
    LP_I3E_OMIT = 12,
    LP_I3E_UNIMP = 13,
    LP_I3E_TESTEXPIRED = 160,
};

/* iperf3 versions as numbers, to compare: 3.21 is 32100, 3.17.1 is 31701. */
#define LP_I3_VERSION(major, minor, patch) ((major) * 10000u + (minor) * 100u + (patch))

/* The version in a client's "client_version" parameter ("3.12", "3.21+", "3.17.1",
 * "3.1b3", "3.15-mt-beta1"): major.minor[.patch], anything after ignored. 0 when s is NULL
 * or does not start that way (then lp_i3_server_error_for assumes the newest numbering). */
unsigned lp_i3_version_parse(const char *s);

/* errno values sent after an i_errno. The client prints strerror() of the number on its own
 * system, so only numbers that are the same on Linux, the BSDs and macOS are used. */
#define LP_I3_ERRNO_EACCES 13   /* "Permission denied" */
#define LP_I3_ERRNO_EINVAL 22   /* "Invalid argument" */
#define LP_I3_ERRNO_ERANGE 34   /* "Numerical result out of range" (macOS: "Result too large") */

/* What follows the SERVER_ERROR state byte: i_errno, then errno, each a big-endian int32. */
struct lp_i3_server_error {
    int32_t i_errno, err;
};

/* The two numbers to send so that a stock client of version `peer` (lp_i3_version_parse;
 * 0: unknown) prints the words of `code` (an LP_I3E_ value as the newest iperf3 numbers
 * it). iperf3's numbering grew over time: a client prints "int_errno=N: " for a number its
 * version does not know, so such a code becomes the nearest one that version has (37 before
 * 3.20, 160 before 3.21, 144 before 3.10, 142 before 3.2); and a code whose text ends in
 * ": " + strerror(errno) (114) gets a non-zero errno, or the reason would read empty. The
 * facts, version by version: docs/COMPATIBILITY.md ("Errors a server sends"). */
struct lp_i3_server_error lp_i3_server_error_for(int code, unsigned peer);
/* The whole message: the SERVER_ERROR state byte, then e's two numbers. */
#define LP_I3_SERVER_ERROR_LEN 9u
static inline void lp_i3_server_error_put(uint8_t out[LP_I3_SERVER_ERROR_LEN], struct lp_i3_server_error e)
{
    out[0] = (uint8_t)LP_I3_SERVER_ERROR;
    lp_wire_put32(out + 1, (uint32_t)e.i_errno);
    lp_wire_put32(out + 5, (uint32_t)e.err);
}

#define LP_I3_COOKIE_SIZE 37           /* 36 characters + NUL */
#define LP_I3_PARAMS_MAX 8192          /* largest parameter JSON we accept */
#define LP_I3_RESULTS_MAX (8u << 20)   /* largest results JSON we accept (server output) */
#define LP_I3_UDP_HELLO 0x39383736u    /* "9876" in wire byte order */
#define LP_I3_UDP_REPLY 0x36373839u    /* "6789" */
#define LP_I3_UDP_LEGACY_REPLY 0xB168DE3Au /* <= 3.11 servers: 987654321 little-endian */
#define LP_I3_UDP_HDR32 12u
#define LP_I3_UDP_HDR64 16u

/* The cookie character for a random value: iperf3's base32 alphabet, lowercase. */
static inline char lp_i3_cookie_char(unsigned v)
{
    return "abcdefghijklmnopqrstuvwxyz234567"[v % 32];
}
/* Fill cookie[37] from 36 bytes of entropy: base32 lowercase alphabet, NUL-terminated. */
void lp_i3_cookie_from_entropy(char cookie[LP_I3_COOKIE_SIZE], const uint8_t entropy[36]);
/* A cookie as iperf3 compares it: 36 printable characters then NUL. */
bool lp_i3_cookie_valid(const uint8_t buf[LP_I3_COOKIE_SIZE]);

/* 4-byte big-endian length prefix of a JSON frame. */
static inline void lp_i3_put_len(uint8_t out[4], uint32_t len)
{
    lp_wire_put32(out, len);
}

static inline uint32_t lp_i3_get_len(const uint8_t in[4])
{
    return lp_wire_get32(in);
}

/* UDP datagram header: sec, usec (sender clock), then a 32- or 64-bit sequence number. */
struct lp_i3_udp_hdr {
    uint32_t sec, usec;
    uint64_t seq;
};
/* The UDP codecs are inline: they run for every datagram. */
static inline size_t lp_i3_udp_hdr_len(bool counters64)
{
    return counters64 ? LP_I3_UDP_HDR64 : LP_I3_UDP_HDR32;
}

/* Return the header length written, or 0 if len is too small. */
static inline size_t lp_i3_udp_hdr_put(uint8_t *buf, size_t len, const struct lp_i3_udp_hdr *h, bool counters64)
{
    size_t need = lp_i3_udp_hdr_len(counters64);
    if (len < need)
        return 0;
    lp_wire_put32(buf, h->sec);
    lp_wire_put32(buf + 4, h->usec);
    if (counters64) {
        lp_wire_put32(buf + 8, (uint32_t)(h->seq >> 32));
        lp_wire_put32(buf + 12, (uint32_t)h->seq);
    } else {
        lp_wire_put32(buf + 8, (uint32_t)h->seq);
    }
    return need;
}

/* Return the header length read, or 0 if the datagram is too short. */
static inline size_t lp_i3_udp_hdr_get(const uint8_t *buf, size_t len, struct lp_i3_udp_hdr *h, bool counters64)
{
    size_t need = lp_i3_udp_hdr_len(counters64);
    if (len < need)
        return 0;
    h->sec = lp_wire_get32(buf);
    h->usec = lp_wire_get32(buf + 4);
    if (counters64)
        h->seq = (uint64_t)lp_wire_get32(buf + 8) << 32 | lp_wire_get32(buf + 12);
    else
        h->seq = lp_wire_get32(buf + 8);
    return need;
}

/* Stream-setup handshake words (4 bytes each, compared as wire bytes). */
static inline void lp_i3_put_u32(uint8_t out[4], uint32_t v)
{
    lp_wire_put32(out, v);
}

static inline uint32_t lp_i3_get_u32(const uint8_t in[4])
{
    return lp_wire_get32(in);
}

/* The iperf3 stream id of the n-th stream created (0-based): 1, 3, 4, 5, ... iperf3 skips id 2
 * (historically reserved); both ends number streams this way. */
static inline int lp_i3_stream_id(unsigned n)
{
    return n == 0 ? 1 : (int)n + 2;
}

#endif

/* What a new TCP connection on the shared server port is, from its first bytes: an iperf3
 * cookie, an iperf2 header (plain, keyed or none at all), junk, or not known yet. Pure: the
 * server reads (never past .want), asks again, and does the getpeername/close/hand-over
 * around the verdict (src/proto/server.c). Every prefix is a unit test (unit/test_detect.c). */
#ifndef LP_DETECT_H
#define LP_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/iperf2.h"

/* The most bytes classification reads: a keyed iperf2 header and its key. */
#define LP_DETECT_MAX LP_I2_KEYED_HDR_MAX

enum lp_detect_verdict {
    LP_DETECT_MORE,          /* read until .want bytes in all, then ask again */
    LP_DETECT_IPERF3,        /* an iperf3 cookie (37 bytes): a control or data connection */
    LP_DETECT_I2_PLAIN,      /* an iperf2 header of .hdr_len bytes */
    LP_DETECT_I2_KEYED,      /* an iperf2 --permit-key header of .hdr_len bytes, then its key
                              * (what arrived of it: the dialect checks it) */
    LP_DETECT_I2_NONE,       /* no header (-C, 2.0.5-era flags 0): payload from the first byte */
    LP_DETECT_BOUNCEBACK,    /* an iperf2 --bounceback message's first 64 bytes (used) */
    LP_DETECT_BAD_KEY,       /* junk: a keyed header whose key length cannot be found */
    LP_DETECT_BAD_LENGTH,    /* junk: an iperf2 header length out of range */
    LP_DETECT_SHORT,         /* junk: the bytes end inside a header of .hdr_len bytes: the
                              * peer closed, or 37 cookie-like bytes were no cookie */
    LP_DETECT_EMPTY,         /* the peer closed before sending anything */
};

struct lp_detect {
    enum lp_detect_verdict verdict;
    size_t want;             /* MORE: the bytes needed in all (> the bytes given, <= LP_DETECT_MAX) */
    size_t used;             /* the bytes the verdict rests on (a reader that never read past
                              * .want has read exactly these); the iperf2 verdicts' bytes after
                              * .hdr_len are the key or payload that came with the header */
    size_t hdr_len;          /* iperf2 verdicts and SHORT: the header's length (0: none) */
    uint32_t flags;          /* the first word as iperf2 flags (bytes not received: 0) */
};

/* Classify buf[0..len): eof says the peer closed after them (what has arrived is all there
 * will be). Bytes past the ones a verdict needs are not looked at. */
void lp_detect_tcp(const uint8_t *buf, size_t len, bool eof, struct lp_detect *d);

#endif

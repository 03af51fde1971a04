/* First-bytes classification (see detect.h). Only looks at bytes; the socket, the peer's
 * address, logging and closing stay in server.c, so every prefix of every input can be tested
 * without one. */
#include "proto/detect.h"

#include <string.h>

#include "wire/iperf2_bb.h"
#include "wire/iperf3.h"

/* The first word, big-endian; bytes that did not arrive count as 0 (a 1..3-byte stream). */
static uint32_t first_word(const uint8_t *buf, size_t len)
{
    uint32_t w = 0;
    for (size_t i = 0; i < 4; i++)
        w = w << 8 | (i < len ? buf[i] : 0u);
    return w;
}

/* iperf3 cookies are base32 (RFC 4648 lower case): four such characters cannot start an
 * iperf2 header we serve (their flags lack VERSION1 and have no length) — read 37 bytes. */
static bool cookie_char(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
}

/* The bytes classification needs, given got >= 4 of them: a cookie's 37, a header's length,
 * and once a keyed header is complete its key too; 4 when the first word decides alone. */
static size_t wanted(const uint8_t *buf, size_t got)
{
    if (cookie_char(buf[0]) && cookie_char(buf[1]) && cookie_char(buf[2]) && cookie_char(buf[3]))
        return LP_I3_COOKIE_SIZE;
    uint32_t flags = first_word(buf, got);
    if (flags & LP_I2_BOUNCEBACK)
        return LP_I2_BB_MIN; /* the fixed part of a --bounceback message: its size, its hold */
    int hl = lp_i2_tcp_header_len(flags);
    /* A keyed header (--permit-key) tells the length of the key after it only at its end. */
    int kl = hl > 0 && (flags & LP_I2_KEYCHECK) && got >= (size_t)hl ? lp_i2_key_len(buf, (size_t)hl) : -1;
    return kl > 0 ? (size_t)hl + (size_t)kl : hl > 0 ? (size_t)hl : 4;
}

/* The verdict on the first got bytes, all there is to go on. */
static void decide(const uint8_t *buf, size_t got, struct lp_detect *d)
{
    d->used = got;
    if (got == LP_I3_COOKIE_SIZE && lp_i3_cookie_valid(buf)) {
        d->verdict = LP_DETECT_IPERF3;
        return;
    }
    /* Anything else is iperf2's: a cookie that was not one too (its words are flags then). */
    if (d->flags & LP_I2_BOUNCEBACK) {
        d->hdr_len = LP_I2_BB_MIN;
        d->verdict = got >= LP_I2_BB_MIN ? LP_DETECT_BOUNCEBACK : LP_DETECT_SHORT;
        return;
    }
    int hl = lp_i2_tcp_header_len(d->flags);
    if (hl < 0) {
        d->verdict = d->flags & LP_I2_KEYCHECK ? LP_DETECT_BAD_KEY : LP_DETECT_BAD_LENGTH;
        return;
    }
    d->hdr_len = (size_t)hl;
    /* Closed in the middle of a header: no test, and no payload count made from a header
     * that never arrived. */
    if ((size_t)hl > got)
        d->verdict = LP_DETECT_SHORT;
    else if (hl == 0)
        d->verdict = LP_DETECT_I2_NONE;
    else
        d->verdict = d->flags & LP_I2_KEYCHECK ? LP_DETECT_I2_KEYED : LP_DETECT_I2_PLAIN;
}

void lp_detect_tcp(const uint8_t *buf, size_t len, bool eof, struct lp_detect *d)
{
    memset(d, 0, sizeof(*d));
    d->flags = first_word(buf, len);
    if (len == 0) {
        d->verdict = eof ? LP_DETECT_EMPTY : LP_DETECT_MORE;
        d->want = 4;
        return;
    }
    size_t need = 4;
    if (len >= 4) {
        need = wanted(buf, 4);
        if (len >= need)
            need = wanted(buf, need); /* a keyed header: now its key */
    }
    if (len >= need)
        decide(buf, need, d);
    else if (eof) /* a short header-less stream that already ended (a tiny -C or -n test) */
        decide(buf, len, d);
    else {
        d->verdict = LP_DETECT_MORE;
        d->want = need;
    }
}

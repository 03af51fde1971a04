/* The iperf2 test header at the start of a TCP connection: the length its first word implies
 * (lp_i2_tcp_header_len, as the server's classifier asks it), then that many bytes through the
 * decoder and the trip-times start time, as i2s_tcp() reads them, and the client's encoder on
 * the result (what a -d/-r reply leg or a linkperf client sends). The decoders also get every
 * other length, the input's own included: they must stay within what they are given. Each
 * read is from a heap copy of exactly that length, so a read past it is a sanitizer error.
 * A keyed header (--permit-key) also goes through the key's length, the comparison i2s_tcp()
 * makes (the key it carries must match itself, a fixed one is compared too) and our keyed
 * encoder, whose output must give back the same key. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "wire/iperf2.h"

static void decode(const uint8_t *data, size_t len, bool udp)
{
    uint8_t *hdr = malloc(len ? len : 1);
    struct lp_i2_header h;
    uint8_t out[LP_I2_TRIP_UDP_HDR_LEN];
    if (!hdr)
        return;
    memcpy(hdr, data, len);
    if (lp_i2_header_decode(hdr, len, &h) == 0) {
        lp_i2_header_start_time(hdr, len, udp, &h.start_sec, &h.start_usec);
        (void)lp_i2_ack_wanted(h.flags);
        (void)lp_i2_amount_seconds(h.amount);
        if (udp)
            lp_i2_header_encode_udp(out, sizeof(out), &h);
        else
            lp_i2_header_encode(out, sizeof(out), &h);
    }
    free(hdr);
}

static void keyed(const uint8_t *data, size_t len, size_t hl)
{
    uint8_t *buf = malloc(len ? len : 1);
    uint8_t out[LP_I2_TRIP_TCP_HDR_LEN + 2 + LP_I2_KEY_MAX];
    struct lp_i2_header h;
    if (!buf)
        return;
    memcpy(buf, data, len);
    int kl = lp_i2_key_len(buf, hl);
    (void)lp_i2_key_matches(buf, len, hl, (const uint8_t *)"secretkey", 9);
    if (kl > 0 && hl + (size_t)kl <= len) {
        if (!lp_i2_key_matches(buf, len, hl, buf + hl, (size_t)kl))
            abort(); /* a key must match itself */
        if (lp_i2_header_decode(buf, hl, &h) == 0) {
            size_t n = lp_i2_header_encode_keyed(out, sizeof(out), &h, buf + hl, (size_t)kl);
            size_t at = n ? n - (size_t)kl : 0;
            if (!n || lp_i2_key_len(out, at) != kl || !lp_i2_key_matches(out, n, at, buf + hl, (size_t)kl))
                abort(); /* what our client sends, a server reads back */
        }
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint32_t flags = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
    int hl = lp_i2_tcp_header_len(flags);
    if (hl > 0 && (size_t)hl <= size)
        decode(data, (size_t)hl, false);
    if (hl > 0 && (size_t)hl <= size && (flags & LP_I2_KEYCHECK))
        keyed(data, size, (size_t)hl);
    decode(data, size, false);
    decode(data, size, true);
    return 0;
}

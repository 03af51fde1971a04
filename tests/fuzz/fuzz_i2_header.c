/* The iperf2 test header at the start of a TCP connection: the length its first word implies
 * (lp_i2_tcp_header_len, as the server's classifier asks it), then that many bytes through the
 * decoder and the trip-times start time, as i2s_tcp() reads them, and the client's encoder on
 * the result (what a -d/-r reply leg or a linkperf client sends). The decoders also get every
 * other length, the input's own included: they must stay within what they are given. Each
 * read is from a heap copy of exactly that length, so a read past it is a sanitizer error. */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint32_t flags = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
    int hl = lp_i2_tcp_header_len(flags);
    if (hl > 0 && (size_t)hl <= size)
        decode(data, (size_t)hl, false);
    decode(data, size, false);
    decode(data, size, true);
    return 0;
}

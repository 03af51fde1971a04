/* A datagram that answers a UDP sender's FIN, as i2_udp.c's on_fin_timer() reads it (at most
 * 1500 bytes; a 52-byte type-2 ack is skipped): the report in the 2.1.x layout at U+16 or the
 * 2.0.5-era one at U+12, then what a client makes of it: the peer's row of the test
 * (lp_i2_report_to_result, with the latency statistics from its transit moments), the
 * [SUM] of two such rows and the loss percentage. Then the receiver's encoder on it. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto/i2_udp.h"
#include "stats/latency.h"
#include "stats/udp_rx.h"

#define FIN_READ_MAX 1500u /* on_fin_timer's buffer */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t len = size < FIN_READ_MAX ? size : FIN_READ_MAX;
    if (len == 52 && data[3] == 2)
        return 0;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, len);
    struct lp_i2_report rep;
    if (lp_i2_report_decode(buf, len, &rep)) {
        struct lp_peer_stream row;
        lp_i2_report_to_result(&rep, 1, &row);
        if (row.has_latency) {
            struct lp_latency_stat sum = row.latency;
            lp_latency_stat_merge(&sum, &row.latency);
            (void)lp_latency_stat_m2(&sum);
        }
        (void)lp_udp_lost_percent(row.errors, row.packets);
        uint8_t out[LP_I2_REPORT_LEN];
        lp_i2_report_encode(out, &rep);
    }
    free(buf);
    return 0;
}

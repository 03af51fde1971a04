/* iperf3 codecs (see iperf3.h) only the host's dialects use. Freestanding C99; the board
 * agent uses the inline ones in iperf3.h and iperf3_errors.c, so this file is not in its
 * file lists. */
#include "wire/iperf3.h"

void lp_i3_cookie_from_entropy(char cookie[LP_I3_COOKIE_SIZE], const uint8_t entropy[36])
{
    for (int i = 0; i < 36; i++)
        cookie[i] = lp_i3_cookie_char(entropy[i]);
    cookie[36] = '\0';
}

bool lp_i3_cookie_valid(const uint8_t buf[LP_I3_COOKIE_SIZE])
{
    for (int i = 0; i < 36; i++)
        if (buf[i] < 0x21 || buf[i] > 0x7e)
            return false;
    return buf[36] == 0;
}

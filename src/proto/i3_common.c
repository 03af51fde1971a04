/* iperf3 helpers shared by client and server (see i3_common.h). */
#include "proto/i3_common.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

void lp_i3_new_cookie(char cookie[LP_I3_COOKIE_SIZE])
{
    uint8_t e[36];
    size_t got = 0;
    while (got < sizeof(e)) {
        ssize_t r = getrandom(e + got, sizeof(e) - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    /* getrandom cannot fail on Linux >= 3.17 once seeded; keep going with the clock if it does. */
    for (size_t i = got; i < sizeof(e); i++)
        e[i] = (uint8_t)(clock() ^ (long)(i * 2654435761u));
    lp_i3_cookie_from_entropy(cookie, e);
}

const char *lp_i3_error_text(int i_errno)
{
    switch (i_errno) {
    case LP_I3E_DURATION:
        return "test duration too long or without an end condition";
    case LP_I3E_NUMSTREAMS:
        return "number of parallel streams too large";
    case LP_I3E_BLOCKSIZE:
        return "block size too large";
    case 27:
        return "total required bandwidth is larger than server limit";
    case LP_I3E_MAXDURATION:
        return "test duration exceeds the server's maximum";
    case LP_I3E_RECVPARAMS:
        return "the server could not use the test parameters";
    case LP_I3E_AUTHTEST:
        return "test authorization failed";
    case LP_I3E_NOMSG:
        return "idle timeout for receiving data";
    case 160:
        return "the server's test duration expired";
    default:
        return "the server reported an error";
    }
}

const char *lp_i3_state_name(int state)
{
    switch (state) {
    case LP_I3_TEST_START: return "TEST_START";
    case LP_I3_TEST_RUNNING: return "TEST_RUNNING";
    case LP_I3_TEST_END: return "TEST_END";
    case LP_I3_PARAM_EXCHANGE: return "PARAM_EXCHANGE";
    case LP_I3_CREATE_STREAMS: return "CREATE_STREAMS";
    case LP_I3_SERVER_TERMINATE: return "SERVER_TERMINATE";
    case LP_I3_CLIENT_TERMINATE: return "CLIENT_TERMINATE";
    case LP_I3_EXCHANGE_RESULTS: return "EXCHANGE_RESULTS";
    case LP_I3_DISPLAY_RESULTS: return "DISPLAY_RESULTS";
    case LP_I3_IPERF_DONE: return "IPERF_DONE";
    case LP_I3_ACCESS_DENIED: return "ACCESS_DENIED";
    case LP_I3_SERVER_ERROR: return "SERVER_ERROR";
    default: return "unknown";
    }
}

int lp_i3_write_all(int fd, const void *buf, size_t len, unsigned timeout_ms)
{
    const uint8_t *p = buf;
    while (len) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -errno;
        struct pollfd pf = {.fd = fd, .events = POLLOUT};
        int rc = poll(&pf, 1, (int)timeout_ms);
        if (rc == 0)
            return -ETIMEDOUT;
        if (rc < 0 && errno != EINTR)
            return -errno;
    }
    return 0;
}

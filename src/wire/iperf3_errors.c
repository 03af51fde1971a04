/* iperf3's error numbers by client version (see iperf3.h): the one part of the iperf3 codecs
 * outside iperf3.h that both the host's server and the board agent's use, so that a stock
 * client of any version prints the words of a refusal. Freestanding C99. */
#include "wire/iperf3.h"

unsigned lp_i3_version_parse(const char *s)
{
    unsigned part[3] = {0, 0, 0};
    int n = 0;
    if (!s)
        return 0;
    while (n < 3) {
        unsigned v = 0, digits = 0;
        while (*s >= '0' && *s <= '9' && digits < 3) {
            v = v * 10 + (unsigned)(*s++ - '0');
            digits++;
        }
        if (!digits || v > 99)
            return n >= 2 ? LP_I3_VERSION(part[0], part[1], part[2]) : 0;
        part[n++] = v;
        if (*s != '.')
            break;
        s++;
    }
    /* "3" alone, or "3.": not a version; "3.21+" and "3.1b3": major.minor and a suffix. */
    if (n < 2 || part[0] == 0)
        return 0;
    return LP_I3_VERSION(part[0], part[1], part[2]);
}

struct lp_i3_server_error lp_i3_server_error_for(int code, unsigned peer)
{
    struct lp_i3_server_error e = {code, 0};
    bool known = peer != 0; /* unknown: the newest numbering, as this file has it */
    switch (code) {
    case LP_I3E_AUTHTEST:      /* "test authorization failed" since 3.2 (auth came with it) */
        if (known && peer < LP_I3_VERSION(3, 2, 0))
            e = (struct lp_i3_server_error){LP_I3E_RECVPARAMS, LP_I3_ERRNO_EACCES};
        break;
    case LP_I3E_RECVPARAMS:    /* "unable to receive parameters from client: " + strerror */
        e.err = LP_I3_ERRNO_EINVAL;
        break;
    case LP_I3E_MAXDURATION:   /* 3.20: "client's requested duration exceeds the server's
                                * maximum permitted limit" */
        if (known && peer < LP_I3_VERSION(3, 17, 0))      /* "test duration too long
                                                           * (maximum = 86400 seconds)" */
            e.i_errno = LP_I3E_DURATION;
        else if (known && peer < LP_I3_VERSION(3, 20, 0)) /* their 5 reads "valid values are 0
                                                           * to 86400 seconds": misleading */
            e = (struct lp_i3_server_error){LP_I3E_RECVPARAMS, LP_I3_ERRNO_ERANGE};
        break;
    case LP_I3E_TESTEXPIRED:   /* 3.21: "server test duration expired: " (stock sends errno 0) */
        if (known && peer < LP_I3_VERSION(3, 21, 0))
            e.i_errno = LP_I3E_SERVERTERM;                /* "the server has terminated" */
        break;
    case LP_I3E_NOMSG:         /* 3.10: "idle timeout for receiving data" */
        if (known && peer < LP_I3_VERSION(3, 10, 0))
            e.i_errno = LP_I3E_SERVERTERM;
        break;
    default:
        break;
    }
    return e;
}

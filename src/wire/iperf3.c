/* iperf3 codecs (see iperf3.h). Freestanding so the board agent can share them. */
#include "wire/iperf3.h"

static const char cookie_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

void lp_i3_cookie_from_entropy(char cookie[LP_I3_COOKIE_SIZE], const uint8_t entropy[36])
{
    for (int i = 0; i < 36; i++)
        cookie[i] = cookie_alphabet[entropy[i] % 32];
    cookie[36] = '\0';
}

bool lp_i3_cookie_valid(const uint8_t buf[LP_I3_COOKIE_SIZE])
{
    for (int i = 0; i < 36; i++)
        if (buf[i] < 0x21 || buf[i] > 0x7e)
            return false;
    return buf[36] == 0;
}

void lp_i3_put_u32(uint8_t out[4], uint32_t v)
{
    out[0] = (uint8_t)(v >> 24);
    out[1] = (uint8_t)(v >> 16);
    out[2] = (uint8_t)(v >> 8);
    out[3] = (uint8_t)v;
}

uint32_t lp_i3_get_u32(const uint8_t in[4])
{
    return (uint32_t)in[0] << 24 | (uint32_t)in[1] << 16 | (uint32_t)in[2] << 8 | in[3];
}

void lp_i3_put_len(uint8_t out[4], uint32_t len)
{
    lp_i3_put_u32(out, len);
}

uint32_t lp_i3_get_len(const uint8_t in[4])
{
    return lp_i3_get_u32(in);
}

size_t lp_i3_udp_hdr_len(bool counters64)
{
    return counters64 ? LP_I3_UDP_HDR64 : LP_I3_UDP_HDR32;
}

size_t lp_i3_udp_hdr_put(uint8_t *buf, size_t len, const struct lp_i3_udp_hdr *h, bool counters64)
{
    size_t need = lp_i3_udp_hdr_len(counters64);
    if (len < need)
        return 0;
    lp_i3_put_u32(buf, h->sec);
    lp_i3_put_u32(buf + 4, h->usec);
    if (counters64) {
        lp_i3_put_u32(buf + 8, (uint32_t)(h->seq >> 32));
        lp_i3_put_u32(buf + 12, (uint32_t)h->seq);
    } else {
        lp_i3_put_u32(buf + 8, (uint32_t)h->seq);
    }
    return need;
}

size_t lp_i3_udp_hdr_get(const uint8_t *buf, size_t len, struct lp_i3_udp_hdr *h, bool counters64)
{
    size_t need = lp_i3_udp_hdr_len(counters64);
    if (len < need)
        return 0;
    h->sec = lp_i3_get_u32(buf);
    h->usec = lp_i3_get_u32(buf + 4);
    if (counters64)
        h->seq = (uint64_t)lp_i3_get_u32(buf + 8) << 32 | lp_i3_get_u32(buf + 12);
    else
        h->seq = lp_i3_get_u32(buf + 8);
    return need;
}

int lp_i3_stream_id(unsigned n)
{
    /* iperf3 skips id 2 (historically reserved); both ends number streams this way. */
    return n == 0 ? 1 : (int)n + 2;
}

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

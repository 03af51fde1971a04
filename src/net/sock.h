/* Socket helpers for Linux: resolve, listen, connect with a deadline, apply the spec's
 * socket options, format addresses, sample TCP_INFO. No protocol knowledge here. */
#ifndef LP_SOCK_H
#define LP_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "linkperf/record.h"
#include "linkperf/spec.h"

struct lp_addr {
    struct sockaddr_storage ss;
    socklen_t len;
};

/* Resolve host (NULL or "" = wildcard when passive) for SOCK_STREAM/SOCK_DGRAM. */
int lp_sock_resolve(const char *host, uint16_t port, enum lp_family family, int socktype,
                    bool passive, struct lp_addr *out, char *err, size_t errlen);

/* A listening (TCP) or bound (UDP) socket on addr, SO_REUSEADDR, non-blocking; IPv6
 * wildcard sockets accept IPv4 too. Returns fd or negative errno. */
int lp_sock_listen(const struct lp_addr *addr, int socktype, int backlog);

/* TCP connect to addr within timeout_ms (0 = 30 s), after binding to bind (may be NULL)
 * and applying the data-socket options of spec (when spec is not NULL). Returns a blocking
 * fd or negative errno. */
int lp_sock_connect(const struct lp_addr *addr, const struct lp_addr *bind, int socktype,
                    const struct lp_spec *spec, unsigned timeout_ms);

/* Apply -w, -M, -N, -C, -S, --bind-dev, --dont-fragment, --snd-timeout to a data socket.
 * Returns 0 or a negative errno; *what names the option that failed. */
int lp_sock_apply_spec(int fd, const struct lp_spec *spec, int socktype, const char **what);
/* The same on a socket fd the caller already has (fd >= 0) or a throwaway one of family, so a
 * client can refuse a -C or --bind-dev this host will not take before it starts a test:
 * returns 0, or a negative errno with why filled ("unable to set TCP_CONGESTION: ..."). */
int lp_sock_check_spec(int fd, int family, const struct lp_spec *spec, int socktype, char *why, size_t whylen);

int lp_sock_set_nonblock(int fd, bool on);

/* Numeric host and port of an address; IPv4-mapped IPv6 shown as plain IPv4. */
void lp_sock_endpoint(const struct sockaddr_storage *ss, struct lp_endpoint *ep);
int lp_sock_local(int fd, struct lp_endpoint *ep);
int lp_sock_peer(int fd, struct lp_endpoint *ep);
/* True when both addresses name the same host (ignoring ports; v4-mapped == v4). */
bool lp_sock_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
/* 127.0.0.0/8, ::1 or a v4-mapped 127.x address. */
bool lp_sock_is_loopback(const struct sockaddr_storage *ss);

struct lp_tcp_sample {
    bool valid;
    uint64_t total_retrans;
    uint64_t snd_cwnd_bytes;
    uint32_t snd_cwnd_pkts;
    uint64_t snd_wnd_bytes;
    uint32_t rtt_us, rttvar_us, pmtu, snd_mss;
    /* tcpi_reord_seen: reordering events the sender has seen since the connection opened
     * (Linux 4.19+); -1 when the kernel's struct is too short to have it. */
    int64_t reord_seen;
};
int lp_sock_tcp_info(int fd, struct lp_tcp_sample *s);
int lp_sock_mss(int fd);
/* Congestion control in use on fd (empty string when unknown). */
void lp_sock_congestion(int fd, char *buf, size_t len);
int lp_sock_bufsizes(int fd, int *sndbuf, int *rcvbuf);
/* Bytes written to fd that have not left it yet: TCP, not acknowledged by the peer; UDP, not
 * handed to the device. Negative errno on failure. */
long lp_sock_unsent(int fd);

#endif

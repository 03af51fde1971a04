/* Linux socket helpers (see sock.h). Errors are returned as negative errno; nothing here
 * prints. Options the kernel lacks are reported, not silently skipped. */
#include "net/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int lp_sock_resolve(const char *host, uint16_t port, enum lp_family family, int socktype,
                    bool passive, struct lp_addr *out, char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *res = NULL;
    char portstr[8];
    snprintf(portstr, sizeof(portstr), "%u", (unsigned)port);
    hints.ai_family = family == LP_FAMILY_INET ? AF_INET : family == LP_FAMILY_INET6 ? AF_INET6 : AF_UNSPEC;
    hints.ai_socktype = socktype;
    hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
    if (passive && (!host || !*host)) {
        /* The IPv6 wildcard serves IPv4 too (dual stack) unless -4 was given. */
        memset(out, 0, sizeof(*out));
        if (family == LP_FAMILY_INET) {
            struct sockaddr_in *sin = (struct sockaddr_in *)&out->ss;
            sin->sin_family = AF_INET;
            sin->sin_port = htons(port);
            out->len = sizeof(*sin);
        } else {
            struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&out->ss;
            sin6->sin6_family = AF_INET6;
            sin6->sin6_port = htons(port);
            out->len = sizeof(*sin6);
        }
        return 0;
    }
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0 || !res) {
        snprintf(err, errlen, "cannot resolve '%s': %s", host ? host : "", gai_strerror(rc));
        return -EHOSTUNREACH;
    }
    memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
    out->len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* The algorithms this host lets every user set (a root user may also load others). */
static void allowed_congestion(char *buf, size_t len)
{
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_allowed_congestion_control", "r");
    buf[0] = '\0';
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
}

int lp_sock_check_spec(int fd, int family, const struct lp_spec *spec, int socktype, char *why, size_t whylen)
{
    const char *what = NULL;
    int own = fd < 0 ? socket(family, socktype | SOCK_CLOEXEC, 0) : fd;
    if (own < 0)
        return 0; /* no socket to try on: the real one will say */
    int err = lp_sock_apply_spec(own, spec, socktype, &what);
    if (fd < 0)
        close(own);
    if (err == 0)
        return 0;
    if (what && strcmp(what, "-C/--congestion") == 0) {
        /* iperf3's words, with what would work: ENOENT is an algorithm this kernel has not
         * got, EPERM one it has but only lets root set */
        char allowed[256];
        allowed_congestion(allowed, sizeof(allowed));
        snprintf(why, whylen, "unable to set TCP_CONGESTION: congestion control algorithm '%s' %s%s%s%s",
                 spec->congestion, err == -EPERM ? "needs root on this host" : "not supported on this host",
                 allowed[0] ? " (allowed: " : "", allowed, allowed[0] ? ")" : "");
    } else {
        snprintf(why, whylen, "unable to set %s: %s", what ? what : "a socket option", strerror(-err));
    }
    return err;
}

int lp_sock_set_nonblock(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -errno;
    fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
    return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

int lp_sock_listen(const struct lp_addr *addr, int socktype, int backlog)
{
    int one = 1, zero = 0;
    int fd = socket(addr->ss.ss_family, socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (addr->ss.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (bind(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0)
        goto fail;
    if (socktype == SOCK_STREAM && listen(fd, backlog) < 0)
        goto fail;
    return fd;
fail: {
    int e = -errno;
    close(fd);
    return e;
}
}

int lp_sock_apply_spec(int fd, const struct lp_spec *spec, int socktype, const char **what)
{
    int fam = AF_INET;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        fam = ss.ss_family;
#define SETOPT(level, name, val, label)                                                    \
    do {                                                                                   \
        int v_ = (val);                                                                    \
        if (setsockopt(fd, level, name, &v_, sizeof(v_)) < 0) {                            \
            *what = label;                                                                 \
            return -errno;                                                                 \
        }                                                                                  \
    } while (0)
    if (spec->window_bytes > 0) {
        SETOPT(SOL_SOCKET, SO_SNDBUF, spec->window_bytes, "-w/--window (SO_SNDBUF)");
        SETOPT(SOL_SOCKET, SO_RCVBUF, spec->window_bytes, "-w/--window (SO_RCVBUF)");
    }
    if (socktype == SOCK_STREAM) {
        if (spec->mss > 0)
            SETOPT(IPPROTO_TCP, TCP_MAXSEG, spec->mss, "-M/--set-mss");
        if (spec->nodelay)
            SETOPT(IPPROTO_TCP, TCP_NODELAY, 1, "-N/--no-delay");
        if (spec->congestion[0] &&
            setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, spec->congestion, (socklen_t)strlen(spec->congestion)) < 0) {
            *what = "-C/--congestion";
            return -errno;
        }
        if (spec->snd_timeout_ms)
            SETOPT(IPPROTO_TCP, TCP_USER_TIMEOUT, (int)spec->snd_timeout_ms, "--snd-timeout");
    }
    if (spec->tos >= 0) {
        if (fam == AF_INET6)
            SETOPT(IPPROTO_IPV6, IPV6_TCLASS, spec->tos, "-S/--tos");
        else
            SETOPT(IPPROTO_IP, IP_TOS, spec->tos, "-S/--tos");
    }
    if (spec->bind_dev[0] &&
        setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, spec->bind_dev, (socklen_t)strlen(spec->bind_dev)) < 0) {
        *what = "--bind-dev";
        return -errno;
    }
    if (socktype == SOCK_DGRAM && spec->dont_fragment && fam == AF_INET)
        SETOPT(IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO, "--dont-fragment");
    if (spec->fq_rate_bps) {
        unsigned long long rate = spec->fq_rate_bps / 8;
        if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof(rate)) < 0) {
            *what = "--fq-rate";
            return -errno;
        }
    }
#undef SETOPT
    return 0;
}

static int wait_connected(int fd, unsigned timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int rc;
    do {
        rc = poll(&p, 1, (int)timeout_ms);
    } while (rc < 0 && errno == EINTR);
    if (rc == 0)
        return -ETIMEDOUT;
    if (rc < 0)
        return -errno;
    int soerr = 0;
    socklen_t sl = sizeof(soerr);
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
    return soerr ? -soerr : 0;
}

int lp_sock_connect(const struct lp_addr *addr, const struct lp_addr *bind_to, int socktype,
                    const struct lp_spec *spec, unsigned timeout_ms)
{
    int one = 1;
    int err;
    int fd = socket(addr->ss.ss_family, socktype | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (spec) {
        const char *what = NULL;
        if ((err = lp_sock_apply_spec(fd, spec, socktype, &what)) < 0)
            goto fail;
    }
    if (bind_to) {
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (const struct sockaddr *)&bind_to->ss, bind_to->len) < 0) {
            err = -errno;
            goto fail;
        }
    }
    if ((err = lp_sock_set_nonblock(fd, true)) < 0)
        goto fail;
    if (connect(fd, (const struct sockaddr *)&addr->ss, addr->len) < 0) {
        if (errno != EINPROGRESS) {
            err = -errno;
            goto fail;
        }
        if ((err = wait_connected(fd, timeout_ms ? timeout_ms : 30000)) < 0)
            goto fail;
    }
    if ((err = lp_sock_set_nonblock(fd, false)) < 0)
        goto fail;
    return fd;
fail:
    close(fd);
    return err;
}

void lp_sock_endpoint(const struct sockaddr_storage *ss, struct lp_endpoint *ep)
{
    ep->host[0] = '\0';
    ep->port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &sin->sin_addr, ep->host, sizeof(ep->host));
        ep->port = ntohs(sin->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
        if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
            inet_ntop(AF_INET, &sin6->sin6_addr.s6_addr[12], ep->host, sizeof(ep->host));
        else
            inet_ntop(AF_INET6, &sin6->sin6_addr, ep->host, sizeof(ep->host));
        ep->port = ntohs(sin6->sin6_port);
    }
}

int lp_sock_local(int fd, struct lp_endpoint *ep)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
        return -errno;
    lp_sock_endpoint(&ss, ep);
    return 0;
}

int lp_sock_peer(int fd, struct lp_endpoint *ep)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) < 0)
        return -errno;
    lp_sock_endpoint(&ss, ep);
    return 0;
}

bool lp_sock_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    struct lp_endpoint ea, eb;
    lp_sock_endpoint(a, &ea);
    lp_sock_endpoint(b, &eb);
    return ea.host[0] && strcmp(ea.host, eb.host) == 0;
}

bool lp_sock_is_loopback(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    if (ss->ss_family != AF_INET6)
        return false;
    const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
}

int lp_sock_mss(int fd)
{
    int mss = 0;
    socklen_t sl = sizeof(mss);
    if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &sl) < 0)
        return 0;
    return mss;
}

void lp_sock_congestion(int fd, char *buf, size_t len)
{
    socklen_t sl = (socklen_t)len;
    if (len == 0)
        return;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, buf, &sl) < 0)
        sl = 0;
    buf[sl < len ? sl : len - 1] = '\0';
}

int lp_sock_bufsizes(int fd, int *sndbuf, int *rcvbuf)
{
    socklen_t sl = sizeof(int);
    *sndbuf = *rcvbuf = 0;
    if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, sndbuf, &sl) < 0)
        return -errno;
    sl = sizeof(int);
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, rcvbuf, &sl) < 0)
        return -errno;
    return 0;
}

long lp_sock_unsent(int fd)
{
    int n = 0;
    if (ioctl(fd, TIOCOUTQ, &n) < 0)
        return -errno;
    return n;
}

/* The linkperf server: listeners on one or two ports (TCP and UDP), classification of each
 * new connection or flow by its first bytes (iperf3 cookie, iperf2 header or payload), the
 * allowlist, limits and the server's lifecycle. The dialect modules run the tests. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/stream.h"
#include "linkperf/engine.h"
#include "net/allow.h"
#include "proto/detect.h"
#include "proto/server.h"

/* A connection whose first bytes are still arriving. We read exactly what classification
 * needs (lp_detect_tcp's .want): 37 bytes of an iperf3 cookie, or an iperf2 header (at most
 * 256 bytes, and a permit key of at most 128 after a keyed one). */
/* Owned by the server: linked in lp_server.pendings, freed (its fd closed) by pending_drop or
 * lp_server_free, or handed over: classification gives its fd to the test it starts and then
 * frees the record. Borrows srv. */
struct pending {
    struct lp_handler h;
    struct lp_server *srv;
    struct lp_timer timer;
    uint8_t buf[LP_DETECT_MAX];
    size_t got, want;
    uint64_t seq;
    bool dead;
    struct pending *prev, *next;
    struct lp_post reap;        /* frees it after the event batch that dropped it */
};

/* ---- tests ---- */

static void emit_listening(struct lp_server *s)
{
    if (s->stopping || s->permit_expired)
        return;
    struct lp_record rec = {.kind = LP_REC_LISTENING, .role = LP_ROLE_SERVER, .test_id = 0};
    rec.u.listening.port = s->lis[0].port;
    rec.u.listening.port2 = s->nlis > 1 ? s->lis[1].port : 0;
    rec.u.listening.asked = s->spec.proto;
    rec.u.listening.spec = &s->spec;
    rec.u.listening.test_number = s->next_id + 1;
    int snd;
    if (s->lis[0].tcp_fd >= 0)
        lp_sock_bufsizes(s->lis[0].tcp_fd, &snd, &rec.u.listening.tcp_window);
    if (s->lis[0].tcp_fd >= 0 && s->spec.window_bytes > 0) {
        /* -w is applied to each data connection, not the listener: name the size it gives
         * (iperf2: "TCP window size: 600 KByte (WARNING: requested 300 KByte)"). */
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int w = s->spec.window_bytes;
        if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w)) == 0) {
            lp_sock_bufsizes(fd, &snd, &rec.u.listening.tcp_window);
            rec.u.listening.tcp_window_wanted = w;
        }
        if (fd >= 0)
            close(fd);
    }
    if (s->spec.iperf2.permit_key[0]) {
        /* iperf2 UDP carries no key: 2.1.8 then listens on TCP only, and says so. */
        rec.u.listening.permit_key = s->spec.iperf2.permit_key;
        rec.u.listening.permit_key_timeout_s = s->spec.iperf2.permit_key_timeout_s;
    } else {
        lp_sock_bufsizes(s->lis[0].udp_fd, &snd, &rec.u.listening.udp_buffer);
    }
    lp_engine_emit(&s->eng, &rec);
}

static void arm_idle(struct lp_server *s)
{
    if (s->spec.idle_timeout_s)
        lp_timer_arm(&s->eng.loop, &s->idle_timer, lp_now_ns() + (uint64_t)s->spec.idle_timeout_s * LP_NS_PER_S);
}

static bool served_enough(const struct lp_server *s)
{
    unsigned limit = s->spec.one_off ? 1 : s->spec.max_conns;
    return limit && s->tests_done >= limit;
}

static void maybe_stop_loop(struct lp_server *s)
{
    if (s->ntests == 0 && (s->stopping || served_enough(s) || s->permit_expired))
        lp_loop_stop(&s->eng.loop);
}

bool srv_accepting(const struct lp_server *s)
{
    unsigned limit = s->spec.one_off ? 1 : s->spec.max_conns;
    if (s->stopping || s->permit_expired || (limit && s->next_id >= limit))
        return false;
    return s->ntests < (s->spec.max_tests ? s->spec.max_tests : LP_SRV_DEFAULT_MAX_TESTS);
}

void srv_test_link(struct lp_server *s, struct srv_test *t, enum lp_dialect d, const struct sockaddr_storage *peer,
                   enum lp_proto proto)
{
    t->srv = s;
    t->dialect = d;
    t->peer_addr = *peer;
    lp_run_init(&t->run, &s->eng, &s->spec, ++s->next_id);
    t->run.spec.role = LP_ROLE_SERVER;
    t->run.spec.dialect = d;
    t->run.spec.proto = proto;
    lp_sock_endpoint(peer, &t->run.ctrl_peer);
    t->next = s->tests;
    if (s->tests)
        s->tests->prev = t;
    s->tests = t;
    s->ntests++;
    struct lp_record rec = {.kind = LP_REC_CONNECTING, .role = LP_ROLE_SERVER, .test_id = t->run.id};
    rec.u.connecting.peer = t->run.ctrl_peer;
    rec.u.connecting.dialect = d;
    rec.u.connecting.proto = proto;
    lp_engine_emit(&s->eng, &rec);
}

static void destroy_test(struct lp_post *p)
{
    struct srv_test *t = lp_container_of(p, struct srv_test, reap);
    t->destroy(t);
}

void srv_test_unlink(struct srv_test *t)
{
    struct lp_server *s = t->srv;
    if (t->unlinked)
        return;
    t->unlinked = true;
    lp_timer_cancel(&s->eng.loop, &t->run.interval_timer);
    lp_timer_cancel(&s->eng.loop, &t->run.omit_timer);
    lp_run_emit_simple(&t->run, LP_REC_DONE);
    if (t->prev)
        t->prev->next = t->next;
    else
        s->tests = t->next;
    if (t->next)
        t->next->prev = t->prev;
    s->ntests--;
    s->tests_done++;
    lp_post_init(&t->reap, destroy_test);
    lp_loop_defer(&s->eng.loop, &t->reap);
    /* iperf3 prints its banner again when it is free; with tests running concurrently
     * that is when the last of them ends. */
    if (s->ntests == 0 && !served_enough(s))
        emit_listening(s);
    arm_idle(s);
    maybe_stop_loop(s);
}

void srv_send_refusal(int fd)
{
    uint8_t b = (uint8_t)LP_I3_ACCESS_DENIED;
    ssize_t w = send(fd, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w; /* best effort: the connection is closed either way */
}

int srv_udp_flow_socket(const struct srv_listener *l, const struct sockaddr_storage *peer, socklen_t plen)
{
    int one = 1;
    int fd = socket(l->local.ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (l->local.ss.ss_family == AF_INET6) {
        int zero = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    }
    /* Same local port as the listener, on the address the client sent to when the listener
     * is a wildcard; once connected, the kernel prefers this socket for the client's
     * datagrams. */
    struct sockaddr_storage at = l->local.ss;
    socklen_t atlen = l->local.len;
    if (l->cur_dst.ss_family == AF_INET && at.ss_family == AF_INET) {
        ((struct sockaddr_in *)&at)->sin_addr = ((const struct sockaddr_in *)&l->cur_dst)->sin_addr;
    } else if (l->cur_dst.ss_family == AF_INET6 && at.ss_family == AF_INET6) {
        ((struct sockaddr_in6 *)&at)->sin6_addr = ((const struct sockaddr_in6 *)&l->cur_dst)->sin6_addr;
    } else if (l->cur_dst.ss_family == AF_INET && at.ss_family == AF_INET6) {
        /* An IPv4 datagram on a dual-stack listener: the v4-mapped form of its address. */
        struct in6_addr *a6 = &((struct sockaddr_in6 *)&at)->sin6_addr;
        memset(a6, 0, sizeof(*a6));
        a6->s6_addr[10] = a6->s6_addr[11] = 0xff;
        memcpy(&a6->s6_addr[12], &((const struct sockaddr_in *)&l->cur_dst)->sin_addr, 4);
    }
    if (bind(fd, (const struct sockaddr *)&at, atlen) < 0 ||
        connect(fd, (const struct sockaddr *)peer, plen) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    return fd;
}

/* ---- classification of new TCP connections ---- */

static void pending_free(struct lp_post *node)
{
    free(lp_container_of(node, struct pending, reap));
}

static void pending_drop(struct pending *p, bool close_fd)
{
    struct lp_server *s = p->srv;
    if (p->dead)
        return;
    p->dead = true;
    lp_loop_del(&s->eng.loop, &p->h);
    lp_timer_cancel(&s->eng.loop, &p->timer);
    if (close_fd)
        close(p->h.fd);
    if (p->prev)
        p->prev->next = p->next;
    else
        s->pendings = p->next;
    if (p->next)
        p->next->prev = p->prev;
    s->npending--;
    lp_post_init(&p->reap, pending_free);
    lp_loop_defer(&s->eng.loop, &p->reap);
}

/* An iperf3 client at a server that requires an iperf2 permit key: refused (iperf3 has no
 * permit key; iperf3 authentication would admit it). */
static void refuse_iperf3(struct lp_server *s, int fd, const struct lp_endpoint *pe)
{
    lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false,
                    "%s: iperf3 test refused: this server requires an iperf2 permit key "
                    "(--permit-key)", pe->host);
    /* SERVER_ERROR 142 right after the cookie: stock clients print "test authorization
     * failed" (ACCESS_DENIED would read "the server is busy"). */
    uint8_t e[LP_I3_SERVER_ERROR_LEN];
    lp_i3_server_error_put(e, (struct lp_i3_server_error){LP_I3E_AUTHTEST, 0});
    ssize_t w = send(fd, e, sizeof(e), MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w; /* best effort: the connection is closed either way */
    close(fd);
}

/* An iperf2 header we do not serve: say why, and close (a keyed one is iperf2's drop). */
static void refuse_iperf2(struct lp_server *s, int fd, const struct sockaddr_storage *peer,
                          const struct lp_endpoint *pe, const struct lp_detect *d)
{
    SRV_DBG(s, 0, "connection from %s port %u asks for an iperf2 feature we do not serve (flags 0x%08x); "
            "closed", pe->host, (unsigned)pe->port, d->flags);
    if (d->verdict == LP_DETECT_BAD_KEY) {
        i2s_drop(s, fd, peer); /* a keyed header whose key cannot be found */
        return;
    } else {
        lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false,
                        "%s: iperf2 header length %u is invalid (flags 0x%08x); connection closed", pe->host,
                        (unsigned)((d->flags & LP_I2_LEN_MASK) >> 1), d->flags);
    }
    close(fd);
}

/* The connection said what it is (d): hand it to its dialect, or close it. */
static void classify(struct pending *p, const struct lp_detect *d)
{
    struct lp_server *s = p->srv;
    int fd = p->h.fd;
    struct sockaddr_storage peer;
    socklen_t sl = sizeof(peer);
    memset(&peer, 0, sizeof(peer));
    getpeername(fd, (struct sockaddr *)&peer, &sl);
    struct lp_endpoint pe;
    lp_sock_endpoint(&peer, &pe);
    uint8_t buf[LP_DETECT_MAX];
    uint64_t seq = p->seq;
    memcpy(buf, p->buf, d->used);
    pending_drop(p, false);

    switch (d->verdict) {
    case LP_DETECT_IPERF3:
        if (s->spec.iperf2.permit_key[0] && !s->auth)
            refuse_iperf3(s, fd, &pe);
        else
            i3s_connection(s, fd, buf, &peer, seq);
        return;
    case LP_DETECT_I2_PLAIN:
    case LP_DETECT_I2_KEYED:
    case LP_DETECT_I2_NONE:
        /* A header of hdr_len bytes, or (0) payload from the first byte — a header-less -C
         * client, 2.0.5-era clients with flags 0, or a cookie that was not one. */
        i2s_tcp(s, fd, buf, d->hdr_len, d->used - d->hdr_len, &peer);
        return;
    case LP_DETECT_BOUNCEBACK:
        i2s_bounceback(s, fd, buf, d->used, &peer);
        return;
    case LP_DETECT_BAD_KEY:
    case LP_DETECT_BAD_LENGTH:
        refuse_iperf2(s, fd, &peer, &pe, d);
        return;
    case LP_DETECT_SHORT:
        SRV_DBG(s, 0, "connection from %s port %u closed after %zu of %zu header bytes; dropped", pe.host,
                (unsigned)pe.port, d->used, d->hdr_len);
        break;
    case LP_DETECT_MORE:
    case LP_DETECT_EMPTY:
        break; /* not a verdict on_pending_io passes */
    }
    close(fd);
}

static void on_pending_io(struct lp_handler *h, uint32_t events)
{
    struct pending *p = lp_container_of(h, struct pending, h);
    (void)events;
    if (p->dead)
        return;
    size_t want = p->want ? p->want : 4;
    ssize_t r = recv(p->h.fd, p->buf + p->got, want - p->got, MSG_DONTWAIT);
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        pending_drop(p, true);
        return;
    }
    if (r > 0)
        p->got += (size_t)r;
    struct lp_detect d;
    lp_detect_tcp(p->buf, p->got, r == 0, &d);
    if (d.verdict == LP_DETECT_EMPTY)
        pending_drop(p, true);
    else if (d.verdict == LP_DETECT_MORE)
        p->want = d.want;
    else
        classify(p, &d);
}

static void on_pending_timeout(struct lp_timer *tm)
{
    pending_drop(lp_container_of(tm, struct pending, timer), true);
}

static unsigned default_max_duration(void)
{
    const char *e = getenv("LINKPERF_DEFAULT_MAX_DURATION");
    char *end;
    unsigned long v = e ? strtoul(e, &end, 10) : 0;
    return e && *e && !*end && v >= 1 && v <= 86400 ? (unsigned)v : LP_SRV_DEFAULT_MAX_DURATION_S;
}

static void note_proven(struct lp_server *s, const struct sockaddr_storage *peer)
{
    uint64_t now = lp_now_ns();
    for (unsigned i = 0; i < LP_SRV_PROVEN_MAX; i++) {
        if (s->proven[i].at_ns && lp_sock_same_host(&s->proven[i].addr, peer)) {
            s->proven[i].at_ns = now;
            return;
        }
    }
    s->proven[s->proven_next].addr = *peer;
    s->proven[s->proven_next].at_ns = now;
    s->proven_next = (s->proven_next + 1) % LP_SRV_PROVEN_MAX;
}

bool srv_peer_proven(const struct lp_server *s, const struct sockaddr_storage *peer)
{
    if (lp_sock_is_loopback(peer) || (s->trusted.n && lp_allow_match(&s->trusted, peer)))
        return true;
    uint64_t now = lp_now_ns();
    for (unsigned i = 0; i < LP_SRV_PROVEN_MAX; i++)
        if (s->proven[i].at_ns && now - s->proven[i].at_ns < LP_SRV_PROVEN_NS &&
            lp_sock_same_host(&s->proven[i].addr, peer))
            return true;
    return false;
}

static uint16_t port_of(const struct sockaddr_storage *ss)
{
    return ntohs(ss->ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)ss)->sin6_port
                                           : ((const struct sockaddr_in *)ss)->sin_port);
}

bool srv_own_endpoint(const struct lp_server *s, const struct sockaddr_storage *addr,
                      const struct sockaddr_storage *local)
{
    if (!lp_sock_is_loopback(addr) && !(local && lp_sock_same_host(addr, local)))
        return false;
    for (unsigned i = 0; i < s->nlis; i++)
        if (port_of(&s->lis[i].local.ss) == port_of(addr))
            return true;
    return false;
}

/* An accepted connection that has not said what it is yet: on the loop, at the head of the
 * pending list, with the classify deadline. NULL (fd left to the caller) when there is no
 * memory or the loop refuses it. tests/fuzz/fuzz_server_classify.c starts its input here. */
static struct pending *pending_new(struct lp_server *s, int fd)
{
    struct pending *p = calloc(1, sizeof(*p));

    if (!p)
        return NULL;
    p->srv = s;
    p->h.fd = fd;
    p->h.fn = on_pending_io;
    p->seq = ++s->seq;
    lp_timer_init(&p->timer, on_pending_timeout);
    if (lp_loop_add(&s->eng.loop, &p->h, EPOLLIN) < 0) {
        free(p);
        return NULL;
    }
    p->next = s->pendings;
    if (s->pendings)
        s->pendings->prev = p;
    s->pendings = p;
    s->npending++;
    lp_timer_arm(&s->eng.loop, &p->timer, lp_now_ns() + LP_SRV_CLASSIFY_TIMEOUT_MS * LP_NS_PER_MS);
    return p;
}

static void on_accept(struct lp_handler *h, uint32_t events)
{
    struct srv_listener *l = lp_container_of(h, struct srv_listener, tcp_h);
    struct lp_server *s = l->srv;
    (void)events;
    for (int i = 0; i < 64; i++) {
        struct sockaddr_storage peer;
        socklen_t pl = sizeof(peer);
        int fd = accept4(l->tcp_fd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        if (!lp_allow_match(&s->allow, &peer)) {
            struct lp_endpoint pe;
            lp_sock_endpoint(&peer, &pe);
            lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false,
                            "refused a connection from %s port %u: not in the allowed clients", pe.host,
                            (unsigned)pe.port);
            close(fd);
            continue;
        }
        note_proven(s, &peer);
        if (s->npending >= LP_SRV_MAX_PENDING) {
            /* Shed the oldest silent connection rather than the newcomer: a flood of idle
             * connections then cannot lock out a real client, which speaks at once. */
            struct pending *old = s->pendings;
            while (old->next)
                old = old->next;
            SRV_DBG(s, 0, "%u connections have not identified themselves; dropping the oldest", s->npending);
            pending_drop(old, true);
        }
        if (!pending_new(s, fd)) {
            close(fd);
            continue;
        }
        arm_idle(s);
    }
}

/* ---- datagrams on a listener's UDP socket ---- */

/* A datagram from a client not allowed: say so, at most once a second (a flood of them must
 * not flood the log), counting the ones passed over. */
#define LP_SRV_UDP_REFUSED_LOG_NS LP_NS_PER_S

static void udp_refused(struct lp_server *s, const struct sockaddr_storage *peer)
{
    uint64_t now = lp_now_ns();
    if (s->udp_refused_log_ns && now - s->udp_refused_log_ns < LP_SRV_UDP_REFUSED_LOG_NS) {
        s->udp_refused_quiet++;
        return;
    }
    struct lp_endpoint pe;
    lp_sock_endpoint(peer, &pe);
    if (s->udp_refused_quiet)
        lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false,
                        "refused UDP datagrams from %s port %u: not in the allowed clients "
                        "(and %llu more refused datagrams since the last such line)",
                        pe.host, (unsigned)pe.port, (unsigned long long)s->udp_refused_quiet);
    else
        lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false,
                        "refused UDP datagrams from %s port %u: not in the allowed clients", pe.host,
                        (unsigned)pe.port);
    s->udp_refused_log_ns = now;
    s->udp_refused_quiet = 0;
}

static void note_destination(struct srv_listener *l, struct msghdr *mh)
{
    memset(&l->cur_dst, 0, sizeof(l->cur_dst));
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
            struct in_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof(pi));
            struct sockaddr_in *sin = (struct sockaddr_in *)&l->cur_dst;
            sin->sin_family = AF_INET;
            sin->sin_addr = pi.ipi_addr;
        } else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO) {
            struct in6_pktinfo pi;
            memcpy(&pi, CMSG_DATA(c), sizeof(pi));
            struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&l->cur_dst;
            sin6->sin6_family = AF_INET6;
            sin6->sin6_addr = pi.ipi6_addr;
        }
    }
}

static void on_udp(struct lp_handler *h, uint32_t events)
{
    struct srv_listener *l = lp_container_of(h, struct srv_listener, udp_h);
    struct lp_server *s = l->srv;
    (void)events;
    for (int i = 0; i < 256; i++) {
        uint8_t buf[LP_I2_TCP_HDR_MAX];
        struct sockaddr_storage peer;
        union {
            char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct in_pktinfo))];
            struct cmsghdr align;
        } ctl;
        struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
        struct msghdr mh = {.msg_name = &peer, .msg_namelen = sizeof(peer), .msg_iov = &iov,
                            .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b)};
        ssize_t r = recvmsg(l->udp_fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
        if (r < 0)
            return;
        socklen_t plen = mh.msg_namelen;
        note_destination(l, &mh);
        if (!lp_allow_match(&s->allow, &peer)) {
            udp_refused(s, &peer);
            continue;
        }
        /* iperf3 stream hellos are exactly 4 bytes; iperf2 datagrams carry a 16-byte prefix
         * (and usually a header). Anything else is stray data from an ended test. */
        if (r == 4) {
            i3s_udp_hello(s, l, &peer, plen);
        } else if (r >= (ssize_t)LP_I2_UDP_PREFIX) {
            size_t head = (size_t)r < sizeof(buf) ? (size_t)r : sizeof(buf);
            i2s_udp(s, l, buf, head, (size_t)r, &peer, plen, lp_wall_ns());
        }
    }
}

/* ---- lifecycle ---- */

static void on_idle(struct lp_timer *tm)
{
    struct lp_server *s = lp_container_of(tm, struct lp_server, idle_timer);
    if (s->ntests || s->npending) {
        arm_idle(s);
        return;
    }
    /* iperf3 restarts an idle server; ours has nothing stuck to restart, except with -1. */
    if (s->spec.one_off)
        lp_loop_stop(&s->eng.loop);
    else
        arm_idle(s);
}

/* iperf2 --permit-key-timeout: 2.1.8 stops accepting connections this long after it
 * started, lets the tests under way end, and exits. */
static void on_permit_timeout(struct lp_timer *tm)
{
    struct lp_server *s = lp_container_of(tm, struct lp_server, permit_timer);
    s->permit_expired = true;
    SRV_DBG(s, 0, "the permit key's %.0f s are over: no more tests", s->spec.iperf2.permit_key_timeout_s);
    for (unsigned i = 0; i < s->nlis; i++) {
        if (s->lis[i].tcp_fd < 0)
            continue;
        lp_loop_del(&s->eng.loop, &s->lis[i].tcp_h); /* new clients: connection refused */
        close(s->lis[i].tcp_fd);
        s->lis[i].tcp_fd = -1;
    }
    maybe_stop_loop(s);
}

static void on_wake(void *arg)
{
    struct lp_server *s = arg;
    if (!atomic_exchange(&s->stop_req, false) || s->stopping)
        return;
    s->stopping = true;
    while (s->pendings)
        pending_drop(s->pendings, true);
    struct srv_test *t = s->tests;
    while (t) {
        struct srv_test *next = t->next;
        if (!t->finishing)
            t->interrupt(t);
        t = next;
    }
    maybe_stop_loop(s);
}

bool srv_multicast(const struct sockaddr_storage *ss)
{
    if (ss->ss_family == AF_INET)
        return IN_MULTICAST(ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr));
    return ss->ss_family == AF_INET6 && IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/* -B group: receive the group's datagrams on this host (iperf2's multicast server). */
static int join_group(int fd, const struct sockaddr_storage *group)
{
    if (group->ss_family == AF_INET) {
        struct ip_mreqn m = {.imr_multiaddr = ((const struct sockaddr_in *)group)->sin_addr};
        return setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m)) < 0 ? -errno : 0;
    }
    struct ipv6_mreq m = {.ipv6mr_multiaddr = ((const struct sockaddr_in6 *)group)->sin6_addr};
    return setsockopt(fd, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m, sizeof(m)) < 0 ? -errno : 0;
}

/* The shared UDP socket holds every new iperf2 flow's first datagrams, and a whole flow while
 * the server is busy: the kernel's default buffer (208 KB) overflowed at 10 Mbit/s under
 * load. -w sizes it as 2.1.8 does. */
static void udp_listener_buffer(const struct lp_server *s, int fd)
{
    int want = s->spec.window_bytes > 0 ? s->spec.window_bytes : LP_STREAM_UDP_RCVBUF;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
}

static int open_multicast_listener(struct lp_server *s, struct srv_listener *l, const struct lp_addr *a,
                                   char *err, size_t errlen)
{
    l->srv = s;
    l->local = *a;
    struct lp_endpoint ep;
    lp_sock_endpoint(&a->ss, &ep);
    l->port = ep.port;
    l->udp_fd = lp_sock_listen(a, SOCK_DGRAM, 0);
    if (l->udp_fd >= 0)
        udp_listener_buffer(s, l->udp_fd);
    int rc = l->udp_fd < 0 ? l->udp_fd : join_group(l->udp_fd, &a->ss);
    if (rc < 0) {
        snprintf(err, errlen, "cannot receive multicast group %s port %u: %s", ep.host, (unsigned)ep.port,
                 strerror(-rc));
        return rc;
    }
    l->udp_h.fd = l->udp_fd;
    l->udp_h.fn = on_udp;
    return lp_loop_add(&s->eng.loop, &l->udp_h, EPOLLIN);
}

static int open_listener(struct lp_server *s, struct srv_listener *l, uint16_t port, char *err, size_t errlen)
{
    struct lp_addr a;
    const char *host = s->spec.bind_addr[0] ? s->spec.bind_addr : NULL;
    int rc = lp_sock_resolve(host, port, s->spec.family, SOCK_STREAM, true, &a, err, errlen);
    if (rc < 0)
        return rc;
    if (srv_multicast(&a.ss)) /* UDP only: there is no TCP to a group */
        return open_multicast_listener(s, l, &a, err, errlen);
    l->srv = s;
    l->tcp_fd = lp_sock_listen(&a, SOCK_STREAM, 128);
    if (l->tcp_fd == -EAFNOSUPPORT && !host && s->spec.family == LP_FAMILY_ANY) {
        /* No IPv6 in this kernel: serve IPv4 only. */
        lp_sock_resolve(NULL, port, LP_FAMILY_INET, SOCK_STREAM, true, &a, err, errlen);
        l->tcp_fd = lp_sock_listen(&a, SOCK_STREAM, 128);
    }
    if (l->tcp_fd < 0) {
        snprintf(err, errlen, "unable to listen on port %u: %s", (unsigned)port, strerror(-l->tcp_fd));
        return l->tcp_fd;
    }
    l->local.len = sizeof(l->local.ss);
    getsockname(l->tcp_fd, (struct sockaddr *)&l->local.ss, &l->local.len);
    struct lp_endpoint ep;
    lp_sock_endpoint(&l->local.ss, &ep);
    l->port = ep.port;
    /* UDP on the same port number (the real one, when the user asked for port 0). */
    l->udp_fd = lp_sock_listen(&l->local, SOCK_DGRAM, 0);
    if (l->udp_fd < 0) {
        snprintf(err, errlen, "unable to bind UDP port %u: %s", (unsigned)l->port, strerror(-l->udp_fd));
        return l->udp_fd;
    }
    udp_listener_buffer(s, l->udp_fd);
    /* Which of our addresses each datagram was sent to (see srv_listener.cur_dst); best
     * effort: without it flow sockets answer from the route's source, as before. */
    int one = 1;
    setsockopt(l->udp_fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
    if (l->local.ss.ss_family == AF_INET6)
        setsockopt(l->udp_fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one));
    l->tcp_h.fd = l->tcp_fd;
    l->tcp_h.fn = on_accept;
    l->udp_h.fd = l->udp_fd;
    l->udp_h.fn = on_udp;
    if ((rc = lp_loop_add(&s->eng.loop, &l->tcp_h, EPOLLIN)) < 0 ||
        (rc = lp_loop_add(&s->eng.loop, &l->udp_h, EPOLLIN)) < 0) {
        snprintf(err, errlen, "event loop: %s", strerror(-rc));
        return rc;
    }
    return 0;
}

struct lp_server *lp_server_new(const struct lp_spec *spec, const struct lp_sink *sink, char *err, size_t errlen)
{
    struct lp_server *s = calloc(1, sizeof(*s));
    if (s)
        s->default_max_duration_s = default_max_duration();
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->spec = *spec;
    s->spec.role = LP_ROLE_SERVER;
    for (unsigned i = 0; i < LP_SRV_MAX_LISTENERS; i++)
        s->lis[i].tcp_fd = s->lis[i].udp_fd = -1;
    atomic_init(&s->stop_req, false);
    lp_timer_init(&s->idle_timer, on_idle);
    lp_timer_init(&s->permit_timer, on_permit_timeout);
    char aerr[256];
    if (lp_allow_parse(spec->allow, &s->allow, aerr, sizeof(aerr)) < 0) {
        snprintf(err, errlen, "allowed clients: %s", aerr);
        free(s);
        return NULL;
    }
    if (lp_allow_parse(spec->trust_udp, &s->trusted, aerr, sizeof(aerr)) < 0) {
        snprintf(err, errlen, "--trust-udp: %s", aerr);
        free(s);
        return NULL;
    }
    if (lp_engine_init(&s->eng, sink, spec->threads, err, errlen) < 0) {
        free(s);
        return NULL;
    }
    s->eng_ok = true;
    s->eng.debug = spec->report.debug;
    s->eng.loop.on_wake = on_wake;
    s->eng.loop.on_wake_arg = s;
    if (open_listener(s, &s->lis[0], spec->port, err, errlen) < 0) {
        lp_server_free(s);
        return NULL;
    }
    s->nlis = 1;
    if (spec->port2 && spec->port2 != s->lis[0].port) {
        /* The second port is a convenience (iperf2's 5001 next to iperf3's 5201): if it is
         * taken, say so and serve the first. */
        if (open_listener(s, &s->lis[1], spec->port2, aerr, sizeof(aerr)) < 0) {
            lp_engine_error(&s->eng, LP_ROLE_SERVER, 0, 0, false, "not serving port %u as well: %s",
                            (unsigned)spec->port2, aerr);
            if (s->lis[1].tcp_fd >= 0)
                close(s->lis[1].tcp_fd);
            if (s->lis[1].udp_fd >= 0)
                close(s->lis[1].udp_fd);
            s->lis[1].tcp_fd = s->lis[1].udp_fd = -1;
        } else {
            s->nlis = 2;
        }
    }
    return s;
}

int lp_server_run(struct lp_server *s)
{
    emit_listening(s);
    arm_idle(s);
    double pk = s->spec.iperf2.permit_key_timeout_s;
    if (s->spec.iperf2.permit_key[0] && pk > 0)
        lp_timer_arm(&s->eng.loop, &s->permit_timer, lp_now_ns() + (uint64_t)(pk * 1e9));
    lp_loop_run(&s->eng.loop);
    return s->result;
}

void lp_server_stop(struct lp_server *s)
{
    atomic_store(&s->stop_req, true);
    lp_loop_wake(&s->eng.loop);
}

void lp_server_set_auth(struct lp_server *s, struct lp_i3auth_server *a)
{
    s->auth = a;
}

void lp_server_free(struct lp_server *s)
{
    if (!s)
        return;
    /* Tests still present were cut off (one-off exit, or stop): let workers let go first. */
    for (struct srv_test *t = s->tests; t; t = t->next)
        lp_run_detach_all(&t->run);
    if (s->eng_ok)
        lp_workers_stop(&s->eng.workers);
    while (s->pendings) {
        struct pending *p = s->pendings;
        s->pendings = p->next;
        close(p->h.fd);
        free(p);
    }
    while (s->tests) {
        struct srv_test *t = s->tests;
        s->tests = t->next;
        t->destroy(t);
    }
    for (unsigned i = 0; i < LP_SRV_MAX_LISTENERS; i++) {
        if (s->lis[i].tcp_fd >= 0)
            close(s->lis[i].tcp_fd);
        if (s->lis[i].udp_fd >= 0)
            close(s->lis[i].udp_fd);
    }
    if (s->eng_ok)
        lp_loop_destroy(&s->eng.loop);
    free(s);
}

/* ceiling.c — the fastest plain-kernel sender/receiver, bench/run.py's "ceiling" row.
 *
 * No protocol, no intervals, no pacing: only the cheapest syscall path Linux offers for each
 * case, so that every tool can be reported as a fraction of it. See bench/ceiling/README.md. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <endian.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/errqueue.h> /* after <time.h>: it uses struct timespec */

enum {
    MAX_STREAMS = 128,
    START_WAIT_S = 30,    /* a receiver waits this long for its first connection/datagram */
    UDP_MAX = 65507,      /* largest IPv4 UDP payload, also the cap of one GSO message */
    GSO_SEGS = 128,       /* UDP_MAX_SEGMENTS since Linux 6.9; 64 before (udp_send steps down) */
    GSO_OLD_SEGS = 64,
    GSO_MSGS = 16,        /* GSO messages per sendmmsg() */
    PLAIN_MSGS = 64,      /* datagrams per sendmmsg()/recvmmsg() without GSO/GRO */
    GRO_BUFS = 16,        /* 64 KiB buffers per recvmmsg() with GRO */
    END_MARKS = 10,       /* end markers, 5 ms apart, so that one gets past a full queue */
    COPY_LEN = 128 << 10, /* recv() buffer for copy, send() buffer for zerocopy */
    BIG_LEN = 1 << 20,    /* MSG_TRUNC request size, plain send() size, sendfile() file size */
    ZC_REAP_AT = 32,      /* reap MSG_ZEROCOPY completions when this many are outstanding */
};
#define SEQ_END UINT64_MAX /* UDP end marker: this sequence number, then the count of datagrams sent */

struct opts {
    int send, udp, port, streams, memfd;
    const char *host, *bind, *method;
    double secs, timeout;
    long len;
};

struct stream {
    const struct opts *o;
    pthread_t tid;
    int fd, id, failed; /* id: 1-based, for messages */
    uint64_t bytes, packets, seq_pkts, seq_end, zc_sent, zc_done, zc_copied; /* seq_end: highest + 1 */
    double first, last; /* monotonic seconds of the first and last data */
};

/* Methods by [udp][send]; the first of each list is the default. */
static const char *const METHODS[2][2][3] = {
    {{"trunc", "copy", NULL}, {"plain", "sendfile", "zerocopy"}},
    {{"gro", "plain", NULL}, {"gso", "plain", NULL}},
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static __attribute__((format(printf, 1, 2))) _Noreturn void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ceiling: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see bench/ceiling/README.md)\n", stderr);
    va_end(ap);
    exit(2);
}

static void warn_errno(const struct stream *s, const char *what)
{
    fprintf(stderr, "ceiling: stream %d: %s: %s\n", s->id, what, strerror(errno));
}

static int is(const struct opts *o, const char *m) { return strcmp(o->method, m) == 0; }

static double parse_num(const char *name, const char *s, double lo, double hi, int integer)
{
    char *end = NULL;
    double v = s ? strtod(s, &end) : 0;
    if (!s || end == s || *end || !(v >= lo && v <= hi) || (integer && v != (double)(long)v))
        usage_error("bad value for %s: '%s' (%s %g..%g)", name, s ? s : "",
                    integer ? "an integer" : "a number", lo, hi);
    return v;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    const char *proto = NULL, *method = NULL, *len = NULL;
    if (argc < 2 || (strcmp(argv[1], "send") && strcmp(argv[1], "recv")))
        usage_error("the first argument must be send or recv");
    *o = (struct opts){.send = !strcmp(argv[1], "send"), .streams = 1, .memfd = -1,
                       .bind = "127.0.0.1", .timeout = 3};
    for (int i = 2; i < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1]; /* argv[argc] is NULL */
        int here = 1;                                  /* valid for this role? */
        if (!v) usage_error("missing value for %s", a);
        if (!strcmp(a, "--proto")) proto = v;
        else if (!strcmp(a, "--port")) o->port = (int)parse_num(a, v, 1, 65535, 1);
        else if (!strcmp(a, "--streams")) o->streams = (int)parse_num(a, v, 1, MAX_STREAMS, 1);
        else if (!strcmp(a, "--method")) method = v;
        else if (!strcmp(a, "--host")) o->host = v, here = o->send;
        else if (!strcmp(a, "-t")) o->secs = parse_num(a, v, 0.001, 1e6, 0), here = o->send;
        else if (!strcmp(a, "-l")) len = v, here = o->send;
        else if (!strcmp(a, "--bind")) o->bind = v, here = !o->send;
        else if (!strcmp(a, "--timeout")) o->timeout = parse_num(a, v, 0.001, 1e6, 0), here = !o->send;
        else usage_error("unknown option %s", a);
        if (!here) usage_error("%s is not an option of %s", a, argv[1]);
    }
    if (!proto || (strcmp(proto, "tcp") && strcmp(proto, "udp")))
        usage_error("--proto tcp|udp is required");
    o->udp = !strcmp(proto, "udp");
    if (!o->port || (o->send && (!o->host || !o->secs)))
        usage_error(o->send ? "send needs --host, --port and -t" : "recv needs --port");
    if (o->udp && o->port + o->streams - 1 > 65535)
        usage_error("UDP uses ports P..P+N-1: --port + --streams - 1 > 65535");
    const char *const *list = METHODS[o->udp][o->send];
    int k = 0;
    while (method && k < 3 && list[k] && strcmp(list[k], method)) k++;
    if (k == 3 || !list[k]) usage_error("--method %s is not one for %s %s", method, argv[1], proto);
    o->method = list[k];
    o->len = o->udp ? 1470 : is(o, "zerocopy") ? COPY_LEN : BIG_LEN;
    if (len) o->len = (long)parse_num("-l", len, o->udp ? 8 : 1, o->udp ? UDP_MAX : 64 << 20, 1);
}

/* A socket bound (recv: listening if listen_n) or connected (send) to host:port; -1 on error. */
static int open_socket(int udp, int send, const char *host, int port, int listen_n)
{
    char serv[8];
    struct addrinfo *ai, hints = {.ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM,
                                  .ai_flags = AI_NUMERICSERV | (send ? 0 : AI_PASSIVE)};
    snprintf(serv, sizeof serv, "%d", port);
    int fd = -1, rc = getaddrinfo(host, serv, &hints, &ai);
    if (rc) {
        fprintf(stderr, "ceiling: %s: %s\n", host, gai_strerror(rc));
        return -1;
    }
    if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0)) >= 0) {
        if (!send) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &(int){1}, sizeof(int));
        rc = send ? connect(fd, ai->ai_addr, ai->ai_addrlen) : bind(fd, ai->ai_addr, ai->ai_addrlen);
        rc = rc ? rc : listen_n ? listen(fd, listen_n) : 0;
    }
    if (fd < 0 || rc)
        fprintf(stderr, "ceiling: %s %s port %d: %s\n", fd < 0 ? "socket" : send ? "connect" : "bind",
                host, port, strerror(errno));
    if (fd >= 0 && rc) close(fd), fd = -1;
    freeaddrinfo(ai);
    return fd;
}

static void set_rcvtimeo(int fd, double s)
{
    struct timeval tv = {(time_t)s, (suseconds_t)((s - (double)(time_t)s) * 1e6)};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

/* MSG_TRUNC on TCP discards queued data without copying it (tcp_recvmsg skips the copy). Check
 * on a throwaway loopback connection that this kernel does: 4 bytes consumed, buffer untouched. */
static int tcp_trunc_works(void)
{
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    char buf[4] = {0};
    int ok = 0, a = -1, c = -1, l = open_socket(0, 0, "127.0.0.1", 0, 1);
    if (l >= 0 && !getsockname(l, (struct sockaddr *)&sa, &len) &&
        (c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0 &&
        !connect(c, (struct sockaddr *)&sa, len) && (a = accept(l, NULL, NULL)) >= 0 &&
        send(c, "abcd", 4, MSG_NOSIGNAL) == 4) {
        set_rcvtimeo(a, 1);
        ok = recv(a, buf, 4, MSG_TRUNC | MSG_WAITALL) == 4 && !buf[0] && recv(a, buf, 4, MSG_DONTWAIT) < 0;
    }
    for (int i = 0, fds[] = {a, c, l}; i < 3; i++)
        if (fds[i] >= 0) close(fds[i]);
    return ok;
}

/* TCP receiver thread: read until EOF; SO_RCVTIMEO turns a silent sender into an error. */
static void *tcp_recv(void *arg)
{
    struct stream *s = arg;
    int trunc = is(s->o, "trunc");
    size_t cap = trunc ? BIG_LEN : COPY_LEN;
    char *buf = malloc(cap); /* MSG_TRUNC never writes to it: its pages are never even mapped */
    if (!buf) warn_errno(s, "malloc"), s->failed = 1;
    set_rcvtimeo(s->fd, s->o->timeout);
    /* Wake once per 256 KiB, not once per segment: every wake-up costs the sender's core an
     * interrupt, which on a VM is dear (without it this pair ran at half of linkperf's rate,
     * whose receiver does the same, adaptively). EOF and the kernel's window logic still
     * wake it earlier. */
    int lowat = 256 << 10;
    setsockopt(s->fd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof(lowat));
    while (!s->failed) {
        ssize_t n = recv(s->fd, buf, cap, trunc ? MSG_TRUNC : 0);
        if (n == 0) break;
        if (n > 0) {
            s->bytes += (uint64_t)n, s->last = now();
            if (!s->first) s->first = s->last;
        } else if (errno != EINTR) {
            warn_errno(s, errno == EAGAIN ? "idle timeout, no EOF" : "recv"), s->failed = 1;
        }
    }
    free(buf);
    return NULL;
}

static uint64_t get_seq(const char *p)
{
    uint64_t seq;
    memcpy(&seq, p, 8);
    return be64toh(seq);
}

/* Count one received buffer: `len` bytes of datagrams of `seg` bytes (the last may be shorter),
 * of which the first `cap` bytes are in memory. Returns 1 if it held an end marker, whose count
 * of datagrams sent also makes the loss of the last datagrams before it visible. */
static int count_datagrams(struct stream *s, const char *p, size_t len, size_t seg, size_t cap)
{
    int end = 0;
    for (size_t off = 0; off < len; off += seg) {
        size_t dlen = len - off < seg ? len - off : seg;
        int has_seq = dlen >= 8 && off + 8 <= cap;
        uint64_t seq = has_seq ? get_seq(p + off) : 0, top;
        if (has_seq && seq == SEQ_END) {
            end = 1;
            top = dlen >= 16 && off + 16 <= cap ? get_seq(p + off + 8) : 0;
        } else {
            s->packets++, s->bytes += dlen, s->seq_pkts += (uint64_t)has_seq;
            top = has_seq ? seq + 1 : 0;
        }
        s->seq_end = top > s->seq_end ? top : s->seq_end;
    }
    return end;
}

/* The segment size of a GRO-coalesced buffer, or 0 when it holds a single datagram. */
static size_t gro_size(struct msghdr *m)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c))
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
            int v;
            memcpy(&v, CMSG_DATA(c), sizeof v);
            return v > 0 ? (size_t)v : 0;
        }
    return 0;
}

/* UDP receiver thread: recvmmsg() until an end marker, or idleness once data came. */
static void *udp_recv(void *arg)
{
    struct stream *s = arg;
    int gro = is(s->o, "gro"), nbuf = gro ? GRO_BUFS : PLAIN_MSGS, end = 0;
    /* gro: 64 KiB holds any coalesced buffer (one UDP length field's worth); plain: MSG_TRUNC
     * returns the full length while only the sequence number (and the marker's count) is copied */
    size_t cap = gro ? 65536 : 16;
    char *buf = malloc((size_t)nbuf * cap);
    union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl[GRO_BUFS];
    struct mmsghdr msgs[PLAIN_MSGS];
    struct iovec iov[PLAIN_MSGS];
    double t0 = now();
    if (!buf) warn_errno(s, "malloc"), s->failed = 1;
    set_rcvtimeo(s->fd, s->o->timeout);
    while (buf && !end) {
        for (int i = 0; i < nbuf; i++) { /* the kernel rewrites msg_controllen: reset all */
            iov[i] = (struct iovec){buf + (size_t)i * cap, cap};
            msgs[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
            if (gro) msgs[i].msg_hdr.msg_control = ctl[i].b, msgs[i].msg_hdr.msg_controllen = sizeof ctl[i].b;
        }
        int n = recvmmsg(s->fd, msgs, (unsigned)nbuf, MSG_WAITFORONE | (gro ? 0 : MSG_TRUNC), NULL);
        if (n < 0 && (errno == EINTR || (errno == EAGAIN && !s->first && now() - t0 < START_WAIT_S)))
            continue;
        if (n < 0 && errno == EAGAIN) fprintf(stderr, "ceiling: stream %d: idle, no end marker\n", s->id);
        else if (n < 0) warn_errno(s, "recvmmsg"), s->failed = 1;
        if (n < 0) break;
        uint64_t before = s->packets;
        for (int i = 0; i < n; i++) {
            size_t len = msgs[i].msg_len, seg = gro ? gro_size(&msgs[i].msg_hdr) : 0;
            end |= count_datagrams(s, buf + (size_t)i * cap, len, seg ? seg : len ? len : 1, cap);
        }
        if (s->packets != before) s->last = now(), s->first = s->first ? s->first : s->last;
    }
    free(buf);
    return NULL;
}

/* Reap MSG_ZEROCOPY completions from the error queue; with wait, first wait up to 100 ms for
 * one (after ENOBUFS: the socket's optmem stays full until completions are read). */
static int zc_reap(struct stream *s, int wait)
{
    for (;;) {
        union { char b[128]; struct cmsghdr align; } ctl;
        struct msghdr m = {.msg_control = ctl.b, .msg_controllen = sizeof ctl.b};
        struct pollfd p = {.fd = s->fd}; /* POLLERR: the error queue is not empty */
        if (recvmsg(s->fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
            if (errno != EAGAIN && errno != EINTR) return -1;
            if (errno == EAGAIN && !wait) return 0;
            if (wait && poll(&p, 1, 100) < 0 && errno != EINTR) return -1;
            wait = 0;
            continue;
        }
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
            struct sock_extended_err e;
            if (c->cmsg_len < CMSG_LEN(sizeof e)) continue;
            memcpy(&e, CMSG_DATA(c), sizeof e);
            if (e.ee_origin != SO_EE_ORIGIN_ZEROCOPY) continue;
            uint64_t k = (uint32_t)(e.ee_data - e.ee_info) + 1ull; /* ids lo..hi, 32-bit */
            s->zc_done += k;
            if (e.ee_code & SO_EE_CODE_ZEROCOPY_COPIED) s->zc_copied += k;
        }
        wait = 0;
    }
}

/* TCP sender thread: sendfile(), send(MSG_ZEROCOPY) or send() for -t seconds, then EOF. */
static void *tcp_send(void *arg)
{
    struct stream *s = arg;
    int sf = is(s->o, "sendfile"), zc = is(s->o, "zerocopy");
    size_t len = (size_t)s->o->len;
    char *buf = sf ? NULL : malloc(len);
    off_t off = 0;
    if (!sf && !buf) warn_errno(s, "malloc"), s->failed = 1;
    if (buf) memset(buf, 0xa5, len);
    double end = (s->first = now()) + s->o->secs;
    while (!s->failed && now() < end) {
        ssize_t n = sf ? sendfile(s->fd, s->o->memfd, &off, len - (size_t)off)
                       : send(s->fd, buf, len, MSG_NOSIGNAL | (zc ? MSG_ZEROCOPY : 0));
        if (sf && off >= (off_t)len) off = 0;
        if (n > 0) s->bytes += (uint64_t)n, s->zc_sent += (uint64_t)zc;
        if (n > 0 && zc && s->zc_sent - s->zc_done >= ZC_REAP_AT) n = zc_reap(s, 0) ? -1 : n;
        if (n < 0 && zc && errno == ENOBUFS) n = zc_reap(s, 1);
        if (n < 0 && errno != EINTR) warn_errno(s, "send"), s->failed = 1;
    }
    s->last = now();
    for (double t = now(); zc && s->zc_done < s->zc_sent && now() - t < 1;) zc_reap(s, 1);
    if (zc) /* on loopback the kernel copies every one of them on delivery */
        fprintf(stderr, "ceiling: stream %d: %llu zerocopy sends, %llu completed, %llu copied\n", s->id,
                (unsigned long long)s->zc_sent, (unsigned long long)s->zc_done, (unsigned long long)s->zc_copied);
    shutdown(s->fd, SHUT_WR); /* the receiver ends on EOF after the last byte */
    free(buf);
    return NULL;
}

static void put_seq(char *p, uint64_t seq)
{
    seq = htobe64(seq);
    memcpy(p, &seq, 8);
}

/* UDP sender thread: sendmmsg() of GSO messages or of datagrams for -t seconds, then markers. */
static void *udp_send(void *arg)
{
    struct stream *s = arg;
    int gso = is(s->o, "gso"), nmsg = gso ? GSO_MSGS : PLAIN_MSGS;
    size_t len = (size_t)s->o->len, segs = gso ? UDP_MAX / len : 1;
    segs = segs > GSO_SEGS ? GSO_SEGS : segs;
    size_t msz = len * segs; /* one GSO message, or one datagram */
    char *buf = malloc((size_t)nmsg * msz), mark[16];
    struct mmsghdr msgs[PLAIN_MSGS];
    struct iovec iov[PLAIN_MSGS];
    struct timespec gap = {0, 5000000};
    if (!buf) {
        warn_errno(s, "malloc"), s->failed = 1;
        return NULL;
    }
    memset(buf, 0xa5, (size_t)nmsg * msz);
    for (int i = 0; i < nmsg; i++) {
        iov[i] = (struct iovec){buf + (size_t)i * msz, msz};
        msgs[i].msg_hdr = (struct msghdr){.msg_iov = &iov[i], .msg_iovlen = 1};
    }
    double end = (s->first = now()) + s->o->secs;
    while (now() < end) {
        for (size_t k = 0; k < (size_t)nmsg * segs; k++) put_seq(buf + k * len, s->packets + k);
        int n = sendmmsg(s->fd, msgs, (unsigned)nmsg, 0);
        if (n < 0 && errno == EINVAL && gso && segs > GSO_OLD_SEGS) { /* a kernel before 6.9 */
            segs = GSO_OLD_SEGS, msz = len * segs;
            for (int i = 0; i < nmsg; i++) iov[i] = (struct iovec){buf + (size_t)i * msz, msz};
            continue;
        }
        if (n > 0) s->packets += (uint64_t)n * segs, s->bytes += (uint64_t)n * msz;
        /* ECONNREFUSED: an ICMP from a receiver not (or no longer) bound; it is not ours to stop */
        if (n < 0 && errno != EINTR && errno != ECONNREFUSED && errno != ENOBUFS) {
            warn_errno(s, "sendmmsg"), s->failed = 1;
            break;
        }
    }
    s->last = now();
    if (gso) setsockopt(s->fd, SOL_UDP, UDP_SEGMENT, &(int){0}, sizeof(int));
    put_seq(mark, SEQ_END), put_seq(mark + 8, s->packets);
    for (int i = 0; i < END_MARKS; i++) send(s->fd, mark, sizeof mark, 0), nanosleep(&gap, NULL);
    free(buf);
    return NULL;
}

/* A memfd of -l pattern bytes: sendfile() sends from its page cache, nothing from user space. */
static int make_memfd(long len)
{
    int fd = memfd_create("ceiling", MFD_CLOEXEC);
    char *p = malloc((size_t)len);
    ssize_t n = 1, done = 0;
    for (long i = 0; p && i < len; i++) p[i] = (char)(i * 31 + 7);
    while (fd >= 0 && p && done < len && (n = pwrite(fd, p + done, (size_t)(len - done), done)) > 0)
        done += n;
    free(p);
    if (fd >= 0 && done == len) return fd;
    perror("ceiling: memfd");
    if (fd >= 0) close(fd);
    return -1;
}

/* Per-socket options. A method's own option (UDP_SEGMENT, UDP_GRO, SO_ZEROCOPY) is tried on the
 * first socket before any thread runs: if this kernel refuses it, every stream uses plain. */
static int tune(struct opts *o, int fd, int first)
{
    static const char *const method[] = {"gso", "gro", "zerocopy"};
    int level[] = {SOL_UDP, SOL_UDP, SOL_SOCKET}, name[] = {UDP_SEGMENT, UDP_GRO, SO_ZEROCOPY};
    int val[] = {(int)o->len, 1, 1}, sz = 32 << 20; /* a receiver that never drops a burst */
    if (o->udp && setsockopt(fd, SOL_SOCKET, o->send ? SO_SNDBUFFORCE : SO_RCVBUFFORCE, &sz, sizeof sz))
        setsockopt(fd, SOL_SOCKET, o->send ? SO_SNDBUF : SO_RCVBUF, &sz, sizeof sz); /* not root */
    for (int i = 0; i < 3; i++) {
        if (!is(o, method[i]) || !setsockopt(fd, level[i], name[i], &val[i], sizeof(int))) continue;
        fprintf(stderr, "ceiling: %s: %s%s\n", method[i], strerror(errno), first ? ", using plain" : "");
        if (!first) return -1;
        o->method = "plain";
    }
    return 0;
}

static int start(struct stream *s, struct opts *o, int fd, int i, void *(*fn)(void *))
{
    *s = (struct stream){.o = o, .fd = fd, .id = i + 1};
    if (!pthread_create(&s->tid, NULL, fn, s)) return 0;
    fprintf(stderr, "ceiling: pthread_create failed\n");
    return -1;
}

/* TCP receiver: accept each stream as it connects and start its thread at once. */
static int accept_streams(struct opts *o, struct stream *st)
{
    int n = 0, fd, lfd = open_socket(0, 0, o->bind, o->port, o->streams);
    while (lfd >= 0 && n < o->streams) {
        struct pollfd p = {.fd = lfd, .events = POLLIN};
        double wait = n ? o->timeout : START_WAIT_S;
        if (poll(&p, 1, (int)(wait * 1000)) <= 0 || (fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) < 0) {
            fprintf(stderr, "ceiling: only %d of %d TCP streams connected\n", n, o->streams);
            break;
        }
        if (start(&st[n], o, fd, n, tcp_recv)) {
            close(fd);
            break;
        }
        n++;
    }
    if (lfd >= 0) close(lfd);
    return n;
}

/* Open all streams, then start one thread each; returns how many run. The UDP receiver binds
 * P+N-1 down to P, so that P, the port bench/run.py watches for, is bound last. */
static int open_streams(struct opts *o, struct stream *st)
{
    void *(*fn)(void *) = o->send ? (o->udp ? udp_send : tcp_send) : udp_recv;
    int fds[MAX_STREAMS], n = 0, ok = 1;
    if (!o->send && !o->udp) return accept_streams(o, st);
    for (int i = 0; i < o->streams; i++) fds[i] = -1;
    for (int i = o->streams - 1; ok && i >= 0; i--) /* TCP senders all connect to P */
        ok = (fds[i] = open_socket(o->udp, o->send, o->send ? o->host : o->bind,
                                   o->port + (o->udp ? i : 0), 0)) >= 0;
    for (int i = 0; ok && i < o->streams; i++) ok = !tune(o, fds[i], !i);
    while (ok && n < o->streams && !start(&st[n], o, fds[n], n, fn)) n++;
    for (int i = n; i < o->streams; i++) /* the fds not handed to a thread */
        if (fds[i] >= 0) close(fds[i]);
    return n;
}

/* Join the streams, sum them and print the one JSON line; returns the exit status. */
static int finish(const struct opts *o, struct stream *st, int n)
{
    uint64_t bytes = 0, packets = 0;
    int64_t lost = 0;
    double first = 0, last = 0;
    int bad = n < o->streams;
    for (struct stream *s = st; s < st + n; s++) {
        pthread_join(s->tid, NULL);
        close(s->fd);
        bytes += s->bytes, packets += s->packets, bad |= s->failed;
        lost += (int64_t)(s->seq_end - s->seq_pkts);
        if (s->first && (!first || s->first < first)) first = s->first;
        last = s->last > last ? s->last : last;
    }
    if (!bytes) fprintf(stderr, "ceiling: no data %s\n", o->send ? "sent" : "received"), bad = 1;
    printf("{\"role\":\"%s\",\"proto\":\"%s\",\"method\":\"%s\",\"bytes\":%llu,\"packets\":%llu,",
           o->send ? "send" : "recv", o->udp ? "udp" : "tcp", o->method, (unsigned long long)bytes,
           (unsigned long long)(o->udp ? packets : 0));
    if (!o->send) printf("\"lost\":%lld,", (long long)lost);
    printf("\"seconds\":%.6f}\n", last > first ? last - first : 0.0);
    return bad;
}

int main(int argc, char **argv)
{
    static struct stream st[MAX_STREAMS];
    struct opts o;
    parse_args(argc, argv, &o);
    signal(SIGPIPE, SIG_IGN); /* sendfile() has no MSG_NOSIGNAL: a vanished peer is an error */
    if (!o.send && !o.udp && is(&o, "trunc") && !tcp_trunc_works()) {
        fprintf(stderr, "ceiling: recv(MSG_TRUNC) does not discard TCP data here, using copy\n");
        o.method = "copy";
    }
    if (o.send && !o.udp && is(&o, "sendfile") && (o.memfd = make_memfd(o.len)) < 0) return 1;
    int rc = finish(&o, st, open_streams(&o, st));
    if (o.memfd >= 0) close(o.memfd);
    return rc;
}

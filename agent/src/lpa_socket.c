/* Back end on lwIP's BSD socket API: one agent thread polls every socket (lwip_poll, a
 * LPA_TICK_MS timeout doubling as the tick) and calls the core with the agent lock held.
 * Non-blocking sockets only; it uses the lwip_ names so it builds with LWIP_COMPAT_SOCKETS 0. */
#include <string.h>

#include "lpa_opts.h"

#if LPA_BACKEND == LPA_BACKEND_SOCKET

#include "lwip/api.h"
#include "lwip/errno.h"
#include "lwip/sockets.h"
#include "lwip/sys.h"
#include "lwip/tcp.h"
#include "lwip/tcpip.h"
#include "lwip/priv/sockets_priv.h"
#include "lpa.h"
#include "lpa_core.h" /* lpa_net.h, and the events */

#if !LWIP_SOCKET_POLL
#error "the socket back end needs LWIP_SOCKET_POLL=1 (it waits in lwip_poll)"
#endif

enum { CONN_FREE = 0, CONN_LISTEN, CONN_CONNECTING, CONN_TCP, CONN_UDP, CONN_CLOSING };

/* One slot of the fixed pool. Owns its socket until it is closed; borrows owner. A slot given
 * to lpa_net_close() becomes CLOSING: the agent thread closes the socket at the top of its next
 * loop, never while it may be inside lwip_poll() on it. gen changes whenever the slot is freed. */
struct lpa_conn {
  int fd;
  void *owner;
  uint8_t type;
  uint8_t want_out; /* the last send was short: tell the core when POLLOUT comes */
  uint8_t rx_eof;   /* FIN seen: stop asking for POLLIN */
  uint16_t gen;
};

static struct lpa_conn conns[LPA_MAX_CONNS];
static sys_mutex_t agent_lock;
/* The poll set of the agent thread, with the slot and generation each entry was built from. */
static struct pollfd pfds[LPA_MAX_CONNS];
static uint16_t pslot[LPA_MAX_CONNS], pgen[LPA_MAX_CONNS];
static uint8_t rxbuf[LPA_SOCKET_RX_BUF];
#if LPA_UDP
static uint8_t udpbuf[LPA_UDP_MAX_LEN];
#endif

/* Reads per connection and wake-up: a fast sender cannot starve the tick and other streams. */
#define READS_PER_WAKE 16

static struct lpa_conn *conn_alloc(uint8_t type, int fd, void *owner) {
  int i;
  for (i = 0; i < LPA_MAX_CONNS; i++) {
    struct lpa_conn *c = &conns[i];
    if (c->type != CONN_FREE) continue;
    c->type = type;
    c->fd = fd;
    c->owner = owner;
    c->want_out = 0;
    c->rx_eof = 0;
    return c;
  }
  return NULL;
}

/* Closes the socket now: only from the agent thread between polls, or on a socket that was
 * never in a poll set. */
static void conn_free(struct lpa_conn *c) {
  if (c->fd >= 0) lwip_close(c->fd);
  c->fd = -1;
  c->type = CONN_FREE;
  c->owner = NULL;
  c->gen++;
}

int lpa_net_conns_in_use(void) {
  int i, n = 0;
  for (i = 0; i < LPA_MAX_CONNS; i++) n += conns[i].type != CONN_FREE;
  return n;
}

void lpa_net_lock(void) { sys_mutex_lock(&agent_lock); }
void lpa_net_unlock(void) { sys_mutex_unlock(&agent_lock); }

static int set_nonblocking(int fd) {
  return lwip_fcntl(fd, F_SETFL, O_NONBLOCK);
}

static int would_block(void) {
  return errno == EWOULDBLOCK || errno == EAGAIN;
}

/* ---- addresses ---- */

union sa_any {
  struct sockaddr sa;
#if LWIP_IPV4
  struct sockaddr_in in4;
#endif
#if LWIP_IPV6
  struct sockaddr_in6 in6;
#endif
};

static socklen_t to_sockaddr(union sa_any *u, const ip_addr_t *ip, uint16_t port) {
  memset(u, 0, sizeof(*u));
#if LWIP_IPV6
  if (ip != NULL && IP_IS_V6(ip)) {
    u->in6.sin6_len = sizeof(u->in6);
    u->in6.sin6_family = AF_INET6;
    u->in6.sin6_port = lwip_htons(port);
    inet6_addr_from_ip6addr(&u->in6.sin6_addr, ip_2_ip6(ip));
    return sizeof(u->in6);
  }
#endif
#if LWIP_IPV4
  u->in4.sin_len = sizeof(u->in4);
  u->in4.sin_family = AF_INET;
  u->in4.sin_port = lwip_htons(port);
  if (ip != NULL) inet_addr_from_ip4addr(&u->in4.sin_addr, ip_2_ip4(ip));
  return sizeof(u->in4);
#else
  return 0;
#endif
}

static void from_sockaddr(const union sa_any *u, ip_addr_t *ip, uint16_t *port) {
  ip_addr_set_zero(ip);
  *port = 0;
#if LWIP_IPV4
  if (u->sa.sa_family == AF_INET) {
    inet_addr_to_ip4addr(ip_2_ip4(ip), &u->in4.sin_addr);
    IP_SET_TYPE(ip, IPADDR_TYPE_V4);
    *port = lwip_ntohs(u->in4.sin_port);
  }
#endif
#if LWIP_IPV6
  if (u->sa.sa_family == AF_INET6) {
    inet6_addr_to_ip6addr(ip_2_ip6(ip), &u->in6.sin6_addr);
    IP_SET_TYPE(ip, IPADDR_TYPE_V6);
    *port = lwip_ntohs(u->in6.sin6_port);
  }
#endif
}

static int family_of(const ip_addr_t *ip) {
#if LWIP_IPV6
  if (ip != NULL && IP_IS_V6(ip)) return AF_INET6;
#endif
  (void)ip;
#if LWIP_IPV4
  return AF_INET;
#else
  return AF_INET6;
#endif
}

/* A socket bound to port on every address (SO_REUSEADDR: a restarted server must not wait
 * for old connections' TIME_WAIT), non-blocking. -1 on failure. */
static int open_bound(int type, const ip_addr_t *family_ip, uint16_t port) {
  union sa_any u;
  socklen_t n;
  int one = 1;
  int fd = lwip_socket(family_of(family_ip), type, 0);
  if (fd < 0) return -1;
  lwip_setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  n = to_sockaddr(&u, NULL, port);
#if LWIP_IPV6
  if (family_ip != NULL && IP_IS_V6(family_ip)) n = to_sockaddr(&u, IP6_ADDR_ANY, port);
#endif
  if ((port != 0 && lwip_bind(fd, &u.sa, n) != 0) || set_nonblocking(fd) != 0) {
    lwip_close(fd);
    return -1;
  }
  return fd;
}

/* ---- TCP ---- */

struct lpa_conn *lpa_net_tcp_listen(uint16_t port, void *owner) {
  struct lpa_conn *c;
  int fd = open_bound(SOCK_STREAM, NULL, port);
  if (fd < 0) return NULL;
  if (lwip_listen(fd, 4) != 0 || (c = conn_alloc(CONN_LISTEN, fd, owner)) == NULL) {
    lwip_close(fd);
    return NULL;
  }
  return c;
}

struct lpa_conn *lpa_net_tcp_connect(const ip_addr_t *ip, uint16_t port, void *owner) {
  union sa_any u;
  socklen_t n = to_sockaddr(&u, ip, port);
  struct lpa_conn *c;
  int fd = open_bound(SOCK_STREAM, ip, 0);
  if (fd < 0) return NULL;
  if ((lwip_connect(fd, &u.sa, n) != 0 && errno != EINPROGRESS) ||
      (c = conn_alloc(CONN_CONNECTING, fd, owner)) == NULL) {
    lwip_close(fd);
    return NULL;
  }
  return c;
}

long lpa_net_tcp_send(struct lpa_conn *c, const void *data, size_t len, unsigned flags) {
  int f = MSG_DONTWAIT | ((flags & LPA_SEND_MORE) ? MSG_MORE : 0);
  ssize_t n;
  if (c == NULL || c->type != CONN_TCP) return -1;
  if (len == 0) return 0;
  if (flags & LPA_SEND_NOW) {
    int one = 1;
    lwip_setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  if (flags & LPA_SEND_PATTERN) { /* one gathered call, not one per LPA_PATTERN_LEN */
    struct iovec v[LPA_PATTERN_SENDS];
    struct msghdr m;
    size_t left = len;
    memset(&m, 0, sizeof(m));
    while (left != 0 && m.msg_iovlen < LPA_PATTERN_SENDS) {
      v[m.msg_iovlen].iov_base = (void *)(uintptr_t)data;
      v[m.msg_iovlen].iov_len = left < LPA_PATTERN_LEN ? left : LPA_PATTERN_LEN;
      left -= v[m.msg_iovlen++].iov_len;
    }
    m.msg_iov = v;
    len -= left;
    n = lwip_sendmsg(c->fd, &m, f);
  } else {
    n = lwip_send(c->fd, data, len, f); /* sockets always copy: LPA_SEND_STATIC cannot help */
  }
  if (n < 0) {
    if (!would_block()) return -1;
    n = 0;
  }
  if ((size_t)n < len) c->want_out = 1;
  return (long)n;
}

/* lwIP has no socket call for the send queue; the stack's own view, read under the core lock,
 * is exact (lwip_send puts everything straight into the pcb). */
size_t lpa_net_tcp_unacked(struct lpa_conn *c) {
  size_t n = 0;
#if LWIP_TCPIP_CORE_LOCKING
  struct lwip_sock *sock;
  if (c == NULL || c->type != CONN_TCP) return 0;
  LOCK_TCPIP_CORE();
  sock = lwip_socket_dbg_get_socket(c->fd);
  if (sock != NULL && sock->conn != NULL && sock->conn->pcb.tcp != NULL)
    n = (size_t)(TCP_SND_BUF - tcp_sndbuf(sock->conn->pcb.tcp));
  UNLOCK_TCPIP_CORE();
#else
  (void)c; /* unknown: 0, and the close that follows is graceful anyway */
#endif
  return n;
}

void lpa_net_tcp_shutdown_tx(struct lpa_conn *c) {
  if (c != NULL && c->type == CONN_TCP) lwip_shutdown(c->fd, SHUT_WR);
}

/* ---- UDP ---- */

struct lpa_conn *lpa_net_udp_open(uint16_t local_port, const ip_addr_t *remote, uint16_t port,
                                  void *owner) {
#if LPA_UDP
  struct lpa_conn *c;
  int fd = open_bound(SOCK_DGRAM, remote, local_port);
  if (fd < 0) return NULL;
  if (remote != NULL) {
    union sa_any u;
    socklen_t n = to_sockaddr(&u, remote, port);
    if (lwip_connect(fd, &u.sa, n) != 0) {
      lwip_close(fd);
      return NULL;
    }
  }
  c = conn_alloc(CONN_UDP, fd, owner);
  if (c == NULL) lwip_close(fd);
  return c;
#else
  (void)local_port;
  (void)remote;
  (void)port;
  (void)owner;
  return NULL;
#endif
}

/* The datagram is gathered from the head and the pattern (lwip_sendmsg chains them), so no
 * send buffer of LPA_UDP_MAX_LEN bytes is needed. */
int lpa_net_udp_send(struct lpa_conn *c, const void *head, size_t head_len, size_t len,
                     const ip_addr_t *to, uint16_t to_port) {
#if LPA_UDP
  struct iovec iov[2 + LPA_UDP_MAX_LEN / LPA_PATTERN_LEN];
  struct msghdr msg;
  union sa_any u;
  size_t off;
  int n = 0;
  if (c == NULL || c->type != CONN_UDP || len > LPA_UDP_MAX_LEN) return -1;
  if (head_len > len) head_len = len;
  memset(&msg, 0, sizeof(msg));
  if (head_len != 0) {
    iov[n].iov_base = (void *)(uintptr_t)head;
    iov[n++].iov_len = head_len;
  }
  for (off = head_len; off < len; n++) {
    size_t k = len - off < LPA_PATTERN_LEN ? len - off : LPA_PATTERN_LEN;
    iov[n].iov_base = (void *)(uintptr_t)lpa_pattern;
    iov[n].iov_len = k;
    off += k;
  }
  msg.msg_iov = iov;
  msg.msg_iovlen = n;
  if (to != NULL) {
    msg.msg_namelen = to_sockaddr(&u, to, to_port);
    msg.msg_name = &u.sa;
  }
  return lwip_sendmsg(c->fd, &msg, MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
#else
  (void)c;
  (void)head;
  (void)head_len;
  (void)len;
  (void)to;
  (void)to_port;
  return -1;
#endif
}

/* ---- both ---- */

void lpa_net_set_owner(struct lpa_conn *c, void *owner) {
  if (c != NULL) c->owner = owner;
}

void lpa_net_peer(struct lpa_conn *c, ip_addr_t *ip, uint16_t *port) {
  union sa_any u;
  socklen_t n = sizeof(u);
  ip_addr_set_zero(ip);
  *port = 0;
  if (c == NULL || c->fd < 0) return;
  if (lwip_getpeername(c->fd, &u.sa, &n) == 0) from_sockaddr(&u, ip, port);
}

void lpa_net_close(struct lpa_conn *c) {
  if (c == NULL || c->type == CONN_FREE || c->type == CONN_CLOSING) return;
  c->type = CONN_CLOSING;
  c->owner = NULL;
}

/* ---- the agent thread ---- */

/* The socket broke: free the slot first (the core may open a new one from the event). */
static void fail(struct lpa_conn *c) {
  void *owner = c->owner;
  uint8_t type = c->type;
  conn_free(c);
  if (type == CONN_CONNECTING) lpa_core_on_connected(owner, c, 0);
  else lpa_core_on_error(owner, c);
}

static void do_accept(struct lpa_conn *l) {
  int k;
  for (k = 0; k < READS_PER_WAKE && l->type == CONN_LISTEN; k++) {
    struct lpa_conn *c;
    int fd = lwip_accept(l->fd, NULL, NULL);
    if (fd < 0) {
      /* netconn_accept()'s ERR_ABRT: lwIP had no pcb or netconn for a connection */
      if (errno == ECONNABORTED) lpa_core_on_refused(l->owner);
      return;
    }
    if (set_nonblocking(fd) != 0 || (c = conn_alloc(CONN_TCP, fd, l->owner)) == NULL) {
      lwip_close(fd);
      continue;
    }
    lpa_core_on_accept(l->owner, c);
  }
}

static void do_connected(struct lpa_conn *c) {
  int err = 0;
  socklen_t n = sizeof(err);
  if (lwip_getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &n) != 0 || err != 0) {
    fail(c);
    return;
  }
  c->type = CONN_TCP;
  lpa_core_on_connected(c->owner, c, 1);
}

static void do_tcp_recv(struct lpa_conn *c) {
  uint16_t gen = c->gen;
  int k;
  for (k = 0; k < READS_PER_WAKE && c->gen == gen && c->type == CONN_TCP && !c->rx_eof; k++) {
    ssize_t n = lwip_recv(c->fd, rxbuf, sizeof(rxbuf), MSG_DONTWAIT);
    if (n > 0) {
      lpa_core_on_recv(c->owner, c, rxbuf, (size_t)n);
    } else if (n == 0) {
      c->rx_eof = 1;
      lpa_core_on_recv(c->owner, c, NULL, 0);
    } else {
      if (!would_block()) fail(c);
      return;
    }
  }
}

#if LPA_UDP
static void do_udp_recv(struct lpa_conn *c) {
  uint16_t gen = c->gen;
  int k;
  for (k = 0; k < READS_PER_WAKE && c->gen == gen && c->type == CONN_UDP; k++) {
    union sa_any u;
    socklen_t ulen = sizeof(u);
    ip_addr_t from;
    uint16_t port;
    ssize_t n = lwip_recvfrom(c->fd, udpbuf, sizeof(udpbuf), MSG_DONTWAIT, &u.sa, &ulen);
    if (n < 0) return; /* nothing more (or an ICMP error: UDP just goes on) */
    from_sockaddr(&u, &from, &port);
    /* Arrival in microseconds modulo 2^32, as lpa_core_on_udp wants (and the raw back end). */
    lpa_core_on_udp(c->owner, c, udpbuf, (size_t)n, &from, port, (uint32_t)LPA_NOW_US());
  }
}
#endif

static void dispatch(struct lpa_conn *c, short rev) {
  switch (c->type) {
    case CONN_LISTEN:
      if (rev & POLLIN) do_accept(c);
      break;
    case CONN_CONNECTING:
      if (rev & (POLLOUT | POLLERR | POLLHUP)) do_connected(c);
      break;
    case CONN_TCP:
      if (rev & (POLLIN | POLLERR | POLLHUP)) {
        uint16_t gen = c->gen;
        if (!c->rx_eof) {
          do_tcp_recv(c);
        } else if (rev & POLLERR) {
          fail(c); /* reset after the FIN */
          return;
        }
        if (c->gen != gen) return;
      }
      if ((rev & POLLOUT) && c->type == CONN_TCP && c->want_out) {
        c->want_out = 0;
        lpa_core_on_sendable(c->owner, c);
      }
      break;
#if LPA_UDP
    case CONN_UDP:
      if (rev & POLLIN) do_udp_recv(c);
      break;
#endif
    default:
      break;
  }
}

/* Closes what lpa_net_close() handed back and lists what to wait for. Agent lock held. */
static nfds_t build_poll_set(void) {
  nfds_t n = 0;
  int i;
  for (i = 0; i < LPA_MAX_CONNS; i++) {
    struct lpa_conn *c = &conns[i];
    short ev = 0;
    if (c->type == CONN_CLOSING) conn_free(c);
    if (c->type == CONN_FREE) continue;
    if (c->type == CONN_CONNECTING) ev = POLLOUT;
    else if (c->type == CONN_TCP) ev = (short)((c->rx_eof ? 0 : POLLIN) | (c->want_out ? POLLOUT : 0));
    else ev = POLLIN;
    pfds[n].fd = c->fd;
    pfds[n].events = ev;
    pfds[n].revents = 0;
    pslot[n] = (uint16_t)i;
    pgen[n] = c->gen;
    n++;
  }
  return n;
}

static void agent_thread(void *arg) {
  (void)arg;
  for (;;) {
    nfds_t i, n;
    lpa_net_lock();
    n = build_poll_set();
    lpa_net_unlock();
    if (n != 0) lwip_poll(pfds, n, LPA_TICK_MS);
    else sys_msleep(LPA_TICK_MS);
    lpa_net_lock();
    for (i = 0; i < n; i++) {
      struct lpa_conn *c = &conns[pslot[i]];
      if (pfds[i].revents != 0 && c->gen == pgen[i] && c->fd == pfds[i].fd)
        dispatch(c, pfds[i].revents);
    }
    lpa_core_tick();
    lpa_net_unlock();
  }
}

int lpa_net_init(void) {
  int i;
  for (i = 0; i < LPA_MAX_CONNS; i++) conns[i].fd = -1;
  if (sys_mutex_new(&agent_lock) != ERR_OK) return LPA_ENET;
  sys_thread_new("lpa", agent_thread, NULL, LPA_THREAD_STACK, LPA_THREAD_PRIO);
  return 0;
}

#else
typedef int lpa_socket_not_selected; /* ISO C wants something in every translation unit */
#endif /* LPA_BACKEND == LPA_BACKEND_SOCKET */

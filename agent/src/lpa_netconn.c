/* Back end on lwIP's netconn API: non-blocking netconns whose event callback records what
 * happened per connection and wakes the agent thread (a semaphore with a LPA_TICK_MS timeout
 * that doubles as the tick). No blocking call is made, connect included. */
#include <string.h>

#include "lpa_opts.h"

#if LPA_BACKEND == LPA_BACKEND_NETCONN

#include "lwip/api.h"
#include "lwip/pbuf.h"
#include "lwip/sys.h"
#include "lwip/tcp.h"
#include "lwip/tcpip.h"
#include "lpa.h"
#include "lpa_core.h" /* lpa_net.h, and the events */

enum { CONN_FREE = 0, CONN_LISTEN, CONN_CONNECTING, CONN_TCP, CONN_UDP };
#define EV_RCV 1u
#define EV_SEND 2u
#define EV_ERR 4u

/* One slot of the fixed pool. Owns its netconn until it is deleted; borrows owner. events is
 * written by the netconn callback (any thread) under SYS_ARCH_PROTECT and taken by the agent
 * thread; gen changes whenever the slot is freed. */
struct lpa_conn {
  struct netconn *nc;
  void *owner;
  uint8_t type;
  uint8_t events;
  uint8_t want_out; /* the last write was short: tell the core when there is room */
  uint8_t rx_eof;   /* FIN seen: nothing more to receive */
  uint16_t gen;
};

static struct lpa_conn conns[LPA_MAX_CONNS];
static sys_mutex_t agent_lock;
static sys_sem_t wake;
static uint8_t wake_pending; /* under SYS_ARCH_PROTECT: one signal per wait is enough */

#define READS_PER_WAKE 16
/* A full sweep of every connection every SWEEP_ROUNDS wake-ups: cheap insurance against an event that came
 * before its netconn was in the pool (an accepted connection's first data is also swept at
 * accept time). */
#define SWEEP_ROUNDS 100

/* Runs in whichever thread made lwIP emit the event (usually the tcpip thread). */
static void on_event(struct netconn *nc, enum netconn_evt evt, u16_t len) {
  uint8_t bit, signal;
  int i;
  SYS_ARCH_DECL_PROTECT(lev);
  (void)len;
  if (evt == NETCONN_EVT_RCVPLUS) bit = EV_RCV;
  else if (evt == NETCONN_EVT_SENDPLUS) bit = EV_SEND;
  else if (evt == NETCONN_EVT_ERROR) bit = EV_ERR;
  else return;
  SYS_ARCH_PROTECT(lev);
  for (i = 0; i < LPA_MAX_CONNS; i++) {
    if (conns[i].nc == nc && nc != NULL) {
      conns[i].events |= bit;
      break;
    }
  }
  signal = !wake_pending;
  wake_pending = 1;
  SYS_ARCH_UNPROTECT(lev);
  if (signal) sys_sem_signal(&wake);
}

static uint8_t take_events(struct lpa_conn *c) {
  uint8_t ev;
  SYS_ARCH_DECL_PROTECT(lev);
  SYS_ARCH_PROTECT(lev);
  ev = c->events;
  c->events = 0;
  SYS_ARCH_UNPROTECT(lev);
  return ev;
}

/* The agent thread's own "look again" (a read cut short, a connect that finished at once). */
static void add_event(struct lpa_conn *c, uint8_t bit) {
  SYS_ARCH_DECL_PROTECT(lev);
  SYS_ARCH_PROTECT(lev);
  c->events |= bit;
  SYS_ARCH_UNPROTECT(lev);
}

static struct lpa_conn *conn_alloc(uint8_t type, struct netconn *nc, void *owner) {
  int i;
  SYS_ARCH_DECL_PROTECT(lev);
  for (i = 0; i < LPA_MAX_CONNS; i++) {
    struct lpa_conn *c = &conns[i];
    if (c->type != CONN_FREE) continue;
    c->type = type;
    c->owner = owner;
    c->want_out = 0;
    c->rx_eof = 0;
    SYS_ARCH_PROTECT(lev);
    c->nc = nc;
    c->events = 0;
    SYS_ARCH_UNPROTECT(lev);
    return c;
  }
  return NULL;
}

static void conn_free(struct lpa_conn *c) {
  struct netconn *nc = c->nc;
  SYS_ARCH_DECL_PROTECT(lev);
  SYS_ARCH_PROTECT(lev);
  c->nc = NULL; /* before the delete: a later netconn at the same address is not this one */
  c->events = 0;
  SYS_ARCH_UNPROTECT(lev);
  if (nc != NULL) netconn_delete(nc);
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

static enum netconn_type conn_type(enum netconn_type t, const ip_addr_t *ip) {
#if LWIP_IPV6
  if (ip != NULL && IP_IS_V6(ip)) return (enum netconn_type)(t | NETCONN_TYPE_IPV6);
#endif
  (void)ip;
  return t;
}

/* A restarted server must not wait for old connections' TIME_WAIT. netconn has no call for
 * it; the pcb may only be touched under the core lock. */
static void reuse_addr(struct netconn *nc) {
#if LWIP_TCPIP_CORE_LOCKING && SO_REUSE
  LOCK_TCPIP_CORE();
  if (nc->pcb.ip != NULL) ip_set_option(nc->pcb.ip, SOF_REUSEADDR);
  UNLOCK_TCPIP_CORE();
#else
  (void)nc;
#endif
}

/* ---- TCP ---- */

struct lpa_conn *lpa_net_tcp_listen(uint16_t port, void *owner) {
  struct lpa_conn *c;
  struct netconn *nc = netconn_new_with_callback(NETCONN_TCP, on_event);
  if (nc == NULL) return NULL;
  reuse_addr(nc);
  if (netconn_bind(nc, IP_ANY_TYPE, port) != ERR_OK || netconn_listen(nc) != ERR_OK ||
      (c = conn_alloc(CONN_LISTEN, nc, owner)) == NULL) {
    netconn_delete(nc);
    return NULL;
  }
  netconn_set_nonblocking(nc, 1);
  return c;
}

/* lwIP 2.1 connects a non-blocking netconn in the background (ERR_INPROGRESS); SENDPLUS says
 * it is up, ERROR that it failed. */
struct lpa_conn *lpa_net_tcp_connect(const ip_addr_t *ip, uint16_t port, void *owner) {
  struct lpa_conn *c;
  err_t err;
  struct netconn *nc = netconn_new_with_callback(conn_type(NETCONN_TCP, ip), on_event);
  if (nc == NULL) return NULL;
  c = conn_alloc(CONN_CONNECTING, nc, owner);
  if (c == NULL) {
    netconn_delete(nc);
    return NULL;
  }
  netconn_set_nonblocking(nc, 1);
  err = netconn_connect(nc, ip, port);
  if (err == ERR_OK) { /* done at once: report it from the loop like any other connect */
    add_event(c, EV_SEND);
  } else if (err != ERR_INPROGRESS) {
    conn_free(c);
    return NULL;
  }
  return c;
}

/* LPA_SEND_NOW: netconn has no TCP_NODELAY call; the pcb may only be touched under the core
 * lock (without it Nagle stays, and a control message may wait for a delayed ACK). */
static void nodelay(struct netconn *nc) {
#if LWIP_TCPIP_CORE_LOCKING
  LOCK_TCPIP_CORE();
  if (nc->pcb.tcp != NULL) tcp_nagle_disable(nc->pcb.tcp);
  UNLOCK_TCPIP_CORE();
#else
  (void)nc;
#endif
}

long lpa_net_tcp_send(struct lpa_conn *c, const void *data, size_t len, unsigned flags) {
  u8_t f = NETCONN_DONTBLOCK;
  size_t written = 0;
  err_t err;
  if (c == NULL || c->type != CONN_TCP) return -1;
  if (len == 0) return 0;
  if (flags & LPA_SEND_NOW) nodelay(c->nc);
  /* A reference costs a pbuf of TCP_SND_QUEUELEN: references to a pattern shorter than a
   * segment would fill the queue with a fraction of the send buffer in flight (a 64-segment
   * buffer moved 57 of 96 Mbit/s). Copies are packed into full segments. */
  if ((flags & LPA_SEND_PATTERN) && LPA_PATTERN_LEN < TCP_MSS) flags &= ~LPA_SEND_STATIC;
  f |= (flags & LPA_SEND_STATIC) ? NETCONN_NOCOPY : NETCONN_COPY;
  if (flags & LPA_SEND_MORE) f |= NETCONN_MORE;
  if (flags & LPA_SEND_PATTERN) {
    struct netvector v[LPA_PATTERN_SENDS];
    u16_t n = 0;
    size_t left = len;
    while (left != 0 && n < LPA_PATTERN_SENDS) {
      v[n].ptr = data;
      v[n].len = left < LPA_PATTERN_LEN ? left : LPA_PATTERN_LEN;
      left -= v[n++].len;
    }
    err = netconn_write_vectors_partly(c->nc, v, n, f, &written);
    len -= left;
  } else {
    err = netconn_write_partly(c->nc, data, len, f, &written);
  }
  if (err == ERR_WOULDBLOCK || err == ERR_MEM) written = 0;
  else if (err != ERR_OK) return -1;
  if (written < len) c->want_out = 1;
  return (long)written;
}

/* Read from the pcb under the core lock (netconn_write puts everything straight into it). */
size_t lpa_net_tcp_unacked(struct lpa_conn *c) {
  size_t n = 0;
#if LWIP_TCPIP_CORE_LOCKING
  if (c == NULL || c->type != CONN_TCP) return 0;
  LOCK_TCPIP_CORE();
  if (c->nc->pcb.tcp != NULL) n = (size_t)(TCP_SND_BUF - tcp_sndbuf(c->nc->pcb.tcp));
  UNLOCK_TCPIP_CORE();
#else
  (void)c; /* unknown: 0, and the close that follows is graceful anyway */
#endif
  return n;
}

void lpa_net_tcp_shutdown_tx(struct lpa_conn *c) {
  if (c != NULL && c->type == CONN_TCP) netconn_shutdown(c->nc, 0, 1);
}

/* ---- UDP ---- */

struct lpa_conn *lpa_net_udp_open(uint16_t local_port, const ip_addr_t *remote, uint16_t port,
                                  void *owner) {
#if LPA_UDP
  struct lpa_conn *c;
  struct netconn *nc = netconn_new_with_callback(conn_type(NETCONN_UDP, remote), on_event);
  if (nc == NULL) return NULL;
  reuse_addr(nc);
  if (netconn_bind(nc, IP_ANY_TYPE, local_port) != ERR_OK ||
      (remote != NULL && netconn_connect(nc, remote, port) != ERR_OK) ||
      (c = conn_alloc(CONN_UDP, nc, owner)) == NULL) {
    netconn_delete(nc);
    return NULL;
  }
  netconn_set_nonblocking(nc, 1);
  return c;
#else
  (void)local_port;
  (void)remote;
  (void)port;
  (void)owner;
  return NULL;
#endif
}

/* The netbuf lives on the stack (as lwIP's own sockets do it): no MEMP_NUM_NETBUF cost. */
int lpa_net_udp_send(struct lpa_conn *c, const void *head, size_t head_len, size_t len,
                     const ip_addr_t *to, uint16_t to_port) {
#if LPA_UDP
  struct netbuf nb;
  uint8_t *out;
  size_t off;
  err_t err;
  if (c == NULL || c->type != CONN_UDP || len > 0xFFFFu) return -1;
  if (head_len > len) head_len = len;
  memset(&nb, 0, sizeof(nb));
  out = (uint8_t *)netbuf_alloc(&nb, (u16_t)len); /* PBUF_RAM: one contiguous block */
  if (out == NULL) return -1;
  memcpy(out, head, head_len);
  for (off = head_len; off < len;) {
    size_t n = len - off < LPA_PATTERN_LEN ? len - off : LPA_PATTERN_LEN;
    memcpy(out + off, lpa_pattern, n);
    off += n;
  }
  err = to != NULL ? netconn_sendto(c->nc, &nb, to, to_port) : netconn_send(c->nc, &nb);
  netbuf_free(&nb);
  return err == ERR_OK ? 0 : -1;
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
  ip_addr_set_zero(ip);
  *port = 0;
  if (c == NULL || c->nc == NULL) return;
  if (netconn_peer(c->nc, ip, port) != ERR_OK) {
    ip_addr_set_zero(ip);
    *port = 0;
  }
}

/* netconn_delete() is safe from any thread: the agent thread never waits inside a netconn
 * call, only on the semaphore. */
void lpa_net_close(struct lpa_conn *c) {
  if (c == NULL || c->type == CONN_FREE) return;
  conn_free(c);
}

/* ---- the agent thread ---- */

/* The connection broke: free the slot first (the core may open a new one from the event). */
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
    struct netconn *nc;
    err_t err = netconn_accept(l->nc, &nc);
    if (err != ERR_OK) {
      /* lwIP queues ERR_ABRT for a connection it had no pcb or netconn for */
      if (err == ERR_ABRT) lpa_core_on_refused(l->owner);
      return;
    }
    c = conn_alloc(CONN_TCP, nc, l->owner);
    if (c == NULL) {
      netconn_delete(nc);
      continue;
    }
    netconn_set_nonblocking(nc, 1);
    add_event(c, EV_RCV); /* data may have come before the netconn was in the pool */
    lpa_core_on_accept(l->owner, c);
  }
}

static void do_tcp_recv(struct lpa_conn *c) {
  uint16_t gen = c->gen;
  int k;
  for (k = 0; k < READS_PER_WAKE && c->gen == gen && c->type == CONN_TCP && !c->rx_eof; k++) {
    struct pbuf *p = NULL, *q;
    err_t err = netconn_recv_tcp_pbuf(c->nc, &p);
    if (err == ERR_WOULDBLOCK) return;
    if (err == ERR_CLSD) { /* FIN (an error after it comes back as ERR_RST and the like) */
      c->rx_eof = 1;
      lpa_core_on_recv(c->owner, c, NULL, 0);
      return;
    }
    if (err != ERR_OK) {
      fail(c);
      return;
    }
    for (q = p; q != NULL && c->gen == gen; q = q->next)
      if (q->len != 0) lpa_core_on_recv(c->owner, c, (const uint8_t *)q->payload, q->len);
    pbuf_free(p);
  }
  if (k == READS_PER_WAKE && c->gen == gen) add_event(c, EV_RCV); /* more next round */
}

#if LPA_UDP
static void do_udp_recv(struct lpa_conn *c) {
  uint16_t gen = c->gen;
  int k;
  for (k = 0; k < READS_PER_WAKE && c->gen == gen && c->type == CONN_UDP; k++) {
    uint8_t head[LPA_UDP_HEAD_MAX];
    struct netbuf *nb;
    struct pbuf *p;
    const uint8_t *data;
    size_t want;
    uint32_t now;
    if (netconn_recv(c->nc, &nb) != ERR_OK) return;
    now = (uint32_t)LPA_NOW_US(); /* modulo 2^32, as lpa_core_on_udp wants */
    p = nb->p;
    want = p->tot_len < LPA_UDP_HEAD_MAX ? p->tot_len : LPA_UDP_HEAD_MAX;
    data = (const uint8_t *)p->payload;
    if (p->len < want) { /* a chained pbuf: the headers may straddle the links */
      pbuf_copy_partial(p, head, (u16_t)want, 0);
      data = head;
    }
    lpa_core_on_udp(c->owner, c, data, p->tot_len, netbuf_fromaddr(nb), netbuf_fromport(nb), now);
    netbuf_delete(nb);
  }
  if (k == READS_PER_WAKE && c->gen == gen) add_event(c, EV_RCV);
}
#endif

/* Connect finished (SENDPLUS) or failed (ERROR, with the reason pending in the netconn). */
static void do_connecting(struct lpa_conn *c, uint8_t ev) {
  if ((ev & EV_ERR) || netconn_err(c->nc) != ERR_OK) {
    fail(c);
  } else if (ev & EV_SEND) {
    c->type = CONN_TCP;
    add_event(c, EV_RCV); /* the peer may have sent at once */
    lpa_core_on_connected(c->owner, c, 1);
  }
}

static void dispatch(struct lpa_conn *c, uint8_t ev) {
  uint16_t gen = c->gen;
  switch (c->type) {
    case CONN_LISTEN:
      if (ev & (EV_RCV | EV_ERR)) do_accept(c);
      break;
    case CONN_CONNECTING:
      do_connecting(c, ev);
      break;
    case CONN_TCP:
      if ((ev & (EV_RCV | EV_ERR)) && !c->rx_eof) do_tcp_recv(c);
      else if ((ev & EV_ERR) && c->rx_eof && netconn_err(c->nc) != ERR_OK) fail(c);
      if (c->gen == gen && c->type == CONN_TCP && (ev & (EV_SEND | EV_ERR)) && c->want_out) {
        c->want_out = 0;
        lpa_core_on_sendable(c->owner, c);
      }
      break;
#if LPA_UDP
    case CONN_UDP:
      if (ev & EV_RCV) do_udp_recv(c);
      break;
#endif
    default:
      break;
  }
}

static void agent_thread(void *arg) {
  unsigned rounds = 0;
  (void)arg;
  for (;;) {
    int i, busy = 0;
    SYS_ARCH_DECL_PROTECT(lev);
    SYS_ARCH_PROTECT(lev);
    for (i = 0; i < LPA_MAX_CONNS && !busy; i++) busy = conns[i].events != 0;
    SYS_ARCH_UNPROTECT(lev);
    if (!busy) sys_arch_sem_wait(&wake, LPA_TICK_MS);
    SYS_ARCH_PROTECT(lev);
    wake_pending = 0; /* before looking: an event from now on signals again */
    SYS_ARCH_UNPROTECT(lev);
    lpa_net_lock();
    rounds++;
    for (i = 0; i < LPA_MAX_CONNS; i++) {
      struct lpa_conn *c = &conns[i];
      uint8_t ev;
      if (c->type == CONN_FREE) continue;
      ev = take_events(c);
      if (rounds % SWEEP_ROUNDS == 0 && c->type != CONN_CONNECTING) ev |= EV_RCV;
      if (ev != 0) dispatch(c, ev);
    }
    lpa_core_tick();
    lpa_net_unlock();
  }
}

int lpa_net_init(void) {
  if (sys_mutex_new(&agent_lock) != ERR_OK) return LPA_ENET;
  if (sys_sem_new(&wake, 0) != ERR_OK) {
    sys_mutex_free(&agent_lock);
    return LPA_ENET;
  }
  sys_thread_new("lpa", agent_thread, NULL, LPA_THREAD_STACK, LPA_THREAD_PRIO);
  return 0;
}

#else
typedef int lpa_netconn_not_selected; /* ISO C wants something in every translation unit */
#endif /* LPA_BACKEND == LPA_BACKEND_NETCONN */

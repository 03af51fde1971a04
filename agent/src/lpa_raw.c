/* Back end on lwIP's raw callback API: the agent runs inside lwIP's own context (the tcpip
 * thread, or the NO_SYS main loop), driven by pcb callbacks and a repeating sys_timeout tick.
 * It keeps no thread and no buffer of its own. */
#include <string.h>

#include "lpa_opts.h"

#if LPA_BACKEND == LPA_BACKEND_RAW

#include "lwip/init.h" /* LWIP_VERSION_* */
#include "lwip/pbuf.h"
#include "lwip/sys.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "lwip/udp.h"
#if !NO_SYS
#include "lwip/tcpip.h"
#endif
#include "lpa_core.h" /* lpa_net.h, and the events */

/* lwIP before 2.0 could fail a tcp_close() (the callbacks below rely on it not failing). */
#if LWIP_VERSION_MAJOR < 2 || (LWIP_VERSION_MAJOR == 2 && LWIP_VERSION_MINOR < 1)
#error "the raw back end needs lwIP 2.1 or later"
#endif
#if !NO_SYS && !LWIP_TCPIP_CORE_LOCKING
#error "the raw back end with NO_SYS=0 needs LWIP_TCPIP_CORE_LOCKING=1 (its lock is the core lock)"
#endif

/* The tick holds one of lwIP's timeout slots for as long as the agent runs. lwIP's default
 * MEMP_NUM_SYS_TIMEOUT counts the stack's own timers only: with it, the tick takes the TCP
 * timer's slot and the first connection finds the pool empty ("sys_timeout: timeout != NULL,
 * pool MEMP_SYS_TIMEOUT is empty": an endless loop on many ports, TCP's timers silently
 * never run with asserts off). Refuse to build rather than hang a board. */
#if MEMP_NUM_SYS_TIMEOUT < LWIP_NUM_SYS_TIMEOUT_INTERNAL + 1
#error "the raw back end's tick needs a timeout slot of its own: in lwipopts.h, #define MEMP_NUM_SYS_TIMEOUT (LWIP_NUM_SYS_TIMEOUT_INTERNAL + 1)"
#endif

enum { CONN_FREE = 0, CONN_LISTEN, CONN_CONNECTING, CONN_TCP, CONN_UDP };

/* One slot of the fixed pool. Owns its pcb until lpa_net_close() or the pcb's error callback;
 * borrows owner (the core's session). */
struct lpa_conn {
  union {
    struct tcp_pcb *tcp;
    struct udp_pcb *udp;
  } pcb;
  void *owner;
  uint8_t type;
};

static struct lpa_conn conns[LPA_MAX_CONNS];

static struct lpa_conn *conn_alloc(uint8_t type, void *owner) {
  struct lpa_conn *c;
  for (c = conns; c < conns + LPA_MAX_CONNS; c++) {
    if (c->type != CONN_FREE) continue;
    c->type = type;
    c->owner = owner;
    c->pcb.tcp = NULL;
    return c;
  }
  return NULL;
}

static void conn_free(struct lpa_conn *c) { /* conn_alloc sets the other fields */
  c->type = CONN_FREE;
}

int lpa_net_conns_in_use(void) {
  int i, n = 0;
  for (i = 0; i < LPA_MAX_CONNS; i++) n += conns[i].type != CONN_FREE;
  return n;
}

/* Sends what the core queued with LPA_SEND_MORE, on every connection: called by the tick and
 * on the way out of the public API. Inside a pcb's callback nothing needs flushing: lwIP's
 * tcp_input() calls tcp_output() for that pcb when the callback returns; data queued on another
 * pcb waits for the next tick. No poll callback either: the core's tick retries a write the stack
 * refused (no segment, no heap) every LPA_TICK_MS. */
static void flush(void) {
  struct lpa_conn *c;
  for (c = conns; c < conns + LPA_MAX_CONNS; c++)
    if (c->type == CONN_TCP) tcp_output(c->pcb.tcp);
}

#if !NO_SYS /* else lpa_net.h's empty inline */
void lpa_net_lock(void) {
  LOCK_TCPIP_CORE();
}
#endif

void lpa_net_unlock(void) {
  flush();
#if !NO_SYS
  UNLOCK_TCPIP_CORE();
#endif
}

static void tick(void *arg) {
  (void)arg;
  lpa_core_tick();
  flush();
  sys_timeout(LPA_TICK_MS, tick, NULL);
}

int lpa_net_init(void) {
  lpa_net_lock();
  tick(NULL); /* no session yet: this tick only arms the next (and has nothing to flush) */
#if !NO_SYS
  UNLOCK_TCPIP_CORE(); /* not lpa_net_unlock(): the tick flushed already */
#endif
  return 0;
}

/* ---- TCP callbacks ---- */

/* The callbacks return ERR_OK, also when the core closed their connection meanwhile: that close
 * is a tcp_close(), which cannot fail in lwIP 2 (a FIN without memory is marked TF_CLOSEPEND and
 * sent by lwIP's timer) and never frees the pcb a callback runs for (lwIP defers that to the end
 * of tcp_input()). None calls tcp_abort(), the one call that must be answered with ERR_ABRT. */

static void tcp_callbacks(struct tcp_pcb *pcb, struct lpa_conn *c);

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len) {
  struct lpa_conn *c = (struct lpa_conn *)arg;
  (void)pcb;
  (void)len;
  lpa_core_on_sendable(c->owner, c); /* a live conn, as in on_recv */
  return ERR_OK;
}

/* The window is reopened before the core sees the data: a handler that closes the connection
 * then sends a FIN (lwIP answers a close with unread data with a RST). */
static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err) {
  /* A live TCP conn: lpa_net_close() unhooks this callback before it frees the slot. */
  struct lpa_conn *c = (struct lpa_conn *)arg;
  struct pbuf *q;
  (void)err;
  if (p == NULL) lpa_core_on_recv(c->owner, c, NULL, 0);
  else tcp_recved(pcb, p->tot_len);
  /* Stop when the core closed c: its slot is then free, or taken again by a listener, a
   * connect or a UDP endpoint, never by a TCP connection (only on_accept and on_connected make
   * one, and lwIP does not call them while it is in this callback). */
  for (q = p; q != NULL && c->type == CONN_TCP; q = q->next)
    if (q->len != 0) lpa_core_on_recv(c->owner, c, (const uint8_t *)q->payload, q->len);
  if (p != NULL) pbuf_free(p);
  return ERR_OK;
}

/* The pcb is already freed by lwIP. */
static void on_err(void *arg, err_t err) {
  struct lpa_conn *c = (struct lpa_conn *)arg;
  void *owner;
  uint8_t type;
  (void)err; /* c is live: lpa_net_close() unhooks this callback */
  owner = c->owner;
  type = c->type;
  conn_free(c);
  if (type == CONN_CONNECTING) lpa_core_on_connected(owner, c, 0);
  else lpa_core_on_error(owner, c);
}

static err_t on_connected(void *arg, struct tcp_pcb *pcb, err_t err) {
  struct lpa_conn *c = (struct lpa_conn *)arg;
  (void)pcb;
  (void)err; /* lwIP reports failures through on_err, never here */
  c->type = CONN_TCP;
  lpa_core_on_connected(c->owner, c, 1);
  return ERR_OK;
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err) {
  struct lpa_conn *l = (struct lpa_conn *)arg;
  struct lpa_conn *c;
  (void)err;
  if (pcb == NULL) { /* lwIP had no pcb (err ERR_MEM): it drops the SYN, and ignores the
                      * value returned (ERR_MEM, as below, shares their return) */
    lpa_core_on_refused(l->owner);
    return ERR_MEM;
  }
  /* l is live, as in on_recv. No slot: lwIP aborts a connection its accept callback refuses
   * (a RST to the client). */
  if ((c = conn_alloc(CONN_TCP, l->owner)) == NULL) return ERR_MEM;
  c->pcb.tcp = pcb;
  tcp_callbacks(pcb, c);
  lpa_core_on_accept(l->owner, c);
  return ERR_OK;
}

static void tcp_callbacks(struct tcp_pcb *pcb, struct lpa_conn *c) {
  tcp_arg(pcb, c);
  tcp_recv(pcb, on_recv);
  tcp_sent(pcb, on_sent);
  tcp_err(pcb, on_err);
}

/* ---- TCP calls ---- */

struct lpa_conn *lpa_net_tcp_listen(uint16_t port, void *owner) {
  struct lpa_conn *c = conn_alloc(CONN_LISTEN, owner);
  struct tcp_pcb *pcb, *lpcb;
  if (c == NULL) return NULL;
  pcb = tcp_new_ip_type(IPADDR_TYPE_ANY);
  if (pcb == NULL) goto fail;
  /* A restarted server must not wait for old connections' TIME_WAIT. */
  ip_set_option(pcb, SOF_REUSEADDR);
  if (tcp_bind(pcb, IP_ANY_TYPE, port) != ERR_OK) goto fail_pcb;
  lpcb = tcp_listen(pcb); /* frees pcb on success */
  if (lpcb == NULL) goto fail_pcb;
  c->pcb.tcp = lpcb;
  tcp_arg(lpcb, c);
  tcp_accept(lpcb, on_accept);
  return c;
fail_pcb:
  tcp_close(pcb);
fail:
  conn_free(c);
  return NULL;
}

struct lpa_conn *lpa_net_tcp_connect(const ip_addr_t *ip, uint16_t port, void *owner) {
  struct lpa_conn *c = conn_alloc(CONN_CONNECTING, owner);
  struct tcp_pcb *pcb;
  if (c == NULL) return NULL;
  pcb = tcp_new_ip_type(IP_GET_TYPE(ip));
  if (pcb == NULL) goto fail;
  /* The callbacks only once the SYN is queued: tcp_abort() calls a pcb's error callback, also
   * in the CLOSED state a failed tcp_connect() (no route, no port) leaves it in. */
  if (tcp_connect(pcb, ip, port, on_connected) != ERR_OK) {
    tcp_abort(pcb); /* frees it; no RST from a CLOSED pcb */
    goto fail;
  }
  c->pcb.tcp = pcb;
  tcp_callbacks(pcb, c);
  return c;
fail:
  conn_free(c);
  return NULL;
}

long lpa_net_tcp_send(struct lpa_conn *c, const void *data, size_t len, unsigned flags) {
  struct tcp_pcb *pcb;
  size_t room, per_seg, mss;
  int queue_room;
  u8_t wflags;
  err_t err;
  if (c == NULL) return -1;
  pcb = c->pcb.tcp;
  if (flags & LPA_SEND_NOW) tcp_nagle_disable(pcb);
  room = tcp_sndbuf(pcb);
  if (room > 0xFFFFu) room = 0xFFFFu; /* tcp_write takes a u16_t */
  if (len > room) len = room;
  /* Stay below TCP_SND_QUEUELEN instead of letting tcp_write fail: a segment costs one pbuf,
   * or two without a copy (header + reference), plus one for the tail of the last segment. */
  /* Never 0 on a connection: lwIP starts at min(536 or TCP_MSS, MTU - 40) and takes a peer's
   * MSS option of 0 as TCP_MSS. */
  mss = tcp_mss(pcb);
  /* A reference shorter than a segment would cost a pbuf of the queue for a fraction of a
   * segment (a short LPA_PATTERN_LEN, a small -l): copy it, lwIP fills segments with copies.
   * A pattern shorter than the smallest MSS (536) is always copied: the test is compiled out. */
  if (LPA_PATTERN_LEN < 536 ||
      (flags & LPA_SEND_PATTERN ? (size_t)LPA_PATTERN_LEN : len) < mss)
    flags &= ~LPA_SEND_STATIC;
  per_seg = (flags & LPA_SEND_STATIC) ? 2u : 1u;
  queue_room = (int)TCP_SND_QUEUELEN - (int)tcp_sndqueuelen(pcb) - 1;
  if (queue_room < (int)per_seg) return 0;
  if (len > (size_t)queue_room / per_seg * mss) len = (size_t)queue_room / per_seg * mss;
  wflags = (flags & LPA_SEND_STATIC) ? 0 : TCP_WRITE_FLAG_COPY;
  if (flags & LPA_SEND_MORE) wflags |= TCP_WRITE_FLAG_MORE;
  { /* the pattern repeated (one write per LPA_PATTERN_LEN), or the data in one write */
    size_t done = 0, most = (flags & LPA_SEND_PATTERN) ? (size_t)LPA_PATTERN_LEN : len;
    err = ERR_MEM; /* len 0 writes nothing: as a full stack, 0 */
    while (done < len) {
      size_t piece = len - done < most ? len - done : most;
      err = tcp_write(pcb, data, (u16_t)piece, wflags);
      if (err != ERR_OK) break;
      done += piece;
    }
    if (done == 0 && err != ERR_MEM) return -1;
    len = done;
  }
  if (len != 0 && !(flags & LPA_SEND_MORE)) tcp_output(pcb);
  return (long)len;
}

size_t lpa_net_tcp_unacked(struct lpa_conn *c) {
  if (c == NULL) return 0;
  return (size_t)(TCP_SND_BUF - tcp_sndbuf(c->pcb.tcp));
}

void lpa_net_tcp_shutdown_tx(struct lpa_conn *c) {
  /* The FIN goes out at once: lwIP's tcp_shutdown() queues it and calls tcp_output(). */
  if (c != NULL) tcp_shutdown(c->pcb.tcp, 0, 1);
}

/* ---- UDP ---- */

#if LPA_UDP
static void on_udp_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                        u16_t port) {
  struct lpa_conn *c = (struct lpa_conn *)arg;
  uint8_t head[LPA_UDP_HEAD_MAX];
  const uint8_t *data = (const uint8_t *)p->payload;
  uint32_t now = (uint32_t)LPA_NOW_US();
  size_t want = p->tot_len < LPA_UDP_HEAD_MAX ? p->tot_len : LPA_UDP_HEAD_MAX;
  (void)pcb; /* c is live: lpa_net_close() removes the pcb with the slot */
  if (p->len < want) { /* a chained pbuf: the headers may straddle the links */
    pbuf_copy_partial(p, head, (u16_t)want, 0);
    data = head;
  }
  lpa_core_on_udp(c->owner, c, data, p->tot_len, addr, port, now);
  pbuf_free(p);
}
#endif

struct lpa_conn *lpa_net_udp_open(uint16_t local_port, const ip_addr_t *remote, uint16_t port,
                                  void *owner) {
#if LPA_UDP
  struct lpa_conn *c = conn_alloc(CONN_UDP, owner);
  struct udp_pcb *pcb;
  if (c == NULL) return NULL;
  /* Of any IP version, also towards remote: the bind below and udp_connect() set the types of
   * both addresses anyway. */
  pcb = udp_new_ip_type(IPADDR_TYPE_ANY);
  if (pcb == NULL) goto fail;
  ip_set_option(pcb, SOF_REUSEADDR);
  if (udp_bind(pcb, IP_ANY_TYPE, local_port) != ERR_OK) goto fail_pcb;
  if (remote != NULL && udp_connect(pcb, remote, port) != ERR_OK) goto fail_pcb;
  c->pcb.udp = pcb;
  udp_recv(pcb, on_udp_recv, c);
  return c;
fail_pcb:
  udp_remove(pcb);
fail:
  conn_free(c);
  return NULL;
#else
  (void)local_port;
  (void)remote;
  (void)port;
  (void)owner;
  return NULL;
#endif
}

int lpa_net_udp_send(struct lpa_conn *c, const void *head, size_t head_len, size_t len,
                     const ip_addr_t *to, uint16_t to_port) {
#if LPA_UDP
  struct pbuf *p;
  uint8_t *out;
  err_t err;
  if (c == NULL || len > 0xFFFFu) return -1;
  if (head_len > len) head_len = len;
  p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
  if (p == NULL) return -1;
  out = (uint8_t *)p->payload; /* PBUF_RAM is one contiguous block */
  memcpy(out, head, head_len);
  memset(out + head_len, 0, len - head_len); /* the payload: lpa_pattern is zeros */
  err = to != NULL ? udp_sendto(c->pcb.udp, p, to, to_port) : udp_send(c->pcb.udp, p);
  pbuf_free(p);
  return err; /* ERR_OK is 0, lwIP's errors are negative */
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
  c->owner = owner; /* an accepted connection: never NULL (lpa_net.h) */
}

void lpa_net_peer(struct lpa_conn *c, ip_addr_t *ip, uint16_t *port) {
  /* The core asks about accepted TCP connections only (lpa_net.h). */
  ip_addr_copy(*ip, c->pcb.tcp->remote_ip);
  *port = c->pcb.tcp->remote_port;
}

void lpa_net_close(struct lpa_conn *c) {
  uint8_t type;
  if (c == NULL || (type = c->type) == CONN_FREE) return;
  conn_free(c);
#if LPA_UDP
  if (type == CONN_UDP) {
    udp_remove(c->pcb.udp);
    return;
  }
#endif
  /* tcp_close() frees a listener or a connect still waiting for its SYN-ACK at once; a
   * connection stays with lwIP until its FIN is acknowledged, and must not call back into a slot
   * that may be another connection's by then. */
  if (type == CONN_TCP) {
    tcp_recv(c->pcb.tcp, NULL); /* lwIP's default handler drops late data and answers a FIN */
    tcp_sent(c->pcb.tcp, NULL);
    tcp_err(c->pcb.tcp, NULL);
  }
  (void)tcp_close(c->pcb.tcp); /* cannot fail: see the callbacks' comment */
}

#else
typedef int lpa_raw_not_selected; /* ISO C wants something in every translation unit */
#endif /* LPA_BACKEND == LPA_BACKEND_RAW */

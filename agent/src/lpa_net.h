/* The back-end interface: what the protocol code asks of lwIP, the same for the raw, netconn and
 * socket APIs. Every call is non-blocking and made from the agent's context with the agent lock
 * held; events come back through the lpa_core_on_* functions in the same context. */
#ifndef LPA_NET_H
#define LPA_NET_H

#include <stddef.h>
#include <stdint.h>

#include "lwip/ip_addr.h"
#include "lpa_opts.h"

/* A TCP listener, a TCP connection or a UDP endpoint. Owned by the back end; the core holds the
 * pointer from the open call (or the accept event) until it calls lpa_net_close() or receives
 * lpa_core_on_error(). "owner" is the core's opaque pointer given back in every event. */
struct lpa_conn;

/* Start the back end (the agent thread and/or its timer). Called once by lpa_init(). */
int lpa_net_init(void);
/* The agent lock: public API calls (lpa_start, lpa_stop, lpa_command) take it. The raw back end
 * maps it to LOCK_TCPIP_CORE(); with NO_SYS=1 there is no lock, and no call is made for it (a
 * test that fakes the lock to check who takes it defines LPA_NET_LOCK_FAKE). */
#if LPA_BACKEND == LPA_BACKEND_RAW && NO_SYS && !defined(LPA_NET_LOCK_FAKE)
static inline void lpa_net_lock(void) {}
#else
void lpa_net_lock(void);
#endif
void lpa_net_unlock(void); /* also sends what was queued (the raw back end's flush) */

/* TCP. listen: accepted connections arrive through lpa_core_on_accept() with the listener's
 * owner. connect: lpa_core_on_connected() follows. Return NULL when the stack refuses. */
struct lpa_conn *lpa_net_tcp_listen(uint16_t port, void *owner);
struct lpa_conn *lpa_net_tcp_connect(const ip_addr_t *ip, uint16_t port, void *owner);
#define LPA_SEND_MORE 1u   /* more data follows at once (no PSH) */
#define LPA_SEND_STATIC 2u /* data stays valid and unchanged forever: the back end may keep a
                            * reference instead of copying it */
#define LPA_SEND_PATTERN 4u /* data is lpa_pattern and len may be up to LPA_PATTERN_SENDS times
                             * its size: send len bytes of it repeated, in one call of the API
                             * where it gathers (netconn vectors, sendmsg), so a short pattern
                             * does not cost a call per LPA_PATTERN_LEN bytes */
#define LPA_PATTERN_SENDS 8
#define LPA_SEND_NOW 8u /* a control message: out at once, not held back by Nagle until the
                         * peer's delayed ACK of the previous one (up to 40 ms from Linux,
                         * which put the agent's clock that far ahead of its peer's); the
                         * connection keeps TCP_NODELAY from then on */
/* Queue up to len bytes; returns how many were taken (0 when the send buffer is full:
 * lpa_core_on_sendable() follows when there is room), or a negative value on a broken
 * connection. */
long lpa_net_tcp_send(struct lpa_conn *c, const void *data, size_t len, unsigned flags);
/* Bytes that have been queued but not yet acknowledged by the peer (0 once all is delivered). */
size_t lpa_net_tcp_unacked(struct lpa_conn *c);
/* Send FIN after what is queued; receiving continues. */
void lpa_net_tcp_shutdown_tx(struct lpa_conn *c);

/* UDP. open binds local_port (0: any) and, when remote is not NULL, connects to remote:port.
 * Datagrams arrive through lpa_core_on_udp(). send returns 0, or a negative value when the stack
 * had no buffer (the datagram is not sent; the caller counts it and moves on). */
struct lpa_conn *lpa_net_udp_open(uint16_t local_port, const ip_addr_t *remote, uint16_t port,
                                  void *owner);
/* Sends one datagram of len bytes: the first head_len bytes from head, the rest from the
 * payload pattern (the back end copies both into one buffer). To NULL to: the connected peer. */
int lpa_net_udp_send(struct lpa_conn *c, const void *head, size_t head_len, size_t len,
                     const ip_addr_t *to, uint16_t to_port);

/* Both. set_owner: c from lpa_core_on_accept() (never NULL), handed to another session. */
void lpa_net_set_owner(struct lpa_conn *c, void *owner);
/* The peer of a TCP connection from lpa_core_on_accept() (the core asks nothing else). */
void lpa_net_peer(struct lpa_conn *c, ip_addr_t *ip, uint16_t *port);
/* Close and forget: no event for c follows. TCP: a graceful close (FIN) of what is queued. */
void lpa_net_close(struct lpa_conn *c);
/* Connection slots in use (listeners, TCP connections, UDP endpoints), for a console "stats"
 * command: tests check that finished tests leave none behind. */
int lpa_net_conns_in_use(void);

/* Events: lpa_core.h has the lpa_core_on_* and lpa_core_tick() (inline: a back end includes
 * it). */
/* The most header bytes the protocols read of a UDP datagram (see lpa_core_on_udp). */
#define LPA_UDP_HEAD_MAX 128

/* The constant payload senders point at: LPA_PATTERN_LEN zero bytes (iperf checks no payload). */
extern const uint8_t lpa_pattern[LPA_PATTERN_LEN];

#endif

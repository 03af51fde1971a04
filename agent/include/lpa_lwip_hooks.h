/* lwIP hooks the agent recommends to a board's lwipopts.h (the host port sets them in
 * port/unix/opts/lpa_opts_common.h):
 *
 *   #define LWIP_HOOK_FILENAME "lpa_lwip_hooks.h"
 *   #define LWIP_HOOK_TCP_INPACKET_PCB(pcb, hdr, optlen, opt1len, opt2, p) \
 *     lpa_tcp_inpacket((pcb), (hdr))
 *
 * and compile agent/src/lpa_lwip_hooks.c with lwIP. Written for lwIP 2.1.x. */
#ifndef LPA_LWIP_HOOKS_H
#define LPA_LWIP_HOOKS_H

#include "lwip/err.h"

struct tcp_pcb;
struct tcp_hdr;

/* A server closes first at the end of many tests, so its connections wait out TIME_WAIT
 * (2 x TCP_MSL, 2 minutes by default). lwIP answers a new SYN on such a 4-tuple with an ACK
 * and ignores the peer's RST (RFC 1337), so a client that reuses its source port -- Linux
 * and Windows do, after a few hundred connections or by chance -- cannot connect until the
 * TIME_WAIT ends: its connect() times out. Linux and Windows servers accept such a SYN (RFC
 * 6191). This hook lets the TIME_WAIT pcb expire at lwIP's next slow timer (<= 500 ms) and
 * drops the SYN; the client's retransmission (1 s later) reaches the listener. Any other
 * segment, and every pcb not in TIME_WAIT, goes on as usual (returns ERR_OK). */
err_t lpa_tcp_inpacket(struct tcp_pcb *pcb, const struct tcp_hdr *hdr);

#endif

/* lwIP hooks (see lpa_lwip_hooks.h). Compiled with lwIP, under its core lock: the hook runs
 * inside tcp_input(). */
#include "lwip/opt.h"

#if LWIP_TCP

#include "lwip/priv/tcp_priv.h"
#include "lwip/prot/tcp.h"
#include "lwip/tcp.h"
#include "lpa_lwip_hooks.h"

err_t lpa_tcp_inpacket(struct tcp_pcb *pcb, const struct tcp_hdr *hdr)
{
  if (pcb->state != TIME_WAIT ||
      (TCPH_FLAGS(hdr) & (TCP_SYN | TCP_ACK | TCP_RST | TCP_FIN)) != TCP_SYN)
    return ERR_OK;
  /* lwIP asks a hook not to change pcb lists (tcp_input goes on with the pcb), so the pcb
   * is not freed here: its TIME_WAIT timer is made to run out, and tcp_slowtmr removes it.
   * The same test as tcp_slowtmr: tcp_ticks - tmr > 2 * TCP_MSL / TCP_SLOW_INTERVAL. */
  pcb->tmr = tcp_ticks - 2 * TCP_MSL / TCP_SLOW_INTERVAL - 1;
  return ERR_ABRT;
}

#else
typedef int lpa_lwip_hooks_not_used; /* ISO C wants something in every translation unit */
#endif

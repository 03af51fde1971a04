/* Which datagrams a full netconn mailbox dropped: the rule both ports' sys_arch use to count
 * them (unix/lpa_host.c, qemu-mps2/sys_arch.c), so the `link` command's rx_stack means the
 * same on the host and on the emulated board. Needs lwIP's memp.h; pool builds only
 * (MEMP_MEM_MALLOC=0). */
#ifndef LPA_NETBUF_POOL_H
#define LPA_NETBUF_POOL_H

#include "lwip/memp.h"

/* A UDP datagram travels to its netconn as a netbuf from the MEMP_NETBUF pool; TCP data, which
 * lwIP keeps and offers again when a mailbox is full, travels as a bare pbuf. So a message a
 * full mailbox turned away is a lost datagram exactly when it lies in that pool. */
static inline int lpa_is_pool_netbuf(const void *msg)
{
  const struct memp_desc *d = memp_pools[MEMP_NETBUF];
  const u8_t *p = (const u8_t *)msg;
  return p >= d->base && p < d->base + (size_t)d->num * (MEMP_SIZE + d->size);
}

#endif

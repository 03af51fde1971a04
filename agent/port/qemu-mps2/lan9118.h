/* lwIP driver for the SMSC LAN9118 Ethernet controller as QEMU's mps2 boards have it: 32-bit
 * programmed I/O through its FIFOs, polled from the main loop, an interrupt only to wake it. */
#ifndef LPA_QEMU_LAN9118_H
#define LPA_QEMU_LAN9118_H

#include <stdint.h>

#include "lwip/err.h"
#include "lwip/netif.h"

struct lan9118_counters {
  uint64_t tx_frames, rx_frames, tx_bytes, rx_bytes;
  uint64_t rx_nobuf;  /* frames dropped: no pbuf for them (PBUF_POOL empty) */
  uint64_t rx_err;    /* frames the MAC marked bad, or of an impossible length */
  uint64_t rx_stack;  /* frames lwIP's input refused */
};

/* netif_add()'s init function: resets the chip, takes the MAC address it was given (QEMU's
 * -nic ...,mac=), enables transmit and receive and the receive interrupt. */
err_t lan9118_netif_init(struct netif *nif);
/* Frames waiting in the receive FIFO. */
int lan9118_rx_pending(void);
/* Hands up to `most` waiting frames to nif->input; returns how many it took from the FIFO. */
unsigned lan9118_poll(struct netif *nif, unsigned most);
const struct lan9118_counters *lan9118_counters(void);
void lan9118_reset_counters(void);

#endif

/* lwIP netif on a Linux TAP device, with the link emulation of lpa_link.h between lwIP and
 * the device. Emulation applies to both directions alike: TX (lwIP -> TAP) and RX (TAP ->
 * lwIP) each have their own serializer, queue, delay line and loss stream.
 *
 * NO_SYS 0: a reader thread feeds received frames to netif->input (tcpip_input) and a
 * shaper thread releases held frames when due. NO_SYS 1: lpa_tapif_poll() does both from
 * the main loop. */
#ifndef LPA_TAPIF_H
#define LPA_TAPIF_H

#include "lwip/netif.h"
#include "lpa_link.h"

#if !NO_SYS
#include <pthread.h>
#endif

/* netif->state of a TAP netif. Owns the fd and the link; borrows the netif. */
struct lpa_tapif {
  int fd;
  u8_t mac[6];
  struct netif *netif;
  struct lpa_link link;
#if !NO_SYS
  pthread_t reader, shaper;
  int stop_pipe[2];
  int running;
#endif
};

/* Opens TAP device `name` and prepares the link; prints nothing (err gets the reason). */
int lpa_tapif_open(struct lpa_tapif *t, const char *name, const u8_t mac[6],
                   const struct lpa_link_cfg *link, char *err, size_t errlen);
/* The netif_add() init function; netif->state must be the opened struct lpa_tapif. */
err_t lpa_tapif_init(struct netif *netif);
/* Starts moving frames (NO_SYS 0: the two threads; NO_SYS 1: nothing). */
int lpa_tapif_start(struct lpa_tapif *t);
/* NO_SYS 1: closes the fd and drops held frames. NO_SYS 0: stops the reader and shaper
 * threads only (see lpa_tapif.c). */
void lpa_tapif_close(struct lpa_tapif *t);

#if NO_SYS
/* Reads what the TAP has (non-blocking) and releases frames that are due. */
void lpa_tapif_poll(struct lpa_tapif *t);
#endif

#endif

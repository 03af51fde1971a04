/* Bring-up of lwIP on a TAP device for host programs: one netif per process, like a board
 * with one Ethernet port. NO_SYS 0: tcpip_init and the netif added in the tcpip thread.
 * NO_SYS 1: lwip_init, and the caller's main loop calls lpa_host_poll(). */
#ifndef LPA_HOST_H
#define LPA_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "lpa_link.h"

struct lpa_host_cfg {
  const char *tap;          /* TAP device name (opened in the caller's namespace) */
  uint32_t ip, netmask, gw; /* IPv4, host byte order; gw 0 = none */
  uint8_t mac[6];
  struct lpa_link_cfg link; /* emulation between lwIP and the TAP (zero: a plain wire) */
  uint64_t seed;            /* random() seed for lwIP's ISNs and ports; 0: clock and pid */
};

/* Returns 0, or -1 after printing the reason to stderr. Call once. */
int lpa_host_up(const struct lpa_host_cfg *cfg);
/* Stops frame movement (see lpa_tapif_close); safe to call when not up. */
void lpa_host_down(void);

/* The link's counters and runtime loss setting; NULL before lpa_host_up. */
struct lpa_link *lpa_host_link(void);
/* lwIP's netif (a struct netif *; void here so callers need no lwIP header). */
void *lpa_host_netif(void);
/* The netif's link down (0) or up again (1), as a board's PHY reports a cable pulled and put
 * back: with the link down lwIP routes nothing (a connect fails with ERR_RTE). No-op before
 * lpa_host_up. NO_SYS 1: call from the main loop's thread, as the console does. */
void lpa_host_set_link(int up);
/* 1 for a NO_SYS 1 build (the caller must run lpa_host_poll), else 0. */
int lpa_host_nosys(void);

/* NO_SYS 1 only (no-ops otherwise): the TAP fd to poll for input, one pass of the main
 * loop's network work (TAP input, due frames, lwIP timers), and the CLOCK_MONOTONIC time
 * in ns by which the next pass is needed. */
int lpa_host_fd(void);
void lpa_host_poll(void);
uint64_t lpa_host_next_wakeup_ns(void);

/* Datagrams lwIP dropped inside the stack, after the netif handed them over: no netbuf
 * left, or the receiving netconn's mailbox full (a board's RTOS queue overflowing). The
 * link's rx_nobuf counts what never got into the stack (no pbuf, tcpip mailbox full).
 * Cumulative since start; 0 for builds without netconn. */
uint64_t lpa_host_stack_drops(void);
/* Called by sys_arch when sys_mbox_trypost finds a mailbox full, with the message. */
void lpa_host_note_mbox_full(void *msg);

/* lwIP's TCP pcbs, one line each (list, state, ports), then the counts: what `pcbs` on the
 * console prints when a test wants to know why a connection got no answer. Returns the
 * length written (truncated to fit). */
size_t lpa_host_pcbs(char *buf, size_t size);

/* The agent's clocks on the host (lpa_config.h): CLOCK_MONOTONIC and CLOCK_REALTIME in us. */
uint64_t lpa_host_now_us(void);
uint64_t lpa_host_wall_us(void);

#endif

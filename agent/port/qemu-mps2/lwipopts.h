/* lwIP options of the QEMU firmware: lwIP's defaults (opt.h) plus only what a NO_SYS=1 build
 * must set and what agent/README.md tells a user to add -- nothing tuned, so the tests prove
 * the agent on the configuration a new board starts from. */
#ifndef LPA_QEMU_LWIPOPTS_H
#define LPA_QEMU_LWIPOPTS_H

/* Bare metal: no RTOS, so no sequential APIs (lwIP refuses NO_SYS=1 with them). */
#define NO_SYS 1
#define LWIP_NETCONN 0
#define LWIP_SOCKET 0

/* The CPU's alignment, which every port sets: lwIP's default of 1 places the heap's headers at
 * odd addresses, and the Cortex-M4's double-word and multiple loads fault on them (found here:
 * UsageFault UNALIGNED in mem_malloc on the first frame). */
#define MEM_ALIGNMENT 4

/* agent/README.md step 2: the raw back end's tick holds one timeout slot. */
#define MEMP_NUM_SYS_TIMEOUT (LWIP_NUM_SYS_TIMEOUT_INTERNAL + 1)

/* agent/README.md step 1: a server takes SYNs for ports still in TIME_WAIT. */
#define LWIP_HOOK_FILENAME "lpa_lwip_hooks.h"
#define LWIP_HOOK_TCP_INPACKET_PCB(pcb, hdr, optlen, opt1len, opt2, p) \
  lpa_tcp_inpacket((pcb), (hdr))

#endif

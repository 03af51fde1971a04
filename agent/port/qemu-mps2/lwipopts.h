/* lwIP options of the QEMU firmware: lwIP's defaults (opt.h) plus only what a NO_SYS=1 build
 * (or, with LPA_QEMU_RTOS, an RTOS build) must set and what agent/README.md tells a user to
 * add -- nothing tuned, so the tests prove the agent on the configuration a new board starts
 * from. */
#ifndef LPA_QEMU_LWIPOPTS_H
#define LPA_QEMU_LWIPOPTS_H

#ifndef LPA_QEMU_RTOS
/* Bare metal: no RTOS, so no sequential APIs (lwIP refuses NO_SYS=1 with them). */
#define NO_SYS 1
#define LWIP_NETCONN 0
#define LWIP_SOCKET 0
#else
/* On rtos.c's threads (the netconn and socket back ends): lwIP's defaults of 0 for the
 * mailboxes and the tcpip thread's stack leave them to the port, and an RTOS port needs them
 * set (the FreeRTOS one asserts a mailbox size). These are the values STM32CubeMX writes for
 * a FreeRTOS project, the stack in bytes (CubeMX's 1024 words). */
#define NO_SYS 0
#define TCPIP_MBOX_SIZE 6
#define DEFAULT_TCP_RECVMBOX_SIZE 6
#define DEFAULT_UDP_RECVMBOX_SIZE 6
#define DEFAULT_ACCEPTMBOX_SIZE 6
#define TCPIP_THREAD_STACKSIZE 4096
/* agent/README.md, netconn and socket: a netconn per listener and per connection; lwIP's 4
 * refuse iperf3 -P 2 --bidir (a listener, the control connection and four streams). */
#define MEMP_NUM_NETCONN (MEMP_NUM_TCP_PCB + 2)
#endif

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

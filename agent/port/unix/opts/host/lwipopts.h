/* lwIP options for the "host" variant: NO_SYS 0 with raw, netconn and socket APIs and a
 * generous window (32 segments, scaled), like a well-provisioned board (or lwIP on a
 * Linux gateway). Pools are static as on an MCU, just larger. */
#ifndef LPA_LWIPOPTS_H
#define LPA_LWIPOPTS_H

#define NO_SYS 0
#define LWIP_NETCONN 1
#define LWIP_SOCKET 1

#define LPA_DEF_TCP_WND_MSS 64
#define LPA_DEF_TCP_SND_BUF_MSS 64
#define LPA_DEF_PBUF_POOL_SIZE 256
#define LPA_DEF_MEM_SIZE (1024 * 1024)

#define MEMP_NUM_PBUF 256
#define MEMP_NUM_TCP_PCB 16
#define MEMP_NUM_TCP_PCB_LISTEN 8
#define MEMP_NUM_UDP_PCB 16
#define MEMP_NUM_RAW_PCB 4
#define MEMP_NUM_NETCONN 32
/* A netconn (and so a socket) holds one netbuf per UDP datagram in its receive mailbox, and
 * lwIP drops a datagram without a trace when none is left. As many as the mailbox holds
 * (DEFAULT_UDP_RECVMBOX_SIZE) cover an agent thread kept off the CPU for ~140 ms at 20 Mbit/s;
 * beyond that the RX pool runs dry, which the link counts (rx_nobuf). 64 covered 36 ms: an
 * 80 ms stall made on purpose lost 79 datagrams uncounted, and 119 of 5291 vanished once in
 * test_agent_iperf2 on a loaded machine. */
#define MEMP_NUM_NETBUF 256
#define MEMP_NUM_TCPIP_MSG_INPKT 256
#define MEMP_NUM_TCPIP_MSG_API 64

#include "../lpa_opts_common.h"

#endif

/* lwIP options for the "mcu" variant: the configuration embedded tutorials use on a
 * Cortex-M board (NO_SYS 0 under an RTOS, sockets + netconn + raw, window = send buffer =
 * 8 segments, 16 RX pool buffers, a ~20 KB heap), so the PC testbed shows what such a
 * board really delivers. */
#ifndef LPA_LWIPOPTS_H
#define LPA_LWIPOPTS_H

#define NO_SYS 0
#define LWIP_NETCONN 1
#define LWIP_SOCKET 1

#define LPA_DEF_TCP_WND_MSS 8
#define LPA_DEF_TCP_SND_BUF_MSS 8
#define LPA_DEF_PBUF_POOL_SIZE 16
#define LPA_DEF_MEM_SIZE (20 * 1024)

#define MEMP_NUM_PBUF 16
#define MEMP_NUM_TCP_PCB 5
#define MEMP_NUM_TCP_PCB_LISTEN 4
#define MEMP_NUM_UDP_PCB 6
#define MEMP_NUM_RAW_PCB 2
#define MEMP_NUM_NETCONN 8
#define MEMP_NUM_NETBUF 8
#define MEMP_NUM_TCPIP_MSG_INPKT 16
#define MEMP_NUM_TCPIP_MSG_API 8

#include "../lpa_opts_common.h"

/* An RTOS queue on a board is short. */
#undef TCPIP_MBOX_SIZE
#define TCPIP_MBOX_SIZE 16
#undef DEFAULT_TCP_RECVMBOX_SIZE
#define DEFAULT_TCP_RECVMBOX_SIZE 16
#undef DEFAULT_UDP_RECVMBOX_SIZE
#define DEFAULT_UDP_RECVMBOX_SIZE 16

#endif

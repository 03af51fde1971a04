/* lwIP options for the "nosys" variant: NO_SYS 1 (bare-metal superloop), raw API only,
 * with the same MCU-sized window, buffers and pools as the "mcu" variant. */
#ifndef LPA_LWIPOPTS_H
#define LPA_LWIPOPTS_H

#define NO_SYS 1
#define LWIP_NETCONN 0
#define LWIP_SOCKET 0

#define LPA_DEF_TCP_WND_MSS 8
#define LPA_DEF_TCP_SND_BUF_MSS 8
#define LPA_DEF_PBUF_POOL_SIZE 16
#define LPA_DEF_MEM_SIZE (20 * 1024)

#define MEMP_NUM_TCP_PCB 5
#define MEMP_NUM_TCP_PCB_LISTEN 4
#define MEMP_NUM_UDP_PCB 6
#define MEMP_NUM_RAW_PCB 2

#include "../lpa_opts_common.h"

#endif

/* lwIP options for the "tune" variants: an RTOS board (NO_SYS 0, raw + netconn + sockets, the
 * mcu variant's small pools and queues) whose TCP window, send buffer, queues, pbuf pool and
 * heap come from a header `linkperf lwip-tune` wrote, named by -DLPA_TUNE_HEADER. The tuning
 * test builds one from the advisor's recommendation and one from what it says fits a too-small
 * RAM budget, and measures both through the same emulated link. */
#ifndef LPA_LWIPOPTS_H
#define LPA_LWIPOPTS_H

#ifndef LPA_TUNE_HEADER
#error "the tune variant needs -DLPA_TUNE_HEADER=\"lwip-tune output\""
#endif

#define NO_SYS 0
#define LWIP_NETCONN 1
#define LWIP_SOCKET 1

#define MEMP_NUM_TCP_PCB 5
#define MEMP_NUM_TCP_PCB_LISTEN 4
#define MEMP_NUM_UDP_PCB 6
#define MEMP_NUM_RAW_PCB 2
#define MEMP_NUM_NETCONN 8
#define MEMP_NUM_NETBUF 8
#define MEMP_NUM_TCPIP_MSG_INPKT 64
#define MEMP_NUM_TCPIP_MSG_API 8

#include "../lpa_opts_common.h"

#endif

/* Footprint configuration of the netconn back end: an RTOS (NO_SYS=0) with the tcpip thread and
 * the BSD socket API (which sits on netconn). */
#ifndef LPA_CM4_LWIPOPTS_H
#define LPA_CM4_LWIPOPTS_H

#define NO_SYS 0
#define LWIP_NETCONN 1
#define LWIP_SOCKET 1
#define SYS_LIGHTWEIGHT_PROT 1
#define LWIP_TCPIP_CORE_LOCKING 1
#define TCPIP_THREAD_STACKSIZE 1024
#define TCPIP_THREAD_PRIO 3
#define TCPIP_MBOX_SIZE 16
#define DEFAULT_TCP_RECVMBOX_SIZE 16
#define DEFAULT_UDP_RECVMBOX_SIZE 16
#define DEFAULT_ACCEPTMBOX_SIZE 4
#define MEMP_NUM_NETCONN 8
#define MEMP_NUM_NETBUF 8

#include "../lwipopts_mcu.h"

#endif

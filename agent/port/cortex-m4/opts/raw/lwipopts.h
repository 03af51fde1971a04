/* Footprint configuration of the raw back end: a bare-metal superloop (NO_SYS=1), raw API only. */
#ifndef LPA_CM4_LWIPOPTS_H
#define LPA_CM4_LWIPOPTS_H

#define NO_SYS 1
#define LWIP_NETCONN 0
#define LWIP_SOCKET 0
#define SYS_LIGHTWEIGHT_PROT 0
#define MEMP_NUM_SYS_TIMEOUT (LWIP_NUM_SYS_TIMEOUT_INTERNAL + 1) /* the agent's tick */

#include "../lwipopts_mcu.h"

#endif

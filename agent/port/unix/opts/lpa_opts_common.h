/* Settings shared by every lwipopts.h variant of the host port (opts/<variant>/lwipopts.h
 * includes this after setting NO_SYS, the APIs and the TCP window/buffer sizes). It holds
 * what the PC testbed needs regardless of variant; nothing here changes what a board
 * would see on the wire, except the TIME_WAIT hook (which boards should set too). */
#ifndef LPA_OPTS_COMMON_H
#define LPA_OPTS_COMMON_H

#include <stdlib.h>

/* lwIP's initial sequence numbers and ephemeral ports come from here; lpa_host_up()
 * seeds random() (from the clock and pid, or --seed). */
#define LWIP_RAND() ((u32_t)random())

/* The hook every agent server wants (agent/include/lpa_lwip_hooks.h): a client reusing a
 * source port that lwIP holds in TIME_WAIT connects after one SYN retransmission instead of
 * timing out. It does change what a board sends (it drops that SYN): boards should set it
 * too, as the header says. */
#define LWIP_HOOK_FILENAME "lpa_lwip_hooks.h"
#define LWIP_HOOK_TCP_INPACKET_PCB(pcb, hdr, optlen, opt1len, opt2, p) \
  lpa_tcp_inpacket((pcb), (hdr))

#define MEM_ALIGNMENT 8
#define ETH_PAD_SIZE 0
/* NO_SYS 1 is one thread (the superloop): nothing to protect. */
#if NO_SYS
#define SYS_LIGHTWEIGHT_PROT 0
#else
#define SYS_LIGHTWEIGHT_PROT 1
#endif

/* IPv4 over Ethernet with ARP, no DHCP: the test topology assigns addresses. */
#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_ARP 1
#define LWIP_ETHERNET 1
#define LWIP_ICMP 1
#define LWIP_RAW 1
#define LWIP_UDP 1
#define LWIP_TCP 1
#define LWIP_DHCP 0
#define LWIP_AUTOIP 0
#define LWIP_IGMP 0
#define LWIP_DNS 0
#define LWIP_NETIF_LOOPBACK 0
#define LWIP_HAVE_LOOPIF 0
/* Only the pool statistics: a test counts the datagrams lwIP drops for want of a netbuf
 * (lpa_host_stack_drops), so that reported loss = drops counted where they happened. */
#define LWIP_STATS 1
#define LWIP_STATS_LARGE 1
#define MEMP_STATS 1
#define LINK_STATS 0
#define ETHARP_STATS 0
#define IP_STATS 0
#define IPFRAG_STATS 0
#define ICMP_STATS 0
#define UDP_STATS 0
#define TCP_STATS 0
#define MEM_STATS 0
#define SYS_STATS 0
#define LWIP_TCP_KEEPALIVE 1
#define TCP_QUEUE_OOSEQ 1
#define TCP_LISTEN_BACKLOG 1
#define SO_REUSE 1
#define LWIP_NETIF_STATUS_CALLBACK 0
#define LWIP_NETIF_LINK_CALLBACK 0

/* A variant built from `linkperf lwip-tune` output (-DLPA_TUNE_HEADER="path") takes every
 * TCP, pool and heap size from it: the tuning test runs exactly what the advisor printed. */
#ifdef LPA_TUNE_HEADER
#include LPA_TUNE_HEADER
#else
/* Full-size Ethernet: MSS 1460 for a 1500-byte MTU. Defined unconditionally: glibc's
 * <netinet/tcp.h> has its own TCP_MSS (512) and must never win (see testbed README). */
#define TCP_MSS 1460

/* Window and send buffer in whole segments; -DLPA_OPT_TCP_WND_MSS=N or
 * -DLPA_OPT_TCP_SND_BUF_MSS=N build variants with other sizes (a tuning proof compares a
 * too-small window with a recommended one). Each variant sets LPA_DEF_* first. */
#ifndef LPA_OPT_TCP_WND_MSS
#define LPA_OPT_TCP_WND_MSS LPA_DEF_TCP_WND_MSS
#endif
#ifndef LPA_OPT_TCP_SND_BUF_MSS
#define LPA_OPT_TCP_SND_BUF_MSS LPA_DEF_TCP_SND_BUF_MSS
#endif
#define TCP_WND (LPA_OPT_TCP_WND_MSS * TCP_MSS)
#define TCP_SND_BUF (LPA_OPT_TCP_SND_BUF_MSS * TCP_MSS)
/* The common embedded rule of thumb: four pbufs per segment of send buffer. */
#define TCP_SND_QUEUELEN (4 * LPA_OPT_TCP_SND_BUF_MSS)
#define MEMP_NUM_TCP_SEG (TCP_SND_QUEUELEN + 16)
/* Zero-copy writes take a pbuf header from this pool per queued write: lwIP's default of 16
 * would hold a 64-segment send buffer to 16 segments in flight. (The mcu variant keeps the
 * tutorials' 16 on purpose.) */
#ifndef MEMP_NUM_PBUF
#define MEMP_NUM_PBUF TCP_SND_QUEUELEN
#endif

/* A window past 64 KiB needs scaling; a shift of 4 covers up to 1 MiB. */
#if LPA_OPT_TCP_WND_MSS * 1460 > 0xFFFF
#define LWIP_WND_SCALE 1
#define TCP_RCV_SCALE 4
#endif

/* The RX pool must hold a full window (lwIP's init.c sanity check), plus a few frames in
 * flight between the TAP reader and the tcpip thread. */
#if LPA_DEF_PBUF_POOL_SIZE > LPA_OPT_TCP_WND_MSS + 8
#define PBUF_POOL_SIZE LPA_DEF_PBUF_POOL_SIZE
#else
#define PBUF_POOL_SIZE (LPA_OPT_TCP_WND_MSS + 8)
#endif

/* The heap holds the TX data (copied writes) and PBUF_RAM allocations: at least the
 * variant's size, and always room for a full send buffer. */
#if LPA_DEF_MEM_SIZE > LPA_OPT_TCP_SND_BUF_MSS * 1600 + 4096
#define MEM_SIZE LPA_DEF_MEM_SIZE
#else
#define MEM_SIZE (LPA_OPT_TCP_SND_BUF_MSS * 1600 + 4096)
#endif

#endif /* LPA_TUNE_HEADER */
#define MEMP_MEM_MALLOC 0
#define MEM_LIBC_MALLOC 0
/* What agent/README.md tells a user to set: one timeout slot for the raw back end's tick
 * (lpa_raw.c refuses to build without it), and no more, so that a second user of a slot
 * would show here as it would on a board. */
#define MEMP_NUM_SYS_TIMEOUT (LWIP_NUM_SYS_TIMEOUT_INTERNAL + 1)

#if !NO_SYS
#define LWIP_TCPIP_CORE_LOCKING 1
#define LWIP_TCPIP_CORE_LOCKING_INPUT 0
#define LOCK_TCPIP_CORE() lpa_sys_core_lock()
#define UNLOCK_TCPIP_CORE() lpa_sys_core_unlock()
#define LWIP_ASSERT_CORE_LOCKED() lpa_sys_assert_core_locked()
#define LWIP_MARK_TCPIP_THREAD() lpa_sys_mark_tcpip_thread()
#define TCPIP_THREAD_NAME "lwip-tcpip"
#define TCPIP_MBOX_SIZE 256
#define DEFAULT_RAW_RECVMBOX_SIZE 64
#define DEFAULT_UDP_RECVMBOX_SIZE 256
#define DEFAULT_TCP_RECVMBOX_SIZE 256
#define DEFAULT_ACCEPTMBOX_SIZE 16
#endif

#if LWIP_SOCKET
#define LWIP_SO_RCVTIMEO 1
#define LWIP_SO_SNDTIMEO 1
#define LWIP_SO_RCVBUF 1
#define LWIP_SOCKET_POLL 1
#define LWIP_TIMEVAL_PRIVATE 0
/* lwip_socket(), lwip_recv()...: the POSIX names stay the C library's, so a test program
 * can use both (the agent's socket backend calls the lwip_ names). */
#define LWIP_COMPAT_SOCKETS 0
#define LWIP_POSIX_SOCKETS_IO_NAMES 0
#endif

#endif

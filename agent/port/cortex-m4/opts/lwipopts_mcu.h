/* What the three footprint configurations share: an MCU-sized lwIP as vendor examples set it up
 * on a Cortex-M4 with Ethernet (IPv4 only, 1460-byte MSS, window = send buffer = 8 segments, a
 * 16-buffer RX pool, a 16 KiB heap). The agent's code size hardly depends on these values; they
 * are here so the build sees the headers a real board build sees. */
#ifndef LPA_CM4_LWIPOPTS_MCU_H
#define LPA_CM4_LWIPOPTS_MCU_H

#define MEM_ALIGNMENT 4
#define MEM_SIZE (16 * 1024)
#define MEMP_NUM_PBUF 16
#define MEMP_NUM_TCP_PCB 5
#define MEMP_NUM_TCP_PCB_LISTEN 4
#define MEMP_NUM_UDP_PCB 6
#define PBUF_POOL_SIZE 16
#define PBUF_POOL_BUFSIZE LWIP_MEM_ALIGN_SIZE(TCP_MSS + 40 + PBUF_LINK_ENCAPSULATION_HLEN + PBUF_LINK_HLEN)

#define LWIP_IPV4 1
#define LWIP_IPV6 0
#define LWIP_ARP 1
#define LWIP_ETHERNET 1
#define LWIP_ICMP 1
#define LWIP_RAW 0
#define LWIP_UDP 1
#define LWIP_TCP 1
#define LWIP_DHCP 1
#define LWIP_DNS 0
#define LWIP_IGMP 0
#define LWIP_STATS 0
#define LWIP_NETIF_LINK_CALLBACK 1

#define TCP_MSS 1460
#define TCP_WND (8 * TCP_MSS)
#define TCP_SND_BUF (8 * TCP_MSS)
#define TCP_SND_QUEUELEN (4 * TCP_SND_BUF / TCP_MSS)
#define MEMP_NUM_TCP_SEG TCP_SND_QUEUELEN
#define TCP_QUEUE_OOSEQ 0

/* Checksums in software: the Ethernet MAC's checksum offload varies by part. */
#define CHECKSUM_GEN_IP 1
#define CHECKSUM_CHECK_IP 1

#endif

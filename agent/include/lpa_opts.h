/* Compile-time options of the linkperf agent. Define any of these in lpa_config.h (found on the
 * include path when LPA_HAVE_CONFIG_H is defined) or with -D; each has a range check. */
#ifndef LPA_OPTS_H
#define LPA_OPTS_H

#ifdef LPA_HAVE_CONFIG_H
#include "lpa_config.h"
#endif
#include "lwip/opt.h"

/* Back end: 1 raw callback API (works with NO_SYS=1), 2 netconn, 3 BSD sockets. */
#define LPA_BACKEND_RAW 1
#define LPA_BACKEND_NETCONN 2
#define LPA_BACKEND_SOCKET 3
#ifndef LPA_BACKEND
#define LPA_BACKEND LPA_BACKEND_RAW
#endif
#if LPA_BACKEND < 1 || LPA_BACKEND > 3
#error "LPA_BACKEND must be LPA_BACKEND_RAW, LPA_BACKEND_NETCONN or LPA_BACKEND_SOCKET"
#endif
#if LPA_BACKEND == LPA_BACKEND_RAW && !LWIP_TCP
#error "the raw back end needs LWIP_TCP"
#endif
#if LPA_BACKEND == LPA_BACKEND_NETCONN && (NO_SYS || !LWIP_NETCONN)
#error "LPA_BACKEND_NETCONN needs NO_SYS=0 and LWIP_NETCONN=1"
#endif
#if LPA_BACKEND == LPA_BACKEND_SOCKET && (NO_SYS || !LWIP_SOCKET)
#error "LPA_BACKEND_SOCKET needs NO_SYS=0 and LWIP_SOCKET=1"
#endif

/* Protocols and roles compiled in (0 leaves the code out). */
#ifndef LPA_IPERF2
#define LPA_IPERF2 1
#endif
#ifndef LPA_IPERF3
#define LPA_IPERF3 1
#endif
#ifndef LPA_UDP
#define LPA_UDP LWIP_UDP
#endif
#ifndef LPA_CLIENT
#define LPA_CLIENT 1
#endif
#ifndef LPA_SERVER
#define LPA_SERVER 1
#endif
#if !LPA_IPERF2 && !LPA_IPERF3
#error "enable LPA_IPERF2, LPA_IPERF3 or both"
#endif
#if LPA_UDP && !LWIP_UDP
#error "LPA_UDP needs LWIP_UDP"
#endif
#if !LPA_CLIENT && !LPA_SERVER
#error "enable LPA_CLIENT, LPA_SERVER or both"
#endif

/* iperf2's two-way tests, -d, -r, -R and --full-duplex, as server and client (0 leaves them
 * out: one-way TCP and UDP tests only, in about 0.9 KB less code). */
#ifndef LPA_IPERF2_BIDIR
#define LPA_IPERF2_BIDIR 1
#endif

/* iperf 2.1's --bounceback server (TCP request/response, wire/iperf2_bb.h): 1 echoes each
 * message with its receive and send times (LPA_WALL_US), after the hold it asks for. Off by
 * default: it costs code (agent/FOOTPRINT.md) and LPA_IPERF2_BB_MAX_LEN bytes of RAM per
 * session. A message longer than LPA_IPERF2_BB_MAX_LEN (or shorter than 64 bytes) ends its
 * session. */
#ifndef LPA_IPERF2_BOUNCEBACK
#define LPA_IPERF2_BOUNCEBACK 0
#endif
#if LPA_IPERF2_BOUNCEBACK < 0 || LPA_IPERF2_BOUNCEBACK > 1
#error "LPA_IPERF2_BOUNCEBACK must be 0 or 1"
#endif
#ifndef LPA_IPERF2_BB_MAX_LEN
#define LPA_IPERF2_BB_MAX_LEN 512
#endif
#if LPA_IPERF2_BB_MAX_LEN < 64 || LPA_IPERF2_BB_MAX_LEN > 65535
#error "LPA_IPERF2_BB_MAX_LEN must be 64..65535"
#endif
#if LPA_IPERF2_BOUNCEBACK && !LPA_SERVER
#error "LPA_IPERF2_BOUNCEBACK is a server: it needs LPA_SERVER"
#endif

/* A server's limit unless its duration_ms says otherwise (console: --server-max-duration SEC):
 * the longest an iperf2 test sends back (-d, -r, -R, --full-duplex: an iperf2 UDP request has
 * no handshake, so a spoofed one names any address, and its time goes up to 2^31 x 10 ms), the
 * longest iperf3 test it runs (-t + -O longer: refused; by amount: ended). An hour, linkperf's
 * own server's default. */
#ifndef LPA_SERVER_MAX_SEND_MS
#define LPA_SERVER_MAX_SEND_MS 3600000
#endif
#if LPA_SERVER_MAX_SEND_MS < 1000 || LPA_SERVER_MAX_SEND_MS > 86400000
#error "LPA_SERVER_MAX_SEND_MS must be 1000..86400000"
#endif

/* Sessions: a listening server is one, each running test is one more (2 for iperf2 -d/-r). */
#ifndef LPA_MAX_SESSIONS
#define LPA_MAX_SESSIONS 4
#endif
#if LPA_MAX_SESSIONS < 1 || LPA_MAX_SESSIONS > 32
#error "LPA_MAX_SESSIONS must be 1..32"
#endif
/* Parallel data streams one iperf3 test may open (iperf3 -P). */
#ifndef LPA_MAX_STREAMS
#define LPA_MAX_STREAMS 4
#endif
#if LPA_MAX_STREAMS < 1 || LPA_MAX_STREAMS > 16
#error "LPA_MAX_STREAMS must be 1..16"
#endif

/* Timer tick of the agent: pacing and interval reports are resolved to it. */
#ifndef LPA_TICK_MS
#define LPA_TICK_MS 1
#endif
#if LPA_TICK_MS < 1 || LPA_TICK_MS > 100
#error "LPA_TICK_MS must be 1..100"
#endif
#ifndef LPA_DEFAULT_INTERVAL_MS
#define LPA_DEFAULT_INTERVAL_MS 1000
#endif
#if LPA_DEFAULT_INTERVAL_MS < 100 || LPA_DEFAULT_INTERVAL_MS > 3600000
#error "LPA_DEFAULT_INTERVAL_MS must be 100..3600000"
#endif

/* Bytes of constant payload the senders point at. It lives in flash on a microcontroller and
 * counts as code there. The raw back end queues TCP writes from it without a copy when it is at
 * least TCP_MSS long (1460: no copy, 1.2 KB more flash); shorter, it copies, and lwIP gathers the
 * copies into full segments. */
#ifndef LPA_PATTERN_LEN
#define LPA_PATTERN_LEN 256
#endif
#if LPA_PATTERN_LEN < 256 || LPA_PATTERN_LEN > 65535
#error "LPA_PATTERN_LEN must be 256..65535"
#endif
/* Largest UDP datagram payload the agent sends or reads in full (bigger ones are truncated and
 * counted at this size, as iperf2 does with its -l). */
#ifndef LPA_UDP_MAX_LEN
#define LPA_UDP_MAX_LEN 1470
#endif
#if LPA_UDP_MAX_LEN < 64 || LPA_UDP_MAX_LEN > 65507
#error "LPA_UDP_MAX_LEN must be 64..65507"
#endif
/* Datagrams a paced UDP sender may send in one tick when it is behind. */
#ifndef LPA_UDP_BURST
#define LPA_UDP_BURST 32
#endif
#if LPA_UDP_BURST < 1 || LPA_UDP_BURST > 1024
#error "LPA_UDP_BURST must be 1..1024"
#endif

/* iperf3 control-message buffer: the largest JSON the agent accepts or writes. */
#ifndef LPA_IPERF3_JSON_MAX
#define LPA_IPERF3_JSON_MAX 1536
#endif
#if LPA_IPERF3_JSON_MAX < 512 || LPA_IPERF3_JSON_MAX > 65535
#error "LPA_IPERF3_JSON_MAX must be 512..65535"
#endif

/* Millisecond clock for test times, deadlines, pacing and reports. The agent keeps times in
 * 32 bits and compares them modulo 2^32, so a clock that wraps (sys_now() after 49.7 days) is
 * fine. */
#ifndef LPA_NOW_MS
#define LPA_NOW_MS() ((uint32_t)sys_now())
#endif
/* Microsecond clock for UDP arrival times (jitter: only differences count, modulo 2^32). The
 * default has the 1 ms resolution of sys_now(); give the board a better one (a free-running
 * timer, DWT->CYCCNT) with -DLPA_NOW_US=fn. */
#ifndef LPA_NOW_US
#define LPA_NOW_US() ((uint32_t)sys_now() * 1000u)
#endif
/* Wall clock in microseconds since 1970 for the timestamps in UDP datagrams. Receivers compute
 * jitter from differences only, but iperf 2.1 seeds its filter with 0, so a sender whose clock is
 * far from the receiver's shows seconds of jitter for the first few hundred datagrams. Give
 * boards with SNTP or an RTC their real time here; the default is sys_now() in microseconds. */
#ifndef LPA_WALL_US
#define LPA_WALL_US() ((uint64_t)sys_now() * 1000u)
#endif

/* Agent thread of the netconn and socket back ends. */
#ifndef LPA_THREAD_STACK
#define LPA_THREAD_STACK 2048
#endif
#ifndef LPA_THREAD_PRIO
#define LPA_THREAD_PRIO 1
#endif

/* Back-end connection slots (listeners, TCP connections, UDP endpoints). The default covers
 * every session with a control connection, a listener and LPA_MAX_STREAMS data streams. */
#ifndef LPA_MAX_CONNS
#define LPA_MAX_CONNS (LPA_MAX_SESSIONS * (LPA_MAX_STREAMS + 2))
#endif
#if LPA_MAX_CONNS < 2 || LPA_MAX_CONNS > 1024
#error "LPA_MAX_CONNS must be 2..1024"
#endif
/* TCP receive buffer of the socket back end (the raw and netconn back ends read lwIP's pbufs in
 * place). A static array, shared by all connections. */
#ifndef LPA_SOCKET_RX_BUF
#define LPA_SOCKET_RX_BUF 2920
#endif
#if LPA_SOCKET_RX_BUF < 256 || LPA_SOCKET_RX_BUF > 65536
#error "LPA_SOCKET_RX_BUF must be 256..65536"
#endif

/* The text formatter and the console parser (0 leaves them out). */
#ifndef LPA_FORMAT
#define LPA_FORMAT 1
#endif
#ifndef LPA_CONSOLE
#define LPA_CONSOLE 1
#endif
#if LPA_CONSOLE && !LPA_FORMAT
#error "LPA_CONSOLE prints reports with the formatter: enable LPA_FORMAT"
#endif

#endif

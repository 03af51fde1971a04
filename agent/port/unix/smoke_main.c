/* Console commands for the port's smoke program (host_main.c + this file): a raw-API TCP
 * and UDP discard server, to check the port and to measure what the emulated link lets
 * through before the real agent exists. Not an iperf server: it sends nothing back.
 *   discard [PORT]  listen on TCP and UDP PORT (default 5001)
 *   stats           counters; the last closed TCP connection's bytes, duration, goodput */
#include "lwip/opt.h"
#include "lwip/tcp.h"
#include "lwip/udp.h"
#if !NO_SYS
#include "lwip/tcpip.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int lpa_command(const char *line, void (*print)(const char *text, void *arg), void *arg);

/* One connection's counts; goodput is taken from the first to the last data byte, so the
 * handshake and an idle tail do not dilute it. */
struct conn {
  uint64_t bytes, first_ns, last_ns;
};

/* Touched only by lwIP callbacks and by lpa_command under the core lock. */
static struct {
  uint64_t tcp_bytes, udp_bytes, udp_pkts, conns, open;
  struct conn last;
  int listening;
} st;

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void conn_done(struct tcp_pcb *pcb, struct conn *c)
{
  if (pcb) {
    tcp_arg(pcb, NULL);
    tcp_recv(pcb, NULL);
    tcp_err(pcb, NULL);
  }
  st.last = *c;
  st.open--;
  free(c);
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
  struct conn *c = arg;
  (void)err;
  if (!p) {
    conn_done(pcb, c);
    if (tcp_close(pcb) != ERR_OK) {
      tcp_abort(pcb);
      return ERR_ABRT;
    }
    return ERR_OK;
  }
  uint64_t t = now_ns();
  if (!c->bytes)
    c->first_ns = t;
  c->last_ns = t;
  c->bytes += p->tot_len;
  st.tcp_bytes += p->tot_len;
  tcp_recved(pcb, p->tot_len);
  pbuf_free(p);
  return ERR_OK;
}

static void on_err(void *arg, err_t err)
{
  (void)err;
  if (arg)
    conn_done(NULL, arg);
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
  (void)arg;
  if (err != ERR_OK || !pcb)
    return ERR_VAL;
  struct conn *c = calloc(1, sizeof *c);
  if (!c) {
    tcp_abort(pcb);
    return ERR_ABRT;
  }
  st.conns++;
  st.open++;
  tcp_arg(pcb, c);
  tcp_recv(pcb, on_recv);
  tcp_err(pcb, on_err);
  return ERR_OK;
}

static void on_udp(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                   u16_t port)
{
  (void)arg;
  (void)pcb;
  (void)addr;
  (void)port;
  st.udp_pkts++;
  st.udp_bytes += p->tot_len;
  pbuf_free(p);
}

static int start_discard(u16_t port, char *msg, size_t n)
{
  struct tcp_pcb *l = tcp_new_ip_type(IPADDR_TYPE_V4);
  struct udp_pcb *u = udp_new_ip_type(IPADDR_TYPE_V4);
  if (!l || !u || tcp_bind(l, IP4_ADDR_ANY, port) != ERR_OK ||
      udp_bind(u, IP4_ADDR_ANY, port) != ERR_OK) {
    if (l)
      tcp_close(l);
    if (u)
      udp_remove(u);
    snprintf(msg, n, "discard: cannot bind port %u\n", port);
    return -1;
  }
  struct tcp_pcb *lp = tcp_listen(l);
  if (!lp) {
    tcp_close(l);
    udp_remove(u);
    snprintf(msg, n, "discard: tcp_listen failed\n");
    return -1;
  }
  tcp_accept(lp, on_accept);
  udp_recv(u, on_udp, NULL);
  st.listening = 1;
  snprintf(msg, n, "discard: listening on tcp/udp %u\n", port);
  return 0;
}

static void format_stats(char *msg, size_t n)
{
  uint64_t us = (st.last.last_ns - st.last.first_ns) / 1000u;
  double mbps = us ? (double)st.last.bytes * 8.0 / (double)us : 0.0;
  snprintf(msg, n,
           "discard: conns=%" PRIu64 " open=%" PRIu64 " tcp_bytes=%" PRIu64
           " last_bytes=%" PRIu64 " last_us=%" PRIu64 " last_mbps=%.3f udp_pkts=%" PRIu64
           " udp_bytes=%" PRIu64 "\n",
           st.conns, st.open, st.tcp_bytes, st.last.bytes, us, mbps, st.udp_pkts,
           st.udp_bytes);
}

int lpa_command(const char *line, void (*print)(const char *text, void *arg), void *arg)
{
  char msg[512];
  unsigned port = 5001;
  int rc = 0;
  char extra;
#if !NO_SYS
  LOCK_TCPIP_CORE();
#endif
  if (!strcmp(line, "stats")) {
    format_stats(msg, sizeof msg);
  } else if (!strncmp(line, "discard", 7) &&
             (line[7] == '\0' || (sscanf(line + 7, " %u%c", &port, &extra) == 1 && port > 0 &&
                                  port < 65536))) {
    rc = start_discard((u16_t)port, msg, sizeof msg);
  } else if (!strcmp(line, "help")) {
    snprintf(msg, sizeof msg, "commands: discard [PORT], stats, link, quit\n");
  } else {
    snprintf(msg, sizeof msg, "error: unknown command '%s' (try help)\n", line);
    rc = -1;
  }
#if !NO_SYS
  UNLOCK_TCPIP_CORE();
#endif
  print(msg, arg);
  return rc;
}

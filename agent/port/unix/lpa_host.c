/* Stack bring-up on the TAP netif for NO_SYS 0 and NO_SYS 1 builds. The one netif and its
 * TAP state are file-level singletons on purpose: a host program stands in for a board,
 * which has exactly one stack and one Ethernet port. No DHCP, no IPv6. */
#include "lpa_host.h"
#include "lpa_tapif.h"

#include "lwip/init.h"
#include "lwip/memp.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/netif.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"
#if !NO_SYS
#include "lwip/tcpip.h"
#endif
#if LWIP_NETCONN && !MEMP_MEM_MALLOC
#include "../lpa_netbuf_pool.h"
#endif

#include <stdio.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static struct netif host_netif;
static struct lpa_tapif host_tap;
static int host_is_up;
/* UDP datagrams lwIP took in but could not queue for the application because its netconn's
 * receive mailbox was full (api_msg.c recv_udp drops them without a trace). */
static uint64_t udp_mbox_full;

void lpa_host_note_mbox_full(void *msg)
{
#if LWIP_NETCONN && !MEMP_MEM_MALLOC
  if (lpa_is_pool_netbuf(msg))
    __atomic_add_fetch(&udp_mbox_full, 1, __ATOMIC_RELAXED);
#else
  (void)msg;
#endif
}

uint64_t lpa_host_stack_drops(void)
{
  uint64_t n = __atomic_load_n(&udp_mbox_full, __ATOMIC_RELAXED);
#if LWIP_NETCONN && MEMP_STATS
  /* recv_udp's memp_malloc(MEMP_NETBUF) failed: the datagram is freed unseen. The agent
   * sends with netbufs on its stack, so every failure here is a datagram received. */
  n += memp_pools[MEMP_NETBUF]->stats->err;
#endif
  return n;
}

static void add_netif(const struct lpa_host_cfg *cfg)
{
  ip4_addr_t ip, mask, gw;
  ip4_addr_set_u32(&ip, lwip_htonl(cfg->ip));
  ip4_addr_set_u32(&mask, lwip_htonl(cfg->netmask));
  ip4_addr_set_u32(&gw, lwip_htonl(cfg->gw));
#if NO_SYS
  netif_add(&host_netif, &ip, &mask, &gw, &host_tap, lpa_tapif_init, ethernet_input);
#else
  netif_add(&host_netif, &ip, &mask, &gw, &host_tap, lpa_tapif_init, tcpip_input);
#endif
  netif_set_default(&host_netif);
  netif_set_up(&host_netif);
  netif_set_link_up(&host_netif);
}

#if !NO_SYS
struct up_ctx {
  const struct lpa_host_cfg *cfg;
  sys_sem_t done;
};

/* Runs in the tcpip thread with the core lock held. */
static void tcpip_ready(void *arg)
{
  struct up_ctx *c = arg;
  add_netif(c->cfg);
  sys_sem_signal(&c->done);
}
#endif

int lpa_host_up(const struct lpa_host_cfg *cfg)
{
  char err[256];
  if (host_is_up) {
    fprintf(stderr, "lpa_host_up: already up\n");
    return -1;
  }
  srandom((unsigned)(cfg->seed ? cfg->seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 16)));
  if (lpa_tapif_open(&host_tap, cfg->tap, cfg->mac, &cfg->link, err, sizeof err) < 0) {
    fprintf(stderr, "lpa_host_up: %s\n", err);
    return -1;
  }
#if NO_SYS
  /* The main loop's ppoll() releases emulated frames: no 50 us default timer slack. */
  prctl(PR_SET_TIMERSLACK, 1UL);
  lwip_init();
  add_netif(cfg);
#else
  struct up_ctx c = { cfg, NULL };
  if (sys_sem_new(&c.done, 0) != ERR_OK) {
    fprintf(stderr, "lpa_host_up: out of memory\n");
    return -1;
  }
  tcpip_init(tcpip_ready, &c);
  sys_sem_wait(&c.done);
  sys_sem_free(&c.done);
#endif
  if (lpa_tapif_start(&host_tap) < 0) {
    fprintf(stderr, "lpa_host_up: cannot start the TAP threads\n");
    return -1;
  }
  host_is_up = 1;
  return 0;
}

void lpa_host_down(void)
{
  if (!host_is_up)
    return;
#if !NO_SYS
  /* Take the netif out of lwIP first, so nothing new is routed to the TAP. */
  LOCK_TCPIP_CORE();
  netif_set_link_down(&host_netif);
  netif_set_down(&host_netif);
  UNLOCK_TCPIP_CORE();
#else
  netif_set_link_down(&host_netif);
  netif_set_down(&host_netif);
#endif
  lpa_tapif_close(&host_tap);
  host_is_up = 0;
}

struct lpa_link *lpa_host_link(void)
{
  return host_is_up ? &host_tap.link : NULL;
}

void *lpa_host_netif(void)
{
  return host_is_up ? &host_netif : NULL;
}

void lpa_host_set_link(int up)
{
  if (!host_is_up)
    return;
#if !NO_SYS
  LOCK_TCPIP_CORE();
#endif
  if (up)
    netif_set_link_up(&host_netif);
  else
    netif_set_link_down(&host_netif);
#if !NO_SYS
  UNLOCK_TCPIP_CORE();
#endif
}

int lpa_host_nosys(void)
{
  return NO_SYS;
}

#if NO_SYS

int lpa_host_fd(void)
{
  return host_is_up ? host_tap.fd : -1;
}

void lpa_host_poll(void)
{
  if (!host_is_up)
    return;
  lpa_tapif_poll(&host_tap);
  sys_check_timeouts();
}

uint64_t lpa_host_next_wakeup_ns(void)
{
  uint64_t now = lpa_link_now_ns();
  uint64_t t = host_is_up ? lpa_link_next_due(&host_tap.link) : UINT64_MAX;
  u32_t ms = sys_timeouts_sleeptime();
  if (ms != SYS_TIMEOUTS_SLEEPTIME_INFINITE && now + (uint64_t)ms * 1000000u < t)
    t = now + (uint64_t)ms * 1000000u;
  return t;
}

#else

int lpa_host_fd(void)
{
  return -1;
}

void lpa_host_poll(void)
{
}

uint64_t lpa_host_next_wakeup_ns(void)
{
  return UINT64_MAX;
}

#endif

/* lwIP's own table (tcp_state_str) exists only in LWIP_DEBUG builds. */
static const char *state_name(enum tcp_state s)
{
  static const char *const names[] = {"CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED",
                                      "FIN_WAIT_1", "FIN_WAIT_2", "CLOSE_WAIT", "CLOSING",
                                      "LAST_ACK", "TIME_WAIT"};
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

/* One line per TCP pcb of lwIP's lists; the caller holds the core (or is the NO_SYS loop). */
static size_t format_pcbs(char *buf, size_t size)
{
  static const char *const lists[] = {"listen", "bound", "active", "tw"};
  size_t used = 0;
  int n[4] = {0, 0, 0, 0};
  for (int k = 0; k < 4; k++) {
    const struct tcp_pcb *p = k == 0 ? (const struct tcp_pcb *)tcp_listen_pcbs.pcbs
                              : k == 1 ? tcp_bound_pcbs : k == 2 ? tcp_active_pcbs : tcp_tw_pcbs;
    for (; p != NULL; p = p->next, n[k]++) {
      int w;
      if (k == 0) {
        const struct tcp_pcb_listen *l = (const struct tcp_pcb_listen *)p;
        w = snprintf(buf + used, size - used, "pcb %s port %u pending %u/%u\n", lists[k],
                     l->local_port, l->accepts_pending, l->backlog);
      } else {
        w = snprintf(buf + used, size - used, "pcb %s %s %u -> %u snd_queuelen %u\n",
                     lists[k], state_name(p->state), p->local_port, p->remote_port,
                     p->snd_queuelen);
      }
      if (w < 0 || (size_t)w >= size - used)
        return used;
      used += (size_t)w;
    }
  }
  int w = snprintf(buf + used, size - used, "pcbs: %d listen, %d bound, %d active, %d time-wait"
                   " (pool %d)\n", n[0], n[1], n[2], n[3], MEMP_NUM_TCP_PCB);
  if (w > 0 && (size_t)w < size - used)
    used += (size_t)w;
  return used;
}

size_t lpa_host_pcbs(char *buf, size_t size)
{
  size_t n;
  if (size == 0)
    return 0;
  buf[0] = '\0';
#if !NO_SYS
  LOCK_TCPIP_CORE();
#endif
  n = format_pcbs(buf, size);
#if !NO_SYS
  UNLOCK_TCPIP_CORE();
#endif
  return n;
}

static uint64_t clock_us(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t lpa_host_now_us(void) { return clock_us(CLOCK_MONOTONIC); }
uint64_t lpa_host_wall_us(void) { return clock_us(CLOCK_REALTIME); }

/* TAP netif: frames from lwIP are copied out of their pbuf chain and written to the TAP;
 * frames read from the TAP go into PBUF_POOL pbufs (as a board's Ethernet driver does, so
 * the RX pool limits what lwIP can take) and to netif->input. Every frame passes through
 * the link emulation first. It does no checksum offload, VLANs or multicast filtering. */
#include "lpa_tapif.h"
#include "lpa_tapdev.h"

#include "lwip/etharp.h"
#include "lwip/pbuf.h"
#include "netif/ethernet.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Room for any frame the TAP may hand over; longer ones are truncated by read() and then
 * rejected by lwIP's length checks. */
#define FRAME_BUF 2048

int lpa_tapif_open(struct lpa_tapif *t, const char *name, const u8_t mac[6],
                   const struct lpa_link_cfg *link, char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  t->fd = -1;
#if !NO_SYS
  t->stop_pipe[0] = t->stop_pipe[1] = -1;
#endif
  memcpy(t->mac, mac, 6);
  if (lpa_link_init(&t->link, link) < 0) {
    snprintf(err, errlen, "bad link emulation settings");
    return -1;
  }
  t->fd = lpa_tapdev_open(name, err, errlen);
  if (t->fd < 0) {
    lpa_link_destroy(&t->link);
    return -1;
  }
#if NO_SYS
  /* The main loop polls; a read must never block it. */
  fcntl(t->fd, F_SETFL, fcntl(t->fd, F_GETFL) | O_NONBLOCK);
#endif
  return 0;
}

static void write_frame(struct lpa_tapif *t, const void *data, size_t len)
{
  ssize_t n;
  do {
    n = write(t->fd, data, len);
  } while (n < 0 && errno == EINTR);
  if (n != (ssize_t)len)
    lpa_link_count_err(&t->link, LPA_LINK_TX);
}

static void deliver_rx(struct lpa_tapif *t, const void *data, size_t len)
{
  struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_POOL);
  if (!p) {
    lpa_link_count_err(&t->link, LPA_LINK_RX);
    return;
  }
  pbuf_take(p, data, (u16_t)len);
  /* NO_SYS 0: tcpip_input queues it for the tcpip thread (ERR_MEM when the mailbox is
   * full); NO_SYS 1: ethernet_input processes it now. */
  if (t->netif->input(p, t->netif) != ERR_OK) {
    pbuf_free(p);
    lpa_link_count_err(&t->link, LPA_LINK_RX);
  }
}

static void release_due(struct lpa_tapif *t)
{
  uint64_t now = lpa_link_now_ns();
  struct lpa_frame *f = lpa_link_take(&t->link, LPA_LINK_TX, now);
  while (f) {
    struct lpa_frame *next = f->next;
    write_frame(t, f->data, f->len);
    free(f);
    f = next;
  }
  f = lpa_link_take(&t->link, LPA_LINK_RX, now);
  while (f) {
    struct lpa_frame *next = f->next;
    deliver_rx(t, f->data, f->len);
    free(f);
    f = next;
  }
}

/* Runs in whichever thread lwIP sends from (tcpip thread, or a core-locked caller). A
 * frame lost or queued by the link is still "sent" as far as lwIP knows: the wire ate it. */
static err_t linkoutput(struct netif *netif, struct pbuf *p)
{
  struct lpa_tapif *t = netif->state;
  unsigned char buf[FRAME_BUF];
  u16_t len = pbuf_copy_partial(p, buf, sizeof buf < p->tot_len ? sizeof buf : p->tot_len, 0);
  if (lpa_link_offer(&t->link, LPA_LINK_TX, buf, len, lpa_link_now_ns()) == LPA_LINK_PASS)
    write_frame(t, buf, len);
  return ERR_OK;
}

static void on_frame(struct lpa_tapif *t, const unsigned char *buf, size_t len)
{
  if (lpa_link_offer(&t->link, LPA_LINK_RX, buf, len, lpa_link_now_ns()) == LPA_LINK_PASS)
    deliver_rx(t, buf, len);
}

err_t lpa_tapif_init(struct netif *netif)
{
  struct lpa_tapif *t = netif->state;
  t->netif = netif;
  netif->name[0] = 't';
  netif->name[1] = 'p';
  netif->output = etharp_output;
  netif->linkoutput = linkoutput;
  netif->mtu = 1500;
  netif->hwaddr_len = 6;
  memcpy(netif->hwaddr, t->mac, 6);
  netif->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET;
  return ERR_OK;
}

#if NO_SYS

void lpa_tapif_poll(struct lpa_tapif *t)
{
  unsigned char buf[FRAME_BUF];
  /* A bounded batch, so timers and the console still run under a flood. */
  for (int i = 0; i < 64; i++) {
    ssize_t n = read(t->fd, buf, sizeof buf);
    if (n <= 0)
      break;
    on_frame(t, buf, (size_t)n);
  }
  release_due(t);
}

int lpa_tapif_start(struct lpa_tapif *t)
{
  (void)t;
  return 0;
}

void lpa_tapif_close(struct lpa_tapif *t)
{
  if (t->fd >= 0)
    close(t->fd);
  t->fd = -1;
  lpa_link_destroy(&t->link);
}

#else /* !NO_SYS */

static void *reader_main(void *arg)
{
  struct lpa_tapif *t = arg;
  unsigned char buf[FRAME_BUF];
  struct pollfd pf[2] = { { t->fd, POLLIN, 0 }, { t->stop_pipe[0], POLLIN, 0 } };
  for (;;) {
    if (poll(pf, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (pf[1].revents)
      break;
    if (pf[0].revents & (POLLERR | POLLHUP | POLLNVAL))
      break;
    ssize_t n = read(t->fd, buf, sizeof buf);
    if (n > 0)
      on_frame(t, buf, (size_t)n);
  }
  return NULL;
}

/* Sleeps until the earliest held frame is due. A late wake-up releases frames late but
 * never changes their modelled times, so the average rate stays exact. */
static void *shaper_main(void *arg)
{
  struct lpa_tapif *t = arg;
  /* Linux lets a timed wait overrun by 50 us by default: a third of a frame time at
   * 100 Mbit/s. Late releases delay ACKs and idle a small-window link. */
  prctl(PR_SET_TIMERSLACK, 1UL);
  while (lpa_link_wait(&t->link))
    release_due(t);
  return NULL;
}

int lpa_tapif_start(struct lpa_tapif *t)
{
  if (pipe2(t->stop_pipe, O_CLOEXEC) < 0)
    return -1;
  if (pthread_create(&t->reader, NULL, reader_main, t) != 0)
    return -1;
  if (pthread_create(&t->shaper, NULL, shaper_main, t) != 0) {
    (void)!write(t->stop_pipe[1], "x", 1);
    pthread_join(t->reader, NULL);
    return -1;
  }
  pthread_setname_np(t->reader, "tap-reader");
  pthread_setname_np(t->shaper, "tap-shaper");
  t->running = 1;
  return 0;
}

/* lwIP has no tcpip_deinit: the tcpip thread may still send (a retransmission timer)
 * until the process exits. So only the threads stop; the fd and the link stay valid, and
 * whatever lwIP sends from now on is written straight out or held until exit. */
void lpa_tapif_close(struct lpa_tapif *t)
{
  if (t->running) {
    (void)!write(t->stop_pipe[1], "x", 1);
    lpa_link_stop(&t->link);
    pthread_join(t->reader, NULL);
    pthread_join(t->shaper, NULL);
    t->running = 0;
  }
}

#endif

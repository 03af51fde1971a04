/* The agent on a bare-metal Cortex-M4 (QEMU mps2-an386): lwIP with NO_SYS=1 in a superloop,
 * the raw back end, a LAN9118 driver, and the agent's console on the UART. Built with
 * BACKEND=netconn or socket, lwIP has NO_SYS=0 on rtos.c's threads: the loop below is then
 * a thread too, the driver's and the console's, and lwIP's timers run in its tcpip thread.
 *
 * The console speaks the host programs' protocol (agent/port/unix/host_main.c) so the same
 * tests drive both: every line ends with "done rc=N", and "ifconfig ADDR/PREFIX" brings the
 * interface up and prints "ready ...". Beyond lpa_command(): "link [reset]" (the driver's
 * frame counters), "stats" (lwIP's heap and pools) and "cpu [reset]" (core ticks busy and
 * asleep, and thread switches: with QEMU's -icount shift=0 one tick per 40 instructions, the
 * base of the CPU model). */
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "lan9118.h"
#include "lpa.h"
#include "lwip/etharp.h"
#include "lwip/init.h"
#include "lwip/memp.h"
#include "lwip/stats.h"
#include "lwip/netif.h"
#include "lwip/timeouts.h"
#if !NO_SYS
#include "lwip/tcpip.h"
#include "rtos.h"
/* netif calls from outside the tcpip thread (lwIP's rule with core locking) */
#define NET_LOCK() LOCK_TCPIP_CORE()
#define NET_UNLOCK() UNLOCK_TCPIP_CORE()
#else
#define NET_LOCK()
#define NET_UNLOCK()
#endif

#define LINE_MAX_BYTES 160

#if LPA_BACKEND == LPA_BACKEND_NETCONN
#define LPA_QEMU_API "netconn"
#elif LPA_BACKEND == LPA_BACKEND_SOCKET
#define LPA_QEMU_API "socket"
#else
#define LPA_QEMU_API "raw"
#endif

static struct netif nif;
static uint64_t ticks_at_reset, idle_at_reset, stack_drops_at_reset, switches_at_reset;

/* Thread switches (NO_SYS=0): a cost the CPU model's rows include at this port's price. */
static uint64_t switches(void)
{
#if NO_SYS
  return 0;
#else
  return rtos_switches();
#endif
}

/* Frames lwIP dropped after the driver handed them over, beyond tcpip_input's refusals (the
 * driver's rx_stack): with NO_SYS=0, datagrams a full netconn mailbox had no room for. */
static uint64_t stack_drops(void)
{
#if NO_SYS
  return 0;
#else
  return sys_arch_udp_drops();
#endif
}

u32_t sys_now(void)
{
  return board_ms();
}

/* SYS_LIGHTWEIGHT_PROT (lwIP's default 1): nothing of lwIP runs in an interrupt here, but the
 * macros still want a place to save PRIMASK. */
sys_prot_t sys_arch_protect(void)
{
  uint32_t primask;
  __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  return primask;
}

void sys_arch_unprotect(sys_prot_t primask)
{
  __asm volatile("msr primask, %0" ::"r"(primask) : "memory");
}

void board_assert(const char *msg, const char *file, int line)
{
  char num[12], *e = num + sizeof num - 1;
  *e = '\0';
  do {
    *--e = (char)('0' + line % 10);
    line /= 10;
  } while (line && e > num);
  board_puts("fatal: lwIP assertion \"");
  board_puts(msg);
  board_puts("\" at ");
  board_puts(file);
  board_puts(":");
  board_puts(e);
  board_puts("\n");
  for (;;)
    __asm volatile("wfi");
}

static void put_u64(uint64_t v)
{
  char buf[21], *e = buf + sizeof buf - 1;
  *e = '\0';
  do {
    *--e = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  board_puts(e);
}

static void put_kv(const char *key, uint64_t v)
{
  board_putc(' ');
  board_puts(key);
  board_putc('=');
  put_u64(v);
}

static void print_text(const char *text, void *arg)
{
  (void)arg;
  board_puts(text);
}

/* The host program's `link` line, with the keys that exist on a real MAC; drops the emulated
 * link would count (loss drawn, queue full) cannot happen here and read 0. rx_stack is what
 * lwIP refused or dropped after the driver (stack_drops()). */
static void print_link(void)
{
  const struct lan9118_counters *c = lan9118_counters();
  board_puts("link:");
  put_kv("tx_frames", c->tx_frames);
  put_kv("rx_frames", c->rx_frames);
  put_kv("dropped_tx", 0);
  put_kv("dropped_rx", 0);
  put_kv("qdrop_tx", 0);
  put_kv("qdrop_rx", 0);
  put_kv("tx_bytes", c->tx_bytes);
  put_kv("rx_bytes", c->rx_bytes);
  put_kv("tx_err", 0);
  put_kv("rx_nobuf", c->rx_nobuf);
  put_kv("rx_err", c->rx_err);
  put_kv("rx_stack", c->rx_stack + stack_drops() - stack_drops_at_reset);
  board_putc('\n');
}

static void print_cpu(void)
{
  uint64_t ticks = board_ticks() - ticks_at_reset, idle = board_asleep_ticks() - idle_at_reset;
  board_puts("cpu:");
  put_kv("hz", BOARD_CPU_HZ);
  put_kv("ticks", ticks);
  put_kv("idle", idle);
  put_kv("busy", ticks - idle);
  put_kv("switches", switches() - switches_at_reset);
  board_putc('\n');
}

/* lwIP's memory: the heap (MEM_SIZE) and each pool, with how often an allocation failed --
 * on lwIP's defaults the first thing to look at when a test stalls. */
static void print_stats(void)
{
  static const char *const names[MEMP_MAX] = {
#define LWIP_MEMPOOL(name, num, size, desc) #name,
#include "lwip/priv/memp_std.h"
  };
  board_puts("stats: heap");
  put_kv("used", lwip_stats.mem.used);
  put_kv("max", lwip_stats.mem.max);
  put_kv("of", lwip_stats.mem.avail);
  put_kv("err", lwip_stats.mem.err);
  board_putc('\n');
  for (int i = 0; i < MEMP_MAX; i++) {
    const struct stats_mem *m = memp_pools[i]->stats;
    board_puts("stats: ");
    board_puts(names[i]);
    put_kv("used", m->used);
    put_kv("max", m->max);
    put_kv("of", m->avail);
    put_kv("err", m->err);
    board_putc('\n');
  }
}

static void print_ready(void)
{
  static const char hex[] = "0123456789abcdef";
  board_puts("ready ip=");
  board_puts(ip4addr_ntoa(netif_ip4_addr(&nif)));
  board_puts(" mac=");
  for (int i = 0; i < 6; i++) {
    board_putc(hex[nif.hwaddr[i] >> 4]);
    board_putc(hex[nif.hwaddr[i] & 15]);
    if (i < 5)
      board_putc(':');
  }
  board_puts(NO_SYS ? " nosys=1" : " nosys=0");
  board_puts(" api=" LPA_QEMU_API " cpu=cortex-m4\n");
}

/* "ifconfig A.B.C.D/PREFIX": the address the test's namespace gives the board. */
static int ifconfig(const char *arg)
{
  char addr[16];
  const char *slash = strchr(arg, '/');
  ip4_addr_t ip, mask;
  unsigned prefix = 0;
  if (!slash || slash - arg >= (long)sizeof addr || !slash[1])
    return -1;
  memcpy(addr, arg, (size_t)(slash - arg));
  addr[slash - arg] = '\0';
  for (const char *s = slash + 1; *s; s++) {
    if (*s < '0' || *s > '9' || (prefix = prefix * 10 + (unsigned)(*s - '0')) > 32)
      return -1;
  }
  if (!ip4addr_aton(addr, &ip) || prefix < 8)
    return -1;
  ip4_addr_set_u32(&mask, lwip_htonl(prefix == 32 ? 0xffffffffu : ~(0xffffffffu >> prefix)));
  NET_LOCK();
  netif_set_addr(&nif, &ip, &mask, IP4_ADDR_ANY4);
  NET_UNLOCK();
  print_ready();
  return 0;
}

static void run_line(char *line)
{
  size_t n = strlen(line);
  int rc = 0;
  while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
    line[--n] = '\0';
  while (*line == ' ' || *line == '\t')
    line++;
  if (!*line)
    return;
  if (!strncmp(line, "ifconfig ", 9)) {
    rc = ifconfig(line + 9);
    if (rc)
      board_puts("ifconfig: usage: ifconfig A.B.C.D/PREFIX\n");
  } else if (!strcmp(line, "link")) {
    print_link();
  } else if (!strcmp(line, "link reset")) {
    lan9118_reset_counters();
    stack_drops_at_reset = stack_drops();
    board_puts("link: counters reset\n");
  } else if (!strcmp(line, "stats")) {
    print_stats();
  } else if (!strcmp(line, "cpu")) {
    print_cpu();
  } else if (!strcmp(line, "cpu reset")) {
    ticks_at_reset = board_ticks();
    idle_at_reset = board_asleep_ticks();
    switches_at_reset = switches();
    board_puts("cpu: counters reset\n");
  } else {
    rc = lpa_command(line, print_text, NULL);
  }
  board_puts("done rc=");
  if (rc < 0) {
    board_putc('-');
    rc = -rc;
  }
  put_u64((uint64_t)rc);
  board_putc('\n');
}

static void console_poll(void)
{
  static char line[LINE_MAX_BYTES + 1];
  static size_t len;
  static int overlong;
  int c;
  while ((c = board_getc()) >= 0) {
    if (c != '\n') {
      if (len < LINE_MAX_BYTES)
        line[len++] = (char)c;
      else
        overlong = 1;
      continue;
    }
    line[len] = '\0';
    if (overlong)
      board_puts("error: console line longer than 160 bytes ignored\ndone rc=-1\n");
    else
      run_line(line);
    len = 0;
    overlong = 0;
  }
}

#if NO_SYS
static uint32_t last_ms;

/* Work for the loop: a frame, a console byte, or a new millisecond (lwIP's and the agent's
 * timers run off sys_now()). */
static int work_pending(void)
{
  return lan9118_rx_pending() || (REG32(0x40004004u) & 2) || board_ms() != last_ms;
}

static struct netif *add_netif(void)
{
  lwip_init();
  return netif_add(&nif, IP4_ADDR_ANY4, IP4_ADDR_ANY4, IP4_ADDR_ANY4, NULL, lan9118_netif_init,
                   netif_input);
}

static void loop(void)
{
  for (;;) {
    lan9118_poll(&nif, ~0u);
    console_poll();
    last_ms = board_ms();
    sys_check_timeouts();
    board_idle(work_pending);
  }
}
#else
/* A frame or a console byte (timers are the tcpip thread's). */
static int work_pending(const void *unused)
{
  (void)unused;
  return lan9118_rx_pending() || (REG32(0x40004004u) & 2);
}

static struct netif *add_netif(void)
{
  struct netif *n;
  tcpip_init(NULL, NULL);
  NET_LOCK();
  n = netif_add(&nif, IP4_ADDR_ANY4, IP4_ADDR_ANY4, IP4_ADDR_ANY4, NULL, lan9118_netif_init,
                tcpip_input);
  NET_UNLOCK();
  return n;
}

/* One frame at a time, then the others' turn: tcpip_input() only queues it, and the tcpip
 * thread's mailbox (TCPIP_MBOX_SIZE 6) holds fewer frames than the LAN9118's FIFO. */
static void loop(void)
{
  for (;;) {
    if (lan9118_poll(&nif, 1)) {
      rtos_yield();
      continue;
    }
    console_poll();
    rtos_wait(work_pending, NULL, 0);
  }
}
#endif

int main(void)
{
  board_init();
  board_puts("boot lpa-qemu-mps2 lwip=" LWIP_VERSION_STRING "\n");
  if (!add_netif()) {
    board_puts("fatal: no LAN9118 found\n");
    return 1;
  }
  NET_LOCK();
  netif_set_default(&nif);
  netif_set_up(&nif);
  netif_set_link_up(&nif);
  NET_UNLOCK();
  if (lpa_init() != 0) {
    board_puts("fatal: lpa_init failed\n");
    return 1;
  }
  board_puts("console up: ifconfig A.B.C.D/PREFIX, then agent commands\n");
  loop();
}

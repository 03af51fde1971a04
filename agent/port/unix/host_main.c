/* The host agent program: lwIP on a TAP device with link emulation, driven by a line
 * console on stdin/stdout (the board's serial console, as a pipe). It parses options,
 * brings the stack up, runs --cmd lines, prints "ready ...", then runs stdin lines until
 * quit, EOF (unless --stay) or SIGTERM/SIGINT. Agent commands go to lpa_command(); `link`
 * and `pcbs` (lwIP's TCP pcbs, for a test's diagnosis) are answered here. It does not know any agent command. */
#include "lpa_host.h"
#include "lpa_link.h"
#include "lpa_opts.h" /* LPA_BACKEND: whose CPU cycle estimates are the default */
#include "../lpa_cpu_costs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The same declaration as agent/include/lpa.h: the agent's console entry point. */
int lpa_command(const char *line, void (*print)(const char *text, void *arg), void *arg);
/* The agent's start (lpa.h), once the stack is up, as a board's application calls it. Weak:
 * the port's smoke programs have no agent. */
int lpa_init(void) __attribute__((weak));

#define MAX_CMDS 32
#define LINE_MAX_BYTES 1024

struct opts {
  struct lpa_host_cfg host;
  const char *cmds[MAX_CMDS];
  int ncmds;
  int stay;
  int cpu_costs_set; /* --cpu-api or --cpu-cycles given */
};

/* The API whose cycle estimates --cpu-mhz takes by default: this program's back end. */
#if LPA_BACKEND == LPA_BACKEND_NETCONN
#define LPA_HOST_API "netconn"
#elif LPA_BACKEND == LPA_BACKEND_SOCKET
#define LPA_HOST_API "socket"
#else
#define LPA_HOST_API "raw"
#endif

static volatile sig_atomic_t got_term, got_usr1;

static void on_signal(int sig)
{
  if (sig == SIGUSR1)
    got_usr1 = 1;
  else
    got_term = 1;
}

static void usage(FILE *f, const char *prog)
{
  fprintf(f,
          "usage: %s --tap NAME --ip A.B.C.D/NN [options]\n"
          "  --gw A.B.C.D          default gateway\n"
          "  --mac XX:XX:XX:XX:XX:XX  lwIP's MAC (default 02:4c:50:41:00:01)\n"
          "  --rate BPS            link rate per direction, bits/s (k/M/G suffix ok; 0 = none)\n"
          "  --delay-ms D          one-way delay added in each direction (RTT = 2 x D)\n"
          "  --loss-pct P          random frame loss, percent (0-100)\n"
          "  --loss-dir tx|rx|both where loss applies (tx = lwIP egress; default both)\n"
          "  --loss-seed S         loss PRNG seed (default 1)\n"
          "  --queue-bytes N       rate queue limit, drop-tail (default 100 ms of --rate)\n"
          "  --overhead N          link bytes counted per frame besides the frame (default 24:\n"
          "                        preamble, start delimiter, FCS and inter-frame gap)\n"
          "  --tx-desc N           transmit descriptors of the MAC, 1..256 (with --rate): lwIP's\n"
          "                        output waits for a free one, as on a board (default: none,\n"
          "                        frames wait in the --queue-bytes queue)\n"
          "  --cpu-mhz F           model the board's CPU at F MHz (1..10000): every frame costs\n"
          "                        cycles (--cpu-api's estimates, or --cpu-cycles), RX frames wait\n"
          "                        for it, lwIP's output is held to its pace (default: none)\n"
          "  --cpu-api raw|netconn|socket  whose cycle estimates (default: this program's API)\n"
          "  --cpu-cycles RF,RB,TF,TB  cycles per RX frame, per RX byte, per TX frame, per TX\n"
          "                        byte (bytes may have decimals), instead of --cpu-api's\n"
          "  --rx-desc N           with --cpu-mhz: receive descriptors, 1..1024; a frame that\n"
          "                        finds all holding frames the CPU has not taken is dropped\n"
          "  --seed S              lwIP random() seed (default: clock and pid)\n"
          "  --cmd LINE            console command run before 'ready' (repeatable)\n"
          "  --stay                keep running after stdin EOF (stop with SIGTERM)\n"
          "console: agent commands, 'link' (counters), 'link reset', 'link down|up',\n"
          "  'link loss P [tx|rx|both] [after N] [frames M]' (only frames N+1..N+M, each way),\n"
          "  'quit'. Each command ends with a 'done rc=N' line.\n",
          prog);
}

static int bad(const char *opt, const char *val, const char *why)
{
  fprintf(stderr, "lpa-host: invalid %s '%s': %s\n", opt, val, why);
  return -1;
}

static int set_cpu_api(struct lpa_link_cpu *c, const char *name)
{
  const struct lpa_cpu_costs *k = lpa_cpu_costs_find(name);
  if (!k)
    return -1;
  c->frame[LPA_LINK_RX] = k->rx_frame;
  c->byte_milli[LPA_LINK_RX] = k->rx_byte_milli;
  c->frame[LPA_LINK_TX] = k->tx_frame;
  c->byte_milli[LPA_LINK_TX] = k->tx_byte_milli;
  return 0;
}

/* "RF,RB,TF,TB": whole cycles per frame, cycles per byte with up to 3 decimals. */
static int parse_cpu_cycles(const char *val, struct lpa_link_cpu *c)
{
  double v[4];
  char tail;
  if (sscanf(val, "%lf,%lf,%lf,%lf%c", &v[0], &v[1], &v[2], &v[3], &tail) != 4)
    return -1;
  for (int i = 0; i < 4; i++)
    if (!(v[i] >= 0 && v[i] <= (i % 2 ? 1000.0 : 10000000.0)))
      return -1;
  c->frame[LPA_LINK_RX] = (uint32_t)v[0];
  c->byte_milli[LPA_LINK_RX] = (uint32_t)(v[1] * 1000 + 0.5);
  c->frame[LPA_LINK_TX] = (uint32_t)v[2];
  c->byte_milli[LPA_LINK_TX] = (uint32_t)(v[3] * 1000 + 0.5);
  return 0;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out, int suffixes)
{
  char *end;
  errno = 0;
  if (!*s || *s == '-')
    return -1;
  unsigned long long v = strtoull(s, &end, 10);
  uint64_t mul = 1;
  if (suffixes && *end) {
    if (!strcmp(end, "k") || !strcmp(end, "K"))
      mul = 1000;
    else if (!strcmp(end, "M"))
      mul = 1000000;
    else if (!strcmp(end, "G"))
      mul = 1000000000;
    else
      return -1;
    end++;
  }
  if (errno || *end || v > max / mul)
    return -1;
  *out = v * mul;
  return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || errno || *end || !(v >= lo && v <= hi))
    return -1;
  *out = v;
  return 0;
}

static int parse_ip(const char *s, uint32_t *out)
{
  struct in_addr a;
  if (inet_pton(AF_INET, s, &a) != 1)
    return -1;
  *out = ntohl(a.s_addr);
  return 0;
}

static int parse_cidr(const char *s, uint32_t *ip, uint32_t *mask)
{
  char buf[32];
  const char *slash = strchr(s, '/');
  uint64_t bits;
  if (!slash || (size_t)(slash - s) >= sizeof buf)
    return -1;
  memcpy(buf, s, (size_t)(slash - s));
  buf[slash - s] = '\0';
  if (parse_ip(buf, ip) < 0 || parse_u64(slash + 1, 32, &bits, 0) < 0 || bits == 0)
    return -1;
  *mask = bits == 32 ? 0xffffffffu : ~(0xffffffffu >> bits);
  return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
  unsigned v[6];
  char tail;
  if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
             &tail) != 6)
    return -1;
  for (int i = 0; i < 6; i++)
    mac[i] = (uint8_t)v[i];
  return (mac[0] & 1) ? -1 : 0;     /* a multicast MAC cannot be a host's */
}

static int parse_dir(const char *s, unsigned *dirs)
{
  if (!strcmp(s, "tx"))
    *dirs = LPA_LINK_LOSS_TX;
  else if (!strcmp(s, "rx"))
    *dirs = LPA_LINK_LOSS_RX;
  else if (!strcmp(s, "both"))
    *dirs = LPA_LINK_LOSS_TX | LPA_LINK_LOSS_RX;
  else
    return -1;
  return 0;
}

/* One option and its value; returns 0, -1 (error printed) or 1 (help). */
static int parse_opt(struct opts *o, const char *opt, const char *val)
{
  struct lpa_link_cfg *l = &o->host.link;
  uint64_t u;
  double d;
  if (!strcmp(opt, "--tap")) {
    if (!*val)
      return bad(opt, val, "empty name");
    o->host.tap = val;
  } else if (!strcmp(opt, "--ip")) {
    if (parse_cidr(val, &o->host.ip, &o->host.netmask) < 0)
      return bad(opt, val, "expected A.B.C.D/NN with NN in 1-32");
  } else if (!strcmp(opt, "--gw")) {
    if (parse_ip(val, &o->host.gw) < 0)
      return bad(opt, val, "expected an IPv4 address A.B.C.D");
  } else if (!strcmp(opt, "--mac")) {
    if (parse_mac(val, o->host.mac) < 0)
      return bad(opt, val, "expected a unicast XX:XX:XX:XX:XX:XX");
  } else if (!strcmp(opt, "--rate")) {
    if (parse_u64(val, 1000000000000ull, &l->rate_bps, 1) < 0 ||
        (l->rate_bps && l->rate_bps < 1000))
      return bad(opt, val, "expected bits/s, 0 or 1000 to 1e12 (k/M/G suffix allowed)");
  } else if (!strcmp(opt, "--delay-ms")) {
    if (parse_double(val, 0, 10000, &d) < 0)
      return bad(opt, val, "expected milliseconds, 0 to 10000");
    l->delay_ns = (uint64_t)(d * 1e6 + 0.5);
  } else if (!strcmp(opt, "--loss-pct")) {
    if (parse_double(val, 0, 100, &d) < 0)
      return bad(opt, val, "expected a percentage, 0 to 100");
    l->loss_ppm = (uint32_t)(d * 10000 + 0.5);
  } else if (!strcmp(opt, "--loss-dir")) {
    if (parse_dir(val, &l->loss_dirs) < 0)
      return bad(opt, val, "expected tx, rx or both");
  } else if (!strcmp(opt, "--loss-seed")) {
    if (parse_u64(val, UINT64_MAX, &l->loss_seed, 0) < 0)
      return bad(opt, val, "expected an unsigned integer");
  } else if (!strcmp(opt, "--queue-bytes")) {
    if (parse_u64(val, LPA_LINK_HOLD_MAX, &l->queue_bytes, 1) < 0 ||
        (l->queue_bytes && l->queue_bytes < LPA_LINK_FRAME_MAX))
      return bad(opt, val, "expected 1536 to 64M bytes (0 = 100 ms of --rate)");
  } else if (!strcmp(opt, "--overhead")) {
    if (parse_u64(val, 1000, &u, 0) < 0)
      return bad(opt, val, "expected 0 to 1000 bytes");
    l->overhead_bytes = (uint32_t)u;
  } else if (!strcmp(opt, "--tx-desc")) {
    if (parse_u64(val, LPA_LINK_DESC_MAX, &u, 0) < 0 || u == 0)
      return bad(opt, val, "expected 1 to 256 descriptors");
    l->tx_desc = (uint32_t)u;
  } else if (!strcmp(opt, "--cpu-mhz")) {
    double mhz;
    if (parse_double(val, 1, 10000, &mhz) < 0)
      return bad(opt, val, "expected 1 to 10000 MHz");
    l->cpu.hz = (uint64_t)(mhz * 1e6 + 0.5);
  } else if (!strcmp(opt, "--cpu-api")) {
    if (set_cpu_api(&l->cpu, val) < 0)
      return bad(opt, val, "expected raw, netconn or socket");
    o->cpu_costs_set = 1;
  } else if (!strcmp(opt, "--cpu-cycles")) {
    if (parse_cpu_cycles(val, &l->cpu) < 0)
      return bad(opt, val, "expected RX frame,RX byte,TX frame,TX byte cycles, e.g. 1020,3.36,1890,3.7");
    o->cpu_costs_set = 1;
  } else if (!strcmp(opt, "--rx-desc")) {
    if (parse_u64(val, 1024, &u, 0) < 0 || u == 0)
      return bad(opt, val, "expected 1 to 1024 descriptors");
    l->rx_desc = (uint32_t)u;
  } else if (!strcmp(opt, "--seed")) {
    if (parse_u64(val, UINT64_MAX, &o->host.seed, 0) < 0)
      return bad(opt, val, "expected an unsigned integer");
  } else if (!strcmp(opt, "--cmd")) {
    if (o->ncmds == MAX_CMDS)
      return bad(opt, val, "too many --cmd options (max 32)");
    o->cmds[o->ncmds++] = val;
  } else {
    fprintf(stderr, "lpa-host: unknown option '%s' (see --help)\n", opt);
    return -1;
  }
  return 0;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
  static const uint8_t mac[6] = { 0x02, 0x4c, 0x50, 0x41, 0x00, 0x01 };
  memset(o, 0, sizeof *o);
  memcpy(o->host.mac, mac, 6);
  o->host.link.loss_dirs = LPA_LINK_LOSS_TX | LPA_LINK_LOSS_RX;
  o->host.link.loss_seed = 1;
  o->host.link.overhead_bytes = 24; /* what 100BASE-TX and 1000BASE-T spend besides a frame */
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout, argv[0]);
      return 1;
    }
    if (!strcmp(argv[i], "--stay")) {
      o->stay = 1;
      continue;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, "lpa-host: option '%s' needs a value (see --help)\n", argv[i]);
      return -1;
    }
    if (parse_opt(o, argv[i], argv[i + 1]) < 0)
      return -1;
    i++;
  }
  if (!o->host.tap || !o->host.netmask) {
    fprintf(stderr, "lpa-host: --tap and --ip are required (see --help)\n");
    return -1;
  }
  if (o->host.link.rx_desc && !o->host.link.cpu.hz) {
    fprintf(stderr, "lpa-host: --rx-desc needs --cpu-mhz (without a CPU model nothing waits)\n");
    return -1;
  }
  if (o->host.link.cpu.hz && !o->cpu_costs_set)
    (void)set_cpu_api(&o->host.link.cpu, LPA_HOST_API);
  return 0;
}

static void print_out(const char *text, void *arg)
{
  (void)arg;
  fputs(text, stdout);
  fflush(stdout);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  fflush(stdout);
}

/* lpa_host_stack_drops() when the link counters were last reset: `link` shows drops inside
 * lwIP since then, as rx_stack, beside the link's own counters. */
static uint64_t stack_drops_at_reset;

static void print_link(void)
{
  struct lpa_link_counters c;
  char buf[512];
  struct lpa_link *l = lpa_host_link();
  if (!l)
    return;
  lpa_link_counters(l, &c);
  lpa_link_format(&c, buf, sizeof buf);
  say("%s rx_stack=%" PRIu64 "\n", buf, lpa_host_stack_drops() - stack_drops_at_reset);
}

/* "link loss P [DIR] [after N] [frames M]": the words after the percentage. Returns 0 or
 * -1 for anything else. */
static int parse_loss_words(const char *rest, unsigned *dirs, uint64_t *skip, uint64_t *span)
{
  char w[16], v[32];
  int used;
  while (sscanf(rest, " %15s%n", w, &used) == 1) {
    rest += used;
    if (!strcmp(w, "after") || !strcmp(w, "frames")) {
      if (sscanf(rest, " %31s%n", v, &used) != 1 ||
          parse_u64(v, UINT64_MAX - 1, !strcmp(w, "after") ? skip : span, 0) < 0)
        return -1;
      rest += used;
    } else if (parse_dir(w, dirs) < 0) {
      return -1;
    }
  }
  return 0;
}

/* The `link` console command: counters, reset, the link down or up, or a new loss setting. */
static int link_command(const char *args)
{
  char pct[32];
  double p;
  unsigned dirs = LPA_LINK_LOSS_TX | LPA_LINK_LOSS_RX;
  uint64_t skip = 0, span = UINT64_MAX;
  int used = 0;
  while (*args == ' ')
    args++;
  if (!*args) {
    print_link();
    return 0;
  }
  if (!strcmp(args, "down") || !strcmp(args, "up")) {
    lpa_host_set_link(args[0] == 'u');
    say("link: %s\n", args);
    return 0;
  }
  if (!strcmp(args, "reset")) {
    lpa_link_reset_counters(lpa_host_link());
    stack_drops_at_reset = lpa_host_stack_drops();
    say("link: counters reset\n");
    return 0;
  }
  if (sscanf(args, "loss %31s%n", pct, &used) == 1 && parse_double(pct, 0, 100, &p) == 0 &&
      parse_loss_words(args + used, &dirs, &skip, &span) == 0) {
    lpa_link_set_loss_window(lpa_host_link(), (uint32_t)(p * 10000 + 0.5), dirs, skip, span);
    say("link: loss %.4f%% %s", p, dirs == LPA_LINK_LOSS_TX ? "tx" :
        dirs == LPA_LINK_LOSS_RX ? "rx" : "both");
    if (skip || span != UINT64_MAX)
      say(" after %" PRIu64 " frames, for %" PRIu64 "\n", skip, span);
    else
      say("\n");
    return 0;
  }
  say("link: usage: link | link reset | link down | link up | "
      "link loss PCT [tx|rx|both] [after N] [frames M]\n");
  return -1;
}

/* Returns 1 when the line asks to quit. */
static int run_line(char *line)
{
  size_t n = strlen(line);
  int rc;
  while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
    line[--n] = '\0';
  while (*line == ' ' || *line == '\t')
    line++;
  if (!*line)
    return 0;
  if (!strcmp(line, "quit") || !strcmp(line, "exit"))
    return 1;
  if (!strncmp(line, "link", 4) && (line[4] == '\0' || line[4] == ' ')) {
    rc = link_command(line + 4);
  } else if (!strcmp(line, "pcbs")) {
    char buf[4096];
    lpa_host_pcbs(buf, sizeof buf);
    say("%s", buf);
    rc = 0;
  }
  else {
    rc = lpa_command(line, print_out, NULL);
  }
  say("done rc=%d\n", rc);
  return 0;
}

/* Console input is read raw (no stdio buffering) so poll() on fd 0 tells the truth. */
struct linebuf {
  char buf[LINE_MAX_BYTES + 1];
  size_t len;
  int overlong;
};

/* Feeds the bytes read; returns 1 on quit. */
static int feed(struct linebuf *lb, const char *data, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (data[i] != '\n') {
      if (lb->len < LINE_MAX_BYTES)
        lb->buf[lb->len++] = data[i];
      else
        lb->overlong = 1;
      continue;
    }
    lb->buf[lb->len] = '\0';
    int quit = 0;
    if (lb->overlong)
      say("error: console line longer than %d bytes ignored\ndone rc=-1\n", LINE_MAX_BYTES);
    else
      quit = run_line(lb->buf);
    lb->len = 0;
    lb->overlong = 0;
    if (quit)
      return 1;
  }
  return 0;
}

static void ns_to_timespec(uint64_t deadline, struct timespec *ts)
{
  uint64_t now = lpa_link_now_ns();
  uint64_t d = deadline > now ? deadline - now : 0;
  ts->tv_sec = (time_t)(d / 1000000000u);
  ts->tv_nsec = (long)(d % 1000000000u);
}

/* The main loop: console on stdin, and for NO_SYS 1 the TAP and lwIP's timers too. */
static void loop(const struct opts *o, const sigset_t *waitmask)
{
  struct linebuf lb = { .len = 0 };
  int stdin_open = 1;
  for (;;) {
    struct pollfd pf[2];
    nfds_t n = 0;
    struct timespec ts, *tsp = NULL;
    if (got_term)
      return;
    if (got_usr1) {
      got_usr1 = 0;
      print_link();
    }
    if (stdin_open)
      pf[n++] = (struct pollfd){ 0, POLLIN, 0 };
    if (lpa_host_nosys()) {
      pf[n++] = (struct pollfd){ lpa_host_fd(), POLLIN, 0 };
      uint64_t wake = lpa_host_next_wakeup_ns();
      if (wake != UINT64_MAX) {
        ns_to_timespec(wake, &ts);
        tsp = &ts;
      }
    }
    int r = ppoll(pf, n, tsp, waitmask);
    if (r < 0 && errno != EINTR)
      return;
    lpa_host_poll();
    if (r > 0 && stdin_open && pf[0].revents) {
      char buf[512];
      ssize_t got = read(0, buf, sizeof buf);
      if (got > 0) {
        if (feed(&lb, buf, (size_t)got))
          return;
      } else if (got == 0 || errno != EINTR) {
        stdin_open = 0;
        if (!o->stay)
          return;
      }
    }
  }
}

int main(int argc, char **argv)
{
  struct opts o;
  sigset_t block, waitmask;
  struct sigaction sa;
  char addr[INET_ADDRSTRLEN];
  int rc = parse_args(&o, argc, argv);
  if (rc)
    return rc > 0 ? 0 : 2;

  /* Signals are blocked everywhere (lwIP's threads inherit this mask) and taken only
   * inside ppoll() on the main thread, so the handler just sets a flag. */
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &waitmask);
  sigdelset(&waitmask, SIGTERM);
  sigdelset(&waitmask, SIGINT);
  sigdelset(&waitmask, SIGUSR1);

  if (lpa_host_up(&o.host) < 0)
    return 1;
  if (lpa_init && lpa_init() != 0) {
    fprintf(stderr, "lpa-host: lpa_init failed\n");
    lpa_host_down();
    return 1;
  }
  for (int i = 0; i < o.ncmds; i++) {
    char line[LINE_MAX_BYTES + 1];
    snprintf(line, sizeof line, "%s", o.cmds[i]);
    if (run_line(line))
      goto out;
  }
  struct in_addr a = { htonl(o.host.ip) };
  inet_ntop(AF_INET, &a, addr, sizeof addr);
  say("ready tap=%s ip=%s mac=%02x:%02x:%02x:%02x:%02x:%02x nosys=%d\n", o.host.tap, addr,
      o.host.mac[0], o.host.mac[1], o.host.mac[2], o.host.mac[3], o.host.mac[4],
      o.host.mac[5], lpa_host_nosys());
  if (o.host.link.cpu.hz) {
    const struct lpa_link_cpu *c = &o.host.link.cpu;
    say("cpu model: %.1f MHz, cycles per RX frame %u + %.3f per byte, per TX frame %u + %.3f "
        "per byte, %u RX descriptors%s\n", (double)c->hz / 1e6, c->frame[LPA_LINK_RX],
        c->byte_milli[LPA_LINK_RX] / 1000.0, c->frame[LPA_LINK_TX],
        c->byte_milli[LPA_LINK_TX] / 1000.0, o.host.link.rx_desc,
        o.host.link.rx_desc ? "" : " (no limit)");
  }
  loop(&o, &waitmask);
out:
  print_link();
  say("bye\n");
  lpa_host_down();
  return 0;
}

/* The console: one line of iperf-like words ("iperf -c 10.0.0.1 -u -b 50M") becomes an
 * lpa_config, checked option by option with a one-line error, and a started session whose
 * reports are printed through the caller's print function. It has no shell of its own (no
 * history, no quoting): the board's serial shell hands it finished lines. */
#include <string.h>

#include "lpa_format.h"
#include "lpa_net.h"

#if LPA_CONSOLE

/* Longest command line accepted (characters, without the terminating NUL). */
#ifndef LPA_CMD_LINE_MAX
#define LPA_CMD_LINE_MAX 160
#endif
#if LPA_CMD_LINE_MAX < 32 || LPA_CMD_LINE_MAX > 1024
#error "LPA_CMD_LINE_MAX must be 32..1024"
#endif
#define CMD_WORDS_MAX 24

/* ---- where a session's reports are printed ---- */

/* The report callback gets one pointer, the console needs two (print and arg): each start
 * borrows a binding that lives until the last session printing through it is DONE (a server's
 * tests report through their listener's binding). `live` has a bit per session seen; `ended`
 * catches a session that ends before lpa_start has even returned its index. Guarded by the
 * agent lock, which report callbacks already run under. */
struct cmd_binding {
  lpa_print_fn print;
  void *arg;
  uint32_t live;
  uint32_t ended;
  uint8_t used;
  uint8_t starting;
};
static struct cmd_binding bindings[LPA_MAX_SESSIONS];

static void on_report(const struct lpa_report *r, void *a) {
  struct cmd_binding *b = (struct cmd_binding *)a;
  uint32_t bit = (uint32_t)1 << (r->session & 31u);
  lpa_format_report(r, b->print, b->arg);
  if (r->kind != LPA_REPORT_DONE) {
    b->live |= bit;
    return;
  }
  b->live &= ~bit;
  if (b->starting) b->ended |= bit;
  else if (b->live == 0) b->used = 0;
}

static struct cmd_binding *binding_take(lpa_print_fn print, void *arg) {
  struct cmd_binding *b = NULL;
  int i;
  lpa_net_lock();
  for (i = 0; i < LPA_MAX_SESSIONS && b == NULL; i++) {
    if (bindings[i].used) continue;
    b = &bindings[i];
    memset(b, 0, sizeof(*b));
    b->print = print;
    b->arg = arg;
    b->used = 1;
    b->starting = 1;
  }
  lpa_net_unlock();
  return b;
}

/* lpa_start returned index (or an error): the binding now follows that session. */
static void binding_started(struct cmd_binding *b, int index) {
  uint32_t bit = (uint32_t)1 << ((unsigned)index & 31u);
  lpa_net_lock();
  b->starting = 0;
  if (index >= 0 && !(b->ended & bit)) b->live |= bit;
  b->ended = 0;
  if (b->live == 0) b->used = 0;
  lpa_net_unlock();
}

/* ---- output ---- */

struct cmd_ctx {
  lpa_print_fn print;
  void *arg;
  const char *cmd; /* "iperf", "iperf3", "stop": the prefix of error lines */
};

static void say(const struct cmd_ctx *x, const char *a, const char *b, const char *c,
                const char *d) {
  struct lpa_line l;
  lpa_line_init(&l);
  lpa_line_str(&l, a);
  if (b) lpa_line_str(&l, b);
  if (c) lpa_line_str(&l, c);
  if (d) lpa_line_str(&l, d);
  lpa_line_print(&l, x->print, x->arg);
}

/* "iperf: -p 70000: port 1..65535" */
static int bad(const struct cmd_ctx *x, const char *opt, const char *val, const char *why) {
  struct lpa_line l;
  lpa_line_init(&l);
  lpa_line_str(&l, x->cmd);
  lpa_line_str(&l, ": ");
  if (opt) {
    lpa_line_str(&l, opt);
    if (val) {
      lpa_line_str(&l, " ");
      lpa_line_str(&l, val);
    }
    lpa_line_str(&l, ": ");
  }
  lpa_line_str(&l, why);
  lpa_line_print(&l, x->print, x->arg);
  return LPA_EINVAL;
}

static const char *const help_text[] = {
    "iperf  -s [-u] [-p PORT] [-i SEC]   iperf2 server, TCP and UDP (port 5001)",
    "iperf3 -s [-p PORT] [-i SEC]        iperf3 server (port 5201)",
    "  --server-max-duration SEC 1..86400 (3600): iperf2 tests send back at most",
    "  SEC, iperf3 tests longer are refused (by amount: ended at SEC)",
    "iperf|iperf3 -c HOST [options]      client of an iperf2 / iperf3 server",
    "  -u UDP   -p PORT 1..65535   -t SEC 0.1..86400 (10)   -n BYTES instead of -t",
    "  -b RATE bits/s (UDP 1M; TCP 0 = no limit)   -l LEN bytes per write/datagram",
    "  -i SEC 0 (none) or 0.1..3600 (1)   -R reverse (the server sends)",
    "  iperf only: -d dual, -r tradeoff, -L PORT (the server connects back to it)",
    "  iperf3 only: --bidir both ways at once, -P N streams (per direction),",
    "  -O SEC omit: run SEC longer, the first SEC not counted",
    "  suffixes: iperf k/m/g = 1000, K/M/G = 1024; iperf3 -b 1000, -n and -l 1024",
    "stop [ID]                           stop session ID, or all of them",
    "stats                               connection slots in use",
    NULL};

static int help(const struct cmd_ctx *x) {
  int i;
  for (i = 0; help_text[i] != NULL; i++) say(x, help_text[i], NULL, NULL, NULL);
  return 0;
}

/* ---- numbers ---- */

/* Decimal with an optional fraction, as value * 10^dec; returns the rest of s (suffix), or
 * NULL for no digits, too many decimals or overflow. */
static const char *parse_fixed(const char *s, unsigned dec, uint64_t *out) {
  uint64_t v = 0;
  unsigned ndig = 0, frac = 0;
  int point = 0;
  for (;; s++) {
    if (*s == '.' && !point) {
      point = 1;
      continue;
    }
    if (*s < '0' || *s > '9') break;
    if (point && ++frac > dec) return NULL;
    if (v > (UINT64_MAX - 9u) / 10u) return NULL;
    v = v * 10u + (uint64_t)(*s - '0');
    ndig++;
  }
  if (ndig == 0) return NULL;
  for (; frac < dec; frac++) {
    if (v > UINT64_MAX / 10u) return NULL;
    v *= 10u;
  }
  *out = v;
  return s;
}

/* An integer in lo..hi. */
static int parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  const char *rest = parse_fixed(s, 0, out);
  return rest != NULL && *rest == '\0' && *out >= lo && *out <= hi ? 0 : -1;
}

/* Seconds with up to three decimals, as milliseconds. */
static int parse_ms(const char *s, uint64_t *ms) {
  const char *rest = parse_fixed(s, 3, ms);
  return rest != NULL && *rest == '\0' ? 0 : -1;
}

/* A size or rate with an optional k/m/g suffix: lower-case letters multiply by powers of
 * lower, upper-case ones by powers of upper (iperf2: 1000 and 1024; iperf3 uses one base for
 * both cases). "1.5M" is allowed; the fraction is cut at whole units. */
static int parse_amount(const char *s, uint64_t lower, uint64_t upper, uint64_t *out) {
  uint64_t v, mult = 1;
  const char *rest = parse_fixed(s, 3, &v);
  if (rest == NULL) return -1;
  if (*rest != '\0') {
    const char *units = "kmg";
    char c = *rest;
    uint64_t base = upper;
    int n;
    if (rest[1] != '\0') return -1;
    if (c >= 'a' && c <= 'z') base = lower;
    else c = (char)(c - 'A' + 'a');
    for (n = 0; n < 3 && units[n] != c; n++) continue;
    if (n == 3) return -1;
    for (; n >= 0; n--) mult *= base;
  }
  if (v > UINT64_MAX / mult) return -1;
  *out = v * mult / 1000u;
  return 0;
}

/* ---- options ---- */

#define OPT_VALUE 1u   /* takes a value: "-p 5001" or "-p5001" */
#define OPT_CLIENT 2u  /* only with -c */
#define OPT_IPERF2 4u  /* only in the iperf2 spelling */
#define OPT_IPERF3 8u  /* only in the iperf3 spelling */
#define OPT_LONG 16u   /* --name only (the letter belongs to another option) */

struct cmd_opt {
  char letter;
  uint8_t flags;
  const char *name; /* --name; a letter may have several rows (iperf2 and iperf3 names) */
};

static const struct cmd_opt cmd_opts[] = {
    {'s', 0, "server"},
    {'c', OPT_VALUE, "client"},
    {'u', 0, "udp"},
    {'p', OPT_VALUE, "port"},
    {'t', OPT_VALUE | OPT_CLIENT, "time"},
    {'n', OPT_VALUE | OPT_CLIENT, "num"},
    {'n', OPT_VALUE | OPT_CLIENT, "bytes"},
    {'b', OPT_VALUE | OPT_CLIENT, "bandwidth"},
    {'b', OPT_VALUE | OPT_CLIENT, "bitrate"},
    {'l', OPT_VALUE | OPT_CLIENT, "len"},
    {'l', OPT_VALUE | OPT_CLIENT, "length"},
    {'i', OPT_VALUE, "interval"},
    {'d', OPT_CLIENT | OPT_IPERF2, "dualtest"},
    {'d', OPT_CLIENT | OPT_IPERF3 | OPT_LONG, "bidir"},
    {'r', OPT_CLIENT | OPT_IPERF2, "tradeoff"},
    {'L', OPT_VALUE | OPT_CLIENT | OPT_IPERF2, "listenport"},
    {'R', OPT_CLIENT, "reverse"},
    {'P', OPT_VALUE | OPT_CLIENT, "parallel"},
    {'O', OPT_VALUE | OPT_CLIENT | OPT_IPERF3, "omit"},
    {'h', 0, "help"},
    {'M', OPT_VALUE | OPT_LONG, "server-max-duration"}, /* linkperf's and iperf3 3.20's */
};
#define CMD_NOPTS (sizeof(cmd_opts) / sizeof(cmd_opts[0]))

/* What the words said, before the cross-checks. */
struct cmd_args {
  struct lpa_config cfg;
  uint8_t server, client, udp, help;
  uint8_t has_t, has_n, has_b, has_l, has_L, has_M;
  char opt_s[3];     /* "-X" of an option refused with -s, for the message */
  const char *l_val; /* -l as typed, checked once -u is known */
  const char *b_val;
};

/* One option with its value (NULL for flags). */
static int take(const struct cmd_ctx *x, struct cmd_args *a, const struct cmd_opt *o,
                const char *v) {
  uint8_t iperf2 = a->cfg.dialect == LPA_DIALECT_IPERF2;
  char name[3];
  uint64_t n;
  name[0] = '-';
  name[1] = o->letter;
  name[2] = '\0';
  if ((o->flags & OPT_CLIENT) && a->opt_s[0] == '\0') memcpy(a->opt_s, name, 3);
  switch (o->letter) {
    case 's':
      a->server = 1;
      return 0;
    case 'c':
      if (ipaddr_aton(v, &a->cfg.peer) == 0 || ip_addr_isany(&a->cfg.peer))
        return bad(x, name, v, "not an IP address (no name lookup: give e.g. 192.168.1.10)");
      a->client = 1;
      return 0;
    case 'u':
      a->udp = 1;
      return 0;
    case 'p':
    case 'L':
      if (parse_uint(v, 1, 65535, &n)) return bad(x, name, v, "port 1..65535");
      if (o->letter == 'p') a->cfg.port = (uint16_t)n;
      else a->cfg.back_port = (uint16_t)n;
      a->has_L |= o->letter == 'L';
      return 0;
    case 't':
      if (parse_ms(v, &n) || n < 100 || n > 86400000u)
        return bad(x, name, v, "seconds 0.1..86400, at most 3 decimals");
      a->cfg.duration_ms = (uint32_t)n;
      a->has_t = 1;
      return 0;
    case 'n':
      if (parse_amount(v, iperf2 ? 1000 : 1024, 1024, &n) || n == 0)
        return bad(x, name, v, "bytes 1.. with an optional K, M or G");
      a->cfg.amount_bytes = n;
      a->has_n = 1;
      return 0;
    case 'b':
      a->b_val = v;
      a->has_b = 1;
      return 0;
    case 'l':
      a->l_val = v;
      a->has_l = 1;
      return 0;
    case 'i':
      if (parse_ms(v, &n) || (n != 0 && (n < 100 || n > 3600000u)))
        return bad(x, name, v, "seconds 0 (no interim reports) or 0.1..3600");
      a->cfg.interval_ms = n == 0 ? LPA_INTERVAL_NONE : (uint32_t)n;
      return 0;
    case 'd':
    case 'r':
    case 'R':
      n = o->letter == 'd' ? LPA_MODE_DUAL : o->letter == 'r' ? LPA_MODE_TRADEOFF : LPA_MODE_REVERSE;
      if (a->cfg.mode != LPA_MODE_ONEWAY && a->cfg.mode != n)
        return bad(x, iperf2 ? name : o->letter == 'd' ? "--bidir" : "-R", NULL,
                   iperf2 ? "-d, -r and -R exclude each other" : "--bidir and -R exclude each other");
      a->cfg.mode = (uint8_t)n;
      return 0;
    case 'M':
      if (parse_uint(v, 1, 86400, &n))
        return bad(x, "--server-max-duration", v, "seconds 1..86400");
      a->cfg.duration_ms = (uint32_t)n * 1000u;
      a->has_M = 1;
      return 0;
    case 'O':
      if (parse_uint(v, 0, 600, &n)) return bad(x, name, v, "seconds 0..600");
      a->cfg.omit_s = (uint16_t)n;
      return 0;
    case 'P':
      if (parse_uint(v, 1, 128, &n)) return bad(x, name, v, "streams 1..128");
      if (n > 1 && iperf2) return bad(x, name, v, "the agent's iperf2 client runs one stream");
      if (n > LPA_MAX_STREAMS) return bad(x, name, v, "more streams than LPA_MAX_STREAMS");
      a->cfg.streams = (uint8_t)n;
      return 0;
    default: /* 'h' */
      a->help = 1;
      return 0;
  }
}

/* The option's spelling belongs to this dialect. */
static int in_dialect(const struct cmd_opt *o, uint8_t iperf2) {
  return !(o->flags & (iperf2 ? OPT_IPERF3 : OPT_IPERF2));
}

static const struct cmd_opt *find_letter(char c, uint8_t iperf2) {
  size_t i;
  for (i = 0; i < CMD_NOPTS; i++)
    if (cmd_opts[i].letter == c && !(cmd_opts[i].flags & OPT_LONG) && in_dialect(&cmd_opts[i], iperf2))
      return &cmd_opts[i];
  return NULL;
}

static const struct cmd_opt *find_name(const char *s, uint8_t iperf2) {
  size_t i;
  for (i = 0; i < CMD_NOPTS; i++)
    if (strcmp(cmd_opts[i].name, s) == 0 && in_dialect(&cmd_opts[i], iperf2)) return &cmd_opts[i];
  return NULL;
}

/* getopt's rules: letters may be grouped ("-ud"), a value may follow its letter directly
 * ("-p5001") or be the next word; "--name" and "--name=value" for the long names. */
static int parse_words(const struct cmd_ctx *x, struct cmd_args *a, char **w, int n) {
  uint8_t iperf2 = a->cfg.dialect == LPA_DIALECT_IPERF2;
  int i, err;
  for (i = 1; i < n; i++) {
    const char *p = w[i];
    if (p[0] != '-' || p[1] == '\0') return bad(x, NULL, NULL, "unexpected word (options start with -)");
    if (p[1] == '-') {
      char *eq = strchr(w[i], '=');
      const struct cmd_opt *o;
      if (eq != NULL) *eq = '\0';
      o = find_name(p + 2, iperf2);
      if (o == NULL) return bad(x, p, NULL, "unknown option");
      if ((o->flags & OPT_VALUE) && eq == NULL && i + 1 >= n) return bad(x, p, NULL, "needs a value");
      if (!(o->flags & OPT_VALUE) && eq != NULL) return bad(x, p, NULL, "takes no value");
      err = take(x, a, o, !(o->flags & OPT_VALUE) ? NULL : eq != NULL ? eq + 1 : w[++i]);
      if (err) return err;
      continue;
    }
    for (p++; *p != '\0'; p++) {
      const struct cmd_opt *o = find_letter(*p, iperf2);
      char name[3];
      name[0] = '-';
      name[1] = *p;
      name[2] = '\0';
      if (o == NULL) return bad(x, name, NULL, "unknown option");
      if (o->flags & OPT_VALUE) {
        const char *v = p[1] != '\0' ? p + 1 : i + 1 < n ? w[++i] : NULL;
        if (v == NULL) return bad(x, name, NULL, "needs a value");
        err = take(x, a, o, v);
        if (err) return err;
        break;
      }
      err = take(x, a, o, NULL);
      if (err) return err;
    }
  }
  return 0;
}

/* The checks that need all options: role, -l against the protocol, -b 0. */
static int check(const struct cmd_ctx *x, struct cmd_args *a) {
  struct lpa_config *c = &a->cfg;
  uint8_t iperf2 = c->dialect == LPA_DIALECT_IPERF2;
  uint64_t n;
  if (a->server && a->client) return bad(x, NULL, NULL, "-s and -c exclude each other");
  if (!a->server && !a->client) return bad(x, NULL, NULL, "need -s or -c HOST (see help)");
  if (a->server) {
    if (a->opt_s[0] != '\0') return bad(x, a->opt_s, NULL, "a client option (not with -s)");
    if (a->udp && !iperf2)
      return bad(x, "-u", NULL, "a client option (an iperf3 server takes TCP and UDP tests)");
    c->role = LPA_ROLE_SERVER;
  } else {
    if (a->has_M) return bad(x, "--server-max-duration", NULL, "a server option (not with -c)");
    c->role = LPA_ROLE_CLIENT;
  }
  c->proto = a->udp ? LPA_PROTO_UDP : LPA_PROTO_TCP;
#if !LPA_UDP
  if (a->udp && a->client) return bad(x, "-u", NULL, "UDP is not compiled in (LPA_UDP=0)");
#endif
  if (a->has_t && a->has_n) return bad(x, "-n", NULL, "-t and -n exclude each other");
  if (c->mode == LPA_MODE_DUAL && !iperf2 && c->streams * 2u > LPA_MAX_STREAMS)
    return bad(x, "-P", NULL, "--bidir runs twice -P streams: more than LPA_MAX_STREAMS");
  if (a->has_l) {
    uint64_t lo = !a->udp ? 1u : iperf2 ? 40u : 16u;
    uint64_t hi = a->udp ? LPA_UDP_MAX_LEN : 1048576u;
    if (parse_amount(a->l_val, iperf2 ? 1000 : 1024, 1024, &n) || n < lo || n > hi) {
      struct lpa_line l;
      lpa_line_init(&l);
      lpa_line_str(&l, a->udp ? "UDP datagram bytes " : "TCP write bytes ");
      lpa_line_u64(&l, lo, 0);
      lpa_line_str(&l, "..");
      lpa_line_u64(&l, hi, 0);
      l.buf[l.len] = '\0';
      return bad(x, "-l", a->l_val, l.buf);
    }
    c->len = (uint32_t)n;
  }
  if (a->has_b) {
    if (parse_amount(a->b_val, 1000, iperf2 ? 1024 : 1000, &n) || n > 100000000000ull)
      return bad(x, "-b", a->b_val, "bits/s 0..100000000000 with an optional k, m or g");
    if (n == 0 && a->udp) return bad(x, "-b", a->b_val, "UDP needs a rate (no unlimited UDP)");
    c->rate_bps = n;
  }
  if (c->port == 0) c->port = iperf2 ? 5001 : 5201;
  return 0;
}

/* "[  2] iperf3 client: UDP to 192.168.1.10 port 5201, reverse" */
static void acknowledge(const struct cmd_ctx *x, const struct lpa_config *c, int index) {
  static const char *const modes[] = {"", ", dual test", ", tradeoff", ", reverse", ", bidir"};
  struct lpa_line l;
  lpa_line_init(&l);
  lpa_line_id(&l, (unsigned)index + 1u);
  lpa_line_str(&l, x->cmd);
  if (c->role == LPA_ROLE_SERVER) {
    lpa_line_str(&l, c->dialect == LPA_DIALECT_IPERF2 ? " server listening on TCP and UDP port "
                                                      : " server listening on port ");
    lpa_line_u64(&l, c->port, 0);
  } else {
    lpa_line_str(&l, c->proto == LPA_PROTO_UDP ? " client: UDP to " : " client: TCP to ");
    lpa_line_ip(&l, &c->peer);
    lpa_line_str(&l, " port ");
    lpa_line_u64(&l, c->port, 0);
    lpa_line_str(&l, modes[c->mode == LPA_MODE_DUAL && c->dialect == LPA_DIALECT_IPERF3 ? 4 : c->mode & 3u]);
  }
  lpa_line_print(&l, x->print, x->arg);
}

static int start(const struct cmd_ctx *x, char **w, int n, uint8_t dialect) {
  struct cmd_args a;
  struct cmd_binding *b;
  int err;
  memset(&a, 0, sizeof(a));
  lpa_config_defaults(&a.cfg, LPA_ROLE_SERVER, LPA_PROTO_TCP, dialect);
  err = parse_words(x, &a, w, n);
  if (err) return err;
  if (a.help) return help(x);
  err = check(x, &a);
  if (err) return err;
  b = binding_take(x->print, x->arg);
  err = b != NULL ? lpa_start(&a.cfg, on_report, b) : LPA_EBUSY;
  if (b != NULL) binding_started(b, err);
  if (err >= 0) acknowledge(x, &a.cfg, err);
  else if (err == LPA_EBUSY) (void)bad(x, NULL, NULL, "all sessions are busy (stop one first)");
  else if (err == LPA_ENET)
    (void)bad(x, NULL, NULL, "the stack refused (port in use, no memory or no route; lpa_init called?)");
  else (void)bad(x, NULL, NULL, "the agent refused this test (not supported by this build)");
  return err;
}

static int stop(const struct cmd_ctx *x, char **w, int n) {
  uint64_t id = 0;
  int err;
  if (n > 2) return bad(x, NULL, NULL, "usage: stop [ID]");
  if (n == 2 && parse_uint(w[1], 1, 2 * LPA_MAX_SESSIONS, &id)) {
    struct lpa_line l;
    lpa_line_init(&l);
    lpa_line_str(&l, "ID 1..");
    lpa_line_u64(&l, 2 * LPA_MAX_SESSIONS, 0);
    l.buf[l.len] = '\0';
    return bad(x, w[1], NULL, l.buf);
  }
  /* IDs of a test's second connection count on from LPA_MAX_SESSIONS (lpa_format.c). */
  err = lpa_stop(n == 2 ? (int)((id - 1) % LPA_MAX_SESSIONS) : -1);
  if (err == LPA_ENOENT) (void)bad(x, NULL, NULL, n == 2 ? "no such session" : "nothing is running");
  else if (err == 0) say(x, "stopped ", n == 2 ? "session " : "all sessions", n == 2 ? w[1] : NULL, NULL);
  return err;
}

/* "conns 2 in use of 24": the back end's connection slots, to see that finished tests give
 * theirs back. */
static int stats(const struct cmd_ctx *x) {
  struct lpa_line l;
  int n;
  lpa_net_lock();
  n = lpa_net_conns_in_use();
  lpa_net_unlock();
  lpa_line_init(&l);
  lpa_line_str(&l, "conns ");
  lpa_line_u64(&l, (uint64_t)n, 0);
  lpa_line_str(&l, " in use of ");
  lpa_line_u64(&l, LPA_MAX_CONNS, 0);
  lpa_line_print(&l, x->print, x->arg);
  return 0;
}

int lpa_command(const char *line, lpa_print_fn print, void *arg) {
  char buf[LPA_CMD_LINE_MAX + 1];
  char *w[CMD_WORDS_MAX];
  struct cmd_ctx x;
  size_t len = 0;
  int n = 0;
  char *p = buf;
  x.print = print;
  x.arg = arg;
  x.cmd = "console";
  if (line == NULL) return 0;
  while (len <= LPA_CMD_LINE_MAX && line[len] != '\0') len++;
  if (len > LPA_CMD_LINE_MAX) return bad(&x, NULL, NULL, "line too long");
  memcpy(buf, line, len + 1);
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') *p++ = '\0';
    if (*p == '\0') break;
    if (n == CMD_WORDS_MAX) return bad(&x, NULL, NULL, "too many words");
    w[n++] = p;
    while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
  }
  if (n == 0) return 0;
  x.cmd = w[0];
  if (strcmp(w[0], "iperf") == 0 || strcmp(w[0], "iperf3") == 0) {
    uint8_t dialect = w[0][5] == '3' ? LPA_DIALECT_IPERF3 : LPA_DIALECT_IPERF2;
    if ((dialect == LPA_DIALECT_IPERF2 && !LPA_IPERF2) || (dialect == LPA_DIALECT_IPERF3 && !LPA_IPERF3))
      return bad(&x, NULL, NULL, "this protocol is not compiled in (LPA_IPERF2 / LPA_IPERF3)");
    return start(&x, w, n, dialect);
  }
  if (strcmp(w[0], "stop") == 0) return stop(&x, w, n);
  if (strcmp(w[0], "stats") == 0) return stats(&x);
  if (strcmp(w[0], "help") == 0 || strcmp(w[0], "?") == 0) return help(&x);
  x.cmd = "console";
  return bad(&x, w[0], NULL, "unknown command (try help)");
}

#endif

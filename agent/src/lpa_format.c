/* Reports as text in iperf2's or iperf3's column layout, one print call per line. Integer
 * arithmetic only (no printf family, no floating point), so a Cortex-M build pulls in neither;
 * the only divisions are by powers of ten. It keeps no state: the column headers come with
 * the START and FINAL reports, not once per test. */
#include <string.h>

#include "lpa_format.h"

#if LPA_FORMAT

static const uint64_t pow10_tab[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

/* ---- the line builder ---- */

void lpa_line_init(struct lpa_line *l) {
  l->len = 0;
  l->buf[0] = '\0';
}

/* One byte is always left for the '\n' lpa_line_print adds. */
static void put_c(struct lpa_line *l, char c) {
  if (l->len < LPA_LINE_MAX - 1) l->buf[l->len++] = c;
}

void lpa_line_str(struct lpa_line *l, const char *s) {
  while (*s) put_c(l, *s++);
}

void lpa_line_pad(struct lpa_line *l, unsigned n) {
  for (; n > 0; n--) put_c(l, ' ');
}

/* Decimal digits of v by subtracting powers of ten: no 64-bit division helper needed. */
static unsigned digits(uint64_t v, char *out) {
  unsigned n = 0;
  int i;
  for (i = 19; i >= 0; i--) {
    char d = '0';
    while (v >= pow10_tab[i]) {
      v -= pow10_tab[i];
      d++;
    }
    if (d != '0' || n != 0 || i == 0) out[n++] = d;
  }
  return n;
}

void lpa_line_u64(struct lpa_line *l, uint64_t v, unsigned width) {
  char d[20];
  unsigned i, n = digits(v, d);
  if (width > n) lpa_line_pad(l, width - n);
  for (i = 0; i < n; i++) put_c(l, d[i]);
}

/* n / 10^dec with dec decimals, as %W.Df prints it: right-aligned in width, or left-aligned
 * (padded after) when left is set. */
static void put_fixed(struct lpa_line *l, uint64_t n, unsigned dec, unsigned width, int left) {
  char d[20];
  unsigned i, nd = digits(n, d);
  unsigned whole = nd > dec ? nd - dec : 0; /* digits before the point */
  unsigned len = (whole ? whole : 1) + (dec ? dec + 1 : 0);
  if (!left && width > len) lpa_line_pad(l, width - len);
  if (whole == 0) put_c(l, '0');
  for (i = 0; i < whole; i++) put_c(l, d[i]);
  if (dec) {
    put_c(l, '.');
    for (i = nd; i < dec; i++) put_c(l, '0'); /* leading zeros of the fraction */
    for (i = whole; i < nd; i++) put_c(l, d[i]);
  }
  if (left && width > len) lpa_line_pad(l, width - len);
}

void lpa_line_id(struct lpa_line *l, unsigned id) {
  put_c(l, '[');
  lpa_line_u64(l, id, 3);
  lpa_line_str(l, "] ");
}

void lpa_line_ip(struct lpa_line *l, const ip_addr_t *ip) {
  char buf[IPADDR_STRLEN_MAX];
  if (ipaddr_ntoa_r(ip, buf, (int)sizeof(buf)) != NULL) lpa_line_str(l, buf);
  else lpa_line_str(l, "?");
}

void lpa_line_print(struct lpa_line *l, lpa_print_fn print, void *arg) {
  l->buf[l->len++] = '\n';
  l->buf[l->len] = '\0';
  if (print) print(l->buf, arg);
  lpa_line_init(l);
}

/* ---- numbers as iperf prints them ---- */

/* q rounded by its remainder: twice the remainder r2 against the divisor. Ties go to the
 * even neighbour, as printf rounds an exactly representable value (1.125 -> "1.12"). */
static uint64_t round_even(uint64_t q, uint64_t r2, uint64_t den) {
  if (r2 > den || (r2 == den && (q & 1u))) q++;
  return q;
}

/* x / base^unit, times 10^dec and rounded. Bytes: base 1024, done with shifts; bits: base
 * 1000. x is below base^(unit+1) except in the top unit, so no product overflows. */
static uint64_t scaled(uint64_t x, unsigned unit, int bytes, unsigned dec) {
  uint64_t p = pow10_tab[dec];
  if (unit == 0) return x * p;
  if (bytes) {
    unsigned sh = 10u * unit;
    uint64_t mask = ((uint64_t)1 << sh) - 1u, lo = (x & mask) * p;
    return round_even((x >> sh) * p + (lo >> sh), (lo & mask) << 1, (uint64_t)1 << sh);
  } else {
    uint64_t den = pow10_tab[3u * unit - dec];
    return round_even(x / den, (x % den) << 1, den);
  }
}

/* A Transfer or Bandwidth/Bitrate value: four characters and a unit ("9.96 Mbits/sec",
 * " 895 KBytes"). Adaptive units; the precision shrinks as the value grows, and iperf2 adds
 * a third decimal below 1 ("0.000 Bytes"). */
static void put_value(struct lpa_line *l, uint64_t x, int bytes, int iperf2) {
  static const char prefix[] = " KMGT";
  unsigned unit = 0, dec = iperf2 ? 3u : 2u;
  uint64_t q;
  while (unit < 4 && x >= (bytes ? (uint64_t)1 << (10u * (unit + 1u)) : pow10_tab[3u * (unit + 1u)]))
    unit++;
  for (;;) {
    q = scaled(x, unit, bytes, dec);
    if (q < 1000u || dec == 0) break;
    dec--;
  }
  put_fixed(l, q, dec, 4, 0);
  put_c(l, ' ');
  if (unit) put_c(l, prefix[unit]);
  lpa_line_str(l, bytes ? "Bytes" : "bits/sec");
}

/* Milliseconds as seconds with dec (1..3) decimals. */
static void put_secs(struct lpa_line *l, uint32_t ms, unsigned dec, unsigned width, int left) {
  uint32_t den = (uint32_t)pow10_tab[3u - dec];
  put_fixed(l, round_even(ms / den, (uint64_t)(ms % den) << 1, den), dec, width, left);
}

/* The next decimal digit of rem / total (rem < total); rem becomes 10 rem mod total. Ten
 * additions instead of a multiplication that could overflow and a division. */
static uint8_t next_digit(uint64_t *rem, uint64_t total) {
  uint64_t acc = 0, r = *rem;
  uint8_t d = 0, i;
  for (i = 0; i < 10; i++) {
    if (acc >= total - r) {
      acc -= total - r;
      d++;
    } else {
      acc += r;
    }
  }
  *rem = acc;
  return d;
}

/* 100 * lost / total as %.2g prints it: two significant digits, trailing zeros dropped,
 * exponent form below 1e-4 and from 100 up ("0", "9.1", "13", "0.012", "1e+02"). Exact for
 * any 64-bit counts. */
static void put_percent(struct lpa_line *l, uint64_t lost, uint64_t total) {
  char dig[24];
  unsigned nd = 0, i, m, ae;
  int e, tail = 0;
  uint64_t rem;
  if (lost == 0 || total == 0) {
    put_c(l, '0');
    return;
  }
  /* Digits of lost / total, the first one at 10^e of the percentage (two places up). */
  rem = lost % total;
  if (lost / total != 0) {
    nd = digits(lost / total, dig);
    e = (int)nd + 1;
  } else {
    e = 1;
    while ((dig[0] = (char)('0' + next_digit(&rem, total))) == '0') e--;
    nd = 1;
  }
  while (nd < 3) dig[nd++] = (char)('0' + next_digit(&rem, total));
  for (i = 3; i < nd; i++) tail |= dig[i] != '0';
  tail |= rem != 0;
  m = (unsigned)(dig[0] - '0') * 10u + (unsigned)(dig[1] - '0');
  if (dig[2] > '5' || (dig[2] == '5' && (tail || (m & 1u)))) m++;
  if (m == 100) {
    m = 10;
    e++;
  }
  ae = (unsigned)(e < 0 ? -e : e);
  if (e >= 2 || e < -4) { /* "1.5e+02", "1e-05" */
    put_c(l, (char)('0' + m / 10u));
    if (m % 10u) {
      put_c(l, '.');
      put_c(l, (char)('0' + m % 10u));
    }
    put_c(l, 'e');
    put_c(l, e < 0 ? '-' : '+');
    if (ae < 10) put_c(l, '0'); /* at least two digits */
    lpa_line_u64(l, ae, 0);
  } else if (e == 1) { /* "13" */
    lpa_line_u64(l, m, 0);
  } else if (e == 0) { /* "9.1", "5" */
    put_c(l, (char)('0' + m / 10u));
    if (m % 10u) {
      put_c(l, '.');
      put_c(l, (char)('0' + m % 10u));
    }
  } else { /* "0.12", "0.0012" */
    lpa_line_str(l, "0.");
    for (i = 1; i < ae; i++) put_c(l, '0');
    put_c(l, (char)('0' + m / 10u));
    if (m % 10u) put_c(l, (char)('0' + m % 10u));
  }
}

/* " lost/total (pct%)" */
static void put_loss(struct lpa_line *l, const struct lpa_report *r) {
  lpa_line_u64(l, r->lost, 0);
  put_c(l, '/');
  lpa_line_u64(l, r->packets, 0);
  lpa_line_str(l, " (");
  put_percent(l, r->lost, r->packets);
  lpa_line_str(l, "%)");
}

/* ---- rows ---- */

/* Session index + 1; the second connection of a test (iperf2 -d/-r) counts on from
 * LPA_MAX_SESSIONS, so both directions have their own lines, as iperf2 prints them. */
static unsigned id_of(const struct lpa_report *r) {
  return r->session + 1u + (r->stream ? (unsigned)LPA_MAX_SESSIONS : 0u);
}

/* A PEER report holds what the other side measured: its direction is the opposite of ours. */
static int measured_rx(const struct lpa_report *r) {
  return (r->dir == LPA_DIR_RX) != (r->kind == LPA_REPORT_PEER);
}

/* "[  1] connected with 10.0.0.1 port 5001 (TCP, receiving)" and the column header. */
static void start_lines(const struct lpa_report *r, lpa_print_fn print, void *arg) {
  struct lpa_line l;
  int i3 = r->dialect == LPA_DIALECT_IPERF3, udp = r->proto == LPA_PROTO_UDP;
  lpa_line_init(&l);
  lpa_line_id(&l, id_of(r));
  lpa_line_str(&l, i3 ? "connected to " : "connected with ");
  lpa_line_ip(&l, &r->peer);
  lpa_line_str(&l, " port ");
  lpa_line_u64(&l, r->peer_port, 0);
  lpa_line_str(&l, udp ? " (UDP, " : " (TCP, ");
  lpa_line_str(&l, r->dir == LPA_DIR_RX ? "receiving)" : "sending)");
  lpa_line_print(&l, print, arg);
  if (i3) {
    lpa_line_str(&l, "[ ID] Interval           Transfer     Bitrate");
    if (udp)
      lpa_line_str(&l, r->dir == LPA_DIR_RX ? "         Jitter    Lost/Total Datagrams"
                                            : "         Total Datagrams");
  } else {
    lpa_line_str(&l, "[ ID] Interval       Transfer     Bandwidth");
    if (udp && r->dir == LPA_DIR_RX) lpa_line_str(&l, "        Jitter   Lost/Total Datagrams");
  }
  lpa_line_print(&l, print, arg);
}

static void ooo_line(const struct lpa_report *r, int sum, unsigned dec, lpa_print_fn print,
                     void *arg) {
  struct lpa_line l;
  unsigned w = dec == 1 ? 4u : 0u;
  lpa_line_init(&l);
  if (sum) lpa_line_str(&l, "[SUM] ");
  else lpa_line_id(&l, id_of(r));
  put_secs(&l, r->start_ms, dec, w, 0);
  put_c(&l, '-');
  put_secs(&l, r->end_ms, dec, w, 0);
  lpa_line_str(&l, " sec  ");
  lpa_line_u64(&l, r->out_of_order, 0);
  lpa_line_str(&l, " datagrams received out-of-order");
  lpa_line_print(&l, print, arg);
}

/* iperf2: "[  1] 0.00-1.00 sec  11.2 MBytes  94.1 Mbits/sec", receivers of UDP add
 * "   0.012 ms 0/850 (0%)" and an out-of-order line. */
static void iperf2_row(const struct lpa_report *r, lpa_print_fn print, void *arg) {
  struct lpa_line l;
  int udp_rx = r->proto == LPA_PROTO_UDP && measured_rx(r);
  lpa_line_init(&l);
  if (r->kind == LPA_REPORT_PEER) {
    lpa_line_id(&l, id_of(r));
    lpa_line_str(&l, "Server Report:");
    lpa_line_print(&l, print, arg);
  }
  lpa_line_id(&l, id_of(r));
  put_secs(&l, r->start_ms, 2, 4, 0);
  put_c(&l, '-');
  put_secs(&l, r->end_ms, 2, 4, 0);
  lpa_line_str(&l, " sec  ");
  put_value(&l, r->bytes, 1, 1);
  lpa_line_pad(&l, 2);
  put_value(&l, r->bps, 0, 1);
  if (udp_rx) {
    lpa_line_pad(&l, 2);
    put_fixed(&l, r->jitter_us, 3, 6, 0);
    lpa_line_str(&l, " ms ");
    put_loss(&l, r);
  }
  lpa_line_print(&l, print, arg);
  if (udp_rx && r->out_of_order != 0) ooo_line(r, 0, 2, print, arg);
  if (r->kind == LPA_REPORT_FINAL && r->proto == LPA_PROTO_UDP && r->dir == LPA_DIR_TX) {
    lpa_line_id(&l, id_of(r));
    lpa_line_str(&l, "Sent ");
    lpa_line_u64(&l, r->packets, 0);
    lpa_line_str(&l, " datagrams");
    lpa_line_print(&l, print, arg);
  }
}

#define I3_SEPARATOR "- - - - - - - - - - - - - - - - - - - - - - - - -"
#define I3_PAD_NO_RETR 18 /* summary and TCP rows pad to where iperf3's Cwnd column ends */

/* iperf3: "[  1]   0.00-1.00   sec  11.2 MBytes  94.1 Mbits/sec" + the UDP columns, and on
 * summary rows the "sender"/"receiver" tag. */
static void iperf3_row(const struct lpa_report *r, lpa_print_fn print, void *arg) {
  struct lpa_line l;
  int summary = r->kind != LPA_REPORT_INTERVAL, udp = r->proto == LPA_PROTO_UDP;
  const char *tag = !summary ? (r->omitted ? "(omitted)" : "") : measured_rx(r) ? "receiver"
                                                                                 : "sender";
  lpa_line_init(&l);
  if (r->kind == LPA_REPORT_FINAL) {
    lpa_line_str(&l, I3_SEPARATOR);
    lpa_line_print(&l, print, arg);
    lpa_line_str(&l, "[ ID] Interval           Transfer     Bitrate");
    if (udp) lpa_line_str(&l, "         Jitter    Lost/Total Datagrams");
    lpa_line_print(&l, print, arg);
  }
  if (summary && udp && measured_rx(r) && r->out_of_order != 0) ooo_line(r, 1, 1, print, arg);
  lpa_line_id(&l, id_of(r));
  put_secs(&l, r->start_ms, 2, 6, 0);
  put_c(&l, '-');
  put_secs(&l, r->end_ms, 2, 6, 1);
  lpa_line_str(&l, " sec  ");
  put_value(&l, r->bytes, 1, 0);
  lpa_line_pad(&l, 2);
  put_value(&l, r->bps, 0, 0);
  if (udp && (summary || measured_rx(r))) {
    /* A sender's summary row shows jitter 0 and its own count (the report carries both). */
    lpa_line_pad(&l, 2);
    put_fixed(&l, r->jitter_us, 3, 5, 0);
    lpa_line_str(&l, " ms  ");
    put_loss(&l, r);
    lpa_line_pad(&l, 2);
  } else if (udp) {
    lpa_line_pad(&l, 2);
    lpa_line_u64(&l, r->packets, 0);
    lpa_line_pad(&l, 2);
  } else {
    lpa_line_pad(&l, I3_PAD_NO_RETR);
  }
  lpa_line_str(&l, tag);
  lpa_line_print(&l, print, arg);
}

void lpa_format_report(const struct lpa_report *r, lpa_print_fn print, void *arg) {
  struct lpa_line l;
  if (r == NULL || print == NULL) return;
  switch (r->kind) {
    case LPA_REPORT_START:
      start_lines(r, print, arg);
      break;
    case LPA_REPORT_INTERVAL:
    case LPA_REPORT_FINAL:
    case LPA_REPORT_PEER:
      if (r->dialect == LPA_DIALECT_IPERF3) iperf3_row(r, print, arg);
      else iperf2_row(r, print, arg);
      break;
    case LPA_REPORT_ERROR:
      lpa_line_init(&l);
      lpa_line_id(&l, id_of(r));
      lpa_line_str(&l, "error: ");
      lpa_line_str(&l, lpa_error_text(r->error));
      lpa_line_print(&l, print, arg);
      break;
    default: /* DONE: the final rows already said it all */
      break;
  }
}

#define LPA_ERR_TEXT_(name, text) text,
static const char *const error_texts[] = {"no error", LPA_ERRORS(LPA_ERR_TEXT_)};

const char *lpa_error_text(unsigned error) {
  return error < LPA_ERR_COUNT ? error_texts[error] : "unknown error";
}

#endif

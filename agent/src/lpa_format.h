/* The formatter's line builder, shared with the console: text is assembled in a fixed buffer
 * without the printf family (a board build may have none) and handed to a print function. */
#ifndef LPA_FORMAT_H
#define LPA_FORMAT_H

#include "lpa.h"

/* Longest line the agent prints, '\n' included; longer text is cut, never overflows. */
#define LPA_LINE_MAX 160

struct lpa_line {
  char buf[LPA_LINE_MAX + 1];
  uint16_t len;
};

void lpa_line_init(struct lpa_line *l);
void lpa_line_str(struct lpa_line *l, const char *s);
void lpa_line_pad(struct lpa_line *l, unsigned n);
/* Decimal, right-aligned in width (0: no padding). */
void lpa_line_u64(struct lpa_line *l, uint64_t v, unsigned width);
/* "[  3] ": iperf's stream id column. */
void lpa_line_id(struct lpa_line *l, unsigned id);
void lpa_line_ip(struct lpa_line *l, const ip_addr_t *ip);
/* Adds '\n' and prints; the line is empty again afterwards. */
void lpa_line_print(struct lpa_line *l, lpa_print_fn print, void *arg);

#endif

/* Argument grammar of the CLI: numbers, iperf3 unit suffixes, TOS/DSCP values, and the
 * one-line error type every CLI parser fills. Pure functions, no allocation. */
#ifndef LP_CLI_VALUES_H
#define LP_CLI_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#define LP_CLI_ERR_MAX 512

/* One line, no "linkperf: " prefix and no newline: main adds both. */
struct lp_cli_err {
    char msg[LP_CLI_ERR_MAX];
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int lp_cli_err_set(struct lp_cli_err *err, const char *fmt, ...); /* returns -1 */

/* Each returns 0, or -1 when the text is not a number of that kind. Values are exact
 * for integers up to 2^53, which covers every range in the table. */
int lp_cli_value_int(const char *s, bool cprefix, double *out);  /* "-3", "0x34", "064" */
int lp_cli_value_num(const char *s, double *out);                 /* "0.5", "-1" */
/* iperf3 units: optional fraction, then one of k K m M g G t T; base 1000 or 1024.
 * The result is truncated to an integer like iperf3's unit_atoi. */
int lp_cli_value_units(const char *s, unsigned base, double *out);
/* iperf2 2.1 numbers (-l -n -w -b -M): optional fraction, then one of k m g (1000-based) or
 * K M G (1024-based): "10m" is 10000000, "10M" 10485760; then an optional B or b, which
 * means nothing (2.1.8 reads bytes either way: "512.0B" is 512, "10MB" 10485760). Truncated
 * to an integer like 2.1.8's byte_atoi. */
int lp_cli_value_units2(const char *s, double *out);
/* One entry of a list of named values an option takes (the page's select lists, through the
 * options document): the text the option is given and what a person reads for it. */
struct lp_cli_choice {
    char value[16];
    char label[48];
};
/* Writes a list's i-th entry to *c; false past its end. */
typedef bool (*lp_cli_choice_fn)(size_t i, struct lp_cli_choice *c);

/* --dscp: a number 0..63 (C prefixes allowed) or a name (AF11..AF43, CS0..CS7, EF, VA),
 * case-insensitive. Returns 0, -1 when malformed, -2 when a number is out of range. */
int lp_cli_value_dscp(const char *s, int *dscp);
/* The names --dscp takes, in order, labelled with their code point: "AF41", "AF41 (34)". */
bool lp_cli_value_dscp_choice(size_t i, struct lp_cli_choice *c);
/* RFC 1349's TOS values as the default spelling's -S takes them: "0x10",
 * "Minimize-Delay (0x10)". */
bool lp_cli_value_tos_choice(size_t i, struct lp_cli_choice *c);

/* iperf2 -S: a number 0..255 (C prefixes allowed) or one of iperf2's names (af11..af43,
 * cs0..cs7, ef, le, nqb, nqb2, ac_be, ac_bk, ac_vi, ac_vo, lowdelay, throughput,
 * reliability, none), case-insensitive. "none" gives -1 (leave the TOS alone).
 * Returns 0, -1 when malformed, -2 when a number is out of range. */
int lp_cli_value_tos2(const char *s, int *tos);

/* A client allowlist: comma-separated host names, IPv4/IPv6 addresses and CIDR blocks
 * (/0..32, /0..128); blanks around commas are dropped. Writes the list without blanks to
 * out. Returns 0, or -1 with why (no option name) set. */
int lp_cli_value_allow(const char *s, char *out, size_t outlen, char *why, size_t whylen);

/* Format n with the largest suffix that divides it exactly ("512M" for 536870912 in base
 * 1024, "100M" for 1e8 in base 1000), else plainly. */
void lp_cli_value_format_units(char *buf, size_t len, double n, unsigned base);
/* The same in iperf2's notation: "512M" when 1024-based fits, else "1000g", else plain. */
void lp_cli_value_format_units2(char *buf, size_t len, double n);

#endif

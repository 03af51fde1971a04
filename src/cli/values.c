/* Argument grammar: strict number, unit-suffix and DSCP parsing for the option table.
 * Does not know about options or ranges; callers name the option in their messages. */
#include "cli/values.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

int lp_cli_err_set(struct lp_cli_err *err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}

/* strtoll/strtod skip leading blanks and accept "inf", "1e3", "0x1p3": the CLI wants none
 * of that, so the text is checked against a plain grammar first. */
static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* [-]digits[.digits] followed by at most `tail` more characters; returns the length of
 * the numeric part, or 0 when there is none. */
static size_t scan_decimal(const char *s, bool fraction)
{
    size_t i = 0, digits = 0;

    if (s[i] == '-' || s[i] == '+')
        i++;
    while (is_digit(s[i])) {
        i++;
        digits++;
    }
    if (fraction && s[i] == '.') {
        i++;
        while (is_digit(s[i])) {
            i++;
            digits++;
        }
    }
    return digits ? i : 0;
}

int lp_cli_value_int(const char *s, bool cprefix, double *out)
{
    char *end = NULL;
    long long v;

    if (!s || !*s)
        return -1;
    if (!cprefix) {
        if (scan_decimal(s, false) != strlen(s))
            return -1;
    } else {
        size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
        if (!is_digit(s[i]))
            return -1;
    }
    errno = 0;
    v = strtoll(s, &end, cprefix ? 0 : 10);
    if (errno || *end != '\0')
        return -1;
    *out = (double)v;
    return 0;
}

int lp_cli_value_num(const char *s, double *out)
{
    if (!s || !*s || scan_decimal(s, true) != strlen(s))
        return -1;
    *out = strtod(s, NULL);
    return 0;
}

/* The number at the start of s times mult, truncated toward zero as iperf3's unit_atoi and
 * 2.1.8's byte_atoi do; -1 when that is not finite. */
static int scaled(const char *s, double mult, double *out)
{
    double v = strtod(s, NULL) * mult;

    if (!isfinite(v))
        return -1;
    *out = trunc(v);
    return 0;
}

int lp_cli_value_units(const char *s, unsigned base, double *out)
{
    double mult = 1.0;
    size_t n = s ? scan_decimal(s, true) : 0;

    if (n == 0)
        return -1;
    if (s[n] != '\0') {
        if (s[n + 1] != '\0')
            return -1;
        switch (s[n]) {
        case 't': case 'T': mult *= base; /* fall through */
        case 'g': case 'G': mult *= base; /* fall through */
        case 'm': case 'M': mult *= base; /* fall through */
        case 'k': case 'K': mult *= base; break;
        default: return -1;
        }
    }
    return scaled(s, mult, out);
}

int lp_cli_value_units2(const char *s, double *out)
{
    double mult = 1.0;
    size_t n = s ? scan_decimal(s, true) : 0;

    if (n == 0)
        return -1;
    if (s[n] != '\0') {
        /* 2.1.8's byte_atoi reads "%lf%c" and scales by that one letter only, so a 'B' or
         * 'b' after the number or after the letter changes nothing: JPerf's "512.0B",
         * "16.0b" and "10MB" are bytes. */
        const char *tail = s + n + 1;
        switch (s[n]) {
        case 'g': mult *= 1000.0; /* fall through */
        case 'm': mult *= 1000.0; /* fall through */
        case 'k': mult *= 1000.0; break;
        case 'G': mult *= 1024.0; /* fall through */
        case 'M': mult *= 1024.0; /* fall through */
        case 'K': mult *= 1024.0; break;
        case 'B': case 'b': tail = s + n; break;
        default: return -1;
        }
        if (*tail == 'B' || *tail == 'b')
            tail++;
        if (*tail != '\0')
            return -1;
    }
    return scaled(s, mult, out);
}

struct dscp_name {
    const char *name;
    int value;
};

/* RFC 2474/2597/3246/5865 code points, the set iperf3's --dscp understands. */
static const struct dscp_name dscp_names[] = {
    {"CS0", 0},   {"CS1", 8},   {"CS2", 16},  {"CS3", 24},  {"CS4", 32},  {"CS5", 40},
    {"CS6", 48},  {"CS7", 56},  {"AF11", 10}, {"AF12", 12}, {"AF13", 14}, {"AF21", 18},
    {"AF22", 20}, {"AF23", 22}, {"AF31", 26}, {"AF32", 28}, {"AF33", 30}, {"AF41", 34},
    {"AF42", 36}, {"AF43", 38}, {"EF", 46},   {"VA", 44},
};

bool lp_cli_value_dscp_choice(size_t i, struct lp_cli_choice *c)
{
    if (i >= sizeof(dscp_names) / sizeof(dscp_names[0]))
        return false;
    snprintf(c->value, sizeof(c->value), "%s", dscp_names[i].name);
    snprintf(c->label, sizeof(c->label), "%s (%d)", dscp_names[i].name, dscp_names[i].value);
    return true;
}

int lp_cli_value_dscp(const char *s, int *dscp)
{
    double v;
    size_t i;

    for (i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++) {
        if (strcasecmp(s, dscp_names[i].name) == 0) {
            *dscp = dscp_names[i].value;
            return 0;
        }
    }
    if (lp_cli_value_int(s, true, &v) < 0)
        return -1;
    if (v < 0 || v > 63)
        return -2;
    *dscp = (int)v;
    return 0;
}

/* RFC 1349's TOS values: the RFC's names label the default spelling's -S list, and iperf2's
 * -S takes its own names for three of them (it has none for minimize cost). */
static const struct {
    int value;
    const char *rfc1349;
    const char *iperf2;
} tos_rfc1349[] = {
    {0x02, "Minimize-Cost", NULL},
    {0x04, "Maximize-Reliability", "reliability"},
    {0x08, "Maximize-Throughput", "throughput"},
    {0x10, "Minimize-Delay", "lowdelay"},
};

bool lp_cli_value_tos_choice(size_t i, struct lp_cli_choice *c)
{
    if (i >= sizeof(tos_rfc1349) / sizeof(tos_rfc1349[0]))
        return false;
    snprintf(c->value, sizeof(c->value), "0x%02x", (unsigned)tos_rfc1349[i].value);
    snprintf(c->label, sizeof(c->label), "%s (%s)", tos_rfc1349[i].rfc1349, c->value);
    return true;
}

/* iperf2's other names: the DSCP code points shifted into the TOS byte. iperf 2.1.8 writes
 * le, nqb and nqb2 unshifted (0x1, 0x5, 0x2d), which puts them in the ECN bits; linkperf
 * sends the code points they name. */
static const struct dscp_name tos2_names[] = {
    {"le", 1 << 2},    {"nqb", 5 << 2},   {"nqb2", 45 << 2},  {"ac_be", 0},
    {"ac_bk", 8 << 2}, {"ac_vi", 32 << 2}, {"ac_vo", 46 << 2},
};

int lp_cli_value_tos2(const char *s, int *tos)
{
    double v;
    size_t i;

    if (strcasecmp(s, "none") == 0) {
        *tos = -1;
        return 0;
    }
    for (i = 0; i < sizeof(tos2_names) / sizeof(tos2_names[0]); i++) {
        if (strcasecmp(s, tos2_names[i].name) == 0) {
            *tos = tos2_names[i].value;
            return 0;
        }
    }
    for (i = 0; i < sizeof(tos_rfc1349) / sizeof(tos_rfc1349[0]); i++) {
        if (tos_rfc1349[i].iperf2 && strcasecmp(s, tos_rfc1349[i].iperf2) == 0) {
            *tos = tos_rfc1349[i].value;
            return 0;
        }
    }
    for (i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++) {
        if (strcasecmp(s, dscp_names[i].name) == 0 && strcasecmp(s, "VA") != 0) {
            *tos = dscp_names[i].value << 2;
            return 0;
        }
    }
    if (lp_cli_value_int(s, true, &v) < 0)
        return -1;
    if (v < 0 || v > 255)
        return -2;
    *tos = (int)v;
    return 0;
}

/* RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens. */
static bool is_host_name(const char *s, size_t n)
{
    size_t i, label = 0;
    bool digits_only = true;

    if (n == 0 || n > 253)
        return false;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            if (label == 0 || s[i - 1] == '-')
                return false;
            label = 0;
            continue;
        }
        if (!is_digit(c))
            digits_only = false;
        if (!(is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'))
            return false;
        if (c == '-' && label == 0)
            return false;
        if (++label > 63)
            return false;
    }
    /* "1.2.3" or "300.1.1.1" is a mistyped address, not a name. */
    return label > 0 && s[n - 1] != '-' && !digits_only;
}

static int allow_item(const char *s, size_t n, char *why, size_t whylen)
{
    char addr[INET6_ADDRSTRLEN + 8];
    unsigned char bin[16];
    const char *slash = memchr(s, '/', n);
    size_t alen = slash ? (size_t)(slash - s) : n;
    int family = 0;

    if (alen < sizeof(addr)) {
        memcpy(addr, s, alen);
        addr[alen] = '\0';
        if (inet_pton(AF_INET, addr, bin) == 1)
            family = 4;
        else if (inet_pton(AF_INET6, addr, bin) == 1)
            family = 6;
    }
    if (slash) {
        const char *p = slash + 1;
        size_t plen = n - alen - 1, i;
        unsigned prefix = 0, max = family == 6 ? 128 : 32;

        if (!family) {
            snprintf(why, whylen, "'%.*s': a /prefix needs an IPv4 or IPv6 address", (int)n, s);
            return -1;
        }
        for (i = 0; i < plen && i < 4 && is_digit(p[i]); i++)
            prefix = prefix * 10 + (unsigned)(p[i] - '0');
        if (plen == 0 || i != plen) {
            snprintf(why, whylen, "'%.*s' has a malformed /prefix", (int)n, s);
            return -1;
        }
        if (prefix > max) {
            snprintf(why, whylen, "'%.*s': prefix /%u is out of range for IPv%d (0..%u)", (int)n,
                     s, prefix, family, max);
            return -1;
        }
        return 0;
    }
    if (family || is_host_name(s, n))
        return 0;
    snprintf(why, whylen, "'%.*s' is not a host name, IPv4/IPv6 address or CIDR block", (int)n,
             s);
    return -1;
}

int lp_cli_value_allow(const char *s, char *out, size_t outlen, char *why, size_t whylen)
{
    size_t used = 0;

    if (outlen == 0)
        return -1;
    out[0] = '\0';
    for (;;) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        const char *item = s;

        while (n && *item == ' ') {
            item++;
            n--;
        }
        while (n && item[n - 1] == ' ')
            n--;
        if (n == 0) {
            snprintf(why, whylen, "empty entry in the list");
            return -1;
        }
        if (allow_item(item, n, why, whylen) < 0)
            return -1;
        if (used + n + (used ? 1 : 0) >= outlen) {
            snprintf(why, whylen, "the list is too long (at most %zu characters)", outlen - 1);
            return -1;
        }
        if (used)
            out[used++] = ',';
        memcpy(out + used, item, n);
        used += n;
        out[used] = '\0';
        if (!end)
            return 0;
        s = end + 1;
    }
}

void lp_cli_value_format_units(char *buf, size_t len, double n, unsigned base)
{
    static const char suffix[] = "KMGT";
    double scaled = n;
    int i = -1;

    while (i < 3 && scaled >= base && fmod(scaled, base) == 0.0) {
        scaled /= base;
        i++;
    }
    if (i < 0)
        snprintf(buf, len, "%.0f", n);
    else
        snprintf(buf, len, "%.0f%c", scaled, suffix[i]);
}

void lp_cli_value_format_units2(char *buf, size_t len, double n)
{
    static const char upper[] = "KMG", lower[] = "kmg";
    double up = n, low = n;
    int iu = -1, il = -1;

    while (iu < 2 && up >= 1024 && fmod(up, 1024) == 0.0) {
        up /= 1024;
        iu++;
    }
    while (il < 2 && low >= 1000 && fmod(low, 1000) == 0.0) {
        low /= 1000;
        il++;
    }
    if (il > iu) /* the shorter notation: 1e12 is "1000g", not "976562500K" */
        snprintf(buf, len, "%.0f%c", low, lower[il]);
    else if (iu >= 0)
        snprintf(buf, len, "%.0f%c", up, upper[iu]);
    else
        snprintf(buf, len, "%.0f", n);
}

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

int lp_cli_value_units(const char *s, unsigned base, double *out)
{
    double v, mult = 1.0;
    size_t n;

    if (!s || !*s)
        return -1;
    n = scan_decimal(s, true);
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
    v = strtod(s, NULL) * mult;
    if (!isfinite(v))
        return -1;
    *out = trunc(v);
    return 0;
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

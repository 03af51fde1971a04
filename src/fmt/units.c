/* iperf3's units: parsing "10M"-style option values and formatting the Transfer,
 * Bitrate and Cwnd columns. Pure functions; no locale, no allocation. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "fmt/fmt.h"
#include "fmt/units_int.h"

/* Four-character number, as iperf3 prints it: the precision shrinks as the value grows so
 * the column keeps its width ("9.96", "21.7", " 895", "1023"). */
static void put_number(char *buf, size_t len, double v, const char *label)
{
    if (v < 9.995)
        snprintf(buf, len, "%4.2f %s", v, label);
    else if (v < 99.95)
        snprintf(buf, len, "%4.1f %s", v, label);
    else
        snprintf(buf, len, "%4.0f %s", v, label);
}

const char *const lp_units_byte_labels[LP_UNITS_COUNT] = {"Bytes", "KBytes", "MBytes", "GBytes",
                                                         "TBytes"};
const char *const lp_units_bit_labels[LP_UNITS_COUNT] = {"bits", "Kbits", "Mbits", "Gbits", "Tbits"};

int lp_units_scale(double *v, double base, int want)
{
    int i = 0;

    if (want >= 0) {
        for (; i < want; i++)
            *v /= base;
        return i;
    }
    while (*v >= base && i < LP_UNITS_COUNT - 1) {
        *v /= base;
        i++;
    }
    return i;
}

void lp_units_bytes(char *buf, size_t len, double bytes)
{
    int i = lp_units_scale(&bytes, 1024.0, -1);

    put_number(buf, len, bytes, lp_units_byte_labels[i]);
}

/* Index of a pinned unit letter (k=1 .. t=4), or -1 for adaptive. */
static int pinned_index(char unit)
{
    switch (tolower((unsigned char)unit)) {
    case 'k': return 1;
    case 'm': return 2;
    case 'g': return 3;
    case 't': return 4;
    default: return -1;
    }
}

void lp_units_rate(char *buf, size_t len, double bits_per_second, char unit)
{
    /* Uppercase means bytes per second in powers of 1024; anything else bits in 1000s. */
    bool bytes = isupper((unsigned char)unit) != 0;
    double base = bytes ? 1024.0 : 1000.0;
    double v = bytes ? bits_per_second / 8.0 : bits_per_second;
    int i = lp_units_scale(&v, base, pinned_index(unit));
    char label[16];

    snprintf(label, sizeof(label), "%s/sec", bytes ? lp_units_byte_labels[i] : lp_units_bit_labels[i]);
    put_number(buf, len, v, label);
}

/* floor(a * b / d) without losing digits: a < 10^18, b <= 1024^4, d = 10^n. */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t d)
{
#ifdef __SIZEOF_INT128__
    return (uint64_t)((unsigned __int128)a * b / d);
#else
    return (uint64_t)((long double)a * (long double)b / (long double)d);
#endif
}

int lp_units_parse(const char *s, bool base1024, uint64_t *out)
{
    uint64_t ip = 0, frac = 0, pow10 = 1, mult = 1, base = base1024 ? 1024 : 1000, v;
    int digits = 0, fdigits = 0, scale = 0;
    const char *p = s;

    if (!s || !out)
        return -1;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
        uint64_t d = (uint64_t)(*p - '0');
        if (ip > UINT64_MAX / 10 || (ip == UINT64_MAX / 10 && d > UINT64_MAX % 10))
            return -1;
        ip = ip * 10 + d;
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
            /* Digits past 18 cannot change a 64-bit result by a whole unit that
             * matters for a size or rate; they are read and dropped. */
            if (fdigits < 18) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                pow10 *= 10;
                fdigits++;
            }
        }
    }
    if (digits == 0)
        return -1;
    if (*p) {
        scale = pinned_index(*p);
        if (scale < 0 || !strchr("kKmMgGtT", *p) || p[1] != '\0')
            return -1;
    }
    for (int i = 0; i < scale; i++)
        mult *= base;
    if (ip > UINT64_MAX / mult)
        return -1;
    v = ip * mult;
    frac = mul_div(frac, mult, pow10);
    if (v > UINT64_MAX - frac)
        return -1;
    *out = v + frac;
    return 0;
}

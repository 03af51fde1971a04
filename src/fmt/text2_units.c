/* iperf2's number columns (2.1.8): Transfer, Bandwidth and socket buffer sizes, with its
 * -f letters and its four precisions. Pure functions; the iperf3 rules stay in units.c. */
#include <ctype.h>
#include <stdio.h>

#include "fmt/text2_int.h"

static const char *const byte_labels[] = {"Bytes", "KBytes", "MBytes", "GBytes", "TBytes"};
static const char *const byte1_labels[] = {"Byte", "KByte", "MByte", "GByte", "TByte"};
static const char *const bit_labels[] = {"bits", "Kbits", "Mbits", "Gbits", "Tbits"};

/* iperf2 keeps four significant places and adds a fourth precision below 1
 * ("0.181 MBytes", "5.04", "41.1", " 128"). */
static void put_number(char *buf, size_t len, double v, const char *label, const char *suffix)
{
    if (v < 0.9995)
        snprintf(buf, len, "%4.3f %s%s", v, label, suffix);
    else if (v < 9.995)
        snprintf(buf, len, "%4.2f %s%s", v, label, suffix);
    else if (v < 99.95)
        snprintf(buf, len, "%4.1f %s%s", v, label, suffix);
    else
        snprintf(buf, len, "%4.0f %s%s", v, label, suffix);
}

/* The unit a -f letter pins (b=0 .. t=4), or -1: adaptive (a, A and any other letter). */
static int pinned(char unit)
{
    switch (tolower((unsigned char)unit)) {
    case 'b': return 0;
    case 'k': return 1;
    case 'm': return 2;
    case 'g': return 3;
    case 't': return 4;
    default: return -1;
    }
}

/* Divide down to the pinned unit, or (adaptive) while the value reaches the base. */
static int scale(double *v, double base, int want)
{
    int i = 0;

    if (want >= 0) {
        for (; i < want; i++)
            *v /= base;
        return i;
    }
    while (*v >= base && i < 4) {
        *v /= base;
        i++;
    }
    return i;
}

void lp_text2_bytes(char *buf, size_t len, double bytes, char unit)
{
    /* The Transfer column is always bytes: the upper-case form of -f. */
    int i = scale(&bytes, 1024.0, pinned(unit));

    put_number(buf, len, bytes, byte_labels[i], "");
}

void lp_text2_size(char *buf, size_t len, double bytes)
{
    int i = scale(&bytes, 1024.0, -1);

    put_number(buf, len, bytes, byte1_labels[i], "");
}

void lp_text2_rate(char *buf, size_t len, double bits_per_second, char unit)
{
    /* Upper case: bytes per second in powers of 1024; anything else bits in powers of 1000. */
    bool bytes = isupper((unsigned char)unit) != 0;
    double v = bytes ? bits_per_second / 8.0 : bits_per_second;
    int i = scale(&v, bytes ? 1024.0 : 1000.0, pinned(unit));

    put_number(buf, len, v, bytes ? byte_labels[i] : bit_labels[i], "/sec");
}

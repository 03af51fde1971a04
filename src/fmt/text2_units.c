/* iperf2's number columns (2.1.8): Transfer, Bandwidth and socket buffer sizes, with its
 * -f letters and its four precisions. Pure functions; the iperf3 rules stay in units.c. */
#include <ctype.h>
#include <stdio.h>

#include "fmt/text2_int.h"
#include "fmt/units_int.h"

/* Socket buffer sizes are singular in 2.1.8 ("128 KByte"); the other labels are iperf3's. */
static const char *const byte1_labels[LP_UNITS_COUNT] = {"Byte", "KByte", "MByte", "GByte", "TByte"};

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

void lp_text2_bytes(char *buf, size_t len, double bytes, char unit)
{
    /* The Transfer column is always bytes: the upper-case form of -f. */
    int i = lp_units_scale(&bytes, 1024.0, pinned(unit));

    put_number(buf, len, bytes, lp_units_byte_labels[i], "");
}

void lp_text2_size(char *buf, size_t len, double bytes)
{
    int i = lp_units_scale(&bytes, 1024.0, -1);

    put_number(buf, len, bytes, byte1_labels[i], "");
}

void lp_text2_size_in_bytes(char *buf, size_t len, double bytes)
{
    put_number(buf, len, bytes, byte1_labels[0], "");
}

void lp_text2_rate(char *buf, size_t len, double bits_per_second, char unit)
{
    /* Upper case: bytes per second in powers of 1024; anything else bits in powers of 1000. */
    bool bytes = isupper((unsigned char)unit) != 0;
    double v = bytes ? bits_per_second / 8.0 : bits_per_second;
    int i = lp_units_scale(&v, bytes ? 1024.0 : 1000.0, pinned(unit));

    put_number(buf, len, v, bytes ? lp_units_byte_labels[i] : lp_units_bit_labels[i], "/sec");
}

/* 2.1.8's --isochronous banner: adaptive bits, singular labels ("1.00 Mbit/s", " 100 Kbit/s",
 * "0.000 bit/s"). */
void lp_text2_rate1(char *buf, size_t len, double bits_per_second)
{
    static const char *const labels[LP_UNITS_COUNT] = {"bit", "Kbit", "Mbit", "Gbit", "Tbit"};
    double v = bits_per_second;
    int i = lp_units_scale(&v, 1000.0, -1);

    put_number(buf, len, v, labels[i], "/s");
}

/* Small helpers both formatters need: system line, GMT time string, µs rounding.
 * No output here and no state; callers own every buffer. */
#include "fmt/fmt_util.h"

#include <math.h>
#include <stdio.h>
#include <sys/utsname.h>

void lp_fmt_sysinfo(char *buf, size_t len)
{
    struct utsname u;

    if (len == 0)
        return;
    if (uname(&u) != 0) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, len, "%s %s %s %s %s", u.sysname, u.nodename, u.release, u.version,
             u.machine);
}

void lp_fmt_gmt(char *buf, size_t len, time_t t)
{
    struct tm tm;

    if (len == 0)
        return;
    if (!gmtime_r(&t, &tm) || strftime(buf, len, "%a, %d %b %Y %H:%M:%S GMT", &tm) == 0)
        buf[0] = '\0';
}

double lp_fmt_round_us(double s)
{
    return round(s * 1e6) / 1e6;
}

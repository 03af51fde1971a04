/* Helpers shared by the text and JSON formatters (internal to src/fmt). */
#ifndef LP_FMT_UTIL_H
#define LP_FMT_UTIL_H

#include <stddef.h>
#include <time.h>

/* uname(2) as iperf3 shows it: "sysname nodename release version machine". */
void lp_fmt_sysinfo(char *buf, size_t len);
/* "Mon, 30 Nov 2026 13:10:57 GMT" (iperf3's -J "time" and -V "Time:" format). */
void lp_fmt_gmt(char *buf, size_t len, time_t t);
/* Seconds rounded to whole microseconds, the resolution iperf3 reports. */
double lp_fmt_round_us(double s);

#endif

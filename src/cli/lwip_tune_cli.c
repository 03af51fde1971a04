/* `linkperf lwip-tune`'s command line (the arithmetic and the printing: lwip_tune.c). Two
 * questions: what should lwipopts.h say for this link (--rate, --rtt, a RAM budget), and what
 * does this configuration deliver on it (--window / --snd-buf). */
#include "cli/lwip_tune.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/values.h"
/* the CPU model's cycle estimates: one table for lwip-tune and the agent's host programs */
#include "../../agent/port/lpa_cpu_costs.h"

/* "2ms", "500us" or "0.002s". A unit is required: a bare 2 read as seconds makes a 24 MB
 * window for what was meant as 2 ms, and nothing on the screen says so. */
static int parse_time(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !*end)
        return -1;
    if (strcmp(end, "ms") == 0)
        v /= 1e3;
    else if (strcmp(end, "us") == 0)
        v /= 1e6;
    else if (strcmp(end, "s") != 0)
        return -1;
    *out = v;
    return 0;
}

/* A window or buffer: bytes with K/M (1024-based), or in segments: "8mss", "8xMSS". The MSS is
 * only known once every option is read, so segments are kept as a count (*segs). */
static int parse_window(const char *s, double *bytes, double *segs)
{
    size_t n = strlen(s);
    *bytes = *segs = 0;
    if (n > 3 && strcasecmp(s + n - 3, "mss") == 0) {
        char num[32];
        size_t k = n - 3;
        if (k > 0 && (s[k - 1] == 'x' || s[k - 1] == 'X' || s[k - 1] == '*'))
            k--;
        if (k == 0 || k >= sizeof(num))
            return -1;
        memcpy(num, s, k);
        num[k] = '\0';
        return lp_cli_value_int(num, false, segs) < 0 || *segs < 1 ? -1 : 0;
    }
    return lp_cli_value_units(s, 1024, bytes) < 0 || *bytes < 1 ? -1 : 0;
}

static int usage(const char *why)
{
    /* A bad command line gets one line naming the problem, like every other option. */
    if (why) {
        fprintf(stderr, "linkperf: lwip-tune: %s (see linkperf lwip-tune --help)\n", why);
        return 2;
    }
    fprintf(stdout,
            "Usage: linkperf lwip-tune --rate R --rtt T [--ram N [--fit]] [--mss N]\n"
            "                          [--cpu-mhz F [--cpu-api raw|netconn|socket]]\n"
            "       linkperf lwip-tune --rate R --rtt T --window W [--snd-buf S] [--ram N] [--mss N] ...\n"
            "  --rate R   link rate in bits/s with k/m/g (1000-based): 100M, 1G (100k..100G)\n"
            "  --rtt T    round-trip time with its unit: 2ms, 500us, 0.002s (up to 10 s)\n"
            "  --ram N    RAM lwIP may use for pools, heap and descriptors: 64K, 128K (1024-based)\n"
            "  --mss N    TCP_MSS, 536..1460 (default 1460)\n"
            "  --cpu-mhz F  the board's clock, 1..10000: a CPU slower than the link gets the window\n"
            "             its own pace needs (cycles per segment: the API's estimate)\n"
            "  --cpu-api A  raw, netconn or socket (default raw)\n"
            "  --fit      when --ram cannot hold the window: print the largest that fits instead\n"
            "             (the RX ring cut to what that window needs, where that wins window)\n"
            "  --window W   what this TCP_WND delivers: bytes (11680, 16K) or segments (8mss)\n"
            "  --snd-buf S  what this TCP_SND_BUF delivers, the same units (either alone: the other\n"
            "             is lwIP's default, 4 x MSS window, 2 x MSS send buffer)\n"
            "Prints lwipopts.h values with the reasoning, and warns when the RAM cannot hold\n"
            "the window the link needs. With --window or --snd-buf: the throughput that\n"
            "configuration allows each way (window / RTT, the wire's goodput, the CPU's pace)\n"
            "and the pools and heap it needs.\n"
            "Model: the receive window covers the bandwidth-delay product + 25 %%; every segment\n"
            "not yet read holds a pool pbuf; the RX ring bridges 1 ms of task latency.\n");
    return 0;
}

/* A window or buffer option's value in bytes, now that the MSS is known (0: not given). */
static int resolve(const char *opt, const char *v, double bytes, double segs, uint32_t mss, uint32_t lo,
                   uint32_t hi, uint32_t *out, char *why, size_t whylen)
{
    if (!v) {
        *out = 0;
        return 0;
    }
    double b = segs > 0 ? segs * mss : bytes;
    if (!(b >= lo && b <= hi)) {
        snprintf(why, whylen, "option %s: '%s' is out of range (%u..%u bytes with MSS %u)", opt, v, (unsigned)lo,
                 (unsigned)hi, (unsigned)mss);
        return -1;
    }
    *out = (uint32_t)b;
    return 0;
}

int lp_lwip_tune_main(int argc, char **argv)
{
    struct lp_lwip_link l = {.mss = 1460};
    bool have_rate = false, have_rtt = false, fit = false;
    const char *wnd_arg = NULL, *snd_arg = NULL;
    double wnd_bytes = 0, wnd_segs = 0, snd_bytes = 0, snd_segs = 0;
    char why[160];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
            return usage(NULL);
        if (strcmp(a, "--fit") == 0) {
            fit = true;
            continue;
        }
        if (i + 1 >= argc) {
            snprintf(why, sizeof(why), "option %s needs a value", a);
            return usage(why);
        }
        const char *v = argv[++i];
        double d;
        if (strcmp(a, "--rate") == 0) {
            if (lp_cli_value_units(v, 1000, &d) < 0 || d < 1e5 || d > 1e11) {
                snprintf(why, sizeof(why), "option --rate: '%s' is not a rate in 100k..100G (bits/s)", v);
                return usage(why);
            }
            l.rate_bps = d;
            have_rate = true;
        } else if (strcmp(a, "--rtt") == 0) {
            if (parse_time(v, &d) < 0 || !(d > 0) || d > 10) {
                char *end;
                strtod(v, &end);
                if (end != v && !*end)
                    snprintf(why, sizeof(why), "option --rtt: '%s' needs a unit: %sms, %sus or %ss", v, v, v, v);
                else
                    snprintf(why, sizeof(why), "option --rtt: '%s' is not a time in (0, 10 s] (2ms, 500us, 0.002s)",
                             v);
                return usage(why);
            }
            l.rtt_s = d;
            have_rtt = true;
        } else if (strcmp(a, "--ram") == 0) {
            if (lp_cli_value_units(v, 1024, &d) < 0 || d < 1024 || d > 1073741824.0) {
                snprintf(why, sizeof(why), "option --ram: '%s' is not a size in 1K..1G (bytes)", v);
                return usage(why);
            }
            l.ram_bytes = (uint64_t)d;
        } else if (strcmp(a, "--cpu-mhz") == 0) {
            if (lp_cli_value_units(v, 1000, &d) < 0 || !(d >= 1 && d <= 10000)) {
                snprintf(why, sizeof(why), "option --cpu-mhz: '%s' is not a clock in 1..10000 (MHz)", v);
                return usage(why);
            }
            l.cpu_hz = d * 1e6;
        } else if (strcmp(a, "--cpu-api") == 0) {
            if (!lpa_cpu_costs_find(v)) {
                snprintf(why, sizeof(why), "option --cpu-api: '%s' is not raw, netconn or socket", v);
                return usage(why);
            }
            l.cpu_api = v;
        } else if (strcmp(a, "--mss") == 0) {
            if (lp_cli_value_int(v, false, &d) < 0 || d < 536 || d > 1460) {
                snprintf(why, sizeof(why), "option --mss: '%s' is out of range (536..1460)", v);
                return usage(why);
            }
            l.mss = (uint32_t)d;
        } else if (strcmp(a, "--window") == 0 || strcmp(a, "--snd-buf") == 0) {
            bool w = a[2] == 'w';
            if (parse_window(v, w ? &wnd_bytes : &snd_bytes, w ? &wnd_segs : &snd_segs) < 0) {
                snprintf(why, sizeof(why), "option %s: '%s' is not a size (11680, 16K) or segments (8mss)", a, v);
                return usage(why);
            }
            *(w ? &wnd_arg : &snd_arg) = v;
        } else {
            snprintf(why, sizeof(why), "unknown option '%s'", a);
            return usage(why);
        }
    }
    if (!have_rate || !have_rtt)
        return usage("--rate and --rtt are required");
    if (fit && !l.ram_bytes)
        return usage("--fit needs --ram");
    if (l.cpu_api && !(l.cpu_hz > 0))
        return usage("--cpu-api needs --cpu-mhz");
    if (wnd_arg || snd_arg) {
        uint32_t wnd, snd;
        if (fit)
            return usage("--fit answers a RAM budget; with --window or --snd-buf, --ram says whether it fits");
        if (resolve("--window", wnd_arg, wnd_bytes, wnd_segs, l.mss, l.mss, LP_LWIP_WND_MAX, &wnd, why,
                    sizeof(why)) < 0 ||
            resolve("--snd-buf", snd_arg, snd_bytes, snd_segs, l.mss, 2 * l.mss, lp_lwip_snd_buf_max(l.mss), &snd,
                    why, sizeof(why)) < 0)
            return usage(why);
        struct lp_lwip_given g;
        if (lp_lwip_tune_given(&l, wnd, snd, &g) < 0)
            return usage("the link is out of range");
        lp_lwip_tune_print_given(stdout, &l, &g);
        return 0;
    }
    struct lp_lwip_plan p;
    if (lp_lwip_tune(&l, &p) < 0)
        return usage("the link is out of range");
    if (fit && p.ram_short) {
        struct lp_lwip_plan q;
        if (lp_lwip_tune_fit(&l, &p, &q) < 0) {
            lp_lwip_tune_print(stdout, &l, &p);
            fprintf(stderr, "linkperf: lwip-tune: not even a 2-segment window fits in --ram\n");
            return 1;
        }
        lp_lwip_tune_print(stdout, &l, &q);
        return 0;
    }
    lp_lwip_tune_print(stdout, &l, &p);
    return 0;
}

/* Setters of the iperf2-spelling rows whose argument grammar is iperf2's own: -c (host or
 * allowlist), -b (rate or pps), -f, -x, -y, -S names, -B host:port%dev, -M, --fq-rate.
 * Role-dependent meanings are settled later, in checks.c, once the whole line is read. */
#include "cli/setters.h"

#include <errno.h>
#include <stdlib.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int bad_value(struct lp_cli_err *err, const struct lp_cli_opt *opt, const char *text,
                     const char *what)
{
    char label[48];

    lp_cli_options_label(opt, label, sizeof(label));
    return lp_cli_err_set(err, "option %s: '%s' is not %s", label, text, what);
}

/* iperf2's -c names the server for a client but the one client allowed for a server
 * (2.0's client limit), and iperf2 reads -s and -c in any order: keep the text. */
LP_CLI_SETTER(lp_cli_set_client2)
{
    (void)opt, (void)err;
    snprintf(cfg->parse.c_arg, sizeof(cfg->parse.c_arg), "%s", v->text);
    cfg->role_given = true;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_bandwidth2)
{
    (void)opt, (void)err;
    if (v->pps) {
        cfg->parse.pps = v->num;
        cfg->spec.rate_bps = 0; /* from pps and the datagram size once both are known */
    } else {
        cfg->parse.pps = 0;
        cfg->spec.rate_bps = (uint64_t)v->num;
    }
    return 0;
}

LP_CLI_SETTER(lp_cli_set_format2)
{
    if (strlen(v->text) != 1 || !strchr("abkmgtABKMGT", v->text[0]))
        return bad_value(err, opt, v->text, "a format (one of a b k m g t A B K M G T)");
    cfg->fmt.unit = v->text[0];
    return 0;
}

LP_CLI_SETTER(lp_cli_set_exclude)
{
    static const char letters[] = "CDMSV";
    char got[sizeof(cfg->fmt.exclude)] = "";
    size_t n = 0;
    const char *p;

    for (p = v->text; *p; p++) {
        char c = (*p >= 'a' && *p <= 'z') ? (char)(*p - 'a' + 'A') : *p;
        char label[48];
        if (!strchr(letters, c)) {
            lp_cli_options_label(opt, label, sizeof(label));
            return lp_cli_err_set(err, "option %s: '%c' is not a report type (letters C D M "
                                  "S V)", label, *p);
        }
        if (!memchr(got, c, n) && n + 1 < sizeof(got))
            got[n++] = c;
    }
    got[n] = '\0';
    memcpy(cfg->fmt.exclude, got, sizeof(got));
    return 0;
}

LP_CLI_SETTER(lp_cli_set_reportstyle)
{
    const char *t = v->text;

    /* iperf2 looks at the first letter only; "C" and "CSV" are what people write. */
    if ((t[0] != 'c' && t[0] != 'C') || (t[1] && strcmp(t + 1, "sv") && strcmp(t + 1, "SV")))
        return bad_value(err, opt, t, "a report style (C, for CSV)");
    cfg->csv = true;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_tos2)
{
    int tos = 0;
    int rc = lp_cli_value_tos2(v->text, &tos);
    char label[48];

    lp_cli_options_label(opt, label, sizeof(label));
    if (rc == -2)
        return lp_cli_err_set(err, "option %s: %s is out of range (0..255)", label, v->text);
    if (rc < 0)
        return lp_cli_err_set(err, "option %s: '%s' is not a TOS value (0..255 or a name: "
                              "af11..af43, cs0..cs7, ef, le, nqb, nqb2, ac_be, ac_bk, ac_vi, "
                              "ac_vo, lowdelay, throughput, reliability, none)", label, v->text);
    cfg->spec.tos = tos;
    return 0;
}

/* host[:port][%dev], IPv6 as [addr]:port or bare (then no port). The port is the client's
 * source port; checks.c refuses it on a server, where iperf2 ignores it with a warning. */
LP_CLI_SETTER(lp_cli_set_bind2)
{
    char left[LP_HOST_MAX], label[48];
    const char *host = left, *port = NULL;
    char *colon;
    double p = 0;

    if (lp_cli_split_host(opt, v->text, left, sizeof(left), cfg->spec.bind_dev, LP_CLI_DEV_LEN,
                          err) < 0)
        return -1;
    lp_cli_options_label(opt, label, sizeof(label));
    if (left[0] == '[') {
        char *close = strchr(left, ']');
        if (!close || (close[1] && close[1] != ':') || close == left + 1)
            return lp_cli_err_set(err, "option %s: '%s' is not [IPv6 address] or "
                                  "[IPv6 address]:port", label, v->text);
        *close = '\0';
        host = left + 1;
        if (close[1] == ':')
            port = close + 2;
    } else if ((colon = strchr(left, ':')) != NULL && !strchr(colon + 1, ':')) {
        *colon = '\0';
        port = colon + 1;
    }
    if (!*host)
        return lp_cli_err_set(err, "option %s: the host is empty", label);
    if (port && (lp_cli_value_int(port, false, &p) < 0 || p < 1 || p > 65535))
        return lp_cli_err_set(err, "option %s: port '%s' is not 1..65535", label, port);
    snprintf(cfg->spec.bind_addr, sizeof(cfg->spec.bind_addr), "%s", host);
    cfg->spec.cport = (uint16_t)p;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_mss2)
{
    (void)opt, (void)err;
    cfg->spec.mss = (int)v->num;
    cfg->spec.report.print_mss = true; /* iperf2's -M turns on -m too */
    cfg->fmt.print_mss = true;
    return 0;
}

/* iperf2's --fq-rate (2.1.8's bitorbyte_atoi): lower-case suffixes are bits/s, upper-case
 * ones bytes/s, both 1000-based: 1M is 1000000 bytes/s, 8000000 bits/s. */
/* A rate as 2.1.8 reads --fq-rate and --isochronous's mean/stdev: k, m, g bits/s, K, M, G
 * bytes/s, all 1000-based. Returns 0, or -1 when text is not one. */
static int rate2(const char *text, double *bps)
{
    char num[32], *unit;
    bool bytes = false;

    if (strlen(text) >= sizeof(num))
        return -1;
    snprintf(num, sizeof(num), "%s", text);
    unit = strpbrk(num, "KMG");
    if (unit && unit == strpbrk(num, "kmgKMGBb")) { /* the scale letter, not a trailing B */
        *unit = (char)(*unit - 'A' + 'a');
        bytes = true;
    }
    if (lp_cli_value_units2(num, bps) < 0 || *bps < 0)
        return -1;
    if (bytes)
        *bps *= 8;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_fq_rate2)
{
    const double max_bps = 1e12;
    char label[48];
    double bps;

    lp_cli_options_label(opt, label, sizeof(label));
    if (rate2(v->text, &bps) < 0)
        return lp_cli_err_set(err, "option %s: '%s' is not a rate (a number with an optional "
                              "k, m, g (bits/s) or K, M, G (bytes/s) suffix)", label, v->text);
    if (bps > max_bps)
        return lp_cli_err_set(err, "option %s: %s is out of range (0..1000g bits/s)", label,
                              v->text);
    cfg->spec.fq_rate_bps = (uint64_t)bps;
    return 0;
}

/* --isochronous[=fps:mean,stdev]: 2.1.8's default without a value is 60:20m,0; a missing
 * stdev is 0. Frames per second 0.01..10000 (a frame at least every 100 us); the mean must
 * make a frame of at least one byte, and mean and stdev are at most 100g bits/s. 2.1.8's
 * packet form (25p) is not taken. */
#define ISOCH_FPS_MIN 0.01
#define ISOCH_FPS_MAX 10000.0
#define ISOCH_RATE_MAX 1e11

LP_CLI_SETTER(lp_cli_set_isochronous)
{
    struct lp_isoch_spec *is = &cfg->spec.iperf2.isoch;
    char label[48], fps[32], *end;
    double mean = 0, stdev = 0;

    lp_cli_options_label(opt, label, sizeof(label));
    is->on = true;
    is->fps = 60;
    is->mean_bps = 20e6;
    is->stdev_bps = 0;
    /* 2.1.8's --isochronous reports as with -e (its banner, PPS and frame columns). */
    cfg->spec.report.enhanced = cfg->fmt.enhanced = true;
    if (!v->text)
        return 0;
    const char *colon = strchr(v->text, ':');
    size_t fl = colon ? (size_t)(colon - v->text) : strlen(v->text);
    if (fl == 0 || fl >= sizeof(fps))
        return lp_cli_err_set(err, "option %s: '%s' is not fps:mean,stdev (e.g. 60:20m,0)", label, v->text);
    memcpy(fps, v->text, fl);
    fps[fl] = '\0';
    errno = 0;
    double f = strtod(fps, &end);
    if (*end || errno || !(f >= ISOCH_FPS_MIN && f <= ISOCH_FPS_MAX))
        return lp_cli_err_set(err, "option %s: frames per second '%s' is not %g..%g", label, fps, ISOCH_FPS_MIN,
                              ISOCH_FPS_MAX);
    is->fps = f;
    if (!colon)
        return 0;
    char rest[64];
    snprintf(rest, sizeof(rest), "%s", colon + 1);
    char *comma = strchr(rest, ',');
    if (comma)
        *comma = '\0';
    if (!rest[0] || rate2(rest, &mean) < 0 || mean > ISOCH_RATE_MAX)
        return lp_cli_err_set(err, "option %s: mean '%s' is not a rate (bits/s with k, m, g; bytes/s with "
                              "K, M, G; at most 100g)", label, rest);
    if (mean / 8.0 / f < 1)
        return lp_cli_err_set(err, "option %s: mean %s at %g frames/s is less than a byte a frame", label, rest, f);
    if (comma && (!comma[1] || rate2(comma + 1, &stdev) < 0 || stdev > ISOCH_RATE_MAX))
        return lp_cli_err_set(err, "option %s: stdev '%s' is not a rate (bits/s with k, m, g; bytes/s with "
                              "K, M, G; at most 100g)", label, comma + 1);
    is->mean_bps = mean;
    is->stdev_bps = stdev;
    return 0;
}

/* --ipg: milliseconds (2.1.8's help; its man page says seconds, its code and banner ms). */
LP_CLI_SETTER(lp_cli_set_ipg)
{
    (void)opt, (void)err;
    cfg->spec.iperf2.isoch.ipg_s = v->num / 1000.0;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_single_client)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.max_tests = 1;
    return 0;
}

/* --bounceback[=n]: n exchanges per burst, 1..1000000 (2.1.8 turns 0 or junk into 10 with
 * a warning; here they are errors). */
LP_CLI_SETTER(lp_cli_set_bounceback)
{
    char label[48], *end;
    lp_cli_options_label(opt, label, sizeof(label));
    cfg->spec.iperf2.bb.on = true;
    if (!v->text)
        return 0;
    errno = 0;
    unsigned long n = strtoul(v->text, &end, 10);
    if (end == v->text || *end || errno || v->text[0] == '-' || n < 1 || n > 1000000)
        return lp_cli_err_set(err, "option %s: '%s' is not a count of exchanges (1..1000000)", label, v->text);
    cfg->spec.iperf2.bb.burst = (unsigned)n;
    return 0;
}

/* --bounceback-hold takes milliseconds (2.1.8: atof x 1000 into microseconds). */
LP_CLI_SETTER(lp_cli_set_bounceback_hold)
{
    (void)opt, (void)err;
    cfg->spec.iperf2.bb.hold_us = (uint32_t)(v->num * 1000.0 + 0.5);
    return 0;
}

/* --bounceback-period: under 10 us means back to back, as 2.1.8 has it. */
LP_CLI_SETTER(lp_cli_set_bounceback_period)
{
    (void)opt, (void)err;
    cfg->spec.iperf2.bb.period_s = v->num > 1e-5 ? v->num : 0;
    cfg->spec.iperf2.bb.period_given = true;
    return 0;
}

/* --bounceback-congest[=up|down|bidir[,n]]: 2.1.8's words (any case) and its count of load
 * connections; 2.1.8 warns about an unknown word and runs bidir, here it is an error. */
#define BB_CONGEST_MAX 16u

static int congest_dir(const char *w, size_t n, enum lp_dir *dir)
{
    static const struct { const char *name; enum lp_dir dir; } words[] = {
        {"up", LP_DIR_FORWARD}, {"down", LP_DIR_REVERSE}, {"bidir", LP_DIR_BIDIR}};
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (strlen(words[i].name) == n && !strncasecmp(w, words[i].name, n)) {
            *dir = words[i].dir;
            return 0;
        }
    return -1;
}

LP_CLI_SETTER(lp_cli_set_bounceback_congest)
{
    char label[48];
    lp_cli_options_label(opt, label, sizeof(label));
    struct lp_bounceback_spec *bb = &cfg->spec.iperf2.bb;
    bb->congest = 1;
    bb->congest_dir = LP_DIR_BIDIR;
    if (!v->text)
        return 0;
    const char *comma = strchr(v->text, ',');
    size_t wl = comma ? (size_t)(comma - v->text) : strlen(v->text);
    if (congest_dir(v->text, wl, &bb->congest_dir) < 0)
        return lp_cli_err_set(err, "option %s: '%.*s' is not a direction (up, down or bidir)", label, (int)wl,
                              v->text);
    if (!comma)
        return 0;
    char *end;
    errno = 0;
    unsigned long n = strtoul(comma + 1, &end, 10);
    if (end == comma + 1 || *end || errno || comma[1] == '-' || n < 1 || n > BB_CONGEST_MAX)
        return lp_cli_err_set(err, "option %s: '%s' is not a count of load connections (1..%u)", label, comma + 1,
                              BB_CONGEST_MAX);
    bb->congest = (unsigned)n;
    return 0;
}

/* --histograms[=width[u|m],bins,lower,upper] (also 2.1.8's --udp-histograms): the width
 * is microseconds unless it ends in m (2.1.8 reads a bare number as seconds but labels the
 * bins "us"; linkperf takes what the label says). A missing bins count is 1000, the bounds
 * 5 and 95, as 2.1.8's; without an argument, 2.1.8's server defaults: 10000 bins of 100 us. */
#define HIST_WIDTH_MAX 1000000u /* 1 s in us, 1000 s in ms: past any test's latency */
#define HIST_BINS_MAX 100000u   /* 2.1.8's own largest (a client's 10 s of 100 us) */

static int hist_num(const char *s, const char **end, double lo, double hi, double *out)
{
    char *e;
    errno = 0;
    double d = strtod(s, &e);
    if (e == s || errno || !(d >= lo && d <= hi))
        return -1;
    *out = d;
    *end = e;
    return 0;
}

static int hist_parse(const char *t, struct lp_histogram_spec *h)
{
    const char *p = t;
    double d;

    if (hist_num(p, &p, 1, HIST_WIDTH_MAX, &d) < 0 || d != (double)(uint32_t)d)
        return -1;
    h->bin_width = (uint32_t)d;
    h->unit_ms = *p == 'm';
    if (*p == 'm' || *p == 'u')
        p++;
    h->bins = 1000;
    if (*p == ',') {
        if (hist_num(p + 1, &p, 1, HIST_BINS_MAX, &d) < 0 || d != (double)(uint32_t)d)
            return -1;
        h->bins = (uint32_t)d;
    }
    if (*p == ',' && hist_num(p + 1, &p, 0, 100, &h->ci_lower) < 0)
        return -1;
    if (*p == ',' && hist_num(p + 1, &p, 0, 100, &h->ci_upper) < 0)
        return -1;
    return *p ? -1 : 0;
}

LP_CLI_SETTER(lp_cli_set_histograms)
{
    struct lp_histogram_spec h = {.on = true, .bin_width = 100, .bins = 10000, .ci_lower = 5, .ci_upper = 95};
    char label[48];

    if (v->text && hist_parse(v->text, &h) < 0) {
        lp_cli_options_label(opt, label, sizeof(label));
        return lp_cli_err_set(err, "option %s: '%s' is not width[u|m],bins,lower,upper (width 1..%u, "
                              "bins 1..%u, bounds 0..100 percent)", label, v->text, HIST_WIDTH_MAX,
                              HIST_BINS_MAX);
    }
    if (h.ci_lower >= h.ci_upper) {
        lp_cli_options_label(opt, label, sizeof(label));
        return lp_cli_err_set(err, "option %s: the lower bound (%g%%) must be below the upper (%g%%)", label,
                              h.ci_lower, h.ci_upper);
    }
    cfg->spec.iperf2.hist = h;
    /* 2.1.8's server with --histograms reports as with -e (its banner and rows show it). */
    cfg->spec.report.enhanced = cfg->fmt.enhanced = true;
    return 0;
}

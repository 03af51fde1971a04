/* --help: usage plus one line per option row, grouped by mode like iperf3's (or, for the
 * iperf2 spelling, iperf2's) --help. Unsupported options are listed by name only; the man
 * page explains them. */
#include "cli/help.h"

#include <stdio.h>
#include <string.h>

#include "cli/buf.h"

#define HELP_COLUMN 30   /* where the help text starts, as in iperf3's --help */
#define WRAP_COLUMN 79

static void option_line(struct lp_cli_buf *b, const struct lp_cli_opt *o)
{
    char left[96];
    size_t n;

    if (o->letter)
        n = (size_t)snprintf(left, sizeof(left), "  -%c, --%s", o->letter, o->name);
    else
        n = (size_t)snprintf(left, sizeof(left), "  --%s", o->name);
    if (o->metavar && n < sizeof(left))
        snprintf(left + n, sizeof(left) - n, o->arg == LP_CLI_ARG_OPTIONAL ? "[=%s]" : " %s",
                 o->metavar);
    if (strlen(left) + 1 >= HELP_COLUMN)
        lp_cli_buf_printf(b, "%s\n%*s%s\n", left, HELP_COLUMN, "", o->help);
    else
        lp_cli_buf_printf(b, "%-*s%s\n", HELP_COLUMN, left, o->help);
}

static void section(struct lp_cli_buf *b, const struct lp_cli_table *t, enum lp_cli_mode mode,
                    const char *title)
{
    size_t i;

    lp_cli_buf_printf(b, "%s\n", title);
    for (i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        if (o->mode == mode && !(o->flags & LP_CLI_F_UNSUPPORTED))
            option_line(b, o);
    }
}

static const char usage3[] =
    "Usage: linkperf [-s|-c host] [options]\n"
    "       linkperf demo [options]\n"
    "       linkperf ui [--listen host:port]      the browser GUI (linkperf ui --help)\n"
    "       linkperf rfc2544 -c host [options]    RFC 2544 throughput, latency, loss, back-to-back\n"
    "       linkperf under-load -c host [options] latency idle and under TCP load\n"
    "       linkperf lwip-tune --rate R --rtt T   lwipopts.h values for an lwIP board's link\n"
    "       linkperf history [list|show|export|delete|info]  the runs linkperf recorded\n"
    "       linkperf [-h|--help] [-v|--version] [--man]\n\n";
static const char units3[] =
    "\n[KMG] indicates options that take a K/M/G/T suffix: 1000-based for "
    "rates (-b, --fq-rate),\n1024-based for sizes (-n, -k, -l, -w).\n";
static const char tail3[] =
    "\n\n'linkperf demo' runs a 5 s TCP and a 5 s UDP test against a "
    "server of its own on\n127.0.0.1. 'linkperf --iperf2 --help' lists iperf2's options. "
    "See linkperf --man for\ndetails.\n";

static const char usage2[] =
    "Usage: linkperf --iperf2 [-s|-c host] [options]\n"
    "       linkperf2 [-s|-c host] [options]\n"
    "       linkperf2 [-h|--help] [-v|--version] [--man]\n\n";
static const char units2[] =
    "\n[kmgKMG] Indicates options that support a k,m,g,K,M or G suffix\n"
    "Lowercase format characters are 10^3 based and uppercase are 2^n based\n"
    "(e.g. 1k = 1000, 1K = 1024, 1m = 1,000,000 and 1M = 1,048,576)\n";
static const char tail2[] =
    "\n\nA server without -p also serves iperf3 clients, on 5201. Without --iperf2, "
    "linkperf\ntakes iperf3's options (linkperf --help). See linkperf --man, IPERF2 MODE.\n";

char *lp_cli_help_text(const struct lp_cli_table *t)
{
    struct lp_cli_buf b = {0};
    size_t i, col = 1;

    lp_cli_buf_puts(&b, t->iperf2 ? usage2 : usage3);
    section(&b, t, LP_CLI_MODE_GENERAL, t->iperf2 ? "Client/Server:" : "Server or Client:");
    section(&b, t, LP_CLI_MODE_SERVER, "Server specific:");
    section(&b, t, LP_CLI_MODE_CLIENT, "Client specific:");
    lp_cli_buf_puts(&b, t->iperf2 ? units2 : units3);
    lp_cli_buf_printf(&b, "\n%s options that linkperf does not support:\n ", t->name);
    for (i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        char name[64];
        if (!(o->flags & LP_CLI_F_UNSUPPORTED))
            continue;
        if (o->letter)
            snprintf(name, sizeof(name), " -%c", o->letter);
        else
            snprintf(name, sizeof(name), " --%s", o->name);
        if (col + strlen(name) > WRAP_COLUMN) {
            lp_cli_buf_puts(&b, "\n ");
            col = 1;
        }
        lp_cli_buf_puts(&b, name);
        col += strlen(name);
    }
    lp_cli_buf_puts(&b, t->iperf2 ? tail2 : tail3);
    return lp_cli_buf_take(&b);
}

/* iperf3's "Optional features available" line, in its words where it has them, each from
 * the row that provides it: a row this build does not support is not a feature. Then what
 * only linkperf has. */
char *lp_cli_features_text(const struct lp_cli_table *t)
{
    static const struct {
        const char *option, *feature;
    } iperf3_words[] = {
        {"affinity", "CPU affinity setting"},
        {"flowlabel", "IPv6 flow label"},
        {"sctp", "SCTP"},
        {"congestion", "TCP congestion algorithm setting"},
        {"zerocopy", "sendfile / zerocopy"},
        {"fq-rate", "socket pacing"},
        {"username", "authentication"},
        {"bind-dev", "bind to device"},
        {"dont-fragment", "support IPv4 don't fragment"},
    };
    struct lp_cli_buf b = {0};
    const char *sep = "";

    lp_cli_buf_puts(&b, "Optional features available: ");
    for (size_t i = 0; i < sizeof(iperf3_words) / sizeof(iperf3_words[0]); i++) {
        const struct lp_cli_opt *o = lp_cli_options_long(t, iperf3_words[i].option, strlen(iperf3_words[i].option));
        if (!o || (o->flags & LP_CLI_F_UNSUPPORTED))
            continue;
        lp_cli_buf_printf(&b, "%s%s", sep, iperf3_words[i].feature);
        sep = ", ";
    }
    lp_cli_buf_printf(&b, "%siperf2 protocol 2.1.8 (JPerf)", sep);
#ifdef __linux__ /* the data path's Linux fast paths (src/core/stream.c) */
    lp_cli_buf_puts(&b, ", UDP GSO/GRO, batched datagrams (sendmmsg/recvmmsg), TCP_INFO");
#endif
    lp_cli_buf_puts(&b, ", bounceback latency, latency histograms, RFC 2544, latency under load, web UI (linkperf "
                        "ui), run history, lwip-tune\n");
    return lp_cli_buf_take(&b);
}

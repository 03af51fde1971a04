/* `linkperf ui [--listen HOST:PORT] [--token T]`: the browser GUI. The options are few and
 * its own, so they are parsed here rather than in the test option table. */
#include "cli/ui.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/config.h"
#include "cli/optdoc.h"
#include "web/web.h"

static const char usage[] =
    "Usage: linkperf ui [--listen HOST:PORT] [--token TOKEN] [--db PATH | --no-history]\n"
    "                   [--allow-private-targets]\n"
    "       linkperf ui --options\n"
    "Serve linkperf's browser GUI (a modern JPerf) and print its URL.\n"
    "  --listen HOST:PORT  address to serve on (default 127.0.0.1:8080, or a free port when\n"
    "                      8080 is taken; port 0 = a free port). A numeric address, [IPv6],\n"
    "                      or localhost.\n"
    "  --token TOKEN       the token the page must present (8-128 of [A-Za-z0-9._-]);\n"
    "                      default: a random one, printed in the URL (on loopback too:\n"
    "                      every local user can reach 127.0.0.1)\n"
    "  --db PATH           the history database (default\n"
    "                      $XDG_DATA_HOME/linkperf/history.db or ~/.local/share/...)\n"
    "  --no-history        record nothing and show no history\n"
    "  --allow-private-targets  served on an address other than loopback, the page may\n"
    "                      still test private, link-local and loopback hosts (10/8,\n"
    "                      192.168/16, 169.254/16, the cloud metadata address, fc00::/7,\n"
    "                      ...): without it, whoever reaches the page cannot aim tests\n"
    "                      into this machine's networks\n"
    "  --options           print the options document the page reads (GET /api/options:\n"
    "                      the option table's names, ranges, messages and defaults, JSON)\n"
    "                      and quit\n"
    "Stop with Ctrl-C (running tests stop and keep their partial results).\n";

/* The document the page reads, for scripts and the page's own tests. */
static int print_options(void)
{
    char *doc = lp_cli_options_json();

    if (!doc) {
        fprintf(stderr, "linkperf: ui: out of memory\n");
        return LP_CLI_EXIT_FAIL;
    }
    puts(doc);
    free(doc);
    return fflush(stdout) == 0 ? LP_CLI_EXIT_OK : LP_CLI_EXIT_FAIL;
}

int lp_cli_ui_main(int argc, char **argv)
{
    struct lp_web_opts opts = {NULL, NULL, NULL, 0, 0};
    struct lp_web *w;
    sigset_t set;
    char err[256];
    int i, sig;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return LP_CLI_EXIT_OK;
        }
        if (strcmp(a, "--options") == 0)
            return print_options();
        if (strcmp(a, "--no-history") == 0) {
            opts.no_history = 1;
            continue;
        }
        if (strcmp(a, "--allow-private-targets") == 0) {
            opts.allow_private_targets = 1;
            continue;
        }
        if (strcmp(a, "--listen") == 0 || strcmp(a, "--token") == 0 || strcmp(a, "--db") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "linkperf: ui: option %s needs an argument\n", a);
                return LP_CLI_EXIT_USAGE;
            }
            if (a[2] == 'l')
                opts.listen = argv[++i];
            else if (a[2] == 't')
                opts.token = argv[++i];
            else
                opts.db = argv[++i];
            continue;
        }
        fprintf(stderr, "linkperf: ui: unknown option %s (see linkperf ui --help)\n", a);
        return LP_CLI_EXIT_USAGE;
    }
    /* Every thread the server starts inherits this mask; only sigwait below takes them. */
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    w = lp_web_start(&opts, err, sizeof(err));
    if (!w) {
        fprintf(stderr, "linkperf: ui: %s\n", err);
        return LP_CLI_EXIT_FAIL;
    }
    printf("linkperf ui: %s\n", lp_web_url(w));
    fflush(stdout);
    sigwait(&set, &sig);
    lp_web_free(w);
    return LP_CLI_EXIT_OK;
}

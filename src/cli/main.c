/* linkperf's entry point: parse argv, then run a server, a client, the demo, or print
 * help/version/man. The only place that decides the exit status; it formats nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli/demo.h"
#include "cli/lwip_tune.h"
#include "cli/help.h"
#include "cli/output.h"
#include "cli/parse.h"
#include "cli/proc.h"
#include "linkperf/engine.h"

static int print_generated(char *text)
{
    if (!text) {
        fprintf(stderr, "linkperf: out of memory\n");
        return LP_CLI_EXIT_FAIL;
    }
    fputs(text, stdout);
    free(text);
    return fflush(stdout) == 0 ? LP_CLI_EXIT_OK : LP_CLI_EXIT_FAIL;
}

/* In the iperf2 spelling the line starts like iperf2's ("... version 2.1.8 ..."), so tools
 * that read the third word as the iperf2 version (JPerf) see what linkperf speaks. */
static int print_version(bool iperf2)
{
    struct utsname u;

    if (iperf2)
        printf("linkperf2 version 2.1.8 (%s, iperf 2.1.8 protocol and options)\n",
               LP_VERSION_STR);
    else
        printf("%s (iperf3 3.12 protocol and options)\n", LP_VERSION_STR);
    if (uname(&u) == 0)
        printf("%s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version, u.machine);
    return LP_CLI_EXIT_OK;
}

/* A stop by signal is a normal end (iperf3 3.19+ exits 0 too): partial results printed. */
static int status_of(int rc)
{
    return rc == 0 || rc == LP_ECANCEL ? LP_CLI_EXIT_OK : LP_CLI_EXIT_FAIL;
}

static int run_client(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                      struct lp_cli_signals *sig)
{
    struct lp_sink sink;
    struct lp_client *c;
    int rc;

    lp_cli_output_sink(out, &sink);
    c = lp_client_new(&cfg->spec, &sink);
    if (!c) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: cannot start the client\n");
        return LP_CLI_EXIT_FAIL;
    }
    lp_cli_signals_target(sig, c, NULL);
    rc = lp_client_run(c);
    lp_cli_signals_target(sig, NULL, NULL);
    lp_client_free(c);
    return status_of(rc);
}

static int run_server(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                      struct lp_cli_signals *sig)
{
    struct lp_sink sink;
    struct lp_server *s;
    char err[256] = "";
    int rc;

    lp_cli_output_sink(out, &sink);
    s = lp_server_new(&cfg->spec, &sink, err, sizeof(err));
    if (!s) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n",
                             err[0] ? err : "cannot start the server");
        return LP_CLI_EXIT_FAIL;
    }
    if (cfg->stop_after_s > 0 &&
        lp_cli_signals_deadline(sig, cfg->stop_after_s, err, sizeof(err)) < 0) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n", err);
        lp_server_free(s);
        return LP_CLI_EXIT_FAIL;
    }
    lp_cli_signals_target(sig, NULL, s);
    rc = lp_server_run(s);
    lp_cli_signals_target(sig, NULL, NULL);
    lp_server_free(s);
    return status_of(rc);
}

/* Daemon and pid file come before any thread exists: fork keeps only the caller. */
static int prepare_process(struct lp_cli_config *cfg, struct lp_cli_output *out)
{
    char err[LP_CLI_PATH_MAX + 64];

    if (lp_cli_abspath(cfg->pidfile, sizeof(cfg->pidfile), err, sizeof(err)) < 0)
        goto fail;
    if (cfg->daemon && lp_cli_daemonize(lp_cli_output_log_fd(out), err, sizeof(err)) < 0)
        goto fail;
    if (cfg->pidfile[0] && lp_cli_pidfile_write(cfg->pidfile, err, sizeof(err)) < 0) {
        cfg->pidfile[0] = '\0'; /* not ours to remove */
        goto fail;
    }
    return 0;
fail:
    lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n", err);
    return -1;
}

/* -F must name a readable file: say so now, as a usage error, not once the test runs. */
static int check_input_file(const struct lp_cli_config *cfg)
{
    const char *path = cfg->spec.iperf2.file;

    if (cfg->action != LP_CLI_ACTION_RUN || cfg->spec.role != LP_ROLE_CLIENT || !path[0])
        return 0;
    if (access(path, R_OK) == 0)
        return 0;
    fprintf(stderr, "linkperf: option %s: cannot read %s: %s\n",
            cfg->iperf2 ? "-F/--file_input" : "-F/--file", path, strerror(errno));
    return -1;
}

int main(int argc, char **argv)
{
    const struct lp_cli_table *table;
    struct lp_cli_config cfg;
    struct lp_cli_output *out = NULL;
    struct lp_cli_signals *sig = NULL;
    struct lp_cli_err perr;
    char err[LP_CLI_PATH_MAX + 64];
    int status = LP_CLI_EXIT_FAIL;

    if (argc > 1 && strcmp(argv[1], "lwip-tune") == 0)
        return lp_lwip_tune_main(argc - 1, argv + 1);
    if (lp_cli_parse(argc, argv, &cfg, &perr) < 0) {
        fprintf(stderr, "linkperf: %s\n", perr.msg);
        return LP_CLI_EXIT_USAGE;
    }
    if (check_input_file(&cfg) < 0)
        return LP_CLI_EXIT_USAGE;
    table = cfg.iperf2 ? lp_cli_options_iperf2() : lp_cli_options_iperf3();
    switch (cfg.action) {
    case LP_CLI_ACTION_HELP:
        return print_generated(lp_cli_help_text(table));
    case LP_CLI_ACTION_MAN:
        return print_generated(lp_cli_man_page(lp_cli_options_iperf3(),
                                               lp_cli_options_iperf2()));
    case LP_CLI_ACTION_VERSION:
        return print_version(cfg.iperf2);
    case LP_CLI_ACTION_RUN:
    case LP_CLI_ACTION_DEMO:
        break;
    }
    out = lp_cli_output_new(&cfg, err, sizeof(err));
    if (!out) {
        fprintf(stderr, "linkperf: %s\n", err);
        return LP_CLI_EXIT_FAIL;
    }
    if (prepare_process(&cfg, out) < 0)
        goto done;
    sig = lp_cli_signals_start(err, sizeof(err));
    if (!sig) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n", err);
        goto done;
    }
    if (cfg.action == LP_CLI_ACTION_DEMO)
        status = lp_cli_demo_run(&cfg, out, sig);
    else if (cfg.spec.role == LP_ROLE_SERVER)
        status = run_server(&cfg, out, sig);
    else
        status = run_client(&cfg, out, sig);
done:
    lp_cli_signals_free(sig);
    lp_cli_pidfile_remove(cfg.pidfile);
    lp_cli_output_free(out);
    return status;
}

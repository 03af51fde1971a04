/* linkperf's entry point: parse argv, then run a server, a client, the demo, or print
 * help/version/man. The only place that decides the exit status; it formats nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "auth/i3auth.h"
#include "cli/completion.h"
#include "cli/demo.h"
#include "cli/lwip_tune.h"
#include "cli/ui.h"
#include "cli/under_load.h"
#include "cli/rfc2544.h"
#include "cli/cmdline.h"
#include "store/store.h"
#include "web/web.h"
#include "web/metrics.h"
#include "cli/help.h"
#include "cli/history.h"
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

/* In the iperf2 spelling, 2.1.8's one line on stderr: JPerf takes the last line of stdout
 * (of stderr only when stdout is empty) and reads its third word as the version, so any
 * second line, or stdout at all, would be read instead. */
static int print_version(bool iperf2)
{
    struct utsname u;

    if (iperf2) {
        fprintf(stderr, "iperf version 2.1.8 (%s: iperf 2.1.8 protocol and options) pthreads\n",
                LP_VERSION_STR);
        return fflush(stderr) == 0 ? LP_CLI_EXIT_OK : LP_CLI_EXIT_FAIL;
    }
    printf("%s (iperf3 3.12 protocol and options)\n", LP_VERSION_STR);
    if (uname(&u) == 0)
        printf("%s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version, u.machine);
    return print_generated(lp_cli_features_text(lp_cli_options_iperf3()));
}

/* A stop by signal is a normal end (iperf3 3.19+ exits 0 too): partial results printed. */
static int status_of(int rc)
{
    return rc == 0 || rc == LP_ECANCEL ? LP_CLI_EXIT_OK : LP_CLI_EXIT_FAIL;
}

/* Two sinks fed the same records (the output and a server's web page). */
struct sink_tee {
    struct lp_sink a, b;
};

static void tee_record(const struct lp_record *rec, void *user)
{
    struct sink_tee *t = user;

    t->a.record(rec, t->a.user);
    t->b.record(rec, t->b.user);
}

static char *tee_server_output(unsigned test_id, int *is_json, void *user)
{
    struct sink_tee *t = user;

    return t->a.server_output ? t->a.server_output(test_id, is_json, t->a.user) : NULL;
}

/* The output's sink (teed with web when given), behind the history tap when there is one. */
static void sink_of(struct lp_cli_output *out, struct lp_store_tap *tap, struct sink_tee *web,
                    struct lp_sink *sink)
{
    lp_cli_output_sink(out, sink);
    if (web) {
        web->a = *sink;
        sink->record = tee_record;
        sink->server_output = web->a.server_output ? tee_server_output : NULL;
        sink->user = web;
    }
    if (tap) {
        struct lp_sink next = *sink;
        lp_store_tap_set_next(tap, &next);
        lp_store_tap_sink(tap, sink);
    }
}

/* The history (unless --no-history): a store that cannot be opened costs a warning, never
 * the test. */
static struct lp_store *open_history(const struct lp_cli_config *cfg, struct lp_cli_output *out)
{
    char err[LP_CLI_PATH_MAX + 128];
    struct lp_store *st;

    if (cfg->no_history || lp_store_env_off() || cfg->action != LP_CLI_ACTION_RUN)
        return NULL;
    st = lp_store_open(cfg->db, err, sizeof(err));
    if (!st)
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s (not recording this test)\n",
                             err);
    else if (lp_cli_history_notice(st, err, sizeof(err)))
        lp_cli_output_printf(out, LP_OUT_STDERR, "%s", err);
    return st;
}

/* --username: the password (environment or terminal) and the server's public key, loaded
 * before the test starts so that a mistake costs no connection. *a stays NULL without it. */
static int client_auth(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                       struct lp_i3auth_client **a)
{
    char password[LP_I3AUTH_NAME_MAX + 1], err[300];

    *a = NULL;
    if (!cfg->auth.username[0])
        return 0;
    if (lp_i3auth_read_password(password, err, sizeof(err)))
        *a = lp_i3auth_client_new(cfg->auth.public_key, cfg->auth.username, password,
                                  cfg->auth.pkcs1 ? LP_I3AUTH_PKCS1 : LP_I3AUTH_OAEP, err,
                                  sizeof(err));
    memset(password, 0, sizeof(password));
    if (*a)
        return 0;
    lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: authentication: %s\n", err);
    return -1;
}

static int run_client(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                      struct lp_cli_signals *sig, struct lp_store_tap *tap)
{
    struct lp_i3auth_client *auth;
    struct lp_sink sink;
    struct lp_client *c;
    char err[256] = "";
    int rc;

    if (client_auth(cfg, out, &auth) < 0)
        return LP_CLI_EXIT_FAIL;
    sink_of(out, tap, NULL, &sink);
    c = lp_client_new(&cfg->spec, &sink, err, sizeof(err));
    if (!c) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n", err);
        lp_i3auth_client_free(auth);
        return LP_CLI_EXIT_FAIL;
    }
    lp_client_set_auth(c, auth);
    lp_cli_signals_target(sig, c, NULL);
    rc = lp_client_run(c);
    lp_cli_signals_target(sig, NULL, NULL);
    lp_client_free(c);
    lp_i3auth_client_free(auth);
    return status_of(rc);
}

/* --web: the browser page next to the server, its tests shown as they run. */
static struct lp_web *start_web(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                                int argc, char **argv, struct sink_tee *tee, int *id)
{
    struct lp_web_opts o = {cfg->web, NULL, cfg->db, cfg->no_history, 0};
    struct lp_web *w;
    char err[256];

    w = lp_web_start(&o, err, sizeof(err));
    if (!w) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: --web: %s\n", err);
        return NULL;
    }
    *id = lp_web_attach(w, cfg, argc - 1, argv + 1, &tee->b);
    if (*id < 0) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: --web: cannot show this server\n");
        lp_web_free(w);
        return NULL;
    }
    fprintf(stderr, "linkperf: web page at %s\n", lp_web_url(w));
    return w;
}

static int run_server(const struct lp_cli_config *cfg, struct lp_cli_output *out,
                      struct lp_cli_signals *sig, struct lp_store_tap *tap, int argc,
                      char **argv)
{
    struct lp_sink sink;
    struct lp_server *s;
    struct sink_tee tee;
    struct lp_web *web = NULL;
    struct lp_metrics *metrics = NULL;
    struct lp_i3auth_server *auth = NULL;
    char err[256] = "";
    int rc, web_id = -1;

    if (cfg->auth.private_key[0] &&
        !(auth = lp_i3auth_server_new(cfg->auth.private_key, cfg->auth.users,
                                      cfg->auth.skew_s ? cfg->auth.skew_s : LP_I3AUTH_DEFAULT_SKEW_S,
                                      cfg->auth.pkcs1, err, sizeof(err)))) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: authentication: %s\n", err);
        return LP_CLI_EXIT_FAIL;
    }
    if (cfg->web[0] && (web = start_web(cfg, out, argc, argv, &tee, &web_id)) == NULL) {
        lp_i3auth_server_free(auth);
        return LP_CLI_EXIT_FAIL;
    }
    sink_of(out, tap, web ? &tee : NULL, &sink);
    if (cfg->metrics[0]) {
        if (!(metrics = lp_metrics_start(cfg->metrics, err, sizeof(err)))) {
            lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n", err);
            if (web)
                lp_web_detach(web, web_id, -1);
            lp_web_free(web);
            lp_i3auth_server_free(auth);
            return LP_CLI_EXIT_FAIL;
        }
        struct lp_sink next = sink;
        lp_metrics_sink(metrics, &next, &sink);
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: metrics at %s\n", lp_metrics_url(metrics));
    }
    s = lp_server_new(&cfg->spec, &sink, err, sizeof(err));
    if (!s) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n",
                             err[0] ? err : "cannot start the server");
        if (web)
            lp_web_detach(web, web_id, -1);
        lp_web_free(web);
        lp_metrics_free(metrics);
        lp_i3auth_server_free(auth);
        return LP_CLI_EXIT_FAIL;
    }
    lp_server_set_auth(s, auth);
    if (web)
        lp_web_attach_server(web, web_id, s);
    if (cfg->stop_after_s > 0 &&
        lp_cli_signals_deadline(sig, cfg->stop_after_s, err, sizeof(err)) < 0) {
        lp_cli_output_printf(out, LP_OUT_STDERR, "linkperf: %s\n", err);
        if (web) {
            lp_web_attach_server(web, web_id, NULL);
            lp_web_detach(web, web_id, -1);
            lp_web_free(web);
        }
        lp_server_free(s);
        lp_metrics_free(metrics);
        lp_i3auth_server_free(auth);
        return LP_CLI_EXIT_FAIL;
    }
    lp_cli_signals_target(sig, NULL, s);
    rc = lp_server_run(s);
    lp_cli_signals_target(sig, NULL, NULL);
    if (web) {
        lp_web_attach_server(web, web_id, NULL);
        lp_web_detach(web, web_id, rc);
        lp_web_free(web);
    }
    lp_server_free(s);
    lp_metrics_free(metrics); /* after the server: its last records are counted */
    lp_i3auth_server_free(auth);
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
    struct lp_store *store = NULL;
    struct lp_store_tap *tap = NULL;
    struct lp_cli_err perr;
    char err[LP_CLI_PATH_MAX + 64];
    int status = LP_CLI_EXIT_FAIL;

    /* Hidden: make install writes the shells' completion files with it. */
    if (argc == 3 && strcmp(argv[1], "--completion") == 0) {
        char *script = lp_cli_completion_script(argv[2]);
        if (!script) {
            fprintf(stderr, "linkperf: --completion: '%s' is not bash or zsh\n", argv[2]);
            return LP_CLI_EXIT_USAGE;
        }
        return print_generated(script);
    }
    if (argc > 1 && strcmp(argv[1], "lwip-tune") == 0)
        return lp_lwip_tune_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "ui") == 0)
        return lp_cli_ui_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "under-load") == 0)
        return lp_under_load_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "rfc2544") == 0)
        return lp_rfc2544_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "history") == 0)
        return lp_cli_history_main(argc - 1, argv + 1);
    if (lp_cli_parse(argc, argv, &cfg, &perr) < 0) {
        fprintf(stderr, "linkperf: %s\n", perr.msg);
        return LP_CLI_EXIT_USAGE;
    }
    if (check_input_file(&cfg) < 0)
        return LP_CLI_EXIT_USAGE;
    /* -d keeps iperf3's meaning (a drop-in), but an iperf2 user meant a dual test. */
    if (cfg.parse.dash_d && cfg.action == LP_CLI_ACTION_RUN)
        fprintf(stderr, "linkperf: note: -d is iperf3's --debug; iperf2's dual test is --bidir here "
                        "(or -d with --iperf2)\n");
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
    store = open_history(&cfg, out);
    if (store) {
        char *cmd = lp_cli_command_line(argc - 1, argv + 1);
        tap = lp_store_tap_new(store, "cli", cmd ? cmd : "linkperf", NULL);
        free(cmd);
    }
    if (cfg.action == LP_CLI_ACTION_DEMO)
        status = lp_cli_demo_run(&cfg, out, sig);
    else if (cfg.spec.role == LP_ROLE_SERVER)
        status = run_server(&cfg, out, sig, tap, argc, argv);
    else
        status = run_client(&cfg, out, sig, tap);
done:
    lp_store_tap_free(tap);
    lp_store_close(store);
    lp_cli_signals_free(sig);
    lp_cli_pidfile_remove(cfg.pidfile);
    lp_cli_output_free(out);
    return status;
}

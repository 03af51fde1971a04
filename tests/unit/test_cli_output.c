/* The CLI sink: one formatter per server test (created on the first record, freed after
 * DONE), per-test capture for --get-server-output (bounded), JSON documents for JSON
 * servers, --logfile append, and which formatter each spelling and option selects
 * (iperf3 text, iperf2 text, CSV, JSON). The formatters are faked here: this tests routing only.
 * The fakes define the formatter interface output.c uses (lp_fmt_new, _record, _document,
 * _free), so no formatter object from lpcore is pulled into this executable. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/output.h"
#include "evidence.h"

/* ---- fake formatters (test-local state) ---- */
static int n_new, n_free;
static int n_text, n_text2, n_csv, n_json; /* formatters made, by kind */
static size_t interval_line_len = 20;
static const struct lp_fmt_opts *last_opts;

/* One fake for every look: the look picks the line prefix and the counter. */
struct lp_fmt {
    struct lp_out out;
    enum lp_fmt_look look;
    unsigned test_id;
};

static const char *const kind_names[] = {"LISTENING", "CONNECTING", "START", "INTERVAL",
                                         "END", "ERROR", "DONE"};

static void fake_line_as(const struct lp_out *out, const struct lp_record *rec,
                         const char *prefix)
{
    char line[4096];
    int n = snprintf(line, sizeof(line), "%sT%u %s", prefix, rec->test_id,
                     kind_names[rec->kind]);

    if (rec->kind == LP_REC_INTERVAL) {
        while ((size_t)n + 1 < interval_line_len && (size_t)n + 1 < sizeof(line))
            line[n++] = '.';
    }
    line[n++] = '\n';
    out->write(out->user, rec->kind == LP_REC_ERROR ? LP_OUT_STDERR : LP_OUT_STDOUT, line,
               (size_t)n);
}

static void fake_line(const struct lp_out *out, const struct lp_record *rec)
{
    fake_line_as(out, rec, "");
}

struct lp_fmt *lp_fmt_new(enum lp_fmt_look look, const struct lp_fmt_opts *opts,
                          const struct lp_out *out)
{
    struct lp_fmt *f = calloc(1, sizeof(*f));
    f->out = *out;
    f->look = look;
    last_opts = opts;
    n_new++;
    switch (look) {
    case LP_FMT_TEXT: n_text++; break;
    case LP_FMT_TEXT2: n_text2++; break;
    case LP_FMT_CSV: n_csv++; break;
    case LP_FMT_JSON:
    case LP_FMT_JSON_STREAM: n_json++; break;
    }
    return f;
}

void lp_fmt_record(struct lp_fmt *f, const struct lp_record *rec)
{
    f->test_id = rec->test_id;
    switch (f->look) {
    case LP_FMT_TEXT: fake_line(&f->out, rec); break;
    case LP_FMT_TEXT2: fake_line_as(&f->out, rec, "iperf2 "); break;
    case LP_FMT_CSV: fake_line_as(&f->out, rec, "csv,"); break;
    case LP_FMT_JSON:
    case LP_FMT_JSON_STREAM:
        if (rec->kind == LP_REC_DONE)
            f->out.write(f->out.user, LP_OUT_STDOUT, "{}\n", 3);
        break;
    }
}

char *lp_fmt_document(const struct lp_fmt *f)
{
    char doc[64];

    if (f->look != LP_FMT_JSON && f->look != LP_FMT_JSON_STREAM)
        return NULL;
    snprintf(doc, sizeof(doc), "{\"test\":%u}", f->test_id);
    return strdup(doc);
}

void lp_fmt_free(struct lp_fmt *f)
{
    n_free++;
    free(f);
}

/* ---- helpers ---- */
struct fixture {
    char path[64];
    struct lp_cli_config cfg;
    struct lp_cli_output *out;
    struct lp_sink sink;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof(*fx));
    int fd;

    snprintf(fx->path, sizeof(fx->path), "/tmp/lp_test_cli_output_XXXXXX");
    fd = mkstemp(fx->path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "old line\n", 9), 9);
    close(fd);
    lp_cli_config_init(&fx->cfg);
    snprintf(fx->cfg.logfile, sizeof(fx->cfg.logfile), "%s", fx->path);
    n_new = n_free = 0;
    n_text = n_text2 = n_csv = n_json = 0;
    interval_line_len = 20;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;

    lp_cli_output_free(fx->out);
    unlink(fx->path);
    free(fx);
    return 0;
}

static void open_output(struct fixture *fx)
{
    char err[256];

    fx->out = lp_cli_output_new(&fx->cfg, err, sizeof(err));
    if (!fx->out)
        fail_msg("lp_cli_output_new: %s", err);
    lp_cli_output_sink(fx->out, &fx->sink);
}

static void send_rec(struct fixture *fx, enum lp_role role, unsigned test_id,
                 enum lp_record_kind kind)
{
    struct lp_record rec;

    memset(&rec, 0, sizeof(rec));
    rec.kind = kind;
    rec.role = role;
    rec.test_id = test_id;
    if (kind == LP_REC_ERROR)
        rec.u.error.message = "boom";
    fx->sink.record(&rec, fx->sink.user);
}

static char *server_output(struct fixture *fx, unsigned test_id, int *is_json)
{
    *is_json = -1;
    return fx->sink.server_output(test_id, is_json, fx->sink.user);
}

static char *slurp(const char *path)
{
    char *s = lp_test_slurp(path);
    assert_non_null(s);
    return s;
}

/* ---- tests ---- */
static void test_server_tests_get_their_own_formatter(void **state)
{
    struct fixture *fx = *state;
    char *s, *log;
    int is_json;

    open_output(fx);
    send_rec(fx, LP_ROLE_SERVER, 0, LP_REC_LISTENING);
    send_rec(fx, LP_ROLE_SERVER, 1, LP_REC_CONNECTING);
    send_rec(fx, LP_ROLE_SERVER, 2, LP_REC_CONNECTING);
    send_rec(fx, LP_ROLE_SERVER, 1, LP_REC_INTERVAL);
    send_rec(fx, LP_ROLE_SERVER, 2, LP_REC_INTERVAL);
    send_rec(fx, LP_ROLE_SERVER, 1, LP_REC_END);
    assert_int_equal(n_new, 3);                      /* test 0, 1 and 2 */
    assert_int_equal(lp_cli_output_open_tests(fx->out), 3);

    s = server_output(fx, 1, &is_json);
    assert_non_null(s);
    assert_int_equal(is_json, 0);
    assert_string_equal(s, "T1 CONNECTING\nT1 INTERVAL........\nT1 END\n");
    free(s);

    send_rec(fx, LP_ROLE_SERVER, 1, LP_REC_DONE);
    assert_int_equal(n_free, 1);
    assert_int_equal(lp_cli_output_open_tests(fx->out), 2);
    assert_null(server_output(fx, 1, &is_json));    /* gone after DONE */

    s = server_output(fx, 2, &is_json);              /* test 2 untouched by test 1 */
    assert_string_equal(s, "T2 CONNECTING\nT2 INTERVAL........\n");
    free(s);
    send_rec(fx, LP_ROLE_SERVER, 2, LP_REC_ERROR);
    send_rec(fx, LP_ROLE_SERVER, 2, LP_REC_DONE);
    send_rec(fx, LP_ROLE_SERVER, 0, LP_REC_LISTENING);   /* the banner again, same instance */
    assert_int_equal(n_new, 3);
    assert_int_equal(lp_cli_output_open_tests(fx->out), 1);

    /* Appended, errors included; --test-tags auto: from the moment test 2 runs beside test 1
     * both tests' lines carry their tag (the copies for their clients above do not). */
    log = slurp(fx->path);
    assert_string_equal(log, "old line\nT0 LISTENING\nT1 CONNECTING\n[test 2] T2 CONNECTING\n"
                             "[test 1] T1 INTERVAL........\n[test 2] T2 INTERVAL........\n[test 1] T1 END\n"
                             "[test 1] T1 DONE\n[test 2] T2 ERROR\n[test 2] T2 DONE\nT0 LISTENING\n");
    free(log);
    lp_cli_output_free(fx->out);
    fx->out = NULL;
    assert_int_equal(n_free, n_new);                 /* the banner instance too */
}

static void test_capture_is_bounded(void **state)
{
    struct fixture *fx = *state;
    size_t total = 0;
    char *s;
    int is_json;

    open_output(fx);
    interval_line_len = 1000;
    send_rec(fx, LP_ROLE_SERVER, 7, LP_REC_START);
    while (total < 2 * LP_CLI_SERVER_OUTPUT_MAX) {
        send_rec(fx, LP_ROLE_SERVER, 7, LP_REC_INTERVAL);
        total += 1000;
    }
    s = server_output(fx, 7, &is_json);
    assert_non_null(s);
    assert_true(strlen(s) > LP_CLI_SERVER_OUTPUT_MAX);
    assert_true(strlen(s) < LP_CLI_SERVER_OUTPUT_MAX + 100);
    assert_non_null(strstr(s + LP_CLI_SERVER_OUTPUT_MAX, "server output truncated"));
    assert_int_equal(strncmp(s, "T7 START\n", 9), 0);
    free(s);
}

static void test_json_server_returns_document(void **state)
{
    struct fixture *fx = *state;
    char *s;
    int is_json;

    fx->cfg.json = true;
    open_output(fx);
    send_rec(fx, LP_ROLE_SERVER, 3, LP_REC_CONNECTING);
    send_rec(fx, LP_ROLE_SERVER, 3, LP_REC_END);
    s = server_output(fx, 3, &is_json);
    assert_int_equal(is_json, 1);
    assert_string_equal(s, "{\"test\":3}");
    free(s);
    send_rec(fx, LP_ROLE_SERVER, 3, LP_REC_DONE);
    assert_int_equal(n_free, 1);
    assert_null(server_output(fx, 99, &is_json));   /* unknown test */
}

static void test_client_runs_one_after_another(void **state)
{
    struct fixture *fx = *state;

    snprintf(fx->cfg.spec.title, sizeof(fx->cfg.spec.title), "lab");
    open_output(fx);
    send_rec(fx, LP_ROLE_CLIENT, 1, LP_REC_CONNECTING);
    assert_non_null(last_opts->title);
    assert_string_equal(last_opts->title, "lab");
    send_rec(fx, LP_ROLE_CLIENT, 1, LP_REC_DONE);
    lp_cli_output_printf(fx->out, LP_OUT_STDOUT, "== heading %d ==\n", 2);
    send_rec(fx, LP_ROLE_CLIENT, 1, LP_REC_CONNECTING);  /* the demo's second test */
    send_rec(fx, LP_ROLE_CLIENT, 1, LP_REC_DONE);
    assert_int_equal(n_new, 2);
    assert_int_equal(n_free, 2);
    assert_int_equal(lp_cli_output_open_tests(fx->out), 0);
}

/* Which formatter a test gets: iperf2 text in the iperf2 spelling, CSV with --csv / -y C,
 * JSON with -J, iperf3 text otherwise. A server keeps the text of every look for
 * --get-server-output (an iperf3 client of a server in iperf2 look gets iperf2 text). */
static void test_look_selection(void **state)
{
    static const struct {
        bool iperf2, csv, json;
        int *counter;
        const char *line;
    } looks[] = {
        {false, false, false, &n_text, "T4 CONNECTING\n"},
        {true, false, false, &n_text2, "iperf2 T4 CONNECTING\n"},
        {true, true, false, &n_csv, "csv,T4 CONNECTING\n"},
        {false, true, false, &n_csv, "csv,T4 CONNECTING\n"},
        {false, false, true, &n_json, NULL},
    };
    struct fixture *fx = *state;
    size_t i;

    for (i = 0; i < sizeof(looks) / sizeof(looks[0]); i++) {
        char *s;
        int is_json;

        fx->cfg.iperf2 = looks[i].iperf2;
        fx->cfg.csv = looks[i].csv;
        fx->cfg.json = looks[i].json;
        fx->cfg.fmt.enhanced = true;
        fx->cfg.fmt.csv_header = looks[i].csv;
        n_text = n_text2 = n_csv = n_json = 0;
        open_output(fx);
        send_rec(fx, LP_ROLE_SERVER, 4, LP_REC_CONNECTING);
        assert_int_equal(*looks[i].counter, 1);
        assert_int_equal(n_text + n_text2 + n_csv + n_json, 1);
        assert_true(last_opts->enhanced);                 /* options reach the formatter */
        assert_true(last_opts->csv_header == looks[i].csv);
        s = server_output(fx, 4, &is_json);
        assert_non_null(s);
        if (looks[i].line) {
            assert_int_equal(is_json, 0);
            assert_string_equal(s, looks[i].line);
        } else {
            assert_int_equal(is_json, 1);
        }
        free(s);
        send_rec(fx, LP_ROLE_SERVER, 4, LP_REC_DONE);
        lp_cli_output_free(fx->out);
        fx->out = NULL;
        assert_int_equal(n_free, n_new);
    }
}

static void test_bad_logfile_is_an_error(void **state)
{
    struct fixture *fx = *state;
    char err[256] = "";

    (void)state;
    snprintf(fx->cfg.logfile, sizeof(fx->cfg.logfile), "/nonexistent-dir/x.log");
    assert_null(lp_cli_output_new(&fx->cfg, err, sizeof(err)));
    assert_non_null(strstr(err, "/nonexistent-dir/x.log"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_server_tests_get_their_own_formatter, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_capture_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json_server_returns_document, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_runs_one_after_another, setup, teardown),
        cmocka_unit_test_setup_teardown(test_look_selection, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_logfile_is_an_error, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

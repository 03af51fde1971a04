/* Parsing beyond single options: defaults, -S/--dscp forms, combinations and mutual
 * exclusions, argv grammar (clusters, =, prefixes, positionals), demo, unit grammar. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "cli/parse.h"
#include "cli/values.h"

/* Parse a NULL-terminated list; returns parse's result. */
static int parse_v(struct lp_cli_config *cfg, struct lp_cli_err *err, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    const char *a;

    argv[argc++] = (char *)"linkperf";
    va_start(ap, err);
    while ((a = va_arg(ap, const char *)) != NULL && argc < 31)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return lp_cli_parse(argc, argv, cfg, err);
}

#define PARSE_OK(cfg, ...)                                                                 \
    do {                                                                                   \
        struct lp_cli_err e_;                                                              \
        if (parse_v(cfg, &e_, __VA_ARGS__, (const char *)NULL) != 0)                       \
            fail_msg("unexpected error: %s", e_.msg);                                      \
    } while (0)

#define PARSE_ERR(want, ...)                                                                \
    do {                                                                                   \
        struct lp_cli_config c_;                                                           \
        struct lp_cli_err e_;                                                              \
        assert_int_equal(parse_v(&c_, &e_, __VA_ARGS__, (const char *)NULL), -1);          \
        assert_string_equal(e_.msg, want);                                                 \
    } while (0)

static void test_client_defaults(void **state)
{
    struct lp_cli_config c;

    (void)state;
    PARSE_OK(&c, "-c", "host");
    assert_int_equal(c.action, LP_CLI_ACTION_RUN);
    assert_int_equal(c.spec.role, LP_ROLE_CLIENT);
    assert_int_equal(c.spec.proto, LP_PROTO_TCP);
    assert_int_equal(c.spec.dir, LP_DIR_FORWARD);
    assert_int_equal(c.spec.port, 5201);
    assert_int_equal(c.spec.port2, 0);
    assert_int_equal(c.spec.dialect, LP_DIALECT_IPERF3);
    assert_false(c.iperf2);
    assert_false(c.csv);
    assert_int_equal(c.spec.streams, 1);
    assert_true(c.spec.duration_s == 10.0);
    assert_true(c.spec.report.interval_s == 1.0);
    assert_int_equal(c.spec.rate_bps, 0);      /* TCP: unlimited */
    assert_int_equal(lp_spec_blksize(&c.spec), 128 * 1024);
    assert_int_equal(c.spec.tos, -1);
    assert_int_equal(c.spec.rcv_timeout_ms, 120000);
    assert_int_equal(c.spec.pacing_timer_us, 1000);
    assert_int_equal(c.fmt.unit, 'a');
    assert_false(c.json);
    assert_null(c.fmt.title);
}

static void test_udp_defaults(void **state)
{
    struct lp_cli_config c;

    (void)state;
    PARSE_OK(&c, "-c", "host", "-u");
    assert_int_equal(c.spec.rate_bps, 1048576);           /* iperf3's 1M is 1048576 */
    assert_int_equal(lp_spec_blksize(&c.spec), 1460);
    PARSE_OK(&c, "-c", "host", "-u", "-b", "0");          /* explicitly unlimited */
    assert_int_equal(c.spec.rate_bps, 0);
    PARSE_OK(&c, "-c", "host", "-b", "100M", "-u");       /* order does not matter */
    assert_int_equal(c.spec.rate_bps, 100000000);
    assert_int_equal(c.spec.burst, 0);
    PARSE_OK(&c, "-c", "host", "-u", "-l", "16");
    assert_int_equal(c.spec.blksize, 16);
    PARSE_OK(&c, "-c", "host", "-u", "-l", "65507");
    assert_int_equal(c.spec.blksize, 65507);
}

static void test_server_defaults(void **state)
{
    struct lp_cli_config c;

    (void)state;
    PARSE_OK(&c, "-s");
    assert_int_equal(c.spec.role, LP_ROLE_SERVER);
    assert_int_equal(c.spec.port, 5201);                   /* and 5001: both dialects */
    assert_int_equal(c.spec.port2, 5001);
    assert_string_equal(c.spec.allow, "");
    assert_int_equal(c.spec.max_conns, 0);
    assert_true(c.stop_after_s == 0);
    assert_false(c.iperf2);
    PARSE_OK(&c, "-s", "-p", "5201");                      /* -p: that port only */
    assert_int_equal(c.spec.port, 5201);
    assert_int_equal(c.spec.port2, 0);
    PARSE_OK(&c, "-s", "-p", "5001");
    assert_int_equal(c.spec.port, 5001);
    assert_int_equal(c.spec.port2, 0);
    assert_int_equal(c.spec.max_tests, 64);
    assert_int_equal(c.spec.threads, 0);
    assert_false(c.spec.report.server_output_json);
    PARSE_OK(&c, "-s", "-p", "0");                         /* any free port */
    assert_int_equal(c.spec.port, 0);
    assert_int_equal(c.spec.port2, 0);
    PARSE_OK(&c, "-s", "-J");
    assert_true(c.spec.report.server_output_json);
    PARSE_OK(&c, "-s", "--json-stream");
    assert_true(c.json);
    assert_true(c.spec.report.server_output_json);
}

static void test_tos_and_dscp(void **state)
{
    static const struct {
        const char *opt, *val;
        int tos;
    } ok[] = {
        {"-S", "52", 52},     {"-S", "064", 52},    {"-S", "0x34", 52},  {"-S", "0X34", 52},
        {"-S", "0", 0},       {"-S", "255", 255},   {"--tos", "0xff", 255},
        {"--dscp", "0", 0},   {"--dscp", "63", 252}, {"--dscp", "0x2e", 184},
        {"--dscp", "EF", 184}, {"--dscp", "ef", 184}, {"--dscp", "VA", 176},
        {"--dscp", "CS0", 0},  {"--dscp", "cs1", 32}, {"--dscp", "CS7", 224},
        {"--dscp", "AF11", 40}, {"--dscp", "AF12", 48}, {"--dscp", "AF13", 56},
        {"--dscp", "AF21", 72}, {"--dscp", "AF22", 80}, {"--dscp", "AF23", 88},
        {"--dscp", "AF31", 104}, {"--dscp", "AF32", 112}, {"--dscp", "AF33", 120},
        {"--dscp", "AF41", 136}, {"--dscp", "AF42", 144}, {"--dscp", "af43", 152},
    };
    struct lp_cli_config c;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        PARSE_OK(&c, "-c", "h", ok[i].opt, ok[i].val);
        if (c.spec.tos != ok[i].tos)
            fail_msg("%s %s: tos %d, want %d", ok[i].opt, ok[i].val, c.spec.tos, ok[i].tos);
    }
    /* Both set the TOS byte; the last one wins, as in iperf3. */
    PARSE_OK(&c, "-c", "h", "-S", "16", "--dscp", "EF");
    assert_int_equal(c.spec.tos, 184);
    PARSE_OK(&c, "-c", "h", "--dscp", "EF", "-S", "16");
    assert_int_equal(c.spec.tos, 16);
    PARSE_ERR("option -S/--tos: -1 is out of range (0..255)", "-c", "h", "-S", "-1");
    PARSE_ERR("option -S/--tos: 'x1' is not an integer (decimal, 0octal or 0xhex)", "-c", "h",
              "-S", "x1");
    PARSE_ERR("option --dscp: 0x40 is out of range (0..63)", "-c", "h", "--dscp", "0x40");
    PARSE_ERR("option --dscp needs a non-empty value", "-c", "h", "--dscp=");
    PARSE_ERR("option --dscp: 'AF' is not a DSCP value (0..63, CS0..CS7, AF11..AF43, EF or VA)",
              "-c", "h", "--dscp", "AF");
}

static void test_end_conditions(void **state)
{
    struct lp_cli_config c;

    (void)state;
    PARSE_ERR("only one test end condition may be given (-t, -n or -k)", "-c", "h", "-t", "5",
              "-n", "1M");
    PARSE_ERR("only one test end condition may be given (-t, -n or -k)", "-c", "h", "-n", "1M",
              "-k", "5");
    PARSE_ERR("only one test end condition may be given (-t, -n or -k)", "-c", "h", "-t", "0",
              "-k", "5");
    PARSE_OK(&c, "-c", "h", "-t", "0");        /* 0 = until interrupted */
    assert_true(c.spec.duration_s == 0);
    assert_int_equal(c.spec.bytes, 0);
    PARSE_OK(&c, "-c", "h", "-n", "1.5M");     /* iperf3's unit_atoi takes fractions */
    assert_int_equal(c.spec.bytes, 1572864);
    assert_true(c.spec.duration_s == 0);
    PARSE_OK(&c, "-c", "h", "-t", "5", "-t", "7"); /* repeating an option: last wins */
    assert_true(c.spec.duration_s == 7);
}

static void test_roles_and_exclusions(void **state)
{
    (void)state;
    PARSE_ERR("give -s (server) or -c host (client); see linkperf --help", "-P", "2");
    PARSE_ERR("options -s/--server and -c/--client cannot be used together", "-c", "h", "-s");
    PARSE_ERR("options -R/--reverse and --bidir cannot be used together", "-c", "h", "--bidir",
              "-R");
    PARSE_ERR("option -t/--time only applies to a client", "-s", "-t", "5");
    PARSE_ERR("option -T/--title only applies to a client", "-s", "-T", "x");
    PARSE_ERR("option --idle-timeout only applies to a server", "-c", "h", "--idle-timeout",
              "5");
}

static void test_argv_grammar(void **state)
{
    struct lp_cli_config c;

    (void)state;
    PARSE_OK(&c, "-c", "h", "-uR");                 /* a cluster of flags */
    assert_int_equal(c.spec.proto, LP_PROTO_UDP);
    assert_int_equal(c.spec.dir, LP_DIR_REVERSE);
    PARSE_OK(&c, "-c", "h", "-uP4");                /* flag then option with attached value */
    assert_int_equal(c.spec.streams, 4);
    PARSE_OK(&c, "-ch");                            /* -c with attached host */
    assert_string_equal(c.spec.host, "h");
    PARSE_OK(&c, "--client=h", "--parallel=3");
    assert_int_equal(c.spec.streams, 3);
    PARSE_OK(&c, "-c", "h", "--para", "5");         /* unambiguous prefix, like getopt_long */
    assert_int_equal(c.spec.streams, 5);
    PARSE_OK(&c, "-c", "h", "--time", "3");         /* exact match beats being a prefix */
    assert_true(c.spec.duration_s == 3);
    PARSE_OK(&c, "-c", "fe80::1%eth0");             /* iperf3: %dev is --bind-dev */
    assert_string_equal(c.spec.host, "fe80::1");
    assert_string_equal(c.spec.bind_dev, "eth0");
    PARSE_OK(&c, "-c", "h", "--timestamps");        /* optional argument absent */
    assert_true(c.fmt.timestamps);
    assert_string_equal(c.fmt.timestamp_format, "");
    PARSE_OK(&c, "-c", "h", "-d");
    assert_int_equal(c.debug, 4);
    assert_true(c.parse.dash_d); /* main notes that iperf2's dual test is --bidir here */
    PARSE_OK(&c, "-c", "h", "--debug");
    assert_false(c.parse.dash_d);
    PARSE_OK(&c, "-c", "h", "--");
    PARSE_ERR("ambiguous option --re (see linkperf --help)", "-c", "h", "--re");
    PARSE_ERR("unknown option --foo (see linkperf --help)", "-c", "h", "--foo");
    PARSE_ERR("unknown option -y in iperf3's spelling: -y/--reportstyle is iperf2's (add --iperf2 or run linkperf2; "
              "for its CSV here: --csv) (see linkperf --help)", "-c", "h", "-y");
    PARSE_ERR("unknown option -e in iperf3's spelling: -e/--enhanced is iperf2's (add --iperf2 or run linkperf2) "
              "(see linkperf --help)", "-c", "h", "-e");
    PARSE_ERR("unknown option -q (see linkperf --help)", "-c", "h", "-q");
    PARSE_ERR("unexpected argument 'extra'", "-c", "h", "extra");
    PARSE_ERR("unexpected argument 'x'", "-c", "h", "--", "x");
    PARSE_ERR("unexpected argument '-'", "-c", "h", "-");
    PARSE_ERR("option -c/--client: the host is empty", "-c", "%eth0");
    PARSE_ERR("option -c/--client needs a non-empty value", "-c", "");
    PARSE_ERR("option -P/--parallel: '' is not an integer", "-c", "h", "--parallel=");
    PARSE_ERR("option -P/--parallel: ' 4' is not an integer", "-c", "h", "-P", " 4");
    PARSE_ERR("option -P/--parallel: '4x' is not an integer", "-c", "h", "-P", "4x");
    PARSE_ERR("option -A/--affinity is an iperf3 option that linkperf does not support", "-c",
              "h", "-uA", "x");
}

static void test_stop_actions(void **state)
{
    struct lp_cli_config c;

    (void)state;
    PARSE_OK(&c, "-h", "--bogus");                  /* like iperf3: -h wins */
    assert_int_equal(c.action, LP_CLI_ACTION_HELP);
    PARSE_OK(&c, "-c", "h", "-v");
    assert_int_equal(c.action, LP_CLI_ACTION_VERSION);
    PARSE_OK(&c, "--man");
    assert_int_equal(c.action, LP_CLI_ACTION_MAN);
    PARSE_OK(&c, "-Vh");
    assert_int_equal(c.action, LP_CLI_ACTION_HELP);
}

static void test_demo(void **state)
{
    struct lp_cli_config c;

    (void)state;
    PARSE_OK(&c, "demo");
    assert_int_equal(c.action, LP_CLI_ACTION_DEMO);
    PARSE_OK(&c, "demo", "-f", "m", "-i", "0.5", "-J");
    assert_int_equal(c.fmt.unit, 'm');
    assert_true(c.json);
    PARSE_ERR("option -P/--parallel cannot be used with demo", "demo", "-P", "2");
    PARSE_ERR("demo cannot be combined with -s or -c", "demo", "-c", "h");
    PARSE_ERR("option --compat cannot be used with demo", "demo", "--compat");
    PARSE_OK(&c, "demo", "--csv", "--enhanced");             /* output options are fine */
    assert_true(c.csv);
    PARSE_ERR("unexpected argument 'demo'", "-c", "h", "demo");
}

static void test_unit_grammar(void **state)
{
    double v;

    (void)state;
    assert_int_equal(lp_cli_value_units("10M", 1000, &v), 0);
    assert_true(v == 10e6);
    assert_int_equal(lp_cli_value_units("10m", 1024, &v), 0);
    assert_true(v == 10485760);
    assert_int_equal(lp_cli_value_units("256K", 1024, &v), 0);
    assert_true(v == 262144);
    assert_int_equal(lp_cli_value_units("1.5G", 1000, &v), 0);
    assert_true(v == 1.5e9);
    assert_int_equal(lp_cli_value_units("2T", 1024, &v), 0);
    assert_true(v == 2.0 * 1024 * 1024 * 1024 * 1024);
    assert_int_equal(lp_cli_value_units("0.5", 1024, &v), 0);
    assert_true(v == 0);                             /* truncated like iperf3 */
    assert_int_equal(lp_cli_value_units("1e3", 1000, &v), -1);
    assert_int_equal(lp_cli_value_units("10MB", 1000, &v), -1);
    assert_int_equal(lp_cli_value_units("M", 1000, &v), -1);
    assert_int_equal(lp_cli_value_units(".", 1000, &v), -1);
    assert_int_equal(lp_cli_value_units("inf", 1000, &v), -1);
    assert_int_equal(lp_cli_value_units("", 1000, &v), -1);
    assert_int_equal(lp_cli_value_int("0x10", true, &v), 0);
    assert_true(v == 16);
    assert_int_equal(lp_cli_value_int("0x10", false, &v), -1);
    assert_int_equal(lp_cli_value_int("99999999999999999999", false, &v), -1);
    assert_int_equal(lp_cli_value_num("0.25", &v), 0);
    assert_true(v == 0.25);
    assert_int_equal(lp_cli_value_num("1.", &v), 0);
    assert_int_equal(lp_cli_value_num("nan", &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_defaults),  cmocka_unit_test(test_udp_defaults),
        cmocka_unit_test(test_server_defaults),  cmocka_unit_test(test_tos_and_dscp),
        cmocka_unit_test(test_end_conditions),   cmocka_unit_test(test_roles_and_exclusions),
        cmocka_unit_test(test_argv_grammar),     cmocka_unit_test(test_stop_actions),
        cmocka_unit_test(test_demo),             cmocka_unit_test(test_unit_grammar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

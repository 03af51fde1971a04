/* The iperf2 side of the CLI beyond single rows: how the spelling is chosen (linkperf2,
 * --iperf2), iperf2's number suffixes and -b pps, defaults and port rules in both spellings,
 * role-dependent -c/-P/-t, allowlist syntax, TOS names, the default spelling's dialect rules
 * and iperf2's mutual exclusions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "cli/parse.h"
#include "cli/values.h"

/* Parse argv0 followed by a NULL-terminated list. */
static int parse_as(const char *argv0, struct lp_cli_config *cfg, struct lp_cli_err *err,
                    va_list ap)
{
    char *argv[32];
    int argc = 0;
    const char *a;

    argv[argc++] = (char *)argv0;
    while ((a = va_arg(ap, const char *)) != NULL && argc < 31)
        argv[argc++] = (char *)a;
    argv[argc] = NULL;
    return lp_cli_parse(argc, argv, cfg, err);
}

static int parse_v(const char *argv0, struct lp_cli_config *cfg, struct lp_cli_err *err, ...)
{
    va_list ap;
    int rc;

    va_start(ap, err);
    rc = parse_as(argv0, cfg, err, ap);
    va_end(ap);
    return rc;
}

/* OK3/ERR3: "linkperf ..." (default spelling); OK2/ERR2: "linkperf2 ...". */
#define PARSE_OK_AS(argv0, cfg, ...)                                                       \
    do {                                                                                   \
        struct lp_cli_err e_;                                                              \
        if (parse_v(argv0, cfg, &e_, __VA_ARGS__, (const char *)NULL) != 0)                \
            fail_msg("unexpected error: %s", e_.msg);                                      \
    } while (0)
#define PARSE_ERR_AS(argv0, want, ...)                                                     \
    do {                                                                                   \
        struct lp_cli_config c_;                                                           \
        struct lp_cli_err e_;                                                              \
        assert_int_equal(parse_v(argv0, &c_, &e_, __VA_ARGS__, (const char *)NULL), -1);   \
        assert_string_equal(e_.msg, want);                                                 \
    } while (0)
#define OK3(cfg, ...) PARSE_OK_AS("linkperf", cfg, __VA_ARGS__)
#define OK2(cfg, ...) PARSE_OK_AS("linkperf2", cfg, __VA_ARGS__)
#define ERR3(want, ...) PARSE_ERR_AS("linkperf", want, __VA_ARGS__)
#define ERR2(want, ...) PARSE_ERR_AS("linkperf2", want, __VA_ARGS__)

static void test_spelling_selection(void **state)
{
    static const char *const iperf2_names[] = {"linkperf2", "/usr/bin/linkperf2",
                                               "./build/linkperf2", "iperf", "/usr/local/bin/iperf",
                                               "iperf.exe", "C:\\jperf\\bin\\IPERF.EXE", "iperf2",
                                               "iperf-2.1.8", "LINKPERF2.exe"};
    static const char *const iperf3_names[] = {"linkperf", "/usr/bin/linkperf", "linkperf2x",
                                               "/opt/linkperf2/linkperf", "mylinkperf2", "iperf3",
                                               "/usr/bin/iperf3", "iperf3.exe", "ipe", "myiperf",
                                               "/opt/iperf/linkperf"};
    struct lp_cli_config c;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(iperf2_names) / sizeof(iperf2_names[0]); i++) {
        PARSE_OK_AS(iperf2_names[i], &c, "-c", "h", "-d");
        assert_true(c.iperf2);
        assert_true(c.spec.iperf2.dual);              /* -d is iperf2's dual test */
    }
    for (i = 0; i < sizeof(iperf3_names) / sizeof(iperf3_names[0]); i++) {
        PARSE_OK_AS(iperf3_names[i], &c, "-c", "h", "-d");
        assert_false(c.iperf2);
        assert_int_equal(c.debug, 4);                 /* -d is iperf3's debug */
    }
    OK3(&c, "--iperf2", "-c", "h", "-y", "C");        /* --iperf2 first... */
    assert_true(c.iperf2 && c.csv);
    OK3(&c, "-c", "h", "-V", "--iperf2");             /* ...or last: -V is still IPv6 */
    assert_true(c.iperf2);
    assert_int_equal(c.spec.family, LP_FAMILY_INET6);
    OK3(&c, "-c", "h", "--iperf");                    /* an unambiguous prefix, as getopt */
    assert_true(c.iperf2);
    OK2(&c, "--iperf2", "-s");                        /* redundant under linkperf2 */
    assert_true(c.iperf2);
    ERR3("unexpected argument '--iperf2'", "-c", "h", "--", "--iperf2");
    /* each spelling's unknown option names the other spelling's, when it has it */
    ERR3("unknown option -y in iperf3's spelling: -y/--reportstyle is iperf2's (add --iperf2 or run linkperf2; "
         "for its CSV here: --csv) (see linkperf --help)", "-c", "h", "-y", "C");
    ERR2("unknown option -J in iperf2's spelling: -J/--json is iperf3's (run linkperf without --iperf2) "
         "(see linkperf --iperf2 --help)", "-c", "h", "-J");
    ERR2("unknown option --json in iperf2's spelling: -J/--json is iperf3's (run linkperf without --iperf2) "
         "(see linkperf --iperf2 --help)", "-c", "h", "--json");
    ERR2("unknown option --nosuch (see linkperf --iperf2 --help)", "-c", "h", "--nosuch");
    ERR2("give -s (server) or -c host (client); see linkperf --iperf2 --help", "-u");
    ERR3("demo runs iperf3 tests; it cannot be combined with the iperf2 spelling", "demo",
         "--iperf2");
    OK2(&c, "-v");
    assert_int_equal(c.action, LP_CLI_ACTION_VERSION);
}

static void test_iperf2_numbers(void **state)
{
    static const struct {
        const char *opt, *val;
        double want;
    } cases[] = {
        {"-b", "10M", 10485760}, {"-b", "10m", 10000000}, {"-b", "1.5m", 1500000},
        {"-b", "10k", 10000},    {"-b", "10K", 10240},    {"-b", "1g", 1e9},
        {"-b", "1G", 1073741824}, {"-b", "1000", 1000},   {"-b", "0", 0},
        {"-l", "1k", 1000},      {"-l", "1K", 1024},      {"-l", "1.5K", 1536},
        {"-n", "2G", 2147483648.0}, {"-n", "2g", 2e9},    {"-n", "1.5k", 1500},
        {"-w", "64K", 65536},    {"-w", "64k", 64000},    {"-w", "0", 0},
    };
    struct lp_cli_config c;
    double v = 0;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double got;
        OK2(&c, "-c", "h", cases[i].opt, cases[i].val);
        switch (cases[i].opt[1]) {
        case 'b': got = (double)c.spec.rate_bps; break;
        case 'l': got = c.spec.blksize; break;
        case 'n': got = (double)c.spec.bytes; break;
        default: got = c.spec.window_bytes; break;
        }
        if (got != cases[i].want)
            fail_msg("%s %s: %.0f, want %.0f", cases[i].opt, cases[i].val, got, cases[i].want);
    }
    /* The default spelling keeps iperf3's rules: case does not matter, rates are 1000-based. */
    OK3(&c, "-c", "h", "-b", "10M");
    assert_int_equal(c.spec.rate_bps, 10000000);
    OK3(&c, "-c", "h", "-b", "10m");
    assert_int_equal(c.spec.rate_bps, 10000000);
    ERR2("option -b/--bandwidth: '10T' is not a number with an optional k, m, g (1000-based) "
         "or K, M, G (1024-based) suffix", "-c", "h", "-b", "10T");
    ERR2("option -n/--num: '1e3' is not a number with an optional k, m, g (1000-based) or K, "
         "M, G (1024-based) suffix", "-c", "h", "-n", "1e3");
    assert_int_equal(lp_cli_value_units2("7", &v), 0);
    assert_true(v == 7);
    assert_int_equal(lp_cli_value_units2("0.5k", &v), 0);
    assert_true(v == 500);
    assert_int_equal(lp_cli_value_units2("1.0001K", &v), 0);
    assert_true(v == 1024);                              /* truncated like byte_atoi */
    assert_int_equal(lp_cli_value_units2("10MB", &v), 0); /* 2.1.8 reads one letter only */
    assert_true(v == 10485760);
    assert_int_equal(lp_cli_value_units2("512.0B", &v), 0);
    assert_true(v == 512);
    assert_int_equal(lp_cli_value_units2("10MBB", &v), -1);
    assert_int_equal(lp_cli_value_units2("10BK", &v), -1);
    assert_int_equal(lp_cli_value_units2("k", &v), -1);
    assert_int_equal(lp_cli_value_units2("", &v), -1);
    assert_int_equal(lp_cli_value_units2("1t", &v), -1);
}

static void test_format_units2(void **state)
{
    static const struct {
        double n;
        const char *want;
    } cases[] = {
        {0, "0"},          {1000, "1k"},        {1024, "1K"},      {1048576, "1M"},
        {536870912, "512M"}, {1e12, "1000g"},   {1e7, "10m"},      {1125899906842624.0, "1048576G"},
        {1500, "1500"},    {65507, "65507"},
    };
    char buf[32];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        lp_cli_value_format_units2(buf, sizeof(buf), cases[i].n);
        assert_string_equal(buf, cases[i].want);
    }
}

/* -b Npps: UDP only; rate = N x datagram size x 8, whatever the order of -b and -l. */
static void test_pps(void **state)
{
    struct lp_cli_config c;

    (void)state;
    OK2(&c, "-c", "h", "-u", "-b", "1000pps");
    assert_int_equal(c.spec.rate_bps, 1000ull * 1470 * 8);
    OK2(&c, "-c", "h", "-b", "2kpps", "-u", "-l", "1000");
    assert_int_equal(c.spec.rate_bps, 2000ull * 1000 * 8);
    OK2(&c, "-c", "h", "-u", "-b", "10PPS", "-V");
    assert_int_equal(c.spec.rate_bps, 10ull * 1450 * 8); /* IPv6 datagram default */
    OK2(&c, "-c", "h", "-u", "-b", "1000pps", "-b", "5m"); /* the last -b wins */
    assert_int_equal(c.spec.rate_bps, 5000000);
    assert_true(c.parse.pps == 0);
    ERR2("option -b/--bandwidth: a rate in packets per second (pps) needs UDP (-u)", "-c", "h",
         "-b", "100pps");
    ERR2("option -b/--bandwidth: 0pps is out of range (1..10m packets/s)", "-c", "h", "-u",
         "-b", "0pps");
    ERR2("option -b/--bandwidth: 11mpps is out of range (1..10m packets/s)", "-c", "h", "-u",
         "-b", "11mpps");
    ERR2("option -b/--bandwidth: 'xpps' is not a number with an optional k, m, g (1000-based) "
         "or K, M, G (1024-based) suffix", "-c", "h", "-u", "-b", "xpps");
    ERR2("option -b/--bandwidth: 'pps' is not a number with an optional k, m, g (1000-based) "
         "or K, M, G (1024-based) suffix", "-c", "h", "-u", "-b", "pps");
}

static void test_iperf2_defaults(void **state)
{
    struct lp_cli_config c;

    (void)state;
    OK2(&c, "-c", "h");
    assert_int_equal(c.spec.dialect, LP_DIALECT_IPERF2);
    assert_int_equal(c.spec.port, 5001);
    assert_int_equal(c.spec.port2, 0);
    assert_true(c.spec.report.interval_s == 0);          /* iperf2: no intervals by default */
    assert_true(c.spec.duration_s == 10);
    assert_int_equal(lp_spec_blksize(&c.spec), 128 * 1024);
    assert_int_equal(c.spec.rate_bps, 0);
    assert_int_equal(c.fmt.unit, 'a');
    assert_false(c.csv);
    OK2(&c, "-c", "h", "-u");
    assert_int_equal(c.spec.blksize, 1470);
    assert_int_equal(c.spec.rate_bps, 1048576);
    OK2(&c, "-c", "::1", "-u", "-V");
    assert_int_equal(c.spec.blksize, 1450);
    OK2(&c, "-c", "h", "-u", "-l", "1000", "-i", "1");
    assert_int_equal(c.spec.blksize, 1000);
    assert_true(c.spec.report.interval_s == 1);
    OK2(&c, "-c", "h", "-t", "0");                       /* iperf2: -t 0 is forever */
    assert_true(c.spec.duration_s == 0);
    OK2(&c, "-c", "h", "-t", "0.25");
    assert_true(c.spec.duration_s == 0.25);

    OK2(&c, "-s");
    assert_int_equal(c.spec.role, LP_ROLE_SERVER);
    assert_int_equal(c.spec.port, 5001);                 /* iperf2's port first... */
    assert_int_equal(c.spec.port2, 5201);                /* ...and iperf3's too */
    assert_true(c.spec.report.interval_s == 0);
    assert_int_equal(c.spec.max_conns, 0);
    assert_true(c.stop_after_s == 0);
    assert_int_equal(c.spec.streams, 1);
    assert_string_equal(c.spec.allow, "");
    OK2(&c, "-s", "-p", "5001");
    assert_int_equal(c.spec.port, 5001);
    assert_int_equal(c.spec.port2, 0);
    OK2(&c, "-s", "-p", "5201");
    assert_int_equal(c.spec.port, 5201);
    assert_int_equal(c.spec.port2, 0);
    OK2(&c, "-s", "-u", "-i", "2");
    assert_int_equal(c.spec.proto, LP_PROTO_UDP);
    assert_true(c.spec.report.interval_s == 2);
}

/* JPerf's server controls: -c (client limit), -P (connections), -t (run time). */
static void test_iperf2_server_roles(void **state)
{
    struct lp_cli_config c;

    (void)state;
    OK2(&c, "-s", "-c", "192.168.1.10", "-P", "3", "-t", "30.5");
    assert_int_equal(c.spec.role, LP_ROLE_SERVER);
    assert_string_equal(c.spec.allow, "192.168.1.10");
    assert_string_equal(c.spec.host, "");
    assert_int_equal(c.spec.max_conns, 3);
    assert_int_equal(c.spec.streams, 1);
    assert_true(c.stop_after_s == 30.5);
    assert_true(c.spec.duration_s == 10);
    OK2(&c, "-c", "10.0.0.0/8,fd00::/8", "-s", "-P", "0"); /* -c before -s: still a limit */
    assert_int_equal(c.spec.role, LP_ROLE_SERVER);
    assert_string_equal(c.spec.allow, "10.0.0.0/8,fd00::/8");
    assert_int_equal(c.spec.max_conns, 0);
    OK2(&c, "-s", "-B", "239.1.1.1", "-u");               /* multicast receive */
    assert_string_equal(c.spec.bind_addr, "239.1.1.1");
    OK2(&c, "-s", "-B", "10.0.0.1%eth1");
    assert_string_equal(c.spec.bind_addr, "10.0.0.1");
    assert_string_equal(c.spec.bind_dev, "eth1");
    ERR2("option -c/--client: '10.0.0.0/40': prefix /40 is out of range for IPv4 (0..32)",
         "-s", "-c", "10.0.0.0/40");

    /* The default spelling's long options for the same. */
    OK3(&c, "-s", "--allow", "host.example", "--max-connections", "2", "--stop-after", "9");
    assert_string_equal(c.spec.allow, "host.example");
    assert_int_equal(c.spec.max_conns, 2);
    assert_true(c.stop_after_s == 9);
    ERR3("options -s/--server and -c/--client cannot be used together", "-s", "-c", "h");
}

static void test_allowlist_syntax(void **state)
{
    static const char *const good[] = {
        "h",          "host.example",  "a-b.c-d.example", "10.1.2.3",  "10.0.0.0/0",
        "10.0.0.0/32", "10.1.2.3/24",  "::1",             "fe80::1",   "2001:db8::/0",
        "2001:db8::/128", "::ffff:10.0.0.1", "x1,10.0.0.1,::1/64", "0.0.0.0/0",
        "EXAMPLE.COM",
    };
    static const struct {
        const char *in, *why;
    } bad[] = {
        {"10.0.0.0/33", "'10.0.0.0/33': prefix /33 is out of range for IPv4 (0..32)"},
        {"::/129", "'::/129': prefix /129 is out of range for IPv6 (0..128)"},
        {"host/24", "'host/24': a /prefix needs an IPv4 or IPv6 address"},
        {"10.0.0.0/", "'10.0.0.0/' has a malformed /prefix"},
        {"10.0.0.0/x", "'10.0.0.0/x' has a malformed /prefix"},
        {"10.0.0.0/-1", "'10.0.0.0/-1' has a malformed /prefix"},
        {"10.0.0.0/00024", "'10.0.0.0/00024' has a malformed /prefix"},
        {"1.2.3", "'1.2.3' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"300.1.1.1", "'300.1.1.1' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"-host", "'-host' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"host-", "'host-' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"a..b", "'a..b' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"a_b", "'a_b' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"fe80::1%eth0", "'fe80::1%eth0' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"a b", "'a b' is not a host name, IPv4/IPv6 address or CIDR block"},
        {"a,", "empty entry in the list"},
        {",a", "empty entry in the list"},
        {"a, ,b", "empty entry in the list"},
        {"", "empty entry in the list"},
    };
    char out[LP_ALLOW_MAX], why[256], label64[80];
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        if (lp_cli_value_allow(good[i], out, sizeof(out), why, sizeof(why)) != 0)
            fail_msg("'%s' refused: %s", good[i], why);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (lp_cli_value_allow(bad[i].in, out, sizeof(out), why, sizeof(why)) == 0)
            fail_msg("'%s' accepted", bad[i].in);
        assert_string_equal(why, bad[i].why);
    }
    assert_int_equal(lp_cli_value_allow(" a , 10.0.0.0/8 ,::1 ", out, sizeof(out), why,
                                        sizeof(why)), 0);
    assert_string_equal(out, "a,10.0.0.0/8,::1");          /* blanks dropped */
    memset(label64, 'a', 64);                                /* labels are 1..63 */
    label64[64] = '\0';
    assert_int_equal(lp_cli_value_allow(label64, out, sizeof(out), why, sizeof(why)), -1);
    label64[63] = '\0';
    assert_int_equal(lp_cli_value_allow(label64, out, sizeof(out), why, sizeof(why)), 0);
    assert_int_equal(lp_cli_value_allow("abc,def", out, 6, why, sizeof(why)), -1);
    assert_string_equal(why, "the list is too long (at most 5 characters)");
    ERR3("option --allow: '1.2.3' is not a host name, IPv4/IPv6 address or CIDR block", "-s",
         "--allow", "1.2.3");
    ERR3("option --allow needs a non-empty value", "-s", "--allow", "");
}

static void test_tos_names(void **state)
{
    static const struct {
        const char *val;
        int tos;
    } ok[] = {
        {"le", 0x04},        {"nqb", 0x14},       {"nqb2", 0xb4},      {"ac_be", 0x00},
        {"ac_bk", 0x20},     {"ac_vi", 0x80},     {"ac_vo", 0xb8},     {"AC_VO", 0xb8},
        {"lowdelay", 0x10},  {"throughput", 0x08}, {"reliability", 0x04}, {"none", -1},
        {"af11", 0x28},      {"AF43", 0x98},      {"ef", 0xb8},        {"cs7", 0xe0},
        {"0x20", 0x20},      {"040", 0x20},       {"100", 100},        {"0", 0},
    };
    struct lp_cli_config c;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        OK2(&c, "-c", "h", "-S", ok[i].val);
        if (c.spec.tos != ok[i].tos)
            fail_msg("-S %s: %d, want %d", ok[i].val, c.spec.tos, ok[i].tos);
    }
    ERR2("option -S/--tos: -1 is out of range (0..255)", "-c", "h", "-S", "-1");
}

static void test_iperf2_bind_and_host(void **state)
{
    struct lp_cli_config c;

    (void)state;
    OK2(&c, "-c", "h", "-B", "[2001:db8::1]:5000");
    assert_string_equal(c.spec.bind_addr, "2001:db8::1");
    assert_int_equal(c.spec.cport, 5000);
    OK2(&c, "-c", "h", "-B", "fe80::1");                   /* bare IPv6: no port */
    assert_string_equal(c.spec.bind_addr, "fe80::1");
    assert_int_equal(c.spec.cport, 0);
    OK2(&c, "-c", "h", "-B", "[::1]");
    assert_string_equal(c.spec.bind_addr, "::1");
    OK2(&c, "-c", "10.0.0.1%eth2");
    assert_string_equal(c.spec.host, "10.0.0.1");
    assert_string_equal(c.spec.bind_dev, "eth2");
    OK2(&c, "-c", "[fe80::1]%eth0", "-V");
    assert_string_equal(c.spec.host, "fe80::1");
    assert_string_equal(c.spec.bind_dev, "eth0");
    ERR2("option -B/--bind: port 'x' is not 1..65535", "-c", "h", "-B", "10.0.0.1:x");
    ERR2("option -c/--client: the host is empty", "-c", "%eth0");
}

static void test_iperf2_output_options(void **state)
{
    static const char *const styles[] = {"C", "c", "csv", "CSV"};
    struct lp_cli_config c;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(styles) / sizeof(styles[0]); i++) {
        OK2(&c, "-c", "h", "-y", styles[i]);
        assert_true(c.csv);
    }
    OK2(&c, "-c", "h", "-x", "v", "-x", "dm");              /* the last -x wins */
    assert_string_equal(c.fmt.exclude, "DM");
    OK2(&c, "-c", "h", "-M", "0");                           /* -M implies -m, as in iperf2 */
    assert_int_equal(c.spec.mss, 0);
    assert_true(c.fmt.print_mss);
    OK2(&c, "-c", "h", "-e", "-f", "k", "-o", "out.txt");
    assert_true(c.fmt.enhanced && c.spec.report.enhanced);
    assert_int_equal(c.fmt.unit, 'k');
    assert_string_equal(c.logfile, "out.txt");
    OK3(&c, "-s", "--csv", "--enhanced", "--print-mss");     /* default spelling */
    assert_true(c.csv && c.fmt.enhanced && c.fmt.print_mss);
    assert_false(c.iperf2);
}

/* The default spelling: how a client picks the wire dialect. */
static void test_dialect_rules(void **state)
{
    static const char *const implying[][3] = {
        {"--dual"}, {"--tradeoff"}, {"--full-duplex"}, {"--compat"},
        {"--listen-port", "6000"}, {"--stdin"}, {"--ttl", "3"}, {"-u", "--no-udp-fin"},
    };
    struct lp_cli_config c;
    size_t i;

    (void)state;
    for (i = 0; i < sizeof(implying) / sizeof(implying[0]); i++) {
        PARSE_OK_AS("linkperf", &c, "-c", "h", implying[i][0], implying[i][1],
                    implying[i][2]);
        if (c.spec.dialect != LP_DIALECT_IPERF2 || c.spec.port != 5001)
            fail_msg("%s: dialect %d port %u", implying[i][0], c.spec.dialect, c.spec.port);
        assert_false(c.iperf2);                           /* output stays iperf3's */
    }
    OK3(&c, "-c", "h");
    assert_int_equal(c.spec.dialect, LP_DIALECT_IPERF3);
    assert_int_equal(c.spec.port, 5201);
    OK3(&c, "-c", "h", "--dialect", "iperf3");
    assert_int_equal(c.spec.dialect, LP_DIALECT_IPERF3);
    OK3(&c, "-c", "h", "--dual", "-p", "5201");           /* -p still wins */
    assert_int_equal(c.spec.port, 5201);
    OK3(&c, "-c", "h", "--dialect", "iperf2", "-u");      /* iperf2's datagram size */
    assert_int_equal(c.spec.blksize, 1470);
    assert_int_equal(c.spec.rate_bps, 1048576);
    OK3(&c, "-c", "h", "-u");                             /* iperf3's stays the engine's */
    assert_int_equal(c.spec.blksize, 0);
    OK3(&c, "-c", "h", "--dialect", "iperf2", "--bidir"); /* --bidir is --full-duplex */
    assert_int_equal(c.spec.dir, LP_DIR_BIDIR);
    OK3(&c, "-c", "h", "--dialect", "iperf2", "-R");
    assert_int_equal(c.spec.dir, LP_DIR_REVERSE);
    OK3(&c, "-c", "h", "--bidir", "--full-duplex");       /* the same thing twice */
    assert_int_equal(c.spec.dir, LP_DIR_BIDIR);
    OK3(&c, "-c", "h", "--dialect", "iperf2", "-F", "f", "--dialect", "iperf2");
    assert_string_equal(c.spec.iperf2.file, "f");
    OK2(&c, "-c", "h", "-F", "f", "-t", "10"); /* JPerf's line: the file once, as 2.1.8 */
    assert_true(c.spec.duration_s == 0 && c.spec.bytes == 0);
    OK2(&c, "-c", "h", "-F", "f", "-n", "1000");
    assert_true(c.spec.duration_s == 0 && c.spec.bytes == 1000);
    OK3(&c, "-c", "h", "-C", "bbr", "-R");                /* fine over iperf3... */
    ERR3("options -C/--congestion and -R/--reverse cannot be used together", "-c", "h", "-C",
         "bbr", "-R", "--dialect", "iperf2");             /* ...not over iperf2 */
    ERR3("option --dual cannot be used with --dialect iperf3 (it exists only in iperf2)", "-c",
         "h", "--dialect", "iperf3", "--dual");
    ERR3("option --stdin cannot be used with --dialect iperf3 (it exists only in iperf2)", "-c",
         "h", "--stdin", "--dialect", "iperf3");
    ERR3("option -F/--file needs --dialect iperf2 (linkperf has it only over the iperf2 "
         "protocol)", "-c", "h", "-F", "f", "--dialect", "iperf3");
    OK3(&c, "-s", "--compat");                            /* a server speaks both */
    assert_true(c.spec.iperf2.compat);
    assert_int_equal(c.spec.port2, 5001);
}

static void test_iperf2_exclusions(void **state)
{
    struct lp_cli_config c;

    (void)state;
    ERR2("options -R/--reverse and -d/--dualtest cannot be used together", "-c", "h", "-d",
         "-R");
    ERR2("options --full-duplex and -d/--dualtest cannot be used together", "-c", "h", "-d",
         "--full-duplex");
    ERR2("options -R/--reverse and -r/--tradeoff cannot be used together", "-c", "h", "-rR");
    ERR2("options -C/--compatibility and -d/--dualtest cannot be used together", "-c", "h",
         "-dC");
    ERR2("option --no-udp-fin needs -u/--udp", "-c", "h", "--no-udp-fin", "-d");
    ERR2("option -R/--reverse only applies to a client", "-s", "-R");
    ERR2("option -F/--file_input only applies to a client", "-s", "-F", "x");
    OK2(&c, "-c", "h", "-C", "-e");                       /* -e is output only here */
    OK2(&c, "-c", "h", "-d", "-L", "6001", "-u");
    assert_true(c.spec.iperf2.dual);
    OK2(&c, "-c", "h", "-L", "6001");                     /* iperf2 accepts -L alone too */
    OK2(&c, "-c", "h", "-r", "-n", "10M");
    assert_int_equal(c.spec.bytes, 10485760);
    assert_true(c.spec.duration_s == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spelling_selection), cmocka_unit_test(test_iperf2_numbers),
        cmocka_unit_test(test_format_units2),      cmocka_unit_test(test_pps),
        cmocka_unit_test(test_iperf2_defaults),    cmocka_unit_test(test_iperf2_server_roles),
        cmocka_unit_test(test_allowlist_syntax),   cmocka_unit_test(test_tos_names),
        cmocka_unit_test(test_iperf2_bind_and_host), cmocka_unit_test(test_iperf2_output_options),
        cmocka_unit_test(test_dialect_rules),      cmocka_unit_test(test_iperf2_exclusions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The iperf2-spelling option table (linkperf --iperf2, or the binary run as linkperf2):
 * iperf 2.1.8's letters, long names and meanings. Data only; checks.c applies iperf2's
 * rules (role-dependent -c/-P/-t, port defaults, exclusions) where table->iperf2 is set. */
#include "cli/options.h"

/* How the rows shared with the iperf3 spelling (options_rows.h) name things here. Every
 * option of this table is iperf2's, so none switches the dialect; iperf3 authentication
 * has no rows in this spelling. */
#define LP_SPELL_IMPLIES_IPERF2 0
#define LP_SPELL_DIALECT_NOTE ""
#define LP_SPELL_BB_NOT_UDP "-u, " /* iperf2 has no UDP bounceback */
#define LP_SPELL_ECHO_NOTE "" /* this spelling has no --dialect */
#define LP_SPELL_CSV "-y C"
#define LP_SPELL_LOGFILE "-o file"
#define LP_SPELL_DUAL "-d"
#define LP_SPELL_TRADEOFF "-r"
#define LP_SPELL_FILE "-F"
#define LP_SPELL_STDIN "-I"
#define LP_SPELL_COMPAT "-C"
#define LP_SPELL_IPERF3_AUTH ""
#define LP_SPELL_SERVER_PORTS "5001 and 5201"
#define LP_SPELL_CLIENT_PORT "5001"
#define LP_SPELL_UDP_ON_SERVER "; -u given to it only makes its banner speak of UDP, as " \
                               "iperf2's does"
#define LP_SPELL_UDP_SIZE "1470 bytes (1450 for an IPv6 client), as iperf2's"
#include "cli/options_rows.h"

/* iperf 2.1.8 keeps -l and -w in an int (its byte_atoi, no range check): 2G and more wrap
 * negative there (-l crashes, -w is ignored), so 2G - 1 is its real limit, and ours. */
#define IPERF2_INT_MAX 2147483647.0
/* Linux's TCP_MAXSEG takes 88..32767 (TCP_MIN_MSS..MAX_TCP_WINDOW); 2.1.8 tries any other
 * value, warns that setting it failed and runs with the system's MSS. */
#define IPERF2_MSS_MIN 88
#define IPERF2_MSS_MAX 32767
/* An iperf2 option linkperf refuses (with its argument shape for the help listing). */
#define NO(n, l, mode_, h) {.name = (n), .letter = (l), mode_, .flags = LP_CLI_F_UNSUPPORTED, \
                            .help = (h)}

static const struct lp_cli_opt iperf2_opts[] = {
    /* ---- Client/Server ---- */
    {.name = "bandwidth", .letter = 'b', .arg = LP_CLI_ARG_SIZE2, .metavar = "#[kmgKMG|pps]",
     .min = 0, .max = 1e12, GENERAL, .flags = LP_CLI_F_PPS, .key = LP_CLI_K_BITRATE,
     .set = lp_cli_set_bandwidth2,
     .help = "bandwidth to send at in bits/sec or packets/sec",
     .man = "Target rate per stream in bits/s; k, m, g are 1000-based and K, M, G "
            "1024-based (10m is 10000000, 10M is 10485760). 0 means unlimited. Default: "
            "1048576 for UDP, unlimited for TCP. The form Npps (UDP only) sets N packets "
            "per second, 1..10m. iperf2's MEAN,STDEV variable load and a server's read "
            "limit are not supported."},
    ROW_ENHANCED('e', "enhanced reports: more tcp/udp and traffic information"),
    {.name = "format", .letter = 'f', .arg = LP_CLI_ARG_STRING, .metavar = "[abkmgtABKMGT]",
     GENERAL, .set = lp_cli_set_format2,
     .help = "format to report: a b k m g t (bits), A B K M G T (bytes)",
     .man = "Unit of the Bandwidth column: a (adaptive bits, the default), b, k, m, g, t for "
            "bits, Kbits, Mbits, Gbits, Tbits per second (1000-based); A, B, K, M, G, T for "
            "the same in bytes (1024-based). The Transfer column is in bytes."},
    {.name = "interval", .letter = 'i', .arg = LP_CLI_ARG_NUM, .metavar = "#", .min = 0.01,
     .max = 3600, GENERAL, .flags = LP_CLI_F_ZERO_OK, .key = LP_CLI_K_INTERVAL,
     .store = LP_CLI_STORE_DOUBLE, FIELD(spec.report.interval_s),
     .help = "seconds between periodic bandwidth reports",
     .man = "Seconds between periodic reports, fractions allowed; 0 (the default in "
            "iperf2, and here too) prints none. iperf2's frame form (-i f) is not "
            "supported."},
    {.name = "len", .letter = 'l', .arg = LP_CLI_ARG_SIZE2, .metavar = "#[kmKM]", .min = 1,
     .max = IPERF2_INT_MAX, .narrow = {LP_CLI_WHEN_UDP, LP_MIN_UDP_BLKSIZE, LP_MAX_UDP_BLKSIZE},
     GENERAL, .key = LP_CLI_K_LENGTH, .store = LP_CLI_STORE_U32,
     FIELD(spec.blksize),
     .help = "read/write size (TCP 128K, UDP 1470, IPv6 UDP 1450)",
     .man = "Length of each read or write (TCP, default 128K, at most 2G - 1 as in 2.1.8) or "
            "of each datagram (UDP, 16..65507, default 1470, 1450 for an IPv6 client). Like "
            "every size here it may have a fraction and a trailing B or b, which changes "
            "nothing (JPerf writes 2.0M, 64.0k, 512.0B): 1.5K is 1536 bytes."},
    {.name = "print_mss", .letter = 'm', GENERAL, .set = lp_cli_set_print_mss,
     .help = "print TCP maximum segment size"},
    ROW_DB,
    ROW_NO_HISTORY,
    {.name = "output", .letter = 'o', .metavar = "<filename>",
     STR(logfile, LP_CLI_PATH_MAX - 1), GENERAL,
     .help = "append the report and error messages to a file",
     .man = "Append the report and error messages to this file instead of the terminal."},
    ROW_PORT(LP_CLI_F_NO_RANGE, "server port to listen on/connect to (default 5001)"),
    ROW_UDP(GENERAL),
    {.name = "window", .letter = 'w', .arg = LP_CLI_ARG_SIZE2, .metavar = "#[KM]", .min = 0,
     .max = IPERF2_INT_MAX, GENERAL, .store = LP_CLI_STORE_INT, FIELD(spec.window_bytes),
     .help = "TCP window size (socket buffer size)"},
    {.name = "bind", .letter = 'B', .arg = LP_CLI_ARG_STRING, .metavar = "<host>[:<port>][%<dev>]",
     .max = LP_HOST_MAX - 1, GENERAL, .set = lp_cli_set_bind2,
     .help = "bind to <host> or join a multicast group",
     .man = "Bind to this local address. On a server a multicast group address (224.0.0.0/4, "
            "ff00::/8) joins the group and receives the UDP datagrams sent to it. A client "
            "may add :port (IPv6: [addr]:port) for its source port; %dev binds to a device "
            "(SO_BINDTODEVICE)."},
    {.name = "compatibility", .letter = 'C', GENERAL, .key = LP_CLI_K_COMPAT,
     FLAG(spec.iperf2.compat), .help = "for use with older versions does not send extra msgs",
     .man = "Compatibility with iperf 2.0-era peers: a client sends no test header, only "
            "payload, and cannot use -d, -r, -R or --full-duplex; a server counts every "
            "byte of iperf2 connections as payload."},
    {.name = "mss", .letter = 'M', .arg = LP_CLI_ARG_SIZE2, .metavar = "#[kK]",
     .min = IPERF2_MSS_MIN, .max = IPERF2_MSS_MAX, GENERAL, .flags = LP_CLI_F_ZERO_OK,
     .set = lp_cli_set_mss2,
     .help = "set TCP maximum segment size using TCP_MAXSEG",
     .man = "Set the TCP maximum segment size (TCP_MAXSEG); like iperf2 it also turns on -m. "
            "0 keeps the system default. A size like -l's (1.0K is 1024, 1460.0B 1460); "
            "88..32767, what Linux accepts: 2.1.8 tries other values, warns and goes on "
            "with the system's MSS, linkperf refuses them."},
    {.name = "nodelay", .letter = 'N', FLAG(spec.nodelay), GENERAL,
     .help = "set TCP no delay, disabling Nagle's Algorithm"},
    {.name = "tos", .letter = 'S', .arg = LP_CLI_ARG_STRING, .metavar = "#", .max = 15,
     GENERAL, .set = lp_cli_set_tos2, .help = "set the socket's IP_TOS (byte) field",
     .man = "Set the IP TOS byte: a number 0..255 (decimal, 0octal or 0xhex) or a name: "
            "af11..af43, cs0..cs7, ef, le, nqb, nqb2, ac_be, ac_bk, ac_vi, ac_vo (DSCP code "
            "points), lowdelay, throughput, reliability (RFC 1349 bits), or none. iperf 2.1.8 "
            "writes le, nqb and nqb2 without shifting them into the DSCP bits; linkperf sends "
            "the code points they name (0x04, 0x14, 0xb4)."},
    {.name = "tcp-congestion", .letter = 'Z', .metavar = "<algo>",
     STR(spec.congestion, LP_CONGESTION_MAX - 1), GENERAL, .key = LP_CLI_K_CONGESTION,
     .help = "set TCP congestion control algorithm (Linux only)",
     .man = "Set the TCP congestion control algorithm. Cannot be combined with -R: as in "
            "iperf2, the sender's algorithm is the server's there."},
    {.name = "ipv6_domain", .letter = 'V', GENERAL, .set = lp_cli_set_inet6,
     .help = "use IPv6 (a server then receives IPv4 and IPv6)",
     .man = "Use IPv6. A client connects over IPv6; a server listens on an IPv6 socket that "
            "receives IPv4 too. Unlike iperf3's -V it has nothing to do with verbose output."},
    {.name = "ipv4", .letter = '4', GENERAL, .set = lp_cli_set_inet4,
     .help = "only use IPv4"},
    {.name = "ipv6", .letter = '6', GENERAL, .set = lp_cli_set_inet6,
     .help = "only use IPv6 (the same as -V)"},
    {.name = "reportexclude", .letter = 'x', .arg = LP_CLI_ARG_STRING, .metavar = "[CDMSV]",
     .max = 7, GENERAL, .set = lp_cli_set_exclude,
     .help = "exclude C(connection) D(data) M(multicast) S(settings) V(server) reports"},
    {.name = "reportstyle", .letter = 'y', .arg = LP_CLI_ARG_STRING, .metavar = "C", .max = 3,
     GENERAL, .key = LP_CLI_K_CSV, .set = lp_cli_set_reportstyle,
     .help = "report as a Comma-Separated Values",
     .man = "With C (or c) print iperf2's comma-separated lines instead of text. "
            "--csv-header adds a first line naming the fields."},
    {.name = "parallel", .letter = 'P', .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0,
     .max = LP_CLI_MAX_CONNS, .narrow = {LP_CLI_WHEN_CLIENT, 1, LP_MAX_STREAMS}, GENERAL, .key = LP_CLI_K_PARALLEL, .store = LP_CLI_STORE_UINT,
     FIELD(spec.streams),
     .help = "number of parallel client threads; server: exit after # tests",
     .man = "Client: number of parallel streams, 1..128. Server: exit after serving this "
            "many tests, 0 (the default) serving until stopped (JPerf's \"Num "
            "Connections\")."},
    {.name = "time", .letter = 't', .arg = LP_CLI_ARG_NUM, .metavar = "#", .min = 0.01,
     .max = LP_MAX_DURATION_S, GENERAL, .flags = LP_CLI_F_ZERO_OK, .key = LP_CLI_K_TIME,
     .store = LP_CLI_STORE_DOUBLE, FIELD(spec.duration_s),
     .help = "time in seconds to transmit for (default 10 secs); server: to run",
     .man = "Client: seconds to transmit for, fractions allowed; default 10, 0 sends until "
            "interrupted. Server: stop after this many seconds, ending the tests still "
            "running; 0 (the default) runs until stopped."},
    {.name = "client", .letter = 'c', .arg = LP_CLI_ARG_STRING, .metavar = "<host>",
     .max = LP_ALLOW_MAX - 1, GENERAL, .key = LP_CLI_K_CLIENT, .set = lp_cli_set_client2,
     .help = "run in client mode, connecting to <host>; server: accept only <host>",
     .man = "Run as a client connecting to host (a name, an IPv4 or IPv6 address, "
            "optionally [bracketed]); host%dev binds to the device. With -s, wherever it "
            "stands on the line, it is iperf2 2.0's server client limit (JPerf's \"Client "
            "Limit\"): only clients matching the host, address, CIDR block or "
            "comma-separated list are served, others are refused with a log line."},
    ROW_HELP("print this message and quit"),
    ROW_VERSION("print version information and quit"),
    ROW_MAN,
    ROW_IPERF2("iperf2 spelling (already on)"),
    ROW_CSV_HEADER,
    ROW_CSV_LATENCY,
    ROW_THREADS,
    ROW_COPY,
    ROW_DEBUG(0, LP_CLI_F_LINKPERF, "trace the protocol on standard error"),
    NO("hide-ips", 0, GENERAL, "hide ip addresses and host names within outputs"),
    ROW_PERMIT_KEY("permit key to be used to verify client and server (TCP only)"),
    NO("sum-only", 0, GENERAL, "output sum only reports"),
    NO("realtime", 'z', GENERAL, "request realtime scheduler"),
    NO("awdl", 'A', GENERAL, "use the Apple Wireless Direct Link interface"),
    NO("NUM_REPORT_STRUCTS", 0, GENERAL, "size of iperf2's report ring"),

    /* ---- Server specific ---- */
    ROW_SERVER,
    {.name = "singleclient", .letter = '1', SERVER, .set = lp_cli_set_single_client,
     .help = "run one test at a time",
     .man = "Run one test at a time (the same as --max-tests 1): a client that comes while "
            "a test runs is refused, where iperf2 would make it wait."},
    ROW_WEB,
    ROW_DAEMON,
    ROW_MAX_TESTS,
    ROW_TRUST_UDP,
    NO("single_udp", 'U', SERVER, "run in single threaded UDP mode"),
    NO("ssm-host", 'H', SERVER, "set the SSM source, use with -B for (S,G)"),
    ROW_HISTOGRAMS,
    ROW_PERMIT_KEY_TIMEOUT("set the timeout for a permit key in seconds"),
    NO("tcp-rx-window-clamp", 0, SERVER, "set the TCP receive window clamp size in bytes"),
    NO("tap-dev", 0, SERVER, "use TAP device to receive at L2 layer"),
    NO("tun-dev", 0, SERVER, "use TUN device to receive"),
    NO("sum-dstip", 0, SERVER, "sum traffic threads based upon destination ip address"),
    NO("tos-override", 0, SERVER, "set the IP_TOS of reverse or full duplex traffic"),

    /* ---- Client specific ---- */
    {.name = "dualtest", .letter = 'd', CLIENT, .key = LP_CLI_K_DUAL, .set = lp_cli_set_dual,
     .help = "do a bidirectional test simultaneously (multiple sockets)",
     .man = "Dual test: while the client sends, the server connects back to the client (on "
            "-L or the server port) and sends at the same time."},
    ROW_TRADEOFF('r', "do a bidirectional test individually"),
    {.name = "num", .letter = 'n', .arg = LP_CLI_ARG_SIZE2, .metavar = "#[kmgKMG]", .min = 1,
     .max = 1125899906842624.0, CLIENT, .key = LP_CLI_K_BYTES, .store = LP_CLI_STORE_U64,
     FIELD(spec.bytes), .help = "number of bytes to transmit (instead of -t)"},
    {.name = "file_input", .letter = 'F', .metavar = "<name>",
     STR(spec.iperf2.file, LP_PATH_MAX - 1), CLIENT, .key = LP_CLI_K_FILE,
     .help = "input the data to be transmitted from a file"},
    {.name = "stdin_input", .letter = 'I', CLIENT, .key = LP_CLI_K_STDIN,
     FLAG(spec.iperf2.from_stdin), .help = "input the data to be transmitted from stdin"},
    {.name = "listenport", .letter = 'L', .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0,
     .max = 65535, CLIENT, .store = LP_CLI_STORE_U16, FIELD(spec.iperf2.listen_port),
     .help = "port to receive bidirectional tests back on",
     .man = "Port the client listens on for the server's connection back with -d or -r; "
            "0 (the default) uses the server port."},
    ROW_REVERSE("reverse the test (client receives, server sends)"),
    ROW_FULL_DUPLEX("run full duplex test using same socket"),
    ROW_NO_UDP_FIN("no final server to client stats at end of UDP test"),
    ROW_TTL('T', "time-to-live, for multicast (default 1)"),
    {.name = "fq-rate", .arg = LP_CLI_ARG_STRING, .metavar = "#[kmgKMG]", .max = 31, CLIENT,
     .set = lp_cli_set_fq_rate2, .help = "bandwidth to socket pacing",
     .man = "Let the kernel pace each stream (SO_MAX_PACING_RATE). As in iperf 2.1.8, k, m, "
            "g mean bits/s and K, M, G bytes/s, all 1000-based (1M is 1000000 bytes/s). At "
            "most 1000g bits/s."},
    ROW_TRIP_TIMES("enable end to end measurements (requires client and server clock sync)"),
    NO("peer-detect", 'X', CLIENT, "perform server version detection and version exchange"),
    NO("suggest_win_size", 'W', CLIENT, "suggest the window size"),
    ROW_BOUNCEBACK("request a bounceback test"),
    ROW_BOUNCEBACK_MORE,
    NO("burst-period", 0, CLIENT, "set the burst period in seconds"),
    NO("burst-size", 0, CLIENT, "set the burst size in bytes"),
    NO("connect-only", 0, CLIENT, "run a connect only test"),
    NO("connect-retries", 0, CLIENT, "number of times to retry tcp connect"),
    NO("incr-dstip", 0, CLIENT, "increment the destination ip with -P"),
    NO("incr-dstport", 0, CLIENT, "increment the destination port with -P"),
    NO("incr-srcip", 0, CLIENT, "increment the source ip with -P"),
    NO("incr-srcport", 0, CLIENT, "increment the source port with -P"),
    ROW_IPG("set the interpacket gap (milliseconds) for packets within an isochronous frame"),
    ROW_ISOCHRONOUS("send traffic in bursts (frames - emulate video traffic)"),
    NO("l2checks", 0, CLIENT, "perform layer 2 length checks on received UDP packets"),
    NO("local-only", 0, CLIENT, "set don't route on socket"),
    NO("near-congestion", 0, CLIENT, "weighted write delay per the sampled TCP RTT"),
    NO("no-connect-sync", 0, CLIENT, "no synchronization after connect with -P"),
    NO("tcp-quickack", 0, CLIENT, "set the socket's TCP_QUICKACK option"),
    NO("tcp-write-prefetch", 0, CLIENT, "set TCP_NOTSENT_LOWAT and use event based writes"),
    NO("tcp-write-times", 0, CLIENT, "measure the socket write times"),
    NO("txdelay-time", 0, CLIENT, "time to hold back after connect and before first write"),
    NO("txstart-time", 0, CLIENT, "unix epoch time to schedule first write"),
};

static const struct lp_cli_table iperf2_table = {
    .name = "iperf2",
    .opts = iperf2_opts,
    .count = sizeof(iperf2_opts) / sizeof(iperf2_opts[0]),
    .iperf2 = true,
    .help_hint = "linkperf --iperf2 --help",
};

const struct lp_cli_table *lp_cli_options_iperf2(void)
{
    return &iperf2_table;
}

/* The iperf3-spelling option table (data) and lookups over any table.
 * Does not parse argv or check combinations: parse.c reads argv driven by these rows, and
 * checks.c checks what needs the whole line. */
#include "cli/options.h"

#include <stdio.h>
#include <string.h>

#include "auth/i3auth.h"

/* How the rows shared with the iperf2 spelling (options_rows.h) name things here. A client
 * given an option that exists only in iperf2 speaks the iperf2 dialect. */
#define LP_SPELL_IMPLIES_IPERF2 LP_CLI_F_IMPLIES_IPERF2
#define LP_SPELL_DIALECT_NOTE " Implies --dialect iperf2."
#define LP_SPELL_BB_NOT_UDP "" /* -u: linkperf's UDP round trips (LP_SPELL_ECHO_NOTE) */
#define LP_SPELL_ECHO_NOTE                                                                  \
    " With --dialect iperf3 given, the same exchanges run over the iperf3 protocol "       \
    "(linkperf's timed echo: the parameters carry \"bounceback\"); only a linkperf server " \
    "answers them: stock iperf3 has no echo mode, and the test then ends with \"no round " \
    "trip came back\". With -u (no --dialect needed): linkperf's UDP round trips over the " \
    "iperf3 protocol, a -l byte probe (default 64, at least 52) every --bounceback-period " \
    "(default 0.01 s), n of them a period (default 1), --bounceback-hold up to 500 ms; a "  \
    "linkperf server counts and echoes each one, and the summary adds the probes sent, "  \
    "come back and lost (-J: the latency's sent and lost; CSV: the lost column)."
#define LP_SPELL_CSV "--csv"
#define LP_SPELL_LOGFILE "--logfile"
#define LP_SPELL_DUAL "--dual"
#define LP_SPELL_TRADEOFF "--tradeoff"
#define LP_SPELL_FILE "--file"
#define LP_SPELL_STDIN "--stdin"
#define LP_SPELL_COMPAT "--compat"
#define LP_SPELL_IPERF3_AUTH ", unless --rsa-private-key-path admits them"
#define LP_SPELL_SERVER_PORTS "5201 and 5001"
#define LP_SPELL_CLIENT_PORT "5201, or 5001 when it speaks the iperf2 dialect"
#define LP_SPELL_UDP_ON_SERVER ""
#define LP_SPELL_UDP_SIZE \
    "1460 bytes, or 1470 (1450 over IPv6) when the client speaks iperf2, as iperf2 does"
#include "cli/options_rows.h"

#define MS_MAX (86400.0 * 1000.0)   /* iperf3 bounds its ms timeouts by MAX_TIME (a day) */

static const struct lp_cli_opt iperf3_opts[] = {
    /* ---- Server or client ---- */
    ROW_PORT(0, "server port to listen on/connect to (default 5201)"),
    {.name = "format", .letter = 'f', .arg = LP_CLI_ARG_STRING, .metavar = "[kmgtKMGT]",
     GENERAL, .set = lp_cli_set_format, .choices = lp_cli_format_choice,
     .store = LP_CLI_STORE_CHAR, FIELD(fmt.unit), /* written by the setter, read by optdoc.c */
     .help = "format to report: Kbits, Mbits, Gbits, Tbits (a = adaptive)",
     .man = "Unit of the Bitrate column: k, m, g, t for Kbits..Tbits per second "
            "(1000-based), K, M, G, T for KBytes..TBytes per second (1024-based), a or A "
            "(the default) to adapt. The Transfer column always adapts."},
    {.name = "interval", .letter = 'i', .arg = LP_CLI_ARG_NUM, .metavar = "#", .min = 0.1,
     .max = 60, GENERAL, .flags = LP_CLI_F_ZERO_OK, .store = LP_CLI_STORE_DOUBLE,
     FIELD(spec.report.interval_s),
     .help = "seconds between periodic throughput reports (0 = none)",
     .man = "Seconds between periodic throughput reports; default 1, fractions allowed. "
            "0 disables interval reports."},
    {.name = "pidfile", .letter = 'I', .metavar = "file", STR(pidfile, LP_CLI_PATH_MAX - 1),
     GENERAL, .help = "write PID file",
     .man = "Write the process id to file (after -D has forked) and remove it at exit."},
    {.name = "affinity", .letter = 'A', .arg = LP_CLI_ARG_STRING, .metavar = "n/n,m", GENERAL,
     .flags = LP_CLI_F_UNSUPPORTED, .help = "set CPU affinity"},
    {.name = "bind", .letter = 'B', .arg = LP_CLI_ARG_STRING, .metavar = "host[%dev]",
     .max = LP_HOST_MAX - 1, GENERAL, .set = lp_cli_set_bind,
     .help = "bind to the interface associated with the address host",
     .man = "Bind to the local address host. An optional %dev suffix is the same as "
            "--bind-dev dev (as in iperf3, so it is not an IPv6 scope id)."},
    {.name = "bind-dev", .metavar = "dev", STR(spec.bind_dev, 15), GENERAL,
     .help = "bind to the network interface with SO_BINDTODEVICE"},
    {.name = "verbose", .letter = 'V', FLAG(fmt.verbose), GENERAL,
     .help = "more detailed output"},
    {.name = "json", .letter = 'J', FLAG(json), GENERAL, .key = LP_CLI_K_JSON, .help = "output in JSON format",
     .man = "Output one JSON document per test in iperf3's -J schema. A server prints "
            "one document per test it served."},
    {.name = "json-stream", GENERAL, .set = lp_cli_set_json_stream,
     .help = "output in line-delimited JSON format (implies -J)",
     .man = "Output one compact JSON object per line as the test runs, like iperf3 "
            "3.17's --json-stream. Implies -J."},
    {.name = "logfile", .metavar = "f", STR(logfile, LP_CLI_PATH_MAX - 1), GENERAL,
     .help = "send output to a log file",
     .man = "Append all output (normal and error) to file f instead of the terminal."},
    ROW_DB,
    ROW_NO_HISTORY,
    {.name = "forceflush", FLAG(forceflush), GENERAL,
     .help = "force flushing output at every interval",
     .man = "Flush the output after every line instead of after every report."},
    {.name = "timestamps", .arg = LP_CLI_ARG_OPTIONAL, .metavar = "format",
     .max = sizeof(((struct lp_fmt_opts *)0)->timestamp_format) - 1, GENERAL,
     .set = lp_cli_set_timestamps,
     .help = "emit a timestamp at the start of each output line",
     .man = "Prefix each output line with the time. The optional =format is a "
            "strftime(3) format; the default is iperf3's \"%c \"."},
    {.name = "rcv-timeout", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 100, .max = MS_MAX,
     GENERAL, .store = LP_CLI_STORE_UINT, FIELD(spec.rcv_timeout_ms),
     .help = "idle timeout for receiving data (default 120000 ms)",
     .man = "Abort a test when the receiving side sees no data for this many "
            "milliseconds; default 120000. A server also ends a test whose client has read "
            "nothing it sent over TCP for as long (a client stopped with SIGSTOP would "
            "otherwise hold a -t 0 -R test for ever)."},
    {.name = "snd-timeout", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0, .max = MS_MAX,
     GENERAL, .store = LP_CLI_STORE_UINT, FIELD(spec.snd_timeout_ms),
     .help = "timeout for unacknowledged TCP data (ms, default: system's)",
     .man = "Give up on a TCP connection whose data stays unacknowledged for this many "
            "milliseconds (TCP_USER_TIMEOUT); 0 keeps the system setting."},
    ROW_DEBUG('d', 0, "emit debugging output"),
    ROW_THREADS,
    ROW_COPY,
    ROW_VERSION("show version information and quit"),
    ROW_HELP("show this message and quit"),
    ROW_MAN,
    ROW_IPERF2("use iperf2's options and output (see IPERF2 MODE)"),
    {.name = "csv", GENERAL, .flags = LP_CLI_F_LINKPERF, .key = LP_CLI_K_CSV, FLAG(csv),
     .help = "output comma-separated values (iperf2's -y C)",
     .man = "Print iperf2's comma-separated lines (its -y C) instead of text: time, "
            "addresses and ports, transfer id, interval, bytes and bits/s, and for UDP "
            "jitter, loss and out-of-order counts. Cannot be combined with -J."},
    ROW_CSV_HEADER,
    ROW_CSV_LATENCY,
    ROW_ENHANCED(0, "enhanced reports (iperf2's -e)"),
    {.name = "print-mss", GENERAL, .set = lp_cli_set_print_mss,
     .help = "print the TCP maximum segment size (iperf2's -m)",
     .man = "Report the TCP maximum segment size of the connections (iperf2's -m)."},

    /* ---- Server ---- */
    ROW_SERVER,
    ROW_DAEMON,
    {.name = "one-off", .letter = '1', FLAG(spec.one_off), SERVER,
     .help = "handle one client connection then exit"},
    {.name = "idle-timeout", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 1, .max = 86400,
     SERVER, .store = LP_CLI_STORE_UINT, FIELD(spec.idle_timeout_s),
     .help = "restart idle server after # seconds (default - no timeout)",
     .man = "With -1, exit when no client has connected for this many seconds. Without -1 "
            "it is accepted for iperf3 compatibility and changes nothing: a linkperf server "
            "never needs a restart, since every control step and every test has its own deadline."},
    {.name = "server-max-duration", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 1,
     .max = 86400, SERVER, .store = LP_CLI_STORE_UINT, FIELD(spec.server_max_duration_s),
     .help = "refuse iperf3 tests longer than # seconds (and untimed ones); end iperf2 tests at #"
             " (default: refuse tests longer than 3600 s, end untimed ones at 3600 s)",
     .man = "Refuse iperf3 tests whose duration plus omit time exceeds this many seconds, and "
            "tests without a time limit (iperf3 3.20's option). An iperf2 test, whose header "
            "cannot be refused in words its client prints, is ended when it has run this long, "
            "whichever way its data flows. Without this option every test still ends: an "
            "iperf3 test timed longer than 3600 s is refused, and an untimed one (-t 0, or an "
            "amount with -n or -k) and any iperf2 test are ended at 3600 s, with a line "
            "saying why (the iperf3 client hears that the server has terminated)."},
    ROW_MAX_TESTS,
    {.name = "allow", .metavar = "list", .arg = LP_CLI_ARG_STRING, .max = LP_ALLOW_MAX - 1,
     SERVER, .flags = LP_CLI_F_LINKPERF, .set = lp_cli_set_allow,
     .help = "serve only these clients (hosts, addresses, CIDRs)",
     .man = "Serve only clients whose address matches the list: host names, IPv4 or IPv6 "
            "addresses and CIDR blocks (10.0.0.0/8, 2001:db8::/32), separated by commas. "
            "Other clients are refused and a line in the server output says so (for UDP "
            "datagrams at most one line a second, with a count). This is "
            "JPerf's \"Client Limit\" and iperf2 2.0's server -c host. At most 1023 "
            "characters."},
    ROW_TRUST_UDP,
    ROW_HISTOGRAMS,
    {.name = "max-connections", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0,
     .max = LP_CLI_MAX_CONNS, SERVER, .flags = LP_CLI_F_LINKPERF, .store = LP_CLI_STORE_UINT,
     FIELD(spec.max_conns), .help = "exit after serving # tests (0 = never)",
     .man = "Exit after serving this many tests; 0 (the default) serves until stopped. This "
            "is JPerf's \"Num Connections\" and iperf2's server -P."},
    ROW_WEB,
    {.name = "metrics", .metavar = "host:port", STR(metrics, 127), SERVER, .flags = LP_CLI_F_LINKPERF,
     .help = "serve OpenMetrics (Prometheus) text on http://host:port/metrics",
     .man = "Serve the server's tests as OpenMetrics text (what Prometheus scrapes) on "
            "http://host:port/metrics: tests running, served, failed and refused (by reason), "
            "payload bytes received and sent (running tests included), UDP datagrams and "
            "losses, TCP retransmits, tests per client address (the first 32, the rest as "
            "other), and for each running test its bytes, rate, UDP jitter and loss and TCP "
            "retransmits; build information. Counters never go backwards. host is a numeric "
            "address or localhost (127.0.0.1:9464, [::1]:9464); nothing else is served there "
            "and nothing is read from a scraper."},
    {.name = "test-tags", .arg = LP_CLI_ARG_STRING, .metavar = "auto|always|never", .max = 6, SERVER,
     .flags = LP_CLI_F_LINKPERF, .set = lp_cli_set_test_tags,
     .help = "tag each test's lines with [test N] (default auto: while tests overlap)",
     .man = "A linkperf server runs tests side by side, each printing iperf3's lines; with "
            "auto (the default) a test's lines start with [test N] once another test runs at "
            "the same time, and keep it to its end, so interleaved lines say whose they are; "
            "a server serving one test at a time prints exactly iperf3's lines. always tags "
            "every test's lines, never none. The text output only: CSV, -J and the output a "
            "client gets with --get-server-output are never tagged."},
    {.name = "stop-after", .arg = LP_CLI_ARG_NUM, .metavar = "#", .min = 0.01, .max = 86400,
     SERVER, .flags = LP_CLI_F_LINKPERF | LP_CLI_F_ZERO_OK, .store = LP_CLI_STORE_DOUBLE,
     FIELD(stop_after_s), .help = "stop the server after # seconds (0 = never)",
     .man = "Stop the server this many seconds after it starts, ending the tests still "
            "running (with their partial results): iperf2's server -t. 0 (the default) runs "
            "until stopped."},
    {.name = "server-bitrate-limit", .arg = LP_CLI_ARG_STRING, .metavar = "#[KMG][/#]",
     SERVER, .flags = LP_CLI_F_UNSUPPORTED, .help = "server's total bit rate limit"},
    {.name = "rsa-private-key-path", .metavar = "file", STR(auth.private_key, LP_CLI_PATH_MAX - 1),
     SERVER, .help = "path to the RSA private key for authentication",
     .man = "Require iperf3 clients to authenticate (iperf3's --username scheme): file is the "
            "unencrypted PEM RSA private key whose public half the clients hold. Needs "
            "--authorized-users-path. A client without a valid token is refused with iperf3's "
            "\"test authorization failed\" (error 142), and the server's output says why. "
            "Tokens padded either way are accepted (PKCS#1 v1.5 from iperf3 up to 3.16, OAEP "
            "from 3.17), unless --use-pkcs1-padding. iperf2 clients cannot authenticate this "
            "way: with it they are refused unless --permit-key admits them."},
    {.name = "authorized-users-path", .metavar = "file", STR(auth.users, LP_CLI_PATH_MAX - 1),
     SERVER, .help = "path to the file containing user credentials",
     .man = "The users who may run tests: lines of user,hash where hash is the lowercase hex "
            "SHA-256 of {user}password (braces included), as iperf3 reads it; lines starting "
            "with # are comments. The file is read again for every test."},
    {.name = "time-skew-threshold", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 1,
     .max = 86400, SERVER, .store = LP_CLI_STORE_UINT, FIELD(auth.skew_s),
     .help = "time skew threshold (in seconds) for authentication (default 10)",
     .man = "How far, in seconds, the time in a client's authentication token may be from the "
            "server's clock; default 10. A token accepted once is refused if it comes again."},
    {.name = "use-pkcs1-padding", FLAG(auth.pkcs1), GENERAL,
     .help = "use PKCS#1 v1.5 padding for the authentication token (iperf3 up to 3.16)",
     .man = "Client: encrypt the authentication token with PKCS#1 v1.5 padding, which iperf3 "
            "servers up to 3.16 (Debian 12 has 3.12) need; without it the token is OAEP, as "
            "iperf3 3.17 and later send by default. Server: accept only PKCS#1 v1.5 tokens "
            "(without it both are accepted)."},

    /* ---- Client ---- */
    {.name = "client", .letter = 'c', .arg = LP_CLI_ARG_STRING, .metavar = "host[%dev]",
     .max = LP_HOST_MAX - 1, CLIENT, .key = LP_CLI_K_CLIENT, .set = lp_cli_set_client,
     .help = "run in client mode, connecting to host",
     .man = "Run in client mode, testing against the server host (a name or an IPv4 or "
            "IPv6 address). An optional %dev suffix is the same as --bind-dev dev."},
    ROW_UDP(CLIENT),
    {.name = "dialect", .arg = LP_CLI_ARG_STRING, .metavar = "iperf2|iperf3", .max = 6,
     CLIENT, .flags = LP_CLI_F_LINKPERF, .set = lp_cli_set_dialect,
     .help = "protocol to speak to the server (default iperf3)",
     .man = "The protocol the client speaks: iperf3 (the default) or iperf2, for stock "
            "iperf 2 servers, JPerf setups and boards running an iperf2 server. --dual, "
            "--tradeoff, --full-duplex, --compat, --listen-port, --no-udp-fin, --ttl and "
            "--stdin exist only in iperf2 and choose it by themselves; -F needs it "
            "given. With iperf2 the default port is 5001, and iperf3 protocol features "
            "(-O, -k, --get-server-output, --extra-data, --udp-counters-64bit, "
            "--repeating-payload) are refused."},
    {.name = "connect-timeout", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0,
     .max = MS_MAX, CLIENT, .store = LP_CLI_STORE_UINT, FIELD(spec.connect_timeout_ms),
     .help = "timeout for control connection setup (ms)",
     .man = "Give up connecting the control connection after this many milliseconds; "
            "0 (the default) leaves it to the system."},
    {.name = "bitrate", .letter = 'b', .arg = LP_CLI_ARG_RATE, .metavar = "#[KMG][/#]",
     .min = 0, .max = 1e15, CLIENT, .flags = LP_CLI_F_BURST, .key = LP_CLI_K_BITRATE,
     .set = lp_cli_set_bitrate, /* the setter writes the field below, which optdoc.c reads */
     .store = LP_CLI_STORE_U64, FIELD(spec.rate_bps),
     .help = "target bitrate in bits/sec (0 for unlimited)",
     .man = "Target bitrate per stream in bits/s, with 1000-based K, M, G, T suffixes; 0 "
            "means unlimited. Default: 1 Mbit/s (1048576) for UDP, unlimited for TCP. An "
            "optional /N sends bursts of N packets (1..1000)."},
    {.name = "pacing-timer", .arg = LP_CLI_ARG_SIZE, .metavar = "#[KMG]", .min = 1,
     .max = 1000000, CLIENT, .store = LP_CLI_STORE_U32, FIELD(spec.pacing_timer_us),
     .help = "set the timing for pacing, in microseconds (default 1000)"},
    {.name = "fq-rate", .arg = LP_CLI_ARG_RATE, .metavar = "#[KMG]", .min = 0, .max = 1e15,
     CLIENT, .store = LP_CLI_STORE_U64, FIELD(spec.fq_rate_bps),
     .help = "enable fair-queuing based socket pacing in bits/sec",
     .man = "Let the kernel pace each stream at this rate in bits/s (SO_MAX_PACING_RATE, "
            "1000-based suffixes); 0 leaves pacing to linkperf."},
    {.name = "time", .letter = 't', .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0,
     .max = LP_MAX_DURATION_S, CLIENT, .key = LP_CLI_K_TIME, .store = LP_CLI_STORE_DOUBLE,
     FIELD(spec.duration_s),
     .help = "time in seconds to transmit for (default 10 secs, 0 = forever)",
     .man = "Seconds to transmit for; default 10. 0 runs until interrupted (Ctrl-C). "
            "Only one of -t, -n and -k may be given."},
    {.name = "bytes", .letter = 'n', .arg = LP_CLI_ARG_SIZE, .metavar = "#[KMG]", .min = 1,
     .max = 1125899906842624.0, CLIENT, .key = LP_CLI_K_BYTES, .store = LP_CLI_STORE_U64,
     FIELD(spec.bytes),
     .help = "number of bytes to transmit (instead of -t)",
     .man = "Number of bytes to transmit instead of a time, with 1024-based suffixes."},
    {.name = "blockcount", .letter = 'k', .arg = LP_CLI_ARG_SIZE, .metavar = "#[KMG]",
     .min = 1, .max = 1125899906842624.0, CLIENT, .flags = LP_CLI_F_IPERF3_ONLY,
     .key = LP_CLI_K_BLOCKS, .store = LP_CLI_STORE_U64, FIELD(spec.blocks),
     .help = "number of blocks (packets) to transmit (instead of -t or -n)"},
    {.name = "length", .letter = 'l', .arg = LP_CLI_ARG_SIZE, .metavar = "#[KMG]", .min = 1,
     .max = LP_MAX_BLKSIZE, .narrow = {LP_CLI_WHEN_UDP, LP_MIN_UDP_BLKSIZE, LP_MAX_UDP_BLKSIZE},
     CLIENT, .key = LP_CLI_K_LENGTH, .store = LP_CLI_STORE_U32,
     FIELD(spec.blksize),
     .help = "length of buffer to read or write (default 128 KB TCP, 1460 UDP)",
     .man = "Length of each write (TCP, 1..1M, default 128K) or datagram (UDP, "
            "16..65507, default 1460), with 1024-based suffixes."},
    {.name = "cport", .arg = LP_CLI_ARG_INT, .metavar = "port", .min = 1, .max = 65535,
     CLIENT, .store = LP_CLI_STORE_U16, FIELD(spec.cport),
     .help = "bind to a specific client port (default: ephemeral port)"},
    {.name = "parallel", .letter = 'P', .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 1,
     .max = LP_MAX_STREAMS, CLIENT, .key = LP_CLI_K_PARALLEL, .store = LP_CLI_STORE_UINT,
     FIELD(spec.streams),
     .help = "number of parallel client streams to run"},
    ROW_REVERSE("run in reverse mode (server sends, client receives)"),
    {.name = "bidir", CLIENT, .key = LP_CLI_K_BIDIR, .set = lp_cli_set_bidir,
     .help = "run in bidirectional mode (client and server send and receive)",
     .man = "Run in bidirectional mode: client and server both send and receive. "
            "Cannot be combined with -R. With the iperf2 dialect it is --full-duplex."},
    ROW_FULL_DUPLEX("iperf2: send both ways at once on the same connection"),
    {.name = "dual", CLIENT, .flags = LP_CLI_F_IMPLIES_IPERF2, .key = LP_CLI_K_DUAL,
     .set = lp_cli_set_dual, .help = "iperf2 -d: the server connects back and sends at once",
     .man = "iperf2's -d (dual test): while the client sends, the server opens a connection "
            "back to the client (to --listen-port) and sends on it. Implies --dialect "
            "iperf2. The server must be able to reach the client (no NAT in between)."},
    ROW_TRADEOFF(0, "iperf2 -r: the server connects back and sends after"),
    {.name = "listen-port", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0, .max = 65535,
     CLIENT, .flags = LP_CLI_F_IMPLIES_IPERF2, .store = LP_CLI_STORE_U16,
     FIELD(spec.iperf2.listen_port),
     .help = "iperf2 -L: port for --dual/--tradeoff's connection back",
     .man = "iperf2's -L: the port the client listens on for the server's connection back "
            "with --dual or --tradeoff; 0 (the default) uses the server port. Implies "
            "--dialect iperf2."},
    {.name = "compat", GENERAL, .flags = LP_CLI_F_IMPLIES_IPERF2, .key = LP_CLI_K_COMPAT,
     FLAG(spec.iperf2.compat), .help = "iperf2 -C: no test header, for iperf 2.0-era peers",
     .man = "iperf2's -C (compatibility): a client sends no test header, only payload, "
            "for old iperf 2.0 servers and minimal board servers; it cannot be combined "
            "with -R, --full-duplex, --dual or --tradeoff. On a server it counts every "
            "byte of iperf2 connections as payload. Implies --dialect iperf2 for a client."},
    ROW_NO_UDP_FIN("iperf2: UDP without the final report exchange"),
    ROW_TRIP_TIMES("iperf2: one-way latency from sender timestamps"),
    ROW_BOUNCEBACK("iperf2: TCP request/response round trips"),
    ROW_ISOCHRONOUS("iperf2: video-like frames, fps:mean,stdev"),
    ROW_IPG("iperf2: milliseconds between a UDP frame's datagrams"),
    ROW_BOUNCEBACK_MORE,
    {.name = "file", .letter = 'F', .metavar = "name", STR(spec.iperf2.file, LP_PATH_MAX - 1),
     CLIENT, .flags = LP_CLI_F_NEEDS_IPERF2, .key = LP_CLI_K_FILE,
     .help = "send this file's content (needs --dialect iperf2)",
     .man = "Send the content of this file as the payload (iperf2's -F); the test ends "
            "at the end of the file or at -t. Needs --dialect iperf2: linkperf does not "
            "send files over the iperf3 protocol."},
    {.name = "stdin", CLIENT, .flags = LP_CLI_F_IMPLIES_IPERF2, .key = LP_CLI_K_STDIN,
     FLAG(spec.iperf2.from_stdin), .help = "send standard input (iperf2's -I)",
     .man = "Send what arrives on standard input as the payload (iperf2's -I). Implies "
            "--dialect iperf2."},
    ROW_TTL(0, "iperf2 -T: TTL of multicast datagrams"),
    ROW_PERMIT_KEY("iperf2: key a client sends and a server requires (TCP only)"),
    ROW_PERMIT_KEY_TIMEOUT("iperf2: seconds a --permit-key server accepts tests (default 20, 0 = always)"),
    {.name = "window", .letter = 'w', .arg = LP_CLI_ARG_SIZE, .metavar = "#[KMG]", .min = 0,
     .max = LP_MAX_WINDOW, CLIENT, .store = LP_CLI_STORE_INT, FIELD(spec.window_bytes),
     .help = "set send/receive socket buffer sizes (sets TCP window size)"},
    {.name = "congestion", .letter = 'C', .metavar = "algo",
     STR(spec.congestion, LP_CONGESTION_MAX - 1), CLIENT, .key = LP_CLI_K_CONGESTION,
     .help = "set TCP congestion control algorithm"},
    {.name = "set-mss", .letter = 'M', .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 88,
     .max = 9216, CLIENT, .flags = LP_CLI_F_ZERO_OK, .store = LP_CLI_STORE_INT,
     FIELD(spec.mss), .help = "set TCP maximum segment size (MTU - 40 bytes)",
     .man = "Set the TCP maximum segment size (MTU - 40 bytes); 0 keeps the system "
            "default. Linux refuses values below 88."},
    {.name = "no-delay", .letter = 'N', FLAG(spec.nodelay), CLIENT,
     .help = "set TCP no delay, disabling Nagle's Algorithm"},
    {.name = "version4", .letter = '4', GENERAL, .set = lp_cli_set_inet4,
     .help = "only use IPv4"},
    {.name = "version6", .letter = '6', GENERAL, .set = lp_cli_set_inet6,
     .help = "only use IPv6"},
    {.name = "tos", .letter = 'S', .arg = LP_CLI_ARG_INT, .metavar = "N", .min = 0,
     .max = 255, CLIENT, .flags = LP_CLI_F_CPREFIX, .set = lp_cli_set_tos,
     .choices = lp_cli_value_tos_choice,
     .help = "set the IP type of service, 0-255 (decimal, 0octal, 0xhex)",
     .man = "Set the IP type of service byte, 0..255, in decimal, octal (leading 0) or "
            "hex (leading 0x): 52, 064 and 0x34 are the same."},
    {.name = "dscp", .arg = LP_CLI_ARG_STRING, .metavar = "N|name", .max = 15, CLIENT,
     .set = lp_cli_set_dscp, .choices = lp_cli_value_dscp_choice,
     .help = "set the IP DSCP value, 0-63 or symbolic (AF11, EF...)",
     .man = "Set the DSCP, 0..63 (decimal, octal or hex as for -S) or a name: CS0..CS7, "
            "AF11..AF43, EF, VA. The TOS byte becomes DSCP << 2."},
    {.name = "zerocopy", .letter = 'Z', FLAG(spec.zerocopy), CLIENT,
     .help = "use a 'zero copy' method of sending data",
     .man = "Send TCP data with MSG_ZEROCOPY: the kernel lends the pages to the NIC instead "
            "of copying them. Where it reports that it copied after all (loopback, veth: "
            "the data is delivered locally) the stream switches to the default send path "
            "(see --copy)."},
    {.name = "skip-rx-copy", FLAG(spec.skip_rx_copy), CLIENT,
     .help = "ignore received data instead of copying it (MSG_TRUNC)",
     .man = "Receive TCP data without copying it to user space (MSG_TRUNC); the bytes "
            "are counted, not read. linkperf's own receivers do so already unless --copy; "
            "the request is also sent to the server (iperf3 3.19's skip_rx_copy parameter), "
            "so a stock 3.19+ server receives that way too; older servers ignore it."},
    {.name = "omit", .letter = 'O', .arg = LP_CLI_ARG_INT, .metavar = "N", .min = 0,
     .max = 600, CLIENT, .flags = LP_CLI_F_IPERF3_ONLY, .store = LP_CLI_STORE_UINT, FIELD(spec.omit_s),
     .help = "omit the first N seconds of the test from the statistics"},
    {.name = "title", .letter = 'T', .metavar = "str", STR(spec.title, LP_TITLE_MAX - 1),
     CLIENT, .help = "prefix every output line with this string"},
    {.name = "extra-data", .metavar = "str", STR(spec.extra_data, LP_EXTRA_DATA_MAX - 1),
     CLIENT, .flags = LP_CLI_F_IPERF3_ONLY, .help = "data string to include in client and server JSON"},
    {.name = "get-server-output", FLAG(spec.report.get_server_output), CLIENT,
     .flags = LP_CLI_F_IPERF3_ONLY,
     .help = "get results from server"},
    {.name = "udp-counters-64bit", FLAG(spec.udp_counters_64bit), CLIENT,
     .flags = LP_CLI_F_IPERF3_ONLY,
     .help = "use 64-bit counters in UDP test packets"},
    {.name = "repeating-payload", FLAG(spec.repeating_payload), CLIENT,
     .flags = LP_CLI_F_IPERF3_ONLY,
     .help = "use a repeating pattern in the payload instead of random bytes"},
    {.name = "dont-fragment", FLAG(spec.dont_fragment), CLIENT,
     .help = "set IPv4 Don't Fragment flag"},
    {.name = "sctp", CLIENT, .flags = LP_CLI_F_UNSUPPORTED, .help = "use SCTP rather than TCP"},
    {.name = "xbind", .letter = 'X', .arg = LP_CLI_ARG_STRING, .metavar = "name", CLIENT,
     .flags = LP_CLI_F_UNSUPPORTED, .help = "bind SCTP association to links"},
    {.name = "nstreams", .arg = LP_CLI_ARG_STRING, .metavar = "#", CLIENT,
     .flags = LP_CLI_F_UNSUPPORTED, .help = "number of SCTP streams"},
    {.name = "flowlabel", .letter = 'L', .arg = LP_CLI_ARG_STRING, .metavar = "N", CLIENT,
     .flags = LP_CLI_F_UNSUPPORTED, .help = "set the IPv6 flow label"},
    {.name = "username", .metavar = "name", STR(auth.username, LP_I3AUTH_NAME_MAX), CLIENT,
     .flags = LP_CLI_F_IPERF3_ONLY, .help = "username for authentication",
     .man = "Authenticate to an iperf3 server started with --rsa-private-key-path as this "
            "user (iperf3's scheme). Needs --rsa-public-key-path; the password comes from the "
            "IPERF3_PASSWORD environment variable or is asked for on the terminal."},
    {.name = "rsa-public-key-path", .metavar = "file", STR(auth.public_key, LP_CLI_PATH_MAX - 1),
     CLIENT, .flags = LP_CLI_F_IPERF3_ONLY, .help = "path to the RSA public key for authentication",
     .man = "The server's RSA public key (PEM, as openssl rsa -pubout writes it), which "
            "encrypts the user name, password and time sent with --username."},
};

static const struct lp_cli_table iperf3_table = {
    .name = "iperf3",
    .opts = iperf3_opts,
    .count = sizeof(iperf3_opts) / sizeof(iperf3_opts[0]),
    .iperf2 = false,
    .help_hint = "linkperf --help",
};

const struct lp_cli_table *lp_cli_options_iperf3(void)
{
    return &iperf3_table;
}

const struct lp_cli_opt *lp_cli_options_long(const struct lp_cli_table *t, const char *name,
                                             size_t len)
{
    size_t i;

    for (i = 0; i < t->count; i++) {
        const char *n = t->opts[i].name;
        if (strlen(n) == len && memcmp(n, name, len) == 0)
            return &t->opts[i];
    }
    return NULL;
}

const struct lp_cli_opt *lp_cli_options_prefix(const struct lp_cli_table *t, const char *name,
                                               size_t len, bool *ambiguous)
{
    const struct lp_cli_opt *found = lp_cli_options_long(t, name, len);
    size_t i;

    *ambiguous = false;
    if (found || len == 0)
        return found;
    for (i = 0; i < t->count; i++) {
        if (strncmp(t->opts[i].name, name, len) != 0)
            continue;
        if (found) {
            *ambiguous = true;
            return NULL;
        }
        found = &t->opts[i];
    }
    return found;
}

const struct lp_cli_opt *lp_cli_options_short(const struct lp_cli_table *t, char letter)
{
    size_t i;

    for (i = 0; letter && i < t->count; i++) {
        if (t->opts[i].letter == letter)
            return &t->opts[i];
    }
    return NULL;
}

void lp_cli_options_label(const struct lp_cli_opt *o, char *buf, size_t len)
{
    if (o->letter)
        snprintf(buf, len, "-%c/--%s", o->letter, o->name);
    else
        snprintf(buf, len, "--%s", o->name);
}

static void format_bound(char *buf, size_t len, const struct lp_cli_opt *o, double v)
{
    if (o->arg == LP_CLI_ARG_SIZE2)
        lp_cli_value_format_units2(buf, len, v);
    else if (o->arg == LP_CLI_ARG_SIZE)
        lp_cli_value_format_units(buf, len, v, 1024);
    else if (o->arg == LP_CLI_ARG_RATE)
        lp_cli_value_format_units(buf, len, v, 1000);
    else
        snprintf(buf, len, "%.15g", v);
}

void lp_cli_options_format(const struct lp_cli_opt *o, double v, char *buf, size_t len)
{
    format_bound(buf, len, o, v);
}

static bool numeric(const struct lp_cli_opt *o)
{
    return o->arg == LP_CLI_ARG_INT || o->arg == LP_CLI_ARG_NUM || o->arg == LP_CLI_ARG_SIZE ||
           o->arg == LP_CLI_ARG_RATE || o->arg == LP_CLI_ARG_SIZE2;
}

static void range_text(char *buf, size_t len, const struct lp_cli_opt *o, const char *prefix,
                       double min, double max)
{
    char lo[32], hi[32];

    format_bound(lo, sizeof(lo), o, min);
    format_bound(hi, sizeof(hi), o, max);
    snprintf(buf, len, "%s%s..%s", prefix, lo, hi);
}

void lp_cli_options_range(const struct lp_cli_opt *o, char *buf, size_t len)
{
    if (!numeric(o)) {
        if (len)
            buf[0] = '\0';
        return;
    }
    range_text(buf, len, o, (o->flags & LP_CLI_F_ZERO_OK) ? "0 or " : "", o->min, o->max);
}

void lp_cli_options_narrow_range(const struct lp_cli_opt *o, char *buf, size_t len)
{
    if (!numeric(o) || o->narrow.when == LP_CLI_WHEN_NEVER) {
        if (len)
            buf[0] = '\0';
        return;
    }
    range_text(buf, len, o, "", o->narrow.min, o->narrow.max);
}

const char *lp_cli_options_narrow_case(const struct lp_cli_opt *o)
{
    switch (o->narrow.when) {
    case LP_CLI_WHEN_CLIENT: return " for a client";
    case LP_CLI_WHEN_UDP: return " for UDP";
    case LP_CLI_WHEN_NEVER: break;
    }
    return "";
}

const char *lp_cli_options_expects(const struct lp_cli_opt *o)
{
    switch (o->arg) {
    case LP_CLI_ARG_INT:
        return (o->flags & LP_CLI_F_CPREFIX) ? "an integer (decimal, 0octal or 0xhex)"
                                             : "an integer";
    case LP_CLI_ARG_NUM: return "a number";
    case LP_CLI_ARG_SIZE: return "a size (a number with an optional K, M, G or T suffix)";
    case LP_CLI_ARG_RATE: return "a rate (a number with an optional K, M, G or T suffix)";
    case LP_CLI_ARG_SIZE2:
        return "a number with an optional k, m, g (1000-based) or K, M, G (1024-based) suffix";
    case LP_CLI_ARG_NONE:
    case LP_CLI_ARG_STRING:
    case LP_CLI_ARG_OPTIONAL:
        break;
    }
    return NULL;
}

void lp_cli_options_burst_range(char *buf, size_t len)
{
    snprintf(buf, len, "1..%d", LP_CLI_BURST_MAX);
}

/* Rows both option tables share (options.c, the iperf3 spelling; options2.c, iperf2's).
 * Private to those two files: each row is written once here and expanded where it stands in
 * each table, so the tables keep their own order (--help and --man print rows in table order).
 *
 * A shared row is one option: one argument grammar, range, store and man paragraph. What may
 * differ between spellings is passed in: the short letter (iperf2 has -e, -r, -T where iperf3
 * has none), the --help line (each spelling's --help keeps its own tool's words) and, for
 * a few rows, a flag or the mode (iperf2 refuses -p 5001-5005 by name; its -u is general). Words
 * that name other options in the man text come from the including file's vocabulary
 * (LP_SPELL_*), because the same option is --dual in one spelling and -d in the other.
 * Every row here carries LP_CLI_F_SHARED: test_cli_options2.c fails when both tables have
 * a long name for the same option (grammar, range, store, setter) that is not one of these.
 * Rows that share only a name (-f, -i, -B, -c, -t, -P, -w, -S, --fq-rate: another grammar,
 * range or setter) stay in their own table. */
#ifndef LP_CLI_OPTIONS_ROWS_H
#define LP_CLI_OPTIONS_ROWS_H

#include <stddef.h>

#include "cli/options.h"
#include "cli/setters.h"
#include "cli/values.h"

#if !defined(LP_SPELL_IMPLIES_IPERF2) || !defined(LP_SPELL_DIALECT_NOTE) ||               \
    !defined(LP_SPELL_ECHO_NOTE) ||                                                       \
    !defined(LP_SPELL_CSV) || !defined(LP_SPELL_LOGFILE) || !defined(LP_SPELL_DUAL) ||     \
    !defined(LP_SPELL_TRADEOFF) ||                                                        \
    !defined(LP_SPELL_FILE) || !defined(LP_SPELL_STDIN) || !defined(LP_SPELL_COMPAT) ||    \
    !defined(LP_SPELL_IPERF3_AUTH) || !defined(LP_SPELL_SERVER_PORTS) ||                   \
    !defined(LP_SPELL_CLIENT_PORT) || !defined(LP_SPELL_UDP_ON_SERVER) ||                 \
    !defined(LP_SPELL_UDP_SIZE)
#error "define the spelling's LP_SPELL_* vocabulary before including cli/options_rows.h"
#endif

#define FIELD(m) .off = offsetof(struct lp_cli_config, m), \
                 .size = sizeof(((struct lp_cli_config *)0)->m)
#define FLAG(m) .store = LP_CLI_STORE_TRUE, FIELD(m)
#define STR(m, maxlen) .arg = LP_CLI_ARG_STRING, .max = (maxlen), \
                       .store = LP_CLI_STORE_STR, FIELD(m)
#define GENERAL .mode = LP_CLI_MODE_GENERAL
#define SERVER .mode = LP_CLI_MODE_SERVER
#define CLIENT .mode = LP_CLI_MODE_CLIENT

/* ---- Server or client ---- */

/* iperf2 refuses -p 5001-5005 by name (flags_ = LP_CLI_F_NO_RANGE); the default spelling
 * calls it not an integer, as iperf3 does. */
#define ROW_PORT(flags_, help_)                                                             \
    {.name = "port", .letter = 'p', .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0,        \
     .max = 65535, .narrow = {LP_CLI_WHEN_CLIENT, 1, 65535}, GENERAL,                      \
     .flags = LP_CLI_F_SHARED | (flags_), .key = LP_CLI_K_PORT, .store = LP_CLI_STORE_U16,   \
     FIELD(spec.port), .help = help_,                                                       \
     .man = "Server port to listen on (server) or connect to (client). A server without "   \
            "-p listens on " LP_SPELL_SERVER_PORTS ", TCP and UDP, and tells iperf3 from "  \
            "iperf2 clients by what they send first; with -p it listens on that port only, " \
            "and 0 means any free port. A client connects to " LP_SPELL_CLIENT_PORT ". "    \
            "Port ranges (iperf2's -p 5001-5005) are not supported."}

/* A client option in the default spelling (iperf3 refuses -u on a server); general in
 * iperf2's, whose server takes -u for its banner. */
#define ROW_UDP(mode_)                                                                      \
    {.name = "udp", .letter = 'u', mode_, .flags = LP_CLI_F_SHARED, .key = LP_CLI_K_UDP,    \
     .set = lp_cli_set_udp,                                                                 \
     .help = "use UDP rather than TCP",                                                     \
     .man = "Use UDP rather than TCP. The rate defaults to 1 Mbit/s (1048576 bit/s) and "   \
            "the datagram size to " LP_SPELL_UDP_SIZE ". A linkperf server serves UDP and " \
            "TCP either way" LP_SPELL_UDP_ON_SERVER "."}

/* Both tables have it so that the switch parses; in the iperf2 table it changes nothing. */
#define ROW_IPERF2(help_)                                                                   \
    {.name = "iperf2", GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF,               \
     .set = lp_cli_set_iperf2,                                                              \
     .help = help_,                                                                         \
     .man = "Read the whole command line with iperf2's option letters and meanings, speak " \
            "the iperf2 protocol as a client and print iperf2's text layout; see IPERF2 "   \
            "MODE. It may appear anywhere on the line. Running the program as linkperf2 "   \
            "does the same; there --iperf2 is accepted and changes nothing."}

#define ROW_DB                                                                              \
    {.name = "db", .metavar = "path", STR(db, LP_CLI_PATH_MAX - 1), GENERAL,                \
     .flags = LP_CLI_F_SHARED,                                                              \
     .help = "history database (default ~/.local/share/linkperf/history.db)",               \
     .man = "Record the test in this SQLite history database instead of the default "       \
            "$XDG_DATA_HOME/linkperf/history.db (~/.local/share/linkperf/history.db): its " \
            "command line, every interval and the iperf3 JSON result, which linkperf ui "   \
            "lists, overlays and exports. A test cut short is kept, marked incomplete."}

#define ROW_NO_HISTORY                                                                      \
    {.name = "no-history", FLAG(no_history), GENERAL, .flags = LP_CLI_F_SHARED,             \
     .help = "do not record the test in the history database",                              \
     .man = "Record nothing in the history database."}

/* iperf3 has --debug (-d); iperf2's -d is the dual test and it has no --debug. */
#define ROW_DEBUG(letter_, flags_, help_)                                                   \
    {.name = "debug", .letter = (letter_), .arg = LP_CLI_ARG_OPTIONAL, .metavar = "#",      \
     .min = 1, .max = 4, GENERAL, .flags = LP_CLI_F_SHARED | (flags_),                      \
     .set = lp_cli_set_debug,                                                               \
     .help = help_,                                                                         \
     .man = "Trace the control protocol on standard error: connections and how they were "  \
            "classified, every state byte sent and received, the parameter and results "    \
            "JSON, UDP stream hellos. The optional =level 1..4 is accepted for iperf3 "     \
            "compatibility; every level prints the same trace. The trace stays on standard " \
            "error, so JSON or comma-separated output is not corrupted."}

#define ROW_THREADS                                                                         \
    {.name = "threads", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 0, .max = 64,         \
     GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF,                                 \
     .store = LP_CLI_STORE_UINT, FIELD(spec.threads),                                       \
     .help = "worker threads (default 0 = one per CPU core)",                               \
     .man = "Number of worker threads that move data; 0 (the default) starts one per "      \
            "online CPU core."}

/* The default TCP data path copies nothing it does not need to (stream.c): a test of the
 * link, not of the host's memcpy. --copy restores an application's copies. */
#define ROW_COPY                                                                            \
    {.name = "copy", FLAG(spec.copy), GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF, \
     .help = "move TCP data through user space both ways, as an application does",        \
     .man = "By default TCP data is received with MSG_TRUNC (counted, not copied), and "  \
            "with the default -l 8 blocks go per send(): the fastest safe path, the same "   \
            "bytes on the wire. With --copy "                                                \
            "every block is written with "                                                   \
            "send() and read with a copying recv(), as an application would; use it to "    \
            "measure what the host's copies cost. -Z, --skip-rx-copy, -F and trip-times "    \
            "choose their own paths."}

#define ROW_VERSION(help_)                                                                  \
    {.name = "version", .letter = 'v', GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_STOP,   \
     .set = lp_cli_set_version, .help = help_}

#define ROW_HELP(help_)                                                                     \
    {.name = "help", .letter = 'h', GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_STOP,      \
     .set = lp_cli_set_help, .help = help_}

#define ROW_MAN                                                                             \
    {.name = "man", GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_STOP | LP_CLI_F_LINKPERF,  \
     .set = lp_cli_set_man, .help = "print this manual page (roff) and quit",               \
     .man = "Print this manual page, in roff, generated from the option table, and quit."}

#define ROW_CSV_HEADER                                                                      \
    {.name = "csv-header", GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF,           \
     .key = LP_CLI_K_CSV_HEADER,                                                            \
     FLAG(fmt.csv_header), .help = "with " LP_SPELL_CSV ", first print a line naming the fields", \
     .man = "With " LP_SPELL_CSV ", print a first line naming the fields (iperf2 prints none)."}

#define ROW_CSV_LATENCY                                                                     \
    {.name = "csv-latency", GENERAL, .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF,          \
     .key = LP_CLI_K_CSV_LATENCY,                                                           \
     FLAG(fmt.csv_latency), .help = "with " LP_SPELL_CSV ", append each row's latency: count, min, p50, p90, p99, p99.9, max (ms)", \
     .man = "With " LP_SPELL_CSV ", append to every row the latency measured in it (bounceback round " \
            "trips, --trip-times one-way): lat_count, lat_min_ms, lat_p50_ms, lat_p90_ms, lat_p99_ms, "  \
            "lat_p99_9_ms, lat_max_ms; empty fields where none was measured. iperf2 has no such columns."}

#define ROW_ENHANCED(letter_, help_)                                                        \
    {.name = "enhanced", .letter = (letter_), GENERAL, .flags = LP_CLI_F_SHARED,            \
     .set = lp_cli_set_enhanced,                                                            \
     .help = help_,                                                                         \
     .man = "Ask for iperf2's enhanced reports (its -e): more columns in the iperf2 text "  \
            "layout and millisecond timestamps in " LP_SPELL_CSV " lines. Nothing changes " \
            "on the wire."}

#define ROW_PERMIT_KEY(help_)                                                               \
    {.name = "permit-key", .arg = LP_CLI_ARG_OPTIONAL, .metavar = "value",                  \
     .max = LP_PERMIT_KEY_MAX, GENERAL, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2, \
     .key = LP_CLI_K_PERMIT_KEY, .set = lp_cli_set_permit_key, .help = help_,               \
     .man = "iperf2's --permit-key (2.1.8's wire format). A client sends value, 4 to 128 "  \
            "characters, after its iperf2 TCP header (not with -u or " LP_SPELL_COMPAT ")." \
            LP_SPELL_DIALECT_NOTE " A server serves only iperf2 TCP clients sending it: "   \
            "others get iperf 2.1.8's \"[drop] ... (permit key fail)\" line and a reset. "  \
            "iperf2 UDP clients cannot send a key and are refused, and so are iperf3 "      \
            "clients" LP_SPELL_IPERF3_AUTH ". Without a value (--permit-key alone) the "    \
            "server makes a key up (its start time and 16 random letters and digits) and "  \
            "prints it. It accepts tests for --permit-key-timeout seconds, then exits once " \
            "they end. In iperf2's text layout both ends print their transfer ids as "      \
            "[key(1)], as 2.1.8 does. The key travels in the clear: it keeps stray clients " \
            "out, it authenticates nobody."}

/* ---- Server ---- */

#define ROW_SERVER                                                                          \
    {.name = "server", .letter = 's', SERVER, .flags = LP_CLI_F_SHARED,                     \
     .key = LP_CLI_K_SERVER,                                                                \
     .set = lp_cli_set_server, .help = "run in server mode",                                \
     .man = "Run in server mode. A linkperf server runs many tests at once (see "           \
            "--max-tests), where a stock iperf3 server refuses clients while one test is "  \
            "running."}

#define ROW_DAEMON                                                                          \
    {.name = "daemon", .letter = 'D', FLAG(daemon), SERVER, .flags = LP_CLI_F_SHARED,       \
     .help = "run the server as a daemon",                                                  \
     .man = "Run the server in the background, detached from the terminal. Output goes "    \
            "to " LP_SPELL_LOGFILE ", or nowhere."}

#define ROW_MAX_TESTS                                                                       \
    {.name = "max-tests", .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 1, .max = 1024,     \
     SERVER, .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF,                                  \
     .store = LP_CLI_STORE_UINT, FIELD(spec.max_tests),                                     \
     .help = "tests the server runs at once (default 64)",                                  \
     .man = "How many tests the server runs at the same time; default 64. An iperf3 "       \
            "client beyond that gets iperf3's busy answer, an iperf2 TCP client a reset."}

#define ROW_TRUST_UDP                                                                       \
    {.name = "trust-udp", .metavar = "list", .arg = LP_CLI_ARG_STRING,                      \
     .max = LP_ALLOW_MAX - 1, SERVER, .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF,         \
     .set = lp_cli_set_trust_udp,                                                           \
     .help = "send iperf2 UDP -R/-d/full-duplex tests to these clients without proof",      \
     .man = "Clients (hosts, addresses, CIDRs, as --allow takes them) that an iperf2 UDP "  \
            "test sending to the client (-R, -d, -r, --full-duplex) serves whole at once. " \
            "Others get that only when they are on loopback or made a TCP connection to "   \
            "this server in the last 10 minutes: an iperf2 UDP request is one datagram, "   \
            "its source may be forged, and the server must not flood a host that never "    \
            "asked (before the proof such a test gets 8 datagrams plus twice what the "     \
            "client sent; see docs/internals/security.md). For boards that test over UDP "  \
            "only."}

#define ROW_WEB                                                                             \
    {.name = "web", .metavar = "host:port", STR(web, 127), SERVER,                          \
     .flags = LP_CLI_F_SHARED | LP_CLI_F_LINKPERF,                                          \
     .help = "also serve the browser page (linkperf ui) on host:port",                      \
     .man = "Also serve linkperf ui's browser page on host:port (127.0.0.1:0 picks a free " \
            "port; the page needs the token printed with the URL), where the tests this "   \
            "server runs show live, each with its chart and text. The URL is printed on "   \
            "standard error."}

#define ROW_PERMIT_KEY_TIMEOUT(help_)                                                       \
    {.name = "permit-key-timeout", .arg = LP_CLI_ARG_NUM, .metavar = "#", .min = 1,         \
     .max = LP_MAX_DURATION_S, SERVER,                                                      \
     .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2 | LP_CLI_F_ZERO_OK,                 \
     .key = LP_CLI_K_PERMIT_KEY_TIMEOUT, .store = LP_CLI_STORE_DOUBLE,                      \
     FIELD(spec.iperf2.permit_key_timeout_s), .help = help_,                                \
     .man = "With --permit-key: stop accepting tests this many whole seconds after "        \
            "starting (iperf 2.1.8 drops the fraction too), and exit once the tests under " \
            "way end. Default 20, as 2.1.8; 0 accepts tests until stopped (the key line "   \
            "then says \"WARN: no timeout\", as 2.1.8's does)."}

/* ---- Client ---- */

#define ROW_REVERSE(help_)                                                                  \
    {.name = "reverse", .letter = 'R', CLIENT, .flags = LP_CLI_F_SHARED,                    \
     .key = LP_CLI_K_REVERSE,                                                               \
     .set = lp_cli_set_reverse, .help = help_,                                              \
     .man = "Run in reverse mode: the server sends, the client receives. With the iperf2 "  \
            "dialect this is iperf2's -R (the server sends on the client's connection)."}

#define ROW_FULL_DUPLEX(help_)                                                              \
    {.name = "full-duplex", CLIENT, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,     \
     .key = LP_CLI_K_FULL_DUPLEX, .set = lp_cli_set_bidir, .help = help_,                   \
     .man = "iperf2's --full-duplex: client and server both send, on the same "             \
            "connection(s)." LP_SPELL_DIALECT_NOTE " Excludes -R, " LP_SPELL_DUAL " and "   \
            LP_SPELL_TRADEOFF "."}

#define ROW_TRADEOFF(letter_, help_)                                                        \
    {.name = "tradeoff", .letter = (letter_), CLIENT,                                       \
     .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,                                    \
     .key = LP_CLI_K_TRADEOFF, .set = lp_cli_set_tradeoff, .help = help_,                   \
     .man = "iperf2's -r (tradeoff): like " LP_SPELL_DUAL ", but the server sends after "   \
            "the client's test has ended." LP_SPELL_DIALECT_NOTE}

#define ROW_NO_UDP_FIN(help_)                                                               \
    {.name = "no-udp-fin", CLIENT, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,      \
     .key = LP_CLI_K_NO_UDP_FIN, FLAG(spec.iperf2.no_udp_fin), .help = help_,               \
     .man = "iperf2's --no-udp-fin: end a UDP test without the final exchange with the "    \
            "server, so nothing travels back to the client (and no server report is "       \
            "shown). Needs -u." LP_SPELL_DIALECT_NOTE}

#define ROW_TRIP_TIMES(help_)                                                               \
    {.name = "trip-times", CLIENT, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,      \
     .key = LP_CLI_K_TRIP_TIMES, FLAG(spec.iperf2.trip_times), .help = help_,               \
     .man = "iperf2's --trip-times: the receiver measures one-way latency from the "        \
            "sender's timestamps, per datagram for UDP, per write for TCP (a 92-byte burst " \
            "header then starts every -l write). iperf2's text layout shows avg/min/max/"   \
            "stdev in ms per interval and in the report; for UDP the client prints them "   \
            "from the server report. Both hosts' clocks must agree (same host, or "         \
            "PTP/NTP); a server ignores the request when the client's start time is more "  \
            "than 600 s from its own clock. Not with " LP_SPELL_FILE ", " LP_SPELL_STDIN    \
            " or " LP_SPELL_COMPAT "." LP_SPELL_DIALECT_NOTE}

/* iperf2 --isochronous (video-like frames) and the gap between a frame's datagrams. */
#define ROW_IPG(help_)                                                                      \
    {.name = "ipg", .arg = LP_CLI_ARG_NUM, .metavar = "ms", .min = 0, .max = 1000, CLIENT, \
     .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2, .set = lp_cli_set_ipg,             \
     .help = help_,                                                                         \
     .man = "With --isochronous over UDP: milliseconds (fractions allowed, 0..1000) between " \
            "the datagrams of a frame; default 0, back to back. Frames still start every "  \
            "1/fps." LP_SPELL_DIALECT_NOTE}

#define ROW_ISOCHRONOUS(help_)                                                              \
    {.name = "isochronous", .arg = LP_CLI_ARG_OPTIONAL, .metavar = "fps:mean,stdev",        \
     .max = 63, CLIENT, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,                 \
     .set = lp_cli_set_isochronous, .help = help_,                                          \
     .man = "Send video-like traffic: fps frames a second (0.01..10000), each of a size "   \
            "drawn from a lognormal distribution of mean and stdev, rates in bits/s with k, " \
            "m, g or bytes/s with K, M, G (1000-based); default 60:20m,0, and it turns on "  \
            "-e as in 2.1.8. Over UDP (-u) a frame is ceil(size/-l) datagrams (the last at " \
            "least 108 bytes), --ipg apart, carrying iperf 2.1.8's frame block; a server's " \
            "rows for a client that also sent --trip-times add Frame:rx/lost (a linkperf "  \
            "server's -J carries them always), and 2.1.8 counts one frame more than it "    \
            "sends (its FINs repeat the last frame). Over TCP a frame is one burst: 2.1.8's " \
            "92-byte burst header (the frame id and size) at its start, written -l bytes at " \
            "a time (-l at least 92, no --ipg); with --trip-times the server times each "   \
            "frame's one-way latency. The client's rows add isoch:tx/miss/slip (frames "    \
            "sent, frame ids skipped because the sender was late, late starts). Not with "  \
            "-R, " LP_SPELL_DUAL ", " LP_SPELL_TRADEOFF ", --full-duplex, -b, -n, "         \
            LP_SPELL_FILE ", " LP_SPELL_STDIN ", " LP_SPELL_COMPAT " or --bounceback."      \
            LP_SPELL_DIALECT_NOTE}

/* iperf2 --bounceback and the options that shape it (2.1.8's names and units). */
#define ROW_BOUNCEBACK(help_)                                                               \
    {.name = "bounceback", .arg = LP_CLI_ARG_OPTIONAL, .metavar = "n", .max = 16, CLIENT,  \
     .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2 | LP_CLI_F_IPERF3_ECHO,             \
     .key = LP_CLI_K_BOUNCEBACK,                                                            \
     .set = lp_cli_set_bounceback, .help = help_,                                           \
     .man = "iperf2's --bounceback: TCP request/response. The client writes an -l byte "    \
            "message (default 100, at least 64) and times until the server has written "    \
            "all of it back: the round trip, hold included. n exchanges (1..1000000, "      \
            "default 10) run back to back, every --bounceback-period. Rows show the "      \
            "transfer (both directions), cnt=avg/min/max/stdev of the round trips in ms, "  \
            "retries, cwnd/RTT and responses per second (1 / mean RTT); a final line "      \
            "adds the percentiles. Against linkperf and stock iperf 2.1 servers. Not with " \
            LP_SPELL_BB_NOT_UDP "-n, " LP_SPELL_DUAL ", " LP_SPELL_TRADEOFF ", -R or --full-duplex."      \
            LP_SPELL_DIALECT_NOTE LP_SPELL_ECHO_NOTE}

#define ROW_BOUNCEBACK_MORE                                                                 \
    {.name = "bounceback-hold", .arg = LP_CLI_ARG_NUM, .metavar = "ms", .min = 0,         \
     .max = 10000, CLIENT,                                                                  \
     .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2 | LP_CLI_F_IPERF3_ECHO,             \
     .set = lp_cli_set_bounceback_hold,                                                     \
     .help = "bounceback: the server waits this many ms before it answers",                 \
     .man = "Ask the server to wait this many milliseconds (fractions allowed, 0..10000) "  \
            "before it writes each message back; the round trips include it."},            \
    {.name = "bounceback-period", .arg = LP_CLI_ARG_NUM, .metavar = "s", .min = 0,        \
     .max = 3600, CLIENT,                                                                   \
     .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2 | LP_CLI_F_IPERF3_ECHO,             \
     .set = lp_cli_set_bounceback_period,                                                   \
     .help = "bounceback: seconds between bursts (0: back to back)",                        \
     .man = "Seconds between the starts of bounceback bursts (default 1). 0 (or under "     \
            "10 us, as in iperf 2.1.8) runs the exchanges back to back for the whole test, " \
            "one per burst unless --bounceback=n says otherwise."},                        \
    {.name = "bounceback-no-quickack", CLIENT,                                              \
     .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2 | LP_CLI_F_IPERF3_ECHO,             \
     FLAG(spec.iperf2.bb.no_quickack),                                                      \
     .help = "bounceback: no TCP_QUICKACK on either end",                                   \
     .man = "Do not set TCP_QUICKACK after each write (the client) and before each hold "   \
            "(the server, which the message's flags tell); delayed ACKs then show in the "  \
            "round trips."},                                                               \
    {.name = "bounceback-congest", .arg = LP_CLI_ARG_OPTIONAL, .metavar = "up|down|bidir[,n]", \
     .max = 32, CLIENT, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,                 \
     .set = lp_cli_set_bounceback_congest,                                                  \
     .help = "bounceback: a concurrent full-duplex TCP test as the load",                   \
     .man = "iperf 2.1.8's --bounceback-congest: beside the bounceback connection, n "      \
            "(1..16, default 1) ordinary iperf2 TCP tests run for the same -t (plus "      \
            "--bounceback-txdelay) as the load the round trips are measured under: bidir "  \
            "(the default) is --full-duplex, up the client sending, down -R; with "         \
            "TCP_QUICKACK and Nagle off like the exchanges, -l byte writes, no TOS. They "  \
            "are the transfer ids after the bounceback ones, tagged (full-duplex) or "      \
            "(reverse) and (qack), with 2.1.8's -e rows of such tests (not its [FD] sums; " \
            "no [SUM] mixes them with the exchanges); -J lists them as streams beside the " \
            "bounceback one. A stock iperf 2.1 or linkperf server serves them."},          \
    {.name = "bounceback-txdelay", .arg = LP_CLI_ARG_NUM, .metavar = "s", .min = 0,        \
     .max = 3600, CLIENT, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,               \
     FIELD(spec.iperf2.bb.txdelay_s), .store = LP_CLI_STORE_DOUBLE,                         \
     .help = "bounceback: seconds to wait after connecting before the first exchange",      \
     .man = "iperf 2.1.8's --bounceback-txdelay (seconds, fractions allowed): "            \
            "the client waits this long after connecting before its first exchange, then "  \
            "runs them for -t; nothing of it is on the wire. With --bounceback-congest "    \
            "the load starts at once and runs -t plus the delay, so the exchanges see it "  \
            "already going. The rows count from the start of the test, so the first ones " \
            "carry no exchanges while the client waits."}

#define ROW_TTL(letter_, help_)                                                             \
    {.name = "ttl", .letter = (letter_), .arg = LP_CLI_ARG_INT, .metavar = "#", .min = 1,   \
     .max = 255, CLIENT, .flags = LP_CLI_F_SHARED | LP_SPELL_IMPLIES_IPERF2,                \
     .store = LP_CLI_STORE_INT,                                                             \
     FIELD(spec.iperf2.mcast_ttl), .help = help_,                                           \
     .man = "iperf2's -T: the time-to-live of UDP datagrams sent to a multicast group "     \
            "(-c 239.1.1.1 -u); the system default is 1." LP_SPELL_DIALECT_NOTE}

/* iperf2's --histograms (a server's: latency PDFs under a trip-times test's reports) and
 * 2.0.13's name for it, which 2.1.8 keeps. */
#define ROW_HISTOGRAMS                                                                      \
    {.name = "histograms", .arg = LP_CLI_ARG_OPTIONAL, .metavar = "w[u|m],bins,lo,hi",     \
     .max = 64, SERVER, .flags = LP_CLI_F_SHARED, .set = lp_cli_set_histograms,             \
     .help = "iperf2: latency histograms of --trip-times tests",                            \
     .man = "Print a latency histogram (PDF) under each report of an iperf2 --trip-times "  \
            "test, as iperf 2.1.8 does: F8 for a TCP client's bursts, T8 for UDP "          \
            "datagrams; each non-empty bin as bin:count (bins counted from 1), then the "   \
            "bins holding the lower and upper bounds and 99.7 %, the outliers and the "     \
            "samples past the last bin (obu). The argument: the bin width in microseconds " \
            "(u, the default) or milliseconds (m), 1..1000000; the number of bins, "        \
            "1..100000 (default 1000); the lower and upper bounds in percent (default 5 "   \
            "and 95). Without it, 10000 bins of 100 us. -J gives each stream's bins as "    \
            "\"pdf\" in its latency. linkperf keeps samples in its latency buckets (at "    \
            "most 1.6 % wide) and puts each bucket in the bin of its middle, so a sample "  \
            "that close to a bin edge may show in the next bin; counts are exact. The "     \
            "numbers mean something only with the client's clock in step with ours."},    \
    {.name = "udp-histograms", .arg = LP_CLI_ARG_OPTIONAL, .metavar = "w[u|m],bins,lo,hi", \
     .max = 64, SERVER, .flags = LP_CLI_F_SHARED, .set = lp_cli_set_histograms,             \
     .help = "iperf2: the same as --histograms",                                            \
     .man = "2.0.13's name of --histograms, kept by 2.1.8 (whose help spells it "           \
            "--udp-histogram, a prefix of it, which works here too)."}

#endif

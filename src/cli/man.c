/* The man page (roff, man(7) macros) generated from the option table plus fixed prose.
 * Deterministic on purpose (no build date): docs/linkperf.1 is this output, byte for byte. */
#include "cli/help.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli/buf.h"
#include "linkperf/record.h"

/* Escape text for roff: backslashes, option-like words' dashes (so they print as ASCII
 * minus and can be searched), and a leading '.' or '\'' that would read as a request. */
static void put_text(struct lp_cli_buf *b, const char *s, bool line_start)
{
    bool in_option = false;
    char prev = ' ';

    if (line_start && (*s == '.' || *s == '\''))
        lp_cli_buf_puts(b, "\\&");
    for (; *s; prev = *s, s++) {
        if (*s == ' ' || *s == '(' || *s == '"')
            in_option = false;
        if (*s == '-' && (prev == ' ' || prev == '(' || prev == '"' || prev == '/' ||
                          prev == ','))
            in_option = true;
        if (*s == '\\')
            lp_cli_buf_puts(b, "\\e");
        else if (*s == '-' && in_option)
            lp_cli_buf_puts(b, "\\-");
        else
            lp_cli_buf_append(b, s, 1);
    }
}

static void put_dashes(struct lp_cli_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '-')
            lp_cli_buf_puts(b, "\\-");
        else if (*s == '\\')
            lp_cli_buf_puts(b, "\\e");
        else
            lp_cli_buf_append(b, s, 1);
    }
}

static void option_tag(struct lp_cli_buf *b, const struct lp_cli_opt *o)
{
    lp_cli_buf_puts(b, ".TP\n");
    if (o->letter)
        lp_cli_buf_printf(b, "\\fB\\-%c\\fR, ", o->letter);
    lp_cli_buf_puts(b, "\\fB\\-\\-");
    put_dashes(b, o->name);
    lp_cli_buf_puts(b, "\\fR");
    if (o->metavar) {
        lp_cli_buf_puts(b, o->arg == LP_CLI_ARG_OPTIONAL ? "[=\\fI" : " \\fI");
        put_dashes(b, o->metavar);
        lp_cli_buf_puts(b, o->arg == LP_CLI_ARG_OPTIONAL ? "\\fR]" : "\\fR");
    }
    lp_cli_buf_puts(b, "\n");
}

/* The paragraph: the row's man text, or its help line made into a sentence; then the
 * range, so the page states exactly what the parser enforces. */
static void option_paragraph(struct lp_cli_buf *b, const struct lp_cli_opt *o)
{
    const char *text = o->man ? o->man : o->help;
    char range[64], narrow[64], first[2] = {(char)toupper((unsigned char)text[0]), '\0'};

    put_text(b, first, true);
    put_text(b, text + 1, false);
    if (text[strlen(text) - 1] != '.')
        lp_cli_buf_puts(b, ".");
    lp_cli_options_range(o, range, sizeof(range));
    if (range[0]) {
        lp_cli_buf_puts(b, " Range: ");
        put_text(b, range, false);
        lp_cli_options_narrow_range(o, narrow, sizeof(narrow));
        if (narrow[0]) {
            lp_cli_buf_puts(b, " (");
            put_text(b, narrow, false);
            put_text(b, lp_cli_options_narrow_case(o), false);
            lp_cli_buf_puts(b, ")");
        }
        lp_cli_buf_puts(b, ".");
    }
    if (o->flags & LP_CLI_F_LINKPERF)
        lp_cli_buf_puts(b, " (linkperf only.)");
    lp_cli_buf_puts(b, "\n");
}

static void section(struct lp_cli_buf *b, const struct lp_cli_table *t, enum lp_cli_mode mode,
                    bool unsupported)
{
    size_t i;

    for (i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        if (o->mode != mode || !(o->flags & LP_CLI_F_UNSUPPORTED) != !unsupported)
            continue;
        option_tag(b, o);
        option_paragraph(b, o);
    }
}

static const char head[] =
    ".SH NAME\n"
    "linkperf \\- measure TCP and UDP throughput, jitter and loss; iperf3 compatible\n"
    ".SH SYNOPSIS\n"
    ".B linkperf\n"
    "\\fB\\-s\\fR [\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf\n"
    "\\fB\\-c\\fR \\fIhost\\fR [\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf demo\n"
    "[\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf under-load\n"
    "\\fB\\-c\\fR \\fIhost\\fR [\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf rfc2544\n"
    "\\fB\\-c\\fR \\fIhost\\fR \\fB\\-b\\fR \\fIline-rate\\fR [\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf ui\n"
    "[\\fB\\-\\-listen\\fR \\fIhost:port\\fR] [\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf lwip-tune\n"
    "\\fB\\-\\-rate\\fR \\fIR\\fR \\fB\\-\\-rtt\\fR \\fIT\\fR [\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf history\n"
    "[\\fBlist\\fR|\\fBshow\\fR|\\fBexport\\fR|\\fBdelete\\fR|\\fBinfo\\fR] [\\fIoptions\\fR]\n"
    ".br\n"
    ".B linkperf\n"
    "\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR | \\fB\\-\\-man\\fR\n"
    ".br\n"
    ".B linkperf \\-\\-iperf2\n"
    "\\fB\\-s\\fR | \\fB\\-c\\fR \\fIhost\\fR [\\fIiperf2 options\\fR]\n"
    ".br\n"
    ".B linkperf2\n"
    "\\fB\\-s\\fR | \\fB\\-c\\fR \\fIhost\\fR [\\fIiperf2 options\\fR]\n"
    ".SH DESCRIPTION\n"
    "linkperf measures what a network link delivers. It speaks the iperf3 and the iperf2 "
    "protocols, so a linkperf client can test stock iperf3 and iperf2 servers and a linkperf "
    "server serves stock iperf3 and iperf2 (JPerf) clients. By default it takes iperf3's "
    "options and prints iperf3's text and JSON output; with \\fB\\-\\-iperf2\\fR, or "
    "run as \\fBlinkperf2\\fR, it takes iperf2's options and prints iperf2's output (see "
    "IPERF2 MODE).\n"
    ".PP\n"
    "Run one end as a server (\\fB\\-s\\fR) and the other as a client "
    "(\\fB\\-c\\fR \\fIhost\\fR). By default the client sends TCP data to the server for "
    "10 seconds and both ends report the throughput every second.\n"
    ".PP\n"
    "\\fBlinkperf demo\\fR starts a server on 127.0.0.1 inside the same process, on a "
    "free port, and runs a 5 second TCP test and then a 5 second UDP test at 100 Mbit/s "
    "against it, printing the client side. General options such as \\fB\\-f\\fR, "
    "\\fB\\-i\\fR and \\fB\\-J\\fR apply to its output.\n"
    ".PP\n"
    "Sizes (\\fB\\-n\\fR, \\fB\\-k\\fR, \\fB\\-l\\fR, \\fB\\-w\\fR) take 1024-based "
    "K, M, G and T suffixes (256K is 262144); rates (\\fB\\-b\\fR, \\fB\\-\\-fq\\-rate\\fR) "
    "take 1000-based ones (10M is 10000000). Long options may be abbreviated to any "
    "unambiguous prefix and take their argument as \\fB\\-\\-opt value\\fR or "
    "\\fB\\-\\-opt=value\\fR.\n"
    ".SS Servers and dialects\n"
    "A server started without \\fB\\-p\\fR listens on ports 5201 and 5001, TCP and UDP, "
    "and tells each connection's dialect (iperf3 or iperf2) from what the client sends "
    "first; with \\fB\\-p\\fR it listens on that port only.\n"
    ".PP\n"
    "A client speaks iperf3 unless it is given \\fB\\-\\-dialect iperf2\\fR or an "
    "option that exists only in iperf2: \\fB\\-\\-dual\\fR, \\fB\\-\\-tradeoff\\fR, "
    "\\fB\\-\\-full\\-duplex\\fR, \\fB\\-\\-compat\\fR, \\fB\\-\\-listen\\-port\\fR, "
    "\\fB\\-\\-no\\-udp\\-fin\\fR, \\fB\\-\\-ttl\\fR or \\fB\\-\\-stdin\\fR. "
    "\\fB\\-F\\fR, which iperf3 has too, needs \\fB\\-\\-dialect iperf2\\fR given. "
    "Speaking iperf2, the client connects to port 5001 unless \\fB\\-p\\fR says "
    "otherwise, sends 1470-byte UDP datagrams unless \\fB\\-l\\fR says otherwise, takes "
    "\\fB\\-R\\fR as iperf2's reverse test and \\fB\\-\\-bidir\\fR as "
    "\\fB\\-\\-full\\-duplex\\fR, and refuses the iperf3 protocol features "
    "\\fB\\-O\\fR, \\fB\\-k\\fR, \\fB\\-\\-get\\-server\\-output\\fR, "
    "\\fB\\-\\-extra\\-data\\fR, \\fB\\-\\-udp\\-counters\\-64bit\\fR and "
    "\\fB\\-\\-repeating\\-payload\\fR. The output keeps the default layout "
    "(iperf3 text, \\fB\\-J\\fR or \\fB\\-\\-csv\\fR).\n";

static const char iperf2_intro[] =
    ".SH IPERF2 MODE\n"
    "\\fBlinkperf \\-\\-iperf2\\fR (the switch may stand anywhere on the line), or the "
    "same program run as \\fBlinkperf2\\fR (the build makes that symbolic link), reads "
    "the command line with iperf 2.1.8's option letters and meanings, speaks the iperf2 "
    "protocol as a client and prints iperf2's text layout, or its comma-separated lines "
    "with \\fB\\-y C\\fR. So does any name iperf2 goes by: a link (or a copy) named "
    "\\fBiperf\\fR, \\fBiperf.exe\\fR or \\fBiperf2\\fR, any name that starts with "
    "iperf but not iperf3, makes linkperf the \\fBiperf\\fR that JPerf runs; named "
    "\\fBiperf3\\fR it is in iperf3 mode. Making such a link is left to you (ln \\-s "
    "linkperf iperf in a directory before the stock one on PATH); the build never replaces "
    "an installed iperf. There \\fB\\-v\\fR prints iperf 2.1.8's one line on standard "
    "error, \\fBiperf version 2.1.8 (linkperf ...) pthreads\\fR, whose third word JPerf "
    "reads as the version.\n"
    ".PP\n"
    "Numbers take iperf2's suffixes: k, m and g are 1000-based, K, M and G 1024-based, for "
    "\\fB\\-b\\fR, \\fB\\-l\\fR, \\fB\\-n\\fR and \\fB\\-w\\fR alike "
    "(10m is 10000000, 10M is 10485760); \\fB\\-t\\fR and \\fB\\-i\\fR take "
    "fractions. The defaults are iperf2's: port 5001, 128 KByte TCP writes, 1470-byte UDP "
    "datagrams (1450 for an IPv6 client), 1048576 bit/s for UDP, no interval reports, "
    "\\fB\\-f a\\fR.\n"
    ".PP\n"
    "Several letters mean something else than in iperf3: \\fB\\-V\\fR is IPv6, "
    "\\fB\\-T\\fR the multicast TTL, \\fB\\-d\\fR the dual test, \\fB\\-C\\fR "
    "compatibility, \\fB\\-I\\fR standard input, \\fB\\-L\\fR the port for "
    "\\fB\\-d\\fR and \\fB\\-r\\fR, \\fB\\-x\\fR excludes reports, "
    "\\fB\\-Z\\fR the congestion control. On a server \\fB\\-c\\fR \\fIhost\\fR "
    "limits the clients (JPerf's \\(lqClient Limit\\(rq), \\fB\\-P\\fR \\fIn\\fR "
    "exits after \\fIn\\fR tests (JPerf's \\(lqNum Connections\\(rq) and "
    "\\fB\\-t\\fR \\fIn\\fR stops the server after \\fIn\\fR seconds. A server "
    "without \\fB\\-p\\fR listens on 5001 and also on 5201, serving iperf3 clients too.\n"
    ".PP\n"
    "As in iperf2, at most one of \\fB\\-d\\fR, \\fB\\-r\\fR, \\fB\\-R\\fR and "
    "\\fB\\-\\-full\\-duplex\\fR may be given, none of them with \\fB\\-C\\fR; "
    "\\fB\\-Z\\fR cannot be combined with \\fB\\-R\\fR, a pps rate and "
    "\\fB\\-\\-no\\-udp\\-fin\\fR need \\fB\\-u\\fR. Where iperf2 warns and "
    "carries on (a bad \\fB\\-y\\fR, \\fB\\-x\\fR or \\fB\\-S\\fR value, "
    "\\fB\\-s\\fR and \\fB\\-c\\fR in the \\(lqwrong\\(rq order), linkperf stops "
    "with a message or does what was meant.\n";

static const char tail[] =
    ".SH DIFFERENCES FROM IPERF3\n"
    ".IP \\(bu 2\n"
    "A linkperf server runs many tests at once (up to \\fB\\-\\-max\\-tests\\fR) on a fixed "
    "pool of worker threads (\\fB\\-\\-threads\\fR). A stock iperf3 server serves one test "
    "at a time and tells other clients it is busy. Each test's output is printed as its "
    "records arrive, so the lines of concurrent tests interleave; with \\fB\\-J\\fR each "
    "test prints its own document.\n"
    ".IP \\(bu 2\n"
    "The server prints both the sender and the receiver rows of a test's summary, not "
    "only its own side.\n"
    ".IP \\(bu 2\n"
    "\\fB\\-t 0\\fR runs until interrupted. \\fB\\-p 0\\fR on a server listens on any "
    "free port. \\fB\\-i\\fR accepts 0 to turn interval reports off.\n"
    ".IP \\(bu 2\n"
    "Values are checked strictly: a malformed or out-of-range value, an option given to "
    "the wrong role, or an option iperf3 has but linkperf does not is an error that "
    "names the option, with exit status 2.\n"
    ".IP \\(bu 2\n"
    "On SIGINT, SIGTERM or SIGHUP a client stops, prints the partial results and exits "
    "0, like iperf3 3.19 and later; a second SIGINT exits at once.\n"
    ".IP \\(bu 2\n"
    "A server limits what a stranger can make it send. An iperf2 UDP request has no "
    "handshake, so its source may be spoofed: UDP that the server sends back (-R, "
    "--full-duplex, the -d/-r legs) goes in full only to a client that is on loopback or "
    "made a TCP connection to the server in the last 10 minutes; to any other it stops "
    "after 8 datagrams plus twice what that client sent (a -d or full-duplex test, which "
    "sends as much as it asks for, runs whole), with a line saying why. A UDP sender stops "
    "when the client's port answers with ICMP port unreachable, a -d/-r leg to one of the "
    "server's own ports is refused, and iperf2 UDP tests hold at most half of --max-tests "
    "(those of clients not proven a quarter), so TCP and iperf3 clients always find a slot. "
    "A UDP test that has received only its first datagram, or whose client is not proven, "
    "ends after 10 s of silence, loopback included (not --rcv-timeout's 120 s).\n"
    ".SH LATENCY AND EQUIPMENT TESTS\n"
    "\\fB\\-\\-bounceback\\fR (an iperf2 option; in the iperf3 spelling it implies "
    "\\-\\-dialect iperf2) times TCP request/response round trips, wire-compatible with "
    "iperf 2.1.8 both ways; rows show cnt=avg/min/max/stdev, and a final line the percentiles. "
    "\\-J has p50, p90, p99 and p99.9 of every latency linkperf measures, with the histogram "
    "(buckets at most 1.6 % wide).\n"
    ".PP\n"
    "A server given \\fB\\-\\-histograms\\fR prints iperf 2.1.8's latency histograms of "
    "\\-\\-trip-times tests: under each report row an F8 (TCP bursts) or T8 (UDP datagrams) "
    "line of bin:count pairs, with the bins holding the bounds; \\-J carries the same bins per "
    "stream. One-way latency needs the client's and the server's clocks in step (PTP, or one "
    "host).\n"
    ".PP\n"
    "\\fBlinkperf under-load \\-c\\fR \\fIhost\\fR [\\fB\\-p\\fR \\fIport\\fR] "
    "[\\fB\\-P\\fR \\fIstreams\\fR] [\\fB\\-t\\fR \\fIseconds\\fR] "
    "[\\fB\\-C\\fR \\fIalgo\\fR] [\\fB\\-\\-probe\\fR tcp|udp] [\\fB\\-J\\fR] measures latency under load: a "
    "100-byte bounceback round trip every 10 ms while the link is idle, then while N TCP streams "
    "(default 8) load it up, down and both ways, 10 s a phase, against a linkperf or stock iperf "
    "2.1 server; it reports each phase's throughput, its round-trip percentiles and what the "
    "load added to the idle ones. \\fB\\-\\-probe udp\\fR sends the probes as 64-byte UDP "
    "echoes instead (no TCP queue of their own to wait behind); only a linkperf server answers "
    "them.\n"
    ".PP\n"
    "\\fBlinkperf rfc2544 \\-c\\fR \\fIhost\\fR \\fB\\-b\\fR \\fIline-rate\\fR "
    "[\\fB\\-\\-dialect\\fR iperf3|iperf2] [\\fB\\-\\-frames\\fR \\fIlist\\fR] "
    "[\\fB\\-\\-trial\\fR \\fIs\\fR] [\\fB\\-\\-resolution\\fR \\fIpct\\fR] "
    "[\\fB\\-\\-max-time\\fR \\fIs\\fR] [\\fB\\-\\-tests\\fR \\fIlist\\fR] "
    "[\\fB\\-J\\fR] runs RFC 2544's throughput (the highest rate a trial passes with no frame "
    "lost, per Ethernet frame size 64 to 1518), latency at that rate (round trips; iperf2 "
    "servers), frame loss rate (100 % of the line rate down in 10 % steps) and back-to-back "
    "(the longest burst at line rate that arrives whole). Each trial is an ordinary UDP test "
    "with the frame's payload (frame \\- 46 bytes over IPv4), so any server linkperf tests "
    "will do; progress goes to standard error. Each subcommand's \\-\\-help lists its "
    "options.\n"
    ".SH OTHER SUBCOMMANDS\n"
    "\\fBlinkperf ui\\fR serves the browser GUI (every JPerf control, live per-stream charts, "
    "the history, RFC 2544 and under-load runs) on 127.0.0.1:8080 or \\fB\\-\\-listen\\fR, with a "
    "token in its URL.\n"
    ".PP\n"
    "\\fBlinkperf lwip-tune \\-\\-rate\\fR \\fIR\\fR \\fB\\-\\-rtt\\fR \\fIT\\fR [\\fB\\-\\-ram\\fR "
    "\\fIN\\fR [\\fB\\-\\-fit\\fR]] [\\fB\\-\\-mss\\fR \\fIN\\fR] [\\fB\\-\\-cpu-mhz\\fR \\fIF\\fR] "
    "prints lwipopts.h values for an lwIP board's link (the round-trip time with its unit: "
    "2ms, 500us, 0.002s), each with its reason, and warns when the RAM cannot hold the window "
    "the link needs; the Ethernet DMA descriptor counts it advises are printed as the "
    "driver's settings, where STM32Cube, the Xilinx lwIP BSP and NXP's enet driver keep "
    "them. With \\fB\\-\\-window\\fR \\fIW\\fR and/or \\fB\\-\\-snd-buf\\fR \\fIS\\fR (bytes, "
    "or segments as 8mss) it states what that configuration delivers each way and the pools "
    "it needs.\n"
    ".PP\n"
    "\\fBlinkperf history\\fR lists the runs recorded (see FILES); \\fBshow\\fR \\fIid\\fR "
    "prints one with its intervals, \\fBexport\\fR \\fIid\\fR its iperf3 \\-J document "
    "(\\fB\\-\\-csv\\fR: its intervals), \\fBdelete\\fR \\fIid\\fR... removes runs, \\fBinfo\\fR "
    "says where the history is and its size (the newest runs are kept within 64 MiB, LINKPERF_HISTORY_MAX, and 20000 runs). The "
    "run that creates the history says so once; \\fB\\-\\-no\\-history\\fR or "
    "LINKPERF_NO_HISTORY=1 records nothing.\n"
    ".SH EXIT STATUS\n"
    ".TP\n"
    ".B 0\n"
    "The test ran (client); or the user interrupted the client (SIGINT, SIGTERM, SIGHUP) and "
    "it printed the partial results; or the server was stopped normally.\n"
    ".TP\n"
    ".B 1\n"
    "The test failed, or the server could not run.\n"
    ".TP\n"
    ".B 2\n"
    "The command line is invalid; a one-line message on standard error says why.\n"
    ".SH EXAMPLES\n"
    ".TP\n"
    ".B linkperf \\-s\n"
    "Serve tests on ports 5201 and 5001, to iperf3 and iperf2 clients alike.\n"
    ".TP\n"
    ".B linkperf \\-c 192.0.2.1 \\-t 30 \\-P 4\n"
    "Send TCP to 192.0.2.1 for 30 seconds over four streams.\n"
    ".TP\n"
    ".B linkperf \\-c 192.0.2.1 \\-u \\-b 100M \\-R\n"
    "Let the server send UDP at 100 Mbit/s; report jitter and loss.\n"
    ".TP\n"
    ".B linkperf \\-c 192.0.2.1 \\-\\-bidir \\-J\n"
    "Send in both directions at once and print a JSON document.\n"
    ".TP\n"
    ".B linkperf demo\n"
    "Try it out on this machine.\n"
    ".TP\n"
    ".B linkperf \\-c 192.0.2.1 \\-\\-dialect iperf2 \\-u \\-b 10M\n"
    "Test a stock iperf2 server (port 5001) with UDP at 10 Mbit/s, iperf3 output.\n"
    ".TP\n"
    ".B linkperf2 \\-c 192.0.2.1 \\-u \\-b 10m \\-i 1\n"
    "The same with iperf2's spelling and output.\n"
    ".TP\n"
    ".B linkperf2 \\-s \\-c 10.0.0.0/8 \\-P 5\n"
    "Serve only clients in 10.0.0.0/8 and exit after five tests.\n"
    ".TP\n"
    ".B linkperf2 \\-c 192.0.2.1 \\-\\-bounceback \\-\\-bounceback\\-hold 1\n"
    "Ten 100-byte round trips a second, the server holding each for 1 ms, as iperf 2.1.8 does.\n"
    ".TP\n"
    ".B linkperf2 \\-c 192.0.2.1 \\-\\-bounceback \\-\\-bounceback\\-congest \\-t 10\n"
    "The same round trips while a full-duplex TCP test loads the link, as iperf 2.1.8 does.\n"
    ".TP\n"
    ".B linkperf \\-c 192.0.2.1 \\-\\-bounceback \\-\\-dialect iperf3\n"
    "The round trips over the iperf3 protocol (linkperf's timed echo; a linkperf server answers, "
    "stock iperf3 has no echo mode).\n"
    ".TP\n"
    ".B linkperf \\-c 192.0.2.1 \\-u \\-\\-bounceback \\-t 10\n"
    "UDP round trips: a 64-byte probe every 10 ms, echoed by a linkperf server; round-trip "
    "percentiles and the probes lost.\n"
    ".TP\n"
    ".B linkperf2 \\-s \\-\\-histograms\n"
    "A server that prints iperf 2.1.8's latency histograms for clients using \\-\\-trip\\-times.\n"
    ".TP\n"
    ".B linkperf under-load \\-c 192.0.2.1 \\-C cubic\n"
    "The latency a full upload, download and both add (the bufferbloat number).\n"
    ".TP\n"
    ".B linkperf rfc2544 \\-c 192.0.2.1 \\-b 100m \\-\\-trial 10\n"
    "RFC 2544 through a Fast Ethernet device, 10 s trials.\n"
    ".SH FILES\n"
    ".TP\n"
    ".I ~/.local/share/linkperf/history.db\n"
    "The run history (\\-\\-db, \\-\\-no\\-history; under $XDG_DATA_HOME when it is set).\n"
    ".TP\n"
    ".I /lib/systemd/system/linkperf.service\n"
    "The server as a system service (\\fBsystemctl enable \\-\\-now linkperf\\fR; "
    "PREFIX/lib/systemd/system from make install): linkperf \\-s as a dynamic user in a "
    "sandbox, its history in /var/lib/linkperf/history.db. Installed, not enabled.\n"
    ".TP\n"
    ".I /usr/share/bash\\-completion/completions/linkperf\n"
    ".TQ\n"
    ".I /usr/share/zsh/vendor\\-completions/_linkperf\n"
    "Shell completion, written by the hidden \\fBlinkperf \\-\\-completion bash\\fR|"
    "\\fBzsh\\fR from the option tables (PREFIX/share/zsh/site\\-functions from make "
    "install).\n"
    ".SH SEE ALSO\n"
    ".BR iperf3 (1),\n"
    ".BR iperf (1)\n";

char *lp_cli_man_page(const struct lp_cli_table *t, const struct lp_cli_table *t2)
{
    struct lp_cli_buf b = {0};

    lp_cli_buf_printf(&b, ".\\\" Generated by 'linkperf --man' from src/cli/options.c, "
                          "options2.c and options_rows.h; do not edit.\n"
                          ".TH LINKPERF 1 \"\" \"%s\" \"User Commands\"\n",
                      LP_VERSION_STR);
    lp_cli_buf_puts(&b, head);
    lp_cli_buf_puts(&b, ".SH GENERAL OPTIONS\n");
    section(&b, t, LP_CLI_MODE_GENERAL, false);
    lp_cli_buf_puts(&b, ".SH SERVER OPTIONS\n");
    section(&b, t, LP_CLI_MODE_SERVER, false);
    lp_cli_buf_puts(&b, ".SH CLIENT OPTIONS\n");
    section(&b, t, LP_CLI_MODE_CLIENT, false);
    lp_cli_buf_puts(&b, ".SH UNSUPPORTED IPERF3 OPTIONS\n"
                        "linkperf recognises these iperf3 options and refuses them with a "
                        "message saying so (exit status 2), rather than calling them "
                        "unknown.\n");
    section(&b, t, LP_CLI_MODE_GENERAL, true);
    section(&b, t, LP_CLI_MODE_SERVER, true);
    section(&b, t, LP_CLI_MODE_CLIENT, true);
    lp_cli_buf_puts(&b, iperf2_intro);
    lp_cli_buf_puts(&b, ".SS Client/Server options (iperf2 mode)\n");
    section(&b, t2, LP_CLI_MODE_GENERAL, false);
    lp_cli_buf_puts(&b, ".SS Server options (iperf2 mode)\n");
    section(&b, t2, LP_CLI_MODE_SERVER, false);
    lp_cli_buf_puts(&b, ".SS Client options (iperf2 mode)\n");
    section(&b, t2, LP_CLI_MODE_CLIENT, false);
    lp_cli_buf_puts(&b, ".SS Unsupported iperf2 options\n"
                        "Refused with a message saying so (exit status 2).\n");
    section(&b, t2, LP_CLI_MODE_GENERAL, true);
    section(&b, t2, LP_CLI_MODE_SERVER, true);
    section(&b, t2, LP_CLI_MODE_CLIENT, true);
    lp_cli_buf_puts(&b, tail);
    return lp_cli_buf_take(&b);
}

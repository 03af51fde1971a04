/* Every row of the iperf2-spelling table (linkperf --iperf2, linkperf2): a valid value lands
 * in the right field, bad values give the expected one-line error naming the option, and
 * every iperf2 option linkperf lacks is refused as such. A row without a case here fails. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli_cases.h"

CHECK(bandwidth, c->spec.rate_bps == 10485760 && c->spec.proto == LP_PROTO_UDP)
CHECK(trust_udp, strcmp(c->spec.trust_udp, "10.0.0.7") == 0)
CHECK(enhanced, c->spec.report.enhanced && c->fmt.enhanced)
CHECK(format, c->fmt.unit == 'B')
CHECK(interval, c->spec.report.interval_s == 0.5)
CHECK(len, c->spec.blksize == 8000)
CHECK(print_mss, c->spec.report.print_mss && c->fmt.print_mss)
CHECK(output, strcmp(c->logfile, "/tmp/lp2.log") == 0)
CHECK(db, strcmp(c->db, "/tmp/lp2-history.db") == 0)
CHECK(web, strcmp(c->web, "127.0.0.1:8081") == 0)
CHECK(no_history, c->no_history)
CHECK(port, c->spec.port == 5003 && c->spec.port2 == 0)
CHECK(udp, c->spec.proto == LP_PROTO_UDP && c->spec.blksize == 1470 &&
               c->spec.rate_bps == 1048576)
CHECK(window, c->spec.window_bytes == 256000)
CHECK(bind, strcmp(c->spec.bind_addr, "192.168.1.1") == 0 && c->spec.cport == 6001 &&
                strcmp(c->spec.bind_dev, "eth0") == 0)
CHECK(compatibility, c->spec.iperf2.compat)
CHECK(mss, c->spec.mss == 1400 && c->spec.report.print_mss)
CHECK(nodelay, c->spec.nodelay)
CHECK(tos, c->spec.tos == 0xb8)
CHECK(tcp_congestion, strcmp(c->spec.congestion, "bbr") == 0)
CHECK(ipv6_domain, c->spec.family == LP_FAMILY_INET6)
CHECK(ipv4, c->spec.family == LP_FAMILY_INET)
CHECK(ipv6, c->spec.family == LP_FAMILY_INET6)
CHECK(reportexclude, strcmp(c->fmt.exclude, "CSV") == 0)
CHECK(reportstyle, c->csv && c->iperf2)
CHECK(parallel, c->spec.streams == 4)
CHECK(time, c->spec.duration_s == 2.5)
CHECK(client, c->spec.role == LP_ROLE_CLIENT && strcmp(c->spec.host, "::1") == 0 &&
                  c->spec.dialect == LP_DIALECT_IPERF2 && c->spec.port == 5001)
CHECK(help, c->action == LP_CLI_ACTION_HELP && c->iperf2)
CHECK(version, c->action == LP_CLI_ACTION_VERSION && c->iperf2)
CHECK(man, c->action == LP_CLI_ACTION_MAN)
CHECK(iperf2, c->iperf2)
CHECK(csv_header, c->csv && c->fmt.csv_header)
CHECK(csv_latency, c->csv && c->fmt.csv_latency)
CHECK(threads, c->spec.threads == 3)
CHECK(copy, c->spec.copy)
CHECK(debug, c->debug == 4 && c->spec.report.debug == 4)
CHECK(server, c->spec.role == LP_ROLE_SERVER && c->spec.port == 5001 && c->spec.port2 == 5201)
CHECK(singleclient, c->spec.max_tests == 1)
CHECK(daemon, c->daemon)
CHECK(max_tests, c->spec.max_tests == 9)
CHECK(dualtest, c->spec.iperf2.dual && c->spec.dir == LP_DIR_FORWARD)
CHECK(tradeoff, c->spec.iperf2.tradeoff)
CHECK(num, c->spec.bytes == 1500 && c->spec.duration_s == 0)
CHECK(file_input, strcmp(c->spec.iperf2.file, "/etc/hostname") == 0)
CHECK(stdin_input, c->spec.iperf2.from_stdin)
CHECK(listenport, c->spec.iperf2.listen_port == 6002)
CHECK(reverse, c->spec.dir == LP_DIR_REVERSE)
CHECK(full_duplex, c->spec.dir == LP_DIR_BIDIR)
CHECK(no_udp_fin, c->spec.iperf2.no_udp_fin)
CHECK(bounceback, c->spec.iperf2.bb.on && c->spec.iperf2.bb.burst == 5 && c->spec.blksize == 100 &&
                      c->spec.iperf2.bb.period_s == 1.0 && c->spec.nodelay && c->spec.report.enhanced &&
                      c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(histograms, c->spec.iperf2.hist.on && c->fmt.enhanced && c->spec.iperf2.hist.bin_width == 1 && c->spec.iperf2.hist.unit_ms &&
                      c->spec.iperf2.hist.bins == 100 && c->spec.iperf2.hist.ci_lower == 1 &&
                      c->spec.iperf2.hist.ci_upper == 99.9)
CHECK(udp_histograms, c->spec.iperf2.hist.on && c->spec.iperf2.hist.bin_width == 10 && !c->spec.iperf2.hist.unit_ms &&
                          c->spec.iperf2.hist.bins == 50 && c->spec.iperf2.hist.ci_lower == 5 &&
                          c->spec.iperf2.hist.ci_upper == 95)
CHECK(bounceback_hold, c->spec.iperf2.bb.hold_us == 1500 && c->spec.iperf2.bb.burst == 10)
CHECK(bounceback_period, c->spec.iperf2.bb.period_s == 0 && c->spec.iperf2.bb.burst == 1)
CHECK(bounceback_no_quickack, c->spec.iperf2.bb.no_quickack && c->spec.blksize == 64)
CHECK(bounceback_congest, c->spec.iperf2.bb.congest == 3 && c->spec.iperf2.bb.congest_dir == LP_DIR_REVERSE &&
                              c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(bounceback_txdelay, c->spec.iperf2.bb.txdelay_s == 0.5 && c->spec.iperf2.bb.congest == 1 &&
                              c->spec.iperf2.bb.congest_dir == LP_DIR_BIDIR)
CHECK(trip_times, c->spec.iperf2.trip_times)
CHECK(ttl, c->spec.iperf2.mcast_ttl == 32)
CHECK(permit_key, strcmp(c->spec.iperf2.permit_key, "secretkey") == 0)
CHECK(permit_key_timeout, strcmp(c->spec.iperf2.permit_key, "abcd") == 0 &&
                              c->spec.iperf2.permit_key_timeout_s == 7)
CHECK(fq_rate, c->spec.fq_rate_bps == 8000000ull) /* 1M = 1000000 bytes/s, as 2.1.8 */
CHECK(isochronous, c->spec.iperf2.isoch.on && c->spec.iperf2.isoch.fps == 30 &&
                       c->spec.iperf2.isoch.mean_bps == 5e6 && c->spec.iperf2.isoch.stdev_bps == 8e5 &&
                       c->fmt.enhanced)
CHECK(ipg, c->spec.iperf2.isoch.ipg_s == 0.0005)

#define NOT_SUPPORTED(n, flag, ...)                                                        \
    {.name = n, .bad = {{{__VA_ARGS__, NULL},                                              \
                         "option " flag " is an iperf2 option that linkperf does not support"}}}

static const struct opt_case cases[] = {
    /* ---- Client/Server ---- */
    {"bandwidth", {"-c", "h", "-u", "-b", "10M"}, check_bandwidth,
     {{{"-c", "h", "-b", "10X"}, "option -b/--bandwidth: '10X' is not a number with an optional "
                                 "k, m, g (1000-based) or K, M, G (1024-based) suffix"},
      {{"-c", "h", "-b", "2000g"}, "option -b/--bandwidth: 2000g is out of range (0..1000g)"},
      {{"-c", "h", "-u", "-b", "10m,1m"},
       "option -b/--bandwidth: a variable load (MEAN,STDEV) is not supported"},
      {{"-s", "-b", "10m"}, "option -b/--bandwidth: a server's read rate limit is not "
                            "supported"}}},
    {"enhanced", {"-c", "h", "-e"}, check_enhanced,
     {{{"-c", "h", "--enhanced=1"}, "option -e/--enhanced takes no argument"}}},
    {"format", {"-c", "h", "-f", "B"}, check_format,
     {{{"-c", "h", "-f", "x"}, "option -f/--format: 'x' is not a format (one of a b k m g t "
                               "A B K M G T)"},
      {{"-c", "h", "-f", "mm"}, "option -f/--format: 'mm' is not a format (one of a b k m g t "
                                "A B K M G T)"}}},
    {"interval", {"-c", "h", "-i", "0.5"}, check_interval,
     {{{"-c", "h", "-i", "0.001"}, "option -i/--interval: 0.001 is out of range (0 or "
                                   "0.01..3600)"},
      {{"-c", "h", "-i", "f"}, "option -i/--interval: 'f' is not a number"}}},
    {"len", {"-c", "h", "-l", "8k"}, check_len,
     {{{"-c", "h", "-l", "2G"}, "option -l/--len: 2G is out of range (1..2147483647)"},
      {{"-c", "h", "-u", "-l", "10"}, "option -l/--len: 10 is out of range (16..65507) for "
                                      "UDP"},
      {{"-c", "h", "-l", "1T"}, "option -l/--len: '1T' is not a number with an optional k, m, "
                                "g (1000-based) or K, M, G (1024-based) suffix"}}},
    {"print_mss", {"-c", "h", "-m"}, check_print_mss,
     {{{"-c", "h", "--print_mss=1"}, "option -m/--print_mss takes no argument"}}},
    {"db", {"-c", "h", "--db", "/tmp/lp2-history.db"}, check_db,
     {{{"-c", "h", "--db"}, "option --db needs an argument"}}},
    {"web", {"-s", "--web", "127.0.0.1:8081"}, check_web,
     {{{"-s", "--web"}, "option --web needs an argument"}}},
    {"no-history", {"-s", "--no-history"}, check_no_history,
     {{{"-s", "--no-history=x"}, "option --no-history takes no argument"}}},
    {"output", {"-s", "-o", "/tmp/lp2.log"}, check_output,
     {{{"-s", "-o"}, "option -o/--output needs an argument"}}},
    {"port", {"-s", "-p", "5003"}, check_port,
     {{{"-c", "h", "-p", "5001-5003"}, "option -p/--port: port ranges such as '5001-5003' "
                                       "are not supported"},
      {{"-c", "h", "-p", "0"}, "option -p/--port: 0 is out of range (1..65535) for a client"},
      {{"-c", "h", "-p", "70000"}, "option -p/--port: 70000 is out of range (0..65535)"}}},
    {"udp", {"-c", "h", "-u"}, check_udp,
     {{{"-c", "h", "--udp=1"}, "option -u/--udp takes no argument"}}},
    {"window", {"-c", "h", "-w", "256k"}, check_window,
     {{{"-c", "h", "-w", "2G"}, "option -w/--window: 2G is out of range (0..2147483647)"},
      {{"-c", "h", "-w", "56.0KX"}, "option -w/--window: '56.0KX' is not a number with an "
                                    "optional k, m, g (1000-based) or K, M, G (1024-based) "
                                    "suffix"}}},
    {"bind", {"-c", "h", "-B", "192.168.1.1:6001%eth0"}, check_bind,
     {{{"-c", "h", "-B", "10.0.0.1:0"}, "option -B/--bind: port '0' is not 1..65535"},
      {{"-c", "h", "-B", "[::1"}, "option -B/--bind: '[::1' is not [IPv6 address] or "
                                  "[IPv6 address]:port"},
      {{"-s", "-B", "10.0.0.1:5001"}, "option -B/--bind: a :port after the address is for a "
                                      "client; a server listens on -p"},
      {{"-c", "h", "-B", ":80"}, "option -B/--bind: the host is empty"}}},
    {"compatibility", {"-c", "h", "-C"}, check_compatibility,
     {{{"-c", "h", "-C", "-d"}, "options -C/--compatibility and -d/--dualtest cannot be used "
                                "together"},
      {{"-c", "h", "-r", "-C"}, "options -C/--compatibility and -r/--tradeoff cannot be used "
                                "together"},
      {{"-c", "h", "-C", "-R"}, "options -C/--compatibility and -R/--reverse cannot be used "
                                "together"},
      {{"-c", "h", "-C", "--full-duplex"}, "options -C/--compatibility and --full-duplex "
                                           "cannot be used together"}}},
    {"mss", {"-c", "h", "-M", "1400"}, check_mss,
     {{{"-c", "h", "-M", "40"}, "option -M/--mss: 40 is out of range (0 or 88..32767)"},
      {{"-c", "h", "-M", "32.0K"}, "option -M/--mss: 32.0K is out of range (0 or 88..32767)"},
      {{"-c", "h", "-M", "1.0T"}, "option -M/--mss: '1.0T' is not a number with an optional k, "
                                  "m, g (1000-based) or K, M, G (1024-based) suffix"}}},
    {"nodelay", {"-s", "-N"}, check_nodelay,
     {{{"-c", "h", "--nodelay=x"}, "option -N/--nodelay takes no argument"}}},
    {"tos", {"-c", "h", "-S", "ac_vo"}, check_tos,
     {{{"-c", "h", "-S", "256"}, "option -S/--tos: 256 is out of range (0..255)"},
      {{"-c", "h", "-S", "va"}, "option -S/--tos: 'va' is not a TOS value (0..255 or a name: "
                                "af11..af43, cs0..cs7, ef, le, nqb, nqb2, ac_be, ac_bk, ac_vi, "
                                "ac_vo, lowdelay, throughput, reliability, none)"}}},
    {"tcp-congestion", {"-c", "h", "-Z", "bbr"}, check_tcp_congestion,
     {{{"-c", "h", "-Z", "bbr", "-R"}, "options -Z/--tcp-congestion and -R/--reverse cannot "
                                       "be used together"},
      {{"-c", "h", "-Z", s16}, "option -Z/--tcp-congestion: value is too long (at most 15 "
                               "characters)"}}},
    {"ipv6_domain", {"-s", "-V"}, check_ipv6_domain,
     {{{"-c", "h", "--ipv6_domain=1"}, "option -V/--ipv6_domain takes no argument"}}},
    {"ipv4", {"-c", "h", "-4"}, check_ipv4,
     {{{"-c", "h", "--ipv4=1"}, "option -4/--ipv4 takes no argument"}}},
    {"ipv6", {"-c", "h", "-6"}, check_ipv6,
     {{{"-c", "h", "--ipv6=1"}, "option -6/--ipv6 takes no argument"}}},
    {"reportexclude", {"-c", "h", "-x", "csvC"}, check_reportexclude,
     {{{"-c", "h", "-x", "CQ"}, "option -x/--reportexclude: 'Q' is not a report type (letters "
                                "C D M S V)"},
      {{"-c", "h", "-x", "CDMSVCDM"}, "option -x/--reportexclude: value is too long (at most "
                                      "7 characters)"}}},
    {"reportstyle", {"-c", "h", "-y", "C"}, check_reportstyle,
     {{{"-c", "h", "-y", "X"}, "option -y/--reportstyle: 'X' is not a report style (C, for "
                               "CSV)"},
      {{"-c", "h", "-y", "Cx"}, "option -y/--reportstyle: 'Cx' is not a report style (C, for "
                                "CSV)"}}},
    {"parallel", {"-c", "h", "-P", "4"}, check_parallel,
     {{{"-c", "h", "-P", "0"}, "option -P/--parallel: 0 is out of range (1..128) for a client"},
      {{"-c", "h", "-P", "129"}, "option -P/--parallel: 129 is out of range (1..128) for a "
                                 "client"},
      {{"-s", "-P", "1000001"}, "option -P/--parallel: 1000001 is out of range "
                                "(0..1000000)"}}},
    {"time", {"-c", "h", "-t", "2.5"}, check_time,
     {{{"-c", "h", "-t", "-1"}, "option -t/--time: -1 is out of range (0 or 0.01..86400)"},
      {{"-c", "h", "-t", "1.5x"}, "option -t/--time: '1.5x' is not a number"},
      {{"-c", "h", "-t", "5", "-n", "1M"}, "only one test end condition may be given (-t or "
                                           "-n)"}}},
    {"client", {"-c", "[::1]"}, check_client,
     {{{"-c"}, "option -c/--client needs an argument"},
      {{"-c", s256}, "option -c/--client: value is too long (at most 255 characters)"},
      {{"-c", s1024}, "option -c/--client: value is too long (at most 1023 characters)"},
      {{"-s", "-c", "bad host"}, "option -c/--client: 'bad host' is not a host name, "
                                 "IPv4/IPv6 address or CIDR block"}}},
    {"help", {"-h"}, check_help, {{{"--help=x"}, "option -h/--help takes no argument"}}},
    {"version", {"-v"}, check_version,
     {{{"--version=1"}, "option -v/--version takes no argument"}}},
    {"man", {"--man"}, check_man, {{{"--man=1"}, "option --man takes no argument"}}},
    {"iperf2", {"-c", "h", "--iperf2"}, check_iperf2,
     {{{"-c", "h", "--iperf2=x"}, "option --iperf2 takes no argument"}}},
    {"csv-header", {"-s", "-y", "c", "--csv-header"}, check_csv_header,
     {{{"-s", "--csv-header"}, "option --csv-header needs -y C"}}},
    {"csv-latency", {"-s", "-y", "c", "--csv-latency"}, check_csv_latency,
     {{{"-s", "--csv-latency"}, "option --csv-latency needs -y C"}}},
    {"copy", {"-s", "--copy"}, check_copy, {{{"-s", "--copy=1"}, "option --copy takes no argument"}}},
    {"threads", {"-s", "--threads", "3"}, check_threads,
     {{{"-s", "--threads", "65"}, "option --threads: 65 is out of range (0..64)"}}},
    {"debug", {"-c", "h", "--debug"}, check_debug,
     {{{"-c", "h", "--debug=7"}, "option --debug: '7' is not a debug level (1..4)"}}},
    NOT_SUPPORTED("hide-ips", "--hide-ips", "-c", "h", "--hide-ips"),
    {"permit-key", {"-c", "h", "--permit-key=secretkey"}, check_permit_key,
     {{{"-c", "h", "--permit-key=abc"}, "value for --permit-key must have at least 4 characters"},
      {{"-c", "h", "--permit-key"}, "option --permit-key requires a value on the client"},
      {{"-c", "h", "-u", "--permit-key=abcd"}, "option --permit-key not supported with UDP (iperf2 "
                                               "sends the key over TCP only)"},
      {{"-c", "h", "-C", "--permit-key=abcd"}, "options --permit-key and -C/--compatibility cannot "
                                               "be used together"}}},
    NOT_SUPPORTED("sum-only", "--sum-only", "-c", "h", "--sum-only"),
    NOT_SUPPORTED("realtime", "-z/--realtime", "-c", "h", "-z"),
    NOT_SUPPORTED("awdl", "-A/--awdl", "-c", "h", "-A"),
    NOT_SUPPORTED("NUM_REPORT_STRUCTS", "--NUM_REPORT_STRUCTS", "-s", "--NUM_REPORT_STRUCTS",
                  "10"),
    /* ---- Server ---- */
    {"server", {"-s"}, check_server,
     {{{"-s", "-R"}, "option -R/--reverse only applies to a client"}}},
    {"singleclient", {"-s", "-1"}, check_singleclient,
     {{{"-c", "h", "-1"}, "option -1/--singleclient only applies to a server"}}},
    {"daemon", {"-s", "-D"}, check_daemon,
     {{{"-c", "h", "-D"}, "option -D/--daemon only applies to a server"}}},
    {"max-tests", {"-s", "--max-tests", "9"}, check_max_tests,
     {{{"-s", "--max-tests", "0"}, "option --max-tests: 0 is out of range (1..1024)"}}},
    {"trust-udp", {"-s", "--trust-udp", "10.0.0.7"}, check_trust_udp,
     {{{"-s", "--trust-udp", ""}, "option --trust-udp needs a non-empty value"}}},
    NOT_SUPPORTED("single_udp", "-U/--single_udp", "-s", "-U"),
    NOT_SUPPORTED("ssm-host", "-H/--ssm-host", "-s", "-H", "10.0.0.1"),
    {"permit-key-timeout", {"-s", "--permit-key=abcd", "--permit-key-timeout", "7.9"},
     check_permit_key_timeout,
     {{{"-s", "--permit-key-timeout", "5"}, "option --permit-key-timeout needs --permit-key"},
      {{"-s", "--permit-key", "--permit-key-timeout", "-1"}, "option --permit-key-timeout: -1 "
                                                             "is out of range (0 or 1..86400)"},
      {{"-c", "h", "--permit-key=abcd", "--permit-key-timeout=5"}, "option --permit-key-timeout "
                                                                   "only applies to a server"},
      {{"-s", "-u", "--permit-key"}, "option --permit-key not supported with UDP (iperf2 sends "
                                     "the key over TCP only)"}}},
    NOT_SUPPORTED("tcp-rx-window-clamp", "--tcp-rx-window-clamp", "-s",
                  "--tcp-rx-window-clamp", "64K"),
    NOT_SUPPORTED("tap-dev", "--tap-dev", "-s", "--tap-dev"),
    NOT_SUPPORTED("tun-dev", "--tun-dev", "-s", "--tun-dev"),
    NOT_SUPPORTED("sum-dstip", "--sum-dstip", "-s", "--sum-dstip"),
    NOT_SUPPORTED("tos-override", "--tos-override", "-s", "--tos-override", "ef"),
    /* ---- Client ---- */
    {"dualtest", {"-c", "h", "-d"}, check_dualtest,
     {{{"-c", "h", "-d", "-R"}, "options -R/--reverse and -d/--dualtest cannot be used "
                                "together"},
      {{"-c", "h", "-d", "-r"}, "options -d/--dualtest and -r/--tradeoff cannot be used "
                                "together"},
      {{"-s", "-d"}, "option -d/--dualtest only applies to a client"}}},
    {"tradeoff", {"-c", "h", "-r"}, check_tradeoff,
     {{{"-c", "h", "--full-duplex", "-r"}, "options --full-duplex and -r/--tradeoff cannot "
                                           "be used together"}}},
    {"num", {"-c", "h", "-n", "1.5k"}, check_num,
     {{{"-c", "h", "-n", "0"}, "option -n/--num: 0 is out of range (1..1048576G)"},
      {{"-c", "h", "-n", "0.5"}, "option -n/--num: 0.5 is out of range (1..1048576G)"},
      {{"-c", "h", "-n", "1.5MiB"}, "option -n/--num: '1.5MiB' is not a number with an optional "
                                    "k, m, g (1000-based) or K, M, G (1024-based) suffix"}}},
    {"file_input", {"-c", "h", "-F", "/etc/hostname"}, check_file_input,
     {{{"-c", "h", "-F", "/etc/hostname", "-I"}, "options -F/--file_input and "
                                                 "-I/--stdin_input cannot be used together"},
      {{"-s", "-F", "x"}, "option -F/--file_input only applies to a client"}}},
    {"stdin_input", {"-c", "h", "-I"}, check_stdin_input,
     {{{"-s", "-I"}, "option -I/--stdin_input only applies to a client"}}},
    {"listenport", {"-c", "h", "-d", "-L", "6002"}, check_listenport,
     {{{"-c", "h", "-L", "x"}, "option -L/--listenport: 'x' is not an integer"}}},
    {"reverse", {"-c", "h", "-R"}, check_reverse,
     {{{"-c", "h", "-R", "--full-duplex"}, "options -R/--reverse and --full-duplex cannot be "
                                           "used together"}}},
    {"full-duplex", {"-c", "h", "--full-duplex"}, check_full_duplex,
     {{{"-s", "--full-duplex"}, "option --full-duplex only applies to a client"}}},
    {"no-udp-fin", {"-c", "h", "-u", "--no-udp-fin"}, check_no_udp_fin,
     {{{"-c", "h", "--no-udp-fin"}, "option --no-udp-fin needs -u/--udp"}}},
    {"ttl", {"-c", "239.1.1.1", "-u", "-T", "32"}, check_ttl,
     {{{"-c", "h", "-T", "256"}, "option -T/--ttl: 256 is out of range (1..255)"},
      {{"-c", "h", "-T", "lab"}, "option -T/--ttl: 'lab' is not an integer"}}},
    {"fq-rate", {"-c", "h", "--fq-rate", "1M"}, check_fq_rate,
     {{{"-c", "h", "--fq-rate", "200G"}, "option --fq-rate: 200G is out of range (0..1000g "
                                         "bits/s)"},
      {{"-c", "h", "--fq-rate", "fast"}, "option --fq-rate: 'fast' is not a rate (a number "
                                         "with an optional k, m, g (bits/s) or K, M, G "
                                         "(bytes/s) suffix)"}}},
    {"histograms", {"-s", "--histograms=1m,100,1,99.9"}, check_histograms,
     {{{"-s", "--histograms=0"}, "option --histograms: '0' is not width[u|m],bins,lower,upper (width 1..1000000, bins 1..100000, bounds 0..100 percent)"},
      {{"-s", "--histograms=10u,100001"}, "option --histograms: '10u,100001' is not width[u|m],bins,lower,upper (width 1..1000000, bins 1..100000, bounds 0..100 percent)"},
      {{"-s", "--histograms=10u,100,95,5"}, "option --histograms: the lower bound (95%) must be below the upper (5%)"},
      {{"-c", "h", "--histograms"}, "option --histograms only applies to a server"}}},
    {"udp-histograms", {"-s", "--udp-histogram=10u,50"}, check_udp_histograms,
     {{{"-s", "--udp-histograms=1.5"}, "option --udp-histograms: '1.5' is not width[u|m],bins,lower,upper (width 1..1000000, bins 1..100000, bounds 0..100 percent)"},
      {{"-s", "--udp-histograms=10x"}, "option --udp-histograms: '10x' is not width[u|m],bins,lower,upper (width 1..1000000, bins 1..100000, bounds 0..100 percent)"},
      {{"-s", "--udp-histograms=10u,0"}, "option --udp-histograms: '10u,0' is not width[u|m],bins,lower,upper (width 1..1000000, bins 1..100000, bounds 0..100 percent)"},
      {{"-s", "--udp-histograms=10u,100,5,101"}, "option --udp-histograms: '10u,100,5,101' is not width[u|m],bins,lower,upper (width 1..1000000, bins 1..100000, bounds 0..100 percent)"}}},
    {"bounceback", {"-c", "h", "--bounceback=5"}, check_bounceback,
     {{{"-c", "h", "--bounceback=0"}, "option --bounceback: '0' is not a count of exchanges (1..1000000)"},
      {{"-c", "h", "--bounceback=x"}, "option --bounceback: 'x' is not a count of exchanges (1..1000000)"},
      {{"-c", "h", "--bounceback", "-u"}, "options --bounceback and -u/--udp cannot be used together"},
      {{"-c", "h", "--bounceback", "-l", "63"}, "option -l/--len: a bounceback message is at least 64 bytes "
                                               "(its header), not 63"}}},
    {"bounceback-hold", {"-c", "h", "--bounceback", "--bounceback-hold", "1.5"}, check_bounceback_hold,
     {{{"-c", "h", "--bounceback-hold", "10001"}, "option --bounceback-hold: 10001 is out of range (0..10000)"}}},
    {"bounceback-period", {"-c", "h", "--bounceback", "--bounceback-period", "0"}, check_bounceback_period,
     {{{"-c", "h", "--bounceback-period", "-1"}, "option --bounceback-period: -1 is out of range (0..3600)"}}},
    {"bounceback-no-quickack", {"-c", "h", "--bounceback", "--bounceback-no-quickack", "-l", "64"},
     check_bounceback_no_quickack, {{{"-s", "--bounceback-no-quickack"}, "option --bounceback-no-quickack only applies to a client"}}},
    {"bounceback-congest", {"-c", "h", "--bounceback", "--bounceback-congest=DOWN,3"}, check_bounceback_congest,
     {{{"-c", "h", "--bounceback", "--bounceback-congest=sideways"}, "option --bounceback-congest: 'sideways' is not a direction (up, down or bidir)"},
      {{"-c", "h", "--bounceback", "--bounceback-congest=up,0"}, "option --bounceback-congest: '0' is not a count of load connections (1..16)"},
      {{"-c", "h", "--bounceback-congest"}, "option --bounceback-congest needs --bounceback (it is the load the round trips are measured under)"},
      {{"-s", "--bounceback-congest"}, "option --bounceback-congest only applies to a client"}}},
    {"bounceback-txdelay", {"-c", "h", "--bounceback", "--bounceback-congest", "--bounceback-txdelay", "0.5"}, check_bounceback_txdelay,
     {{{"-c", "h", "--bounceback", "--bounceback-txdelay", "3601"}, "option --bounceback-txdelay: 3601 is out of range (0..3600)"},
      {{"-c", "h", "--bounceback-txdelay", "1"}, "option --bounceback-txdelay needs --bounceback"}}},
    {"trip-times", {"-c", "h", "--trip-times"}, check_trip_times,
     {{{"-c", "h", "--trip-times", "-F", "x"}, "options --trip-times and -F/--file_input cannot be "
                                               "used together"},
      {{"-c", "h", "--trip-times", "-C"}, "options --trip-times and -C/--compatibility cannot be "
                                          "used together"}}},
    NOT_SUPPORTED("peer-detect", "-X/--peer-detect", "-c", "h", "-X"),
    NOT_SUPPORTED("suggest_win_size", "-W/--suggest_win_size", "-c", "h", "-W"),
    NOT_SUPPORTED("burst-period", "--burst-period", "-c", "h", "--burst-period", "1"),
    NOT_SUPPORTED("burst-size", "--burst-size", "-c", "h", "--burst-size", "1M"),
    NOT_SUPPORTED("connect-only", "--connect-only", "-c", "h", "--connect-only"),
    NOT_SUPPORTED("connect-retries", "--connect-retries", "-c", "h", "--connect-retries", "3"),
    NOT_SUPPORTED("incr-dstip", "--incr-dstip", "-c", "h", "--incr-dstip"),
    NOT_SUPPORTED("incr-dstport", "--incr-dstport", "-c", "h", "--incr-dstport"),
    NOT_SUPPORTED("incr-srcip", "--incr-srcip", "-c", "h", "--incr-srcip"),
    NOT_SUPPORTED("incr-srcport", "--incr-srcport", "-c", "h", "--incr-srcport"),
    {"ipg", {"-c", "h", "-u", "--isochronous", "--ipg", "0.5"}, check_ipg,
     {{{"-c", "h", "-u", "--isochronous", "--ipg", "1001"}, "option --ipg: 1001 is out of range (0..1000)"},
      {{"-c", "h", "-u", "--ipg", "1"}, "option --ipg needs --isochronous (it spaces a frame's datagrams)"}}},
    {"isochronous", {"-c", "h", "-u", "--isochronous=30:5m,100K"}, check_isochronous,
     {{{"-c", "h", "-u", "--isochronous=0:1m"}, "option --isochronous: frames per second '0' is not 0.01..10000"},
      {{"-c", "h", "-u", "--isochronous=10:fast"}, "option --isochronous: mean 'fast' is not a rate (bits/s with "
                                                   "k, m, g; bytes/s with K, M, G; at most 100g)"},
      {{"-c", "h", "-u", "--isochronous", "-b", "1m"}, "option --isochronous cannot be combined with "
                                                       "-b/--bandwidth"},
      {{"-c", "h", "-u", "--isochronous", "-l", "100"}, "option -l/--len: an isochronous datagram is at least "
                                                        "108 bytes (its headers and frame block), not 100"}}},
    NOT_SUPPORTED("l2checks", "--l2checks", "-c", "h", "--l2checks"),
    NOT_SUPPORTED("local-only", "--local-only", "-c", "h", "--local-only"),
    NOT_SUPPORTED("near-congestion", "--near-congestion", "-c", "h", "--near-congestion"),
    NOT_SUPPORTED("no-connect-sync", "--no-connect-sync", "-c", "h", "--no-connect-sync"),
    NOT_SUPPORTED("tcp-quickack", "--tcp-quickack", "-c", "h", "--tcp-quickack"),
    NOT_SUPPORTED("tcp-write-prefetch", "--tcp-write-prefetch", "-c", "h",
                  "--tcp-write-prefetch", "64K"),
    NOT_SUPPORTED("tcp-write-times", "--tcp-write-times", "-c", "h", "--tcp-write-times"),
    NOT_SUPPORTED("txdelay-time", "--txdelay-time", "-c", "h", "--txdelay-time", "1"),
    NOT_SUPPORTED("txstart-time", "--txstart-time", "-c", "h", "--txstart-time", "1"),
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Number spellings of the size rows, with the value iperf 2.1.8 gives each (run against stock
 * 2.1.8: docs/COMPATIBILITY.md "Number spellings (iperf2)"; tests/interop/
 * test_iperf2_spellings.py compares both binaries). 2.1.8's byte_atoi reads a number, a
 * fraction, one letter k m g (1000^n) or K M G (1024^n), and ignores what follows, so JPerf's
 * "2.0M", "64.0k", "512.0B" (bytes), "16.0b" (bytes too) all mean what 2.1.8 makes of them.
 * Every row with a size argument needs some. */
enum spell_field { SP_LEN, SP_WINDOW, SP_MSS, SP_NUM, SP_RATE, SP_FQ };

static const struct spelling {
    const char *name; /* the row */
    const char *argv[MAX_ARGS];
    enum spell_field field;
    double want;
} spellings[] = {
    /* JPerf's Buffer Length (TCP) and UDP Packet Size */
    {"len", {"-c", "h", "-l", "2.0M"}, SP_LEN, 2097152},
    {"len", {"-c", "h", "-l", "16.0K"}, SP_LEN, 16384},
    {"len", {"-c", "h", "-l", "512.0B"}, SP_LEN, 512},
    {"len", {"-c", "h", "-l", "64.0k"}, SP_LEN, 64000},
    {"len", {"-c", "h", "-l", "16.0b"}, SP_LEN, 16},
    {"len", {"-c", "h", "-l", "1.0m"}, SP_LEN, 1000000},
    {"len", {"-c", "h", "-l", "10MB"}, SP_LEN, 10485760},
    {"len", {"-c", "h", "-l", "1.9"}, SP_LEN, 1}, /* truncated, as 2.1.8 */
    {"len", {"-c", "h", "-l", "2047M"}, SP_LEN, 2146435072},
    {"len", {"-s", "-l", "2.0M"}, SP_LEN, 2097152},
    {"len", {"-c", "h", "-u", "-l", "1500.0B"}, SP_LEN, 1500},
    {"len", {"-c", "h", "-u", "-l", "1.0K"}, SP_LEN, 1024},
    {"len", {"-c", "h", "-u", "-l", "1.4k"}, SP_LEN, 1400},
    /* TCP Window Size, UDP Buffer Size */
    {"window", {"-c", "h", "-w", "56.0K"}, SP_WINDOW, 57344},
    {"window", {"-c", "h", "-w", "4.0M"}, SP_WINDOW, 4194304},
    {"window", {"-c", "h", "-w", "64.0k"}, SP_WINDOW, 64000},
    {"window", {"-c", "h", "-w", "512.0B"}, SP_WINDOW, 512},
    {"window", {"-c", "h", "-w", "1G"}, SP_WINDOW, 1073741824},
    {"window", {"-c", "h", "-u", "-w", "41.0K"}, SP_WINDOW, 41984},
    {"window", {"-s", "-w", "56.0K"}, SP_WINDOW, 57344},
    /* Max Segment Size */
    {"mss", {"-c", "h", "-M", "1.0K"}, SP_MSS, 1024},
    {"mss", {"-c", "h", "-M", "1460.0B"}, SP_MSS, 1460},
    {"mss", {"-c", "h", "-M", "1.4k"}, SP_MSS, 1400},
    {"mss", {"-c", "h", "-M", "536.0b"}, SP_MSS, 536},
    {"mss", {"-c", "h", "-M", "32767"}, SP_MSS, 32767},
    {"mss", {"-c", "h", "-M", "0"}, SP_MSS, 0},
    /* -n amounts */
    {"num", {"-c", "h", "-n", "1.5M"}, SP_NUM, 1572864},
    {"num", {"-c", "h", "-n", "1500.0B"}, SP_NUM, 1500},
    {"num", {"-c", "h", "-n", "2.0k"}, SP_NUM, 2000},
    {"num", {"-c", "h", "-n", "1.0G"}, SP_NUM, 1073741824},
    {"num", {"-c", "h", "-n", "10"}, SP_NUM, 10},
    /* UDP Bandwidth: bits/s, and K M G are 1024-based here too */
    {"bandwidth", {"-c", "h", "-u", "-b", "1.0M"}, SP_RATE, 1048576},
    {"bandwidth", {"-c", "h", "-u", "-b", "512.0K"}, SP_RATE, 524288},
    {"bandwidth", {"-c", "h", "-u", "-b", "1.0m"}, SP_RATE, 1000000},
    {"bandwidth", {"-c", "h", "-u", "-b", "2.5M"}, SP_RATE, 2621440},
    {"bandwidth", {"-c", "h", "-b", "100.0m"}, SP_RATE, 100000000},
    {"bandwidth", {"-c", "h", "-u", "-l", "1000", "-b", "1.0Kpps"}, SP_RATE, 8192000},
    /* --fq-rate (bitorbyte_atoi): k m g bits/s, K M G bytes/s, all 1000-based */
    {"fq-rate", {"-c", "h", "--fq-rate", "1.5K"}, SP_FQ, 12000},
    {"fq-rate", {"-c", "h", "--fq-rate", "1m"}, SP_FQ, 1000000},
    {"fq-rate", {"-c", "h", "--fq-rate", "1.0MB"}, SP_FQ, 8000000},
};

/* What stock also takes but makes no sense of (its sscanf reads exponents, hex, blanks and
 * stops at junk; "abc" leaves its number unset) is refused, naming the option and value. */
static const struct bad bad_spellings[] = {
    {{"-c", "h", "-l", "1e3"}, "option -l/--len: '1e3' is not a number with an optional k, m, "
                               "g (1000-based) or K, M, G (1024-based) suffix"},
    {{"-c", "h", "-l", "0x10"}, "option -l/--len: '0x10' is not a number with an optional k, "
                                "m, g (1000-based) or K, M, G (1024-based) suffix"},
    {{"-c", "h", "-l", " 5"}, "option -l/--len: ' 5' is not a number with an optional k, m, g "
                              "(1000-based) or K, M, G (1024-based) suffix"},
    {{"-c", "h", "-w", "56.0KBytes"}, "option -w/--window: '56.0KBytes' is not a number with "
                                      "an optional k, m, g (1000-based) or K, M, G (1024-based) "
                                      "suffix"},
    {{"-c", "h", "-l", "-5"}, "option -l/--len: -5 is out of range (1..2147483647)"},
    {{"-c", "h", "-l", "0.5"}, "option -l/--len: 0.5 is out of range (1..2147483647)"},
    {{"-c", "h", "-w", "-1"}, "option -w/--window: -1 is out of range (0..2147483647)"},
    {{"-c", "h", "-u", "-l", "64.0K"}, "option -l/--len: 64.0K is out of range (16..65507) for "
                                       "UDP"},
    {{"-c", "h", "-M", "87"}, "option -M/--mss: 87 is out of range (0 or 88..32767)"},
    {{"-c", "h", "--fq-rate", "1.0MBs"}, "option --fq-rate: '1.0MBs' is not a rate (a number "
                                         "with an optional k, m, g (bits/s) or K, M, G "
                                         "(bytes/s) suffix)"},
};

/* iperf 2.1.8's short options (its getopt string "146b:c:def:hi:l:mn:o:p:rst:uvw:x:y:z
 * AB:CDF:H:IL:M:NP:RS:T:UVWXZ:") all have a row, with an argument exactly when iperf2's
 * takes one; none is "unknown". */
static void test_every_iperf2_letter_is_known(void **state)
{
    static const char getopt_string[] =
        "146b:c:def:hi:l:mn:o:p:rst:uvw:x:y:zAB:CDF:H:IL:M:NP:RS:T:UVWXZ:";
    const struct lp_cli_table *t = lp_cli_options_iperf2();
    const char *p;

    (void)state;
    for (p = getopt_string; *p; p++) {
        const struct lp_cli_opt *o;
        bool has_arg = p[1] == ':';
        if (*p == ':')
            continue;
        o = lp_cli_options_short(t, *p);
        if (!o)
            fail_msg("iperf2's -%c has no row", *p);
        if (!(o->flags & LP_CLI_F_UNSUPPORTED) && has_arg != (o->arg != LP_CLI_ARG_NONE))
            fail_msg("-%c: argument shape differs from iperf2's", *p);
    }
}

/* What only the iperf2 table must be (test_table_is_consistent checks what both must). */
static void test_table_is_iperf2s(void **state)
{
    const struct lp_cli_table *t = lp_cli_options_iperf2();

    (void)state;
    assert_true(t->iperf2);
    for (size_t i = 0; i < t->count; i++)
        assert_int_equal(t->opts[i].flags & (LP_CLI_F_IMPLIES_IPERF2 | LP_CLI_F_NEEDS_IPERF2 |
                                             LP_CLI_F_IPERF3_ONLY), 0);
}

/* The same option in both spellings (same grammar, range, store and setter) is one row of
 * options_rows.h, so its man text cannot drift; a long name both tables have for two
 * different options (-f, -t, -P ...) must differ in one of those. */
static void test_shared_names_are_one_row(void **state)
{
    const struct lp_cli_table *t2 = lp_cli_options_iperf2(), *t3 = lp_cli_options_iperf3();
    size_t i, twice = 0, shared = 0;

    (void)state;
    for (i = 0; i < t2->count; i++) {
        const struct lp_cli_opt *o2 = &t2->opts[i];
        const struct lp_cli_opt *o3 = lp_cli_options_long(t3, o2->name, strlen(o2->name));
        bool same;
        if (!o3 || (o2->flags & LP_CLI_F_UNSUPPORTED))
            continue;
        same = o2->arg == o3->arg && o2->min == o3->min && o2->max == o3->max &&
               o2->store == o3->store && o2->off == o3->off && o2->size == o3->size &&
               o2->set == o3->set && o2->key == o3->key;
        if ((o2->flags & LP_CLI_F_SHARED) && (o3->flags & LP_CLI_F_SHARED) && same) {
            shared++;
            continue;
        }
        if (same || ((o2->flags ^ o3->flags) & LP_CLI_F_SHARED)) {
            print_error("--%s is written in both tables: make it one ROW_* of "
                        "options_rows.h\n", o2->name);
            twice++;
        }
    }
    assert_int_equal(twice, 0);
    assert_true(shared > 0);
}

static double spelled_value(const struct lp_cli_config *c, enum spell_field f)
{
    switch (f) {
    case SP_LEN: return c->spec.blksize;
    case SP_WINDOW: return c->spec.window_bytes;
    case SP_MSS: return c->spec.mss;
    case SP_NUM: return (double)c->spec.bytes;
    case SP_RATE: return (double)c->spec.rate_bps;
    case SP_FQ: return (double)c->spec.fq_rate_bps;
    }
    return -1;
}

static void test_number_spellings(void **state)
{
    const struct case_set *s = *state;
    const struct lp_cli_table *t = s->table;
    struct lp_cli_config cfg;
    struct lp_cli_err err;
    size_t i, j;

    for (i = 0; i < t->count; i++) {
        bool found = false;
        if (t->opts[i].arg != LP_CLI_ARG_SIZE2)
            continue;
        for (j = 0; j < sizeof(spellings) / sizeof(spellings[0]); j++)
            found = found || strcmp(spellings[j].name, t->opts[i].name) == 0;
        if (!found)
            fail_msg("--%s takes a size but has no spelling case", t->opts[i].name);
    }
    for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
        const struct spelling *sp = &spellings[i];
        double got;
        if (cases_parse(s, sp->argv, &cfg, &err) != 0)
            fail_msg("--%s %s: unexpected error: %s", sp->name, sp->argv[3], err.msg);
        got = spelled_value(&cfg, sp->field);
        if (got != sp->want)
            fail_msg("--%s case %zu: %.0f, want %.0f", sp->name, i, got, sp->want);
    }
    for (i = 0; i < sizeof(bad_spellings) / sizeof(bad_spellings[0]); i++)
        cases_expect_bad(s, &bad_spellings[i], "bad spelling", i);
}

int main(void)
{
    /* Run as linkperf2, so this file also covers the argv[0] rule. */
    struct case_set set = {lp_cli_options_iperf2(), "/usr/local/bin/linkperf2", cases, NCASES};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_every_row_has_a_case, &set),
        cmocka_unit_test_prestate(test_table_is_consistent, &set),
        cmocka_unit_test(test_table_is_iperf2s),
        cmocka_unit_test(test_shared_names_are_one_row),
        cmocka_unit_test(test_every_iperf2_letter_is_known),
        cmocka_unit_test_prestate(test_valid_values, &set),
        cmocka_unit_test_prestate(test_bad_values, &set),
        cmocka_unit_test_prestate(test_number_spellings, &set),
    };
    return cmocka_run_group_tests(tests, cases_fill_strings, NULL);
}

/* Every row of the default (iperf3-spelling) option table: a valid value lands in the
 * right field, and bad values give the expected one-line error naming the option. A row
 * without a case here fails. The iperf2 table has its own file, test_cli_options2.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli_cases.h"

static char long_ts[96];

CHECK(port, c->spec.port == 5202)
CHECK(test_tags, c->test_tags == LP_CLI_TAGS_NEVER)
CHECK(metrics, strcmp(c->metrics, "127.0.0.1:9464") == 0)
CHECK(format, c->fmt.unit == 'M')
CHECK(interval, c->spec.report.interval_s == 0.5)
CHECK(pidfile, strcmp(c->pidfile, "/tmp/lp.pid") == 0)
CHECK(auth_server, strcmp(c->auth.private_key, "k.pem") == 0 && strcmp(c->auth.users, "u.csv") == 0)
CHECK(skew, c->auth.skew_s == 30)
CHECK(pkcs1, c->auth.pkcs1)
CHECK(auth_client, strcmp(c->auth.username, "u") == 0 && strcmp(c->auth.public_key, "k.pem") == 0)
CHECK(bind, strcmp(c->spec.bind_addr, "10.0.0.1") == 0 && strcmp(c->spec.bind_dev, "eth1") == 0)
CHECK(bind_dev, strcmp(c->spec.bind_dev, "eth0") == 0)
CHECK(verbose, c->fmt.verbose)
CHECK(json, c->json && !c->json_stream)
CHECK(json_stream, c->json && c->json_stream)
CHECK(logfile, strcmp(c->logfile, "/tmp/lp.log") == 0)
CHECK(forceflush, c->forceflush)
CHECK(db, strcmp(c->db, "/tmp/lp-history.db") == 0 && !c->no_history)
CHECK(web, strcmp(c->web, "127.0.0.1:8081") == 0)
CHECK(no_history, c->no_history && c->db[0] == '\0')
CHECK(timestamps, c->fmt.timestamps && strcmp(c->fmt.timestamp_format, "%T ") == 0)
CHECK(rcv_timeout, c->spec.rcv_timeout_ms == 5000)
CHECK(snd_timeout, c->spec.snd_timeout_ms == 3000)
CHECK(debug, c->debug == 2)
CHECK(threads, c->spec.threads == 4)
CHECK(copy, c->spec.copy)
CHECK(version, c->action == LP_CLI_ACTION_VERSION)
CHECK(help, c->action == LP_CLI_ACTION_HELP)
CHECK(man, c->action == LP_CLI_ACTION_MAN)
CHECK(server, c->spec.role == LP_ROLE_SERVER && c->action == LP_CLI_ACTION_RUN)
CHECK(daemon, c->daemon)
CHECK(one_off, c->spec.one_off)
CHECK(idle_timeout, c->spec.idle_timeout_s == 30)
CHECK(server_max_duration, c->spec.server_max_duration_s == 60)
CHECK(max_tests, c->spec.max_tests == 8)
CHECK(client, c->spec.role == LP_ROLE_CLIENT && strcmp(c->spec.host, "example.com") == 0 &&
                  strcmp(c->spec.bind_dev, "eth0") == 0)
CHECK(udp, c->spec.proto == LP_PROTO_UDP)
CHECK(connect_timeout, c->spec.connect_timeout_ms == 2000)
CHECK(bitrate, c->spec.rate_bps == 10000000 && c->spec.burst == 5)
CHECK(pacing_timer, c->spec.pacing_timer_us == 500)
CHECK(fq_rate, c->spec.fq_rate_bps == 1000000000ull)
CHECK(time, c->spec.duration_s == 30)
CHECK(bytes, c->spec.bytes == 52428800ull && c->spec.duration_s == 0)
CHECK(blockcount, c->spec.blocks == 100 && c->spec.duration_s == 0)
CHECK(length, c->spec.blksize == 65536)
CHECK(cport, c->spec.cport == 4000)
CHECK(parallel, c->spec.streams == 4)
CHECK(reverse, c->spec.dir == LP_DIR_REVERSE)
CHECK(bidir, c->spec.dir == LP_DIR_BIDIR)
CHECK(window, c->spec.window_bytes == 262144)
CHECK(congestion, strcmp(c->spec.congestion, "bbr") == 0)
CHECK(set_mss, c->spec.mss == 1400)
CHECK(no_delay, c->spec.nodelay)
CHECK(version4, c->spec.family == LP_FAMILY_INET)
CHECK(version6, c->spec.family == LP_FAMILY_INET6)
CHECK(tos, c->spec.tos == 52)
CHECK(dscp, c->spec.tos == 40)
CHECK(zerocopy, c->spec.zerocopy)
CHECK(skip_rx_copy, c->spec.skip_rx_copy)
CHECK(omit, c->spec.omit_s == 2)
CHECK(title, strcmp(c->spec.title, "lab") == 0)
CHECK(extra_data, strcmp(c->spec.extra_data, "xd") == 0)
CHECK(get_server_output, c->spec.report.get_server_output)
CHECK(udp_counters_64bit, c->spec.udp_counters_64bit)
CHECK(repeating_payload, c->spec.repeating_payload)
CHECK(dont_fragment, c->spec.dont_fragment)
CHECK(iperf2, c->iperf2 && c->spec.dialect == LP_DIALECT_IPERF2 && c->spec.port == 5001)
CHECK(csv, c->csv && !c->json && !c->iperf2)
CHECK(csv_header, c->csv && c->fmt.csv_header)
CHECK(csv_latency, c->csv && c->fmt.csv_latency)
CHECK(enhanced, c->spec.report.enhanced && c->fmt.enhanced)
CHECK(print_mss, c->spec.report.print_mss && c->fmt.print_mss)
CHECK(allow, strcmp(c->spec.allow, "10.0.0.0/8,host.example,2001:db8::/32") == 0)
CHECK(trust_udp, strcmp(c->spec.trust_udp, "192.168.1.0/24,10.0.0.7") == 0)
CHECK(max_connections, c->spec.max_conns == 5)
CHECK(stop_after, c->stop_after_s == 2.5)
CHECK(dialect, c->spec.dialect == LP_DIALECT_IPERF2 && c->spec.port == 5001 && !c->iperf2)
CHECK(full_duplex, c->spec.dir == LP_DIR_BIDIR && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(dual, c->spec.iperf2.dual && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(tradeoff, c->spec.iperf2.tradeoff && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(listen_port, c->spec.iperf2.listen_port == 6001 && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(compat, c->spec.iperf2.compat && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(no_udp_fin, c->spec.iperf2.no_udp_fin && c->spec.dialect == LP_DIALECT_IPERF2)
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
CHECK(trip_times, c->spec.iperf2.trip_times && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(isochronous, c->spec.iperf2.isoch.on && c->spec.iperf2.isoch.fps == 30 &&
                       c->spec.iperf2.isoch.mean_bps == 5e6 && c->spec.dialect == LP_DIALECT_IPERF2 &&
                       c->spec.proto == LP_PROTO_TCP)
CHECK(ipg, c->spec.iperf2.isoch.ipg_s == 0.0005 && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(file, strcmp(c->spec.iperf2.file, "data.bin") == 0 &&
                c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(stdin, c->spec.iperf2.from_stdin && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(ttl, c->spec.iperf2.mcast_ttl == 4 && c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(permit_key, strcmp(c->spec.iperf2.permit_key, "secretkey") == 0 &&
                      c->spec.dialect == LP_DIALECT_IPERF2)
CHECK(permit_key_timeout, strlen(c->spec.iperf2.permit_key) == 34 &&
                              c->spec.iperf2.permit_key_timeout_s == 0)

#define NOT_SUPPORTED(n, flag, ...)                                                        \
    {.name = n, .bad = {{{__VA_ARGS__, NULL},                                              \
                         "option " flag " is an iperf3 option that linkperf does not support"}}}

static const struct opt_case cases[] = {
    /* ---- general ---- */
    {"port", {"-c", "h", "-p", "5202"}, check_port,
     {{{"-c", "h", "-p", "70000"}, "option -p/--port: 70000 is out of range (0..65535)"},
      {{"-c", "h", "-p", "abc"}, "option -p/--port: 'abc' is not an integer"},
      {{"-c", "h", "-p", "0"}, "option -p/--port: 0 is out of range (1..65535) for a client"}}},
    {"format", {"-c", "h", "-f", "M"}, check_format,
     {{{"-c", "h", "-f", "x"},
       "option -f/--format: 'x' is not a format (one of k m g t K M G T a A)"},
      {{"-c", "h", "-f", "kk"},
       "option -f/--format: 'kk' is not a format (one of k m g t K M G T a A)"}}},
    {"interval", {"-c", "h", "-i", "0.5"}, check_interval,
     {{{"-c", "h", "-i", "0.05"}, "option -i/--interval: 0.05 is out of range (0 or 0.1..60)"},
      {{"-c", "h", "-i", "61"}, "option -i/--interval: 61 is out of range (0 or 0.1..60)"},
      {{"-c", "h", "-i", "1s"}, "option -i/--interval: '1s' is not a number"}}},
    {"pidfile", {"-s", "-I", "/tmp/lp.pid"}, check_pidfile,
     {{{"-s", "-I", ""}, "option -I/--pidfile needs a non-empty value"},
      {{"-s", "-I"}, "option -I/--pidfile needs an argument"}}},
    NOT_SUPPORTED("affinity", "-A/--affinity", "-c", "h", "-A", "1"),
    {"bind", {"-c", "h", "-B", "10.0.0.1%eth1"}, check_bind,
     {{{"-c", "h", "-B", "%eth0"}, "option -B/--bind: the host is empty"},
      {{"-c", "h", "-B", "a%"}, "option -B/--bind: the device after % must be 1..15 characters"}}},
    {"bind-dev", {"-c", "h", "--bind-dev", "eth0"}, check_bind_dev,
     {{{"-c", "h", "--bind-dev", s16}, "option --bind-dev: value is too long (at most 15 characters)"}}},
    {"verbose", {"-c", "h", "-V"}, check_verbose,
     {{{"-c", "h", "--verbose=2"}, "option -V/--verbose takes no argument"}}},
    {"json", {"-c", "h", "-J"}, check_json,
     {{{"-c", "h", "--json=1"}, "option -J/--json takes no argument"}}},
    {"json-stream", {"-c", "h", "--json-stream"}, check_json_stream,
     {{{"-c", "h", "--json-stream=x"}, "option --json-stream takes no argument"}}},
    {"logfile", {"-c", "h", "--logfile", "/tmp/lp.log"}, check_logfile,
     {{{"-c", "h", "--logfile"}, "option --logfile needs an argument"}}},
    {"db", {"-c", "h", "--db", "/tmp/lp-history.db"}, check_db,
     {{{"-c", "h", "--db"}, "option --db needs an argument"}}},
    {"web", {"-s", "--web", "127.0.0.1:8081"}, check_web,
     {{{"-s", "--web"}, "option --web needs an argument"}}},
    {"no-history", {"-s", "--no-history"}, check_no_history,
     {{{"-c", "h", "--no-history=1"}, "option --no-history takes no argument"}}},
    {"forceflush", {"-c", "h", "--forceflush"}, check_forceflush,
     {{{"-c", "h", "--forceflush=1"}, "option --forceflush takes no argument"}}},
    {"timestamps", {"-c", "h", "--timestamps=%T "}, check_timestamps,
     {{{"-c", "h", long_ts}, "option --timestamps: value is too long (at most 63 characters)"}}},
    {"rcv-timeout", {"-c", "h", "--rcv-timeout", "5000"}, check_rcv_timeout,
     {{{"-c", "h", "--rcv-timeout", "50"},
       "option --rcv-timeout: 50 is out of range (100..86400000)"}}},
    {"snd-timeout", {"-c", "h", "--snd-timeout", "3000"}, check_snd_timeout,
     {{{"-c", "h", "--snd-timeout", "-1"}, "option --snd-timeout: -1 is out of range (0..86400000)"}}},
    {"debug", {"-c", "h", "--debug=2"}, check_debug,
     {{{"-c", "h", "--debug=5"}, "option -d/--debug: '5' is not a debug level (1..4)"}}},
    {"copy", {"-c", "h", "--copy"}, check_copy, {{{"-c", "h", "--copy=1"}, "option --copy takes no argument"}}},
    {"threads", {"-c", "h", "--threads", "4"}, check_threads,
     {{{"-c", "h", "--threads", "65"}, "option --threads: 65 is out of range (0..64)"}}},
    {"version", {"-v"}, check_version, {{{"--version=1"}, "option -v/--version takes no argument"}}},
    {"help", {"-h"}, check_help, {{{"--help=x"}, "option -h/--help takes no argument"}}},
    {"man", {"--man"}, check_man, {{{"--man=1"}, "option --man takes no argument"}}},
    {"iperf2", {"-c", "h", "--iperf2"}, check_iperf2,
     {{{"-c", "h", "--iperf2=1"}, "option --iperf2 takes no argument"}}},
    {"csv", {"-c", "h", "--csv"}, check_csv,
     {{{"-c", "h", "--csv", "-J"}, "options -J/--json and --csv cannot be used together"},
      {{"-s", "--json-stream", "--csv"}, "options -J/--json and --csv cannot be used together"}}},
    {"csv-header", {"-c", "h", "--csv-header", "--csv"}, check_csv_header,
     {{{"-c", "h", "--csv-header"}, "option --csv-header needs --csv"}}},
    {"csv-latency", {"-c", "h", "--csv-latency", "--csv"}, check_csv_latency,
     {{{"-c", "h", "--csv-latency"}, "option --csv-latency needs --csv"}}},
    {"enhanced", {"-c", "h", "--enhanced"}, check_enhanced,
     {{{"-c", "h", "--enhanced=1"}, "option --enhanced takes no argument"}}},
    {"print-mss", {"-s", "--print-mss"}, check_print_mss,
     {{{"-c", "h", "--print-mss=y"}, "option --print-mss takes no argument"}}},
    /* ---- server ---- */
    {"server", {"-s"}, check_server,
     {{{"-s", "-c", "h"}, "options -s/--server and -c/--client cannot be used together"}}},
    {"daemon", {"-s", "-D"}, check_daemon,
     {{{"-c", "h", "-D"}, "option -D/--daemon only applies to a server"}}},
    {"one-off", {"-s", "-1"}, check_one_off,
     {{{"-c", "h", "-1"}, "option -1/--one-off only applies to a server"}}},
    {"idle-timeout", {"-s", "--idle-timeout", "30"}, check_idle_timeout,
     {{{"-s", "--idle-timeout", "0"}, "option --idle-timeout: 0 is out of range (1..86400)"}}},
    {"server-max-duration", {"-s", "--server-max-duration", "60"}, check_server_max_duration,
     {{{"-s", "--server-max-duration", "86401"},
       "option --server-max-duration: 86401 is out of range (1..86400)"}}},
    {"max-tests", {"-s", "--max-tests", "8"}, check_max_tests,
     {{{"-s", "--max-tests", "0"}, "option --max-tests: 0 is out of range (1..1024)"},
      {{"-s", "--max-tests", "1025"}, "option --max-tests: 1025 is out of range (1..1024)"},
      {{"-c", "h", "--max-tests", "2"}, "option --max-tests only applies to a server"}}},
    {"metrics", {"-s", "--metrics", "127.0.0.1:9464"}, check_metrics,
     {{{"-c", "h", "--metrics", "127.0.0.1:9464"}, "option --metrics only applies to a server"}}},
    {"test-tags", {"-s", "--test-tags", "never"}, check_test_tags,
     {{{"-s", "--test-tags", "often"}, "option --test-tags: 'often' is not auto, always or never"},
      {{"-c", "h", "--test-tags", "always"}, "option --test-tags only applies to a server"}}},
    {"allow", {"-s", "--allow", "10.0.0.0/8, host.example,2001:db8::/32"}, check_allow,
     {{{"-s", "--allow", "10.0.0.0/33"},
       "option --allow: '10.0.0.0/33': prefix /33 is out of range for IPv4 (0..32)"},
      {{"-s", "--allow", "host/8"}, "option --allow: 'host/8': a /prefix needs an IPv4 or "
                                    "IPv6 address"},
      {{"-s", "--allow", "a,,b"}, "option --allow: empty entry in the list"},
      {{"-c", "h", "--allow", "h"}, "option --allow only applies to a server"}}},
    {"trust-udp", {"-s", "--trust-udp", "192.168.1.0/24, 10.0.0.7"}, check_trust_udp,
     {{{"-s", "--trust-udp", "10.0.0.0/33"},
       "option --trust-udp: '10.0.0.0/33': prefix /33 is out of range for IPv4 (0..32)"},
      {{"-c", "h", "--trust-udp", "h"}, "option --trust-udp only applies to a server"}}},
    {"max-connections", {"-s", "--max-connections", "5"}, check_max_connections,
     {{{"-s", "--max-connections", "-1"},
       "option --max-connections: -1 is out of range (0..1000000)"},
      {{"-c", "h", "--max-connections", "1"},
       "option --max-connections only applies to a server"}}},
    {"stop-after", {"-s", "--stop-after", "2.5"}, check_stop_after,
     {{{"-s", "--stop-after", "0.001"},
       "option --stop-after: 0.001 is out of range (0 or 0.01..86400)"},
      {{"-c", "h", "--stop-after", "5"}, "option --stop-after only applies to a server"}}},
    NOT_SUPPORTED("server-bitrate-limit", "--server-bitrate-limit", "-s",
                  "--server-bitrate-limit", "1M"),
    {"rsa-private-key-path", {"-s", "--rsa-private-key-path", "k.pem", "--authorized-users-path",
                              "u.csv"}, check_auth_server,
     {{{"-s", "--rsa-private-key-path", "k.pem"},
       "authentication needs both --rsa-private-key-path and --authorized-users-path"},
      {{"-c", "h", "--rsa-private-key-path", "k.pem"},
       "option --rsa-private-key-path only applies to a server"},
      {{"-s", "--rsa-private-key-path", ""}, "option --rsa-private-key-path needs a non-empty value"}}},
    {"authorized-users-path", {"-s", "--authorized-users-path", "u.csv", "--rsa-private-key-path",
                               "k.pem"}, check_auth_server,
     {{{"-s", "--authorized-users-path", "u.csv"},
       "authentication needs both --rsa-private-key-path and --authorized-users-path"}}},
    {"time-skew-threshold", {"-s", "--time-skew-threshold", "30", "--rsa-private-key-path",
                             "k.pem", "--authorized-users-path", "u.csv"}, check_skew,
     {{{"-s", "--time-skew-threshold", "0"}, "option --time-skew-threshold: 0 is out of range (1..86400)"},
      {{"-s", "--time-skew-threshold", "5"},
       "option --time-skew-threshold needs --rsa-private-key-path and --authorized-users-path"}}},
    {"use-pkcs1-padding", {"-c", "h", "--use-pkcs1-padding"}, check_pkcs1,
     {{{"-c", "h", "--use-pkcs1-padding=1"}, "option --use-pkcs1-padding takes no argument"}}},
    /* ---- client ---- */
    {"client", {"-c", "example.com%eth0"}, check_client,
     {{{"-c"}, "option -c/--client needs an argument"},
      {{"-c", s256}, "option -c/--client: value is too long (at most 255 characters)"}}},
    {"udp", {"-c", "h", "-u"}, check_udp,
     {{{"-s", "-u"}, "option -u/--udp only applies to a client"}}},
    {"dialect", {"-c", "h", "--dialect", "iperf2"}, check_dialect,
     {{{"-c", "h", "--dialect", "iperf4"},
       "option --dialect: 'iperf4' is not a dialect (iperf2 or iperf3)"},
      {{"-c", "h", "--dialect", s16}, "option --dialect: value is too long (at most 6 "
                                      "characters)"},
      {{"-s", "--dialect", "iperf2"}, "option --dialect only applies to a client"}}},
    {"connect-timeout", {"-c", "h", "--connect-timeout", "2000"}, check_connect_timeout,
     {{{"-c", "h", "--connect-timeout", "-5"},
       "option --connect-timeout: -5 is out of range (0..86400000)"}}},
    {"bitrate", {"-c", "h", "-b", "10M/5"}, check_bitrate,
     {{{"-c", "h", "-b", "10M/0"}, "option -b/--bitrate: burst 0 is out of range (1..1000)"},
      {{"-c", "h", "-b", "10X"}, "option -b/--bitrate: '10X' is not a rate (a number with an "
                                 "optional K, M, G or T suffix)"},
      {{"-c", "h", "-b", "2000T"}, "option -b/--bitrate: 2000T is out of range (0..1000T)"},
      {{"-c", "h", "-b", "1M/x"}, "option -b/--bitrate: 'x' is not a valid burst count"}}},
    {"pacing-timer", {"-c", "h", "--pacing-timer", "500"}, check_pacing_timer,
     {{{"-c", "h", "--pacing-timer", "0"},
       "option --pacing-timer: 0 is out of range (1..1000000)"}}},
    {"fq-rate", {"-c", "h", "--fq-rate", "1G"}, check_fq_rate,
     {{{"-c", "h", "--fq-rate", "fast"}, "option --fq-rate: 'fast' is not a rate (a number "
                                         "with an optional K, M, G or T suffix)"}}},
    {"time", {"-c", "h", "-t", "30"}, check_time,
     {{{"-c", "h", "-t", "90000"}, "option -t/--time: 90000 is out of range (0..86400)"},
      {{"-c", "h", "-t", "2.5"}, "option -t/--time: '2.5' is not an integer"}}},
    {"bytes", {"-c", "h", "-n", "50M"}, check_bytes,
     {{{"-c", "h", "-n", "0"}, "option -n/--bytes: 0 is out of range (1..1024T)"},
      {{"-c", "h", "-n", "5MB"}, "option -n/--bytes: '5MB' is not a size (a number with an "
                                 "optional K, M, G or T suffix)"}}},
    {"blockcount", {"-c", "h", "-k", "100"}, check_blockcount,
     {{{"-c", "h", "-k", "-1"}, "option -k/--blockcount: -1 is out of range (1..1024T)"},
      {{"-c", "h", "--dual", "-k", "1"}, "option -k/--blockcount cannot be used with the "
                                         "iperf2 dialect (it is an iperf3 protocol feature)"}}},
    {"length", {"-c", "h", "-l", "64K"}, check_length,
     {{{"-c", "h", "-l", "2M"}, "option -l/--length: 2M is out of range (1..1M)"},
      {{"-c", "h", "-u", "-l", "70000"},
       "option -l/--length: 70000 is out of range (16..65507) for UDP"},
      {{"-c", "h", "-u", "-l", "8"}, "option -l/--length: 8 is out of range (16..65507) for UDP"}}},
    {"cport", {"-c", "h", "--cport", "4000"}, check_cport,
     {{{"-c", "h", "--cport", "0"}, "option --cport: 0 is out of range (1..65535)"}}},
    {"parallel", {"-c", "h", "-P", "4"}, check_parallel,
     {{{"-c", "h", "-P", "500"}, "option -P/--parallel: 500 is out of range (1..128)"},
      {{"-c", "h", "-P", "0"}, "option -P/--parallel: 0 is out of range (1..128)"}}},
    {"reverse", {"-c", "h", "-R"}, check_reverse,
     {{{"-c", "h", "-R", "--bidir"},
       "options -R/--reverse and --bidir cannot be used together"},
      {{"-s", "-R"}, "option -R/--reverse only applies to a client"}}},
    {"bidir", {"-c", "h", "--bidir"}, check_bidir,
     {{{"-s", "--bidir"}, "option --bidir only applies to a client"},
      {{"-c", "h", "--bidir", "--dual"}, "options --bidir and --dual cannot be used together"}}},
    {"full-duplex", {"-c", "h", "--full-duplex"}, check_full_duplex,
     {{{"-c", "h", "--full-duplex", "--dialect", "iperf3"},
       "option --full-duplex cannot be used with --dialect iperf3 (it exists only in iperf2)"},
      {{"-c", "h", "--full-duplex", "-R"},
       "options -R/--reverse and --full-duplex cannot be used together"}}},
    {"dual", {"-c", "h", "--dual"}, check_dual,
     {{{"-c", "h", "--dual", "--tradeoff"}, "options --dual and --tradeoff cannot be used "
                                            "together"},
      {{"-s", "--dual"}, "option --dual only applies to a client"}}},
    {"tradeoff", {"-c", "h", "--tradeoff"}, check_tradeoff,
     {{{"-c", "h", "--tradeoff", "--compat"},
       "options --compat and --tradeoff cannot be used together"}}},
    {"listen-port", {"-c", "h", "--dual", "--listen-port", "6001"}, check_listen_port,
     {{{"-c", "h", "--listen-port", "70000"},
       "option --listen-port: 70000 is out of range (0..65535)"}}},
    {"compat", {"-c", "h", "--compat"}, check_compat,
     {{{"-c", "h", "--compat", "-R"}, "options --compat and -R/--reverse cannot be used "
                                      "together"}}},
    {"no-udp-fin", {"-c", "h", "-u", "--no-udp-fin"}, check_no_udp_fin,
     {{{"-c", "h", "--no-udp-fin"}, "option --no-udp-fin needs -u/--udp"}}},
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
      {{"-c", "h", "--bounceback", "-u", "-l", "51"}, "option -l/--length: a UDP round-trip probe is 52..65507 bytes "
                                                        "(its header is 52), not 51"},
      {{"-c", "h", "--bounceback", "-l", "63"}, "option -l/--length: a bounceback message is at least 64 bytes "
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
      {{"-c", "h", "--dialect", "iperf3", "--bounceback", "--bounceback-congest"}, "option --bounceback-congest cannot be used with --dialect iperf3 (it exists only in iperf2)"}}},
    {"bounceback-txdelay", {"-c", "h", "--bounceback", "--bounceback-congest", "--bounceback-txdelay", "0.5"}, check_bounceback_txdelay,
     {{{"-c", "h", "--bounceback", "--bounceback-txdelay", "3601"}, "option --bounceback-txdelay: 3601 is out of range (0..3600)"},
      {{"-c", "h", "--bounceback-txdelay", "1"}, "option --bounceback-txdelay needs --bounceback"}}},
    {"ipg", {"-c", "h", "-u", "--isochronous", "--ipg", "0.5"}, check_ipg,
     {{{"-c", "h", "-u", "--isochronous", "--ipg", "1001"}, "option --ipg: 1001 is out of range (0..1000)"},
      {{"-c", "h", "--isochronous", "--ipg", "1"}, "option --ipg spaces a frame's datagrams (-u): over TCP a "
                                                  "frame is written at once"}}},
    {"isochronous", {"-c", "h", "--isochronous=30:5m,100K"}, check_isochronous,
     {{{"-c", "h", "--isochronous", "-l", "91"}, "option -l/--length: a TCP frame's first write holds its "
                                                 "92-byte burst header, not 91 bytes"},
      {{"-c", "h", "--isochronous", "-R"}, "option --isochronous cannot be combined with -R/--reverse"}}},
    {"trip-times", {"-c", "h", "--trip-times"}, check_trip_times,
     {{{"-c", "h", "--trip-times", "--stdin"}, "options --trip-times and --stdin cannot be used "
                                                "together"}}},
    {"file", {"-c", "h", "--dialect", "iperf2", "-F", "data.bin"}, check_file,
     {{{"-c", "h", "-F", "x"}, "option -F/--file needs --dialect iperf2 (linkperf has it "
                               "only over the iperf2 protocol)"},
      {{"-c", "h", "--stdin", "-F", "x"}, "options -F/--file and --stdin cannot be used "
                                          "together"},
      {{"-s", "-F", "x"}, "option -F/--file only applies to a client"}}},
    {"stdin", {"-c", "h", "--stdin"}, check_stdin,
     {{{"-s", "--stdin"}, "option --stdin only applies to a client"}}},
    {"ttl", {"-c", "239.1.1.1", "-u", "--ttl", "4"}, check_ttl,
     {{{"-c", "h", "--ttl", "0"}, "option --ttl: 0 is out of range (1..255)"},
      {{"-c", "h", "--ttl", "256"}, "option --ttl: 256 is out of range (1..255)"}}},
    {"permit-key", {"-c", "h", "--permit-key=secretkey"}, check_permit_key,
     {{{"-c", "h", "--permit-key"}, "option --permit-key requires a value on the client"},
      {{"-c", "h", "--dialect", "iperf3", "--permit-key=abcd"}, "option --permit-key cannot be "
                                                                "used with --dialect iperf3 (it "
                                                                "exists only in iperf2)"},
      {{"-s", "--permit-key=abc"}, "value for --permit-key must have at least 4 characters"}}},
    {"permit-key-timeout", {"-s", "--permit-key", "--permit-key-timeout", "0"},
     check_permit_key_timeout,
     {{{"-s", "--permit-key-timeout", "5"}, "option --permit-key-timeout needs --permit-key"},
      {{"-s", "--permit-key", "--permit-key-timeout", "0.5"}, "option --permit-key-timeout: 0.5 "
                                                              "is out of range (0 or 1..86400)"}}},
    {"window", {"-c", "h", "-w", "256K"}, check_window,
     {{{"-c", "h", "-w", "600M"}, "option -w/--window: 600M is out of range (0..512M)"}}},
    {"congestion", {"-c", "h", "-C", "bbr"}, check_congestion,
     {{{"-c", "h", "-C", s16}, "option -C/--congestion: value is too long (at most 15 "
                               "characters)"}}},
    {"set-mss", {"-c", "h", "-M", "1400"}, check_set_mss,
     {{{"-c", "h", "-M", "40"}, "option -M/--set-mss: 40 is out of range (0 or 88..9216)"},
      {{"-c", "h", "-M", "9217"}, "option -M/--set-mss: 9217 is out of range (0 or 88..9216)"}}},
    {"no-delay", {"-c", "h", "-N"}, check_no_delay,
     {{{"-s", "-N"}, "option -N/--no-delay only applies to a client"}}},
    {"version4", {"-c", "h", "-4"}, check_version4,
     {{{"-c", "h", "--version4=1"}, "option -4/--version4 takes no argument"}}},
    {"version6", {"-s", "-6"}, check_version6,
     {{{"-c", "h", "--version6=1"}, "option -6/--version6 takes no argument"}}},
    {"tos", {"-c", "h", "-S", "0x34"}, check_tos,
     {{{"-c", "h", "-S", "300"}, "option -S/--tos: 300 is out of range (0..255)"},
      {{"-c", "h", "-S", "08"},
       "option -S/--tos: '08' is not an integer (decimal, 0octal or 0xhex)"}}},
    {"dscp", {"-c", "h", "--dscp", "AF11"}, check_dscp,
     {{{"-c", "h", "--dscp", "64"}, "option --dscp: 64 is out of range (0..63)"},
      {{"-c", "h", "--dscp", "AF44"}, "option --dscp: 'AF44' is not a DSCP value "
                                      "(0..63, CS0..CS7, AF11..AF43, EF or VA)"}}},
    {"zerocopy", {"-c", "h", "-Z"}, check_zerocopy,
     {{{"-s", "-Z"}, "option -Z/--zerocopy only applies to a client"}}},
    {"skip-rx-copy", {"-c", "h", "--skip-rx-copy"}, check_skip_rx_copy,
     {{{"-s", "--skip-rx-copy"}, "option --skip-rx-copy only applies to a client"}}},
    {"omit", {"-c", "h", "-O", "2"}, check_omit,
     {{{"-c", "h", "-O", "601"}, "option -O/--omit: 601 is out of range (0..600)"},
      {{"-c", "h", "-O", "-1"}, "option -O/--omit: -1 is out of range (0..600)"},
      {{"-c", "h", "--dialect", "iperf2", "-O", "1"},
       "option -O/--omit cannot be used with the iperf2 dialect (it is an iperf3 protocol "
       "feature)"}}},
    {"title", {"-c", "h", "-T", "lab"}, check_title,
     {{{"-c", "h", "-T", s256}, "option -T/--title: value is too long (at most 255 characters)"}}},
    {"extra-data", {"-c", "h", "--extra-data", "xd"}, check_extra_data,
     {{{"-c", "h", "--extra-data", s1024},
       "option --extra-data: value is too long (at most 1023 characters)"},
      {{"-c", "h", "--compat", "--extra-data", "x"},
       "option --extra-data cannot be used with the iperf2 dialect (it is an iperf3 protocol "
       "feature)"}}},
    {"get-server-output", {"-c", "h", "--get-server-output"}, check_get_server_output,
     {{{"-s", "--get-server-output"}, "option --get-server-output only applies to a client"},
      {{"-c", "h", "--stdin", "--get-server-output"},
       "option --get-server-output cannot be used with the iperf2 dialect (it is an iperf3 "
       "protocol feature)"}}},
    {"udp-counters-64bit", {"-c", "h", "-u", "--udp-counters-64bit"}, check_udp_counters_64bit,
     {{{"-s", "--udp-counters-64bit"}, "option --udp-counters-64bit only applies to a client"},
      {{"-c", "h", "-u", "--ttl", "2", "--udp-counters-64bit"},
       "option --udp-counters-64bit cannot be used with the iperf2 dialect (it is an iperf3 "
       "protocol feature)"}}},
    {"repeating-payload", {"-c", "h", "--repeating-payload"}, check_repeating_payload,
     {{{"-s", "--repeating-payload"}, "option --repeating-payload only applies to a client"},
      {{"-c", "h", "--tradeoff", "--repeating-payload"},
       "option --repeating-payload cannot be used with the iperf2 dialect (it is an iperf3 "
       "protocol feature)"}}},
    {"dont-fragment", {"-c", "h", "-u", "--dont-fragment"}, check_dont_fragment,
     {{{"-s", "--dont-fragment"}, "option --dont-fragment only applies to a client"}}},
    NOT_SUPPORTED("sctp", "--sctp", "-c", "h", "--sctp"),
    NOT_SUPPORTED("xbind", "-X/--xbind", "-c", "h", "-X", "eth0"),
    NOT_SUPPORTED("nstreams", "--nstreams", "-c", "h", "--nstreams", "2"),
    NOT_SUPPORTED("flowlabel", "-L/--flowlabel", "-c", "h", "-L", "5"),
    {"username", {"-c", "h", "--username", "u", "--rsa-public-key-path", "k.pem"}, check_auth_client,
     {{{"-c", "h", "--username", "u"}, "authentication needs both --username and --rsa-public-key-path"},
      {{"-c", "h", "--username", "a b", "--rsa-public-key-path", "k.pem"},
       "option --username: a name of 1 to 255 bytes without spaces or control characters"},
      {{"-c", "h", "--dialect", "iperf2", "--username", "u", "--rsa-public-key-path", "k.pem"},
       "option --username cannot be used with the iperf2 dialect (it is an iperf3 protocol feature)"}}},
    {"rsa-public-key-path", {"-c", "h", "--rsa-public-key-path", "k.pem", "--username", "u"},
     check_auth_client,
     {{{"-c", "h", "--rsa-public-key-path", "k.pem"},
       "authentication needs both --username and --rsa-public-key-path"}}},
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int fill_strings(void **state)
{
    cases_fill_strings(state);
    snprintf(long_ts, sizeof(long_ts), "--timestamps=%070d", 0); /* 70 > 63 */
    return 0;
}

int main(void)
{
    struct case_set set = {lp_cli_options_iperf3(), "linkperf", cases, NCASES};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_every_row_has_a_case, &set),
        cmocka_unit_test_prestate(test_table_is_consistent, &set),
        cmocka_unit_test_prestate(test_valid_values, &set),
        cmocka_unit_test_prestate(test_bad_values, &set),
    };
    return cmocka_run_group_tests(tests, fill_strings, NULL);
}

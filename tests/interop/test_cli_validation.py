#!/usr/bin/env python3
"""Option validation seen from the outside: an invalid command line exits with status 2
at once, prints exactly one line on stderr that names the option (`linkperf: ...`),
prints nothing on stdout, and never touches the network (the target port has a
listener that counts connections)."""

import socket
import threading

from lptest import LINKPERF, LOOP4, Suite, check, eq, run

suite = Suite("cli_validation", needs_iperf3=False)


class Listener:
    """A TCP listener that counts connection attempts (there must be none)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((LOOP4, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.count = 0
        self.stop = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.count += 1
                c.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.t.join(2)
        self.sock.close()


# (case name, arguments after `-c 127.0.0.1 -p PORT` or a full argv, words the line must
# contain)
CASES = [
    ("parallel_500", ["-P", "500"], ["-P", "parallel", "500"]),
    ("time_negative", ["-t", "-1"], ["-t", "time"]),
    ("length_zero", ["-l", "0"], ["-l", "length"]),
    ("bitrate_bad_suffix", ["-b", "10X"], ["-b", "bitrate", "10X"]),
    ("udp_length_too_big", ["-u", "-l", "70000"], ["-l", "70000"]),
    ("window_too_big", ["-w", "600M"], ["-w", "window"]),
    ("tos_256", ["-S", "256"], ["-S", "tos"]),
    ("dscp_unknown_name", ["--dscp", "XX"], ["dscp", "XX"]),
    ("omit_negative", ["-O", "-1"], ["-O", "omit"]),
    ("two_end_conditions", ["-n", "5M", "-t", "3"], ["-t", "-n"]),
    ("unsupported_iperf3_option", ["-F", "x"], ["-F", "file"]),
    ("unknown_option", ["--bogus"], ["--bogus"]),
    # iperf2 habits in the iperf3 spelling: the hint names where the option lives
    ("iperf2_csv_hint", ["-y", "C"], ["-y", "iperf2's", "--iperf2", "linkperf2", "--csv"]),
    ("iperf2_enhanced_hint", ["-e"], ["-e/--enhanced", "iperf2's", "--iperf2"]),
    ("iperf2_tradeoff_hint", ["-r"], ["-r/--tradeoff", "iperf2's", "--iperf2"]),
    ("iperf2_long_hint", ["--reportstyle", "C"], ["--reportstyle", "iperf2's", "--csv"]),
    ("iperf3_json_hint_in_iperf2", ["--iperf2", "-J"], ["-J/--json", "iperf3's", "without --iperf2"]),
]

SERVER_CASES = [
    ("server_with_reverse", ["-s", "-R"], ["-R", "reverse"]),
    ("server_with_parallel", ["-s", "-P", "2"], ["-P"]),
    ("server_and_client", ["-s", "-c", LOOP4], ["-s", "-c"]),
    ("lwip_tune_bad_rate", ["lwip-tune", "--rate", "fast", "--rtt", "2ms"], ["--rate", "fast"]),
    ("lwip_tune_bad_rtt", ["lwip-tune", "--rate", "100M", "--rtt", "-1ms"], ["--rtt"]),
    ("lwip_tune_bad_mss", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--mss", "9000"], ["--mss", "536..1460"]),
    ("lwip_tune_bad_ram", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--ram", "12"], ["--ram"]),
    ("lwip_tune_missing_rtt", ["lwip-tune", "--rate", "100M"], ["--rtt"]),
    ("lwip_tune_unknown", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--wnd", "4"], ["--wnd"]),
    ("lwip_tune_rtt_no_unit", ["lwip-tune", "--rate", "100M", "--rtt", "2"], ["--rtt", "needs a unit", "2ms"]),
    ("lwip_tune_bad_window", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--window", "8segs"],
     ["--window", "8segs"]),
    ("lwip_tune_window_below_mss", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--window", "1000"],
     ["--window", "out of range"]),
    ("lwip_tune_snd_buf_below_2mss", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--snd-buf", "1mss"],
     ["--snd-buf", "out of range"]),
    ("lwip_tune_window_fit", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--ram", "64K", "--fit",
                              "--window", "8mss"], ["--fit", "--window"]),
    ("lwip_tune_fit_no_ram", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--fit"], ["--fit", "--ram"]),
    ("lwip_tune_bad_cpu_mhz", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--cpu-mhz", "0"],
     ["--cpu-mhz", "1..10000"]),
    ("lwip_tune_bad_cpu_api", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--cpu-mhz", "168",
                               "--cpu-api", "lwip"], ["--cpu-api", "raw, netconn or socket"]),
    ("lwip_tune_cpu_api_alone", ["lwip-tune", "--rate", "100M", "--rtt", "2ms", "--cpu-api", "raw"],
     ["--cpu-api", "--cpu-mhz"]),
]


def check_rejected(argv, words, listener):
    r = run([LINKPERF] + argv, timeout=10)
    eq(r.rc, 2, "exit status of linkperf %s" % " ".join(argv), r.describe())
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    eq(len(lines), 1, "stderr lines for %s" % " ".join(argv), r.describe())
    line = lines[0]
    check(line.startswith("linkperf: "), "error line lacks the 'linkperf: ' prefix: %r"
          % line)
    for w in words:
        check(w in line, "error line for %s does not mention %r: %r" % (
            " ".join(argv), w, line))
    eq(r.out, "", "stdout for %s" % " ".join(argv))
    check(r.elapsed < 5, "rejection took %.1f s" % r.elapsed)
    if listener is not None:
        eq(listener.count, 0, "connections made by a rejected command line")


def make_client_case(name, extra, words):
    def case():
        lst = Listener()
        try:
            check_rejected(["-c", LOOP4, "-p", str(lst.port)] + extra, words, lst)
        finally:
            lst.close()
    case.__name__ = name
    case.__doc__ = "linkperf -c HOST %s: exit 2, one line naming %s." % (
        " ".join(extra), "/".join(words))
    return case


def make_server_case(name, argv, words):
    def case():
        check_rejected(argv, words, None)
    case.__name__ = name
    case.__doc__ = "linkperf %s: exit 2, one line naming %s." % (" ".join(argv),
                                                                 "/".join(words))
    return case


for _c in CASES:
    suite.case(make_client_case(*_c))
for _c in SERVER_CASES:
    suite.case(make_server_case(*_c))


@suite.case
def valid_line_still_runs():
    """Sanity check of the harness: a valid command line against the counting listener
    does connect (so 'no connection' above means something)."""
    lst = Listener()
    try:
        r = run([LINKPERF, "-c", LOOP4, "-p", str(lst.port), "-t", "1"], timeout=15)
        check(lst.count >= 1, "a valid client did not connect", r.describe())
        eq(r.rc, 1, "exit status when the 'server' closes at once", r.describe())
    finally:
        lst.close()


def check_start_failure(extra):
    """A client that cannot start (no descriptor left for its event loop or its workers'
    loops: RLIMIT_NOFILE 4 leaves one above stdio, which the dynamic loader needs) says why,
    in the engine's words with the system's reason, not "cannot start the client"."""
    import errno
    import os
    lst = Listener()
    try:
        argv = [LINKPERF, "-c", LOOP4, "-p", str(lst.port), "-t", "1", "--no-history"] + extra
        r = run(["sh", "-c", 'ulimit -n 4 && exec "$0" "$@"'] + argv, timeout=10)
        eq(r.rc, 1, "exit status of a client that cannot start", r.describe())
        lines = [ln for ln in r.err.splitlines() if ln.strip()]
        eq(len(lines), 1, "stderr lines", r.describe())
        reason = os.strerror(errno.EMFILE)
        check(lines[0] in ("linkperf: cannot create the event loop: " + reason,
                           "linkperf: cannot start worker threads: " + reason),
              "the line names what failed and why: %r" % lines[0], r.describe())
        eq(lst.count, 0, "connections made by a client that could not start")
    finally:
        lst.close()


@suite.case
def client_start_failure_says_why():
    """linkperf -c with no descriptors to spare: exit 1 and one line with the engine's
    reason (lp_client_new's error text), iperf3 dialect."""
    check_start_failure([])


@suite.case
def client_start_failure_says_why_iperf2():
    """The same with --iperf2 (the iperf2 client's constructor)."""
    check_start_failure(["--iperf2"])


@suite.case
def lwip_tune_prints_lwipopts():
    """linkperf lwip-tune --rate 100M --rtt 2ms --ram 64K: lwipopts.h lines whose numbers
    follow from the link (window >= BDP = 25000 bytes, in whole MSS), and the RAM warning
    with a smaller window that fits and its window/RTT cap"""
    import re
    r = run([LINKPERF, "lwip-tune", "--rate", "100M", "--rtt", "2ms", "--ram", "64K"], timeout=10)
    eq(r.rc, 0, "exit status", r.describe())
    vals = {k: int(v) for k, v in re.findall(r"^#define (\w+)\s+(\d+)", r.out, re.M)}
    for k in ("TCP_MSS", "TCP_WND", "TCP_SND_BUF", "TCP_SND_QUEUELEN", "MEMP_NUM_TCP_SEG",
              "PBUF_POOL_SIZE", "MEM_SIZE"):
        check(k in vals, "no %s line" % k, r.describe())
    # The DMA descriptors are the driver's: not lwipopts.h lines, but advice in a comment under
    # the names the HALs use (STM32Cube's in its hal_conf.h), the same counts for each.
    check("ETH_RX_DESC_CNT" not in vals, "a descriptor count as a lwipopts.h line", r.describe())
    desc = dict(re.findall(r"^ \*\s+#define (ETH_[RT]X_DESC_CNT) (\d+)U$", r.out, re.M))
    eq(sorted(desc), ["ETH_RX_DESC_CNT", "ETH_TX_DESC_CNT"], "STM32Cube descriptor lines", r.describe())
    rx, tx = int(desc["ETH_RX_DESC_CNT"]), int(desc["ETH_TX_DESC_CNT"])
    for name_rx, name_tx in (("n_rx_descriptors", "n_tx_descriptors"), ("ENET_RXBD_NUM", "ENET_TXBD_NUM")):
        m = re.search(r"%s (\d+), %s (\d+)" % (name_rx, name_tx), r.out)
        check(m and (int(m.group(1)), int(m.group(2))) == (rx, tx), "no %s line with %d/%d" % (name_rx, rx, tx),
              r.describe())
    # 100 Mbit/s: a 1538-byte frame every 123 us, 1 ms of task latency = 9 frames, + 1
    eq(rx, 10, "RX descriptors", r.describe())
    check(vals["PBUF_POOL_SIZE"] >= vals["TCP_WND"] // vals["TCP_MSS"] + rx, "pool below window + ring",
          r.describe())
    eq(vals["TCP_WND"] % vals["TCP_MSS"], 0, "TCP_WND in whole segments", r.describe())
    check(vals["TCP_WND"] >= 25000, "TCP_WND %d below the BDP" % vals["TCP_WND"], r.describe())
    check(vals["MEMP_NUM_TCP_SEG"] >= vals["TCP_SND_QUEUELEN"], "segments < queue", r.describe())
    m = re.search(r"largest that fits is TCP_WND = TCP_SND_BUF = (\d+) .* caps TCP at about ([\d.]+) Mbit/s",
                  r.out.replace("\n *", ""))
    check(m, "no RAM warning with a window that fits", r.describe())
    fit = int(m.group(1))
    check(fit < vals["TCP_WND"], "the window that fits is not smaller", r.describe())
    check(abs(float(m.group(2)) - fit * 8 / 0.002 / 1e6) < 0.2, "cap is not window/RTT", r.describe())



@suite.case
def dash_d_note():
    """-d keeps iperf3's meaning (--debug) but says once on stderr that iperf2's dual test is
    --bidir here; --debug, and -d with --iperf2 (the dual test), print no such note"""
    lst = Listener()
    try:
        port = str(lst.port)
        note = "iperf2's dual test is --bidir here"
        for argv, want in ((["-d"], True), (["--debug"], False), (["--iperf2", "-d"], False)):
            r = run([LINKPERF, "-c", LOOP4, "-p", port, "-t", "1"] + argv, timeout=20)
            eq(r.err.count(note), 1 if want else 0, "the -d note for %s" % argv, r.describe())
    finally:
        lst.close()


@suite.case
def unknown_congestion_named_before_connecting():
    """-C nosuchcc (iperf2: -Z): exit 1 with TCP_CONGESTION, the name and what this host allows,
    before any connection (iperf3's words; linkperf used to say "unable to connect stream: No
    such file or directory" after the server had started the test)"""
    lst = Listener()
    try:
        port = str(lst.port)
        for argv in (["-C", "nosuchcc"], ["--iperf2", "-Z", "nosuchcc"]):
            r = run([LINKPERF, "-c", LOOP4, "-p", port, "-t", "1"] + argv, timeout=20)
            eq(r.rc, 1, "exit status for %s" % argv, r.describe())
            for w in ("unable to set TCP_CONGESTION", "'nosuchcc'", "allowed: "):
                check(w in r.err, "no '%s' in the error for %s" % (w, argv), r.describe())
        eq(lst.count, 0, "connections made", "")
    finally:
        lst.close()


@suite.case
def version_lists_features():
    """linkperf -v: iperf3's three lines, the third "Optional features available: ..." in
    iperf3's words, listing a feature exactly when --help does not list its option among the
    unsupported ones (CPU affinity -A, SCTP: not; -C, -Z, --fq-rate: yes); linkperf2 -v
    stays 2.1.8's one line on stderr (JPerf reads it)"""
    r = run([LINKPERF, "-v"], timeout=10)
    eq(r.rc, 0, "exit status", r.describe())
    lines = r.out.splitlines()
    eq(len(lines), 3, "lines of -v", r.describe())
    check(lines[2].startswith("Optional features available: "), "no features line", r.describe())
    feats = lines[2].split(": ", 1)[1].split(", ")
    h = run([LINKPERF, "--help"], timeout=10)
    unsupported = h.out.split("options that linkperf does not support:", 1)[1].split("\n\n")[0].split()
    for opt, feat in (("-A", "CPU affinity setting"), ("--sctp", "SCTP"), ("-L", "IPv6 flow label"),
                      ("-C", "TCP congestion algorithm setting"), ("-Z", "sendfile / zerocopy"),
                      ("--fq-rate", "socket pacing"), ("--bind-dev", "bind to device")):
        eq(feat in feats, opt not in unsupported, "%s listed as a feature" % feat, lines[2])
    for feat in ("iperf2 protocol 2.1.8 (JPerf)", "web UI (linkperf ui)", "RFC 2544"):
        check(feat in feats, "%s not listed" % feat, lines[2])
    r2 = run([LINKPERF + "2", "-v"], timeout=10)
    eq((r2.out, len(r2.err.splitlines())), ("", 1), "linkperf2 -v: one line on stderr", r2.describe())
    check(r2.err.startswith("iperf version 2.1.8 "), "linkperf2 -v line", r2.describe())


@suite.case
def lwip_tune_window_delivers():
    """linkperf lwip-tune --rate 100M --rtt 2ms --window 8mss --snd-buf 64K: the board receives at
    most 8 x 1460 x 8 / 2 ms = 46.7 Mbit/s (window / RTT), sends at most the wire's goodput
    (64K covers the 25000-byte BDP), and the pools printed are the given window's"""
    import re
    r = run([LINKPERF, "lwip-tune", "--rate", "100M", "--rtt", "2ms", "--window", "8mss", "--snd-buf", "64K",
             "--ram", "64K"], timeout=10)
    eq(r.rc, 0, "exit status", r.describe())
    text = r.out.replace("\n *  ", "")
    vals = {k: int(v) for k, v in re.findall(r"^#define (\w+)\s+(\d+)", r.out, re.M)}
    eq(vals["TCP_WND"], 8 * 1460, "TCP_WND as given", r.describe())
    eq(vals["TCP_SND_BUF"], 65536, "TCP_SND_BUF as given", r.describe())
    eq(vals["TCP_SND_QUEUELEN"], -(-4 * 65536 // 1460), "lwIP's queue rule", r.describe())
    m = re.search(r"board receiving \(the PC sends\): at most ([\d.]+) Mbit/s = TCP_WND / RTT", text)
    check(m, "no receive cap", r.describe())
    check(abs(float(m.group(1)) - 8 * 1460 * 8 / 0.002 / 1e6) < 0.1, "receive cap is not window/RTT", r.describe())
    m = re.search(r"board sending: at most ([\d.]+) Mbit/s, the wire's TCP goodput", text)
    check(m, "no send cap at the wire's goodput", r.describe())
    check(abs(float(m.group(1)) - 100 * 1460 / 1538) < 0.1, "send cap is not the goodput", r.describe())
    m = re.search(r"RAM: .* = (\d+) bytes", r.out)
    check(m, "no RAM line", r.describe())
    ram = int(m.group(1))
    if ram <= 65536:
        check("fits the RAM budget" in r.out, "no fits line for %d bytes" % ram, r.describe())
    else:
        check("needs %d bytes more" % (ram - 65536) in r.out, "no RAM warning for %d bytes" % ram, r.describe())


if __name__ == "__main__":
    suite.main()

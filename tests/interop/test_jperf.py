#!/usr/bin/env python3
"""linkperf as JPerf's `iperf` (issue 14): a link named `iperf` to linkperf, run the way JPerf
runs its binary, with JPerf's parsing rules (jperflib.py, from JPerf 2.0.2's source) replayed
over what it prints. A JPerf chart plots a row only if it matches JPerf's regex, splits into
9 (or 14) pieces and spans no more than the report interval; so every interval row of every
stream must pass, in every JPerf mode, also with the machine busy.

- version_reads_2_1: `iperf -v` (and `iperf.exe -v`, `linkperf2 -v`) is read as version 2.1,
  as stock's; named iperf3 it is iperf3 mode.
- client_modes: against `linkperf -s` and stock `iperf -s`: TCP -i 1, -i 2, -P 2, UDP, Dual
  (-d) and Trade (-r): each stream has exactly t/i plotted rows and one summary.
- sums_as_stock: [SUM] rows of -d, --full-duplex and -P 2 -d as many as stock's client prints.
- client_under_load: TCP and -P 2 while two CPU hogs run: still t/i plotted rows per stream.
- server_modes: `iperf -s -P 0 -i 1 -f k` (JPerf's server line) with stock clients, TCP and
  -P 2: t/i plotted rows per stream; UDP: the rows split as stock 2.1.8's do (13 pieces: JPerf
  plots neither; see docs/COMPATIBILITY.md).
- jperf_command_lines: the command lines JPerf builds from its form (decimals with unit
  letters, -P on the server, -L for Dual/Trade) start and print data rows."""

import os
import re
import subprocess
import sys
import time

import iperf2lib as i2
import jperflib as jp
import lptest
from lptest import Suite, check, eq

suite = Suite("jperf", needs_iperf3=False)


def jperf_iperf():
    """A directory with `iperf` and `iperf.exe` links to linkperf (what a JPerf user makes)."""
    d = lptest.tmp_path("jperf-bin")
    os.makedirs(d, exist_ok=True)
    for name in ("iperf", "iperf.exe", "iperf3"):
        p = os.path.join(d, name)
        if not os.path.islink(p):
            os.symlink(lptest.LINKPERF, p)
    return os.path.join(d, "iperf")


def run(argv, timeout=40):
    return lptest.run(argv, timeout=timeout)


def check_points(text, interval, streams, count, what, *ctx):
    """Every stream has `count` plotted rows and a summary; the rows are the schedule."""
    pts = jp.points(text, interval)
    sums = jp.summaries(text, interval)
    eq(sorted(pts), sorted(streams), "%s: streams with plotted rows" % what, text, *ctx)
    for sid in streams:
        eq(len(pts[sid]), count, "%s: plotted rows of stream %d" % (what, sid), text, *ctx)
        check(sid in sums, "%s: no summary row for stream %d" % (what, sid), text, *ctx)


def ids_of(text):
    """Stream ids of the data rows, in order of appearance."""
    seen = []
    for r in jp.rows(text, 1e9):
        if r.id is not None and r.id not in seen:
            seen.append(r.id)
    return seen


@suite.case
def version_reads_2_1():
    iperf = jperf_iperf()
    for argv in ([iperf, "-v"], [iperf + ".exe", "-v"], [lptest.LINKPERF + "2", "-v"],
                 [i2.IPERF2, "-v"]):
        r = run(argv, timeout=10)
        eq(jp.version(r.out, r.err), 2.1, "JPerf's version of %s" % argv[0], r.describe())
    r = run([iperf + "3", "-v"], timeout=10)
    check("iperf3" in r.out, "named iperf3, linkperf is not in iperf3 mode", r.describe())


MODES = (
    # (name, extra args, t, i, streams: how many ids the client prints rows for)
    ("tcp", [], 4, 1, 1),
    ("tcp -i 2", [], 4, 2, 1),
    ("tcp -P 2", ["-P", "2"], 3, 1, 2),
    ("udp", ["-u", "-b", "10M"], 3, 1, 1),
)


def client_case(server_kind, name, extra, t, i, nstreams, load=False):
    udp = "-u" in extra
    srv = i2.start_server(server_kind, ["-u"] if udp else [], udp=udp)
    streams = [] if "-P" in extra else ["-P", "1"]  # JPerf always writes -P
    argv = [jperf_iperf(), "-c", lptest.LOOP4] + streams + ["-i", str(i), "-p", srv.port, "-f",
                                                         "k", "-t", str(t)] + extra
    r = run(argv, timeout=t + 30)
    what = "%s -> %s%s" % (name, server_kind, " (loaded)" if load else "")
    check(r.rc == 0, "%s: client failed" % what, r.describe())
    ids = ids_of(r.out)
    eq(len(ids), nstreams, "%s: stream ids %s" % (what, ids), r.describe())
    check_points(r.out, i, ids, t // i, what, r.describe())


@suite.case
def client_modes():
    for kind in ("linkperf", "iperf"):
        for name, extra, t, i, n in MODES:
            client_case(kind, name, extra, t, i, n)


@suite.case
def dual_and_trade():
    """-d: both directions' rows on the schedule, one summary each; -r: the second leg's rows
    too (printed while it runs), and its own summary. Each leg's rows and summary start at
    0.0000 on its own clock, as 2.1.8 runs a leg as a test of its own; the first leg's
    summary comes before the second leg's first row."""
    for kind in ("linkperf", "iperf"):
        for mode in ("-d", "-r"):
            srv = i2.start_server(kind)
            lport = lptest.free_port()
            r = run([jperf_iperf(), "-c", lptest.LOOP4, "-P", "1", "-i", "1", "-p", srv.port,
                     "-f", "k", "-t", "3", mode, "-L", lport], timeout=60)
            check(r.rc == 0, "%s -> %s: client failed" % (mode, kind), r.describe())
            ids = ids_of(r.out)
            eq(len(ids), 2, "%s -> %s: stream ids %s" % (mode, kind, ids), r.describe())
            check_points(r.out, 1, ids, 3, "%s -> %s" % (mode, kind), r.describe())
            if mode == "-r":
                legs = [[x for x in jp.rows(r.out, 1) if x.id == sid] for sid in ids]
                for n, leg in enumerate(legs):
                    eq([x.start for x in leg if not x.summary], [0.0, 1.0, 2.0],
                       "-r -> %s: leg %d row starts" % (kind, n + 1), r.describe())
                    eq([x.start for x in leg if x.summary], [0.0],
                       "-r -> %s: leg %d summary start" % (kind, n + 1), r.describe())
                lines = r.out.splitlines()
                check(lines.index(next(x for x in legs[0] if x.summary).line) <
                      lines.index(legs[1][0].line), "-r -> %s: the first leg's summary comes "
                      "after the second leg's rows" % kind, r.describe())


SUM_SPAN = re.compile(r"^\[SUM\]\s+(\d+\.\d+)-\s*(\d+\.\d+) sec", re.M)


@suite.case
def sums_as_stock():
    """[SUM] rows as a stock 2.1.8 client prints them, against a stock server: -d makes none
    with one stream each way, --full-duplex only the final one and none with -i, -P 2 -d one
    per interval and a final one. Counted for stock and for linkperf in the same run: the
    final [SUM]s exactly, the interval ones as none or some (how many intervals a loaded
    stock client closes with a [SUM] varies: CI saw it print 1 of 2 for -d -P 2 -i 1)."""
    for args in (["-d", "-t", "1"], ["-d", "-t", "2", "-i", "1"], ["--full-duplex", "-t", "1"],
                 ["--full-duplex", "-t", "2", "-i", "1"], ["-d", "-P", "2", "-t", "2", "-i", "1"]):
        counts = {}
        for exe in (i2.IPERF2, jperf_iperf()):
            # A server of its own for each client: one test cannot leave the next a stock
            # server still busy with it.
            srv = i2.start_server("iperf")
            extra = ["-L", lptest.free_port()] if "-d" in args else []
            r = run([exe, "-c", lptest.LOOP4, "-p", srv.port, "-f", "m"] + args + extra,
                    timeout=30)
            check(r.rc == 0, "%s %s failed" % (exe, args), r.describe())
            sums = [(float(a), float(b)) for a, b in SUM_SPAN.findall(r.out)]
            last = max((b for _, b in sums), default=0.0)
            finals = sum(1 for a, b in sums if a == 0.0 and b > last - 0.5)
            counts[exe] = (finals, len(sums) > finals)
            srv.proc.kill()
        eq(counts[jperf_iperf()], counts[i2.IPERF2], "([SUM] rows from 0.0, any interval [SUM]) "
           "for %s (linkperf vs stock)" % " ".join(args))


class Hogs:
    """Two busy processes (the machine's two cores), stopped by PID."""

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                      for _ in range(os.cpu_count() or 2)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()
        return False


@suite.case
def client_under_load():
    with Hogs():
        for name, extra, t, i, n in MODES[:3]:
            client_case("linkperf", name, extra, t, i, n, load=True)


@suite.case
def server_modes():
    for extra, nstreams in (([], 1), (["-P", "2"], 2)):
        port = lptest.free_port()
        srv = lptest.Proc([jperf_iperf(), "-s", "-P", "0", "-i", "1", "-p", port, "-f", "k"], 60,
                          name="iperf-s")
        check(i2.wait_bound(srv, port, udp=False), "the server did not start", srv.tail())
        r = i2.run_client("iperf", port, ["-t", "3", "-i", "1"] + extra)
        end = time.monotonic() + 10
        while time.monotonic() < end and len(jp.summaries(srv.stdout, 1)) < nstreams:
            time.sleep(0.05)
        ids = ids_of(srv.stdout)
        eq(len(ids), nstreams, "server %s: stream ids %s" % (extra, ids), srv.stdout)
        check_points(srv.stdout, 1, ids, 3, "server %s" % extra, srv.stdout, r.describe())
        srv.kill()
    # UDP: compare with stock 2.1.8's server rows (13 pieces, which JPerf does not plot).
    pieces = {}
    for kind in ("linkperf", "iperf"):
        port = lptest.free_port()
        exe = [jperf_iperf()] if kind == "linkperf" else [i2.IPERF2]
        srv = lptest.Proc(exe + ["-s", "-u", "-P", "0", "-i", "1", "-p", port, "-l", "1500.0B",
                                 "-f", "k"], 60, name=kind + "-s")
        check(i2.wait_bound(srv, port, udp=True), "the UDP server did not start", srv.tail())
        i2.run_client("iperf", port, ["-u", "-b", "1M", "-t", "3", "-i", "1"])
        end = time.monotonic() + 10
        while time.monotonic() < end and not jp.rows(srv.stdout, 1):
            time.sleep(0.05)
        time.sleep(0.5)
        pieces[kind] = sorted({len(r.pieces) for r in jp.rows(srv.stdout, 1)})
        srv.kill()
    eq(pieces["linkperf"], pieces["iperf"], "UDP server rows' piece counts (JPerf's split)")


JPERF_LINES = (
    # What JPerf 2.0.2 builds (jperf.md §2): spinner decimals with unit letters.
    ["-c", "HOST", "-P", "1", "-i", "1", "-p", "PORT", "-f", "k", "-t", "1"],
    ["-c", "HOST", "-P", "1", "-i", "1", "-p", "PORT", "-l", "2.0M", "-f", "k", "-t", "1"],
    ["-c", "HOST", "-P", "1", "-i", "1", "-p", "PORT", "-w", "56.0K", "-M", "1.0K", "-N", "-f",
     "k", "-t", "1"],
    ["-c", "HOST", "-P", "1", "-i", "1", "-p", "PORT", "-M", "1460.0B", "-f", "m", "-n", "10"],
    ["-c", "HOST", "-u", "-P", "1", "-i", "1", "-p", "PORT", "-l", "1500.0B", "-w", "41.0K",
     "-f", "k", "-b", "1.0M", "-t", "1"],
    ["-c", "HOST", "-u", "-P", "1", "-i", "1", "-p", "PORT", "-l", "1.0K", "-f", "k", "-b",
     "512.0K", "-t", "1", "-T", "1"],
    ["-c", "HOST", "-P", "1", "-i", "1", "-p", "PORT", "-l", "16.0K", "-f", "k", "-t", "1",
     "-S", "0x10"],
)


@suite.case
def jperf_command_lines():
    srv = i2.start_server("iperf", ["-u"], udp=True)
    tcp = i2.start_server("iperf")
    for line in JPERF_LINES:
        port = srv.port if "-u" in line else tcp.port
        argv = [jperf_iperf()] + [lptest.LOOP4 if a == "HOST" else port if a == "PORT" else a
                                  for a in line]
        r = run(argv, timeout=30)
        check(r.rc == 0 and jp.rows(r.out, 1), "JPerf's line %s did not run" % " ".join(line),
              r.describe())


if __name__ == "__main__":
    suite.main()

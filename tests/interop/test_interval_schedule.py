#!/usr/bin/env python3
"""Interval reports on the schedule (issue 14 item 3), in both dialects.

iperf2 look (linkperf --iperf2, client and server, TCP and UDP, -P 2, -i 1 and -i 0.5,
against stock iperf 2.1.8): every interval row carries the schedule's boundaries as 2.1.8
prints them (1.0000-2.0000): its start is a multiple of -i, rows follow each other, every row
but a stream's last spans exactly -i (JPerf takes a row longer than -i for the summary and
does not plot it), the last ends no later than its summary row, and the rows' bytes add up
to the summary's.

iperf3 mode under a CPU hog the test runs itself (stress-ng, or python spinners): the
deadlines are start + k*i, so the edges do not drift. Asserted without a timing tolerance
on any single edge (a loaded machine may stall a timer): no edge comes early, the later edges
come back to the schedule (the smallest error over the second half of the test is under a
tenth of an interval; with deadlines taken from the last cut every edge there carries the
sum of all the earlier lateness), and the interval bytes add up to the summary's.
"""
import math
import os

import iperf2lib as L
import lptest
from lptest import check, eq

suite = lptest.Suite("interval_schedule", needs_iperf3=False)

EPS = 1e-9


def on_grid(x, i):
    return abs(x / i - round(x / i)) < 1e-6


def check_iperf2_rows(text, i, what, ctx):
    """Every own row of every stream (and [SUM]) of iperf2 text printed with -f B."""
    p = L.parse(text)
    fins = L.finals(p)
    keys = [k for k in fins]
    check(keys, "%s: no summary row" % what, ctx)
    nrows = 0
    for key in keys:
        fin = fins[key]
        ivs = L.intervals(p, key)
        tag = "%s [%s%s]" % (what, "*" if key[0] else "", key[1])
        check(len(ivs) >= 2, "%s: %d interval rows" % (tag, len(ivs)), ctx)
        t = 0.0
        for n, r in enumerate(ivs):
            last = n == len(ivs) - 1
            check(r["start"] == t, "%s: row %r does not start where the previous ended (%.4f)"
                  % (tag, r["line"], t), ctx)
            check(on_grid(r["start"], i), "%s: row %r starts off the -i %g schedule"
                  % (tag, r["line"], i), ctx)
            # JPerf's test, in doubles: end - start > i is a summary.
            check(r["end"] - r["start"] <= i, "%s: row %r is longer than -i %g (JPerf would "
                  "take it for the summary)" % (tag, r["line"], i), ctx)
            check(r["end"] > r["start"], "%s: empty row %r" % (tag, r["line"]), ctx)
            if not last:
                check(on_grid(r["end"], i) and abs(r["end"] - r["start"] - i) < EPS,
                      "%s: row %r is not one whole interval on the schedule" % (tag, r["line"]),
                      ctx)
            t = r["end"]
        check(t <= fin["end"] + 1e-4, "%s: the last row ends at %.4f, after the summary's %.4f"
              % (tag, t, fin["end"]), ctx)
        eq(sum(r["bytes"] for r in ivs), fin["bytes"], "%s: interval bytes vs summary" % tag,
           ctx)
        nrows += len(ivs)
    return nrows


def iperf2_case(linkperf_end, udp, i, args, streams=2):
    L.require_iperf2()
    lp_args = ["-i", str(i), "-f", "B"]
    if linkperf_end == "client":
        srv = L.start_server("iperf", ["-u"] if udp else [], udp=udp)
        cres = L.run_client("linkperf", srv.port, list(args) + lp_args)
        text, ctx = cres.out, cres.describe()
    else:
        srv = L.start_server("linkperf", lp_args, udp=udp)
        cres = L.run_client("iperf", srv.port, list(args) + ["-i", "1"])

        def done(t):
            return len(L.finals(L.parse(t))) >= streams + (1 if streams > 1 else 0)
        text = srv.wait_for(done)
        lptest.time.sleep(0.3)
        text = srv.stdout
        ctx = "%s\n%s" % (cres.describe(), srv.proc.tail(40))
    srv.stop()
    n = check_iperf2_rows(text, i, "linkperf %s" % linkperf_end, ctx)
    check(n >= 4, "too few rows checked (%d)" % n, ctx)


@suite.case
def iperf2_tcp_client():
    """linkperf --iperf2 -c -P 2 -i 0.5 -t 2.7: rows 0.0000-0.5000 ... 2.5000-2.7xxx"""
    iperf2_case("client", False, 0.5, ["-t", "2.7", "-P", "2"])


@suite.case
def iperf2_tcp_server():
    """linkperf --iperf2 -s -i 1, stock -c -P 2 -t 3 (the end just after a boundary)"""
    iperf2_case("server", False, 1, ["-t", "3", "-P", "2"])


@suite.case
def iperf2_tcp_server_half():
    """linkperf --iperf2 -s -i 0.5, stock -c -P 2 -t 2.3"""
    iperf2_case("server", False, 0.5, ["-t", "2.3", "-P", "2"])


@suite.case
def iperf2_udp_client():
    """linkperf --iperf2 -c -u -P 2 -i 1 -t 2.6"""
    iperf2_case("client", True, 1, ["-u", "-b", "10M", "-t", "2.6", "-P", "2"])


@suite.case
def iperf2_udp_server():
    """linkperf --iperf2 -s -i 0.5, stock -c -u -P 2 -t 2.3"""
    iperf2_case("server", True, 0.5, ["-u", "-b", "10M", "-t", "2.3", "-P", "2"])


@suite.case
def iperf2_tcp_client_single():
    """linkperf --iperf2 -c -i 1 -t 3.5, the stock example: 3.0000-3.50xx, then 0.0000-3.50xx"""
    iperf2_case("client", False, 1, ["-t", "3.5"], streams=1)


# --------------------------------------------------------------------------- iperf3 under load

def check_i3_schedule(doc, i, total_bytes, what, ctx):
    ivs = [x["sum"] for x in doc["intervals"] if not x["sum"].get("omitted")]
    check(len(ivs) >= 10, "%s: %d intervals" % (what, len(ivs)), ctx)
    errs = []
    t = 0.0
    k = 0  # the schedule's boundaries passed: a row of a timer late by over an interval
    for n, s in enumerate(ivs):  # covers the boundaries it missed (CI: one row of 1.0 s)
        check(abs(s["start"] - t) < 2e-6, "%s: interval %d starts at %.6f, the previous ended "
              "at %.6f" % (what, n, s["start"], t), ctx)
        t = s["end"]
        # the boundaries this row's end has passed: a late row ends past the last one it covers
        k = max(k + 1, int(math.floor((s["end"] + 2e-6) / i)))
        if n < len(ivs) - 1:
            e = s["end"] - k * i
            check(e > -2e-6, "%s: edge %d at %.6f, before its deadline %.6f" % (
                what, n + 1, s["end"], k * i), ctx)
            errs.append(e)
    shown = " ".join("%.1f" % (e * 1e3) for e in errs)
    later = errs[len(errs) // 2:]
    check(min(later) < 0.1 * i, "%s: the edges drift: every edge of the second half is over "
          "a tenth of an interval late (errors in ms: %s)" % (what, shown), ctx)
    # Deadlines taken from the last cut add each timer's lateness to every later edge: the
    # errors only grow. On the schedule each edge is as late as its own timer was, and some
    # later edge is earlier than the one before it (or they all sit at the same lateness).
    steps = [b - a for a, b in zip(errs, errs[1:])]
    check(min(steps) < -2e-5 or errs[-1] - errs[0] < 1e-3, "%s: the edges drift: their "
          "errors grow at every interval, by %.2f ms in all (errors in ms: %s)"
          % (what, (errs[-1] - errs[0]) * 1e3, shown), ctx)
    eq(sum(x["sum"]["bytes"] for x in doc["intervals"] if not x["sum"].get("omitted")),
       total_bytes, "%s: interval bytes vs summary" % what, ctx)
    print("        %s: edge errors (ms) %s" % (what, shown))


@suite.case
def iperf3_client_under_load():
    """linkperf -c -O 1 -i 0.1 -t 4 to stock iperf3 -s, every core busy"""
    lptest.require(os.access(lptest.IPERF3, os.X_OK), "stock iperf3 not found")
    with lptest.cpu_hog():
        srv = lptest.start_server("iperf3", ["-1"])
        r = lptest.run_client("linkperf", lptest.LOOP4, srv.port,
                              ["-t", "4", "-i", "0.1", "-O", "1", "-J"], timeout=40)
        srv.finish(20)
    eq(r.rc, 0, "client exit status", r.describe())
    doc = r.json()
    check_i3_schedule(doc, 0.1, doc["end"]["sum_sent"]["bytes"], "client", r.describe())


@suite.case
def iperf3_server_under_load():
    """stock iperf3 -c -t 4 to linkperf -s -i 0.1 (the server's own schedule), cores busy"""
    lptest.require(os.access(lptest.IPERF3, os.X_OK), "stock iperf3 not found")
    with lptest.cpu_hog():
        srv = lptest.start_server("linkperf", ["-1", "-i", "0.1", "-J"])
        r = lptest.run_client("iperf3", lptest.LOOP4, srv.port, ["-t", "4"], timeout=40)
        srv.finish(20)
    eq(r.rc, 0, "client exit status", r.describe())
    doc = srv.json()
    ctx = "%s\n%s" % (r.describe(), srv.proc.tail())
    check_i3_schedule(doc, 0.1, doc["end"]["sum_received"]["bytes"], "server", ctx)


@suite.case
def iperf3_udp_reverse_under_load():
    """linkperf -c -u -R -i 0.1 -t 4 to linkperf -s: the receiving client, cores busy"""
    with lptest.cpu_hog():
        srv = lptest.start_server("linkperf", ["-1"])
        r = lptest.run_client("linkperf", lptest.LOOP4, srv.port,
                              ["-u", "-b", "50M", "-R", "-t", "4", "-i", "0.1", "-J"], timeout=40)
        srv.finish(20)
    eq(r.rc, 0, "client exit status", r.describe())
    doc = r.json()
    check_i3_schedule(doc, 0.1, doc["end"]["sum_received"]["bytes"], "client", r.describe())


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""iperf2 --histograms / --udp-histograms against stock iperf 2.1.8: the PDF lines are the
server's own output (nothing changes on the wire), so both ways are checked on the numbers
each server prints. A linkperf server prints 2.1.8's F8 (TCP bursts) and T8 (UDP datagrams)
lines under each report of a --trip-times test: each line's count equals the samples of the
report row above it (bursts, datagrams received), its bins plus its out-of-bounds samples sum
to that count, and the intervals add up to the final (f) line. A stock server's lines count
exactly the bursts and datagrams linkperf's client sent. -J carries the same bins."""
import json
import os
import re
import shutil
import time

import lptest
from lptest import check, eq

IPERF2 = shutil.which("iperf") or "/usr/bin/iperf"
LOOP = lptest.LOOP4

suite = lptest.Suite("iperf2_histograms", needs_iperf3=False)

# "[  1] 0.0000-1.0000 sec F8-PDF: bin(w=100us):cnt(13013)=1:2372,2:208 (5.00/95.00/99.7%=1/42/91,
#  Outliers=0,obl/obu=0/0) (11.198 ms/1796640829.249390)"
PDF = re.compile(r"^\[\s*\d+\] ([\d.]+)-([\d.]+) sec (F8|T8)(\(f\))?-PDF: bin\(w=(\d+)(us|ms)\):cnt\((\d+)\)"
                 r"(?:=([\d:,]+))? \(([\d.]+)/([\d.]+)/(?:99\.7/)?([\d.]+)?/?(?:99\.7)?%=(\d+)/(\d+)/(\d+),"
                 r"Outliers=(\d+),obl/obu=(\d+)/(\d+)\)", re.M)
# "0.208/0.015/5.722/0.457 ms (33596/131072)"
TCP_LAT = re.compile(r"^\[\s*\d+\] ([\d.]+)-([\d.]+) sec .*? [-\d.]+/[-\d.]+/[-\d.]+/[-\d.]+ ms \((\d+)/(\d+)\)", re.M)
# "0.001 ms 0/852 (0%) 0.002/0.000/0.056/0.003 ms"
UDP_LAT = re.compile(r"^\[\s*\d+\] ([\d.]+)-([\d.]+) sec .*? ms (\d+)/(\d+) \([^)]*\) [-\d.]+/[-\d.]+/[-\d.]+/"
                     r"[-\d.]+ ms", re.M)


def need_iperf2():
    lptest.require(os.access(IPERF2, os.X_OK), "stock iperf 2.1.8 not found (apt-get install iperf)")


def pdfs(text, name):
    """Every PDF line of one kind: dicts with the window, count, bins and bounds."""
    out = []
    for m in PDF.finditer(text):
        if m.group(3) != name:
            continue
        bins = [tuple(int(x) for x in b.split(":")) for b in (m.group(8) or "").split(",") if b]
        out.append({"a": float(m.group(1)), "b": float(m.group(2)), "final": bool(m.group(4)),
                    "width": int(m.group(5)), "unit": m.group(6), "cnt": int(m.group(7)), "bins": bins,
                    "lower": int(m.group(12)), "upper": int(m.group(13)), "p997": int(m.group(14)),
                    "obl": int(m.group(16)), "obu": int(m.group(17)), "line": m.group(0)})
    return out


def check_pdf(p, nbins, what, ctx):
    """A PDF line is whole: bins ascending within 1..nbins, bins + out of bounds = count, the
    bounds' bins among the listed ones (or the last bin when past them)."""
    ids = [b for b, _ in p["bins"]]
    eq(ids, sorted(set(ids)), "%s: bins ascending and distinct" % what, ctx)
    check(all(1 <= b <= nbins for b in ids), "%s: a bin outside 1..%d: %s" % (what, nbins, ids), ctx)
    check(all(c > 0 for _, c in p["bins"]), "%s: an empty bin listed" % what, ctx)
    eq(sum(c for _, c in p["bins"]) + p["obl"] + p["obu"], p["cnt"], "%s: bins + out of bounds = cnt" % what, ctx)
    if p["cnt"] and p["bins"]:
        check(p["lower"] <= p["upper"] <= p["p997"] or p["p997"] <= p["upper"],
              "%s: bounds out of order: %s" % (what, p["line"][-80:]), ctx)
        for k in ("lower", "upper", "p997"):
            check(p[k] in ids or p[k] == nbins, "%s: %s bin %d is not a listed bin" % (what, k, p[k]), ctx)


def check_series(lines, rows, what, ctx):
    """One PDF line after each report row, the same count; intervals sum to the final."""
    eq(len(lines), len(rows), "%s: a PDF line per report row" % what, ctx)
    for p, r in zip(lines, rows):
        eq((p["a"], p["b"]), (r[0], r[1]), "%s: the PDF's window is its row's" % what, ctx)
        eq(p["cnt"], r[2], "%s %.4f-%.4f: PDF count vs the row's samples" % (what, p["a"], p["b"]), ctx)
    finals = [p for p in lines if p["final"]]
    eq(len(finals), 1, "%s: one final (f) line" % what, ctx)
    eq(sum(p["cnt"] for p in lines if not p["final"]), finals[0]["cnt"],
       "%s: interval counts add up to the final" % what, ctx)
    return finals[0]


def start_lp_server(extra=()):
    port = lptest.free_port()
    proc = lptest.Proc([lptest.LINKPERF, "--iperf2", "-s", "-p", port, "-P", "1"] + list(extra), 40,
                       name="linkperf2-s")
    check(lptest.wait_listening(proc, port), "linkperf server did not listen", proc.tail())
    return proc, port


def start_stock_server(udp=False, extra=()):
    # 2.1.8 -s -u segfaults at its second UDP test: one fresh server per test.
    port = lptest.free_port()
    proc = lptest.Proc([IPERF2, "-s", "-p", port] + (["-u"] if udp else []) + list(extra), 40, name="iperf2-s")
    if udp:
        time.sleep(0.3)
    else:
        check(lptest.wait_listening(proc, port), "stock iperf -s did not listen", proc.tail())
    return proc, port


def server_done(srv):
    eq(srv.wait(15), 0, "linkperf server exit status", srv.tail())
    for bad in ("AddressSanitizer", "runtime error:", "LeakSanitizer"):
        check(bad not in srv.stderr, "sanitizer report from the server", srv.tail(40))


def wait_for(proc, rx, name, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(p["final"] for p in pdfs(proc.stdout, name)):
            return
        time.sleep(0.1)


def rows_of(text, rx):
    return [[float(g[0]), float(g[1])] + [int(x) for x in g[2:]] for g in (m.groups() for m in rx.finditer(text))]


@suite.case
def tcp_stock_client_to_linkperf():
    """stock iperf -c --trip-times -n 40M -i 1 -> linkperf -s --histograms -i 1: the banner
    line, an F8 line under each burst-latency row with its count, 100 us bins, the final
    F8(f) counting every 128 KiB burst"""
    need_iperf2()
    srv, port = start_lp_server(["-e", "-i", "1", "--histograms"])
    n = 40 * 1024 * 1024
    cl = lptest.run([IPERF2, "-c", LOOP, "-p", port, "-n", str(n), "--trip-times", "-i", "1"], 30, name="iperf2-c")
    eq(cl.rc, 0, "stock client exit status", cl.describe())
    server_done(srv)
    out, ctx = srv.stdout, srv.tail(30)
    check("Enabled receive histograms bin-width=0.100 ms, bins=10000 (clients should use --trip-times)" in out,
          "no 2.1.8 histogram banner line", ctx)
    lines = pdfs(out, "F8")
    rows = [r[:3] for r in rows_of(out, TCP_LAT)]
    final = check_series(lines, rows, "linkperf F8", ctx)
    for p in lines:
        eq((p["width"], p["unit"]), (100, "us"), "bin width", ctx)
        check_pdf(p, 10000, "linkperf F8 %.4f-%.4f" % (p["a"], p["b"]), ctx)
    eq(final["cnt"], n // 131072, "bursts in the final F8(f)", ctx)


@suite.case
def udp_stock_client_to_linkperf():
    """stock iperf -c -u --trip-times -> linkperf -s --udp-histograms=10u,50 -i 1: a T8 line
    per report row counting its datagrams received, 10 us bins, 50 of them; the final T8(f)
    counts every datagram the stock client's server report says arrived"""
    need_iperf2()
    srv, port = start_lp_server(["-e", "-i", "1", "--udp-histograms=10u,50"])
    cl = lptest.run([IPERF2, "-c", LOOP, "-p", port, "-u", "-b", "5M", "-t", "2", "--trip-times"], 30,
                    name="iperf2-c")
    eq(cl.rc, 0, "stock client exit status", cl.describe())
    server_done(srv)
    out, ctx = srv.stdout, cl.describe() + "\n" + srv.tail(30)
    check("Enabled receive histograms bin-width=0.010 ms, bins=50" in out, "no histogram banner", ctx)
    rows = [[r[0], r[1], r[3] - r[2]] for r in rows_of(out, UDP_LAT)]  # received = total - lost
    final = check_series(pdfs(out, "T8"), rows, "linkperf T8", ctx)
    for p in pdfs(out, "T8"):
        eq((p["width"], p["unit"]), (10, "us"), "bin width", ctx)
        check_pdf(p, 50, "linkperf T8 %.4f-%.4f" % (p["a"], p["b"]), ctx)
    report = rows_of(cl.out, UDP_LAT)
    check(report, "no server report on the stock client", ctx)
    eq(final["cnt"], report[-1][3] - report[-1][2], "T8(f) count vs datagrams the report says arrived", ctx)
    check(final["cnt"] > 100, "too few datagrams: %d" % final["cnt"], ctx)


@suite.case
def tcp_linkperf_client_to_stock():
    """linkperf --iperf2 -c --trip-times -n 40M -> stock iperf -s -e --histograms: the stock
    server's F8(f) counts the bursts linkperf wrote (bytes / 131072), bins summing to it"""
    need_iperf2()
    srv, port = start_stock_server(extra=["-e", "--histograms"])
    n = 40 * 1024 * 1024
    cl = lptest.run([lptest.LINKPERF, "--iperf2", "-c", LOOP, "-p", port, "-n", str(n), "--trip-times"], 30,
                    name="linkperf2-c")
    eq(cl.rc, 0, "linkperf client exit status", cl.describe())
    wait_for(srv, TCP_LAT, "F8")
    out, ctx = srv.stdout, cl.describe() + "\n" + srv.tail(30)
    finals = [p for p in pdfs(out, "F8") if p["final"]]
    check(finals, "stock server printed no F8(f) line", ctx)
    check_pdf(finals[-1], 10000, "stock F8(f)", ctx)
    eq(finals[-1]["cnt"], n // 131072, "bursts in the stock server's F8(f)", ctx)
    rows = rows_of(out, TCP_LAT)
    eq(finals[-1]["cnt"], rows[-1][2], "stock F8(f) count vs its burst-latency row", ctx)


@suite.case
def udp_linkperf_client_to_stock():
    """linkperf --iperf2 -c -u --trip-times -> a fresh stock iperf -s -u -e --histograms: the
    stock server's T8(f) counts the datagrams it received of those linkperf sent, and
    linkperf's server report (from that server) has the same datagram numbers"""
    need_iperf2()
    srv, port = start_stock_server(udp=True, extra=["-e", "--histograms"])
    cl = lptest.run([lptest.LINKPERF, "--iperf2", "-c", LOOP, "-p", port, "-u", "-b", "5M", "-t", "2",
                     "--trip-times"], 30, name="linkperf2-c")
    eq(cl.rc, 0, "linkperf client exit status", cl.describe())
    wait_for(srv, UDP_LAT, "T8")
    out, ctx = srv.stdout, cl.describe() + "\n" + srv.tail(30)
    finals = [p for p in pdfs(out, "T8") if p["final"]]
    check(finals, "stock server printed no T8(f) line", ctx)
    check_pdf(finals[-1], 10000, "stock T8(f)", ctx)
    theirs = rows_of(out, UDP_LAT)[-1]
    eq(finals[-1]["cnt"], theirs[3] - theirs[2], "stock T8(f) vs datagrams it received", ctx)
    ours = rows_of(cl.out, UDP_LAT)
    check(ours, "linkperf printed no server report", ctx)
    eq((ours[-1][2], ours[-1][3]), (theirs[2], theirs[3]), "lost/total: our server report vs stock", ctx)
    sent = re.findall(r"Sent (\d+) datagrams", cl.out)
    check(sent, "linkperf printed no Sent line", ctx)
    # 2.1.8's total is the highest sequence number it saw (the data and the first FIN); the
    # T8 samples can only be datagrams that were sent
    check(finals[-1]["cnt"] <= theirs[3] <= int(sent[-1]) + 1,
          "T8(f) %d, stock total %d, linkperf Sent %s" % (finals[-1]["cnt"], theirs[3], sent[-1]), ctx)


@suite.case
def bounds_form_and_json():
    """--histograms=1m,100,1,99.9 prints 2.1.8's swapped bounds "(1.00/99.7/99.90/%=" and
    1 ms bins; -J (iperf3 spelling server) gives each stream's latency a "pdf" whose bins
    and out-of-bounds samples sum to its count, the latency count, the bursts sent"""
    need_iperf2()
    srv, port = start_lp_server(["-e", "--histograms=1m,100,1,99.9"])
    n = 20 * 1024 * 1024
    cl = lptest.run([IPERF2, "-c", LOOP, "-p", port, "-n", str(n), "--trip-times"], 30, name="iperf2-c")
    eq(cl.rc, 0, "stock client exit status", cl.describe())
    server_done(srv)
    ctx = srv.tail(20)
    final = [p for p in pdfs(srv.stdout, "F8") if p["final"]]
    check(final and "(1.00/99.7/99.90/%=" in final[0]["line"], "no swapped-bounds form", ctx)
    eq((final[0]["width"], final[0]["unit"]), (1, "ms"), "bin width", ctx)
    check_pdf(final[0], 100, "F8(f) 1 ms", ctx)
    eq(final[0]["cnt"], n // 131072, "bursts", ctx)

    port = lptest.free_port()
    srv = lptest.Proc([lptest.LINKPERF, "-s", "-p", port, "-1", "-J", "--histograms=50u,400"], 40, name="linkperf-s")
    check(lptest.wait_listening(srv, port), "linkperf -s -J did not listen", srv.tail())
    cl = lptest.run([IPERF2, "-c", LOOP, "-p", port, "-n", str(n), "--trip-times"], 30, name="iperf2-c")
    eq(cl.rc, 0, "stock client exit status", cl.describe())
    server_done(srv)  # -1: one test, then exit
    text = srv.stdout
    check("{" in text, "no JSON document", srv.tail())
    doc = json.loads(text[text.index("{"):text.rindex("}") + 1])
    lat = doc["end"]["streams"][0]["receiver"]["latency"]
    pdf = lat["pdf"]
    ctx = json.dumps(pdf)[:400]
    eq((pdf["bin_width_us"], pdf["bins"]), (50, 400), "JSON bin width and count", ctx)
    eq(sum(c for _, c in pdf["counts"]) + pdf["below"] + pdf["above"], pdf["count"], "JSON bins sum", ctx)
    eq(pdf["count"], lat["count"], "JSON pdf count vs latency count", ctx)
    eq(pdf["count"], n // 131072, "JSON pdf count vs bursts", ctx)
    for iv in doc["intervals"]:
        p = iv["streams"][0]["latency"]["pdf"]
        eq(sum(c for _, c in p["counts"]) + p["above"], p["count"], "JSON interval bins sum", ctx)


@suite.case
def csv_and_no_trip_times():
    """as 2.1.8: -y C prints no PDF lines; a client without --trip-times gets none either"""
    need_iperf2()
    srv, port = start_lp_server(["-y", "C", "--histograms"])
    cl = lptest.run([IPERF2, "-c", LOOP, "-p", port, "-n", "8M", "--trip-times"], 30, name="iperf2-c")
    eq(cl.rc, 0, "stock client exit status", cl.describe())
    server_done(srv)
    check("PDF" not in srv.stdout and srv.stdout.strip(), "CSV output with a PDF line (or none)", srv.tail())
    srv, port = start_lp_server(["-e", "--histograms"])
    cl = lptest.run([IPERF2, "-c", LOOP, "-p", port, "-n", "8M"], 30, name="iperf2-c")
    eq(cl.rc, 0, "stock client exit status", cl.describe())
    server_done(srv)
    check("-PDF:" not in srv.stdout, "a PDF line without --trip-times", srv.tail())
    check("Enabled receive histograms" in srv.stdout, "no banner line", srv.tail())


if __name__ == "__main__":
    suite.main()

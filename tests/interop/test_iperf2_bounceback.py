#!/usr/bin/env python3
"""iperf2 --bounceback (TCP request/response) against stock iperf 2.1.8 both ways, and
linkperf against itself: the wire format (tests/golden/evidence/iperf2/bounceback.txt), the
accounting (every exchange moves -l bytes out and back, so both ends count 2 x size x
exchanges, and the rows' cnt add up), the server's hold (a lower bound on every round trip)
and stamps (inside the client's own send/receive window, rx <= tx), and a server that keeps
serving after malformed bounceback messages."""
import re
import socket
import struct
import time

import iperf2lib as i2lib
import lptest
from lptest import check, eq

LOOP = lptest.LOOP4
suite = lptest.Suite("iperf2_bounceback", needs_iperf3=False)

# "    3=1.290/1.098/1.660/0.321 ms    0  416K/29 us    775 rps"
BB = re.compile(r"^\s+(?P<cnt>\d+)=(?P<avg>[\d.]+)/(?P<min>[\d.]+)/(?P<max>[\d.]+)/(?P<sd>[\d.]+) ms\s+"
                r"(?P<retry>-?\d+)\s+(?P<cwnd>\d+)K/(?P<rtt>\d+) us\s+(?P<rps>[\d.]+) rps$")
BB_HEADER = ("[ ID] Interval            Transfer    Bandwidth         BB cnt=avg/min/max/stdev         "
             "Rtry  Cwnd/RTT    RPS")
BB_FLAGS = 0x00800000
# "[  1] 0.0000-3.0002 sec BB8(f)-PDF: bin(w=100us):cnt(12)=1:10,2:2 (5.00/95.00/99.7%=1/2/2,..."
PDF = re.compile(r"BB8\(f\)-PDF: bin\(w=100us\):cnt\((\d+)\)=(\S+) \(5\.00/95\.00/99\.7%=(\d+)/(\d+)/(\d+),")
PCT = re.compile(r"BB8\(f\)-PCT: min/p50/p90/p99/p99\.9/max=([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")


def bb_rows(text):
    """The client's BB rows: -f B rows whose tail is cnt=avg/min/max/stdev ... rps."""
    rows = []
    for r in i2lib.parse(text)["rows"]:
        m = BB.match(r["rest"])
        if m:
            r.update({k: float(v) for k, v in m.groupdict().items()})
            rows.append(r)
    return rows


def split_rows(rows, context):
    """(interval rows, the final row): the final is the last row from 0 spanning the most."""
    check(rows, "no BB rows", context)
    final = max((r for r in rows if r["start"] == 0.0), key=lambda r: r["end"])
    return [r for r in rows if r is not final], final


def check_accounting(rows, size, context):
    """Each exchange is size bytes out and size back; the intervals' cnt add up to the
    final's, and the round trips are ordered."""
    ivs, final = split_rows(rows, context)
    for r in rows:
        eq(r["bytes"], int(r["cnt"]) * 2 * size, "row bytes = cnt x 2 x size: %s" % r["line"], context)
    if ivs:
        eq(sum(int(r["cnt"]) for r in ivs), int(final["cnt"]), "interval cnt add up to the final", context)
        eq(sum(r["bytes"] for r in ivs), final["bytes"], "interval bytes add up to the final", context)
    for r in rows:
        if r["cnt"] >= 2:
            check(0 < r["min"] <= r["avg"] <= r["max"], "round trips not ordered: %s" % r["line"], context)
        check(r["rps"] > 0, "no responses per second: %s" % r["line"], context)
    return final


def whole_bursts(final, burst, most, context):
    """Whole bursts of `burst` exchanges (the one in progress at -t is finished), at most
    `most` of them (one a second, the first at 0: a late one is skipped, never doubled)."""
    cnt = int(final["cnt"])
    check(cnt % burst == 0 and 1 <= cnt // burst <= most, "%d exchanges: not 1..%d bursts of %d" % (
        cnt, most, burst), context)


def server_total(srv, context):
    """A plain iperf2 server row: its bytes (both directions)."""
    text = srv.wait_for(lambda t: any(r["start"] == 0.0 for r in i2lib.parse(t)["rows"]), timeout=15)
    rows = [r for r in i2lib.parse(text)["rows"] if r["start"] == 0.0]
    return max(rows, key=lambda r: r["end"])["bytes"], text


@suite.case
def stock_client_lp_server():
    """iperf -c --bounceback=3 -l 80 --bounceback-hold 2 to a linkperf server: the stock
    client's rows count 160 bytes an exchange, every round trip includes the 2 ms hold, and
    the server counts the same bytes as the client, with 2.1.8's connection tag."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("linkperf", ["-f", "B"])
    r = i2lib.run_client("iperf", srv.port, ["--bounceback=3", "-l", "80", "--bounceback-hold", "2", "-t", "2.5",
                                             "-f", "B"])
    ctx = r.describe()
    rows = bb_rows(r.out)
    final = check_accounting(rows, 80, ctx)
    whole_bursts(final, 3, 3, ctx)
    check(final["min"] >= 2.0, "a round trip shorter than the 2 ms hold: %s" % final["line"], ctx)
    total, stext = server_total(srv, ctx)
    eq(total, final["bytes"], "server bytes = client bytes", ctx, stext)
    check("(bb w/quickack len/hold=80/2000)" in stext, "server connection line lacks 2.1.8's bb tag", stext)


@suite.case
def lp_client_stock_server():
    """linkperf2 -c --bounceback=4 to stock iperf -s: 2.1.8's banner, header and BB rows;
    4 exchanges a burst, one burst a second; the stock server counts what we count."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-f", "B"])
    r = i2lib.run_client("linkperf", srv.port, ["--bounceback=4", "-t", "3", "-f", "B"])
    ctx = r.describe()
    for line in ("Write buffer size:  100 Byte", "Bursting:  100 Byte writes 4 times every 1.00 second(s)",
                 "Bounce-back test (size= 100 Byte) (server hold req=0 usecs & tcp_quickack)",
                 "TOS set to 0x0 and nodelay (Nagle off)", BB_HEADER):
        check(line in r.out.splitlines(), "missing 2.1.8 line %r" % line, ctx)
    check("(bb w/quickack len/hold=100/0)" in r.out, "no bb tag on the connection line", ctx)
    rows = bb_rows(r.out)
    ivs, final = split_rows(rows, ctx)
    check_accounting(rows, 100, ctx)
    whole_bursts(final, 4, 3, ctx)
    check(1 <= len(ivs) <= 3, "one row a second: %d rows" % len(ivs), ctx)
    total, stext = server_total(srv, ctx)
    eq(total, final["bytes"], "stock server bytes = linkperf client bytes", ctx, stext)
    check("(bb w/quickack len/hold=100/0)" in stext, "stock server did not see a bounceback test", stext)
    check_distribution_lines(r.out, int(final["cnt"]), ctx)


def check_distribution_lines(out, cnt, ctx):
    """2.1.8's PDF line counts every round trip in its bins; our percentile line is ordered
    between the row's exact min and max."""
    m = PDF.search(out)
    check(m, "no BB8(f)-PDF line", ctx)
    eq(int(m.group(1)), cnt, "PDF population = exchanges", ctx)
    eq(sum(int(b.split(":")[1]) for b in m.group(2).split(",")), cnt, "PDF bins add up", ctx)
    lo, hi, top = int(m.group(3)), int(m.group(4)), int(m.group(5))
    check(1 <= lo <= hi <= top, "PDF 5/95/99.7 bins not ordered: %s" % m.group(0), ctx)
    p = PCT.search(out)
    check(p, "no BB8(f)-PCT line", ctx)
    v = [float(x) for x in p.groups()]
    check(v == sorted(v), "percentiles not ordered min<=p50<=p90<=p99<=p99.9<=max: %s" % p.group(0), ctx)


@suite.case
def lp_both_back_to_back():
    """linkperf both ends, --bounceback-period 0 --bounceback-no-quickack -l 256: exchanges
    back to back for the whole test; both ends count the same bytes, 512 an exchange."""
    srv = i2lib.start_server("linkperf", ["-f", "B"])
    r = i2lib.run_client("linkperf", srv.port, ["--bounceback", "--bounceback-period", "0",
                                                "--bounceback-no-quickack", "-l", "256", "-t", "1", "-i", "0.5",
                                                "-f", "B"])
    ctx = r.describe()
    check("Bursting:" not in r.out, "back to back has no burst line (as 2.1.8)", ctx)
    check("(server hold req=0 usecs)" in r.out, "no-quickack banner", ctx)
    final = check_accounting(bb_rows(r.out), 256, ctx)
    check(final["cnt"] > 20, "back to back made only %d exchanges in 1 s" % final["cnt"], ctx)
    total, stext = server_total(srv, ctx)
    eq(total, final["bytes"], "server bytes = client bytes", ctx, stext)
    check("(bb len/hold=256/0)" in stext, "server tag without quickack", stext)


@suite.case
def iperf3_spelling():
    """linkperf -c host --bounceback (the iperf3 spelling) speaks iperf2 to a stock
    iperf -s: the stock server sees a bounceback test and counts 200 bytes an exchange."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-f", "B"])
    r = lptest.run([lptest.LINKPERF, "-c", LOOP, "-p", srv.port, "--bounceback=2", "-t", "2"], timeout=30)
    check(r.rc == 0, "exit status %s" % r.rc, r.describe())
    total, stext = server_total(srv, r.describe())
    check("(bb w/quickack len/hold=100/0)" in stext, "stock server did not see a bounceback test", stext)
    check(total in (2 * 200, 2 * 2 * 200), "stock server bytes %d: not one or two bursts of two exchanges "
          "(at 0 and 1 s)" % total, r.describe(), stext)


@suite.case
def json_percentiles():
    """linkperf -c --bounceback=5 --bounceback-hold 2 -J (iperf3 spelling) to stock iperf -s:
    the stream's latency object counts every round trip, its histogram's buckets add up to
    that count, every percentile is at least the 2 ms hold and they are ordered; intervals
    carry their own percentiles."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-f", "B"])
    r = lptest.run([lptest.LINKPERF, "-c", LOOP, "-p", srv.port, "--bounceback=5", "--bounceback-hold", "2",
                    "-t", "2", "-J"], timeout=30)
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    doc = lptest.parse_json(r.out)
    lat = doc["end"]["streams"][0]["sender"]["latency"]
    n = lat["count"]
    check(n in (5, 10), "round trips %d: not one or two bursts of 5 (at 0 and 1 s)" % n, ctx)
    eq(doc["end"]["streams"][0]["sender"]["bytes"], n * 2 * 100, "bytes both ways", ctx)
    buckets = lat["histogram"]["buckets"]
    eq(sum(b[2] for b in buckets), lat["count"], "histogram counts add up", ctx)
    check(all(b[0] + b[1] >= 2e6 for b in buckets), "a bucket below the 2 ms hold: %s" % buckets, ctx)
    ps = [lat["min_ms"], lat["p50_ms"], lat["p90_ms"], lat["p99_ms"], lat["p99_9_ms"], lat["max_ms"]]
    check(ps == sorted(ps) and ps[0] >= 2.0, "percentiles not ordered from the hold up: %s" % ps, ctx)
    for iv in doc["intervals"]:
        il = iv["streams"][0]["latency"]
        # A burst starts on the second, where an interval ends: it may straddle two rows.
        if il["count"]:
            check(il["min_ms"] <= il["p50_ms"] <= il["max_ms"], "interval p50 outside min..max: %s" % il, ctx)
    eq(sum(iv["streams"][0]["latency"]["count"] for iv in doc["intervals"]), n, "intervals add up", ctx)
    total, stext = server_total(srv, ctx)
    eq(total, n * 2 * 100, "the stock server counts the same bytes", ctx, stext)


@suite.case
def csv_latency_columns():
    """linkperf2 -c --bounceback=5 --bounceback-hold 2 -y C --csv-header --csv-latency to stock
    iperf -s: 2.1.8's nine fields, then each row's round trips: its count is the row's
    bytes / (2 x 100), its percentiles are ordered and at least the hold; the final row counts
    every round trip and the stock server the same bytes. Without -y C the option is refused."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-f", "B"])
    r = lptest.run([lptest.LINKPERF, "--iperf2", "-c", LOOP, "-p", srv.port, "--bounceback=5", "--bounceback-hold", "2",
                    "-t", "2", "-y", "C", "--csv-header", "--csv-latency"], timeout=30)
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    lines = r.out.strip().splitlines()
    head = lines[0].split(",")
    eq(head[9:], ["lat_count", "lat_min_ms", "lat_p50_ms", "lat_p90_ms", "lat_p99_ms", "lat_p99_9_ms",
                  "lat_max_ms"], "latency columns after 2.1.8's nine", ctx)
    rows = [ln.split(",") for ln in lines[1:]]
    check(len(rows) >= 2 and all(len(x) == 16 for x in rows), "rows of 16 fields: %s" % rows, ctx)
    for x in rows:
        nbytes, cnt = int(x[7]), int(x[9] or 0)
        eq(cnt * 2 * 100, nbytes, "row %s: round trips x 2 x 100 = its bytes" % x[6], ctx)
        if cnt:
            ps = [float(v) for v in x[10:16]]
            check(ps == sorted(ps) and ps[0] >= 2.0, "row %s: percentiles not ordered from the hold up: %s"
                  % (x[6], ps), ctx)
    final = rows[-1]
    eq(int(final[9]), sum(int(x[9] or 0) for x in rows[:-1]), "the final row counts every interval's", ctx)
    total, stext = server_total(srv, ctx)
    eq(total, int(final[7]), "the stock server counts the same bytes", ctx, stext)
    bad = lptest.run([lptest.LINKPERF, "--iperf2", "-c", LOOP, "-p", srv.port, "--csv-latency"], timeout=10)
    check(bad.rc == 2 and "--csv-latency needs -y C" in bad.err, "--csv-latency without -y C", bad.describe())


def message(size, bbid=1, hold_us=0, bbflags=0x8000):
    """A client message as 2.1.8 builds it (iperf2_bb.h)."""
    now = time.time()
    hdr = struct.pack(">IIIHHIII4II3I", BB_FLAGS, size, bbid, bbflags, 0x5A5A, 0, int(now),
                      int(now % 1 * 1e6), *([0xFFFFFFFF] * 4), hold_us, *([0x5A5A5A5A] * 3))
    assert len(hdr) == 60
    body = bytes(b"0123456789"[i % 10] for i in range(60, size))
    return hdr + body


def recv_exactly(s, n):
    buf = b""
    while len(buf) < n:
        d = s.recv(n - len(buf))
        if not d:
            break
        buf += d
    return buf


@suite.case
def echo_stamps():
    """A hand-built client: the linkperf server echoes every byte it was sent, with its
    receive and send times in the message, inside the client's send..receive window, rx <= tx
    and tx - rx >= the 3 ms hold the message asked for; the test ends at the client's close."""
    srv = i2lib.start_server("linkperf", ["-f", "B"])
    s = socket.create_connection((LOOP, int(srv.port)), timeout=5)
    for i in range(3):
        m = message(120, bbid=i + 1, hold_us=3000)
        t0 = time.time()
        s.sendall(m)
        echo = recv_exactly(s, len(m))
        t1 = time.time()
        eq(len(echo), len(m), "echo length", srv.proc.tail())
        eq(echo[:20], m[:20], "flags, size, id, bbflags, tos, run time echoed", srv.proc.tail())
        eq(echo[44:], m[44:], "hold and payload echoed", srv.proc.tail())
        rx_s, rx_us, tx_s, tx_us = struct.unpack(">IIII", echo[28:44])
        rx, tx = rx_s + rx_us / 1e6, tx_s + tx_us / 1e6
        check(t0 - 0.01 <= rx <= tx <= t1 + 0.01, "stamps %f %f outside the window %f..%f" % (rx, tx, t0, t1))
        check(tx - rx >= 0.003 - 1e-6, "held %.6f s, asked 3 ms" % (tx - rx))
    s.close()
    total, _ = server_total(srv, srv.proc.tail())
    eq(total, 3 * 2 * 120, "server counts both directions of 3 exchanges", srv.proc.tail())


@suite.case
def bad_messages_keep_serving():
    """Malformed bounceback messages end their own connection only: a size under the 64-byte
    header, a size past 1 MiB, a peer that closes mid-message and one that stops reading; a
    stock client's bounceback test runs right after, on the same server."""
    srv = i2lib.start_server("linkperf")
    for size in (63, 2 * 1024 * 1024):
        s = socket.create_connection((LOOP, int(srv.port)), timeout=5)
        s.sendall(message(100)[:4] + struct.pack(">I", size) + message(100)[8:64])
        s.settimeout(5)
        try:
            got = s.recv(10)
        except ConnectionResetError:
            got = b""
        check(got == b"", "a bounceback message of %d bytes was not refused" % size, srv.proc.tail())
        s.close()
    deadline = time.monotonic() + 8
    while not ("bounceback message size 63 is out of range" in srv.proc.stderr and
               "size 2097152 is out of range" in srv.proc.stderr):
        check(time.monotonic() < deadline, "no log line for the refused messages", srv.proc.tail())
        time.sleep(0.05)
    s = socket.create_connection((LOOP, int(srv.port)), timeout=5)
    s.sendall(message(1000)[:500])  # half a message, then gone
    s.close()
    s = socket.create_connection((LOOP, int(srv.port)), timeout=5)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    big = message(1024 * 1024)
    s.settimeout(0.5)
    try:
        s.sendall(big * 4)  # never reads the echoes: the server's writes block, not its loop
    except (socket.timeout, OSError):
        pass
    i2lib.require_iperf2()
    r = i2lib.run_client("iperf", srv.port, ["--bounceback=2", "-t", "1.5", "-f", "B"])
    final = check_accounting(bb_rows(r.out), 100, r.describe())
    whole_bursts(final, 2, 2, [r.describe(), srv.proc.tail()])
    s.close()
    check(srv.proc.alive(), "server died", srv.proc.tail())


if __name__ == "__main__":
    suite.main()

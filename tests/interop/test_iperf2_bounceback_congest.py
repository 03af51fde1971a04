#!/usr/bin/env python3
"""iperf2 --bounceback-congest and --bounceback-txdelay against stock iperf 2.1.8 both ways
(tests/golden/evidence/iperf2/bounceback_congest.txt): beside the bounceback connection the
client runs an ordinary TCP test (default full duplex) as the load. Accounting only: the
exchanges move cnt x 2 x size bytes, counted the same at both ends, and each way of the load
is counted the same by its sender and its receiver (up to the 60-byte test header a stock
2.1.8 end counts as data and linkperf does not: iperf2lib.HDR). --bounceback-txdelay is checked by lower
bounds on time (never tight: machines are loaded). The lines 2.1.8 prints for them: the (qack)
tag on the load's connection lines, the same connections at both ends (by client port) and in
2.1.8's place among the tags; the 'Client traffic to start in N seconds' line under the
exchanges' connection line, N the delay rounded up, as a stock client prints it for the same
delay."""
import json
import re
import time

import iperf2lib as i2lib
import lptest
from lptest import check, eq
from test_iperf2_bounceback import bb_rows

suite = lptest.Suite("iperf2_bounceback_congest", needs_iperf3=False)
# What a stock 2.1.8 client's final rows may leave uncounted: its report ring (10000 entries by
# default, NUM_REPORT_STRUCTS) of 100-byte writes or reads.
RING_SLACK = 10000 * 100


def tcp_wmem_max():
    """The most a TCP socket's send buffer can hold here (tcp_wmem's third field)."""
    with open("/proc/sys/net/ipv4/tcp_wmem") as f:
        return int(f.read().split()[2])


def finals(text):
    """{(conn id, star): the row from 0 spanning the most} of one end's -f B text."""
    out = {}
    for r in i2lib.parse(text)["rows"]:
        if isinstance(r["id"], int) and r["start"] == 0.0:
            k = (r["id"], r["star"])
            if k not in out or r["end"] > out[k]["end"]:
                out[k] = r
    return out


def conn_ids(text):
    """(the bounceback connection's id, its client port), [(load id, its client port)] of a client."""
    bb, load = None, []
    for cid, c in i2lib.parse(text)["conns"].items():
        if "(bb" in c["line"]:
            bb = (cid, c["lport"])
        else:
            load.append((cid, c["lport"]))
    return bb, load


# 2.1.8's tag order on a load's connection line: the direction (none for an up load), then
# (sock=) and (peer) when printed, then (qack), before (icwnd/mss/irtt=).
QACK_ORDER = re.compile(r"port \d+( \((full-duplex|reverse)\))?( \(sock=\d+\))?( \(peer [^)]*\))? \(qack\) "
                        r"\(icwnd")
# --bounceback-txdelay's line: "[  1] Client traffic to start in 1 seconds at 2026-12-07
# 15:15:36 current time is 2026-12-07 15:15:35 (UTC)"
START = re.compile(r"^\[\s*(\d+)\] Client traffic to start in (\d+) seconds at (\S+ \S+) current time is "
                   r"(\S+ \S+) \(\w+\)$", re.M)


def qack_by_port(text, client):
    """{the client's port of each connection: its line has (qack)} of one end's text."""
    return {c["lport" if client else "rport"]: "(qack)" in c["line"] for c in i2lib.parse(text)["conns"].values()}


def check_qack(ctext, stext, ctx):
    """Both ends tag the load's connections (qack), in 2.1.8's place, and not the exchanges'."""
    bb, load = conn_ids(ctext)
    cq, sq = qack_by_port(ctext, True), qack_by_port(stext, False)
    eq(sq, cq, "(qack) on the same connections at both ends (by client port)", ctx, stext)
    eq(cq[bb[1]], False, "the bounceback connection is not tagged (qack)", ctx)
    for text in (ctext, stext):
        for line in (c["line"] for c in i2lib.parse(text)["conns"].values() if "(qack)" in c["line"]):
            check(QACK_ORDER.search(line), "(qack) not where 2.1.8 prints it: %s" % line, ctx, stext)
    check(all(cq[p] for _, p in load), "a load connection without (qack)", ctx)


def start_line(text, delay_s, ctx):
    """The --bounceback-txdelay line: under the exchanges' connection line with its id, the
    delay rounded up to whole seconds, the start that many seconds after the current time."""
    m = START.search(text)
    check(m, "no 'Client traffic to start' line", ctx)
    bb, _ = conn_ids(text)
    lines = text.splitlines()
    at = lines.index(m.group(0))
    eq(int(m.group(1)), bb[0], "the start line's id is the exchanges'", ctx)
    check("(bb" in lines[at - 1], "the start line does not follow the exchanges' connection line", ctx)
    want = -int(-delay_s // 1)
    eq(int(m.group(2)), want, "the delay in whole seconds, rounded up", ctx)
    t_at, t_now = (time.mktime(time.strptime(x, "%Y-%m-%d %H:%M:%S")) for x in (m.group(3), m.group(4)))
    eq(t_at - t_now, want, "the start = the current time + the delay", ctx)
    return int(m.group(2))


def server_id(stext, client_port):
    for cid, c in i2lib.parse(stext)["conns"].items():
        if c["rport"] == client_port:
            return cid
    return None


def server_text(srv, client_ports, ways, ctx):
    """The server's text once it has a final row for every connection (and each way of the load)."""
    def done(t):
        f = finals(t)
        ids = [server_id(t, p) for p in client_ports]
        return None not in ids and all((i, False) in f for i in ids) and all((i, True) in f for i in ids[1:] if ways == 2)
    return srv.wait_for(done, timeout=15)


def bb_final(ctext, bb_id, ctx):
    """The client's final BB row; every BB row's bytes are its cnt x 2 x 100. (A stock client
    may count a last burst at -t in its final row only, so the intervals need not add up.)"""
    rows = [r for r in bb_rows(ctext) if r["id"] == bb_id]
    check(rows, "no BB rows", ctx)
    for r in rows:
        eq(r["bytes"], int(r["cnt"]) * 2 * 100, "row bytes = cnt x 2 x size: %s" % r["line"], ctx)
    return max((r for r in rows if r["start"] == 0.0), key=lambda r: r["end"])


def check_congest(ctext, stext, ways, delta, ctx, exact=True):
    """Both ends count the same: the exchanges (cnt x 2 x size), and each way of the load;
    delta is the server's count of the client's way minus the client's (the header).
    exact=False for a stock client: its final rows can miss what is still queued in its report
    ring, up to RING x 100-byte writes (seen: 999900 bytes short against a linkperf server; its
    intervals add up to its final row, the server's count is what the socket moved)."""
    bb, load = conn_ids(ctext)
    check(bb and load, "no bounceback and load connection lines", ctx)
    final = bb_final(ctext, bb[0], ctx)
    cf, sf = finals(ctext), finals(stext)
    sbb = server_id(stext, bb[1])
    if exact:
        eq(sf[(sbb, False)]["bytes"], final["bytes"], "server's bounceback bytes = client's", ctx, stext)
    else:
        # A stock 2.1.8 client may write one more message at -t and close without counting it
        # (CI: the server 4200, the client 4000): the server counted what moved, at most that
        # one exchange more, in whole messages.
        extra = sf[(sbb, False)]["bytes"] - final["bytes"]
        check(extra in (0, 100, 200), "server's bounceback bytes %d, the client's %d (at most one "
              "exchange of 100 bytes more)" % (sf[(sbb, False)]["bytes"], final["bytes"]), ctx, stext)
    for cid, port in load:
        sid = server_id(stext, port)
        check(sid is not None, "the server saw no load connection from port %d" % port, stext)
        up = sf[(sid, False)]["bytes"] - cf[(cid, False)]["bytes"]
        if exact:
            eq(up, delta, "load: server received - client sent = the header", ctx, stext)
        else:
            # Below the header: a stock client that closes its load with our last writes
            # unread resets the connection, and its kernel drops what it had not sent yet
            # (CI, both cores busy: 75260 bytes short); that is at most its send buffer.
            check(delta - tcp_wmem_max() <= up <= delta + RING_SLACK,
                  "load: server received - client sent = %d" % up, ctx, stext)
        check(cf[(cid, False)]["bytes"] > 0, "the load sent nothing", ctx)
        if ways == 2:
            down = sf[(sid, True)]["bytes"] - cf[(cid, True)]["bytes"]
            # A stock client also stops reading its load before a fast server's last writes
            # are drained (seen: 3 MB short; open question): only "never more than sent".
            check(down == 0 or (not exact and down >= 0), "load: server sent - client received = %d" % down, ctx,
                  stext)
            check(cf[(cid, True)]["bytes"] > 0, "the load's other way moved nothing", ctx)
            check(sf[(sid, True)]["bytes"] > 0, "the load's other way moved nothing", stext)
    return final, sf, sbb


@suite.case
def lp_client_stock_server():
    """linkperf2 -c --bounceback --bounceback-congest against stock iperf -s: the stock
    server sees a full-duplex test with quickack beside the bounceback one, and counts what
    we count, for both connections."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-f", "B"])
    r = i2lib.run_client("linkperf", srv.port, ["--bounceback", "--bounceback-congest", "-t", "2", "-f", "B"])
    ctx = r.describe()
    bb, load = conn_ids(r.out)
    eq(len(load), 1, "one load connection", ctx)
    stext = server_text(srv, [bb[1], load[0][1]], 2, ctx)
    check("(full-duplex)" in stext and "(qack)" in stext, "the stock server saw no full-duplex quickack test",
          stext)
    check_qack(r.out, stext, ctx)
    check_congest(r.out, stext, 2, i2lib.HDR, ctx)


@suite.case
def stock_client_lp_server():
    """Stock iperf -c --bounceback --bounceback-congest to a linkperf server: the same
    accounting, from the stock client's rows."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("linkperf", ["-f", "B"])
    r = i2lib.run_client("iperf", srv.port, ["--bounceback", "--bounceback-congest", "-t", "2", "-f", "B"])
    ctx = r.describe()
    bb, load = conn_ids(r.out)
    check(bb and len(load) == 1, "stock client lines", ctx)
    stext = server_text(srv, [bb[1], load[0][1]], 2, ctx)
    check_qack(r.out, stext, ctx)
    check_congest(r.out, stext, 2, -i2lib.HDR, ctx, exact=False)


@suite.case
def txdelay_and_up_load():
    """--bounceback-congest=up,2 --bounceback-txdelay 1 -t 1 against stock iperf -s: two
    forward loads that run -t plus the delay, exchanges that start after it. Lower bounds
    only: the client takes at least 2 s, the stock server's bounceback and load rows span at
    least 1.9 s; the accounting is exact."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-f", "B"])
    t0 = time.monotonic()
    r = i2lib.run_client("linkperf", srv.port, ["--bounceback", "--bounceback-congest=up,2", "--bounceback-txdelay",
                                                "1", "-t", "1", "-f", "B"])
    took = time.monotonic() - t0
    ctx = r.describe()
    bb, load = conn_ids(r.out)
    eq(len(load), 2, "two load connections", ctx)
    stext = server_text(srv, [bb[1]] + [p for _, p in load], 1, ctx)
    final, sf, sbb = check_congest(r.out, stext, 1, i2lib.HDR, ctx)
    check(took >= 2.0, "the client took %.2f s, less than -t plus the delay" % took, ctx)
    check(sf[(sbb, False)]["end"] >= 1.9, "the stock server's bounceback ran under -t plus the delay", stext)
    for _, port in load:
        check(sf[(server_id(stext, port), False)]["end"] >= 1.9, "a load ran under -t plus the delay", stext)
    check(int(final["cnt"]) >= 10, "not a burst of exchanges after the delay", ctx)
    check_qack(r.out, stext, ctx)
    start_line(r.out, 1, ctx)


@suite.case
def txdelay_start_line():
    """--bounceback-txdelay 1.5: a stock 2.1.8 client and linkperf's, each against a stock
    server, print the same 'Client traffic to start in 2 seconds' line under the exchanges'
    connection; linkperf's server tags the stock client's load (qack) as the client does."""
    i2lib.require_iperf2()
    args = ["--bounceback", "--bounceback-congest=up", "--bounceback-txdelay", "1.5", "-t", "1", "-f", "B"]
    got = {}
    for kind in ("iperf", "linkperf"):
        srv = i2lib.start_server("iperf" if kind == "linkperf" else "linkperf", ["-f", "B"])
        r = i2lib.run_client(kind, srv.port, args)
        got[kind] = start_line(r.out, 1.5, r.describe())
        bb, load = conn_ids(r.out)
        stext = server_text(srv, [bb[1]] + [p for _, p in load], 1, r.describe())
        check_qack(r.out, stext, r.describe())
    eq(got["linkperf"], got["iperf"], "the delay both clients print", got)


@suite.case
def json_down_load():
    """linkperf -c (the iperf3 spelling: the option implies iperf2) --bounceback
    --bounceback-congest=down -J against stock iperf -s: -J lists the exchanges with their
    latency and the load's stream; the round trips' count x 200 is what the stock server
    counted on the bounceback connection, the load's bytes what it sent on the other."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-f", "B"])
    r = lptest.run([lptest.LINKPERF, "-c", lptest.LOOP4, "-p", srv.port, "--bounceback", "--bounceback-congest=down",
                    "-t", "2", "-J"], timeout=30, name="linkperf-c")
    ctx = r.describe()
    eq(r.rc, 0, "client exit status", ctx)
    streams = json.loads(r.out)["end"]["streams"]
    bb = [s for s in streams if s["sender"].get("latency")]
    load = [s for s in streams if not s["sender"].get("latency")]
    eq((len(bb), len(load)), (1, 1), "one bounceback stream and one load stream", ctx)
    stext = srv.wait_for(lambda t: len([k for k in finals(t) if not k[1]]) >= 2, timeout=15)
    rows = sorted(finals(stext).values(), key=lambda x: x["bytes"])
    eq(rows[0]["bytes"], bb[0]["sender"]["latency"]["count"] * 200, "server bb bytes = round trips x 200", ctx,
       stext)
    eq(bb[0]["sender"]["bytes"], rows[0]["bytes"], "client bb bytes = server's", ctx, stext)
    eq(load[0]["receiver"]["bytes"], rows[1]["bytes"], "load: client received = stock server sent", ctx, stext)
    check("(reverse)" in stext and "(qack)" in stext, "the stock server saw no -R quickack test", stext)


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""linkperf's UDP round trips: -u --bounceback over the iperf3 dialect. The client sends a
probe every period, a linkperf server counts each one as an iperf3 UDP receiver does and
echoes it back, the client times the round trips. Accounting, not timing: probes sent by
the client = probes the server counted = round trips back + lost; on a shaped link whose
tbf drops, the round trips lost are the datagrams tbf dropped. Stock iperf3 does not echo:
the client says so and ends in bounded time. Bad parameters get SERVER_ERROR and the
server serves the next client."""
import json
import re
import socket
import struct

import iperf2lib as i2lib
import lptest
from lptest import check, eq, get

LOOP = lptest.LOOP4
suite = lptest.Suite("udp_echo")
ORDER = ("min_ms", "p50_ms", "p90_ms", "p99_ms", "p99_9_ms", "max_ms")


def echo(host, port, *args, ns=None, timeout=40):
    cmd = [lptest.LINKPERF, "-c", host, "-p", port, "-u", "--bounceback"] + list(args)
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    return lptest.run(cmd, timeout=timeout)


def check_latency(lat, ctx):
    """A stream's round trips: ordered percentiles above zero, sent = back + lost, the
    histogram holds every sample."""
    ps = [lat[k] for k in ORDER]
    check(ps == sorted(ps), "percentiles not ordered: %s" % ps, ctx)
    check(ps[0] > 0, "a round trip of %s ms" % ps[0], ctx)
    eq(lat["sent"], lat["count"] + lat["lost"], "sent = came back + lost", ctx)
    eq(sum(b[2] for b in lat["histogram"]["buckets"]), lat["count"], "histogram counts add up", ctx)


def server_streams(srv):
    """The linkperf server's -J end streams of its one test."""
    docs = srv.json_docs()
    eq(len(docs), 1, "server documents", srv.proc.tail())
    return docs[0]["end"]["streams"]


@suite.case
def lp_server_loopback_accounting():
    """-t 1 -P 2 -J: every stream's probes all came back (loopback drops none), the server
    counted exactly the probes the client sent, the intervals' round trips add up to the
    total, and 64 bytes is the default probe."""
    srv = lptest.start_server("linkperf", ["-1", "-J"])
    r = echo(LOOP, srv.port, "-t", "1", "-P", "2", "-J")
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    doc = lptest.parse_json(r.out)
    eq(get(doc, "start.test_start.blksize"), 64, "the default probe size", ctx)
    streams = doc["end"]["streams"]
    eq(len(streams), 2, "streams", ctx)
    eq(srv.finish(), 0, "server exit status", srv.proc.tail())
    theirs = {s["udp"]["socket"]: s["udp"] for s in server_streams(srv)}
    eq(len(theirs), 2, "server streams", srv.proc.tail())
    total_sent = 0
    for i, s in enumerate(streams):
        lat = s["udp"]["latency"]
        check_latency(lat, ctx)
        # At most one probe a period (and the first at 0): an upper bound, not a timing check.
        check(0 < lat["sent"] <= 101, "%d probes in 1 s at 10 ms" % lat["sent"], ctx)
        eq(lat["lost"], 0, "round trips lost on loopback", ctx)
        eq(s["udp"]["packets"], lat["sent"], "the stream's packets are its probes", ctx)
        ivs = sum(iv["streams"][i]["latency"]["count"] for iv in doc["intervals"] if "latency" in iv["streams"][i])
        eq(ivs, lat["count"], "intervals add up", ctx)
        total_sent += lat["sent"]
    eq(sum(x["packets"] for x in theirs.values()), total_sent, "the server counted every probe", srv.proc.tail())
    eq(sum(x["lost_packets"] for x in theirs.values()), 0, "the server lost none", srv.proc.tail())


@suite.case
def hold_and_probe_budget():
    """-k 30 --bounceback-hold 3 --bounceback-period 0.005: exactly 30 probes go out (the budget
    ends the test, not -t), all come back, and every round trip includes the server's 3 ms
    hold (a lower bound, not a timing check)."""
    srv = lptest.start_server("linkperf")
    r = echo(LOOP, srv.port, "-k", "30", "--bounceback-hold", "3", "--bounceback-period", "0.005", "-J")
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    lat = lptest.parse_json(r.out)["end"]["streams"][0]["udp"]["latency"]
    check_latency(lat, ctx)
    eq(lat["sent"], 30, "probes sent with -k 30", ctx)
    eq(lat["lost"], 0, "round trips lost on loopback", ctx)
    check(lat["min_ms"] >= 3.0, "a round trip under the 3 ms hold: %s" % lat["min_ms"], ctx)
    check(srv.proc.alive(), "server died", srv.proc.tail())
    srv.stop()


@suite.case
def text_and_csv_agree_with_json():
    """The same run's text summary (round trips line and percentile line), and a CSV run's
    lost column, against the counts: text's sent = back + lost; CSV's final row's lost is
    its packets (the probes) minus its latency count (--csv-latency)."""
    srv = lptest.start_server("linkperf")
    r = echo(LOOP, srv.port, "-t", "1", "-l", "200", "--bounceback-period", "0.02")
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    m = re.search(r"round trips: (\d+) probes sent, (\d+) came back, (-?\d+) lost", r.out)
    check(m, "no round trips line", ctx)
    sent, back, lost = (int(x) for x in m.groups())
    eq(sent, back + lost, "text: sent = back + lost", ctx)
    check(0 < sent <= 51, "text: %d probes at 20 ms in 1 s" % sent, ctx)
    m2 = re.search(r"round-trip latency, (\d+) samples: min/p50/p90/p99/p99.9/max = ([\d./]+) ms", r.out)
    check(m2, "no percentile line", ctx)
    eq(int(m2.group(1)), back, "text: the samples are the round trips back", ctx)
    vals = [float(x) for x in m2.group(2).split("/")]
    check(vals == sorted(vals) and vals[0] > 0, "text percentiles %s" % vals, ctx)
    r = echo(LOOP, srv.port, "-t", "1", "--csv", "--csv-latency")
    ctx = r.describe()
    check(r.rc == 0, "csv exit status %s" % r.rc, ctx)
    rows = [x.split(",") for x in r.out.strip().splitlines() if x]
    check(rows, "no CSV rows", ctx)
    last = rows[-1]
    eq(srv.stop(), 0, "server exit status", srv.proc.tail())
    # iperf2's UDP CSV: time, addresses, id, interval, bytes, bps, jitter, lost, packets,
    # percent, ooo; then (--csv-latency) count, min, p50, p90, p99, p99.9, max.
    lat = last[-7:]
    count = int(lat[0])
    ps = [float(x) for x in lat[1:]]
    check(ps == sorted(ps) and ps[0] > 0, "csv percentiles %s" % ps, ctx)
    lost, sent = int(last[10]), int(last[11])
    eq(lost, sent - count, "csv: lost = probes sent - round trips back", ctx)
    check(0 < sent <= 101, "csv: %d probes in 1 s at 10 ms" % sent, ctx)


@suite.case
def tbf_drops_are_the_lost_round_trips():
    """Through a namespace pair whose client-side egress is a tbf (1 Mbit/s, 2 ms queue):
    bursts of 10 x 1200-byte probes every 50 ms (1.9 Mbit/s) overflow it. No other queue on
    the path drops, so the round trips lost are exactly the datagrams tbf dropped, and the
    server received the others."""
    with lptest.ShapedLink(1, 3000, 2) as link:
        port = lptest.free_port()
        proc = lptest.Proc(["ip", "netns", "exec", link.b, lptest.LINKPERF, "-s", "-1", "-p", port, "-J"], 60,
                           name="linkperf-s")
        check(i2lib.wait_bound(proc, port, udp=False), "linkperf -s did not listen", proc.tail())
        before = tbf_dropped(link)
        r = echo(link.addr_b, port, "--bounceback=10", "--bounceback-period", "0.05", "-l", "1200", "-t", "2",
                 "-J", ns=link.a)
        ctx = r.describe()
        check(r.rc == 0, "exit status %s" % r.rc, ctx)
        dropped = tbf_dropped(link) - before
        lat = lptest.parse_json(r.out)["end"]["streams"][0]["udp"]["latency"]
        check_latency(lat, ctx)
        check(dropped > 0, "tbf dropped nothing: the test cannot tell", ctx)
        eq(lat["lost"], dropped, "round trips lost = datagrams tbf dropped", ctx)
        eq(proc.wait(20), 0, "server exit status", proc.tail())
        srv = lptest.parse_json(proc.stdout)["end"]["streams"][0]["udp"]
        # The server sees loss as sequence gaps, so the probes dropped after the last one it
        # got are not its loss: what it received is the count to compare.
        eq(srv["packets"] - srv["lost_packets"], lat["sent"] - dropped,
           "the server received the probes tbf let through", proc.tail())


def tbf_dropped(link):
    out = lptest.run(["ip", "netns", "exec", link.a, "tc", "-s", "qdisc", "show", "dev", "lpva"], timeout=10).out
    m = re.search(r"dropped (\d+)", out)
    check(m, "no drop count in tc -s: %s" % out)
    return int(m.group(1))


@suite.case
def stock_iperf3_server_fails_clearly():
    """Stock iperf3 counts the probes and echoes none: the client fails with "no round trip
    came back" (exit 1) within -t plus its grace, and iperf3 stays up."""
    srv = lptest.start_server("iperf3")
    r = echo(LOOP, srv.port, "-t", "1", timeout=20)
    ctx = r.describe()
    eq(r.rc, 1, "exit status", ctx)
    check("no round trip came back" in r.err, "no clear error", ctx)
    check(srv.proc.alive(), "iperf3 died", srv.proc.tail())
    srv.stop()


def raw_params(port, params):
    """The iperf3 control steps up to the parameters, then what the server answers: the
    state byte (-2: SERVER_ERROR) or None if it closed."""
    s = socket.create_connection((LOOP, int(port)), timeout=10)
    try:
        s.sendall(lptest.make_cookie())
        st = s.recv(1)
        eq(st, b"\x09", "PARAM_EXCHANGE", port)
        body = json.dumps(params).encode()
        s.sendall(struct.pack(">I", len(body)) + body)
        st = s.recv(1)
        return struct.unpack("b", st)[0] if st else None
    finally:
        s.close()


@suite.case
def bad_params_refused_server_goes_on():
    """Probes shorter than the header, a hold past 500 ms, -R with the echo: each gets
    SERVER_ERROR; then a good client is served."""
    srv = lptest.start_server("linkperf")
    base = {"udp": True, "omit": 0, "time": 1, "parallel": 1, "len": 64, "bandwidth": 1000000, "pacing_timer": 1000,
            "client_version": "3.12", "bounceback": 1}
    for bad in ({"len": 20}, {"bounceback_hold_us": 600000}, {"reverse": True}):
        eq(raw_params(srv.port, dict(base, **bad)), -2, "SERVER_ERROR for %s" % bad, srv.proc.tail())
    r = echo(LOOP, srv.port, "-t", "1", "-J")
    check(r.rc == 0, "the next client: exit status %s" % r.rc, r.describe())
    check(srv.proc.alive(), "server died", srv.proc.tail())
    srv.stop()


@suite.case
def bad_client_options():
    """The client refuses what a UDP round trip cannot be, before connecting."""
    for args, want in ((["-l", "20"], "UDP round-trip probe is 52..65507"),
                       (["--bounceback-hold", "600"], "at most 500 ms"),
                       (["--bounceback-period", "0"], "UDP probes go at most every"),
                       (["-R"], "bounceback"),
                       (["--dialect", "iperf2"], "iperf 2.1.8 has no UDP bounceback")):
        r = echo(LOOP, "1", *args, timeout=10)
        check(r.rc != 0 and want in r.err, "%s: %r" % (args, r.err), r.describe())


if __name__ == "__main__":
    suite.main()

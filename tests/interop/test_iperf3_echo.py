#!/usr/bin/env python3
"""linkperf's timed echo: --bounceback with --dialect iperf3 runs iperf2's request/response
exchanges over the iperf3 protocol (the parameters carry "bounceback"). A linkperf server
echoes every message; stock iperf3 has no echo mode, so against it the client says no round
trip came back. Accounting, not timing: every exchange moves -l bytes out and back, so the
client's bytes are 2 x size x round trips and the server (which counts both directions as
they move) counts the same; the server's hold is a lower bound on every round trip."""
import lptest
from lptest import check, eq, get

LOOP = lptest.LOOP4
suite = lptest.Suite("iperf3_echo")


def echo(port, *args):
    return lptest.run([lptest.LINKPERF, "-c", LOOP, "-p", port, "--dialect", "iperf3"] + list(args),
                      timeout=40)


def check_stream(s, size, ctx):
    """One stream's end entry: bytes = 2 x size x its round trips, histogram adds up."""
    snd = s["sender"]
    lat = snd["latency"]
    eq(snd["bytes"], lat["count"] * 2 * size, "stream bytes = 2 x %d x round trips" % size, ctx)
    eq(sum(b[2] for b in lat["histogram"]["buckets"]), lat["count"], "histogram counts add up", ctx)
    ps = [lat["min_ms"], lat["p50_ms"], lat["p90_ms"], lat["p99_ms"], lat["p99_9_ms"], lat["max_ms"]]
    check(ps == sorted(ps), "percentiles not ordered: %s" % ps, ctx)
    return lat


@suite.case
def lp_server_bursts_with_hold():
    """--bounceback=5 --bounceback-hold 2 -t 2: one or two bursts of 5 (at 0 and 1 s, none
    at or past -t); the server's results count the client's bytes exactly; every round trip
    is at least the 2 ms hold; the intervals' counts add up to the total."""
    srv = lptest.start_server("linkperf")
    r = echo(srv.port, "--bounceback=5", "--bounceback-hold", "2", "-t", "2", "-J")
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    doc = lptest.parse_json(r.out)
    eq(get(doc, "start.test_start.blksize"), 100, "bounceback's default -l", ctx)
    lat = check_stream(doc["end"]["streams"][0], 100, ctx)
    n = lat["count"]
    check(n in (5, 10), "round trips %d: not one or two bursts of 5" % n, ctx)
    check(lat["min_ms"] >= 2.0, "a round trip under the 2 ms hold: %s" % lat, ctx)
    eq(get(doc, "end.sum_received.bytes"), get(doc, "end.sum_sent.bytes"),
       "the server counts what the client counted", ctx)
    eq(sum(iv["streams"][0]["latency"]["count"] for iv in doc["intervals"]), n, "intervals add up", ctx)
    eq(srv.stop(), 0, "server exit status", srv.proc.tail())


@suite.case
def lp_server_parallel_back_to_back():
    """-P 2 -l 1000 --bounceback-period 0 -t 1: each stream's bytes are its own round trips
    x 2 x 1000, and the server's total equals the client's."""
    srv = lptest.start_server("linkperf")
    r = echo(srv.port, "--bounceback", "--bounceback-period", "0", "-P", "2", "-l", "1000", "-t", "1", "-J")
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    doc = lptest.parse_json(r.out)
    streams = doc["end"]["streams"]
    eq(len(streams), 2, "streams", ctx)
    total = 0
    for s in streams:
        lat = check_stream(s, 1000, ctx)
        check(lat["count"] > 10, "only %d round trips back to back in 1 s" % lat["count"], ctx)
        total += s["sender"]["bytes"]
    eq(get(doc, "end.sum_sent.bytes"), total, "sum_sent = the streams' bytes", ctx)
    eq(get(doc, "end.sum_received.bytes"), total, "the server counts what the client counted", ctx)
    eq(srv.stop(), 0, "server exit status", srv.proc.tail())


@suite.case
def text_summary_line():
    """The iperf3 text look ends with the round-trip percentile line, whose sample count is
    the number of round trips the transfer column implies."""
    srv = lptest.start_server("linkperf")
    r = echo(srv.port, "--bounceback=3", "-t", "1", "-f", "k")
    ctx = r.describe()
    check(r.rc == 0, "exit status %s" % r.rc, ctx)
    lines = [l for l in r.out.splitlines() if "round-trip latency" in l]
    eq(len(lines), 1, "one round-trip latency line", ctx)
    samples = int(lines[0].split("round-trip latency, ")[1].split(" samples")[0])
    eq(samples, 3, "one burst of 3 in 1 s", ctx)
    eq(srv.stop(), 0, "server exit status", srv.proc.tail())


@suite.case
def stock_iperf3_has_no_echo():
    """Against stock iperf3 3.12 the exchange never comes back: the client fails (exit 1)
    naming the cause, and the stock server read exactly the first 100-byte message."""
    srv = lptest.start_server("iperf3", ["-1", "-J"])
    r = echo(srv.port, "--bounceback", "-t", "1")
    ctx = r.describe()
    eq(r.rc, 1, "exit status", ctx)
    check("no round trip came back" in r.err and "stock iperf3 has no echo mode" in r.err,
          "the error does not say why", ctx)
    srv.finish()
    sdoc = srv.json()
    eq(get(sdoc, "end.sum_received.bytes"), 100, "the stock server read the first message", ctx,
       srv.stdout)


@suite.case
def refused_combinations():
    """The timed echo is forward TCP with 64-byte messages up (-u makes it the UDP round
    trips, test_udp_echo.py, forward too): -u -R, -R and -l 32 get a clear error (exit 2)
    naming the options, without connecting."""
    for extra, words in ((["-u", "-R"], "-R"), (["-R"], "-R"), (["-l", "32"], "at least 64")):
        r = lptest.run([lptest.LINKPERF, "-c", LOOP, "-p", "9", "--dialect", "iperf3", "--bounceback"] + extra,
                       timeout=10)
        eq(r.rc, 2, "exit status with %s" % extra, r.describe())
        check(words in r.err, "the error does not name %s" % words, r.describe())


if __name__ == "__main__":
    suite.main()

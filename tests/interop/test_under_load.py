#!/usr/bin/env python3
"""linkperf under-load: latency under load, phases idle/up/down/both, against a linkperf
server and a stock iperf 2.1.8 server, and the truth check on a shaped link: two
namespaces, the client's egress through tbf at R with a queue of tbf's limit; cubic upload
streams keep that queue full, so the round trips added in the up phase come from the queue
(at least half its drain time, at most all of it plus what the idle link had), and no more
than R goes up."""
import shutil

import iperf2lib as i2lib
import lptest
from lptest import check, eq

suite = lptest.Suite("under_load", needs_iperf3=False)
PHASES = ["idle", "up", "down", "both"]


def run_under_load(argv, ns=None, timeout=90):
    cmd = [lptest.LINKPERF, "under-load"] + argv + ["-J"]
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    r = lptest.run(cmd, timeout=timeout)
    check(r.rc == 0, "under-load exit status %s" % r.rc, r.describe())
    doc = lptest.parse_json(r.out)["under_load"]
    eq([p["name"] for p in doc["phases"]], PHASES, "the four phases", r.describe())
    for p in doc["phases"]:
        rtt = p["rtt"]
        check(rtt["count"] > 0, "phase %s: no probe came back" % p["name"], r.describe())
        ordered = [rtt[k] for k in ("min_ms", "p50_ms", "p90_ms", "p99_ms", "p99_9_ms", "max_ms")]
        check(ordered == sorted(ordered), "phase %s: percentiles not ordered: %s" % (p["name"], rtt), r.describe())
        up, down = p["up_bits_per_second"], p["down_bits_per_second"]
        check((up > 0) == (p["name"] in ("up", "both")), "phase %s: upload %s" % (p["name"], up), r.describe())
        check((down > 0) == (p["name"] in ("down", "both")), "phase %s: download %s" % (p["name"], down),
              r.describe())
        if p["name"] != "idle":
            eq(round(p["added_p50_ms"], 6), round(rtt["p50_ms"] - doc["phases"][0]["rtt"]["p50_ms"], 6),
               "phase %s: added p50 = its p50 - idle p50" % p["name"], r.describe())
    return doc, r


@suite.case
def lp_server_loopback():
    """Against linkperf -s on loopback (-P 2, 2 s phases): four phases, each with probes
    answered, load only where the phase says, and the server counted every load byte (its
    tests' totals are the client's)."""
    srv = i2lib.start_server("linkperf")
    db = lptest.tmp_path("under-load-history.db")
    doc, r = run_under_load(["-c", lptest.LOOP4, "-p", srv.port, "-P", "2", "-t", "2", "--db", db])
    check(srv.proc.alive(), "server died", srv.proc.tail())
    runs = lptest.history_runs(db)
    eq([(x["source"], x["proto"], x["complete"]) for x in runs], [("cli", "tcp", 1)],
       "one complete history row", r.describe())
    eq(runs[0]["result"], lptest.parse_json(r.out), "the stored report is the -J report", r.describe())


@suite.case
def stock_server_loopback():
    """Against stock iperf -s (2.1.8 serves --bounceback, -R and --full-duplex): the same
    four phases."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf")
    run_under_load(["-c", lptest.LOOP4, "-p", srv.port, "-P", "2", "-t", "2"])



@suite.case
def lp_server_udp_probe():
    """--probe udp against linkperf -s (-P 1, 2 s phases): the same four phases with the
    probes as UDP echoes, and the report says which probe it used."""
    srv = i2lib.start_server("linkperf")
    doc, r = run_under_load(["-c", lptest.LOOP4, "-p", srv.port, "-P", "1", "-t", "2", "--probe", "udp",
                             "--no-history"])
    eq(doc["probe"], "udp", "the probe kind", r.describe())
    check(srv.proc.alive(), "server died", srv.proc.tail())


def json_server(ns):
    """linkperf -s -J in netns ns: one JSON document per test, the received bytes as the
    server counted them."""
    port = lptest.free_port()
    proc = lptest.Proc(["ip", "netns", "exec", ns, lptest.LINKPERF, "-s", "-p", port, "-J"], 120, name="linkperf-s")
    check(i2lib.wait_bound(proc, port, udp=False), "linkperf -s did not listen", proc.tail())
    return proc, port


def server_upload_bps(proc, streams):
    """The up phase's load as the server received it: the first test of `streams`
    receiving streams (the probes are one-stream tests)."""
    for d in lptest.parse_json_docs(proc.stdout):
        e = d.get("end", {})
        rows = e.get("streams", [])
        if len(rows) == streams and all(x.get("receiver", {}).get("bytes", 0) > 0 for x in rows):
            return e["sum_received"]["bits_per_second"]
    raise lptest.TestFailure("no up-phase test in the server's documents\n" + proc.tail())


@suite.case
def shaped_link_truth():
    """tbf 20 Mbit/s on the client's egress with a 40 ms queue: in the up phase (4 cubic
    streams) the probes' p50 rises by at least half the queue's drain time and p99 by no
    more than the drain time plus the idle p99 and 10 ms; the server received at most
    20 Mbit/s (+2 %: tbf's burst); the idle probes see no queue."""
    check(shutil.which("tc"), "tc not found")
    with lptest.ShapedLink(20, 32000, 40) as link:
        proc, port = json_server(link.b)
        doc, r = run_under_load(["-c", link.addr_b, "-p", port, "-P", "4", "-t", "4", "-C", "cubic"],
                                ns=link.a)
        q = link.queue_delay_ms()
        idle, up = doc["phases"][0], doc["phases"][1]
        ctx = [r.describe(), "queue drain time %.1f ms" % q]
        check(idle["rtt"]["p50_ms"] < q / 4, "idle p50 %.3f ms: a queue on an idle link?" % idle["rtt"]["p50_ms"],
              *ctx)
        check(up["added_p50_ms"] >= q / 2, "up: p50 rose by %.1f ms, under half the %.1f ms queue" % (
            up["added_p50_ms"], q), *ctx)
        # A probe segment the full queue dropped waits for TCP's retransmission timeout (200 ms
        # or more): then p99 is the RTO's, not the queue's, and the probe says so.
        check("probe_retransmits" in up, "up: the TCP probe's retransmits are not reported", *ctx)
        if up["probe_retransmits"] == 0:
            check(up["added_p99_ms"] <= q + idle["rtt"]["p99_ms"] + 10, "up: p99 rose by %.1f ms, more than the "
                  "%.1f ms queue can hold" % (up["added_p99_ms"], q), *ctx)
        else:
            print("      up: %d probe retransmits: p99 (+%.1f ms) not bounded by the queue" % (
                up["probe_retransmits"], up["added_p99_ms"]))
        received = server_upload_bps(proc, 4)
        check(received <= 20e6 * 1.02, "up: the server received %.2f Mbit/s through a 20 Mbit/s tbf" % (
            received / 1e6), *ctx)


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""Several stock iperf3 3.12 clients at the same time against ONE linkperf server (stock
iperf3 would answer all but one with "busy"): each finishes with exit 0 and its own
correct numbers, and the server reports each test separately."""

import time

from lptest import (LOOP4, Suite, check, eq, ge, get, iperf3_version, parse_json,
                    start_client, start_server, summary_rows)

suite = Suite("concurrency")

MIB = 1024 * 1024

# Four different tests. -b keeps each one running for about 1.5-2 s so they overlap.
#   (name, args, protocol, bytes the sender must send, linkperf server is the receiver)
MIX = [
    ("tcp_n10M", ["-n", "10M", "-b", "50M"], "TCP", 10 * MIB, True),
    ("tcp_P2_n6M", ["-n", "6M", "-P", "2", "-b", "20M"], "TCP", 6 * MIB, True),
    ("udp_n1M", ["-u", "-n", "1M", "-l", "1024", "-b", "5M"], "UDP", 1 * MIB, True),
    ("tcp_R_n5M", ["-R", "-n", "5M", "-b", "25M"], "TCP", 5 * MIB, False),
]


def run_mix(server_json):
    srv = start_server("linkperf", ["-J"] if server_json else [])
    procs = []
    for name, args, proto, nbytes, _ in MIX:
        procs.append(start_client("iperf3", LOOP4, srv.port, ["-J"] + args, timeout=40))
    t0 = time.monotonic()
    docs = {}
    for (name, args, proto, nbytes, _), p in zip(MIX, procs):
        rc = p.wait(45)
        eq(rc, 0, "%s: stock client exit status" % name, p.tail())
        doc = parse_json(p.stdout, name)
        check("error" not in doc, "%s: client error %r" % (name, doc.get("error")), p.tail())
        docs[name] = doc
    elapsed = time.monotonic() - t0
    srv.stop()
    return srv, docs, elapsed


def late_n(lp_receives):
    """A rate-limited 3.21+ stock client sending (forward) checks -n only when its main loop
    wakes (~1 s), so it sends past -n (-n 10M at 50M: 12 MB, also against a 3.21 server)."""
    return lp_receives and iperf3_version() >= (3, 21)


def check_client(name, args, proto, nbytes, lp_receives, doc):
    snd, rcv = get(doc, "end.sum_sent"), get(doc, "end.sum_received")
    eq(get(doc, "start.test_start.protocol"), proto, name + ": protocol")
    if late_n(lp_receives):
        # 3.21+ client: at least -n sent; the linkperf receiver still counts every byte
        ge(snd["bytes"], nbytes, name + ": 3.21+ sender bytes (at least -n)")
        eq(rcv["bytes"], snd["bytes"], name + ": receiver bytes vs the 3.21+ sender's")
    else:
        eq(snd["bytes"], nbytes, name + ": sender bytes (-n)")
        # linkperf receiver (forward) drains; a stock receiver (-R) counts to -n itself: exact
        eq(rcv["bytes"], nbytes, name + ": receiver bytes (-n)")
    if proto == "UDP":
        eq(rcv["lost_packets"], 0, name + ": UDP loss")
        eq(rcv["packets"], snd["packets"], name + ": UDP packets received vs sent")
        if late_n(lp_receives):
            eq(snd["bytes"], snd["packets"] * 1024, name + ": UDP bytes = packets x 1024")
        else:
            eq(snd["packets"], nbytes // 1024, name + ": UDP packets sent")


@suite.case
def four_clients_json_server():
    """4 stock clients at once (TCP -n 10M, TCP -P 2 -n 6M, UDP -n 1M, TCP -R -n 5M)
    against one `linkperf -s -J`: all exit 0 with exact -n byte counts on both rows; the
    server prints four JSON documents, one per test (matched by cookie), with the same
    numbers."""
    srv, docs, elapsed = run_mix(True)
    for name, args, proto, nbytes, lp_recv in MIX:
        check_client(name, args, proto, nbytes, lp_recv, docs[name])
    sdocs = srv.json_docs()
    eq(len(sdocs), 4, "server JSON documents", srv.proc.tail())
    by_cookie = {get(d, "start.cookie"): d for d in sdocs}
    eq(len(by_cookie), 4, "distinct cookies among the server's documents")
    for name, args, proto, nbytes, _ in MIX:
        c = docs[name]
        d = by_cookie.get(get(c, "start.cookie"))
        check(d is not None, name + ": no server document with the client's cookie")
        eq(get(d, "start.test_start.protocol"), proto, name + ": server doc protocol")
        eq(get(d, "start.test_start.bytes"), nbytes, name + ": server doc test_start.bytes")
        for k in ("sum_sent", "sum_received"):
            eq(get(d, "end.%s.bytes" % k), get(c, "end.%s.bytes" % k),
               "%s: server doc %s.bytes vs client" % (name, k))
    # the tests really overlapped: together they lasted much longer than the wall time
    # they took (a one-test-at-a-time server would need the sum)
    total = sum(get(d, "end.sum_sent.seconds") for d in docs.values())
    check(total > 1.5 * elapsed, "tests did not overlap: %.1f s of tests in %.1f s wall time"
          % (total, elapsed))


@suite.case
def four_clients_text_server():
    """The same four clients against a text-mode server: four 'Accepted connection'
    lines, and the server's receiver rows carry each forward test's exact byte count
    (10.0 MBytes, 6.00 MBytes, 1.00 MBytes) while the -R test shows a 5.00 MBytes sender
    row."""
    srv, docs, _ = run_mix(False)
    for name, args, proto, nbytes, lp_recv in MIX:
        check_client(name, args, proto, nbytes, lp_recv, docs[name])
    out = srv.stdout
    eq(out.count("Accepted connection from"), 4, "'Accepted connection' lines", out[-2000:])
    rcv = [r for r in summary_rows(out, "receiver")]
    snd = [r for r in summary_rows(out, "sender")]
    rcv_sizes = sorted(r["bytes"] for r in rcv)
    for name, args, proto, nbytes, lp_recv in MIX:
        if not lp_recv:
            continue
        # a 3.21+ client sends past -n (see late_n): its own sender count is what arrived
        want = get(docs[name], "end.sum_sent.bytes") if late_n(lp_recv) else nbytes
        check(any(abs(b - want) < 0.01 * want for b in rcv_sizes),
              "no receiver row of %d bytes in the server output" % want, out[-3000:])
    check(any(abs(r["bytes"] - 5 * MIB) < 0.01 * 5 * MIB for r in snd),
          "no 5 MiB sender row for the -R test", out[-3000:])


if __name__ == "__main__":
    suite.main()

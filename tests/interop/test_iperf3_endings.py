#!/usr/bin/env python3
"""How an iperf3 test bounded by -n/-k ends, against the stock iperf3 (3.12 from Debian, or
the binary LINKPERF_IPERF3 names): every byte counted on both ends, in bounded time
(issue 15 items 1-4). The races are made likely: several repetitions, -P 3/4, a CPU hog,
and an nftables rule that drops datagrams.

- tcp_reverse_whole_blocks: a stock client with -R -n/-k -P 3/4 against linkperf -s. The
  server writes whole -l blocks on every stream (3.21's receiver reads whole blocks, and a
  stream stopped mid-block left it waiting forever), the last one past -n as stock does;
  client and server count the same bytes, ceil(-n / -l) blocks.
- udp_reverse_with_loss: UDP -R -n/-k while every 50th datagram to the client is dropped:
  the server sends on until the client has its count (it used to stop at exactly -n, and the
  client waited for its 120 s idle timeout); the client's loss is what was dropped.
- forward_counted_under_load: linkperf -c -n/-k -P 3/4 to a stock server, with every core
  busy: the server counts every byte the client sent (the client used to send TEST_END while
  the data was still queued, and the server counted 12 % less).
- forward_counted_on_slow_link: the same over a 20 Mbit/s tbf link, where a second of data
  is still queued after the last write (the server used to count 1 MB of 8 less).
- server_output_only_when_asked: a server that sends its output unasked (as 3.21 does once
  any client asked for it) is not printed, nor put in -J; asked for, it is."""

import math
import socket
import time

import iperf2lib
import lptest
from lptest import (LOOP4, TEST_END, EXCHANGE_RESULTS, DISPLAY_RESULTS, FakeServer, Suite,
                    check, eq, get)

suite = Suite("iperf3_endings")
REPEAT = 3
KIB, MIB = 1024, 1024 * 1024


def whole_blocks(amount, blk):
    """What a sender of whole blocks sends for -n amount: ceil(amount / blk) blocks."""
    return math.ceil(amount / blk) * blk


def stream_bytes(doc, role):
    return sorted(get(s, role + ".bytes") for s in get(doc, "end.streams"))


# ---- TCP -R: whole blocks -----------------------------------------------------------

# (arguments, -n or -k's bytes, what whole blocks make of it, -l)
TCP_REVERSE = [
    (["-n", "100M", "-P", "4"], 100 * MIB, whole_blocks(100 * MIB, 128 * KIB), 128 * KIB),
    (["-k", "2K", "-P", "4"], 2048 * 128 * KIB, 2048 * 128 * KIB, 128 * KIB),
    (["-n", "1000001", "-P", "3", "-l", "100K"], 1000001, whole_blocks(1000001, 100 * KIB),
     100 * KIB),
]


@suite.case
def tcp_reverse_whole_blocks():
    """stock -c -R -n 100M / -k 2K -P 4, -n 1000001 -l 100K -P 3 against linkperf -s, 3 times
    each: the server sends ceil(n/l) whole blocks on every stream; the client counts them all
    (at least -n where -n is not whole blocks: it ends as soon as it has -n)"""
    pair = lptest.Pair("iperf3", "linkperf")
    # Up to 3.12 a client's -k counts its reads, and a non-blocking read can return part of a
    # block: such a client may end a few blocks early whatever the server does (stock 3.12
    # to 3.12: 0 to 123 blocks short in 6 runs of -R -k 2K -P 4), and the server stops where
    # its TEST_END finds it. From 3.13 on it reads whole blocks, and the counts agree exactly.
    reads_counted = lptest.iperf3_version() <= (3, 12)
    for args, amount, want, blk in TCP_REVERSE:
        for i in range(REPEAT):
            what = "%s (run %d)" % (" ".join(args), i + 1)
            r = pair.run(["-R"] + args, timeout=40)
            check(r.client.elapsed < 30, "%s: took %.1f s" % (what, r.client.elapsed),
                  r.context())
            sent, got = get(r.sj, "end.sum_sent.bytes"), get(r.cj, "end.sum_received.bytes")
            if reads_counted and "-k" in args:
                check(0 < got <= sent <= want, "%s: client received %d, server sent %d, of %d"
                      % (what, got, sent, want), r.context())
                continue
            # The client ends as soon as it has -n: where -n is not whole blocks the server may
            # still be writing the last one when TEST_END comes. All of it arrived: whole blocks.
            check(amount <= got <= sent <= want, "%s: client received %d, server sent %d; "
                  "expected %d <= received <= sent <= %d" % (what, got, sent, amount, want),
                  r.context())
            if got == sent:
                eq(sent, want, what + ": server sent", r.context())
                per_stream = stream_bytes(r.sj, "sender")
                eq([b % blk for b in per_stream], [0] * len(per_stream),
                   what + ": partial blocks", r.context())
                eq(stream_bytes(r.cj, "receiver"), per_stream, what + ": per-stream bytes",
                   r.context())


# ---- UDP -R: a lost datagram does not stall the end --------------------------------

def udp_reverse_in(ns, client, args, cport):
    """One -R UDP test inside ns: linkperf -s -1 -J and `client` -J (argv prefix)."""
    port = lptest.free_port()
    srv = lptest.Proc(["ip", "netns", "exec", ns.name, lptest.LINKPERF, "-s", "-p", str(port),
                       "-1", "-J"], 60, name="linkperf-s")
    check(iperf2lib.wait_bound(srv, port, udp=False), "linkperf -s did not listen", srv.tail())
    t0 = time.monotonic()
    cl = lptest.Proc(["ip", "netns", "exec", ns.name] + client +
                     ["-c", LOOP4, "-p", str(port), "-J", "-u", "-b", "200M", "-l", "1400", "-R",
                      "--cport", str(cport)] + args, 40, name="client")
    cl.wait(45)
    elapsed = time.monotonic() - t0
    srv.wait(15)
    ctx = "%s\n%s" % (cl.tail(), srv.tail())
    eq(cl.returncode, 0, "client exit status", ctx)
    return lptest.parse_json(cl.stdout), lptest.parse_json(srv.stdout), elapsed, ctx


@suite.case
def udp_reverse_with_loss():
    """-u -b 200M -R -n 10M / -k 5000 with every 50th datagram to the client dropped (stock
    and linkperf clients): ends in seconds with the count reached; loss = the drops"""
    clients = [("stock", [lptest.IPERF3]), ("linkperf", [lptest.LINKPERF])]
    with iperf2lib.NetNS("i3end") as ns:
        cport = 5999
        for name, argv in clients:
            for args, count in ((["-n", "10M"], 10 * MIB), (["-k", "5000"], 5000 * 1400)):
                what = "%s client %s" % (name, " ".join(args))
                # The 50th, 100th...: never the first datagram, the server's answer to the
                # client's hello (a stock client gives up on the test without it).
                ns.drop_every(cport, 50, first=49)
                errors0 = ns.udp_in_errors()
                cj, sj, elapsed, ctx = udp_reverse_in(ns, argv, args, cport)
                dropped = ns.dropped()
                errors = ns.udp_in_errors() - errors0
                check(elapsed < 20, "%s: took %.1f s (a stalled end waits 120 s)"
                      % (what, elapsed), ctx)
                rcv = get(cj, "end.sum_received")
                check(rcv["bytes"] >= count, "%s: the client ended at %d bytes, before its "
                      "count %d" % (what, rcv["bytes"], count), ctx)
                check(dropped > 0, "%s: the rule dropped nothing" % what, ctx)
                check(0 < rcv["lost_packets"] <= dropped + errors,
                      "%s: client lost %d, dropped %d + receive errors %d"
                      % (what, rcv["lost_packets"], dropped, errors), ctx)
                check(get(sj, "end.sum_sent.packets") >= rcv["bytes"] // 1400 +
                      rcv["lost_packets"], "%s: server sent fewer than the client saw" % what,
                      ctx)


# ---- forward -n: the receiver's count ------------------------------------------------

FORWARD = [
    (["-n", "100M", "-P", "4"], whole_blocks(100 * MIB, 128 * KIB)),
    (["-k", "256"], 256 * 128 * KIB),
    (["-n", "30M", "-P", "3", "-l", "100K"], whole_blocks(30 * MIB, 100 * KIB)),
]


@suite.case
def forward_counted_under_load():
    """linkperf -c -n 100M -P 4 / -k 256 / -n 30M -l 100K -P 3 to stock -s, every core busy,
    3 times each: the server received exactly what linkperf sent; -J sum_sent = sum_received"""
    pair = lptest.Pair("linkperf", "iperf3")
    with lptest.cpu_hog():
        for args, want in FORWARD:
            for i in range(REPEAT):
                what = "%s (run %d)" % (" ".join(args), i + 1)
                r = pair.run(args, timeout=40)
                check(r.client.elapsed < 30, "%s: took %.1f s" % (what, r.client.elapsed),
                      r.context())
                eq(get(r.sj, "end.sum_received.bytes"), want, what + ": stock server received",
                   r.context())
                eq(get(r.cj, "end.sum_sent.bytes"), want, what + ": linkperf sent", r.context())
                eq(get(r.cj, "end.sum_received.bytes"), want, what + ": linkperf's -J received",
                   r.context())


@suite.case
def forward_counted_on_slow_link():
    """linkperf -c -n 6M over a 20 Mbit/s tbf link to stock -s: the last write leaves about a
    second of data queued; the server still counts all of it, and -J sum_sent = sum_received"""
    with lptest.ShapedLink(20, 32768, 400) as link:
        port = lptest.free_port()
        srv = lptest.Proc(["ip", "netns", "exec", link.b, lptest.IPERF3, "-s", "-p", str(port),
                           "-1", "-J"], 60, name="iperf3-s")
        check(iperf2lib.wait_bound(srv, port, udp=False), "iperf3 -s did not listen", srv.tail())
        cl = lptest.Proc(["ip", "netns", "exec", link.a, lptest.LINKPERF, "-c", link.addr_b,
                          "-p", str(port), "-J", "-n", "6M"], 40, name="linkperf-c")
        cl.wait(45)
        srv.wait(15)
        ctx = "%s\n%s" % (cl.tail(), srv.tail())
        eq(cl.returncode, 0, "client exit status", ctx)
        cj, sj = lptest.parse_json(cl.stdout), lptest.parse_json(srv.stdout)
        eq(get(sj, "end.sum_received.bytes"), 6 * MIB, "stock server received", ctx)
        eq(get(cj, "end.sum_sent.bytes"), 6 * MIB, "linkperf sent", ctx)
        eq(get(cj, "end.sum_received.bytes"), 6 * MIB, "linkperf's -J received", ctx)


# ---- server output -------------------------------------------------------------------

UNASKED = "Server listening on 5201\nunasked output of an earlier client's test\n"


def output_anyway(fake, ctrl):
    """A whole TCP test whose results carry server_output_text whether asked or not."""
    _, data = fake.setup_tcp(ctrl)
    got = [0] * len(data)
    ctrl.settimeout(0.01)
    state = b""
    deadline = time.monotonic() + 10
    while not state and time.monotonic() < deadline:
        for i, d in enumerate(data):
            d.settimeout(0.01)
            try:
                got[i] += len(d.recv(1 << 20))
            except socket.timeout:
                pass
        try:
            state = ctrl.recv(1)
        except socket.timeout:
            pass
    fake.log.append(("state", state))
    if state != bytes([TEST_END]):
        return
    ctrl.settimeout(5)
    ctrl.sendall(bytes([EXCHANGE_RESULTS]))
    fake.log.append(("client results", fake.read_json(ctrl)))
    fake.send_json(ctrl, {
        "cpu_util_total": 1.0, "cpu_util_user": 0.5, "cpu_util_system": 0.5,
        "sender_has_retransmits": -1, "congestion_used": "cubic",
        "streams": [{"id": i + 1, "bytes": n, "retransmits": -1, "jitter": 0, "errors": 0,
                     "omitted_errors": 0, "packets": 0, "omitted_packets": 0,
                     "start_time": 0, "end_time": 1.0} for i, n in enumerate(got)],
        "server_output_text": UNASKED})
    ctrl.sendall(bytes([DISPLAY_RESULTS]))
    fake.hold(ctrl, 5)


@suite.case
def server_output_only_when_asked():
    """a server sending its output unasked: not printed, not in -J; with
    --get-server-output: printed and in -J"""
    for asked in (False, True):
        extra = ["--get-server-output"] if asked else []
        for json_out in (False, True):
            fake = FakeServer(output_anyway)
            try:
                args = ["-n", "1M"] + extra + (["-J"] if json_out else [])
                r = lptest.run_client("linkperf", LOOP4, fake.port, args, timeout=20)
            finally:
                fake.close()
                fake.join(5)
            what = "%s%s" % ("--get-server-output" if asked else "not asked",
                             " -J" if json_out else "")
            eq(r.rc, 0, what + ": exit status", r.describe(), fake.error, fake.log)
            if json_out:
                doc = r.json()
                eq(get(doc, "end.sum_received.bytes"), MIB, what + ": bytes", r.out)
                eq(doc.get("server_output_text"), UNASKED if asked else None,
                   what + ": server_output_text", r.out)
            else:
                eq("Server output:" in r.out, asked, what + ": 'Server output:' printed", r.out)
                eq("unasked output of an earlier" in r.out, asked, what + ": its text", r.out)


if __name__ == "__main__":
    suite.main()

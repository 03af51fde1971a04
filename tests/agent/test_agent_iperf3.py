#!/usr/bin/env python3
"""The board agent's iperf3 protocol on each back end (raw NO_SYS 1, netconn, socket), through
lwIP on a TAP device, against stock iperf3 3.12 -- asserting on the numbers both sides print.

Agent as server (stock `iperf3 -c ... -J`):
- TCP, UDP -b 20M, -R TCP, -R UDP, -n 20M, -P 2: the client's sum_sent and sum_received agree
  (the agent counts data still in flight at TEST_END, so forward totals are equal), the
  agent's own final line (iperf3 text layout, 3 significant digits) is within 1% of the
  receiving side's bytes, UDP unshaped loses nothing (lost 0, packets equal), -n moves exactly
  its bytes, -P 2 gives two streams with data.
- Refusals a stock client understands: -P beyond LPA_MAX_STREAMS, --bidir.
- Hostile peers end only their own test, and a good test works after each: a params length
  of 0x7fffffff, garbage JSON, a client that connects and stalls (a second client meanwhile
  hears "busy"; the staller is cut off after ~10 s).
Agent as client (`iperf3 -c HOST` on its console) against stock `iperf3 -s -1 -J`: TCP, UDP,
-R TCP, -R UDP: the stock server's JSON bytes match the agent's final line within 1%.
linkperf (iperf3 dialect) takes both parts too: as client (TCP, UDP, -R) and as server (TCP,
UDP, -R), with the same checks."""
import json
import re
import time

import agentlib as al
import lptest
from lptest import check

suite = lptest.Suite("agent_iperf3")

PROGRAMS = {"raw": "lpa-host-raw", "netconn": "lpa-host-netconn", "socket": "lpa-host-socket"}
UNITS = al.UNITS
# The agent's whole-test line in iperf3's layout:
# "[  2]   0.00-3.07   sec   133 MBytes   362 Mbits/sec                  receiver"
FINAL = (r"^\[\s*\d+\]\s+0\.00-([\d.]+)\s+sec\s+([\d.]+) ([KMGT]?)Bytes\s+[\d.]+ [KMGT]?bits/sec"
         r".*\b(sender|receiver)\s*$")


def program(name):
    return al.host_program(name)


def agent_final(host, timeout=10.0):
    """The agent's next test summary, two lines: its own measurement (returned as (seconds,
    bytes)), then the peer's from the results exchange (consumed)."""
    m = host.wait_line(FINAL, timeout)
    host.wait_line(FINAL, 5.0)
    return float(m.group(1)), float(m.group(2)) * UNITS[m.group(3)]


def near(a, b, tol=0.01):
    return abs(a - b) <= tol * max(a, b, 1)


def stock_client(topo, args, timeout=40, tool=None):
    r = topo.run_b([tool or al.IPERF3, "-c", topo.lwip_ip, "-J"] + args, timeout=timeout)
    try:
        doc = json.loads(r.out)
    except ValueError:
        raise lptest.TestFailure("iperf3 %s printed no JSON\n%s" % (" ".join(args), r.describe()))
    return r, doc


def server_case(topo, host, args, udp=False, reverse=False, amount=None, streams=1,
                thread=False, tool=None):
    r, doc = stock_client(topo, args, tool=tool)
    what = "%s -c %s" % ("linkperf" if tool else "iperf3", " ".join(args))
    check("error" not in doc, "%s: %s" % (what, doc.get("error")), r.describe())
    end = doc["end"]
    sent, recv = end["sum_sent"], end["sum_received"]
    check(sent["bytes"] > 0 and recv["bytes"] > 0, "%s: no data: %s" % (what, end), r.describe())
    if reverse:
        # The client decides the end; what the agent wrote after TEST_END is not counted.
        check(recv["bytes"] <= sent["bytes"] and near(sent["bytes"], recv["bytes"], 0.02),
              "%s: sent %d, received %d" % (what, sent["bytes"], recv["bytes"]))
    else:
        check(near(sent["bytes"], recv["bytes"], 0.002),
              "%s: sent %d, received %d" % (what, sent["bytes"], recv["bytes"]))
    if amount is not None:
        check(sent["bytes"] == amount and recv["bytes"] == amount,
              "%s: %d sent, %d received, not %d" % (what, sent["bytes"], recv["bytes"], amount))
    if udp:
        # The thread back ends can drop a datagram in lwIP's own mailboxes, which no counter
        # outside lwIP sees (test_agent_backends.py allows 0.5% for it too); raw must lose none.
        lost, pk = recv["lost_packets"], recv["packets"]
        allowed = 0 if thread else pk * 0.005
        check(lost <= allowed and pk <= sent["packets"] and
              (thread or pk == sent["packets"]),
              "%s: lost %d of %d (sent %d) on an unshaped link" % (what, lost, pk, sent["packets"]),
              "\n".join(host.lines()[-12:]))
        if lost:
            print("        (%s: %d of %d datagrams lost inside lwIP)" % (what, lost, pk))
    check(len(end["streams"]) == streams, "%s: %d streams in the result" % (
        what, len(end["streams"])))
    # The agent's own measurement: the receiver's bytes (forward) or the sender's (-R).
    sec, got = agent_final(host)
    ours = sent["bytes"] if reverse else recv["bytes"]
    check(near(got, ours), "%s: the agent reported %.0f bytes, the client JSON says %d" % (
        what, got, ours))
    rate = recv["bits_per_second"]
    print("        %-28s %8.1f Mbit/s  %d bytes  agent %.2f s" % (what, rate / 1e6, ours, sec))


# Hostile control connections, run in namespace B.
HOSTILE = r"""
import socket, struct, sys, time
kind, host = sys.argv[1], sys.argv[2]
s = socket.create_connection((host, 5201), timeout=15)
cookie = b"hostilehostilehostilehostilehostile7" + b"\0"
t0 = time.monotonic()
if kind == "stall":
    s.sendall(cookie[:10])
else:
    s.sendall(cookie)
    st = s.recv(1)
    assert st == b"\x09", st
    if kind == "biglen":
        s.sendall(struct.pack(">I", 0x7fffffff) + b"{" * 100)
    else:
        s.sendall(struct.pack(">I", 10) + b"{{{{{{{{{{")
try:
    rest = s.recv(100)
    while rest and rest != b"":
        rest = s.recv(100)
except ConnectionResetError:
    pass
print("closed after %.1f s" % (time.monotonic() - t0))
"""


def hostile(topo, kind, timeout=30):
    r = topo.run_b(["python3", "-c", HOSTILE, kind, topo.lwip_ip], timeout=timeout)
    m = re.search(r"closed after ([\d.]+) s", r.out)
    check(r.rc == 0 and m is not None, "hostile client %s failed" % kind, r.describe())
    return float(m.group(1))


def hostile_cases(topo, host):
    for kind in ("biglen", "garbage"):
        t = hostile(topo, kind)
        check(t < 3, "%s: the agent took %.1f s to drop the connection" % (kind, t))
        check(host.proc.alive(), "host program died after %s" % kind, host.proc.tail(25))
        server_case(topo, host, ["-t", "1"])
    # A staller holds the one test slot: a second client hears "busy"; after ~10 s the staller
    # is cut off and tests work again.
    staller = topo.start_b(["python3", "-c", HOSTILE, "stall", topo.lwip_ip], timeout=40)
    time.sleep(1.0)
    r, doc = stock_client(topo, ["-t", "1"])
    check("busy" in doc.get("error", ""), "a client during a stalled handshake got: %s" % (
        doc.get("error")), r.describe())
    staller.wait(30)
    m = re.search(r"closed after ([\d.]+) s", staller.stdout)
    check(m is not None and 8 < float(m.group(1)) < 14, "the staller was not cut off after 10 s: "
          "%s" % staller.stdout)
    server_case(topo, host, ["-t", "1"])
    # Requests the agent refuses, in words a stock client prints.
    for args, word in ((["-P", "5", "-t", "1"], "parallel"), (["--bidir", "-t", "1"], "implemented")):
        r, doc = stock_client(topo, args)
        check(word in doc.get("error", ""), "iperf3 %s: expected a refusal with %r, got %r" % (
            " ".join(args), word, doc.get("error")), r.describe())
    server_case(topo, host, ["-t", "1"])


def client_case(topo, host, opts, udp=False, reverse=False, tool=None):
    srv = topo.start_b([tool or al.IPERF3, "-s", "-1", "-J"], timeout=40)
    deadline = time.monotonic() + 10
    while not lptest.port_bound(5201, pid=srv.pid):
        check(time.monotonic() < deadline and srv.alive(), "the PC server did not bind",
              srv.tail())
        time.sleep(0.05)
    rc, out = host.command("iperf3 -c %s %s" % (topo.pc_ip, opts))
    check(rc >= 0, "iperf3 -c %s: rc %d %s" % (opts, rc, out))
    srv.wait(30)
    try:
        doc = json.loads(srv.stdout)
    except ValueError:
        raise lptest.TestFailure("stock server printed no JSON\n%s" % srv.tail(25))
    check("error" not in doc, "stock server: %s" % doc.get("error"),
          "agent console:\n" + "\n".join(host.lines()[-15:]))
    end = doc["end"]
    # The stock server's own side: its receiver (forward) or sender (-R) totals.
    theirs = end["sum_sent" if reverse else "sum_received"]["bytes"]
    check(theirs > 0, "iperf3 -c %s: the stock server saw no data: %s" % (opts, end))
    if udp and not reverse:
        lost, pk = end["sum_received"]["lost_packets"], end["sum_received"]["packets"]
        check(lost <= pk * 0.005, "agent UDP client: stock server lost %d of %d" % (lost, pk))
    sec, got = agent_final(host)
    tol = 0.02 if reverse else 0.01
    check(near(got, theirs, tol), "agent client %s: agent %.0f bytes, stock server %d" % (
        opts, got, theirs), "\n".join(host.lines()[-12:]))
    print("        agent -c %-19s %d bytes (stock server), agent %.2f s" % (opts, theirs, sec))


def backend_case(name):
    exe = program(PROGRAMS[name])
    with al.Topology(tag="i3" + name[:4], net=78) as topo:
        topo.pin_neighbor()
        host = topo.start_host(exe, cmds=["iperf3 -s"])
        server_case(topo, host, ["-t", "2"])
        thread = name != "raw"
        server_case(topo, host, ["-u", "-b", "20M", "-t", "2"], udp=True, thread=thread)
        server_case(topo, host, ["-R", "-t", "2"], reverse=True)
        server_case(topo, host, ["-R", "-u", "-b", "20M", "-t", "2"], udp=True, reverse=True,
                    thread=thread)
        server_case(topo, host, ["-n", "20M"], amount=20 * 1024 * 1024)
        server_case(topo, host, ["-P", "2", "-t", "2"], streams=2)
        hostile_cases(topo, host)
        # linkperf (iperf3 dialect, its default) as the client
        server_case(topo, host, ["-t", "2"], tool=lptest.LINKPERF)
        server_case(topo, host, ["-u", "-b", "20M", "-t", "2"], udp=True, thread=thread,
                    tool=lptest.LINKPERF)
        server_case(topo, host, ["-R", "-t", "2"], reverse=True, tool=lptest.LINKPERF)
        check(host.proc.alive(), "host program died", host.proc.tail(25))
    with al.Topology(tag="i3c" + name[:3], net=79) as topo:
        topo.pin_neighbor()
        host = topo.start_host(exe)
        client_case(topo, host, "-t 2")
        client_case(topo, host, "-u -b 20M -t 2", udp=True)
        client_case(topo, host, "-R -t 2", reverse=True)
        client_case(topo, host, "-R -u -b 20M -t 2", udp=True, reverse=True)
        # linkperf as the server
        client_case(topo, host, "-t 2", tool=lptest.LINKPERF)
        client_case(topo, host, "-u -b 20M -t 2", udp=True, tool=lptest.LINKPERF)
        client_case(topo, host, "-R -t 2", reverse=True, tool=lptest.LINKPERF)


def make_case(name):
    def case():
        backend_case(name)
    case.__name__ = name
    case.__doc__ = "%s back end: iperf3 server vs stock clients (TCP, UDP, -R, -n, -P 2, " \
        "refusals, hostile peers) and the agent client vs a stock server" % name
    return case


for _name in PROGRAMS:
    suite.case(make_case(_name))


if __name__ == "__main__":
    al.preflight(programs=[program(p) for p in PROGRAMS.values()], tools=(al.IPERF3,))
    suite.main()

#!/usr/bin/env python3
"""Each back end of the board agent (raw with NO_SYS 1, raw with NO_SYS 0 and core locking,
netconn, socket, and socket on the MCU-sized lwIP configuration) serving stock iperf 2 through
lwIP on a TAP device: it moves data correctly, survives a peer that dies or resets mid-test,
and runs test after test without leaking connections. The protocol matrix (dual, tradeoff,
iperf3, the agent as client) is test_agent_iperf*.py's; this file is about the back ends.

What is asserted, per back end:
- TCP: the agent's final byte count equals the client's (both printed by iperf's rules to
  three significant digits, so within 1%).
- UDP at 20 Mbit/s: the datagrams the agent counts plus the ones it reports lost equal what the
  client sent (less its FIN datagram), and the loss it reports equals the drops counted where
  they happened on the way in (agentlib.Topology.drops: the kernels' queues, lwIP out of pbufs,
  lwIP's UDP mailbox or netbufs; 0 on this unshaped link unless the machine is busy).
- A client killed with SIGKILL mid-test, and a client whose connection is reset (RST), end
  the test on the agent, and the next test works.
- The agent as a client with the link down (no route) says why and serves on.
- Three tests in a row each end with a final report; when the console has a `stats` command
  that prints the back end's connection slots in use, the count is back where it started."""
import re
import signal
import sys
import time

import agentlib as al
import lptest
from lptest import check

suite = lptest.Suite("agent_backends", needs_iperf3=False)

PROGRAMS = {
    "raw": "lpa-host-raw",
    "raw_mt": "lpa-host-raw-mt",
    "netconn": "lpa-host-netconn",
    "socket": "lpa-host-socket",
    "socket_mcu": "lpa-host-socket-mcu",
}
UNITS = al.UNITS


def program(name):
    return al.host_program(name)


# An agent (iperf2 layout) result line: "[  2] 0.00-3.01 sec   364 MBytes  1.02 Gbits/sec",
# UDP adds "   0.494 ms 0/5353 (0%)".
AGENT_LINE = (r"^\[\s*\d+\] 0\.00-(\d+\.\d+) sec\s+([\d.]+) ([KMG]?)Bytes\s+[\d.]+ [KMG]?bits/sec"
              r"(?:\s+[\d.]+ ms\s+(\d+)/(\d+))?")


def agent_final(host, udp, timeout=15.0):
    """The agent's next whole-test line (from 0.00 to more than 1 s): (seconds, bytes, lost,
    total); lost/total are None for TCP."""
    deadline = time.monotonic() + timeout
    while True:
        m = host.wait_line(AGENT_LINE, max(0.1, deadline - time.monotonic()))
        if float(m.group(1)) > 1.0 and (m.group(4) is not None) == udp:
            nbytes = float(m.group(2)) * UNITS[m.group(3)]
            lost = int(m.group(4)) if udp else None
            total = int(m.group(5)) if udp else None
            return float(m.group(1)), nbytes, lost, total


def client_bytes(out):
    """The stock client's whole-test transfer in bytes (its -f m 'MBytes' column)."""
    rows = re.findall(r"\] 0\.0+-(\d+\.\d+) sec\s+([\d.]+) ([KMG]?)Bytes", out)
    check(rows, "the iperf client printed no result", out)
    sec, val, unit = rows[-1]
    return float(val) * UNITS[unit]


def tcp_test(topo, host, seconds=3):
    r = topo.run_b([al.IPERF2, "-c", topo.lwip_ip, "-t", seconds, "-i", 1, "-f", "m"],
                   timeout=seconds + 30)
    check(r.rc == 0, "iperf -c failed", r.describe())
    sent = client_bytes(r.out)
    sec, got, _, _ = agent_final(host, udp=False)
    check(got > 0 and abs(got - sent) <= 0.01 * sent,
          "TCP: the agent counted %d bytes, the client sent %d" % (got, sent),
          r.describe(), "\n".join(host.lines()[-12:]))
    return sent * 8 / sec / 1e6


def udp_test(topo, host):
    before = topo.drops(host)
    r = topo.run_b([al.IPERF2, "-c", topo.lwip_ip, "-u", "-b", "20M", "-t", 3, "-f", "m"],
                   timeout=40)
    check(r.rc == 0, "iperf -c -u failed", r.describe())
    m = re.search(r"Sent (\d+) datagrams", r.out)
    check(m is not None, "the UDP client printed no datagram count", r.describe())
    sent = int(m.group(1))
    check("Server Report" in r.out, "no server report reached the client", r.describe())
    sec, _, lost, total = agent_final(host, udp=True)
    drops, _, where = topo.drops(host).since(before, "to_board")
    ctx = (r.describe(), "\n".join(host.lines()[-8:]), where)
    # The client's last datagram is its FIN (a negative sequence number), not data.
    check(total in (sent - 1, sent), "UDP: the agent accounts for %d datagrams, the client "
          "sent %d (one of them the FIN)" % (total, sent), *ctx)
    check(lost == drops, "UDP: %d lost reported, %d dropped on the way (%s)" % (
        lost, drops, where), *ctx)
    return lost, total, where


# Connects, sends zeros (an iperf2 stream without header flags) for 2.5 s, then resets the
# connection (SO_LINGER 0) instead of closing it.
RST_CLIENT = r"""
import socket, struct, sys, time
s = socket.create_connection((sys.argv[1], 5001), timeout=5)
buf = bytes(65536)
end = time.monotonic() + 2.5
while time.monotonic() < end:
    s.send(buf)
s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
s.close()
print("reset sent")
"""


def killed_client(topo, host):
    """SIGKILL the stock client mid-test: the agent must end that test."""
    p = topo.start_b([al.IPERF2, "-c", topo.lwip_ip, "-t", 20, "-i", 1], timeout=40)
    host.wait_line(r"connected with .*TCP", 10)
    time.sleep(1.5)
    p.signal(signal.SIGKILL)
    p.wait(10)
    sec, got, _, _ = agent_final(host, udp=False, timeout=15)
    # The client asked for 20 s: a test the agent ended on its own is well short of that
    # however busy the machine (the kill comes about 1.5 s in).
    check(got > 0 and sec < 15, "after SIGKILL the agent reported %.2f s, %d bytes" % (sec, got))


def reset_client(topo, host):
    """A client that resets its connection mid-test: the agent must drop it and go on."""
    r = topo.run_b([sys.executable, "-c", RST_CLIENT, topo.lwip_ip], timeout=20)
    check(r.rc == 0 and "reset sent" in r.out, "the RST client failed", r.describe())
    sec, got, _, _ = agent_final(host, udp=False, timeout=15)
    # The client sends for 2.5 s, then resets: far below the agent's idle timeout, which is
    # what would end a test whose reset went unnoticed.
    check(got > 0 and sec < 10, "after the reset the agent reported %.2f s, %d bytes" % (sec, got))
    check(host.proc.alive(), "the host program died after a peer reset", host.proc.tail(25))


def link_down_client(topo, host):
    """The agent as a client while the link is down (a cable pulled): lwIP has no route, so the
    connect fails at once. The agent must say so -- refused at the start (raw: tcp_connect's
    ERR_RTE) or "connect failed" after it -- and serve on. Before the raw back end hooked its
    callbacks only after a successful tcp_connect, this killed the program: tcp_abort() of the
    failed pcb called the error callback with no connection (a NULL dereference)."""
    rc, out = host.command("link down")
    check(rc == 0, "link down failed", out)
    rc, out = host.command("iperf -c %s -t 2" % topo.pc_ip)
    said = "\n".join(out)
    if rc == 0:  # started: the failure comes as the test's error report
        said += "\n" + host.wait_line(r"error: (connect failed|the stack refused)", 15).group(0)
    check(("no route" in said and rc != 0) or "connect failed" in said,
          "a client with the link down: rc=%d, the agent said %r" % (rc, said))
    rc, out = host.command("link up")
    check(rc == 0 and host.proc.alive(), "the host program did not survive a client with the "
          "link down", out, host.proc.tail(25))


def backend_case(name):
    exe = program(PROGRAMS[name])
    with al.Topology(tag=name[:6]) as topo:
        host = topo.start_host(exe, cmds=["iperf -s"])
        topo.pin_neighbor()
        base = host.conns_in_use()
        mbps = tcp_test(topo, host)
        lost, total, where = udp_test(topo, host)
        killed_client(topo, host)
        reset_client(topo, host)
        link_down_client(topo, host)
        for _ in range(3):
            tcp_test(topo, host, seconds=1.5)
        if base is not None:
            deadline = time.monotonic() + 5
            now = host.conns_in_use()
            while now != base and time.monotonic() < deadline:
                time.sleep(0.2)
                now = host.conns_in_use()
            check(now == base, "%s: %s connection slots in use after the tests, %s before" % (
                name, now, base))
        print("        %s: TCP %.0f Mbit/s unshaped; UDP 20M lost %d/%d (%s); conns %s" % (
            name, mbps, lost, total, where, "not shown by the console" if base is None else base))


def make_case(name):
    def case():
        backend_case(name)
    case.__name__ = name
    case.__doc__ = "%s back end: TCP and UDP from stock iperf 2, SIGKILLed and reset " \
        "clients, three tests in a row" % name
    return case


for _name in PROGRAMS:
    suite.case(make_case(_name))


if __name__ == "__main__":
    al.preflight(programs=[program(p) for p in PROGRAMS.values()], tools=(al.IPERF2,))
    suite.main()

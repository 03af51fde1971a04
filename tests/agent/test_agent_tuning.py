#!/usr/bin/env python3
"""The lwIP tuning advisor, proven on the real stack: `linkperf lwip-tune --rate 100M --rtt
10ms` printed the lwipopts.h values two host programs were built with (agent/CMakeLists.txt
generates them at build time from the linkperf binary):
- lpa-host-tune-fit: what the advisor says fits a 48 KiB RAM budget (`--ram 48K --fit`), with
  its warning that this window caps TCP at window / RTT;
- lpa-host-tune-rec: its recommendation for the link (the BDP + 25%).
Both run the agent (socket back end) behind the same emulated link: 100 Mbit/s per direction,
5 ms each way (RTT 10 ms), 24 bytes of preamble, FCS and gap per frame (the advisor's wire
model). Stock iperf 2.1.8 measures each, the PC sending to the board (the board's TCP_WND
limits) and the board sending to the PC (its TCP_SND_BUF limits).

Asserted, as ceilings and as a ratio within the run (how close either comes to its ceiling
depends on the CPU the machine has to spare): the small configuration stays at or under the
cap the advisor printed, the recommended one at or under the advisor's goodput ceiling (1%
for rounding), and the recommendation moves at least RATIO times as much as the small window
(the advisor's own numbers say ceiling / cap, about 11.6: measured 13-14x on an idle machine,
6-12x with both cores busy). The advisor's numbers are read from its own output, not copied
into this file."""
import re
import time

import agentlib as al
import iperf2lib
import lptest
from lptest import check

suite = lptest.Suite("agent_tuning", needs_iperf3=False)

LINK = ["--rate", "100M", "--delay-ms", "5", "--overhead", "24"]
ADVISOR = ["lwip-tune", "--rate", "100M", "--rtt", "10ms"]
RAM = "48K"
SECONDS = 5
RATIO = 4


def advisor(*extra):
    r = lptest.run([lptest.LINKPERF] + ADVISOR + list(extra), timeout=10)
    check(r.rc == 0, "linkperf lwip-tune failed", r.describe())
    return r.out


def mbit(text, pattern, what):
    m = re.search(pattern, text, re.S)
    check(m is not None, "the advisor printed no %s" % what, text)
    v = float(m.group(1))
    return v * {"G": 1e3, "M": 1.0, "k": 1e-3}[m.group(2)]


def measure(exe, direction):
    """Goodput in Mbit/s as the receiving side measured it."""
    with al.Topology(tag="tu" + direction[:2], net=82) as topo:
        topo.pin_neighbor()
        host = topo.start_host(exe, args=LINK, cmds=["iperf -s"] if direction == "up" else [])
        topo.ping(3, interval=0.1)
        if direction == "up":  # the PC sends, the board receives
            r = topo.run_b([al.IPERF2, "-c", topo.lwip_ip, "-t", SECONDS, "-f", "B"],
                           timeout=SECONDS + 30)
            check(r.rc == 0, "iperf -c failed", r.describe())
            p = al.parse_agent(host.lines())
            fin = al.agent_finals(p, 0.9 * SECONDS)
            deadline = time.monotonic() + 10
            while not fin and time.monotonic() < deadline:
                time.sleep(0.2)
                p = al.parse_agent(host.lines())
                fin = al.agent_finals(p, 0.9 * SECONDS)
            check(fin, "the agent printed no final line", "\n".join(host.lines()[-20:]))
            return list(fin.values())[-1]["bps"] / 1e6
        s = topo.start_b([al.IPERF2, "-s", "-f", "B"], timeout=SECONDS + 40)
        deadline = time.monotonic() + 10
        while not lptest.port_bound(5001, pid=s.pid):
            check(time.monotonic() < deadline and s.alive(), "iperf -s did not bind", s.tail())
            time.sleep(0.05)
        rc, out = host.command("iperf -c %s -t %d" % (topo.pc_ip, SECONDS))
        check(rc >= 0, "the agent refused the client command: %s" % out)
        deadline = time.monotonic() + SECONDS + 20
        while not any(r["end"] >= 0.9 * SECONDS for r in
                      al.agent_finals(al.parse_agent(host.lines()), 0.9 * SECONDS).values()):
            check(time.monotonic() < deadline, "the agent printed no final line",
                  "\n".join(host.lines()[-20:]))
            time.sleep(0.2)
        time.sleep(1.0)
        s.kill()
        rows = iperf2lib.finals(iperf2lib.parse(s.stdout))
        check(rows, "the stock server printed no result", s.stdout)
        return list(rows.values())[-1]["rate"] * 8 / 1e6


def tuning(direction):
    rec_text = advisor()
    fit_text = advisor("--ram", RAM, "--fit")
    ceiling = mbit(rec_text, r"goodput ceiling on the wire: ([\d.]+) ([GMk])bit/s", "ceiling")
    cap = mbit(fit_text, r"caps TCP at\s*\*?\s*about ([\d.]+) ([GMk])bit/s", "cap")
    check(cap < 0.2 * ceiling, "the fitting window is not small enough to show anything "
          "(cap %.2f, ceiling %.2f Mbit/s)" % (cap, ceiling), fit_text)
    small = measure(al.host_program("lpa-host-tune-fit"), direction)
    big = measure(al.host_program("lpa-host-tune-rec"), direction)
    print("      %s: advisor's cap %.2f Mbit/s, measured %.2f; its recommendation: ceiling "
          "%.2f, measured %.2f (%.0fx)" % (direction, cap, small, ceiling, big,
                                          big / max(small, 1e-9)))
    check(0 < small <= 1.02 * cap, "the small window moved %.2f Mbit/s; the advisor "
          "said it caps TCP at %.2f" % (small, cap), fit_text)
    check(big <= 1.01 * ceiling, "the recommended configuration moved %.2f "
          "Mbit/s; the advisor's ceiling is %.2f" % (big, ceiling), rec_text)
    check(big >= RATIO * small, "the recommendation moved only %.1fx the small window" % (
        big / small))


@suite.case
def pc_to_board():
    """PC sends, board receives: the board's TCP_WND from the advisor caps or frees the link"""
    tuning("up")


@suite.case
def board_to_pc():
    """Board sends, PC receives: the board's TCP_SND_BUF from the advisor caps or frees it"""
    tuning("down")


if __name__ == "__main__":
    al.preflight(programs=[al.host_program("lpa-host-tune-fit"),
                           al.host_program("lpa-host-tune-rec")], tools=(al.IPERF2,))
    suite.main()

#!/usr/bin/env python3
"""The lwIP tuning advisor, proven on the real stack: `linkperf lwip-tune --rate 100M --rtt
10ms` printed the lwipopts.h values two host programs were built with (agent/CMakeLists.txt
generates them at build time from the linkperf binary):
- lpa-host-tune-fit: what the advisor says fits a 48 KiB RAM budget (`--ram 48K --fit`), with
  its warning that this window caps TCP at window / RTT;
- lpa-host-tune-rec: its recommendation for the link (the BDP + 25%).
Both run the agent (socket back end) behind the same emulated link: 100 Mbit/s per direction,
5 ms each way (RTT 10 ms), 24 bytes of preamble, FCS and gap per frame (the advisor's wire
model), each in namespaces of its own, at the same time. Stock iperf 2.1.8 measures each, the
PC sending to the board (the board's TCP_WND limits) and the board sending to the PC (its
TCP_SND_BUF limits).

Asserted, as ceilings and as a ratio within the run (how close either comes to its ceiling
depends on the CPU the machine has to spare): the small configuration stays at or under the
cap the advisor printed, the recommended one at or under the advisor's goodput ceiling (1%
for rounding), and the recommendation moves at least RATIO times as much as the small window
measured at the same moment under the same load (the advisor's own numbers say ceiling / cap,
about 11.6: measured 13-14x on an idle machine and under with-cpu-hog.sh, 6-14x with three
hogs and another agent test running, 13-14x beside three agent_iperf3 shards and the hog).
Measured one after the other, the two configurations met different moments of the load
(with-cpu-hog.sh and four agent shards, load 18: 5.98, then 14.86 Mbit/s, 2.5x). The
advisor's numbers are read from its own output, not copied into this file."""
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


def agent_final_bps(host, seconds):
    """The agent's whole-test row (0.00 to 90% of the test or more): its rate, or None."""
    fin = al.agent_finals(al.parse_agent(host.lines()), 0.9 * seconds)
    return list(fin.values())[-1]["bps"] if fin else None


def measure_both(direction):
    """Goodput in Mbit/s of the fitting and the recommended configuration, measured at the
    same time on two identical emulated links (each in namespaces of its own), as the
    receiving side measured it: whatever load the machine carries, both carry it."""
    exes = {"fit": al.host_program("lpa-host-tune-fit"),
            "rec": al.host_program("lpa-host-tune-rec")}
    up = direction == "up"  # the PC sends, the board receives
    with al.Topology(tag="tf" + direction[:2], net=82) as tf, \
            al.Topology(tag="tr" + direction[:2], net=84) as tr:
        topos = {"fit": tf, "rec": tr}
        hosts, pcs = {}, {}
        for k, topo in topos.items():
            topo.pin_neighbor()
            hosts[k] = topo.start_host(exes[k], args=LINK, cmds=["iperf -s"] if up else [])
            topo.ping(3, interval=0.1)
        if up:
            for k, topo in topos.items():
                pcs[k] = topo.start_b([al.IPERF2, "-c", topo.lwip_ip, "-t", SECONDS, "-f", "B"],
                                      timeout=SECONDS + 30)
            for k, p in pcs.items():
                p.wait(SECONDS + 35)
                check(p.returncode == 0, "%s: iperf -c failed" % k, p.tail())
            out = {}
            for k, h in hosts.items():
                deadline = time.monotonic() + 10
                while agent_final_bps(h, SECONDS) is None:
                    check(time.monotonic() < deadline, "%s: the agent printed no final line" % k,
                          "\n".join(h.lines()[-20:]))
                    time.sleep(0.2)
                out[k] = agent_final_bps(h, SECONDS) / 1e6
            return out["fit"], out["rec"]
        for k, topo in topos.items():
            pcs[k] = topo.start_b([al.IPERF2, "-s", "-f", "B"], timeout=SECONDS + 40)
        for k, p in pcs.items():
            deadline = time.monotonic() + 10
            while not lptest.port_bound(5001, pid=p.pid):
                check(time.monotonic() < deadline and p.alive(), "%s: iperf -s did not bind" % k,
                      p.tail())
                time.sleep(0.05)
        for k, h in hosts.items():
            rc, out = h.command("iperf -c %s -t %d" % (topos[k].pc_ip, SECONDS))
            check(rc >= 0, "%s: the agent refused the client command: %s" % (k, out))
        out = {}
        for k, h in hosts.items():
            deadline = time.monotonic() + SECONDS + 20
            while agent_final_bps(h, SECONDS) is None:
                check(time.monotonic() < deadline, "%s: the agent printed no final line" % k,
                      "\n".join(h.lines()[-20:]))
                time.sleep(0.2)
        for k, p in pcs.items():
            deadline = time.monotonic() + 10
            while not iperf2lib.finals(iperf2lib.parse(p.stdout)) and time.monotonic() < deadline:
                time.sleep(0.1)  # the server prints its summary after the close
            p.kill()
            rows = iperf2lib.finals(iperf2lib.parse(p.stdout))
            check(rows, "%s: the stock server printed no result" % k, p.stdout)
            out[k] = list(rows.values())[-1]["rate"] * 8 / 1e6
        return out["fit"], out["rec"]


def tuning(direction):
    rec_text = advisor()
    fit_text = advisor("--ram", RAM, "--fit")
    ceiling = mbit(rec_text, r"goodput ceiling on the wire: ([\d.]+) ([GMk])bit/s", "ceiling")
    cap = mbit(fit_text, r"caps TCP at\s*\*?\s*about ([\d.]+) ([GMk])bit/s", "cap")
    check(cap < 0.2 * ceiling, "the fitting window is not small enough to show anything "
          "(cap %.2f, ceiling %.2f Mbit/s)" % (cap, ceiling), fit_text)
    # The --window mode asked about the fitting configuration's own TCP_WND / TCP_SND_BUF must
    # state the cap the --fit advice gave, for the direction under test.
    fit_vals = dict(re.findall(r"^#define (TCP_WND|TCP_SND_BUF)\s+(\d+)", fit_text, re.M))
    given_text = advisor("--window", fit_vals["TCP_WND"], "--snd-buf", fit_vals["TCP_SND_BUF"])
    who = "board receiving \\(the PC sends\\)" if direction == "up" else "board sending"
    given_cap = mbit(given_text, who + r": at most ([\d.]+) ([GMk])bit/s", "--window cap")
    check(abs(given_cap - cap) <= 0.011 * cap, "--window states %.2f Mbit/s for the fitting "
          "configuration, --fit said %.2f" % (given_cap, cap), given_text)
    small, big = measure_both(direction)
    print("      %s: advisor's cap %.2f Mbit/s, measured %.2f; its recommendation: ceiling "
          "%.2f, measured %.2f (%.1fx, at the same time)" % (
              direction, cap, small, ceiling, big, big / max(small, 1e-9)))
    check(0 < small <= 1.02 * cap, "the small window moved %.2f Mbit/s; the advisor "
          "said it caps TCP at %.2f" % (small, cap), fit_text)
    check(big <= 1.01 * ceiling, "the recommended configuration moved %.2f "
          "Mbit/s; the advisor's ceiling is %.2f" % (big, ceiling), rec_text)
    check(big >= RATIO * small, "the recommendation moved only %.1fx the small window at "
          "the same time" % (big / small))


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

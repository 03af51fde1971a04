#!/usr/bin/env python3
"""The CPU model against the tutorials' numbers: for each seed (a board's clock, an lwIP API, a
direction, the TCP Mbit/s a tutorial reported at 100 Mbit/s), the CPU ceiling the model's
estimates give (`linkperf lwip-tune --cpu-mhz F --cpu-api API`, the one home of that
arithmetic and of agent/port/lpa_cpu_costs.h's table) and what the host program of that API
measures on the modelled board: `--rate 100M --tx-desc 4 --cpu-mhz F --rx-desc 4`, stock
`iperf -c` into the agent (RX) or the agent's `iperf -c` into stock `iperf -s` (TX), TCP for
--seconds. Prints the markdown table agent/README.md shows ("What the CPU model says").

Needs root, iperf and the built programs (build/linkperf, build/agent/port/unix/). A
measurement on a shared machine: rates vary from run to run, and a busy host can pull a
modelled board below its ceiling. Python 3 standard library and tests/agent/agentlib.

    sudo bench/agent_model_seeds.py [--seconds N]
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "agent"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "interop"))
import agentlib as al  # noqa: E402
import lptest  # noqa: E402

LINKPERF = os.path.join(HERE, "..", "build", "linkperf")
PROGRAMS = {"raw": "lpa-host-raw", "netconn": "lpa-host-netconn", "socket": "lpa-host-socket"}
# (board, MHz, API, direction, the tutorial's TCP Mbit/s at 100 Mbit/s): ANCHORS.md's seeds.
SEEDS = [
    ("STM32F4", 168, "netconn", "RX", 94),
    ("STM32F4", 168, "socket", "RX", 71),
    ("BL706", 144, "raw", "TX", 24),
    ("BL706", 144, "raw", "RX", 38),
    ("BL706", 144, "netconn", "TX", 22),
    ("BL706", 144, "netconn", "RX", 32),
    ("BL706", 144, "socket", "TX", 20),
    ("BL706", 144, "socket", "RX", 15),
]


def ceilings(mhz, api):
    """(RX, TX) Mbit/s and cycles per segment from lwip-tune's CPU budget comment."""
    out = subprocess.run([LINKPERF, "lwip-tune", "--rate", "100M", "--rtt", "1ms", "--cpu-mhz",
                          str(mhz), "--cpu-api", api], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    text = " ".join(out.split())
    rx = re.search(r"about (\d+) cycles per received segment .*? allow ([\d.]+) Mbit/s", text)
    tx = re.search(r"about (\d+) per sent segment allow ([\d.]+) Mbit/s", text)
    if not rx or not tx:
        sys.exit("agent_model_seeds: no CPU budget in lwip-tune's output:\n" + out)
    return (float(rx.group(2)), int(rx.group(1))), (float(tx.group(2)), int(tx.group(1)))


def final_mbps(out):
    """The last whole-test rate of a stock iperf's CSV (-y C) output, Mbit/s."""
    rows = [ln.split(",") for ln in out.splitlines() if ln.count(",") >= 8]
    if not rows:
        return None
    return int(rows[-1][8]) / 1e6


def measure(mhz, api, direction, seconds):
    link = ["--rate", "100M", "--tx-desc", 4, "--cpu-mhz", mhz, "--rx-desc", 4]
    with al.Topology(tag="ms" + api[:3], net=87) as topo:
        topo.pin_neighbor()
        host = topo.start_host(al.host_program(PROGRAMS[api]), args=link, cmds=["iperf -s"])
        if direction == "RX":
            r = topo.run_b([al.IPERF2, "-c", topo.lwip_ip, "-t", seconds, "-y", "C"],
                           timeout=seconds + 30)
            return final_mbps(r.out)
        srv = topo.start_b([al.IPERF2, "-s", "-y", "C"], timeout=seconds + 60)
        deadline = time.monotonic() + 10
        while not lptest.port_bound(5001, pid=srv.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        rc, out = host.command("iperf -c %s -t %d" % (topo.pc_ip, seconds))
        if rc < 0:
            sys.exit("agent_model_seeds: the agent refused its client: %s" % out)
        deadline = time.monotonic() + seconds + 30
        while final_mbps(srv.stdout) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        srv.kill()
        return final_mbps(srv.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=int, default=5)
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("agent_model_seeds: needs root")
    print("| seed (tutorial) | Mbit/s | model: cycles a segment | model: CPU ceiling | "
          "model: measured | cycles a segment the tutorial's rate implies |")
    print("|---|---:|---:|---:|---:|---:|")
    for board, mhz, api, direction, seed in SEEDS:
        rx, tx = ceilings(mhz, api)
        ceiling, cycles = rx if direction == "RX" else tx
        got = measure(mhz, api, direction, a.seconds)
        # The tutorial's rate, were the CPU its limit: cycles = Hz / segments per second.
        implied = mhz * 1e6 / (seed * 1e6 / (1460 * 8))
        print("| %s %d MHz, %s %s | %d | %d | %.0f | %s | %.0f |" % (
            board, mhz, api, direction, seed, cycles, ceiling,
            "%.1f" % got if got is not None else "no result", implied), flush=True)


if __name__ == "__main__":
    main()

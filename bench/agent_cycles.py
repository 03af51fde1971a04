#!/usr/bin/env python3
"""Instructions the agent spends per byte and per frame on a Cortex-M4, for each lwIP API.

Boots agent/port/qemu-mps2's firmware in QEMU with -icount shift=0 (every guest instruction
is 1 ns of the guest's clock) on a TAP device in a namespace of its own, runs stock iperf /
iperf3 transfers of a fixed size against it, and reads the firmware's `cpu` counters (SysTick
ticks busy, x 40 = instructions) and `link` counters (frames, bytes) around each. Prints a
markdown table and the CPU model's row for the firmware's back end (agent/port/lpa_cpu_costs.h):
receive per frame and per byte solved from the two UDP sizes, send from the TCP and UDP sends.
The raw build is lpa-qemu-mps2.elf; lpa-qemu-mps2-netconn.elf and -socket.elf run NO_SYS=0 on
the port's cooperative scheduler, whose thread switches the counts include.

Needs root, qemu-system-arm, iperf, iperf3 and the built firmware
(build/agent/qemu-mps2/lpa-qemu-mps2.elf, or --firmware). A measurement, never a pass/fail:
it exits non-zero only when it could not run. Python 3 standard library only.

    sudo bench/agent_cycles.py [--firmware build/agent/qemu-mps2/lpa-qemu-mps2-netconn.elf]
"""

import argparse
import atexit
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NS = "lpa-cycles-%d" % os.getpid()
BOARD, PC = "10.99.0.2", "10.99.0.1"
TICK_INSTR = 40  # SysTick runs at the 25 MHz core clock: one tick per 40 ns = 40 instructions
IDLE = {"per_s": 0.0}  # instructions/s of the idle loop (SysTick, polling), measured first


def sh(*argv):
    subprocess.run([str(a) for a in argv], check=True, capture_output=True, timeout=30)


def cleanup():
    subprocess.run(["ip", "netns", "del", NS], capture_output=True, timeout=30)


class Firmware:
    def __init__(self, path):
        argv = ["ip", "netns", "exec", NS, "qemu-system-arm", "-M", "mps2-an386", "-icount",
                "shift=0", "-nographic", "-monitor", "none", "-serial", "stdio", "-kernel", path,
                "-nic", "tap,ifname=tap0,script=no,downscript=no,mac=02:4c:50:41:00:01"]
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  bufsize=1)
        atexit.register(self.p.kill)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()
        self.wait(r"^console up", 30)

    def _read(self):
        for line in self.p.stdout:
            self.lines.append(line.rstrip())

    def wait(self, pattern, timeout, start=0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines[start:]:
                if re.search(pattern, line):
                    return line
            time.sleep(0.05)
        sys.exit("agent_cycles: the firmware printed no %r" % pattern)

    def command(self, line):
        start = len(self.lines)
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        self.wait(r"^done rc=", 20, start)
        return self.lines[start:]

    def counters(self, command, prefix):
        for line in self.command(command):
            if line.startswith(prefix):
                return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}
        sys.exit("agent_cycles: no %r line" % prefix)


UDP_RX_BIG, UDP_RX_SMALL = "UDP receive, 1470 B", "UDP receive, 100 B"
TCP_TX, UDP_TX = "TCP send (agent `iperf -c`)", "UDP send, 1470 B (agent `iperf -c -u`)"
RUNS = {}  # what -> (net instructions, link counters): the model row is solved from them


def row(what, command, cpu, link, payload):
    """A table row: instructions in all, and less what the idle loop spends in that time."""
    instr = cpu["busy"] * TICK_INSTR
    net = instr - IDLE["per_s"] * cpu["ticks"] / cpu["hz"]
    frames = link["rx_frames"] + link["tx_frames"]
    RUNS[what] = (net, link)
    print("| %s | `%s` | %d | %d | %.1f | %d | %d | %.0f | %.2f |" % (
        what, command, instr, net, net / payload, link["rx_frames"], link["tx_frames"],
        net / max(frames, 1), cpu.get("switches", 0) / max(frames, 1)), flush=True)


def solve(a, b):
    """(frame, per byte) from two runs, each (net, frames, bytes, known cost to take off)."""
    (n1, f1, b1, k1), (n2, f2, b2, k2) = a, b
    det = f1 * b2 - f2 * b1
    frame = ((n1 - k1) * b2 - (n2 - k2) * b1) / det
    return frame, ((n2 - k2) * f1 - (n1 - k1) * f2) / det


def model_row(api):
    """The CPU model's row (agent/port/lpa_cpu_costs.h): cycles a frame and per byte of the
    Ethernet frame (CPI 1), received -- the two UDP sizes -- and sent -- the TCP and UDP sends,
    less what their received frames (ACKs) cost by the first pair."""
    def rx_only(what):
        net, ln = RUNS[what]
        return net, ln["rx_frames"], ln["rx_bytes"], 0.0
    rf, rb = solve(rx_only(UDP_RX_BIG), rx_only(UDP_RX_SMALL))

    def tx_only(what):
        net, ln = RUNS[what]
        return net, ln["tx_frames"], ln["tx_bytes"], ln["rx_frames"] * rf + ln["rx_bytes"] * rb
    tf, tb = solve(tx_only(TCP_TX), tx_only(UDP_TX))
    print('\nModel row (cycles = instructions): { "%s", %.0f, %.0f, %.0f, %.0f }  '
          "(rx a frame, rx per 1000 bytes, tx a frame, tx per 1000 bytes)" % (
              api, rf, rb * 1000, tf, tb * 1000))


def measure(fw, what, argv, payload):
    fw.command("link reset")
    fw.command("cpu reset")
    subprocess.run(["ip", "netns", "exec", NS] + argv, capture_output=True, timeout=120, check=True)
    time.sleep(0.5)  # the last frames and the agent's reports
    cpu = fw.counters("cpu", "cpu:")
    link = fw.counters("link", "link:")
    row(what, " ".join(argv), cpu, link, payload)


def measure_send(fw, what, console, server, payload):
    """The agent as client: a stock server in the namespace, the transfer started on the
    console, counted once the frames stop moving for a second."""
    srv = subprocess.Popen(["ip", "netns", "exec", NS] + server, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)
        fw.command("link reset")
        fw.command("cpu reset")
        fw.command(console)
        last, still = -1, 0
        while still < 10:
            time.sleep(0.1)
            n = fw.counters("link", "link:")["tx_frames"]
            still = still + 1 if n == last else 0
            last = n
        cpu = fw.counters("cpu", "cpu:")
        link = fw.counters("link", "link:")
    finally:
        srv.kill()
        srv.wait()
    row(what, " ".join(server), cpu, link, payload)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--firmware", default=os.path.join(HERE, "..", "build", "agent", "qemu-mps2",
                                                       "lpa-qemu-mps2.elf"))
    a = ap.parse_args()
    if os.geteuid() != 0 or not os.path.exists(a.firmware):
        sys.exit("agent_cycles: needs root and the firmware (%s)" % a.firmware)
    cleanup()
    atexit.register(cleanup)
    sh("ip", "netns", "add", NS)
    sh("ip", "-n", NS, "link", "set", "lo", "up")
    sh("ip", "-n", NS, "tuntap", "add", "mode", "tap", "name", "tap0")
    sh("ip", "-n", NS, "addr", "add", PC + "/24", "dev", "tap0")
    sh("ip", "-n", NS, "link", "set", "tap0", "up")
    fw = Firmware(a.firmware)
    ready = " ".join(fw.command("ifconfig %s/24" % BOARD))
    api = (re.findall(r" api=(\w+)", ready) or ["raw"])[0]
    print("Firmware: %s (back end: %s)\n" % (os.path.basename(a.firmware), api))
    fw.command("iperf3 -s")
    fw.command("iperf -s")
    fw.command("cpu reset")
    time.sleep(2)
    c = fw.counters("cpu", "cpu:")
    seconds = c["ticks"] / c["hz"]
    IDLE["per_s"] = c["busy"] * TICK_INSTR / seconds
    print("Idle loop: %.0f instructions/s (SysTick and polling), subtracted for the net column\n"
          % IDLE["per_s"])
    print("| path | command (PC side) | instructions | net of idle | net per payload byte "
          "| frames in | frames out | net per frame, both ways | thread switches per frame |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    mib = 1024 * 1024
    measure(fw, "TCP receive", ["iperf3", "-c", BOARD, "-n", "4M"], 4 * mib)
    measure(fw, "TCP receive (iperf2)", ["iperf", "-c", BOARD, "-n", "4M"], 4 * mib)
    measure(fw, UDP_RX_BIG, ["iperf", "-c", BOARD, "-u", "-b", "5M", "-n", "1M"], mib)
    measure(fw, UDP_RX_SMALL, ["iperf", "-c", BOARD, "-u", "-b", "1M", "-l", "100",
                               "-n", "200K"], 200 * 1024)
    measure_send(fw, TCP_TX, "iperf -c %s -n 4M" % PC, ["iperf", "-s"], 4 * mib)
    measure_send(fw, UDP_TX, "iperf -c %s -u -b 5M -n 1M" % PC, ["iperf", "-s", "-u"], mib)
    model_row(api)
    return 0


if __name__ == "__main__":
    sys.exit(main())

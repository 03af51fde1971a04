#!/usr/bin/env python3
"""Instructions the agent's raw back end spends per byte and per frame on a Cortex-M4.

Boots agent/port/qemu-mps2's firmware in QEMU with -icount shift=0 (every guest instruction
is 1 ns of the guest's clock) on a TAP device in a namespace of its own, runs stock iperf /
iperf3 transfers of a fixed size against it, and reads the firmware's `cpu` counters (SysTick
ticks busy, x 40 = instructions) and `link` counters (frames) around each. Prints a markdown
table; the CPU model's raw row (agent/port/lpa_cpu_costs.h) was taken from it, RX per frame
and per byte solved from the two UDP sizes.

Needs root, qemu-system-arm, iperf, iperf3 and the built firmware
(build/agent/qemu-mps2/lpa-qemu-mps2.elf, or --firmware). A measurement, never a pass/fail:
it exits non-zero only when it could not run. Python 3 standard library only.

    sudo bench/agent_cycles.py [--firmware PATH]
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


def row(what, command, cpu, link, payload):
    """A table row: instructions in all, and less what the idle loop spends in that time."""
    instr = cpu["busy"] * TICK_INSTR
    net = instr - IDLE["per_s"] * cpu["ticks"] / cpu["hz"]
    frames = link["rx_frames"] + link["tx_frames"]
    print("| %s | `%s` | %d | %d | %.1f | %d | %d | %.0f |" % (
        what, command, instr, net, net / payload, link["rx_frames"], link["tx_frames"],
        net / max(frames, 1)), flush=True)


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
    fw.command("ifconfig %s/24" % BOARD)
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
          "| frames in | frames out | net per frame, both ways |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    mib = 1024 * 1024
    measure(fw, "TCP receive", ["iperf3", "-c", BOARD, "-n", "4M"], 4 * mib)
    measure(fw, "TCP receive (iperf2)", ["iperf", "-c", BOARD, "-n", "4M"], 4 * mib)
    measure(fw, "UDP receive, 1470 B", ["iperf", "-c", BOARD, "-u", "-b", "5M", "-n", "1M"], mib)
    measure(fw, "UDP receive, 100 B", ["iperf", "-c", BOARD, "-u", "-b", "1M", "-l", "100",
                                       "-n", "200K"], 200 * 1024)
    measure_send(fw, "TCP send (agent `iperf -c`)", "iperf -c %s -n 4M" % PC, ["iperf", "-s"],
                 4 * mib)
    measure_send(fw, "UDP send, 1470 B (agent `iperf -c -u`)", "iperf -c %s -u -b 5M -n 1M" % PC,
                 ["iperf", "-s", "-u"], mib)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Instructions the agent and lwIP spend per received UDP datagram and byte on each lwIP API
(raw, netconn, socket), counted by valgrind's callgrind in the host port's programs (x86-64).

The CPU model's raw row (agent/port/lpa_cpu_costs.h) comes from a Cortex-M4 in QEMU
(bench/agent_cycles.py); netconn and socket cannot run there (the firmware has no RTOS). This
measures what each API adds on the host instead: every host program runs under callgrind with
its instrumentation on only while stock `iperf -c -u` sends a fixed number of datagrams of two
sizes to the agent's server, and the instructions of lwIP's and the agent's sources and of the
port's sys_arch (its mailboxes and semaphores) are summed; the link emulator, the TAP, libc
and the kernel are left out. Per datagram and per byte are solved from the two sizes. The
ratios to raw are what an estimate for a board can take: x86 and Thumb-2 counts differ, and
an RTOS's context switches (a mailbox wait wakes a thread) are not in these counts.

Needs root, valgrind, iperf and the built host programs (build/agent/port/unix/). A
measurement, never a pass/fail. Python 3 standard library and tests/agent/agentlib.

    sudo bench/agent_api_instr.py [--datagrams N]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "agent"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "interop"))
import agentlib as al  # noqa: E402

PROGRAMS = {"raw": "lpa-host-raw", "netconn": "lpa-host-netconn", "socket": "lpa-host-socket"}
SIZES = (1470, 370)
PPS = 400  # datagrams per second for both sizes: the same share of the tick in each
# Source files whose instructions count: lwIP's, the agent's, the port's OS layer.
COUNTED = re.compile(r"(/lwip[^/]*/src/|/agent/src/|/sys_arch\.c)")


def wrapper(tmp, exe, out):
    """A script that runs exe under callgrind, instrumentation off until switched on."""
    path = os.path.join(tmp, os.path.basename(exe) + ".sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexec valgrind --tool=callgrind --instr-atstart=no "
                "--callgrind-out-file=%s %s \"$@\"\n" % (out, exe))
    os.chmod(path, 0o755)
    return path


def control(pid, *args):
    subprocess.run(["callgrind_control"] + list(args) + [str(pid)], capture_output=True,
                   timeout=60, check=True)


def counted_ir(dump):
    """Instructions of the counted files in a callgrind dump (exclusive, summed)."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", dump],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    total = 0
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):", line)
        if m and COUNTED.search(m.group(2)):
            total += int(m.group(1).replace(",", ""))
    return total


def vg_pid(topo):
    """The valgrind process of the host program in namespace A."""
    out = subprocess.run(["pgrep", "-f", "callgrind.*--tap"], capture_output=True, text=True)
    pids = [int(p) for p in out.stdout.split()]
    if not pids:
        sys.exit("agent_api_instr: no valgrind process found")
    return pids[-1]


def measure(api, datagrams, tmp):
    exe = al.host_program(PROGRAMS[api])
    with al.Topology(tag="ai" + api[:3], net=86) as topo:
        topo.pin_neighbor()
        base = os.path.join(tmp, "cg.%s" % api)
        host = topo.start_host(wrapper(tmp, exe, base), cmds=["iperf -s"], timeout=900,
                               ready_timeout=120)
        pid = vg_pid(topo)
        topo.ping(3, interval=0.2)
        def window(run):
            """Counted instructions while run() runs (and 1 s after), and the seconds."""
            control(pid, "-i", "on")
            t0 = time.monotonic()
            control(pid, "-z")
            run()
            time.sleep(1)
            control(pid, "-d")
            sec = time.monotonic() - t0
            control(pid, "-i", "off")
            dump = sorted((f for f in os.listdir(tmp) if f.startswith("cg.%s." % api)),
                          key=lambda f: os.path.getmtime(os.path.join(tmp, f)))[-1]
            return counted_ir(os.path.join(tmp, dump)), sec

        # The tick and lwIP's timers run whether data comes or not: their instructions per
        # second, taken with no traffic, come off every transfer's count for its time.
        idle_ir, idle_sec = window(lambda: time.sleep(2))
        res = [("idle", idle_ir, idle_sec, 0)]
        for size in SIZES:
            host.command("link reset")
            ir, sec = window(lambda: topo.run_b(
                [al.IPERF2, "-c", topo.lwip_ip, "-u", "-b", PPS * size * 8, "-l", size, "-n",
                 size * datagrams], timeout=300))
            net = ir - idle_ir / idle_sec * sec
            res.append((size, net, sec, host.link()["rx_frames"]))
        host.proc.kill()
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datagrams", type=int, default=1200)
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("agent_api_instr: needs root")
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        sys.exit("agent_api_instr: needs valgrind (apt-get install valgrind)")
    tmp = tempfile.mkdtemp(prefix="lpa-instr-")
    print("| API | idle instructions/s | datagram bytes | frames in | instructions, net of idle "
          "| per frame | per datagram, solved | per byte, solved |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for api in PROGRAMS:
        (_, idle_ir, idle_sec, _), r1, r2 = measure(api, a.datagrams, tmp)
        (s1, i1, _, f1), (s2, i2, _, f2) = r1, r2
        per1, per2 = i1 / max(f1, 1), i2 / max(f2, 1)
        # per frame = per datagram + per byte * (UDP payload + 42 bytes of headers)
        per_byte = (per1 - per2) / (s1 - s2)
        fixed = per1 - per_byte * (s1 + 42)
        for s, i, _, f in (r1, r2):
            print("| %s | %.0f | %d | %d | %.0f | %.0f | %.0f | %.2f |" % (
                api, idle_ir / idle_sec, s, f, i, i / max(f, 1), fixed, per_byte), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Instructions the agent and lwIP spend per datagram, segment and byte on each lwIP API (raw,
netconn, socket), receiving and sending, UDP and TCP, counted by valgrind's callgrind in the
host port's programs (x86-64).

The CPU model's rows (agent/port/lpa_cpu_costs.h) come from a Cortex-M4 in QEMU
(bench/agent_cycles.py, each back end's firmware); this counts the same paths on the host, a
cross-check and a way to see where the instructions go: every host program runs under
callgrind with its instrumentation on only while a fixed number of datagrams or segments
pass, and the
instructions of lwIP's and the agent's sources and of the port's sys_arch (its mailboxes and
semaphores) are summed; the link emulator, the TAP, libc and the kernel are left out. The
paths: stock `iperf -c -u` into the agent's server and the agent's `iperf -c -u` into stock
`iperf -s -u`, two datagram sizes each (per datagram and per byte are solved from them); stock
`iperf -c` (TCP) into the agent and the agent's `iperf -c` into stock `iperf -s`, full
segments (per segment, with its share of ACKs). x86 and Thumb-2 counts differ, and thread
switches (a mailbox wait wakes a thread) are not in these counts.

Needs root, valgrind, iperf and the built host programs (build/agent/port/unix/). A
measurement, never a pass/fail. Python 3 standard library and tests/agent/agentlib.

    sudo bench/agent_api_instr.py [--datagrams N] [--api raw|netconn|socket ...]
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
import lptest  # noqa: E402

PROGRAMS = {"raw": "lpa-host-raw", "netconn": "lpa-host-netconn", "socket": "lpa-host-socket"}
SIZES = (1470, 370)
MSS = 1460  # TCP: bytes per segment on the emulated Ethernet
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


def wait_client_done(host, base, timeout=300):
    """Until the agent's client has ended (its connection slots are back to the listener's)."""
    deadline = time.monotonic() + timeout
    while host.conns_in_use() != base:
        if time.monotonic() > deadline:
            sys.exit("agent_api_instr: the agent's client did not end in %d s" % timeout)
        time.sleep(0.5)


def pc_server(topo, udp):
    """Stock iperf -s in namespace B, bound."""
    s = topo.start_b([al.IPERF2, "-s"] + (["-u"] if udp else []), timeout=900)
    deadline = time.monotonic() + 10
    while not lptest.port_bound(5001, udp=udp, pid=s.pid):
        if time.monotonic() > deadline or not s.alive():
            sys.exit("agent_api_instr: the PC's iperf -s did not bind")
        time.sleep(0.05)
    return s


def measure(api, datagrams, tmp):
    """[(path, bytes per datagram or segment, counted instructions net of idle, frames)] for
    UDP receive and send (two sizes each) and TCP receive and send (full segments, paced)."""
    exe = al.host_program(PROGRAMS[api])
    with al.Topology(tag="ai" + api[:3], net=86) as topo:
        topo.pin_neighbor()
        base = os.path.join(tmp, "cg.%s" % api)
        host = topo.start_host(wrapper(tmp, exe, base), cmds=["iperf -s"], timeout=1800,
                               ready_timeout=120)
        slots = host.conns_in_use()
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

        def agent_client(opts):
            rc, out = host.command("iperf -c %s %s" % (topo.pc_ip, opts))
            if rc < 0:
                sys.exit("agent_api_instr: the agent refused iperf -c %s: %s" % (opts, out))
            wait_client_done(host, slots)

        # The tick and lwIP's timers run whether data comes or not: their instructions per
        # second, taken with no traffic, come off every transfer's count for its time.
        idle_ir, idle_sec = window(lambda: time.sleep(2))
        res = []

        def run(path, size, frames_key, fn):
            host.command("link reset")
            ir, sec = window(fn)
            res.append((path, size, ir - idle_ir / idle_sec * sec, host.link()[frames_key]))

        for size in SIZES:
            run("UDP receive", size, "rx_frames", lambda: topo.run_b(
                [al.IPERF2, "-c", topo.lwip_ip, "-u", "-b", PPS * size * 8, "-l", size, "-n",
                 size * datagrams], timeout=300))
        srv = pc_server(topo, udp=True)
        for size in SIZES:
            run("UDP send", size, "tx_frames", lambda: agent_client(
                "-u -b %d -l %d -n %d" % (PPS * size * 8, size, size * datagrams)))
        srv.kill()
        # TCP: what a full segment costs with its share of ACKs.
        run("TCP receive", MSS, "rx_frames", lambda: topo.run_b(
            [al.IPERF2, "-c", topo.lwip_ip, "-b", PPS * MSS * 8, "-n", MSS * datagrams],
            timeout=300))
        srv = pc_server(topo, udp=False)
        # Unpaced: a paced sender's writes of a tick's worth leave segments short.
        run("TCP send", MSS, "tx_frames", lambda: agent_client("-n %d" % (MSS * datagrams)))
        srv.kill()
        host.proc.kill()
    return idle_ir / idle_sec, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datagrams", type=int, default=1200)
    ap.add_argument("--api", choices=sorted(PROGRAMS), action="append",
                    help="measure only this API (repeatable; default all)")
    a = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("agent_api_instr: needs root")
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        sys.exit("agent_api_instr: needs valgrind (apt-get install valgrind)")
    tmp = tempfile.mkdtemp(prefix="lpa-instr-")
    print("| API | path | idle instructions/s | bytes | frames | instructions, net of idle "
          "| per frame | per datagram or segment, solved | per byte, solved |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for api in PROGRAMS:
        if a.api and api not in a.api:
            continue
        idle, res = measure(api, a.datagrams, tmp)
        for path in ("UDP receive", "UDP send", "TCP receive", "TCP send"):
            rows = [r for r in res if r[0] == path]
            fixed = per_byte = None
            if len(rows) == 2:
                # per frame = per datagram + per byte * (UDP payload + 42 bytes of headers)
                (_, s1, i1, f1), (_, s2, i2, f2) = rows
                per1, per2 = i1 / max(f1, 1), i2 / max(f2, 1)
                per_byte = (per1 - per2) / (s1 - s2)
                fixed = per1 - per_byte * (s1 + 42)
            for _, size, ir, frames in rows:
                print("| %s | %s | %.0f | %d | %d | %.0f | %.0f | %s | %s |" % (
                    api, path, idle, size, frames, ir, ir / max(frames, 1),
                    "%.0f" % fixed if fixed is not None else "-",
                    "%.2f" % per_byte if per_byte is not None else "-"), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

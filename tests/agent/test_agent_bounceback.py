#!/usr/bin/env python3
"""The board agent's iperf 2.1 --bounceback server (LPA_IPERF2_BOUNCEBACK, on in the host
programs) on each back end, through lwIP on a TAP device with the port's emulated one-way
delay D on the link (--delay-ms: every frame waits D each way, so a round trip is at least 2D).

What is asserted (accounting, not timing: the machine may be loaded):
- stock iperf 2.1.8 `-c --bounceback -t` (its -n does not end a bounceback test: 2.1.8 bursts on
  until -t; so -t only): its final row counts every round trip of its interval
  rows, its bytes are count x 2 x size (to the three digits it prints), and the agent's own
  final rows (the messages it received, the echoes it sent) are count x size each, or one
  message more (a client may write a last message at its end and close without counting it);
- linkperf `--iperf2 --bounceback -y C --csv-latency`: the same with exact bytes, and the
  latency percentiles of the round trips: min and p50 at least 2D (less a 0.2 ms clock
  tolerance), p50 below 2D + 50 ms; with --bounceback-hold H, min at least 2D + H (the agent
  holds each echo at least H);
- hostile peers (a raw socket in the PC's namespace): a size below 64 or above the agent's
  buffer (LPA_IPERF2_BB_MAX_LEN, 512), garbage after a valid message, a message cut short, a
  second message while the first is held (two back to back without a hold are just served):
  each ends its own session (the agent closes, names the reason) and the next stock test is
  served; the connection slots are back to the listeners'.

2.1.8's client reads each echo under a receive timeout (strace: SO_RCVTIMEO 0.5 s while it
connects, then 2 s) and hangs when it expires ("tcp bounce-back read failed"); seen twice in
about 60 runs on a loaded machine, cause not established (an echo that late, e.g. an lwIP
retransmission, or the client's timer): such a run is shown with the agent's rows and link
counters and run once more (stock_case); a second one fails the case."""
import re
import sys
import time

import agentlib as al
import lptest
from lptest import check

suite = lptest.Suite("agent_bounceback", needs_iperf3=False)

PROGRAMS = {"raw": "lpa-host-raw", "netconn": "lpa-host-netconn", "socket": "lpa-host-socket"}
DELAY_MS = 5            # the emulated one-way delay D
RTT_MS = 2 * DELAY_MS
CLOCK_TOL_MS = 0.2      # the PC's clock against the port's emulated delay
LOOSE_MS = 50.0         # a loaded machine adds scheduling delay: only a generous upper bound
BB_MAX = 512            # LPA_IPERF2_BB_MAX_LEN's default
BB_ERROR = "bad iperf2 bounceback message"

# 2.1.8's rows: "[  1] 0.0000-2.0103 sec  3.91 KBytes  15.9 Kbits/sec  20=10.1/10.0/10.2/0.03 ms"
STOCK_ROW = re.compile(r"^\[\s*\d+\] (\d+\.\d+)-(\d+\.\d+) sec\s+([\d.]+) ([KMG]?)Bytes\s+"
                       r"[\d.]+ [KMG]?bits/sec\s+(\d+)=([\d.]+)/([\d.]+)/([\d.]+)/", re.M)


def start(topo, name):
    host = topo.start_host(al.host_program(PROGRAMS[name]), args=["--delay-ms", DELAY_MS],
                           cmds=["iperf -s"])
    topo.pin_neighbor()
    topo.ping(2, interval=0.1)  # lwIP learns the PC's address before a test
    return al.CaseEnv(topo, name, host)


def agent_counts(env, count, size, what, timeout=15.0):
    """The agent's final rows of the test just run: the messages it received (its receiving
    row) and the echoes it sent (its sending row), in messages of size bytes (from bytes
    printed to three digits: within 1 %). The client counts an exchange once its echo is in;
    at its end it may have written one more message and closed without reading the echo (or
    before the agent wrote it): the agent received count or count + 1 messages, and echoed
    at least count and at most what it received."""
    deadline = time.monotonic() + timeout
    while True:
        p = al.parse_agent(env.lines())
        fin = al.agent_finals(p, 0.9)
        ids = {c["dir"]: i for i, c in p["conns"].items()}
        rows = {d: fin.get((i, False)) for d, i in ids.items()}
        if rows.get("rx") and rows.get("tx"):
            break
        check(time.monotonic() < deadline, "%s: no final rows from the agent" % what, *env.ctx())
        time.sleep(0.1)
    got = {d: rows[d]["bytes"] / size for d in ("rx", "tx")}
    tol = 0.01 * (count + 1)
    check(count - tol <= got["rx"] <= count + 1 + tol and
          count - tol <= got["tx"] <= got["rx"] + tol,
          "%s: the agent received %.2f and echoed %.2f messages of %d bytes; the client counted "
          "%d round trips" % (what, got["rx"], got["tx"], size, count), *env.ctx())
    return got


def stock_run(env, args):
    env.begin()
    return env.topo.run_b([al.IPERF2, "-c", env.topo.lwip_ip, "--bounceback", "-i", 1] + args,
                          timeout=25)


def stock_case(env, args, size, what):
    r = stock_run(env, args)
    if r.rc != 0 and "bounce-back read" in r.out + r.err:
        # 2.1.8's client reads each echo under a 2 s receive timeout and, when it expires,
        # hangs until killed. Seen about once in 60 runs on a loaded machine, cause not
        # established (an lwIP retransmission after a lost frame takes lwIP's RTO, which can
        # exceed 2 s): shown here with the agent's rows and link counters, and run once more;
        # a second failure fails the case.
        print("      %s/%s: stock client's read timeout; once more. First run:\n%s\n%s" % (
            env.name, what, r.describe(), env.host.diagnosis()))
        r = stock_run(env, args)
    check(r.rc == 0, "%s: iperf -c --bounceback failed" % what, r.describe(),
          env.host.diagnosis())
    rows = STOCK_ROW.findall(r.out)
    check(len(rows) >= 2, "%s: iperf printed no bounceback rows" % what, r.describe())
    final = rows[-1]
    check(float(final[0]) == 0.0, "%s: the last row is not the whole test" % what, r.describe())
    count = int(final[4])
    ivl = sum(int(x[4]) for x in rows[:-1])
    # 2.1.8 may skip the last, partial interval's row (a burst that starts at -t): the final
    # row has at most that one burst more; the agent's rows below count every message.
    check(count > 0 and ivl <= count <= ivl + 10, "%s: %d round trips in the final row, %d in "
          "the interval rows" % (what, count, ivl), r.describe())
    nbytes = float(final[2]) * al.UNITS[final[3]]
    want = count * 2 * size
    check(abs(nbytes - want) <= 0.01 * want, "%s: %d bytes, want count %d x 2 x %d = %d" % (
        what, nbytes, count, size, want), r.describe())
    # 2.1.8's min round trip: at least the link's two delays.
    check(float(final[6]) >= RTT_MS - CLOCK_TOL_MS, "%s: min RTT %s ms below 2D = %d ms" % (
        what, final[6], RTT_MS), r.describe())
    agent_counts(env, count, size, what)
    print("      %s/%s: %d round trips, %d bytes, RTT avg/min/max %s/%s/%s ms" % (
        env.name, what, count, nbytes, final[5], final[6], final[7]))
    return count


def linkperf_bb(env, args, size, what):
    """linkperf's client: its CSV rows with latency; returns the final row as a dict."""
    env.begin()
    r = env.topo.run_b([lptest.LINKPERF, "-c", env.topo.lwip_ip, "--iperf2", "--bounceback",
                        "-l", size, "-i", 1, "-y", "C", "--csv-latency", "--csv-header"] + args,
                       timeout=40)
    check(r.rc == 0, "%s: linkperf --bounceback failed" % what, r.describe(),
          env.host.diagnosis())
    lines = [ln for ln in r.out.splitlines() if ln.strip()]
    check(lines and lines[0].startswith("time,"), "%s: no CSV header" % what, r.describe())
    keys = lines[0].split(",")
    rows = [dict(zip(keys, ln.split(","))) for ln in lines[1:]]
    check(len(rows) >= 2, "%s: no CSV rows" % what, r.describe())
    final = rows[-1]
    check(final["start-end"].startswith("0.0-"), "%s: the last row is not the whole test" % what,
          r.describe())
    count, nbytes = int(final["lat_count"]), int(final["bytes"])
    ivl = sum(int(x["lat_count"]) for x in rows[:-1])
    check(count > 0 and count == ivl, "%s: %d round trips in the final row, %d in the intervals"
          % (what, count, ivl), r.describe())
    check(nbytes == count * 2 * size, "%s: %d bytes, want count %d x 2 x %d" % (
        what, nbytes, count, size), r.describe())
    agent_counts(env, count, size, what)
    lat = {k: float(final["lat_" + k + "_ms"]) for k in ("min", "p50", "p90", "p99", "max")}
    print("      %s/%s: %d round trips of %d bytes; RTT min %.3f p50 %.3f p90 %.3f p99 %.3f "
          "max %.3f ms (2D = %d ms)" % (env.name, what, count, size, lat["min"], lat["p50"],
                                         lat["p90"], lat["p99"], lat["max"], RTT_MS))
    return count, lat


def check_rtt(env, lat, floor_ms, what):
    check(lat["min"] >= floor_ms - CLOCK_TOL_MS and lat["p50"] >= floor_ms - CLOCK_TOL_MS,
          "%s: RTT min %.3f / p50 %.3f ms below %.1f ms" % (what, lat["min"], lat["p50"],
                                                            floor_ms), *env.ctx())
    check(lat["p50"] < floor_ms + LOOSE_MS, "%s: RTT p50 %.3f ms, more than %.1f + %.0f ms" % (
        what, lat["p50"], floor_ms, LOOSE_MS), *env.ctx())


def slots_back(env, want=2, timeout=5.0):
    """Only the TCP and UDP listeners' connection slots in use (`stats`)."""
    deadline = time.monotonic() + timeout
    while True:
        n = env.host.conns_in_use()
        if n is None or n == want:
            return
        check(time.monotonic() < deadline, "%d connection slots in use, want %d" % (n, want),
              *env.ctx())
        time.sleep(0.1)


def run_backend(name):
    with al.Topology(tag="bb" + name[:3], net=84) as topo:
        env = start(topo, name)
        stock_case(env, ["-t", 2], 100, "stock -t 2")
        stock_case(env, ["-t", 2, "-l", 256], 256, "stock -t 2 -l 256")
        count, lat = linkperf_bb(env, ["-t", 2], 200, "linkperf")
        check_rtt(env, lat, RTT_MS, "linkperf")
        check(env.host.proc.alive(), "the host program died", env.host.proc.tail(25))
        slots_back(env)


# The hostile peers: python3 -c PEER <agent address> <case>. Each prints "closed" once the
# agent has closed the connection (EOF or reset), "open" when it is still open after 6 s.
PEER = r"""
import socket, struct, sys, time
ip, case = sys.argv[1], sys.argv[2]

def msg(size, flags=0x00800000, field=None, hold_us=0):
    head = struct.pack(">IIIHHI", flags, size if field is None else field, 1, 0, 0, 0)
    head += struct.pack(">II", int(time.time()), 0) + b"\xff" * 16 + struct.pack(">I", hold_us)
    return (head + b"\x5a" * 64)[:max(size, 48)].ljust(size, b"0")

s = socket.create_connection((ip, 5001), timeout=5)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
if case == "small":
    s.sendall(msg(64, field=63))
elif case == "big":
    s.sendall(msg(64, field=%d) + bytes(600))
elif case == "garbage":
    s.sendall(msg(100))
    got = b""
    while len(got) < 100:
        b = s.recv(100 - len(got))
        if not b:
            break
        got += b
    if len(got) != 100 or got[:4] != msg(100)[:4] or got[28:32] == b"\xff" * 4:
        print("bad echo", len(got)); sys.exit(1)
    print("echoed")
    s.sendall(b"GARBAGE!" * 13)
elif case == "short":
    s.sendall(msg(100)[:70])
    time.sleep(0.3)
    s.shutdown(socket.SHUT_WR)
elif case == "pipelined":
    # The next message while the first is held (0.5 s): not a bounceback client's way.
    s.sendall(msg(100, hold_us=500000))
    time.sleep(0.1)
    s.sendall(msg(100))
s.settimeout(6)
try:
    while True:
        b = s.recv(4096)
        if not b:
            break
    print("closed")
except ConnectionResetError:
    print("closed")
except socket.timeout:
    print("open")
""" % (BB_MAX + 1)


def hostile(env, case):
    env.begin()
    r = env.topo.run_b([sys.executable, "-c", PEER, env.topo.lwip_ip, case], timeout=20)
    check(r.rc == 0 and "closed" in r.out, "hostile %s: the agent did not end the session" % case,
          r.describe(), *env.ctx())
    deadline = time.monotonic() + 5
    while not any(BB_ERROR in ln for ln in env.lines()):
        check(time.monotonic() < deadline, "hostile %s: the agent named no reason" % case,
              *env.ctx())
        time.sleep(0.1)
    check(env.host.proc.alive(), "hostile %s: the host program died" % case,
          env.host.proc.tail(25))
    slots_back(env)
    print("      %s/hostile %s: session ended (%s)" % (env.name, case, BB_ERROR))


def run_hostile(name):
    with al.Topology(tag="bbh" + name[:3], net=85) as topo:
        env = start(topo, name)
        for case in ("small", "big", "garbage", "short", "pipelined"):
            hostile(env, case)
        stock_case(env, ["-t", 1], 100, "stock after the hostile peers")
        slots_back(env)


def rtt_case():
    """linkperf's latency against 2D, and against 2D + the hold it asks the agent for."""
    with al.Topology(tag="bbrtt", net=86) as topo:
        env = start(topo, "raw")
        _, lat = linkperf_bb(env, ["-t", 2], 100, "RTT")
        check_rtt(env, lat, RTT_MS, "RTT")
        hold = 20
        _, lat = linkperf_bb(env, ["-t", 2, "--bounceback-hold", hold], 100, "RTT hold")
        check_rtt(env, lat, RTT_MS + hold, "RTT with --bounceback-hold %d" % hold)


rtt_case.__name__ = "rtt"
rtt_case.__doc__ = ("raw back end, one-way delay %d ms: linkperf's RTT min and p50 at least 2D, "
                    "p50 below 2D + %d ms; with a 20 ms hold, at least 2D + 20 ms" % (
                        DELAY_MS, LOOSE_MS))


def make_case(name, fn, doc):
    def case():
        fn(name)
    case.__name__ = name
    case.__doc__ = doc % name
    return case


for _name in PROGRAMS:
    suite.case(make_case(_name, run_backend,
                         "%s back end: stock iperf 2.1.8 --bounceback (-t 2, with -l 256) and "
                         "linkperf's: every round trip counted, bytes count x 2 x size, the "
                         "agent's rows agree"))
suite.case(rtt_case)
for _name in ("raw", "socket"):
    suite.case(make_case("hostile_" + _name, lambda n: run_hostile(n.split("_")[1]),
                         "%s: bad sizes, garbage, a short message, a pipelined one: each "
                         "ends its session; the next stock test is served"))


if __name__ == "__main__":
    al.preflight(programs=[al.host_program(p) for p in PROGRAMS.values()], tools=(al.IPERF2,))
    suite.main()

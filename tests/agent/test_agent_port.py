#!/usr/bin/env python3
"""The lwIP host port (agent/port/unix) in network namespaces, with the smoke program (a
raw-API TCP/UDP discard server on host_main's console): lwIP answers ping, stock iperf 2's
TCP through the emulated 100 Mbit/s link never beats the link model and fills every frame,
the emulated delay shows in the RTT, and the loss counters account exactly for every lost
ping, and a loss window placed by frame count drops only inside it.

Every expected number is computed from the link model, never taken from a past run: a TCP
segment of 1460 bytes rides in a 1514-byte frame (lwIP 2.1 negotiates no timestamps or SACK,
so Linux sends full 1460-byte payloads), so goodput is at most rate x 1460 / (1514 + the
per-frame overhead the emulation counts, 0 by default), and the payload the discard server
counts is 1460/1514 of the bytes the link carried toward it. How close a run gets to the
ceiling depends on the CPU the machine has to spare: that is bench/'s question, not a test's
(a loaded machine measured 92-93 Mbit/s here, an idle one 96.4)."""
import os
import re
import subprocess
import sys
import time

import agentlib as al
import iperf2lib
import lptest
from lptest import check, eq

suite = lptest.Suite("agent_port", needs_iperf3=False)

MSS, FRAME = 1460, 1514


def stats(host, want_conns=1, timeout=10.0):
    """The smoke server's counters once `want_conns` TCP connections have closed."""
    deadline = time.monotonic() + timeout
    while True:
        rc, out = host.command("stats")
        eq(rc, 0, "stats rc")
        d = al.parse_link(out[-1])
        mbps = re.search(r"last_mbps=([\d.]+)", out[-1])
        d["last_mbps"] = float(mbps.group(1)) if mbps else 0.0
        if d["conns"] >= want_conns and d["open"] == 0:
            return d, out[-1]
        if time.monotonic() > deadline:
            raise lptest.TestFailure("connection still open after the client ended: %s" % out)
        time.sleep(0.2)


def iperf_goodput(topo, host, seconds=3):
    """Stock `iperf -c` from B into the discard server; returns (receiver Mbit/s, iperf's
    own line)."""
    r = topo.run_b([al.IPERF2, "-c", topo.lwip_ip, "-p", 5001, "-t", seconds, "-f", "m"],
                   timeout=seconds + 30)
    check(r.rc == 0, "iperf -c failed", r.describe())
    line = [ln for ln in r.out.splitlines() if "Mbits/sec" in ln]
    check(line, "iperf printed no result", r.describe())
    s, text = stats(host)
    check(s["last_bytes"] > 0, "the discard server received nothing", text, r.describe())
    return s["last_mbps"], line[-1].strip(), text


def warm(topo, tries=40):
    """Ping until three replies in a row: ARP is resolved both ways (under loss, too)."""
    ok = 0
    for _ in range(tries):
        p = topo.ping(1, 0.2)
        ok = ok + 1 if p["received"] == 1 else 0
        if ok == 3:
            return
    raise lptest.TestFailure("lwIP never answered three pings in a row")


@suite.case
def bad_options():
    """Bad input: exit 2 with a message naming the option; --help exits 0"""
    exe = al.SMOKE
    cases = [(["--tap", "t0"], "--tap and --ip are required"),
             (["--tap", "t0", "--ip", "10.0.0.2"], "invalid --ip"),
             (["--tap", "t0", "--ip", "10.0.0.2/33"], "invalid --ip"),
             (["--tap", "t0", "--ip", "10.0.0.2/24", "--loss-pct", "101"], "invalid --loss-pct"),
             (["--tap", "t0", "--ip", "10.0.0.2/24", "--rate", "fast"], "invalid --rate"),
             (["--tap", "t0", "--ip", "10.0.0.2/24", "--loss-dir", "up"], "invalid --loss-dir"),
             (["--tap", "t0", "--ip", "10.0.0.2/24", "--mac", "01:00:00:00:00:01"],
              "invalid --mac"),
             (["--tap", "t0", "--ip", "10.0.0.2/24", "--delay-ms"], "needs a value"),
             (["--tap", "t0", "--ip", "10.0.0.2/24", "--bogus", "1"], "unknown option")]
    for args, msg in cases:
        r = lptest.run([exe] + args, timeout=10)
        eq(r.rc, 2, "exit status of %s" % args, r.describe())
        check(msg in r.err, "stderr of %s lacks %r" % (args, msg), r.describe())
    r = lptest.run([exe, "--help"], timeout=10)
    eq(r.rc, 0, "--help exit status", r.describe())
    check("--loss-pct" in r.out, "--help lists the options", r.describe())


@suite.case
def ping_and_console():
    """lwIP answers ping from B; `quit` exits 0 after printing the link counters"""
    with al.Topology("ping") as t:
        h = t.start_host(al.SMOKE, cmds=["discard"])
        p = t.ping(3, 0.2)
        print("        ping: %d/%d replies, rtt min/avg/max %s/%s/%s ms" % (
            p["received"], p["sent"], p.get("min"), p.get("avg"), p.get("max")))
        eq(p["received"], 3, "ping replies", p["result"].describe())
        rc, out = h.command("nonsense")
        check(rc != 0 and any("unknown command" in ln for ln in out),
              "an unknown command fails with a message: rc=%d %s" % (rc, out))
        eq(h.quit(), 0, "exit status after quit", h.proc.tail())
        check(any(ln.startswith("link: tx_frames=") for ln in h.lines()),
              "counters printed at exit", h.proc.tail())


def goodput_case(exe, label):
    rate = 100000000
    ceiling = rate * MSS / FRAME / 1e6
    with al.Topology("gp") as t:
        h = t.start_host(exe, args=["--rate", rate], cmds=["discard"])
        before = h.link()
        got, line, text = iperf_goodput(t, h)
        s, _ = stats(h)
        rc, link = h.stop()
        eq(rc, 0, "exit status after SIGTERM", h.proc.tail())
        check(link is not None, "counters printed on SIGTERM", h.proc.tail())
        # Bytes toward lwIP over the test: data frames, plus the handshake, the client's
        # few ACKs of nothing and its FIN (at most a few dozen frames of 66 bytes or so).
        wire = link["rx_bytes"] - before["rx_bytes"]
        small = 64 * 80
        ratio = s["last_bytes"] / wire
        print("        %s, 100 Mbit/s link: receiver %.2f Mbit/s, ceiling %.2f (rate x %d/%d); "
              "payload per link byte %.4f (%d/%d = %.4f)" % (
                  label, got, ceiling, MSS, FRAME, ratio, MSS, FRAME, MSS / FRAME))
        print("        iperf: %s" % line)
        check(got <= 1.01 * ceiling, "%s: %.2f Mbit/s through the 100 Mbit/s link, more than "
              "its ceiling %.2f" % (label, got, ceiling), text, line)
        check(s["last_bytes"] * FRAME <= wire * MSS and
              0.995 * (wire - small) * MSS <= s["last_bytes"] * FRAME,
              "%s: %d payload bytes rode in %d link bytes: not full %d-byte frames of %d" % (
                  label, s["last_bytes"], wire, FRAME, MSS), text)
        eq(link["qdrop_rx"], 0, "queue drops (the window fits the 100 ms queue)")


@suite.case
def goodput_100mbit_host():
    """stock iperf -c into the NO_SYS 0 discard server through --rate 100M: goodput <= rate x 1460/1514, full frames"""
    goodput_case(al.SMOKE, "NO_SYS 0")


@suite.case
def goodput_100mbit_nosys():
    """the same through a NO_SYS 1 build (main loop: TAP, emulation, timers) with a 32-MSS window"""
    # The MCU-sized 8-segment window (0.93 ms of this link) leaves the link idle whenever
    # the PC's ACK turnaround exceeds that, which a loaded test machine does: the window
    # limit is what a tuning test measures, not what this case checks.
    goodput_case(al.SMOKE_NOSYS_W32, "NO_SYS 1, 32-MSS window")


@suite.case
def goodput_unshaped():
    """reference: the same test without emulation (the rate is CPU-bound, only shown)"""
    with al.Topology("raw") as t:
        h = t.start_host(al.SMOKE, cmds=["discard"])
        got, line, _ = iperf_goodput(t, h)
        # How fast is the CPU's business (bench/); the discard server's count is checked.
        print("        NO_SYS 0, no emulation: receiver %.1f Mbit/s; iperf: %s" % (got, line))


@suite.case
def delay_rtt():
    """--delay-ms 10: no ping RTT (after ARP) is below 20 ms"""
    with al.Topology("dl") as t:
        t.start_host(al.SMOKE, args=["--delay-ms", 10])
        warm(t)
        p = t.ping(10, 0.1)
        print("        delay 10 ms each way: rtt min/avg/max %s/%s/%s ms over %d replies" % (
            p.get("min"), p.get("avg"), p.get("max"), p["received"]))
        eq(p["received"], 10, "ping replies", p["result"].describe())
        # The delay line is a floor: nothing comes back sooner. How much later depends on
        # what else the machine runs (a test on time would fail on a busy one).
        check(min(p["rtts"]) >= 20.0, "RTTs below the emulated 20 ms: %s" % p["rtts"])


@suite.case
def loss_counted_exactly():
    """10% loss on lwIP's egress, then on its ingress (set at runtime): lost pings == dropped frames, exactly"""
    with al.Topology("ls") as t:
        t.pin_neighbor()          # B never ARPs for lwIP: every frame is ICMP
        h = t.start_host(al.SMOKE, args=["--loss-pct", 10, "--loss-dir", "tx",
                                          "--loss-seed", 7])
        warm(t)                   # lwIP's own ARP for B may need retries under loss
        for direction in ("tx", "rx"):
            if direction == "rx":
                eq(h.command("link loss 10 rx")[0], 0, "link loss command")
            eq(h.command("link reset")[0], 0, "link reset")
            p = t.ping(200, 0.01, extra=["-q"])
            c = h.link()
            lost = p["sent"] - p["received"]
            print("        loss 10%% %s: ping %d sent, %d lost; link: tx_frames=%d rx_frames=%d "
                  "dropped_tx=%d dropped_rx=%d" % (direction, p["sent"], lost, c["tx_frames"],
                                                   c["rx_frames"], c["dropped_tx"],
                                                   c["dropped_rx"]))
            eq(p["sent"], 200, "pings sent", p["result"].describe())
            dropped = c["dropped_" + direction]
            other = c["dropped_" + ("rx" if direction == "tx" else "tx")]
            eq(lost, dropped, "lost pings vs dropped_%s" % direction, c)
            eq(other, 0, "drops in the other direction", c)
            eq(c["rx_frames"], 200, "frames into lwIP (requests only)", c)
            eq(c["tx_frames"], 200 - (c["dropped_rx"]), "frames out of lwIP (replies only)", c)
            check(5 <= dropped <= 45, "10%% loss of 200 frames dropped %d" % dropped, c)


@suite.case
def loss_window_by_frames():
    """`link loss 100 rx after 5 frames 10`: of 30 pings exactly the 6th to the 15th are lost, whatever the timing"""
    with al.Topology("lw") as t:
        t.pin_neighbor()
        h = t.start_host(al.SMOKE)
        warm(t)
        eq(h.command("link reset")[0], 0, "link reset")
        rc, out = h.command("link loss 100 rx after 5 frames 10")
        eq(rc, 0, "link loss window command: %s" % out)
        p = t.ping(30, 0.02)
        c = h.link()
        seqs = [int(x) for x in re.findall(r"icmp_seq=(\d+)", p["result"].out)]
        print("        replies to icmp_seq %s; link dropped_rx=%d" % (seqs, c["dropped_rx"]))
        eq(sorted(seqs), list(range(1, 6)) + list(range(16, 31)), "pings answered", c)
        eq(c["dropped_rx"], 10, "frames dropped by the window", c)
        rc, out = h.command("link loss 5 sideways")
        check(rc != 0 and any("usage" in ln for ln in out), "a bad loss command is refused with "
              "its usage: rc=%d %s" % (rc, out))


def udp_flood(t, h, what):
    """The agent's UDP client at -b 1G (as fast as it can) through the 10 Mbit/s link into a
    stock `iperf -s -u` in B: (the PC server's final row, the agent's datagrams sent, the
    link counters of the test)."""
    srv = t.start_b([al.IPERF2, "-s", "-u", "-f", "B"], timeout=60)
    deadline = time.monotonic() + 10
    while not lptest.port_bound(5001, udp=True, pid=srv.pid):
        check(time.monotonic() < deadline and srv.alive(), "iperf -s -u did not bind", srv.tail())
        time.sleep(0.05)
    eq(h.command("link reset")[0], 0, "link reset")
    mark = len(h.lines())
    rc, out = h.command("iperf -c %s -u -b 1G -n 1M" % t.pc_ip)
    check(rc >= 0, "%s: agent client rc %d %s" % (what, rc, out))
    h.wait_line(r"Sent \d+ datagrams", 30)
    deadline = time.monotonic() + 20
    while True:
        fin = [r for r in iperf2lib.finals(iperf2lib.parse(srv.stdout)).values() if "total" in r]
        if fin:
            break
        check(time.monotonic() < deadline, "%s: the PC server printed no result" % what,
              srv.tail(20))
        time.sleep(0.1)
    sent = al.parse_agent(h.lines()[mark:])["sent"]
    check(sent, "%s: the agent printed no datagram count" % what, "\n".join(h.lines()[mark:]))
    srv.kill()
    return fin[-1], list(sent.values())[-1], h.link()


@suite.case
def tx_descriptors_push_back():
    """--tx-desc 4: a UDP sender faster than the 10 Mbit/s link is held back by the MAC's ring (tx_waits > 0) and loses nothing; without it the 100 ms queue overflows and the PC's loss is exactly the queue's drops"""
    exe = al.host_program("lpa-host-raw")
    for ring in (True, False):
        with al.Topology("td" if ring else "tq") as t:
            t.pin_neighbor()
            args = ["--rate", "10M"] + (["--tx-desc", 4] if ring else [])
            h = t.start_host(exe, args=args)
            warm(t)
            what = "--tx-desc 4" if ring else "no ring"
            row, sent, c = udp_flood(t, h, what)
            print("        %s: agent sent %d, PC %d/%d lost, link qdrop_tx=%d tx_waits=%d "
                  "(%d ms waited)" % (what, sent, row["lost"], row["total"], c["qdrop_tx"],
                                      c["tx_waits"], c["tx_wait_us"] // 1000))
            # The PC server's total counts the agent's FIN datagram too; a FIN the full queue
            # dropped is one more number (each repeat counts on), and a gap the server counts.
            check(row["total"] == sent + 1 if ring else row["total"] >= sent + 1,
                  "%s: the PC accounted for %d datagrams, the agent sent %d and a FIN" % (
                      what, row["total"], sent), c)
            eq(c["dropped_tx"], 0, "%s: no loss was drawn" % what, c)
            if ring:
                check(c["tx_waits"] > 0 and c["qdrop_tx"] == 0 and row["lost"] == 0,
                      "%s: the ring did not hold the sender back: %s, PC lost %d" % (
                          what, c, row["lost"]))
            else:
                check(c["tx_waits"] == 0 and c["qdrop_tx"] > 0 and row["lost"] == c["qdrop_tx"],
                      "%s: the PC lost %d, the queue dropped %d (%s)" % (
                          what, row["lost"], c["qdrop_tx"], c))


def agent_final_row(h, mark, timeout=30.0):
    """The agent's whole-test row (iperf2 layout) printed since `mark`."""
    deadline = time.monotonic() + timeout
    while True:
        fin = al.agent_finals(al.parse_agent(h.lines()[mark:]), 0.0)
        own = [r for k, r in fin.items() if not k[1]]
        if own:
            time.sleep(0.3)
            fin = al.agent_finals(al.parse_agent(h.lines()[mark:]), 0.0)
            return [r for k, r in fin.items() if not k[1]][-1]
        check(time.monotonic() < deadline, "the agent printed no final row",
              "\n".join(h.lines()[mark:][-15:]))
        time.sleep(0.1)


CPU_HZ = 20e6
RAW_CYCLES = (1020, 3.36, 1890, 3.7)  # agent/port/lpa_cpu_costs.h, raw: RX frame, byte, TX frame, byte


def cpu_expected_us(c):
    """The modelled CPU time of every frame the link counted, from host_main.c's raw cycle
    estimates (lpa_cpu_costs.h): RX frames that reached the CPU (not dropped by loss or the full ring), TX frames
    lwIP produced."""
    rf, rb, tf, tb = RAW_CYCLES
    rx = c["rx_frames"] - c["dropped_rx"] - c["rxring_drop"] - c["qdrop_rx"]
    rx_bytes = c["rx_bytes"] - c["ring_bytes"]
    cycles = rx * rf + rb * rx_bytes + c["tx_frames"] * tf + tb * c["tx_bytes"]
    return cycles / CPU_HZ * 1e6


@suite.case
def cpu_model():
    """--cpu-mhz 20 --rx-desc 4 (raw estimates): a 200 Mbit/s UDP flood overflows the receive ring and the agent's loss is exactly the ring's drops; TCP goodput stays under the CPU's ceiling; the modelled CPU time is the sum of the frames' cycles"""
    exe = al.host_program("lpa-host-raw")
    with al.Topology("cm") as t:
        t.pin_neighbor()
        h = t.start_host(exe, args=["--cpu-mhz", "20", "--rx-desc", 4], cmds=["iperf -s"])
        check(any("cpu model: 20.0 MHz" in ln for ln in h.lines()), "no cpu model line",
              h.proc.tail())
        warm(t)
        # UDP: 1470-byte datagrams in 1512-byte frames, RAW_CYCLES[0] + RAW_CYCLES[1] x 1512 each
        before = t.drops(h)
        mark = len(h.lines())
        r = t.run_b([al.IPERF2, "-c", t.lwip_ip, "-u", "-b", "200M", "-n", "2M", "-f", "B"],
                    timeout=60)
        check(r.rc == 0, "iperf -c -u failed", r.describe())
        row = agent_final_row(h, mark)
        after = t.drops(h)
        ring = after.link["rxring_drop"] - before.link["rxring_drop"]
        drops, _, where = after.since(before, "to_board")
        print("        UDP 200M into 20 MHz: agent %d/%d lost, %.1f Mbit/s; %s" % (
            row["lost"], row["total"], row["bps"] / 1e6, where))
        check(ring > 0, "a 200 Mbit/s flood into a 20 MHz CPU overflowed no ring slot", where)
        # the agent counts until the client stopped: every datagram is received or dropped
        sent = list(iperf2lib.parse(r.out)["sent"].values())
        check(sent and row["total"] <= sent[-1] and
              sent[-1] - (row["total"] - row["lost"]) - 1 <= drops <= sent[-1] - row["total"] +
              row["lost"], "UDP: the client sent %s, the agent got %d of %d, %d dropped on the "
              "way (%s)" % (sent, row["total"] - row["lost"], row["total"], drops, where))
        ceiling = CPU_HZ / (RAW_CYCLES[0] + RAW_CYCLES[1] * 1512) * 1470 * 8
        check(row["bps"] <= 1.02 * ceiling, "UDP: %.1f Mbit/s through a CPU that takes at most "
              "%.1f" % (row["bps"] / 1e6, ceiling / 1e6))
        # TCP: 1460-byte segments in 1514-byte frames, at most the CPU's frame rate
        mark = len(h.lines())
        r = t.run_b([al.IPERF2, "-c", t.lwip_ip, "-n", "4M", "-f", "B"], timeout=60)
        check(r.rc == 0, "iperf -c failed", r.describe())
        row = agent_final_row(h, mark)
        ceiling = CPU_HZ / (RAW_CYCLES[0] + RAW_CYCLES[1] * 1514) * 1460 * 8
        print("        TCP into 20 MHz: %.1f Mbit/s, CPU ceiling %.1f" % (row["bps"] / 1e6,
                                                                      ceiling / 1e6))
        check(row["bps"] <= 1.02 * ceiling, "TCP: %.1f Mbit/s through a CPU that takes at most "
              "%.1f" % (row["bps"] / 1e6, ceiling / 1e6))
        c = h.link()
        # The ring dropped full frames only: 1512 bytes (UDP) or 1514 (TCP); counting 1513
        # each is off by 3.4 cycles a drop at most, in the tolerance (4).
        c["ring_bytes"] = c["rxring_drop"] * 1513
        want = cpu_expected_us(c)
        check(abs(c["cpu_busy_us"] - want) <= 0.001 * want + 2 + c["rxring_drop"] * 4 / 20,
              "the modelled CPU time is %d us, the frames counted cost %.0f us (%s)" % (
                  c["cpu_busy_us"], want, c))


if __name__ == "__main__":
    al.preflight(programs=(al.SMOKE, al.SMOKE_NOSYS_W32), tools=("ping", "iperf"))
    suite.main()

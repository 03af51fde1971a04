#!/usr/bin/env python3
"""`linkperf rfc2544` against the board agent's iperf3 server (`iperf3 -s` on its console: it
serves iperf3 UDP, and iperf2 UDP on `iperf -s`; the iperf3 dialect is used because iperf2's
76-byte datagram header does not fit a 64-byte frame).

- link: the host port (raw back end, NO_SYS 1, 64-segment window) behind its emulated
  100 Mbit/s link, and rfc2544 told the line is 125 Mbit/s, so the link, not the line, is what
  the search finds. The link's accounting: each frame costs its bytes as lwIP and the TAP see
  them (Ethernet header + IPv4 + UDP + payload, no FCS: F - 4 for an RFC 2544 frame of F bytes
  with its FCS) plus --overhead 24 (preamble 8, FCS 4, gap 12): F + 20 bytes, the same as the
  line rate's accounting in rfc2544 (preamble and gap included). So the link passes
  100e6 / ((F + 20) x 8) frames/s, a payload of 100e6 x (F - 46) / (F + 20) bit/s. A trial of
  T seconds can pass more while the link's drop-tail queue (Q bytes) fills: at most Q x 8 / T
  bit/s on the wire above the rate. Asserted per frame size where the link is the bottleneck
  (512 and 1518 bytes): 0.98 x the link's payload rate <= the zero-loss rate found <= 1.02 x
  (the link's + what the queue absorbs). 64-byte frames (148,800 frames/s at 100 Mbit/s) are
  more than the host program handles on a shared machine: only the upper bound holds there,
  and the rate found is printed. A loss-only run at the line rate: the frames its trials lost
  are the drops counted on the way to the board (the link's queue drops, the kernels', lwIP's
  out of pbufs: agentlib.Topology.drops) within a few (TCP control segments share the queue).
- qemu: the firmware for QEMU's Cortex-M4 board (test_agent_qemu.py's board), 64- and
  1518-byte frames, short trials: a non-zero zero-loss rate is found, each trial's report has
  sent >= received, and the loss trial at the rate found (if one ran there) loses at most 1 %
  (the search's trial there was lossless; the repeat runs on QEMU's share of a busy host).
  Rates are not asserted: QEMU's speed is the host's.
- latency (RFC 2544 26.2, `--dialect iperf2 --tests throughput,latency`: a --bounceback probe,
  one 100-byte exchange every 10 ms, beside a trial at the throughput rate), against the
  agent's `iperf -s` with its bounceback server: on the host port with a one-way delay D on
  the emulated link, the throughput bounds above, and the round trips: min >= 2D (less a
  0.2 ms clock tolerance); p50 and p99 <= 2D + what the to-board queue can hold at the link's
  rate (Q x 8 / rate: the trial at the zero-loss rate may fill it) + 50 ms for a loaded
  machine (p99 only when the trial beside it lost no frame: a full drop-tail queue may drop a
  probe's segment too, and its round trip is then TCP's retransmission); the probe's count of
  round trips is the agent's count of exchanges (its rows' bytes / 100, to the digits it
  prints: the messages it took in and the echoes it sent, the client's count or one more, a
  last message written at the end and not waited for). On the QEMU board (its firmware is
  built with LPA_IPERF2_BOUNCEBACK=1) the same count, min > 0 and min <= p50 <= p99 <= max;
  no delay there to bound against."""
import os
import sys

import agentlib as al
import lptest
from lptest import check

suite = lptest.Suite("agent_rfc2544", needs_iperf3=False)

LINK_BPS = 100e6
LINE = "125m"
LINE_BPS = 125e6
QUEUE_BYTES = 1250000   # the port's default: 100 ms of the rate
TRIAL_S = 2
WIRE_EXTRA = 20          # preamble + gap: rfc2544's wire bytes are F + 20, the link's too
HOST = "lpa-host-raw-w64"
DELAY_MS = 5             # the latency case's one-way delay D
CLOCK_TOL_MS = 0.2       # the PC's clock against the port's emulated delay
LOOSE_MS = 50.0          # what a loaded machine may add: only a generous upper bound
PROBE_BYTES = 100        # rfc2544's bounceback message


def rfc2544(topo, argv, timeout=300):
    r = topo.run_b([lptest.LINKPERF, "rfc2544", "-c", topo.lwip_ip] + [str(a) for a in argv] +
                   ["-J"], timeout=timeout)
    check(r.rc == 0, "rfc2544 exit status %s" % r.rc, r.describe())
    doc = lptest.parse_json(r.out)["rfc2544"]
    check(not doc["out_of_time"] and "error" not in doc, "rfc2544 did not finish", r.describe())
    return doc, r


def link_payload_bps(frame):
    return LINK_BPS * (frame - 46) / (frame + WIRE_EXTRA)


def start_link(topo, console, delay_ms=0):
    """The raw back end behind the emulated 100 Mbit/s link (rfc2544's wire accounting)."""
    topo.pin_neighbor()
    args = ["--rate", "%d" % LINK_BPS, "--queue-bytes", QUEUE_BYTES, "--overhead", WIRE_EXTRA + 4]
    if delay_ms:
        args += ["--delay-ms", delay_ms]
    host = topo.start_host(al.host_program(HOST), args=args, cmds=[console])
    topo.ping(2, interval=0.1)
    return host


def check_link_throughput(doc, r, host):
    """Per frame size: the zero-loss rate found is the link's within 2 %, plus what its queue
    takes in a trial (lower bound only where the link, not the host program, limits)."""
    absorbed_wire = QUEUE_BYTES * 8 / TRIAL_S
    for f in doc["frames"]:
        size = f["frame_bytes"]
        check(f["payload_bytes"] == size - 46, "payload = frame - 46", r.describe())
        found = f["throughput"]["payload_bits_per_second"]
        want = link_payload_bps(size)
        most = (LINK_BPS + absorbed_wire) * (size - 46) / (size + WIRE_EXTRA)
        print("      %d-byte frames: zero-loss payload %.2f Mbit/s (%.1f %% of the line), the "
              "link passes %.2f (up to %.2f with its queue over a %d s trial)" % (
                  size, found / 1e6, f["throughput"]["line_fraction"] * 100, want / 1e6,
                  most / 1e6, TRIAL_S))
        check(found <= 1.02 * most, "%d-byte frames: %.2f Mbit/s found, the link passes at "
              "most %.2f" % (size, found / 1e6, most / 1e6), r.describe())
        if size >= 512:
            check(found >= 0.98 * want, "%d-byte frames: %.2f Mbit/s found, the link passes "
                  "%.2f" % (size, found / 1e6, want / 1e6), r.describe(),
                  host.diagnosis())


def bounceback_exchanges(lines, min_end):
    """The agent's bounceback tests, in order: per test, the (lo, hi) messages of PROBE_BYTES
    it received and echoed, from its two whole-test rows (the TCP connection's receiving row
    and its second, sending one), to the digits printed. Each test's lines run from its
    "(TCP, receiving)" line to the next one's."""
    starts = [i for i, ln in enumerate(lines) if "(TCP, receiving)" in ln] + [len(lines)]
    tests = []
    for a, b in zip(starts, starts[1:]):
        p = al.parse_agent(lines[a:b])
        tcp = {i: c["dir"] for i, c in p["conns"].items() if c["proto"] == "TCP"}
        got = {}
        for (i, peer), row in al.agent_finals(p, min_end).items():
            if i in tcp and not peer:
                lo, hi = al.bytes_span(row)
                got[tcp[i]] = (lo / PROBE_BYTES, hi / PROBE_BYTES)
        tests.append(got)
    return tests


def check_probe_count(f, exchanges, r, host):
    """The round trips rfc2544 counted (n) against the agent's exchanges of that test: the
    messages it took in and the echoes it sent are n, or n + 1 (a last message written at the
    end, its echo not waited for)."""
    n = f["latency_rtt"]["count"]
    check(exchanges.get("rx") and exchanges.get("tx"), "%d-byte frames: no whole-test rows of "
          "the agent's bounceback test: %s" % (f["frame_bytes"], exchanges), host.proc.tail(30))
    for d, what in (("rx", "received"), ("tx", "echoed")):
        lo, hi = exchanges[d]
        check(n > 0 and lo <= n + 1 and hi >= n, "%d-byte frames: rfc2544 counted %d round "
              "trips, the agent %s %.2f..%.2f messages of %d bytes" % (
                  f["frame_bytes"], n, what, lo, hi, PROBE_BYTES), r.describe(),
              host.proc.tail(30))


def print_latency(f, where):
    lat = f["latency_rtt"]
    print("      %s %d-byte frames: %d round trips beside a trial at %.2f %% of the line (%d of "
          "%d frames received); RTT min %.3f p50 %.3f p90 %.3f p99 %.3f max %.3f ms" % (
              where, f["frame_bytes"], lat["count"], f["throughput"]["line_fraction"] * 100,
              lat["trial_received"], lat["trial_sent"], lat["min_ms"], lat["p50_ms"],
              lat["p90_ms"], lat["p99_ms"], lat["max_ms"]))


@suite.case
def link():
    """raw back end behind the emulated 100 Mbit/s link (line 125 Mbit/s): the zero-loss rate
    per frame size is the link's within 2 % (plus what its queue takes in a trial); the frames
    a loss run loses are the drops on the way"""
    with al.Topology(tag="rfc", net=87) as topo:
        host = start_link(topo, "iperf3 -s")
        doc, r = rfc2544(topo, ["-b", LINE, "--frames", "64,512,1518", "--trial", TRIAL_S,
                                "--tests", "throughput", "--max-time", 150])
        check_link_throughput(doc, r, host)
        # The ledger: the loss trials alone (the line rate, then 10 % steps down to two
        # lossless ones), every trial's frames in the JSON, against the drops counted.
        before = topo.drops(host)
        doc, r = rfc2544(topo, ["-b", LINE, "--frames", "1518", "--trial", 1, "--tests", "loss",
                                "--max-time", 60])
        trials = doc["frames"][0]["frame_loss"]
        drops, _, where = topo.drops(host).since(before, "to_board")
        lost = sum(t["sent"] - t["received"] for t in trials)
        check(all(t["sent"] >= t["received"] for t in trials), "a trial received more than it "
              "sent: %s" % trials, r.describe())
        print("      loss trials at 1518 bytes: %s; lost %d, dropped on the way %d (%s)" % (
            [(t["line_fraction"], t["sent"], t["received"]) for t in trials], lost, drops, where))
        check(trials[0]["sent"] > trials[0]["received"], "the line rate (125 %% of the link) lost "
              "nothing: %s" % trials[0], r.describe())
        check(abs(lost - drops) <= 20, "frames lost %d, dropped on the way %d (%s)" % (
            lost, drops, where), r.describe())


@suite.case
def latency():
    """--dialect iperf2, throughput and latency, against the agent's iperf -s (bounceback)
    behind the 100 Mbit/s link with a 5 ms one-way delay: throughput as in the link case,
    RTT min >= 2D, p50/p99 <= 2D + the queue's time at the rate + 50 ms, the probe's round
    trips = the agent's exchanges"""
    rtt = 2 * DELAY_MS
    queue_ms = QUEUE_BYTES * 8 / LINK_BPS * 1e3
    with al.Topology(tag="rfl", net=89) as topo:
        host = start_link(topo, "iperf -s", delay_ms=DELAY_MS)
        mark = len(host.lines())
        # 1518-byte frames only: 512-byte ones (22,000 frames/s) with the delay line are more
        # than the host program keeps up with under a CPU hog (81 of the link's 88 Mbit/s
        # found); the link case covers them.
        doc, r = rfc2544(topo, ["--dialect", "iperf2", "-b", LINE, "--frames", "1518",
                                "--trial", TRIAL_S, "--tests", "throughput,latency",
                                "--max-time", 150])
        check_link_throughput(doc, r, host)
        tests = bounceback_exchanges(host.lines()[mark:], 0.0)  # as in qemu_latency
        check(len(tests) == len(doc["frames"]), "%d bounceback tests on the agent for %d frame "
              "sizes" % (len(tests), len(doc["frames"])), r.describe(), host.proc.tail(30))
        for f, exchanges in zip(doc["frames"], tests):
            size = f["frame_bytes"]
            check("latency_rtt" in f, "%d-byte frames: no latency" % size, r.describe())
            lat = f["latency_rtt"]
            print_latency(f, "link")
            check_probe_count(f, exchanges, r, host)
            check(lat["min_ms"] >= rtt - CLOCK_TOL_MS, "%d-byte frames: RTT min %.3f ms below "
                  "2D = %d ms" % (size, lat["min_ms"], rtt), r.describe())
            most = rtt + queue_ms + LOOSE_MS
            check(lat["p50_ms"] <= most, "%d-byte frames: RTT p50 %.3f ms, more than 2D + the "
                  "queue's %.0f ms + %.0f ms" % (size, lat["p50_ms"], queue_ms, LOOSE_MS),
                  r.describe(), host.diagnosis())
            if lat["trial_received"] < lat["trial_sent"]:
                print("      %d-byte frames: the trial beside the probe lost frames (the queue "
                      "overflowed): p99 not bounded" % size)
            else:
                check(lat["p99_ms"] <= most, "%d-byte frames: RTT p99 %.3f ms, more than 2D + "
                      "the queue's %.0f ms + %.0f ms" % (size, lat["p99_ms"], queue_ms,
                                                         LOOSE_MS), r.describe(),
                      host.diagnosis())
        check(host.proc.alive(), "the host program died", host.proc.tail(25))


@suite.case
def qemu():
    """the QEMU Cortex-M4 firmware: a non-zero zero-loss rate for 64- and 1518-byte frames,
    sent >= received in every trial, the loss trial at the rate found (nearly) lossless"""
    import test_agent_qemu as tq
    why = tq._missing()
    lptest.require(why is None, why or "")
    with tq.board("rfcq", 88, "iperf3 -s") as (topo, host):
        doc, r = rfc2544(topo, ["-b", "10m", "--frames", "64,1518", "--trial", 1,
                                "--resolution", 5, "--tests", "throughput,loss",
                                "--max-time", 120])
        for f in doc["frames"]:
            tp = f["throughput"]
            print("      qemu %d-byte frames: zero-loss %.1f %% of 10 Mbit/s, %.0f frames/s, "
                  "%d trials; loss trials %s" % (
                      f["frame_bytes"], tp["line_fraction"] * 100, tp["frames_per_second"],
                      tp["trials"], [(t["line_fraction"], t["sent"], t["received"])
                                     for t in f.get("frame_loss") or []]))
            check(tp["line_fraction"] > 0 and tp["frames_per_second"] > 0,
                  "%d-byte frames: no zero-loss rate found" % f["frame_bytes"], r.describe())
            for t in f.get("frame_loss") or []:
                check(t["sent"] > 0 and t["sent"] >= t["received"], "%d-byte frames: trial %s" % (
                    f["frame_bytes"], t), r.describe())
                # The search's own trial at that rate was lossless (that is how it was
                # chosen); the loss trial repeats it on an emulated CPU that shares the host's:
                # within 1 % (a run saw 44 of 13406 lost at 90 % and none at 100 %).
                if abs(t["line_fraction"] - tp["line_fraction"]) < 1e-9:
                    check(t["sent"] - t["received"] <= 0.01 * t["sent"], "%d-byte frames: the "
                          "rate found lost frames in its loss trial: %s" % (f["frame_bytes"], t),
                          r.describe())
        host.check_alive("rfc2544")


@suite.case
def qemu_latency():
    """the QEMU firmware's iperf -s (built with bounceback): rfc2544 --dialect iperf2 finds a
    zero-loss rate for 1518-byte frames and the latency beside it, its round trips counted as
    the agent's exchanges, min > 0"""
    import test_agent_qemu as tq
    why = tq._missing()
    lptest.require(why is None, why or "")
    with tq.board("rfql", 91, "iperf -s") as (topo, host):
        mark = len(host.lines())
        doc, r = rfc2544(topo, ["--dialect", "iperf2", "-b", "10m", "--frames", "1518",
                                "--trial", 1, "--resolution", 5,
                                "--tests", "throughput,latency", "--max-time", 120])
        # Any whole-test row: the probe stops with its trial and starts once connected, so
        # on a loaded host it ran 0.72 s of a 1 s trial (CI); the counts below are the check.
        tests = bounceback_exchanges(host.lines()[mark:], 0.0)
        check(len(tests) == 1, "%d bounceback tests on the agent, want 1" % len(tests),
              r.describe(), host.proc.tail(30))
        f = doc["frames"][0]
        check(f["throughput"]["line_fraction"] > 0 and "latency_rtt" in f, "no zero-loss rate "
              "or no latency", r.describe())
        lat = f["latency_rtt"]
        print_latency(f, "qemu")
        check_probe_count(f, tests[0], r, host)
        check(0 < lat["min_ms"] <= lat["p50_ms"] <= lat["p99_ms"] <= lat["max_ms"],
              "RTT min/p50/p99/max %s" % lat, r.describe())
        host.check_alive("rfc2544 latency")


if __name__ == "__main__":
    al.preflight(programs=[al.host_program(HOST)])
    suite.main()

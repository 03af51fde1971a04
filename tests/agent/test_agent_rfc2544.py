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
  Rates are not asserted: QEMU's speed is the host's."""
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


def rfc2544(topo, argv, timeout=300):
    r = topo.run_b([lptest.LINKPERF, "rfc2544", "-c", topo.lwip_ip] + [str(a) for a in argv] +
                   ["-J"], timeout=timeout)
    check(r.rc == 0, "rfc2544 exit status %s" % r.rc, r.describe())
    doc = lptest.parse_json(r.out)["rfc2544"]
    check(not doc["out_of_time"] and "error" not in doc, "rfc2544 did not finish", r.describe())
    return doc, r


def link_payload_bps(frame):
    return LINK_BPS * (frame - 46) / (frame + WIRE_EXTRA)


@suite.case
def link():
    """raw back end behind the emulated 100 Mbit/s link (line 125 Mbit/s): the zero-loss rate
    per frame size is the link's within 2 % (plus what its queue takes in a trial); the frames
    a loss run loses are the drops on the way"""
    with al.Topology(tag="rfc", net=87) as topo:
        topo.pin_neighbor()
        host = topo.start_host(al.host_program(HOST),
                               args=["--rate", "%d" % LINK_BPS, "--queue-bytes", QUEUE_BYTES,
                                     "--overhead", WIRE_EXTRA + 4], cmds=["iperf3 -s"])
        topo.ping(2, interval=0.1)
        doc, r = rfc2544(topo, ["-b", LINE, "--frames", "64,512,1518", "--trial", TRIAL_S,
                                "--tests", "throughput", "--max-time", 150])
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


if __name__ == "__main__":
    al.preflight(programs=[al.host_program(HOST)])
    suite.main()

#!/usr/bin/env python3
"""The agent on a Cortex-M4: the firmware of agent/port/qemu-mps2 (lwIP 2.1.3 with its default
options plus what agent/README.md tells a user to set, NO_SYS=1, the raw back end, a LAN9118
driver) booted in QEMU's mps2-an386 on the TAP device of namespace A, against the stock tools
in namespace B -- the instruction set the agent ships for, not the host port. ctest runs the
same cases on the netconn and socket builds (LPA_QEMU_FW, LPA_QEMU_API: NO_SYS=0 on the port's
cooperative scheduler); boot checks that the firmware reports the back end asked for.

- boot: the console comes up, lwIP answers ping, the driver counts the frames.
- iperf2 server (`iperf -s` on the console), stock `iperf -c`: TCP, -d, -r, -R with -n, each
  direction exactly -n bytes at the PC and the agent's row the same to its three digits; UDP
  -n: the agent's lost/total equals the Server Report the PC prints, its datagrams are what
  the PC sent, and its loss is the drops counted on the way (exact: the agent counts until the
  sender stopped).
- iperf3 server (`iperf3 -s`), stock `iperf3 -c -J` and linkperf: -n (sent = received = -n),
  -R -n, -P 2 -n, UDP and UDP -R, --bidir and -P 2 --bidir (each direction's receiver counts
  no more than its sender sent, both carry data), through test_agent_iperf3's checks.
- The agent as client: iperf3 against stock `iperf3 -s -1` (-n, -R, -P 2, UDP) and linkperf -s,
  iperf2 against stock `iperf -s` (TCP -n exact, -d, UDP with its loss accounted).

Drops to the board are counted where they happen: the kernels' counters (agentlib), the
driver's (no pbuf, refused by lwIP), and the frames QEMU's LAN9118 model drops when its receive
FIFO is full (it counts none: RX_DROP reads 0), found as the frames QEMU took from the TAP
that the driver did not take in (QemuTopology.drops). Rates are not asserted: QEMU's speed is
the host's. Without qemu-system-arm or the firmware the file skips (fails under CI=true)."""
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

import agentlib as al
import iperf2lib
import lptest
import test_agent_iperf3 as i3
from lptest import check

# The back end the firmware must report (ctest runs this file on each of the three builds).
API = os.environ.get("LPA_QEMU_API", "raw")
suite = lptest.Suite("agent_qemu" if API == "raw" else "agent_qemu_" + API)
QEMU = shutil.which("qemu-system-arm") or "/usr/bin/qemu-system-arm"
FIRMWARE = os.environ.get("LPA_QEMU_FW") or os.path.join(
    lptest.SOURCE_DIR, "build", "agent", "qemu-mps2", "lpa-qemu-mps2.elf")
MiB = 1024 * 1024


class QemuHost(al.HostProc):
    """The firmware in QEMU, its UART on stdin/stdout: the host programs' console protocol
    (every command ends with "done rc=N"), brought up with `ifconfig ADDR/PREFIX`."""

    def __init__(self, topo, timeout):
        argv = ["ip", "netns", "exec", topo.ns_a, QEMU, "-M", "mps2-an386", "-nographic",
                "-monitor", "none", "-serial", "stdio", "-kernel", FIRMWARE, "-nic",
                "tap,ifname=%s,script=no,downscript=no,mac=%s" % (topo.tap, topo.mac)]
        self.proc = lptest.Proc(argv, timeout, name="qemu", stdin=subprocess.PIPE)
        self._pos = 0
        self.wait_line(r"^console up", 60)
        self.send("ifconfig %s/%d" % (topo.lwip_ip, topo.prefix))
        # the whole line: QEMU may hand the UART's output over in pieces
        self.ready = self.wait_line(r"^ready .* cpu=cortex-m4$", 20)
        self.wait_line(r"^done rc=0$", 10)

    def check_alive(self, what):
        fatal = [ln for ln in self.lines() if ln.startswith("fatal:")]
        check(not fatal and self.proc.alive(), "the firmware stopped after %s: %s" % (
            what, fatal), self.proc.tail(25))


class QemuTopology(al.Topology):
    def start_qemu(self, timeout=600):
        h = QemuHost(self, timeout)
        self.hosts.append(h)
        return h

    def drops(self, host):
        """agentlib's snapshot, with the frames QEMU's LAN9118 model dropped as qdrop_rx: the
        frames QEMU took from the TAP (tun counts a frame in tx_packets when its reader takes
        it), less what the driver took in or counted (rx_frames, rx_nobuf, rx_err). A frame
        QEMU holds is in the model's FIFO, which the firmware empties before it answers a
        console command; the snapshot is taken when the TAP's count stood still around that
        answer, so no frame is half counted. (B's count was the base before: a frame in the
        TAP's queue at the first snapshot hid a drop in the FIFO from the difference.)"""
        def tap_taken():
            return al._link_stat(self.ns_a, self.tap, "tx", "packets")
        for _ in range(40):
            first = tap_taken()
            d = super().drops(host)
            last = tap_taken()
            if first == last:
                break
            time.sleep(0.05)
        ln = d.link
        d.kernel["detail"]["tap0_tx_packets"] = last  # not a drop
        ln["qdrop_rx"] = last - ln["rx_frames"] - ln["rx_nobuf"] - ln.get("rx_err", 0)
        return d


@contextlib.contextmanager
def board(tag, net, command=None):
    """The firmware on a fresh topology (B never ARPs for it), with a console command run
    first (a server); yields (topology, host)."""
    with QemuTopology(tag=tag, net=net) as topo:
        topo.pin_neighbor()
        host = topo.start_qemu()
        if command:
            rc, out = host.command(command)
            check(rc >= 0, "%s: %s" % (command, out))
        yield topo, host


def wait_agent_rows(host, mark, want, what, timeout=30.0, sent=False, amount=None):
    """The agent's iperf2-layout whole-test rows printed since `mark`, once `want` of its
    connections have one (and, with `sent`, a UDP sender its "Sent N datagrams", printed
    once the server's report is in; with `amount`, each row shows it: a first interval,
    0.00-1.00, looks like a whole test until the test's own row follows): (parsed,
    {id: row})."""
    deadline = time.monotonic() + timeout
    while True:
        p = al.parse_agent(host.lines()[mark:])
        fin = {k[0]: r for k, r in al.agent_finals(p, 0.0).items() if not k[1]}
        if len(fin) >= want and all(i in fin for i in p["conns"]) and (p["sent"] or not sent) \
                and all(amount is None or shows_amount(r, amount) for r in fin.values()):
            time.sleep(0.3)  # a second line of the same row (interval and final) may follow
            p = al.parse_agent(host.lines()[mark:])
            return p, {k[0]: r for k, r in al.agent_finals(p, 0.0).items() if not k[1]}
        check(time.monotonic() < deadline, "%s: the agent printed %d of %d final rows%s" % (
            what, len(fin), want, "" if amount is None else " (of %d bytes)" % amount),
            "\n".join(host.lines()[mark:][-20:]))
        time.sleep(0.1)


def shows_amount(row, exact):
    """The agent's row shows bytes to three significant digits (as iperf does)."""
    return abs(row["bytes"] - exact) <= 0.006 * exact


def agent_bytes_match(what, row, exact):
    check(shows_amount(row, exact),
          "%s: the agent printed %s, the PC counted %d bytes" % (what, row["line"], exact))


def check_pc_amounts(what, out, amount, directions):
    p = iperf2lib.parse(out)
    fin = [r for r in iperf2lib.finals(p).values() if isinstance(r["id"], int)]  # no [SUM]
    got = sorted(r["bytes"] for r in fin)
    check(got == [amount] * directions, "%s: the PC's rows show %s bytes, not %d x %d" % (
        what, got, directions, amount), out)
    return fin


def udp_accounted(what, topo, host, before, direction, lost, total, sent):
    """A UDP receiver's loss against the drops counted on its way. The agent receiving counts
    until its sender stopped: sent = received + drops (i3.check_exact); a stock receiver may
    miss the last datagrams without a gap (i3.check_accounted)."""
    after = topo.drops(host)
    drops, _, where = after.since(before, direction)
    if direction == "to_board":
        i3.check_exact(what, lost, total, sent, drops, after.offered(before, direction), where)
    else:
        i3.check_accounted(what, lost, total, sent, drops, where)
    print("        %-34s %d/%d lost, %s" % (what, lost, total, where))


# ------------------------------------------------------------------------------- cases

@suite.case
def boot():
    with QemuTopology(tag="qb", net=82) as topo:
        host = topo.start_qemu()
        check("mac=%s" % topo.mac in host.ready.string, "the firmware took another MAC: %s" %
              host.ready.string)
        nosys = "1" if API == "raw" else "0"
        check(" nosys=%s api=%s " % (nosys, API) in host.ready.string,
              "not the %s build (nosys=%s) asked for: %s" % (
                  API, nosys, host.ready.string))
        r = topo.ping(5, interval=0.1)
        check(r["received"] == 5, "lwIP answered %d of 5 pings" % r["received"], r["result"].describe())
        link = host.link()
        check(link["rx_frames"] >= 5 and link["tx_frames"] >= 5,
              "the driver counted %s after 5 pings" % link)
        host.check_alive("ping")


@suite.case
def iperf2_server():
    with board("q2s", 83, "iperf -s") as (topo, host):
        for flags, amount, dirs in (([], 2 * MiB, 1), (["-d"], MiB, 2), (["-r"], MiB, 2),
                                    (["-R"], 2 * MiB, 1)):
            args = flags + ["-n", str(amount)]
            what = "iperf -c " + " ".join(args)
            mark = len(host.lines())
            r = topo.run_b([al.IPERF2, "-c", topo.lwip_ip, "-f", "B"] + args, timeout=60)
            check(r.rc == 0, "%s failed" % what, r.describe(), "\n".join(host.lines()[mark:]))
            check_pc_amounts(what, r.out, amount, dirs)
            _, fin = wait_agent_rows(host, mark, dirs, what, amount=amount)
            for row in fin.values():
                agent_bytes_match(what, row, amount)
            print("        %-34s %d x %d bytes both ends" % (what, dirs, amount))
        # UDP at a rate the emulated board keeps up with; the loss, if any, is accounted for.
        what = "iperf -c -u -b 2M -n 300K"
        mark = len(host.lines())
        before = topo.drops(host)
        r = topo.run_b([al.IPERF2, "-c", topo.lwip_ip, "-f", "B", "-u", "-b", "2M", "-n", "300K"],
                       timeout=60)
        check(r.rc == 0, "%s failed" % what, r.describe())
        p = iperf2lib.parse(r.out)
        rep = list(iperf2lib.finals(p, report=True).values())
        sent = list(p["sent"].values())
        check(rep and sent, "%s: no Server Report or datagram count at the PC" % what, r.out)
        _, fin = wait_agent_rows(host, mark, 1, what)
        row = list(fin.values())[-1]
        check((row["lost"], row["total"]) == (rep[-1]["lost"], rep[-1]["total"]),
              "%s: the agent printed %d/%d, the PC's Server Report %d/%d" % (
                  what, row["lost"], row["total"], rep[-1]["lost"], rep[-1]["total"]))
        # the PC's count includes the final datagram that ends the test
        udp_accounted(what, topo, host, before, "to_board", row["lost"], row["total"],
                      sent[-1] - 1)
        host.check_alive("the iperf2 server cases")


@suite.case
def iperf3_server():
    with board("q3s", 84, "iperf3 -s") as (topo, host):
        i3.server_case(topo, host, ["-n", "3M"], amount=3 * MiB)
        i3.server_case(topo, host, ["-R", "-n", "3M"], reverse=True, amount=3 * MiB)
        # -P 2 -n: a stock client overshoots -n by part of a block; both ends count the same
        i3.server_case(topo, host, ["-P", "2", "-n", "2M"], streams=2)
        i3.server_case(topo, host, ["-R", "-t", "2"], reverse=True)
        i3.server_case(topo, host, ["-u", "-b", "5M", "-t", "2"], udp=True)
        i3.server_case(topo, host, ["-R", "-u", "-b", "5M", "-t", "2"], udp=True, reverse=True)
        for par in ("1", "2"):
            bidir_server(topo, host, par)
        i3.server_case(topo, host, ["-n", "3M"], amount=3 * MiB, tool=lptest.LINKPERF)
        i3.server_case(topo, host, ["-R", "-n", "3M"], reverse=True, amount=3 * MiB,
                       tool=lptest.LINKPERF)
        host.check_alive("the iperf3 server cases")


def bidir_server(topo, host, par):
    what = "iperf3 -c --bidir -P %s" % par
    r, doc = i3.stock_client(topo, ["--bidir", "-P", par, "-t", "2"])
    if "error" in doc:  # (diagnosis() runs console commands: only once it failed)
        raise lptest.TestFailure("%s: %s\n%s\n%s" % (what, doc["error"], r.describe(),
                                                      host.diagnosis()))
    end = doc["end"]
    for sent, recv in (("sum_sent", "sum_received"),
                       ("sum_sent_bidir_reverse", "sum_received_bidir_reverse")):
        s, v = end[sent]["bytes"], end[recv]["bytes"]
        check(0 < v <= s, "%s: %s %d, %s %d" % (what, sent, s, recv, v), r.describe())
    check(len(end["streams"]) == 2 * int(par), "%s: %d streams" % (what, len(end["streams"])))
    for _ in range(4):  # the agent's summary: its own two rows, then the client's two
        host.wait_line(i3.FINAL, 15.0)
    print("        %-34s %d / %d bytes each way" % (what, end["sum_received"]["bytes"],
                                                    end["sum_received_bidir_reverse"]["bytes"]))


@suite.case
def iperf3_client():
    with board("q3c", 85) as (topo, host):
        i3.client_case(topo, host, "-n 3M")
        i3.client_case(topo, host, "-R -t 2", reverse=True)
        i3.client_case(topo, host, "-P 2 -t 2", streams=2)
        i3.client_case(topo, host, "-u -b 5M -t 2", udp=True)
        i3.client_case(topo, host, "-t 2", tool=lptest.LINKPERF)
        host.check_alive("the iperf3 client cases")


# One connection attempt that lwIP cannot answer: a SYN, and no SYN-ACK within 1.5 s.
SYN_ONLY = """
import socket, sys
s = socket.socket()
s.settimeout(1.5)
try:
    s.connect((sys.argv[1], 5201))
    print("connected")
except OSError as e:
    print("no answer", e)
"""


def tcp_pcbs_used(host):
    _, lines = host.command("stats")
    out = "\n".join(lines)
    m = re.search(r"stats: TCP_PCB used=(\d+)", out)
    check(m, "the console's stats have no TCP_PCB line", out)
    return int(m.group(1))


@suite.case
def out_of_pcbs():
    """lwIP's default 5 TCP pcbs, all held by a stock iperf3 -P 4 test (its control connection
    and four streams): a sixth connection is turned away, the board says why, and the running
    test ends with every stream's bytes counted at both ends."""
    with board("qp", 87, "iperf3 -s") as (topo, host):
        # -t 12: time for the console's polls and the probe's start on a busy host
        cl = topo.start_b([al.IPERF3, "-c", topo.lwip_ip, "-P", "4", "-t", "12", "-J"],
                          timeout=60)
        deadline = time.monotonic() + 30
        while tcp_pcbs_used(host) < 5:
            check(time.monotonic() < deadline and cl.alive(),
                  "iperf3 -P 4 did not hold 5 pcbs on the board", cl.tail(25))
            time.sleep(0.1)
        mark = len(host.lines())
        r = topo.run_b([sys.executable, "-c", SYN_ONLY, topo.lwip_ip], timeout=20)
        check("no answer" in r.out, "a sixth connection was answered with 5 pcbs in use",
              r.describe())
        deadline = time.monotonic() + 10
        while not any("no pcb or netconn" in ln for ln in host.lines()[mark:]):
            check(time.monotonic() < deadline, "the board did not say why it turned a "
                  "connection away", "\n".join(host.lines()[mark:]))
            time.sleep(0.1)
        cl.wait(60)
        doc = json.loads(cl.stdout)
        check("error" not in doc, "the running test failed: %s" % doc.get("error"))
        end = doc["end"]
        check(0 < end["sum_received"]["bytes"] <= end["sum_sent"]["bytes"],
              "the running test: %d bytes sent, %d received" % (
                  end["sum_sent"]["bytes"], end["sum_received"]["bytes"]))
        host.check_alive("a connection turned away")


def pc_iperf2_server(topo, udp):
    argv = [al.IPERF2, "-s", "-f", "B"] + (["-u"] if udp else [])
    srv = topo.start_b(argv, timeout=90)
    deadline = time.monotonic() + 10
    while not lptest.port_bound(5001, udp=udp, pid=srv.pid):
        check(time.monotonic() < deadline and srv.alive(), "the PC's iperf -s did not bind",
              srv.tail())
        time.sleep(0.05)
    return srv


def wait_pc_rows(srv, want, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        p = iperf2lib.parse(srv.stdout)
        fin = [r for r in iperf2lib.finals(p).values() if isinstance(r["id"], int)]  # no [SUM]
        if len(fin) >= want:
            return p, fin
        check(time.monotonic() < deadline, "%s: the PC's server printed %d of %d rows" % (
            what, len(fin), want), srv.tail(25))
        time.sleep(0.1)


@suite.case
def iperf2_client():
    with board("q2c", 86) as (topo, host):
        srv = pc_iperf2_server(topo, udp=False)
        for flags, amount, dirs in (("", 2 * MiB, 1), ("-d ", MiB, 2)):
            opts = "%s-n %d" % (flags, amount)
            what = "agent iperf -c " + opts
            mark, pc_mark = len(host.lines()), len(srv.stdout)
            rc, out = host.command("iperf -c %s %s" % (topo.pc_ip, opts))
            check(rc >= 0, "%s: rc %d %s" % (what, rc, out))
            _, fin = wait_agent_rows(host, mark, dirs, what, amount=amount)
            time.sleep(0.5)  # the PC's server prints its row as the connection closes
            _, pc = wait_pc_rows(_Since(srv, pc_mark), dirs, what)
            got = sorted(r["bytes"] for r in pc)
            check(got == [amount] * dirs, "%s: the PC's server counted %s bytes, not %d x %d" % (
                what, got, dirs, amount), srv.tail(25))
            for row in fin.values():
                agent_bytes_match(what, row, amount)
            print("        %-34s %d x %d bytes both ends" % (what, dirs, amount))
        srv.kill()
        srv = pc_iperf2_server(topo, udp=True)
        what = "agent iperf -c -u -b 2M -n 300K"
        mark, pc_mark = len(host.lines()), len(srv.stdout)
        before = topo.drops(host)
        rc, out = host.command("iperf -c %s -u -b 2M -n 300K" % topo.pc_ip)
        check(rc >= 0, "%s: rc %d %s" % (what, rc, out))
        p, fin = wait_agent_rows(host, mark, 1, what, sent=True)
        _, pc = wait_pc_rows(_Since(srv, pc_mark), 1, what)
        sent = list(p["sent"].values())
        check(sent and "total" in pc[-1], "%s: no datagram counts (agent %s, PC %s)" % (
            what, sent, pc[-1]["line"]), "\n".join(host.lines()[mark:]))
        # The server's total counts the agent's FIN datagram too (test_agent_iperf2.py)
        udp_accounted(what, topo, host, before, "from_board", pc[-1]["lost"], pc[-1]["total"],
                      sent[-1] + 1)
        srv.kill()
        host.check_alive("the iperf2 client cases")


class _Since:
    """A process's stdout from a mark on (wait_pc_rows reads .stdout and .tail())."""

    def __init__(self, proc, mark):
        self.proc, self.mark = proc, mark

    @property
    def stdout(self):
        return self.proc.stdout[self.mark:]

    def tail(self, n=25):
        return self.proc.tail(n)


def _missing():
    # Set by tests/CMakeLists.txt when the build has no firmware (no cross compiler at
    # configure time): the file is still registered, and skips saying why.
    if os.environ.get("LPA_QEMU_NO_FW"):
        return os.environ["LPA_QEMU_NO_FW"]
    if not os.access(QEMU, os.X_OK):
        return "qemu-system-arm not installed"
    if not os.path.exists(FIRMWARE):
        return "firmware not built: %s (make -C agent/port/qemu-mps2)" % FIRMWARE
    return None


if __name__ == "__main__":
    al.preflight(tools=(al.IPERF3, al.IPERF2))
    why = _missing()
    if why:
        lptest.skip_file(why)
    suite.main()

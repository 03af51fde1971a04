#!/usr/bin/env python3
"""The board agent's iperf2 protocol through lwIP on a TAP device whose link is emulated at
100 Mbit/s per direction, against stock iperf 2.1.8 and linkperf, both roles, per back end.

Every case compares numbers two programs printed about the same bytes:
- TCP: the byte counts both sides print agree within 1% (the agent prints 3 significant
  digits), and the receiver's rate is at most the link model, 100 Mbit/s x 1460 / (1514 + 24) (lwIP
  sends no TCP options, so every frame carries 1460 bytes). How close it comes depends on the
  CPU the machine has to spare (an idle one: 93-95 Mbit/s): a floor would be a test on time,
  so the measured fraction is printed, and bench/ is where rates are compared.
- UDP: loss is injected on the emulated link (2% of lwIP's ingress for the agent as server,
  of its egress for the agent as client), and the loss the receiver reports equals the drops
  counted where they happened (agentlib.Topology.drops: the link's loss and queue, lwIP out
  of pbufs or its mailboxes full, the kernels' queues and the PC tool's socket buffer), so it
  holds on a busy machine too. The agent as client repeats its FIN until the server's report
  comes: drops among the repeats after the FIN the server took (frames beyond its total) do
  not show in the report.
- Dual (-d) runs both directions at once over the full-duplex emulated link, each under the
  model. Tradeoff (-r) runs them one after the other, each a plain test. -R: the peer of
  whoever connected sends.
- UDP on a clean link (UDP -d, -R UDP, linkperf's UDP client): the two sides agree (the
  lost/total pairs of receiver and report; for -R UDP the bytes within 1%), and where the agent
  receives from -R UDP or linkperf it reports exactly the drops counted on the way (none on
  an idle machine). UDP -d accounts for both directions so: each receiver's loss is what was
  dropped on its way (on a busy machine the stock client's socket buffer, B's UDP InErrors, or
  its listener bound after the flow back began, B's NoPorts), and every datagram the agent
  sent back is numbered within the client's total -- never a byte count compared with a
  tolerance.
- The agent as client: its own final line against the stock server's, and for UDP the
  server's report the agent shows ("Server Report:") against the server's own line.
Every back end (raw with NO_SYS 1, netconn and socket in a thread of their own) runs the whole
matrix: as server for stock iperf (TCP, UDP with loss, -d, -r, -R, --full-duplex, UDP -d, -r
and -R) and for linkperf (TCP, UDP); as client of a stock server (TCP, UDP with loss, -d, -r,
-R TCP and UDP, UDP -d and -r) and of linkperf's server (TCP, UDP with loss). After each series
the back end holds no connection slot but the listeners' (the console's `stats`): no test
leaves one behind. The footprint one-way build (raw, iperf2 only, LPA_IPERF2_BIDIR=0) runs the
one-way cases."""
import time

import agentlib as al
import iperf2lib
import lptest
from lptest import check

suite = lptest.Suite("agent_iperf2", needs_iperf3=False)

# raw: NO_SYS 1 with a 64-segment window and send buffer (lwip_nosys_w64): goodput is checked
# against the link model, which the 8-segment MCU window cannot reach.
PROGRAMS = {"raw": "lpa-host-raw-w64", "netconn": "lpa-host-netconn",
            "socket": "lpa-host-socket"}
# The one-way build FOOTPRINT.md measures (issue 4's row), on the same lwIP options as raw.
TARGET = "lpa-host-raw-target"
RATE = 100e6
MODEL_BPS = RATE * 1460 / (1514 + 24)  # + preamble, FCS, gap (--overhead's default)
MIN_END = 2.5  # seconds: every test runs 3
UDP_LOSS_PCT = 2
PC_PORT = 5001


def near(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1)


class Env(al.CaseEnv):
    """One back end's host program on an emulated 100 Mbit/s link; the agent's console lines
    since the current case began are parsed on demand."""

    def agent(self):
        return al.parse_agent(self.lines())

    def wait_finals(self, want, timeout=20.0):
        """Waits until the agent printed `want` whole-test rows (own and peer) since begin();
        every test here runs 3 s, so a row from 0.00 to 2.5 s or more is a whole test."""
        deadline = time.monotonic() + timeout
        while True:
            p = self.agent()
            fin = al.agent_finals(p, MIN_END)
            if len(fin) >= want:
                time.sleep(0.3)  # a peer report may follow its own final
                return self.agent(), al.agent_finals(self.agent(), MIN_END)
            check(time.monotonic() < deadline, "the agent printed %d of %d final lines" % (
                len(fin), want), *self.ctx())
            time.sleep(0.1)


def agent_row(env, p, fin, direction, peer=False):
    """The agent's whole-test row for its receiving ("rx") or sending ("tx") side."""
    ids = [i for i, c in p["conns"].items() if c["dir"] == direction]
    check(ids, "the agent printed no %s connection" % direction, *env.ctx())
    row = fin.get((ids[-1], peer))
    check(row is not None, "no %s%s final row from the agent" % (
        direction, " peer" if peer else ""), *env.ctx())
    return row


def check_goodput(env, what, bps, *ctx):
    """The link model is a ceiling nothing may pass (1% for the rate's own rounding)."""
    check(bps <= 1.01 * MODEL_BPS,
          "%s: %.2f Mbit/s, above the link model's %.2f" % (what, bps / 1e6, MODEL_BPS / 1e6),
          *env.ctx(*ctx))


def check_pair(env, what, fwd_bps, back_bps, *ctx):
    """Both directions of -d (at once) or -r (one after the other): each under the model."""
    check_goodput(env, what + " forward", fwd_bps, *ctx)
    check_goodput(env, what + " back", back_bps, *ctx)


def check_bytes(env, what, agent_bytes, other_bytes, *ctx):
    check(other_bytes > 0 and near(agent_bytes, other_bytes, 0.01),
          "%s: the agent printed %d bytes, the peer %d" % (what, agent_bytes, other_bytes),
          *env.ctx(*ctx))


def check_loss(env, what, lost, injected, drops, where, *ctx):
    """Reported loss against every drop on the way (Topology.drops), of them `injected` by
    the link's loss draw, which must have hit: else the case would prove nothing."""
    check(injected > 0, "%s: the link dropped nothing (the test would prove nothing)" % what,
          *env.ctx(*ctx))
    check(lost == drops, "%s: %d lost reported, %d dropped on the way (%s)" % (
        what, lost, drops, where), *env.ctx(*ctx))


def pc_rows(out):
    p = iperf2lib.parse(out)
    return p, iperf2lib.finals(p), iperf2lib.finals(p, report=True)


def stock_client(env, args, timeout=40):
    env.begin()
    argv = [al.IPERF2, "-c", env.topo.lwip_ip, "-f", "B"] + [str(a) for a in args]
    r = env.topo.run_b(argv, timeout=timeout)
    check(r.rc == 0, "stock client failed", r.describe())
    return r


def own_conn(p, forward):
    """The stock client's forward connection (it connected to port 5001) or the one back."""
    for cid, c in p["conns"].items():
        if (c["rport"] == PC_PORT) == forward and not c["star"]:
            return cid
    for cid, c in p["conns"].items():  # 2.1.8 marks reverse-role rows with *
        if (c["rport"] == PC_PORT) == forward:
            return cid
    return None


# ------------------------------------------------------------ the agent as server

def server_tcp(env, extra=(), what="TCP"):
    r = stock_client(env, ["-t", 3] + list(extra))
    p, fin, _ = pc_rows(r.out)
    ap, afin = env.wait_finals(1)
    row = agent_row(env, ap, afin, "rx")
    pc = [v for (star, _id), v in fin.items()]
    check(pc, "the stock client printed no result", r.describe())
    check_bytes(env, what, row["bytes"], pc[-1]["bytes"], r.describe())
    check_goodput(env, what + " (agent receiving)", row["bps"], r.describe())
    print("      %s/%s: agent %.2f Mbit/s (%.1f%% of the model), client %.2f" % (
        env.name, what, row["bps"] / 1e6, 100 * row["bps"] / MODEL_BPS, pc[-1]["rate"] * 8 / 1e6))


def server_udp(env, extra=(), what="UDP"):
    env.host.command("link loss %d rx" % UDP_LOSS_PCT)
    before = env.topo.drops(env.host)
    try:
        r = stock_client(env, ["-u", "-b", "20M", "-t", 3] + list(extra))
    finally:
        env.host.command("link loss 0")
    drops, injected, where = env.topo.drops(env.host).since(before, "to_board")
    p, fin, rep = pc_rows(r.out)
    ap, afin = env.wait_finals(1)
    row = agent_row(env, ap, afin, "rx")
    check(rep, "no Server Report reached the stock client", r.describe())
    srv = list(rep.values())[-1]
    check((srv["lost"], srv["total"]) == (row["lost"], row["total"]),
          "%s: the client's Server Report says %d/%d, the agent printed %d/%d" % (
              what, srv["lost"], srv["total"], row["lost"], row["total"]), *env.ctx(r.describe()))
    sent = list(p["sent"].values())
    check(sent and abs(srv["total"] - sent[-1]) <= 1,
          "%s: %d datagrams accounted, the client sent %s (one of them the FIN)" % (
              what, srv["total"], sent), *env.ctx(r.describe()))
    check_loss(env, what, row["lost"], injected, drops, where, r.describe())
    print("      %s/%s: %d/%d lost, %s, jitter %.3f ms" % (
        env.name, what, row["lost"], row["total"], where, row["jitter_ms"]))


def server_two_way(env, flag, what):
    """-d (at once) or -r (one after the other): forward and back both measured."""
    r = stock_client(env, ["-t", 3, flag], timeout=50)
    p, fin, _ = pc_rows(r.out)
    ap, afin = env.wait_finals(2, timeout=30)
    fwd_id, back_id = own_conn(p, True), own_conn(p, False)
    check(fwd_id is not None and back_id is not None, "%s: the client shows no connection "
          "back" % what, r.describe())
    pc_fwd = [v for (star, i), v in fin.items() if i == fwd_id]
    pc_back = [v for (star, i), v in fin.items() if i == back_id]
    check(pc_fwd and pc_back, "%s: the stock client printed no result per direction" % what,
          r.describe())
    rx, tx = agent_row(env, ap, afin, "rx"), agent_row(env, ap, afin, "tx")
    check_bytes(env, what + " forward", rx["bytes"], pc_fwd[-1]["bytes"], r.describe())
    check_bytes(env, what + " back", tx["bytes"], pc_back[-1]["bytes"], r.describe())
    check_pair(env, what, rx["bps"], pc_back[-1]["rate"] * 8, r.describe())
    print("      %s/%s: forward %.2f, back %.2f Mbit/s" % (
        env.name, what, rx["bps"] / 1e6, pc_back[-1]["rate"] * 8 / 1e6))


def server_reverse(env):
    r = stock_client(env, ["-t", 3, "-R"])
    p, fin, _ = pc_rows(r.out)
    ap, afin = env.wait_finals(1)
    tx = agent_row(env, ap, afin, "tx")
    pc = list(fin.values())
    check(pc, "-R: the stock client printed no result", r.describe())
    check_bytes(env, "-R", tx["bytes"], pc[-1]["bytes"], r.describe())
    check_goodput(env, "-R (client receiving)", pc[-1]["rate"] * 8, r.describe())
    print("      %s/-R: client received %.2f Mbit/s (%.1f%% of the model), agent sent %.2f" % (
        env.name, pc[-1]["rate"] * 8 / 1e6, 100 * pc[-1]["rate"] * 8 / MODEL_BPS,
        tx["bps"] / 1e6))


def server_full_duplex(env):
    """--full-duplex: both directions on the client's one connection, each side's bytes
    agreeing with what the other printed."""
    r = stock_client(env, ["-t", 3, "--full-duplex"], timeout=50)
    p, fin, _ = pc_rows(r.out)
    ap, afin = env.wait_finals(2, timeout=30)
    sent = [v for (star, i), v in fin.items() if not star and isinstance(i, int)]
    got = [v for (star, i), v in fin.items() if star]
    check(sent and got, "--full-duplex: the stock client printed no row per direction",
          r.describe())
    rx, tx = agent_row(env, ap, afin, "rx"), agent_row(env, ap, afin, "tx")
    check_bytes(env, "--full-duplex forward", rx["bytes"], sent[-1]["bytes"], r.describe())
    check_bytes(env, "--full-duplex back", tx["bytes"], got[-1]["bytes"], r.describe())
    check_pair(env, "--full-duplex", rx["bps"], got[-1]["rate"] * 8, r.describe())
    print("      %s/--full-duplex: forward %.2f, back %.2f Mbit/s" % (
        env.name, rx["bps"] / 1e6, got[-1]["rate"] * 8 / 1e6))


def server_udp_reverse(env):
    """UDP -R: the agent sends to the client's own port; the client numbers every datagram
    the agent sent (and its one FIN) and lost exactly what was dropped on the way."""
    before = env.topo.drops(env.host)
    r = stock_client(env, ["-u", "-b", "20M", "-t", 3, "-R"])
    drops, _, where = env.topo.drops(env.host).since(before, "from_board")
    p, fin, _ = pc_rows(r.out)
    ap, afin = env.wait_finals(1)
    tx = agent_row(env, ap, afin, "tx")
    got = [v for v in fin.values() if "total" in v]
    check(got, "UDP -R: the stock client printed no receive row", r.describe())
    tx_id = [i for i, c in ap["conns"].items() if c["dir"] == "tx"][-1]
    check(ap["sent"].get(tx_id) == got[-1]["total"] - 1 and got[-1]["lost"] == drops,
          "UDP -R: the agent sent %s datagrams and a FIN, the client counted %d/%d lost, %s" % (
              ap["sent"].get(tx_id), got[-1]["lost"], got[-1]["total"], where),
          *env.ctx(r.describe()))
    check_bytes(env, "UDP -R", tx["bytes"], got[-1]["bytes"], r.describe())
    print("      %s/UDP -R: %d/%d lost (%s)" % (env.name, got[-1]["lost"], got[-1]["total"],
                                               where))


def check_udp_accounted(env, what, lost, total, frames, drops, where, *ctx):
    """A UDP receiver on a clean link: every datagram it counted lost (a gap below its
    total, the FIN it took numbered after the data) was dropped somewhere on its way and
    counted there (Topology.drops). Frames beyond the receiver's total (FIN repeats, reports,
    the other direction's answers) may be dropped too without showing as loss."""
    extra = max(frames - total, 0)
    check(lost <= drops <= lost + extra,
          "%s: %d/%d lost, %d dropped on the way (%s; %d frames beyond the total)" % (
              what, lost, total, drops, where, extra), *env.ctx(*ctx))


def server_udp_dual(env, flag="-d"):
    """Stock iperf -u -d (or -r) against the agent: both directions at 20M at once (or one
    after the other). Each receiver's
    datagram accounting is exact: the numbers both sides print agree, every data datagram the
    sender sent lies within the receiver's total, and what the receiver lost is what the link,
    lwIP and the kernels dropped on that direction's way (on a busy machine: the stock client's
    socket buffer, B's UDP InErrors; its listener bound after the flow back began, NoPorts)."""
    before = env.topo.drops(env.host)
    r = stock_client(env, ["-u", "-b", "20M", "-t", 3, flag], timeout=50)
    p, fin, rep = pc_rows(r.out)
    ap, afin = env.wait_finals(3, timeout=30)  # own rx, own tx, the client's report on it
    after = env.topo.drops(env.host)
    rx, tx = agent_row(env, ap, afin, "rx"), agent_row(env, ap, afin, "tx")
    peer = agent_row(env, ap, afin, "tx", peer=True)
    check(rep, "UDP " + flag + ": no Server Report at the client", r.describe())
    srv = list(rep.values())[-1]
    check((srv["lost"], srv["total"]) == (rx["lost"], rx["total"]),
          "UDP " + flag + " forward: Server Report %d/%d, agent %d/%d" % (
              srv["lost"], srv["total"], rx["lost"], rx["total"]), *env.ctx(r.describe()))
    back = [v for v in fin.values() if "total" in v]
    check(back, "UDP " + flag + ": the client printed no receive row for the flow back",
          r.describe())
    back = back[-1]
    check((back["lost"], back["total"]) == (peer["lost"], peer["total"]),
          "UDP " + flag + " back: the client measured %d/%d, the agent was told %d/%d" % (
              back["lost"], back["total"], peer["lost"], peer["total"]),
          *env.ctx(r.describe()))
    # Every data datagram the agent sent back is numbered within the client's total (its
    # FIN carries the number after the last).
    tx_id = [i for i, c in ap["conns"].items() if c["dir"] == "tx"][-1]
    check(tx_id in ap["sent"] and ap["sent"][tx_id] < back["total"],
          "UDP " + flag + " back: the agent sent %s datagrams, the client's total is %d" % (
              ap["sent"].get(tx_id), back["total"]), *env.ctx(r.describe()))
    drops_in, _, where_in = after.since(before, "to_board")
    drops_out, _, where_out = after.since(before, "from_board")
    check_udp_accounted(env, "UDP " + flag + " forward", rx["lost"], rx["total"],
                        after.link["rx_frames"] - before.link["rx_frames"], drops_in, where_in,
                        r.describe())
    check_udp_accounted(env, "UDP " + flag + " back", back["lost"], back["total"],
                        after.link["tx_frames"] - before.link["tx_frames"], drops_out,
                        where_out, r.describe())
    print("      %s/UDP %s: forward %d/%d lost (%s), back %d/%d lost (%s)" % (
        env.name, flag, rx["lost"], rx["total"], where_in, back["lost"], back["total"], where_out))


def linkperf_client(env, udp):
    env.begin()
    args = [lptest.LINKPERF, "--iperf2", "-c", env.topo.lwip_ip, "-t", 3, "-f", "B"]
    if udp:
        args += ["-u", "-b", "20M"]
    before = env.topo.drops(env.host)
    r = env.topo.run_b(args, timeout=40)
    drops, _, where = env.topo.drops(env.host).since(before, "to_board")
    check(r.rc == 0, "linkperf --iperf2 -c failed", r.describe())
    p, fin, rep = pc_rows(r.out)
    ap, afin = env.wait_finals(1)
    row = agent_row(env, ap, afin, "rx")
    if udp:
        check(rep, "linkperf got no Server Report from the agent", r.describe())
        srv = list(rep.values())[-1]
        check((srv["lost"], srv["total"]) == (row["lost"], row["total"]) and
              row["lost"] == drops,
              "linkperf UDP: report %d/%d, agent %d/%d, %s" % (
                  srv["lost"], srv["total"], row["lost"], row["total"], where),
              *env.ctx(r.describe()))
        print("      %s/linkperf UDP: %d/%d lost (clean link; %s)" % (
            env.name, row["lost"], row["total"], where))
    else:
        pc = list(fin.values())
        check(pc, "linkperf printed no result", r.describe())
        check_bytes(env, "linkperf TCP", row["bytes"], pc[-1]["bytes"], r.describe())
        check_goodput(env, "linkperf TCP (agent receiving)", row["bps"], r.describe())
        print("      %s/linkperf TCP: agent %.2f Mbit/s (%.1f%% of the model)" % (
            env.name, row["bps"] / 1e6, 100 * row["bps"] / MODEL_BPS))


# ------------------------------------------------------------ the agent as client

def pc_server(env, argv, udp):
    s = env.topo.start_b(argv, timeout=60)
    deadline = time.monotonic() + 10
    while not lptest.port_bound(PC_PORT, udp=udp, pid=s.pid):
        check(time.monotonic() < deadline and s.alive(), "the PC server did not bind",
              s.tail())
        time.sleep(0.05)
    return s


def agent_client(env, opts, want, server=None, udp=False, timeout=30):
    """Runs `iperf -c PC opts` on the agent's console against a PC server (stock iperf -s by
    default); returns (agent parse, agent finals, server parse, server finals, server reports)."""
    server = server or [al.IPERF2, "-s", "-f", "B"] + (["-u"] if udp else [])
    s = pc_server(env, server, udp)
    try:
        env.begin()
        rc, out = env.host.command("iperf -c %s %s" % (env.topo.pc_ip, opts))
        check(rc >= 0, "the agent refused 'iperf -c %s': %s" % (opts, out))
        ap, afin = env.wait_finals(want, timeout=timeout)
        time.sleep(0.5)  # the server prints its summary after the close
    finally:
        s.kill()
    p, fin, rep = pc_rows(s.stdout)
    return ap, afin, p, fin, rep


def client_tcp(env, server=None, what="client TCP"):
    ap, afin, p, fin, _ = agent_client(env, "-t 3", 1, server=server)
    tx = agent_row(env, ap, afin, "tx")
    pc = list(fin.values())
    check(pc, "%s: the PC server printed no result" % what, *env.ctx())
    check_bytes(env, what, tx["bytes"], pc[-1]["bytes"])
    check_goodput(env, what + " (PC receiving)", pc[-1]["rate"] * 8)
    print("      %s/%s: PC received %.2f Mbit/s" % (env.name, what, pc[-1]["rate"] * 8 / 1e6))


def client_udp(env, server=None, what="client UDP"):
    env.host.command("link loss %d tx" % UDP_LOSS_PCT)
    before = env.topo.drops(env.host)
    try:
        ap, afin, p, fin, _ = agent_client(env, "-u -b 20M -t 3", 2, server=server, udp=True)
    finally:
        env.host.command("link loss 0")
    after = env.topo.drops(env.host)
    # The server's total counts the data and the FIN it took (lost ones included). The agent
    # repeats its FIN every 10 ms until the report comes back, and a drop among those later
    # repeats (frames beyond the total) cannot show in the report. Normally there are none or
    # one; once, on a loaded machine, the link dropped 123 and the report said 118 of 5350 (the
    # seeded loss stream has its next 5 drops within 135 frames after those 5350).
    dropped, injected, where = after.since(before, "from_board")
    frames = after.link["tx_frames"] - before.link["tx_frames"]
    peer = agent_row(env, ap, afin, "tx", peer=True)
    srv = [v for v in fin.values() if "total" in v]
    check(srv, "%s: the PC server printed no UDP result" % what, *env.ctx())
    check((srv[-1]["lost"], srv[-1]["total"]) == (peer["lost"], peer["total"]),
          "%s: the server printed %d/%d, the agent shows %d/%d from its report" % (
              what, srv[-1]["lost"], srv[-1]["total"], peer["lost"], peer["total"]), *env.ctx())
    extra = max(frames - peer["total"], 0)
    check(injected > 0, "%s: the link dropped nothing (the test would prove nothing)" % what,
          *env.ctx())
    check(peer["lost"] <= dropped <= peer["lost"] + extra,
          "%s: the server reports %d/%d lost, %d of %d frames dropped on the way (%s)" % (
              what, peer["lost"], peer["total"], dropped, frames, where), *env.ctx())
    print("      %s/%s: %d/%d lost, %s (%d frames after the accounted ones)" % (
        env.name, what, peer["lost"], peer["total"], where, extra))


def client_two_way(env, flag, what):
    ap, afin, p, fin, _ = agent_client(env, "-t 3 " + flag, 2, timeout=40)
    tx, rx = agent_row(env, ap, afin, "tx"), agent_row(env, ap, afin, "rx")
    rows = [v for (star, i), v in fin.items() if isinstance(i, int)]  # not the [SUM] row
    check(len(rows) >= 2, "%s: the stock server printed %d results" % (what, len(rows)),
          *env.ctx())
    got = sorted(r["bytes"] for r in rows[-2:])
    mine = sorted([tx["bytes"], rx["bytes"]])
    check(near(got[0], mine[0], 0.01) and near(got[1], mine[1], 0.01),
          "%s: the server printed %s bytes, the agent %s" % (what, got, mine), *env.ctx())
    srv_rx = [r for r in rows[-2:] if r["bytes"] and near(r["bytes"], tx["bytes"], 0.01)]
    check(srv_rx, "%s: no server row matches what the agent sent" % what, *env.ctx())
    check_pair(env, what, srv_rx[0]["rate"] * 8, rx["bps"])
    print("      %s/%s: forward %.2f, back %.2f Mbit/s" % (
        env.name, what, srv_rx[0]["rate"] * 8 / 1e6, rx["bps"] / 1e6))


def client_udp_two_way(env, flag):
    """iperf -c -u -d/-r from the agent: its report of the server's flow back is the server's
    own count, and the server's row of the agent's flow is the report the agent shows."""
    ap, afin, p, fin, rep = agent_client(env, "-u -b 20M -t 3 " + flag, 3, udp=True, timeout=40)
    rx, peer = agent_row(env, ap, afin, "rx"), agent_row(env, ap, afin, "tx", peer=True)
    got = [v for (star, i), v in fin.items() if "total" in v and isinstance(i, int)]  # no [SUM]
    check(got and rep, "client UDP %s: the stock server printed %d receive rows, %d reports" % (
        flag, len(got), len(rep)), *env.ctx())
    back = list(rep.values())[-1]
    check((got[-1]["lost"], got[-1]["total"]) == (peer["lost"], peer["total"]) and
          (back["lost"], back["total"]) == (rx["lost"], rx["total"]),
          "client UDP %s: the server counted %d/%d, the agent was told %d/%d; the agent counted "
          "%d/%d, the server was told %d/%d" % (
              flag, got[-1]["lost"], got[-1]["total"], peer["lost"], peer["total"], rx["lost"],
              rx["total"], back["lost"], back["total"]), *env.ctx())
    print("      %s/client UDP %s: forward %d/%d lost, back %d/%d lost" % (
        env.name, flag, peer["lost"], peer["total"], rx["lost"], rx["total"]))


def client_reverse(env, udp):
    opts = "-t 3 -R" + (" -u -b 20M" if udp else "")
    before = env.topo.drops(env.host)
    ap, afin, p, fin, _ = agent_client(env, opts, 1, udp=udp)
    drops, _, where = env.topo.drops(env.host).since(before, "to_board")
    rx = agent_row(env, ap, afin, "rx")
    rows = list(fin.values())
    check(rows, "-R: the stock server printed no result", *env.ctx())
    check_bytes(env, "client -R", rx["bytes"], rows[-1]["bytes"])
    if udp:
        check(rx["lost"] == drops, "client -R UDP: %d lost on a clean link, %s" % (
            rx["lost"], where), *env.ctx())
        print("      %s/client -R UDP: %d/%d lost (clean link; %s)" % (
            env.name, rx["lost"], rx["total"], where))
    else:
        check_goodput(env, "client -R (agent receiving)", rx["bps"])
        print("      %s/client -R: agent received %.2f Mbit/s (%.1f%% of the model)" % (
            env.name, rx["bps"] / 1e6, 100 * rx["bps"] / MODEL_BPS))


def check_slots(env, want, what, timeout=3.0):
    """After a series of tests the back end holds only the listeners' slots (`stats`: "conns N
    in use of M"); the socket back end closes a slot at the top of its next loop, so wait a
    little."""
    deadline = time.monotonic() + timeout
    while True:
        n = env.host.conns_in_use()
        check(n is not None, "stats printed no slot count")
        if n == want:
            print("      %s/%s: %d connection slots in use" % (env.name, what, n))
            return
        check(time.monotonic() < deadline, "%s: %d connection slots in use, want %d" % (
            what, n, want), *env.ctx())
        time.sleep(0.1)


# ------------------------------------------------------------ cases

def run_backend(name):
    exe = al.host_program(PROGRAMS[name])
    link = ["--rate", "%d" % RATE]
    with al.Topology(tag="i2" + name[:3], net=80) as topo:
        topo.pin_neighbor()
        host = topo.start_host(exe, args=link, cmds=["iperf -s"])
        topo.ping(3, interval=0.1)  # lwIP learns the PC's address before data flows
        env = Env(topo, name, host)
        server_tcp(env)
        server_udp(env)
        server_two_way(env, "-d", "-d")
        server_two_way(env, "-r", "-r")
        server_reverse(env)
        server_full_duplex(env)
        server_udp_dual(env)
        server_udp_dual(env, "-r")
        server_udp_reverse(env)
        linkperf_client(env, udp=False)
        linkperf_client(env, udp=True)
        check(host.proc.alive(), "the host program died", host.proc.tail(25))
        check_slots(env, 2, "after the server matrix")  # the TCP and the UDP listener
    with al.Topology(tag="i2c" + name[:3], net=81) as topo:
        topo.pin_neighbor()
        host = topo.start_host(exe, args=link)
        env = Env(topo, name, host)
        topo.ping(3, interval=0.1)
        client_tcp(env)
        client_udp(env)
        client_two_way(env, "-d", "client -d")
        client_two_way(env, "-r", "client -r")
        client_reverse(env, udp=False)
        client_reverse(env, udp=True)
        client_udp_two_way(env, "-d")
        client_udp_two_way(env, "-r")
        client_tcp(env, server=[lptest.LINKPERF, "--iperf2", "-s", "-f", "B"],
                   what="client TCP vs linkperf")
        client_udp(env, server=[lptest.LINKPERF, "--iperf2", "-s", "-u", "-f", "B"],
                   what="client UDP vs linkperf")
        check_slots(env, 0, "after the client matrix")


def run_target():
    """The one-way configuration FOOTPRINT.md measures (raw, iperf2 only,
    LPA_IPERF2_BIDIR=0): it must work too."""
    exe = al.host_program(TARGET)
    link = ["--rate", "%d" % RATE]
    with al.Topology(tag="i2tgt", net=82) as topo:
        topo.pin_neighbor()
        host = topo.start_host(exe, args=link, cmds=["iperf -s"])
        topo.ping(3, interval=0.1)
        env = Env(topo, "target", host)
        server_tcp(env)
        server_udp(env)
        linkperf_client(env, udp=False)
        linkperf_client(env, udp=True)
        check(host.proc.alive(), "the host program died", host.proc.tail(25))
        check_slots(env, 2, "after the server series")
    with al.Topology(tag="i2tgc", net=83) as topo:
        topo.pin_neighbor()
        host = topo.start_host(exe, args=link)
        env = Env(topo, "target", host)
        topo.ping(3, interval=0.1)
        client_tcp(env)
        client_udp(env)
        client_tcp(env, server=[lptest.LINKPERF, "--iperf2", "-s", "-f", "B"],
                   what="client TCP vs linkperf")
        client_udp(env, server=[lptest.LINKPERF, "--iperf2", "-s", "-u", "-f", "B"],
                   what="client UDP vs linkperf")
        # Two-way tests are not in this build: the console says so instead of starting one.
        rc, out = host.command("iperf -c %s -d" % topo.pc_ip)
        check(rc < 0 and any("not supported by this build" in ln for ln in out),
              "client -d on a build without two-way tests: rc %d %s" % (rc, out))
        check_slots(env, 0, "after the client series")


def target_case():
    run_target()


target_case.__name__ = "target"
target_case.__doc__ = ("the one-way build (raw, iperf2 only, LPA_IPERF2_BIDIR=0) at "
                       "100 Mbit/s: serving stock iperf 2.1.8 (TCP, UDP with loss) and linkperf "
                       "(TCP, UDP), as client of a stock server and of linkperf (TCP, UDP with "
                       "loss), -d refused by its console")


def make_case(name):
    def case():
        run_backend(name)
    case.__name__ = name
    case.__doc__ = ("%s back end at 100 Mbit/s: the agent serving stock iperf 2.1.8 (TCP, UDP "
                    "with loss, -d, -r, -R, --full-duplex, UDP -d/-r/-R) and linkperf (TCP, UDP), "
                    "and as client of a stock server (TCP, UDP with loss, -d, -r, -R TCP/UDP, UDP "
                    "-d/-r) and of linkperf (TCP, UDP with loss)" % name)
    return case


for _name in PROGRAMS:
    suite.case(make_case(_name))
suite.case(target_case)


if __name__ == "__main__":
    al.preflight(programs=[al.host_program(p) for p in list(PROGRAMS.values()) + [TARGET]],
                 tools=(al.IPERF2,))
    suite.main()

"""Helpers for the board-agent tests (stdlib only): a two-namespace topology with the lwIP
host program on a TAP device, its console over stdin/stdout, and PC-side tools.

    namespace A  "lpa-<pid>-<tag>-a":  tap0 (the host program's lwIP) --+-- br0 --- va
    namespace B  "lpa-<pid>-<tag>-b":  vb (PC address, runs iperf/ping/linkperf)   |
                                        '------------------- veth ----------------'
Bridge and TAP carry no address; lwIP is <net>.2, the PC <net>.1 (a /24).

Processes go through lptest.Proc (hard deadline, PDEATHSIG, killed at exit), so every case
ends with nothing left running; namespaces are deleted by the context manager and atexit.
Without root, /dev/net/tun or a host program, preflight() prints "SKIP: reason" and exits
lptest.SKIP_RC, which ctest counts as skipped (CI=true: the file fails). What it does not do: shape or impair links itself (the host
program's --rate/--delay-ms/--loss-pct do that, inside lwIP's netif)."""

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
import lptest  # noqa: E402
from lptest import TestFailure, check  # noqa: E402,F401

CI = lptest.CI
SOURCE_DIR = lptest.SOURCE_DIR
IPERF2 = shutil.which("iperf") or "/usr/bin/iperf"
IPERF3 = lptest.IPERF3
LWIP_MAC = "02:4c:50:41:00:01"


def program(env, name):
    """Path of a host program: $env if set, else the first build dir that has it."""
    p = os.environ.get(env)
    if p:
        return p
    for b in ("build-port", "build", "build-core"):
        cand = os.path.join(SOURCE_DIR, b, "agent", "port", "unix", name)
        if os.access(cand, os.X_OK):
            return cand
    return os.path.join(SOURCE_DIR, "build", "agent", "port", "unix", name)


SMOKE = program("LPA_PORT_SMOKE", "lpa-port-smoke")
SMOKE_NOSYS = program("LPA_PORT_SMOKE_NOSYS", "lpa-port-smoke-nosys")
SMOKE_MCU = program("LPA_PORT_SMOKE_MCU", "lpa-port-smoke-mcu")
SMOKE_NOSYS_W32 = program("LPA_PORT_SMOKE_NOSYS_W32", "lpa-port-smoke-nosys-w32")


def _missing(programs=(), tools=()):
    if os.geteuid() != 0:
        return "needs root (network namespaces, /dev/net/tun)"
    if not os.path.exists("/dev/net/tun"):
        return "no /dev/net/tun (modprobe tun)"
    for t in ("ip",) + tuple(tools):
        if not shutil.which(t):
            return "%s not installed" % t
    for p in programs:
        if not os.access(p, os.X_OK):
            return "host program not built: %s" % p
    return None


def preflight(programs=(), tools=()):
    """Call before suite.main(): without root, tun, the tools or the programs, print
    "SKIP: reason" and exit lptest.SKIP_RC -- or, under CI=true, "FATAL: reason" and exit 1."""
    why = _missing(programs, tools)
    if why is not None:
        lptest.skip_file(why)


def _sh(argv, timeout=20, check_rc=True, stdin=None):
    r = subprocess.run([str(a) for a in argv], input=stdin, capture_output=True, text=True,
                       timeout=timeout)
    if check_rc and r.returncode != 0:
        raise TestFailure("%s failed (%d): %s" % (" ".join(map(str, argv)), r.returncode,
                                                  r.stderr.strip()))
    return r


_LIVE_NS = set()


def _del_ns_all():
    lptest.kill_all()          # processes first: they hold the namespaces' devices
    for ns in list(_LIVE_NS):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
        _LIVE_NS.discard(ns)


atexit.register(_del_ns_all)


class HostProc:
    """The host program in namespace A: console commands on stdin, lines read back from
    its stdout file. Every command ends with a "done rc=N" line (see host_main.c)."""

    def __init__(self, topo, exe, args, cmds, timeout, ready_timeout):
        argv = ["ip", "netns", "exec", topo.ns_a, exe, "--tap", topo.tap,
                "--ip", "%s/%d" % (topo.lwip_ip, topo.prefix), "--mac", topo.mac]
        for c in cmds:
            argv += ["--cmd", c]
        argv += [str(a) for a in args]
        self.proc = lptest.Proc(argv, timeout, name=os.path.basename(exe),
                                stdin=subprocess.PIPE)
        self._pos = 0          # how many lines of stdout were consumed by wait_line()
        self.ready = self.wait_line(r"^ready ", ready_timeout)

    def lines(self):
        return self.proc.stdout.splitlines()

    def wait_line(self, pattern, timeout=10.0):
        """Next stdout line (after those already consumed) matching regex `pattern`;
        returns the match. Fails on timeout or exit."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            lines = self.lines()
            for i in range(self._pos, len(lines)):
                m = rx.search(lines[i])
                if m:
                    self._pos = i + 1
                    return m
            if time.monotonic() > deadline:
                raise TestFailure("no line matching %r within %ss\n%s" % (
                    pattern, timeout, self.proc.tail(25)))
            if not self.proc.alive():
                # a last look: the line may have been written just before exit
                if len(self.proc.stdout.splitlines()) == len(lines):
                    raise TestFailure("host program exited (rc=%s) before printing %r\n%s" % (
                        self.proc.returncode, pattern, self.proc.tail(25)))
            time.sleep(0.02)

    def send(self, line):
        try:
            self.proc.popen.stdin.write((line + "\n").encode())
            self.proc.popen.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise TestFailure("cannot write %r to the host program: %s\n%s" % (
                line, e, self.proc.tail()))

    def command(self, line, timeout=10.0):
        """Run one console command; returns (rc, output lines before "done rc=N")."""
        start = self._pos
        self.send(line)
        m = self.wait_line(r"^done rc=(-?\d+)$", timeout)
        out = self.lines()[start:self._pos - 1]
        return int(m.group(1)), out

    def link(self):
        """The link counters as a dict of ints (the `link` console command)."""
        rc, out = self.command("link")
        check(rc == 0, "link command failed: %s" % out)
        for ln in out:
            if ln.startswith("link: "):
                return parse_link(ln)
        raise TestFailure("no counters in the link command's output: %s" % out)

    def conns_in_use(self):
        """The back end's connection slots in use (the `stats` console command: "conns N in use
        of M"), or None when the console has no such command."""
        rc, out = self.command("stats")
        for ln in out:
            m = re.search(r"conns(?: in use)?[ =:]+(\d+)", ln)
            if rc == 0 and m:
                return int(m.group(1))
        return None

    def diagnosis(self, console_lines=30):
        """For a failure message: the console's last lines, then lwIP's TCP pcbs and the link
        counters asked for now (why a connection got no answer). Never raises."""
        text = "agent console:\n" + "\n".join(self.lines()[-console_lines:])
        for cmd in ("pcbs", "link", "stats"):
            try:
                rc, out = self.command(cmd, timeout=5.0)
                text += "\n[%s] rc=%d\n%s" % (cmd, rc, "\n".join(out))
            except TestFailure as e:
                text += "\n[%s] no answer: %s" % (cmd, str(e).splitlines()[0])
        return text

    def stop(self, timeout=10.0):
        """SIGTERM; waits for exit; returns (rc, final link counters or None)."""
        self.proc.signal(signal.SIGTERM)
        rc = self.proc.wait(timeout)
        last = [ln for ln in self.lines() if ln.startswith("link: ")]
        return rc, (parse_link(last[-1]) if last else None)

    def quit(self, timeout=10.0):
        """`quit` on the console; returns the exit status."""
        self.send("quit")
        return self.proc.wait(timeout)


def parse_link(line):
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}


class Topology:
    """Namespaces A (bridge, veth end, TAP) and B (PC end). Use as a context manager;
    start_host() runs a host program in A, run_b()/start_b() run PC tools in B."""

    def __init__(self, tag="t", net=77):
        base = "lpa-%d-%s" % (os.getpid(), tag)
        self.ns_a, self.ns_b = base + "-a", base + "-b"
        self.tap = "tap0"
        self.prefix = 24
        self.pc_ip = "10.%d.%d.1" % (net, os.getpid() % 250 + 1)
        self.lwip_ip = self.pc_ip[:-1] + "2"
        self.mac = LWIP_MAC
        self.hosts = []

    def __enter__(self):
        why = _missing()
        lptest.require(why is None, why or "")
        try:
            self._setup()
        except (TestFailure, subprocess.TimeoutExpired, OSError) as e:
            self.close()
            lptest.require(False, "cannot set up the namespaces: %s" % e)
        return self

    def _setup(self):
        a, b = self.ns_a, self.ns_b
        for ns in (a, b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
            _sh(["ip", "netns", "add", ns])
            _LIVE_NS.add(ns)
            _sh(["ip", "-n", ns, "link", "set", "lo", "up"])
            # IPv4 only (lwIP is built without IPv6): no router solicitations or MLD on the
            # wire to muddle the link counters.
            _sh(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                 "net.ipv6.conf.default.disable_ipv6=1"])
        # No multicast snooping: with it the bridge joins 224.0.0.106 and sends IGMP reports
        # through the TAP, stray frames in lwIP's RX counters.
        _sh(["ip", "-n", a, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0"])
        _sh(["ip", "link", "add", "va", "netns", a, "type", "veth", "peer", "name", "vb",
             "netns", b])
        _sh(["ip", "-n", a, "tuntap", "add", "mode", "tap", "name", self.tap])
        for dev in ("va", self.tap):
            _sh(["ip", "-n", a, "link", "set", dev, "master", "br0"])
            _sh(["ip", "-n", a, "link", "set", dev, "up"])
        _sh(["ip", "-n", a, "link", "set", "br0", "up"])
        _sh(["ip", "-n", b, "addr", "add", "%s/%d" % (self.pc_ip, self.prefix), "dev", "vb"])
        _sh(["ip", "-n", b, "link", "set", "vb", "up"])

    def start_host(self, exe, args=(), cmds=(), timeout=120, ready_timeout=10.0):
        """Start host program `exe` in namespace A on the TAP (it opens /dev/net/tun there)
        with extra options `args` and --cmd lines `cmds`; returns a HostProc once it printed
        its ready line."""
        h = HostProc(self, exe, args, cmds, timeout, ready_timeout)
        self.hosts.append(h)
        return h

    def b_argv(self, argv):
        return ["ip", "netns", "exec", self.ns_b] + [str(a) for a in argv]

    def run_b(self, argv, timeout=60):
        """Run a command in namespace B to completion; returns an lptest.Result."""
        p = lptest.Proc(self.b_argv(argv), timeout, name=os.path.basename(str(argv[0])))
        p.wait(timeout + 5)
        return lptest.Result(p)

    def start_b(self, argv, timeout=60):
        return lptest.Proc(self.b_argv(argv), timeout, name=os.path.basename(str(argv[0])))

    def pin_neighbor(self):
        """Give B a permanent ARP entry for lwIP, so B never ARPs for it (a lost ARP reply
        would otherwise show up as unexplained loss)."""
        _sh(["ip", "-n", self.ns_b, "neigh", "replace", self.lwip_ip, "lladdr", self.mac,
             "dev", "vb", "nud", "permanent"])

    def ping(self, count, interval=0.2, size=56, timeout=None, extra=()):
        """ping from B to lwIP; returns a dict: sent, received, rtts (ms list), and
        min/avg/max when any reply came."""
        args = ["ping", "-n", "-c", count, "-i", interval, "-s", size, "-W", 2]
        args += list(extra) + [self.lwip_ip]
        r = self.run_b(args, timeout=timeout or int(count * interval + 20))
        return parse_ping(r)

    def kernel_drops(self):
        """Frames and datagrams the kernels of both namespaces dropped, per direction, each
        hop counted once: {"to_board": n, "from_board": n, "detail": {...}}.
        - to lwIP: vb's transmit (veth into A's backlog full), tap0's transmit (its queue to
          the host program full: the program was off the CPU);
        - from lwIP: tap0's receive (the program's writes into A's backlog), va's transmit
          (veth into B's backlog), B's UDP receive errors (a PC tool's socket buffer full:
          the tool was off the CPU) and B's UDP datagrams to no socket (NoPorts: a stock
          iperf 2.1.8 -d client whose listener thread bound its port after the agent's flow
          back had begun; a late datagram after a tool closed its socket).
        A veth drop shows on both ends (the sender's tx_dropped and the receiver's
        rx_dropped), so only the sending end is read."""
        d = {}
        for ns, dev, key in ((self.ns_b, "vb", "tx"), (self.ns_a, self.tap, "tx"),
                             (self.ns_a, self.tap, "rx"), (self.ns_a, "va", "tx")):
            d["%s_%s_dropped" % (dev, key)] = _link_stat(ns, dev, key, "dropped")
        d["b_udp_in_errors"], d["b_udp_no_ports"] = _udp_drops(self.ns_b)
        d["vb_tx_packets"] = _link_stat(self.ns_b, "vb", "tx", "packets")  # not a drop
        out = {direction: sum(d[k] for k in keys) for direction, keys in KERNEL_KEYS.items()}
        out["detail"] = d
        return out

    def drops(self, host):
        """Every drop on the path between the PC tools and the agent, per direction, in one
        snapshot: the emulated link's (loss drawn, queue full), the host program's (no pbuf,
        lwIP's mailboxes full: `link` rx_nobuf/rx_stack, tx_err) and the kernels'
        (kernel_drops). A UDP receiver's loss must equal the growth of its direction's sum
        while the test ran: Drops.since() gives it."""
        return Drops(host.link(), self.kernel_drops())

    def close(self):
        for h in self.hosts:
            h.proc.kill()
        for ns in (self.ns_a, self.ns_b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
            _LIVE_NS.discard(ns)

    def __exit__(self, *exc):
        self.close()
        return False


def _link_stat(ns, dev, direction, key):
    r = _sh(["ip", "-n", ns, "-s", "-j", "link", "show", "dev", dev])
    return int(json.loads(r.stdout)[0]["stats64"][direction][key])


def _udp_drops(ns):
    """Udp InErrors and NoPorts of a namespace (/proc/net/snmp is per namespace): datagrams
    the kernel dropped at a socket (RcvbufErrors, buffer full, among them) and datagrams that
    found no socket on their port."""
    r = _sh(["ip", "netns", "exec", ns, "cat", "/proc/net/snmp"])
    rows = [ln.split() for ln in r.stdout.splitlines() if ln.startswith("Udp:")]
    return int(rows[1][rows[0].index("InErrors")]), int(rows[1][rows[0].index("NoPorts")])


# Which kernel counter (Topology.kernel_drops's detail) lies on which direction's way.
KERNEL_KEYS = {"to_board": ("vb_tx_dropped", "tap0_tx_dropped"),
               "from_board": ("tap0_rx_dropped", "va_tx_dropped", "b_udp_in_errors",
                              "b_udp_no_ports")}


class Drops:
    """A snapshot of Topology.drops(): the link counters and the kernels' drops."""

    LINK_KEYS = {"to_board": ("dropped_rx", "qdrop_rx", "rx_nobuf", "rx_stack", "rxring_drop"),
                 "from_board": ("dropped_tx", "qdrop_tx", "tx_err")}

    def __init__(self, link, kernel):
        self.link, self.kernel = link, kernel

    def total(self, direction):
        return sum(self.link.get(k, 0) for k in self.LINK_KEYS[direction]) + \
            self.kernel[direction]

    def since(self, before, direction):
        """(all drops in `direction` since `before`, of them the emulated link's injected
        loss, a description of every counter that moved)."""
        n = self.total(direction) - before.total(direction)
        injected = self.link["dropped_" + ("rx" if direction == "to_board" else "tx")] - \
            before.link["dropped_" + ("rx" if direction == "to_board" else "tx")]
        moved = ["%s+%d" % (k, self.link[k] - before.link.get(k, 0))
                 for k in self.LINK_KEYS[direction] if self.link.get(k, 0) != before.link.get(k, 0)]
        now, then = self.kernel["detail"], before.kernel["detail"]
        moved += ["%s+%d" % (k, now[k] - then[k]) for k in KERNEL_KEYS[direction]
                  if now[k] != then[k]]
        return n, injected, "drops %s: %s" % (direction, ", ".join(moved) or "none")

    def offered(self, before, direction):
        """Frames put on `direction`'s way since `before`, counted at its first hop: what
        B's vb sent toward the board (or dropped), or what lwIP gave the emulated link."""
        if direction == "from_board":
            return self.link["tx_frames"] - before.link["tx_frames"]
        now, then = self.kernel["detail"], before.kernel["detail"]
        return sum(now[k] - then[k] for k in ("vb_tx_packets", "vb_tx_dropped"))


def parse_ping(r):
    m = re.search(r"(\d+) packets transmitted, (\d+) received", r.out)
    check(m is not None, "ping printed no summary", r.describe())
    d = {"sent": int(m.group(1)), "received": int(m.group(2)),
         "rtts": [float(x) for x in re.findall(r"time=([\d.]+) ms", r.out)], "result": r}
    s = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/", r.out)
    if s:
        d["min"], d["avg"], d["max"] = (float(x) for x in s.groups())
    return d


# --------------------------------------------------------------------------- agent output

UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}
RATE_UNITS = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9}


class CaseEnv:
    """One back end's host program in a test file: the agent's console lines since the
    current case began (begin()), and the context a failed check prints."""

    def __init__(self, topo, name, host):
        self.topo, self.name, self.host = topo, name, host
        self.mark = len(host.lines())

    def begin(self):
        self.mark = len(self.host.lines())

    def lines(self):
        return self.host.lines()[self.mark:]

    def ctx(self, *more):
        return more + ("agent:\n" + "\n".join(self.lines()[-30:]),)


def host_program(name):
    """An agent host program: $LPA_HOST_DIR/<name>, else next to $LINKPERF (build/agent/),
    else the first build directory that has it."""
    d = os.environ.get("LPA_HOST_DIR")
    if d:
        return os.path.join(d, name)
    lp = os.environ.get("LINKPERF")
    if lp:
        cand = os.path.join(os.path.dirname(lp), "agent", name)
        if os.access(cand, os.X_OK):
            return cand
    for b in ("build", "build-core", "build-backends", "build-port"):
        cand = os.path.join(SOURCE_DIR, b, "agent", name)
        if os.access(cand, os.X_OK):
            return cand
    return os.path.join(SOURCE_DIR, "build", "agent", name)


_A_CONN = re.compile(r"^\[\s*(\d+)\] connected with (\S+) port (\d+) \((TCP|UDP), "
                     r"(receiving|sending)\)")
_A_ROW = re.compile(r"^\[\s*(\d+)\]\s+(\d+\.\d+)-\s*(\d+\.\d+) sec\s+([\d.]+) ([KMGT]?)Bytes\s+"
                    r"([\d.]+) ([KMG]?)bits/sec(?:\s+([\d.]+) ms\s+(\d+)/\s*(\d+))?")
_A_REPORT = re.compile(r"^\[\s*(\d+)\] Server Report:")
_A_SENT = re.compile(r"^\[\s*(\d+)\] Sent (\d+) datagrams")


def parse_agent(lines):
    """The agent's iperf2-layout console lines -> dict:
      conns: id -> {"dir": "rx"|"tx", "proto", "peer", "port"}
      rows:  {id, start, end, bytes (3 significant digits, as printed), bps, jitter_ms,
              lost, total (UDP receiver rows), peer (the row follows "Server Report:")}
      sent:  id -> datagrams."""
    out = {"conns": {}, "rows": [], "sent": {}}
    peer_next = None
    for ln in lines:
        m = _A_CONN.match(ln)
        if m:
            out["conns"][int(m.group(1))] = {
                "dir": "rx" if m.group(5) == "receiving" else "tx", "proto": m.group(4),
                "peer": m.group(2), "port": int(m.group(3))}
            continue
        m = _A_REPORT.match(ln)
        if m:
            peer_next = int(m.group(1))
            continue
        m = _A_SENT.match(ln)
        if m:
            out["sent"][int(m.group(1))] = int(m.group(2))
            continue
        m = _A_ROW.match(ln)
        if not m:
            continue
        r = {"id": int(m.group(1)), "start": float(m.group(2)), "end": float(m.group(3)),
             "bytes": float(m.group(4)) * UNITS[m.group(5)],
             "bps": float(m.group(6)) * RATE_UNITS[m.group(7)],
             "peer": peer_next == int(m.group(1)), "line": ln}
        if m.group(8) is not None:
            r.update(jitter_ms=float(m.group(8)), lost=int(m.group(9)), total=int(m.group(10)))
        peer_next = None
        out["rows"].append(r)
    return out


def bytes_span(row):
    """(lo, hi): the bytes a parsed row's printed figure stands for. The agent prints three
    significant digits ("9.77 KBytes"), half a unit of the last digit either way."""
    m = _A_ROW.match(row["line"])
    digits, unit = m.group(4), UNITS[m.group(5)]
    half = 0.5 * 10 ** -len(digits.partition(".")[2]) * unit
    return row["bytes"] - half, row["bytes"] + half


def agent_finals(parsed, min_end=0.5):
    """Whole-test rows (from 0.00 to at least min_end s, the last such row of each id and
    kind): dict (id, peer) -> row. In iperf2's layout a first interval "0.00-1.00" looks like
    a whole test of 1 s: give min_end near the test's length to tell them apart."""
    res = {}
    for r in parsed["rows"]:
        if r["start"] == 0.0 and r["end"] >= min_end:
            res[(r["id"], r["peer"])] = r
    return res

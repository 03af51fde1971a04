"""Helpers for the iperf2 interop tests (stdlib only): start stock iperf 2.1.8 and
linkperf's iperf2 mode as client or server, wait for a server's report, parse iperf2's
text rows (run with -f B so every number is exact) and its -y C CSV, and run a test inside
a private network namespace with an nftables rule that drops every Nth datagram.

Directions: "lps" = stock `iperf -c` -> `linkperf -s`; "lpc" = `linkperf --iperf2 -c` ->
stock `iperf -s`. Kinds: "iperf" (stock) and "linkperf".
"""

import os
import re
import shutil
import subprocess
import time

import lptest
from lptest import TestFailure, check

IPERF2 = shutil.which("iperf") or "/usr/bin/iperf"
HDR = 60      # bytes of a 2.1.x client's TCP test header (stock counts them as data)


def require_iperf2(whole_file=False):
    """A case that needs stock iperf 2 skips without it; whole_file=True: the file does
    (lptest.require_file, before suite.main()). Both fail under CI=true."""
    (lptest.require_file if whole_file else lptest.require)(
        os.access(IPERF2, os.X_OK), "stock iperf 2 not found at %s (apt-get install iperf)"
        % IPERF2)


def exe(kind):
    return [IPERF2] if kind == "iperf" else [lptest.LINKPERF, "--iperf2"]


# --------------------------------------------------------------------------- sockets in /proc

def wait_bound(proc, port, udp, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not proc.alive():
            return False
        if lptest.port_bound(port, udp, proc.pid):
            return True
        time.sleep(0.02)
    return False


# --------------------------------------------------------------------------- processes

class Server2:
    def __init__(self, kind, proc, port, udp):
        self.kind, self.proc, self.port, self.udp = kind, proc, port, udp

    @property
    def stdout(self):
        return self.proc.stdout

    def wait_for(self, pred, timeout=8.0):
        """Poll the server's stdout until pred(text) holds (iperf2 servers print their report
        when the test ends, a stock UDP server only after its report exchange). Returns the
        text; raises TestFailure on timeout."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.proc.stdout
            if pred(text):
                return text
            if time.monotonic() > deadline:
                raise TestFailure("%s server did not print the expected report within %ss\n%s"
                                  % (self.kind, timeout, self.proc.tail(30)))
            time.sleep(0.05)

    def stop(self):
        self.proc.kill()


def start_server(kind, args=(), udp=False, ns=None, port=None, timeout=60):
    """`iperf -s` or `linkperf --iperf2 -s` on a free port (inside netns `ns` if given),
    ready when its socket is bound. A stock server with -u has only the UDP socket; a linkperf
    server always listens on TCP and UDP."""
    last = None
    for _ in range(4):
        p = port or lptest.free_port()
        argv = exe(kind) + ["-s", "-p", p] + list(args)
        if ns:
            argv = ["ip", "netns", "exec", ns] + argv
        proc = lptest.Proc(argv, timeout, name=kind + "2-s")
        ok = wait_bound(proc, p, udp=udp and kind == "iperf")
        if ok and kind == "linkperf":
            ok = wait_bound(proc, p, udp=True)
        if ok:
            return Server2(kind, proc, p, udp)
        last = proc
        proc.kill()
        if port:
            break
    raise TestFailure("%s server did not start listening\n%s" % (kind, last.tail()))


def run_client(kind, port, args=(), host=lptest.LOOP4, ns=None, timeout=30, expect_rc=0):
    argv = exe(kind) + ["-c", host, "-p", port] + list(args)
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    r = lptest.run(argv, timeout=timeout, name=kind + "2-c")
    if expect_rc is not None:
        check(r.rc == expect_rc, "%s client exit status %s, expected %s" % (kind, r.rc, expect_rc),
              r.describe())
    # A UDP client that got no server report says so (the iperf2 server's job is to answer
    # its FINs); in a test meant to succeed that must never happen.
    if expect_rc == 0:
        check("did not receive ack of last datagram" not in r.out + r.err,
              "%s client got no report for its FIN" % kind, r.describe())
    return r


# --------------------------------------------------------------------------- text rows

# The rate may be "-nan": stock 2.1.8's --full-duplex client sometimes closes its [SUM] row
# over an empty interval ("[SUM] 0.0000-0.0000 sec 8388608 Bytes -nan Bytes/sec", seen on a
# loaded CI run against a linkperf server); its bytes are still the sum of the two halves.
_ROW = re.compile(
    r"^\[\s*(?P<star>\*?)(?P<id>\d+|SUM(?:-\d+)?)\]\s+"
    r"(?P<start>\d+\.\d+)-\s*(?P<end>\d+\.\d+)\s+sec\s+"
    r"(?P<bytes>\d+)\s+Bytes\s+(?P<rate>[\d.]+|-?nan|-?inf)\s+Bytes/sec(?P<rest>.*)$")
_UDP = re.compile(r"^\s+(?P<jitter>-?[\d.]+)\s+ms\s+(?P<lost>-?\d+)/\s*(?P<total>-?\d+)\s+\(")
_SUMUDP = re.compile(r"^\s+(?P<lost>-?\d+)/\s*(?P<total>-?\d+)\s+\(")
_CONN = re.compile(r"^\[\s*(?P<star>\*?)(?P<id>\d+)\] local \S+ port (?P<lport>\d+) connected "
                   r"with \S+ port (?P<rport>\d+)")
_SENT = re.compile(r"^\[\s*\*?(?P<id>\d+|SUM(?:-\d+)?)\] Sent (?P<n>\d+) datagrams")
_WIN = re.compile(r"(TCP window|UDP buffer) size:\s+(?P<num>[\d.]+) (?P<unit>[KMG]?)Byte")


def parse(text):
    """iperf2 text output printed with -f B -> dict:
      rows: every data row {id ('SUM'... or int), star, start, end, bytes, rate (bytes/s),
            jitter_ms/lost/total for UDP receiver rows, report (bool: follows 'Server
            Report:'), line}
      conns: id -> {star, lport, rport}
      sent: id -> datagram count from '[ N] Sent N datagrams'
      windows: the numbers of 'TCP window size:' / 'UDP buffer size:' lines, in bytes
      header_lines: the '[ ID] Interval ...' column headers."""
    out = {"rows": [], "conns": {}, "sent": {}, "windows": [], "header_lines": []}
    report_next = False
    for line in text.splitlines():
        if line.endswith("Server Report:"):
            report_next = True
            continue
        if line.startswith("[ ID]"):
            out["header_lines"].append(line)
            continue
        m = _WIN.search(line)
        if m:
            mult = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[m.group("unit")]
            out["windows"].append(int(round(float(m.group("num")) * mult)))
            continue
        m = _CONN.match(line)
        if m:
            out["conns"][int(m.group("id"))] = {"star": bool(m.group("star")),
                                                "lport": int(m.group("lport")),
                                                "rport": int(m.group("rport")), "line": line}
            continue
        m = _SENT.match(line)
        if m:
            k = m.group("id")
            out["sent"][int(k) if k.isdigit() else k] = int(m.group("n"))
            continue
        m = _ROW.match(line)
        if not m:
            continue
        k = m.group("id")
        r = {"id": int(k) if k.isdigit() else k, "star": bool(m.group("star")),
             "start": float(m.group("start")), "end": float(m.group("end")),
             "bytes": int(m.group("bytes")), "rate": float(m.group("rate")),
             "rest": m.group("rest"), "report": report_next, "line": line}
        u = _UDP.match(m.group("rest"))
        if u:
            r.update(jitter_ms=float(u.group("jitter")), lost=int(u.group("lost")),
                     total=int(u.group("total")))
        else:
            u = _SUMUDP.match(m.group("rest"))
            if u:
                r.update(lost=int(u.group("lost")), total=int(u.group("total")))
        report_next = False
        out["rows"].append(r)
    return out


def finals(p, report=False, any_start=False):
    """Summary row per (star, id): the last row that starts at 0 (intervals come first;
    with -i the summary is the last 0.0-based row of its id). `report` selects rows that
    follow 'Server Report:' (a client's copy of the server's numbers) instead of own rows.
    `any_start`: the last row of each id wherever it starts (runs without -i: linkperf
    times a -r leg on the test's clock, "1.0095-2.0095", 2.1.8 from the leg's start)."""
    res = {}
    for r in p["rows"]:
        if r["report"] != report or (r["start"] != 0.0 and not any_start):
            continue
        res[(r["star"], r["id"])] = r
    return res


def intervals(p, key):
    """Interval rows (not the summary) of one (star, id), in order."""
    rows = [r for r in p["rows"] if (r["star"], r["id"]) == key and not r["report"]]
    fin = finals(p).get(key)
    return [r for r in rows if r is not fin]


def one(d, what, *ctx):
    check(len(d) == 1, "%s: expected exactly one summary row, got %d: %s" % (
        what, len(d), [r["line"] for r in d.values()]), *ctx)
    return list(d.values())[0]


def has_final(kind_pred):
    return kind_pred


# --------------------------------------------------------------------------- CSV

_TS = re.compile(r"^\d{14}(\.\d{3})?$")
_IV = re.compile(r"^(\d+\.\d)-(\d+\.\d)$")
_INT = re.compile(r"^-?\d+$")
_FLT = re.compile(r"^-?\d+\.\d+$")
_IP = re.compile(r"^[\d.]+$|^[0-9a-fA-F:]+$")


def csv_rows(text):
    return [ln.split(",") for ln in text.splitlines() if ln.count(",") >= 8]


def field_kind(v):
    for name, rx in (("ts", _TS), ("iv", _IV), ("int", _INT), ("float", _FLT), ("ip", _IP)):
        if rx.match(v):
            return name
    return "?"


def csv_shape(row):
    """Kinds of a CSV row's fields, position by position (ip fields that look like ints do
    not occur: addresses have dots)."""
    return tuple(field_kind(v) for v in row)


def csv_parse(row):
    """A 9-field (TCP) or 14-field (UDP) row -> dict of numbers."""
    m = _IV.match(row[6])
    check(m is not None, "CSV interval field %r" % row[6])
    d = {"ts": row[0], "src": row[1], "sport": int(row[2]), "dst": row[3], "dport": int(row[4]),
         "id": int(row[5]), "start": float(m.group(1)), "end": float(m.group(2)),
         "bytes": int(row[7]), "bps": int(row[8])}
    if len(row) >= 14:
        d.update(jitter=float(row[9]), lost=int(row[10]), total=int(row[11]), pct=float(row[12]),
                 ooo=int(row[13]))
    return d


# --------------------------------------------------------------------------- network namespace

class NetNS:
    """A private network namespace with lo up, optionally an nftables input rule that drops
    every `every`-th UDP datagram to `port`. Always deleted in close() (use with `with`)."""

    def __init__(self, tag):
        self.name = "lpt2-%d-%s" % (os.getpid(), tag)

    def _ip(self, *args, stdin=None):
        r = subprocess.run(list(args), input=stdin, capture_output=True, text=True, timeout=20)
        check(r.returncode == 0, "%s failed (%d): %s" % (" ".join(args), r.returncode,
                                                          r.stderr.strip()))
        return r.stdout

    def __enter__(self):
        lptest.require(os.geteuid() == 0 and shutil.which("ip") and shutil.which("nft"),
                       "network namespaces and nftables need root, ip and nft")
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=20)
        self._ip("ip", "netns", "add", self.name)
        try:
            # One skb per datagram: loopback otherwise carries a UDP GSO batch (linkperf's
            # sender makes one whenever its pacing timer fires late, as on a busy machine)
            # as a single packet, which an nftables rule counts and drops as one.
            self._ip("ip", "-n", self.name, "link", "set", "lo", "up", "gso_max_segs", "1")
        except TestFailure:
            self.close()
            raise
        return self

    def drop_every(self, port, every, first=0):
        """Drop the datagrams to `port` numbered first, first + every, ... (0-based), counting
        from now: the rule (and its counter) is made anew each time."""
        subprocess.run(["ip", "netns", "exec", self.name, "nft", "delete", "table", "inet", "lpt"],
                       capture_output=True, timeout=20)
        rules = ("table inet lpt {\n chain input {\n  type filter hook input priority 0;\n"
                 "  udp dport %d numgen inc mod %d == %d counter drop\n }\n}\n"
                 % (port, every, first))
        self._ip("ip", "netns", "exec", self.name, "nft", "-f", "-", stdin=rules)

    def dropped(self):
        """Datagrams the drop_every rule dropped so far (its counter)."""
        out = self._ip("ip", "netns", "exec", self.name, "nft", "list", "table", "inet", "lpt")
        m = re.search(r"counter packets (\d+)", out)
        check(m is not None, "no counter in the nftables rule:\n" + out)
        return int(m.group(1))

    def udp_in_errors(self):
        """Udp InErrors of the namespace (/proc/net/snmp is per namespace): datagrams a full
        socket buffer (RcvbufErrors) or a bad checksum made the kernel drop."""
        out = self._ip("ip", "netns", "exec", self.name, "cat", "/proc/net/snmp")
        rows = [ln.split() for ln in out.splitlines() if ln.startswith("Udp:")]
        return int(rows[1][rows[0].index("InErrors")])

    def close(self):
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, timeout=20)

    def __exit__(self, *exc):
        self.close()
        return False

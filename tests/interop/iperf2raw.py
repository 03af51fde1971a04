"""Hand-built iperf2 wire messages and small helpers for the iperf2 server robustness,
concurrency and server-control tests (stdlib only).

Layouts from the project's iperf2 protocol notes (../shared/protocols/iperf2.md): every
integer is big-endian. A stock 2.1.8 client's TCP stream starts with a 60-byte header
(flags 0x40010078: EXTEND | LEN_BIT | length 60), a 24-byte version-1 part and a 36-byte
extension; each UDP datagram starts with a 16-byte prefix (seq low, sec, usec, seq high)
followed by the same header with flags 0x48010098 (EXTEND | SEQNO64B | LEN_BIT | 76).
Cases start from such a valid header and corrupt one field."""

import os
import re
import socket
import struct
import subprocess
import time

import lptest
from lptest import (LOOP4, Proc, TestFailure, check, eq, get, parse_json_docs)
# Where stock iperf 2 is and what a file without it does: iperf2lib's (re-exported here).
from iperf2lib import IPERF2, require_iperf2  # noqa: F401

# flags (base word)
VERSION1 = 0x80000000
EXTEND = 0x40000000
UDPTESTS = 0x20000000
KEYCHECK = 0x10000000
SEQNO64B = 0x08000000
VERSION2 = 0x04000000
V2PEERDETECT = 0x02000000
BOUNCEBACK = 0x00800000
LEN_BIT = 0x00010000
RUN_NOW = 0x00000001
# upper flags
U_REVERSE = 0x0400
U_FULLDUPLEX = 0x0800
U_NOUDPFIN = 0x0008
U_TRIPTIME = 0x0010

TCP_FLAGS_21 = EXTEND | LEN_BIT | (60 << 1)              # 0x40010078, as 2.1.8 sends
UDP_FLAGS_21 = EXTEND | SEQNO64B | LEN_BIT | (76 << 1)   # 0x48010098
DUAL_FLAGS_21 = VERSION1 | TCP_FLAGS_21 | RUN_NOW          # 0xC0010079 (-d)
TRADEOFF_FLAGS_21 = VERSION1 | TCP_FLAGS_21                # 0xC0010078 (-r)
VERSION_U, VERSION_L = 0x00020001, 0x00080003              # "2.1.8" release


def secs_amount(t):
    """mAmount for a time: negative hundredths of a second (-t 1 -> -100)."""
    return -int(round(t * 100))


def header(flags=TCP_FLAGS_21, threads=1, port=5001, buflen=0, winband=0, amount=-100,
           ext_type=0, ext_len=0, upper=0, lower=0, version_u=VERSION_U,
           version_l=VERSION_L, tos=0, rate_lo=0, rate_hi=0, prefetch=0, ext=True):
    """A 24-byte version-1 header, plus the 36-byte 2.1 extension when ext. Every field
    is masked to its width so a case can pass "absurd" values (negative, > 32 bits)."""
    m32 = 0xFFFFFFFF
    v1 = struct.pack("!IIIIII", flags & m32, threads & m32, port & m32, buflen & m32,
                     winband & m32, amount & m32)
    if not ext:
        return v1
    e = struct.pack("!IIHHIIHHIII", ext_type & m32, ext_len & m32, upper & 0xFFFF,
                    lower & 0xFFFF, version_u & m32, version_l & m32, 0, tos & 0xFFFF,
                    rate_lo & m32, rate_hi & m32, prefetch & m32)
    return v1 + e


def rate_words(bps):
    """(lRate, uRate) for a rate in bit/s: low 32 bits, high 32 bits shifted left by 8."""
    return bps & 0xFFFFFFFF, ((bps >> 32) << 8) & 0xFFFFFFFF


def udp_prefix(seq, sec=None, usec=None):
    now = time.time()
    if sec is None:
        sec, usec = int(now), int((now % 1) * 1e6)
    u = seq & 0xFFFFFFFFFFFFFFFF
    return struct.pack("!IIII", u & 0xFFFFFFFF, sec & 0xFFFFFFFF, usec & 0xFFFFFFFF, u >> 32)


def udp_datagram(seq, size=1470, **hdr):
    """A 2.1.8-style UDP datagram: prefix, header (UDP flags unless given), zeros up to
    U+160, digit filler to `size`."""
    hdr.setdefault("flags", UDP_FLAGS_21)
    hdr.setdefault("rate_lo", 10 * 1024 * 1024)
    b = udp_prefix(seq) + header(**hdr)
    b += bytes(max(0, 160 - len(b)))
    if len(b) < size:
        b += bytes(48 + (i % 10) for i in range(len(b), size))
    return b[:size]


# --------------------------------------------------------------------------- processes

def proc_stats(pid):
    """fds, threads and resident memory (KiB) of a live process, from /proc."""
    st = {"fds": len(os.listdir("/proc/%d/fd" % pid))}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k == "Threads":
                st["threads"] = int(v)
            elif k == "VmRSS":
                st["rss_kb"] = int(v.split()[0])
    return st


def describe_fds(pid):
    """Each open fd of a process with what it is: a file's path, or a socket's ss line
    (protocol, state, addresses), so a leak names its own source."""
    sockets = {}
    for proto in ("-tan", "-uan"):
        try:
            out = subprocess.run(["ss", proto, "-e"], capture_output=True, text=True,
                                 timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        for line in out.splitlines():
            m = re.search(r"ino:(\d+)", line)
            if m:
                sockets[m.group(1)] = proto[1] + " " + " ".join(line.split()[:5])
    rows = []
    for fd in sorted(os.listdir("/proc/%d/fd" % pid), key=int):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        m = re.match(r"socket:\[(\d+)\]", target)
        rows.append("%s %s" % (fd, sockets.get(m.group(1), target) if m else target))
    return "\n".join(rows)


def is_sanitized(path):
    """Whether a binary was built with AddressSanitizer (looks for its runtime symbol)."""
    try:
        with open(path, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


SANITIZER_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer",
                   "UndefinedBehaviorSanitizer")


def check_no_sanitizer_report(proc):
    err = proc.stderr
    for m in SANITIZER_MARKS:
        check(m not in err, "sanitizer report (%r) in the server's stderr" % m,
              "\n".join(err.splitlines()[:60]))


_LOCAL = re.compile(r"local (\S+) port (\d+) connected with (\S+) port (\d+)")
_SENT = re.compile(r"Sent (\d+) datagrams")
_SRV_REPORT = re.compile(r"sec\s+[\d.]+\s+\w*Bytes\s+[\d.]+\s+\w*bits/sec\s+([\d.]+) ms\s+"
                         r"(\d+)/(\d+)\s")


class I2Result:
    """A finished stock `iperf -c` run: exit status, its local ports, and for UDP the
    datagrams it sent and the Server Report's lost/total."""

    def __init__(self, proc):
        self.proc = proc
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.local_ports = [int(m.group(2)) for m in _LOCAL.finditer(self.out)]
        m = _SENT.search(self.out)
        self.sent = int(m.group(1)) if m else None
        self.report = None
        if "Server Report:" in self.out:
            tail = self.out.split("Server Report:", 1)[1]
            r = _SRV_REPORT.search(tail)
            if r:
                self.report = {"jitter_ms": float(r.group(1)), "lost": int(r.group(2)),
                               "total": int(r.group(3))}

    def describe(self):
        return "%s -> rc=%s\n%s" % (" ".join(self.proc.argv), self.rc, self.proc.tail(25))


def iperf2_argv(host, port, args, netns=None):
    argv = [IPERF2, "-c", host, "-p", str(port)] + [str(a) for a in args]
    return (["ip", "netns", "exec", netns] + argv) if netns else argv


def start_iperf2(host, port, args=(), timeout=40, netns=None):
    return Proc(iperf2_argv(host, port, args, netns), timeout, name="iperf2-c")


def run_iperf2(host, port, args=(), timeout=40, netns=None):
    p = start_iperf2(host, port, args, timeout, netns)
    p.wait(timeout + 5)
    return I2Result(p)


def server_docs(srv_proc):
    return parse_json_docs(srv_proc.stdout)


def doc_for_client_port(docs, port, protocol=None):
    """The server's -J document for the test whose connection came from `port` (and, when
    given, whose protocol is `protocol`: TCP and UDP ports are separate spaces, so a UDP
    client's port can equal a concurrent TCP client's)."""
    for d in docs:
        st = d.get("start", {})
        if protocol is not None and get(st, "test_start.protocol", None) != protocol:
            continue
        if get(st, "accepted_connection.port", None) == port:
            return d
        for c in st.get("connected", []):
            if c.get("remote_port") == port:
                return d
    return None


def doc_mark(srv_proc):
    """How many documents the server has printed so far (ports are reused: look only at
    documents printed after a mark)."""
    for _ in range(20):
        try:
            return len(server_docs(srv_proc))
        except TestFailure:
            time.sleep(0.05)    # a document being written right now
    return len(server_docs(srv_proc))


def wait_doc(srv_proc, pred, timeout=10.0, since=0):
    """Poll the server's stdout until a complete JSON document (printed after the
    `since` first ones) satisfies pred."""
    deadline = time.monotonic() + timeout
    last = []
    while time.monotonic() < deadline:
        try:
            last = server_docs(srv_proc)[since:]
        except TestFailure:
            last = []           # a document being written right now
        for d in last:
            if pred(d):
                return d
        time.sleep(0.1)
    return None


def check_iperf2_tcp(srv_proc, r, nbytes, what, since=0, header_bytes=60):
    """A finished stock `iperf -c -n nbytes` (I2Result) against a linkperf -J server: exit
    0, and the server's own document for that connection counts exactly nbytes - 60
    (linkperf does not count iperf2's 60-byte header as payload; -C: no header); cookie ""
    marks an iperf2 test."""
    eq(r.rc, 0, what + ": exit status", r.describe(), srv_proc.tail())
    check(r.local_ports, what + ": no 'connected with' line", r.describe())
    lport = r.local_ports[0]
    d = wait_doc(srv_proc, lambda d: doc_for_client_port([d], lport, "TCP") is not None and
                 "end" in d and "sum_received" in d.get("end", {}), since=since)
    check(d is not None, "%s: no server document for client port %d" % (what, lport),
          r.describe(), srv_proc.tail())
    eq(get(d, "start.cookie"), "", what + ": server doc is an iperf2 test (empty cookie)")
    eq(get(d, "start.test_start.protocol"), "TCP", what + ": server doc protocol")
    eq(get(d, "end.sum_received.bytes"), nbytes - header_bytes,
       what + ": bytes the server received (its own report)", r.describe())
    return d


def iperf2_tcp_served(srv_proc, host, port, nbytes=2 * 1024 * 1024, what="stock iperf -c",
                      extra=(), netns=None, header_bytes=60):
    mark = doc_mark(srv_proc)
    r = run_iperf2(host, port, ["-n", nbytes] + list(extra), netns=netns)
    return r, check_iperf2_tcp(srv_proc, r, nbytes, what, mark, header_bytes)


def start_iperf3(host, port, args, netns=None, timeout=40):
    argv = [lptest.IPERF3, "-c", host, "-p", str(port), "-J"] + [str(a) for a in args]
    if netns:
        argv = ["ip", "netns", "exec", netns] + argv
    return Proc(argv, timeout, name="iperf3-c")


def check_iperf3(srv_proc, p, args, expect_bytes, what, since=0):
    """A finished stock iperf3 -J client Proc against a linkperf -J server: exit 0, exact
    -n bytes on both of the client's rows (UDP: no loss, packets received = sent) and the
    same in the server's document with the client's cookie."""
    res = lptest.Result(p)
    eq(res.rc, 0, what + ": exit status", res.describe(), srv_proc.tail())
    doc = res.json()
    check("error" not in doc, "%s: %s" % (what, doc.get("error")), res.describe())
    cookie = get(doc, "start.cookie")
    check(cookie, what + ": no cookie in the client's JSON")
    d = wait_doc(srv_proc, lambda d: get(d, "start.cookie", None) == cookie and
                 "sum_received" in d.get("end", {}), since=since)
    check(d is not None, what + ": no server document with the client's cookie",
          srv_proc.tail())
    if "-u" in args:
        eq(get(doc, "end.sum_received.lost_packets"), 0, what + ": UDP loss")
        eq(get(doc, "end.sum_received.packets"), get(doc, "end.sum_sent.packets"),
           what + ": UDP packets received vs sent")
        eq(get(d, "end.sum_received.packets"), get(doc, "end.sum_sent.packets"),
           what + ": server doc UDP packets vs client sent")
        eq(get(d, "start.test_start.protocol"), "UDP", what + ": server doc protocol")
    else:
        eq(get(doc, "end.sum_sent.bytes"), expect_bytes, what + ": sender bytes")
        eq(get(doc, "end.sum_received.bytes"), expect_bytes, what + ": receiver bytes")
        eq(get(d, "end.sum_received.bytes"), expect_bytes, what + ": server doc bytes")
        eq(get(d, "start.test_start.protocol"), "TCP", what + ": server doc protocol")
    return doc, d


def iperf3_served(srv_proc, host, port, args=("-n", "2M"), expect_bytes=2 * 1024 * 1024,
                  what="stock iperf3 -c", netns=None):
    mark = doc_mark(srv_proc)
    p = start_iperf3(host, port, args, netns)
    p.wait(45)
    return check_iperf3(srv_proc, p, args, expect_bytes, what, mark)


def check_iperf2_udp(srv_proc, r, what, since=0):
    """A finished stock `iperf -u` (I2Result): exit 0, a Server Report with 0 lost and a
    total of (datagrams sent - 1) (the client's "Sent N" counts one more than the highest
    sequence number, which is the server's total), and the server's own document
    agrees."""
    eq(r.rc, 0, what + ": exit status", r.describe(), srv_proc.tail())
    check(r.sent is not None, what + ": no 'Sent N datagrams' line", r.describe())
    check(r.report is not None, what + ": no Server Report", r.describe(), srv_proc.tail())
    eq(r.report["lost"], 0, what + ": Server Report lost datagrams", r.describe())
    eq(r.report["total"], r.sent - 1, what + ": Server Report total vs 'Sent N datagrams'",
       r.describe())
    lport = r.local_ports[0]
    d = wait_doc(srv_proc, lambda d: doc_for_client_port([d], lport, "UDP") is not None and
                 "sum_received" in d.get("end", {}), since=since)
    check(d is not None, "%s: no server document for client port %d" % (what, lport),
          srv_proc.tail())
    eq(get(d, "start.cookie"), "", what + ": server doc is an iperf2 test (empty cookie)")
    eq(get(d, "start.test_start.protocol"), "UDP", what + ": server doc protocol")
    eq(get(d, "end.sum_received.packets"), r.report["total"],
       what + ": server doc packets vs the Server Report")
    eq(get(d, "end.sum_received.lost_packets"), 0, what + ": server doc lost")
    return d


def iperf2_udp_served(srv_proc, host, port, args=("-b", "10M", "-t", "2"),
                      what="stock iperf -u", netns=None):
    mark = doc_mark(srv_proc)
    r = run_iperf2(host, port, ["-u"] + list(args), netns=netns)
    return r, check_iperf2_udp(srv_proc, r, what, mark)


def connect_send(port, data, host=LOOP4, src=None, timeout=5.0):
    """Open a TCP connection (optionally from source address src), send data, return it."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    if src:
        s.bind((src, 0))
    s.connect((host, port))
    if data:
        s.sendall(data)
    return s


def wait_eof(s, timeout):
    """Read and discard until EOF/RST; True if it came within timeout."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        s.settimeout(left)
        try:
            if not s.recv(65536):
                return True
        except socket.timeout:
            return False
        except OSError:
            return True

#!/usr/bin/env python3
"""Other iperf2 versions against a linkperf server, replayed from the wire captures in the
project's protocol evidence (no such binaries exist on Debian 12): a 2.0.6-era client (TCP
with its 24-byte flags-0 header, TCP -d with a VERSION1 header and a listener for the
server's connection back, UDP with the 12-byte prefix and the header at U+12) and a 2.2.1
client (TCP 64-byte header, UDP with the 2.2 header). Each replay sends exactly what the
capture shows, then counts: what the server reports must equal the payload sent; a UDP
client gets a 128-byte report whose numbers decode to what was sent."""
import re
import socket
import struct
import threading
import time

import lptest
from lptest import check, eq

suite = lptest.Suite("iperf2_versions", needs_iperf3=False)

DIGITS = b"0123456789" * 200


def start_server():
    srv = lptest.start_server("linkperf", ["--iperf2", "-f", "B", "-P", "1"])
    return srv


def server_rows(srv, timeout=15):
    """The one-test server's summary rows after it exited: [(bytes, lost, total)]."""
    eq(srv.proc.wait(timeout), 0, "one-test server exit status", srv.proc.tail())
    rows = []
    for m in re.finditer(r"^\[\s*\*?\d+\]\s+0\.0+-\s*[\d.]+ sec\s+(\d+) Bytes\s+\S+ Bytes/sec(.*)$",
                         srv.stdout, re.M):
        u = re.match(r"\s+[\d.]+ ms\s+(\d+)/\s*(\d+)", m.group(2))
        rows.append((int(m.group(1)),) + ((int(u.group(1)), int(u.group(2))) if u else (None, None)))
    check(rows, "no summary row from the server", srv.proc.tail(20))
    return rows


def tcp_replay(port, first, payload_len, hold_open=0.0):
    """Send the captured first segment, then payload_len bytes of digits, and close."""
    s = socket.create_connection((lptest.LOOP4, port), timeout=5)
    s.sendall(first)
    left = payload_len
    while left:
        n = min(left, len(DIGITS))
        s.sendall(DIGITS[:n])
        left -= n
    if hold_open:
        time.sleep(hold_open)
    s.close()


@suite.case
def v206_tcp_plain():
    """2.0.6-era `iperf -c -t 1`: a 24-byte header with flags 0 (no VERSION1) and then the
    data. To a 2.1 server flags 0 is no header at all, so every byte is payload (as 2.1.8
    counts it too): the server reports exactly the bytes sent"""
    srv = start_server()
    first = bytes.fromhex("00000000 00000001 000061a9 00000000 00000000 ffffff9c".replace(" ", ""))
    tcp_replay(srv.port, first, 3000000)
    rows = server_rows(srv)
    eq(rows[-1][0], len(first) + 3000000, "bytes the server counted", srv.proc.tail())


@suite.case
def v206_tcp_dual():
    """2.0.6-era `iperf -c -t 1 -d -L P`: flags 0x80000001, 24 bytes, mPort P. The server
    counts the payload after the header and connects back to the client's address at P,
    where our listener receives its data"""
    lis = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lis.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lis.bind((lptest.LOOP4, 0))
    lis.listen(1)
    lport = lis.getsockname()[1]
    got = {"bytes": 0, "peer": None}

    def accept():
        lis.settimeout(10)
        try:
            c, addr = lis.accept()
        except OSError:
            return
        got["peer"] = addr[0]
        c.settimeout(10)
        while True:
            try:
                b = c.recv(65536)
            except OSError:
                break
            if not b:
                break
            got["bytes"] += len(b)
        c.close()

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    srv = lptest.start_server("linkperf", ["--iperf2", "-f", "B"])
    first = struct.pack("!IiIIIi", 0x80000001, 1, lport, 0, 0, -100)
    tcp_replay(srv.port, first, 2000000, hold_open=1.5)
    t.join(15)
    lis.close()
    ctx = srv.proc.tail(20)
    eq(got["peer"], lptest.LOOP4, "the server's connection back came from / went to", ctx)
    check(got["bytes"] > 100000, "the -d leg delivered only %d bytes" % got["bytes"], ctx)
    rows = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and len(rows) < 2:
        rows = re.findall(r"^\[\s*\*?\d+\]\s+[\d.]+-\s*[\d.]+ sec\s+(\d+) Bytes", srv.stdout, re.M)
        time.sleep(0.1)
    counts = sorted(int(x) for x in rows)
    check(2000000 in counts, "forward payload (2000000 after the 24-byte header) not in %s" % counts, ctx)
    check(got["bytes"] in counts, "leg bytes %d not in the server rows %s" % (got["bytes"], counts), ctx)


def udp_replay(port, make, n, size=1470):
    """Send n datagrams made by make(seq) (seq from first_seq), then FINs (make(-n)) every
    10 ms until a 128-byte report arrives. Returns the report bytes (or None)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((lptest.LOOP4, port))
    for i in range(n):
        s.send(make(i, size))
        time.sleep(0.0005)
    s.settimeout(0.01)
    report = None
    for k in range(200):
        s.send(make(-(n + k), size))
        try:
            d = s.recv(2048)
        except socket.timeout:
            continue
        except ConnectionRefusedError:
            break
        if len(d) >= 64:
            report = d
            break
    s.close()
    return report


def decode_report(d):
    """(flags, bytes, datagrams, lost, out_of_order) of a 2.1-layout report (at U+16)."""
    flags, hi, lo, _sec, _usec, err, ooo, dgrams = struct.unpack("!IIIIIIII", d[16:48])
    return flags, hi << 32 | lo, dgrams, err, ooo


def v206_datagram(seq, size):
    """2.0.6-era layout: id (32-bit), sec, usec, then the 24-byte header at U+12 (flags 0),
    then digits from U+36 (udp_datagrams evidence, old_udp_cli)."""
    now = time.time()
    head = struct.pack("!iII", seq, int(now), int((now % 1) * 1e6))
    hdr = bytes.fromhex("00000000 00000001 000061a9 00000000 000f4240 ffffff9c".replace(" ", ""))
    return (head + hdr + DIGITS)[:size]


def v221_datagram(seq, size):
    """2.2.1 layout: 16-byte prefix (seq low, sec, usec, seq high), then its header with
    flags 0x480100A0 (LEN 80) and versions 2.2.1 (udp_datagrams evidence, v22_udp)."""
    now = time.time()
    u = seq & 0xFFFFFFFFFFFFFFFF
    head = struct.pack("!IIII", u & 0xFFFFFFFF, int(now), int((now % 1) * 1e6), u >> 32)
    hdr = bytes.fromhex(
        "480100a0 00000001 000061a9 00000000 00000000 ffffff9c 00000000 00000000"
        "00000000 00020002 00010001 00000000 000f4240 00000000 00000000".replace(" ", ""))
    return (head + hdr + bytes(160 - 16 - len(hdr)) + DIGITS)[:size]


@suite.case
def v206_udp():
    """2.0.6-era `iperf -c -u`: its first datagram has id 0 (not a flow start for a 2.1
    server) and no flags at U+16; the server still counts every later datagram, loses none,
    and answers the FINs with a report that says so (as 2.1.8 does for such a client)"""
    srv = start_server()
    n = 88
    rep = udp_replay(srv.port, v206_datagram, n)
    rows = server_rows(srv)
    ctx = srv.proc.tail(20)
    check(rep is not None, "no report for the 2.0.6-era client's FINs", ctx)
    flags, nbytes, dgrams, lost, ooo = decode_report(rep)
    check(flags & 0x80000000, "report flags 0x%08x lack VERSION1" % flags, ctx)
    eq((dgrams, lost, ooo), (n, 0, 0), "report datagrams/lost/out-of-order (ids 1..%d + FIN)" % (n - 1), ctx)
    eq(rows[-1][1:], (0, n), "server row lost/total", ctx)
    eq(nbytes, rows[-1][0], "report bytes vs server row", ctx)
    eq(nbytes, n * 1470, "bytes: ids 1..87 and the first FIN, 1470 each", ctx)


@suite.case
def v221_udp():
    """2.2.1 `iperf -c -u`: 64-bit sequence numbers with the 2.2 header; every datagram
    counted, report exact"""
    srv = start_server()
    n = 120
    rep = udp_replay(srv.port, lambda i, size: v221_datagram(i + 1 if i >= 0 else i - 1, size), n)
    rows = server_rows(srv)
    ctx = srv.proc.tail(20)
    check(rep is not None, "no report for the 2.2.1 client's FINs", ctx)
    _flags, nbytes, dgrams, lost, ooo = decode_report(rep)
    eq((dgrams, lost, ooo), (n + 1, 0, 0), "report datagrams/lost/out-of-order (1..%d + FIN)" % n, ctx)
    eq(nbytes, (n + 1) * 1470, "report bytes", ctx)
    eq(rows[-1][1:], (0, n + 1), "server row lost/total", ctx)


@suite.case
def v221_tcp():
    """2.2.1 `iperf -c -t 1`: a 64-byte header (flags 0x40010080) and then digits: the server
    acknowledges it (28 bytes) and counts exactly the bytes after the header"""
    srv = start_server()
    first = bytes.fromhex(
        "40010080 00000001 000061a9 00000000 00000000 ffffff9c 00000000 00000000"
        "00000000 00020002 00010001 00000000 00000000 00000000 00000000 00000000".replace(" ", ""))
    s = socket.create_connection((lptest.LOOP4, srv.port), timeout=5)
    s.sendall(first)
    s.settimeout(5)
    ack = s.recv(64)
    for _ in range(1000):
        s.sendall(DIGITS)
    s.close()
    rows = server_rows(srv)
    eq(len(ack), 28, "ack length", srv.proc.tail())
    eq(struct.unpack("!I", ack[:4])[0], 2, "ack type (CLIENTHDRACK)", srv.proc.tail())
    eq(rows[-1][0], 1000 * len(DIGITS), "bytes after the 64-byte header", srv.proc.tail())


if __name__ == "__main__":
    suite.main()

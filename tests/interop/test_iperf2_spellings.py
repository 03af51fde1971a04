#!/usr/bin/env python3
"""iperf2 number spellings, stock iperf 2.1.8 against linkperf2, table-driven.

JPerf (and people) write iperf2 sizes with a fraction and a glued letter: `-l 2.0M`,
`-w 56.0K`, `-M 1460.0B`, `-b 512.0K`. Each row of CASES runs the same client command line
twice, once with stock `iperf` and once with `linkperf2` (the binary under that name, as
JPerf runs it), each against its own fresh stock server on loopback, and compares the
numbers both clients print: the write size (`Write buffer size:` with -e), the datagram size
and IPG target (`Sending N byte datagrams, IPG target: X us`, which gives the UDP rate), the
requested and granted socket buffer (`TCP window size: A Byte (WARNING: requested B Byte)`
with -f B), the MSS of the connection line (`(icwnd/mss/irtt=a/MSS/c)`), the bytes of the
summary row with -n and -f B. Where the table names the value, both must print it; where it
says SAME, linkperf2 must print what stock printed. REFUSE rows are spellings both refuse.
Nothing here depends on time or throughput. The table of what each spelling means is
docs/COMPATIBILITY.md, "Number spellings (iperf2)"; unit/test_cli_options2.c checks the
parsed values.

Ports: every server listens on a free port in 16000..16999.
"""
import os
import random
import re
import socket
import time

import iperf2lib as L
import lptest
from lptest import TestFailure, check

suite = lptest.Suite("iperf2_spellings", needs_iperf3=False)

SAME = object()  # the value is whatever stock printed
PORTS = range(16000, 17000)

_WRITE = re.compile(r"^Write buffer size:\s+([\d.]+) Byte", re.M)
_SENDING = re.compile(r"^Sending (\d+) byte datagrams, IPG target: ([\d.]+) us", re.M)
_WINDOW = re.compile(r"^(?:TCP window|UDP buffer) size:\s+(\d+) Byte "
                     r"\((?:default|WARNING: requested\s+(\d+) Byte)\)", re.M)
_MSS = re.compile(r"\(icwnd/mss/irtt=\d+/(\d+)/\d+\)")

# (name, udp, client args, {field: expected value or SAME}). Fields: write, dgram, rate
# (bits/s from the IPG target), window (granted), window_req, mss, bytes.
CASES = [
    # JPerf "Buffer Length" (TCP): b B k K m M
    ("tcp_len_2.0M", False, ["-l", "2.0M", "-e", "-t", "0.3"], {"write": 2097152}),
    ("tcp_len_16.0K", False, ["-l", "16.0K", "-e", "-t", "0.3"], {"write": 16384}),
    ("tcp_len_512.0B", False, ["-l", "512.0B", "-e", "-t", "0.3"], {"write": 512}),
    ("tcp_len_64.0k", False, ["-l", "64.0k", "-e", "-t", "0.3"], {"write": 64000}),
    ("tcp_len_16.0b", False, ["-l", "16.0b", "-e", "-t", "0.3"], {"write": 16}),
    ("tcp_len_1.0m", False, ["-l", "1.0m", "-e", "-t", "0.3"], {"write": 1000000}),
    ("tcp_len_10MB", False, ["-l", "10MB", "-e", "-t", "0.3"], {"write": 10485760}),
    ("tcp_len_1.9K", False, ["-l", "1.9K", "-e", "-t", "0.3"], {"write": 1945}),
    # JPerf "UDP Packet Size"
    ("udp_len_1500.0B", True, ["-u", "-l", "1500.0B", "-t", "0.3"],
     {"dgram": 1500, "rate": 1048576}),
    ("udp_len_1.0K", True, ["-u", "-l", "1.0K", "-t", "0.3"], {"dgram": 1024, "rate": 1048576}),
    ("udp_len_1.4k", True, ["-u", "-l", "1.4k", "-t", "0.3"], {"dgram": 1400}),
    # JPerf "TCP Window Size" and "UDP Buffer Size"
    ("tcp_window_56.0K", False, ["-w", "56.0K", "-f", "B", "-t", "0.3"],
     {"window_req": 57344, "window": SAME}),
    ("tcp_window_4.0M", False, ["-w", "4.0M", "-f", "B", "-t", "0.3"],
     {"window_req": 4194304, "window": SAME}),
    ("tcp_window_64.0k", False, ["-w", "64.0k", "-f", "B", "-t", "0.3"],
     {"window_req": 64000, "window": SAME}),
    ("tcp_window_512.0B", False, ["-w", "512.0B", "-f", "B", "-t", "0.3"],
     {"window_req": 512, "window": SAME}),
    ("tcp_window_1G", False, ["-w", "1G", "-f", "B", "-t", "0.3"],
     {"window_req": 1073741824, "window": SAME}),
    ("udp_window_41.0K", True, ["-u", "-w", "41.0K", "-f", "B", "-t", "0.3"],
     {"window_req": 41984, "window": SAME}),
    # JPerf "Max Segment Size": b B k K (the kernel's MSS is the request less the options)
    ("tcp_mss_1.0K", False, ["-M", "1.0K", "-m", "-t", "0.3"], {"mss": SAME}),
    ("tcp_mss_1460.0B", False, ["-M", "1460.0B", "-m", "-t", "0.3"], {"mss": SAME}),
    ("tcp_mss_536.0b", False, ["-M", "536.0b", "-t", "0.3"], {"mss": SAME}),
    ("tcp_mss_1.4k", False, ["-M", "1.4k", "-t", "0.3"], {"mss": SAME}),
    ("tcp_mss_16.0K", False, ["-M", "16.0K", "-t", "0.3"], {"mss": SAME}),
    # -n amounts (JPerf writes integers; people write the rest)
    ("tcp_num_1.5M", False, ["-n", "1.5M", "-f", "B"], {"bytes": 1572864}),
    ("tcp_num_1500.0B", False, ["-n", "1500.0B", "-f", "B"], {"bytes": 1500}),
    ("tcp_num_2.0k", False, ["-n", "2.0k", "-f", "B"], {"bytes": 2000}),
    ("tcp_num_1.0K", False, ["-n", "1.0K", "-f", "B"], {"bytes": 1024}),
    # JPerf "UDP Bandwidth": K and M, which 2.1.8 makes 1024-based bits/s
    ("udp_rate_1.0M", True, ["-u", "-b", "1.0M", "-t", "0.3"], {"dgram": 1470, "rate": 1048576}),
    ("udp_rate_512.0K", True, ["-u", "-b", "512.0K", "-t", "0.3"], {"rate": 524288}),
    ("udp_rate_1.0m", True, ["-u", "-b", "1.0m", "-t", "0.3"], {"rate": 1000000}),
    ("udp_rate_2.5M", True, ["-u", "-b", "2.5M", "-t", "0.3"], {"rate": 2621440}),
    # Whole JPerf command lines
    ("jperf_tcp_line", False, ["-P", "1", "-i", "1", "-l", "16.0K", "-w", "56.0K", "-M", "1.0K",
                               "-f", "B", "-e", "-t", "1"],
     {"write": 16384, "window_req": 57344, "window": SAME, "mss": SAME}),
    ("jperf_udp_line", True, ["-u", "-P", "1", "-i", "1", "-l", "1500.0B", "-w", "41.0K",
                              "-b", "512.0K", "-f", "B", "-t", "1"],
     {"dgram": 1500, "rate": 524288, "window_req": 41984, "window": SAME}),
]

# Spellings both refuse: (name, args, what linkperf2's message must contain).
REFUSE = [
    ("num_0.5", ["-n", "0.5"], "option -n/--num: 0.5 is out of range"),
    ("num_0", ["-n", "0"], "option -n/--num: 0 is out of range"),
]


# --------------------------------------------------------------------------- plumbing

def _port_free(p):
    for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        s = socket.socket(socket.AF_INET, typ)
        try:
            s.bind(("", p))
        except OSError:
            return False
        finally:
            s.close()
    return True


def start_stock_server(udp):
    """A fresh stock `iperf -s` (with -u for UDP: a 2.1.8 UDP server stops answering after a
    few back-to-back clients) on a free port of 16000..16999."""
    last = None
    for p in random.sample(PORTS, 40):
        if not _port_free(p):
            continue
        try:
            return L.start_server("iperf", ["-u"] if udp else [], udp=udp, port=p, timeout=60)
        except TestFailure as e:
            last = e
    raise TestFailure("no stock server could listen on a port of 16000..16999: %s" % last)


def linkperf2():
    """linkperf under the name linkperf2 (what JPerf's `iperf` link points at)."""
    path = lptest.tmp_path("linkperf2")
    if not os.path.exists(path):
        os.symlink(os.path.abspath(lptest.LINKPERF), path)
    return path


def run_client(kind, port, args, expect_rc=0):
    exe = [L.IPERF2] if kind == "iperf" else [linkperf2()]
    r = lptest.run(exe + ["-c", lptest.LOOP4, "-p", port] + list(args), timeout=30,
                   name=kind + "-c")
    if expect_rc is not None:
        check(r.rc == expect_rc, "%s client exit status %s, expected %s" % (kind, r.rc,
                                                                           expect_rc),
              r.describe())
    return r


def fields(text, want):
    """The numbers of `want` (field names) a client printed; a missing one raises."""
    got = {}
    for f in want:
        if f == "write":
            m = _WRITE.search(text)
            v = m and int(float(m.group(1)))
        elif f in ("dgram", "rate", "ipg"):
            m = _SENDING.search(text)
            if m and f == "dgram":
                v = int(m.group(1))
            elif m:
                ipg = float(m.group(2))
                v = int(m.group(1)) * 8e6 / ipg if f == "rate" else m.group(2)
            else:
                v = None
        elif f in ("window", "window_req"):
            m = _WINDOW.search(text)
            v = m and int(m.group(1) if f == "window" else (m.group(2) or 0))
        elif f == "mss":
            m = _MSS.search(text)
            v = m and int(m.group(1))
        elif f == "bytes":
            rows = L.finals(L.parse(text))
            v = L.one(rows, "summary row")["bytes"] if rows else None
        else:
            raise TestFailure("unknown field %s" % f)
        check(v is not None, "no %s in the output" % f, text)
        got[f] = v
    return got


def run_both(udp, args, want):
    res = {}
    for kind in ("iperf", "linkperf"):
        srv = start_stock_server(udp)
        try:
            r = run_client(kind, srv.port, args)
            check("did not receive ack of last datagram" not in r.out + r.err,
                  "%s client got no report for its FIN" % kind, r.describe())
            names = list(want) + (["ipg"] if "rate" in want else [])
            res[kind] = (fields(r.out, names), r)
        finally:
            srv.stop()
    return res


def compare(name, udp, args, want):
    res = run_both(udp, args, want)
    stock, sr = res["iperf"]
    ours, lr = res["linkperf"]
    ctx = "stock: %s\n%s\nlinkperf2: %s\n%s" % (" ".join(sr.proc.argv), sr.out,
                                                " ".join(lr.proc.argv), lr.out)
    for f, exp in want.items():
        if exp is SAME:
            check(ours[f] == stock[f], "%s: %s is %s, stock printed %s" % (name, f, ours[f],
                                                                           stock[f]), ctx)
        elif f == "rate":
            # The IPG target is printed to 0.01 us: the rate from it is exact to ~1e-5.
            for who, got in (("stock", stock), ("linkperf2", ours)):
                check(abs(got[f] - exp) <= exp * 1e-4, "%s: %s's rate %.0f bits/s, want %d"
                      % (name, who, got[f], exp), ctx)
            check(ours["ipg"] == stock["ipg"], "%s: IPG target %s us, stock %s us"
                  % (name, ours["ipg"], stock["ipg"]), ctx)
        else:
            check(stock[f] == exp, "%s: stock prints %s = %s, the table says %s (is this "
                  "iperf 2.1.8?)" % (name, f, stock[f], exp), ctx)
            check(ours[f] == exp, "%s: linkperf2 prints %s = %s, stock %s" % (name, f, ours[f],
                                                                            exp), ctx)
    if "mss" in want:
        # Applied at all: loopback's own MSS (MTU 65536) is over 32000.
        check(0 < ours["mss"] < 20000, "%s: MSS %s: -M was not applied" % (name, ours["mss"]),
              ctx)


def make_case(name, udp, args, want):
    def fn():
        L.require_iperf2()
        compare(name, udp, args, want)
    fn.__name__ = re.sub(r"\W", "_", name)
    fn.__doc__ = "%s `%s`: %s" % ("UDP" if udp else "TCP", " ".join(args),
                                  ", ".join("%s=%s" % (k, "stock's" if v is SAME else v)
                                            for k, v in want.items()))
    return fn


def make_refuse(name, args, msg):
    def fn():
        L.require_iperf2()
        port = random.choice(PORTS)  # nobody listens: both must stop before connecting
        s = run_client("iperf", port, args, expect_rc=None)
        o = run_client("linkperf", port, args, expect_rc=None)
        check(s.rc != 0, "stock accepted %s" % " ".join(args), s.describe())
        check(o.rc == 2, "linkperf2 exit status %s for %s, want 2" % (o.rc, " ".join(args)),
              o.describe())
        check(msg in o.err, "linkperf2's message lacks %r" % msg, o.describe())
    fn.__name__ = "refuse_" + re.sub(r"\W", "_", name)
    fn.__doc__ = "both refuse `%s`" % " ".join(args)
    return fn


for _c in CASES:
    suite.case(make_case(*_c))
for _r in REFUSE:
    suite.case(make_refuse(*_r))


def server_window_56K():
    """A server's -w 56.0K: both banners ask for 57344 bytes and get the same."""
    L.require_iperf2()
    got = {}
    for kind in ("iperf", "linkperf"):
        for p in random.sample(PORTS, 40):
            if _port_free(p):
                break
        exe = [L.IPERF2] if kind == "iperf" else [linkperf2()]
        proc = lptest.Proc(exe + ["-s", "-p", p, "-w", "56.0K", "-f", "B"], 20, name=kind + "-s")
        try:
            check(L.wait_bound(proc, p, udp=False), "%s server did not listen" % kind,
                  proc.tail())
            deadline = time.monotonic() + 5
            while not _WINDOW.search(proc.stdout) and time.monotonic() < deadline:
                time.sleep(0.05)
            m = _WINDOW.search(proc.stdout)
            check(m is not None, "%s server printed no window line" % kind, proc.stdout)
            got[kind] = (int(m.group(1)), int(m.group(2) or 0))
        finally:
            proc.kill()
    check(got["iperf"][1] == 57344, "stock server requested %s" % (got["iperf"],))
    check(got["linkperf"] == got["iperf"], "linkperf2 server window %s, stock %s"
          % (got["linkperf"], got["iperf"]))


suite.case(server_window_56K)

if __name__ == "__main__":
    suite.main()

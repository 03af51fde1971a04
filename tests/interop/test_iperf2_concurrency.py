#!/usr/bin/env python3
"""One linkperf server process serves stock iperf3 3.12 and stock iperf 2.1.8 clients at
the same time, on the same port and on both default ports (5201 and 5001, inside a network
namespace of our own so the fixed ports are free), each with its own exact numbers and
attributed to the right protocol (an iperf3 test's server document carries the client's
cookie, an iperf2 test's an empty one). Also stock `iperf -C` (no header) against the
server, and the server controls JPerf drives: the client allowlist (host, CIDR, list; in
iperf2 and iperf3 spellings) and "exit after n tests" (iperf2 -P n, --max-connections n)."""

import csv
import io
import os
import re
import subprocess
import time

import lptest
from lptest import (LOOP4, Proc, Suite, check, eq, get, require, start_server)
import iperf2raw as i2

suite = Suite("iperf2_concurrency")
MIB = 1024 * 1024


def both_alive_at_once(a, b, timeout=40):
    """Poll until both exit; True if at some poll both were running (the tests overlapped)."""
    seen = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (a.alive() or b.alive()):
        if a.alive() and b.alive():
            seen = True
        time.sleep(0.05)
    return seen


# --------------------------------------------------------------------------- same port

@suite.case
def same_port_tcp_pair():
    """`linkperf -s -J -p P`: stock `iperf3 -c -n 20M -b 100M` and stock `iperf -c -n 20M
    -b 100M` started together (both running at once): iperf3's rows and the server's
    document with its cookie say exactly 20 MiB; the server's iperf2 document (empty
    cookie, matched by the client's port) says exactly 20 MiB - 60."""
    i2.require_iperf2()
    srv = start_server("linkperf", ["-J"])
    m = i2.doc_mark(srv.proc)
    p3 = i2.start_iperf3(LOOP4, srv.port, ["-n", "20M", "-b", "100M"])
    p2 = i2.start_iperf2(LOOP4, srv.port, ["-n", 20 * MIB, "-b", "100M"])
    overlap = both_alive_at_once(p3, p2)
    p3.wait(45)
    p2.wait(45)
    i2.check_iperf3(srv.proc, p3, ["-n", "20M"], 20 * MIB, "iperf3 -n 20M", m)
    i2.check_iperf2_tcp(srv.proc, i2.I2Result(p2), 20 * MIB, "iperf -n 20M", m)
    check(overlap, "the two clients never ran at the same time")
    eq(len(i2.server_docs(srv.proc)[m:]), 2, "server documents (one per test)")
    i2.check_no_sanitizer_report(srv.proc)


@suite.case
def same_port_udp_pair():
    """The same server port, UDP: stock `iperf -u -b 10M -t 2` and stock `iperf3 -u -b 10M
    -t 2` at once: iperf2's Server Report has 0 lost and total = sent - 1 and agrees with
    the server's document; iperf3 has 0 loss and packets received = sent on both sides."""
    i2.require_iperf2()
    srv = start_server("linkperf", ["-J"])
    m = i2.doc_mark(srv.proc)
    a3 = ["-u", "-b", "10M", "-t", "2"]
    p3 = i2.start_iperf3(LOOP4, srv.port, a3)
    p2 = i2.start_iperf2(LOOP4, srv.port, ["-u", "-b", "10M", "-t", "2"])
    overlap = both_alive_at_once(p3, p2)
    p3.wait(45)
    p2.wait(45)
    i2.check_iperf3(srv.proc, p3, a3, None, "iperf3 -u", m)
    i2.check_iperf2_udp(srv.proc, i2.I2Result(p2), "iperf -u", m)
    check(overlap, "the two clients never ran at the same time")
    i2.check_no_sanitizer_report(srv.proc)


@suite.case
def same_port_parallel_mix():
    """Stock `iperf -c -P 3 -n 4M` and stock `iperf3 -c -P 2 -n 6M` against one port at
    once: the iperf2 test is one server document with 3 streams of exactly 4 MiB - 60
    each; the iperf3 one has exact 6 MiB on both rows and in its document."""
    i2.require_iperf2()
    srv = start_server("linkperf", ["-J"])
    m = i2.doc_mark(srv.proc)
    p3 = i2.start_iperf3(LOOP4, srv.port, ["-P", "2", "-n", "6M", "-b", "20M"])
    p2 = i2.start_iperf2(LOOP4, srv.port, ["-P", "3", "-n", 4 * MIB, "-b", "20M"])
    p3.wait(45)
    p2.wait(45)
    i2.check_iperf3(srv.proc, p3, ["-n", "6M"], 6 * MIB, "iperf3 -P 2 -n 6M", m)
    r = i2.I2Result(p2)
    eq(r.rc, 0, "iperf -P 3: exit status", r.describe())
    eq(len(r.local_ports), 3, "iperf -P 3: connections", r.describe())
    ports = set(r.local_ports)
    d = i2.wait_doc(srv.proc, lambda d: {c.get("remote_port") for c in
                                         get(d, "start.connected", [])} == ports, since=m)
    check(d is not None, "no single server document with the 3 iperf2 connections",
          srv.proc.tail())
    eq(get(d, "start.cookie"), "", "iperf2 -P 3 document cookie")
    eq(sorted(get(st, "receiver.bytes") for st in get(d, "end.streams")),
       [4 * MIB - 60] * 3, "iperf2 -P 3 per-stream bytes")
    eq(get(d, "end.sum_received.bytes"), 3 * (4 * MIB - 60), "iperf2 -P 3 sum")
    i2.check_no_sanitizer_report(srv.proc)


@suite.case
def compat_client_tcp_udp():
    """Stock clients with -C (no header, no extra messages) against `linkperf -s -J -p P`,
    TCP and UDP at once with an iperf3 client: TCP counts every byte (exactly -n 3M, no
    header to subtract); UDP has a Server Report with 0 lost and total = sent - 1."""
    i2.require_iperf2()
    srv = start_server("linkperf", ["-J"])
    m = i2.doc_mark(srv.proc)
    p3 = i2.start_iperf3(LOOP4, srv.port, ["-n", "8M", "-b", "50M"])
    pt = i2.start_iperf2(LOOP4, srv.port, ["-C", "-n", 3 * MIB])
    pu = i2.start_iperf2(LOOP4, srv.port, ["-C", "-u", "-b", "10M", "-t", "1"])
    for p in (p3, pt, pu):
        p.wait(45)
    i2.check_iperf2_tcp(srv.proc, i2.I2Result(pt), 3 * MIB, "iperf -C -n 3M", m,
                        header_bytes=0)
    i2.check_iperf2_udp(srv.proc, i2.I2Result(pu), "iperf -C -u", m)
    i2.check_iperf3(srv.proc, p3, ["-n", "8M"], 8 * MIB, "iperf3 -n 8M", m)
    i2.check_no_sanitizer_report(srv.proc)


# --------------------------------------------------------------------------- default ports

@suite.case
def default_ports_four_clients_netns():
    """In a network namespace of our own, `linkperf -s -J` without -p listens on 5201 and
    5001; four stock clients at once — iperf2 -> 5001, iperf3 -> 5201, iperf2 -> 5201,
    iperf3 -> 5001 (TCP -n, different sizes) — are all served with exact numbers, each
    test attributed to its protocol. The namespace is always deleted."""
    i2.require_iperf2()
    require(os.geteuid() == 0 and subprocess.call(["ip", "-V"], stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.DEVNULL) == 0,
            "network namespaces need root and iproute2")
    ns = "lpt-%d" % os.getpid()
    r = subprocess.run(["ip", "netns", "add", ns], capture_output=True, text=True)
    require(r.returncode == 0, "cannot create a network namespace: %s" % r.stderr.strip())
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True, timeout=10)
        srv = Proc(["ip", "netns", "exec", ns, lptest.LINKPERF, "-s", "-J"], 80,
                   name="linkperf-s")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and srv.alive() and not (
                lptest.port_bound(5201, pid=srv.pid) and lptest.port_bound(5001, pid=srv.pid)):
            time.sleep(0.05)
        check(lptest.port_bound(5201, pid=srv.pid) and lptest.port_bound(5001, pid=srv.pid),
              "server in the namespace does not listen on 5201 and 5001", srv.tail())
        m = 0
        plan = [("iperf2", 5001, 7 * MIB), ("iperf3", 5201, 9 * MIB),
                ("iperf2", 5201, 5 * MIB), ("iperf3", 5001, 3 * MIB)]
        procs = []
        for kind, port, n in plan:
            if kind == "iperf2":
                procs.append(i2.start_iperf2(LOOP4, port, ["-n", n, "-b", "40M"], netns=ns))
            else:
                procs.append(i2.start_iperf3(LOOP4, port, ["-n", n, "-b", "40M"], netns=ns))
        for p in procs:
            p.wait(45)
        for (kind, port, n), p in zip(plan, procs):
            what = "%s -> %d -n %d" % (kind, port, n)
            if kind == "iperf2":
                d = i2.check_iperf2_tcp(srv, i2.I2Result(p), n, what, m)
            else:
                _, d = i2.check_iperf3(srv, p, ["-n", n], n, what, m)
            eq(get(d, "start.connected.0.local_port"), port, what + ": server-side port")
        eq(len(i2.server_docs(srv)), 4, "server documents")
        i2.check_no_sanitizer_report(srv)
        srv.kill()
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)
    check(ns not in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                   text=True).stdout, "namespace %s left behind" % ns)


# --------------------------------------------------------------------------- server controls

def csv_rows(text):
    """iperf2 -y C rows of a linkperf --iperf2 server: dicts with src_ip, src_port, bytes."""
    rows = []
    for rec in csv.reader(io.StringIO(text)):
        if len(rec) >= 9 and rec[0].replace(".", "").isdigit():
            rows.append({"src_ip": rec[1], "src_port": int(rec[2]), "dst_port": int(rec[4]),
                         "bytes": int(rec[7])})
    return rows


def start_lp(args, port=None):
    """linkperf with arbitrary server args on a free port (retries a port race)."""
    for _ in range(4):
        p = port or lptest.free_port()
        proc = Proc([lptest.LINKPERF] + [str(a) for a in args] + ["-p", p], 60,
                    name="linkperf-s")
        if lptest.wait_listening(proc, p):
            return proc, p
        proc.kill()
    raise lptest.TestFailure("server did not start: %s" % proc.tail())


REFUSED = re.compile(r"refused a connection from (\S+) port \d+: not in the allowed clients")
UDP_REFUSED = re.compile(r"refused UDP datagrams from (\S+) port \d+: not in the allowed clients")


def allow_case_iperf2(allow, bad_src):
    """--iperf2 -s -y C -c <allow>: a stock client from 127.0.0.1 is served (CSV bytes
    exactly n - 60); one bound to bad_src is refused with a log line and no row; another
    from 127.0.0.1 is served after that."""
    srv, port = start_lp(["--iperf2", "-s", "-y", "C", "-c", allow])
    ok1 = i2.run_iperf2(LOOP4, port, ["-n", 1 * MIB])
    bad = i2.run_iperf2(LOOP4, port, ["-n", 1 * MIB, "-B", bad_src])
    ok2 = i2.run_iperf2(LOOP4, port, ["-n", 2 * MIB])
    time.sleep(0.3)
    out, err = srv.stdout, srv.stderr
    rows = csv_rows(out)
    for r, n in ((ok1, MIB), (ok2, 2 * MIB)):
        eq(r.rc, 0, "allowed client exit status", r.describe())
        mine = [x for x in rows if x["src_port"] == r.local_ports[0]]
        eq([x["bytes"] for x in mine], [n - 60], "-c %s: CSV rows of the allowed client from "
           "port %d" % (allow, r.local_ports[0]), out)
    check(not any(x["src_ip"] == bad_src for x in rows), "-c %s: the refused client from %s "
          "has a result row" % (allow, bad_src), out)
    refused = REFUSED.findall(out + err)
    eq(refused, [bad_src], "-c %s: 'refused a connection' log lines" % allow, out, err)
    check(srv.alive(), "server exited")
    i2.check_no_sanitizer_report(srv)
    return srv


@suite.case
def allow_host_iperf2_spelling():
    """iperf2 spelling `--iperf2 -s -c 127.0.0.1` (JPerf's Client Limit): 127.0.0.1 is
    served with exact bytes, a client bound to 127.0.0.2 is refused with a clear log line
    and gets no test; the server keeps serving."""
    i2.require_iperf2()
    allow_case_iperf2("127.0.0.1", "127.0.0.2")


@suite.case
def allow_cidr_and_list_iperf2_spelling():
    """`-c 127.0.0.0/31` (CIDR: .0-.1) and `-c 10.9.9.9,127.0.0.1` (list): 127.0.0.1
    served, 127.0.0.2 refused with a log line, for both forms."""
    i2.require_iperf2()
    allow_case_iperf2("127.0.0.0/31", "127.0.0.2")
    allow_case_iperf2("10.9.9.9,127.0.0.1", "127.0.0.2")


@suite.case
def allow_iperf3_spelling_both_protocols():
    """`linkperf -s -J --allow 127.0.0.2/32`: stock iperf2 and iperf3 clients from
    127.0.0.1 are refused (at once, an error document each, no test; iperf3 reports an
    error), a
    stock iperf2 TCP and a UDP client bound to 127.0.0.2 are served with exact numbers;
    refused UDP datagrams start no test and are logged at most once a second (so a
    flood cannot flood the log)."""
    i2.require_iperf2()
    srv, port = start_lp(["-s", "-J", "--allow", "127.0.0.2/32"])
    bad2 = i2.run_iperf2(LOOP4, port, ["-n", MIB])
    p3 = i2.start_iperf3(LOOP4, port, ["-n", "1M"])
    p3.wait(45)
    bad3 = lptest.Result(p3)
    t0 = time.monotonic()
    badu = i2.run_iperf2(LOOP4, port, ["-u", "-b", "1M", "-t", "1"])
    udp_span = time.monotonic() - t0
    check(bad3.rc != 0 or "error" in bad3.json(), "refused iperf3 client reported success",
          bad3.describe())
    check(badu.report is None, "refused iperf -u client got a Server Report", badu.describe())
    m = 0
    i2.check_iperf2_tcp(srv, i2.run_iperf2(LOOP4, port, ["-n", 2 * MIB, "-B", "127.0.0.2"]),
                        2 * MIB, "iperf -B 127.0.0.2 (allowed)", m)
    i2.check_iperf2_udp(srv, i2.run_iperf2(LOOP4, port, ["-u", "-b", "10M", "-t", "1",
                                                         "-B", "127.0.0.2"]),
                        "iperf -u -B 127.0.0.2 (allowed)", m)
    docs = i2.server_docs(srv)
    for d in docs:
        host = get(d, "start.accepted_connection.host", None)
        check(host in (None, "127.0.0.2"), "a test was run for %s" % host)
    # while the server runs, each refusal is a JSON document of its own with the message
    # (before the fix they were held until the server exited, and only the first kept)
    refused = REFUSED.findall("\n".join(d.get("error", "") for d in docs))
    eq(refused, ["127.0.0.1", "127.0.0.1"], "'refused a connection' error documents (iperf2 "
       "and iperf3 TCP clients from 127.0.0.1) while the server runs", srv.tail())
    # the refused UDP client: ~90 datagrams in 1 s plus its FINs, logged at most once a
    # second while they come (a slow machine stretches its FIN retries: CI under ASan, 5)
    udp_lines = UDP_REFUSED.findall("\n".join(d.get("error", "") for d in docs))
    check(1 <= len(udp_lines) <= int(udp_span) + 2 and set(udp_lines) == {"127.0.0.1"},
          "'refused UDP datagrams' lines: %s (the client ran %.1f s)" % (udp_lines, udp_span), srv.tail())
    check(srv.alive(), "server exited")
    i2.check_no_sanitizer_report(srv)


def exit_after_two(args):
    srv, port = start_lp(args)
    json_mode = "-J" in args
    r1 = i2.run_iperf2(LOOP4, port, ["-n", MIB])
    p3 = i2.start_iperf3(LOOP4, port, ["-n", "1M"])
    p3.wait(45)
    rc = srv.wait(15)
    eq(rc, 0, "server exit status after 2 tests", srv.tail())
    i2.check_no_sanitizer_report(srv)      # a sanitizer build ran LeakSanitizer at exit
    eq(r1.rc, 0, "first (iperf2) client", r1.describe())
    res3 = lptest.Result(p3)
    eq(res3.rc, 0, "second (iperf3) client", res3.describe())
    eq(get(res3.json(), "end.sum_received.bytes"), MIB, "iperf3 -n 1M receiver bytes")
    if json_mode:
        docs = i2.server_docs(srv)
        eq(len(docs), 2, "server documents")
        eq(i2.doc_for_client_port(docs, r1.local_ports[0])["end"]["sum_received"]["bytes"],
           MIB - 60, "iperf2 test bytes in the server document")
    else:
        rows = csv_rows(srv.stdout)
        eq([x["bytes"] for x in rows if x["src_port"] == r1.local_ports[0]], [MIB - 60],
           "iperf2 test CSV row")
    r3 = i2.run_iperf2(LOOP4, port, ["-n", MIB], timeout=15)
    check("connect failed" in r3.out + r3.err or r3.rc != 0,
          "third client connected to an exited server", r3.describe())


@suite.case
def exit_after_n_tests_iperf2_spelling():
    """`linkperf --iperf2 -s -y C -P 2` (JPerf's Num Connections) exits with status 0 after
    exactly 2 tests (one stock iperf2, one stock iperf3; the iperf2 one's CSV row has
    exactly n - 60 bytes); a third client finds no server."""
    i2.require_iperf2()
    exit_after_two(["--iperf2", "-s", "-y", "C", "-P", "2"])


@suite.case
def exit_after_n_tests_iperf3_spelling():
    """`linkperf -s -J --max-connections 2`: the same, with two JSON documents."""
    i2.require_iperf2()
    exit_after_two(["-s", "-J", "--max-connections", "2"])


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""Bad input against a linkperf server. Each misbehaving peer must end only its own
connection/test: the server never crashes, never blocks other clients (stock 3.12 does
block on a silent client), and serves a normal stock iperf3 client afterwards. Also a
raw-protocol check of how a -R test ends (the data connection is closed at TEST_END, as
stock 3.12 servers do and stock 3.12 clients rely on)."""

import os
import random
import socket
import time

from lptest import (LOOP4, Suite, RawClient, TestFailure, check, eq, get, make_cookie, run_client,
                    start_client, start_server, tcp_params, proc_net_sockets,
                    PARAM_EXCHANGE, TEST_START, TEST_RUNNING, TEST_END,
                    EXCHANGE_RESULTS, DISPLAY_RESULTS, IPERF_DONE, SERVER_ERROR,
                    ACCESS_DENIED, STATE_NAMES)

suite = Suite("lpserver_robustness")


def served(srv, args=("-t", "1"), what="stock client afterwards"):
    """The server is alive and a stock client test completes with numbers."""
    check(srv.proc.alive(), "linkperf server is gone (exit %s)" % srv.proc.returncode,
          srv.proc.tail())
    r = run_client("iperf3", LOOP4, srv.port, ["-J"] + list(args))
    check(r.rc == 0, "%s: exit %s" % (what, r.rc), r.describe(), srv.proc.tail())
    doc = r.json()
    check("error" not in doc, "%s: %s" % (what, doc.get("error")), r.describe(),
          srv.proc.tail())
    check(get(doc, "end.sum_received.bytes") > 0, what + ": no bytes received")
    return doc


def established(port):
    """Number of ESTABLISHED TCP sockets with local port `port` (the server's side)."""
    return sum(1 for proto, lport, rport, st in proc_net_sockets().values()
               if proto == "tcp" and lport == port and st == "01")


def expect_rejected(c, what, want_errno=None, timeout=5.0):
    """The server must not go on (no CREATE_STREAMS): it answers SERVER_ERROR (with the
    iperf3 error number when given), ACCESS_DENIED, or just closes, within timeout."""
    got, _ = c.wait_closed(timeout)
    if not got:
        return "closed"
    first = got[0] - 256 if got[0] >= 128 else got[0]
    check(first in (SERVER_ERROR, ACCESS_DENIED), "%s: server answered %s (%r) instead of "
          "rejecting" % (what, STATE_NAMES.get(first, first), got[:16]))
    if first == SERVER_ERROR and want_errno is not None:
        check(len(got) >= 5, "%s: SERVER_ERROR without an error number: %r" % (what, got))
        eq(int.from_bytes(got[1:5], "big"), want_errno, what + ": iperf3 error number")
    return STATE_NAMES[first]


@suite.case
def wrong_data_cookie():
    """A data connection with a wrong cookie does not join the test (stock 3.12 answers
    ACCESS_DENIED; linkperf, which serves many tests, may take it for a new control
    connection and answer PARAM_EXCHANGE); the test then runs normally with the right
    cookie, and a raw forward test's server results count exactly the bytes sent."""
    srv = start_server("linkperf")
    c = RawClient(LOOP4, srv.port)
    bad = None
    try:
        c.setup(tcp_params(time=1))
        bad = socket.create_connection((LOOP4, srv.port), timeout=5)
        bad.sendall(make_cookie())
        bad.settimeout(3)
        try:
            b = bad.recv(1)
        except socket.timeout:
            b = b"<nothing>"
        check(b in (b"\xff", bytes([PARAM_EXCHANGE]), b""), "wrong-cookie connection got %r"
              % b)
        c.sock.settimeout(0.5)
        try:
            early = c.sock.recv(1)
        except socket.timeout:
            early = b""
        eq(early, b"", "control bytes after the wrong-cookie connection (it must not start "
           "the test)")
        d = c.open_tcp_stream()
        c.expect_state(TEST_START)
        c.expect_state(TEST_RUNNING)
        block = os.urandom(65536)
        sent = 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < 0.5:
            d.sendall(block)
            sent += len(block)
        c.send_state(TEST_END)
        c.expect_state(EXCHANGE_RESULTS)
        c.send_json(c.results([{"id": 1, "bytes": sent, "retransmits": 0, "jitter": 0,
                                "errors": 0, "packets": 0, "start_time": 0,
                                "end_time": 0.5}], sender_has_retransmits=1))
        res = c.read_json()
        c.expect_state(DISPLAY_RESULTS)
        c.send_state(IPERF_DONE)
        eq(len(res["streams"]), 1, "streams in the server's results")
        eq(res["streams"][0]["id"], 1, "stream id in the server's results")
        eq(res["streams"][0]["bytes"], sent, "server's received bytes (raw client sent "
           "exactly %d)" % sent)
        eq(res["sender_has_retransmits"], -1, "server (receiver only) sender_has_retransmits")
    finally:
        c.close()
        if bad:
            bad.close()
    served(srv)


@suite.case
def cookie_then_garbage_json():
    """Cookie, then a framed body that is not JSON: the server rejects it at once and
    serves a stock client."""
    srv = start_server("linkperf")
    c = RawClient(LOOP4, srv.port)
    try:
        c.send_cookie()
        c.expect_state(PARAM_EXCHANGE)
        c.send(b"\x00\x00\x00\x0cnot json!!}{")
        expect_rejected(c, "garbage JSON")
    finally:
        c.close()
    served(srv)


def huge_length_case(length, sent, name):
    def case():
        srv = start_server("linkperf")
        c = RawClient(LOOP4, srv.port)
        try:
            c.send_cookie()
            c.expect_state(PARAM_EXCHANGE)
            c.send(length.to_bytes(4, "big") + sent)
            # while this connection is pending, other clients are served
            served(srv, what="stock client during the bad connection")
            expect_rejected(c, name, timeout=15)
        finally:
            c.close()
        served(srv)
    case.__name__ = name
    case.__doc__ = ("A parameter JSON length prefix of %d with only %d bytes sent: a stock "
                    "client is served meanwhile, and the connection is rejected or timed "
                    "out (no allocation of the announced size, no crash)." % (length, len(sent)))
    return case


suite.case(huge_length_case(0xFFFFFFFF, b"{}", "json_length_0xffffffff"))
suite.case(huge_length_case(1 << 20, b"{}", "json_length_1MiB_2_bytes_sent"))


BAD_PARAMS = [
    # (name, override, iperf3 error number if the server names one)
    ("bad_param_parallel_string", {"parallel": "x"}, 6),
    ("bad_param_time_negative", {"time": -5}, 5),
    ("bad_param_len_99999999", {"len": 99999999}, 7),
    ("bad_param_parallel_500", {"parallel": 500}, 6),
    # linkperf's timed echo (--bounceback over iperf3) only for forward TCP, 64-byte messages up
    # (with UDP it is the UDP round trips, core/udp_echo.h: probes of at least 52 bytes)
    ("bad_param_bounceback_udp", {"bounceback": 1, "tcp": False, "udp": True, "len": 51}, None),
    ("bad_param_bounceback_len_10", {"bounceback": 1, "len": 10}, None),
    ("bad_param_bounceback_reverse", {"bounceback": 1, "len": 100, "reverse": True}, None),
    ("bad_param_bounceback_hold_string", {"bounceback": 1, "len": 100, "bounceback_hold_us": "x"}, None),
    ("bad_param_bounceback_hold_11s", {"bounceback": 1, "len": 100, "bounceback_hold_us": 11000000}, None),
]


def bad_param_case(name, override, errno_):
    def case():
        srv = start_server("linkperf")
        c = RawClient(LOOP4, srv.port)
        try:
            c.send_cookie()
            c.expect_state(PARAM_EXCHANGE)
            c.send_json(tcp_params(**override))
            expect_rejected(c, "params %r" % override, errno_)
        finally:
            c.close()
        served(srv)
        eq(srv.stop(), 0, "server exit status on SIGTERM", srv.proc.tail())
    case.__name__ = name
    case.__doc__ = ("Parameters %r: rejected without CREATE_STREAMS (SERVER_ERROR %s if an "
                    "error number is sent, or a close); a stock client is served after."
                    % (override, errno_))
    return case


for _n, _o, _e in BAD_PARAMS:
    suite.case(bad_param_case(_n, _o, _e))


@suite.case
def silent_client_does_not_block():
    """A client that connects and sends nothing: while it stalls, a stock client
    completes (iperf3 3.12 would hang), and the server drops the silent connection
    after a bounded time (linkperf: about 10 s)."""
    srv = start_server("linkperf")
    silent = socket.create_connection((LOOP4, srv.port), timeout=5)
    try:
        served(srv, what="stock client while another connection is silent")
        # the event is the drop itself (EOF, or the 'busy' byte and EOF); 60 s only guards
        # against a server that never drops it
        silent.settimeout(60)
        try:
            data = silent.recv(16)
        except ConnectionResetError:
            data = b""
        except socket.timeout:
            raise TestFailure("silent connection not dropped within 60 s")
        check(data in (b"", b"\xff"), "silent connection got %r" % data)
    finally:
        silent.close()
    served(srv)


def kill_mid_test(args):
    srv = start_server("linkperf")
    p = start_client("iperf3", LOOP4, srv.port, args, timeout=30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and established(srv.port) < 2:
        time.sleep(0.05)
    check(established(srv.port) >= 2, "test did not start (no control + data connection)")
    time.sleep(0.7)
    p.popen.kill()
    p.wait(10)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and established(srv.port) > 0:
        time.sleep(0.1)
    eq(established(srv.port), 0, "server connections still open 15 s after the client "
       "was killed", srv.proc.tail())
    served(srv)


@suite.case
def client_killed_mid_test():
    """kill -9 of a stock client during a forward -t 5 test: the server closes that
    test's connections and serves the next client."""
    kill_mid_test(["-t", "5"])


@suite.case
def client_killed_mid_reverse_test():
    """kill -9 of a stock client during a -R -P 2 test (the server is writing into dead
    sockets: EPIPE/RST, no SIGPIPE death): the test is ended and the next client
    served."""
    kill_mid_test(["-t", "5", "-R", "-P", "2"])


@suite.case
def flood_300_idle_connections():
    """300 TCP connections that never send: the server survives, and once they are gone
    a stock client is served."""
    srv = start_server("linkperf")
    flood = []
    try:
        for _ in range(300):
            flood.append(socket.create_connection((LOOP4, srv.port), timeout=5))
        time.sleep(0.3)
        check(srv.proc.alive(), "server died under the flood", srv.proc.tail())
    finally:
        for s in flood:
            s.close()
    time.sleep(0.3)
    served(srv)


@suite.case
def flood_client_is_served_or_told_busy():
    """While 300 idle connections are open, a stock client must either be served or get
    the iperf3 'busy' answer (ACCESS_DENIED, byte 0xFF) — not a connection closed without
    a word ('control socket has closed unexpectedly')."""
    srv = start_server("linkperf")
    flood = []
    try:
        for _ in range(300):
            flood.append(socket.create_connection((LOOP4, srv.port), timeout=5))
        time.sleep(0.3)
        r = run_client("iperf3", LOOP4, srv.port, ["-J", "-t", "1"])
        doc = r.json()
        err = doc.get("error")
        check(err is None or "busy" in err, "stock client during the flood: %r" % err,
              r.describe())
    finally:
        for s in flood:
            s.close()


@suite.case
def random_udp_datagrams():
    """600 random datagrams (0..1400 bytes, some of them "9876" hellos with no test
    waiting) at the server's UDP port: ignored; a stock UDP test afterwards is
    lossless."""
    srv = start_server("linkperf")
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rnd = random.Random(7)
    try:
        for i in range(600):
            if i % 10 == 0:
                payload = b"9876"
            else:
                payload = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(0, 1400)))
            u.sendto(payload, (LOOP4, srv.port))
    finally:
        u.close()
    time.sleep(0.3)
    doc = served(srv, ["-u", "-b", "10M", "-t", "1"], "stock UDP client after the noise")
    eq(get(doc, "end.sum_received.lost_packets"), 0, "UDP loss after the noise")
    eq(get(doc, "end.sum_received.packets"), get(doc, "end.sum_sent.packets"),
       "UDP packets received vs sent after the noise")
    served(srv)


def reverse_end(kind):
    """Raw -R client: read 1 s, send TEST_END, expect EXCHANGE_RESULTS, then read the data
    connection without sending the results. Returns None if it reached EOF while the server
    still waited for them (the results exchange then completes), else what happened: the
    connection stayed open (a hang guard of 30 s, not a bound: a server that keeps it open
    keeps it open), or the server closed it only on giving up on the client."""
    srv = start_server(kind, ["-1"])
    c = RawClient(LOOP4, srv.port)
    try:
        c.setup(tcp_params(time=1, reverse=True))
        d = c.open_tcp_stream()
        c.expect_state(TEST_START)
        c.expect_state(TEST_RUNNING)
        d.settimeout(2)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 1.0:
            check(d.recv(1 << 20), "data connection closed during the test")
        c.send_state(TEST_END)
        c.expect_state(EXCHANGE_RESULTS)
        d.settimeout(30)
        try:
            while d.recv(1 << 20):
                pass
        except socket.timeout:
            return "the data connection was still open 30 s after TEST_END"
        except ConnectionResetError:
            pass
        try:
            c.send_json(c.results([], sender_has_retransmits=0))
            res = c.read_json()
        except (OSError, TestFailure) as e:
            return "the server closed the data connection but no longer took the results " \
                "(it had given up on the client): %s" % e
        check(isinstance(res, dict) and "streams" in res, "%s server's results: %r" % (kind, res))
        return None
    finally:
        c.close()
        srv.stop()


@suite.case
def reverse_data_closed_at_test_end():
    """-R: after the client's TEST_END the server stops sending and closes the data
    connection while it waits for the client's results, as stock 3.12 does (checked here
    too). A stock 3.12 client reads whole blocks with a blocking read while it waits for
    the results; if the server stops mid-block and keeps the socket open, that client hangs
    until the server gives up (seen as 'unable to send control message: Broken pipe'
    after ~10 s in about 1 of 5 `iperf3 -c -R -t 1` runs against linkperf)."""
    ref = reverse_end("iperf3")
    check(ref is None, "reference: stock iperf3 server: %s" % ref)
    got = reverse_end("linkperf")
    check(got is None, "linkperf server after -R TEST_END: %s" % got)


@suite.case
def skip_rx_copy_client():
    """A client asking for skip_rx_copy (linkperf --skip-rx-copy, -P 2 -n 200M): the server
    discards with MSG_TRUNC reads, counts every byte and keeps serving. Under ASan it once
    read 4 MiB "into" its 2 MiB buffer (a heap-buffer-overflow report that killed the server)."""
    from iperf2raw import check_no_sanitizer_report
    srv = start_server("linkperf", ["-J"])
    try:
        r = run_client("linkperf", LOOP4, srv.port, ["-J", "--skip-rx-copy", "-P", "2",
                                                     "-n", "200M"])
        check(r.rc == 0, "linkperf --skip-rx-copy: exit %s" % r.rc, r.describe(),
              srv.proc.tail())
        doc = r.json()
        eq(get(doc, "end.sum_sent.bytes"), 200 * 1024 * 1024, "bytes sent")
        eq(get(doc, "end.sum_received.bytes"), 200 * 1024 * 1024, "bytes the server counted")
        served(srv)
    finally:
        srv.stop()
    check_no_sanitizer_report(srv.proc)


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""A linkperf client facing a closed port or a misbehaving server (a scripted fake
iperf3 server in Python): it must exit with status 1 and a clear one-line error within a
few seconds — no hang, no crash. Each fake scenario is also played to stock iperf3 3.12
as a reference for what a client should do. And a client interrupted by the user (SIGINT,
SIGTERM, SIGHUP) in either dialect prints the partial results and exits 0, the one exit
status linkperf(1) documents for it."""

import json
import re
import signal
import socket
import time

import lptest
from lptest import (LOOP4, FakeServer, Suite, check, eq, free_port, run_client,
                    EXCHANGE_RESULTS)

suite = Suite("lpclient_robustness")


# How long a fake server holds a connection for the client to hang up: far longer than any
# client reaction, so a client that only gives up when the fake does is caught, and shorter
# than the harness's deadline for the client (run_against's timeout).
HOLD_S = 15


def run_against(script, kind="linkperf", args=("-t", "1"), timeout=20):
    fake = FakeServer(script)
    try:
        r = run_client(kind, LOOP4, fake.port, list(args), timeout=timeout)
        # the script ends by itself: at once when the client hung up, at the latest when
        # its hold runs out (closing it now could hide which came first)
        fake.join(HOLD_S + 5)
    finally:
        fake.close()
        fake.join(5)
    return r, fake


def check_failed(r, what, words, fake=None):
    """Exit 1 with one error line on stderr naming the problem; with a fake server that holds
    its connection, the client hung up first: it ended on the event, not when the server
    went away. (No wall-clock bound: a loaded machine stretches any; the order of events
    holds, and the harness's deadline catches a hang.)"""
    eq(r.rc, 1, what + ": exit status", r.describe())
    if fake is not None:
        check(("peer closed", None) in fake.log, "%s: the client did not hang up while the "
              "server held the connection (fake log: %r)" % (what, fake.log), r.describe())
    errs = [ln for ln in r.err.splitlines() if ln.strip()]
    check(errs, what + ": nothing on stderr", r.describe())
    check(any(all(w.lower() in ln.lower() for w in words) for ln in errs),
          "%s: no error line mentioning %r: %r" % (what, words, errs))


# ---- fake server scripts -------------------------------------------------------------

def unknown_state(fake, ctrl):
    """After the cookie, an undefined state byte (0x63)."""
    fake.recv_exact(ctrl, 37)
    ctrl.sendall(b"\x63")
    fake.hold(ctrl, HOLD_S)


def unknown_state_mid_test(fake, ctrl):
    """A valid setup, then an undefined state byte (0x63) while the test runs."""
    _, data = fake.setup_tcp(ctrl)
    time.sleep(0.3)
    ctrl.sendall(b"\x63")
    end = time.monotonic() + HOLD_S
    while time.monotonic() < end:
        for d in data:
            d.settimeout(0.1)
            try:
                if not d.recv(1 << 20):
                    fake.log.append(("peer closed", None))
                    return
            except socket.timeout:
                pass
            except OSError:
                fake.log.append(("peer closed", None))
                return


def close_during_test(fake, ctrl):
    """A valid setup; reads data for 0.5 s, then closes every connection."""
    _, data = fake.setup_tcp(ctrl)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 0.5:
        data[0].recv(1 << 20)


def oversized_results(fake, ctrl):
    """A complete test up to the results exchange, then a results length of 0xFFFFFFFF
    followed by two bytes, and silence."""
    params, data = fake.setup_tcp(ctrl)
    for d in data:
        d.setblocking(False)
    ctrl.setblocking(False)
    end = time.monotonic() + 10
    state = b""
    while time.monotonic() < end and not state:
        for d in data:
            try:
                d.recv(1 << 20)
            except BlockingIOError:
                pass
        try:
            state = ctrl.recv(1)
        except BlockingIOError:
            pass
    ctrl.setblocking(True)
    fake.log.append(("client state", state))
    ctrl.sendall(bytes([EXCHANGE_RESULTS]))
    fake.log.append(("client results", fake.read_json(ctrl)))
    ctrl.sendall(b"\xff\xff\xff\xff{}")
    fake.hold(ctrl, HOLD_S)


def busy(fake, ctrl):
    """The stock 'busy' answer: ACCESS_DENIED (0xFF) and close."""
    ctrl.sendall(b"\xff")


def server_error(fake, ctrl):
    """SERVER_ERROR with iperf3 error 37 (test too long) and errno 0."""
    fake.recv_exact(ctrl, 37)
    ctrl.sendall(b"\xfe" + (37).to_bytes(4, "big") + (0).to_bytes(4, "big"))
    fake.hold(ctrl, HOLD_S)


# ---- cases ---------------------------------------------------------------------------

@suite.case
def connection_refused():
    """linkperf -c to a closed port: exit 1 at once with 'unable to connect ... refused';
    with -J, one JSON document with an "error" key and exit 1."""
    port = free_port()
    r = run_client("linkperf", LOOP4, port, ["-t", "1"])
    check_failed(r, "refused", ["connect", "refused"])
    r = run_client("linkperf", LOOP4, port, ["-t", "1", "-J"])
    eq(r.rc, 1, "refused -J: exit status", r.describe())
    doc = r.json()
    check("refused" in doc.get("error", "").lower(), "refused -J: error key %r"
          % doc.get("error"))


@suite.case
def failed_client_does_not_print_done():
    """After a failed test a stock 3.12 client prints no 'iperf Done.' (the line scripts
    use to recognise a completed test); neither may linkperf (refused connection and an
    unknown state byte)."""
    port = free_port()
    ref = run_client("iperf3", LOOP4, port, ["-t", "1"])
    check("iperf Done." not in ref.out, "reference: stock client printed iperf Done.")
    r = run_client("linkperf", LOOP4, port, ["-t", "1"])
    check("iperf Done." not in r.out, "linkperf printed 'iperf Done.' after a refused "
          "connection (exit %s)" % r.rc, r.describe())
    r, _ = run_against(unknown_state)
    check("iperf Done." not in r.out, "linkperf printed 'iperf Done.' after an unknown "
          "state byte (exit %s)" % r.rc, r.describe())


@suite.case
def fake_unknown_state_byte():
    """Server sends an undefined state byte (0x63) right after the cookie: exit 1 with
    'unknown control message' (stock 3.12 does the same), hanging up while the server
    still holds the connection."""
    ref, _ = run_against(unknown_state, "iperf3")
    eq(ref.rc, 1, "reference stock client exit status", ref.describe())
    r, fake = run_against(unknown_state)
    check_failed(r, "unknown state byte", ["unknown"], fake)


@suite.case
def fake_unknown_state_byte_mid_test():
    """Server sends an undefined state byte while a -t 30 test runs: exit 1 with 'unknown',
    closing the data connection while the server still reads it (long before the test
    could end by itself)."""
    r, fake = run_against(unknown_state_mid_test, args=("-t", "30"))
    check_failed(r, "unknown state mid-test", ["unknown"], fake)


@suite.case
def fake_closes_during_test():
    """Server closes everything 0.5 s into a test: exit 1 with a message that the server
    closed the connection. The test asks for 30 s and the harness kills the client after
    20, so exiting so, on its own, is exiting on the close."""
    ref, _ = run_against(close_during_test, "iperf3", ("-t", "3"))
    eq(ref.rc, 1, "reference stock client exit status", ref.describe())
    r, fake = run_against(close_during_test, args=("-t", "30"))
    check(not r.proc.timed_out, "server closed mid-test: the client ran until the harness "
          "killed it", r.describe())
    check_failed(r, "server closed mid-test", ["closed"])


@suite.case
def fake_oversized_results_length():
    """Server announces a 4 GiB results JSON and sends 2 bytes: exit 1 with a message about
    the results (no allocation), hanging up while the server holds the connection (no
    waiting for the bytes)."""
    ref, _ = run_against(oversized_results, "iperf3")
    eq(ref.rc, 1, "reference stock client exit status", ref.describe())
    r, fake = run_against(oversized_results)
    check_failed(r, "oversized results", ["result"], fake)
    check(any(k == "client results" for k, _ in fake.log), "the client never sent its "
          "results (fake log: %r)" % fake.log)


@suite.case
def fake_busy():
    """ACCESS_DENIED (0xFF) instead of PARAM_EXCHANGE: exit 1 with the iperf3 'busy'
    message."""
    r, _ = run_against(busy)
    check_failed(r, "busy", ["busy"])


@suite.case
def fake_server_error():
    """SERVER_ERROR 37: exit 1 with an error line (the server's error), hanging up while the
    server holds the connection."""
    r, fake = run_against(server_error)
    check_failed(r, "server error", ["error"], fake)


def signal_blocked(pid, sig):
    """Whether the process's main thread blocks sig (/proc/PID/status SigBlk, a hex mask)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigBlk:"):
                    return bool(int(line.split()[1], 16) >> (int(sig) - 1) & 1)
    except OSError:
        pass
    return False


def interrupted(dialect, sig):
    """A 60 s TCP test interrupted once its first interval row is out: exit status 0, and a
    summary covering what was sent (far short of 60 s), printed before exit."""
    srv_args = (["--iperf2"] if dialect == "iperf2" else []) + ["-1"]
    srv = lptest.start_server("linkperf", srv_args)
    cli_args = (["--iperf2"] if dialect == "iperf2" else []) + ["-t", "60", "-i", "0.5"]
    if dialect == "iperf3":
        cli_args.append("-J")
    cli = lptest.start_client("linkperf", LOOP4, srv.port, cli_args, timeout=90)
    deadline = time.monotonic() + 20
    while dialect == "iperf2" and not re.search(r"\] +0\.0+-\s*\d+\.\d+ sec", cli.stdout):
        check(time.monotonic() < deadline and cli.alive(), "no interval row", cli.tail())
        time.sleep(0.05)
    if dialect == "iperf3":
        time.sleep(1.0)  # -J prints nothing until the end: give it a second of data
    # A client that has not yet blocked the signal for its signal thread dies of it: CI's
    # loaded run sent SIGHUP before that (rc -1). The test is about what happens after.
    while not signal_blocked(cli.popen.pid, sig):
        check(time.monotonic() < deadline and cli.alive(), "the client never blocked %s" % sig.name,
              cli.tail())
        time.sleep(0.05)
    cli.signal(sig)
    cli.wait(30)
    r = lptest.Result(cli)
    eq(r.rc, 0, "%s client interrupted by %s: exit status" % (dialect, sig.name), r.describe())
    if dialect == "iperf3":
        doc = json.loads(r.out)
        sent = doc["end"]["sum_sent"]
        check(sent["bytes"] > 0 and sent["seconds"] < 30,
              "the interrupted test's summary: %s" % sent, r.describe())
        print("        iperf3 %s: exit 0, sum_sent %d bytes over %.2f s" % (
            sig.name, sent["bytes"], sent["seconds"]))
    else:
        rows = [ln for ln in r.out.splitlines() if re.search(r"\] +0\.0+-\s*\d+\.\d+ sec", ln)]
        check(len(rows) >= 2, "no summary row after the interrupt", r.describe())
        print("        iperf2 %s: exit 0, %s" % (sig.name, rows[-1].strip()))


@suite.case
def interrupted_client_exits_0():
    """SIGINT/SIGTERM/SIGHUP to a linkperf client (iperf3 -J and iperf2 text) mid-test: partial results, exit 0"""
    for dialect in ("iperf3", "iperf2"):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            interrupted(dialect, sig)


if __name__ == "__main__":
    suite.main()

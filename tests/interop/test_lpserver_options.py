#!/usr/bin/env python3
"""linkperf server options, driven by stock iperf3 3.12 clients (and a raw protocol client
where a stock client cannot misbehave on purpose): -1, -D with -I, --idle-timeout,
--server-max-duration, --rcv-timeout, --logfile, -J (one document per test)."""

import os
import signal
import time

import lptest

from lptest import (LOOP4, Suite, RawClient, check, eq, get, run_client, start_server,
                    summary_rows, tcp_params, tmp_path, tcp_listening, free_port, LINKPERF,
                    run, SERVER_ERROR, TEST_START, TEST_RUNNING)

suite = Suite("lpserver_options")


def pid_alive(pid):
    """Running (not a zombie waiting for its parent to reap it)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stock_test_ok(port, args=("-t", "1"), what="stock client"):
    """A stock client test against `port` completes with exit 0 and numbers."""
    r = run_client("iperf3", LOOP4, port, ["-J"] + list(args))
    check(r.rc == 0, "%s: exit %s" % (what, r.rc), r.describe())
    doc = r.json()
    check("error" not in doc, "%s: error %r" % (what, doc.get("error")), r.describe())
    check(get(doc, "end.sum_received.bytes") > 0, "%s: nothing received" % what)
    return doc


@suite.case
def one_off():
    """-1: the server serves exactly one test and exits 0 afterwards, with that test's
    numbers in its JSON."""
    srv = start_server("linkperf", ["-1", "-J"])
    doc = stock_test_ok(srv.port)
    rc = srv.finish(15)
    eq(rc, 0, "exit status of linkperf -s -1", srv.proc.tail())
    sj = srv.json()
    eq(get(sj, "end.sum_received.bytes"), get(doc, "end.sum_received.bytes"),
       "server's received bytes vs the client's receiver row")
    check(not tcp_listening(srv.port), "port still listening after -1 server exited")


@suite.case
def daemon_pidfile():
    """-D -I pidfile --logfile: the launcher returns 0 at once, the pid file names a live
    detached linkperf (not the launcher), it serves a stock client (output in the log
    file), and SIGTERM ends it and removes the pid file."""
    pidfile = tmp_path("lp-daemon.pid")
    logfile = tmp_path("lp-daemon.log")
    port = free_port()
    r = run([LINKPERF, "-s", "-p", port, "-D", "-I", pidfile, "--logfile", logfile],
            timeout=15)
    daemon_pid = None
    try:
        eq(r.rc, 0, "launcher exit status", r.describe())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (os.path.exists(pidfile) and
                                                   open(pidfile).read().strip()):
            time.sleep(0.05)
        check(os.path.exists(pidfile), "no pid file %s" % pidfile)
        text = open(pidfile).read().strip()
        check(text.isdigit(), "pid file content %r is not a pid" % text)
        daemon_pid = int(text)
        check(daemon_pid != r.proc.pid, "pid file holds the launcher's pid, not the daemon's")
        check(pid_alive(daemon_pid), "daemon pid %d is not running" % daemon_pid)
        exe = os.path.realpath("/proc/%d/exe" % daemon_pid)
        eq(exe, os.path.realpath(LINKPERF), "daemon executable")
        stat = open("/proc/%d/stat" % daemon_pid).read().rsplit(")", 1)[1].split()
        eq(int(stat[3]), daemon_pid, "daemon's session id (setsid makes it the leader)")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not tcp_listening(port):
            time.sleep(0.05)
        check(tcp_listening(port), "daemon is not listening on %d" % port)
        doc = stock_test_ok(port, what="client of the daemon")
        log = open(logfile).read()
        rows = summary_rows(log, "receiver")
        check(rows, "no receiver row in the daemon's log file: %r" % log[-500:])
        os.kill(daemon_pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and pid_alive(daemon_pid):
            time.sleep(0.05)
        check(not pid_alive(daemon_pid), "daemon still running 10 s after SIGTERM")
        check(not os.path.exists(pidfile), "pid file %s not removed at exit" % pidfile)
        daemon_pid = None
    finally:
        if daemon_pid and pid_alive(daemon_pid):
            try:
                os.kill(daemon_pid, signal.SIGKILL)
            except OSError:
                pass


@suite.case
def idle_timeout_one_off():
    """--idle-timeout 1 with -1 and no client: the server exits by itself with status 0
    soon after the second (not at once, not never)."""
    srv = start_server("linkperf", ["-1", "--idle-timeout", "1"])
    time.sleep(0.3)
    check(srv.proc.alive(), "server exited before its idle timeout", srv.proc.tail())
    rc = srv.finish(10)
    eq(rc, 0, "exit status after the idle timeout", srv.proc.tail())


@suite.case
def idle_timeout_restarts():
    """--idle-timeout 1 without -1: after an idle second the server is still there and
    serves a stock client."""
    srv = start_server("linkperf", ["--idle-timeout", "1"])
    time.sleep(1.6)
    check(srv.proc.alive(), "server exited on idle timeout without -1", srv.proc.tail())
    stock_test_ok(srv.port)
    check(srv.proc.alive(), "server died", srv.proc.tail())


@suite.case
def server_max_duration():
    """--server-max-duration 2: a stock -t 5 client and an untimed -n client get an error
    (exit 1, at once, not after 5 s); a -t 1 client is served; the server keeps
    running."""
    srv = start_server("linkperf", ["--server-max-duration", "2"])
    for args in (["-t", "5"], ["-n", "10M"]):
        r = run_client("iperf3", LOOP4, srv.port, args, timeout=30)
        eq(r.rc, 1, "stock client %s exit status" % " ".join(args), r.describe())
        check("error" in r.err, "stock client %s: no error message" % " ".join(args),
              r.describe())
        check(r.elapsed < 4.5, "rejection of %s took %.1fs (the test ran?)" % (
            " ".join(args), r.elapsed), r.describe())
        check(summary_rows(r.out, "receiver") == [], "rejected test printed a summary",
              r.describe())
    check(srv.proc.alive(), "server died", srv.proc.tail())
    stock_test_ok(srv.port)
    srv.stop()
    check("server-max-duration" in srv.stderr + srv.stdout,
          "server did not say why it refused", srv.proc.tail())


@suite.case
def server_max_duration_iperf2():
    """--server-max-duration 2 ends a stock iperf 2.1.8 test that asked for 30 s (forward and
    -R) instead of letting it run: its client ends long before 30 s, and the server says why"""
    from iperf2lib import IPERF2, require_iperf2
    require_iperf2()
    srv = start_server("linkperf", ["--server-max-duration", "2"])
    for extra in ([], ["-R"]):
        r = run([IPERF2, "-c", LOOP4, "-p", str(srv.port), "-t", "30", "-i", "1"] + extra,
                timeout=60, name="iperf")
        what = "iperf -c -t 30 %s" % " ".join(extra)
        print("        %s: the client ended after %.1f s" % (what, r.elapsed))
        check(r.elapsed < 20, "%s ran %.1f s under --server-max-duration 2" % (what, r.elapsed),
              r.describe(), srv.proc.tail())
        check(srv.proc.alive(), "server died", srv.proc.tail())
    stock_test_ok(srv.port)
    srv.stop()
    check((srv.stderr + srv.stdout).count("ended after 2 s: --server-max-duration") == 2,
          "the server did not say twice why it ended the iperf2 tests", srv.proc.tail())


@suite.case
def default_max_duration():
    """without --server-max-duration every test still ends (the default maximum, set to 2 s
    here through LINKPERF_DEFAULT_MAX_DURATION): stock iperf3 -t 0 is ended with iperf3's
    "the server has terminated", a timed test longer than the maximum is refused with a
    message, stock iperf -t 30 ends after 2 s, and a short test runs"""
    from iperf2lib import IPERF2, require_iperf2
    require_iperf2()
    srv = start_server("linkperf", [], env={"LINKPERF_DEFAULT_MAX_DURATION": "2"})
    r = run_client("iperf3", LOOP4, srv.port, ["-J", "-t", "0"], timeout=60)
    doc = r.json()
    # "the server has terminated" when the client reads that state first; a sending client
    # may instead hit the closed data connection first ("Broken pipe"): ended either way.
    check(doc.get("error"), "iperf3 -t 0 was not ended by the server", r.describe(),
          srv.proc.tail())
    check(get(doc, "end.sum_received.bytes", 0) > 0 or doc.get("intervals"),
          "iperf3 -t 0: no data before the end", r.describe())
    r = run_client("iperf3", LOOP4, srv.port, ["-J", "-t", "5"], timeout=60)
    # 3.20 and later print their words for error 37; 3.12 only "int_errno=37".
    doc = r.json()
    check("37" in doc.get("error", "") or "maximum" in doc.get("error", ""),
          "iperf3 -t 5 was not refused: %r" % doc.get("error"), r.describe(), srv.proc.tail())
    check(not doc.get("intervals"), "iperf3 -t 5 was refused only after it ran", r.describe())
    r = run([IPERF2, "-c", LOOP4, "-p", str(srv.port), "-t", "30"], timeout=60, name="iperf")
    check(r.elapsed < 20, "iperf -t 30 ran %.1f s under a 2 s default maximum" % r.elapsed,
          r.describe(), srv.proc.tail())
    stock_test_ok(srv.port)
    text = srv.stdout + srv.stderr
    check("default maximum duration" in text and "default maximum of 2 s" in text,
          "the server did not say why", srv.proc.tail())


@suite.case
def rcv_timeout():
    """--rcv-timeout 1000: a raw client that completes setup (cookie, params, data
    connection, TEST_START/TEST_RUNNING) but sends no data is ended by the server after
    about a second (SERVER_ERROR 144 or close) — long before its 5 s duration — and a
    stock client is served afterwards."""
    srv = start_server("linkperf", ["--rcv-timeout", "1000"])
    c = RawClient(LOOP4, srv.port)
    try:
        c.setup(tcp_params(time=5))
        c.open_tcp_stream()
        c.expect_state(TEST_START)
        c.expect_state(TEST_RUNNING)
        got, waited = c.wait_closed(4.5)
        if got:
            eq(got[0] - 256, SERVER_ERROR, "first byte after the timeout", repr(got))
            eq(int.from_bytes(got[1:5], "big"), 144, "i_errno (IENOMSG)", repr(got))
    finally:
        c.close()
    check(srv.proc.alive(), "server died", srv.proc.tail())
    stock_test_ok(srv.port)


@suite.case
def stopped_reverse_client_frees_slot():
    """a stock `iperf3 -c -t 0 -R` stopped with SIGSTOP: the server's sender is blocked on a
    full window; after --rcv-timeout with nothing read it ends the test and says why, and
    under --max-tests 1 the next client is served (before: the slot was held for ever)"""
    srv = start_server("linkperf", ["--rcv-timeout", "2000", "--max-tests", "1"])
    c = lptest.start_client("iperf3", LOOP4, srv.port, ["-t", "0", "-R", "-i", "1"])
    try:
        deadline = time.monotonic() + 15
        while " sec " not in srv.stdout:  # the server's first interval row
            check(time.monotonic() < deadline and c.alive(), "the -R client did not start",
                  c.tail(), srv.proc.tail())
            time.sleep(0.05)
        c.signal(signal.SIGSTOP)
        deadline = time.monotonic() + 30
        while "the client read nothing" not in srv.stdout + srv.stderr:
            check(time.monotonic() < deadline, "the server kept the stopped client's test",
                  srv.proc.tail())
            time.sleep(0.1)
        doc = stock_test_ok(srv.port, ("-n", "1M"), "a client after the stopped one")
        eq(get(doc, "end.sum_received.bytes"), 1024 * 1024, "bytes of the next client's test")
    finally:
        c.signal(signal.SIGKILL)
        c.wait(10)
    check(srv.proc.alive(), "server died", srv.proc.tail())


@suite.case
def logfile():
    """--logfile: the server's output (banner, accepted line, summary rows) goes to the
    file, not to stdout."""
    path = tmp_path("lp-server.log")
    srv = start_server("linkperf", ["-1", "--logfile", path])
    doc = stock_test_ok(srv.port)
    eq(srv.finish(15), 0, "exit status")
    log = open(path).read()
    check("Server listening on %d" % srv.port in log, "no banner in the log file: %r"
          % log[:300])
    check("Accepted connection from 127.0.0.1" in log, "no 'Accepted connection' in log")
    rows = summary_rows(log, "receiver")
    check(rows, "no receiver summary in the log file")
    eq(summary_rows(srv.stdout, "receiver"), [], "summary rows on stdout despite --logfile")
    check(abs(rows[-1]["bytes"] - get(doc, "end.sum_received.bytes")) <=
          0.01 * rows[-1]["bytes"], "log file bytes %r vs client %r" % (
              rows[-1]["bytes"], get(doc, "end.sum_received.bytes")))


@suite.case
def json_document_per_test():
    """-J server without -1: three stock tests (TCP, TCP -R, UDP) produce three separate
    JSON documents, each matching its client by cookie and by numbers."""
    srv = start_server("linkperf", ["-J"])
    clients = []
    for args in (["-t", "1"], ["-t", "1", "-R"], ["-u", "-b", "5M", "-t", "1"]):
        clients.append(stock_test_ok(srv.port, args, "stock client " + " ".join(args)))
    srv.stop()
    docs = srv.json_docs()
    eq(len(docs), 3, "JSON documents on the server's stdout", srv.proc.tail())
    by_cookie = {get(d, "start.cookie"): d for d in docs}
    for c in clients:
        d = by_cookie.get(get(c, "start.cookie"))
        check(d is not None, "no server document for cookie %s" % get(c, "start.cookie"))
        for k in ("sum_sent", "sum_received"):
            eq(get(d, "end.%s.bytes" % k), get(c, "end.%s.bytes" % k),
               "server doc vs client %s.bytes (%s)" % (k, get(c, "start.test_start.protocol")))


if __name__ == "__main__":
    suite.main()

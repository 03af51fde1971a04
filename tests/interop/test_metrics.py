#!/usr/bin/env python3
"""`linkperf -s --metrics HOST:PORT`: scraped during and after real tests, parsed with the
OpenMetrics parser of Debian's python3-prometheus-client (strict: a malformed exposition
fails the parse), and compared with the server's own -J results:

- counts_agree_with_results: an iperf3 TCP test, a -R test, a UDP test and a stock iperf 2
  client's test, one after another: after each, bytes received/sent, UDP datagrams and
  losses and the served counters grew by exactly what that test's own server document says.
- running_test_gauges: scrapes during a 4 s test: one test running, its byte gauge growing,
  every counter never smaller than at the scrape before; after it, zero running.
- refusals_counted: a server with --allow 10.99.0.1 refuses 127.0.0.1: refused_total with
  reason not_allowed equals the refusal lines it printed.
- http_edges: another path is 404, POST is 405, a bad --metrics address fails the start.
"""
import json
import re
import sys
import time
import urllib.error
import urllib.request

import iperf2raw as i2
import lptest
from lptest import LINKPERF, LOOP4, check, eq, ge

try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
except ImportError:  # a Python of its own (pyenv): Debian's package is in its dist-packages
    sys.path.append("/usr/lib/python3/dist-packages")
    from prometheus_client.openmetrics.parser import text_string_to_metric_families

suite = lptest.Suite("metrics", needs_iperf3=False)


def start(args=()):
    srv = lptest.start_server("linkperf", ["--no-history", "--metrics", "127.0.0.1:0"] + list(args))
    deadline = time.monotonic() + 10
    while not re.search(r"metrics at (http://\S+)", srv.stderr):
        check(time.monotonic() < deadline, "no metrics URL", srv.proc.tail())
        time.sleep(0.05)
    return srv, re.search(r"metrics at (http://\S+)", srv.stderr).group(1)


def scrape(url):
    """{(name, frozenset(labels)): value} of every sample, through the strict parser."""
    with urllib.request.urlopen(url, timeout=10) as r:
        eq(r.status, 200, "scrape status")
        check(r.headers["Content-Type"].startswith("application/openmetrics-text"), "content type",
              r.headers["Content-Type"])
        text = r.read().decode()
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def val(m, name, **labels):
    return m.get((name, frozenset(labels.items())), 0)


def counters(m):
    return {k: v for k, v in m.items() if k[0].endswith("_total")}


def docs_of(srv, n):
    deadline = time.monotonic() + 20
    while len(srv.json_docs()) < n:
        check(time.monotonic() < deadline, "the server printed %d documents, not %d" % (len(srv.json_docs()), n),
              srv.proc.tail())
        time.sleep(0.05)
    return srv.json_docs()


@suite.case
def counts_agree_with_results():
    """Each test moves the counters by exactly its server document's numbers"""
    srv, url = start(["-J"])
    before = scrape(url)
    eq(val(before, "linkperf_build_info", version="0.1.0", iperf3="3.12", iperf2="2.1.8"), 1,
       "build info", before)
    steps = [("iperf3", "tcp", ["-n", "20M"]), ("iperf3", "tcp", ["-n", "8M", "-R"]),
             ("iperf3", "udp", ["-u", "-b", "20M", "-t", "1"]), ("iperf2", "tcp", None)]
    prev = before
    for n, (dialect, proto, args) in enumerate(steps, 1):
        if args is None:
            p = i2.start_iperf2(LOOP4, srv.port, ["-n", "6M"])
            p.wait(60)
            eq(p.returncode, 0, "stock iperf -c", p.tail())
        else:
            r = lptest.run([LINKPERF, "-c", LOOP4, "-p", str(srv.port), "--no-history", "-J"] + args, timeout=60)
            eq(r.rc, 0, "client %s" % args, r.describe())
        doc = docs_of(srv, n)[-1]
        now = scrape(url)
        rx = lambda m: val(m, "linkperf_bytes_total", dialect=dialect, proto=proto, direction="received")
        tx = lambda m: val(m, "linkperf_bytes_total", dialect=dialect, proto=proto, direction="sent")
        reverse = args is not None and "-R" in args
        end = doc["end"]
        if proto == "udp":
            own = end["sum"]
            eq(rx(now) - rx(prev), own["bytes"], "UDP bytes received vs the server's own")
            eq(val(now, "linkperf_udp_datagrams_total") - val(prev, "linkperf_udp_datagrams_total"),
               own["packets"], "UDP datagrams vs the server's")
            eq(val(now, "linkperf_udp_lost_datagrams_total") - val(prev, "linkperf_udp_lost_datagrams_total"),
               own["lost_packets"], "UDP losses vs the server's")
        elif reverse:
            eq(tx(now) - tx(prev), end["sum_sent"]["bytes"], "-R: bytes sent vs the server's own")
            eq(rx(now), rx(prev), "-R: nothing received")
        else:
            eq(rx(now) - rx(prev), end["sum_received"]["bytes"], "%s: bytes received vs the server's own" % dialect)
        eq(val(now, "linkperf_tests_served_total", dialect=dialect, proto=proto) -
           val(prev, "linkperf_tests_served_total", dialect=dialect, proto=proto), 1, "served +1 (%s)" % args)
        eq(sum(v for k, v in now.items() if k[0] == "linkperf_tests_running"), 0, "running after the test")
        for k, v in counters(prev).items():
            check(now.get(k, 0) >= v, "counter %s went back: %r -> %r" % (k, v, now.get(k)))
        prev = now
    eq(val(prev, "linkperf_client_tests_total", client="127.0.0.1"), len(steps), "tests of client 127.0.0.1")


@suite.case
def running_test_gauges():
    """During a test: one running, its gauge growing, counters monotonic"""
    srv, url = start()
    p = lptest.start_client("linkperf", LOOP4, srv.port, ["-t", "4", "-b", "200M", "--no-history", "-J"],
                            timeout=60)
    seen, last = [], None
    deadline = time.monotonic() + 30
    while p.alive() and time.monotonic() < deadline:
        m = scrape(url)
        if last:
            for k, v in counters(last).items():
                check(m.get(k, 0) >= v, "counter %s went back during the test: %r -> %r" % (k, v, m.get(k)))
        g = [v for k, v in m.items() if k[0] == "linkperf_test_received_bytes"]
        if g:
            seen.append((sum(v for k, v in m.items() if k[0] == "linkperf_tests_running"), g[0],
                         val(m, "linkperf_bytes_total", dialect="iperf3", proto="tcp", direction="received")))
        last = m
        time.sleep(0.4)
    p.wait(30)
    eq(p.returncode, 0, "client", p.tail())
    ge(len(seen), 2, "scrapes that saw the test running", seen)
    check(all(r == 1 for r, _, _ in seen), "tests running while one ran: %r" % seen)
    check(seen[-1][1] > seen[0][1] > 0 or seen[-1][1] > 0, "the test's byte gauge did not grow: %r" % seen)
    check(all(b >= g for _, g, b in seen), "the counter is below the running test's gauge: %r" % seen)
    doc = json.loads(p.stdout)
    end = scrape(url)
    eq(val(end, "linkperf_bytes_total", dialect="iperf3", proto="tcp", direction="received"),
       doc["end"]["sum_received"]["bytes"], "bytes after the test vs its result")
    check(not [k for k in end if k[0] == "linkperf_test_received_bytes"], "a gauge of a test that ended")


@suite.case
def refusals_counted():
    """--allow refuses 127.0.0.1: counted with reason not_allowed, as many as it printed"""
    srv, url = start(["--allow", "10.99.0.1"])
    for _ in range(2):
        r = lptest.run([LINKPERF, "-c", LOOP4, "-p", str(srv.port), "-t", "1", "--no-history"], timeout=30)
        check(r.rc != 0, "a refused client succeeded", r.describe())
    time.sleep(0.3)
    printed = (srv.stdout + srv.stderr).count("not in the allowed clients")
    ge(printed, 2, "refusal lines", srv.stdout + srv.stderr)
    m = scrape(url)
    eq(val(m, "linkperf_tests_refused_total", reason="not_allowed"), printed, "refused, not_allowed")
    eq(sum(v for k, v in m.items() if k[0] == "linkperf_tests_served_total"), 0, "served")


@suite.case
def http_edges():
    """404 elsewhere, 405 for POST; a bad address: the server does not start"""
    srv, url = start()
    for path, method, code in (("/", "GET", 404), ("/metrics", "POST", 405)):
        req = urllib.request.Request(url.replace("/metrics", path), method=method,
                                     data=b"x" if method == "POST" else None)
        try:
            urllib.request.urlopen(req, timeout=10)
            check(False, "%s %s answered 200" % (method, path))
        except urllib.error.HTTPError as e:
            eq(e.code, code, "%s %s" % (method, path))
    r = lptest.run([LINKPERF, "-s", "-p", str(lptest.free_port()), "--no-history", "--metrics", "nohost:x"],
                   timeout=10)
    eq(r.rc, 1, "a bad --metrics address", r.describe())
    check("--metrics" in r.err and "nohost:x" in r.err, "the message names --metrics", r.describe())


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""A linkperf server's text output when tests overlap (--test-tags), and its banner:

- overlap_tagged: a TCP test, and a UDP test started while it runs: from the moment they
  overlap each test's lines start with [test N], N its own: a test's tagged lines, tag
  stripped, are its own output as its client got it (--get-server-output, never tagged).
- alone_untagged: tests one after the other print exactly iperf3's lines (no tag anywhere).
- never_and_always: --test-tags never: overlapping tests untagged; always: a lone test tagged.
- banner_names_both_ports: without -p, the banner's second line names 5001 (when this server
  got it; when another process holds it, the server says it does not serve it and the banner
  names only 5201).
"""
import json
import re
import time

import lptest
from lptest import LINKPERF, LOOP4, check, eq, ge

suite = lptest.Suite("server_tags", needs_iperf3=False)

TAG = re.compile(r"^\[test (\d+)\] ")


def client(port, *args, timeout=40):
    return lptest.start_client("linkperf", LOOP4, port, ["-J", "--no-history"] + list(args),
                               timeout=timeout)


def wait_out(srv, pattern, timeout=20):
    deadline = time.monotonic() + timeout
    while not re.search(pattern, srv.stdout, re.M):
        check(time.monotonic() < deadline and srv.proc.alive(), "the server never printed %r" % pattern,
              srv.proc.tail())
        time.sleep(0.05)


@suite.case
def overlap_tagged():
    """Overlapping tests: their lines carry their own [test N], each its own output"""
    srv = lptest.start_server("linkperf", ["--no-history"])
    a = client(srv.port, "-t", "3", "--get-server-output")
    wait_out(srv, r"^\[ *\d+\] +0\.00-1\.0\d +sec")  # the TCP test's first interval
    b = client(srv.port, "-u", "-b", "5M", "-t", "1", "--get-server-output")
    for p in (b, a):
        p.wait(40)
        eq(p.returncode, 0, "client", p.tail())
    wait_out(srv, r"^\[test \d+\] .*receiver$")
    lines = srv.stdout.splitlines()
    tagged = [ln for ln in lines if TAG.match(ln)]
    tags = sorted({int(TAG.match(ln).group(1)) for ln in tagged})
    eq(len(tags), 2, "distinct tags", srv.stdout)
    # from the first tag on, every line of either test is tagged
    first = next(i for i, ln in enumerate(lines) if TAG.match(ln))
    for ln in lines[first:]:
        if ln.startswith("-----") or ln.startswith("Server listening"):
            continue  # the banner belongs to no test
        check(TAG.match(ln), "an untagged line while the tests overlap: %r" % ln, srv.stdout)
    # Each test's tagged lines, tag stripped, are its own output as its client got it
    # (--get-server-output, untagged): the TCP test's from the overlap on, the UDP test's all.
    for name, p in (("TCP", a), ("UDP", b)):
        own = lptest.get(json.loads(p.stdout), "server_output_text")
        check(not re.search(r"^\[test \d+\]", own, re.M), "%s: --get-server-output carries a tag" % name, own)
        own_lines = [ln for ln in own.splitlines() if ln.strip()]
        mine = [t for t in tags if [TAG.sub("", ln) for ln in tagged if int(TAG.match(ln).group(1)) == t]
                == own_lines[-len([ln for ln in tagged if int(TAG.match(ln).group(1)) == t]):]]
        eq(len(mine), 1, "%s: one tag whose lines end its own output" % name, srv.stdout + "\n---\n" + own)
        if name == "UDP":
            eq([TAG.sub("", ln) for ln in tagged if int(TAG.match(ln).group(1)) == mine[0]], own_lines,
               "UDP: every line of the test started during the overlap is tagged", srv.stdout)


@suite.case
def alone_untagged():
    """Tests one at a time: iperf3's lines, no tag"""
    srv = lptest.start_server("linkperf", ["--no-history"])
    for args in (["-t", "1"], ["-u", "-t", "1"]):
        p = client(srv.port, *args)
        p.wait(40)
        eq(p.returncode, 0, "client %s" % args, p.tail())
    wait_out(srv, r"receiver$")
    check(not re.search(r"^\[test \d+\]", srv.stdout, re.M), "a tag on a lone test", srv.stdout)
    eq(len(re.findall(r"receiver$", srv.stdout, re.M)), 2, "receiver rows", srv.stdout)


@suite.case
def never_and_always():
    """--test-tags never: overlap untagged; always: a lone test tagged"""
    srv = lptest.start_server("linkperf", ["--no-history", "--test-tags", "never"])
    a = client(srv.port, "-t", "3")
    wait_out(srv, r"^\[ *\d+\] +0\.00-1\.0\d +sec")
    b = client(srv.port, "-u", "-t", "1")
    for p in (b, a):
        p.wait(40)
        eq(p.returncode, 0, "client", p.tail())
    wait_out(srv, r"receiver$")
    check(not re.search(r"^\[test \d+\]", srv.stdout, re.M), "a tag with --test-tags never", srv.stdout)
    srv2 = lptest.start_server("linkperf", ["--no-history", "--test-tags", "always"])
    p = client(srv2.port, "-t", "1")
    p.wait(40)
    eq(p.returncode, 0, "client", p.tail())
    wait_out(srv2, r"receiver$")
    rows = [ln for ln in srv2.stdout.splitlines() if "sec" in ln]
    ge(len(rows), 2, "rows", srv2.stdout)
    check(all(TAG.match(ln) for ln in rows), "--test-tags always left a row untagged", srv2.stdout)
    r = lptest.run([LINKPERF, "-s", "--test-tags", "often"], timeout=10)
    eq(r.rc, 2, "a bad --test-tags", r.describe())
    check("--test-tags" in r.err and "often" in r.err, "the message names the option", r.describe())


@suite.case
def banner_names_both_ports():
    """No -p: the banner names 5001 too, or the server says why it does not serve it"""
    p = lptest.Proc([LINKPERF, "-s", "--no-history"], 20, name="linkperf-s-default")
    deadline = time.monotonic() + 10
    while "Server listening on" not in p.stdout or p.stdout.count("-----") < 2:
        check(time.monotonic() < deadline and p.alive(), "no banner", p.tail())
        time.sleep(0.05)
    time.sleep(0.2)
    out, err = p.stdout, p.stderr
    p.kill()
    if not re.search(r"^Server listening on 5201 ", out, re.M):
        raise lptest.Skip("port 5201 is taken on this machine: %s" % (err.strip() or out.strip()))
    also = re.search(r"^Also listening on (\d+) ", out, re.M)
    if "not serving port 5001" in out + err:
        check(not also, "the banner names a port it does not serve", out)
    else:
        check(also and also.group(1) == "5001", "the banner does not name 5001", out + err)


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""iperf2 --permit-key both ways against stock iperf 2.1.8 (docs/internals/permit-key.md).

Stock `iperf -c --permit-key=K` -> `linkperf --iperf2 -s --permit-key=K`, and `linkperf
--iperf2 -c --permit-key=K` -> stock `iperf -s --permit-key=K`. Every number is read from
the outputs (-f B: exact bytes), none is a time:
- lps_right_key: served; the server counts what the client sent less the keyed header
  (60 + 2 + len(K): linkperf counts no header as payload); both print 2.1.8's [K(1)] ids
  and the server its "Permit key is 'K' (timeout in 20.0 seconds)" banner line.
- lps_parallel_right_key: -P 2 -t 1, every connection carries the key; each stream and the
  [SUM]s agree likewise.
- lps_wrong_or_no_key: a wrong key (same and other length), no key, a header-less -C
  client: each gets 2.1.8's reset ("tcp write failed: Connection reset by peer" on the
  client), the server a "[drop] local ... port <client port> ... (permit key fail)" line for
  that client's port and no data row; so does a raw stream starting with 4 zero bytes (which
  2.1.8 serves without a key); a client with the key is still served afterwards.
- lps_udp_refused: an iperf2 UDP client (no key possible) starts no test, with a server
  line; a TCP client with the key is still served.
- lps_iperf3_refused: a stock iperf3 client is refused (3.12's "test authorization
  failed"), with a server line; without a stock iperf3 the case is a visible SKIP (a failure
  under CI=true), not left out.
- lps_generated_key: --permit-key without a value: the server prints the key it made
  (<sec>.<usec>-<16 letters/digits>, as 2.1.8) and a stock client using it is served.
- lps_timeout_ends_server: --permit-key-timeout 1 with no client: the server exits 0 by
  itself and then refuses connections.
- lpc_right_key: stock server accepts linkperf's keyed header (plain and --trip-times, both
  spellings): it counts the payload plus the header with the key length (62, 82), not the key.
- lpc_no_or_wrong_key: stock server drops linkperf clients without the key or with another:
  the linkperf client fails (exit 1), the stock server prints its drop line for its port.
- lpself_reverse: linkperf client -> linkperf server with a key, -R: served, bytes exact."""

import os
import re
import socket

import iperf2lib as i2
import iperf2raw
import lptest
from lptest import Suite, check, eq

suite = Suite("iperf2_permit_key", needs_iperf3=False)
KEY = "secretkey"
HDR = i2.HDR              # 60: the 2.1.x TCP header
KEYED = HDR + 2 + len(KEY)  # the keyed header: the length field, then the key
DROP = re.compile(r"^\[drop\] local (?P<lhost>\S+) port (?P<lport>\d+) connection with "
                  r"(?P<rhost>\S+) port (?P<rport>\d+)(?P<tags>.*) \(permit key fail\)$", re.M)


def keyed_ids(text, key):
    """2.1.8's "[key(1)]" / "[key(*1)]" ids as "[  1]" / "[ *1]", for iperf2lib.parse; also
    how many ids had the key (every id of a keyed test must)."""
    rx = re.compile(r"^\[" + re.escape(key) + r"\((\*?)(\d+)\)\]", re.M)
    return rx.sub(lambda m: "[%3s]" % (m.group(1) + m.group(2)), text), len(rx.findall(text))


def parsed(text, key=KEY):
    norm, n = keyed_ids(text, key)
    return i2.parse(norm), n


def final_bytes(p, what, *ctx):
    return i2.one({k: v for k, v in i2.finals(p).items() if k[1] != "SUM"}, what, *ctx)["bytes"]


def lp_server(args=()):
    return i2.start_server("linkperf", ["-f", "B"] + list(args))


def no_sanitizer_report(*procs):
    """A sanitizer build of linkperf (make check-asan) said nothing (servers, clients)."""
    for p in procs:
        iperf2raw.check_no_sanitizer_report(p)


def stock_server(key=KEY):
    # A timeout of our own: 2.1.8's default 20 s could end it under a slow run; 0 would make
    # it spin (its select() then has a zero timeout).
    return i2.start_server("iperf", ["-f", "B", "--permit-key=" + key, "--permit-key-timeout",
                                     "120"])


@suite.case
def lps_right_key():
    """stock iperf -c --permit-key=K -n 2000000 -> linkperf --permit-key=K: served, server
    bytes = client bytes - (60 + 2 + len(K)); [K(1)] ids and the banner line"""
    srv = lp_server(["--permit-key=" + KEY])
    r = i2.run_client("iperf", srv.port, ["--permit-key=" + KEY, "-n", "2000000", "-f", "B"])
    cp, cn = parsed(r.out)
    sent = final_bytes(cp, "client", r.describe())
    eq(sent, 2000000, "stock client bytes", r.describe())
    check(cn >= 2, "the stock client printed %d [%s(N)] ids" % (cn, KEY), r.describe())
    text = srv.wait_for(lambda t: len(i2.finals(parsed(t)[0])) >= 1)
    sp, sn = parsed(text)
    got = final_bytes(sp, "server", srv.proc.tail())
    eq(got, sent - KEYED, "server bytes (client bytes less the keyed header)", srv.proc.tail())
    check(sn >= 2, "the server printed %d [%s(N)] ids" % (sn, KEY), srv.proc.tail())
    check("Permit key is '%s' (timeout in 20.0 seconds)" % KEY in text, "no permit key banner",
          srv.proc.tail())
    check("Server listening on UDP" not in text, "a key server named UDP in its banner",
          srv.proc.tail())
    check(not DROP.search(text), "a drop line for a client with the key", srv.proc.tail())
    no_sanitizer_report(srv.proc)
    print("        client sent %d, server counted %d (keyed header %d bytes)" % (sent, got, KEYED))


@suite.case
def lps_parallel_right_key():
    """stock -P 2 -t 1 with the key: both connections served, each server stream = its client
    stream (matched by port) - the keyed header, and the [SUM]s likewise"""
    srv = lp_server(["--permit-key=" + KEY])
    r = i2.run_client("iperf", srv.port, ["--permit-key=" + KEY, "-P", "2", "-t", "1", "-f", "B"])
    cp, _ = parsed(r.out)
    cfin = i2.finals(cp)
    check((False, "SUM") in cfin, "no client [SUM]", r.describe())
    text = srv.wait_for(lambda t: (False, "SUM") in i2.finals(parsed(t)[0]))
    sp, _ = parsed(text)
    sfin = i2.finals(sp)
    eq(len(sp["conns"]), 2, "server connection lines", srv.proc.tail())
    by_port = {c["rport"]: sid for sid, c in sp["conns"].items()}
    for cid, c in cp["conns"].items():
        sid = by_port.get(c["lport"])
        check(sid is not None, "no server connection from client port %d" % c["lport"],
              srv.proc.tail())
        eq(sfin[(False, sid)]["bytes"], cfin[(False, cid)]["bytes"] - KEYED,
           "stream from port %d" % c["lport"], r.describe(), srv.proc.tail())
    eq(sfin[(False, "SUM")]["bytes"], cfin[(False, "SUM")]["bytes"] - 2 * KEYED,
       "server [SUM] bytes", r.describe(), srv.proc.tail())
    no_sanitizer_report(srv.proc)


@suite.case
def lps_wrong_or_no_key():
    """wrong key (same length, other length), no key, -C: each client reset, a drop line for
    its port, no server row; then a client with the key is served"""
    srv = lp_server(["--permit-key=" + KEY])
    tries = [("same length", ["--permit-key=secretkez"]), ("other length", ["--permit-key=abcd"]),
             ("no key", []), ("-C", ["-C"])]
    ports = []
    for what, extra in tries:
        r = i2.run_client("iperf", srv.port, extra + ["-t", "2", "-f", "B"], expect_rc=None)
        key = extra[0].split("=", 1)[1] if extra and "=" in extra[0] else KEY
        cp, _ = parsed(r.out, key)
        check(len(cp["conns"]) == 1, "%s: no connection line" % what, r.describe())
        ports.append(list(cp["conns"].values())[0]["lport"])
        check("Connection reset by peer" in r.out + r.err, "%s: the client was not reset" % what,
              r.describe(), srv.proc.tail())
        check("Server Report" not in r.out, "%s: a server report" % what, r.describe())
        text = srv.wait_for(lambda t: len(DROP.findall(t)) >= len(ports))
    # 2.1.8 serves a stream whose first word has no header bits without a key: not here.
    s = socket.create_connection((lptest.LOOP4, srv.port), timeout=5)
    ports.append(s.getsockname()[1])
    try:
        s.sendall(bytes(4) + b"0123456789" * 10000)
        s.recv(1)
    except OSError:
        pass
    finally:
        s.close()
    text = srv.wait_for(lambda t: len(DROP.findall(t)) >= len(ports))
    drops = [int(m.group("rport")) for m in DROP.finditer(text)]
    eq(sorted(drops), sorted(ports), "client ports in the drop lines", srv.proc.tail())
    eq(len(parsed(text)[0]["rows"]), 0, "server data rows for refused clients", srv.proc.tail())
    m = DROP.search(text)
    eq(int(m.group("lport")), srv.port, "the drop line's local port", srv.proc.tail())
    # Still serving those who know the key.
    r = i2.run_client("iperf", srv.port, ["--permit-key=" + KEY, "-n", "1000000", "-f", "B"])
    text = srv.wait_for(lambda t: len(i2.finals(parsed(t)[0])) >= 1)
    eq(final_bytes(parsed(text)[0], "server"), 1000000 - KEYED, "server bytes after the drops",
       srv.proc.tail())
    no_sanitizer_report(srv.proc)


@suite.case
def lps_udp_refused():
    """an iperf2 UDP client starts no test (no key over UDP), with a server line; TCP with the
    key still served"""
    srv = lp_server(["--permit-key=" + KEY])
    r = i2.run_client("iperf", srv.port, ["-u", "-t", "1", "-b", "1M", "-f", "B"], expect_rc=None)
    check("Server Report" not in r.out, "the UDP client got a server report", r.describe())
    srv.wait_for(lambda t: "refused iperf2 UDP datagrams" in srv.proc.stderr)
    eq(len(parsed(srv.proc.stdout)[0]["rows"]), 0, "server rows for UDP", srv.proc.tail())
    r = i2.run_client("iperf", srv.port, ["--permit-key=" + KEY, "-n", "1000000", "-f", "B"])
    text = srv.wait_for(lambda t: len(i2.finals(parsed(t)[0])) >= 1)
    eq(final_bytes(parsed(text)[0], "server"), 1000000 - KEYED, "server bytes", srv.proc.tail())
    no_sanitizer_report(srv.proc)


@suite.case
def lps_iperf3_refused():
    """a stock iperf3 client is refused as unauthorized by a permit-key server, with a server
    line; TCP with the key still served"""
    lptest.require(os.access(lptest.IPERF3, os.X_OK),
                   "stock iperf3 not found at %s (apt-get install iperf3)" % lptest.IPERF3)
    srv = lp_server(["--permit-key=" + KEY])
    p = lptest.run([lptest.IPERF3, "-c", lptest.LOOP4, "-p", srv.port, "-n", "1M", "-J"],
                   timeout=30)
    doc = lptest.parse_json(p.out, "iperf3 -J")
    # SERVER_ERROR 142 after the cookie: 3.12 says "test authorization failed".
    check("authorization failed" in doc.get("error", "") and
          not lptest.get(doc, "end.sum_received", None),
          "iperf3 was not refused as unauthorized by a permit-key server", p.describe())
    srv.wait_for(lambda t: "iperf3 test refused" in srv.proc.stderr)
    eq(len(parsed(srv.proc.stdout)[0]["rows"]), 0, "server rows for iperf3", srv.proc.tail())
    r = i2.run_client("iperf", srv.port, ["--permit-key=" + KEY, "-n", "1000000", "-f", "B"])
    text = srv.wait_for(lambda t: len(i2.finals(parsed(t)[0])) >= 1)
    eq(final_bytes(parsed(text)[0], "server"), 1000000 - KEYED, "server bytes", srv.proc.tail())
    no_sanitizer_report(srv.proc)


@suite.case
def lps_generated_key():
    """--permit-key without a value: the server prints the key it made (2.1.8's form) and a
    stock client using it is served"""
    srv = lp_server(["--permit-key"])
    text = srv.wait_for(lambda t: "Permit key is" in t)
    m = re.search(r"^Permit key is '(\d+\.\d{6}-[A-Za-z0-9]{16})' \(timeout in 20\.0 seconds\)$",
                  text, re.M)
    check(m is not None, "no generated key in the banner", srv.proc.tail())
    key = m.group(1)
    r = i2.run_client("iperf", srv.port, ["--permit-key=" + key, "-n", "1000000", "-f", "B"])
    sent = final_bytes(parsed(r.out, key)[0], "client", r.describe())
    text = srv.wait_for(lambda t: len(i2.finals(parsed(t, key)[0])) >= 1)
    eq(final_bytes(parsed(text, key)[0], "server"), sent - (HDR + 2 + len(key)), "server bytes",
       srv.proc.tail())
    no_sanitizer_report(srv.proc)


@suite.case
def lps_timeout_ends_server():
    """--permit-key-timeout 1 and no client: the server exits 0 by itself, then connections
    are refused"""
    srv = lp_server(["--permit-key=" + KEY, "--permit-key-timeout", "1"])
    rc = srv.proc.wait(30)
    eq(rc, 0, "server exit status", srv.proc.tail())
    check("Permit key is '%s' (timeout in 1.0 seconds)" % KEY in srv.proc.stdout,
          "no banner line", srv.proc.tail())
    r = i2.run_client("iperf", srv.port, ["--permit-key=" + KEY, "-t", "1", "-f", "B"],
                      expect_rc=None)
    check("Connection refused" in r.out + r.err, "a client after the timeout was not refused",
          r.describe())
    no_sanitizer_report(srv.proc)  # it exited: a leak would be reported by now


@suite.case
def lpc_right_key():
    """linkperf -c --permit-key=K -> stock iperf -s --permit-key=K: served; stock counts the
    payload plus the header with the key length (62; --trip-times 82), not the key"""
    srv = stock_server()
    runs = [("--iperf2", ["-n", "2000000"], 2000000, HDR + 2),
            ("--iperf2 --trip-times", ["-n", "2000000", "--trip-times"], 2000000, 80 + 2),
            ("default spelling", None, 2 * 1024 * 1024, HDR + 2)]
    for n, (what, args, payload, counted) in enumerate(runs, 1):
        if args is None:
            r = lptest.run([lptest.LINKPERF, "-c", lptest.LOOP4, "-p", srv.port,
                            "--permit-key=" + KEY, "-n", "2M"], timeout=30)
            check(r.rc == 0, "%s: linkperf client failed" % what, r.describe(), srv.proc.tail())
        else:
            r = i2.run_client("linkperf", srv.port, ["--permit-key=" + KEY, "-f", "B"] + args)
            cp, cn = parsed(r.out)
            eq(final_bytes(cp, "linkperf client"), payload, "%s: client bytes" % what,
               r.describe())
            check(cn >= 2, "%s: the client printed %d [%s(N)] ids" % (what, cn, KEY),
                  r.describe())
        text = srv.wait_for(lambda t: len(i2.finals(parsed(t)[0])) >= n)
        rows = [v for k, v in i2.finals(parsed(text)[0]).items() if k[1] == n]
        check(len(rows) == 1, "%s: no stock server row %d" % (what, n), srv.proc.tail())
        eq(rows[0]["bytes"], payload + counted, "%s: stock server bytes" % what, srv.proc.tail())
        check(not DROP.search(text), "%s: stock dropped a keyed linkperf client" % what,
              srv.proc.tail())
        no_sanitizer_report(r.proc)


@suite.case
def lpc_no_or_wrong_key():
    """linkperf clients without the key or with another one: stock drops each (its line names
    the client's port), the linkperf client fails"""
    srv = stock_server()
    ports = []
    for what, extra in (("no key", []), ("wrong key", ["--permit-key=wrongkey1"])):
        r = i2.run_client("linkperf", srv.port, extra + ["-t", "2", "-f", "B"], expect_rc=None)
        check(r.rc != 0, "%s: the refused linkperf client exited %s" % (what, r.rc), r.describe())
        key = extra[0].split("=", 1)[1] if extra else KEY
        cp, _ = parsed(r.out, key)
        check(len(cp["conns"]) == 1, "%s: no connection line" % what, r.describe())
        ports.append(list(cp["conns"].values())[0]["lport"])
        no_sanitizer_report(r.proc)
        text = srv.wait_for(lambda t: len(DROP.findall(t)) >= len(ports))
    eq(sorted(int(m.group("rport")) for m in DROP.finditer(text)), sorted(ports),
       "client ports in stock's drop lines", srv.proc.tail())
    eq(len(parsed(text)[0]["rows"]), 0, "stock server rows for refused clients", srv.proc.tail())


@suite.case
def lpself_reverse():
    """linkperf -c -R --permit-key=K -> linkperf -s --permit-key=K: served, the client
    receives exactly -n"""
    srv = lp_server(["--permit-key=" + KEY])
    r = i2.run_client("linkperf", srv.port, ["--permit-key=" + KEY, "-R", "-n", "1000000",
                                             "-f", "B"])
    cp, _ = parsed(r.out)
    rows = i2.finals(cp)
    check((True, 1) in rows, "no [%s(*1)] receiver row" % KEY, r.describe())
    eq(rows[(True, 1)]["bytes"], 1000000, "client received", r.describe(), srv.proc.tail())
    no_sanitizer_report(r.proc, srv.proc)


if __name__ == "__main__":
    i2.require_iperf2(whole_file=True)
    suite.main()

#!/usr/bin/env python3
"""`linkperf ui`'s HTTP side: the embedded page and assets, the security checks (Host,
token, CSRF, Origin, Content-Type, sizes), the CLI's own checks behind /api/check and
/api/run, and live tests whose Server-Sent Events carry the same numbers iperf3's
--json-stream would (TCP with -P 2 run to the end, UDP stopped early keeping its partial
result). The browser side is tested by tests/e2e."""

import http.client
import json
import os
import re
import socket
import time

from weblib import UI, Events, check, lptest

suite = lptest.Suite("web_api", needs_iperf3=False)


def events_of(seen, run_id, name):
    return [d for _, n, d in seen if n == name and d.get("id") == run_id]


@suite.case
def page_and_assets():
    """GET / is the page (its scripts are served too, uPlot among them), with security
    headers; unknown paths 404, other methods 405."""
    ui = UI()
    status, h, body = ui.request("GET", "/")
    check(status == 200 and h["content-type"].startswith("text/html"), "GET /: %d %s" % (
        status, h.get("content-type")))
    page = body.decode()
    check("<script" in page and "/app.js" in page, "the page does not load /app.js")
    for header in ("content-security-policy", "x-content-type-options", "x-frame-options"):
        check(header in h, "GET / lacks %s" % header)
    status, h, body = ui.request("GET", "/uplot.js")
    check(status == 200 and h["content-type"].startswith("text/javascript") and
          len(body) > 20000 and b"uPlot" in body, "GET /uplot.js: %d, %d bytes" % (status,
                                                                                 len(body)))
    for path in ("/app.js", "/uplot.css"):
        status, _, body = ui.request("GET", path)
        check(status == 200 and len(body) > 100, "GET %s: %d" % (path, status))
    for method, path, want in (("GET", "/etc/passwd", 404), ("GET", "/../../etc/passwd", 404),
                               ("GET", "/api/nothing", 404), ("POST", "/", 405),
                               ("GET", "/api/run", 405), ("DELETE", "/api/status", 405)):
        status, _ = ui.json(method, path)
        check(status == want, "%s %s: %d, want %d" % (method, path, status, want))
    check(ui.stop() == 0, "linkperf ui did not exit 0 on SIGINT", ui.proc.tail())


@suite.case
def request_checks():
    """A foreign Host (DNS rebinding), a POST without the CSRF token, with a foreign
    Origin or as a form, a body over 64 KiB, bad JSON and bad args are refused with a
    message, and nothing runs."""
    ui = UI()
    status, doc = ui.json("GET", "/api/info", headers={"Host": "evil.example:80"})
    check(status == 421 and "own address" in doc["error"], "foreign Host: %d %s" % (status, doc))
    info = ui.login()
    check(info["version"].startswith("linkperf") and len(info["csrf"]) == 32 and
          info["token_required"] is True, "info: %s" % info)
    # On loopback too (every local user can reach it): no token, no API.
    token, ui.token = ui.token, None
    status, doc = ui.json("GET", "/api/status")
    check(status == 401 and "token" in doc["error"], "loopback without the token: %d %s" % (
        status, doc))
    ui.token = token
    body = {"args": ["-c", "127.0.0.1", "-t", "1"]}
    csrf, ui.csrf = ui.csrf, None
    status, doc = ui.json("POST", "/api/run", body)
    check(status == 403 and "CSRF" in doc["error"], "no CSRF token: %d %s" % (status, doc))
    ui.csrf = "0" * 32
    status, doc = ui.json("POST", "/api/run", body)
    check(status == 403, "wrong CSRF token: %d %s" % (status, doc))
    ui.csrf = csrf
    status, doc = ui.json("POST", "/api/run", body, headers={"Origin": "http://evil.example"})
    check(status == 403 and "cross-origin" in doc["error"], "foreign Origin: %d %s" % (
        status, doc))
    status, doc = ui.json("POST", "/api/run", headers={
        "Content-Type": "application/x-www-form-urlencoded", "X-CSRF-Token": ui.csrf},
        raw=b"args=-c")
    check(status == 403 and "application/json" in doc["error"], "form post: %d %s" % (
        status, doc))
    status, doc = ui.json("POST", "/api/check", {"args": ["-c", "x" * 70000]})
    check(status == 413, "70 KB body: %d %s" % (status, doc))
    for raw, words in ((b"{not json", "JSON object"), (b"[1,2]", "JSON object"),
                       (b'{"args":"-c x"}', "array"), (b'{"args":[]}', "array"),
                       (b'{"args":[1,2]}', "array"),
                       (("{\"args\":[%s]}" % ",".join(['"-V"'] * 129)).encode(), "128")):
        status, doc = ui.json("POST", "/api/check", headers={
            "Content-Type": "application/json", "X-CSRF-Token": ui.csrf}, raw=raw)
        check(status == 400 and words in doc["error"], "%r: %d %s" % (raw[:40], status, doc))
    log = lptest.tmp_path("web-x.log")
    for args, words in ((["-c", "127.0.0.1", "--logfile", log], "writes no files"),
                        (["-s", "-D"], "daemon"), (["-c", "127.0.0.1", "--stdin"], "stdin"),
                        (["--help"], "tests only"), (["demo"], "tests only"),
                        (["ui"], "not a test"), (["-c", "127.0.0.1", "-I", log], "no files"),
                        (["-c", "127.0.0.1", "--dialect", "iperf2", "-F", "/etc/passwd"],
                         "reads no local files"),
                        (["-c", "127.0.0.1", "--db", log], "writes no files"),
                        (["-c", "127.0.0.1", "--username", "u", "--rsa-public-key-path",
                          "/etc/ssl/private/k.pem"], "reads no local files"),
                        (["-s", "--rsa-private-key-path", "/etc/ssl/private/k.pem",
                          "--authorized-users-path", "/etc/shadow"], "reads no local files"),
                        (["-c", "127.0.0.1", "-T", "y" * 2000], "longer than")):
        status, doc = ui.json("POST", "/api/run", {"args": args})
        check(status == 400 and words in doc["error"], "run %s: %d %s" % (args, status, doc))
    check(not os.path.exists(log), "--logfile from the page created %s" % log)
    status, doc = ui.json("GET", "/api/status", want=200)
    check(doc["runs"] == [], "refused runs are listed: %s" % doc)
    status, doc = ui.json("POST", "/api/stop", {"id": 99})
    check(status == 404, "stop of no run: %d %s" % (status, doc))
    check(ui.stop() == 0, "linkperf ui did not exit 0 (a sanitizer report?)", ui.proc.tail())


@suite.case
def check_messages():
    """/api/check answers with the CLI's own message and names the option, or with the
    shell-quoted command line."""
    ui = UI()
    ui.login()
    for args, option, words in ((["-c", "h", "-t", "abc"], "-t/--time", "not an integer"),
                                (["-c", "h", "-P", "0"], "-P/--parallel", "out of range"),
                                (["-c", "h", "-b", "10Q"], "-b/--bitrate", "not a rate"),
                                (["-s", "-p", "70000"], "-p/--port", "out of range"),
                                (["-c", "h", "--bogus"], "--bogus", "unknown option"),
                                (["-c"], "-c/--client", "needs an argument")):
        _, doc = ui.json("POST", "/api/check", {"args": args}, want=200)
        check(doc["ok"] is False and doc["option"] == option and words in doc["error"],
              "check %s: %s" % (args, doc))
    _, doc = ui.json("POST", "/api/check", {"args": ["-c", "10.0.0.2", "-u", "-b", "50M",
                                                     "-T", "it's a test"]}, want=200)
    check(doc["ok"] is True and
          doc["command"] == "linkperf -c 10.0.0.2 -u -b 50M -T 'it'\\''s a test'",
          "command line: %s" % doc)
    _, doc = ui.json("POST", "/api/check", {"args": ["--iperf2", "-c", "h", "-d", "-L",
                                                     "5002"]}, want=200)
    check(doc["ok"] is True, "iperf2 spelling: %s" % doc)


def fill(template, *args):
    """A message template of /api/options filled as the page fills it: each %s (or %.0f)
    by the next argument."""
    args = list(args)
    return re.sub(r"%[-.0-9]*[sdf]", lambda m: str(args.pop(0)), template)


def number_text(v):
    return str(int(v)) if v == int(v) else repr(v)


def refusals(o):
    """(value text, udp, range text, suffix) the parser must refuse for a ranged option:
    one under and one over its range, between 0 and the range when 0 is allowed, and the
    edges of its narrower range (a client's -p, a UDP -l)."""
    lo, hi, out = o["min"], o["max"], []
    if not (o["zero_ok"] and lo - 1 == 0):
        out.append((number_text(lo - 1), False, o["range"], ""))
    out.append((number_text(hi + 1), False, o["range"], ""))
    between = lo / 2 if o["kind"] == "number" else int(lo / 2)
    if o["zero_ok"] and between > 0:
        out.append((number_text(between), False, o["range"], ""))
    n = o.get("narrow")
    if n:
        udp = n["case"] == "udp"
        for v in (n["min"] - 1, n["max"] + 1):
            if lo <= v <= hi:
                out.append((number_text(v), udp, n["range"], n["suffix"]))
    return out


def role_args(o, udp=False):
    return (["-s"] if o["mode"] == "server" else ["-c", "127.0.0.1"]) + (["-u"] if udp else [])


def edges(o):
    """(args) with each edge of the option's ranges, each where that range applies: the
    row's on a server when a client's is narrower (-p 0 is a server's any free port)."""
    n = o.get("narrow")
    wide = ["-s"] if o["mode"] == "server" or (n and n["case"] == "client") else \
        ["-c", "127.0.0.1"]
    out = [wide + ["--%s=%s" % (o["name"], number_text(v))] for v in (o["min"], o["max"])]
    if n:
        out += [role_args(o, n["case"] == "udp") + ["--%s=%s" % (o["name"], number_text(v))]
                for v in (n["min"], n["max"])]
    return out


@suite.case
def options_document():
    """GET /api/options is `linkperf ui --options`: the option table's names, ranges,
    messages, defaults and named values. Every range in it is the parser's: /api/check and
    the CLI itself refuse the values just outside it with the document's template filled
    with its range text (the words the page shows), and take its edges. Every named value
    (the page's select lists) is one /api/check takes, each listed once, with a label."""
    res = lptest.linkperf("ui", "--options")
    check(res.rc == 0, "linkperf ui --options: %s" % res.describe())
    cli = json.loads(res.out)
    ui = UI()
    token, ui.token = ui.token, None
    status, _ = ui.json("GET", "/api/options")
    check(status == 401, "/api/options without the token: %d" % status)
    ui.token = token
    _, doc = ui.json("GET", "/api/options", want=200)
    check(doc == cli, "GET /api/options differs from linkperf ui --options")
    status, _ = ui.json("POST", "/api/options", {})
    check(status == 405, "POST /api/options: %d" % status)
    ui.login()
    tpl = doc["messages"]["out_of_range"]
    ranged = [o for o in doc["options"] if "range" in o]
    check(len(ranged) > 20 and all(o["range"] for o in ranged), "ranged options: %s" % ranged)
    for o in ranged:
        for text, udp, rng, suffix in refusals(o):
            args = role_args(o, udp) + ["--%s=%s" % (o["name"], text)]
            want = "option %s: %s" % (o["label"], fill(tpl, text, rng, suffix))
            _, got = ui.json("POST", "/api/check", {"args": args}, want=200)
            check(got["ok"] is False and got["error"] == want and got["option"] == o["label"],
                  "check %s: %s, want %r" % (args, got, want))
        # the edges are the option's own: whatever else the line lacks, not its range
        for args in edges(o):
            _, got = ui.json("POST", "/api/check", {"args": args}, want=200)
            check(got["ok"] or "out of range" not in got["error"],
                  "check %s refused its own edge: %s" % (args, got))
        # and the command line says the same words (hi + 1 always lies outside the range)
        text = number_text(o["max"] + 1)
        res = lptest.linkperf(*(role_args(o) + ["--%s=%s" % (o["name"], text)]), timeout=20)
        want = "linkperf: option %s: %s\n" % (o["label"], fill(tpl, text, o["range"], ""))
        check(res.rc == 2 and res.err == want, "%s\nwant %r" % (res.describe(), want))
    listed = [o for o in doc["options"] if "choices" in o]
    check(listed, "no option lists named values")
    for o in listed:
        values = [c["value"] for c in o["choices"]]
        check(len(values) == len(set(values)) and all(c["label"] for c in o["choices"]),
              "--%s choices: %s" % (o["name"], o["choices"]))
        for v in values:
            args = role_args(o) + ["--%s=%s" % (o["name"], v)]
            _, got = ui.json("POST", "/api/check", {"args": args}, want=200)
            check(got["ok"] is True, "check %s: %s" % (args, got))
    check(ui.stop() == 0, "linkperf ui did not exit 0", ui.proc.tail())


@suite.case
def tcp_run_live():
    """A TCP test with -P 2 against a linkperf server: its events arrive while it runs
    (run, then interval records with two streams and a sum, text rows), the interval bytes
    add up to the end record's, and the run ends done."""
    srv = lptest.start_server("linkperf")
    ui = UI()
    ui.login()
    ev = Events(ui)
    check(ev.status == 200 and ev.type == "text/event-stream", "events: %d %s" % (
        ev.status, ev.type))
    rid = ui.run(["-c", "127.0.0.1", "-p", str(srv.port), "-t", "3", "-P", "2"])
    seen = ev.until(lambda e: e[1] == "state" and e[2]["id"] == rid, 30, "the end of the run")
    ev.close()
    runs = events_of(seen, rid, "run")
    check(runs and runs[0]["state"] == "running" and runs[0]["args"][0] == "-c",
          "run event: %s" % runs)
    recs = [d["rec"] for d in events_of(seen, rid, "rec")]
    kinds = [r["event"] for r in recs]
    check(kinds[0] == "start" and kinds[-1] == "end" and kinds.count("interval") >= 3,
          "record kinds: %s" % kinds)
    ivs = [r["data"] for r in recs if r["event"] == "interval"]
    for iv in ivs:
        check(len(iv["streams"]) == 2 and all(s["bits_per_second"] > 0 for s in iv["streams"])
              and iv["sum"]["bytes"] == sum(s["bytes"] for s in iv["streams"]),
              "interval: %s" % iv)
    ends = [iv["sum"]["end"] for iv in ivs]
    check(ends == sorted(ends) and 2.5 < ends[-1] < 3.6, "interval ends: %s" % ends)
    end = recs[-1]["data"]
    total = sum(iv["sum"]["bytes"] for iv in ivs)
    sent = end["sum_sent"]["bytes"]
    # linkperf on both ends, and its interval rows always add up to the summary
    # (docs/COMPATIBILITY.md, Output): exactly, in the raw numbers of the records
    check(sent > 0 and total == sent, "interval bytes %d vs end sum_sent %d" % (total, sent))
    # and the linkperf server, which reads its sockets dry at TEST_END, received every byte
    check(end["sum_received"]["bytes"] == sent, "end sum_received %d vs sum_sent %d" % (
        end["sum_received"]["bytes"], sent))
    lines = [d["line"] for d in events_of(seen, rid, "text")]
    check(any(ln.startswith("[SUM]") and "sender" in ln for ln in lines) and
          any("Bitrate" in ln for ln in lines), "text rows: %s" % lines[-6:])
    state = events_of(seen, rid, "state")[0]
    check(state["state"] == "done" and state["error"] == "", "state: %s" % state)
    _, doc = ui.json("GET", "/api/status", want=200)
    check([r["state"] for r in doc["runs"] if r["id"] == rid] == ["done"], "status: %s" % doc)
    # A page opened afterwards gets the run replayed; a reconnect with Last-Event-ID only
    # what followed.
    late = Events(ui)
    again = late.until(lambda e: e[1] == "state", 10, "the replayed end")
    late.close()
    check(len(again) == len(seen), "replay: %d events, first page saw %d" % (len(again),
                                                                          len(seen)))
    last = Events(ui, headers={"Last-Event-ID": str(seen[-2][0])})
    tail = last.until(lambda e: e[1] == "state", 10, "the last event")
    last.close()
    check(len(tail) == 1, "after Last-Event-ID: %d events" % len(tail))
    check(ui.stop() == 0, "linkperf ui did not exit 0 (a sanitizer report?)", ui.proc.tail())


@suite.case
def udp_stop_keeps_partial():
    """A 30 s UDP test stopped from the API after its first interval: it ends as stopped, before
    its 30 s, with its interval records (jitter, loss) and a final summary."""
    srv = lptest.start_server("linkperf")
    ui = UI()
    ui.login()
    ev = Events(ui)
    rid = ui.run(["-c", "127.0.0.1", "-p", str(srv.port), "-u", "-b", "20M", "-t", "30"])
    ev.until(lambda e: e[1] == "rec" and e[2]["rec"]["event"] == "interval", 10,
             "a first interval")
    _, doc = ui.json("POST", "/api/stop", {"id": rid}, want=200)
    # the events show it ended on the stop: the stopped state, and an end record that ends
    # before the 30 s asked for (15 s only guards a hang)
    seen = ev.until(lambda e: e[1] == "state" and e[2]["id"] == rid, 15, "the stopped state")
    ev.close()
    recs = [d["rec"] for d in events_of(seen, rid, "rec")]
    ivs = [r["data"] for r in recs if r["event"] == "interval"]
    check(ivs and all("jitter_ms" in iv["sum"] or "packets" in iv["sum"] for iv in ivs),
          "UDP intervals: %s" % ivs[:1])
    ends = [r["data"] for r in recs if r["event"] == "end"]
    check(ends and ends[0]["sum"]["bytes"] > 0 and ends[0]["sum"]["end"] < 30,
          "partial end: %s" % (ends[0] if ends else recs[-1:]))
    state = events_of(seen, rid, "state")[0]
    check(state["state"] == "stopped", "state after stop: %s" % state)
    status, doc = ui.json("POST", "/api/stop", {"id": rid})
    check(status == 404, "second stop: %d %s" % (status, doc))
    check(ui.stop() == 0, "linkperf ui did not exit 0 (a sanitizer report?)", ui.proc.tail())


@suite.case
def partial_requests_expire():
    """64 connections that send half a request and hold it (the page's whole connection
    limit) are closed by the page after its idle timeout (10 s, was 120 s), so the page
    answers again; waited for by the closes the holders see, not by a clock"""
    ui = UI()
    ui.login()
    held = []
    for _ in range(64):
        try:
            c = socket.create_connection((ui.host, ui.port), timeout=5)
        except OSError:
            break  # the limit: MHD refuses the rest
        c.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        held.append(c)
    check(len(held) >= 32, "only %d partial requests could be opened" % len(held))
    closed = 0
    deadline = time.monotonic() + 60  # a bound for the test, well above 10 s
    for c in held:
        c.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            closed += c.recv(1) == b""
        except socket.timeout:
            pass
        except ConnectionResetError:  # one over the per-address limit: refused at once
            closed += 1
        c.close()
    check(closed == len(held), "the page closed %d of %d held partial requests within 60 s" % (
        closed, len(held)))
    status, doc = ui.json("GET", "/api/info")
    check(status == 200, "the page after the holders were closed: %d %s" % (status, doc))


def _closed(sock):
    """Whether the page has closed (or shut down) this connection; never blocks."""
    try:
        return sock.recv(1, socket.MSG_DONTWAIT | socket.MSG_PEEK) == b""
    except (BlockingIOError, socket.timeout):  # nothing to read: still open
        return False
    except OSError:  # reset
        return True


@suite.case
def trickling_requests_cannot_take_the_page():
    """Partial requests that trickle in a byte a second (the idle timeout never ends them),
    32 from each of two loopback addresses (the per-address limit), while a page holds a
    connection that presented the token: that page is answered every time, a new page (a
    fresh connection with the token) still gets in, at most 40 tricklers are open at once (a
    new connection evicts the oldest), and every trickler is shut once it has been unproven
    for 10 s (waited for by the closes, bounded at 60 s). Then 16 event streams open and a
    17th gets 503."""
    ui = UI()
    ui.login()
    hdr = {"Host": "%s:%d" % (ui.host, ui.port), "X-Linkperf-Token": ui.token}
    page = http.client.HTTPConnection(ui.host, ui.port, timeout=10)

    def page_status():
        page.request("GET", "/api/status", headers=hdr)
        r = page.getresponse()
        r.read()
        return r.status

    check(page_status() == 200, "the page before the attack")
    tricklers = []
    for i in range(64):
        try:
            c = socket.create_connection((ui.host, ui.port), timeout=5,
                                         source_address=("127.0.0.%d" % (2 + i % 2), 0))
            c.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            c.setblocking(False)
            tricklers.append(c)
        except OSError:
            pass
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and sum(not _closed(c) for c in tricklers) > 40:
        time.sleep(0.1)
    held = sum(not _closed(c) for c in tricklers)
    check(held <= 40, "%d tricklers are open at once (at most 40 may be)" % held)
    rounds = newcomers = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(_closed(c) for c in tricklers):
        for c in tricklers:
            if not _closed(c):
                try:
                    c.send(b"x")
                except OSError:
                    pass
        check(page_status() == 200, "the page that has the token, during the attack")
        status, doc = ui.json("GET", "/api/info")
        check(status == 200, "a new page during the attack: %d %s" % (status, doc))
        rounds += 1
        newcomers += 1
        time.sleep(1)
    still = sum(not _closed(c) for c in tricklers)
    check(still == 0, "%d of %d tricklers still open after 60 s" % (still, len(tricklers)))
    check(rounds >= 1, "no round ran during the attack")
    for c in tricklers:
        c.close()
    page.close()
    streams = [Events(ui) for _ in range(16)]
    check(all(e.status == 200 for e in streams), "16 event streams: %s" % [
        e.status for e in streams])
    extra = Events(ui)
    check(extra.status == 503, "the 17th event stream: %d" % extra.status)
    for e in streams + [extra]:
        e.close()
    check(ui.stop() == 0, "linkperf ui did not exit 0", ui.proc.tail())


# Run in a namespace: /api/check for each target given, printing "TARGET -> ok|ERROR".
CHECK_TARGETS = r"""
import http.client, json, re, sys
url = sys.argv[1]
m = re.match(r"http://([\d.]+):(\d+)/\?token=(\S+)", url)
host, port, token = m.group(1), int(m.group(2)), m.group(3)
def req(method, path, body=None, csrf=None):
    c = http.client.HTTPConnection(host, port, timeout=10)
    h = {"Host": "%s:%d" % (host, port), "X-Linkperf-Token": token}
    if body is not None:
        h["Content-Type"] = "application/json"
        h["X-CSRF-Token"] = csrf
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=h)
    return json.loads(c.getresponse().read())
csrf = req("GET", "/api/info")["csrf"]
for t in sys.argv[2:]:
    for kind, args in (("", ["-c", t, "-t", "1"]), ("rfc2544 ", ["rfc2544", "-c", t, "-b", "1g"]),
                       ("under-load ", ["under-load", "-c", t])):
        d = req("POST", "/api/check", {"args": args}, csrf)
        print("%s%s -> %s" % (kind, t, "ok" if d.get("ok") else d.get("error")))
"""


@suite.case
def private_targets_from_a_shared_page():
    """A page served beyond loopback refuses tests to private, link-local (the cloud metadata
    address), loopback and shared addresses, naming the option that allows them, and takes
    public ones; --allow-private-targets takes them all; a loopback page (the default) is
    unchanged; the measurements (rfc2544, under-load) are held to the same. In a namespace of
    our own, the page on 10.9.1.1 there."""
    import subprocess
    lptest.require(os.geteuid() == 0, "namespaces need root")
    ns = "lpweb-%d" % os.getpid()
    subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        subprocess.run(["ip", "-n", ns, "addr", "add", "10.9.1.1/32", "dev", "lo"], check=True)
        private = ["192.168.1.20", "10.9.1.1", "169.254.169.254", "127.0.0.1", "172.16.0.9",
                   "100.64.0.1", "fe80::1", "fd00::5", "::1", "localhost"]
        public = ["8.8.8.8", "2001:4860::8888"]
        for extra, allowed in (([], False), (["--allow-private-targets"], True)):
            ui = UI(argv=["ip", "netns", "exec", ns, lptest.LINKPERF, "ui", "--listen",
                          "10.9.1.1:0", "--no-history"] + extra)
            r = lptest.run(["ip", "netns", "exec", ns, "python3", "-c", CHECK_TARGETS, ui.url] +
                           private + public, timeout=40)
            got = dict(ln.split(" -> ", 1) for ln in r.out.splitlines() if " -> " in ln)
            ui.stop()
            for t in [k + x for k in ("", "rfc2544 ", "under-load ") for x in public]:
                check(got.get(t) == "ok", "%s: public %s refused: %s" % (extra, t, got.get(t)),
                      r.describe())
            for t in [k + x for k in ("", "rfc2544 ", "under-load ") for x in private]:
                if allowed:
                    check(got.get(t) == "ok", "--allow-private-targets: %s refused: %s" % (
                        t, got.get(t)), r.describe())
                else:
                    check("--allow-private-targets" in (got.get(t) or ""),
                          "a shared page took the private target %s: %s" % (t, got.get(t)),
                          r.describe())
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    ui = UI()
    ui.login()
    _, doc = ui.json("POST", "/api/check", {"args": ["-c", "192.168.1.20", "-t", "1"]}, want=200)
    check(doc.get("ok"), "a loopback page refused a private target: %s" % doc)


@suite.case
def token_and_listen_options():
    """--token: every API call needs it (header or ?token= for the event stream), the page
    itself does not; bad --listen and --token values exit with a message."""
    ui = UI(["--token", "s3cret-token"])
    check(ui.token == "s3cret-token" and "?token=s3cret-token" in ui.url, "url: %s" % ui.url)
    token, ui.token = ui.token, None
    status, doc = ui.json("GET", "/api/info")
    check(status == 401 and "token" in doc["error"], "no token: %d %s" % (status, doc))
    status, _, _ = ui.request("GET", "/")
    check(status == 200, "the page needs no token: %d" % status)
    ev = Events(ui)
    check(ev.status == 401, "events without a token: %d" % ev.status)
    ev.close()
    ui.token = token
    ui.login()
    ev = Events(ui)
    check(ev.status == 200, "events with ?token=: %d" % ev.status)
    ev.close()
    for args, words in ((["--listen", "nonsense"], "not HOST:PORT"),
                        (["--listen", "127.0.0.1:70000"], "not HOST:PORT"),
                        (["--listen", "192.0.2.77:0"], "cannot listen"),
                        (["--token", "short"], "--token"), (["--bogus"], "unknown option")):
        r = lptest.run([lptest.LINKPERF, "ui"] + args, timeout=10)
        check(r.rc != 0 and words in r.err, "ui %s: rc %d %r" % (args, r.rc, r.err))


@suite.case
def many_event_streams():
    """Forty event streams at once (more than one address may hold) do not stop the
    server: when they close, the API answers again and a test still runs."""
    srv = lptest.start_server("linkperf")
    ui = UI()
    ui.login()
    streams = []
    for _ in range(40):
        try:
            streams.append(Events(ui))
        except (OSError, http.client.HTTPException):
            break
    check(len(streams) >= 30, "only %d event streams opened" % len(streams))
    for s in streams:
        s.close()
    deadline = time.monotonic() + 15  # each stream's thread notices at its next keepalive
    while True:
        try:
            status, info = ui.json("GET", "/api/info")
            if status == 200:
                break
        except (OSError, http.client.HTTPException):
            pass
        check(time.monotonic() < deadline, "the API did not answer after the streams closed")
        time.sleep(0.2)
    rid = ui.run(["-c", "127.0.0.1", "-p", str(srv.port), "-t", "1"])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        _, doc = ui.json("GET", "/api/status", want=200)
        if [r["state"] for r in doc["runs"] if r["id"] == rid] == ["done"]:
            break
        time.sleep(0.2)
    check([r["state"] for r in doc["runs"] if r["id"] == rid] == ["done"], "status: %s" % doc)
    check(ui.stop() == 0, "ui exit", ui.proc.tail())


@suite.case
def history_write_failure():
    """An interval the history cannot write (here: SQLite refusing from the 3rd on, through
    a trigger, as a full disk or a damaged page would) leaves the run marked incomplete, with
    a warning on stderr and the reason in the run's error (what the page shows); the test
    itself runs and prints as usual, and the intervals written before stay"""
    import sqlite3
    db = lptest.tmp_path("history-fail.db")
    srv = lptest.start_server("linkperf", ["--no-history"])
    cli = [lptest.LINKPERF, "-c", "127.0.0.1", "-p", str(srv.port), "--db", db]
    r = lptest.run(cli + ["-t", "1"], timeout=30)
    check(r.rc == 0 and "warning" not in r.err, "first run", r.describe())
    con = sqlite3.connect(db)
    con.execute("CREATE TRIGGER lp_fail BEFORE INSERT ON intervals WHEN NEW.seq >= 3 "
                "BEGIN SELECT RAISE(ABORT, 'injected write failure'); END")
    con.commit()
    r = lptest.run(cli + ["-t", "5", "-i", "1"], timeout=40)
    check(r.rc == 0 and "receiver" in r.out, "the test did not run as usual", r.describe())
    check("warning: history" in r.err and "injected write failure" in r.err,
          "no warning on stderr", r.describe())
    row = con.execute("SELECT id, complete, error FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    seqs = sorted({s for (s,) in con.execute("SELECT seq FROM intervals WHERE run_id=?",
                                             (row[0],))})
    con.close()
    check(row[1] == 0 and "intervals could not be recorded" in row[2] and
          "injected write failure" in row[2], "the run's row: %s" % (row,))
    check(seqs == [1, 2], "intervals kept: %s (want the two before the failure)" % seqs)


@suite.case
def history():
    """Runs from the page and from the CLI land in one history database: listed newest
    first, filtered by text and protocol, each with its intervals (which add up to its
    bytes), its iperf3 JSON document and a CSV export; a CLI client killed mid-test is kept,
    marked incomplete; --no-history records nothing; deleted runs are gone."""
    db = lptest.tmp_path("history-test.db")
    srv = lptest.start_server("linkperf", ["--no-history"])
    ui = UI(["--db", db])
    ui.login()
    ev = Events(ui)
    rid = ui.run(["-c", "127.0.0.1", "-p", str(srv.port), "-t", "2", "-T", "from the page"])
    ev.until(lambda e: e[1] == "state" and e[2]["id"] == rid, 30, "the page's run")
    ev.close()
    r = lptest.run([lptest.LINKPERF, "-c", "127.0.0.1", "-p", str(srv.port), "-u", "-b", "10M",
                    "-t", "2", "--db", db], timeout=30)
    check(r.rc == 0, "CLI UDP run", r.describe())
    r = lptest.run([lptest.LINKPERF, "-c", "127.0.0.1", "-p", str(srv.port), "-t", "1",
                    "--db", db, "--no-history"], timeout=30)
    check(r.rc == 0, "CLI --no-history run", r.describe())
    killed = lptest.start_client("linkperf", "127.0.0.1", srv.port, ["-t", "30", "--db", db])
    time.sleep(2.5)
    killed.signal(9)
    killed.wait(10)
    _, doc = ui.json("GET", "/api/history", want=200)
    runs = doc["runs"]
    check(len(runs) == 3, "history has %d runs, want 3 (page, CLI UDP, killed): %s" % (
        len(runs), [r["command"] for r in runs]))
    cut, udp, page = runs
    check(page["source"] == "ui" and page["title"] == "from the page" and page["complete"] == 1
          and page["proto"] == "tcp" and page["host"] == "127.0.0.1" and page["bytes"] > 0,
          "the page's run: %s" % page)
    check(udp["source"] == "cli" and udp["proto"] == "udp" and udp["complete"] == 1 and
          "-u -b 10M" in udp["command"] and udp["packets"] > 0, "the CLI run: %s" % udp)
    check(cut["complete"] == 0 and "-t 30" in cut["command"], "the killed run: %s" % cut)
    _, doc = ui.json("GET", "/api/history?proto=udp", want=200)
    check([r["id"] for r in doc["runs"]] == [udp["id"]], "proto=udp: %s" % doc["runs"])
    _, doc = ui.json("GET", "/api/history?q=FROM%20THE", want=200)
    check([r["id"] for r in doc["runs"]] == [page["id"]], "q=FROM THE: %s" % doc["runs"])
    _, doc = ui.json("GET", "/api/history?since=%d" % (page["started_ms"] + 1), want=200)
    check(page["id"] not in [r["id"] for r in doc["runs"]], "since filter: %s" % doc["runs"])
    _, one = ui.json("GET", "/api/history/%d" % page["id"], want=200)
    sums = [iv for iv in one["intervals"] if iv["stream"] == 0]
    total = sum(iv["bytes"] for iv in sums)
    # the stored rows of a completed run add up to its bytes exactly, as its rows did
    check(len(sums) >= 2 and total == page["bytes"],
          "interval sums %d vs run bytes %d (%d intervals)" % (total, page["bytes"], len(sums)))
    _, cut_one = ui.json("GET", "/api/history/%d" % cut["id"], want=200)
    check(len([iv for iv in cut_one["intervals"] if iv["stream"] == 0]) >= 1,
          "the killed run kept no intervals: %s" % cut_one)
    status, h, body = ui.request("GET", "/api/history/%d/result.json" % page["id"])
    doc = lptest.parse_json(body.decode(), "result.json")
    check(status == 200 and "attachment" in h.get("content-disposition", "") and
          doc["end"]["sum_sent"]["bytes"] > 0 and doc["start"]["test_start"]["protocol"] == "TCP",
          "result.json: %d %s" % (status, str(doc)[:200]))
    status, h, body = ui.request("GET", "/api/history/%d/intervals.csv" % udp["id"])
    rows = body.decode().splitlines()
    check(status == 200 and rows[0].startswith("run,interval,stream") and
          len(rows) - 1 == len(ui.json("GET", "/api/history/%d" % udp["id"])[1]["intervals"]),
          "intervals.csv: %d %s" % (status, rows[:3]))
    for path in ("/api/history/99999", "/api/history/abc", "/api/history/1/nothing",
                 "/api/history/%d/intervals.csv" % 99999):
        status, _ = ui.json("GET", path)
        check(status == 404, "GET %s: %d" % (path, status))
    status, _ = ui.json("GET", "/api/history?proto=sctp")
    check(status == 400, "proto=sctp: %d" % status)
    _, doc = ui.json("POST", "/api/history/delete", {"id": udp["id"]}, want=200)
    status, _ = ui.json("GET", "/api/history/%d" % udp["id"])
    check(status == 404, "deleted run still there: %d" % status)
    status, _ = ui.json("POST", "/api/history/delete", {"id": udp["id"]})
    check(status == 404, "second delete: %d" % status)
    check(ui.stop() == 0, "linkperf ui did not exit 0 (a sanitizer report?)", ui.proc.tail())


@suite.case
def history_export_is_the_json_output():
    """The page's result.json of a run is byte for byte what `-J` printed for it, intervals
    included (the history stores the document without them and puts them back from its
    interval rows): many short intervals, -P 2, UDP, --bidir, -R with the server's output
    and a -J server's own document."""
    db = lptest.tmp_path("history-export.db")
    srv = lptest.start_server("linkperf", ["--no-history"])
    printed = []
    for args in (["-t", "2", "-i", "0.1", "-P", "2", "-T", "export"],
                 ["-u", "-b", "10M", "-t", "2", "-i", "0.5"],
                 ["-t", "2", "-i", "0.25", "--bidir"],
                 ["-t", "2", "-i", "0.5", "-R", "--get-server-output"]):
        r = lptest.run([lptest.LINKPERF, "-c", "127.0.0.1", "-p", str(srv.port), "-J",
                        "--db", db] + args, timeout=30)
        check(r.rc == 0 and r.out.count('"streams"') > 4, "client %s" % args, r.describe())
        printed.append((" ".join(args), r.out))
    one = lptest.start_server("linkperf", ["-1", "-J", "--db", db])
    r = lptest.run([lptest.LINKPERF, "-c", "127.0.0.1", "-p", str(one.port), "-t", "2", "-i",
                    "0.5", "--no-history"], timeout=30)
    check(r.rc == 0 and one.proc.wait(10) == 0, "the -J server's test", r.describe(),
          one.proc.tail())
    printed.append(("server", one.proc.stdout))
    ui = UI(["--db", db])
    _, doc = ui.json("GET", "/api/history", want=200)
    runs = list(reversed(doc["runs"]))
    check(len(runs) == len(printed), "history has %d runs, want %d" % (len(runs), len(printed)))
    for (what, out), run in zip(printed, runs):
        status, _, body = ui.request("GET", "/api/history/%d/result.json" % run["id"])
        check(status == 200 and body.decode() == out,
              "%s: result.json (%d, %d bytes) is not what -J printed (%d bytes)" % (
                  what, status, len(body), len(out)))
    check(ui.stop() == 0, "linkperf ui did not exit 0", ui.proc.tail())


@suite.case
def profiles():
    """Named settings: saved (a name can be replaced), listed by name, deleted; bad names
    and arguments are refused; they live in the history database, so they outlast the
    server."""
    db = lptest.tmp_path("profiles-test.db")
    ui = UI(["--db", db])
    ui.login()
    lab = ["-c", "192.0.2.7", "-u", "-b", "50M", "-T", "lab board"]
    ui.json("POST", "/api/profiles/save", {"name": "lab UDP", "args": lab}, want=200)
    ui.json("POST", "/api/profiles/save", {"name": "a TCP", "args": ["-c", "x"]}, want=200)
    ui.json("POST", "/api/profiles/save", {"name": "a TCP", "args": ["-c", "y", "-P", "4"]},
            want=200)
    _, doc = ui.json("GET", "/api/profiles", want=200)
    check([(p["name"], p["args"]) for p in doc["profiles"]] ==
          [("a TCP", ["-c", "y", "-P", "4"]), ("lab UDP", lab)], "profiles: %s" % doc)
    for body, words in (({"name": "", "args": []}, "name"), ({"name": "x" * 65, "args": []}, "name"),
                        ({"name": "bad\nname", "args": []}, "control"),
                        ({"name": "n", "args": "-c x"}, "array"),
                        ({"name": "n", "args": ["x" * 2000]}, "array")):
        status, doc = ui.json("POST", "/api/profiles/save", body)
        check(status == 400 and words in doc["error"], "save %s: %d %s" % (str(body)[:40],
                                                                           status, doc))
    status, _ = ui.json("POST", "/api/profiles/delete", {"name": "nope"})
    check(status == 404, "delete of no profile: %d" % status)
    check(ui.stop() == 0, "ui exit", ui.proc.tail())
    ui = UI(["--db", db])
    ui.login()
    ui.json("POST", "/api/profiles/delete", {"name": "a TCP"}, want=200)
    _, doc = ui.json("GET", "/api/profiles", want=200)
    check([p["name"] for p in doc["profiles"]] == ["lab UDP"], "after delete: %s" % doc)
    check(ui.stop() == 0, "ui exit", ui.proc.tail())


@suite.case
def server_with_web():
    """linkperf -s --web: a stock iperf3 client's test shows on the page as it runs (the
    server's run, then the test's records and text), is recorded in the history as a server
    test (connections that never became a test are not), and the page's Stop ends the
    server."""
    db = lptest.tmp_path("server-web.db")
    port = lptest.free_port()
    ui = UI(argv=[lptest.LINKPERF, "-s", "-p", str(port), "--web", "127.0.0.1:0", "--db", db])
    lptest.wait_listening(ui.proc, port)
    ui.login()
    ev = Events(ui)
    seen = ev.until(lambda e: e[1] == "run", 10, "the server's run")
    sid = seen[-1][2]["id"]
    check(seen[-1][2]["args"][:1] == ["-s"], "server run: %s" % seen[-1][2])
    # Never tests, so no history (300 zero bytes would be one: an iperf2 -C client's data).
    for junk in (b"GET / HTTP/1.0\r\n\r\n", b""):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(junk)
        time.sleep(0.2)
        s.close()
    r = lptest.run([lptest.IPERF3, "-c", "127.0.0.1", "-p", str(port), "-t", "2"], timeout=30)
    check(r.rc == 0, "stock iperf3 client", r.describe())
    seen = ev.until(lambda e: e[1] == "rec" and e[2]["rec"]["event"] == "end", 15,
                    "the test's end record")
    test = seen[-1][2]["test"]  # the stock client's test, whatever number the junk left it
    ivs = [d["rec"]["data"] for _, n, d in seen if n == "rec" and d["id"] == sid and
           d["test"] == test and d["rec"]["event"] == "interval"]
    end = seen[-1][2]["rec"]["data"]
    check(test > 0 and len(ivs) >= 1 and ivs[0]["sum"]["bits_per_second"] > 0 and
          end["sum_received"]["bytes"] > 0,
          "server test %d: %d intervals: %s" % (test, len(ivs), [
              (d["test"], d["rec"]["event"]) for _, n, d in seen if n == "rec"]))
    lines = [d["line"] for _, n, d in seen if n == "text" and d["id"] == sid]
    check(any("Accepted connection" in ln for ln in lines), "server text: %s" % lines[:5])
    _, doc = ui.json("GET", "/api/history", want=200)
    check([(x["role"], x["source"], x["complete"]) for x in doc["runs"]] ==
          [("server", "cli", 1)], "history: %s" % doc["runs"])
    ui.json("POST", "/api/stop", {"id": sid}, want=200)
    ev.until(lambda e: e[1] == "state" and e[2]["id"] == sid, 10, "the server's end")
    ev.close()
    check(ui.proc.wait(10) == 0, "the server did not exit 0 after the page's Stop",
          ui.proc.tail())


def lp_server(port, *args):
    proc = lptest.Proc([lptest.LINKPERF, "-s", "-p", str(port), "--no-history"] + list(args),
                       120, name="linkperf-s")
    lptest.wait_listening(proc, port)
    return proc


@suite.case
def stored_latency():
    """A bounceback run recorded by the page: its stored intervals carry each stream's
    latency (read from the interval documents, the one place it is kept) with the numbers
    the live records had, and the stored end has the histogram the latency CDF is drawn
    from."""
    db = lptest.tmp_path("latency.db")
    port = lptest.free_port()
    srv = lp_server(port)
    ui = UI(["--db", db])
    ui.login()
    ev = Events(ui)
    _, doc = ui.json("POST", "/api/run", {"args": ["-c", "127.0.0.1", "-p", str(port),
                                                   "--dialect", "iperf2", "--bounceback",
                                                   "-t", "2"]}, want=200)
    rid = doc["id"]
    seen = ev.until(lambda e: e[1] == "state" and e[2]["id"] == rid, 30, "the run's end")
    check(seen[-1][2]["state"] == "done", "bounceback run: %s" % seen[-1][2])
    live = [d["rec"]["data"]["streams"][0].get("latency") for d in events_of(seen, rid, "rec")
            if d["rec"]["event"] == "interval"]
    _, hist = ui.json("GET", "/api/history", want=200)
    hid = hist["runs"][0]["id"]
    _, det = ui.json("GET", "/api/history/%d" % hid, want=200)
    stored = [r.get("latency") for r in det["intervals"] if r["stream"] > 0]
    # the same objects (an interval of a loaded machine may have no round trip: count 0)
    check(len(live) >= 2 and stored == live and sum(x["count"] for x in live) > 0,
          "stored latency %s vs live %s" % (stored, live))
    check(all("latency" not in r for r in det["intervals"] if r["stream"] <= 0),
          "the sums have no latency of their own: %s" % det["intervals"])
    buckets = det["end"]["streams"][0]["sender"]["latency"]["histogram"]["buckets"]
    check(sum(b[2] for b in buckets) == sum(x["count"] for x in live),
          "histogram of %s vs %d round trips" % (buckets, sum(x["count"] for x in live)))
    # A plain TCP run's rows have no latency.
    _, doc = ui.json("POST", "/api/run", {"args": ["-c", "127.0.0.1", "-p", str(port),
                                                   "-t", "1"]}, want=200)
    ev.until(lambda e: e[1] == "state" and e[2]["id"] == doc["id"], 30, "the TCP run's end")
    _, hist = ui.json("GET", "/api/history", want=200)
    _, det = ui.json("GET", "/api/history/%d" % hist["runs"][0]["id"], want=200)
    check(det["intervals"] and all("latency" not in r for r in det["intervals"]) and
          "report" not in det, "TCP run: %s" % str(det)[:300])
    ev.close()
    check(ui.stop() == 0, "ui exit", ui.proc.tail())
    srv.kill()


@suite.case
def measurements():
    """rfc2544 and under-load from the page: the subcommands' own parser checks them (its
    messages, the option named), the run publishes progress (what is tried, time left) and
    the report, and the history keeps the report (reopenable, exported as result.json)."""
    port = lptest.free_port()
    srv = lp_server(port)
    db = lptest.tmp_path("measure.db")
    ui = UI(["--db", db])
    ui.login()
    for args, words, option in (
            (["rfc2544", "-c", "127.0.0.1"], "give the line rate with -b", ""),
            (["rfc2544", "-c", "127.0.0.1", "-b", "50m", "--frames", "12"], "--frames", "--frames"),
            (["rfc2544", "-c", "127.0.0.1", "-b", "50m", "--bogus", "1"], "unknown option", "--bogus"),
            (["rfc2544", "-c", "127.0.0.1", "-b", "50m", "-J"], "report as JSON", "-J/--json"),
            (["under-load", "-c", "127.0.0.1", "--db", lptest.tmp_path("x.db")], "writes no files", "--db"),
            (["rfc2544", "--help"], "not a test", ""),
            (["under-load", "-c", "127.0.0.1", "-t", "1"], "out of range (2..3600", "-t"),
            (["under-load", "-P"], "needs a value", "-P")):
        status, doc = ui.json("POST", "/api/check", {"args": args})
        check(status == 200 and doc["ok"] is False and words in doc["error"] and
              doc.get("option", "") == option,
              "check %s: %d %s" % (args, status, doc))
    status, doc = ui.json("POST", "/api/check", {"args": ["rfc2544", "-c", "h", "-b", "1g"]})
    check(status == 200 and doc["ok"] and doc["command"] == "linkperf rfc2544 -c h -b 1g",
          "check: %s" % doc)
    ev = Events(ui)
    args = ["rfc2544", "-c", "127.0.0.1", "-p", str(port), "-b", "50m", "--frames", "64,1518",
            "--trial", "0.5", "--resolution", "20", "--tests", "throughput", "--max-time", "120"]
    _, doc = ui.json("POST", "/api/run", {"args": args}, want=200)
    rid = doc["id"]
    seen = ev.until(lambda e: e[1] == "state" and e[2]["id"] == rid, 120, "the rfc2544 run's end")
    check(seen[-1][2]["state"] == "done", "rfc2544 run: %s" % seen[-1][2])
    prog = [d["progress"] for d in events_of(seen, rid, "progress")]
    check(prog and {p["frame_bytes"] for p in prog} == {64, 1518} and
          all(p["test"] == "throughput" and 0 < p["line_fraction"] <= 1 and p["left_bound"] and
              0 <= p["left_s"] <= 120 and "s left)" in p["line"] for p in prog),
          "progress: %s" % prog[:3])
    texts = [d["line"] for d in events_of(seen, rid, "text")]
    check(texts == [p["line"] for p in prog], "text lines: %s" % texts[:3])
    rep = events_of(seen, rid, "report")
    check(len(rep) == 1, "report events: %d" % len(rep))
    frames = rep[0]["report"]["rfc2544"]["frames"]
    check([f["frame_bytes"] for f in frames] == [64, 1518] and
          all(0 < f["throughput"]["line_fraction"] <= 1 for f in frames), "report: %s" % frames)
    _, hist = ui.json("GET", "/api/history", want=200)
    row = hist["runs"][0]
    check(row["command"] == "linkperf " + " ".join(args) and row["complete"] == 1 and
          row["proto"] == "udp" and row["port"] == port, "history row: %s" % row)
    _, det = ui.json("GET", "/api/history/%d" % row["id"], want=200)
    check(det["report"] == rep[0]["report"] and det["intervals"] == [],
          "stored report: %s" % str(det)[:300])
    status, _, body = ui.request("GET", "/api/history/%d/result.json" % row["id"])
    check(status == 200 and json.loads(body) == rep[0]["report"], "result.json: %d" % status)

    # under-load, stopped in its second phase: the report has the idle phase.
    args = ["under-load", "-c", "127.0.0.1", "-p", str(port), "-t", "2", "-P", "2"]
    _, doc = ui.json("POST", "/api/run", {"args": args}, want=200)
    rid = doc["id"]
    ev.until(lambda e: e[1] == "progress" and e[2]["id"] == rid and
             e[2]["progress"]["test"] == "up", 60, "the under-load's second phase")
    ui.json("POST", "/api/stop", {"id": rid}, want=200)
    seen = ev.until(lambda e: e[1] == "state" and e[2]["id"] == rid, 60, "the under-load's end")
    check(seen[-1][2]["state"] == "stopped", "under-load run: %s" % seen[-1][2])
    prog = [d["progress"] for d in events_of(seen, rid, "progress")]
    check([(p["test"], p["step"], p["steps"]) for p in prog] == [("idle", 1, 4), ("up", 2, 4)] and
          prog[0]["left_s"] > prog[1]["left_s"] > 0, "under-load progress: %s" % prog)
    phases = events_of(seen, rid, "report")[0]["report"]["under_load"]["phases"]
    check(phases[0]["name"] == "idle" and phases[0]["rtt"]["count"] > 0, "phases: %s" % phases)
    _, hist = ui.json("GET", "/api/history", want=200)
    check(hist["runs"][0]["complete"] == 0 and hist["runs"][0]["command"].startswith(
        "linkperf under-load"), "stopped under-load row: %s" % hist["runs"][0])
    ev.close()
    check(ui.stop() == 0, "ui exit", ui.proc.tail())
    srv.kill()


if __name__ == "__main__":
    suite.main()

"""Helpers for the web UI's tests: start `linkperf ui` on a free loopback port, call its JSON
API (with the CSRF token the page would read), and follow its Server-Sent Events in a thread.
Standard library only; processes come from lptest (tests/interop), so they die with the case."""

import http.client
import json
import os
import queue
import re
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
import lptest  # noqa: E402
from lptest import Proc, TestFailure, check  # noqa: E402,F401


class UI:
    """A running `linkperf ui` (or, with argv, another linkperf that serves the page, such as
    `linkperf -s --web`). host/port from the URL it prints."""

    def __init__(self, args=(), timeout=120, argv=None):
        self.proc = Proc(argv or [lptest.LINKPERF, "ui", "--listen", "127.0.0.1:0"] + list(args),
                         timeout, name="linkperf-ui")
        deadline = time.monotonic() + 10
        m = None
        while time.monotonic() < deadline and self.proc.alive():
            m = re.search(r"(?:linkperf ui:|web page at) (http://([\d.]+):(\d+)/\S*)",
                          self.proc.stdout + self.proc.stderr)
            if m:
                break
            time.sleep(0.05)
        check(m, "linkperf ui printed no URL", self.proc.tail())
        self.url, self.host, self.port = m.group(1), m.group(2), int(m.group(3))
        self.token = None
        t = re.search(r"[?&]token=([^&\s]+)", self.url)
        if t:
            self.token = t.group(1)
        self.csrf = None

    def request(self, method, path, body=None, headers=None, raw=None):
        """(status, headers dict, body bytes). body: an object sent as JSON; raw: bytes."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=10)
        h = {"Host": "%s:%d" % (self.host, self.port)}
        if self.token:
            h["X-Linkperf-Token"] = self.token
        if body is not None:
            raw = json.dumps(body).encode()
            h["Content-Type"] = "application/json"
            if self.csrf:
                h["X-CSRF-Token"] = self.csrf
        h.update(headers or {})
        try:
            c.request(method, path, body=raw, headers=h)
            r = c.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
        finally:
            c.close()

    def json(self, method, path, body=None, headers=None, raw=None, want=None):
        status, hdrs, data = self.request(method, path, body, headers, raw)
        try:
            doc = json.loads(data)
        except ValueError:
            raise TestFailure("%s %s: status %d, not JSON: %r" % (method, path, status, data[:200]))
        if want is not None:
            check(status == want, "%s %s: status %d, want %d: %s" % (method, path, status, want,
                                                                      doc))
        return status, doc

    def login(self):
        _, info = self.json("GET", "/api/info", want=200)
        self.csrf = info["csrf"]
        return info

    def run(self, args):
        _, doc = self.json("POST", "/api/run", {"args": list(args)}, want=200)
        return doc["id"]

    def stop(self):
        self.proc.signal(2)  # SIGINT: what Ctrl-C sends
        return self.proc.wait(20)


class Events:
    """A thread reading /api/events; events() are (id, name, data object) in order."""

    def __init__(self, ui, since=None, headers=None):
        self.q = queue.Queue()
        self.seen = []
        path = "/api/events" + ("?since=%d" % since if since is not None else "")
        if ui.token:
            path += ("&" if "?" in path else "?") + "token=" + ui.token
        self.conn = http.client.HTTPConnection(ui.host, ui.port, timeout=30)
        h = {"Host": "%s:%d" % (ui.host, ui.port)}
        h.update(headers or {})
        self.conn.request("GET", path, headers=h)
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.type = self.resp.getheader("Content-Type")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        ev = {}
        try:
            for raw in self.resp:
                line = raw.decode("utf-8").rstrip("\n")
                if line == "":
                    if "data" in ev:
                        self.q.put((int(ev.get("id", 0)), ev.get("event", "message"),
                                    json.loads(ev["data"])))
                    ev = {}
                elif line.startswith(":"):
                    continue
                else:
                    k, _, v = line.partition(": ")
                    ev[k] = v
        except Exception:  # closed by close(), or by the server: the stream ends
            pass
        self.q.put(None)

    def until(self, pred, timeout, what):
        """Collect events until pred(event) is true; returns every event seen so far."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            check(left > 0, "no %s within %ss; saw %s" % (what, timeout, [
                (e[1], str(e[2])[:80]) for e in self.seen[-8:]]))
            try:
                e = self.q.get(timeout=left)
            except queue.Empty:
                continue
            check(e is not None, "the event stream ended before %s" % what)
            self.seen.append(e)
            if pred(e):
                return self.seen

    def close(self):
        try:
            self.conn.sock.shutdown(2)
        except (OSError, AttributeError):
            pass
        try:
            self.conn.close()
        except Exception:  # a half-read response may already be gone
            pass

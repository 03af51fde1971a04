"""Shared helpers for linkperf's interop tests (stdlib only).

Each tests/interop/test_*.py builds a Suite, registers one function per case and calls
suite.main(). The helpers here start linkperf / iperf3 processes with a hard deadline,
wait for servers to listen, run clients, parse iperf3-style JSON and text rows, and make
sure every process a test started is dead when the case (or the script) ends.

What this module deliberately does not do: timing assertions (machines are noisy), or
anything that needs a package outside the Python standard library.
"""

import atexit
import contextlib
import ctypes
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.environ.get("LP_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))
LINKPERF = os.environ.get("LINKPERF") or os.path.join(SOURCE_DIR, "build-it", "linkperf")
# The stock iperf3 every test talks to: $LINKPERF_IPERF3 when set (make check-iperf3-new runs
# the iperf3 files against $LINKPERF_IPERF3_NEW that way), else the one on PATH (Debian's 3.12).
IPERF3 = os.environ.get("LINKPERF_IPERF3") or shutil.which("iperf3") or "/usr/bin/iperf3"
# A second, newer stock iperf3 (e.g. 3.21) that some files also compare with, or None.
IPERF3_NEW = os.environ.get("LINKPERF_IPERF3_NEW") or None
CI = os.environ.get("CI", "").lower() == "true"
LOOP4 = "127.0.0.1"
LOOP6 = "::1"

# --------------------------------------------------------------------------- processes

_ALL_PROCS = []          # every Proc ever started; atexit kills the live ones
_ALL_LOCK = threading.Lock()
_TMPDIR = tempfile.mkdtemp(prefix="lpinterop-")
# linkperf records every test in a history database under $XDG_DATA_HOME: the tests' go into
# their own temporary directory, never the user's.
os.environ["XDG_DATA_HOME"] = _TMPDIR


def _pdeathsig():
    """Runs in the child before exec: die with SIGKILL if the test process dies (even
    when CTest SIGKILLs us on its timeout, so no iperf3 server outlives the test)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)          # PR_SET_PDEATHSIG
    except Exception:
        pass


class Proc:
    """A child process with stdout/stderr in files (no pipe can fill and stall it), a hard
    deadline after which a watchdog SIGKILLs it, and kill() that always reaps."""

    def __init__(self, argv, timeout, name=None, env=None, stdin=subprocess.DEVNULL):
        self.argv = [str(a) for a in argv]
        self.name = name or os.path.basename(self.argv[0])
        fd, self.out_path = tempfile.mkstemp(prefix=self.name + "-", suffix=".out", dir=_TMPDIR)
        os.close(fd)
        fd, self.err_path = tempfile.mkstemp(prefix=self.name + "-", suffix=".err", dir=_TMPDIR)
        os.close(fd)
        self._out = open(self.out_path, "wb")
        self._err = open(self.err_path, "wb")
        self.started = time.monotonic()
        self.timed_out = False
        # PDEATHSIG fires when the *thread* that forked exits, so only use it from the
        # main thread (every test starts its processes there).
        pre = _pdeathsig if threading.current_thread() is threading.main_thread() else None
        self.popen = subprocess.Popen(self.argv, stdout=self._out, stderr=self._err,
                                      stdin=stdin, env=env, preexec_fn=pre)
        self.pid = self.popen.pid
        self._timer = threading.Timer(timeout, self._expire)
        self._timer.daemon = True
        self._timer.start()
        with _ALL_LOCK:
            _ALL_PROCS.append(self)

    def _expire(self):
        if self.popen.poll() is None:
            self.timed_out = True
            try:
                self.popen.kill()
            except OSError:
                pass

    def alive(self):
        return self.popen.poll() is None

    def wait(self, timeout=None):
        """Exit status; on timeout kill it and raise TestFailure."""
        try:
            rc = self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise TestFailure("%s did not exit within %ss: %s\n%s" % (
                self.name, timeout, " ".join(self.argv), self.tail()))
        self._close()
        return rc

    def signal(self, sig):
        if self.alive():
            try:
                self.popen.send_signal(sig)
            except OSError:
                pass

    def kill(self):
        if self.alive():
            try:
                self.popen.kill()
            except OSError:
                pass
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._close()

    def _close(self):
        self._timer.cancel()
        for f in (self._out, self._err):
            try:
                f.close()
            except OSError:
                pass

    @property
    def returncode(self):
        return self.popen.returncode

    @property
    def stdout(self):
        with open(self.out_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    @property
    def stderr(self):
        with open(self.err_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def tail(self, n=15):
        out = self.stdout.splitlines()[-n:]
        err = self.stderr.splitlines()[-n:]
        return "  [%s stdout tail]\n    %s\n  [%s stderr tail]\n    %s" % (
            self.name, "\n    ".join(out), self.name, "\n    ".join(err))


def kill_all():
    with _ALL_LOCK:
        procs = list(_ALL_PROCS)
    for p in procs:
        p.kill()


def _kill_started_after(index):
    with _ALL_LOCK:
        procs = _ALL_PROCS[index:]
    for p in procs:
        p.kill()


# atexit runs these last-registered-first: kill every child, then remove the temp dir
atexit.register(lambda: shutil.rmtree(_TMPDIR, ignore_errors=True))
atexit.register(kill_all)


def _on_term(signum, frame):
    kill_all()
    sys.exit(128 + signum)


signal.signal(signal.SIGTERM, _on_term)


def tmp_path(name):
    """A path in this script's private temp directory (removed at exit)."""
    return os.path.join(_TMPDIR, name)


# --------------------------------------------------------------------------- ports

def free_port():
    """A port number that is free on TCP and UDP, IPv4 and IPv6 (kernel picks it by
    binding port 0 on TCP; the other three binds check it). Racy by nature, so
    start_server() retries with a new port when the server cannot bind."""
    for _ in range(50):
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            t.bind(("", 0))
            port = t.getsockname()[1]
            ok = True
            for fam, typ in ((socket.AF_INET, socket.SOCK_DGRAM),
                             (socket.AF_INET6, socket.SOCK_STREAM),
                             (socket.AF_INET6, socket.SOCK_DGRAM)):
                s = socket.socket(fam, typ)
                try:
                    if fam == socket.AF_INET6:
                        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                    s.bind(("", port))
                except OSError:
                    ok = False
                finally:
                    s.close()
            if ok:
                return port
        finally:
            t.close()
    raise TestFailure("could not find a free port")


def port_bound(port, udp=False, pid=None):
    """True if an unconnected socket is bound on this port: TCP in LISTEN state, or UDP.
    Read from /proc (pid: that process's network namespace, e.g. a server started with
    `ip netns exec`), so the check never connects: a probe connection would count as a test
    on a -1 server."""
    want = ":%04X" % port
    base = "/proc/%d/net/" % pid if pid else "/proc/net/"
    for name in (("udp", "udp6") if udp else ("tcp", "tcp6")):
        try:
            with open(base + name) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[1].endswith(want) and parts[2].endswith(":0000") and \
                            (udp or parts[3] == "0A"):
                        return True
        except (OSError, StopIteration):
            pass
    return False


def tcp_listening(port):
    """True if some socket is in LISTEN state on this TCP port (see port_bound)."""
    return port_bound(port)


def wait_listening(proc, port, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if tcp_listening(port):
            return True
        if proc is not None and not proc.alive():
            return False
        time.sleep(0.02)
    return False


def wait_connectable(host, port, timeout=10.0):
    """Poll connect() until it succeeds (only for servers where a probe is harmless)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


# --------------------------------------------------------------------------- servers/clients

class Server:
    def __init__(self, proc, port, kind):
        self.proc, self.port, self.kind = proc, port, kind

    def stop(self, timeout=10):
        """SIGTERM, then wait (SIGKILL after timeout). Returns the exit status."""
        self.proc.signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except TestFailure:
            return None

    def finish(self, timeout=15):
        """Wait for a one-off (-1) server to exit by itself; fail if it does not."""
        return self.proc.wait(timeout)

    @property
    def stdout(self):
        return self.proc.stdout

    @property
    def stderr(self):
        return self.proc.stderr

    def json(self):
        return parse_json(self.proc.stdout, "%s server stdout" % self.kind)

    def json_docs(self):
        return parse_json_docs(self.proc.stdout)


def start_server(kind, args=(), timeout=80, port=None, ready=True, env=None):
    """Start `linkperf -s` or `iperf3 -s` (kind = "linkperf" | "iperf3") on a free port with
    extra args (and extra environment variables `env`); wait until it listens. Retries on a
    port race. The process is killed at the end of the case at the latest."""
    exe = LINKPERF if kind == "linkperf" else IPERF3
    last = None
    full_env = dict(os.environ, **env) if env else None
    for _ in range(4):
        p = port or free_port()
        proc = Proc([exe, "-s", "-p", p] + list(args), timeout, name=kind + "-s", env=full_env)
        if not ready:
            return Server(proc, p, kind)
        if wait_listening(proc, p):
            return Server(proc, p, kind)
        last = proc
        proc.kill()
        if port:
            break
    raise TestFailure("%s server did not start listening\n%s" % (kind, last.tail()))


def start_client(kind, host, port, args=(), timeout=60):
    exe = LINKPERF if kind == "linkperf" else IPERF3
    return Proc([exe, "-c", host, "-p", port] + list(args), timeout, name=kind + "-c")


class Result:
    def __init__(self, proc):
        self.proc = proc
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.elapsed = time.monotonic() - proc.started

    def json(self):
        return parse_json(self.out, "%s stdout" % self.proc.name)

    def describe(self):
        killed = " (killed by the harness: it ran past its deadline)" if self.proc.timed_out \
            else ""
        return "%s -> rc=%s%s after %.1fs\n%s" % (" ".join(self.proc.argv), self.rc, killed,
                                                 self.elapsed, self.proc.tail())


def run(argv, timeout=60, name=None):
    """Run a command to completion (hard timeout) and return a Result."""
    p = Proc(argv, timeout, name=name)
    p.wait(timeout + 5)
    return Result(p)


def run_client(kind, host, port, args=(), timeout=60):
    p = start_client(kind, host, port, args, timeout)
    p.wait(timeout + 5)
    return Result(p)


def linkperf(*args, timeout=30):
    return run([LINKPERF] + list(args), timeout, name="linkperf")


def iperf3(*args, timeout=30):
    return run([IPERF3] + list(args), timeout, name="iperf3")


_VERSIONS = {}


@contextlib.contextmanager
def stock_iperf3(exe):
    """Within the block, "iperf3" in start_server/start_client/Pair/iperf3() means exe."""
    global IPERF3
    saved, IPERF3 = IPERF3, exe
    try:
        yield exe
    finally:
        IPERF3 = saved


def iperf3_version(exe=None):
    """(major, minor) of a stock iperf3 from its `--version` ("iperf 3.21+ (cJSON 1.7.15)"
    -> (3, 21)); exe defaults to IPERF3. For tests whose expectations legitimately differ
    between iperf3 versions."""
    exe = exe or IPERF3
    if exe not in _VERSIONS:
        r = run([exe, "--version"], 10, name="iperf3")
        m = re.search(r"iperf (\d+)\.(\d+)", r.out + r.err)
        check(m is not None, "cannot read the version of " + exe, r.describe())
        _VERSIONS[exe] = (int(m.group(1)), int(m.group(2)))
    return _VERSIONS[exe]


# --------------------------------------------------------------------------- socket options

_TCP_ESTABLISHED = "01"


def proc_net_sockets():
    """inode -> (proto, local_port, remote_port, state) for every TCP/UDP socket."""
    out = {}
    for proto, path in (("tcp", "/proc/net/tcp"), ("tcp", "/proc/net/tcp6"),
                        ("udp", "/proc/net/udp"), ("udp", "/proc/net/udp6")):
        try:
            with open(path) as f:
                next(f)
                for line in f:
                    p = line.split()
                    lport = int(p[1].rsplit(":", 1)[1], 16)
                    rport = int(p[2].rsplit(":", 1)[1], 16)
                    out[p[9]] = (proto, lport, rport, p[3])
        except OSError:
            pass
    return out


_libc = ctypes.CDLL(None, use_errno=True)
_SYS_pidfd_getfd = 438          # x86_64 and aarch64 (generic table) alike


def _grab_socket(pid, fd):
    """Duplicate another process's socket fd into ours (pidfd_getfd, Linux 5.6+, needs
    ptrace rights: root). Returns a socket object owning the duplicate, or None."""
    try:
        pfd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        return None
    try:
        nfd = _libc.syscall(_SYS_pidfd_getfd, pfd, fd, 0)
        if nfd < 0:
            return None
        return socket.socket(fileno=nfd)
    except OSError:
        return None
    finally:
        os.close(pfd)


_GRAB_OK = None


def can_grab_sockets():
    """Whether pidfd_getfd works here (probed on a socket of our own)."""
    global _GRAB_OK
    if _GRAB_OK is None:
        probe = socket.socket()
        try:
            s = _grab_socket(os.getpid(), probe.fileno())
            _GRAB_OK = s is not None
            if s is not None:
                s.close()
        finally:
            probe.close()
    return _GRAB_OK


def _opt(s, level, name, buflen=None):
    try:
        if buflen:
            return s.getsockopt(level, name, buflen).split(b"\0", 1)[0].decode()
        return s.getsockopt(level, name)
    except OSError:
        return None


def socket_options(s):
    fam_v6 = s.family == socket.AF_INET6
    o = {"family": "ipv6" if fam_v6 else "ipv4",
         "type": "udp" if s.type == socket.SOCK_DGRAM else "tcp",
         "sndbuf": _opt(s, socket.SOL_SOCKET, socket.SO_SNDBUF),
         "rcvbuf": _opt(s, socket.SOL_SOCKET, socket.SO_RCVBUF),
         "tos": _opt(s, socket.IPPROTO_IP, socket.IP_TOS)}
    if fam_v6:
        o["tclass"] = _opt(s, socket.IPPROTO_IPV6, socket.IPV6_TCLASS)
    if o["type"] == "tcp":
        o["nodelay"] = _opt(s, socket.IPPROTO_TCP, socket.TCP_NODELAY)
        o["maxseg"] = _opt(s, socket.IPPROTO_TCP, socket.TCP_MAXSEG)
        o["congestion"] = _opt(s, socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
    try:
        o["local"] = s.getsockname()[:2]
        o["peer"] = s.getpeername()[:2]
    except OSError:
        o["peer"] = None
    return o


def sample_sockets(proc, port, want, timeout=4.0, settle=0.3):
    """While `proc` runs a test against/on `port`, read the options of its connected sockets
    that involve `port` (its TCP control + data connections, its connected UDP sockets).
    Returns {client_side_port: options}: for a client process that is its local port, for a
    server process the peer's port, so it matches start.connected[].local_port in the
    client's JSON. Stops `settle` s after `want` such sockets were seen, or at timeout."""
    found = {}
    deadline = time.monotonic() + timeout
    seen_all_at = None
    while time.monotonic() < deadline and proc.alive():
        entries = proc_net_sockets()
        try:
            fds = os.listdir("/proc/%d/fd" % proc.pid)
        except OSError:
            break
        for fd in fds:
            try:
                link = os.readlink("/proc/%d/fd/%s" % (proc.pid, fd))
            except OSError:
                continue
            m = re.match(r"socket:\[(\d+)\]", link)
            if not m or m.group(1) not in entries:
                continue
            proto, lport, rport, state = entries[m.group(1)]
            if rport == 0 or port not in (lport, rport):
                continue
            if proto == "tcp" and state != _TCP_ESTABLISHED:
                continue
            s = _grab_socket(proc.pid, int(fd))
            if s is None:
                continue
            try:
                opts = socket_options(s)
            finally:
                s.close()
            key = rport if lport == port else lport
            opts["proto"] = proto
            found[(proto, key)] = opts
        if len(found) >= want and seen_all_at is None:
            seen_all_at = time.monotonic()
        if seen_all_at is not None and time.monotonic() - seen_all_at >= settle:
            break
        time.sleep(0.02)
    return found


# --------------------------------------------------------------------------- JSON

def history_runs(db):
    """The runs a history database holds (oldest first), each a dict of its columns with
    result_json parsed; [] when the file does not exist."""
    import sqlite3
    if not os.path.exists(db):
        return []
    con = sqlite3.connect(db)
    try:
        con.row_factory = sqlite3.Row
        rows = [dict(r) for r in con.execute("SELECT * FROM runs ORDER BY id")]
    finally:
        con.close()
    for r in rows:
        r["result"] = json.loads(r["result_json"]) if r.get("result_json") else None
    return rows


def parse_json(text, what="output"):
    try:
        return json.loads(text)
    except ValueError as e:
        raise TestFailure("%s is not one JSON document (%s): %r" % (what, e, text[:400]))


def parse_json_docs(text):
    """Concatenated JSON documents (a -J server prints one per test) → list."""
    dec = json.JSONDecoder()
    docs, i, n = [], 0, len(text)
    while True:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            return docs
        try:
            obj, i = dec.raw_decode(text, i)
        except ValueError as e:
            raise TestFailure("bad JSON at offset %d (%s): %r" % (i, e, text[i:i + 200]))
        docs.append(obj)


def json_lines(text):
    out = []
    for ln in text.splitlines():
        if ln.strip():
            try:
                out.append(json.loads(ln))
            except ValueError as e:
                raise TestFailure("line is not a JSON object (%s): %r" % (e, ln[:300]))
    return out


def key_paths(obj, prefix=""):
    """Set of key paths of a JSON value: objects by key, arrays merged as `[]`."""
    paths = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            p = prefix + "." + k if prefix else k
            paths.add(p)
            paths |= key_paths(v, p)
    elif isinstance(obj, list):
        for v in obj:
            paths |= key_paths(v, prefix + "[]")
    return paths


def get(obj, path, default=KeyError):
    """get(doc, "end.sum_sent.bytes"); integer parts index arrays."""
    cur = obj
    for part in path.split("."):
        try:
            cur = cur[int(part)] if isinstance(cur, list) else cur[part]
        except (KeyError, IndexError, ValueError, TypeError):
            if default is KeyError:
                raise TestFailure("JSON has no %s (stopped at %r)" % (path, part))
            return default
    return cur


def tcp_end_bytes(doc):
    """(sender bytes, receiver bytes) from a TCP -J document's end.sum_sent/sum_received."""
    return get(doc, "end.sum_sent.bytes"), get(doc, "end.sum_received.bytes")


# --------------------------------------------------------------------------- text rows

_UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}
_RATE = {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_ROW = re.compile(
    r"\[\s*(?P<id>\d+|SUM)\]"
    r"(?:\[(?P<role>[TR]X-[CS])\])?\s+"
    r"(?P<start>\d+\.\d+)-\s*(?P<end>\d+\.\d+)\s+sec\s+"
    r"(?P<xfer>[\d.]+)\s+(?P<xu>[KMGT]?)Bytes\s+"
    r"(?P<rate>[\d.]+)\s+(?P<ru>[KMGT]?)bits/sec"
    r"(?P<rest>.*)$")
_UDP_RX = re.compile(r"\s*(?P<jitter>[\d.]+)\s+ms\s+(?P<lost>\d+)/(?P<total>\d+)\s+\((?P<pct>[^)]*)%\)")


def parse_rows(text, title=None):
    """Parse iperf3-style interval/summary rows into dicts with: id ('SUM' or int), role,
    start, end, bytes (approximate: the text has 3-4 digits), bps, tag ('sender',
    'receiver', '(omitted)' or ''), and for UDP receivers jitter_ms, lost, total; for TCP
    senders retr. `title` strips a `-T` prefix."""
    rows = []
    for line in text.splitlines():
        if title is not None:
            pre = title + ":  "
            if line.startswith(pre):
                line = line[len(pre):]
        m = _ROW.search(line)
        if not m:
            continue
        rest = m.group("rest")
        r = {
            "id": "SUM" if m.group("id") == "SUM" else int(m.group("id")),
            "role": m.group("role"),
            "start": float(m.group("start")),
            "end": float(m.group("end")),
            "bytes": float(m.group("xfer")) * _UNITS[m.group("xu")],
            "bps": float(m.group("rate")) * _RATE[m.group("ru")],
            "tag": "",
            "line": line,
        }
        stripped = rest.strip()
        for tag in ("sender", "receiver", "(omitted)"):
            if stripped.endswith(tag):
                r["tag"] = tag
                stripped = stripped[: -len(tag)].strip()
        u = _UDP_RX.match(rest)
        if u:
            r["jitter_ms"] = float(u.group("jitter"))
            r["lost"] = int(u.group("lost"))
            r["total"] = int(u.group("total"))
        elif stripped:
            first = stripped.split()[0]
            if first.isdigit():
                r["retr_or_packets"] = int(first)
        rows.append(r)
    return rows


def summary_rows(text, tag, title=None):
    return [r for r in parse_rows(text, title) if r["tag"] == tag]


# --------------------------------------------------------------------------- checks

class TestFailure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, msg, *context):
    if not cond:
        raise TestFailure(msg + "".join("\n" + str(c) for c in context))


def eq(actual, expected, what, *context):
    check(actual == expected, "%s: expected %r, got %r" % (what, expected, actual), *context)


def ge(a, b, what, *context):
    check(a >= b, "%s: expected %r >= %r" % (what, a, b), *context)


def at_most(value, limit, what, *context):
    """A rate's ceiling (a -b target plus its tolerance, a link model): the one way a test may
    bound a rate. A floor would fail on a busy machine; bench/ measures how close runs come."""
    check(value <= limit, "%s: %r is above the ceiling %r" % (what, value, limit), *context)


def within(value, target, rel, what, *context):
    lo, hi = target * (1 - rel), target * (1 + rel)
    check(lo <= value <= hi, "%s: %r not within ±%d%% of %r" % (what, value, rel * 100, target),
          *context)


def tcp_inflight_cap(streams):
    """The most TCP can hold unread between two counters on this host: each stream's largest
    send buffer plus its largest receive buffer (tcp_wmem / tcp_rmem maxima)."""
    def top(name):
        with open("/proc/sys/net/ipv4/" + name) as f:
            return int(f.read().split()[2])
    return streams * (top("tcp_wmem") + top("tcp_rmem"))


def rel_gap_small(sent, received, what, rel=0.05, *context, cap=0):
    """Sender total >= receiver total, and the difference is small next to the total
    (TCP bytes in flight when the test stops are not counted by the receiver), or at most
    cap bytes (tcp_inflight_cap: a loaded machine moves less data in the same time while
    the buffers stay as full, so only the buffers bound the gap)."""
    check(sent >= received, "%s: sender %d < receiver %d" % (what, sent, received), *context)
    check(sent > 0, "%s: nothing was sent" % what, *context)
    check((sent - received) <= max(rel * sent, cap),
          "%s: sender %d vs receiver %d differ by more than %d%% (and by more than %d bytes)" % (
              what, sent, received, rel * 100, cap), *context)


# The exit status of a file that ran nothing because the machine lacks something: ctest's
# SKIP_RETURN_CODE (tests/CMakeLists.txt), so it counts the file as skipped, not passed. Its
# reason is on a "SKIP: " line, which make check's summary (scripts/ctest-summary.py) collects.
SKIP_RC = 77


def require(cond, reason):
    """Skip the case (fail under CI=true) when the machine lacks something."""
    if not cond:
        if CI:
            raise TestFailure("missing requirement under CI=true: " + reason)
        raise Skip(reason)


def skip_file(reason):
    """The whole file cannot run here: print "SKIP: reason" and exit SKIP_RC -- or, under
    CI=true, "FATAL: ..." and exit 1 (a CI machine must have every peer and privilege)."""
    if CI:
        print("FATAL: missing requirement under CI=true: " + reason)
        sys.exit(1)
    print("SKIP: " + reason)
    sys.exit(SKIP_RC)


def require_file(cond, reason):
    """skip_file(reason) unless cond: for what every case of a file needs."""
    if not cond:
        skip_file(reason)


def xfail(reason):
    """Mark a case as a known bug: a failure is reported as XFAIL and does not fail the
    file; an unexpected pass does (so the mark is removed once the bug is fixed)."""
    def deco(fn):
        fn.xfail = reason
        return fn
    return deco


class Suite:
    """Named cases run in order; each case's processes are killed when it ends. Exit
    status 1 if any case failed (XFAIL and SKIP do not count); SKIP_RC if no case passed or
    failed and some were skipped (ctest then counts the file as skipped); else 0. Every skip
    reason ends up on a "SKIP: reason [cases: a, b]" line at the end. `needs_iperf3`: without a
    stock iperf3 the file skips (fails under CI=true). Arguments select cases by name."""

    def __init__(self, name, needs_iperf3=True):
        self.name = name
        self.needs_iperf3 = needs_iperf3
        self.cases = []

    def case(self, fn):
        self.cases.append(fn)
        return fn

    def main(self):
        # --shard K/N runs every N-th case from the K-th (0-based): ctest runs the shards of a
        # long file side by side, and a case added to the file lands in some shard by itself.
        shard = None
        only = set()
        for a in sys.argv[1:]:
            m = re.match(r"^--shard=(\d+)/(\d+)$", a)
            if m and int(m.group(1)) < int(m.group(2)):
                shard = (int(m.group(1)), int(m.group(2)))
            elif a.startswith("--"):
                print("FATAL: unknown argument %r (case names, or --shard=K/N)" % a)
                sys.exit(2)
            else:
                only.add(a)
        if only:
            unknown = only - {fn.__name__ for fn in self.cases}
            if unknown:
                print("FATAL: no such case in %s: %s" % (self.name, ", ".join(sorted(unknown))))
                sys.exit(2)
        if not os.access(LINKPERF, os.X_OK):
            print("FATAL: linkperf binary not found at %s (set LINKPERF)" % LINKPERF)
            sys.exit(1)
        if self.needs_iperf3:
            require_file(os.access(IPERF3, os.X_OK), "every case needs a stock iperf3, not "
                         "found at %s (apt-get install iperf3)" % IPERF3)
        t0 = time.monotonic()
        results = []
        skipped = {}          # reason -> the cases it skipped
        for i, fn in enumerate(self.cases):
            if only and fn.__name__ not in only:
                continue
            if shard and i % shard[1] != shard[0]:
                continue
            mark = len(_ALL_PROCS)
            c0 = time.monotonic()
            status, why = "PASS", ""
            try:
                fn()
            except Skip as e:
                status, why = "SKIP", str(e)
            except TestFailure as e:
                status, why = "FAIL", str(e)
            except Exception:
                status, why = "FAIL", traceback.format_exc()
            finally:
                _kill_started_after(mark)
            xf = getattr(fn, "xfail", None)
            if xf:
                if status == "FAIL":
                    status, why = "XFAIL", "known bug: %s\n%s" % (xf, why)
                elif status == "PASS":
                    status, why = "FAIL", "XPASS: marked as known bug (%s) but passed" % xf
            dt = time.monotonic() - c0
            results.append((fn.__name__, status))
            if status == "SKIP":
                skipped.setdefault(why, []).append(fn.__name__)
            line = "[%-5s] %s.%s (%.1fs)" % (status, self.name, fn.__name__, dt)
            if fn.__doc__:
                line += " - " + " ".join(fn.__doc__.split())[:110]
            print(line)
            if why:
                print("        " + why.replace("\n", "\n        "))
            sys.stdout.flush()
        failed = [n for n, s in results if s == "FAIL"]
        counts = {}
        for _, s in results:
            counts[s] = counts.get(s, 0) + 1
        print("%s: %s in %.1fs" % (self.name, ", ".join(
            "%d %s" % (v, k) for k, v in sorted(counts.items())), time.monotonic() - t0))
        if failed:
            print("FAILED cases: " + ", ".join(failed))
        for why, names in skipped.items():
            print("SKIP: %s [cases: %s]" % (" ".join(why.split()), ", ".join(names)))
        kill_all()
        if failed:
            sys.exit(1)
        sys.exit(SKIP_RC if skipped and not counts.get("PASS") and not counts.get("XFAIL")
                 else 0)


# --------------------------------------------------------------------------- client/server pairs

class PairRun:
    """One finished test between a client and a -1 server: both Results and JSON docs."""

    def __init__(self, client, server, spied):
        self.client = client          # Result
        self.server = server          # Server (exited)
        self.spied = spied or {}
        self.cj = client.json() if client.json_mode else None
        self.sj = server.json() if server.json_mode else None

    def context(self):
        return "%s\n%s" % (self.client.describe(), self.server.proc.tail())

    def data_sockets(self, proto="tcp"):
        """Spied options of the data sockets, in start.connected order (the client's
        JSON names each data connection's client-side port)."""
        out = []
        for c in get(self.cj, "start.connected"):
            o = self.spied.get((proto, c["local_port"]))
            check(o is not None, "no socket options sampled for the data connection from "
                  "client port %s (sampled: %s)" % (c["local_port"], sorted(self.spied)),
                  self.context())
            out.append(o)
        return out


class Pair:
    """A direction under test: `client` and `server` are "linkperf" or "iperf3"."""

    def __init__(self, client, server):
        self.client, self.server = client, server
        self.name = "%s client -> %s server" % (client, server)

    @property
    def linkperf_is_client(self):
        return self.client == "linkperf"

    def run(self, cargs, sargs=(), host=LOOP4, client_json=True, server_json=True,
            spy=0, timeout=30, expect_rc=0):
        """Start a one-off server, run the client to the end, wait for the server to exit.
        spy=N: meanwhile sample the socket options of the linkperf side's N connections
        (control + data) to the server port."""
        if spy:
            require(can_grab_sockets(), "cannot read another process's socket options "
                    "(pidfd_getfd needs Linux 5.6+ and ptrace rights)")
        sargs = ["-1"] + (["-J"] if server_json else []) + list(sargs)
        srv = start_server(self.server, sargs)
        srv.json_mode = server_json
        cargs = (["-J"] if client_json else []) + list(cargs)
        cl = start_client(self.client, host, srv.port, cargs, timeout)
        spied = None
        if spy:
            target = cl if self.linkperf_is_client else srv.proc
            spied = sample_sockets(target, srv.port, spy, timeout=min(timeout, 6))
        cl.wait(timeout + 5)
        res = Result(cl)
        res.json_mode = client_json
        if expect_rc is not None:
            check(res.rc == expect_rc, "%s: client exit status %s, expected %s" % (
                self.name, res.rc, expect_rc), res.describe(), srv.proc.tail())
        try:
            srv.finish(15)
        except TestFailure as e:
            raise TestFailure("one-off (-1) server did not exit after the test: %s" % e)
        return PairRun(res, srv, spied)


# --------------------------------------------------------------------------- raw iperf3 protocol

TEST_START, TEST_RUNNING, TEST_END = 1, 2, 4
PARAM_EXCHANGE, CREATE_STREAMS, SERVER_TERMINATE, CLIENT_TERMINATE = 9, 10, 11, 12
EXCHANGE_RESULTS, DISPLAY_RESULTS, IPERF_DONE = 13, 14, 16
ACCESS_DENIED, SERVER_ERROR = -1, -2
STATE_NAMES = {1: "TEST_START", 2: "TEST_RUNNING", 4: "TEST_END", 9: "PARAM_EXCHANGE",
               10: "CREATE_STREAMS", 11: "SERVER_TERMINATE", 12: "CLIENT_TERMINATE",
               13: "EXCHANGE_RESULTS", 14: "DISPLAY_RESULTS", 16: "IPERF_DONE",
               -1: "ACCESS_DENIED", -2: "SERVER_ERROR"}


def make_cookie():
    alphabet = "abcdefghijklmnopqrstuvwxyz234567"
    return ("".join(random.choice(alphabet) for _ in range(36)) + "\0").encode()


def tcp_params(**kw):
    """Parameters as a 3.12 client sends them for a TCP test (override with kw)."""
    p = {"tcp": True, "omit": 0, "time": 1, "num": 0, "blockcount": 0, "parallel": 1,
         "len": 131072, "pacing_timer": 1000, "client_version": "3.12"}
    p.update(kw)
    return p


class RawClient:
    """A hand-driven iperf3 control connection, for protocol and bad-input tests."""

    def __init__(self, host, port, timeout=5.0):
        self.host, self.port = host, port
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.cookie = make_cookie()
        self.data = []

    def send(self, b):
        self.sock.sendall(b)

    def send_cookie(self):
        self.send(self.cookie)

    def send_state(self, st):
        self.send(bytes([st & 0xFF]))

    def send_json(self, obj):
        body = json.dumps(obj, separators=(",", ":")).encode()
        self.send(len(body).to_bytes(4, "big") + body)

    def recv_exact(self, n, timeout=5.0):
        self.sock.settimeout(timeout)
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise TestFailure("control connection closed after %d of %d bytes" % (
                    len(buf), n))
            buf += chunk
        return buf

    def read_state(self, timeout=5.0):
        """Next state byte as a signed int; None on EOF; raises on timeout."""
        self.sock.settimeout(timeout)
        try:
            b = self.sock.recv(1)
        except socket.timeout:
            raise TestFailure("no state byte within %ss" % timeout)
        except ConnectionResetError:
            return None
        if not b:
            return None
        v = b[0]
        return v - 256 if v >= 128 else v

    def expect_state(self, want, timeout=5.0):
        got = self.read_state(timeout)
        check(got == want, "expected %s, got %s" % (
            STATE_NAMES.get(want, want), STATE_NAMES.get(got, got)))

    def read_json(self, timeout=5.0):
        n = int.from_bytes(self.recv_exact(4, timeout), "big")
        check(n < 16 * 1024 * 1024, "peer announced a %d-byte JSON message" % n)
        return json.loads(self.recv_exact(n, timeout).decode())

    def wait_closed(self, timeout):
        """Read until EOF; return (bytes read before EOF, seconds waited). Raises
        TestFailure if the peer keeps the connection open past timeout."""
        t0 = time.monotonic()
        got = b""
        deadline = t0 + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TestFailure("connection still open after %.1fs (received %r)" % (
                    timeout, got[:32]))
            self.sock.settimeout(left)
            try:
                b = self.sock.recv(4096)
            except socket.timeout:
                continue
            except ConnectionResetError:
                b = b""
            if not b:
                return got, time.monotonic() - t0
            got += b

    def setup(self, params, timeout=5.0):
        """cookie -> PARAM_EXCHANGE -> params -> CREATE_STREAMS."""
        self.send_cookie()
        self.expect_state(PARAM_EXCHANGE, timeout)
        self.send_json(params)
        self.expect_state(CREATE_STREAMS, timeout)

    def open_tcp_stream(self, cookie=None, timeout=5.0):
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        s.sendall(cookie if cookie is not None else self.cookie)
        self.data.append(s)
        return s

    def results(self, streams, sender_has_retransmits=0):
        return {"cpu_util_total": 1.0, "cpu_util_user": 0.5, "cpu_util_system": 0.5,
                "sender_has_retransmits": sender_has_retransmits, "streams": streams}

    def close(self):
        for s in self.data + [self.sock]:
            try:
                s.close()
            except OSError:
                pass


class FakeServer:
    """A scripted iperf3 server on 127.0.0.1:<free port>, run in a thread: `script(fake,
    ctrl)` gets the first control connection (after it is accepted) and does what the
    test wants. Data connections are taken with fake.accept(). Everything is closed when
    the script returns or on close(). The thread never starts processes."""

    def __init__(self, script, timeout=20.0):
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind((LOOP4, 0))
        self.lsock.listen(64)
        self.port = self.lsock.getsockname()[1]
        self.socks = []
        self.closed = False
        self.error = None
        self.log = []
        self._script = script
        self._timeout = timeout
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def accept(self, timeout=5.0):
        self.lsock.settimeout(timeout)
        s, _ = self.lsock.accept()
        s.settimeout(timeout)
        self.socks.append(s)
        return s

    @staticmethod
    def recv_exact(s, n, timeout=5.0):
        s.settimeout(timeout)
        buf = b""
        while len(buf) < n:
            chunk = s.recv(n - len(buf))
            if not chunk:
                raise EOFError("peer closed after %d of %d bytes" % (len(buf), n))
            buf += chunk
        return buf

    def read_json(self, s, timeout=5.0):
        n = int.from_bytes(self.recv_exact(s, 4, timeout), "big")
        return json.loads(self.recv_exact(s, n, timeout).decode())

    @staticmethod
    def send_json(s, obj):
        body = json.dumps(obj, separators=(",", ":")).encode()
        s.sendall(len(body).to_bytes(4, "big") + body)

    def hold(self, s, seconds):
        """Keep the connection open (discarding input) until the peer closes it, close()
        is called, or `seconds` pass. True, and ("peer closed", None) in the log, if the
        peer closed it (or reset it: it exited with input unread) while it was held."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self.closed:
            try:
                s.settimeout(0.1)
                if not s.recv(65536):
                    break
            except socket.timeout:
                continue
            except OSError:
                break
        else:
            return False
        self.log.append(("peer closed", None))
        return True

    def setup_tcp(self, ctrl):
        """Play a stock server up to TEST_RUNNING for a TCP test: returns (params, data
        sockets)."""
        self.recv_exact(ctrl, 37)
        ctrl.sendall(bytes([PARAM_EXCHANGE]))
        params = self.read_json(ctrl)
        self.log.append(("params", params))
        ctrl.sendall(bytes([CREATE_STREAMS]))
        n = params.get("parallel", 1) * (2 if params.get("bidirectional") else 1)
        data = []
        for _ in range(n):
            d = self.accept()
            self.recv_exact(d, 37)
            data.append(d)
        ctrl.sendall(bytes([TEST_START, TEST_RUNNING]))
        return params, data

    def _run(self):
        try:
            ctrl = self.accept(self._timeout)
            ctrl.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._script(self, ctrl)
        except Exception as e:       # reported by the test if it matters
            self.error = "%s: %s" % (type(e).__name__, e)
        finally:
            self.close()

    def close(self):
        self.closed = True
        for s in self.socks + [self.lsock]:
            try:
                s.close()
            except OSError:
                pass

    def join(self, timeout=10):
        self.thread.join(timeout)


# --------------------------------------------------------------------------- load

@contextlib.contextmanager
def cpu_hog():
    """Every core busy for the duration: stress-ng --cpu N (its own --timeout as a backstop),
    else N python spinners. Stopped by PID when the block ends."""
    n = os.cpu_count() or 2
    procs = []
    sng = shutil.which("stress-ng")
    if sng:
        procs.append(Proc([sng, "--cpu", n, "--cpu-method", "matrixprod", "--timeout",
                           "60", "--quiet"], 90, name="stress-ng"))
    else:
        for _ in range(n):
            procs.append(Proc([sys.executable, "-c", "while True: pass"], 90,
                              name="spinner"))
    try:
        time.sleep(0.3)
        yield
    finally:
        for p in procs:
            p.signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(5)
            except TestFailure:
                pass


# --------------------------------------------------------------------------- a shaped link

class ShapedLink:
    """Two namespaces joined by a veth pair, the client side's egress through tbf (rate,
    burst, latency): the queue tbf keeps when overloaded is the ground truth for the one-way
    delay. Everything is deleted on exit."""

    def __init__(self, rate_mbit, burst_bytes, latency_ms):
        tag = "%d" % os.getpid()
        self.a, self.b = "lpta-" + tag, "lptb-" + tag
        self.rate_mbit, self.burst, self.latency_ms = rate_mbit, burst_bytes, latency_ms
        self.addr_b = "10.213.77.2"

    def _run(self, *argv):
        r = subprocess.run(list(argv), capture_output=True, text=True, timeout=20)
        check(r.returncode == 0, "%s failed: %s" % (" ".join(argv), r.stderr.strip()))
        return r.stdout

    def __enter__(self):
        require(os.geteuid() == 0 and shutil.which("ip") and shutil.which("tc"),
                       "network namespaces and tc need root, ip and tc")
        self.close()
        try:
            self._run("ip", "netns", "add", self.a)
            self._run("ip", "netns", "add", self.b)
            self._run("ip", "link", "add", "lpva", "netns", self.a, "type", "veth", "peer", "name", "lpvb",
                      "netns", self.b)
            self._run("ip", "-n", self.a, "addr", "add", "10.213.77.1/24", "dev", "lpva")
            self._run("ip", "-n", self.b, "addr", "add", self.addr_b + "/24", "dev", "lpvb")
            for ns, dev in ((self.a, "lpva"), (self.b, "lpvb")):
                self._run("ip", "-n", ns, "link", "set", dev, "up")
                self._run("ip", "-n", ns, "link", "set", "lo", "up")
            self._run("ip", "netns", "exec", self.a, "tc", "qdisc", "add", "dev", "lpva", "root", "tbf",
                      "rate", "%dmbit" % self.rate_mbit, "burst", str(self.burst), "latency",
                      "%dms" % self.latency_ms)
        except BaseException:
            self.close()
            raise
        return self

    def queue_delay_ms(self):
        """tbf's queue limit is rate x latency + burst bytes; a full queue drains in limit/rate."""
        rate_bytes = self.rate_mbit * 1e6 / 8
        limit = rate_bytes * self.latency_ms / 1e3 + self.burst
        return limit / rate_bytes * 1e3

    def close(self):
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=20)

    def __exit__(self, *exc):
        self.close()
        return False

#!/usr/bin/env python3
"""Side-by-side loopback benchmark: linkperf vs stock iperf3 and iperf2.

Each tool runs in its plain and its fastest modes, one row each, with its own
client against its own fresh server on a random free port, next to the
kernel's ceiling (bench/ceiling/ceiling.c, compiled at run time). All rows of
a case are interleaved (A B C A B C ...) for N repetitions and the median of
the receiver-side numbers is reported, with ratios to the best peer row and
to the ceiling, and CPU seconds per side. Only the Python 3 standard library
is used. See bench/README.md.

This is a measurement, never a pass/fail: the script exits non-zero only when
it could not run at all (missing binary, bad arguments).
"""

import argparse
import atexit
import datetime
import json
import math
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = "127.0.0.1"
CLK_TCK = os.sysconf("SC_CLK_TCK")
NOTES_BEGIN = "<!-- BEGIN HAND-WRITTEN NOTES (kept by bench/run.py) -->"
NOTES_END = "<!-- END HAND-WRITTEN NOTES -->"

# Paths a report or JSON file may name as they are: the system's programs.
SYSTEM_DIRS = ("/usr/", "/bin/", "/sbin/")
# Options whose value is a path: written as the option's placeholder unless
# the path is inside the repository, the temp dir or a system directory.
PATH_OPTS = {"--out": "FILE", "--json": "FILE", "--render": "JSON", "--linkperf": "LINKPERF",
             "--iperf3": "IPERF3", "--iperf3-new": "IPERF3_NEW", "--iperf2": "IPERF2"}
FILE_PH = ("FILE", "JSON")


def public_path(path, placeholder, tmp_ok=False):
    """How a path of this machine is written into a committed report: relative
    to the repository when inside it, TMP/... in the temp dir, as is in a
    system directory (or a bare name looked up on PATH), else the placeholder
    (the option's name): another machine's layout says nothing to a reader."""
    if not path or os.sep not in path:
        return path
    a = os.path.abspath(path)
    if a == REPO or a.startswith(REPO + os.sep):
        return os.path.relpath(a, REPO)
    tmp = os.path.realpath(tempfile.gettempdir())
    if tmp_ok and a.startswith(tmp + os.sep):
        return "TMP/" + os.path.relpath(a, tmp)
    if a.startswith(SYSTEM_DIRS):
        return a
    return placeholder


def public_argv(argv):
    """argv with every path option's value passed through public_path."""
    out, it = [], iter(argv)
    for a in it:
        opt, eq, val = a.partition("=")
        if opt in PATH_OPTS and eq:
            out.append(f"{opt}={public_path(val, PATH_OPTS[opt], PATH_OPTS[opt] in FILE_PH)}")
        elif a in PATH_OPTS:
            out.append(a)
            nxt = next(it, None)
            if nxt is not None:
                out.append(public_path(nxt, PATH_OPTS[a], PATH_OPTS[a] in FILE_PH))
        else:
            out.append(a)
    return out


def public_cmd(cmd):
    """A command line for the report, its program through public_path (an
    explicit binary's placeholder is its option's, see EXPLICIT)."""
    prog = cmd[0]
    ph = EXPLICIT.get(os.path.abspath(prog), "PROGRAM") if os.sep in prog else prog
    return " ".join([public_path(prog, ph)] + list(cmd[1:]))


# Binaries given by path option: absolute path -> the option's placeholder.
EXPLICIT = {}

# Every process this script starts, so that every exit path can kill them.
LIVE = {}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# process handling

def kill_all():
    for pid in list(LIVE):
        try:
            os.killpg(pid, signal.SIGKILL)  # each child leads its own group
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        LIVE.pop(pid, None)


def on_signal(signum, _frame):
    kill_all()
    log(f"bench: interrupted by signal {signum}; all started processes killed")
    sys.exit(128 + signum)


def spawn(argv, out_path, err_path, nice=0):
    pre = (lambda: os.nice(nice)) if nice else None
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=err, start_new_session=True, preexec_fn=pre)
    LIVE[p.pid] = p
    return p


def reap(p, timeout_s):
    """Wait for p up to timeout_s. Returns (exit status, cpu_s) or None."""
    t0 = time.monotonic()
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            LIVE.pop(p.pid, None)
            p.returncode = (os.waitstatus_to_exitcode(status)
                            if hasattr(os, "waitstatus_to_exitcode") else status)
            return p.returncode, ru.ru_utime + ru.ru_stime
        if time.monotonic() - t0 > timeout_s:
            return None
        time.sleep(0.02)


def stop(p, grace_s=3.0):
    """SIGTERM, then SIGKILL after grace_s. Returns (rc, cpu_s, how)."""
    r = reap(p, 0)
    if r:
        return r[0], r[1], "exited"
    for sig, wait_s, how in ((signal.SIGTERM, grace_s, "terminated"),
                             (signal.SIGKILL, 10, "killed")):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        r = reap(p, wait_s)
        if r:
            return r[0], r[1], how
    return None, float("nan"), "unkillable"


# --------------------------------------------------------------------------
# ports and readiness

def free_port():
    """A port free for both TCP and UDP on HOST (iperf3 UDP uses both)."""
    for _ in range(100):
        t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            t.bind((HOST, 0))
            port = t.getsockname()[1]
            if port < 10000:
                continue
            u.bind((HOST, port))
            return port
        except OSError:
            continue
        finally:
            t.close()
            u.close()
    raise RuntimeError("no free port found")


def listening(port, proto):
    """True once a socket is bound to port: read /proc so that no probe
    connection is made (an iperf3 -1 server would take it as its client)."""
    want = f":{port:04X}"
    files = ("tcp", "tcp6") if proto == "tcp" else ("udp", "udp6")
    for f in files:
        try:
            with open(f"/proc/net/{f}") as fh:
                next(fh)
                for line in fh:
                    cols = line.split()
                    if not cols[1].endswith(want):
                        continue
                    if proto == "udp" or cols[3] == "0A":  # 0A = LISTEN
                        return True
        except OSError:
            pass
    return False


def wait_listening(p, port, proto, timeout_s=5.0):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if listening(port, proto):
            return True
        if reap(p, 0):
            return False
        time.sleep(0.02)
    return False


def cpu_busy_s():
    """System-wide busy CPU seconds (all cores) from /proc/stat."""
    with open("/proc/stat") as fh:
        f = [int(x) for x in fh.readline().split()[1:]]
    idle = f[3] + (f[4] if len(f) > 4 else 0)
    return (sum(f[:8]) - idle) / CLK_TCK


def ksoftirqd_pids():
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/comm") as fh:
                    if fh.read().startswith("ksoftirqd/"):
                        pids.append(int(d))
            except OSError:
                pass
    return pids


def pids_cpu_s(pids):
    """utime+stime of the given pids (kernel threads here), in seconds."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                f = fh.read().rsplit(")", 1)[1].split()
            total += int(f[11]) + int(f[12])  # fields 14 and 15 of stat
        except (OSError, IndexError, ValueError):
            pass
    return total / CLK_TCK


QUIET_CORES = 0.15   # quiet-wait: other processes below this many cores
NOISY_SHARE = 0.05   # a run is noisy when others used more of the machine


def wait_quiet(max_wait_s, max_cores=QUIET_CORES):
    """Before a run, wait (bounded) until other processes use less than
    max_cores of CPU over half a second. Returns (waited_s, last_load_cores)."""
    t0 = time.monotonic()
    while True:
        b0 = cpu_busy_s()
        time.sleep(0.5)
        load = (cpu_busy_s() - b0) / 0.5
        waited = time.monotonic() - t0
        if load < max_cores or waited >= max_wait_s:
            return waited, load


def noisy(r, cores):
    """A run during which other processes used more than 5 % of the machine."""
    return r.get("other_cpu_s", 0) > NOISY_SHARE * cores * r["secs"]


# --------------------------------------------------------------------------
# cases and tools

CASES = [
    # key, title, proto, streams, datagram length
    ("tcp1", "TCP, 1 stream", "tcp", 1, None),
    ("tcp4", "TCP, 4 streams (-P 4)", "tcp", 4, None),
    ("udp1470", "UDP, 1470-byte datagrams, unlimited rate", "udp", 1, 1470),
    # The smallest length iperf3 up to 3.21 sends with GSO (esnet/iperf#2032):
    # the one case where every batching tool batches.
    ("udp508", "UDP, 508-byte datagrams, unlimited rate", "udp", 1, 508),
    ("udp64", "UDP, 64-byte datagrams, unlimited rate", "udp", 1, 64),
]


def iperf3_style_cmds(binary, case, port, secs, extra, srv_extra=()):
    _, _, proto, streams, length = case
    srv = [binary, "-s", "-1", "-p", str(port)] + list(srv_extra)
    cli = [binary, "-c", HOST, "-p", str(port), "-t", str(secs), "-J"]
    if streams > 1:
        cli += ["-P", str(streams)]
    if proto == "udp":
        cli += ["-u", "-b", "0", "-l", str(length)]
    return srv, cli + list(extra)


def iperf2_cmds(binary, case, port, secs, extra=(), srv_extra=()):
    _, _, proto, streams, length = case
    # stdbuf: iperf2's CSV goes through stdio; line-buffer it so that the
    # server's report is in the file as soon as the test ends.
    srv = ["stdbuf", "-oL", binary, "-s", "-p", str(port), "-y", "C"]
    cli = [binary, "-c", HOST, "-p", str(port), "-t", str(secs), "-y", "C"]
    if streams > 1:
        cli += ["-P", str(streams)]
    if proto == "udp":
        srv += ["-u"]
        # iperf 2.1.8 has no "-b 0 = unlimited" for UDP; a rate far above
        # what loopback carries gives an inter-packet gap of 0.
        cli += ["-u", "-b", "100G", "-l", str(length)]
    return srv + list(srv_extra), cli + list(extra)


def ceiling_cmds(binary, case, port, secs, extra):
    """bench/ceiling: receiver first, then the sender with the case's -t,
    stream count and (UDP) datagram length; TCP keeps the ceiling's own -l."""
    _, _, proto, streams, length = case
    srv = [binary, "recv", "--proto", proto, "--port", str(port), "--streams", str(streams)]
    cli = [binary, "send", "--proto", proto, "--host", HOST, "--port", str(port),
           "-t", str(secs), "--streams", str(streams)]
    if length:
        cli += ["-l", str(length)]
    return srv, cli + list(extra)


def read(path):
    with open(path, "rb") as fh:
        return fh.read().decode("utf-8", "replace")


def first_line(text, limit=160):
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def parse_iperf3_json(text, case):
    """Receiver-side numbers from an iperf3-schema -J client report."""
    _, _, proto, _, length = case
    try:
        d = json.loads(text)
    except ValueError:
        i = text.find("{")
        d = json.loads(text[i:]) if i >= 0 else None
    if not isinstance(d, dict):
        raise ValueError("no JSON object in client output")
    if d.get("error"):
        raise ValueError("tool error: " + str(d["error"]))
    end = d.get("end") or {}
    r = {"odd": []}
    if proto == "tcp":
        sr, ss = end.get("sum_received"), end.get("sum_sent")
        if not sr:
            raise ValueError("no end.sum_received")
        r["recv_bps"] = float(sr["bits_per_second"])
        r["sent_bps"] = float(ss["bits_per_second"]) if ss else None
        r["retrans"] = ss.get("retransmits") if ss else None
        if ss and sr["bytes"] > ss["bytes"]:
            r["odd"].append(f"received {sr['bytes']} B > sent {ss['bytes']} B")
    else:
        # iperf3 3.12 end.sum carries the sender's rate with the receiver's
        # loss; end.sum_received is the receiver's own goodput.
        sr, ss = end.get("sum_received"), end.get("sum_sent")
        if not sr:
            s = end.get("sum")
            if not s:
                raise ValueError("no end.sum_received / end.sum")
            sr = dict(s)
            sr["bytes"] = (s["packets"] - s["lost_packets"]) * length
            sr["bits_per_second"] = sr["bytes"] * 8 / s["seconds"]
            r["odd"].append("no sum_received; derived from end.sum")
        got = sr["packets"] - sr["lost_packets"]
        r["recv_bps"] = float(sr["bits_per_second"])
        r["recv_pps"] = got / sr["seconds"] if sr["seconds"] else 0.0
        r["loss_pct"] = float(sr["lost_percent"])
        r["lost"], r["total"] = sr["lost_packets"], sr["packets"]
        if ss:
            r["sent_bps"] = float(ss["bits_per_second"])
            r["sent_pps"] = ss["packets"] / ss["seconds"] if ss["seconds"] else 0.0
        if sr["bytes"] != got * length:
            r["odd"].append(f"receiver bytes {sr['bytes']} != "
                            f"(packets-lost)*{length} = {got * length}")
        if sr["lost_packets"] < 0:
            r["odd"].append(f"negative loss {sr['lost_packets']}")
    bps, nbytes, secs = sr["bits_per_second"], sr["bytes"], sr["seconds"]
    if not nbytes:
        # e.g. iperf3 3.21 --gsro below -l 508 sends nothing (esnet/iperf#2032)
        raise ValueError("the receiver counted no data"
                         + (f" (sender: {ss.get('packets')} packets, {ss.get('bytes')} bytes)"
                            if ss and proto == "udp" else ""))
    r["recv_bytes"] = int(nbytes)
    if secs and abs(bps - nbytes * 8 / secs) > 0.01 * max(bps, 1):
        r["odd"].append(f"receiver bps {bps:.4g} != bytes*8/seconds")
    return r


def parse_iperf2_csv(text, proto):
    """Rows of iperf 2.1.8 -y C: ts,src,sport,dst,dport,id,interval,bytes,bps
    [,jitter,lost,total,loss%,ooo] (UDP). 2.1.8 prints no -P sum line."""
    rows = {}
    for line in text.splitlines():
        f = line.strip().split(",")
        if len(f) < 9 or not f[7].lstrip("-").isdigit():
            continue
        if f[5] == "-1":  # a sum line, should a build print one
            continue
        rows[(f[1], f[2], f[5])] = f  # last report per stream wins
    return list(rows.values())


def parse_iperf2(srv_text, cli_text, case):
    _, _, proto, streams, length = case
    srows = parse_iperf2_csv(srv_text, proto)
    crows = parse_iperf2_csv(cli_text, proto)
    if len(srows) < streams:
        raise ValueError(f"server CSV has {len(srows)} of {streams} stream reports")
    r = {"odd": []}
    r["recv_bps"] = sum(float(f[8]) for f in srows)
    r["recv_bytes"] = sum(int(f[7]) for f in srows)
    if not r["recv_bytes"]:
        raise ValueError("the receiver counted no data")
    r["sent_bps"] = sum(float(f[8]) for f in crows) if crows else None
    if proto == "udp":
        f = srows[0]
        if len(f) < 13:
            raise ValueError("server UDP CSV line too short: " + ",".join(f))
        lost, total = int(f[10]), int(f[11])
        r["lost"], r["total"] = lost, total
        r["loss_pct"] = float(f[12])
        r["recv_pps"] = r["recv_bps"] / 8 / length
        if r["sent_bps"] is not None:
            r["sent_pps"] = r["sent_bps"] / 8 / length
        if lost < 0:
            r["odd"].append(f"negative loss {lost}")
    return r


def ceiling_line(text, role):
    """The last JSON line of this role in bench/ceiling's stdout."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and d.get("role") == role:
                return d
    raise ValueError(f"no '{role}' JSON line from ceiling")


def parse_ceiling(srv_text, cli_text, case):
    """bench/ceiling's one JSON line per side: receiver bytes/packets/lost/
    seconds (first to last data), sender bytes/packets/seconds."""
    _, _, proto, _, _ = case
    rv = ceiling_line(srv_text, "recv")
    r = {"odd": []}
    try:
        sd = ceiling_line(cli_text, "send")
    except ValueError:
        sd = None
        r["odd"].append("no sender JSON line")
    secs = float(rv["seconds"])
    if not rv["bytes"] or secs <= 0:
        raise ValueError(f"the receiver counted no data ({rv['bytes']} B in {secs} s)")
    r["recv_bytes"] = int(rv["bytes"])
    r["recv_bps"] = rv["bytes"] * 8 / secs
    r["method"] = f"{sd['method'] if sd else '?'} -> {rv['method']}"
    if sd and sd["seconds"] > 0:
        r["sent_bps"] = sd["bytes"] * 8 / sd["seconds"]
    if proto == "udp":
        got, lost = int(rv["packets"]), int(rv["lost"])
        r["recv_pps"] = got / secs
        r["lost"], r["total"] = lost, got + lost
        r["loss_pct"] = 100.0 * lost / (got + lost) if got + lost else 0.0
        if sd and sd["seconds"] > 0:
            r["sent_pps"] = sd["packets"] / sd["seconds"]
        if sd and got + lost != sd["packets"]:
            r["odd"].append(f"received + lost {got + lost} != sent {sd['packets']} datagrams")
        if lost < 0:
            r["odd"].append(f"negative loss {lost}")
    elif sd and rv["bytes"] != sd["bytes"]:
        r["odd"].append(f"TCP receiver {rv['bytes']} B != sender {sd['bytes']} B")
    if sd and rv["bytes"] > sd["bytes"]:
        r["odd"].append(f"received {rv['bytes']} B > sent {sd['bytes']} B")
    return r


TCP_CASES = tuple(c[0] for c in CASES if c[2] == "tcp")
UDP_CASES = tuple(c[0] for c in CASES if c[2] == "udp")
# iperf2's "best" TCP row: 1 MiB reads and writes on both ends instead of the
# default 128 KiB (see bench/README.md for what else was tried).
IPERF2_BEST = ["-l", "1M"]


def help_text(binary):
    return sh([binary, "--help"])


def tool_version(binary, default="?"):
    """'3.12' from 'iperf 3.12 (cJSON ...)', '2.1.8' from 'iperf version 2.1.8 ...'."""
    m = re.search(r"\biperf(?: version)? (\d+(?:\.\d+)+\S*)", sh([binary, "--version"])
                  or sh([binary, "-v"]))
    return m.group(1) if m else default


def version_tuple(v):
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def new_tool(label, kind, binary, cli=(), srv=(), cases=None, group="peer",
             candidate=True, role="mode", notes=None):
    """One row of the case tables. group: linkperf | peer | ceiling;
    candidate: counts when picking the group's best row (-R and --no-history
    rows do not); role: default (linkperf plain) | plain | mode | history |
    reverse | ceiling (the reference) | ceiling-alt."""
    return {"label": label, "kind": kind, "bin": binary, "cli": list(cli), "srv": list(srv),
            "cases": list(cases) if cases else None, "group": group,
            "candidate": candidate, "role": role, "notes": dict(notes or {})}


def make_tools(args):
    """Every row, in table order; and the rows left out, as sentences."""
    tools, not_run = [], []
    lp = args.linkperf
    h = help_text(lp)
    tools.append(new_tool("linkperf", "linkperf", lp, group="linkperf", role="default"))
    if "--no-history" in h:
        # Every linkperf test is recorded in the history database on both
        # ends unless --no-history, which both the client and server take.
        tools.append(new_tool("linkperf --no-history", "linkperf", lp, ["--no-history"],
                              ["--no-history"], cases=("tcp1",), group="linkperf",
                              candidate=False, role="history"))
    else:
        not_run.append("linkperf has no --no-history: the history row is left out")
    zc, skip = "--zerocopy" in h, "--skip-rx-copy" in h
    for ok, extra in ((skip, ["--skip-rx-copy"]), (zc, ["-Z"]),
                      (zc and skip, ["-Z", "--skip-rx-copy"])):
        if ok:
            tools.append(new_tool("linkperf " + " ".join(extra), "linkperf", lp, extra,
                                  cases=TCP_CASES, group="linkperf"))
    if not (zc and skip):
        not_run.append("linkperf: no " + " or ".join(o for o, y in (("-Z", zc), ("--skip-rx-copy", skip))
                                                    if not y) + " in --help: those rows left out")
    if args.reverse:
        # -R: the server sends. Peers are not run reversed, so these rows are
        # for comparison only and never linkperf's "best".
        for extra in (["-R"], ["-R", "--skip-rx-copy"]):
            if "--skip-rx-copy" in extra and not skip:
                continue
            tools.append(new_tool("linkperf " + " ".join(extra), "linkperf", lp, extra,
                                  cases=("tcp1",), group="linkperf", candidate=False,
                                  role="reverse"))

    iperf3s = [(args.iperf3, tool_version(args.iperf3))]
    if args.iperf3_new:
        v = tool_version(args.iperf3_new)
        iperf3s.append((args.iperf3_new, v if v != iperf3s[0][1] else v + " (new)"))
    else:
        not_run.append("newest iperf3: --iperf3-new not given, its rows are left out")
    for binary, ver in iperf3s:
        name = f"iperf3 {ver}"
        h = help_text(binary)
        tools.append(new_tool(name, "iperf3", binary, role="plain"))
        zc, skip = "--zerocopy" in h, "--skip-rx-copy" in h
        for ok, extra in ((zc, ["-Z"]), (skip, ["--skip-rx-copy"]),
                          (zc and skip, ["-Z", "--skip-rx-copy"])):
            if ok:
                tools.append(new_tool(f"{name} " + " ".join(extra), "iperf3", binary, extra,
                                      cases=TCP_CASES))
        for opt, y in (("-Z", zc), ("--skip-rx-copy", skip)):
            if not y:
                not_run.append(f"{name}: no {opt} in `--help`: its TCP {opt} rows are left out")
        if "--gsro" in h:
            # Run in every UDP case, also where it is known to fail, so that the
            # report shows what it does rather than leaving it out.
            notes = {c[0]: f"iperf3 up to 3.21 sends nothing with GSO below -l 508 "
                           f"(esnet/iperf#2032); run anyway, its result or failure is below"
                     for c in CASES if c[0] in UDP_CASES and c[4] < 508
                     and version_tuple(ver) <= (3, 21)}
            tools.append(new_tool(f"{name} --gsro", "iperf3", binary, ["--gsro"],
                                  cases=UDP_CASES, notes=notes))
        else:
            not_run.append(f"{name}: no --gsro in `--help`: no UDP GSO/GRO row")

    name = f"iperf2 {tool_version(args.iperf2)}"
    tools.append(new_tool(name, "iperf2", args.iperf2, role="plain"))
    tools.append(new_tool(f"{name} " + " ".join(IPERF2_BEST), "iperf2", args.iperf2,
                          IPERF2_BEST, IPERF2_BEST, TCP_CASES))
    not_run.append(f"{name}: no zero-copy send and no MSG_TRUNC receive; its UDP has no "
                   "GSO/GRO, so UDP has only the plain row")

    if args.ceiling:
        tools.append(new_tool("ceiling", "ceiling", args.ceiling, group="ceiling",
                              candidate=False, role="ceiling"))
        tools.append(new_tool("ceiling --method sendfile", "ceiling", args.ceiling,
                              ["--method", "sendfile"], cases=TCP_CASES, group="ceiling",
                              candidate=False, role="ceiling-alt"))
    else:
        not_run.append("ceiling: " + args.ceiling_error)
    return tools, not_run


def infer_tool(label):
    """A row's description from its label alone (JSON files written before
    the rows were described in meta.tools)."""
    words = label.split()
    if label.startswith("linkperf"):
        role = ("default" if label == "linkperf" else "reverse" if "-R" in words
                else "history" if "--no-history" in words else "mode")
        return new_tool(label, "linkperf", None, group="linkperf",
                        candidate=role in ("default", "mode"), role=role)
    if label.startswith("ceiling"):
        return new_tool(label, "ceiling", None, group="ceiling", candidate=False,
                        role="ceiling" if label == "ceiling" else "ceiling-alt")
    return new_tool(label, "iperf2" if label.startswith("iperf2") or words[0] == "iperf"
                    else "iperf3", None, role="plain" if len(words) <= 2 else "mode")


def tools_for_render(meta, results):
    tools = [dict(t) for t in meta.get("tools") or []]
    known = {t["label"] for t in tools}
    for r in results:
        if r["tool"] not in known:
            known.add(r["tool"])
            tools.append(infer_tool(r["tool"]))
    return tools


def excerpt(text, limit=3000):
    """text, or its head and tail when longer than limit characters."""
    if len(text) <= limit:
        return text
    return text[:limit // 2] + "\n[...]\n" + text[-limit // 2:]


def failed_output(kind, f):
    """What a failed run printed, for the JSON: an iperf3-style -J report as
    its per-interval sums and its end section, any other output as an
    excerpt; and the server's output."""
    out = {}
    co = read(f["co"])
    if kind != "iperf2" and kind != "ceiling":
        try:
            d = json.loads(co[co.find("{"):])
            out["client_json"] = {
                "error": d.get("error"),
                "intervals": [{k: i.get("sum", {}).get(k) for k in
                               ("start", "end", "bytes", "packets", "bits_per_second")}
                              for i in d.get("intervals", [])],
                "end": d.get("end")}
        except ValueError:
            pass
    if "client_json" not in out:
        out["client_stdout"] = excerpt(co)
    for k, name in (("ce", "client_stderr"), ("so", "server_stdout"), ("se", "server_stderr")):
        t = read(f[k])
        if t.strip():
            out[name] = excerpt(t)
    return out


def run_one(args, case, tool, tmp, tag):
    label, kind = tool["label"], tool["kind"]
    proto, streams = case[2], case[3]
    port = free_port()
    if kind == "iperf2":
        srv_cmd, cli_cmd = iperf2_cmds(tool["bin"], case, port, args.time, tool["cli"], tool["srv"])
    elif kind == "ceiling":
        srv_cmd, cli_cmd = ceiling_cmds(tool["bin"], case, port, args.time, tool["cli"])
    else:
        srv_cmd, cli_cmd = iperf3_style_cmds(tool["bin"], case, port, args.time, tool["cli"],
                                             tool["srv"])
    f = {k: os.path.join(tmp, f"{tag}.{k}") for k in ("so", "se", "co", "ce")}
    shown = (lambda cmd: " ".join(["TMP/ceiling"] + cmd[1:])) \
        if kind == "ceiling" else public_cmd  # the temp dir's name says nothing
    res = {"tool": label, "case": case[0], "port": port, "ok": False, "secs": args.time,
           "group": tool["group"], "client_cmd": shown(cli_cmd),
           "server_cmd": shown(srv_cmd), "odd": []}
    # iperf2's UDP server and the ceiling's UDP receiver hold only a UDP
    # socket (the ceiling binds port P last); the others listen on TCP.
    ready_proto = "udp" if (kind in ("iperf2", "ceiling") and proto == "udp") else "tcp"
    res["quiet_wait_s"], res["load_before"] = wait_quiet(args.quiet_wait)
    busy0, soft0 = cpu_busy_s(), pids_cpu_s(args.ksoftirqd)
    srv = spawn(srv_cmd, f["so"], f["se"], args.nice)
    cli = None
    try:
        if not wait_listening(srv, port, ready_proto):
            res["error"] = "server did not start: " + first_line(read(f["se"]) + read(f["so"]))
            return res
        t0 = time.monotonic()
        cli = spawn(cli_cmd, f["co"], f["ce"], args.nice)
        r = reap(cli, args.time + 30)
        if r is None:
            _, cpu, _ = stop(cli)
            res["client_cpu_s"] = cpu
            res["error"] = f"client still running after {args.time + 30} s; killed"
            return res
        res["wall_s"] = time.monotonic() - t0
        res["client_rc"], res["client_cpu_s"] = r
        # Let the server finish its report: iperf3-style servers (-1) exit on
        # their own; iperf2's server stays up, so wait for its CSV lines.
        deadline = time.monotonic() + 10
        if kind == "iperf2":
            while time.monotonic() < deadline:
                if len(parse_iperf2_csv(read(f["so"]), proto)) >= streams:
                    break
                time.sleep(0.05)
            time.sleep(0.1)
        else:
            rr = reap(srv, 10)
            if rr is None:
                res["odd"].append("server (-1) did not exit within 10 s after the client")
        if kind != "iperf2" and rr is not None:
            src, scpu, how = rr[0], rr[1], "exited"
        else:
            src, scpu, how = stop(srv)
        res["server_cpu_s"] = scpu
        if kind != "iperf2" and how != "exited":
            res["odd"].append(f"server {how}")
        elif kind != "iperf2" and src != 0:
            res["odd"].append(f"server exit status {src}")
        res["ksoftirqd_cpu_s"] = pids_cpu_s(args.ksoftirqd) - soft0
        res["other_cpu_s"] = max(0.0, cpu_busy_s() - busy0 - res["client_cpu_s"]
                                 - scpu - res["ksoftirqd_cpu_s"])
        co, ce = read(f["co"]), read(f["ce"])
        try:
            if kind == "iperf2":
                parsed = parse_iperf2(read(f["so"]), co, case)
            elif kind == "ceiling":
                parsed = parse_ceiling(read(f["so"]), co, case)
            else:
                parsed = parse_iperf3_json(co, case)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            msg = str(e) or type(e).__name__
            tail = first_line(ce) or first_line(read(f["se"]))
            res["error"] = msg + (f" (stderr: {tail})" if tail else "")
            res["output"] = failed_output(kind, f)
            return res
        res["odd"] += parsed.pop("odd")
        res.update(parsed)
        if kind == "ceiling":
            want = ("sendfile" if "sendfile" in tool["cli"] else
                    "plain" if proto == "tcp" else "gso") + " -> " + \
                ("trunc" if proto == "tcp" else "gro")
            if res["method"] != want:
                res["odd"].append(f"ceiling fell back: {res['method']} instead of {want}")
        if res["client_rc"] != 0:
            res["odd"].append(f"client exit status {res['client_rc']}")
        res["ok"] = True
        return res
    finally:
        for p in (cli, srv):
            if p is not None and p.pid in LIVE:
                stop(p, 1.0)
        if not args.keep_logs:
            for path in f.values():
                try:
                    os.unlink(path)
                except OSError:
                    pass


# --------------------------------------------------------------------------
# machine description

def sh(argv):
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
        return (out.stdout + out.stderr).strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def sysctl(name):
    try:
        with open("/proc/sys/" + name.replace(".", "/")) as fh:
            return fh.read().strip()
    except OSError:
        return "?"


def machine():
    model, mhz = "?", "?"
    with open("/proc/cpuinfo") as fh:
        for line in fh:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            if line.startswith("cpu MHz") and mhz == "?":
                mhz = line.split(":", 1)[1].strip()
    hyp = "bare metal or undisclosed"
    lscpu = sh(["lscpu"])
    m = re.search(r"Hypervisor vendor:\s*(\S+)", lscpu)
    if m:
        hyp = m.group(1)
    mem = "?"
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1048576:.1f} GiB"
    u = platform.uname()
    return {
        "cpu": model, "mhz": mhz, "cores": os.cpu_count(), "hypervisor": hyp,
        "mem": mem, "kernel": f"{u.system} {u.release} {u.machine}",
        "os": (sh(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]) or "?"),
        "cc": sysctl("net.ipv4.tcp_congestion_control"),
        "rmem_max": sysctl("net.core.rmem_max"),
        "wmem_max": sysctl("net.core.wmem_max"),
        "lo_mtu": sh(["cat", "/sys/class/net/lo/mtu"]) or "?",
        "loadavg": sh(["cat", "/proc/loadavg"]),
    }


def versions(args):
    lp = first_line(sh([args.linkperf, "-v"]))
    git = sh(["git", "-C", REPO, "describe", "--always", "--dirty"]) or "?"
    where = lambda b, ph: public_path(shutil.which(b) or b, ph)
    v = {"linkperf": f"{lp} (git {git}, {where(args.linkperf, 'LINKPERF')})",
         "iperf3": f"{first_line(sh([args.iperf3, '-v']))} ({where(args.iperf3, 'IPERF3')})",
         "iperf2": f"{first_line(sh([args.iperf2, '-v']))} ({where(args.iperf2, 'IPERF2')})"}
    if getattr(args, "iperf3_new", None):  # scale.py's args have neither
        v["iperf3_new"] = (f"{first_line(sh([args.iperf3_new, '-v']))} "
                           f"({where(args.iperf3_new, 'IPERF3_NEW')})")
    if getattr(args, "ceiling", None):
        v["ceiling"] = (f"bench/ceiling/ceiling.c built with `{' '.join(CEILING_CC)}` "
                        f"({first_line(sh(['cc', '--version']))})")
    return v


# --------------------------------------------------------------------------
# report

def med(rows, key):
    v = [r[key] for r in rows if r.get("ok") and r.get(key) is not None]
    return statistics.median(v) if v else None


def spread(rows, key):
    v = [r[key] for r in rows if r.get("ok") and r.get(key) is not None]
    if len(v) < 2:
        return None
    m = statistics.median(v)
    return 100.0 * (max(v) - min(v)) / m if m else None


def gbps(x):
    return "—" if x is None else f"{x / 1e9:.2f}"


def mpps(x):
    return "—" if x is None else f"{x / 1e6:.3f}"


def num(x, fmt):
    return "—" if x is None else format(x, fmt)


def ratio(a, b):
    return None if (a is None or not b) else a / b


def pct(x):
    return "—" if x is None else f"{100 * x:.0f} %"


def run_gbit(r):
    """Gbit the receiver counted in one run."""
    if r.get("recv_bytes") is not None:
        return r["recv_bytes"] * 8 / 1e9
    return r["recv_bps"] * r["secs"] / 1e9


def run_eff(r):
    """Received Gbit per CPU-second of client + server, one run."""
    if not r.get("ok") or r.get("recv_bps") is None:
        return None
    cpu = (r.get("client_cpu_s") or 0.0) + (r.get("server_cpu_s") or 0.0)
    if not math.isfinite(cpu) or cpu <= 0:
        return None
    return run_gbit(r) / cpu


def eff_med(rows):
    v = [e for e in (run_eff(r) for r in rows) if e is not None]
    return statistics.median(v) if v else None


def batches(t):
    """True for a UDP row that sends with GSO and receives with GRO: linkperf
    (its default), iperf3 --gsro, the ceiling. Told from the label, so that
    files of older versions are described alike."""
    w = t["label"].split()
    return t["group"] in ("linkperf", "ceiling") or "--gsro" in w


def case_stats(case, tools, results):
    """Rows of one case and its reference rows: linkperf default, linkperf
    best (fastest forward row), best peer (fastest iperf3/iperf2 row, any
    mode), ceiling (the 'ceiling' row)."""
    key = case[0]
    by = {t["label"]: [r for r in results if r["case"] == key and r["tool"] == t["label"]]
          for t in tools}
    ran = [t for t in tools if by[t["label"]]]

    def best(pred, stat=lambda rows: med(rows, "recv_bps")):
        c = [(stat(by[t["label"]]), t["label"]) for t in ran if pred(t)]
        c = [x for x in c if x[0] is not None]
        return max(c) if c else (None, None)

    one = lambda role: next((t["label"] for t in ran if t["role"] == role), None)
    st = {"by": by, "ran": ran, "default": one("default"), "ceiling": one("ceiling"),
          "history": one("history"),
          "peer": best(lambda t: t["group"] == "peer"),
          "peer_gso": best(lambda t: t["group"] == "peer" and batches(t)),
          "lp_best": best(lambda t: t["group"] == "linkperf" and t["candidate"]),
          "peer_eff": best(lambda t: t["group"] == "peer", eff_med),
          "lp_eff": best(lambda t: t["group"] == "linkperf" and t["candidate"], eff_med)}
    st["ceil"] = med(by[st["ceiling"]], "recv_bps") if st["ceiling"] else None
    return st


def per_rep(by, a, b, key="recv_bps"):
    """a / b for the runs of a and b in the same repetition."""
    ref = {r["rep"]: r.get(key) for r in by.get(b, []) if r.get("ok")}
    return [r[key] / ref[r["rep"]] for r in by.get(a, [])
            if r.get("ok") and r.get(key) and ref.get(r["rep"])]


def case_table(case, tools, results, cores):
    key, _, proto, _, _ = case
    st = case_stats(case, tools, results)
    by, ran = st["by"], st["ran"]
    peer_bps, peer = st["peer"]
    ceil = st["ceil"]
    lines = []
    if peer:
        lines.append(f"Best peer: **{peer}** ({gbps(peer_bps)} Gbit/s median), the fastest "
                     "iperf3/iperf2 row of this case; \"× best peer\" divides by it.")
    else:
        lines.append("No iperf3/iperf2 row has a result in this case: no \"× best peer\".")
    if st["ceiling"] and ceil:
        methods = sorted({r.get("method") for r in by[st["ceiling"]] if r.get("method")})
        lines.append(f"Ceiling: **{st['ceiling']}** ({gbps(ceil)} Gbit/s median"
                     + (f"; method {', '.join(methods)}" if methods else "")
                     + "); \"% of ceiling\" divides by it.")
    else:
        lines.append("No ceiling row in this run: no \"% of ceiling\".")
    if proto == "udp":
        lines.append(same_method(st, by, tools, key))
    for t in ran:
        if t.get("notes", {}).get(key):
            lines.append(f"Note on {t['label']}: {t['notes'][key]}.")
    lines.append("")
    if proto == "tcp":
        lines.append("| row | ok | receiver Gbit/s (median) | spread | quiet runs: median (n) "
                     "| × best peer | % of ceiling | client CPU s | server CPU s "
                     "| Gbit per CPU-s | retrans | noisy runs |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    else:
        lines.append("| row | ok | receiver Gbit/s (median) | spread | quiet runs: median (n) "
                     "| received Mpps | sent Mpps | loss % | × best peer | % of ceiling "
                     "| client CPU s | server CPU s | Gbit per CPU-s | ksoftirqd CPU s "
                     "| noisy runs |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for t in ran:
        rows = by[t["label"]]
        ok = sum(1 for r in rows if r["ok"])
        rb = med(rows, "recv_bps")
        sp = spread(rows, "recv_bps")
        xpeer = ratio(rb, peer_bps) if t["group"] == "linkperf" else None
        ccpu, scpu = med(rows, "client_cpu_s"), med(rows, "server_cpu_s")
        quiet = [r for r in rows if r["ok"] and not noisy(r, cores)]
        name = t["label"] + (" (best peer)" if t["label"] == peer else "")
        cells = [f"**{name}**" if t["group"] == "linkperf" else name,
                 f"{ok}/{len(rows)}", gbps(rb),
                 "—" if sp is None else f"{sp:.0f} %",
                 f"{gbps(med(quiet, 'recv_bps'))} ({len(quiet)})"]
        if proto == "udp":
            cells += [mpps(med(rows, "recv_pps")), mpps(med(rows, "sent_pps")),
                      num(med(rows, "loss_pct"), ".2f")]
        cells += [num(xpeer, ".2f"), pct(ratio(rb, ceil)),
                  num(ccpu, ".2f"), num(scpu, ".2f"), num(eff_med(rows), ".2f")]
        if proto == "tcp":
            rt = med(rows, "retrans")
            cells.append("—" if rt is None else f"{rt:.0f}")
        else:
            cells.append(num(med(rows, "ksoftirqd_cpu_s"), ".2f"))
        cells.append(str(sum(1 for r in rows if r["ok"] and noisy(r, cores))))
        lines.append("| " + " | ".join(cells) + " |")

    above = above_ceiling(st, by, ran)
    if above:
        lines += ["", above]

    paired = []
    for t in ran:
        if t["group"] != "linkperf":
            continue
        for base, what in ((peer, "best peer"), (st["ceiling"], "ceiling")):
            if base and (what == "best peer" or t["role"] == "default"):
                pr = per_rep(by, t["label"], base)
                if pr:
                    paired.append(f"- {t['label']} / {base}"
                                  + (f" ({what})" if base != what else "") + ": "
                                  + ", ".join(f"{x:.2f}" for x in pr))
    if paired:
        lines += ["", "Per-repetition ratios (two rows of the same repetition; within one "
                  "repetition the rows run one after another in table order):", ""] + paired

    hist, dflt = st["history"], st["default"]
    if hist and dflt:
        a, b = med(by[dflt], "recv_bps"), med(by[hist], "recv_bps")
        cpu = lambda rows: statistics.median(
            [r["client_cpu_s"] + r["server_cpu_s"] for r in rows if r["ok"]]) \
            if any(r["ok"] for r in rows) else None
        ca, cb = cpu(by[dflt]), cpu(by[hist])
        pr = per_rep(by, dflt, hist)
        lines += ["", f"History: `{dflt}` records every test in the history database on "
                  f"both ends, `{hist}` on neither. Receiver median {gbps(a)} vs {gbps(b)} "
                  f"Gbit/s: {dflt} / {hist} = {num(ratio(a, b), '.3f')}"
                  + (f" (per repetition {', '.join(f'{x:.3f}' for x in pr)})" if pr else "")
                  + f"; client + server CPU s {num(ca, '.2f')} vs {num(cb, '.2f')}; "
                  f"Gbit per CPU-s {num(eff_med(by[dflt]), '.2f')} vs "
                  f"{num(eff_med(by[hist]), '.2f')}."]
    fails = [r for r in results if r["case"] == key and not r["ok"]]
    if fails:
        lines.append("")
    for r in fails:
        lines.append(f"- FAILED {r['tool']} (rep {r['rep']}): {r.get('error', '?')}"
                     + ("; what it printed is the run's `output` in the JSON file"
                        if r.get("output") else ""))
    return lines


def same_method(st, by, tools, key):
    """The like-for-like sentence of a UDP case: linkperf's default against
    the fastest peer row that also batches (GSO/GRO), or why there is none."""
    gbps_, peer = st["peer_gso"]
    dflt = st["default"]
    if peer and dflt:
        a, b = med(by[dflt], "recv_pps"), med(by[peer], "recv_pps")
        return (f"Same method (GSO send, GRO receive on both sides): best such peer "
                f"**{peer}** ({gbps(gbps_)} Gbit/s, {mpps(b)} Mpps median); linkperf / "
                f"{peer} = {num(ratio(a, b), '.2f')} in received datagrams per second.")
    tried = [t["label"] for t in tools if t["group"] == "peer" and batches(t)
             and by.get(t["label"])]
    if tried:
        return ("Same method (GSO/GRO on both sides): no peer row that batches has a "
                f"result in this case ({', '.join(tried)}: every run failed, see below); "
                "\"× best peer\" compares with a peer that sends one datagram per call.")
    return "Same method (GSO/GRO on both sides): no peer row that batches ran in this case."


def above_ceiling(st, by, ran):
    """Why a row's median, or a repetition's linkperf / ceiling pair, can
    exceed the ceiling's: said beside the numbers."""
    ceil, name = st["ceil"], st["ceiling"]
    if not ceil:
        return None
    over = [(t["label"], med(by[t["label"]], "recv_bps") / ceil) for t in ran
            if t["group"] != "ceiling" and (med(by[t["label"]], "recv_bps") or 0) > ceil]
    pairs = [x for x in per_rep(by, st["default"], name) if x > 1] if st["default"] else []
    if not over and not pairs:
        return None
    v = [r["recv_bps"] for r in by[name] if r.get("ok")]
    sp = spread(by[name], "recv_bps") if len(v) > 1 else 0.0
    what = [f"the median of {l} ({x * 100:.0f} %)" for l, x in over]
    if pairs:
        what.append(f"{st['default']} / ceiling in {len(pairs)} repetition(s) "
                    f"({', '.join(f'{x:.2f}' for x in pairs)})")
    runs = (f"The ceiling's own {len(v)} runs ranged {gbps(min(v))}–{gbps(max(v))} Gbit/s "
            f"(spread {sp:.0f} %)" if len(v) > 1 else "The ceiling ran once")
    top = max([x for _, x in over] + pairs)
    verdict = ("level with it within that noise (see \"ceiling\" in the method of the Run "
               "section), not faster than the kernel" if (top - 1) * 100 <= sp else
               "above it by more than its own spread: not explained by noise alone")
    return f"Above the ceiling: {'; '.join(what)}. {runs}: {verdict}."


TARGETS = {  # case: (× best peer wanted, on which number, max loss % or None)
    "tcp1": (1.3, "recv_bps", None), "tcp4": (1.3, "recv_bps", None),
    "udp1470": (1.3, "recv_bps", 0.1), "udp64": (1.5, "recv_pps", None),
}
CEILING_TARGET = 0.90


def verdict(ok):
    return "met" if ok else "**not met**"


def targets_line(case, st):
    """The issue's targets for this case and whether this run met them."""
    key = case[0]
    by, dflt = st["by"], st["default"]
    want, stat, max_loss = TARGETS.get(key, (None, None, None))
    parts = []
    peer_bps, peer = st["peer"]
    if want is not None:
        what = "received pps" if stat == "recv_pps" else "receiver rate"
        goal = f"linkperf default ≥ {want}× best peer ({what})" + \
            (f" at ≤ {max_loss} % loss" if max_loss is not None else "")
        a = med(by[dflt], stat) if dflt else None
        b = med(by[peer], stat) if peer else None
        x = ratio(a, b)
        if x is None:
            parts.append(f"{goal}: cannot tell (no linkperf default or no peer result)")
        else:
            ok = x >= want
            txt = f"{goal}: {x:.2f}× {peer}"
            if max_loss is not None:
                loss = med(by[dflt], "loss_pct")
                ok = ok and loss is not None and loss <= max_loss
                txt += f", linkperf loss {num(loss, '.2f')} %"
            parts.append(f"{txt} — {verdict(ok)}")
    lp_bps, lp = st["lp_best"]
    goal = f"linkperf best mode ≥ {CEILING_TARGET * 100:.0f} % of ceiling"
    x = ratio(lp_bps, st["ceil"])
    parts.append(f"{goal}: cannot tell (no ceiling result)" if x is None or lp is None else
                 f"{goal}: {lp} {x * 100:.0f} % — {verdict(x >= CEILING_TARGET)}")
    (le, ll), (pe, pl) = st["lp_eff"], st["peer_eff"]
    goal = "Gbit per CPU-s ≥ every peer"
    parts.append(f"{goal}: cannot tell" if le is None or pe is None else
                 f"{goal}: linkperf at best {le:.2f} ({ll}), peers at best {pe:.2f} ({pl}) "
                 f"— {verdict(le >= pe)}")
    return f"- **{key}**: " + "; ".join(parts) + "."


def summary(cases, tools, results):
    L = ["| case | linkperf default | linkperf best | best peer | ceiling "
         "| linkperf default × best peer | linkperf best % of ceiling "
         "| Gbit per CPU-s: linkperf default / best peer |",
         "|---|---|---|---|---|---|---|---|"]
    targets = []
    for case in cases:
        st = case_stats(case, tools, results)
        by, udp = st["by"], case[2] == "udp"

        def cell(label, name=False):
            if not label:
                return "—"
            bps = med(by[label], "recv_bps")
            txt = f"{gbps(bps)} Gbit/s"
            if udp:
                txt += f", {mpps(med(by[label], 'recv_pps'))} Mpps, " \
                       f"{num(med(by[label], 'loss_pct'), '.2f')} % loss"
            return (f"{label}: " if name else "") + txt

        dflt, lp, peer, ceil = st["default"], st["lp_best"][1], st["peer"][1], st["ceiling"]
        d_bps = med(by[dflt], "recv_bps") if dflt else None
        L.append("| " + " | ".join([
            case[0], cell(dflt), cell(lp, True), cell(peer, True), cell(ceil),
            num(ratio(d_bps, st["peer"][0]), ".2f"),
            pct(ratio(st["lp_best"][0], st["ceil"])),
            f"{num(eff_med(by[dflt]) if dflt else None, '.2f')} / "
            f"{num(eff_med(by[peer]) if peer else None, '.2f')}"]) + " |")
        targets.append(targets_line(case, st))
    same = []
    for case in cases:
        if case[2] == "udp":
            st = case_stats(case, tools, results)
            same.append(f"- **{case[0]}**: " + same_method(st, st["by"], tools, case[0]))
    if same:
        L += ["", "UDP like for like (\"× best peer\" takes the fastest peer row whatever its "
              "method):", ""] + same
    return L + ["", "Targets of issue 17, stated for this run (a statement about these "
                "numbers, not a pass/fail test):", ""] + targets


def raw_table(results):
    lines = ["| case | rep | row | ok | recv Gbit/s | sent Gbit/s | loss % | recv Mpps "
             "| client CPU s | server CPU s | Gbit per CPU-s | ksoftirqd CPU s | other CPU s "
             "| waited s | notes |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        notes = "; ".join(r.get("odd", []))
        if not r["ok"]:
            notes = (r.get("error", "") + ("; " + notes if notes else "")).strip("; ")
        notes = notes.replace("|", "/")
        lines.append("| " + " | ".join([
            r["case"], str(r["rep"]), r["tool"], "yes" if r["ok"] else "**no**",
            gbps(r.get("recv_bps")), gbps(r.get("sent_bps")),
            num(r.get("loss_pct"), ".2f"), mpps(r.get("recv_pps")),
            num(r.get("client_cpu_s"), ".2f"), num(r.get("server_cpu_s"), ".2f"),
            num(run_eff(r), ".2f"),
            num(r.get("ksoftirqd_cpu_s"), ".2f"), num(r.get("other_cpu_s"), ".2f"),
            num(r.get("quiet_wait_s"), ".1f"), notes]) + " |")
    return lines


def old_notes(path):
    try:
        text = read(path)
    except OSError:
        return None
    i, j = text.find(NOTES_BEGIN), text.find(NOTES_END)
    if i < 0 or j < i:
        return None
    return text[i + len(NOTES_BEGIN):j].strip("\n")


def new_run(argv, started, elapsed, time_s, reps, quiet_wait, nice, mach, vers,
            not_run=None, note=None, source=None):
    """What the Run section says about one run of this script."""
    mach = dict({k: "?" for k in ("cpu", "mhz", "hypervisor", "mem", "kernel", "os", "cc",
                                  "rmem_max", "wmem_max", "lo_mtu", "loadavg")}, **(mach or {}))
    mach["cores"] = mach.get("cores") or 1
    return {"argv": argv, "started": started, "elapsed": elapsed, "time": time_s, "reps": reps,
            "quiet_wait": quiet_wait, "nice": nice, "machine": mach, "versions": vers or {},
            "not_run": list(not_run or []), "note": note, "source": source, "cases": []}


def run_block(run, results, tools):
    """The Run section of one run: command, method, machine, command lines."""
    vers, mach = run["versions"], run["machine"]
    L = []
    if not any(t["group"] == "ceiling" for t in tools
               if any(r["tool"] == t["label"] for r in results)):
        L += ["This run has no ceiling rows (recorded before `bench/ceiling/` existed, or "
              "it could not be built): the \"% of ceiling\" cells are empty.", ""]
    if "iperf3_new" not in vers:
        L += ["This run has no rows of the newest iperf3 (`--iperf3-new` not given, or a "
              "file recorded before the option existed).", ""]
    if run["note"]:
        L += [run["note"], ""]
    L += ["```", "$ " + " ".join(run["argv"]), "```", "",
          f"- date: {run['started']:%Y-%m-%d %H:%M} UTC; total run time "
          f"{run['elapsed'] / 60:.1f} min",
          f"- method: each case runs every one of its rows once per repetition, one after "
          f"another in the order of its table, for {run['reps']} repetition(s) (A B C …, "
          "A B C …): interleaved, so that slow drifts of the machine hit all rows alike; "
          "medians over the repetitions. Per-repetition ratios pair two rows of the same "
          "repetition, at most one pass over the case's rows apart. "
          f"`-t {run['time']}` per run, a fresh server on a random free port per run",
          f"- quiet-wait: before each run the script waits up to {run['quiet_wait']} s until "
          f"other processes use < {QUIET_CORES} cores (over 0.5 s); a run is *noisy* when "
          f"other CPU s > {NOISY_SHARE * 100:.0f} % of the machine (cores × t). "
          f"Nice: {run['nice']} for every client and server. CPU pinning: none",
          "- CPU s = user+system time of the client / server process (all threads), "
          "from `wait4` rusage; ksoftirqd CPU s = the kernel's softirq threads during "
          "the run; \"other CPU s\" = machine-wide busy time during the run minus all "
          "of those, i.e. other processes. Gbit per CPU-s = received Gbit / (client + "
          "server CPU s), per run, median",
          "- best peer = the iperf3/iperf2 row (any mode) with the highest median receiver "
          "rate in the case; linkperf best = the fastest linkperf row that is neither `-R` "
          "nor `--no-history`; ceiling = the `ceiling` row (`bench/ceiling/ceiling.c`: TCP "
          "`send()` of 1 MiB → `recv(MSG_TRUNC)`, UDP GSO `sendmmsg()` → GRO `recvmmsg()`). "
          "The ceiling is a program timed like every other row, not a bound: it takes the "
          "same kernel path (on loopback the sender's core is the limit for every row), and "
          "its runs spread as much as any row's on a shared machine. A row whose median, or "
          "one repetition's pair, is above it by less than the ceiling's own spread is level "
          "with it within that noise, not faster than the kernel; each case gives the "
          "ceiling's range where that happens",
          "- spread = (max − min) / median of the receiver rate over the repetitions",
          "",
          "Machine:", "",
          f"- CPU: {mach['cpu']}, {mach['cores']} cores as seen by the OS "
          f"(hypervisor: {mach['hypervisor']}, {mach['mhz']} MHz), {mach['mem']} RAM",
          f"- kernel: {mach['kernel']}; {mach['os']}",
          f"- loopback MTU {mach['lo_mtu']}; TCP congestion control {mach['cc']}; "
          f"net.core.rmem_max {mach['rmem_max']}, wmem_max {mach['wmem_max']}",
          f"- load average before the run: {mach['loadavg']}",
          f"- linkperf: {vers.get('linkperf', '?')}",
          f"- iperf3: {vers.get('iperf3', '?')}",
          f"- iperf3, newest: {vers.get('iperf3_new', 'not measured (--iperf3-new not given)')}",
          f"- iperf2: {vers.get('iperf2', '?')}",
          f"- ceiling: {vers.get('ceiling', 'not measured')}", ""]
    if run["not_run"]:
        L += ["Left out (not supported, or not asked for):", ""] + \
             [f"- {n}" for n in run["not_run"]] + [""]
    L += ["Command lines (client; then the server where it is not `-s -1 -p PORT`):", ""]
    cmds = " ".join(r.get("client_cmd", "") + " " + r.get("server_cmd", "") for r in results)
    ph = [f"{v} stands for the path given with `{k}`" for k, v in PATH_OPTS.items()
          if v not in FILE_PH and re.search(rf"(^|\s){v}(\s|$)", cmds)]
    if ph or "TMP/" in cmds:
        L += ["(" + "; ".join(ph + ["TMP/ for the run's temp dir"] * ("TMP/" in cmds))
              + ".)", ""]
    seen = set()
    for r in results:
        k = (r["case"], r["tool"])
        if k in seen:
            continue
        seen.add(k)
        cmd = re.sub(r"(-p|--port) \d+", r"\1 PORT", r["client_cmd"])
        line = f"- {r['case']} / {r['tool']}: `{cmd}`"
        srv = r.get("server_cmd")
        if srv and not re.fullmatch(r"\S+ -s -1 -p \d+", srv):
            line += "; server `" + re.sub(r"(-p|--port) \d+", r"\1 PORT", srv) + "`"
        L.append(line)
    return L + [""]


def run_title(run):
    return (f"{run['started']:%Y-%m-%d %H:%M} UTC"
            + (f" (`bench/results/{os.path.basename(run['source'])}`)" if run["source"] else ""))


SOURCES_TAG = "<!-- rendered from: "


def report(args, runs, tools, results, sources=()):
    """The Markdown report of one run, or of several (each case's rows from one
    of them, runs[i]["cases"]); sources: the JSON files it is made from, named
    in the report so that it can be re-rendered and checked against them."""
    cases = [c for c in CASES if c[0] in {r["case"] for r in results}]
    if len(runs) == 1:
        runs[0]["cases"] = [c[0] for c in cases]
    of = {k: run for run in runs for k in run["cases"]}
    L = ["# linkperf benchmarks", "",
         "Loopback throughput of linkperf against stock iperf3 (Debian's and the newest",
         "release) and iperf2, each in its plain and its fastest modes, and against the",
         "kernel's own ceiling (`bench/ceiling/`), measured side by side in one run on one",
         "machine (see `bench/README.md`). Numbers are receiver-side; ratios are medians",
         "over medians unless marked per repetition. Generated by `bench/run.py`; the notes",
         "section is written by hand.", ""]
    if sources and not any(x in FILE_PH for x in sources):  # all in the repository
        L += [SOURCES_TAG + ",".join(sources) + " -->", ""]
    L += ["## Summary", ""] + summary(cases, tools, results) + [""]
    if len(runs) == 1:
        L += ["## Run", ""] + run_block(runs[0], results, tools)
    else:
        L += ["## Runs", "",
              f"This report puts {len(runs)} runs together: each case's rows come from one "
              "run, on the same machine; its section names which. Compare rows within a "
              "case, not rates across cases of different runs.", ""]
        for run in runs:
            rr = [r for r in results if r["case"] in run["cases"]]
            L += [f"### Run of {run_title(run)}: {', '.join(run['cases'])}", ""] + \
                run_block(run, rr, tools)
    for case in cases:
        L += [f"## {case[1]}", ""]
        if len(runs) > 1:
            L += [f"From the run of {run_title(of[case[0]])}.", ""]
        L += case_table(case, tools, results, of[case[0]]["machine"]["cores"]) + [""]
    L += ["## Notes", "", NOTES_BEGIN]
    notes = old_notes(args.out) if args.out else None
    L.append(notes if notes is not None else "(none yet)")
    L += [NOTES_END, "", "## Every run", ""] + raw_table(results) + [""]
    return "\n".join(L)


CEILING_SRC = os.path.join(REPO, "bench", "ceiling", "ceiling.c")
CEILING_CC = ["cc", "-O2", "-std=c11", "-D_GNU_SOURCE", "-pthread", "-o", "TMP/ceiling",
              "bench/ceiling/ceiling.c"]


def build_ceiling(tmp):
    """Compile bench/ceiling/ceiling.c into tmp; (path, None) or (None, why)."""
    if not shutil.which("cc"):
        return None, "no `cc` to build bench/ceiling/ceiling.c: its rows are left out"
    out = os.path.join(tmp, "ceiling")
    argv = ["cc"] + CEILING_CC[1:6] + [out, CEILING_SRC]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0 or not os.access(out, os.X_OK):
        return None, ("building bench/ceiling/ceiling.c failed: its rows are left out ("
                      + first_line(p.stderr) + ")")
    return out, None


# --------------------------------------------------------------------------

def find_linkperf(args):
    if args.linkperf:
        return args.linkperf
    path = os.path.join(REPO, "build-bench", "linkperf")
    if args.build:
        log("bench: building build-bench (Release) ...")
        ok = subprocess.run(["cmake", "-S", REPO, "-B", os.path.join(REPO, "build-bench"),
                             "-DCMAKE_BUILD_TYPE=Release"], stdout=subprocess.DEVNULL).returncode == 0
        ok = ok and subprocess.run(["cmake", "--build", os.path.join(REPO, "build-bench"),
                                    "-j", str(os.cpu_count() or 2), "--target", "linkperf"],
                                   stdout=subprocess.DEVNULL).returncode == 0
        if not ok:
            log("bench: build failed; using the existing binary if there is one")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="-t 5 instead of -t 10")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per tool and case (3)")
    ap.add_argument("--time", "-t", type=int, default=None, help="seconds per run (10, 5 with --quick)")
    ap.add_argument("--cases", default=",".join(c[0] for c in CASES),
                    help="comma list of " + ",".join(c[0] for c in CASES))
    ap.add_argument("--out", help="write the Markdown report here (e.g. docs/BENCHMARKS.md)")
    ap.add_argument("--json", help="also write every run as JSON here")
    ap.add_argument("--linkperf", help="linkperf binary (default build-bench/linkperf)")
    ap.add_argument("--no-build", dest="build", action="store_false",
                    help="do not (re)build build-bench first")
    ap.add_argument("--iperf3", default="iperf3", help="iperf3 to compare with (Debian's)")
    ap.add_argument("--iperf3-new", metavar="PATH",
                    help="also the newest iperf3, built from source (its rows are left out "
                         "without this)")
    ap.add_argument("--iperf2", default="iperf")
    ap.add_argument("--no-reverse", "--no-skip-rx-copy", dest="reverse", action="store_false",
                    help="leave out linkperf's -R rows of the TCP one-stream case "
                         "(--no-skip-rx-copy: the old name)")
    ap.add_argument("--quiet-wait", type=float, default=30.0,
                    help="before each run wait up to this many s for other load to stop (30)")
    ap.add_argument("--nice", type=int, default=0,
                    help="run every client and server at this nice increment "
                         "(e.g. -10 on a shared machine; needs root for < 0)")
    ap.add_argument("--render", metavar="JSON[,JSON...]",
                    help="run nothing: rewrite the report from files saved with --json "
                         "(a case's rows from the last file that has it)")
    ap.add_argument("--keep-logs", action="store_true", help="keep raw tool output in the temp dir")
    args = ap.parse_args()
    if args.render:
        return render(args)
    if args.time is None:
        args.time = 5 if args.quick else 10
    if args.reps < 1 or args.time < 1:
        ap.error("--reps and --time must be at least 1")
    cases = [c for c in CASES if c[0] in args.cases.split(",")]
    if not cases:
        ap.error("no known case in --cases")

    args.linkperf = os.path.abspath(find_linkperf(args))
    if args.iperf3_new:
        args.iperf3_new = os.path.abspath(args.iperf3_new)
    for name, b in (("linkperf", args.linkperf), ("iperf3", shutil.which(args.iperf3)),
                    ("iperf3-new", args.iperf3_new if args.iperf3_new else "-"),
                    ("iperf2", shutil.which(args.iperf2)), ("stdbuf", shutil.which("stdbuf"))):
        if b != "-" and (not b or not os.access(b, os.X_OK)):
            sys.exit(f"bench: missing program: {name} ({b})")

    for b, ph in ((args.linkperf, "LINKPERF"), (args.iperf3_new, "IPERF3_NEW"),
                  (args.iperf3, "IPERF3"), (args.iperf2, "IPERF2")):
        if b and os.sep in b:
            EXPLICIT[os.path.abspath(b)] = ph
    args.ksoftirqd = ksoftirqd_pids()
    atexit.register(kill_all)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    tmp = tempfile.mkdtemp(prefix="linkperf-bench.")
    args.ceiling, args.ceiling_error = build_ceiling(tmp)
    if args.ceiling_error:
        log("bench: " + args.ceiling_error)
    tools, not_run = make_tools(args)
    for n in not_run:
        log("bench: left out: " + n)
    plan = []
    for case in cases:
        ctools = [t for t in tools if t["cases"] is None or case[0] in t["cases"]]
        for rep in range(1, args.reps + 1):
            for t in ctools:
                plan.append((case, rep, t))
    est = len(plan) * (args.time + 2)
    log(f"bench: {len(plan)} runs of {args.time} s, about {est / 60:.0f} min "
        f"(at most {len(plan) * args.quiet_wait / 60:.0f} min more waiting for quiet)")

    mach, vers = machine(), versions(args)
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    results = []
    for i, (case, rep, tool) in enumerate(plan, 1):
        tag = f"{i:03d}.{case[0]}.{rep}.{re.sub(r'[^A-Za-z0-9]+', '_', tool['label'])}"
        r = run_one(args, case, tool, tmp, tag)
        r["rep"] = rep
        results.append(r)
        if r["ok"]:
            extra = ""
            if case[2] == "udp":
                extra = f" recv {r['recv_pps'] / 1e3:.0f} kpps loss {r['loss_pct']:.2f}%"
            log(f"[{i}/{len(plan)}] {case[0]} rep {rep} {tool['label']}: "
                f"{r['recv_bps'] / 1e9:.2f} Gbit/s{extra} cpu c/s "
                f"{r['client_cpu_s']:.2f}/{r['server_cpu_s']:.2f} "
                f"softirqd {r['ksoftirqd_cpu_s']:.2f} other {r['other_cpu_s']:.2f}"
                + (f" (waited {r['quiet_wait_s']:.0f} s)" if r["quiet_wait_s"] > 1 else "")
                + (f"  ODD: {'; '.join(r['odd'])}" if r["odd"] else ""))
        else:
            log(f"[{i}/{len(plan)}] {case[0]} rep {rep} {tool['label']}: FAILED: {r.get('error')}")
        time.sleep(0.5)
    elapsed = time.monotonic() - t0
    kill_all()
    if not args.keep_logs:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        log(f"bench: raw logs in {tmp}")

    argv = ["bench/run.py"] + public_argv(sys.argv[1:])
    run = new_run(argv, started, elapsed, args.time, args.reps, args.quiet_wait, args.nice,
                  mach, vers, not_run, source=args.json)
    text = report(args, [run], tools, results,
                  [public_path(args.json, "FILE")] if args.json else ())
    meta = {"argv": argv, "started": started.isoformat(), "elapsed_s": elapsed,
            "time_s": args.time, "reps": args.reps, "nice": args.nice,
            "quiet_wait_s": args.quiet_wait, "reverse_rows": args.reverse,
            "tools": [{k: v for k, v in t.items() if k != "bin"} for t in tools],
            "not_run": not_run}
    write_outputs(args, "bench", text, elapsed,
                  {"meta": meta, "machine": mach, "versions": vers, "results": results})
    return 0


def write_outputs(args, who, text, elapsed, data):
    """The Markdown report to args.out (else stdout), and data as JSON to
    args.json if given; shared with scale.py."""
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
        log(f"{who}: wrote {args.out} ({elapsed / 60:.1f} min)")
    else:
        print(text)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(data, fh, indent=1)


def render(args):
    """The report from saved runs (--render A.json[,B.json ...]): a case's
    rows come from the last file that has the case."""
    files = [f for f in args.render.split(",") if f]
    loaded, src = [], {}
    for i, path in enumerate(files):
        with open(path) as fh:
            d = json.load(fh)
        loaded.append(d)
        for r in d.get("results", []):
            src[r["case"]] = i
    runs, results, tools = [], [], []
    index = {}
    for i, (path, d) in enumerate(zip(files, loaded)):
        m = d.get("meta", {})
        mine = [r for r in d.get("results", []) if src[r["case"]] == i]
        if not mine:
            continue
        cases = [c[0] for c in CASES if c[0] in {r["case"] for r in mine}]
        note = None
        if "tools" not in m:
            note = (f"Rendered from `{os.path.basename(path)}`, written by an older "
                    "`bench/run.py`: its rows are described from their labels (`iperf3`, "
                    "`iperf2` are the plain rows of the versions listed under Machine), and the "
                    "rows, columns and figures that run did not have are absent or \"—\"; Gbit "
                    "per CPU-s is from rate × time, as those files hold no byte counts.")
        # What this run left out of a case another file supplies is not this report's.
        other = {c for c, j in src.items() if j != i}
        not_run = [n for n in m.get("not_run") or []
                   if not any(re.search(rf"\bin {re.escape(c)}\b", n) for c in other)]
        started = datetime.datetime.fromisoformat(m["started"]) if m.get("started") else \
            datetime.datetime.fromtimestamp(0, datetime.timezone.utc)
        run = new_run(m.get("argv", ["bench/run.py", "?"]), started, m.get("elapsed_s", 0.0),
                      m.get("time_s", "?"), m.get("reps", "?"), m.get("quiet_wait_s", "?"),
                      m.get("nice", 0), d.get("machine", {}), d.get("versions", {}), not_run,
                      note, path if len(files) > 1 else None)
        run["cases"] = cases
        runs.append(run)
        results += mine
        for t in tools_for_render(m, mine):
            if t["label"] not in index:
                index[t["label"]] = t
                tools.append(t)
            else:  # the same row in two runs: one description, both runs' notes
                index[t["label"]].setdefault("notes", {}).update(t.get("notes") or {})
    order = {c[0]: n for n, c in enumerate(CASES)}
    results.sort(key=lambda r: order.get(r["case"], len(order)))
    text = report(args, runs, tools, results, [public_path(f, "JSON") for f in files])
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Side-by-side loopback benchmark: linkperf vs stock iperf3 and iperf2.

Each tool's own client runs against its own fresh server on a random free
port; tools are interleaved (A B C A B C ...) for N repetitions and the median
of the receiver-side numbers is reported, with ratios and CPU seconds per side.
Only the Python 3 standard library is used. See bench/README.md.

This is a measurement, never a pass/fail: the script exits non-zero only when
it could not run at all (missing binary, bad arguments).
"""

import argparse
import atexit
import datetime
import json
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
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    r = reap(p, grace_s)
    if r:
        return r[0], r[1], "terminated"
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    r = reap(p, 10)
    return (r[0], r[1], "killed") if r else (None, float("nan"), "unkillable")


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


def wait_quiet(max_wait_s, max_cores=0.15):
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
    return r.get("other_cpu_s", 0) > 0.05 * cores * r["secs"]


# --------------------------------------------------------------------------
# cases and tools

CASES = [
    # key, title, proto, streams, datagram length
    ("tcp1", "TCP, 1 stream", "tcp", 1, None),
    ("tcp4", "TCP, 4 streams (-P 4)", "tcp", 4, None),
    ("udp1470", "UDP, 1470-byte datagrams, unlimited rate", "udp", 1, 1470),
    ("udp64", "UDP, 64-byte datagrams, unlimited rate", "udp", 1, 64),
]


def iperf3_style_cmds(binary, case, port, secs, extra):
    _, _, proto, streams, length = case
    srv = [binary, "-s", "-1", "-p", str(port)]
    cli = [binary, "-c", HOST, "-p", str(port), "-t", str(secs), "-J"]
    if streams > 1:
        cli += ["-P", str(streams)]
    if proto == "udp":
        cli += ["-u", "-b", "0", "-l", str(length)]
    return srv, cli + extra


def iperf2_cmds(binary, case, port, secs):
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
    return srv, cli


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


def make_tools(args):
    """(label, kind, extra client args, only these cases or None)."""
    tools = [("linkperf", "linkperf", [], None)]
    if args.skip_rx_copy:
        # --skip-rx-copy acts where the client receives; a forward test's
        # receiver is the server, so measure -R with and without it as well.
        tools += [("linkperf --skip-rx-copy", "linkperf", ["--skip-rx-copy"], ("tcp1",)),
                  ("linkperf -R", "linkperf", ["-R"], ("tcp1",)),
                  ("linkperf -R --skip-rx-copy", "linkperf", ["-R", "--skip-rx-copy"], ("tcp1",))]
    tools += [("iperf3", "iperf3", [], None), ("iperf2", "iperf2", [], None)]
    return tools


def run_one(args, case, tool, tmp, tag):
    label, kind, extra, _ = tool
    proto, streams = case[2], case[3]
    port = free_port()
    if kind == "iperf2":
        srv_cmd, cli_cmd = iperf2_cmds(args.iperf2, case, port, args.time)
    else:
        binary = args.linkperf if kind == "linkperf" else args.iperf3
        srv_cmd, cli_cmd = iperf3_style_cmds(binary, case, port, args.time, extra)
    f = {k: os.path.join(tmp, f"{tag}.{k}") for k in ("so", "se", "co", "ce")}
    res = {"tool": label, "case": case[0], "port": port, "ok": False, "secs": args.time,
           "client_cmd": " ".join(cli_cmd), "odd": []}
    # iperf2's UDP server holds only a UDP socket; the others listen on TCP.
    ready_proto = "udp" if (kind == "iperf2" and proto == "udp") else "tcp"
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
            scpu, how = rr[1], "exited"
        else:
            _, scpu, how = stop(srv)
        res["server_cpu_s"] = scpu
        if kind != "iperf2" and how != "exited":
            res["odd"].append(f"server {how}")
        res["ksoftirqd_cpu_s"] = pids_cpu_s(args.ksoftirqd) - soft0
        res["other_cpu_s"] = max(0.0, cpu_busy_s() - busy0 - res["client_cpu_s"]
                                 - scpu - res["ksoftirqd_cpu_s"])
        co, ce = read(f["co"]), read(f["ce"])
        try:
            if kind == "iperf2":
                parsed = parse_iperf2(read(f["so"]), co, case)
            else:
                parsed = parse_iperf3_json(co, case)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            msg = str(e) or type(e).__name__
            tail = first_line(ce) or first_line(read(f["se"]))
            res["error"] = msg + (f" (stderr: {tail})" if tail else "")
            return res
        res["odd"] += parsed.pop("odd")
        res.update(parsed)
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
    i3 = first_line(sh([args.iperf3, "-v"]))
    i2 = first_line(sh([args.iperf2, "-v"]))
    git = sh(["git", "-C", REPO, "describe", "--always", "--dirty"]) or "?"
    return {"linkperf": f"{lp} (git {git}, {args.linkperf})", "iperf3": i3, "iperf2": i2}


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


def kpps(x):
    return "—" if x is None else f"{x / 1e3:.0f}"


def num(x, fmt):
    return "—" if x is None else format(x, fmt)


def ratio(a, b):
    return None if (a is None or not b) else a / b


def case_table(case, tools, results, cores):
    key, _, proto, _, _ = case
    by = {t[0]: [r for r in results if r["case"] == key and r["tool"] == t[0]]
          for t in tools}
    ran = [t for t in tools if by[t[0]]]
    base3 = med(by.get("iperf3", []), "recv_bps")
    base2 = med(by.get("iperf2", []), "recv_bps")
    lines = []
    if proto == "tcp":
        lines.append("| tool | ok | receiver Gbit/s (median) | spread | quiet runs: median (n) "
                     "| ×iperf3 | ×iperf2 | client CPU s | server CPU s | Gbit per CPU-s | retrans | noisy runs |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    else:
        lines.append("| tool | ok | receiver Gbit/s (median) | spread | quiet runs: median (n) "
                     "| ×iperf3 | ×iperf2 | received kpps | sent kpps | loss % | client CPU s | server CPU s "
                     "| ksoftirqd CPU s | noisy runs |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for t in ran:
        rows = by[t[0]]
        ok = sum(1 for r in rows if r["ok"])
        rb = med(rows, "recv_bps")
        sp = spread(rows, "recv_bps")
        r3 = None if t[0] == "iperf3" else ratio(rb, base3)
        r2 = None if t[0] == "iperf2" else ratio(rb, base2)
        ccpu, scpu = med(rows, "client_cpu_s"), med(rows, "server_cpu_s")
        quiet = [r for r in rows if r["ok"] and not noisy(r, cores)]
        cells = [f"**{t[0]}**" if t[0].startswith("linkperf") else t[0],
                 f"{ok}/{len(rows)}", gbps(rb),
                 "—" if sp is None else f"{sp:.0f} %",
                 f"{gbps(med(quiet, 'recv_bps'))} ({len(quiet)})",
                 num(r3, ".2f"), num(r2, ".2f")]
        if proto == "tcp":
            eff = None
            effs = [r["recv_bps"] / 1e9 * r["secs"] / (r["client_cpu_s"] + r["server_cpu_s"])
                    for r in rows if r["ok"]
                    and (r["client_cpu_s"] + r["server_cpu_s"]) > 0]
            if effs:
                eff = statistics.median(effs)
            rt = med(rows, "retrans")
            cells += [num(ccpu, ".2f"), num(scpu, ".2f"), num(eff, ".2f"),
                      "—" if rt is None else f"{rt:.0f}"]
        else:
            cells += [kpps(med(rows, "recv_pps")), kpps(med(rows, "sent_pps")),
                      num(med(rows, "loss_pct"), ".2f"),
                      num(ccpu, ".2f"), num(scpu, ".2f"),
                      num(med(rows, "ksoftirqd_cpu_s"), ".2f")]
        cells.append(str(sum(1 for r in rows if r["ok"] and noisy(r, cores))))
        lines.append("| " + " | ".join(cells) + " |")
    paired = []
    for t in ran:
        if not t[0].startswith("linkperf"):
            continue
        for base in ("iperf3", "iperf2"):
            ref = {r["rep"]: r["recv_bps"] for r in by.get(base, []) if r["ok"]}
            pr = [r["recv_bps"] / ref[r["rep"]] for r in by[t[0]]
                  if r["ok"] and ref.get(r["rep"])]
            if pr:
                paired.append(f"- {t[0]} / {base}: " + ", ".join(f"{x:.2f}" for x in pr))
    if paired:
        lines += ["", "Per-repetition ratios (same repetition, run back to back):", ""] + paired
    fails = [r for r in results if r["case"] == key and not r["ok"]]
    for r in fails:
        lines.append("")
        lines.append(f"- FAILED {r['tool']} (rep {r['rep']}): {r.get('error', '?')}")
    return lines


def raw_table(results):
    lines = ["| case | rep | tool | ok | recv Gbit/s | sent Gbit/s | loss % | recv kpps "
             "| client CPU s | server CPU s | ksoftirqd CPU s | other CPU s | waited s "
             "| notes |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        notes = "; ".join(r.get("odd", []))
        if not r["ok"]:
            notes = (r.get("error", "") + ("; " + notes if notes else "")).strip("; ")
        notes = notes.replace("|", "/")
        lines.append("| " + " | ".join([
            r["case"], str(r["rep"]), r["tool"], "yes" if r["ok"] else "**no**",
            gbps(r.get("recv_bps")), gbps(r.get("sent_bps")),
            num(r.get("loss_pct"), ".2f"), kpps(r.get("recv_pps")),
            num(r.get("client_cpu_s"), ".2f"), num(r.get("server_cpu_s"), ".2f"),
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


def report(args, argv, mach, vers, tools, results, started, elapsed):
    L = ["# linkperf benchmarks", "",
         "Loopback throughput of linkperf against stock iperf3 and iperf2, measured",
         "side by side in one run on one machine (see `bench/README.md`). Numbers are",
         "receiver-side; ratios are medians of linkperf over medians of the other tool.",
         "Generated by `bench/run.py`; the notes section is written by hand.", "",
         "## Run", "",
         "```", "$ " + " ".join(argv), "```", "",
         f"- date: {started:%Y-%m-%d %H:%M} UTC; total run time {elapsed / 60:.1f} min",
         f"- each case: {args.reps} repetition(s), tools interleaved in the order of "
         f"the tables (A B C, A B C, ...), `-t {args.time}`, "
         "a fresh server on a random free port per run; CPU pinning: none; "
         f"nice: {args.nice}",
         "- CPU s = user+system time of the client / server process (all threads), "
         "from `wait4` rusage; ksoftirqd CPU s = the kernel's softirq threads during "
         "the run; \"other CPU s\" = machine-wide busy time during the run minus all "
         "of those, i.e. other processes. A run is *noisy* when other CPU s > 5 % of "
         "the machine (cores × t); before each run the script waits up to "
         f"{args.quiet_wait} s for the machine to go quiet (< 0.15 cores busy)",
         "- spread = (max − min) / median of the receiver rate over the repetitions",
         "",
         "Machine:", "",
         f"- CPU: {mach['cpu']}, {mach['cores']} cores as seen by the OS "
         f"(hypervisor: {mach['hypervisor']}, {mach['mhz']} MHz), {mach['mem']} RAM",
         f"- kernel: {mach['kernel']}; {mach['os']}",
         f"- loopback MTU {mach['lo_mtu']}; TCP congestion control {mach['cc']}; "
         f"net.core.rmem_max {mach['rmem_max']}, wmem_max {mach['wmem_max']}",
         f"- load average before the run: {mach['loadavg']}",
         f"- linkperf: {vers['linkperf']}",
         f"- iperf3: {vers['iperf3']}",
         f"- iperf2: {vers['iperf2']}",
         "", "Command lines (client side; servers are `-s -1 -p PORT`, iperf2 "
         "`-s [-u] -p PORT -y C`):", ""]
    seen = set()
    for r in results:
        k = (r["case"], r["tool"])
        if k in seen:
            continue
        seen.add(k)
        cmd = re.sub(r"-p \d+", "-p PORT", r["client_cmd"])
        L.append(f"- {r['case']} / {r['tool']}: `{cmd}`")
    L.append("")
    for case in CASES:
        if case[0] not in {r["case"] for r in results}:
            continue
        L += [f"## {case[1]}", ""] + case_table(case, tools, results, mach["cores"]) + [""]
    L += ["## Notes", "", NOTES_BEGIN]
    notes = old_notes(args.out) if args.out else None
    L.append(notes if notes is not None else "(none yet)")
    L += [NOTES_END, "", "## Every run", ""] + raw_table(results) + [""]
    return "\n".join(L)


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
    ap.add_argument("--iperf3", default="iperf3")
    ap.add_argument("--iperf2", default="iperf")
    ap.add_argument("--no-skip-rx-copy", dest="skip_rx_copy", action="store_false",
                    help="leave out the extra 'linkperf --skip-rx-copy' TCP row")
    ap.add_argument("--quiet-wait", type=float, default=30.0,
                    help="before each run wait up to this many s for other load to stop (30)")
    ap.add_argument("--nice", type=int, default=0,
                    help="run every client and server at this nice increment "
                         "(e.g. -10 on a shared machine; needs root for < 0)")
    ap.add_argument("--render", metavar="JSON",
                    help="run nothing: rewrite the report from a file saved with --json")
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
    for b in (args.linkperf, shutil.which(args.iperf3), shutil.which(args.iperf2),
              shutil.which("stdbuf")):
        if not b or not os.access(b, os.X_OK):
            sys.exit(f"bench: missing program: {b}")
    if args.skip_rx_copy and "--skip-rx-copy" not in sh([args.linkperf, "-h"]):
        log("bench: linkperf has no --skip-rx-copy; leaving that row out")
        args.skip_rx_copy = False

    args.ksoftirqd = ksoftirqd_pids()
    atexit.register(kill_all)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    tools = make_tools(args)
    plan = []
    for case in cases:
        ctools = [t for t in tools if t[3] is None or case[0] in t[3]]
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
    tmp = tempfile.mkdtemp(prefix="linkperf-bench.")
    for i, (case, rep, tool) in enumerate(plan, 1):
        r = run_one(args, case, tool, tmp, f"{i:03d}.{case[0]}.{rep}.{re.sub(r'[^A-Za-z0-9]+', '_', tool[0])}")
        r["rep"] = rep
        results.append(r)
        if r["ok"]:
            extra = ""
            if case[2] == "udp":
                extra = f" recv {r['recv_pps'] / 1e3:.0f} kpps loss {r['loss_pct']:.2f}%"
            log(f"[{i}/{len(plan)}] {case[0]} rep {rep} {tool[0]}: "
                f"{r['recv_bps'] / 1e9:.2f} Gbit/s{extra} cpu c/s "
                f"{r['client_cpu_s']:.2f}/{r['server_cpu_s']:.2f} "
                f"softirqd {r['ksoftirqd_cpu_s']:.2f} other {r['other_cpu_s']:.2f}"
                + (f" (waited {r['quiet_wait_s']:.0f} s)" if r["quiet_wait_s"] > 1 else "")
                + (f"  ODD: {'; '.join(r['odd'])}" if r["odd"] else ""))
        else:
            log(f"[{i}/{len(plan)}] {case[0]} rep {rep} {tool[0]}: FAILED: {r.get('error')}")
        time.sleep(0.5)
    elapsed = time.monotonic() - t0
    kill_all()
    if not args.keep_logs:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        log(f"bench: raw logs in {tmp}")

    argv = ["bench/run.py"] + sys.argv[1:]
    text = report(args, argv, mach, vers, tools, results, started, elapsed)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
        log(f"bench: wrote {args.out} ({elapsed / 60:.1f} min)")
    else:
        print(text)
    if args.json:
        meta = {"argv": argv, "started": started.isoformat(), "elapsed_s": elapsed,
                "time_s": args.time, "reps": args.reps, "nice": args.nice,
                "quiet_wait_s": args.quiet_wait, "skip_rx_copy": args.skip_rx_copy}
        with open(args.json, "w") as fh:
            json.dump({"meta": meta, "machine": mach, "versions": vers,
                       "results": results}, fh, indent=1)
    return 0


def render(args):
    with open(args.render) as fh:
        d = json.load(fh)
    m = d["meta"]
    args.time, args.reps, args.nice = m["time_s"], m["reps"], m["nice"]
    args.quiet_wait, args.skip_rx_copy = m["quiet_wait_s"], m["skip_rx_copy"]
    started = datetime.datetime.fromisoformat(m["started"])
    text = report(args, m["argv"], d["machine"], d["versions"], make_tools(args),
                  d["results"], started, m["elapsed_s"])
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The server at scale: many tests through one linkperf -s, on loopback.

1. N concurrent tests (stock iperf3 / iperf2 clients and linkperf's own, TCP
   and UDP, both dialects) against one linkperf -s, started together, against
   the same N streams in one test (-P N): aggregate receiver rate and ratio.
2. The server's open fds, RSS, VmData and threads while the N tests run,
   minus the idle server, per test.
3. Connection setup rate: the smallest test each client allows, back to back
   (and 8 at a time), against linkperf -s, stock iperf -s and stock iperf3 -s.

Python 3 standard library only; shares its process, port and parsing helpers
with bench/run.py. See bench/README.md. A measurement, never a pass/fail: the
script exits non-zero only when it could not run at all.
"""

import argparse
import atexit
import datetime
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as benchrun  # noqa: E402  (bench/run.py: shared helpers)

HOST = benchrun.HOST
log = benchrun.log
read = benchrun.read
first_line = benchrun.first_line
num = benchrun.num

# Start gate: each client is `sh -c 'read _ < FIFO; exec CLIENT'`; the parent
# holds the FIFO open read-write, waits until every shell has it open, then
# writes one newline per client (dash's read takes one byte at a time).
GATE = 'read _ < "$0"; exec "$@"'

# The smallest test that ends reliably: one 1 KiB write. (iperf 2.1.8's
# `-n 1` sometimes never ends: it went on sending for 10 minutes here.)
SETUP_ARGS = {"iperf3": ["-n", "1K", "-l", "1K"], "iperf2": ["-n", "1K", "-l", "1K", "-y", "C"]}


# --------------------------------------------------------------------------
# small helpers

def bits(text):
    """'20M' -> 20e6 (iperf's 1000-based rate suffixes)."""
    m = re.fullmatch(r"([0-9.]+)([kKmMgGtT]?)", text)
    if not m:
        raise ValueError(f"bad rate {text!r}")
    mult = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group(2).lower()]
    return float(m.group(1)) * mult


def gbps(x):
    return "—" if x is None else f"{x / 1e9:.3f}"


def proc_sample(pid):
    """Open fds, VmRSS / VmData (KiB) and threads of a live process."""
    s = {}
    try:
        s["fds"] = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmData"):
                    s[k.lower() + "_kb"] = int(v.split()[0])
                elif k == "Threads":
                    s["threads"] = int(v)
    except (OSError, ValueError):
        return None
    return s if len(s) == 4 else None


def peak(samples):
    if not samples:
        return None
    return {k: max(x[k] for x in samples) for k in samples[0]}


def fd_targets(pid):
    try:
        d = f"/proc/{pid}/fd"
        return {os.readlink(os.path.join(d, f)) for f in os.listdir(d)}
    except OSError:
        return set()


def poll_reap(p):
    """Non-blocking wait4 of one child: (rc, cpu_s) or None."""
    pid, status, ru = os.wait4(p.pid, os.WNOHANG)
    if pid != p.pid:
        return None
    benchrun.LIVE.pop(p.pid, None)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_utime + ru.ru_stime


def spawn_client(argv, out_path, err_path):
    """Like run.py's spawn (own process group, killed on every exit path), but
    in this script's session: with autogroup scheduling (kernel.sched_autogroup_
    enabled) every session is one scheduling group, so N clients each in a new
    session would get N shares of the CPU against the server's one. Here all
    clients share one group, as the one client of a -P N test has one."""
    kw = {"process_group": 0} if sys.version_info >= (3, 11) else {"preexec_fn": os.setpgrp}
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, **kw)
    benchrun.LIVE[p.pid] = p
    return p


def unlink_all(paths):
    for path in paths:
        try:
            os.unlink(path)
        except OSError:
            pass


def count_errors(errs):
    """['x', 'y', 'x'] -> [['x', 2], ['y', 1]] (first seen first)."""
    out = {}
    for e in errs:
        out[e] = out.get(e, 0) + 1
    return [[k, v] for k, v in out.items()]


def server_extra_lines(so_text, se_text, limit=20):
    """Server output that is not a CSV report row: errors, refusals, notes."""
    lines = []
    for line in (so_text + "\n" + se_text).splitlines():
        line = line.strip()
        if not line or re.match(r"^\d{14},", line):
            continue
        if line not in lines:
            lines.append(line)
    return lines[:limit]


# --------------------------------------------------------------------------
# servers

def shown(cmd):
    """A command line as the JSON and the report keep it: programs through
    run.py's public_path, the throw-away history database as TMP/history.db."""
    return re.sub(r"--db \S+", "--db TMP/history.db", benchrun.public_cmd(cmd))


def linkperf_server_cmd(args, port, tmp, csv=True):
    cmd = [args.linkperf, "-s", "-p", str(port), "-i", "0",
           "--max-tests", str(args.max_tests)]
    if csv:
        cmd.append("--csv")
    if args.no_history:
        cmd.append("--no-history")
    else:
        # Record as a default server does, but into a throw-away database.
        cmd += ["--db", os.path.join(tmp, "history.db")]
    return cmd


def start_server(cmd, port, tmp, tag, res, files):
    """(the server, listening, and its {"so", "se"} output files), the files
    also added to files; the server is None if it did not start, with the
    reason in res["errors"]."""
    f = {k: os.path.join(tmp, f"{tag}.{k}") for k in ("so", "se")}
    files += f.values()
    srv = benchrun.spawn(cmd, f["so"], f["se"])
    if not benchrun.wait_listening(srv, port, "tcp", 10.0):
        benchrun.stop(srv, 1.0)
        res["errors"] = [["server did not start: " + first_line(read(f["se"]) + read(f["so"])), 1]]
        return None, f
    return srv, f


# --------------------------------------------------------------------------
# 1 + 2: N concurrent tests vs one test with -P N

LOAD_CASES = [
    # key, client family, dialect, proto
    ("iperf3-tcp", "stock", "iperf3", "tcp"),
    ("iperf3-udp", "stock", "iperf3", "udp"),
    ("iperf2-tcp", "stock", "iperf2", "tcp"),
    ("iperf2-udp", "stock", "iperf2", "udp"),
    ("lp-iperf3-tcp", "linkperf", "iperf3", "tcp"),
    ("lp-iperf3-udp", "linkperf", "iperf3", "udp"),
    ("lp-iperf2-tcp", "linkperf", "iperf2", "tcp"),
    ("lp-iperf2-udp", "linkperf", "iperf2", "udp"),
]


def client_name(case):
    _, fam, dialect, _ = case
    if fam == "stock":
        return "iperf3" if dialect == "iperf3" else "iperf 2"
    return "linkperf -c" if dialect == "iperf3" else "linkperf --iperf2 -c"


def load_client_cmd(args, case, port, streams):
    _, fam, dialect, proto = case
    if fam == "stock":
        cmd = [args.iperf3 if dialect == "iperf3" else args.iperf2]
    else:
        cmd = [args.linkperf] + ([] if dialect == "iperf3" else ["--iperf2"])
    cmd += ["-c", HOST, "-p", str(port), "-t", str(args.time)]
    cmd += ["-J"] if dialect == "iperf3" else ["-y", "C"]
    if fam == "linkperf":
        cmd.append("--no-history")
    if streams > 1:
        cmd += ["-P", str(streams)]
    if proto == "udp":
        # -b is per stream in iperf3, iperf2 and linkperf alike.
        cmd += ["-u", "-b", args.udp_rate, "-l", str(args.udp_len)]
    return cmd


def run_load(args, case, mode, rep, tmp, tag):
    """One run: a fresh linkperf -s, then N clients at once (mode 'concurrent')
    or one client with -P N (mode 'P'). Returns a result dict."""
    key, fam, dialect, proto = case
    n = args.tests
    nclients, streams = (n, 1) if mode == "concurrent" else (1, n)
    port = benchrun.free_port()
    res = {"section": "load", "case": key, "client": client_name(case), "dialect": dialect,
           "proto": proto, "mode": mode, "rep": rep, "n": n, "secs": args.time,
           "ok": False, "errors": [], "odd": []}
    if proto == "udp":
        res["offered_bps"] = bits(args.udp_rate) * n
    res["quiet_wait_s"], res["load_before"] = benchrun.wait_quiet(args.quiet_wait)
    srv_cmd = linkperf_server_cmd(args, port, tmp)
    res["server_cmd"] = shown(srv_cmd)
    cli_cmd = load_client_cmd(args, case, port, streams)
    res["client_cmd"] = shown(cli_cmd)
    fifo = os.path.join(tmp, f"{tag}.gate")
    os.mkfifo(fifo)
    gate = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    clients, files = [], []
    srv = None
    try:
        srv, sf = start_server(srv_cmd, port, tmp, tag, res, files)
        if srv is None:
            return res
        time.sleep(0.5)
        idle = [s for s in (proc_sample(srv.pid) for _ in range(3)) if s]
        res["idle"] = idle[-1] if idle else None
        busy0 = benchrun.cpu_busy_s()
        t_spawn = time.monotonic()
        for i in range(nclients):
            co, ce = os.path.join(tmp, f"{tag}.{i}.co"), os.path.join(tmp, f"{tag}.{i}.ce")
            files += [co, ce]
            clients.append((spawn_client(["sh", "-c", GATE, fifo] + cli_cmd, co, ce), co, ce))
        # Open the gate once every shell holds the FIFO (bounded: 10 s).
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if all(fifo in fd_targets(p.pid) for p, _, _ in clients):
                break
            time.sleep(0.005)
        else:
            res["odd"].append("not every client reached the start gate in 10 s")
        res["spawn_s"] = time.monotonic() - t_spawn
        t0 = time.monotonic()
        os.write(gate, b"\n" * nclients)
        samples, done = [], {}
        limit = args.time + 30
        while len(done) < nclients and time.monotonic() - t0 < limit:
            for p, _, _ in clients:
                if p.pid not in done:
                    r = poll_reap(p)
                    if r:
                        done[p.pid] = r
            s = proc_sample(srv.pid)
            if s and len(done) < nclients:
                samples.append(s)
            time.sleep(0.1)
        res["wall_s"] = time.monotonic() - t0
        killed = 0
        for p, _, _ in clients:
            if p.pid not in done:
                rc, cpu, _ = benchrun.stop(p, 1.0)
                done[p.pid] = (rc, cpu)
                killed += 1
        if killed:
            res["errors"].append([f"client still running after {limit} s; killed", killed])
        res["clients_cpu_s"] = sum(c for _, c in done.values() if c == c)
        # Wait for the server's report rows: one per stream; stop waiting
        # when none came for 3 s (a failed test prints none).
        want, last_n, last_t = n, -1, time.monotonic()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            rows = benchrun.parse_iperf2_csv(read(sf["so"]), proto)
            if len(rows) >= want:
                break
            if len(rows) != last_n:
                last_n, last_t = len(rows), time.monotonic()
            elif time.monotonic() - last_t > 3:
                break
            time.sleep(0.1)
        after = proc_sample(srv.pid)
        src, res["server_cpu_s"], how = benchrun.stop(srv)
        if how == "exited":
            res["errors"].append([f"server exited during the run (status {src})", 1])
        elif how != "terminated":
            res["odd"].append(f"server {how}")
        res["other_cpu_s"] = max(0.0, benchrun.cpu_busy_s() - busy0
                                 - res["clients_cpu_s"] - res["server_cpu_s"])
        res["peak"] = peak(samples)
        res["samples"] = len(samples)
        res["after"] = after
        if res["idle"] and res["peak"]:
            res["per_unit"] = {k: (res["peak"][k] - res["idle"][k]) / n for k in res["idle"]}
        so, se = read(sf["so"]), read(sf["se"])
        res["server_lines"] = server_extra_lines(so, se)
        rows = benchrun.parse_iperf2_csv(so, proto)
        res["rows"] = len(rows)
        res["recv_bps"] = sum(float(f[8]) for f in rows)
        if proto == "udp" and rows:
            lost = sum(int(f[10]) for f in rows if len(f) >= 13)
            total = sum(int(f[11]) for f in rows if len(f) >= 13)
            res["lost"], res["total"] = lost, total
            res["loss_pct"] = 100.0 * lost / total if total else None
        # Each client: exit status and, for the iperf3 dialect, its -J
        # receiver numbers (a cross-check of the server's rows).
        errs, ok, csum = [], 0, 0.0
        pcase = (key, key, proto, streams, args.udp_len)
        for p, co, ce in clients:
            rc = done[p.pid][0]
            cot, cet = read(co), read(ce)
            if dialect == "iperf3":
                try:
                    parsed = benchrun.parse_iperf3_json(cot, pcase)
                    csum += parsed["recv_bps"]
                    if rc == 0:
                        ok += 1
                    else:
                        errs.append(f"exit status {rc}")
                except (ValueError, KeyError, TypeError, IndexError) as e:
                    errs.append((str(e) or type(e).__name__)
                                + (f" (stderr: {first_line(cet)})" if first_line(cet) else ""))
            else:
                if rc == 0 and benchrun.parse_iperf2_csv(cot, proto):
                    ok += 1
                else:
                    errs.append(first_line(cet) or first_line(cot) or f"exit status {rc}")
        res["clients_ok"] = ok
        res["errors"] += count_errors(errs)
        if dialect == "iperf3":
            res["client_recv_bps"] = csum
            if res["recv_bps"] and abs(csum - res["recv_bps"]) > 0.02 * res["recv_bps"]:
                res["odd"].append(f"clients' -J receiver sum {csum / 1e9:.3f} Gbit/s != "
                                  f"server rows {res['recv_bps'] / 1e9:.3f}")
        if res["rows"] < n:
            res["odd"].append(f"server printed {res['rows']} of {n} stream reports")
        res["ok"] = ok == nclients and res["rows"] >= n
        return res
    finally:
        for p, _, _ in clients:
            if p.pid in benchrun.LIVE:
                benchrun.stop(p, 1.0)
        if srv is not None and srv.pid in benchrun.LIVE:
            benchrun.stop(srv, 1.0)
        os.close(gate)
        unlink_all([fifo])
        if not args.keep_logs:
            unlink_all(files)


# --------------------------------------------------------------------------
# 3: connection setup rate

SETUP_PLAN = [
    # label, server kind, client dialect, parallel allowed
    ("linkperf -s", "linkperf", "iperf3", True),
    ("linkperf -s --no-history", "linkperf-nohist", "iperf3", True),
    ("iperf3 -s", "iperf3", "iperf3", False),
    ("linkperf -s", "linkperf", "iperf2", True),
    ("linkperf -s --no-history", "linkperf-nohist", "iperf2", True),
    ("iperf -s", "iperf2", "iperf2", True),
]


def setup_server_cmd(args, kind, port, tmp):
    if kind.startswith("linkperf"):
        cmd = [args.linkperf, "-s", "-p", str(port), "--max-tests", str(args.max_tests)]
        if kind.endswith("nohist") or args.no_history:
            cmd.append("--no-history")
        else:
            cmd += ["--db", os.path.join(tmp, "history.db")]
        return cmd
    if kind == "iperf3":
        return [args.iperf3, "-s", "-p", str(port)]
    return [args.iperf2, "-s", "-p", str(port)]


def run_setup(args, plan, par, tmp, tag):
    label, kind, dialect, _ = plan
    count = args.setup_count
    port = benchrun.free_port()
    res = {"section": "setup", "server": label, "server_kind": kind,
           "client": "iperf3" if dialect == "iperf3" else "iperf 2", "parallel": par,
           "count": count, "ok": 0, "errors": []}
    res["quiet_wait_s"], res["load_before"] = benchrun.wait_quiet(args.quiet_wait)
    srv_cmd = setup_server_cmd(args, kind, port, tmp)
    cli_cmd = ([args.iperf3] if dialect == "iperf3" else [args.iperf2]) + \
        ["-c", HOST, "-p", str(port)] + SETUP_ARGS[dialect]
    res["server_cmd"], res["client_cmd"] = shown(srv_cmd), shown(cli_cmd)
    srv, files = None, []
    live = {}
    try:
        srv, sf = start_server(srv_cmd, port, tmp, tag, res, files)
        if srv is None:
            return res
        time.sleep(0.3)
        busy0 = benchrun.cpu_busy_s()
        errs, started, ccpu = [], 0, 0.0
        t0 = time.monotonic()
        while started < count or live:
            while len(live) < par and started < count:
                co = os.path.join(tmp, f"{tag}.{started}.co")
                ce = os.path.join(tmp, f"{tag}.{started}.ce")
                p = spawn_client(cli_cmd, co, ce)
                live[p.pid] = (p, co, ce, time.monotonic())
                started += 1
            progressed = False
            for pid, (p, co, ce, ts) in list(live.items()):
                r = poll_reap(p)
                if r is None and time.monotonic() - ts > args.setup_timeout:
                    rc, cpu, _ = benchrun.stop(p, 0.5)
                    r = (rc, cpu)
                    errs.append(f"client still running after {args.setup_timeout} s; killed")
                elif r is not None:
                    rc = r[0]
                    cot, cet = read(co), read(ce)
                    good = rc == 0 and (dialect == "iperf3"
                                        or benchrun.parse_iperf2_csv(cot, "tcp"))
                    if good:
                        res["ok"] += 1
                    else:
                        errs.append(first_line(cet) or first_line(cot) or f"exit status {rc}")
                if r is not None:
                    ccpu += r[1] if r[1] == r[1] else 0.0
                    del live[pid]
                    unlink_all([co, ce])
                    progressed = True
            if not progressed:
                time.sleep(0.001)
        res["wall_s"] = time.monotonic() - t0
        res["clients_cpu_s"] = ccpu
        src, res["server_cpu_s"], how = benchrun.stop(srv)
        res["other_cpu_s"] = max(0.0, benchrun.cpu_busy_s() - busy0 - ccpu - res["server_cpu_s"])
        res["tests_per_s"] = res["ok"] / res["wall_s"] if res["wall_s"] else None
        res["errors"] = count_errors(errs)
        if how == "exited":
            res["errors"].append([f"server exited during the run (status {src})", 1])
        res["server_lines"] = [ln for ln in server_extra_lines("", read(sf["se"]))][:10]
        return res
    finally:
        for p, co, ce, _ in live.values():
            benchrun.stop(p, 0.5)
            files += [co, ce]
        if srv is not None and srv.pid in benchrun.LIVE:
            benchrun.stop(srv, 1.0)
        if not args.keep_logs:
            unlink_all(files)


# --------------------------------------------------------------------------
# report

def med(vals):
    v = [x for x in vals if x is not None]
    return statistics.median(v) if v else None


def fmt_errors(errs):
    return "; ".join(f"{e} (×{c})" for e, c in errs).replace("|", "/")


def load_tables(args, runs):
    n = args.tests
    L = [f"## 1. {n} concurrent tests against one test with -P {n}", "",
         f"One fresh `linkperf -s` per run. *concurrent*: {n} clients, each one stream, "
         f"released together; *-P {n}*: one client, {n} streams. Aggregate = sum of the "
         "server's per-stream receiver rows (`--csv`). Ratio = concurrent / -P "
         f"(medians over repetitions); target ≥ 0.90.", "",
         f"| client | dialect | proto | concurrent Gbit/s | -P {n} Gbit/s | ratio | ≥ 0.90 "
         f"| loss % conc / -P | tests ok | server CPU s conc / -P | other cores conc / -P |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for case in LOAD_CASES:
        rc = [r for r in runs if r["case"] == case[0] and r["mode"] == "concurrent"]
        rp = [r for r in runs if r["case"] == case[0] and r["mode"] == "P"]
        if not rc and not rp:
            continue
        ac = med([r.get("recv_bps") for r in rc if r.get("rows")])
        ap = med([r.get("recv_bps") for r in rp if r.get("rows")])
        ratio = ac / ap if ac and ap else None
        loss = "—"
        if case[3] == "udp":
            loss = (f"{num(med([r.get('loss_pct') for r in rc]), '.2f')} / "
                    f"{num(med([r.get('loss_pct') for r in rp]), '.2f')}")
        okc = "/".join(str(r.get("clients_ok", 0)) for r in rc)
        other = (f"{num(med([r['other_cpu_s'] / r['wall_s'] for r in rc if r.get('wall_s')]), '.2f')}"
                 f" / {num(med([r['other_cpu_s'] / r['wall_s'] for r in rp if r.get('wall_s')]), '.2f')}")
        L.append("| " + " | ".join([
            client_name(case), case[2], case[3].upper(), gbps(ac), gbps(ap), num(ratio, ".2f"),
            "—" if ratio is None else ("yes" if ratio >= 0.9 else "**no**"), loss,
            f"{okc} of {n}", f"{num(med([r.get('server_cpu_s') for r in rc]), '.1f')} / "
            f"{num(med([r.get('server_cpu_s') for r in rp]), '.1f')}", other]) + " |")
        if len(rc) > 1 and len(rp) > 1:
            pr = [a["recv_bps"] / b["recv_bps"] for a, b in zip(rc, rp)
                  if a.get("recv_bps") and b.get("recv_bps")]
            notes.append(f"- {client_name(case)} {case[2]} {case[3].upper()}: per-repetition "
                         "ratios " + ", ".join(f"{x:.2f}" for x in pr))
    if any(c[3] == "udp" for c in LOAD_CASES):
        L += ["", f"UDP: `-b {args.udp_rate}` per test / per stream, `-l {args.udp_len}`: "
              f"{gbps(bits(args.udp_rate) * n)} Gbit/s offered in total."]
    if notes:
        L += ["", "Per repetition (concurrent / -P of the same repetition):", ""] + notes
    return L


def resource_table(args, runs):
    n = args.tests
    L = [f"## 2. Server resources per test ({n} concurrent tests)", "",
         "Sampled from `/proc/PID` every 0.1 s while the clients ran; per test = (peak − idle "
         f"server) / {n}. The -P {n} columns are the same per stream of one test.", "",
         "| client | dialect | proto | idle fds / RSS MiB / VmData MiB / threads "
         "| peak fds / RSS MiB / VmData MiB / threads | per test: fds | RSS KiB | VmData KiB "
         f"| threads | -P {n} per stream: fds | RSS KiB |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]

    def quad(s):
        if not s:
            return "—"
        return f"{s['fds']} / {s['vmrss_kb'] / 1024:.1f} / {s['vmdata_kb'] / 1024:.1f} / {s['threads']}"

    for case in LOAD_CASES:
        rc = [r for r in runs if r["case"] == case[0] and r["mode"] == "concurrent"]
        rp = [r for r in runs if r["case"] == case[0] and r["mode"] == "P"]
        if not rc:
            continue
        pu = [r["per_unit"] for r in rc if r.get("per_unit")]
        pp = [r["per_unit"] for r in rp if r.get("per_unit")]

        def m(rows, k, fmt):
            return num(med([x[k] for x in rows]), fmt)
        L.append("| " + " | ".join([
            client_name(case), case[2], case[3].upper(), quad(rc[0].get("idle")),
            quad(rc[0].get("peak")), m(pu, "fds", ".2f"), m(pu, "vmrss_kb", ".0f"),
            m(pu, "vmdata_kb", ".0f"), m(pu, "threads", ".2f"),
            m(pp, "fds", ".2f"), m(pp, "vmrss_kb", ".0f")]) + " |")
    return L


def setup_table(args, runs):
    L = ["## 3. Connection setup rate", "",
         f"{args.setup_count} tests per row, each the smallest one that ends reliably "
         "(one 1 KiB write: iperf3 `-n 1K -l 1K`, iperf `-n 1K -l 1K -y C`), back to back "
         f"(1 at a time) or {args.setup_parallel} at a time, stock clients against each server. "
         "tests/s = successful tests / wall time, including each client process's start "
         "and exit (the same client for every server of a row group).", "",
         "| client | server | at a time | ok | wall s | tests/s | server CPU ms/test "
         "| client CPU ms/test | other cores | errors |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    keys = []
    for r in runs:
        k = (r["client"], r["server"], r["parallel"])
        if k not in keys:
            keys.append(k)
    for k in keys:
        rows = [r for r in runs if (r["client"], r["server"], r["parallel"]) == k]
        tps = med([r.get("tests_per_s") for r in rows])
        scpu = med([1000 * r["server_cpu_s"] / r["count"] for r in rows if r.get("server_cpu_s") is not None])
        ccpu = med([1000 * r["clients_cpu_s"] / r["count"] for r in rows if r.get("clients_cpu_s") is not None])
        other = med([r["other_cpu_s"] / r["wall_s"] for r in rows if r.get("wall_s")])
        errs = []
        for r in rows:
            errs += r.get("errors", [])
        L.append("| " + " | ".join([
            k[0], k[1], str(k[2]), "/".join(f"{r['ok']}" for r in rows) + f" of {rows[0]['count']}",
            "/".join(num(r.get("wall_s"), ".1f") for r in rows), f"**{num(tps, '.1f')}**",
            num(scpu, ".2f"), num(ccpu, ".1f"), num(other, ".2f"),
            fmt_errors(count_errors_merge(errs)) or "—"]) + " |")
    return L


def count_errors_merge(pairs):
    out = {}
    for e, c in pairs:
        out[e] = out.get(e, 0) + c
    return [[k, v] for k, v in out.items()]


def raw_table(runs):
    L = ["| case | mode | rep | ok | tests ok | stream rows | recv Gbit/s | client -J sum "
         "| loss % | wall s | spawn s | server CPU s | clients CPU s | other CPU s | notes |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        notes = "; ".join(r.get("odd", []) + [fmt_errors(r.get("errors", []))]).strip("; ")
        L.append("| " + " | ".join([
            r["case"], r["mode"] if r["mode"] == "concurrent" else f"-P {r['n']}", str(r["rep"]),
            "yes" if r["ok"] else "**no**", str(r.get("clients_ok", "—")), str(r.get("rows", "—")),
            gbps(r.get("recv_bps")), gbps(r.get("client_recv_bps")),
            num(r.get("loss_pct"), ".2f"), num(r.get("wall_s"), ".1f"),
            num(r.get("spawn_s"), ".2f"), num(r.get("server_cpu_s"), ".2f"),
            num(r.get("clients_cpu_s"), ".2f"), num(r.get("other_cpu_s"), ".2f"),
            notes.replace("|", "/")]) + " |")
    return L


def report(args, argv, mach, vers, runs, started, elapsed):
    load = [r for r in runs if r["section"] == "load"]
    setup = [r for r in runs if r["section"] == "setup"]
    L = ["# linkperf: the server at scale", "",
         "Generated by `bench/scale.py` (see `bench/README.md`). Loopback, one machine.", "",
         "```", "$ " + " ".join(argv), "```", "",
         f"- date: {started:%Y-%m-%d %H:%M} UTC; run time {elapsed / 60:.1f} min; "
         f"{args.reps} repetition(s), `-t {args.time}`, {args.tests} tests",
         f"- server history: {'off (--no-history)' if args.no_history else 'on, into a throw-away --db'}; "
         f"`--max-tests {args.max_tests}`",
         f"- CPU: {mach['cpu']}, {mach['cores']} cores ({mach['hypervisor']}), {mach['mem']} RAM; "
         f"{mach['kernel']}; load average before: {mach['loadavg']}",
         "- \"other cores\" = machine-wide busy CPU during the run minus the server and "
         "clients, / wall time: other load on the machine. High values mean noisy numbers.",
         f"- linkperf: {vers['linkperf']}", f"- iperf3: {vers['iperf3']}",
         f"- iperf2: {vers['iperf2']}", ""]
    seen = set()
    cmds = []

    def short(cmd):
        cmd = re.sub(r"--db \S+", "--db TMP/history.db", re.sub(r"-p \d+", "-p PORT", cmd))
        for path, name in ((args.linkperf, "linkperf"), (args.iperf3, "iperf3"),
                           (args.iperf2, "iperf")):
            for p in {path, benchrun.public_path(path, "")}:
                if p and cmd.startswith(p + " "):
                    cmd = name + cmd[len(p):]
        return cmd
    for r in runs:
        c, s = short(r["client_cmd"]), short(r["server_cmd"])
        if (c, s) not in seen:
            seen.add((c, s))
            cmds.append(f"- `{c}` → `{s}`")
    if load:
        L += load_tables(args, load) + [""] + resource_table(args, load) + [""]
    if setup:
        L += setup_table(args, setup) + [""]
    lines = []
    for r in runs:
        for ln in r.get("server_lines", []):
            tag = f"{r.get('case') or r.get('server')}"
            if (tag, ln) not in lines:
                lines.append((tag, ln))
    L += ["## Server messages", "",
          "Lines the servers printed that are not report rows (errors, refusals):", ""]
    L += [f"- {t}: `{ln}`" for t, ln in lines[:60]] or ["- none"]
    L += ["", "## Command lines", "",
          "Binaries: " + ", ".join(f"`{benchrun.public_path(b, ph)}`" for b, ph in
                                   ((args.linkperf, "LINKPERF"), (args.iperf3, "IPERF3"),
                                    (args.iperf2, "IPERF2"))) + ". Client → server:", ""]
    L += cmds + [""]
    if load:
        L += ["## Every load run", ""] + raw_table(load) + [""]
    return "\n".join(L)


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tests", type=int, default=64, help="concurrent tests / -P streams (64)")
    ap.add_argument("--time", "-t", type=int, default=10, help="seconds per load run (10)")
    ap.add_argument("--udp-rate", default="20M", help="UDP rate per test and per stream (20M)")
    ap.add_argument("--udp-len", type=int, default=1460, help="UDP datagram length (1460)")
    ap.add_argument("--reps", type=int, default=1, help="repetitions of every run (1)")
    ap.add_argument("--cases", default=",".join(c[0] for c in LOAD_CASES),
                    help="load cases: " + ",".join(c[0] for c in LOAD_CASES) + " (or none)")
    ap.add_argument("--no-setup", dest="setup", action="store_false",
                    help="skip the connection setup rate section")
    ap.add_argument("--setup-count", type=int, default=200, help="tests per setup-rate row (200)")
    ap.add_argument("--setup-parallel", type=int, default=8, help="clients at a time (8)")
    ap.add_argument("--setup-timeout", type=float, default=10.0, help="s per setup test (10)")
    ap.add_argument("--max-tests", type=int, default=None,
                    help="linkperf -s --max-tests (default max(64, 2 x --tests))")
    ap.add_argument("--no-history", action="store_true",
                    help="run the linkperf server with --no-history (default: a temp --db)")
    ap.add_argument("--out", help="write the Markdown report here (else stdout)")
    ap.add_argument("--json", help="also write every run as JSON here")
    ap.add_argument("--linkperf", help="linkperf binary (default build-bench/linkperf)")
    ap.add_argument("--iperf3", default="iperf3")
    ap.add_argument("--iperf2", default="iperf")
    ap.add_argument("--quiet-wait", type=float, default=5.0,
                    help="before each run wait up to this many s for other load to stop (5)")
    ap.add_argument("--keep-logs", action="store_true", help="keep raw tool output in the temp dir")
    args = ap.parse_args()
    if args.tests < 1 or args.time < 1 or args.reps < 1 or args.setup_count < 1:
        ap.error("--tests, --time, --reps and --setup-count must be at least 1")
    bits(args.udp_rate)
    if args.max_tests is None:
        args.max_tests = max(64, 2 * args.tests)
    cases = [c for c in LOAD_CASES if c[0] in args.cases.split(",")]

    args.linkperf = os.path.abspath(args.linkperf or os.path.join(benchrun.REPO, "build-bench", "linkperf"))
    for b in (args.linkperf, shutil.which(args.iperf3), shutil.which(args.iperf2), shutil.which("sh")):
        if not b or not os.access(b, os.X_OK):
            sys.exit(f"scale: missing program: {b}")
    args.iperf3, args.iperf2 = shutil.which(args.iperf3), shutil.which(args.iperf2)
    for b, ph in ((args.linkperf, "LINKPERF"), (args.iperf3, "IPERF3"), (args.iperf2, "IPERF2")):
        benchrun.EXPLICIT[os.path.abspath(b)] = ph

    # N clients + a server with 2+ fds per stream: raise the soft fd limit to
    # the hard one (inherited by every child).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft != resource.RLIM_INFINITY and soft < 4 * args.tests + 64:
        log(f"scale: RLIMIT_NOFILE is {soft}; the server may run out of fds")

    atexit.register(benchrun.kill_all)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, benchrun.on_signal)

    plan = []
    for rep in range(1, args.reps + 1):
        for case in cases:
            # Alternate the order so that drifts hit both modes alike.
            modes = ("concurrent", "P") if rep % 2 else ("P", "concurrent")
            plan += [("load", case, m, rep) for m in modes]
    if args.setup:
        for rep in range(1, args.reps + 1):
            for sp in SETUP_PLAN:
                plan.append(("setup", sp, 1, rep))
                if sp[3] and args.setup_parallel > 1:
                    plan.append(("setup", sp, args.setup_parallel, rep))
    nload = sum(1 for p in plan if p[0] == "load")
    log(f"scale: {nload} load runs of {args.time} s and {len(plan) - nload} setup-rate runs "
        f"of {args.setup_count} tests")

    mach, vers = benchrun.machine(), benchrun.versions(args)
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="linkperf-scale.")
    runs = []
    for i, (sec, what, mode, rep) in enumerate(plan, 1):
        if sec == "load":
            tag = f"{i:03d}.{what[0]}.{mode}.{rep}"
            r = run_load(args, what, mode, rep, tmp, tag)
            pu = r.get("per_unit") or {}
            log(f"[{i}/{len(plan)}] {what[0]} {'concurrent' if mode == 'concurrent' else '-P'} "
                f"rep {rep}: {'ok' if r['ok'] else 'NOT OK'} {gbps(r.get('recv_bps'))} Gbit/s "
                f"rows {r.get('rows')} clients ok {r.get('clients_ok')}"
                + (f" loss {num(r.get('loss_pct'), '.2f')}%" if what[3] == "udp" else "")
                + (f" per-unit fds {pu['fds']:.2f} rss {pu['vmrss_kb']:.0f} KiB" if pu else "")
                + f" other {num(r.get('other_cpu_s'), '.1f')} s"
                + (f"  ERR: {fmt_errors(r['errors'])}" if r["errors"] else "")
                + (f"  ODD: {'; '.join(r['odd'])}" if r["odd"] else ""))
        else:
            tag = f"{i:03d}.setup.{what[1]}.{what[2]}.{mode}.{rep}"
            r = run_setup(args, what, mode, tmp, tag)
            r["rep"] = rep
            log(f"[{i}/{len(plan)}] setup {r['client']} -> {what[0]} x{mode} rep {rep}: "
                f"{r['ok']}/{r['count']} ok, {num(r.get('tests_per_s'), '.1f')} tests/s"
                + (f"  ERR: {fmt_errors(r['errors'])}" if r["errors"] else ""))
        runs.append(r)
        time.sleep(0.5)
    elapsed = time.monotonic() - t0
    benchrun.kill_all()
    if args.keep_logs:
        log(f"scale: raw logs in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)

    argv = ["bench/scale.py"] + benchrun.public_argv(sys.argv[1:])
    text = report(args, argv, mach, vers, runs, started, elapsed)
    meta = {"argv": argv, "started": started.isoformat(), "elapsed_s": elapsed,
            "tests": args.tests, "time_s": args.time, "udp_rate": args.udp_rate,
            "udp_len": args.udp_len, "reps": args.reps, "max_tests": args.max_tests,
            "no_history": args.no_history, "setup_count": args.setup_count,
            "setup_parallel": args.setup_parallel}
    benchrun.write_outputs(args, "scale", text, elapsed,
                           {"meta": meta, "machine": mach, "versions": vers, "runs": runs})
    return 0


if __name__ == "__main__":
    sys.exit(main())

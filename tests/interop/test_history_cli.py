#!/usr/bin/env python3
"""`linkperf history` and the history every test is recorded in, seen from the CLI:

- first_recording_says_so_once: the run that creates the history prints one line on stderr
  naming the file and how to turn it off; the next run prints none; LINKPERF_NO_HISTORY=1
  and --no-history create nothing and say nothing.
- list_show_export_delete: two client tests (TCP, UDP -P 2) against a linkperf server; `list`
  shows them with the bytes and rates of their own -J; `export` is the -J document the test
  printed; `export --csv` intervals add up to its bytes; `show` says the same; `delete` removes
  one and `export` of it then fails (exit 1).
- size_cap_keeps_newest: with LINKPERF_HISTORY_MAX=256K, runs of about 100 KB each keep the
  file's used pages near the cap: the oldest runs go, the newest stay, ids in order.
- bad_command_lines: exit 2 with one line naming the problem.
"""
import json
import os
import re

import lptest
from lptest import LINKPERF, LOOP4, check, eq, ge, run

suite = lptest.Suite("history_cli", needs_iperf3=False)


def env_with(**kw):
    env = dict(os.environ)
    env.pop("LINKPERF_NO_HISTORY", None)
    env.pop("LINKPERF_HISTORY_MAX", None)
    env.update({k: str(v) for k, v in kw.items()})
    return env


def run_env(argv, env, timeout=60):
    """lptest.run with an environment (the history's variables)."""
    old = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(env)
        return run(argv, timeout=timeout)
    finally:
        os.environ.clear()
        os.environ.update(old)


def history(*args, env=None):
    argv = [LINKPERF, "history"] + [str(a) for a in args]
    return run_env(argv, env, timeout=30) if env else run(argv, timeout=30)


def list_rows(text):
    """`history list` rows: {id: {"role", "proto", "sent", "recv", "status"}}."""
    rows = {}
    for line in text.splitlines()[1:]:
        f = line.split()
        if len(f) < 12 or not f[0].isdigit():
            continue
        rows[int(f[0])] = {"role": f[4], "proto": f[6], "streams": int(f[8]), "sent": f[10],
                           "recv": f[11], "status": " ".join(f[12:])}
    return rows


@suite.case
def first_recording_says_so_once():
    """The notice once, from the run that made the file; none with the history off"""
    srv = lptest.start_server("linkperf", ["--no-history"])
    home = lptest.tmp_path("xdg-notice")
    os.makedirs(home, exist_ok=True)
    db = os.path.join(home, "linkperf", "history.db")
    env = env_with(XDG_DATA_HOME=home)
    argv = [LINKPERF, "-c", LOOP4, "-p", str(srv.port), "-t", "1"]
    r1 = run_env(argv, env)
    eq(r1.rc, 0, "first run", r1.describe())
    notes = [ln for ln in r1.err.splitlines() if "recording runs in" in ln]
    eq(len(notes), 1, "notice lines of the first run", r1.describe())
    for w in (db, "linkperf history", "--no-history", "LINKPERF_NO_HISTORY=1"):
        check(w in notes[0], "the notice does not say %r" % w, notes[0])
    r2 = run_env(argv, env)
    eq((r2.rc, r2.err.count("recording runs in")), (0, 0), "second run: no notice", r2.describe())
    eq(len(lptest.history_runs(db)), 2, "runs recorded")
    for off_env, extra in ((env_with(XDG_DATA_HOME=home + "-off", LINKPERF_NO_HISTORY=1), []),
                           (env_with(XDG_DATA_HOME=home + "-off"), ["--no-history"])):
        r = run_env(argv + extra, off_env)
        eq((r.rc, r.err.count("recording runs in")), (0, 0), "history off %s" % extra, r.describe())
        check(not os.path.exists(home + "-off"), "history off %s made %s" % (extra, home + "-off"))


@suite.case
def list_show_export_delete():
    """list/show/export/delete agree with the tests' own -J"""
    srv = lptest.start_server("linkperf", ["--no-history"])
    db = lptest.tmp_path("hist-cli.db")
    docs = []
    for extra in (["-t", "1"], ["-u", "-b", "20M", "-P", "2", "-t", "1"]):
        r = run([LINKPERF, "-c", LOOP4, "-p", str(srv.port), "-J", "--db", db] + extra, timeout=30)
        eq(r.rc, 0, "test %s" % extra, r.describe())
        docs.append(json.loads(r.out))
    r = history("list", "--db", db)
    eq(r.rc, 0, "list", r.describe())
    rows = list_rows(r.out)
    eq(len(rows), 2, "rows listed", r.out)
    ids = sorted(rows)
    for rid, doc, proto, streams in zip(ids, docs, ("tcp", "udp"), (1, 2)):
        row = rows[rid]
        eq((row["role"], row["proto"], row["streams"], row["status"]), ("client", proto, streams, "done"),
           "row %d" % rid, r.out)
        key = "sum_sent" if proto == "tcp" else "sum"
        want = lptest.get(doc, "end.%s.bits_per_second" % key) / 1e6
        check(abs(float(row["sent"]) - want) <= 0.01 + 1e-3 * want, "row %d sent %s Mbit/s, -J %.2f" % (
            rid, row["sent"], want), r.out)
        e = history("export", rid, "--db", db)
        eq(e.rc, 0, "export %d" % rid, e.describe())
        eq(json.loads(e.out)["end"], doc["end"], "export %d: the -J document's end" % rid)
        c = history("export", rid, "--csv", "--db", db)
        eq(c.rc, 0, "export --csv %d" % rid, c.describe())
        lines = c.out.splitlines()
        head = lines[0].split(",")
        recs = [dict(zip(head, ln.split(","))) for ln in lines[1:]]
        sums = [x for x in recs if x["stream"] == "0" and x["sender"] == "1" and x["omitted"] == "0"]
        ge(len(sums), 1, "csv sum rows of run %d" % rid, c.out)
        eq(sum(int(x["bytes"]) for x in sums), lptest.get(doc, "end.%s.bytes" % key),
           "run %d: the csv's interval sums vs the -J bytes" % rid, c.out)
        per = sum(int(x["bytes"]) for x in recs if x["stream"] not in ("0", "-1") and x["sender"] == "1")
        eq(per, lptest.get(doc, "end.%s.bytes" % key), "run %d: the csv's stream rows vs the -J bytes" % rid)
        s = history("show", rid, "--db", db)
        eq(s.rc, 0, "show %d" % rid, s.describe())
        m = re.search(r"^  bytes\s+(\d+)$", s.out, re.M)
        check(m, "show %d: no bytes line" % rid, s.out)
        ge(int(m.group(1)), 1, "show %d bytes" % rid, s.out)
    d = history("delete", ids[0], "--db", db)
    eq((d.rc, d.out.strip()), (0, "deleted run %d" % ids[0]), "delete", d.describe())
    eq(sorted(list_rows(history("list", "--db", db).out)), ids[1:], "ids after the delete")
    e = history("export", ids[0], "--db", db)
    eq(e.rc, 1, "export of a deleted run", e.describe())
    check("no run" in e.err or "not there" in e.err, "export of a deleted run says so", e.describe())
    d = history("delete", ids[0], "--db", db)
    eq(d.rc, 1, "a second delete of the same run", d.describe())


@suite.case
def size_cap_keeps_newest():
    """LINKPERF_HISTORY_MAX=256K: runs of ~100 KB each; the pages in use stay within the cap
    plus the run being recorded, the oldest runs go first and the newest are all kept"""
    srv = lptest.start_server("linkperf", ["--no-history"])
    db = lptest.tmp_path("hist-cap.db")
    env = env_with(LINKPERF_HISTORY_MAX="256K")
    n = 8
    for i in range(n):
        r = run_env([LINKPERF, "-c", LOOP4, "-p", str(srv.port), "-t", "2", "-i", "0.1", "-P", "8", "--db", db],
                    env, timeout=60)
        eq(r.rc, 0, "test %d" % i, r.describe())
    runs = lptest.history_runs(db)
    ids = [x["id"] for x in runs]
    check(1 <= len(ids) < n, "runs kept under the cap: %r" % ids)
    eq(ids, list(range(n - len(ids) + 1, n + 1)), "the newest runs kept, in order")
    r = history("info", "--db", db, env=env)
    m = re.search(r"(\d+) runs, ([\d.]+) MiB in use of a ([\d.]+) MiB cap", r.out)
    check(m, "no size in info", r.describe())
    eq(int(m.group(1)), len(ids), "info's run count", r.out)
    eq(float(m.group(3)), round(256 / 1024, 1), "info's cap", r.out)
    per_run = float(m.group(2)) / len(ids)
    check(float(m.group(2)) <= 0.25 + 2 * per_run + 0.05, "in use %s MiB with a 0.25 MiB cap (%.2f MiB a run)" % (
        m.group(2), per_run), r.out)
    # a file made by this version gives the deleted pages back to the disk
    check(os.path.getsize(db) <= 2 * (256 * 1024 + 2 * per_run * 1048576),
          "the file is %d bytes with a 256K cap" % os.path.getsize(db))


@suite.case
def bad_command_lines():
    """exit 2 with one line naming the problem; a run that is not there: exit 1"""
    db = lptest.tmp_path("hist-bad.db")
    for args, words in ((["bogus"], ["bogus", "list"]), (["show"], ["which run"]),
                        (["show", "x1"], ["x1", "run id"]), (["export", "1", "--csv", "--json"], ["--csv"]),
                        (["list", "--limit", "0"], ["--limit"]), (["list", "--proto", "sctp"], ["--proto"]),
                        (["delete"], ["which runs"]), (["list", "--frob"], ["--frob"])):
        r = history(*(args + ["--db", db]))
        lines = [ln for ln in r.err.splitlines() if ln.strip()]
        eq((r.rc, len(lines)), (2, 1), "history %s" % args, r.describe())
        for w in words:
            check(w in lines[0], "history %s: %r not in %r" % (args, w, lines[0]))
    r = history("list", "--db", db)
    eq((r.rc, "no runs recorded yet" in r.out), (0, True), "list of no history", r.describe())
    check(not os.path.exists(db), "reading a history created it")
    r = history("export", "1", "--db", db)
    eq(r.rc, 1, "export from no history", r.describe())


if __name__ == "__main__":
    suite.main()

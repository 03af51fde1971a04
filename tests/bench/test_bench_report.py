#!/usr/bin/env python3
"""bench/run.py's report, from the committed result files alone (no tool is run):
docs/BENCHMARKS.md is what --render makes of them, reports and result files name
no path of the machine they were made on, the UDP cases say which peer compares
like for like, a failed run keeps what the tools printed, and readings above the
ceiling are explained where they occur.

Run: python3 tests/bench/test_bench_report.py [case ...]"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("LP_SOURCE_DIR") or os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "bench"))
import run as bench  # noqa: E402

DOC = os.path.join(SRC, "docs", "BENCHMARKS.md")


def doc_sources():
    """The result files docs/BENCHMARKS.md says it is made from, in --render order."""
    for line in open(DOC):
        if line.startswith(bench.SOURCES_TAG):
            return line[len(bench.SOURCES_TAG):].split(" -->")[0].split(",")
    raise AssertionError("docs/BENCHMARKS.md names no result files (" + bench.SOURCES_TAG
                         + "...): it cannot be re-rendered")


# The runs the cases below check figures of (whatever a later docs/BENCHMARKS.md is made
# from): the tcp1 ceiling readings of 2026-12-04, the UDP rows of 2026-12-06.
UDP_RUN = "bench/results/2026-12-06-udp.json"
FIXTURE = ["bench/results/2026-12-04-full.json", UDP_RUN]
# An absolute path outside the system's directories: a machine's layout.
MACHINE_PATH = re.compile(r"(?<![\w.:/])/(?!usr/|bin/|sbin/|proc/|dev/)[A-Za-z][\w.-]*/[\w./-]*")


def render(files=FIXTURE, out=None):
    argv = [sys.executable, os.path.join(SRC, "bench", "run.py"), "--render",
            ",".join(os.path.join(SRC, s) for s in files)]
    if out:
        argv += ["--out", out]
    p = subprocess.run(argv, capture_output=True, text=True, cwd=SRC)
    assert p.returncode == 0, p.stderr
    return p.stdout if not out else open(out).read()


def case_section(text, title):
    i = text.index(f"## {title}")
    j = text.index("\n## ", i + 1)
    return text[i:j]


def test_public_path():
    repo = bench.REPO
    tmp = os.path.realpath(tempfile.gettempdir())
    assert bench.public_path(os.path.join(repo, "build-bench", "linkperf"), "LINKPERF") == \
        "build-bench/linkperf"
    assert bench.public_path("/usr/bin/iperf3", "IPERF3") == "/usr/bin/iperf3"
    assert bench.public_path("iperf3", "IPERF3") == "iperf3"
    assert bench.public_path("/opt/peers/iperf3-new/bin/iperf3", "IPERF3_NEW") == "IPERF3_NEW"
    assert bench.public_path(os.path.join(tmp, "x.md"), "FILE", tmp_ok=True) == "TMP/x.md"
    assert bench.public_path(os.path.join(tmp, "x.md"), "FILE") == "FILE"
    argv = bench.public_argv(["--iperf3-new", "/opt/i/iperf3", "--out=" + os.path.join(tmp, "r.md"),
                              "--json", os.path.join(repo, "bench", "results", "x.json"),
                              "--cases", "udp64"])
    assert argv == ["--iperf3-new", "IPERF3_NEW", "--out=TMP/r.md", "--json",
                    "bench/results/x.json", "--cases", "udp64"], argv


def test_doc_is_rendered():
    """docs/BENCHMARKS.md is exactly --render of its result files (notes kept)."""
    doc = DOC
    d = tempfile.mkdtemp(prefix="lp-bench-test.")
    try:
        out = os.path.join(d, "BENCHMARKS.md")
        shutil.copy(doc, out)
        assert render(doc_sources(), out) == open(doc).read(), \
            "docs/BENCHMARKS.md differs from bench/run.py --render " + ",".join(doc_sources())
    finally:
        shutil.rmtree(d)


def test_no_machine_paths():
    files = [os.path.join("docs", f) for f in ("BENCHMARKS.md", "BENCHMARKS-scale.md")]
    files += [os.path.join("bench", "results", f)
              for f in sorted(os.listdir(os.path.join(SRC, "bench", "results")))]
    bad = []
    for f in files:
        for n, line in enumerate(open(os.path.join(SRC, f)), 1):
            for m in MACHINE_PATH.finditer(line):
                bad.append(f"{f}:{n}: {m.group(0)}")
    assert not bad, "machine paths:\n" + "\n".join(bad[:20])
    assert not MACHINE_PATH.search(render()), "a machine path in the rendered report"
    assert not MACHINE_PATH.search(render(doc_sources())), "a machine path in the report"


def test_same_method():
    text = render()
    s508 = case_section(text, "UDP, 508-byte datagrams")
    assert re.search(r"Same method \(GSO send, GRO receive on both sides\): best such peer "
                     r"\*\*iperf3 3\.21 --gsro\*\*.*= 1\.38 in received datagrams", s508), s508
    s64 = case_section(text, "UDP, 64-byte datagrams")
    assert "no peer row that batches has a result in this case (iperf3 3.21 --gsro: " \
           "every run failed" in s64, s64
    assert "esnet/iperf#2032" in s64
    summary = case_section(text, "Summary")
    assert "- **udp508**: Same method" in summary and "- **udp64**: Same method" in summary


def test_failed_runs_keep_output():
    d = json.load(open(os.path.join(SRC, UDP_RUN)))
    failed = [r for r in d["results"] if not r["ok"]]
    assert [r["tool"] for r in failed] == ["iperf3 3.21 --gsro"] * 3, failed
    for r in failed:
        cj = r["output"]["client_json"]
        assert cj["end"]["sum_sent"]["packets"] == 1022 and cj["end"]["sum_sent"]["bytes"] == 0
        assert "0/0 (0%)" in r["output"]["server_stdout"]
    s64 = case_section(render(), "UDP, 64-byte datagrams")
    assert s64.count("; what it printed is the run's `output` in the JSON file") == 3


def test_failed_output_of_a_run():
    """failed_output keeps an iperf3 -J report's intervals and end, and stderr."""
    d = tempfile.mkdtemp(prefix="lp-bench-test.")
    try:
        f = {k: os.path.join(d, k) for k in ("so", "se", "co", "ce")}
        rep = {"intervals": [{"sum": {"start": 0, "end": 1, "bytes": 0, "packets": 5,
                                      "bits_per_second": 0}}],
               "end": {"sum_sent": {"bytes": 0}}, "error": "boom"}
        for k, t in (("co", "junk " + json.dumps(rep)), ("ce", "warn\n"), ("so", ""),
                     ("se", "srv err\n")):
            open(f[k], "w").write(t)
        out = bench.failed_output("iperf3", f)
        assert out["client_json"]["error"] == "boom"
        assert out["client_json"]["intervals"] == [{"start": 0, "end": 1, "bytes": 0,
                                                    "packets": 5, "bits_per_second": 0}]
        assert out["client_stderr"] == "warn\n" and out["server_stderr"] == "srv err\n"
        assert "server_stdout" not in out
        open(f["co"], "w").write("x" * 10000)
        out = bench.failed_output("iperf2", f)
        assert "[...]" in out["client_stdout"] and len(out["client_stdout"]) < 3100
    finally:
        shutil.rmtree(d)


def test_above_ceiling_explained():
    text = render()
    tcp1 = case_section(text, "TCP, 1 stream")
    # 102 % rows: named, with the ceiling's own range and spread.
    assert re.search(r"Above the ceiling: the median of linkperf --skip-rx-copy \(102 %\);.*"
                     r"The ceiling's own 3 runs ranged 63\.53–91\.45 Gbit/s \(spread 36 %\): "
                     r"level with it within that noise", tcp1), tcp1
    run = case_section(text, "Runs")
    assert "The ceiling is a program timed like every other row, not a bound" in run
    # Every case whose table has a % of ceiling over 100 says why.
    for title in re.findall(r"^## (.+)$", text, re.M):
        if title in ("Summary", "Runs", "Notes", "Every run"):
            continue
        sec = case_section(text, title)
        if re.search(r"\| (1[0-9]{2}|[2-9][0-9]{2}) % \|", sec.split("| ceiling |")[0]):
            assert "Above the ceiling:" in sec, title


def main():
    cases = {n[5:]: f for n, f in sorted(globals().items()) if n.startswith("test_")}
    names = sys.argv[1:] or list(cases)
    failed = 0
    for n in names:
        try:
            cases[n]()
            print(f"PASS {n}")
        except Exception as e:  # an old run.py lacks a function: that case fails too
            failed += 1
            print(f"FAIL {n}: {type(e).__name__}: {str(e)[:300]}")
    print(f"{len(names) - failed} of {len(names)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What the ctest runs of a make target left out, and why: the last line of make check.

Usage: scripts/ctest-summary.py NAME JUNIT...

Reads the JUnit files ctest wrote (--output-junit, the Makefile's ctest macro), one per run, and prints
each skipped test with its reason, then one line:

  NAME: 8 tests, 2 passed, 0 failed, 6 skipped (needs root (network namespaces, /dev/net/tun): 5; namespaces need root and ip: 1); 1 case skipped inside passed tests (namespaces need root: 1)

A test is skipped when it exited 77 (SKIP_RETURN_CODE, tests/CMakeLists.txt): it could not run
here and printed "SKIP: reason". A passed file whose cases partly skipped prints the same
lines (lptest.Suite: "SKIP: reason [cases: a, b]"); they are counted as cases, not tests. A skipped
test that printed no reason is reported as such. The reasons are grouped by their text, with
the case list of a partial skip left out of the grouping. Missing files are named, not
fatal: this only reports; ctest's own status decides the target's.
"""
import re
import sys
import xml.etree.ElementTree as ET

SKIP_LINE = re.compile(r"^SKIP: (.*?)\s*$", re.M)
CASES = re.compile(r"^(.*) \[cases: ([^\]]*)\]$")


def tests_of(path):
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        out = tc.find("system-out")
        text = out.text if out is not None and out.text else ""
        skipped = tc.find("skipped")
        # ctest writes <skipped> for a SKIP_RETURN_CODE exit and also for a test it could not
        # start ("Unable to find executable"), which it counts as failed: so does this.
        if skipped is not None and skipped.get("message", "").startswith("SKIP_"):
            status = "skipped"
        elif tc.find("failure") is not None or tc.get("status") in ("fail", "notrun"):
            status = "failed"
        else:
            status = "passed"
        yield tc.get("name"), status, SKIP_LINE.findall(text)


def without_cases(reason):
    """A reason and the cases it skipped (one, unnamed, when the line names none)."""
    m = CASES.match(reason)
    return (m.group(1), m.group(2).split(", ")) if m else (reason, [""])


def grouped(counts):
    return "; ".join("%s: %d" % (why, n) for why, n in
                     sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    name, files = argv[1], argv[2:]
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    skip_reasons, case_reasons = {}, {}
    ncases = 0
    missing = []
    for path in files:
        try:
            tests = list(tests_of(path))
        except (OSError, ET.ParseError) as e:
            missing.append("%s (%s)" % (path, e))
            continue
        for test, status, reasons in tests:
            totals[status] += 1
            if status == "skipped":
                print("skipped %s: %s" % (test, "; ".join(reasons) or "no reason printed"))
                why = "; ".join(without_cases(r)[0] for r in reasons) or "no reason printed"
                skip_reasons[why] = skip_reasons.get(why, 0) + 1
            elif status == "passed":
                for r in reasons:
                    why, cases = without_cases(r)
                    print("cases skipped in %s: %s" % (test, r))
                    case_reasons[why] = case_reasons.get(why, 0) + len(cases)
                    ncases += len(cases)
    for m in missing:
        print("%s: no ctest results in %s" % (name, m))
    line = "%s: %d tests, %d passed, %d failed, %d skipped" % (
        name, sum(totals.values()), totals["passed"], totals["failed"], totals["skipped"])
    if skip_reasons:
        line += " (%s)" % grouped(skip_reasons)
    if ncases:
        line += "; %d case%s skipped inside passed tests (%s)" % (
            ncases, "" if ncases == 1 else "s", grouped(case_reasons))
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

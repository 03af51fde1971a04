"""JPerf 2.0.2's reading of its `iperf` binary, as ../shared/protocols/jperf.md describes it from
JPerf's source: one home for those rules, used by test_jperf.py to replay them over linkperf's
output (and stock iperf 2.1.8's, for comparison).

- version(stdout, stderr): the last line of stdout, or of stderr when stdout is empty; word 3,
  dots made dashes, major + minor/10 (a third word that is not "X.Y..." throws in JPerf: None).
- rows(text, interval): every line JPerf takes as data (Java regex `\\[[ \\d]+\\]\\s*[\\d]+.*`,
  whole-line match), split on `[-\\[\\]\\s]+` the way Java's String.split does (trailing empty
  pieces dropped), classified: 9 pieces a bandwidth point, 14 a UDP server point with jitter,
  any other count ignored; a row whose end - start (Java doubles) is greater than the
  interval is the final summary, not plotted."""

import re

DATA = re.compile(r"\[[ \d]+\]\s*[\d]+.*")
SPLIT = re.compile(r"[-\[\]\s]+")


def version(stdout, stderr):
    lines = [l for l in stdout.splitlines()] or [l for l in stderr.splitlines()]
    if not lines:
        return None
    words = lines[-1].split(" ")
    if len(words) < 3:
        return None
    parts = words[2].replace(".", "-").split("-")
    try:
        return int(parts[0]) + int(parts[1]) / 10.0
    except (ValueError, IndexError):
        return None


def split(line):
    pieces = SPLIT.split(line)
    while pieces and pieces[-1] == "":
        pieces.pop()
    return pieces


class Row:
    def __init__(self, line, pieces, interval):
        self.line = line
        self.pieces = pieces
        self.kind = {9: "bandwidth", 14: "jitter"}.get(len(pieces))
        self.id = int(pieces[1]) if len(pieces) > 3 else None
        try:
            self.start, self.end = float(pieces[2]), float(pieces[3])
        except (ValueError, IndexError):
            self.start = self.end = None
            self.kind = None
        # JPerf: `if (end - start > interval)` the row is the summary (legend, not a point).
        self.summary = self.kind is not None and (self.end - self.start) > interval
        self.plotted = self.kind is not None and not self.summary


def rows(text, interval):
    return [Row(l, split(l), interval) for l in text.splitlines() if DATA.fullmatch(l)]


def points(text, interval):
    """{stream id: [(start, end), ...]} of the rows JPerf plots."""
    out = {}
    for r in rows(text, interval):
        if r.plotted:
            out.setdefault(r.id, []).append((r.start, r.end))
    return out


def summaries(text, interval):
    return {r.id: r for r in rows(text, interval) if r.summary}

#!/usr/bin/env python3
"""iperf2 output formats against a live stock iperf 2.1.8 run in the same case: -y C CSV
(TCP and UDP, client and server, interval and summary rows, -P 2) and the -e column
layout of a client's own rows.

Each case runs the same test three times: stock client -> stock server (the reference),
stock client -> linkperf server ("lps") and linkperf client -> stock server ("lpc"), then
compares linkperf's rows with the stock rows of the same role: same number of fields, the
same kind of field at each position (timestamp, address, integer, float, "a-b" interval),
the same number of rows per stream. linkperf's numbers must be consistent (interval bytes
add up to the summary row, bits/s = bytes x 8 / interval length, UDP bytes = (total - lost)
x length, percent = lost / total) and agree with the stock peer of the same test (byte
counts +-60 header bytes for TCP, equal for UDP; both ends name the same ports).

Known 2.1.8 CSV bugs that linkperf does not copy (docs/COMPATIBILITY.md): 1970 timestamps
with -e or -P, total -1 on the client's final UDP row. The checks accept either.
"""
import iperf2lib as L
import lptest
from lptest import check, eq

suite = lptest.Suite("iperf2_formats", needs_iperf3=False)


def one_test(client, server, cargs, sargs, udp, server_rows):
    """Run one test; returns (client stdout, server stdout, server port)."""
    srv = L.start_server(server, list(sargs) + (["-u"] if udp and server == "iperf" else []),
                         udp=udp)
    cres = L.run_client(client, srv.port, cargs)

    def done(text):
        rows = L.csv_rows(text) if "-y" in sargs else L.parse(text)["rows"]
        return len(rows) >= server_rows
    srv.wait_for(done)
    lptest.time.sleep(0.3)
    out = srv.stdout
    srv.stop()
    return cres.out, out, srv.port, cres


def three(cargs, sargs, udp=False, server_rows=1):
    L.require_iperf2()
    runs = {}
    for tag, c, s in (("ref", "iperf", "iperf"), ("lps", "iperf", "linkperf"),
                      ("lpc", "linkperf", "iperf")):
        runs[tag] = one_test(c, s, cargs, sargs, udp, server_rows)
    return runs


def ctx_of(runs):
    parts = []
    for tag, (cout, sout, port, cres) in runs.items():
        parts.append("  [%s] %s\n  client:\n    %s\n  server:\n    %s" % (
            tag, " ".join(cres.proc.argv), "\n    ".join(cout.splitlines()[-12:]),
            "\n    ".join(sout.splitlines()[-12:])))
    return "\n".join(parts)


def by_stream(rows):
    """CSV rows -> {id: (interval rows, summary row)}: the summary is the last row of an
    id that starts at 0.0."""
    out = {}
    for r in rows:
        out.setdefault(r["id"], []).append(r)
    res = {}
    for k, rs in out.items():
        fin = [r for r in rs if r["start"] == 0.0][-1]
        res[k] = ([r for r in rs if r is not fin], fin)
    return res


def check_shapes(lp_rows, ref_rows, what, nfields, ctx):
    check(lp_rows, "%s: linkperf printed no CSV rows" % what, ctx)
    check(ref_rows, "%s: stock printed no CSV rows" % what, ctx)
    for r in lp_rows + ref_rows:
        eq(len(r), nfields, "%s: fields in %s" % (what, ",".join(r)), ctx)
    lp_shapes = {L.csv_shape(r) for r in lp_rows}
    ref_shapes = {L.csv_shape(r) for r in ref_rows}
    eq(lp_shapes, ref_shapes, "%s: kinds of fields, position by position (linkperf vs stock)"
       % what, ctx)
    check("?" not in str(lp_shapes), "%s: a field of unknown kind" % what, ctx)


def check_consistent(rows, what, ctx, exact_sum, udp=False, receiver=False, blksize=1470):
    """Numbers of one program's CSV rows."""
    streams = by_stream([L.csv_parse(r) for r in rows])
    for sid, (ivs, fin) in streams.items():
        for r in ivs + [fin]:
            length = r["end"] - r["start"]
            check(length > 0, "%s: interval %s-%s" % (what, r["start"], r["end"]), ctx)
            got = r["bps"] * length / 8.0
            check(abs(got - r["bytes"]) <= r["bytes"] * (0.06 / length + 0.02) + 64,
                  "%s: bits/s %d over %.1f s is %d bytes, row says %d" % (
                      what, r["bps"], length, got, r["bytes"]), ctx)
            if udp and receiver:
                eq(r["bytes"], (r["total"] - r["lost"]) * blksize, "%s: bytes = (total - lost) "
                   "x %d in %s-%s" % (what, blksize, r["start"], r["end"]), ctx)
                if r["total"] > 0:
                    check(abs(r["pct"] - 100.0 * r["lost"] / r["total"]) < 0.01,
                          "%s: percent %s vs lost/total %d/%d" % (what, r["pct"], r["lost"],
                                                                 r["total"]), ctx)
                check(r["jitter"] >= 0, "%s: jitter %s" % (what, r["jitter"]), ctx)
        if ivs:
            s = sum(r["bytes"] for r in ivs)
            if exact_sum:
                eq(s, fin["bytes"], "%s stream %s: interval bytes sum vs summary" % (what, sid), ctx)
            else:
                check(s <= fin["bytes"] <= s + max(r["bytes"] for r in ivs),
                      "%s stream %s: interval bytes %d vs summary %d" % (what, sid, s,
                                                                        fin["bytes"]), ctx)
            if udp and receiver and exact_sum:
                eq(sum(r["total"] for r in ivs), fin["total"], "%s: interval totals sum" % what,
                   ctx)
                eq(sum(r["lost"] for r in ivs), fin["lost"], "%s: interval lost sum" % what, ctx)
    return streams


def ports(rows):
    return {(int(r[2]), int(r[4])) for r in rows}


def csv_case(cargs, sargs, udp, nfields, server_rows, nstreams=1):
    runs = three(cargs, sargs, udp, server_rows)
    ctx = ctx_of(runs)
    rows = {tag: (L.csv_rows(v[0]), L.csv_rows(v[1])) for tag, v in runs.items()}
    check_shapes(rows["lpc"][0], rows["ref"][0], "client CSV", nfields, ctx)
    check_shapes(rows["lps"][1], rows["ref"][1], "server CSV", nfields, ctx)
    # the same number of rows per stream as stock in the same role (a different count of
    # interval rows is allowed only at the tail: stock leaves out a final partial interval)
    for role, lp, ref in (("client", rows["lpc"][0], rows["ref"][0]),
                          ("server", rows["lps"][1], rows["ref"][1])):
        lps = by_stream([L.csv_parse(r) for r in lp])
        refs = by_stream([L.csv_parse(r) for r in ref])
        eq(len(lps), nstreams, "%s CSV: streams (linkperf)" % role, ctx)
        eq(len(refs), nstreams, "%s CSV: streams (stock)" % role, ctx)
        for (ivs, _), (rivs, _) in zip(lps.values(), refs.values()):
            check(abs(len(ivs) - len(rivs)) <= 1, "%s CSV: %d interval rows per stream, stock "
                  "%d" % (role, len(ivs), len(rivs)), ctx)
    # each side of a test names the same client/server ports
    for tag in ("lps", "lpc", "ref"):
        eq(ports(rows[tag][0]), ports(rows[tag][1]), "%s: ports in the client's vs the "
           "server's rows" % tag, ctx)
    # linkperf's numbers, and stock's (same rules, sanity of the reference)
    lp_c = check_consistent(rows["lpc"][0], "linkperf client", ctx, True, udp, False)
    lp_s = check_consistent(rows["lps"][1], "linkperf server", ctx, True, udp, True)
    st_c = check_consistent(rows["lps"][0], "stock client", ctx, False, udp, False)
    st_s = check_consistent(rows["lpc"][1], "stock server", ctx, False, udp, True)
    # the two ends of each mixed test agree
    delta = 0 if udp else L.HDR
    cl = sorted(f["bytes"] for _, f in lp_c.values())
    sv = sorted(f["bytes"] - delta for _, f in st_s.values())
    eq(cl, sv, "lpc: linkperf client summary bytes vs stock server's%s" % (
        "" if udp else " - 60"), ctx)
    cl = sorted(f["bytes"] - delta for _, f in st_c.values())
    sv = sorted(f["bytes"] for _, f in lp_s.values())
    eq(sv, cl, "lps: linkperf server summary bytes vs stock client's%s" % (
        "" if udp else " - 60"), ctx)
    if udp:
        eq([f["total"] for _, f in lp_c.values()], [f["total"] for _, f in st_s.values()],
           "lpc: linkperf client's final total (datagrams sent) vs stock server's total", ctx)
    return runs


@suite.case
def csv_tcp():
    """-y C TCP -t 1 -i 0.5: 9 fields of the same kinds as 2.1.8 (client and server), intervals add up, bits/s consistent, bytes +-60 vs the stock peer"""
    csv_case(["-t", "1", "-i", "0.5", "-y", "C"], ["-y", "C", "-i", "0.5"], False, 9, 3)


@suite.case
def csv_udp():
    """-y C UDP -b 2M -t 1 -i 0.5: 14 fields as 2.1.8; receiver bytes = (total-lost) x 1470, percent, intervals add up; client total = server total"""
    csv_case(["-u", "-b", "2M", "-t", "1", "-i", "0.5", "-y", "C"], ["-y", "C", "-i", "0.5"],
             True, 14, 3)


@suite.case
def csv_tcp_parallel():
    """-y C TCP -P 2 -t 1: per-stream rows as 2.1.8 prints them (same count, same fields), each stream +-60 vs its peer"""
    csv_case(["-t", "1", "-P", "2", "-y", "C"], ["-y", "C"], False, 9, 2, nstreams=2)


def own_header_and_row(text):
    """The column header and summary row of a client's own (first) table."""
    p = L.parse(text)
    rows = [r for r in p["rows"] if not r["report"] and r["id"] != "SUM"]
    check(p["header_lines"] and rows, "no table in:\n%s" % text)
    return p["header_lines"][0].split(), rows[-1]["line"].split()


@suite.case
def enhanced_client_columns():
    """-e client rows (TCP and UDP): the same column headers and the same number of columns as a 2.1.8 client"""
    L.require_iperf2()
    for cargs, udp in ((["-e", "-t", "1", "-f", "B"], False),
                       (["-e", "-u", "-b", "2M", "-t", "1", "-f", "B"], True)):
        got = {}
        for kind in ("iperf", "linkperf"):
            srv = L.start_server("iperf", ["-u"] if udp else [], udp=udp)
            cres = L.run_client(kind, srv.port, cargs)
            srv.stop()
            got[kind] = (own_header_and_row(cres.out), cres)
        ctx = "\n".join(r.describe() for _, r in got.values())
        (sh, srow), (lh, lrow) = got["iperf"][0], got["linkperf"][0]
        eq(lh, sh, "%s -e client column header" % ("UDP" if udp else "TCP"), ctx)
        eq(len(lrow), len(srow), "%s -e client summary row: columns (linkperf %r, stock %r)" % (
            "UDP" if udp else "TCP", lrow, srow), ctx)


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""-J compatibility: for each kind of test, a real iperf3 -J document and a linkperf -J
document of the same kind are produced in the same run and their key paths are compared
(objects by key, arrays merged over their elements). linkperf must have every key path the
stock iperf3 has, with the same JSON type; its extra paths must be keys a newer iperf3 prints
(IPERF3_NEWER_KEYS, when the stock one is older) or listed in ALLOWED_ADDITIONS. Whatever
iperf3 is installed, every key of IPERF3_NEWER_KEYS must be in linkperf's documents wherever
3.21 prints it. Also --json-stream (one JSON object per line, start/interval/end).

The stock iperf3 is $LINKPERF_IPERF3 or the one on PATH (Debian's 3.12); when
$LINKPERF_IPERF3_NEW names a second one (3.21), every kind is also run against it, and there
the key sets must be the same.

Reference documents: stock client -> stock server. linkperf client documents: linkperf
client -> stock server. linkperf server documents: stock client -> linkperf server.
"""

import socket

from lptest import (IPERF3, IPERF3_NEW, LOOP4, Pair, Suite, check, eq, get, iperf3_version,
                    json_lines, start_server, run_client, stock_iperf3)

suite = Suite("json_compat")

REF = Pair("iperf3", "iperf3")
LPC = Pair("linkperf", "iperf3")
LPS = Pair("iperf3", "linkperf")

# Every key iperf3 3.21 prints that 3.12 does not (found by comparing 3.21's and 3.12's
# documents for each kind below, and src/iperf_api.c of both): path -> (the first version
# that prints it, the 3.12 key path it comes with: where that one is, 3.21 prints this one).
# linkperf prints all of them with 3.21's meaning; a 3.12 consumer ignores them.
IPERF3_NEWER_KEYS = {
    "start.timestamp.timemillisecs": ((3, 20), "start.timestamp.timesecs"),
    "start.fq_rate": ((3, 13), "start.cookie"),
    "start.test_start.bidir": ((3, 13), "start.test_start.reverse"),
    "start.test_start.fqrate": ((3, 13), "start.test_start.target_bitrate"),
    "start.test_start.interval": ((3, 17), "start.test_start.duration"),
    "start.test_start.gso": ((3, 21), "start.test_start.protocol"),
    "start.test_start.gro": ((3, 21), "start.test_start.protocol"),
    "intervals[].streams[].reorder": ((3, 20), "intervals[].streams[].snd_cwnd"),
    "end.streams[].sender.reorder": ((3, 20), "end.streams[].sender.max_snd_cwnd"),
}

# Key paths linkperf may print that the stock iperf3 does not, per document part, with the
# reason.
ALLOWED_ADDITIONS = {
    "document": {},
    # A 3.12 server adds title/extra_data to its document only when it prints it, after
    # the results exchange, so the copy it sends with --get-server-output lacks them.
    # linkperf's copy is the same document the server prints, so it has them: more
    # complete, and a 3.12 client just passes the object through.
    "server_output_json": {
        "title": "present in the server's own document; 3.12 adds it after sending",
        "extra_data": "present in the server's own document; 3.12 adds it after sending",
    },
}

# The stock iperf3s to compare with: the default one, and the second one when named.
PEERS = [IPERF3] + ([IPERF3_NEW] if IPERF3_NEW and IPERF3_NEW != IPERF3 else [])

KINDS = [
    ("tcp", ["-t", "1"]),
    ("tcp_reverse", ["-t", "1", "-R"]),
    ("tcp_bidir", ["-t", "1", "--bidir"]),
    ("tcp_parallel_2", ["-t", "1", "-P", "2"]),
    ("tcp_options", ["-t", "2", "-O", "1", "-T", "t", "--extra-data", "x",
                     "--get-server-output", "-M", "1000", "-w", "256K", "-C", "reno",
                     "-S", "16", "-N", "--fq-rate", "1G", "-i", "0.5"]),
    ("tcp_bytes", ["-n", "20M"]),
    ("tcp_blocks", ["-k", "200"]),
    ("tcp_omit", ["-t", "2", "-O", "1"]),
    ("udp", ["-u", "-b", "10M", "-t", "1"]),
    ("udp_reverse", ["-u", "-b", "10M", "-t", "1", "-R"]),
    ("udp_bidir", ["-u", "-b", "10M", "-t", "1", "--bidir"]),
    ("udp_options", ["-u", "-b", "5M", "-t", "1", "-l", "1200", "-P", "2",
                     "--udp-counters-64bit", "--get-server-output", "-T", "t"]),
]


def jtype(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    if v is None:
        return "null"
    return "array" if isinstance(v, list) else "object"


def typed_paths(obj, prefix=""):
    """{path: set of JSON types seen there}."""
    out = {}

    def walk(o, p):
        if p:
            out.setdefault(p, set()).add(jtype(o))
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, p + "." + k if p else k)
        elif isinstance(o, list):
            for v in o:
                walk(v, p + "[]")
    walk(obj, prefix)
    return out


def newer_keys_present(mine, what):
    """Every IPERF3_NEWER_KEYS path whose 3.12 companion linkperf prints is there too."""
    mp = typed_paths(mine)
    lacking = sorted(p for p, (_, with_) in IPERF3_NEWER_KEYS.items()
                     if with_ in mp and p not in mp)
    check(not lacking, "%s: linkperf lacks key paths iperf3 3.21 prints: %s" % (what, lacking))


def compare(ref, mine, what, part="document", version=(3, 12)):
    """Every path of ref (a document of stock iperf3 `version`) must be in mine with the
    same type; mine's extra paths must be keys newer than that version, or allowed additions
    for that part; and every 3.21 key must be there (whichever version ref is)."""
    rp, mp = typed_paths(ref), typed_paths(mine)
    name = "iperf3 %d.%d" % version
    missing = sorted(set(rp) - set(mp))
    extra = sorted(p for p in set(mp) - set(rp) if p not in ALLOWED_ADDITIONS[part] and
                   not (p in IPERF3_NEWER_KEYS and version < IPERF3_NEWER_KEYS[p][0]))
    types = sorted("%s: iperf3 %s, linkperf %s" % (p, sorted(rp[p]), sorted(mp[p]))
                   for p in set(rp) & set(mp) if not mp[p] <= rp[p])
    check(not missing, "%s: linkperf lacks %s key paths: %s" % (what, name, missing))
    check(not extra, "%s: linkperf has key paths %s lacks (not newer keys nor in "
          "ALLOWED_ADDITIONS): %s" % (what, name, extra))
    check(not types, "%s: JSON types differ from %s: %s" % (what, name, types))
    newer_keys_present(mine, what)


def make_case(name, args):
    def case():
        for exe in PEERS:
            v = iperf3_version(exe)
            with stock_iperf3(exe):
                ref = REF.run(args)
                lpc = LPC.run(args)
                lps = LPS.run(args)
            tag = "iperf3 %d.%d, %s" % (v + (" ".join(args),))
            compare(ref.cj, lpc.cj, "client document (%s)" % tag, version=v)
            compare(ref.sj, lps.sj, "server document (%s)" % tag, version=v)
            for who, r in (("client", lpc), ("server", lps)):
                for key in ("start", "intervals", "end"):
                    check(key in (r.cj if who == "client" else r.sj), "%s document lacks %s"
                          % (who, key))
            if "--get-server-output" in args:
                # the client's server_output_json is the server's document: compare it too
                compare(get(ref.cj, "server_output_json"), get(lps.cj, "server_output_json"),
                        "server_output_json of a linkperf server (%s)" % tag,
                        "server_output_json", version=v)
    case.__name__ = "json_keys_" + name
    case.__doc__ = ("-J key paths and types of client and server documents for `%s` "
                    "match the stock iperf3's (and $LINKPERF_IPERF3_NEW's), with every "
                    "3.21 key." % " ".join(args))
    return case


for _name, _args in KINDS:
    suite.case(make_case(_name, _args))


def check_stream(lines, ref_doc, who):
    events = [ln.get("event") for ln in lines]
    check(len(events) >= 3, "%s: only %d lines" % (who, len(events)))
    eq(events[0], "start", who + ": first event")
    eq(events[-1], "end", who + ": last event")
    check(all(e == "interval" for e in events[1:-1]), "%s: events between start and end "
          "must be intervals: %r" % (who, events))
    for ln in lines:
        eq(sorted(ln), ["data", "event"], who + ": keys of a line")
    # each event's data has the key paths of the matching part of a stock -J document
    # (each wrapped as in a document, so the paths are the document's)
    v = iperf3_version()
    for part, data in (("start", lines[0]["data"]), ("end", lines[-1]["data"])):
        compare({part: ref_doc[part]}, {part: data}, "%s %s event" % (who, part), version=v)
    for ln in lines[1:-1]:
        compare({"intervals": ref_doc["intervals"][:1]}, {"intervals": [ln["data"]]},
                who + " interval event", version=v)


@suite.case
def json_stream_client_and_server():
    """--json-stream: a linkperf client (vs stock server) and a linkperf server (vs stock
    client) print one JSON object per line: start, one interval per second, end; each
    event's data has the key paths of the same part of a stock -J document; the numbers
    in the end event match the other side."""
    ref = REF.run(["-t", "2"])
    srv = start_server("iperf3", ["-1", "-J"])
    c = run_client("linkperf", LOOP4, srv.port, ["--json-stream", "-t", "2"])
    eq(c.rc, 0, "linkperf --json-stream client exit status", c.describe())
    srv.finish(15)
    lines = json_lines(c.out)
    check_stream(lines, ref.cj, "linkperf client")
    eq(len([ln for ln in lines if ln["event"] == "interval"]), 2, "client interval events")
    eq(get(lines[-1]["data"], "sum_received.bytes"), get(srv.json(), "end.sum_received.bytes"),
       "client end event sum_received vs stock server")

    srv = start_server("linkperf", ["-1", "--json-stream"])
    c = run_client("iperf3", LOOP4, srv.port, ["-J", "-t", "2"])
    eq(c.rc, 0, "stock client exit status", c.describe())
    srv.finish(15)
    lines = json_lines(srv.stdout)
    check_stream(lines, ref.sj, "linkperf server")
    eq(get(lines[-1]["data"], "sum_received.bytes"), get(c.json(), "end.sum_received.bytes"),
       "server end event sum_received vs stock client")


def kernel_offers(opt):
    """Whether a UDP socket takes this option (UDP_SEGMENT 103, UDP_GRO 104): what
    linkperf's streams get from the same kernel."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as so:
        try:
            so.setsockopt(socket.IPPROTO_UDP, opt, 1400 if opt == 103 else 1)
            return 1
        except OSError:
            return 0


@suite.case
def udp_offload_reported_per_side():
    """start.test_start.gso/gro say what each end's streams use, linkperf on both ends: a
    UDP sender of datagrams up to 8 KB writes with GSO, one of 9000 bytes does not, a UDP
    receiver reads with GRO, TCP uses neither (before: 0 and 0 always)"""
    gso, gro = kernel_offers(103), kernel_offers(104)
    check(gso and gro, "this kernel offers UDP GSO %d, GRO %d: the case needs both" % (gso, gro))
    # (client args, client's (gso, gro), server's (gso, gro))
    for args, cli, srv in ((["-u", "-b", "20M", "-l", "1400"], (1, 0), (0, 1)),
                           (["-u", "-b", "20M", "-l", "9000"], (0, 0), (0, 1)),
                           (["-u", "-b", "20M", "-l", "1000", "-R"], (0, 1), (1, 0)),
                           (["-u", "-b", "20M", "--bidir"], (1, 1), (1, 1)),
                           ([], (0, 0), (0, 0))):
        s = start_server("linkperf", ["-1", "-J"])
        c = run_client("linkperf", LOOP4, s.port, ["-J", "-t", "1"] + args)
        eq(c.rc, 0, "client %s exit status" % " ".join(args), c.describe())
        s.finish(15)
        for who, doc, want in (("client", c.json(), cli), ("server", s.json(), srv)):
            got = (get(doc, "start.test_start.gso"), get(doc, "start.test_start.gro"))
            eq(got, want, "%s's test_start (gso, gro) for %s" % (who, " ".join(args) or "TCP"))
    print("        gso/gro per side as used, 5 kinds of test")


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""-J compatibility: for each kind of test, a real iperf3 3.12 -J document and a linkperf
-J document of the same kind are produced in the same run and their key paths are
compared (objects by key, arrays merged over their elements). linkperf must have every
key path iperf3 3.12 has, with the same JSON type; extra paths must be listed in
ALLOWED_ADDITIONS. Also --json-stream (one JSON object per line, start/interval/end).

Reference documents: stock client -> stock server. linkperf client documents: linkperf
client -> stock server. linkperf server documents: stock client -> linkperf server.
"""

from lptest import (LOOP4, Pair, Suite, check, eq, get, json_lines, start_server,
                    run_client)

suite = Suite("json_compat")

REF = Pair("iperf3", "iperf3")
LPC = Pair("linkperf", "iperf3")
LPS = Pair("iperf3", "linkperf")

# Key paths linkperf may print that iperf3 3.12 does not, per document part, with the
# reason. Keys that newer iperf3 versions added (start.timestamp.timemillisecs 3.20,
# test_start.bidir and fqrate 3.13, interval 3.17, intervals[].streams[].reorder 3.20)
# would be acceptable additions too; list them here, with the version, if linkperf starts
# printing them.
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

KINDS = [
    ("tcp", ["-t", "1"]),
    ("tcp_reverse", ["-t", "1", "-R"]),
    ("tcp_bidir", ["-t", "1", "--bidir"]),
    ("tcp_parallel_2", ["-t", "1", "-P", "2"]),
    ("tcp_options", ["-t", "2", "-O", "1", "-T", "t", "--extra-data", "x",
                     "--get-server-output", "-M", "1000", "-w", "256K", "-C", "reno",
                     "-S", "16", "-N"]),
    ("tcp_bytes", ["-n", "20M"]),
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


def compare(ref, mine, what, part="document"):
    """Every path of ref must be in mine with the same type; mine's extra paths must be
    allowed additions for that part."""
    rp, mp = typed_paths(ref), typed_paths(mine)
    missing = sorted(set(rp) - set(mp))
    extra = sorted(p for p in set(mp) - set(rp) if p not in ALLOWED_ADDITIONS[part])
    types = sorted("%s: iperf3 %s, linkperf %s" % (p, sorted(rp[p]), sorted(mp[p]))
                   for p in set(rp) & set(mp) if not mp[p] <= rp[p])
    check(not missing, "%s: linkperf lacks iperf3 3.12 key paths: %s" % (what, missing))
    check(not extra, "%s: linkperf has key paths iperf3 3.12 lacks (not in "
          "ALLOWED_ADDITIONS): %s" % (what, extra))
    check(not types, "%s: JSON types differ: %s" % (what, types))


def make_case(name, args):
    def case():
        ref = REF.run(args)
        lpc = LPC.run(args)
        lps = LPS.run(args)
        compare(ref.cj, lpc.cj, "client document (%s)" % " ".join(args))
        compare(ref.sj, lps.sj, "server document (%s)" % " ".join(args))
        for who, r in (("client", lpc), ("server", lps)):
            for key in ("start", "intervals", "end"):
                check(key in (r.cj if who == "client" else r.sj), "%s document lacks %s"
                      % (who, key))
        if "--get-server-output" in args:
            # the client's server_output_json is the server's document: compare it too
            compare(get(ref.cj, "server_output_json"), get(lps.cj, "server_output_json"),
                    "server_output_json of a linkperf server", "server_output_json")
    case.__name__ = "json_keys_" + name
    case.__doc__ = ("-J key paths and types of client and server documents for `%s` "
                    "match iperf3 3.12's." % " ".join(args))
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
    # each event's data has the key paths of the matching part of a 3.12 -J document
    compare(ref_doc["start"], lines[0]["data"], who + " start event")
    compare(ref_doc["end"], lines[-1]["data"], who + " end event")
    for ln in lines[1:-1]:
        compare(ref_doc["intervals"][0], ln["data"], who + " interval event")


@suite.case
def json_stream_client_and_server():
    """--json-stream: a linkperf client (vs stock server) and a linkperf server (vs stock
    client) print one JSON object per line: start, one interval per second, end; each
    event's data has the key paths of the same part of a 3.12 -J document; the numbers
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


if __name__ == "__main__":
    suite.main()

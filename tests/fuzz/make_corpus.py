#!/usr/bin/env python3
"""Writes the fuzz harnesses' seed corpora (tests/fuzz/corpus/<harness>/) from the real captures
of stock iperf3 3.12 and iperf 2.1.8/2.2.1/2.0.6 (tests/golden/evidence, and
../shared/protocols/evidence when that checkout is next to this one), the command lines of
README.md and agent/README.md (cap_*), and the hand-made edge cases of EDGES below (edge_*).
Files of other names (a reproducer a fuzzer found, kept once fixed) are left alone. Run it
again after adding a capture or an edge case; the seeds are committed, so no build runs it.
Usage: tests/fuzz/make_corpus.py"""
import json
import re
import shlex
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EVIDENCE = [ROOT / "tests/golden/evidence", ROOT.parent / "shared/protocols/evidence"]
MAX_SEED = 8192   # bytes per seed file
# Capture seeds per harness and dialect (the iperf2 captures differ more from each other than
# iperf3's): a few are enough, the fuzzer finds the rest.
MAX_SEEDS = {"i3": 8, "i2": 12, "train": 1, "doc": 2}

corpus = {}       # harness -> {name: bytes}
count = {}        # (harness, dialect) -> seeds
shapes = set()    # (harness, shape) already seeded


def add(harness, name, data, dialect="i3", shape=None):
    """One seed, unless the harness has one of the same bytes or of the same shape (say, the
    same iperf2 flags word: many captures differ only in their timestamps)."""
    seeds = corpus.setdefault(harness, {})
    data = bytes(data[:MAX_SEED])
    if data in seeds.values() or count.get((harness, dialect), 0) >= MAX_SEEDS[dialect]:
        return
    if shape is not None:
        if (harness, shape) in shapes:
            return
        shapes.add((harness, shape))
    count[(harness, dialect)] = count.get((harness, dialect), 0) + 1
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    while name in seeds:
        name += "_"
    seeds[name] = data


def evidence_files(pattern):
    """Each capture once, the repository's copy first (the shared one may hold more)."""
    seen = {}
    for base in EVIDENCE:
        for f in sorted(base.glob(pattern)) if base.is_dir() else []:
            seen.setdefault(f.name, f)
    return [seen[k] for k in sorted(seen)]


# ---- iperf3 captures: reassembled TCP streams per connection, UDP datagram heads ----

SEG = re.compile(r"^\s+\+\s+[\d.]+s (C>S|S>C) off=(\d+) len=\d+ hex=([0-9a-f ]+)$")
DGRAM = re.compile(r"^\s+\+\s+[\d.]+s len=(\d+) first24=([0-9a-f ]+)$")


def iperf3_capture(path):
    conns, dgrams, cur = [], [], None
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("=== TCP connection"):
            cur = {"C>S": bytearray(), "S>C": bytearray()}
            conns.append(cur)
        elif line.startswith("=== UDP"):
            cur = None
        m = SEG.match(line)
        if m and cur is not None:
            stream, off = cur[m.group(1)], int(m.group(2))
            data = bytes.fromhex(m.group(3))
            if off == len(stream):  # in order; a capture gap ends what we can use
                stream += data
        m = DGRAM.match(line)
        if m:
            dgrams.append(bytes.fromhex(m.group(2)))
    return conns, dgrams


def frames(stream):
    """(offset, body) of every length-prefixed JSON frame in a control stream."""
    out, i = [], 0
    while i + 4 <= len(stream):
        n = struct.unpack(">I", stream[i:i + 4])[0]
        if 2 <= n <= 1 << 20 and i + 4 + n <= len(stream) and stream[i + 4] == ord("{"):
            out.append(stream[i + 4:i + 4 + n])
            i += 4 + n
        else:
            i += 1
    return out


def seed_iperf3():
    for f in evidence_files("iperf3/wire_*.txt") + evidence_files("wire_*.txt"):
        conns, dgrams = iperf3_capture(f)
        tag = f.stem
        for k, c in enumerate(conns):
            c2s, s2c = bytes(c["C>S"]), bytes(c["S>C"])
            if k < 2:  # the control connection and a data connection: both start with the cookie
                add("fuzz_server_classify", f"{tag}_conn{k}", c2s[:300])
            if k:
                continue  # data connections: only their cookie matters (classifier)
            add("fuzz_i3_ctrl", f"{tag}_c2s", c2s[37:])  # what follows the cookie
            add("fuzz_i3_ctrl", f"{tag}_s2c", s2c)
            fr = frames(c2s[37:]) + frames(s2c)
            for j, body in enumerate(fr):
                harness = "fuzz_i3_params" if j == 0 else "fuzz_i3_results"
                add(harness, f"{tag}_{j}.json", body)
                add("fuzz_lpa_json", f"{tag}_{j}.json", body)
        for j, d in enumerate(dgrams[:2]):  # the hello and the first data datagram
            add("fuzz_udp_datagram", f"{tag}_dgram{j}", d)


# ---- iperf2 captures: hexdumps of TCP stream heads and of datagrams ----

def hexdump_blocks(path):
    """(section, flow line, datagram line or None, bytes) of every hexdump in a capture."""
    out, section, flow, dg, buf = [], "", "", None, None

    def flush():
        if buf:
            out.append((section, flow, dg, bytes(buf)))

    for line in path.read_text(errors="replace").splitlines():
        if re.match(r"^\s+[0-9a-f]{4}  ", line):
            if buf is None:
                buf = bytearray()
            buf += bytes.fromhex(line[8:8 + 47])
            continue
        flush()
        buf = None
        if line.startswith("==================="):
            section, flow, dg = line.split()[1], "", None
        elif line.startswith("== ") or line.startswith("--- "):
            flow, dg = line, None
        elif re.match(r"^ #\d+ ", line):
            dg = line
    flush()
    return out


def to_server(flow):
    return re.search(r"-> 127\.0\.0\.1:2500[12]", flow) is not None


def from_server(flow):
    return re.search(r"127\.0\.0\.1:2500[12] ->", flow) is not None


def seed_iperf2():
    for f in evidence_files("iperf2/tcp_first_bytes.txt"):
        for section, flow, _, data in hexdump_blocks(f):
            if not to_server(flow):
                continue
            add("fuzz_i2_header", section, data, "i2", data[:4])
            add("fuzz_server_classify", f"i2_{section}", data, "i2", data[:4])
            if section.endswith("trip"):
                add("fuzz_i2_bursts", f"{section}_head", data, "i2")
                add("fuzz_i2_bursts", f"{section}_bursts", trip_stream(data), "i2")
    for f in evidence_files("iperf2/udp_datagrams.txt"):
        blocks = hexdump_blocks(f)
        for section, flow, dg, data in blocks:
            # A server's report: the decoded ones, and a server's single datagram back.
            if flow.startswith("---"):
                add("fuzz_i2_report", flow.split()[1].rstrip(":"), data, "i2")
            elif from_server(flow) and " 1 datagrams" in flow:
                add("fuzz_i2_report", section, data, "i2")
            else:  # the flags word, and whether it is a FIN (negative sequence number)
                add("fuzz_udp_datagram", f"i2_{section}", data, "i2", (data[16:20], data[0] >= 0x80))
        # A train of datagram heads as a receiver sees them (first ones, last one, FIN).
        add("fuzz_udp_datagram", "i2_train", b"".join(d[:16] for _, fl, dg, d in blocks if dg and to_server(fl)),
            "train")


def trip_stream(data):
    """A --trip-times TCP stream: the captured header, then bursts with the capture's times
    (the captures keep only each stream's first bytes, so the bursts are rebuilt in 2.1.8's
    layout, which lp_i2_burst_put writes)."""
    hlen = (struct.unpack(">I", data[:4])[0] & 0x1FE) >> 1
    start_sec, start_usec = struct.unpack(">II", data[64:72])
    out = bytearray(data[:hlen])
    for i in range(1, 5):
        b = bytearray(200)
        struct.pack_into(">IIII", b, 12, start_sec, start_usec, start_sec, start_usec + 40 * i)
        struct.pack_into(">III", b, 44, i, len(b), (i - 1) * len(b))
        out += b
    return bytes(out)


def seed_command_lines():
    """The README's linkperf command lines as the web page posts them; the agent README's
    console lines as a board's shell hands them over."""
    for line in (ROOT / "README.md").read_text().splitlines():
        m = re.match(r"^(linkperf2?) +(-[^#`]*)", line)
        if m:
            args = (["--iperf2"] if m.group(1) == "linkperf2" else []) + shlex.split(m.group(2))
            add("fuzz_web_body", "readme_" + "_".join(args)[:40], json.dumps({"args": args}).encode())
    text = (ROOT / "agent/README.md").read_text()
    for cmd in re.findall(r'lpa_command\("([^"]*)"', text) + re.findall(r"`(stop|help)`", text):
        add("fuzz_lpa_cmd", "readme_" + cmd[:40], cmd.encode(), "i2")


def be32(*words):
    return b"".join(struct.pack(">I", w & 0xFFFFFFFF) for w in words)


def frame(obj):
    body = obj if isinstance(obj, bytes) else json.dumps(obj, separators=(",", ":")).encode()
    return be32(len(body)) + body


STREAM = {"id": 1, "bytes": 1000, "retransmits": 0, "jitter": 0, "errors": 0, "packets": 1}
RESULTS = {"cpu_util_total": 1, "cpu_util_user": 1, "cpu_util_system": 0, "sender_has_retransmits": 1,
           "streams": [STREAM]}

# Inputs the captures do not have: limits, lies and malformed text, per harness.
# iperf 2.1.8's --permit-key=secretkey header (-n 1000000), and with --trip-times: the 60/80-byte
# header, the key's 16-bit length (LEN points past it), the key (docs/internals/permit-key.md).
KEYED_STOCK = bytes.fromhex(
    "5001007c00000001" "00003b0300000000" "00000000000f4240" "0000000000000000" "0000000000020001"
    "0008000300000000" "0000000000000000" "0000000000097365" "637265746b6579")
KEYED_TRIP = bytes.fromhex(
    "500100a400000001" "00003b0300000000" "00000000000f4240" "0000000000000000" "0010000000020001"
    "0008000300000000" "0000000000000000" "0000000000000000" "6b0fa2c8000b48cb" "0000000000000000"
    "00097365637265746b6579")

EDGES = {
    "fuzz_i3_ctrl": {
        "len_zero": be32(0),
        "len_max": be32(0xFFFFFFFF) + b"{}",
        "len_over_params": be32(8193) + b"{",
        "truncated": be32(256) + b'{"tcp":true',
        "all_in_order": frame({"tcp": True, "time": 1}) + b"\x04" + frame(RESULTS) + b"\x10",
        "server_error": b"\x09\xfe\x00\x00\x00\x8e\x00\x00\x00\x00",
        "results_too_long": b"\x09\x0a\x01\x02\x0d" + be32(9 << 20) + b"{",
        "server_output_json": b"\x0d" + frame(dict(RESULTS, server_output_json={"a": [[[{}]]]})),
    },
    "fuzz_i3_params": {
        "numbers_as_strings.json": b'{"tcp":"1","time":"10","parallel":"2","title":5}',
        "huge_numbers.json": b'{"udp":true,"time":1e308,"num":1e300,"len":-1,"bandwidth":1.8e19}',
        "nan.json": b'{"tcp":true,"time":NaN}',
        "congestion_path.json": b'{"tcp":true,"congestion":"../../etc/passwd"}',
        "long_title.json": b'{"tcp":true,"title":"' + b"t" * 300 + b'"}',
        "authtoken.json": b'{"tcp":true,"username":"u","authtoken":"AAAA"}',
        "not_object.json": b"[1,2]",
        "deep.json": b"[" * 1200 + b"]" * 1200,
        "bidir_reverse_max.json": b'{"tcp":true,"bidirectional":true,"reverse":1,"parallel":128}',
        "parallel_zero.json": b'{"udp":1,"parallel":0,"len":15}',
    },
    "fuzz_i3_results": {
        "minus_one.json": json.dumps(dict(RESULTS, streams=[dict(STREAM, retransmits=18446744073709551615,
                                                                 errors=-1)])).encode(),
        "bytes_1e300.json": json.dumps(dict(RESULTS, streams=[dict(STREAM, bytes=1e300)])).encode(),
        "retransmits_flag_huge.json": json.dumps(dict(RESULTS, sender_has_retransmits=1e300)).encode(),
        "too_many_streams.json": json.dumps(dict(RESULTS, streams=[1] * 257)).encode(),
        "stream_not_object.json": json.dumps(dict(RESULTS, streams=["x"])).encode(),
        "missing_cpu.json": b'{"streams":[]}',
        "server_output.json": json.dumps(dict(RESULTS, server_output_text="line\n" * 20,
                                              server_output_json={"end": {"streams": [{}]}})).encode(),
        "end_time_negative.json": json.dumps(dict(RESULTS, streams=[dict(STREAM, end_time=-1, id=-5)])).encode(),
    },
    "fuzz_i2_header": {
        "bounceback": be32(0x40800078) + bytes(56),
        "keycheck": be32(0x50010078) + bytes(56),
        "keyed_stock": KEYED_STOCK,
        "keyed_trip": KEYED_TRIP,
        "keyed_len_129": KEYED_STOCK[:60] + struct.pack(">H", 129) + b"k" * 129,
        "keyed_len_3": KEYED_STOCK[:60] + struct.pack(">H", 3) + b"abc",
        "keyed_key_truncated": KEYED_STOCK[:66],
        "keyed_len_26": be32(0x50010034, 1, 5001, 0, 0, 0xFFFFFF9C) + struct.pack(">H", 4) + b"abcd",
        "len_over_max": be32(0x40010258) + bytes(60),
        "len_under_v1": be32(0x4001002E) + bytes(60),
        "v1_only": be32(0x80000000, 1, 5001, 0, 0, 0xFFFFFF9C),
        "v2_only_short": be32(0x04000000, 1, 5001, 0, 0, 0xFFFFFF9C),
        "digits": b"0123456789" * 8,
        "all_ones": b"\xff" * 256,
        "trip_flag_60_bytes": be32(0x40010078, 1, 5001, 0, 0, 0xFFFFFF9C) + be32(0, 0, 0x00100000) + bytes(24),
        "threads_negative": be32(0x40010078, 0x80000000, 5001, 0, 0, 0x80000000) + bytes(36),
    },
    "fuzz_udp_datagram": {
        "fin_int64_min": be32(0, 1, 2, 0x80000000, 0x08000000),
        "seq_near_2_63": b"".join(be32(0xFFFFFFFF - k, 100, k, 0x7FFFFFFF) for k in range(3)) +
                         be32(0, 100, 9, 0x80000000) + be32(0x08000000),
        "digit_filler": be32(1, 100, 0, 0) + b"6789" * 4,
        "iperf3_hello": b"9876",
        "zero_prefix": bytes(16),
        "short": bytes(15),
        "reorder_wrap": b"".join(be32(n, 7, 0, 0) for n in (1, 3, 2, 0xFFFFFFFF, 5, 4)),
    },
    "fuzz_i2_report": {
        "ack52_type2": be32(0, 0, 0, 2) + bytes(36),
        "transit_extremes": bytes(16) + be32(0xC8000000, 0xFFFFFFFF, 0xFFFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF,
                                             0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF) +
                            be32(0x80000000, 0x80000000, 0x7FFFFFFF, 0x7FFFFFFF) * 3 + be32(0xFFFFFFFF, 2) +
                            be32(1, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0, 0, 0),
        "old_layout_only": bytes(12) + be32(0x80000000, 0, 1000, 1, 0, 5, 1, 10, 0, 1) + bytes(30),
        "version1_short": bytes(16) + be32(0x80000000) + bytes(35),
    },
    "fuzz_i2_bursts": {
        "size_zero": be32(0x40010078) + bytes(56) + bytes(92) * 3,
        "size_max": be32(0, 0, 0, 1, 2, 3, 4) + bytes(16) + be32(0, 1, 0xFFFFFFFF, 0, 0) + bytes(20),
        "write_time_max": bytes(20) + be32(0xFFFFFFFF, 0xFFFFFFFF) + bytes(16) + be32(1, 92) + bytes(36) * 3,
    },
    "fuzz_server_classify": {
        "empty": b"",
        "one_byte": b"a",
        "three_bytes": b"abc",
        "cookie_short": b"abcdefghijklmnopqrstuvwxyz234567abcd",
        "cookie_no_nul": b"abcdefghijklmnopqrstuvwxyz234567abcde",
        "cookie_bad_char": b"abcd" + b"\x01" * 32 + b"\x00",
        "bounceback": be32(0x40800078) + bytes(56),
        "keycheck": be32(0x50010078) + bytes(56),
        "keyed_stock": KEYED_STOCK + bytes(64),
        "keyed_no_len": be32(0x50000000) + bytes(100),
        "keyed_len_128": KEYED_STOCK[:60] + struct.pack(">H", 128) + b"k" * 128 + bytes(16),
        "keyed_key_truncated": KEYED_STOCK[:66],
        "len_over_max": be32(0x40010258) + bytes(300),
        "header_truncated": be32(0x80000000) + bytes(10),
        "digits": b"0123456789" * 10,
    },
    "fuzz_lpa_json": {
        "deep": b"[" * 17 + b"]" * 17,
        "escapes": '{"s":"\\ud83d\\ude00 \\u00e9 \\n","t":"\\ud800","u":"\\u0000"}'.encode(),
        "numbers": b'[1e999,-9223372036854775809,18446744073709551615,0.0000001e-400,-0,1.5e3,2e-7]',
        "trailing": b"{} x",
        "duplicate_keys": b'{"tcp":true,"tcp":false,"parallel":1,"parallel":999}',
        "unterminated": b'{"streams":[{"id":1,"bytes":',
    },
    "fuzz_lpa_cmd": {
        "server_both": b"iperf -s -u -p 5002 -i 0.5\niperf3 -s -i 0",
        "client_udp": b"iperf3 -c 10.0.0.1 -u -b 100G -l 65507 -t 86400 -P 4 -O 600 -R",
        "client_dual": b"iperf -c 192.168.1.10 -d -L 5002 -n 10M -i 3600",
        "busy": b"iperf -s\niperf -s -p 2\niperf -s -p 3\niperf -s -p 4\niperf -s -p 5\nstop 3\nstop 9",
        "bad_values": b"iperf -c 999.1.1.1 -t 86400.0001 -b 1.5.5M -l 0 -p 65536",
        "too_long": b"iperf -c " + b"1" * 200,
        "many_words": b"iperf" + b" -u" * 30,
        "tabs_and_cr": b"\tiperf3\t-c\t10.0.0.1\r\nhelp\n?\nstats",
        "empty_values": b"iperf -c\niperf -s -p\niperf3 -c 1.2.3.4 --bidir -t",
    },
    "fuzz_web_body": {
        "bad_time.json": b'{"args":["-c","h","-t","abc"]}',
        "logfile.json": b'{"args":["-c","127.0.0.1","--logfile","/tmp/x"]}',
        "daemon.json": b'{"args":["-D","-s"]}',
        "file.json": b'{"args":["-c","x","-F","/etc/passwd","--iperf2"]}',
        "not_a_test.json": b'{"args":["lwip-tune","--rate","100M"]}',
        "empty_args.json": b'{"args":[]}',
        "args_not_strings.json": b'{"args":[1,null,{}]}',
        "long_arg.json": json.dumps({"args": ["-c", "x" * 2000]}).encode(),
        "stop.json": b'{"id":3}',
        "id_huge.json": b'{"id":1e300}',
        "profile.json": b'{"name":"fast","args":["-c","x","-P","4"]}',
        "profile_bad_name.json": b'{"name":"\\u0001x"}',
        "not_object.json": b'["-c","x"]',
    },
}


def main():
    seed_iperf3()
    seed_iperf2()
    seed_command_lines()
    # A few -J documents: large, valid JSON of the shapes iperf3 prints.
    for name in ["json_udp_client.json", "json_error_busy_client.json"]:
        for f in evidence_files(name) + evidence_files("iperf3/" + name):
            add("fuzz_lpa_json", f.name, f.read_bytes(), "doc")
            break
    for harness in sorted(set(corpus) | set(EDGES)):
        d = HERE / "corpus" / harness
        d.mkdir(parents=True, exist_ok=True)
        for old in list(d.glob("cap_*")) + list(d.glob("edge_*")):
            old.unlink()
        seeds = corpus.get(harness, {})
        for name, data in seeds.items():
            (d / ("cap_" + name)).write_bytes(data)
        for name, data in EDGES.get(harness, {}).items():
            (d / ("edge_" + name)).write_bytes(data)
        print(f"{harness}: {len(seeds)} seeds from captures and READMEs, {len(EDGES.get(harness, {}))} edge cases")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""iperf2 --isochronous over UDP (video-like frames) against stock iperf 2.1.8 both ways and
linkperf against itself (wire: tests/golden/evidence/iperf2/isochronous.txt). Accounting only,
never time: the datagrams and bytes one end sent are what the other counted, every frame of
mean/fps bytes is ceil(size / -l) datagrams, and the frames one end counts sent are the frames
the other counts received. 2.1.8 counts one frame more than it sends, at both ends: its FIN
datagrams repeat the last frame's block and its client counts that too (stock <-> stock: tx 22,
rx 22 for frame ids 1..21 on the wire); linkperf counts the frames on the wire. A stock UDP
server is started per case (2.1.8 -s -u crashes at its second UDP test)."""
import re

import iperf2lib as i2lib
import lptest
from lptest import check, eq

LOOP = lptest.LOOP4
suite = lptest.Suite("iperf2_isochronous", needs_iperf3=False)

ISOCH_HDR = "isoch:tx/miss/slip"
# "[  1] 0.0000-2.0005 sec 29184 Bytes 14589 Bytes/sec  23/-       11 pps   21/0/0"
TX_FRAMES = re.compile(r"pps\s+(\d+)/(\d+)/(\d+)\s*$")
# "... ms 11 pps   22/0  5.785/0.062/42.784/12.754 ms 366" (stock) or "... pps   21/0  312" (linkperf)
RX_FRAMES = re.compile(r"pps\s+(\d+)/(\d+)\s")


def final_row(text, context, report=False):
    """The final row of stream 1 (-f B): the last row from 0."""
    rows = i2lib.finals(i2lib.parse(text), report=report)
    check((False, 1) in rows, "no final row for stream 1", context)
    return rows[(False, 1)]


def tx_frames(row, context):
    m = TX_FRAMES.search(row["line"])
    check(m is not None, "no isoch:tx/miss/slip in the client's row: " + row["line"], context)
    return tuple(int(x) for x in m.groups())


def rx_frames(row, context):
    m = RX_FRAMES.search(row["line"] + " ")
    check(m is not None, "no Frame:rx/lost in the server's row: " + row["line"], context)
    return tuple(int(x) for x in m.groups())


def stock_server(extra=()):
    i2lib.require_iperf2()
    return i2lib.start_server("iperf", ["-u", "-e", "-f", "B"] + list(extra), udp=True)


@suite.case
def lp_client_to_stock():
    """linkperf -c -u --isochronous=10:100k,0 --trip-times -t 2 -> stock iperf -s -u -e: the
    wire frame is 1249 bytes (2.1.8's draw truncates 1250), so the client's bytes are
    (datagrams - 1) x 1249 + the 1470-byte header datagram + its first FIN; the stock server
    counts the same bytes and datagrams, and tx + 1 frames (its FIN count), none lost."""
    srv = stock_server()
    try:
        r = i2lib.run_client("linkperf", srv.port, ["-u", "--isochronous=10:100k,0", "--trip-times", "-t", "2",
                                                    "-f", "B"])
        ctx = r.describe()
        check(ISOCH_HDR in r.out, "no isoch column header", ctx)
        check("Isochronous: 10.00 frames/sec mean= 100 Kbit/s, stddev=0.000 bit/s, Period/IPG=100.00/0.000 ms"
              in r.out, "no 2.1.8 isochronous banner", ctx)
        check("(isoch)" in r.out, "no (isoch) tag on the connection line", ctx)
        own = final_row(r.out, ctx)
        tx, miss, slip = tx_frames(own, ctx)
        sent = i2lib.parse(r.out)["sent"][1]
        # header datagram + one datagram per frame + the first FIN (counted as data)
        eq(sent, tx + 2, "datagrams sent = frames + header + first FIN (one datagram a frame)", ctx)
        eq(own["bytes"], 1470 + tx * 1249 + 1470, "client bytes", ctx)
        check(tx >= 5, "only %d frames in 2 s at 10 fps" % tx, ctx)
        text = srv.wait_for(lambda t: RX_FRAMES.search(t) is not None and "0.0000-" in t)
        srow = final_row(text, ctx + "\n--- stock server\n" + text)
        sctx = ctx + "\n--- stock server\n" + text
        eq(srow["bytes"], own["bytes"], "stock server bytes = linkperf client bytes", sctx)
        eq(srow["total"], sent, "stock server datagrams = linkperf Sent", sctx)
        eq(srow["lost"], 0, "stock server lost", sctx)
        check("(isoch)" in text, "stock server did not see the ISOCH flag", sctx)
        rx, lost = rx_frames(srow, sctx)
        eq((rx, lost), (tx + 1, 0), "stock Frame:rx/lost = linkperf tx + its FIN's repeat, 0 lost", sctx)
    finally:
        srv.stop()


@suite.case
def lp_client_multi_datagram_frames():
    """linkperf -c -u --isochronous=5:1m,0 --ipg 0.2 -t 1 -> stock -s: each 25000-byte frame
    is 17 x 1470 + one 108-byte datagram (the 10-byte rest padded to the frame block): 18
    datagrams a frame, and the stock server counts every one."""
    srv = stock_server()
    try:
        r = i2lib.run_client("linkperf", srv.port, ["-u", "--isochronous=5:1m,0", "--ipg", "0.2", "-t", "1",
                                                    "-f", "B"])
        ctx = r.describe()
        check("Period/IPG=200.00/0.200 ms" in r.out, "banner", ctx)
        own = final_row(r.out, ctx)
        tx, _, _ = tx_frames(own, ctx)
        sent = i2lib.parse(r.out)["sent"][1]
        # Frames start at their period; the run's end may cut the last one short: the
        # datagrams are 18 per whole frame, and fewer of the last.
        whole = (sent - 2) // 18
        check(whole in (tx, tx - 1), "datagrams %d: %d whole frames of 18, %d frames sent" % (sent, whole, tx),
              ctx)
        text = srv.wait_for(lambda t: "0.0000-" in t and "Bytes/sec" in t)
        sctx = ctx + "\n--- stock server\n" + text
        srow = final_row(text, sctx)
        eq(srow["total"], sent, "stock server datagrams = linkperf Sent", sctx)
        eq(srow["bytes"], own["bytes"], "stock server bytes = linkperf client bytes", sctx)
        if whole == tx:
            eq(own["bytes"], 1470 + tx * (17 * 1470 + 108) + 1470, "bytes of whole frames", ctx)
    finally:
        srv.stop()


@suite.case
def stock_client_to_lp():
    """stock iperf -c -u --isochronous=10:100k,0 (and =5:1m,0 --ipg 0.5: 18 datagrams a frame)
    --trip-times -t 2 -> linkperf -s: the server shows (isoch) and Frame:rx/lost; it counts
    every frame on the wire (the stock client's tx less the one it counts for its FIN), the
    client's bytes and datagrams."""
    i2lib.require_iperf2()
    # one datagram a frame, then 25000-byte frames of 17 x 1470 + a padded 108
    for isoch in (["--isochronous=10:100k,0"], ["--isochronous=5:1m,0", "--ipg", "0.5"]):
        stock_client_to_lp_one(isoch)


def stock_client_to_lp_one(isoch):
    srv = i2lib.start_server("linkperf", ["-e", "-f", "B"])
    try:
        r = i2lib.run_client("iperf", srv.port, ["-u"] + isoch + ["--trip-times", "-t", "2", "-f", "B"])
        ctx = r.describe()
        crow = final_row(r.out, ctx)
        tx, _, _ = tx_frames(crow, ctx)
        text = srv.wait_for(lambda t: RX_FRAMES.search(t) is not None and "0.0000-" in t)
        sctx = ctx + "\n--- linkperf server\n" + text
        check("(isoch)" in text and "Frame:rx/lost" in text, "no (isoch) tag or Frame:rx/lost header", sctx)
        srow = final_row(text, sctx)
        rx, lost = rx_frames(srow, sctx)
        eq((rx, lost), (tx - 1, 0), "linkperf Frame:rx/lost = stock tx - 1 (its FIN), 0 lost", sctx)
        eq(srow["bytes"], crow["bytes"], "linkperf server bytes = stock client bytes", sctx)
        eq(srow["total"], i2lib.parse(r.out)["sent"][1] - 1, "datagrams (the stock client's Sent counts a "
           "second FIN)", sctx)
    finally:
        srv.stop()


# "... sec 26229 Bytes 13110 Bytes/sec  0.163/0.048/0.358/0.070 ms (21/131072)  81"
BURSTS = re.compile(r"ms \((\d+)/\d+\)")
# "...  21/0        0      684K/466 us         22/0/0        28.20" (stock TCP client)
TCP_TX_FRAMES = re.compile(r"us\s+(\d+)/(\d+)/(\d+)\s")


@suite.case
def stock_tcp_client_to_lp():
    """stock iperf -c --isochronous=10:100k,0 --trip-times -t 2 (TCP: a write of a burst header
    and the frame per frame) -> linkperf -s: the server's burst rows count every frame (the
    stock tx less its own extra one) and its bytes (the 80-byte trip-times header aside)."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("linkperf", ["-e", "-f", "B"])
    try:
        r = i2lib.run_client("iperf", srv.port, ["--isochronous=10:100k,0", "--trip-times", "-t", "2", "-f", "B"])
        ctx = r.describe()
        crow = final_row(r.out, ctx)
        m = TCP_TX_FRAMES.search(crow["line"] + " ")
        check(m is not None, "no isoch column in the stock TCP row", ctx)
        tx = int(m.group(1))
        text = srv.wait_for(lambda t: BURSTS.search(t) is not None)
        sctx = ctx + "\n--- linkperf server\n" + text
        check("(isoch) (trip-times)" in text, "no (isoch) tag", sctx)
        srow = final_row(text, sctx)
        b = BURSTS.search(srow["line"])
        check(b is not None, "no burst count in " + srow["line"], sctx)
        eq(int(b.group(1)), tx - 1, "bursts = stock tx - 1", sctx)
        eq(srow["bytes"], crow["bytes"] - 80, "server bytes = client bytes - its 80-byte header", sctx)
    finally:
        srv.stop()


# 20 Mbit/s at 60 fps, stdev 0: every TCP frame is int(20e6 / 480) = 41666 bytes (2.1.8's draw).
TCP_FRAME = 41666


@suite.case
def lp_tcp_client_to_stock():
    """linkperf -c --isochronous=60:20m,0 -t 2 -e (TCP) -> stock iperf -s -e: a frame is one
    burst of 41666 bytes, so the client's bytes are its tx frames x 41666 (the last frame may be
    cut by the end of the test, never by more than a frame); the stock server counts those bytes
    plus the 80-byte header (2.1.8's TCP isochronous header carries the start time); the client
    row shows 2.1.8's TCP isoch:tx/miss/slip column."""
    i2lib.require_iperf2()
    srv = i2lib.start_server("iperf", ["-e", "-f", "B"])
    try:
        r = i2lib.run_client("linkperf", srv.port, ["--isochronous=60:20m,0", "-t", "2", "-e", "-f", "B"])
        ctx = r.describe()
        check("Cwnd/RTT     isoch:tx/miss/slip  NetPwr" in r.out, "no 2.1.8 TCP isoch header", ctx)
        check("(isoch)" in r.out, "no (isoch) tag on the connection line", ctx)
        crow = final_row(r.out, ctx)
        m = TCP_TX_FRAMES.search(crow["line"] + " ")
        check(m is not None, "no isoch column in the TCP row: " + crow["line"], ctx)
        tx, miss, slip = (int(x) for x in m.groups())
        check(tx >= 10, "only %d frames in 2 s at 60 fps" % tx, ctx)
        check((tx - 1) * TCP_FRAME < crow["bytes"] <= tx * TCP_FRAME,
              "client bytes %d for %d frames of %d" % (crow["bytes"], tx, TCP_FRAME), ctx)
        text = srv.wait_for(lambda t: re.search(r"\] 0\.0000-\S+ sec\s+\d+ Bytes", t) is not None)
        sctx = ctx + "\n--- stock server\n" + text
        check("(isoch)" in text, "stock server did not see the ISOCH flag", sctx)
        srow = final_row(text, sctx)
        eq(srow["bytes"], crow["bytes"] + 80, "stock server bytes = client frames + 80-byte header", sctx)
    finally:
        srv.stop()


@suite.case
def lp_tcp_to_lp_trip_times():
    """linkperf -c --isochronous=60:20m,2m --trip-times -P 2 -t 2 (TCP, lognormal frame sizes) ->
    linkperf -s -e: every frame the client counts sent is a burst the server counts (a frame cut
    by the end still arrives as far as it was written), bytes equal per stream, and every burst's
    one-way latency is a sample."""
    srv = i2lib.start_server("linkperf", ["-e", "-f", "B"])
    try:
        r = i2lib.run_client("linkperf", srv.port, ["--isochronous=60:20m,2m", "--trip-times", "-P", "2", "-t", "2",
                                                    "-e", "-f", "B"])
        ctx = r.describe()
        crows = i2lib.finals(i2lib.parse(r.out))
        text = srv.wait_for(lambda t: len(BURSTS.findall(t)) >= 2 and "[SUM]" in t)
        sctx = ctx + "\n--- linkperf server\n" + text
        srows = i2lib.finals(i2lib.parse(text))
        cids = sorted(k for k in crows if isinstance(k[1], int) and k[1] > 0)
        eq(len(cids), 2, "client streams", ctx)
        got_c = sum(crows[k]["bytes"] for k in cids)
        sids = sorted(k for k in srows if isinstance(k[1], int) and k[1] > 0)
        eq(len(sids), 2, "server streams", sctx)
        got_s = sum(srows[k]["bytes"] for k in sids)
        eq(got_s, got_c, "server bytes = client bytes (both streams)", sctx)
        tx = 0
        for k in cids:
            m = TCP_TX_FRAMES.search(crows[k]["line"] + " ")
            check(m is not None, "no isoch column: " + crows[k]["line"], ctx)
            tx += int(m.group(1))
        bursts = sum(int(BURSTS.search(srows[k]["line"]).group(1)) for k in sids)
        eq(bursts, tx, "bursts the server timed = frames the client sent", sctx)
    finally:
        srv.stop()


@suite.case
def lp_to_lp_json():
    """linkperf -c --iperf2 -u --isochronous=20:2m,500k --ipg 0.05 -t 2 -> linkperf -s -J: the
    server's JSON frames rx equals the client's tx (lognormal sizes: ceil(size/1470) datagrams
    each), none lost, bytes equal."""
    srv_port = lptest.free_port()
    srv = lptest.Proc([lptest.LINKPERF, "-s", "-p", srv_port, "-J", "-1"], 30, name="linkperf-s")
    try:
        check(i2lib.wait_bound(srv, srv_port, udp=True), "server did not bind", srv.tail())
        r = i2lib.run_client("linkperf", srv_port, ["-u", "--isochronous=20:2m,500k", "--ipg", "0.05", "-t", "2",
                                                    "-f", "B"])
        ctx = r.describe()
        own = final_row(r.out, ctx)
        tx, _, _ = tx_frames(own, ctx)
        srv.wait(20)
        doc = lptest.parse_json(srv.stdout, "server JSON")
        ctx += "\n--- server\n" + srv.stdout[-3000:]
        st = doc["end"]["streams"][0]["udp"]
        check("frames" in st, "no frames in the server's JSON", ctx)
        check("isochronous" in doc["start"]["test_start"], "no isochronous in test_start", ctx)
        # The run's end may cut the last frame short: then it is lost at the receiver.
        check((st["frames"]["rx"], st["frames"]["lost"]) in ((tx, 0), (tx - 1, 0), (tx - 1, 1)),
              "server frames %s, client tx %d" % (st["frames"], tx), ctx)
        eq(st["bytes"], own["bytes"], "server bytes = client bytes", ctx)
        eq(sum(iv["streams"][0]["frames"]["rx"] for iv in doc["intervals"]), st["frames"]["rx"],
           "interval frames add up", ctx)
    finally:
        srv.kill()


@suite.case
def loss_counts_frames():
    """In a netns dropping every 7th datagram to the server: linkperf -c --isochronous=10:100k,0
    (one datagram a frame) -> linkperf -s: frames lost = datagrams dropped (the header
    datagram and FINs aside), rx + lost = tx."""
    with i2lib.NetNS("isoch") as ns:
        port = 5001
        srv = lptest.Proc(["ip", "netns", "exec", ns.name, lptest.LINKPERF, "-s", "-p", str(port), "-J", "-1"],
                          30, name="linkperf-s")
        try:
            check(i2lib.wait_bound(srv, port, udp=True), "server did not bind", srv.tail())
            ns.drop_every(port, 7, first=3)  # datagrams 4, 11, ...: never the header (seq 1)
            r = i2lib.run_client("linkperf", str(port), ["-u", "--isochronous=10:100k,0", "-t", "2", "-f", "B"],
                                 ns=ns.name, expect_rc=None)
            ctx = r.describe()
            own = final_row(r.out, ctx)
            tx, _, _ = tx_frames(own, ctx)
            srv.wait(20)
            doc = lptest.parse_json(srv.stdout, "server JSON")
            ctx += "\n--- server\n" + srv.stdout[-3000:]
            st = doc["end"]["streams"][0]["udp"]
            fr = st["frames"]
            dropped = ns.dropped()
            print("        tx %d, rx %d, lost %d, datagrams lost %d, dropped %d" % (
                tx, fr["rx"], fr["lost"], st["lost_packets"], dropped))
            eq(fr["rx"] + fr["lost"], tx, "frames rx + lost = client tx", ctx)
            eq(fr["lost"], st["lost_packets"], "one frame lost per datagram lost", ctx)
            check(st["lost_packets"] <= dropped, "lost %d datagrams, the rule dropped %d" % (
                st["lost_packets"], dropped), ctx)
            check(fr["lost"] >= 1, "nothing dropped", ctx)
        finally:
            srv.kill()


@suite.case
def loss_multi_datagram_frames():
    """In a netns dropping every 50th datagram: linkperf -c --isochronous=5:1m,0 (18 datagrams
    a frame) -> linkperf -s: the frames lost are the frames one of whose datagrams was dropped
    (seq s >= 2 is in frame (s - 2) // 18 + 1), counted once each; the rest are received."""
    with i2lib.NetNS("isoch2") as ns:
        port = 5001
        srv = lptest.Proc(["ip", "netns", "exec", ns.name, lptest.LINKPERF, "-s", "-p", str(port), "-J", "-1"],
                          30, name="linkperf-s")
        try:
            check(i2lib.wait_bound(srv, port, udp=True), "server did not bind", srv.tail())
            every, first = 50, 10
            ns.drop_every(port, every, first=first)  # datagram k (from 0 = seq 1) when k % 50 == 10
            r = i2lib.run_client("linkperf", str(port), ["-u", "--isochronous=5:1m,0", "-t", "2", "-f", "B"],
                                 ns=ns.name, expect_rc=None)
            ctx = r.describe()
            tx, _, _ = tx_frames(final_row(r.out, ctx), ctx)
            sent = i2lib.parse(r.out)["sent"][1]
            srv.wait(20)
            doc = lptest.parse_json(srv.stdout, "server JSON")
            ctx += "\n--- server\n" + srv.stdout[-3000:]
            fr = doc["end"]["streams"][0]["udp"]["frames"]
            data_seqs = range(2, sent)  # after the header, before the first FIN
            hit = {(q - 2) // 18 + 1 for q in data_seqs if (q - 1) % every == first}
            whole = hit - {tx}  # the last frame may be cut short by the end: not counted
            print("        tx %d, rx %d, lost %d, frames hit %s" % (tx, fr["rx"], fr["lost"], sorted(hit)))
            check(len(whole) >= 1, "no frame was hit", ctx)
            check(fr["lost"] - len(whole) in (0, 1) and fr["lost"] <= len(hit),
                  "lost %d, frames with a dropped datagram %s" % (fr["lost"], sorted(hit)), ctx)
            check(fr["rx"] + fr["lost"] in (tx, tx - 1), "rx %d + lost %d vs tx %d" % (fr["rx"], fr["lost"], tx),
                  ctx)
        finally:
            srv.kill()


BAD = [
    ("fps_zero", ["--isochronous=0:1m,0"], "--isochronous"),
    ("fps_junk", ["--isochronous=x:1m,0"], "--isochronous"),
    ("fps_big", ["--isochronous=20000:1m,0"], "--isochronous"),
    ("mean_junk", ["--isochronous=10:abc,0"], "--isochronous"),
    ("mean_tiny", ["--isochronous=10:1,0"], "--isochronous"),
    ("stdev_junk", ["--isochronous=10:1m,zz"], "--isochronous"),
    ("ipg_negative", ["--isochronous", "--ipg", "-1"], "--ipg"),
    ("ipg_big", ["--isochronous", "--ipg", "5000"], "--ipg"),
    ("ipg_alone", ["--ipg", "1"], "--ipg"),
    ("len_short", ["--isochronous", "-l", "100"], "-l"),
    ("with_rate", ["--isochronous", "-b", "1m"], "-b"),
    ("with_reverse", ["--isochronous", "-R"], "-R"),
]


@suite.case
def bad_values():
    """Every bad --isochronous / --ipg value or combination exits 2 naming the option."""
    for tag, args, name in BAD:
        r = lptest.run([lptest.LINKPERF, "--iperf2", "-c", LOOP, "-u"] + args, timeout=10, name=tag)
        ctx = "%s: %s" % (tag, r.describe())
        eq(r.rc, 2, "exit status of %s" % tag, ctx)
        check(name in r.err, "message does not name %s" % name, ctx)
    # Over TCP a frame's first write holds the burst header, and there are no datagrams to space.
    for tag, args, words in (("tcp_ipg", ["--isochronous", "--ipg", "0.001"], ["--ipg", "TCP"]),
                             ("tcp_short_l", ["--isochronous", "-l", "91"], ["-l", "92"])):
        r = lptest.run([lptest.LINKPERF, "--iperf2", "-c", LOOP] + args, timeout=10, name=tag)
        eq(r.rc, 2, "exit status of %s" % tag, r.describe())
        check(all(w in r.err for w in words), "message of %s names %s" % (tag, words), r.describe())


if __name__ == "__main__":
    suite.main()

"""TCP interop cases, shared by test_tcp_lpclient.py (linkperf client -> stock iperf3 -s)
and test_tcp_lpserver.py (stock iperf3 -c -> linkperf -s).

Every case runs one test against a fresh one-off server with -J on both sides and checks
the numbers of both documents against each other: the client's row for the peer's side
must be exactly the peer's own count, sender >= receiver with a small gap, per-stream
bytes add up to the SUM, and the option under test shows up where iperf3 puts it (and,
where JSON cannot prove it, on the linkperf side's real socket, read with pidfd_getfd).
"""

import socket

import lptest
from lptest import (LOOP4, LOOP6, check, eq, ge, get, within, require,
                    parse_rows, summary_rows, free_port)

MIB = 1024 * 1024


def _bytes(doc, key):
    return get(doc, "end.%s.bytes" % key)


def inflight_cap(r, pair, client_sends):
    """The most one direction of a TCP test can leave uncounted, from what the test itself
    reports, when its receiver may stop counting before its sender stops sending (0 when it
    cannot: a linkperf server receiving from the client reads its sockets dry at TEST_END,
    after the client's last write)."""
    cj = r.cj
    streams = get(cj, "start.test_start.num_streams")
    stock_receives = pair.server == "iperf3" if client_sends else pair.client == "iperf3"
    if client_sends and not stock_receives:
        return 0
    # What the buffers hold: each stream's send buffer plus its receive buffer. With -w both
    # ends fix them at twice -w (Linux doubles the request), else autotuning grows them up to
    # the tcp_wmem / tcp_rmem maxima.
    w = get(cj, "start.sock_bufsize", 0) or 0
    cap = streams * 4 * w if w else lptest.tcp_inflight_cap(streams)
    if not client_sends:
        # Server -> client, the client's timer ends the test and the server sends until
        # TEST_END reaches it. The server's clock starts when it sends TEST_RUNNING, the
        # client's when it reads it, so the server's own seconds exceed the client's by at
        # least the time it sent past the client's stop: add that time at the server's own
        # rate, doubled (a TCP sender's rate is not even across the test).
        rev = "_bidir_reverse" if get(cj, "start.test_start.bidir", 0) else ""
        snd = get(r.sj, "end.sum_sent%s" % rev)
        rcv = get(cj, "end.sum_received%s" % rev)
        trip = max(0.0, snd["seconds"] - rcv["seconds"])
        cap += int(2 * trip * snd["bits_per_second"] / 8) + 1
    return cap


def check_direction(r, pair, sent_key, recv_key, client_sends, ordered=True):
    """One direction of a TCP test (keys as iperf3 names them on both sides): sender >=
    receiver, and the gap at most what can have been in flight when the receiver stopped
    counting (inflight_cap: none where a linkperf server receives). ordered: the summaries'
    sender >= receiver must hold (not with -O: each side starts counting at its own end of
    the omit period; then the intervals of the whole test are compared)."""
    cj, sj = r.cj, r.sj
    ctx = r.context()
    cs, cr = _bytes(cj, sent_key), _bytes(cj, recv_key)
    # A 3.21+ sender counts as sent only the blocks it finished writing when its timer
    # fired, and the receiver also counts the block being written: up to one -l block
    # per stream more (3.12 counts every byte it wrote).
    stock_sends = pair.client == "iperf3" if client_sends else pair.server == "iperf3"
    slack = 0
    if stock_sends and lptest.iperf3_version() >= (3, 21):
        slack = get(cj, "start.test_start.blksize") * get(cj, "start.test_start.num_streams")
    cap = inflight_cap(r, pair, client_sends)
    if not ordered:
        # Each side's summary starts at its own end of the omit period, moments apart that
        # a loaded machine stretches: the summaries only roughly agree. The whole test, its
        # omitted intervals too, is accounting like any other test.
        check(cs > 0 and cr > 0, "client %s %d, %s %d" % (sent_key, cs, recv_key, cr), ctx)
        sdoc, rdoc = (cj, sj) if client_sends else (sj, cj)
        sent_all = sum(iv["sum"]["bytes"] for iv in get(sdoc, "intervals"))
        recv_all = sum(iv["sum"]["bytes"] for iv in get(rdoc, "intervals"))
        what, snt, rcv = "every interval, omitted too: sender/receiver", sent_all, recv_all
    else:
        what, snt, rcv = "client %s/%s" % (sent_key, recv_key), cs, cr
    check(snt > 0, "%s: nothing was sent" % what, ctx)
    check(rcv <= snt + slack and snt - rcv <= cap,
          "%s: sender %d, receiver %d: the gap %d is not within 0..%d (what can be in "
          "flight when the receiver stops counting; %d more for a 3.21+ sender's last "
          "block)" % (what, snt, rcv, snt - rcv, cap, slack), ctx)
    # The client's row for the server's side must be the server's own count.
    if client_sends:
        eq(_bytes(sj, recv_key), cr, "server's own %s bytes vs the client's receiver row"
           % recv_key, ctx)
    elif pair.server == "iperf3" and lptest.iperf3_version() >= (3, 21):
        # A 3.21+ server's own -J sender count is 0 to 1 -l block per stream below the count
        # it sends the client in the results exchange (stock 3.21 against itself too).
        own = _bytes(sj, sent_key)
        slack = get(cj, "start.test_start.blksize") * get(cj, "start.test_start.num_streams")
        check(cs - slack <= own <= cs, "3.21+ server's own %s bytes %d vs the client's "
              "sender row %d (at most %d less expected)" % (sent_key, own, cs, slack), ctx)
    else:
        eq(_bytes(sj, sent_key), cs, "server's own %s bytes vs the client's sender row"
           % sent_key, ctx)
    # A linkperf server prints both rows, so both must agree with the client's.
    if pair.server == "linkperf":
        eq(_bytes(sj, sent_key), cs, "linkperf server %s bytes vs client" % sent_key, ctx)
        eq(_bytes(sj, recv_key), cr, "linkperf server %s bytes vs client" % recv_key, ctx)
    return cs, cr


def check_streams(doc, is_client, nstreams, ctx, bidir=False):
    """end.streams: per-stream sender/receiver bytes add up to the sum rows (per
    direction); every interval's sum equals its streams; stream count is right."""
    streams = get(doc, "end.streams")
    eq(len(streams), nstreams * (2 if bidir else 1), "number of end.streams", ctx)
    groups = {"": [], "_bidir_reverse": []}
    for s in streams:
        # a stream carries client->server data iff its "sender" flag says this side sends
        # and this side is the client (or the flag is false and this side is the server)
        fwd = (get(s, "sender.sender") == is_client) if bidir else True
        groups["" if fwd else "_bidir_reverse"].append(s)
    for suffix, ss in groups.items():
        if not ss:
            continue
        eq(sum(get(s, "sender.bytes") for s in ss), _bytes(doc, "sum_sent" + suffix),
           "sum of stream sender bytes vs sum_sent%s" % suffix, ctx)
        eq(sum(get(s, "receiver.bytes") for s in ss), _bytes(doc, "sum_received" + suffix),
           "sum of stream receiver bytes vs sum_received%s" % suffix, ctx)
    eq(len(get(doc, "start.connected")), nstreams * (2 if bidir else 1),
       "start.connected entries", ctx)
    ids = [c["socket"] for c in get(doc, "start.connected")]
    eq(len(set(ids)), len(ids), "distinct socket ids in start.connected", ctx)
    for iv in get(doc, "intervals"):
        sts = iv["streams"]
        if bidir:
            mine = [s for s in sts if s["sender"] == is_client]
            theirs = [s for s in sts if s["sender"] != is_client]
            eq(sum(s["bytes"] for s in mine), iv["sum"]["bytes"],
               "interval %.2f: client->server streams vs sum" % iv["sum"]["start"], ctx)
            eq(sum(s["bytes"] for s in theirs), iv["sum_bidir_reverse"]["bytes"],
               "interval %.2f: server->client streams vs sum_bidir_reverse"
               % iv["sum"]["start"], ctx)
        else:
            eq(len(sts), nstreams, "streams in an interval", ctx)
            eq(sum(s["bytes"] for s in sts), iv["sum"]["bytes"],
               "interval %.2f: streams vs sum" % iv["sum"]["start"], ctx)


def register(suite, pair):
    lp_client = pair.linkperf_is_client

    @suite.case
    def tcp_forward():
        """Forward TCP -t 1: sender >= receiver, small gap, the client's receiver row is
        the server's own count."""
        r = pair.run(["-t", "1"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        check_streams(r.cj, True, 1, r.context())
        eq(get(r.sj, "start.test_start.protocol"), "TCP", "server test_start.protocol")
        eq(get(r.sj, "start.test_start.reverse"), 0, "server test_start.reverse")

    @suite.case
    def tcp_reverse():
        """-R: the server sends; the client's sender row is the server's own count and the
        client's receiver count is close below it."""
        r = pair.run(["-t", "1", "-R"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=False)
        check_streams(r.cj, True, 1, r.context())
        eq(get(r.sj, "start.test_start.reverse"), 1, "server test_start.reverse")
        check(get(r.cj, "end.streams.0.sender.sender") is False,
              "client's stream must say sender=false in reverse", r.context())

    @suite.case
    def tcp_bidir():
        """--bidir: both directions carry data; each direction's rows agree between the
        two documents; per-stream bytes add up per direction."""
        r = pair.run(["-t", "1", "--bidir"])
        # each direction's gap is bounded by its own buffers (and, server -> client, by what
        # the server sent while TEST_END was on its way): see inflight_cap
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        check_direction(r, pair, "sum_sent_bidir_reverse", "sum_received_bidir_reverse",
                        client_sends=False)
        check_streams(r.cj, True, 1, r.context(), bidir=True)
        check_streams(r.sj, False, 1, r.context(), bidir=True)

    @suite.case
    def tcp_parallel_2():
        """-P 2: two streams on both sides; stream bytes add up to the SUM rows."""
        r = pair.run(["-t", "1", "-P", "2"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        check_streams(r.cj, True, 2, r.context())
        check_streams(r.sj, False, 2, r.context())
        eq(get(r.sj, "start.test_start.num_streams"), 2, "server num_streams")

    @suite.case
    def tcp_parallel_8():
        """-P 8 (also with -R): eight streams each way; sums match, every stream moved
        data."""
        for extra in ([], ["-R"]):
            r = pair.run(["-t", "1", "-P", "8"] + extra)
            # 8 streams have 8 send and 8 receive buffers in flight when the test stops:
            # inflight_cap counts them all
            check_direction(r, pair, "sum_sent", "sum_received", client_sends=not extra)
            check_streams(r.cj, True, 8, r.context())
            check_streams(r.sj, False, 8, r.context())
            for s in get(r.cj, "end.streams"):
                check(s["receiver"]["bytes"] > 0, "a stream received nothing", r.context())

    @suite.case
    def tcp_time_2():
        """-t 2: two 1-second intervals on both sides, summary lasts about 2 s, duration
        2 in test_start."""
        r = pair.run(["-t", "2"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        for who, doc in (("client", r.cj), ("server", r.sj)):
            eq(get(doc, "start.test_start.duration"), 2, who + " test_start.duration")
            ivs = [iv for iv in get(doc, "intervals") if iv["sum"]["seconds"] > 0.5]
            eq(len(ivs), 2, who + " full intervals", r.context())
        sec = get(r.cj, "end.sum_sent.seconds")
        check(1.9 <= sec <= 3.0, "client sum_sent.seconds %r not about 2" % sec, r.context())

    @suite.case
    def tcp_zerocopy():
        """-Z with 1 and 3 streams, by time and by -n: linkperf's sender leaves MSG_ZEROCOPY
        for its default path when loopback reports every send copied; bytes add up as
        without -Z: exactly -n at a linkperf receiver, and at a stock one short by at most
        what its -w buffers can hold."""
        n = 20 * MIB
        for streams in ("1", "3"):
            # Against a stock server, -w 1M pins every socket buffer of both ends at 2 MiB,
            # so what it can leave unread at TEST_END (at most 4 MiB a stream: inflight_cap)
            # is well below the 20 MiB sent; autotuned buffers could hold all of it. (Not for
            # a stock client: a linkperf server counts every byte anyway, and 3.12 -Z with
            # -w 1M sends one 128 KiB block past -n in about 1 run of 3 against it.)
            pin = ["-w", "1M"] if lp_client else []
            r = pair.run(["-Z", "-P", streams, "-n", "20M"] + pin)
            cs, cr = check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
            eq(cs, n, "-Z -P %s -n 20M: client's sender bytes" % streams, r.context())
            if not lp_client:
                eq(cr, n, "-Z -P %s -n 20M: receiver bytes (linkperf server)" % streams,
                   r.context())
            r = pair.run(["-Z", "-P", streams, "-t", "1"])
            check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)

    @suite.case
    def tcp_bytes_n():
        """-n 10M: the sender sends exactly 10485760 bytes; forward and -R."""
        n = 10 * MIB
        r = pair.run(["-n", "10M"])
        cs, cr = check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        eq(cs, n, "forward -n 10M: client's sender bytes", r.context())
        eq(get(r.sj, "start.test_start.bytes"), n, "server test_start.bytes")
        if not lp_client:
            # a linkperf server drains its receive buffers before it stops counting, so
            # the receiver got exactly what was sent
            eq(cr, n, "forward -n 10M: receiver bytes (linkperf server)", r.context())
        # (stock iperf3 3.12 as the receiving server stops counting when TEST_END arrives,
        # so bytes still in its socket buffer are not counted, also with a stock client;
        # only sender >= receiver holds there)
        r = pair.run(["-n", "10M", "-R"])
        cs, cr = check_direction(r, pair, "sum_sent", "sum_received", client_sends=False)
        eq(cr, n, "-R -n 10M: client's receiver bytes", r.context())
        eq(cs, n, "-R -n 10M: server's sender bytes", r.context())

    @suite.case
    def tcp_blocks_k():
        """-k 40 -l 64K: the sender sends exactly 40 x 65536 bytes; server sees
        test_start.blocks 40 and blksize 65536."""
        r = pair.run(["-k", "40", "-l", "64K"])
        cs, cr = check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        eq(cs, 40 * 65536, "-k 40 -l 64K: sender bytes", r.context())
        if not lp_client:
            eq(cr, 40 * 65536, "-k 40 -l 64K: receiver bytes (linkperf server)", r.context())
        for who, doc in (("client", r.cj), ("server", r.sj)):
            eq(get(doc, "start.test_start.blocks"), 40, who + " test_start.blocks")
            eq(get(doc, "start.test_start.blksize"), 65536, who + " test_start.blksize")

    @suite.case
    def tcp_omit():
        """-O 1 -t 2: the first interval is flagged omitted on both sides, two
        non-omitted intervals follow, and the summary covers only those (its bytes equal
        the non-omitted intervals' sum, its seconds about 2, not 3)."""
        r = pair.run(["-O", "1", "-t", "2"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True, ordered=False)
        for who, doc, key in (("client", r.cj, "sum_sent"), ("server", r.sj, "sum_received")):
            ivs = get(doc, "intervals")
            om = [iv for iv in ivs if iv["sum"]["omitted"]]
            kept = [iv for iv in ivs if not iv["sum"]["omitted"]]
            ge(len(om), 1, who + ": omitted intervals", r.context())
            if (pair.client if who == "client" else pair.server) == "linkperf":
                # one omitted second, one row: no sliver row where the omit period ends
                # ("1.00-1.00 sec ... (omitted)" once came after the interval's own row)
                eq([round(iv["sum"]["seconds"]) for iv in om], [1], who + ": omitted rows' seconds",
                   r.context())
            check(all(s["omitted"] for iv in om for s in iv["streams"]),
                  who + ": stream rows of an omitted interval must be omitted too")
            check(ivs.index(kept[0]) == len(om), who + ": omitted intervals come first",
                  r.context())
            eq(len([iv for iv in kept if iv["sum"]["seconds"] > 0.5]), 2,
               who + ": full non-omitted intervals", r.context())
            total = _bytes(doc, key)
            kept_bytes = sum(iv["sum"]["bytes"] for iv in kept)
            all_bytes = kept_bytes + sum(iv["sum"]["bytes"] for iv in om)
            check(total < all_bytes, "%s: %s.bytes %d includes the omitted second (all "
                  "intervals: %d)" % (who, key, total, all_bytes), r.context())
            if (pair.client if who == "client" else pair.server) == "linkperf":
                # linkperf's rows always add up to its summary (docs/COMPATIBILITY.md)
                eq(total, kept_bytes, who + ": " + key + ".bytes vs non-omitted intervals",
                   r.context())
            else:
                # stock iperf3's own rows (equal in every run seen here, but iperf3 does not
                # promise it)
                within(total, kept_bytes, 0.02, who + ": " + key + ".bytes vs non-omitted "
                       "intervals", r.context())
            sec = get(doc, "end.%s.seconds" % key)
            check(1.8 <= sec <= 2.6, "%s: %s.seconds %r should be about 2" % (who, key, sec),
                  r.context())
            eq(get(doc, "start.test_start.omit"), 1, who + " test_start.omit")

    @suite.case
    def tcp_length():
        """-l 8K: blksize 8192 in test_start of both documents."""
        r = pair.run(["-t", "1", "-l", "8K"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        for who, doc in (("client", r.cj), ("server", r.sj)):
            eq(get(doc, "start.test_start.blksize"), 8192, who + " test_start.blksize")

    @suite.case
    def tcp_window():
        """-w 256K: start.sock_bufsize echoes 262144 on both sides; the actual buffers are
        at least that (Linux doubles the request) and the linkperf side's data socket
        really has them."""
        r = pair.run(["-t", "2", "-w", "256K"], spy=2)
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        for who, doc in (("client", r.cj), ("server", r.sj)):
            eq(get(doc, "start.sock_bufsize"), 262144, who + " start.sock_bufsize", r.context())
        ge(get(r.cj, "start.sndbuf_actual"), 262144, "client sndbuf_actual", r.context())
        ge(get(r.cj, "start.rcvbuf_actual"), 262144, "client rcvbuf_actual", r.context())
        for o in r.data_sockets():
            eq(o["sndbuf"], 2 * 262144, "linkperf data socket SO_SNDBUF (2x -w)", r.context())
            eq(o["rcvbuf"], 2 * 262144, "linkperf data socket SO_RCVBUF (2x -w)", r.context())

    @suite.case
    def tcp_mss():
        """-M 1000: client start.tcp_mss 1000 (no tcp_mss_default); the linkperf side's
        data socket's MSS is at most 1000."""
        r = pair.run(["-t", "2", "-M", "1000"], spy=2)
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        eq(get(r.cj, "start.tcp_mss", None), 1000, "client start.tcp_mss", r.context())
        check(get(r.cj, "start.tcp_mss_default", None) is None,
              "tcp_mss_default must be absent when -M is given")
        for o in r.data_sockets():
            check(o["maxseg"] is not None and 0 < o["maxseg"] <= 1000,
                  "linkperf data socket TCP_MAXSEG %r should be <= 1000" % o["maxseg"],
                  r.context())

    @suite.case
    def tcp_nodelay():
        """-N (forward and -R): the linkperf side's data socket has TCP_NODELAY set (read
        from the live socket), as a stock 3.12 server and client set it; without -N it
        is not set."""
        for extra in ([], ["-R"]):
            r = pair.run(["-t", "2", "-N"] + extra, spy=2)
            check_direction(r, pair, "sum_sent", "sum_received", client_sends=not extra)
            for o in r.data_sockets():
                check(o["nodelay"], "TCP_NODELAY not set on the data socket with -N %s: %r"
                      % (" ".join(extra), o), r.context())
        r = pair.run(["-t", "2"], spy=2)
        for o in r.data_sockets():
            check(not o["nodelay"], "TCP_NODELAY set on a data socket without -N: %r" % o,
                  r.context())

    @suite.case
    def tcp_bitrate():
        """-b 50M -t 2: TCP sender and receiver averages at most 50 Mbit/s + 20%."""
        r = pair.run(["-t", "2", "-b", "50M"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        for who, doc in (("client", r.cj), ("server", r.sj)):
            eq(get(doc, "start.test_start.target_bitrate"), 50000000,
               who + " test_start.target_bitrate")
        for key in ("sum_sent", "sum_received"):
            print("        %s %.2f Mbit/s at -b 50M" % (
                key, get(r.cj, "end.%s.bits_per_second" % key) / 1e6))
            lptest.at_most(get(r.cj, "end.%s.bits_per_second" % key), 1.2 * 50e6,
                           key + " bits_per_second", r.context())

    @suite.case
    def tcp_congestion():
        """-C reno and -C cubic: end.sender_tcp_congestion names the algorithm, and the
        linkperf side's data socket really uses it."""
        avail = open("/proc/sys/net/ipv4/tcp_available_congestion_control").read().split()
        require("reno" in avail and "cubic" in avail, "reno and cubic not both available")
        for algo in ("reno", "cubic"):
            r = pair.run(["-t", "2", "-C", algo], spy=2)
            check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
            eq(get(r.cj, "end.sender_tcp_congestion", None), algo,
               "client end.sender_tcp_congestion", r.context())
            eq(get(r.sj, "end.receiver_tcp_congestion", None), algo,
               "server end.receiver_tcp_congestion", r.context())
            for o in r.data_sockets():
                eq(o["congestion"], algo, "linkperf data socket TCP_CONGESTION", r.context())

    @suite.case
    def tcp_cport():
        """--cport: the data connection's client-side port is the one asked for, in both
        documents' start.connected."""
        port = free_port()
        r = pair.run(["-t", "1", "--cport", str(port)])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        eq(get(r.cj, "start.connected.0.local_port"), port, "client connected.local_port",
           r.context())
        eq(get(r.sj, "start.connected.0.remote_port"), port, "server connected.remote_port",
           r.context())
        eq(get(r.sj, "start.connected.0.local_port"), r.server.port,
           "server connected.local_port")

    @suite.case
    def tcp_bind():
        """-B 127.0.0.1 on the client: data connection's local host is 127.0.0.1 on
        both sides."""
        r = pair.run(["-t", "1", "-B", LOOP4])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        eq(get(r.cj, "start.connected.0.local_host"), LOOP4, "client connected.local_host")
        eq(get(r.sj, "start.connected.0.remote_host"), LOOP4, "server connected.remote_host")

    @suite.case
    def tcp_ipv4_only():
        """-4 toward 127.0.0.1: an IPv4 test on both sides."""
        r = pair.run(["-t", "1", "-4"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        eq(get(r.cj, "start.connected.0.remote_host"), LOOP4, "client connected.remote_host")
        eq(get(r.sj, "start.connected.0.remote_host"), LOOP4, "server connected.remote_host")

    @suite.case
    def tcp_ipv6():
        """-6 toward ::1: data flows over IPv6, connected hosts are ::1 on both sides."""
        require(socket.has_ipv6 and _have_ipv6_loopback(), "no ::1 on this machine")
        r = pair.run(["-t", "1", "-6"], host=LOOP6)
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
        for who, doc, key in (("client", r.cj, "remote_host"), ("client", r.cj, "local_host"),
                              ("server", r.sj, "remote_host"), ("server", r.sj, "local_host")):
            eq(get(doc, "start.connected.0." + key), LOOP6, "%s connected.%s" % (who, key),
               r.context())

    @suite.case
    def tcp_tos():
        """-S 0x10 and --dscp AF11 (TOS 40): test_start.tos carries it on both sides and
        the linkperf side's data socket really has that TOS (IPv4) / traffic class
        (IPv6, -6 ::1)."""
        for args, tos, host in ((["-S", "0x10"], 0x10, LOOP4), (["--dscp", "AF11"], 40, LOOP4),
                                (["-S", "0x10", "-6"], 0x10, LOOP6)):
            if host == LOOP6:
                require(_have_ipv6_loopback(), "no ::1 on this machine")
            r = pair.run(["-t", "2"] + args, spy=2, host=host)
            check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)
            eq(get(r.cj, "start.test_start.tos"), tos, "client test_start.tos", r.context())
            eq(get(r.sj, "start.test_start.tos"), tos, "server test_start.tos", r.context())
            for o in r.data_sockets():
                seen = o.get("tclass") if o["family"] == "ipv6" and host == LOOP6 else None
                if o["family"] == "ipv6":
                    # a dual-stack (v4-mapped) socket of a server carries the class in
                    # IPV6_TCLASS; either option set to the value proves it
                    seen = o.get("tclass") if o.get("tclass") == tos else o.get("tos")
                else:
                    seen = o.get("tos")
                eq(seen, tos, "TOS on the linkperf data socket (%s)" % " ".join(args),
                   "%r" % o, r.context())

    @suite.case
    def tcp_get_server_output():
        """--get-server-output: against a -J server the client's JSON carries
        server_output_json with the server's numbers; against a text server it carries
        server_output_text with the server's receiver summary; the text client prints
        'Server output:'."""
        r = pair.run(["-t", "1", "--get-server-output"])
        sj = get(r.cj, "server_output_json", None)
        check(isinstance(sj, dict), "client JSON lacks server_output_json", r.context())
        eq(get(sj, "end.sum_received.bytes"), _bytes(r.sj, "sum_received"),
           "server_output_json end.sum_received.bytes vs the server's own document")
        eq(get(sj, "end.sum_received.bytes"), _bytes(r.cj, "sum_received"),
           "server_output_json vs the client's receiver row")
        r = pair.run(["-t", "1", "--get-server-output"], server_json=False)
        txt = get(r.cj, "server_output_text", None)
        check(isinstance(txt, str) and txt, "client JSON lacks server_output_text (value "
              "%r; top-level keys %s)" % (txt, sorted(r.cj)), r.context())
        rows = summary_rows(txt, "receiver")
        check(rows, "server_output_text has no receiver summary row: %r" % txt[:600])
        srv_rows = summary_rows(r.server.stdout, "receiver")
        eq([x["line"] for x in rows], [x["line"] for x in srv_rows],
           "server_output_text receiver rows vs the server's own stdout", r.context())
        within(rows[-1]["bytes"], _bytes(r.cj, "sum_received"), 0.01,
               "server text receiver bytes vs client's receiver row")
        r = pair.run(["-t", "1", "--get-server-output"], client_json=False, server_json=False)
        check("Server output:" in r.client.out, "text client lacks 'Server output:'",
              r.context())
        after = r.client.out.split("Server output:", 1)[1]
        check(summary_rows(after, "receiver"), "no receiver row after 'Server output:'",
              r.context())

    @suite.case
    def tcp_udp_counters_64bit():
        """--udp-counters-64bit on a TCP test is accepted and harmless."""
        r = pair.run(["-t", "1", "--udp-counters-64bit"])
        check_direction(r, pair, "sum_sent", "sum_received", client_sends=True)

    @suite.case
    def tcp_title():
        """-T title: every text line of the client starts with 'title:  '; both JSON
        documents carry top-level "title"."""
        r = pair.run(["-t", "1", "-T", "lptitle"], client_json=False, server_json=False)
        lines = [ln for ln in r.client.out.splitlines() if ln.strip()]
        check(lines, "no client output")
        bad = [ln for ln in lines if not ln.startswith("lptitle:  ")]
        check(not bad, "client lines without the title prefix: %r" % bad[:5], r.context())
        check(summary_rows(r.client.out, "receiver", title="lptitle"),
              "no receiver row after stripping the title", r.context())
        # (a stock 3.12 server does not prefix its own text lines with the client's title,
        # and neither does a linkperf server: only the JSON carries it)
        r = pair.run(["-t", "1", "-T", "lptitle"])
        eq(get(r.cj, "title", None), "lptitle", "client JSON title")
        eq(get(r.sj, "title", None), "lptitle", "server JSON title")

    @suite.case
    def tcp_extra_data():
        """--extra-data: top-level extra_data in the client's and the server's JSON."""
        r = pair.run(["-t", "1", "--extra-data", "lp extra 42"])
        eq(get(r.cj, "extra_data", None), "lp extra 42", "client JSON extra_data", r.context())
        eq(get(r.sj, "extra_data", None), "lp extra 42", "server JSON extra_data", r.context())

    @suite.case
    def tcp_text_rows_match_json():
        """Text mode: the summary rows parse and agree with the JSON of the same kind of
        test (sender row >= receiver row, one of each); the linkperf side prints both
        sender and receiver rows."""
        r = pair.run(["-t", "1", "-P", "2"], client_json=False, server_json=False)
        snd = summary_rows(r.client.out, "sender")
        rcv = summary_rows(r.client.out, "receiver")
        eq(len(snd), 3, "client sender rows (2 streams + SUM)", r.context())
        eq(len(rcv), 3, "client receiver rows (2 streams + SUM)", r.context())
        ge(snd[-1]["bytes"] * 1.01, rcv[-1]["bytes"], "SUM sender >= SUM receiver")
        eq(snd[-1]["id"], "SUM", "last sender row is SUM")
        within(snd[0]["bytes"] + snd[1]["bytes"], snd[-1]["bytes"], 0.02,
               "stream sender rows add up to SUM")
        srows = parse_rows(r.server.stdout)
        want_tags = {"receiver", "sender"} if pair.server == "linkperf" else {"receiver"}
        eq({x["tag"] for x in srows if x["tag"] in ("sender", "receiver")}, want_tags,
           "summary tags in the server's text", r.context())


def _have_ipv6_loopback():
    try:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.bind((LOOP6, 0))
        s.close()
        return True
    except OSError:
        return False

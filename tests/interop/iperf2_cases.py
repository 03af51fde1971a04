"""iperf2 interop cases, registered for both directions by test_iperf2_lpserver.py (stock
`iperf -c` -> `linkperf -s`, suffix _lps) and test_iperf2_lpclient.py (`linkperf --iperf2
-c` -> stock `iperf -s`, suffix _lpc). Stock is Debian's iperf 2.1.8.

Everything runs with -f B, so the rows carry exact byte counts. What is asserted:
- TCP: the receiver's bytes equal the sender's exactly (iperf2 ends a TCP test with a
  close, the receiver reads to EOF), up to the 60-byte test header that stock 2.1.8 counts
  as data on both ends and linkperf does not (docs/COMPATIBILITY.md "Byte accounting"):
  stock client -> linkperf server: server = client - 60 per stream; linkperf client ->
  stock server: server = client + 60. Data the server sends back (-R, --full-duplex, -d/-r
  legs) has no header: equal on both ends. -n N: the client's row says exactly N.
- UDP at a modest rate on loopback: no loss; the client's "Server Report" row equals the
  server's own row; bytes = datagrams x length. Stock 2.1.8 prints "Sent N" one higher than
  the datagrams its receiver counts (FIN included), also against itself; linkperf's
  "Sent" equals them.
- Loss: inside a private network namespace an nftables rule drops every 20th datagram
  to the server port; the sender's copy of the report equals the receiver's own count and
  the loss is total/20 (+-2).
"""

import os

import iperf2lib as L
import lptest
from lptest import check, eq

MB = 1024 * 1024


class Dir:
    def __init__(self, tag):
        self.tag = tag
        self.client = "iperf" if tag == "lps" else "linkperf"
        self.server = "linkperf" if tag == "lps" else "iperf"
        # server's count of a forward TCP stream minus the client's
        self.delta = -L.HDR if tag == "lps" else L.HDR


class Run:
    def __init__(self, d, srv, cres):
        self.d, self.srv, self.cres = d, srv, cres
        self.c = L.parse(cres.out)
        self.s = L.parse(srv.stdout)

    def ctx(self):
        return "%s\n  [server stdout]\n    %s" % (
            self.cres.describe(), "\n    ".join(self.srv.stdout.splitlines()[-25:]))

    def refresh(self):
        self.s = L.parse(self.srv.stdout)


def run_test(d, cargs, sargs=(), udp=False, server_rows=1, ns=None, server_port=None,
             client_timeout=30, settle=0.3, any_start=False, server_reports=0):
    """Fresh server of d.server kind, run the client to the end, wait until the server has
    printed `server_rows` summary rows (own rows, not copies of a report) and
    `server_reports` copies of a report (a -d/-r leg's: stock 2.1.8 prints it from its
    reporter thread after the FIN exchange, on a busy machine well after its own rows), kill
    it."""
    L.require_iperf2()
    srv = L.start_server(d.server, list(sargs) + ["-f", "B"] + (["-u"] if udp and d.server == "iperf"
                                                               else []),
                         udp=udp, ns=ns, port=server_port)
    cres = L.run_client(d.client, srv.port, list(cargs) + ["-f", "B"], ns=ns,
                        timeout=client_timeout)
    srv.wait_for(lambda t: len(L.finals(L.parse(t), any_start=any_start)) >= server_rows and
                 len(L.finals(L.parse(t), report=True)) >= server_reports)
    lptest.time.sleep(settle)
    r = Run(d, srv, cres)
    srv.stop()
    r.refresh()
    no_sanitizer_report(r)
    return r


def no_sanitizer_report(r):
    """A sanitizer build (make check-asan) reports on stderr: fail on any such report from
    the linkperf process."""
    lp = r.srv.proc if r.d.server == "linkperf" else r.cres.proc
    err = lp.stderr
    for mark in ("ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer"):
        check(mark not in err, "linkperf printed a sanitizer report:\n%s" % err[-3000:])


def client_fwd_ids(p, port):
    return sorted(i for i, c in p["conns"].items() if c["rport"] == port)


def client_leg_ids(p, lport):
    return sorted(i for i, c in p["conns"].items() if c["lport"] == lport)


def row(p, star, cid, what, ctx, report=False, any_start=False):
    r = L.finals(p, report, any_start).get((star, cid))
    check(r is not None, "%s: no summary row [%s%s]%s" % (what, "*" if star else " ", cid,
                                                            " (server report)" if report else ""),
          ctx)
    return r


def fwd_pair(r, what="forward stream"):
    """(client row, server row) of the single forward TCP stream."""
    ctx = r.ctx()
    ids = client_fwd_ids(r.c, r.srv.port)
    eq(len(ids), 1, "client connections to the server port", ctx)
    crow = row(r.c, False, ids[0], "client " + what, ctx)
    srows = [x for k, x in L.finals(r.s).items() if not k[0] and k[1] != "SUM"]
    check(len(srows) >= 1, "server printed no row for the forward stream", ctx)
    return crow, srows[0]


def check_fwd_tcp(r, crow, srow, what="forward"):
    eq(srow["bytes"] - crow["bytes"], r.d.delta,
       "%s TCP: server bytes - client bytes (header accounting: client %d, server %d)"
       % (what, crow["bytes"], srow["bytes"]), r.ctx())
    check(crow["bytes"] > 0, "%s: nothing sent" % what, r.ctx())


def check_intervals(p, key, what, ctx, exact_sum, n_lo, n_hi):
    """Interval rows of one stream: contiguous from 0, a plausible count, their bytes add up
    to the summary (exactly where the printer covers the whole test, else up to a tail
    shorter than one interval), and none ends after the summary."""
    fin = L.finals(p).get(key)
    check(fin is not None, "%s: no summary row" % what, ctx)
    ivs = L.intervals(p, key)
    check(n_lo <= len(ivs) <= n_hi, "%s: %d interval rows, expected %d..%d" % (
        what, len(ivs), n_lo, n_hi), ctx)
    t = 0.0
    for iv in ivs:
        check(abs(iv["start"] - t) < 0.0002, "%s: interval %s does not start where the previous "
              "ended (%.4f)" % (what, iv["line"], t), ctx)
        check(iv["end"] > iv["start"], "%s: empty interval %s" % (what, iv["line"]), ctx)
        t = iv["end"]
    check(t <= fin["end"] + 0.02, "%s: last interval ends at %.4f, after the summary's %.4f "
          "(its rate is understated)" % (what, t, fin["end"]), ctx)
    s = sum(iv["bytes"] for iv in ivs)
    if exact_sum:
        eq(s, fin["bytes"], "%s: interval bytes sum vs summary" % what, ctx)
    else:
        biggest = max(iv["bytes"] for iv in ivs)
        check(s <= fin["bytes"] <= s + biggest, "%s: interval bytes %d vs summary %d (stock "
              "leaves out a final partial interval)" % (what, s, fin["bytes"]), ctx)
    return ivs, fin


def udp_rx_checks(rx, what, ctx, blksize=1470, lost=0):
    check("total" in rx, "%s: not a UDP receiver row: %s" % (what, rx["line"]), ctx)
    eq(rx["lost"], lost, "%s lost" % what, ctx)
    eq(rx["bytes"], (rx["total"] - rx["lost"]) * blksize, "%s bytes = (total - lost) x %d"
       % (what, blksize), ctx)


def sent_matches(kind, sent, total, what, ctx):
    """'Sent N datagrams' vs the receiver's total: stock 2.1.8 says one more (seen stock vs
    stock too); linkperf says the number the receiver counts (FIN included)."""
    want = total + 1 if kind == "iperf" else total
    eq(sent, want, "%s: 'Sent' line vs receiver total %d (%s)" % (what, total, kind), ctx)


def register(suite, d):
    def case(fn=None, xfail=None):
        def deco(f):
            f.__name__ = "%s_%s" % (f.__name__, d.tag)
            if xfail:
                f.xfail = xfail
            suite.case(f)
            return f
        return deco(fn) if fn else deco

    # ------------------------------------------------------------------ TCP

    @case
    def tcp_time():
        """TCP -t 1: the server's bytes equal the client's, +-60 header bytes (exact)"""
        r = run_test(d, ["-t", "1"])
        crow, srow = fwd_pair(r)
        check_fwd_tcp(r, crow, srow)
        check(0.9 <= crow["end"] <= 5, "client summary spans %.4f s for -t 1" % crow["end"],
              r.ctx())

    @case
    def tcp_amount():
        """TCP -n 3M: the client reports exactly 3 MiB, the server that +-60 header bytes"""
        r = run_test(d, ["-n", "3M"])
        crow, srow = fwd_pair(r)
        eq(crow["bytes"], 3 * MB, "client bytes for -n 3M", r.ctx())
        eq(srow["bytes"], 3 * MB + d.delta, "server bytes for -n 3M (%s)" % (
            "stock client counts its 60-byte header in -n" if d.tag == "lps" else
            "linkperf sends 3 MiB of payload after the header, stock counts the header"), r.ctx())

    @case
    def tcp_interval():
        """TCP -t 2 -i 0.5 on both ends: interval rows contiguous, 3-5 per side, adding up to the total"""
        r = run_test(d, ["-t", "2", "-i", "0.5"], ["-i", "0.5"])
        crow, srow = fwd_pair(r)
        check_fwd_tcp(r, crow, srow)
        ids = client_fwd_ids(r.c, r.srv.port)
        check_intervals(r.c, (False, ids[0]), "client", r.ctx(), d.client == "linkperf", 3, 5)
        check_intervals(r.s, (False, srow["id"]), "server", r.ctx(), d.server == "linkperf", 3, 5)

    @case
    def tcp_len():
        """TCP -n 1000000 -l 1000: exact byte counts with 1000-byte writes"""
        r = run_test(d, ["-n", "1000000", "-l", "1000"])
        crow, srow = fwd_pair(r)
        eq(crow["bytes"], 1000000, "client bytes", r.ctx())
        check_fwd_tcp(r, crow, srow)

    @case
    def tcp_window():
        """TCP client -w 256K, server -w 300K: both print the doubled buffers (524288/614400 bytes), the linkperf process's live socket has them, data exact"""
        L.require_iperf2()
        lptest.require(lptest.can_grab_sockets(), "pidfd_getfd needed to read socket options")
        srv = L.start_server(d.server, ["-w", "300K", "-f", "B"])
        argv = L.exe(d.client) + ["-c", lptest.LOOP4, "-p", srv.port, "-t", "1", "-w", "256K",
                                  "-f", "B"]
        cl = lptest.Proc(argv, 30, name=d.client + "2-c")
        target = cl if d.client == "linkperf" else srv.proc
        spied = lptest.sample_sockets(target, srv.port, 1, timeout=3)
        cl.wait(35)
        cres = lptest.Result(cl)
        eq(cres.rc, 0, "client exit status", cres.describe())
        srv.wait_for(lambda t: len(L.finals(L.parse(t))) >= 1)
        r = Run(d, srv, cres)
        ctx = r.ctx()
        check(524288 in r.c["windows"], "client window line: %s (want 524288 bytes)" %
              r.c["windows"], ctx)
        check(614400 in r.s["windows"], "server window line: %s (want 614400 bytes)" %
              r.s["windows"], ctx)
        tcp = [o for (proto, _), o in spied.items() if proto == "tcp"]
        check(len(tcp) >= 1, "no data socket sampled from the linkperf process", ctx)
        for o in tcp:
            if d.client == "linkperf":
                eq(o["sndbuf"], 524288, "linkperf client data socket SO_SNDBUF", ctx)
            else:
                eq(o["rcvbuf"], 614400, "linkperf server data socket SO_RCVBUF", ctx)
        crow, srow = fwd_pair(r)
        check_fwd_tcp(r, crow, srow)

    @case
    def tcp_parallel():
        """TCP -P 4 -t 1: four streams matched by port, each server = client +-60, [SUM] = sum of streams on both sides"""
        r = run_test(d, ["-t", "1", "-P", "4"], server_rows=5)
        ctx = r.ctx()
        ids = client_fwd_ids(r.c, r.srv.port)
        eq(len(ids), 4, "client connections", ctx)
        sfin = L.finals(r.s)
        cfin = L.finals(r.c)
        by_port = {}
        for sid, c in r.s["conns"].items():
            by_port[c["rport"]] = sid
        total = 0
        for cid in ids:
            crow = row(r.c, False, cid, "client stream", ctx)
            sid = by_port.get(r.c["conns"][cid]["lport"])
            check(sid is not None, "server has no connection from client port %d" %
                  r.c["conns"][cid]["lport"], ctx)
            srow = row(r.s, False, sid, "server stream", ctx)
            check_fwd_tcp(r, crow, srow, "stream %d" % cid)
            total += crow["bytes"]
        csum = cfin.get((False, "SUM"))
        ssum = sfin.get((False, "SUM"))
        check(csum is not None and ssum is not None, "a [SUM] row on both sides", ctx)
        eq(csum["bytes"], total, "client [SUM] vs its streams", ctx)
        eq(ssum["bytes"], total + 4 * d.delta, "server [SUM] vs the streams", ctx)

    def two_legs(opt, amount):
        lport = lptest.free_port()
        r = run_test(d, ["-n", amount, opt, "-L", str(lport)], server_rows=2,
                     client_timeout=40, any_start=True)
        ctx = r.ctx()
        fwd = client_fwd_ids(r.c, r.srv.port)
        leg = client_leg_ids(r.c, lport)
        eq(len(fwd), 1, "client's forward connection", ctx)
        eq(len(leg), 1, "client's listener accepted the server's connection", ctx)
        cf = row(r.c, False, fwd[0], "client forward", ctx, any_start=True)
        cl = row(r.c, False, leg[0], "client listener leg", ctx, any_start=True)
        sfin = L.finals(r.s, any_start=True)
        sf = [x for k, x in sfin.items() if not k[0] and k[1] != "SUM"]
        sl = [x for k, x in sfin.items() if k[0] and k[1] != "SUM"]
        check(len(sf) == 1 and len(sl) == 1, "server rows: one forward, one [*N] leg", ctx)
        eq(cf["bytes"], 4 * MB, "client forward bytes (-n 4M)", ctx)
        check_fwd_tcp(r, cf, sf[0])
        eq(sl[0]["bytes"], 4 * MB, "server leg sent bytes (the client's -n)", ctx)
        eq(cl["bytes"], sl[0]["bytes"], "leg: client received vs server sent (no header)", ctx)
        return r

    @case
    def tcp_dual():
        """TCP -d -n 4M -L port: forward server = client +-60; the server's connection back to the listener: received == sent == 4 MiB"""
        two_legs("-d", "4M")

    @case
    def tcp_tradeoff():
        """TCP -r -n 4M -L port: as -d, the legs one after the other"""
        two_legs("-r", "4M")

    @case
    def tcp_tradeoff_time():
        """TCP -r -t 1: the client's forward row covers the forward leg only (< 1.6 s; a server holding the connection open through its 1 s leg made a 2.1.8 client report 2 s and half the rate)"""
        lport = lptest.free_port()
        r = run_test(d, ["-t", "1", "-r", "-L", str(lport)], server_rows=2, client_timeout=40,
                     any_start=True)
        ctx = r.ctx()
        fwd = client_fwd_ids(r.c, r.srv.port)
        eq(len(fwd), 1, "client's forward connection", ctx)
        cf = row(r.c, False, fwd[0], "client forward", ctx, any_start=True)
        check(cf["end"] - cf["start"] < 1.6, "client forward row %s spans the -r leg too"
              % cf["line"], ctx)
        sf = [x for k, x in L.finals(r.s, any_start=True).items() if not k[0] and k[1] != "SUM"]
        check(len(sf) == 1, "server forward row", ctx)
        check_fwd_tcp(r, cf, sf[0])

    @case
    def tcp_reverse():
        """TCP -R -n 4M: the server sends exactly 4 MiB on the client's connection, the client receives all of it"""
        r = run_test(d, ["-n", "4M", "-R"])
        ctx = r.ctx()
        ids = client_fwd_ids(r.c, r.srv.port)
        eq(len(ids), 1, "client connections", ctx)
        crow = row(r.c, True, ids[0], "client [*N] receive row", ctx)
        srow = L.one({k: v for k, v in L.finals(r.s).items() if k[1] != "SUM"}, "server", ctx)
        eq(srow["bytes"], 4 * MB, "server sent bytes", ctx)
        eq(crow["bytes"], 4 * MB, "client received bytes", ctx)

    @case
    def tcp_full_duplex():
        """TCP --full-duplex -n 4M: each direction on the one connection; client->server +-60, server->client exact; [SUM] = both"""
        r = run_test(d, ["-n", "4M", "--full-duplex"], server_rows=3)
        ctx = r.ctx()
        ids = client_fwd_ids(r.c, r.srv.port)
        eq(len(ids), 1, "client connections", ctx)
        csend = row(r.c, False, ids[0], "client send row", ctx)
        crecv = row(r.c, True, ids[0], "client [*N] receive row", ctx)
        sfin = L.finals(r.s)
        srecv = L.one({k: v for k, v in sfin.items() if not k[0] and k[1] != "SUM"}, "server recv", ctx)
        ssend = L.one({k: v for k, v in sfin.items() if k[0]}, "server [*N] send", ctx)
        eq(csend["bytes"], 4 * MB, "client sent bytes", ctx)
        check_fwd_tcp(r, csend, srecv)
        eq(ssend["bytes"], 4 * MB, "server sent bytes", ctx)
        eq(crecv["bytes"], 4 * MB, "client received bytes", ctx)
        for side, fin, parts in (("client", L.finals(r.c), (csend, crecv)),
                                 ("server", sfin, (srecv, ssend))):
            s = fin.get((False, "SUM"))
            check(s is not None, "%s [SUM] row" % side, ctx)
            eq(s["bytes"], parts[0]["bytes"] + parts[1]["bytes"], "%s [SUM] bytes" % side, ctx)

    @case
    def tcp_enhanced():
        """TCP -e -t 1 -i 0.5 (both ends): enhanced rows still parse, counts exact +-60"""
        r = run_test(d, ["-e", "-t", "1", "-i", "0.5"], ["-e", "-i", "0.5"])
        crow, srow = fwd_pair(r)
        check_fwd_tcp(r, crow, srow)
        # linkperf's server prints no -e columns for TCP (it does not measure iperf2's
        # read-size histogram "Reads=Dist"); only a stock server's header is checked.
        sides = (("client", r.c),) + ((("server", r.s),) if d.server == "iperf" else ())
        for side, p in sides:
            check(any("Bandwidth" in h and h.split("Bandwidth", 1)[1].strip()
                      for h in p["header_lines"]),
                  "%s -e column header has extra columns: %s" % (side, p["header_lines"]),
                  r.ctx())
        check(crow["rest"].strip() != "", "client -e row has enhanced columns", r.ctx())

    @case
    def tcp_file():
        """TCP -F file (1000003 random bytes), alone and with -t 3 (JPerf always writes -t;
        the file is still sent once): linkperf sends the whole file (stock server: +60); stock
        sends whole 128 KiB reads only, linkperf server gets them minus the header"""
        path = lptest.tmp_path("iperf2-file.bin")
        size = 1000003
        with open(path, "wb") as f:
            f.write(os.urandom(size))
        for extra in ([], ["-t", "3"]):
            r = run_test(d, ["-F", path] + extra)
            crow, srow = fwd_pair(r)
            check_fwd_tcp(r, crow, srow)
            if d.client == "linkperf":
                eq(crow["bytes"], size, "linkperf client bytes for -F %s (the file's size)"
                   % extra, r.ctx())
            else:
                # stock 2.1.8 -F: 60-byte header + only the full 131072-byte reads of the file
                eq(srow["bytes"], (size // 131072) * 131072,
                   "linkperf server bytes from stock -F %s (stock drops the final partial read)"
                   % extra, r.ctx())

    # ------------------------------------------------------------------ UDP

    def udp_fwd_rows(r):
        ctx = r.ctx()
        ids = client_fwd_ids(r.c, r.srv.port)
        eq(len(ids), 1, "client flows", ctx)
        cown = row(r.c, False, ids[0], "client own row", ctx)
        crep = row(r.c, False, ids[0], "client's copy of the server report", ctx, report=True)
        srow = L.one({k: v for k, v in L.finals(r.s).items() if not k[0] and k[1] != "SUM"},
                   "server receiver", ctx)
        for f in ("bytes", "lost", "total"):
            eq(crep.get(f), srow.get(f), "server report %s: client's copy vs server's own" % f, ctx)
        return ids[0], cown, crep, srow

    @case
    def udp_forward():
        """UDP -b 10M -t 2: no loss, the client's Server Report equals the server's row, client bytes == server bytes, rate at most 10M + 10%"""
        r = run_test(d, ["-u", "-b", "10M", "-t", "2"], udp=True)
        ctx = r.ctx()
        cid, cown, crep, srow = udp_fwd_rows(r)
        udp_rx_checks(srow, "server", ctx)
        eq(cown["bytes"], srow["bytes"], "client bytes vs server bytes", ctx)
        sent_matches(d.client, r.c["sent"].get(cid), srow["total"], "client", ctx)
        lptest.at_most(cown["bytes"] * 8 / cown["end"], 1.1 * 10 * MB,
                       "client rate (bits/s) for -b 10M", ctx)

    @case
    def udp_loss():
        """UDP -b 10M -t 2 in a netns dropping every 20th datagram: the client's Server Report lost/total equals the server's, loss = the datagrams dropped"""
        L.require_iperf2()
        with L.NetNS(d.tag) as ns:
            port = 5001
            ns.drop_every(port, 20)
            r = run_test(d, ["-u", "-b", "10M", "-t", "2"], udp=True, ns=ns.name,
                         server_port=port)
            ctx = r.ctx()
            cid, cown, crep, srow = udp_fwd_rows(r)
            check("total" in srow, "server row has no lost/total", ctx)
            # Every datagram the rule dropped or a full socket buffer refused is a gap the
            # server sees, the first FIN included (its retry carries the next number); a
            # repeat of the FIN after the one the server took is not, and at most one of the
            # next 19 can meet the rule.
            dropped, refused = ns.dropped(), ns.udp_in_errors()
            print("        %d lost of %d; the rule dropped %d, the socket refused %d" % (
                srow["lost"], srow["total"], dropped, refused))
            check(srow["lost"] <= dropped + refused <= srow["lost"] + 1,
                  "lost %d of %d, but %d datagrams were dropped and %d refused" % (
                      srow["lost"], srow["total"], dropped, refused), ctx)
            check(abs(dropped - srow["total"] / 20.0) <= 2, "the rule dropped %d of %d "
                  "datagrams, not every 20th" % (dropped, srow["total"]), ctx)
            eq(srow["bytes"], (srow["total"] - srow["lost"]) * 1470, "server bytes = "
               "(total - lost) x 1470", ctx)
            # The client counts its first FIN; if the rule drops that one, its retry (one
            # number further, as in stock) sets the receiver's total: one more.
            check(cown["bytes"] in (srow["total"] * 1470, (srow["total"] - 1) * 1470),
                  "client bytes %d = total %d (or total - 1 when the first FIN was the dropped "
                  "datagram) x 1470" % (cown["bytes"], srow["total"]), ctx)

    @case
    def udp_len():
        """UDP -l 1200 -b 2M -t 1: every count is datagrams x 1200"""
        r = run_test(d, ["-u", "-l", "1200", "-b", "2M", "-t", "1"], udp=True)
        ctx = r.ctx()
        cid, cown, crep, srow = udp_fwd_rows(r)
        udp_rx_checks(srow, "server", ctx, blksize=1200)
        eq(cown["bytes"], srow["total"] * 1200, "client bytes = total x 1200", ctx)
        sent_matches(d.client, r.c["sent"].get(cid), srow["total"], "client", ctx)

    @case
    def udp_interval():
        """UDP -e -i 0.5 -b 2M -t 1.5 on both ends: intervals contiguous and add up; none ends after the summary"""
        r = run_test(d, ["-u", "-e", "-i", "0.5", "-b", "2M", "-t", "1.5"], ["-e", "-i", "0.5"],
                     udp=True)
        ctx = r.ctx()
        cid, cown, crep, srow = udp_fwd_rows(r)
        udp_rx_checks(srow, "server", ctx)
        check_intervals(r.c, (False, cid), "client", ctx, d.client == "linkperf", 2, 4)
        ivs, _ = check_intervals(r.s, (False, srow["id"]), "server", ctx,
                                 d.server == "linkperf", 2, 4)
        eq(sum(iv.get("total", 0) - iv.get("lost", 0) for iv in ivs) * 1470,
           sum(iv["bytes"] for iv in ivs), "server intervals: bytes = received datagrams x 1470",
           ctx)

    @case
    def udp_reverse():
        """UDP -R -b 2M -t 1: the client receives every datagram the server sent; the server's 'Sent' matches"""
        r = run_test(d, ["-u", "-R", "-b", "2M", "-t", "1"], udp=True)
        ctx = r.ctx()
        ids = client_fwd_ids(r.c, r.srv.port)
        eq(len(ids), 1, "client flows", ctx)
        crow = row(r.c, True, ids[0], "client [*N] receive row", ctx)
        udp_rx_checks(crow, "client receiver", ctx)
        srow = L.one({k: v for k, v in L.finals(r.s).items() if k[1] != "SUM"}, "server", ctx)
        eq(srow["bytes"], crow["bytes"], "server sent bytes vs client received", ctx)
        sent_matches(d.server, list(r.s["sent"].values())[0] if r.s["sent"] else None,
                     crow["total"], "server", ctx)

    def udp_two_legs(opt):
        lport = lptest.free_port()
        r = run_test(d, ["-u", opt, "-b", "2M", "-t", "1", "-L", str(lport)], udp=True,
                     server_rows=2, server_reports=1, client_timeout=40, any_start=True)
        ctx = r.ctx()
        cid, cown, crep, srow = udp_fwd_rows(r)
        udp_rx_checks(srow, "server forward receiver", ctx)
        eq(cown["bytes"], srow["bytes"], "forward: client sent vs server received", ctx)
        leg = client_leg_ids(r.c, lport)
        eq(len(leg), 1, "client listener flows", ctx)
        cleg = row(r.c, False, leg[0], "client listener row", ctx, any_start=True)
        # A stock 2.1.8 listener now and then reports one leg datagram lost (1 run in ~20,
        # stock server too; probably the race linkperf's server had, fixed in 30e8bfe):
        # allow that one datagram there.
        udp_rx_checks(cleg, "client listener", ctx, lost=cleg.get("lost", 0)
                      if d.client == "iperf" and cleg.get("lost", 0) <= 1 else 0)
        sleg = [x for k, x in L.finals(r.s, any_start=True).items() if k[0]]
        check(len(sleg) == 1, "server [*N] leg row", ctx)
        eq(sleg[0]["bytes"], cleg["total"] * 1470, "leg: server sent vs client listener's "
           "total x 1470", ctx)
        if opt == "-r":
            # A -r leg is a test of its own, as 2.1.8 runs it: its summary starts at 0.0000
            # on its own clock, and linkperf's end prints the forward summary (a client:
            # with the server's report) before anything of the leg.
            lp_leg, lp_fwd = (sleg[0], srow) if d.server == "linkperf" else (cleg, crep)
            eq(lp_leg["start"], 0.0, "-r: linkperf's leg summary start (%s)" % lp_leg["line"], ctx)
            text = r.srv.stdout if d.server == "linkperf" else r.cres.out
            lines = text.splitlines()
            # the leg begins with the server's banner for it / the client's listener line
            leg_mark = ("Client connecting to" if d.server == "linkperf" else
                        "port %d connected with" % lport)
            first_leg = min(i for i, l in enumerate(lines) if leg_mark in l)
            check(lines.index(lp_fwd["line"]) < first_leg, "-r: linkperf prints the forward "
                  "summary %r after the leg began" % lp_fwd["line"], ctx)
        srep = [x for k, x in L.finals(r.s, report=True).items() if k[0]]
        check(len(srep) == 1, "server prints the client listener's report for its leg", ctx)
        for f in ("bytes", "lost", "total"):
            eq(srep[0][f], cleg[f], "leg report %s: server's copy vs client listener" % f, ctx)

    @case
    def udp_dual():
        """UDP -d -b 2M -t 1 -L port: forward report == server row; the leg: client listener received all the server sent, and the server's copy of its report equals it"""
        udp_two_legs("-d")

    @case
    def udp_tradeoff():
        """UDP -r -b 2M -t 1 -L port: as -d, the server's leg after the forward flow"""
        udp_two_legs("-r")

    @case
    def udp_full_duplex():
        """UDP --full-duplex -b 2M -t 1: both halves lossless, each receiver got what the other side sent"""
        r = run_test(d, ["-u", "--full-duplex", "-b", "2M", "-t", "1"], udp=True, server_rows=2)
        ctx = r.ctx()
        ids = client_fwd_ids(r.c, r.srv.port)
        eq(len(ids), 1, "client flows", ctx)
        csend = row(r.c, False, ids[0], "client send row", ctx)
        crecv = row(r.c, True, ids[0], "client [*N] receive row", ctx)
        sfin = L.finals(r.s)
        srecv = L.one({k: v for k, v in sfin.items() if not k[0] and k[1] != "SUM"}, "server recv", ctx)
        ssend = L.one({k: v for k, v in sfin.items() if k[0]}, "server [*N] send", ctx)
        udp_rx_checks(crecv, "client receiver", ctx)
        udp_rx_checks(srecv, "server receiver", ctx)
        eq(csend["bytes"], srecv["bytes"], "client sent vs server received", ctx)
        eq(ssend["bytes"], crecv["bytes"], "server sent vs client received", ctx)

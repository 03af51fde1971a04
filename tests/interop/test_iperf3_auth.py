#!/usr/bin/env python3
"""iperf3's RSA + user/password authentication (issue 13, item 6), against stock iperf3 3.12
both ways. Keys are made by the real `openssl` for each run; tokens a stock client cannot be
made to send (an old time, a replay, garbage) are made with `openssl pkeyutl` and sent on a
raw control connection.

- stock_client_to_linkperf: 3.12 with the right password runs (client and server count the
  same bytes); a wrong password, an unknown user and no token at all get 3.12's own "test
  authorization failed", and the server's output says why; the server goes on serving.
- linkperf_client_to_stock: linkperf -c --use-pkcs1-padding against `iperf3 -s
  --rsa-private-key-path`: runs, bytes agree; without --use-pkcs1-padding (OAEP, 3.17's
  default) and with a wrong password: refused, with a hint about the padding.
- linkperf_both_ends: both paddings accepted by linkperf's server; --use-pkcs1-padding on
  the server refuses an OAEP token; -R runs authenticated too.
- refusal_words_by_version: each stock client (3.12; also the iperf3 at $LINKPERF_IPERF3_NEW,
  e.g. 3.21+, when set) prints exactly its own words for each refusal: "test authorization
  failed" for a wrong password, an unknown user and no token; for parameters the server
  cannot use, "unable to receive parameters from client: Invalid argument" (never an empty
  reason); for a duration over --server-max-duration, the words that version has (3.12:
  "test duration too long ...", 3.20+: "client's requested duration exceeds ..."). The
  client's -J holds one "error" key (3.12) or the two that 3.21+ always writes for a
  SERVER_ERROR (any server's); a right password runs before and after.
- forged_tokens: a token 60 s old, a token replayed, a token for another key, base64
  garbage, a token of the wrong type: each refused with error 142 and a reason; a valid
  raw token is admitted (CREATE_STREAMS), so the harness itself is proven.
- iperf2_clients_need_a_permit_key: such a server drops stock iperf2 TCP clients and starts
  no iperf2 UDP test, saying why; with --permit-key as well, a keyed iperf2 client is served.
- option_errors: the options' pairs and ranges, a missing or wrong key file, a key that is not
  RSA, no password without a terminal: clear errors, no connection made."""

import base64
import hashlib
import json
import os
import re
import socket
import struct
import subprocess
import time

import lptest
from lptest import Suite, check, eq

suite = Suite("iperf3_auth")
USER, PASSWORD = "mario", "rossi"
# A newer stock iperf3 (e.g. 3.21+) to run refusal_words_by_version against as well.
IPERF3_NEW = os.environ.get("LINKPERF_IPERF3_NEW")


class Keys:
    """An RSA key pair, a second unrelated key and a users file, in a temp directory."""

    def __init__(self):
        self.dir = lptest.tmp_path("auth-keys")
        os.makedirs(self.dir, exist_ok=True)
        self.priv = os.path.join(self.dir, "priv.pem")
        self.pub = os.path.join(self.dir, "pub.pem")
        self.other_pub = os.path.join(self.dir, "other_pub.pem")
        self.users = os.path.join(self.dir, "users.csv")
        self.ec = os.path.join(self.dir, "ec.pem")
        other_priv = os.path.join(self.dir, "other_priv.pem")
        for argv in (["openssl", "genrsa", "-out", self.priv, "2048"],
                     ["openssl", "rsa", "-in", self.priv, "-pubout", "-out", self.pub],
                     ["openssl", "genrsa", "-out", other_priv, "2048"],
                     ["openssl", "rsa", "-in", other_priv, "-pubout", "-out", self.other_pub],
                     ["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out",
                      self.ec]):
            r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            check(r.returncode == 0, "%s: %s" % (" ".join(argv), r.stderr))
        digest = hashlib.sha256(("{%s}%s" % (USER, PASSWORD)).encode()).hexdigest()
        with open(self.users, "w") as f:
            f.write("# the users of this test\nluigi,%s\n%s,%s\n" % ("0" * 64, USER, digest))

    def server_args(self):
        return ["--rsa-private-key-path", self.priv, "--authorized-users-path", self.users]

    def client_args(self, user=USER, pub=None):
        return ["--username", user, "--rsa-public-key-path", pub or self.pub]


_keys = None


def keys():
    global _keys
    if _keys is None:
        lptest.require(subprocess.run(["which", "openssl"], capture_output=True).returncode == 0,
                       "the openssl command is needed to make keys")
        _keys = Keys()
    return _keys


def client(exe, port, args, password=PASSWORD, timeout=40):
    """Run a client with IPERF3_PASSWORD (None: unset) and no terminal; return a Result."""
    env = {k: v for k, v in os.environ.items() if k != "IPERF3_PASSWORD"}
    if password is not None:
        env["IPERF3_PASSWORD"] = password
    p = lptest.Proc([exe, "-c", "127.0.0.1", "-p", port] + list(args), timeout,
                    name=os.path.basename(exe) + "-c", env=env,
                    stdin=subprocess.DEVNULL)
    p.wait(timeout + 5)
    return lptest.Result(p)


def sent_received(r):
    doc = r.json()
    return lptest.tcp_end_bytes(doc)


def ran_whole(r, what, reverse=False, slack=0):
    """The test ran: forward to a linkperf server, the server received every byte the client
    sent (and at most `slack` bytes more); otherwise (-R, --bidir, a stock server) the
    receiver counts close below the sender (iperf3 counts what is in flight at the end as
    sent), or up to `slack` above a 3.21+ sender's count."""
    check(r.rc == 0, "%s: the test did not run" % what, r.describe())
    sent, received = sent_received(r)
    check(sent > 0, "%s: nothing was sent" % what, r.describe())
    if not reverse and slack:
        check(sent <= received <= sent + slack, "%s: the server received %d, the client sent "
              "%d (at most %d more expected)" % (what, received, sent, slack), r.describe())
    elif not reverse:
        eq(received, sent, "%s: bytes the server received vs the client sent" % what)
    else:
        check(0.85 * sent <= received <= sent + slack, "%s: received %d of %d sent" % (
            what, received, sent), r.describe())


def stock_slack():
    """Bytes a linkperf server may receive beyond a stock client's sent count: 3.21+ counts
    as sent only the blocks it finished writing (one 128 KiB -l block of its one stream);
    3.12 counts every byte it wrote."""
    return 131072 if lptest.iperf3_version() >= (3, 21) else 0


def refused(r, what, words="test authorization failed"):
    check(r.rc != 0 and words in r.out + r.err, "%s: expected a refusal (%s)" % (what, words),
          r.describe())


def wait_for(server, words, what, timeout=10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if words in server.stdout + server.stderr:
            return
        time.sleep(0.05)
    check(False, "%s: the server never said %r" % (what, words), server.proc.tail())


@suite.case
def stock_client_to_linkperf():
    k = keys()
    srv = lptest.start_server("linkperf", k.server_args())
    ok = client(lptest.IPERF3, srv.port, ["-J", "-t", "1"] + k.client_args())
    ran_whole(ok, "3.12 with the right password", slack=stock_slack())
    refused(client(lptest.IPERF3, srv.port, ["-t", "1"] + k.client_args(), password="wrong"),
            "3.12 with a wrong password")
    wait_for(srv, "authentication failed for user 'mario': wrong password", "wrong password")
    refused(client(lptest.IPERF3, srv.port, ["-t", "1"] + k.client_args(user="luigi")),
            "3.12 as a user whose hash does not match")
    refused(client(lptest.IPERF3, srv.port, ["-t", "1"] + k.client_args(user="peach")),
            "3.12 as an unknown user")
    wait_for(srv, "user not in the authorized users file", "unknown user")
    refused(client(lptest.IPERF3, srv.port, ["-t", "1"]), "3.12 without a token")
    wait_for(srv, "no authentication token", "no token")
    again = client(lptest.IPERF3, srv.port, ["-J", "-t", "1", "-R"] + k.client_args())
    ran_whole(again, "3.12 -R after the refusals", reverse=True)
    check(srv.stop() == 0, "the server did not exit 0", srv.proc.tail())


@suite.case
def linkperf_client_to_stock():
    k = keys()
    if lptest.iperf3_version() >= (3, 21):
        return linkperf_client_to_stock_3_21(k)
    srv = lptest.start_server("iperf3", k.server_args())
    ok = client(lptest.LINKPERF, srv.port, ["-J", "-t", "1", "--use-pkcs1-padding"] +
                k.client_args())
    # A stock server stops counting at TEST_END: what is in flight then is sent, not received.
    ran_whole(ok, "linkperf --use-pkcs1-padding to 3.12", reverse=True)
    oaep = client(lptest.LINKPERF, srv.port, ["-t", "1"] + k.client_args())
    refused(oaep, "linkperf's OAEP token to 3.12")
    check("--use-pkcs1-padding" in oaep.err, "no hint about the padding", oaep.describe())
    refused(client(lptest.LINKPERF, srv.port, ["-t", "1", "--use-pkcs1-padding"] +
                   k.client_args(), password="wrong"), "linkperf with a wrong password to 3.12")
    refused(client(lptest.LINKPERF, srv.port, ["-t", "1"]), "linkperf without a token to 3.12")
    ok = client(lptest.LINKPERF, srv.port, ["-J", "-t", "1", "-R", "--use-pkcs1-padding"] +
                k.client_args())
    ran_whole(ok, "linkperf -R --use-pkcs1-padding to 3.12", reverse=True)


# A 3.21+ server sends nothing when it refuses a token (stock 3.21 client: "control socket has
# closed unexpectedly"); linkperf's client says so in its own words.
CLOSED = "the server has unexpectedly closed the connection"


def linkperf_client_to_stock_3_21(k):
    """A 3.21+ server takes only OAEP (linkperf's default) unless started with
    --use-pkcs1-padding, then only PKCS#1 v1.5 (stock 3.21 and 3.12 clients against it too);
    it refuses by closing the control connection."""
    srv = lptest.start_server("iperf3", k.server_args())
    ok = client(lptest.LINKPERF, srv.port, ["-J", "-t", "1"] + k.client_args())
    # A stock server stops counting at TEST_END: what is in flight then is sent, not received.
    ran_whole(ok, "linkperf's OAEP token to 3.21+", reverse=True)
    pkcs1 = client(lptest.LINKPERF, srv.port, ["-t", "1", "--use-pkcs1-padding"] +
                   k.client_args())
    refused(pkcs1, "linkperf --use-pkcs1-padding to an OAEP-only 3.21+", CLOSED)
    check("unless started with --use-pkcs1-padding" in pkcs1.err, "no hint about the padding",
          pkcs1.describe())
    refused(client(lptest.LINKPERF, srv.port, ["-t", "1"] + k.client_args(), password="wrong"),
            "linkperf with a wrong password to 3.21+", CLOSED)
    refused(client(lptest.LINKPERF, srv.port, ["-t", "1"]), "linkperf without a token to 3.21+",
            CLOSED)
    ok = client(lptest.LINKPERF, srv.port, ["-J", "-t", "1", "-R"] + k.client_args())
    # (a 3.21+ sender's count leaves out the block it was writing: stock_slack)
    ran_whole(ok, "linkperf -R (OAEP) to 3.21+ after the refusals", reverse=True,
              slack=stock_slack())
    srv.stop()
    strict = lptest.start_server("iperf3", k.server_args() + ["--use-pkcs1-padding"])
    ok = client(lptest.LINKPERF, strict.port, ["-J", "-t", "1", "--use-pkcs1-padding"] +
                k.client_args())
    ran_whole(ok, "linkperf --use-pkcs1-padding to 3.21+ -s --use-pkcs1-padding", reverse=True)
    oaep = client(lptest.LINKPERF, strict.port, ["-t", "1"] + k.client_args())
    refused(oaep, "linkperf's OAEP token to 3.21+ -s --use-pkcs1-padding", CLOSED)
    check("--use-pkcs1-padding" in oaep.err, "no hint about the padding", oaep.describe())
    ok = client(lptest.LINKPERF, strict.port, ["-J", "-t", "1", "-R", "--use-pkcs1-padding"] +
                k.client_args())
    ran_whole(ok, "linkperf -R --use-pkcs1-padding to 3.21+ -s --use-pkcs1-padding",
              reverse=True, slack=stock_slack())
    strict.stop()


@suite.case
def linkperf_both_ends():
    k = keys()
    srv = lptest.start_server("linkperf", k.server_args())
    for extra in ([], ["--use-pkcs1-padding"], ["-R"], ["--bidir"]):
        r = client(lptest.LINKPERF, srv.port, ["-J", "-t", "1"] + extra + k.client_args())
        ran_whole(r, "linkperf to linkperf %s" % extra, reverse=bool(extra) and extra[0] != "--use-pkcs1-padding")
    refused(client(lptest.LINKPERF, srv.port, ["-t", "1"] + k.client_args(), password="x"),
            "linkperf with a wrong password")
    check(srv.stop() == 0, "the server did not exit 0", srv.proc.tail())
    strict = lptest.start_server("linkperf", k.server_args() + ["--use-pkcs1-padding"])
    refused(client(lptest.LINKPERF, strict.port, ["-t", "1"] + k.client_args()),
            "an OAEP token to a --use-pkcs1-padding server")
    wait_for(strict, "PKCS#1 v1.5 only", "strict padding")
    ran_whole(client(lptest.LINKPERF, strict.port, ["-J", "-t", "1", "--use-pkcs1-padding"] +
                     k.client_args()), "a PKCS#1 token to a --use-pkcs1-padding server")


def error_values(text):
    """The values of every top-level "error" key of a -J document, in order (json.loads alone
    would keep only the last of duplicate keys)."""
    top = json.loads(text, object_pairs_hook=lambda pairs: pairs)
    return [v for k, v in top if k == "error"]


def expect_refusal(exe, port, args, words, what, errno_text=None, password=PASSWORD):
    """The stock client `exe` is refused with exactly its own text for `words` (the
    iperf_strerror text of what the server sent): 3.12 prints "iperf3: error - WORDS"; 3.21+
    prints "iperf3: SERVER ERROR - WORDS" (", errno: E" when the server sent an errno) first.
    Its -J has those same texts as its "error" keys, and nothing else."""
    v = lptest.iperf3_version(exe)
    first = "SERVER ERROR - %s%s" % (words, ", errno: " + errno_text if errno_text else "")
    want = ([first] if v >= (3, 21) else []) + ["error - " + words]
    r = client(exe, port, ["-t", "1"] + list(args), password=password)
    lines = [line for line in r.err.splitlines() if line.strip()]
    check(r.rc != 0, "%s: the client was not refused" % what, r.describe())
    eq(lines, ["iperf3: " + w for w in want], "%s: the client's words" % what)
    r = client(exe, port, ["-J", "-t", "1"] + list(args), password=password)
    # 3.12's -J exits 0 after an error it wrote into the document; 3.21+ exits 1.
    check((r.rc != 0) == (v >= (3, 21)), "%s (-J): exit status %d" % (what, r.rc), r.describe())
    want_json = ([first] if v >= (3, 21) else []) + [words]
    eq(error_values(r.out), want_json, "%s: the \"error\" keys of the client's -J" % what)
    for value in want_json:
        check(not value.endswith(": ") and value.strip(), "%s: an empty reason %r" % (
            what, value), r.describe())


@suite.case
def refusal_words_by_version():
    """Each stock client prints its own words for each refusal of a server that requires
    authentication and has --server-max-duration 5 (the numbers it is sent depend on the
    client_version it sends): 3.12 always, and $LINKPERF_IPERF3_NEW when set."""
    k = keys()
    srv = lptest.start_server("linkperf", k.server_args() + ["--server-max-duration", "5"])
    exes = [lptest.IPERF3] + ([IPERF3_NEW] if IPERF3_NEW else [])
    for exe in exes:
        v = lptest.iperf3_version(exe)
        name = "%d.%d" % v
        # 3.21+ counts as sent only the blocks it finished writing when its timer fired; the
        # server also reads the block that was being written (up to -l 128 KiB per stream).
        slack = 131072 if v >= (3, 21) else 0
        ran_whole(client(exe, srv.port, ["-J", "-t", "1"] + k.client_args()),
                  "%s with the right password" % name, slack=slack)
        for args, password, what, why in (
                (k.client_args(), "wrong", "a wrong password", "wrong password"),
                (k.client_args(user="peach"), PASSWORD, "an unknown user",
                 "user not in the authorized users file"),
                ([], PASSWORD, "no token", "no authentication token")):
            expect_refusal(exe, srv.port, args, "test authorization failed",
                           "%s with %s" % (name, what), password=password)
            wait_for(srv, why, "%s with %s" % (name, what))
        expect_refusal(exe, srv.port, ["-C", "no.such"] + k.client_args(),
                       "unable to receive parameters from client: Invalid argument",
                       "%s with a congestion name the server refuses" % name,
                       errno_text="Invalid argument")
        wait_for(srv, "parameter 'congestion' has an invalid name", "a bad congestion name")
        # Error 37 exists from 3.20; older clients get the nearest words they have.
        words = ("client's requested duration exceeds the server's maximum permitted limit"
                 if v >= (3, 20) else "test duration too long (maximum = 86400 seconds)"
                 if v < (3, 17) else
                 "unable to receive parameters from client: Numerical result out of range")
        expect_refusal(exe, srv.port, ["-t", "10"] + k.client_args(), words,
                       "%s -t 10 over --server-max-duration 5" % name,
                       errno_text=None if v >= (3, 20) or v < (3, 17) else
                       "Numerical result out of range")
        ran_whole(client(exe, srv.port, ["-J", "-t", "1", "-R"] + k.client_args()),
                  "%s -R after the refusals" % name, reverse=True)
        print("        %s (%s): refusals in its own words, before and after a run" % (
            name, exe))
    check(srv.stop() == 0, "the server did not exit 0", srv.proc.tail())


def encrypt(text, pub, padding="pkcs1"):
    r = subprocess.run(["openssl", "pkeyutl", "-encrypt", "-pubin", "-inkey", pub, "-pkeyopt",
                        "rsa_padding_mode:" + padding], input=text.encode(),
                       capture_output=True, timeout=30)
    check(r.returncode == 0, "openssl pkeyutl: %s" % r.stderr)
    return base64.b64encode(r.stdout).decode()


def token_text(ts, user=USER, password=PASSWORD):
    return "user: %s\npwd:  %s\nts:   %d" % (user, password, ts)


def raw_params(port, token):
    """A control connection that sends the cookie and parameters carrying `token` (any JSON
    value). Returns the server's answer: ("create", None) or ("error", i_errno) or
    ("closed", None)."""
    s = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
    try:
        s.sendall(b"authrawtest".ljust(36, b"a") + b"\0")
        check(s.recv(1) == b"\x09", "no PARAM_EXCHANGE")
        params = {"tcp": True, "omit": 0, "time": 1, "num": 0, "blockcount": 0, "parallel": 1,
                  "len": 131072, "pacing_timer": 1000, "authtoken": token,
                  "client_version": "3.12"}
        body = json.dumps(params, separators=(",", ":")).encode()
        s.sendall(struct.pack(">I", len(body)) + body)
        b = s.recv(1)
        if b == b"\x0a":
            return ("create", None)
        if b == b"\xfe":
            data = b""
            while len(data) < 4:
                more = s.recv(4 - len(data))
                if not more:
                    break
                data += more
            return ("error", struct.unpack(">i", data)[0] if len(data) == 4 else None)
        return ("closed", None)
    finally:
        s.close()


@suite.case
def forged_tokens():
    k = keys()
    srv = lptest.start_server("linkperf", k.server_args())
    now = int(time.time())
    good = encrypt(token_text(now), k.pub)
    eq(raw_params(srv.port, good), ("create", None), "a valid raw token")
    for token, why, what in (
            (encrypt(token_text(now - 60), k.pub), "s from the server's", "a token 60 s old"),
            (encrypt(token_text(now + 60), k.pub, "oaep"), "s from the server's",
             "a token 60 s ahead"),
            (good, "a replay", "the same token again"),
            (encrypt(token_text(now), k.other_pub), "does not decrypt", "another key's token"),
            ("A" * 344, "does not decrypt", "344 characters of base64 zeros"),
            ("!!!!" * 86, "not base64", "not base64"),
            ("QUJD", "not base64 of one RSA block", "a short block"),
            (encrypt("user: mario", k.pub), "not iperf3's", "a token without pwd and ts"),
            ("A" * 5000, "not a string shorter", "a token longer than any key's")):
        eq(raw_params(srv.port, token), ("error", 142 if len(token) < 5000 else 114), what)
        wait_for(srv, why, what)
    # A token of the wrong type is a parameter error (114), as any mistyped parameter is.
    eq(raw_params(srv.port, 12345), ("error", 114), "a number as the token")
    wait_for(srv, "parameter 'authtoken' is not a string", "a number as the token")
    ran_whole(client(lptest.IPERF3, srv.port, ["-J", "-t", "1"] + k.client_args()),
              "a stock client after the forged tokens", slack=stock_slack())
    check(srv.stop() == 0, "the server did not exit 0", srv.proc.tail())


@suite.case
def iperf2_clients_need_a_permit_key():
    """A server that requires iperf3 authentication serves no iperf2 client that cannot
    present anything: stock `iperf -c` (TCP) is dropped and `iperf -u` starts no test, each with
    a server line saying why; with --permit-key=K as well, `iperf -c --permit-key=K` is served
    whole and an authenticated iperf3 client still is."""
    import iperf2lib as i2
    i2.require_iperf2()
    k = keys()
    srv = lptest.start_server("linkperf", k.server_args())
    r = i2.run_client("iperf", srv.port, ["-n", "2000000", "-f", "B"], expect_rc=None)
    wait_for(srv, "this server requires authentication, and iperf2 clients only have "
             "--permit-key", "an iperf2 TCP client")
    check("receiver" not in srv.stdout, "the server ran the iperf2 client's test",
          srv.proc.tail())
    i2.run_client("iperf", srv.port, ["-u", "-t", "1", "-b", "1M"], expect_rc=None)
    wait_for(srv, "requires authentication, which iperf2 UDP tests cannot carry",
             "an iperf2 UDP client")
    check(srv.stop() == 0, "the server did not exit 0", srv.proc.tail())
    both = lptest.start_server("linkperf", k.server_args() + ["--permit-key=secretkey", "-J"])
    r = i2.run_client("iperf", both.port, ["--permit-key=secretkey", "-n", "2000000", "-f", "B"])
    ids = re.sub(r"^\[secretkey\((\*?)(\d+)\)\]", lambda m: "[%3s]" % (m.group(1) + m.group(2)),
                 r.out, flags=re.M)  # 2.1.8 prints "[secretkey(1)]" for "[  1]"
    sent = [f["bytes"] for key, f in i2.finals(i2.parse(ids)).items() if key[1] != "SUM"]
    eq(sent, [2000000], "the keyed iperf2 client's bytes")
    end = time.monotonic() + 10
    while time.monotonic() < end and '"sum_received"' not in both.stdout:
        time.sleep(0.05)
    docs = both.json_docs()
    check(len(docs) == 1, "the server printed %d documents, want 1" % len(docs), both.proc.tail())
    # The keyed header (60 + 2 + 9 bytes of key) is not payload (docs/internals/permit-key.md).
    eq(lptest.tcp_end_bytes(docs[0])[1], 2000000 - 71, "bytes the server received")
    ran_whole(client(lptest.IPERF3, both.port, ["-J", "-t", "1"] + k.client_args()),
              "3.12 with the right password on a server with a permit key too",
              slack=stock_slack())
    check(both.stop() == 0, "the server did not exit 0", both.proc.tail())
    print("        keyed iperf2 client's rows: %s" % sent)


@suite.case
def option_errors():
    k = keys()
    cases = (
        (["-s", "--rsa-private-key-path", k.priv], "needs both --rsa-private-key-path"),
        (["-s", "--authorized-users-path", k.users], "needs both --rsa-private-key-path"),
        (["-s", "--time-skew-threshold", "5"], "--time-skew-threshold needs"),
        (["-s", "--time-skew-threshold", "0"] + k.server_args(), "out of range"),
        (["-c", "127.0.0.1", "--username", USER], "needs both --username"),
        (["-c", "127.0.0.1", "--rsa-public-key-path", k.pub], "needs both --username"),
        (["-c", "127.0.0.1", "--username", "a b", "--rsa-public-key-path", k.pub],
         "without spaces"),
        (["-c", "127.0.0.1", "--dialect", "iperf2"] + k.client_args(), "iperf2"),
        (["-s", "-p", "1", "--rsa-private-key-path", k.dir + "/none.pem",
          "--authorized-users-path", k.users], "cannot open the RSA private key"),
        (["-s", "-p", "1", "--rsa-private-key-path", k.pub, "--authorized-users-path",
          k.users], "not an unencrypted PEM private key"),
        (["-s", "-p", "1", "--rsa-private-key-path", k.ec, "--authorized-users-path",
          k.users], "not an RSA key"),
        (["-s", "-p", "1", "--rsa-private-key-path", k.priv, "--authorized-users-path",
          k.dir + "/none.csv"], "cannot read the authorized users file"),
    )
    for args, words in cases:
        r = lptest.linkperf(*args, timeout=20)
        check(r.rc != 0 and words in r.err, "linkperf %s: expected %r" % (args, words),
              r.describe())
    # Client-side loading errors, before any connection: port 9 of loopback has no listener,
    # so "connect" in the message would mean the client tried.
    for args, password, words in ((k.client_args(pub=k.priv), PASSWORD, "not a PEM public key"),
                                  (k.client_args(pub=k.dir + "/none"), PASSWORD, "cannot open"),
                                  (k.client_args(), None, "IPERF3_PASSWORD")):
        r = client(lptest.LINKPERF, "9", ["-t", "1"] + args, password=password, timeout=20)
        check(r.rc != 0 and words in r.err and "connect" not in r.err,
              "client %s: expected %r before connecting" % (args, words), r.describe())


if __name__ == "__main__":
    suite.main()

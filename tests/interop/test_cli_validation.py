#!/usr/bin/env python3
"""Option validation seen from the outside: an invalid command line exits with status 2
at once, prints exactly one line on stderr that names the option (`linkperf: ...`),
prints nothing on stdout, and never touches the network (the target port has a
listener that counts connections)."""

import socket
import threading

from lptest import LINKPERF, LOOP4, Suite, check, eq, run

suite = Suite("cli_validation", needs_iperf3=False)


class Listener:
    """A TCP listener that counts connection attempts (there must be none)."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((LOOP4, 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.count = 0
        self.stop = False
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
                self.count += 1
                c.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.t.join(2)
        self.sock.close()


# (case name, arguments after `-c 127.0.0.1 -p PORT` or a full argv, words the line must
# contain)
CASES = [
    ("parallel_500", ["-P", "500"], ["-P", "parallel", "500"]),
    ("time_negative", ["-t", "-1"], ["-t", "time"]),
    ("length_zero", ["-l", "0"], ["-l", "length"]),
    ("bitrate_bad_suffix", ["-b", "10X"], ["-b", "bitrate", "10X"]),
    ("udp_length_too_big", ["-u", "-l", "70000"], ["-l", "70000"]),
    ("window_too_big", ["-w", "600M"], ["-w", "window"]),
    ("tos_256", ["-S", "256"], ["-S", "tos"]),
    ("dscp_unknown_name", ["--dscp", "XX"], ["dscp", "XX"]),
    ("omit_negative", ["-O", "-1"], ["-O", "omit"]),
    ("two_end_conditions", ["-n", "5M", "-t", "3"], ["-t", "-n"]),
    ("unsupported_iperf3_option", ["-F", "x"], ["-F", "file"]),
    ("unknown_option", ["--bogus"], ["--bogus"]),
]

SERVER_CASES = [
    ("server_with_reverse", ["-s", "-R"], ["-R", "reverse"]),
    ("server_with_parallel", ["-s", "-P", "2"], ["-P"]),
    ("server_and_client", ["-s", "-c", LOOP4], ["-s", "-c"]),
]


def check_rejected(argv, words, listener):
    r = run([LINKPERF] + argv, timeout=10)
    eq(r.rc, 2, "exit status of linkperf %s" % " ".join(argv), r.describe())
    lines = [ln for ln in r.err.splitlines() if ln.strip()]
    eq(len(lines), 1, "stderr lines for %s" % " ".join(argv), r.describe())
    line = lines[0]
    check(line.startswith("linkperf: "), "error line lacks the 'linkperf: ' prefix: %r"
          % line)
    for w in words:
        check(w in line, "error line for %s does not mention %r: %r" % (
            " ".join(argv), w, line))
    eq(r.out, "", "stdout for %s" % " ".join(argv))
    check(r.elapsed < 5, "rejection took %.1f s" % r.elapsed)
    if listener is not None:
        eq(listener.count, 0, "connections made by a rejected command line")


def make_client_case(name, extra, words):
    def case():
        lst = Listener()
        try:
            check_rejected(["-c", LOOP4, "-p", str(lst.port)] + extra, words, lst)
        finally:
            lst.close()
    case.__name__ = name
    case.__doc__ = "linkperf -c HOST %s: exit 2, one line naming %s." % (
        " ".join(extra), "/".join(words))
    return case


def make_server_case(name, argv, words):
    def case():
        check_rejected(argv, words, None)
    case.__name__ = name
    case.__doc__ = "linkperf %s: exit 2, one line naming %s." % (" ".join(argv),
                                                                 "/".join(words))
    return case


for _c in CASES:
    suite.case(make_client_case(*_c))
for _c in SERVER_CASES:
    suite.case(make_server_case(*_c))


@suite.case
def valid_line_still_runs():
    """Sanity check of the harness: a valid command line against the counting listener
    does connect (so 'no connection' above means something)."""
    lst = Listener()
    try:
        r = run([LINKPERF, "-c", LOOP4, "-p", str(lst.port), "-t", "1"], timeout=15)
        check(lst.count >= 1, "a valid client did not connect", r.describe())
        eq(r.rc, 1, "exit status when the 'server' closes at once", r.describe())
    finally:
        lst.close()


if __name__ == "__main__":
    suite.main()

#!/usr/bin/env python3
"""TCP: linkperf client -> stock iperf3 3.12 server (one-off, -J), every option of the
interop list; see tcp_cases.py for the cases."""
import lptest
import tcp_cases

suite = lptest.Suite("tcp_lpclient")
tcp_cases.register(suite, lptest.Pair("linkperf", "iperf3"))

if __name__ == "__main__":
    suite.main()

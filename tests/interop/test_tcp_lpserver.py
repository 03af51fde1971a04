#!/usr/bin/env python3
"""TCP: stock iperf3 3.12 client -> linkperf server (one-off, -J), every option of the
interop list; see tcp_cases.py for the cases."""
import lptest
import tcp_cases

suite = lptest.Suite("tcp_lpserver")
tcp_cases.register(suite, lptest.Pair("iperf3", "linkperf"))

if __name__ == "__main__":
    suite.main()

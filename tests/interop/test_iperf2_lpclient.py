#!/usr/bin/env python3
"""iperf2 interop, linkperf client -> stock iperf 2.1.8 server (`linkperf --iperf2 -c` ->
`iperf -s`): the same cases as test_iperf2_lpserver.py, the other way. See
iperf2_cases.py."""
import iperf2_cases
import lptest

suite = lptest.Suite("iperf2_lpclient", needs_iperf3=False)
iperf2_cases.register(suite, iperf2_cases.Dir("lpc"))

if __name__ == "__main__":
    suite.main()

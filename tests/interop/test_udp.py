#!/usr/bin/env python3
"""UDP both ways: linkperf client -> stock iperf3 -s (cases *_lpc) and stock iperf3 -c ->
linkperf -s (cases *_lps). See udp_cases.py."""
import lptest
import udp_cases

suite = lptest.Suite("udp")
udp_cases.register(suite, lptest.Pair("linkperf", "iperf3"), "lpc")
udp_cases.register(suite, lptest.Pair("iperf3", "linkperf"), "lps")

if __name__ == "__main__":
    suite.main()

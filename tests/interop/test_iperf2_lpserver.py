#!/usr/bin/env python3
"""iperf2 interop, stock iperf 2.1.8 client -> linkperf server (`iperf -c` -> `linkperf
--iperf2 -s`): TCP -t/-n/-i/-l/-w/-P/-d/-r/-R/--full-duplex/-e/-F, UDP forward, loss in a
network namespace, -l, -i/-e, -R, -d, --full-duplex. See iperf2_cases.py."""
import iperf2_cases
import lptest

suite = lptest.Suite("iperf2_lpserver", needs_iperf3=False)
iperf2_cases.register(suite, iperf2_cases.Dir("lps"))

if __name__ == "__main__":
    suite.main()

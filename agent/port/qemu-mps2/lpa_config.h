/* Agent options of the QEMU firmware: the defaults, a microsecond clock from SysTick (as the
 * README's recipes advise) so UDP jitter is not in whole milliseconds, and iperf 2.1's
 * --bounceback server, which `linkperf rfc2544 --tests latency` needs for its round trips
 * (tests/agent/test_agent_rfc2544.py; 4 sessions x 528 bytes of RAM, which this board has).
 * The footprint's rows are built by agent/port/cortex-m4/footprint.py with options of their
 * own, not with this file: its target row stays without bounceback. */
#ifndef LPA_QEMU_CONFIG_H
#define LPA_QEMU_CONFIG_H

#include "board.h"

#define LPA_NOW_US() board_us()
#define LPA_IPERF2_BOUNCEBACK 1

#endif

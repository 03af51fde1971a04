/* Agent options for the host programs (included by lpa_opts.h with LPA_HAVE_CONFIG_H): the
 * PC has microsecond clocks, so UDP jitter is not held to sys_now()'s 1 ms, and UDP
 * datagrams and bounceback echoes carry real wall-clock stamps as a board with SNTP would. */
#ifndef LPA_CONFIG_H
#define LPA_CONFIG_H

#include <stdint.h>

uint64_t lpa_host_now_us(void);
uint64_t lpa_host_wall_us(void);
#define LPA_NOW_US() lpa_host_now_us()
#define LPA_WALL_US() lpa_host_wall_us()
/* The host programs serve --bounceback (tests/agent/test_agent_bounceback.py); a build may
 * still turn it off with -DLPA_IPERF2_BOUNCEBACK=0. */
#ifndef LPA_IPERF2_BOUNCEBACK
#define LPA_IPERF2_BOUNCEBACK 1
#endif

#endif

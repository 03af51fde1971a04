/* The CPU model's cycle estimates per lwIP API, shared by the host programs' --cpu-mhz
 * (port/unix/host_main.c) and `linkperf lwip-tune --cpu-mhz` (src/cli/lwip_tune.c). A frame
 * of len bytes costs frame + byte_milli * len / 1000 cycles, received (rx) or sent (tx).
 * Each row is QEMU's instruction count of that back end on a Cortex-M4 (bench/agent_cycles.py
 * on agent/port/qemu-mps2's firmware, net of the idle loop; RX solved from two UDP sizes, TX
 * from TCP and UDP sends; a PIO MAC, software checksums, CPI taken as 1). netconn and socket
 * run NO_SYS=0 on that port's cooperative scheduler: its thread switches are counted, an
 * RTOS's costlier ones (a PendSV, a ready list) are not. */
#ifndef LPA_CPU_COSTS_H
#define LPA_CPU_COSTS_H

#include <stdint.h>

struct lpa_cpu_costs {
  const char *api;
  uint32_t rx_frame, rx_byte_milli, tx_frame, tx_byte_milli;
};

static const struct lpa_cpu_costs lpa_cpu_costs[] = {
  { "raw", 1020, 3360, 1890, 3700 },
  { "netconn", 2740, 3320, 2690, 3550 },
  { "socket", 3810, 3780, 1800, 5070 },
};
#define LPA_CPU_COSTS_N (sizeof lpa_cpu_costs / sizeof lpa_cpu_costs[0])

/* The estimates of api ("raw", "netconn", "socket"), or NULL. */
static inline const struct lpa_cpu_costs *lpa_cpu_costs_find(const char *api)
{
  for (unsigned i = 0; i < LPA_CPU_COSTS_N; i++) {
    const char *a = lpa_cpu_costs[i].api, *b = api;
    while (*a && *a == *b) {
      a++;
      b++;
    }
    if (*a == *b)
      return &lpa_cpu_costs[i];
  }
  return 0;
}

#endif

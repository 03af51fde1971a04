/* The CPU model's cycle estimates per lwIP API, shared by the host programs' --cpu-mhz
 * (port/unix/host_main.c) and `linkperf lwip-tune --cpu-mhz` (src/cli/lwip_tune.c). A frame
 * of len bytes costs frame + byte_milli * len / 1000 cycles, received (rx) or sent (tx).
 * raw: QEMU's instruction counts of the agent's raw back end on a Cortex-M4 (bench/agent_cycles.py,
 * net of the idle loop: RX solved from two UDP sizes, TX from TCP and UDP sends; a PIO MAC,
 * software checksums, CPI taken as 1). netconn and socket: raw plus what each API adds per
 * frame as counted on the host (bench/agent_api_instr.py: x86-64 instructions of lwIP, the
 * agent and sys_arch, UDP and TCP, receiving and sending), scaled by raw's Cortex-M4 / x86
 * ratio per received frame (1020 / 734); socket adds a copy per byte (0.5, libc's memcpy,
 * which the host counts leave out). An RTOS's thread switch is in neither (agent/README.md,
 * "What the CPU model says"). */
#ifndef LPA_CPU_COSTS_H
#define LPA_CPU_COSTS_H

#include <stdint.h>

struct lpa_cpu_costs {
  const char *api;
  uint32_t rx_frame, rx_byte_milli, tx_frame, tx_byte_milli;
};

static const struct lpa_cpu_costs lpa_cpu_costs[] = {
  { "raw", 1020, 3360, 1890, 3700 },
  { "netconn", 2520, 3360, 3390, 3700 },
  { "socket", 3420, 3860, 3430, 4200 },
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

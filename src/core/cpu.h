/* Process CPU utilisation over a test, as iperf3 reports it (user, system, total as a
 * percentage of wall-clock time). */
#ifndef LP_CPU_H
#define LP_CPU_H

#include <stdint.h>

struct lp_cpu_snap {
    uint64_t wall_ns;
    uint64_t user_us, system_us;
};

void lp_cpu_snap(struct lp_cpu_snap *s);
/* Percentages between two snapshots. */
void lp_cpu_util(const struct lp_cpu_snap *a, const struct lp_cpu_snap *b, double *total, double *user,
                 double *system);

#endif

/* CPU utilisation from getrusage (whole process, like iperf3: a server running several tests
 * reports the process's share for each). */
#include "core/cpu.h"

#include <sys/resource.h>

#include "core/clock.h"

void lp_cpu_snap(struct lp_cpu_snap *s)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    s->wall_ns = lp_now_ns();
    s->user_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
    s->system_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
}

void lp_cpu_util(const struct lp_cpu_snap *a, const struct lp_cpu_snap *b, double *total, double *user,
                 double *system)
{
    double wall_us = (double)(b->wall_ns - a->wall_ns) / 1000.0;
    if (wall_us <= 0) {
        *total = *user = *system = 0;
        return;
    }
    *user = 100.0 * (double)(b->user_us - a->user_us) / wall_us;
    *system = 100.0 * (double)(b->system_us - a->system_us) / wall_us;
    *total = *user + *system;
}

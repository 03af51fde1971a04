/* TCP_INFO sampling. Uses the kernel's own struct (linux/tcp.h) because glibc's copy stops
 * before tcpi_snd_wnd; the kernel tells us how much of the struct it filled. */
#include <errno.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "net/sock.h"

int lp_sock_tcp_info(int fd, struct lp_tcp_sample *s)
{
    struct tcp_info ti;
    socklen_t sl = sizeof(ti);
    memset(s, 0, sizeof(*s));
    memset(&ti, 0, sizeof(ti));
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &sl) < 0)
        return -errno;
    s->valid = true;
    s->total_retrans = ti.tcpi_total_retrans;
    s->snd_cwnd_bytes = (uint64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
    s->snd_cwnd_pkts = ti.tcpi_snd_cwnd;
    s->rtt_us = ti.tcpi_rtt;
    s->rttvar_us = ti.tcpi_rttvar;
    s->pmtu = ti.tcpi_pmtu;
    s->snd_mss = ti.tcpi_snd_mss;
    if (sl >= offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof(ti.tcpi_snd_wnd))
        s->snd_wnd_bytes = ti.tcpi_snd_wnd;
    s->reord_seen = -1;
    if (sl >= offsetof(struct tcp_info, tcpi_reord_seen) + sizeof(ti.tcpi_reord_seen))
        s->reord_seen = ti.tcpi_reord_seen;
    return 0;
}

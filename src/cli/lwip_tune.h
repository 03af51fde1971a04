/* `linkperf lwip-tune`: lwipopts.h values for a link (rate, RTT) and a RAM budget, with the
 * reasoning. The arithmetic is a pure function so the tests can check it. */
#ifndef LP_CLI_LWIP_TUNE_H
#define LP_CLI_LWIP_TUNE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct lp_lwip_link {
    double rate_bps;         /* link rate, bits/s */
    double rtt_s;            /* round-trip time */
    uint32_t mss;            /* TCP_MSS (536..1460) */
    uint64_t ram_bytes;      /* RAM for lwIP's buffers and pools; 0 = no budget */
    double cpu_hz;           /* CPU budget: the board's clock; 0 = none */
    const char *cpu_api;     /* whose cycle estimates (agent/port/lpa_cpu_costs.h); NULL: raw */
};

struct lp_lwip_plan {
    double bdp_bytes, wire_goodput_bps;
    double cpu_cycles_seg, cpu_cap_bps; /* CPU budget: cycles a received segment costs (with
                                         * half an ACK), and the goodput that allows; 0: none */
    double cpu_tx_cycles_seg, cpu_tx_cap_bps; /* the same for a segment the board sends (with
                                               * half an ACK received) */
    uint32_t wnd_segs;                  /* window in segments, as recommended */
    uint32_t tcp_wnd, tcp_snd_buf, tcp_snd_queuelen, memp_num_tcp_seg, memp_num_pbuf;
    uint32_t tcp_snd_lowat;             /* 0: lwIP's default is fine */
    bool lwip_capped;                   /* the link needs more than lwIP can queue */
    bool wnd_scale;                     /* TCP_WND > 65535: needs LWIP_WND_SCALE */
    unsigned rcv_scale;                 /* TCP_RCV_SCALE when wnd_scale */
    uint32_t pbuf_pool_size, pbuf_pool_bufsize, mem_size;
    uint32_t eth_rx_desc, eth_tx_desc;
    uint64_t ram_pool, ram_heap, ram_segs, ram_desc, ram_total;
    bool ram_short;                     /* the budget cannot hold the recommended window */
    /* Then the trade: the largest window that fits with the RX ring cut to what that window
     * needs (0: none), the descriptors it keeps, its RAM and the throughput it allows
     * (window / RTT); and, to show what the cut buys, the largest window next to the full
     * ring (keep_*, 0: none). */
    uint32_t fit_wnd_segs, fit_rx_desc, fit_tx_desc;
    uint64_t fit_ram_total;
    double fit_cap_bps;
    uint32_t keep_wnd_segs;
    double keep_cap_bps;
    bool fitted;                        /* this plan is that fitting window (--fit), not the advice */
    uint32_t need_wnd_segs;             /* then: the window the link needs */
    uint32_t need_rx_desc;              /* and the RX ring it needs */
};

/* Fill plan from link. Returns 0, or -1 if the link is out of range (or cpu_api unknown). A
 * CPU budget below the link's goodput sizes the window for what the CPU can take. */
int lp_lwip_tune(const struct lp_lwip_link *link, struct lp_lwip_plan *plan);
/* The plan cut down to the largest window that fits the RAM budget (link->ram_bytes), with its
 * RX ring cut to match, from a plan that is ram_short. Returns 0, or -1 when not even the
 * smallest window fits. */
int lp_lwip_tune_fit(const struct lp_lwip_link *link, const struct lp_lwip_plan *plan,
                     struct lp_lwip_plan *fitted);
/* Print plan as lwipopts.h lines with the reasoning. */
void lp_lwip_tune_print(FILE *out, const struct lp_lwip_link *link, const struct lp_lwip_plan *plan);
/* What a given configuration delivers (lwip-tune --window / --snd-buf): each direction's cap,
 * one TCP stream: window (send buffer) / RTT, at most the wire's goodput and the CPU's pace. */
struct lp_lwip_given {
    struct lp_lwip_plan plan;           /* the pools and heap the given TCP_WND / TCP_SND_BUF need */
    struct lp_lwip_plan need;           /* the advice for the link without a RAM budget */
    double rx_window_bps, tx_window_bps; /* TCP_WND / RTT and TCP_SND_BUF / RTT */
    double rx_cap_bps, tx_cap_bps;      /* the board receiving / sending: at most this */
    bool rx_by_cpu, tx_by_cpu;          /* the CPU's pace sets the cap */
    bool wnd_default, snd_default;      /* not given: lwIP 2.1's default */
};
/* lwIP 2.1's opt.h defaults, in segments, for the value not given. */
#define LP_LWIP_DEFAULT_WND_SEGS 4u
#define LP_LWIP_DEFAULT_SND_SEGS 2u
/* The largest window lwIP can scale (TCP_RCV_SCALE 14), and the largest send buffer its 16-bit
 * TCP_SND_QUEUELEN (4 pbufs per MSS) can queue. */
#define LP_LWIP_WND_MAX (0xFFFFu << 14)
static inline uint32_t lp_lwip_snd_buf_max(uint32_t mss) { return 0xFFFFu / 4u * mss; }
/* Fill g for window wnd and send buffer snd in bytes (0: lwIP's default). Returns 0, or -1 if
 * the link or a value is out of range (window mss..LP_LWIP_WND_MAX, send buffer 2 x mss..max). */
int lp_lwip_tune_given(const struct lp_lwip_link *link, uint32_t wnd, uint32_t snd, struct lp_lwip_given *g);
void lp_lwip_tune_print_given(FILE *out, const struct lp_lwip_link *link, const struct lp_lwip_given *g);
/* The subcommand: argv[0] is "lwip-tune". Returns the exit status (2 on bad options). */
int lp_lwip_tune_main(int argc, char **argv);

#endif

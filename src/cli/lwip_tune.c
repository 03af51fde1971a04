/* `linkperf lwip-tune` (see lwip_tune.h). The model, for a 32-bit MCU running lwIP 2.1 over
 * Ethernet with a DMA driver that receives into PBUF_POOL buffers (STM32 HAL V2, Zynq
 * standalone, BL706):
 * - the receive window must cover the bandwidth-delay product, plus a quarter for delayed
 *   ACKs and the time the board's own task takes to read, or the sender stalls every RTT;
 * - the send buffer is sized like the window, so the board can also fill the link;
 * - every received segment the application has not read yet sits in a pool pbuf, and the
 *   RX descriptors hold pool pbufs of their own while they wait for frames;
 * - the RX ring must absorb the frames that arrive while the stack is not running: 1 ms of
 *   task latency (a 1 kHz RTOS tick) at line rate;
 * - sent data waits for its ACK in heap (PBUF_RAM) segments;
 * - under a RAM budget window and RX descriptors are traded: a ring one frame larger than
 *   the window cannot overflow (one TCP sender never has more than a window in flight), so
 *   a smaller window needs fewer descriptors, and their pool pbufs go to the window.
 * The costs are lwIP 2.1's structures on a 32-bit target. */
#include "cli/lwip_tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the CPU model's cycle estimates: one table for lwip-tune and the agent's host programs */
#include "../../agent/port/lpa_cpu_costs.h"

#define ETH_OVERHEAD 78u          /* preamble 8 + Ethernet header 14 + FCS 4 + gap 12 + IPv4 20 + TCP 20 */
#define ETH_HLEN 14u
#define IP_TCP_HLEN 40u
#define PBUF_STRUCT 16u           /* struct pbuf on a 32-bit target */
#define TCP_SEG_STRUCT 20u        /* struct tcp_seg */
#define SEG_HEAP_OVERHEAD 72u     /* a PBUF_RAM segment's pbuf, headers and heap alignment */
#define HEAP_SPARE 1600u          /* one full frame for ARP, ICMP and replies */
#define DMA_DESC 32u              /* an Ethernet DMA descriptor (STM32: 4 words + 2 for PTP) */
#define TASK_LATENCY_S 0.001      /* what the RX ring must bridge */
#define WND_HEADROOM 1.25
#define MIN_WND_SEGS 4u
#define MAX_WND_SEGS 16383u       /* TCP_SND_QUEUELEN (4 per segment) is a u16_t in lwIP */

static uint32_t align4(uint32_t v) { return (v + 3u) & ~3u; }
static uint32_t div_up(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

/* The RAM a receive window of wnd bytes and a send buffer of snd bytes need, with everything
 * sized from them (the advice sizes both as the same whole number of segments). */
static void size_for(const struct lp_lwip_link *l, uint32_t wnd, uint32_t snd, struct lp_lwip_plan *p)
{
    uint32_t wnd_segs = div_up(wnd, l->mss);
    p->wnd_segs = wnd_segs;
    p->tcp_wnd = wnd;
    p->tcp_snd_buf = snd;
    /* lwIP's own default: four pbufs per MSS worth of send buffer (small writes). */
    p->tcp_snd_queuelen = div_up(4ull * p->tcp_snd_buf, l->mss);
    /* Segments are also what an out-of-order window is queued in. */
    p->memp_num_tcp_seg = p->tcp_snd_queuelen + wnd_segs;
    /* lwIP's default TCP_SNDLOWAT is half the send buffer, but init.c insists it stays 4 MSS
     * below 16-bit overflow: past a 128 KiB buffer it has to be set. */
    uint32_t lowat = p->tcp_snd_buf / 2 > 2 * l->mss + 1 ? p->tcp_snd_buf / 2 : 2 * l->mss + 1;
    p->tcp_snd_lowat = lowat >= 0xFFFFu - 4 * l->mss ? 0xFFFFu - 4 * l->mss - 1 : 0;
    /* Zero-copy writes (static data) queue a PBUF_ROM/REF header per pbuf from this pool. */
    p->memp_num_pbuf = p->tcp_snd_queuelen;
    p->wnd_scale = p->tcp_wnd > 0xFFFFu;
    p->rcv_scale = 0;
    while (p->wnd_scale && (p->tcp_wnd >> p->rcv_scale) > 0xFFFFu)
        p->rcv_scale++;
    p->pbuf_pool_bufsize = align4(l->mss + IP_TCP_HLEN + ETH_HLEN);
    p->pbuf_pool_size = wnd_segs + p->eth_rx_desc + 4u;
    p->mem_size = (p->tcp_snd_buf + p->tcp_snd_queuelen * SEG_HEAP_OVERHEAD + HEAP_SPARE + 1023u) & ~1023u;
    p->ram_pool = (uint64_t)p->pbuf_pool_size * (p->pbuf_pool_bufsize + PBUF_STRUCT);
    p->ram_heap = p->mem_size;
    p->ram_segs = (uint64_t)p->memp_num_tcp_seg * TCP_SEG_STRUCT + (uint64_t)p->memp_num_pbuf * PBUF_STRUCT;
    p->ram_desc = (uint64_t)(p->eth_rx_desc + p->eth_tx_desc) * DMA_DESC;
    p->ram_total = p->ram_pool + p->ram_heap + p->ram_segs + p->ram_desc;
}

/* What a window of n segments allows: window / RTT, at most the wire's goodput. */
static double window_cap(const struct lp_lwip_link *l, const struct lp_lwip_plan *p, uint32_t n)
{
    double cap = (double)n * l->mss * 8.0 / l->rtt_s;
    return cap > p->wire_goodput_bps ? p->wire_goodput_bps : cap;
}

/* The RX ring a window of n segments needs, at most the full one (full): n + 1 descriptors,
 * at least 4; the TX ring half of it, at least 4, as for the full ring. */
static void cut_ring(const struct lp_lwip_plan *full, uint32_t n, struct lp_lwip_plan *q)
{
    uint32_t rx = n + 1 < 4 ? 4 : n + 1;
    q->eth_rx_desc = rx < full->eth_rx_desc ? rx : full->eth_rx_desc;
    q->eth_tx_desc = q->eth_rx_desc / 2 < 4 ? 4 : q->eth_rx_desc / 2;
}

int lp_lwip_tune(const struct lp_lwip_link *l, struct lp_lwip_plan *p)
{
    memset(p, 0, sizeof(*p));
    if (!(l->rate_bps >= 1e5 && l->rate_bps <= 1e11) || !(l->rtt_s > 0 && l->rtt_s <= 10) || l->mss < 536 ||
        l->mss > 1460)
        return -1;
    double frame_bits = (double)(l->mss + ETH_OVERHEAD) * 8.0;
    p->bdp_bytes = l->rate_bps / 8.0 * l->rtt_s;
    p->wire_goodput_bps = l->rate_bps * (double)l->mss / (double)(l->mss + ETH_OVERHEAD);
    if (l->cpu_hz > 0) {
        const struct lpa_cpu_costs *c = lpa_cpu_costs_find(l->cpu_api ? l->cpu_api : "raw");
        if (!c)
            return -1;
        /* a segment's frame in, and every second segment an ACK out; sending, the reverse */
        double frame = (double)(l->mss + ETH_HLEN + IP_TCP_HLEN), ack = (double)(ETH_HLEN + IP_TCP_HLEN);
        double rx_frame = c->rx_frame + c->rx_byte_milli * frame / 1000.0;
        double tx_frame = c->tx_frame + c->tx_byte_milli * frame / 1000.0;
        p->cpu_cycles_seg = rx_frame + (c->tx_frame + c->tx_byte_milli * ack / 1000.0) / 2.0;
        p->cpu_tx_cycles_seg = tx_frame + (c->rx_frame + c->rx_byte_milli * ack / 1000.0) / 2.0;
        p->cpu_cap_bps = l->cpu_hz / p->cpu_cycles_seg * l->mss * 8.0;
        p->cpu_tx_cap_bps = l->cpu_hz / p->cpu_tx_cycles_seg * l->mss * 8.0;
        if (p->cpu_cap_bps < p->wire_goodput_bps)
            p->bdp_bytes = p->cpu_cap_bps / 8.0 * l->rtt_s; /* in flight at the CPU's pace */
    }
    p->eth_rx_desc = (uint32_t)ceil(TASK_LATENCY_S / (frame_bits / l->rate_bps)) + 1u;
    if (p->eth_rx_desc < 4)
        p->eth_rx_desc = 4;
    p->eth_tx_desc = p->eth_rx_desc / 2 < 4 ? 4 : p->eth_rx_desc / 2;
    double segs = ceil(p->bdp_bytes * WND_HEADROOM / (double)l->mss);
    if (segs > MAX_WND_SEGS) {
        segs = MAX_WND_SEGS;
        p->lwip_capped = true;
    }
    uint32_t want = segs < MIN_WND_SEGS ? MIN_WND_SEGS : (uint32_t)segs;
    size_for(l, want * l->mss, want * l->mss, p);
    if (!l->ram_bytes || p->ram_total <= l->ram_bytes)
        return 0;
    /* The budget is short. Next to the full ring, the largest window that fits (at least 2
     * segments, the smallest lwIP accepts for TCP_SND_BUF); then the same with the ring cut
     * to what each window needs, which is the advice. */
    p->ram_short = true;
    struct lp_lwip_plan fit = *p;
    uint64_t keep_ram = 0;
    for (uint32_t n = want; n >= 2; n--) {
        size_for(l, n * l->mss, n * l->mss, &fit);
        if (fit.ram_total <= l->ram_bytes) {
            p->keep_wnd_segs = n;
            p->keep_cap_bps = window_cap(l, p, n);
            keep_ram = fit.ram_total;
            break;
        }
    }
    for (uint32_t n = want; n > p->keep_wnd_segs && n >= 2; n--) {
        fit = *p;
        cut_ring(p, n, &fit);
        size_for(l, n * l->mss, n * l->mss, &fit);
        if (fit.ram_total <= l->ram_bytes) {
            p->fit_wnd_segs = n;
            p->fit_rx_desc = fit.eth_rx_desc;
            p->fit_tx_desc = fit.eth_tx_desc;
            p->fit_ram_total = fit.ram_total;
            p->fit_cap_bps = window_cap(l, p, n);
            return 0;
        }
    }
    /* Cutting the ring wins no segment: the full ring, which also bridges the task latency. */
    if (p->keep_wnd_segs) {
        p->fit_wnd_segs = p->keep_wnd_segs;
        p->fit_rx_desc = p->eth_rx_desc;
        p->fit_tx_desc = p->eth_tx_desc;
        p->fit_ram_total = keep_ram;
        p->fit_cap_bps = p->keep_cap_bps;
    }
    return 0;
}

int lp_lwip_tune_fit(const struct lp_lwip_link *l, const struct lp_lwip_plan *p, struct lp_lwip_plan *q)
{
    if (!p->ram_short || !p->fit_wnd_segs)
        return -1;
    *q = *p;
    q->eth_rx_desc = p->fit_rx_desc;
    q->eth_tx_desc = p->fit_tx_desc;
    size_for(l, p->fit_wnd_segs * l->mss, p->fit_wnd_segs * l->mss, q);
    q->ram_short = false;
    q->lwip_capped = false;
    q->fitted = true;
    q->need_wnd_segs = p->wnd_segs;
    q->need_rx_desc = p->eth_rx_desc;
    return 0;
}

static void rate_str(char *b, size_t n, double bps)
{
    if (bps >= 1e9)
        snprintf(b, n, "%.3g Gbit/s", bps / 1e9);
    else if (bps >= 1e6)
        snprintf(b, n, "%.3g Mbit/s", bps / 1e6);
    else
        snprintf(b, n, "%.3g kbit/s", bps / 1e3);
}

/* The lwipopts.h lines of plan p: TCP_WND and TCP_SND_BUF with the reason each has that value,
 * everything sized from them with lwIP's rule or the model's. */
static void print_defines(FILE *o, const struct lp_lwip_link *l, const struct lp_lwip_plan *p, const char *wnd_why,
                          const char *snd_why)
{
    fprintf(o, "#define TCP_MSS                %6u /* 1500-byte Ethernet MTU less 40 bytes of IPv4 + TCP headers */\n",
            (unsigned)l->mss);
    if (p->tcp_wnd % l->mss == 0)
        fprintf(o, "#define TCP_WND                %6u /* %u %s */\n", (unsigned)p->tcp_wnd,
                (unsigned)(p->tcp_wnd / l->mss), wnd_why);
    else
        fprintf(o, "#define TCP_WND                %6u /* %.2f %s */\n", (unsigned)p->tcp_wnd,
                (double)p->tcp_wnd / l->mss, wnd_why);
    if (p->wnd_scale) {
        fprintf(o, "#define LWIP_WND_SCALE              1 /* a window over 65535 bytes needs RFC 7323 scaling */\n");
        fprintf(o, "#define TCP_RCV_SCALE          %6u /* TCP_WND >> %u fits the 16-bit header field */\n",
                p->rcv_scale, p->rcv_scale);
    }
    fprintf(o, "#define TCP_SND_BUF            %6u /* %s */\n", (unsigned)p->tcp_snd_buf, snd_why);
    fprintf(o, "#define TCP_SND_QUEUELEN       %6u /* lwIP's rule: 4 x TCP_SND_BUF / TCP_MSS pbufs */\n",
            (unsigned)p->tcp_snd_queuelen);
    fprintf(o, "#define MEMP_NUM_TCP_SEG       %6u /* TCP_SND_QUEUELEN + a window of out-of-order segments */\n",
            (unsigned)p->memp_num_tcp_seg);
    if (p->tcp_snd_lowat)
        fprintf(o, "#define TCP_SNDLOWAT           %6u /* lwIP's default (half the send buffer) passes its 16-bit limit */\n",
                (unsigned)p->tcp_snd_lowat);
    fprintf(o, "#define MEMP_NUM_PBUF          %6u /* a pbuf header per queued pbuf of zero-copy (static) writes */\n",
            (unsigned)p->memp_num_pbuf);
    fprintf(o, "#define PBUF_POOL_BUFSIZE      %6u /* one frame: MSS + 40 + 14, 4-byte aligned */\n",
            (unsigned)p->pbuf_pool_bufsize);
    fprintf(o, "#define PBUF_POOL_SIZE         %6u /* a window not yet read + one per RX descriptor + 4 */\n",
            (unsigned)p->pbuf_pool_size);
    fprintf(o, "#define MEM_SIZE               %6u /* unacknowledged send data + per-segment overhead + 1 frame */\n",
            (unsigned)p->mem_size);
}

/* The DMA descriptor counts are the Ethernet driver's, not lwIP's: a value pasted into
 * lwipopts.h is silently ignored (STM32Cube's driver reads its HAL configuration, and falls
 * back to 4 without it). So they are printed as advice, under the names and in the files
 * where the common HALs keep them. */
static void print_descriptors(FILE *o, const struct lp_lwip_plan *p, const char *rx_why)
{
    unsigned rx = p->eth_rx_desc, tx = p->eth_tx_desc;
    fprintf(o, "\n/* Ethernet DMA descriptors are not lwipopts.h values: the Ethernet driver reads them\n"
               " * where its HAL keeps them (in lwipopts.h they are ignored).\n"
               " *   RX %u: %s\n"
               " *   TX %u: half the RX ring, at least 4\n"
               " *   STM32Cube (HAL ETH driver, F4/F7/H7...), in stm32xxxx_hal_conf.h:\n"
               " *       #define ETH_RX_DESC_CNT %uU\n"
               " *       #define ETH_TX_DESC_CNT %uU\n"
               " *     (the legacy F4/F7 driver: ETH_RXBUFNB %uU, ETH_TXBUFNB %uU there)\n"
               " *   Xilinx standalone lwIP BSP (Zynq, xemacpsif): n_rx_descriptors %u, n_tx_descriptors %u\n"
               " *     (the BSP settings xlwipconfig.h's XLWIP_CONFIG_N_RX_DESC / _N_TX_DESC come from)\n"
               " *   NXP MCUXpresso (enet_ethernetif): ENET_RXBD_NUM %u, ENET_TXBD_NUM %u */\n",
            rx, rx_why, tx, rx, tx, rx, tx, rx, tx, rx, tx);
}

/* Where the RAM goes. */
static void print_ram(FILE *o, const struct lp_lwip_plan *p)
{
    fprintf(o, "\n/* RAM: pbuf pool %llu + heap %llu + segments and pbuf headers %llu + DMA descriptors %llu = %llu bytes",
            (unsigned long long)p->ram_pool, (unsigned long long)p->ram_heap, (unsigned long long)p->ram_segs,
            (unsigned long long)p->ram_desc, (unsigned long long)p->ram_total);
    fprintf(o, "\n * (a driver with its own DMA buffers adds %u bytes per descriptor) */\n", 1536u);
}

void lp_lwip_tune_print(FILE *o, const struct lp_lwip_link *l, const struct lp_lwip_plan *p)
{
    char rate[32], good[32], cap[32];
    rate_str(rate, sizeof(rate), l->rate_bps);
    rate_str(good, sizeof(good), p->wire_goodput_bps);
    fprintf(o, "/* lwIP 2.1 settings for a %s link with a %.3f ms round trip, MSS %u", rate, l->rtt_s * 1e3,
            (unsigned)l->mss);
    if (l->ram_bytes)
        fprintf(o, ", RAM budget %llu bytes", (unsigned long long)l->ram_bytes);
    fprintf(o, " (linkperf lwip-tune) */\n\n");
    char paced[48];
    bool cpu_bound = p->cpu_cap_bps > 0 && p->cpu_cap_bps < p->wire_goodput_bps;
    if (cpu_bound) {
        rate_str(cap, sizeof(cap), p->cpu_cap_bps);
        snprintf(paced, sizeof(paced), "the CPU's %s", cap);
    } else {
        snprintf(paced, sizeof(paced), "%s", rate);
    }
    fprintf(o, "/* bandwidth-delay product: %s x %.3f ms = %.0f bytes = %.1f segments of %u\n", paced,
            l->rtt_s * 1e3, p->bdp_bytes, p->bdp_bytes / l->mss, (unsigned)l->mss);
    fprintf(o, " * TCP goodput ceiling on the wire: %s (%u payload bytes per %u on the wire) */\n\n", good,
            (unsigned)l->mss, (unsigned)(l->mss + ETH_OVERHEAD));
    if (p->cpu_cap_bps > 0) {
        char cpu[32], tx[32];
        rate_str(cpu, sizeof(cpu), p->cpu_cap_bps);
        rate_str(tx, sizeof(tx), p->cpu_tx_cap_bps);
        fprintf(o, "/* CPU budget: %.0f MHz, %s API: about %.0f cycles per received segment (an estimate:\n"
                   " * agent/README.md) allow %s of TCP, %s;\n"
                   " * about %.0f per sent segment allow %s of TCP from the board, %s */\n\n",
                l->cpu_hz / 1e6, l->cpu_api ? l->cpu_api : "raw", p->cpu_cycles_seg, cpu,
                p->cpu_cap_bps < p->wire_goodput_bps ? "below the wire's: the window is sized for it"
                                                     : "above the wire's: the link is the limit",
                p->cpu_tx_cycles_seg, tx,
                p->cpu_tx_cap_bps >= p->wire_goodput_bps ? "above the wire's"
                : p->cpu_tx_cap_bps <= p->cpu_cap_bps    ? "the send buffer (as the window) covers its pace"
                                                         : "below the wire's, above the window's pace");
    }
    print_defines(o, l, p,
                  p->fitted ? "x MSS: the largest window the RAM budget holds"
                            : "x MSS: the BDP + 25% (delayed ACKs, the reading task)",
                  "as the window, so the board can fill the link too");
    print_descriptors(o, p,
                      p->fitted && p->eth_rx_desc < p->need_rx_desc
                          ? "the window + 1: more frames than that are never in flight"
                          : "frames arriving in 1 ms of task latency at line rate, + 1");
    if (p->lwip_capped)
        fprintf(o, "\n/* NOTE: this link needs a larger window than lwIP can queue (TCP_SND_QUEUELEN is\n"
                   " * 16 bits): %u segments at most, so TCP tops out near window / RTT. */\n",
                (unsigned)MAX_WND_SEGS);
    print_ram(o, p);
    if (p->fitted) {
        rate_str(cap, sizeof(cap), p->fit_cap_bps);
        fprintf(o, "\n/* WARNING: this window is smaller than the link needs (%u x MSS): it caps TCP at\n"
                   " * about %s (window / RTT) on this link. */\n",
                (unsigned)p->need_wnd_segs, cap);
    }
    if (!p->ram_short)
        return;
    fprintf(o, "\n/* WARNING: the RAM budget (%llu bytes) cannot hold the window this link needs.\n",
            (unsigned long long)l->ram_bytes);
    if (!p->fit_wnd_segs) {
        fprintf(o, " * Not even a 2-segment window fits, with the RX ring cut to 4 descriptors: give lwIP\n"
                   " * more RAM. */\n");
        return;
    }
    rate_str(cap, sizeof(cap), p->fit_cap_bps);
    if (p->fit_rx_desc == p->eth_rx_desc) { /* a smaller ring would not hold more window */
        fprintf(o, " * The largest that fits is TCP_WND = TCP_SND_BUF = %u (%u x MSS, %llu bytes of RAM),\n"
                   " * which caps TCP at about %s (window / RTT) on this link. */\n",
                (unsigned)(p->fit_wnd_segs * l->mss), (unsigned)p->fit_wnd_segs,
                (unsigned long long)p->fit_ram_total, cap);
        return;
    }
    fprintf(o, " * What fits, window traded against RX descriptors (a ring one frame larger than the\n"
               " * window cannot overflow: a TCP sender never has more than a window in flight):\n");
    if (p->keep_wnd_segs) {
        char kcap[32];
        rate_str(kcap, sizeof(kcap), p->keep_cap_bps);
        fprintf(o, " * - the full RX ring (%u descriptors): TCP_WND = %u (%u x MSS), about %s;\n",
                (unsigned)p->eth_rx_desc, (unsigned)(p->keep_wnd_segs * l->mss), (unsigned)p->keep_wnd_segs,
                kcap);
    } else {
        fprintf(o, " * - the full RX ring (%u descriptors): not even a 2-segment window fits;\n",
                (unsigned)p->eth_rx_desc);
    }
    fprintf(o, " * - ETH_RX_DESC_CNT %u, ETH_TX_DESC_CNT %u: the largest that fits is TCP_WND = TCP_SND_BUF = %u\n"
               " *   (%u x MSS, %llu bytes of RAM), which caps TCP at about %s (window / RTT) on\n"
               " *   this link. --fit prints that configuration. */\n",
            (unsigned)p->fit_rx_desc, (unsigned)p->fit_tx_desc, (unsigned)(p->fit_wnd_segs * l->mss),
            (unsigned)p->fit_wnd_segs, (unsigned long long)p->fit_ram_total, cap);
}

int lp_lwip_tune_given(const struct lp_lwip_link *l, uint32_t wnd, uint32_t snd, struct lp_lwip_given *g)
{
    memset(g, 0, sizeof(*g));
    struct lp_lwip_link unbudgeted = *l;
    unbudgeted.ram_bytes = 0; /* the advice is what the link needs, whatever RAM there is */
    if (lp_lwip_tune(&unbudgeted, &g->need) < 0)
        return -1;
    g->wnd_default = wnd == 0;
    g->snd_default = snd == 0;
    if (g->wnd_default)
        wnd = LP_LWIP_DEFAULT_WND_SEGS * l->mss;
    if (g->snd_default)
        snd = LP_LWIP_DEFAULT_SND_SEGS * l->mss;
    if (wnd < l->mss || wnd > LP_LWIP_WND_MAX || snd < 2 * l->mss || snd > lp_lwip_snd_buf_max(l->mss))
        return -1;
    g->plan = g->need; /* the ring and the CPU's estimates are the link's */
    g->plan.lwip_capped = false;
    size_for(l, wnd, snd, &g->plan);
    double rx = (double)wnd * 8.0 / l->rtt_s, tx = (double)snd * 8.0 / l->rtt_s;
    g->rx_window_bps = rx;
    g->tx_window_bps = tx;
    double wire = g->need.wire_goodput_bps;
    g->rx_cap_bps = rx < wire ? rx : wire;
    g->tx_cap_bps = tx < wire ? tx : wire;
    if (g->need.cpu_cap_bps > 0 && g->need.cpu_cap_bps < g->rx_cap_bps) {
        g->rx_cap_bps = g->need.cpu_cap_bps;
        g->rx_by_cpu = true;
    }
    if (g->need.cpu_tx_cap_bps > 0 && g->need.cpu_tx_cap_bps < g->tx_cap_bps) {
        g->tx_cap_bps = g->need.cpu_tx_cap_bps;
        g->tx_by_cpu = true;
    }
    return 0;
}

/* One direction's line: the cap and what sets it, then what filling the link takes. */
static void print_direction(FILE *o, const char *who, const char *name, double cap, double window_bps, bool by_cpu,
                            double wire, uint32_t need, uint32_t mss)
{
    char c[32], w[32], g[32];
    rate_str(c, sizeof(c), cap);
    rate_str(w, sizeof(w), window_bps);
    rate_str(g, sizeof(g), wire);
    if (by_cpu)
        fprintf(o, " * %s: at most %s, the CPU's pace\n *   (%s / RTT would allow %s)\n", who, c, name, w);
    else if (window_bps > wire)
        fprintf(o, " * %s: at most %s, the wire's TCP goodput\n *   (%s / RTT would allow %s)\n", who, c, name, w);
    else
        fprintf(o, " * %s: at most %s = %s / RTT,\n"
                   " *   %.0f %% of the wire's %s of TCP goodput; filling it takes %s = %u (%u x MSS)\n",
                who, c, name, cap / wire * 100.0, g, name, (unsigned)need, (unsigned)(need / mss));
}

void lp_lwip_tune_print_given(FILE *o, const struct lp_lwip_link *l, const struct lp_lwip_given *g)
{
    const struct lp_lwip_plan *p = &g->plan;
    char rate[32];
    rate_str(rate, sizeof(rate), l->rate_bps);
    fprintf(o, "/* What TCP_WND %u and TCP_SND_BUF %u deliver on a %s link with a %.3f ms round trip, MSS %u",
            (unsigned)p->tcp_wnd, (unsigned)p->tcp_snd_buf, rate, l->rtt_s * 1e3, (unsigned)l->mss);
    if (l->ram_bytes)
        fprintf(o, ", RAM budget %llu bytes", (unsigned long long)l->ram_bytes);
    fprintf(o, " (linkperf lwip-tune) */\n\n");
    bool cpu_bound = g->need.cpu_cap_bps > 0 && g->need.cpu_cap_bps < g->need.wire_goodput_bps;
    fprintf(o, "/* bandwidth-delay product: %.0f bytes%s; an upper bound for each direction, one TCP stream:\n",
            g->need.bdp_bytes, cpu_bound ? " (at the CPU's pace)" : "");
    print_direction(o, "the board receiving (the PC sends)", "TCP_WND", g->rx_cap_bps, g->rx_window_bps, g->rx_by_cpu,
                    g->need.wire_goodput_bps, g->need.tcp_wnd, l->mss);
    print_direction(o, "the board sending", "TCP_SND_BUF", g->tx_cap_bps, g->tx_window_bps, g->tx_by_cpu,
                    g->need.wire_goodput_bps, g->need.tcp_snd_buf, l->mss);
    fprintf(o, " * What this configuration needs, by lwIP's rules and the model of --help: */\n\n");
    print_defines(o, l, p, g->wnd_default ? "x MSS: lwIP's default (not given)" : "x MSS: as given",
                  g->snd_default ? "lwIP's default, 2 x MSS (not given)" : "as given");
    print_descriptors(o, p, "frames arriving in 1 ms of task latency at line rate, + 1");
    print_ram(o, p);
    if (!l->ram_bytes)
        return;
    if (p->ram_total <= l->ram_bytes)
        fprintf(o, "\n/* It fits the RAM budget of %llu bytes (%llu to spare). */\n", (unsigned long long)l->ram_bytes,
                (unsigned long long)(l->ram_bytes - p->ram_total));
    else
        fprintf(o, "\n/* WARNING: it needs %llu bytes more than the RAM budget of %llu bytes. */\n",
                (unsigned long long)(p->ram_total - l->ram_bytes), (unsigned long long)l->ram_bytes);
}

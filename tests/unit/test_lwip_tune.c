/* linkperf lwip-tune: the arithmetic for known links, lwIP 2.1's own sanity rules (init.c)
 * held over a grid of links, and the RAM-budget warning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "cli/lwip_tune.h"

static void hundred_megabit_two_ms(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 100e6, .rtt_s = 0.002, .mss = 1460};
    struct lp_lwip_plan p;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_true(fabs(p.bdp_bytes - 25000.0) < 1e-6);
    /* 25000 x 1.25 / 1460 = 21.4 -> 22 segments */
    assert_int_equal(p.wnd_segs, 22);
    assert_int_equal(p.tcp_wnd, 22 * 1460);
    assert_int_equal(p.tcp_snd_buf, p.tcp_wnd);
    assert_int_equal(p.tcp_snd_queuelen, 88);
    assert_false(p.wnd_scale);
    /* a 1538-byte frame every 123 us: 1 ms of latency is 9 frames, + 1 */
    assert_int_equal(p.eth_rx_desc, 10);
    assert_int_equal(p.pbuf_pool_bufsize, 1516);
    assert_int_equal(p.pbuf_pool_size, 22 + 10 + 4);
    /* 94.9 Mbit/s of TCP payload on a 100 Mbit/s wire */
    assert_true(fabs(p.wire_goodput_bps - 100e6 * 1460 / 1538) < 1.0);
    assert_false(p.ram_short);
}

static void gigabit_needs_window_scaling(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 1e9, .rtt_s = 0.001, .mss = 1460};
    struct lp_lwip_plan p;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_true(p.tcp_wnd > 0xFFFF);
    assert_true(p.wnd_scale);
    assert_true((p.tcp_wnd >> p.rcv_scale) <= 0xFFFF);
    assert_true(p.rcv_scale == 0 || (p.tcp_wnd >> (p.rcv_scale - 1)) > 0xFFFF);
}

static void ram_budget_too_small(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 100e6, .rtt_s = 0.002, .mss = 1460, .ram_bytes = 32768};
    struct lp_lwip_plan p;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_true(p.ram_short);
    assert_true(p.ram_total > l.ram_bytes);      /* the recommendation itself does not fit */
    assert_true(p.fit_wnd_segs >= 2 && p.fit_wnd_segs < p.wnd_segs);
    assert_true(p.fit_ram_total <= l.ram_bytes);
    /* the cap is the window over the RTT */
    assert_true(fabs(p.fit_cap_bps - p.fit_wnd_segs * 1460.0 * 8 / 0.002) < 1.0);
    /* one more segment would not have fitted */
    struct lp_lwip_link more = l;
    more.ram_bytes = p.fit_ram_total;
    struct lp_lwip_plan q;
    assert_int_equal(lp_lwip_tune(&more, &q), 0);
    assert_int_equal(q.fit_wnd_segs, p.fit_wnd_segs);
    /* with enough RAM there is no warning */
    l.ram_bytes = p.ram_total;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_false(p.ram_short);
}

/* A CPU budget: at 20 MHz the raw path's estimate (lpa_cpu_costs.h: 1020 + 3.36/byte in,
 * 1890 + 3.7/byte per ACK every second segment: 7152 cycles a 1460-byte segment) allows 32.7
 * Mbit/s, below a 100 Mbit/s link's 94.9: the window is sized for the CPU's pace, smaller than
 * the link's; at 168 MHz the link stays the limit and the window is the link's. */
static void cpu_budget_sizes_window(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 100e6, .rtt_s = 0.01, .mss = 1460};
    struct lp_lwip_plan link_only, slow, fast;
    assert_int_equal(lp_lwip_tune(&l, &link_only), 0);
    assert_true(link_only.cpu_cap_bps == 0);
    l.cpu_hz = 20e6;
    assert_int_equal(lp_lwip_tune(&l, &slow), 0);
    double cycles = 1020 + 3.36 * 1514 + (1890 + 3.7 * 54) / 2;
    assert_true(fabs(slow.cpu_cycles_seg - cycles) < 0.01);
    assert_true(fabs(slow.cpu_cap_bps - 20e6 / cycles * 1460 * 8) < 1.0);
    assert_true(fabs(slow.bdp_bytes - slow.cpu_cap_bps / 8 * 0.01) < 1.0);
    assert_true(slow.wnd_segs < link_only.wnd_segs);
    /* Sending: 1890 + 3.7/byte out, an ACK in every second segment: slower than receiving, so
     * the send buffer (as large as the window) holds what the CPU can keep in flight. */
    double tx_cycles = 1890 + 3.7 * 1514 + (1020 + 3.36 * 54) / 2;
    assert_true(fabs(slow.cpu_tx_cycles_seg - tx_cycles) < 0.01);
    assert_true(fabs(slow.cpu_tx_cap_bps - 20e6 / tx_cycles * 1460 * 8) < 1.0);
    assert_true(slow.cpu_tx_cap_bps < slow.cpu_cap_bps);
    assert_true(slow.tcp_snd_buf >= slow.cpu_tx_cap_bps / 8 * 0.01);
    l.cpu_hz = 168e6;
    assert_int_equal(lp_lwip_tune(&l, &fast), 0);
    assert_true(fast.cpu_cap_bps > fast.wire_goodput_bps);
    assert_int_equal(fast.wnd_segs, link_only.wnd_segs);
    /* socket costs more than raw; an unknown API is refused */
    l.cpu_api = "socket";
    assert_int_equal(lp_lwip_tune(&l, &fast), 0);
    assert_true(fast.cpu_cycles_seg > slow.cpu_cycles_seg);
    l.cpu_api = "lwip";
    assert_int_equal(lp_lwip_tune(&l, &fast), -1);
}

/* A budget too small for the full RX ring still gets a window: the ring is cut to the window
 * + 1 descriptors (1 Gbit/s, 0.5 ms, 48 KiB: the full ring is 83 descriptors, 127 KiB of pool
 * alone, and before the trade the advisor said nothing fits). */
static void ram_trades_ring_for_window(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 1e9, .rtt_s = 0.0005, .mss = 1460, .ram_bytes = 48 * 1024};
    struct lp_lwip_plan p, q;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_true(p.ram_short);
    assert_int_equal(p.keep_wnd_segs, 0);         /* nothing fits next to the full ring */
    assert_true(p.fit_wnd_segs >= 2);
    assert_int_equal(p.fit_rx_desc, p.fit_wnd_segs + 1);
    assert_true(p.fit_rx_desc < p.eth_rx_desc);
    assert_int_equal(p.fit_tx_desc, 4);
    assert_true(p.fit_ram_total <= l.ram_bytes);
    assert_true(fabs(p.fit_cap_bps - p.fit_wnd_segs * 1460.0 * 8 / 0.0005) < 1.0);
    /* --fit: the configuration printed is that one, and its RAM is what the plan said */
    assert_int_equal(lp_lwip_tune_fit(&l, &p, &q), 0);
    assert_int_equal(q.eth_rx_desc, p.fit_rx_desc);
    assert_int_equal(q.pbuf_pool_size, p.fit_wnd_segs + p.fit_rx_desc + 4);
    assert_int_equal(q.ram_total, p.fit_ram_total);
    /* one more segment, with its descriptor, would not have fitted */
    struct lp_lwip_link tight = l;
    tight.ram_bytes = p.fit_ram_total;
    assert_int_equal(lp_lwip_tune(&tight, &q), 0);
    assert_int_equal(q.fit_wnd_segs, p.fit_wnd_segs);
    /* where the full ring leaves room for a window, the trade is never worse */
    struct lp_lwip_link slow = {.rate_bps = 100e6, .rtt_s = 0.002, .mss = 1460, .ram_bytes = 32768};
    assert_int_equal(lp_lwip_tune(&slow, &q), 0);
    assert_true(q.keep_wnd_segs >= 2 && q.fit_wnd_segs >= q.keep_wnd_segs);
}

/* --fit: the plan cut to the fitting window is a whole, consistent configuration. */
static void fit_plan_fits(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 100e6, .rtt_s = 0.010, .mss = 1460, .ram_bytes = 48 * 1024};
    struct lp_lwip_plan p, q;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_true(p.ram_short);
    assert_int_equal(lp_lwip_tune_fit(&l, &p, &q), 0);
    assert_true(q.fitted);
    assert_false(q.ram_short);
    assert_int_equal(q.wnd_segs, p.fit_wnd_segs);
    assert_int_equal(q.need_wnd_segs, p.wnd_segs);
    assert_int_equal(q.tcp_wnd, p.fit_wnd_segs * 1460);
    assert_int_equal(q.ram_total, p.fit_ram_total);
    assert_true(q.ram_total <= l.ram_bytes);
    assert_true(q.tcp_snd_queuelen >= 2 * (q.tcp_snd_buf / l.mss));
    assert_true(q.memp_num_tcp_seg >= q.tcp_snd_queuelen);
    assert_true((uint64_t)q.tcp_wnd <= (uint64_t)q.pbuf_pool_size * (q.pbuf_pool_bufsize - 54));
    /* a plan that fits already has nothing to cut */
    l.ram_bytes = 0;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_int_equal(lp_lwip_tune_fit(&l, &p, &q), -1);
}

/* lwIP's compile-time checks (src/core/init.c) must hold for every recommendation. */
static void lwip_sanity_rules_hold(void **state)
{
    (void)state;
    const double rates[] = {1e6, 10e6, 100e6, 1e9, 10e9};
    const double rtts[] = {0.0001, 0.001, 0.002, 0.02, 0.2};
    const unsigned msss[] = {536, 1200, 1460};
    for (size_t a = 0; a < 5; a++)
        for (size_t b = 0; b < 5; b++)
            for (size_t c = 0; c < 3; c++) {
                struct lp_lwip_link l = {.rate_bps = rates[a], .rtt_s = rtts[b], .mss = msss[c]};
                struct lp_lwip_plan p;
                assert_int_equal(lp_lwip_tune(&l, &p), 0);
                assert_true(p.tcp_wnd >= 4 * l.mss);                                  /* >= 4 MSS */
                assert_true(p.tcp_snd_buf >= 2 * l.mss);                              /* TCP_SND_BUF >= 2*MSS */
                assert_true(p.tcp_snd_queuelen >= 2 * (p.tcp_snd_buf / l.mss));       /* queue vs buffer */
                assert_true(p.tcp_snd_queuelen <= 0xFFFF);
                assert_true(p.memp_num_tcp_seg >= p.tcp_snd_queuelen);                /* segs vs queue */
                assert_true((p.tcp_wnd >> p.rcv_scale) <= 0xFFFF);                    /* header field */
                assert_true((uint64_t)p.tcp_wnd <=                                    /* pool holds a window */
                            (uint64_t)p.pbuf_pool_size * (p.pbuf_pool_bufsize - 54));
                assert_true(p.mem_size >= p.tcp_snd_buf);
                {   /* TCP_SNDLOWAT (set, or lwIP's default) stays 4 MSS below 16 bits */
                    uint32_t lowat = p.tcp_snd_lowat;
                    if (!lowat)
                        lowat = p.tcp_snd_buf / 2 > 2 * l.mss + 1 ? p.tcp_snd_buf / 2 : 2 * l.mss + 1;
                    assert_true(lowat < 0xFFFFu - 4 * l.mss);
                }
                if (!p.lwip_capped)                                                   /* covers the BDP */
                    assert_true(p.bdp_bytes * 1.25 <= p.tcp_wnd + l.mss);
                else
                    assert_int_equal(p.wnd_segs, 16383);
            }
}

static void out_of_range(void **state)
{
    (void)state;
    struct lp_lwip_plan p;
    struct lp_lwip_link bad[] = {
        {.rate_bps = 0, .rtt_s = 0.002, .mss = 1460},
        {.rate_bps = 100e6, .rtt_s = 0, .mss = 1460},
        {.rate_bps = 100e6, .rtt_s = 0.002, .mss = 100},
        {.rate_bps = 100e6, .rtt_s = 0.002, .mss = 9000},
        {.rate_bps = NAN, .rtt_s = 0.002, .mss = 1460},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(lp_lwip_tune(&bad[i], &p), -1);
}

/* --window 8mss on 100 Mbit/s, 2 ms: the board receives at most 8 x 1460 x 8 / 2 ms; the send
 * buffer not given is lwIP's 2 x MSS; the pools follow the given window, not the advice. */
static void given_window_caps_and_needs(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 100e6, .rtt_s = 0.002, .mss = 1460};
    struct lp_lwip_given g;
    assert_int_equal(lp_lwip_tune_given(&l, 8 * 1460, 0, &g), 0);
    assert_true(fabs(g.rx_cap_bps - 8 * 1460 * 8 / 0.002) < 1.0);
    assert_true(g.snd_default && !g.wnd_default);
    assert_int_equal(g.plan.tcp_snd_buf, 2 * 1460);
    assert_true(fabs(g.tx_cap_bps - 2 * 1460 * 8 / 0.002) < 1.0);
    assert_int_equal(g.plan.tcp_wnd, 8 * 1460);
    assert_int_equal(g.plan.pbuf_pool_size, 8 + g.plan.eth_rx_desc + 4);
    assert_int_equal(g.plan.tcp_snd_queuelen, 8);
    assert_int_equal(g.need.tcp_wnd, 22 * 1460); /* what filling the link takes */
    /* a window past the BDP: the wire's goodput is the cap */
    assert_int_equal(lp_lwip_tune_given(&l, 64 * 1024, 64 * 1024, &g), 0);
    assert_true(fabs(g.rx_cap_bps - g.need.wire_goodput_bps) < 1.0);
    assert_true(g.plan.wnd_scale);
    /* the same window as the advice needs the same RAM */
    struct lp_lwip_plan p;
    assert_int_equal(lp_lwip_tune(&l, &p), 0);
    assert_int_equal(lp_lwip_tune_given(&l, p.tcp_wnd, p.tcp_snd_buf, &g), 0);
    assert_int_equal(g.plan.ram_total, p.ram_total);
    /* out of lwIP's range */
    assert_int_equal(lp_lwip_tune_given(&l, 1000, 0, &g), -1);
    assert_int_equal(lp_lwip_tune_given(&l, 0, 1460, &g), -1);
    assert_int_equal(lp_lwip_tune_given(&l, 0, lp_lwip_snd_buf_max(1460) + 1, &g), -1);
}

/* A CPU slower than the window allows is the cap, each way with its own estimate. */
static void given_window_cpu_bound(void **state)
{
    (void)state;
    struct lp_lwip_link l = {.rate_bps = 100e6, .rtt_s = 0.002, .mss = 1460, .cpu_hz = 48e6, .cpu_api = "socket"};
    struct lp_lwip_given g;
    assert_int_equal(lp_lwip_tune_given(&l, 64 * 1024, 64 * 1024, &g), 0);
    assert_true(g.rx_by_cpu && g.tx_by_cpu);
    assert_true(fabs(g.rx_cap_bps - g.need.cpu_cap_bps) < 1.0);
    assert_true(fabs(g.tx_cap_bps - g.need.cpu_tx_cap_bps) < 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hundred_megabit_two_ms), cmocka_unit_test(gigabit_needs_window_scaling),
        cmocka_unit_test(ram_budget_too_small),   cmocka_unit_test(lwip_sanity_rules_hold),
        cmocka_unit_test(out_of_range), cmocka_unit_test(fit_plan_fits),
        cmocka_unit_test(ram_trades_ring_for_window),
        cmocka_unit_test(cpu_budget_sizes_window), cmocka_unit_test(given_window_caps_and_needs),
        cmocka_unit_test(given_window_cpu_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* iperf2 --isochronous frame arithmetic (see frames.h). */
#include "stats/frames.h"

#include <math.h>

uint32_t lp_frame_size(double mean_bytes, double stdev_bytes, double z)
{
    if (!(mean_bytes > 0))
        return 1;
    /* The lognormal whose mean and standard deviation are the given ones. */
    double m2 = mean_bytes * mean_bytes;
    double v = stdev_bytes * stdev_bytes;
    double mu = log(m2 / sqrt(v + m2));
    double sigma = sqrt(log(1.0 + v / m2));
    double b = exp(mu + sigma * z);
    if (!(b >= 1))
        return 1;
    if (b >= 4294967295.0)
        return UINT32_MAX;
    return (uint32_t)b; /* truncated, as 2.1.8's int conversion */
}

double lp_frame_normal(double u1, double u2)
{
    const double two_pi = 6.283185307179586;
    if (!(u1 > 0))
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(two_pi * u2);
}

uint32_t lp_frame_dgram_len(uint32_t remaining, uint32_t blksize)
{
    uint32_t len = remaining < blksize ? remaining : blksize;
    if (len < LP_FRAME_MIN_DGRAM)
        len = LP_FRAME_MIN_DGRAM;
    return len;
}

uint32_t lp_frame_dgrams(uint32_t size, uint32_t blksize)
{
    if (!blksize)
        return 1;
    uint32_t n = size / blksize + (size % blksize ? 1u : 0u);
    return n ? n : 1;
}

uint64_t lp_frame_due(struct lp_frame_tx *c, uint64_t next_id, uint64_t elapsed_ns, uint64_t period_ns)
{
    /* Frame k (from 1) owns [(k-1) period, k period). */
    uint64_t now_id = period_ns ? elapsed_ns / period_ns + 1 : next_id;
    if (now_id > next_id) {
        c->miss += now_id - next_id;
        c->slip++;
        next_id = now_id;
    }
    c->tx++;
    return next_id;
}

void lp_frame_rx_init(struct lp_frame_rx *r)
{
    *r = (struct lp_frame_rx){0};
}

static void close_frame(struct lp_frame_rx *r)
{
    if (!r->cur_id)
        return;
    if (r->cur_done && !r->cur_broken)
        r->rx++;
    else
        r->lost++;
}

bool lp_frame_rx_add(struct lp_frame_rx *r, uint64_t id, uint64_t prev_id, uint32_t size, uint32_t remaining,
                     uint32_t len)
{
    if (id == 0 || id < r->cur_id)
        return false; /* the header datagram, or a late one of a frame already counted */
    if (id != r->cur_id) {
        if (r->cur_id && !r->cur_done)
            close_frame(r); /* it never got its last datagram: lost */
        /* Ids the sender skipped (it ran late: its miss count) were never sent; the block
         * names the frame sent before this one, so a gap there is a frame of which nothing
         * arrived (one at least: what was sent before it is not known). */
        if (r->cur_id && prev_id > r->cur_id)
            r->lost++;
        r->cur_id = id;
        r->cur_done = false;
        /* A frame's first datagram carries remaining == its size: else its first ones were
         * lost. */
        r->cur_broken = remaining != size;
        r->expect_remaining = remaining;
    } else if (r->cur_done) {
        return false; /* a copy */
    }
    /* 2.1.8 pads a last piece under LP_FRAME_MIN_DGRAM and writes the padded length there. */
    bool padded_last = r->expect_remaining < LP_FRAME_MIN_DGRAM && remaining == LP_FRAME_MIN_DGRAM;
    if (remaining != r->expect_remaining && !padded_last)
        r->cur_broken = true;
    if (remaining <= len) {
        r->cur_done = true;
        close_frame(r);
        return !r->cur_broken;
    }
    r->expect_remaining = remaining - len;
    return false;
}

void lp_frame_rx_end(struct lp_frame_rx *r)
{
    if (r->cur_id && !r->cur_done)
        close_frame(r);
    r->cur_done = true;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

struct lp_frame_counts lp_frame_counts_delta(const struct lp_frame_counts *now, const struct lp_frame_counts *then)
{
    struct lp_frame_counts d = {.on = now->on};
    if (!now->on)
        return d;
    d.tx = minus(now->tx, then->tx);
    d.miss = minus(now->miss, then->miss);
    d.slip = minus(now->slip, then->slip);
    d.rx = minus(now->rx, then->rx);
    d.lost = minus(now->lost, then->lost);
    return d;
}

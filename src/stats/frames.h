/* iperf2 --isochronous frames, the arithmetic: a frame's size drawn as iperf 2.1.8 draws it,
 * how a frame is cut into datagrams, which frame a moment belongs to, and the receiver's
 * frame counting (a frame is lost when any datagram of it is). Pure: the caller owns the
 * clock and the random numbers. */
#ifndef LP_STATS_FRAMES_H
#define LP_STATS_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "linkperf/record.h"

/* The smallest datagram of a frame: 2.1.8 pads a frame's last piece to the headers and its
 * frame block (U+0..107). */
#define LP_FRAME_MIN_DGRAM 108u

/* A frame's size in bytes: a lognormal of mean_bytes and stdev_bytes (the per-frame share of
 * the mean and stdev rates), evaluated at the standard normal deviate z and truncated to an
 * integer as 2.1.8 does (so a mean of 1250 bytes and stdev 0 gives 1249: exp(log(1250)) is
 * 1249.9999...). At least 1. */
uint32_t lp_frame_size(double mean_bytes, double stdev_bytes, double z);

/* A standard normal deviate from two uniform numbers in (0, 1] (Box-Muller). */
double lp_frame_normal(double u1, double u2);

/* The length of the datagram that carries the frame's next bytes when remaining are left and
 * datagrams are blksize long: all of blksize, or what is left padded to LP_FRAME_MIN_DGRAM
 * (and to at most blksize when blksize is smaller). */
uint32_t lp_frame_dgram_len(uint32_t remaining, uint32_t blksize);

/* Datagrams a frame of size bytes takes at blksize: ceil(size / blksize), at least 1. */
uint32_t lp_frame_dgrams(uint32_t size, uint32_t blksize);

/* The sender's frame count (2.1.8's isoch:tx/miss/slip). */
struct lp_frame_tx {
    uint64_t tx;       /* frames sent */
    uint64_t miss;     /* frame ids skipped: their period was over before the sender could start */
    uint64_t slip;     /* frames that started late, past their own period */
};

/* The frame a sender at elapsed_ns since the first frame starts now, when next_id is the
 * next id due and period_ns the frame period: next_id itself, or a later one when the sender
 * is late by whole periods (the skipped ids count as missed, the start as a slip). */
uint64_t lp_frame_due(struct lp_frame_tx *c, uint64_t next_id, uint64_t elapsed_ns, uint64_t period_ns);

/* The receiver's count from the frame block of each datagram: a frame is received when all of
 * its datagrams arrived (the one whose remaining bytes equal its own length ends it), lost
 * when a datagram of it is missing or its id was skipped. */
struct lp_frame_rx {
    uint64_t rx, lost;
    uint64_t cur_id;        /* frame being read (0: none yet) */
    uint32_t expect_remaining; /* the remaining field the next datagram of it should carry */
    bool cur_broken;        /* a datagram of cur_id is missing */
    bool cur_done;          /* cur_id's last datagram was seen */
};

void lp_frame_rx_init(struct lp_frame_rx *r);
/* One datagram of frame id (len bytes, its block's previous frame id, burst size and
 * remaining fields), in arrival order. A frame of which nothing arrived counts as lost when
 * the next one names it as its previous (ids the sender skipped were never sent).
 * Ids 0 (the header datagram) are not frames. Returns true if a frame completed. */
bool lp_frame_rx_add(struct lp_frame_rx *r, uint64_t id, uint64_t prev_id, uint32_t size, uint32_t remaining,
                     uint32_t len);
/* The end of the flow: a frame still incomplete is lost. */
void lp_frame_rx_end(struct lp_frame_rx *r);

/* The frames counted between two readings (a row's, or a test's from its base). */
struct lp_frame_counts lp_frame_counts_delta(const struct lp_frame_counts *now, const struct lp_frame_counts *then);

#endif

/* Link emulation between lwIP and the TAP device: rate (serialization with a drop-tail
 * queue), fixed one-way delay and random loss, per direction, with exact counters.
 * No lwIP and no I/O in here: lpa_tapif feeds frames in and delivers what comes out. */
#ifndef LPA_LINK_H
#define LPA_LINK_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum { LPA_LINK_TX = 0, LPA_LINK_RX = 1 };      /* TX: lwIP -> wire, RX: wire -> lwIP */
#define LPA_LINK_LOSS_TX 1u
#define LPA_LINK_LOSS_RX 2u

/* Frames are never larger than this (1514-byte Ethernet frame plus VLAN tag, rounded). */
#define LPA_LINK_FRAME_MAX 1536u
/* Whatever the settings, one direction never holds more than this many bytes of frames
 * (queue + delay line): a fast sender into a long unlimited-rate delay is bounded too. */
#define LPA_LINK_HOLD_MAX (64u * 1024u * 1024u)

/* CPU model: the board's CPU spends frame[d] + byte_milli[d] * len / 1000 cycles on every
 * frame of direction d (TX: producing a frame lwIP sends, RX: taking one in and up to the
 * application), at hz cycles per second; one CPU for both directions. */
struct lpa_link_cpu {
  uint64_t hz;              /* 0: no CPU model (the host's CPU is the board's) */
  uint32_t frame[2];
  uint32_t byte_milli[2];
};

struct lpa_link_cfg {
  uint64_t rate_bps;        /* 0: no rate limit */
  uint64_t delay_ns;        /* added to every frame, each direction (RTT = 2 x delay) */
  uint32_t loss_ppm;        /* drop probability in parts per million */
  unsigned loss_dirs;       /* LPA_LINK_LOSS_TX | LPA_LINK_LOSS_RX */
  uint64_t loss_seed;
  uint64_t queue_bytes;     /* drop-tail limit of the rate queue; 0: 100 ms of rate_bps */
  uint32_t overhead_bytes;  /* link time counted per frame on top of its bytes (24 for
                               preamble + FCS + inter-frame gap; 0 counts the frame only) */
  uint32_t tx_desc;         /* 0: lwIP's frames wait in the rate queue (queue_bytes); N (with
                               rate_bps): a MAC with N transmit descriptors, whose sender
                               waits for a free one, as a board's driver does */
  struct lpa_link_cpu cpu;
  uint32_t rx_desc;         /* with the CPU model: frames off the wire wait in a receive ring
                               of this many descriptors until the CPU takes them; a frame that
                               finds it full is dropped (0: no limit) */
};

/* Most transmit descriptors a MAC may have (--tx-desc). */
#define LPA_LINK_DESC_MAX 256u

/* Index by LPA_LINK_TX / LPA_LINK_RX. frames/bytes count every frame offered to the link;
 * lost = dropped by the loss draw, qdrop = dropped because the queue was full, errs =
 * TX write failures or RX frames lwIP had no buffer for (counted by lpa_tapif). */
struct lpa_link_counters {
  uint64_t frames[2], bytes[2], lost[2], qdrop[2], errs[2];
  uint64_t tx_waits, tx_wait_ns; /* tx_desc: frames whose sender found every descriptor busy,
                                  * and how long it waited in all */
  uint64_t cpu_busy_ns;          /* CPU model: time the modelled CPU spent on frames */
  uint64_t rxring_drop;          /* rx_desc: frames that found the receive ring full */
};

/* One held frame; the caller of lpa_link_take() owns it and frees it with free(). */
struct lpa_frame {
  struct lpa_frame *next;
  uint64_t due_ns;
  uint32_t len;
  unsigned char data[];
};

struct lpa_link_pipe {
  struct lpa_frame *head, *tail;    /* FIFO: due times only grow within a direction */
  uint64_t busy_until_ns;           /* when the serializer finishes what it already has */
  uint64_t held_bytes;
  uint64_t rng;
  /* Loss window, in frames of this direction: the next loss_skip frames pass undrawn, then
   * loss_span frames are drawn (UINT64_MAX: every later frame), then none. */
  uint64_t loss_skip, loss_span;
  /* tx_desc: when each descriptor's frame is off the wire (serialized), a ring */
  uint64_t desc_free_ns[LPA_LINK_DESC_MAX];
  uint32_t desc_next;
  /* CPU model, RX: frames off the wire, each due when the CPU is done with it */
  struct lpa_frame *ring_head, *ring_tail;
};

/* Owns its held frames; the mutex makes every call safe from any thread. */
struct lpa_link {
  pthread_mutex_t mu;
  pthread_cond_t cv;                /* CLOCK_MONOTONIC; signalled on a new head or stop */
  struct lpa_link_cfg cfg;
  struct lpa_link_pipe pipe[2];
  struct lpa_link_counters c;
  uint64_t cpu_free_ns;             /* CPU model: when the CPU has done what it was given */
  int stop;
};

enum { LPA_LINK_PASS = 0, LPA_LINK_QUEUED = 1, LPA_LINK_DROP = 2 };

int lpa_link_init(struct lpa_link *l, const struct lpa_link_cfg *cfg);
void lpa_link_destroy(struct lpa_link *l);
/* Frames go through queues (and lpa_link_take) only when rate, delay or the CPU model is
 * set. */
int lpa_link_shaped(const struct lpa_link *l);
/* Counts the frame, draws loss, and either says PASS (send it now: unshaped link), copies
 * it into the queue (QUEUED) or drops it (DROP). With tx_desc, a TX frame first waits (the
 * caller sleeps) until the MAC has a free descriptor. */
int lpa_link_offer(struct lpa_link *l, int dir, const void *frame, size_t len, uint64_t now_ns);
/* Pops every frame of `dir` due at now_ns, oldest first (NULL if none). */
struct lpa_frame *lpa_link_take(struct lpa_link *l, int dir, uint64_t now_ns);
/* Earliest due time of any held frame, UINT64_MAX if none. */
uint64_t lpa_link_next_due(struct lpa_link *l);
/* Blocks until a frame may be due, a new frame arrives or lpa_link_stop(); returns 0
 * once stopped. */
int lpa_link_wait(struct lpa_link *l);
void lpa_link_stop(struct lpa_link *l);

void lpa_link_count_err(struct lpa_link *l, int dir);
void lpa_link_set_loss(struct lpa_link *l, uint32_t ppm, unsigned dirs);
/* Loss only on frames skip+1 .. skip+span of each direction in `dirs`, counted from now: a
 * test that must not lose its first or last frames (a handshake, an end marker) places the
 * loss by frame count, which a loaded machine cannot shift the way it shifts a timer. */
void lpa_link_set_loss_window(struct lpa_link *l, uint32_t ppm, unsigned dirs, uint64_t skip,
                              uint64_t span);
void lpa_link_counters(struct lpa_link *l, struct lpa_link_counters *out);
void lpa_link_reset_counters(struct lpa_link *l);
/* "link: tx_frames=... rx_frames=... dropped_tx=... dropped_rx=... qdrop_tx=... ...
 * tx_waits=... tx_wait_us=... cpu_busy_us=... rxring_drop=..." */
int lpa_link_format(const struct lpa_link_counters *c, char *buf, size_t n);

uint64_t lpa_link_now_ns(void);

#endif

/* The --bounceback data path (iperf2 2.1.8's request/response test), run by the stream's
 * worker like the other loops in stream.c; stream.c dispatches to it by kind. */
#ifndef LP_BOUNCE_H
#define LP_BOUNCE_H

#include <stdint.h>

#include "core/clock.h"
#include "core/stream.h"

/* How long past -t a client lets its last exchanges come back before it ends the test. */
#define LP_BB_END_GRACE_NS (2 * LP_NS_PER_S)

/* lp_stream_new: the message buffer (payload, blksize bytes) and, for an echo, the bytes the
 * server already read (lead). false when out of memory. */
bool lp_bounce_setup(struct lp_stream *s, const uint8_t *lead, size_t lead_len);
/* Attached to the worker: start the first exchange (client) or finish reading the first
 * message (echo). */
void lp_bounce_start(struct lp_stream *s);
void lp_bounce_io(struct lp_stream *s, uint32_t events);
void lp_bounce_timer(struct lp_stream *s);

/* stream.c's helpers the bounce loops share (worker side). */
void lp_stream_io_count(struct lp_stream *s, uint64_t bytes);
void lp_stream_io_end(struct lp_stream *s, enum lp_stream_event why);
void lp_stream_io_fail(struct lp_stream *s, int err);
void lp_stream_io_events(struct lp_stream *s, uint32_t ev);
/* A UDP receiver's loss, order, jitter and latency, for the control thread to read. */
void lp_stream_udp_publish(struct lp_stream *s);

#endif

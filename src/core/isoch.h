/* iperf2 --isochronous on the worker. Over UDP a sender (UDP_SEND with cfg.isoch.on) sends the
 * header datagram, then a frame every 1/fps, each cut into datagrams --ipg apart that
 * carry 2.1.8's frame block (wire/iperf2.h lp_i2_isoch); a receiver (UDP_RECV with
 * cfg.isoch.on: its client set the ISOCH flag) counts frames from those blocks. Frame sizes
 * and both counts are stats/frames.h's arithmetic; the stream's bytes and packets count the
 * datagrams as usual. Over TCP a frame is one burst of the trip-times framing (92-byte burst
 * header, id = frame id, size = frame size), written from its frame's start as 2.1.8 does. */
#ifndef LP_CORE_ISOCH_H
#define LP_CORE_ISOCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linkperf/record.h"
#include "linkperf/spec.h"
#include "stats/frames.h"

struct lp_stream;

struct lp_isoch_config {
    bool on;
    double fps;
    double mean_bytes, stdev_bytes; /* per frame: the rates over 8 x fps */
    uint64_t ipg_ns;
    uint32_t start_sec, start_usec; /* --trip-times start (wall clock), else 0 */
};

/* A sender's configuration from the command line's. */
struct lp_isoch_config lp_isoch_config_of(const struct lp_isoch_spec *is);

/* lp_stream_new: the state of a sender or receiver (false: out of memory). */
bool lp_isoch_setup(struct lp_stream *s);
void lp_isoch_free(struct lp_stream *s);
/* On the worker: attach, a writable socket, the stream's timer. */
void lp_isoch_start(struct lp_stream *s);
void lp_isoch_io(struct lp_stream *s);
/* TCP sender (TCP_SEND with cfg.isoch.on), between frames: whether the next frame is due;
 * if so its id and size in bytes (at least min: its burst header) are set and it is counted
 * sent. If not, the stream's socket events are off and its timer is armed for the frame. */
bool lp_isoch_tcp_frame(struct lp_stream *s, uint32_t min, uint32_t *id, uint32_t *size);
/* Receiver, on its owner thread: one datagram's frame block (head: headlen bytes of the
 * datagram from its prefix on; len: its length). */
void lp_isoch_rx(struct lp_stream *s, const uint8_t *head, size_t headlen, size_t len);
/* Any thread: the frames counted so far (out->on false for other streams). */
void lp_isoch_read(const struct lp_stream *s, struct lp_frame_counts *out);

#endif

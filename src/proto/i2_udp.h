/* iperf2's UDP end-of-test exchange, both halves, driven by timers on the control loop:
 * the sender's FIN datagrams (negative sequence numbers, every 10 ms for up to 2 s, until
 * the receiver answers with its report) and the receiver's report (resent while FINs keep
 * coming, 250 ms apart, at most 9 times). Neither blocks the loop. */
#ifndef LP_I2_UDP_H
#define LP_I2_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/loop.h"
#include "proto/i3json.h"
#include "wire/iperf2.h"

#define LP_I2_FIN_INTERVAL_MS 10u
#define LP_I2_FIN_WAIT_MS 2000u
#define LP_I2_REPORT_WAIT_MS 250u
#define LP_I2_REPORT_TRIES 9u

struct lp_i2_fin;
typedef void (*lp_i2_fin_done_fn)(struct lp_i2_fin *f, bool got_report, const struct lp_i2_report *r);

struct lp_i2_fin {
    struct lp_loop *loop;
    int fd;                     /* connected UDP socket of the flow (borrowed) */
    uint8_t *dgram;             /* one datagram (prefix rewritten per FIN), owned */
    size_t len;
    int64_t next_seq;           /* absolute value of the next FIN's sequence number */
    bool wait_report;           /* false: one FIN and done (-R, full duplex, --no-udp-fin) */
    uint64_t deadline_ns;
    unsigned sent;
    struct lp_timer timer;
    lp_i2_fin_done_fn done;
    void *owner;
    bool active;
};

/* template: the datagram the flow has been sending (len bytes); last_seq: the last data
 * sequence number sent. Returns 0 or -ENOMEM. */
int lp_i2_fin_start(struct lp_i2_fin *f, struct lp_loop *loop, int fd, const uint8_t *tmpl, size_t len,
                    uint64_t last_seq, bool wait_report, lp_i2_fin_done_fn done, void *owner);
void lp_i2_fin_cancel(struct lp_i2_fin *f);

struct lp_i2_reporter;
typedef void (*lp_i2_reporter_done_fn)(struct lp_i2_reporter *r, bool acked);

struct lp_i2_reporter {
    struct lp_loop *loop;
    int fd;
    uint8_t report[LP_I2_REPORT_LEN];
    unsigned sent;
    struct lp_timer timer;
    lp_i2_reporter_done_fn done;
    void *owner;
    bool active;
};

/* Send the report now and keep answering further FINs. */
void lp_i2_reporter_start(struct lp_i2_reporter *r, struct lp_loop *loop, int fd, const struct lp_i2_report *rep,
                          lp_i2_reporter_done_fn done, void *owner);
void lp_i2_reporter_cancel(struct lp_i2_reporter *r);

/* A receiver's report as the peer's row of stream id (the form the run's END takes). */
void lp_i2_report_to_result(const struct lp_i2_report *r, int id, struct lp_peer_stream *p);

#endif

/* A buffered, non-blocking control connection on the control loop: bytes in are kept until
 * the state machine consumes them; bytes out are queued and flushed as the socket allows, so
 * a peer that stops reading cannot block the loop. Every buffer has a hard maximum. */
#ifndef LP_CTRL_H
#define LP_CTRL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/loop.h"

#define LP_CTRL_OUT_MAX (16u << 20)

struct lp_ctrl;
/* Called on the loop thread when new bytes arrived, or on EOF / error (see eof, err). */
typedef void (*lp_ctrl_fn)(struct lp_ctrl *c);

struct lp_ctrl {
    struct lp_handler h;
    struct lp_loop *loop;
    lp_ctrl_fn on_input;
    void *owner;
    uint8_t *in;
    size_t in_len, in_cap;
    size_t in_max;        /* the most we will buffer: set per expected message */
    uint8_t *out;
    size_t out_off, out_len, out_cap;
    uint32_t events;
    bool eof;
    int err;              /* negative errno once the socket failed */
    bool closed;
};

int lp_ctrl_open(struct lp_ctrl *c, struct lp_loop *loop, int fd, lp_ctrl_fn on_input, void *owner);
/* Bytes already read from the socket by someone else (e.g. a classifier) go in first. */
int lp_ctrl_prepend(struct lp_ctrl *c, const void *buf, size_t len);
void lp_ctrl_close(struct lp_ctrl *c);

int lp_ctrl_send(struct lp_ctrl *c, const void *buf, size_t len);
int lp_ctrl_send_state(struct lp_ctrl *c, int8_t state);
/* 4-byte big-endian length + body. */
int lp_ctrl_send_json(struct lp_ctrl *c, const char *json);
bool lp_ctrl_flushed(const struct lp_ctrl *c);

/* n buffered bytes, or NULL if fewer have arrived. */
const uint8_t *lp_ctrl_peek(const struct lp_ctrl *c, size_t n);
void lp_ctrl_consume(struct lp_ctrl *c, size_t n);
/* A complete length-prefixed JSON frame: 1 (body/len set, consume 4+len after use),
 * 0 (need more), -EMSGSIZE (announced length is 0 or above max). */
int lp_ctrl_frame(struct lp_ctrl *c, size_t max, const char **body, size_t *len);
/* After a frame: drop it from the buffer. */
void lp_ctrl_consume_frame(struct lp_ctrl *c, size_t len);

#endif

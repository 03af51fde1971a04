/* Buffered control connection (see ctrl.h). No protocol knowledge beyond the length
 * prefix of iperf3's JSON frames. */
#include "proto/ctrl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/sock.h"
#include "wire/iperf3.h"

#define LP_CTRL_READ_CHUNK 65536u

static void on_io(struct lp_handler *h, uint32_t events);

int lp_ctrl_open(struct lp_ctrl *c, struct lp_loop *loop, int fd, lp_ctrl_fn on_input, void *owner)
{
    memset(c, 0, sizeof(*c));
    c->h.fd = fd;
    c->h.fn = on_io;
    c->loop = loop;
    c->on_input = on_input;
    c->owner = owner;
    c->in_max = 4096;
    c->events = EPOLLIN;
    int err = lp_sock_set_nonblock(fd, true);
    if (err == 0)
        err = lp_loop_add(loop, &c->h, c->events);
    if (err < 0) {
        c->closed = true;
        return err;
    }
    return 0;
}

void lp_ctrl_close(struct lp_ctrl *c)
{
    if (c->closed)
        return;
    lp_loop_del(c->loop, &c->h);
    close(c->h.fd);
    c->h.fd = -1;
    c->closed = true;
    free(c->in);
    free(c->out);
    c->in = c->out = NULL;
    c->in_len = c->in_cap = c->out_len = c->out_off = c->out_cap = 0;
}

static int reserve(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 256;
    while (ncap < need)
        ncap *= 2;
    uint8_t *n = realloc(*buf, ncap);
    if (!n)
        return -ENOMEM;
    *buf = n;
    *cap = ncap;
    return 0;
}

int lp_ctrl_prepend(struct lp_ctrl *c, const void *buf, size_t len)
{
    if (reserve(&c->in, &c->in_cap, c->in_len + len) < 0)
        return -ENOMEM;
    memmove(c->in + len, c->in, c->in_len);
    memcpy(c->in, buf, len);
    c->in_len += len;
    return 0;
}

static void set_events(struct lp_ctrl *c, uint32_t ev)
{
    if (c->closed || ev == c->events)
        return;
    if (lp_loop_mod(c->loop, &c->h, ev) == 0)
        c->events = ev;
}

static void flush(struct lp_ctrl *c)
{
    while (c->out_off < c->out_len) {
        ssize_t w = send(c->h.fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            c->err = -errno;
            c->out_off = c->out_len = 0;
            return;
        }
        c->out_off += (size_t)w;
    }
    if (c->out_off == c->out_len)
        c->out_off = c->out_len = 0;
    set_events(c, c->out_len ? EPOLLIN | EPOLLOUT : EPOLLIN);
}

int lp_ctrl_send(struct lp_ctrl *c, const void *buf, size_t len)
{
    if (c->closed)
        return -EBADF;
    if (c->err)
        return c->err;
    if (c->out_len + len > LP_CTRL_OUT_MAX)
        return -ENOBUFS;
    if (reserve(&c->out, &c->out_cap, c->out_len + len) < 0)
        return -ENOMEM;
    memcpy(c->out + c->out_len, buf, len);
    c->out_len += len;
    flush(c);
    return c->err;
}

int lp_ctrl_send_state(struct lp_ctrl *c, int8_t state)
{
    uint8_t b = (uint8_t)state;
    return lp_ctrl_send(c, &b, 1);
}

int lp_ctrl_send_json(struct lp_ctrl *c, const char *json)
{
    size_t len = strlen(json);
    uint8_t hdr[4];
    if (len > UINT32_MAX)
        return -EMSGSIZE;
    lp_i3_put_len(hdr, (uint32_t)len);
    int err = lp_ctrl_send(c, hdr, 4);
    return err ? err : lp_ctrl_send(c, json, len);
}

bool lp_ctrl_flushed(const struct lp_ctrl *c)
{
    return c->out_len == 0;
}

const uint8_t *lp_ctrl_peek(const struct lp_ctrl *c, size_t n)
{
    return c->in_len >= n ? c->in : NULL;
}

/* Resume reading after a pause for a full buffer. */
static void rearm_input(struct lp_ctrl *c)
{
    if (!(c->events & EPOLLIN) && !c->eof && c->in_len < c->in_max)
        set_events(c, EPOLLIN | (c->out_len ? EPOLLOUT : 0));
}

void lp_ctrl_consume(struct lp_ctrl *c, size_t n)
{
    if (n >= c->in_len)
        c->in_len = 0;
    else {
        memmove(c->in, c->in + n, c->in_len - n);
        c->in_len -= n;
    }
    rearm_input(c);
}

int lp_ctrl_frame(struct lp_ctrl *c, size_t max, const char **body, size_t *len)
{
    const uint8_t *p = lp_ctrl_peek(c, 4);
    if (!p) {
        c->in_max = 4 + max;
        rearm_input(c);
        return 0;
    }
    uint32_t n = lp_i3_get_len(p);
    if (n == 0 || n > max)
        return -EMSGSIZE;
    c->in_max = 4 + (size_t)n;
    rearm_input(c);
    if (c->in_len < 4 + (size_t)n)
        return 0;
    *body = (const char *)c->in + 4;
    *len = n;
    return 1;
}

void lp_ctrl_consume_frame(struct lp_ctrl *c, size_t len)
{
    lp_ctrl_consume(c, 4 + len);
}

static void read_some(struct lp_ctrl *c)
{
    for (;;) {
        size_t room = c->in_max > c->in_len ? c->in_max - c->in_len : 0;
        if (room == 0)
            return; /* the state machine decides whether a full buffer is an error */
        if (room > LP_CTRL_READ_CHUNK)
            room = LP_CTRL_READ_CHUNK;
        if (reserve(&c->in, &c->in_cap, c->in_len + room) < 0) {
            c->err = -ENOMEM;
            return;
        }
        ssize_t r = recv(c->h.fd, c->in + c->in_len, room, MSG_DONTWAIT);
        if (r > 0) {
            c->in_len += (size_t)r;
            continue;
        }
        if (r == 0) {
            c->eof = true;
            return;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            c->err = -errno;
        return;
    }
}

static void on_io(struct lp_handler *h, uint32_t events)
{
    struct lp_ctrl *c = lp_container_of(h, struct lp_ctrl, h);
    if (c->closed)
        return;
    if (events & EPOLLOUT)
        flush(c);
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        size_t before = c->in_len;
        read_some(c);
        /* Input we will not buffer (peer sent more than the protocol allows now): stop
         * polling for it until the state machine consumes, instead of spinning. */
        if (c->in_len == before && !c->eof && !c->err && c->in_max <= c->in_len)
            set_events(c, c->out_len ? EPOLLOUT : 0);
    }
    if (c->on_input)
        c->on_input(c);
}

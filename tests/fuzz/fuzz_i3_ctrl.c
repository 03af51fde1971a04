/* iperf3's control channel as linkperf reads it: the bytes after the cookie go into the real
 * buffered connection (lp_ctrl_prepend) and come out through lp_ctrl_frame's length checks and
 * the real decoders, in the order each side expects them:
 *   a server reading a client: parameters (at most LP_I3_PARAMS_MAX), state bytes, results;
 *   a client reading a server: state bytes, SERVER_ERROR's two words, and the server's results
 *   after EXCHANGE_RESULTS (at most LP_I3_RESULTS_MAX).
 * No socket and no loop: a connection whose input is already buffered and whose events stay
 * EPOLLIN never has anything to re-arm, so lp_ctrl_frame and lp_ctrl_consume leave it alone. */
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "core/run.h"
#include "fuzz.h"
#include "proto/ctrl.h"
#include "proto/i3json.h"
#include "wire/iperf3.h"

/* i3_server.c's limit for a client's results (private to that file). */
#define CLIENT_RESULTS_MAX (1u << 20)

/* The input as if read_some() had received it (lp_ctrl_prepend fills the same buffer; it
 * is not asked for nothing: with no buffer yet, that would be arithmetic on NULL). */
static bool open_buffered(struct lp_ctrl *c, const uint8_t *data, size_t size)
{
    memset(c, 0, sizeof(*c));
    c->h.fd = -1;
    c->events = EPOLLIN;
    c->in_max = 4096;
    return size == 0 || lp_ctrl_prepend(c, data, size) == 0;
}

/* One results frame: true when it was complete (and consumed). */
static bool take_results(struct lp_ctrl *c, size_t max)
{
    const char *body;
    size_t len;
    if (lp_ctrl_frame(c, max, &body, &len) != 1)
        return false;
    struct lp_peer_results r;
    char err[200];
    memset(&r, 0, sizeof(r));
    if (lp_i3_results_decode(body, len, &r, err, sizeof(err)) == 0)
        (void)lp_peer_results_find(&r, 1);
    lp_peer_results_release(&r);
    lp_ctrl_consume_frame(c, len);
    return true;
}

static bool is_state(uint8_t b)
{
    int8_t s = (int8_t)b;
    return (s >= LP_I3_TEST_START && s <= LP_I3_IPERF_DONE) || s == LP_I3_ACCESS_DENIED ||
           s == LP_I3_SERVER_ERROR;
}

static void as_server(struct lp_ctrl *c)
{
    const char *body;
    size_t len;
    if (lp_ctrl_frame(c, LP_I3_PARAMS_MAX, &body, &len) != 1)
        return;
    struct lp_spec spec;
    char err[200];
    lp_spec_init(&spec, LP_ROLE_SERVER);
    if (lp_i3_params_decode(body, len, &spec, NULL, 0, NULL, err, sizeof(err)) == 0)
        (void)lp_run_expected(&spec);
    lp_ctrl_consume_frame(c, len);
    const uint8_t *p;
    while ((p = lp_ctrl_peek(c, 1)) && is_state(p[0])) /* TEST_END, an echoed TEST_START ... */
        lp_ctrl_consume(c, 1);
    take_results(c, CLIENT_RESULTS_MAX);
}

static void as_client(struct lp_ctrl *c)
{
    const uint8_t *p;
    while ((p = lp_ctrl_peek(c, 1))) {
        int8_t st = (int8_t)p[0];
        if (st == LP_I3_SERVER_ERROR) {
            p = lp_ctrl_peek(c, 9); /* the state, i_errno, errno */
            if (p) {
                uint32_t i_errno = lp_i3_get_u32(p + 1), err = lp_i3_get_u32(p + 5);
                (void)i_errno;
                (void)err;
            }
            return;
        }
        lp_ctrl_consume(c, 1);
        if (st == LP_I3_ACCESS_DENIED || st == LP_I3_IPERF_DONE)
            return;
        if (st == LP_I3_EXCHANGE_RESULTS && !take_results(c, LP_I3_RESULTS_MAX))
            return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lp_ctrl c;
    if (open_buffered(&c, data, size))
        as_server(&c);
    free(c.in);
    if (open_buffered(&c, data, size))
        as_client(&c);
    free(c.in);
    return 0;
}

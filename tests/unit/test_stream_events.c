/* A stream's requests and answers between the control thread and a worker (core/stream.c):
 * every request is answered exactly once, a stream's own end and the answer to a detach both
 * arrive when both happen, and lp_stream_settle says "free it" only once nothing of the
 * stream can still be queued (its end, and the answers to a freeze and a detach). A real
 * worker thread and a socketpair; the control loop runs until the stream settles, so
 * nothing waits on time (a lost answer shows as the test's timeout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/stream.h"
#include "core/worker.h"

#define MAX_EVENTS 8

/* The control side of one test: its loop, one worker, what it was told. */
struct ctrl {
    struct lp_loop loop;
    struct lp_workers workers;
    enum lp_stream_event ev[MAX_EVENTS];
    unsigned nev;
    unsigned settled_at;     /* events seen when settle said so (0: not yet) */
};

static void on_event(struct lp_stream *s, enum lp_stream_event ev)
{
    struct ctrl *c = s->cfg.owner;
    assert_true(c->nev < MAX_EVENTS);
    c->ev[c->nev++] = ev;
    if (lp_stream_settle(s, ev)) {
        assert_int_equal(c->settled_at, 0); /* settles once */
        c->settled_at = c->nev;
        lp_loop_stop(&c->loop);
    }
}

/* A TCP-receiving stream on one end of a socketpair; *peer is the other end. */
static struct lp_stream *new_stream(struct ctrl *c, int *peer)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    struct lp_stream_config cfg = {
        .kind = LP_STREAM_TCP_RECV,
        .fd = sv[0],
        .blksize = 1024,
        .ctrl_loop = &c->loop,
        .notify = on_event,
        .owner = c,
    };
    struct lp_stream *s = lp_stream_new(&cfg);
    assert_non_null(s);
    *peer = sv[1];
    return s;
}

/* A fresh control side with one worker, and its stream (see new_stream). */
static struct lp_stream *ctrl_init(struct ctrl *c, int *peer)
{
    memset(c, 0, sizeof(*c));
    assert_int_equal(lp_loop_init(&c->loop), 0);
    assert_int_equal(lp_workers_start(&c->workers, 1), 0);
    return new_stream(c, peer);
}

/* Stop the worker (its last deferred answers reach our queue), then check that nothing
 * more was queued for the stream after it settled, and free everything. */
static void ctrl_finish(struct ctrl *c, struct lp_stream *s)
{
    lp_workers_stop(&c->workers);
    assert_null(c->loop.head);
    lp_stream_free(s);
    lp_loop_destroy(&c->loop);
}

static unsigned count(const struct ctrl *c, enum lp_stream_event ev)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->nev; i++)
        n += c->ev[i] == ev;
    return n;
}

/* Exactly the two events a and b, each once (in that order when ordered), and the stream
 * settled on the second. */
static void expect_two(const struct ctrl *c, enum lp_stream_event a, enum lp_stream_event b,
                       bool ordered)
{
    assert_int_equal(c->nev, 2);
    if (ordered) {
        assert_int_equal(c->ev[0], a);
        assert_int_equal(c->ev[1], b);
    } else {
        assert_int_equal(count(c, a), 1);
        assert_int_equal(count(c, b), 1);
    }
    assert_int_equal(c->settled_at, 2);
}

static void freeze_then_detach(void **state)
{
    (void)state;
    static struct ctrl c;
    int peer;
    struct lp_stream *s = ctrl_init(&c, &peer);
    assert_int_equal(write(peer, "data", 4), 4);
    lp_stream_attach(s, lp_workers_pick(&c.workers));
    lp_stream_freeze(s);
    lp_stream_freeze(s); /* a second request is not sent */
    lp_stream_detach(s);
    lp_stream_detach(s);
    lp_loop_run(&c.loop);
    /* The worker handles its requests in order: frozen, then detached. */
    expect_two(&c, LP_SEV_FROZEN, LP_SEV_DETACHED, true);
    struct lp_stream_counters k;
    lp_stream_read(s, &k);
    assert_int_equal(k.bytes, 4); /* the freeze counted what was queued */
    ctrl_finish(&c, s);
    close(peer);
}

/* The peer closes and a detach is asked for: the stream's end (EOF) and the detach's answer
 * both arrive, and the stream settles on the second. */
static void end_and_detach_both_answer(void **state)
{
    (void)state;
    static struct ctrl c;
    int peer;
    struct lp_stream *s = ctrl_init(&c, &peer);
    close(peer);
    lp_stream_attach(s, lp_workers_pick(&c.workers));
    lp_stream_detach(s);
    lp_loop_run(&c.loop);
    expect_two(&c, LP_SEV_EOF, LP_SEV_DETACHED, false);
    ctrl_finish(&c, s);
}

/* Whether something is queued on the control loop (the worker posted an event). */
static bool ctrl_has_post(struct ctrl *c)
{
    pthread_mutex_lock(&c->loop.mu);
    bool any = c->loop.head != NULL;
    pthread_mutex_unlock(&c->loop.mu);
    return any;
}

/* A freeze asked for after the stream ended by itself, before the control thread saw the
 * end: EOF arrives first, and the stream must not settle on it (the freeze request is still
 * queued on the worker, inside the stream); it settles on FROZEN. */
static void end_waits_for_the_freeze_answer(void **state)
{
    (void)state;
    static struct ctrl c;
    int peer;
    struct lp_stream *s = ctrl_init(&c, &peer);
    close(peer);
    lp_stream_attach(s, lp_workers_pick(&c.workers));
    while (!ctrl_has_post(&c)) /* the worker saw EOF and sent it (after its batch) */
        sched_yield();
    lp_stream_freeze(s);
    lp_loop_run(&c.loop);
    expect_two(&c, LP_SEV_EOF, LP_SEV_FROZEN, true);
    ctrl_finish(&c, s);
}

/* A freeze asked for just before the peer closes: the two answers may come in either order
 * (FROZEN leaves at once, EOF after the worker's batch); each comes once, and the stream
 * settles on the second. */
static void freeze_answer_then_end(void **state)
{
    (void)state;
    static struct ctrl c;
    int peer;
    struct lp_stream *s = ctrl_init(&c, &peer);
    lp_stream_attach(s, lp_workers_pick(&c.workers));
    lp_stream_freeze(s);
    close(peer);
    lp_loop_run(&c.loop);
    expect_two(&c, LP_SEV_EOF, LP_SEV_FROZEN, false);
    ctrl_finish(&c, s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(freeze_then_detach),
        cmocka_unit_test(end_and_detach_both_answer),
        cmocka_unit_test(end_waits_for_the_freeze_answer),
        cmocka_unit_test(freeze_answer_then_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The event loop's queues (core/loop.c): posts from another thread arrive once each and in
 * order, a node already queued is not queued twice, deferred work runs after the batch, and
 * timers fire in (deadline, arming order) with cancels and re-arms in between. Nothing here
 * waits on time: timers are armed in the past, and the loop stops on a posted node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "core/compiler.h"
#include "core/loop.h"

#define NPOSTS 10000

/* A node that records, in one shared log, the order nodes ran in. Owned by the test. */
struct rec_node {
    struct lp_post post;
    unsigned id;
    unsigned runs;
    unsigned *log;
    size_t *nlog;
};

static void rec_run(struct lp_post *p)
{
    struct rec_node *n = lp_container_of(p, struct rec_node, post);
    n->runs++;
    n->log[(*n->nlog)++] = n->id;
}

/* Stops its loop when it runs. */
struct stop_node {
    struct lp_post post;
    struct lp_loop *loop;
};

static void stop_run(struct lp_post *p)
{
    struct stop_node *n = lp_container_of(p, struct stop_node, post);
    lp_loop_stop(n->loop);
}

struct producer {
    struct lp_loop *loop;
    struct rec_node *nodes;
    struct stop_node stop;
    unsigned refused;    /* posts that said "already queued" (none should) */
};

/* No cmocka asserts off the main thread: the result is counted and checked after join. */
static void *produce(void *arg)
{
    struct producer *pr = arg;
    for (unsigned i = 0; i < NPOSTS; i++)
        pr->refused += !lp_loop_post(pr->loop, &pr->nodes[i].post);
    pr->refused += !lp_loop_post(pr->loop, &pr->stop.post);
    return NULL;
}

static void init_nodes(struct rec_node *nodes, unsigned n, unsigned *log, size_t *nlog)
{
    for (unsigned i = 0; i < n; i++) {
        lp_post_init(&nodes[i].post, rec_run);
        nodes[i].id = i;
        nodes[i].runs = 0;
        nodes[i].log = log;
        nodes[i].nlog = nlog;
    }
}

static void posts_from_another_thread(void **state)
{
    (void)state;
    struct lp_loop loop;
    assert_int_equal(lp_loop_init(&loop), 0);
    struct rec_node *nodes = calloc(NPOSTS, sizeof(*nodes));
    unsigned *log = calloc(NPOSTS, sizeof(*log));
    size_t nlog = 0;
    assert_non_null(nodes);
    assert_non_null(log);
    init_nodes(nodes, NPOSTS, log, &nlog);
    struct producer pr = {.loop = &loop, .nodes = nodes, .stop = {.loop = &loop}};
    lp_post_init(&pr.stop.post, stop_run);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, produce, &pr), 0);
    lp_loop_run(&loop); /* returns once the stop node, posted last, ran */
    pthread_join(th, NULL);
    assert_int_equal(pr.refused, 0);
    assert_int_equal(nlog, NPOSTS);
    for (unsigned i = 0; i < NPOSTS; i++) {
        assert_int_equal(log[i], i);
        assert_int_equal(nodes[i].runs, 1);
    }
    lp_loop_destroy(&loop);
    free(log);
    free(nodes);
}

static void queued_node_runs_once(void **state)
{
    (void)state;
    struct lp_loop loop;
    unsigned log[8];
    size_t nlog = 0;
    struct rec_node n[2];
    struct stop_node stop = {.loop = &loop};
    assert_int_equal(lp_loop_init(&loop), 0);
    init_nodes(n, 2, log, &nlog);
    lp_post_init(&stop.post, stop_run);

    assert_true(lp_loop_post(&loop, &n[0].post));
    assert_true(lp_loop_post(&loop, &n[1].post));
    assert_false(lp_loop_post(&loop, &n[0].post)); /* still queued: not twice, not moved */
    assert_true(lp_loop_post(&loop, &stop.post));
    lp_loop_run(&loop);
    assert_int_equal(nlog, 2);
    assert_int_equal(log[0], 0);
    assert_int_equal(log[1], 1);
    assert_int_equal(n[0].runs, 1);

    /* Once it ran, the node may be posted again. */
    atomic_store(&loop.stop_requested, false);
    assert_true(lp_loop_post(&loop, &n[0].post));
    assert_true(lp_loop_post(&loop, &stop.post));
    lp_loop_run(&loop);
    assert_int_equal(n[0].runs, 2);
    assert_int_equal(nlog, 3);
    lp_loop_destroy(&loop);
}

/* Posts itself again every time it runs. */
struct again_node {
    struct lp_post post;
    struct lp_loop *loop;
    unsigned runs;
};

static void again_run(struct lp_post *p)
{
    struct again_node *n = lp_container_of(p, struct again_node, post);
    n->runs++;
    assert_true(lp_loop_post(n->loop, p));
}

static void reposting_itself_does_not_spin(void **state)
{
    (void)state;
    struct lp_loop loop;
    struct again_node again = {.loop = &loop};
    struct stop_node stop = {.loop = &loop};
    assert_int_equal(lp_loop_init(&loop), 0);
    lp_post_init(&again.post, again_run);
    lp_post_init(&stop.post, stop_run);
    lp_loop_post(&loop, &again.post);
    lp_loop_post(&loop, &stop.post);
    /* One wake-up runs what was queued at its start: the node once, then the stop. */
    lp_loop_run(&loop);
    assert_int_equal(again.runs, 1);
    lp_loop_destroy(&loop); /* drops the queued node without touching it */
}

/* A handler whose event batch defers work; the work must run after the batch, in order. */
struct defer_fixture {
    struct lp_handler h;
    struct lp_loop *loop;
    struct rec_node nodes[3];
    unsigned log[8];
    size_t nlog;
    size_t nlog_at_handler_end;
    struct stop_node stop;
    int pipefd[2];
};

static void on_readable(struct lp_handler *h, uint32_t events)
{
    (void)events;
    struct defer_fixture *f = lp_container_of(h, struct defer_fixture, h);
    char c;
    assert_int_equal(read(f->pipefd[0], &c, 1), 1);
    assert_true(lp_loop_defer(f->loop, &f->nodes[2].post));
    assert_true(lp_loop_defer(f->loop, &f->nodes[0].post));
    assert_false(lp_loop_defer(f->loop, &f->nodes[2].post)); /* already deferred */
    assert_true(lp_loop_defer(f->loop, &f->nodes[1].post));
    assert_true(lp_loop_defer(f->loop, &f->stop.post));
    f->nlog_at_handler_end = f->nlog;
}

static void deferred_after_batch_in_order(void **state)
{
    (void)state;
    struct lp_loop loop;
    struct defer_fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    assert_int_equal(lp_loop_init(&loop), 0);
    assert_int_equal(pipe(f->pipefd), 0);
    f->loop = &loop;
    init_nodes(f->nodes, 3, f->log, &f->nlog);
    f->stop.loop = &loop;
    lp_post_init(&f->stop.post, stop_run);
    f->h.fd = f->pipefd[0];
    f->h.fn = on_readable;
    assert_int_equal(lp_loop_add(&loop, &f->h, EPOLLIN), 0);
    assert_int_equal(write(f->pipefd[1], "x", 1), 1);
    lp_loop_run(&loop);
    assert_int_equal(f->nlog_at_handler_end, 0);
    assert_int_equal(f->nlog, 3);
    assert_int_equal(f->log[0], 2);
    assert_int_equal(f->log[1], 0);
    assert_int_equal(f->log[2], 1);
    lp_loop_del(&loop, &f->h);
    lp_loop_destroy(&loop);
    close(f->pipefd[0]);
    close(f->pipefd[1]);
    free(f);
}

/* ---- timers ---- */

#define NTIMERS 2000

struct tnode {
    struct lp_timer t;
    unsigned id;
    uint64_t deadline;   /* what the test armed it for last (0 = cancelled) */
    uint64_t armed_seq;  /* the test's own arming order */
    unsigned fired;
    struct tlog *log;
};

struct tlog {
    unsigned order[NTIMERS];
    size_t n;
    struct lp_loop *loop;
    struct lp_timer stop;
};

static void tnode_fire(struct lp_timer *t)
{
    struct tnode *n = lp_container_of(t, struct tnode, t);
    n->fired++;
    n->log->order[n->log->n++] = n->id;
}

static void tstop_fire(struct lp_timer *t)
{
    struct tlog *log = lp_container_of(t, struct tlog, stop);
    lp_loop_stop(log->loop);
}

/* Deterministic pseudo-random numbers (xorshift32): the same schedule on every run. Its left
 * shifts drop bits out of the word by design. */
static LP_WRAPS uint32_t next_rand(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

static int by_deadline_then_seq(const void *a, const void *b)
{
    const struct tnode *x = *(const struct tnode *const *)a, *y = *(const struct tnode *const *)b;
    if (x->deadline != y->deadline)
        return x->deadline < y->deadline ? -1 : 1;
    return x->armed_seq < y->armed_seq ? -1 : x->armed_seq > y->armed_seq;
}

static void timers_fire_in_order(void **state)
{
    (void)state;
    struct lp_loop loop;
    struct tnode *nodes = calloc(NTIMERS, sizeof(*nodes));
    struct tnode **expect = calloc(NTIMERS, sizeof(*expect));
    struct tlog *log = calloc(1, sizeof(*log));
    assert_non_null(nodes);
    assert_non_null(expect);
    assert_non_null(log);
    assert_int_equal(lp_loop_init(&loop), 0);
    log->loop = &loop;
    uint32_t x = 2463534242u;
    uint64_t seq = 0;
    /* Deadlines far in the past (1..500 ns after boot), with many ties: all are due at once,
     * and ties must fire in arming order. */
    for (unsigned i = 0; i < NTIMERS; i++) {
        nodes[i].id = i;
        nodes[i].log = log;
        lp_timer_init(&nodes[i].t, tnode_fire);
        nodes[i].deadline = 1 + next_rand(&x) % 500;
        nodes[i].armed_seq = ++seq;
        lp_timer_arm(&loop, &nodes[i].t, nodes[i].deadline);
        assert_true(lp_timer_armed(&nodes[i].t));
    }
    /* Cancel some, move others (an armed timer moves: it is in the heap once). */
    for (unsigned k = 0; k < NTIMERS; k++) {
        struct tnode *n = &nodes[next_rand(&x) % NTIMERS];
        if (next_rand(&x) % 3 == 0) {
            lp_timer_cancel(&loop, &n->t);
            lp_timer_cancel(&loop, &n->t); /* twice is harmless */
            assert_false(lp_timer_armed(&n->t));
            n->deadline = 0;
        } else {
            n->deadline = 1 + next_rand(&x) % 500;
            n->armed_seq = ++seq;
            lp_timer_arm(&loop, &n->t, n->deadline);
        }
    }
    size_t nexp = 0;
    for (unsigned i = 0; i < NTIMERS; i++)
        if (nodes[i].deadline)
            expect[nexp++] = &nodes[i];
    qsort(expect, nexp, sizeof(*expect), by_deadline_then_seq);
    lp_timer_init(&log->stop, tstop_fire);
    lp_timer_arm(&loop, &log->stop, 1000); /* after all of them */
    lp_loop_run(&loop);
    assert_int_equal(log->n, nexp);
    for (size_t i = 0; i < nexp; i++)
        assert_int_equal(log->order[i], expect[i]->id);
    for (unsigned i = 0; i < NTIMERS; i++) {
        assert_int_equal(nodes[i].fired, nodes[i].deadline ? 1 : 0);
        assert_false(lp_timer_armed(&nodes[i].t));
    }
    lp_loop_destroy(&loop);
    free(log);
    free(expect);
    free(nodes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(posts_from_another_thread),
        cmocka_unit_test(queued_node_runs_once),
        cmocka_unit_test(reposting_itself_does_not_spin),
        cmocka_unit_test(deferred_after_batch_in_order),
        cmocka_unit_test(timers_fire_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Event loop: epoll for descriptors, a heap of timers on CLOCK_MONOTONIC (armed through one
 * timerfd for nanosecond deadlines), and a queue of work posted from other threads.
 * One loop per thread; everything but lp_loop_post/lp_loop_stop/lp_loop_wake is for the
 * owning thread. Nothing here allocates after lp_loop_init: handlers, timers and posts are
 * nodes embedded in their owners (libuv-style), so arming a timer or posting work cannot
 * fail. */
#ifndef LP_LOOP_H
#define LP_LOOP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define lp_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

struct lp_loop;

/* Embedded in whatever owns a descriptor; fn gets the epoll event bits. */
struct lp_handler {
    void (*fn)(struct lp_handler *h, uint32_t events);
    int fd;
};

/* Embedded in its owner, who keeps it alive while it is armed. The links are the loop's
 * (a pairing heap ordered by deadline, then arming order) and only valid while armed. */
struct lp_timer {
    void (*fn)(struct lp_timer *t);
    uint64_t deadline_ns;
    uint64_t seq;                       /* ties fire in arming order */
    struct lp_timer *child, *next, *prev; /* prev: left sibling, or parent of a first child */
    bool armed;
};

/* Work queued to run on a loop's thread: embedded in its owner, who keeps it alive while it
 * is queued. A node is used with one loop and one way: posted (from any thread) or deferred
 * (from the loop's thread). `next` and `queued` belong to the loop while it is queued
 * (guarded by loop->mu for posts). */
struct lp_post {
    void (*fn)(struct lp_post *p);
    struct lp_post *next;
    bool queued;
};

/* Owns its descriptors and the queues' heads; borrows every handler, timer and post node. */
struct lp_loop {
    int epfd;
    int wakefd;                 /* eventfd: posts and stop */
    int timerfd;
    struct lp_handler wake_h, timer_h;
    pthread_mutex_t mu;         /* guards the post queue and its nodes' links */
    struct lp_post *head, *tail;
    atomic_bool stop_requested; /* atomic so a signal handler may set it */
    void (*on_wake)(void *arg); /* run on the loop thread after every wake-up */
    void *on_wake_arg;
    struct lp_post *deferred, *deferred_tail; /* owner thread only: after the current batch */
    struct lp_timer *troot;     /* the earliest timer */
    size_t ntimers;
    uint64_t timer_seq;
    uint64_t armed_ns;          /* deadline currently in the timerfd, 0 = none */
};

/* Returns 0 or a negative errno. */
int lp_loop_init(struct lp_loop *loop);
/* Posts still queued are dropped (their nodes are not touched: their owners may be gone);
 * deferred work still runs. */
void lp_loop_destroy(struct lp_loop *loop);

int lp_loop_add(struct lp_loop *loop, struct lp_handler *h, uint32_t events);
int lp_loop_mod(struct lp_loop *loop, struct lp_handler *h, uint32_t events);
void lp_loop_del(struct lp_loop *loop, struct lp_handler *h);

void lp_timer_init(struct lp_timer *t, void (*fn)(struct lp_timer *t));
/* (Re)arm t for deadline_ns; an armed timer moves. Cannot fail. */
void lp_timer_arm(struct lp_loop *loop, struct lp_timer *t, uint64_t deadline_ns);
void lp_timer_cancel(struct lp_loop *loop, struct lp_timer *t);
static inline bool lp_timer_armed(const struct lp_timer *t) { return t->armed; }

void lp_post_init(struct lp_post *p, void (*fn)(struct lp_post *p));
/* Run p->fn(p) on the loop's thread. Thread-safe; cannot fail. Returns false when p was
 * already queued: it then runs once, after this call (so what the caller wrote before is
 * seen). Posts run in the order they were queued. */
bool lp_loop_post(struct lp_loop *loop, struct lp_post *p);

/* Owner thread only: run p->fn(p) after the events of the current batch are handled, in
 * the order deferred. Use it to free an object whose descriptor may still have an event
 * queued in this batch. Returns false when p was already deferred (it runs once). */
bool lp_loop_defer(struct lp_loop *loop, struct lp_post *p);

/* Run until lp_loop_stop. */
void lp_loop_run(struct lp_loop *loop);
/* Thread-safe and async-signal-safe (an eventfd write): ask the loop to return. */
void lp_loop_stop(struct lp_loop *loop);
/* Async-signal-safe wake-up without stopping; the loop then runs its wake hook. */
void lp_loop_wake(struct lp_loop *loop);

#endif

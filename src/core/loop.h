/* Event loop: epoll for descriptors, a min-heap of timers on CLOCK_MONOTONIC (armed through
 * one timerfd for nanosecond deadlines), and a queue of functions posted from other threads.
 * One loop per thread; everything but lp_loop_post/lp_loop_stop is for the owning thread. */
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

/* Embedded in its owner; idx is its place in the heap (LP_TIMER_IDLE when not armed). */
#define LP_TIMER_IDLE SIZE_MAX
struct lp_timer {
    void (*fn)(struct lp_timer *t);
    uint64_t deadline_ns;
    uint64_t seq;      /* ties fire in arming order */
    size_t idx;
};

struct lp_post;

struct lp_loop {
    int epfd;
    int wakefd;                 /* eventfd: posts and stop */
    int timerfd;
    struct lp_handler wake_h, timer_h;
    pthread_mutex_t mu;         /* guards the post queue */
    struct lp_post *head, *tail;
    atomic_bool stop_requested; /* atomic so a signal handler may set it */
    void (*on_wake)(void *arg); /* run on the loop thread after every wake-up */
    void *on_wake_arg;
    struct lp_post *deferred;   /* owner-thread only: run after the current event batch */
    struct lp_timer **heap;
    size_t nheap, capheap;
    uint64_t timer_seq;
    uint64_t armed_ns;          /* deadline currently in the timerfd, 0 = none */
};

int lp_loop_init(struct lp_loop *loop);
void lp_loop_destroy(struct lp_loop *loop);

int lp_loop_add(struct lp_loop *loop, struct lp_handler *h, uint32_t events);
int lp_loop_mod(struct lp_loop *loop, struct lp_handler *h, uint32_t events);
void lp_loop_del(struct lp_loop *loop, struct lp_handler *h);

void lp_timer_init(struct lp_timer *t, void (*fn)(struct lp_timer *t));
void lp_timer_arm(struct lp_loop *loop, struct lp_timer *t, uint64_t deadline_ns);
void lp_timer_cancel(struct lp_loop *loop, struct lp_timer *t);
static inline bool lp_timer_armed(const struct lp_timer *t) { return t->idx != LP_TIMER_IDLE; }

/* Run fn(arg) on the loop's thread. Thread-safe. Returns 0 or -ENOMEM. */
int lp_loop_post(struct lp_loop *loop, void (*fn)(void *arg), void *arg);

/* Owner thread only: run fn(arg) after the events of the current batch are handled. Use it
 * to free an object whose descriptor may still have an event queued in this batch. */
int lp_loop_defer(struct lp_loop *loop, void (*fn)(void *arg), void *arg);

/* Run until lp_loop_stop. */
void lp_loop_run(struct lp_loop *loop);
/* Thread-safe and async-signal-safe (an eventfd write): ask the loop to return. */
void lp_loop_stop(struct lp_loop *loop);
/* Async-signal-safe wake-up without stopping; the loop then runs its wake hook. */
void lp_loop_wake(struct lp_loop *loop);

#endif

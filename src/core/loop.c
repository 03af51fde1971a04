/* Event loop implementation: epoll + timer heap + posted functions (see loop.h).
 * No I/O policy here: handlers decide what to read or write. */
#include "core/loop.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

struct lp_post {
    struct lp_post *next;
    void (*fn)(void *arg);
    void *arg;
};

static void on_wakefd(struct lp_handler *h, uint32_t events);
static void on_timerfd(struct lp_handler *h, uint32_t events);
static void run_deferred(struct lp_loop *loop);

int lp_loop_init(struct lp_loop *loop)
{
    memset(loop, 0, sizeof(*loop));
    loop->epfd = loop->wakefd = loop->timerfd = -1;
    atomic_init(&loop->stop_requested, false);
    if (pthread_mutex_init(&loop->mu, NULL) != 0)
        return -ENOMEM;
    loop->epfd = epoll_create1(EPOLL_CLOEXEC);
    loop->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    loop->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (loop->epfd < 0 || loop->wakefd < 0 || loop->timerfd < 0)
        goto fail;
    loop->wake_h.fn = on_wakefd;
    loop->wake_h.fd = loop->wakefd;
    loop->timer_h.fn = on_timerfd;
    loop->timer_h.fd = loop->timerfd;
    if (lp_loop_add(loop, &loop->wake_h, EPOLLIN) < 0 || lp_loop_add(loop, &loop->timer_h, EPOLLIN) < 0)
        goto fail;
    return 0;
fail: {
    int err = -errno;
    lp_loop_destroy(loop);
    return err ? err : -ENOMEM;
}
}

void lp_loop_destroy(struct lp_loop *loop)
{
    struct lp_post *p = loop->head;
    while (p) {
        struct lp_post *n = p->next;
        free(p);
        p = n;
    }
    loop->head = loop->tail = NULL;
    run_deferred(loop);
    if (loop->epfd >= 0)
        close(loop->epfd);
    if (loop->wakefd >= 0)
        close(loop->wakefd);
    if (loop->timerfd >= 0)
        close(loop->timerfd);
    loop->epfd = loop->wakefd = loop->timerfd = -1;
    free(loop->heap);
    loop->heap = NULL;
    loop->nheap = loop->capheap = 0;
    pthread_mutex_destroy(&loop->mu);
}

int lp_loop_add(struct lp_loop *loop, struct lp_handler *h, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = h};
    return epoll_ctl(loop->epfd, EPOLL_CTL_ADD, h->fd, &ev) < 0 ? -errno : 0;
}

int lp_loop_mod(struct lp_loop *loop, struct lp_handler *h, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = h};
    return epoll_ctl(loop->epfd, EPOLL_CTL_MOD, h->fd, &ev) < 0 ? -errno : 0;
}

void lp_loop_del(struct lp_loop *loop, struct lp_handler *h)
{
    if (h->fd >= 0)
        epoll_ctl(loop->epfd, EPOLL_CTL_DEL, h->fd, NULL);
}

/* ---- timers: binary min-heap ordered by (deadline, seq) ---- */

static bool timer_before(const struct lp_timer *a, const struct lp_timer *b)
{
    return a->deadline_ns < b->deadline_ns || (a->deadline_ns == b->deadline_ns && a->seq < b->seq);
}

static void heap_swap(struct lp_loop *loop, size_t i, size_t j)
{
    struct lp_timer *t = loop->heap[i];
    loop->heap[i] = loop->heap[j];
    loop->heap[j] = t;
    loop->heap[i]->idx = i;
    loop->heap[j]->idx = j;
}

static void heap_up(struct lp_loop *loop, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!timer_before(loop->heap[i], loop->heap[parent]))
            break;
        heap_swap(loop, i, parent);
        i = parent;
    }
}

static void heap_down(struct lp_loop *loop, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < loop->nheap && timer_before(loop->heap[l], loop->heap[m]))
            m = l;
        if (r < loop->nheap && timer_before(loop->heap[r], loop->heap[m]))
            m = r;
        if (m == i)
            return;
        heap_swap(loop, i, m);
        i = m;
    }
}

static void heap_remove(struct lp_loop *loop, size_t i)
{
    size_t last = loop->nheap - 1;
    loop->heap[i]->idx = LP_TIMER_IDLE;
    if (i != last) {
        loop->heap[i] = loop->heap[last];
        loop->heap[i]->idx = i;
        loop->nheap--;
        heap_down(loop, i);
        heap_up(loop, i);
    } else {
        loop->nheap--;
    }
}

/* Keep the timerfd armed for the earliest deadline. */
static void rearm(struct lp_loop *loop)
{
    uint64_t want = loop->nheap ? loop->heap[0]->deadline_ns : 0;
    if (want == loop->armed_ns)
        return;
    struct itimerspec its = {0};
    if (want) {
        /* A zero it_value disarms, so a deadline at time 0 becomes 1 ns. */
        its.it_value.tv_sec = (time_t)(want / 1000000000ull);
        its.it_value.tv_nsec = (long)(want % 1000000000ull);
        if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
            its.it_value.tv_nsec = 1;
    }
    timerfd_settime(loop->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
    loop->armed_ns = want;
}

void lp_timer_init(struct lp_timer *t, void (*fn)(struct lp_timer *t))
{
    memset(t, 0, sizeof(*t));
    t->fn = fn;
    t->idx = LP_TIMER_IDLE;
}

void lp_timer_arm(struct lp_loop *loop, struct lp_timer *t, uint64_t deadline_ns)
{
    if (t->idx != LP_TIMER_IDLE)
        heap_remove(loop, t->idx);
    if (loop->nheap == loop->capheap) {
        size_t cap = loop->capheap ? loop->capheap * 2 : 16;
        struct lp_timer **h = realloc(loop->heap, cap * sizeof(*h));
        if (!h)
            abort(); /* timers are few and small; running out of memory here is not recoverable */
        loop->heap = h;
        loop->capheap = cap;
    }
    t->deadline_ns = deadline_ns;
    t->seq = ++loop->timer_seq;
    t->idx = loop->nheap;
    loop->heap[loop->nheap++] = t;
    heap_up(loop, t->idx);
    rearm(loop);
}

void lp_timer_cancel(struct lp_loop *loop, struct lp_timer *t)
{
    if (t->idx == LP_TIMER_IDLE)
        return;
    heap_remove(loop, t->idx);
    rearm(loop);
}

static void run_timers(struct lp_loop *loop)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    /* Fire only timers due at entry, so a timer re-arming itself for "now" cannot spin. */
    for (size_t budget = loop->nheap; budget > 0 && loop->nheap && loop->heap[0]->deadline_ns <= now;
         budget--) {
        struct lp_timer *t = loop->heap[0];
        heap_remove(loop, 0);
        t->fn(t);
    }
    loop->armed_ns = (uint64_t)-1; /* force a re-arm: the timerfd has expired */
    rearm(loop);
}

static void on_timerfd(struct lp_handler *h, uint32_t events)
{
    (void)events;
    struct lp_loop *loop = lp_container_of(h, struct lp_loop, timer_h);
    uint64_t n;
    while (read(loop->timerfd, &n, sizeof(n)) > 0) {
    }
    run_timers(loop);
}

/* ---- cross-thread posts ---- */

int lp_loop_post(struct lp_loop *loop, void (*fn)(void *arg), void *arg)
{
    struct lp_post *p = malloc(sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->next = NULL;
    p->fn = fn;
    p->arg = arg;
    pthread_mutex_lock(&loop->mu);
    if (loop->tail)
        loop->tail->next = p;
    else
        loop->head = p;
    loop->tail = p;
    pthread_mutex_unlock(&loop->mu);
    lp_loop_wake(loop);
    return 0;
}

void lp_loop_wake(struct lp_loop *loop)
{
    uint64_t one = 1;
    ssize_t r = write(loop->wakefd, &one, sizeof(one));
    (void)r; /* EAGAIN means a wake-up is already pending */
}

void lp_loop_stop(struct lp_loop *loop)
{
    atomic_store(&loop->stop_requested, true);
    lp_loop_wake(loop);
}

static void on_wakefd(struct lp_handler *h, uint32_t events)
{
    (void)events;
    struct lp_loop *loop = lp_container_of(h, struct lp_loop, wake_h);
    uint64_t n;
    while (read(loop->wakefd, &n, sizeof(n)) > 0) {
    }
    pthread_mutex_lock(&loop->mu);
    struct lp_post *p = loop->head;
    loop->head = loop->tail = NULL;
    pthread_mutex_unlock(&loop->mu);
    while (p) {
        struct lp_post *next = p->next;
        p->fn(p->arg);
        free(p);
        p = next;
    }
    if (loop->on_wake)
        loop->on_wake(loop->on_wake_arg);
}

int lp_loop_defer(struct lp_loop *loop, void (*fn)(void *arg), void *arg)
{
    struct lp_post *p = malloc(sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->fn = fn;
    p->arg = arg;
    p->next = NULL;
    /* In order: a stream's events must reach the control thread in the order they arose. */
    struct lp_post **tail = &loop->deferred;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;
    return 0;
}

static void run_deferred(struct lp_loop *loop)
{
    while (loop->deferred) {
        struct lp_post *p = loop->deferred;
        loop->deferred = p->next;
        p->fn(p->arg);
        free(p);
    }
}

void lp_loop_run(struct lp_loop *loop)
{
    struct epoll_event evs[64];
    while (!atomic_load(&loop->stop_requested)) {
        int n = epoll_wait(loop->epfd, evs, 64, -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < n; i++) {
            struct lp_handler *h = evs[i].data.ptr;
            h->fn(h, evs[i].events);
        }
        run_deferred(loop);
    }
    run_deferred(loop);
}

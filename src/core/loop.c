/* Event loop implementation: epoll + timer heap + posted work (see loop.h).
 * No I/O policy here: handlers decide what to read or write; no allocation after init. */
#include "core/loop.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

static void on_wakefd(struct lp_handler *h, uint32_t events);
static void on_timerfd(struct lp_handler *h, uint32_t events);
static void run_deferred(struct lp_loop *loop);

int lp_loop_init(struct lp_loop *loop)
{
    memset(loop, 0, sizeof(*loop));
    loop->epfd = loop->wakefd = loop->timerfd = -1;
    atomic_init(&loop->stop_requested, false);
    int rc = pthread_mutex_init(&loop->mu, NULL);
    if (rc != 0)
        return -rc;
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
    /* Queued posts are dropped unseen: their owners may be gone already (a worker stopped
     * with requests still queued), so not even their flags are reset. */
    loop->head = loop->tail = NULL;
    run_deferred(loop);
    if (loop->epfd >= 0)
        close(loop->epfd);
    if (loop->wakefd >= 0)
        close(loop->wakefd);
    if (loop->timerfd >= 0)
        close(loop->timerfd);
    loop->epfd = loop->wakefd = loop->timerfd = -1;
    loop->troot = NULL;
    loop->ntimers = 0;
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

/* ---- timers: an intrusive pairing heap ordered by (deadline, seq) ----
 * The nodes live in their owners, so arming allocates nothing. Insert is O(1); removing the
 * earliest or any armed timer is O(log n) amortized (Fredman, Sedgewick, Sleator and Tarjan,
 * 1986), which suits pacing timers that move on every send. */

static bool timer_before(const struct lp_timer *a, const struct lp_timer *b)
{
    return a->deadline_ns < b->deadline_ns || (a->deadline_ns == b->deadline_ns && a->seq < b->seq);
}

/* Join two heaps whose roots have no siblings: the later root becomes the earlier one's
 * first child. */
static struct lp_timer *heap_meld(struct lp_timer *a, struct lp_timer *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (timer_before(b, a)) {
        struct lp_timer *t = a;
        a = b;
        b = t;
    }
    b->next = a->child;
    if (a->child)
        a->child->prev = b;
    b->prev = a;
    a->child = b;
    return a;
}

/* One heap from a list of sibling subtrees: meld them in pairs left to right, then the
 * pairs right to left (the two passes are what bound the cost). */
static struct lp_timer *heap_merge_pairs(struct lp_timer *first)
{
    struct lp_timer *pairs = NULL; /* melded pairs, the last first, linked by next */
    while (first) {
        struct lp_timer *a = first, *b = first->next;
        first = b ? b->next : NULL;
        a->next = a->prev = NULL;
        if (b)
            b->next = b->prev = NULL;
        struct lp_timer *m = heap_meld(a, b);
        m->next = pairs;
        pairs = m;
    }
    struct lp_timer *root = NULL;
    while (pairs) {
        struct lp_timer *n = pairs->next;
        pairs->next = NULL;
        root = heap_meld(root, pairs);
        pairs = n;
    }
    return root;
}

static void heap_insert(struct lp_loop *loop, struct lp_timer *t)
{
    t->child = t->next = t->prev = NULL;
    loop->troot = heap_meld(loop->troot, t);
    loop->ntimers++;
    t->armed = true;
}

static void heap_remove(struct lp_loop *loop, struct lp_timer *t)
{
    if (t == loop->troot) {
        loop->troot = heap_merge_pairs(t->child);
    } else {
        if (t->prev->child == t) /* a first child: prev is its parent */
            t->prev->child = t->next;
        else
            t->prev->next = t->next;
        if (t->next)
            t->next->prev = t->prev;
        loop->troot = heap_meld(loop->troot, heap_merge_pairs(t->child));
    }
    t->child = t->next = t->prev = NULL;
    t->armed = false;
    loop->ntimers--;
}

/* Keep the timerfd armed for the earliest deadline. */
static void rearm(struct lp_loop *loop)
{
    uint64_t want = loop->troot ? loop->troot->deadline_ns : 0;
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
}

void lp_timer_arm(struct lp_loop *loop, struct lp_timer *t, uint64_t deadline_ns)
{
    if (t->armed)
        heap_remove(loop, t);
    t->deadline_ns = deadline_ns;
    t->seq = ++loop->timer_seq;
    heap_insert(loop, t);
    rearm(loop);
}

void lp_timer_cancel(struct lp_loop *loop, struct lp_timer *t)
{
    if (!t->armed)
        return;
    heap_remove(loop, t);
    rearm(loop);
}

static void run_timers(struct lp_loop *loop)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    /* Fire only timers due at entry, so a timer re-arming itself for "now" cannot spin. */
    for (size_t budget = loop->ntimers; budget > 0 && loop->troot && loop->troot->deadline_ns <= now; budget--) {
        struct lp_timer *t = loop->troot;
        heap_remove(loop, t);
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

/* ---- posted and deferred work ---- */

void lp_post_init(struct lp_post *p, void (*fn)(struct lp_post *p))
{
    p->fn = fn;
    p->next = NULL;
    p->queued = false;
}

bool lp_loop_post(struct lp_loop *loop, struct lp_post *p)
{
    pthread_mutex_lock(&loop->mu);
    bool fresh = !p->queued;
    if (fresh) {
        p->queued = true;
        p->next = NULL;
        if (loop->tail)
            loop->tail->next = p;
        else
            loop->head = p;
        loop->tail = p;
    }
    pthread_mutex_unlock(&loop->mu);
    if (fresh)
        lp_loop_wake(loop);
    return fresh;
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

/* Take the first queued post (the queue is not empty). From here its node may be posted
 * again, by any thread. */
static struct lp_post *pop_post(struct lp_loop *loop)
{
    pthread_mutex_lock(&loop->mu);
    struct lp_post *p = loop->head;
    loop->head = p->next;
    if (!loop->head)
        loop->tail = NULL;
    p->next = NULL;
    p->queued = false;
    pthread_mutex_unlock(&loop->mu);
    return p;
}

/* Run the posts queued at entry, one node at a time: a function may post its own node again
 * or free it, so nothing is read from a node after its function ran. Posts queued meanwhile
 * wait for the next wake-up (their post wrote the eventfd), so a node that re-posts itself
 * cannot keep the loop here. */
static void run_posts(struct lp_loop *loop)
{
    pthread_mutex_lock(&loop->mu);
    const struct lp_post *last = loop->tail;
    pthread_mutex_unlock(&loop->mu);
    if (!last)
        return;
    for (;;) {
        struct lp_post *p = pop_post(loop);
        bool was_last = p == last;
        p->fn(p);
        if (was_last)
            return;
    }
}

static void on_wakefd(struct lp_handler *h, uint32_t events)
{
    (void)events;
    struct lp_loop *loop = lp_container_of(h, struct lp_loop, wake_h);
    uint64_t n;
    while (read(loop->wakefd, &n, sizeof(n)) > 0) {
    }
    run_posts(loop);
    if (loop->on_wake)
        loop->on_wake(loop->on_wake_arg);
}

bool lp_loop_defer(struct lp_loop *loop, struct lp_post *p)
{
    if (p->queued)
        return false;
    p->queued = true;
    p->next = NULL;
    /* In order: a stream's events must reach the control thread in the order they arose. */
    if (loop->deferred_tail)
        loop->deferred_tail->next = p;
    else
        loop->deferred = p;
    loop->deferred_tail = p;
    return true;
}

static void run_deferred(struct lp_loop *loop)
{
    while (loop->deferred) {
        struct lp_post *p = loop->deferred;
        loop->deferred = p->next;
        if (!loop->deferred)
            loop->deferred_tail = NULL;
        p->next = NULL;
        p->queued = false;
        p->fn(p);
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

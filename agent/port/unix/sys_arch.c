/* lwIP's operating-system layer on POSIX threads: semaphores, mutexes, bounded mailboxes,
 * threads, the clock and the lightweight protection lock. With NO_SYS 1 only the clock is
 * built. Deliberately no priorities or stack sizes: Linux threads ignore both. */
#include "lwip/opt.h"
#include "lwip/sys.h"
#if !NO_SYS
#include "lwip/tcpip.h"
#endif
#include "lpa_host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static u64_t mono_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u64_t)ts.tv_sec * 1000u + (u64_t)ts.tv_nsec / 1000000u;
}

/* lwIP only needs differences of sys_now(); wrap-around is expected and handled there. */
u32_t sys_now(void)
{
  return (u32_t)mono_ms();
}

u32_t sys_jiffies(void)
{
  return (u32_t)mono_ms();
}

#if !NO_SYS

struct lpa_sys_sem {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned count;
};

struct lpa_sys_mutex {
  pthread_mutex_t mu;
};

/* A fixed ring of `size` slots: posting to a full mailbox blocks (sys_mbox_post) or fails
 * (trypost), which is how an MCU's RTOS queue behaves. */
struct lpa_sys_mbox {
  pthread_mutex_t mu;
  pthread_cond_t not_empty;
  pthread_cond_t not_full;
  unsigned head, count, size;
  void **slot;
};

static pthread_mutex_t prot_mu;
static pthread_once_t prot_once = PTHREAD_ONCE_INIT;

static void prot_init(void)
{
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&prot_mu, &a);
  pthread_mutexattr_destroy(&a);
}

void sys_init(void)
{
  pthread_once(&prot_once, prot_init);
}

sys_prot_t sys_arch_protect(void)
{
  pthread_once(&prot_once, prot_init);
  pthread_mutex_lock(&prot_mu);
  return 0;
}

void sys_arch_unprotect(sys_prot_t pval)
{
  (void)pval;
  pthread_mutex_unlock(&prot_mu);
}

/* Condition variables on CLOCK_MONOTONIC so a wall-clock step cannot stretch a timeout. */
static void cond_init(pthread_cond_t *cv)
{
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(cv, &a);
  pthread_condattr_destroy(&a);
}

static void deadline_after(struct timespec *ts, u32_t ms)
{
  clock_gettime(CLOCK_MONOTONIC, ts);
  ts->tv_sec += ms / 1000u;
  ts->tv_nsec += (long)(ms % 1000u) * 1000000L;
  if (ts->tv_nsec >= 1000000000L) {
    ts->tv_sec++;
    ts->tv_nsec -= 1000000000L;
  }
}

/* Waits on cv until pred(obj) holds; timeout_ms 0 = forever. Returns the milliseconds
 * waited, or SYS_ARCH_TIMEOUT. Called with mu held. */
static u32_t wait_for(pthread_cond_t *cv, pthread_mutex_t *mu, int (*pred)(void *), void *obj,
                      u32_t timeout_ms)
{
  u64_t t0 = mono_ms();
  struct timespec dl;
  if (timeout_ms)
    deadline_after(&dl, timeout_ms);
  while (!pred(obj)) {
    if (!timeout_ms) {
      pthread_cond_wait(cv, mu);
    } else if (pthread_cond_timedwait(cv, mu, &dl) == ETIMEDOUT && !pred(obj)) {
      return SYS_ARCH_TIMEOUT;
    }
  }
  u64_t waited = mono_ms() - t0;
  /* SYS_ARCH_TIMEOUT is 0xffffffff: a real wait never reports that value. */
  return waited >= SYS_ARCH_TIMEOUT ? SYS_ARCH_TIMEOUT - 1 : (u32_t)waited;
}

/* ---- semaphores ---- */

err_t sys_sem_new(sys_sem_t *sem, u8_t count)
{
  struct lpa_sys_sem *s = calloc(1, sizeof *s);
  if (!s) {
    *sem = NULL;
    return ERR_MEM;
  }
  pthread_mutex_init(&s->mu, NULL);
  cond_init(&s->cv);
  s->count = count;
  *sem = s;
  return ERR_OK;
}

void sys_sem_signal(sys_sem_t *sem)
{
  struct lpa_sys_sem *s = *sem;
  pthread_mutex_lock(&s->mu);
  s->count++;
  pthread_cond_signal(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static int sem_ready(void *obj)
{
  return ((struct lpa_sys_sem *)obj)->count > 0;
}

u32_t sys_arch_sem_wait(sys_sem_t *sem, u32_t timeout)
{
  struct lpa_sys_sem *s = *sem;
  pthread_mutex_lock(&s->mu);
  u32_t r = wait_for(&s->cv, &s->mu, sem_ready, s, timeout);
  if (r != SYS_ARCH_TIMEOUT)
    s->count--;
  pthread_mutex_unlock(&s->mu);
  return r;
}

void sys_sem_free(sys_sem_t *sem)
{
  struct lpa_sys_sem *s = *sem;
  if (!s)
    return;
  pthread_cond_destroy(&s->cv);
  pthread_mutex_destroy(&s->mu);
  free(s);
  *sem = NULL;
}

int sys_sem_valid(sys_sem_t *sem)
{
  return sem && *sem;
}

void sys_sem_set_invalid(sys_sem_t *sem)
{
  *sem = NULL;
}

/* ---- mutexes ---- */

err_t sys_mutex_new(sys_mutex_t *mutex)
{
  struct lpa_sys_mutex *m = calloc(1, sizeof *m);
  if (!m) {
    *mutex = NULL;
    return ERR_MEM;
  }
  pthread_mutex_init(&m->mu, NULL);
  *mutex = m;
  return ERR_OK;
}

void sys_mutex_lock(sys_mutex_t *mutex)
{
  pthread_mutex_lock(&(*mutex)->mu);
}

void sys_mutex_unlock(sys_mutex_t *mutex)
{
  pthread_mutex_unlock(&(*mutex)->mu);
}

void sys_mutex_free(sys_mutex_t *mutex)
{
  if (!*mutex)
    return;
  pthread_mutex_destroy(&(*mutex)->mu);
  free(*mutex);
  *mutex = NULL;
}

int sys_mutex_valid(sys_mutex_t *mutex)
{
  return mutex && *mutex;
}

void sys_mutex_set_invalid(sys_mutex_t *mutex)
{
  *mutex = NULL;
}

/* ---- core lock bookkeeping ---- */

#if LWIP_TCPIP_CORE_LOCKING

/* Per thread: does this thread hold lock_tcpip_core? Set and cleared only by its owner, so
 * no other thread ever reads it. */
static _Thread_local int holds_core;
static volatile int tcpip_started;

void lpa_sys_core_lock(void)
{
  sys_mutex_lock(&lock_tcpip_core);
  holds_core = 1;
}

void lpa_sys_core_unlock(void)
{
  holds_core = 0;
  sys_mutex_unlock(&lock_tcpip_core);
}

void lpa_sys_mark_tcpip_thread(void)
{
  tcpip_started = 1;
}

/* Before the tcpip thread runs, tcpip_init's caller sets the stack up alone; after, every
 * core call must hold the lock. */
void lpa_sys_assert_core_locked(void)
{
  if (tcpip_started && !holds_core)
    LWIP_PLATFORM_ASSERT("lwIP core function called without LOCK_TCPIP_CORE()");
}

#endif /* LWIP_TCPIP_CORE_LOCKING */

/* ---- mailboxes ---- */

/* The size lwIP asks for (TCPIP_MBOX_SIZE, DEFAULT_*_RECVMBOX_SIZE); 0 means "unset". */
#define LPA_MBOX_DEFAULT 64

err_t sys_mbox_new(sys_mbox_t *mbox, int size)
{
  struct lpa_sys_mbox *m = calloc(1, sizeof *m);
  unsigned n = size > 0 ? (unsigned)size : LPA_MBOX_DEFAULT;
  if (m)
    m->slot = calloc(n, sizeof *m->slot);
  if (!m || !m->slot) {
    free(m);
    *mbox = NULL;
    return ERR_MEM;
  }
  m->size = n;
  pthread_mutex_init(&m->mu, NULL);
  cond_init(&m->not_empty);
  cond_init(&m->not_full);
  *mbox = m;
  return ERR_OK;
}

static void mbox_put(struct lpa_sys_mbox *m, void *msg)
{
  m->slot[(m->head + m->count) % m->size] = msg;
  m->count++;
  pthread_cond_signal(&m->not_empty);
}

static int mbox_has_room(void *obj)
{
  struct lpa_sys_mbox *m = obj;
  return m->count < m->size;
}

static int mbox_has_msg(void *obj)
{
  return ((struct lpa_sys_mbox *)obj)->count > 0;
}

void sys_mbox_post(sys_mbox_t *mbox, void *msg)
{
  struct lpa_sys_mbox *m = *mbox;
  pthread_mutex_lock(&m->mu);
  wait_for(&m->not_full, &m->mu, mbox_has_room, m, 0);
  mbox_put(m, msg);
  pthread_mutex_unlock(&m->mu);
}

err_t sys_mbox_trypost(sys_mbox_t *mbox, void *msg)
{
  struct lpa_sys_mbox *m = *mbox;
  err_t r = ERR_MEM;
  pthread_mutex_lock(&m->mu);
  if (m->count < m->size) {
    mbox_put(m, msg);
    r = ERR_OK;
  }
  pthread_mutex_unlock(&m->mu);
  if (r != ERR_OK)
    lpa_host_note_mbox_full(msg);
  return r;
}

err_t sys_mbox_trypost_fromisr(sys_mbox_t *mbox, void *msg)
{
  return sys_mbox_trypost(mbox, msg);
}

static void *mbox_take(struct lpa_sys_mbox *m)
{
  void *msg = m->slot[m->head];
  m->head = (m->head + 1) % m->size;
  m->count--;
  pthread_cond_signal(&m->not_full);
  return msg;
}

u32_t sys_arch_mbox_fetch(sys_mbox_t *mbox, void **msg, u32_t timeout)
{
  struct lpa_sys_mbox *m = *mbox;
  pthread_mutex_lock(&m->mu);
  u32_t r = wait_for(&m->not_empty, &m->mu, mbox_has_msg, m, timeout);
  if (r != SYS_ARCH_TIMEOUT) {
    void *got = mbox_take(m);
    if (msg)
      *msg = got;
  }
  pthread_mutex_unlock(&m->mu);
  return r;
}

u32_t sys_arch_mbox_tryfetch(sys_mbox_t *mbox, void **msg)
{
  struct lpa_sys_mbox *m = *mbox;
  u32_t r = SYS_MBOX_EMPTY;
  pthread_mutex_lock(&m->mu);
  if (m->count > 0) {
    void *got = mbox_take(m);
    if (msg)
      *msg = got;
    r = 0;
  }
  pthread_mutex_unlock(&m->mu);
  return r;
}

void sys_mbox_free(sys_mbox_t *mbox)
{
  struct lpa_sys_mbox *m = *mbox;
  if (!m)
    return;
  pthread_cond_destroy(&m->not_empty);
  pthread_cond_destroy(&m->not_full);
  pthread_mutex_destroy(&m->mu);
  free(m->slot);
  free(m);
  *mbox = NULL;
}

int sys_mbox_valid(sys_mbox_t *mbox)
{
  return mbox && *mbox;
}

void sys_mbox_set_invalid(sys_mbox_t *mbox)
{
  *mbox = NULL;
}

/* ---- threads ---- */

struct thread_start {
  lwip_thread_fn fn;
  void *arg;
};

static void *thread_tramp(void *p)
{
  struct thread_start st = *(struct thread_start *)p;
  free(p);
  st.fn(st.arg);
  return NULL;
}

/* Threads are detached: lwIP never joins them (the tcpip thread runs until exit). They
 * inherit the caller's signal mask, so a program that blocks SIGTERM before bring-up keeps
 * signal handling on its own main thread. */
sys_thread_t sys_thread_new(const char *name, lwip_thread_fn thread, void *arg, int stacksize,
                            int prio)
{
  pthread_t t;
  struct thread_start *st = malloc(sizeof *st);
  (void)stacksize;
  (void)prio;
  if (!st)
    LWIP_PLATFORM_ASSERT("sys_thread_new: out of memory");
  st->fn = thread;
  st->arg = arg;
  if (pthread_create(&t, NULL, thread_tramp, st) != 0)
    LWIP_PLATFORM_ASSERT("sys_thread_new: pthread_create failed");
  pthread_detach(t);
  if (name) {
    char n[16];
    strncpy(n, name, sizeof n - 1);
    n[sizeof n - 1] = '\0';
    pthread_setname_np(t, n);
  }
  return t;
}

#endif /* !NO_SYS */

/* The cooperative scheduler of rtos.h. A switch saves what the C calling convention says a
 * called function keeps (r4-r11, the return address, and s16-s31 of the hard-float ABI) on
 * the old thread's stack and restores them from the new one's: a switch is a function call
 * that returns in another thread. */
#include "rtos.h"

#include "board.h"

/* Written at the bottom of every thread stack; found overwritten, the stack overflowed. */
#define STACK_CANARY 0x5354414bu
#define STACK_DEFAULT 2048u

struct thread {
  uint32_t *sp; /* saved while another thread runs */
  int (*ready)(const void *obj);
  const void *obj;
  uint32_t deadline; /* board_ms(), when `timed` */
  uint8_t timed;
  uint32_t *bottom; /* the canary's word; NULL for main's stack */
  void (*fn)(void *);
  void *arg;
};

static struct thread threads[1 + RTOS_MAX_THREADS];
static unsigned nthreads, cur;
static uint32_t slice_start;
static uint64_t switches;
static uint64_t arena[RTOS_STACK_ARENA / 8]; /* 8-byte aligned, as the ABI wants stacks */
static unsigned arena_used;                  /* in uint64_t */

static int always(const void *obj)
{
  (void)obj;
  return 1;
}

static int never(const void *obj)
{
  (void)obj;
  return 0;
}

/* Saves the callee-saved registers on the running stack, stores its pointer in *save, and
 * continues on `load`'s stack where it left off (or, for a new thread, at thread_entry). */
__attribute__((naked)) static void ctx_switch(uint32_t **save, uint32_t *load)
{
  (void)save;
  (void)load;
  __asm volatile("push {r4-r11, lr}\n\t"
                 "vpush {s16-s31}\n\t"
                 "mov r2, sp\n\t"
                 "str r2, [r0]\n\t"
                 "mov sp, r1\n\t"
                 "vpop {s16-s31}\n\t"
                 "pop {r4-r11, pc}\n\t");
}

static int runnable(const struct thread *t, uint32_t now)
{
  return t->ready(t->obj) || (t->timed && (int32_t)(now - t->deadline) >= 0);
}

static int any_runnable(void)
{
  uint32_t now = board_ms();
  for (unsigned i = 0; i < nthreads; i++) {
    if (runnable(&threads[i], now))
      return 1;
  }
  return 0;
}

/* Switches to the next thread that can run, the caller last; sleeps while none can. */
static void schedule(void)
{
  const struct thread *self = &threads[cur];
  if (self->bottom && *self->bottom != STACK_CANARY) {
    board_puts("fatal: a thread's stack overflowed (raise its size)\n");
    for (;;)
      __asm volatile("wfi");
  }
  for (;;) {
    uint32_t now = board_ms();
    for (unsigned k = 1; k <= nthreads; k++) {
      unsigned i = (cur + k) % nthreads;
      if (!runnable(&threads[i], now))
        continue;
      if (i != cur) {
        unsigned from = cur;
        cur = i;
        switches++;
        ctx_switch(&threads[from].sp, threads[i].sp);
      }
      slice_start = board_ms();
      return;
    }
    board_idle(any_runnable);
  }
}

static void thread_entry(void)
{
  struct thread *t = &threads[cur];
  t->fn(t->arg);
  t->ready = never;
  t->timed = 0;
  for (;;)
    schedule();
}

void rtos_init(void)
{
  threads[0].ready = always;
  nthreads = 1;
  cur = 0;
  slice_start = board_ms();
}

int rtos_thread_new(void (*fn)(void *), void *arg, unsigned stack_bytes)
{
  unsigned words64 = ((stack_bytes ? stack_bytes : STACK_DEFAULT) + 7u) / 8u;
  if (nthreads == 1 + RTOS_MAX_THREADS || words64 > RTOS_STACK_ARENA / 8 - arena_used)
    return -1;
  struct thread *t = &threads[nthreads];
  uint32_t *bottom = (uint32_t *)&arena[arena_used];
  arena_used += words64;
  uint32_t *top = (uint32_t *)&arena[arena_used];
  /* What ctx_switch pops: s16-s31, r4-r11, then the address it "returns" to. */
  uint32_t *sp = top - (16 + 8 + 1);
  for (uint32_t *w = bottom; w < top; w++)
    *w = 0;
  *bottom = STACK_CANARY;
  sp[16 + 8] = (uint32_t)(uintptr_t)thread_entry;
  t->sp = sp;
  t->bottom = bottom;
  t->fn = fn;
  t->arg = arg;
  t->ready = always;
  t->timed = 0;
  return (int)nthreads++;
}

int rtos_wait(int (*ready)(const void *obj), const void *obj, uint32_t timeout_ms)
{
  if (ready(obj))
    return 1;
  struct thread *t = &threads[cur];
  t->ready = ready;
  t->obj = obj;
  t->timed = timeout_ms != 0;
  t->deadline = board_ms() + timeout_ms;
  schedule();
  int ok = ready(obj);
  t->ready = always;
  t->timed = 0;
  return ok;
}

void rtos_yield(void)
{
  threads[cur].ready = always;
  schedule();
}

uint64_t rtos_switches(void)
{
  return switches;
}

void rtos_slice(void)
{
  if (board_ms() - slice_start >= RTOS_SLICE_MS)
    rtos_yield();
}

/* lwIP's operating-system layer for the firmware's NO_SYS=0 builds: semaphores, mutexes,
 * mailboxes and threads on the cooperative scheduler of rtos.h. The clock and the protection
 * lock are main.c's, shared with the NO_SYS=1 build. Like lwIP's FreeRTOS port, a mailbox
 * needs a size: lwIP's default of 0 for TCPIP_MBOX_SIZE and DEFAULT_*_MBOX_SIZE stops the
 * firmware with a message saying what to set. */
#include "lwip/opt.h"

#if !NO_SYS

#include "board.h"
#include "lwip/memp.h"
#include "lwip/sys.h"
#include "rtos.h"
#include "../lpa_netbuf_pool.h"

/* Mailboxes alive at once: tcpip's, and a receive and an accept mailbox per netconn. */
#define MBOX_POOL (1 + 2 * MEMP_NUM_NETCONN)
#define MBOX_MAX_SLOTS 16

static void *mbox_slots[MBOX_POOL][MBOX_MAX_SLOTS];
static uint8_t mbox_taken[MBOX_POOL];
/* UDP datagrams lwIP took in but could not queue for the application: its netconn's receive
 * mailbox was full (api_msg.c recv_udp drops them without a trace). */
static uint64_t udp_mbox_full;

uint64_t sys_arch_udp_drops(void)
{
  /* and recv_udp's netbuf allocations that failed: the datagram is freed unseen */
  return udp_mbox_full + memp_pools[MEMP_NETBUF]->stats->err;
}

/* "fatal: WHY DETAIL" on the console, then stop: the test sees "fatal:" at once. */
static void stop(const char *why, const char *detail)
{
  board_puts("fatal: ");
  board_puts(why);
  board_puts(detail);
  board_puts("\n");
  for (;;)
    __asm volatile("wfi");
}

void sys_init(void)
{
  rtos_init();
}

static int sem_positive(const void *obj)
{
  return ((const sys_sem_t *)obj)->count > 0;
}

err_t sys_sem_new(sys_sem_t *sem, u8_t count)
{
  sem->count = count;
  sem->valid = 1;
  return ERR_OK;
}

void sys_sem_free(sys_sem_t *sem)
{
  sem->valid = 0;
}

void sys_sem_signal(sys_sem_t *sem)
{
  sem->count++;
}

u32_t sys_arch_sem_wait(sys_sem_t *sem, u32_t timeout)
{
  u32_t t0 = sys_now();
  if (!rtos_wait(sem_positive, sem, timeout))
    return SYS_ARCH_TIMEOUT;
  sem->count--;
  return sys_now() - t0;
}

static int mutex_free(const void *obj)
{
  return !((const sys_mutex_t *)obj)->locked;
}

err_t sys_mutex_new(sys_mutex_t *mutex)
{
  mutex->locked = 0;
  mutex->valid = 1;
  return ERR_OK;
}

void sys_mutex_free(sys_mutex_t *mutex)
{
  mutex->valid = 0;
}

/* The agent's and lwIP's core lock are taken around every piece of work: the place where a
 * thread that has run a whole time slice lets the others run. */
void sys_mutex_lock(sys_mutex_t *mutex)
{
  rtos_slice();
  rtos_wait(mutex_free, mutex, 0);
  mutex->locked = 1;
}

void sys_mutex_unlock(sys_mutex_t *mutex)
{
  mutex->locked = 0;
}

static int mbox_has_mail(const void *obj)
{
  return ((const sys_mbox_t *)obj)->count > 0;
}

static int mbox_has_room(const void *obj)
{
  const sys_mbox_t *m = obj;
  return m->count < m->size;
}

err_t sys_mbox_new(sys_mbox_t *mbox, int size)
{
  if (size <= 0)
    stop("sys_mbox_new: size 0 -- set TCPIP_MBOX_SIZE, DEFAULT_TCP_RECVMBOX_SIZE, "
         "DEFAULT_UDP_RECVMBOX_SIZE and DEFAULT_ACCEPTMBOX_SIZE in lwipopts.h", "");
  if (size > MBOX_MAX_SLOTS)
    return ERR_MEM;
  for (unsigned i = 0; i < MBOX_POOL; i++) {
    if (!mbox_taken[i]) {
      mbox_taken[i] = 1;
      mbox->pool = (uint8_t)i;
      mbox->head = mbox->count = 0;
      mbox->size = (uint16_t)size;
      mbox->valid = 1;
      return ERR_OK;
    }
  }
  return ERR_MEM;
}

void sys_mbox_free(sys_mbox_t *mbox)
{
  mbox_taken[mbox->pool] = 0;
  mbox->valid = 0;
}

static void mbox_put(sys_mbox_t *m, void *msg)
{
  mbox_slots[m->pool][(m->head + m->count) % m->size] = msg;
  m->count++;
}

static void *mbox_take(sys_mbox_t *m)
{
  void *msg = mbox_slots[m->pool][m->head];
  m->head = (uint16_t)((m->head + 1u) % m->size);
  m->count--;
  return msg;
}

void sys_mbox_post(sys_mbox_t *mbox, void *msg)
{
  rtos_wait(mbox_has_room, mbox, 0);
  mbox_put(mbox, msg);
}

err_t sys_mbox_trypost(sys_mbox_t *mbox, void *msg)
{
  if (!mbox_has_room(mbox)) {
    udp_mbox_full += lpa_is_pool_netbuf(msg);
    return ERR_MEM;
  }
  mbox_put(mbox, msg);
  return ERR_OK;
}

err_t sys_mbox_trypost_fromisr(sys_mbox_t *mbox, void *msg)
{
  return sys_mbox_trypost(mbox, msg);
}

u32_t sys_arch_mbox_fetch(sys_mbox_t *mbox, void **msg, u32_t timeout)
{
  u32_t t0 = sys_now();
  void *m;
  if (!rtos_wait(mbox_has_mail, mbox, timeout))
    return SYS_ARCH_TIMEOUT;
  m = mbox_take(mbox);
  if (msg)
    *msg = m;
  return sys_now() - t0;
}

u32_t sys_arch_mbox_tryfetch(sys_mbox_t *mbox, void **msg)
{
  void *m;
  if (!mbox_has_mail(mbox))
    return SYS_MBOX_EMPTY;
  m = mbox_take(mbox);
  if (msg)
    *msg = m;
  return 0;
}

/* lwIP's threads live as long as the firmware: their stacks are never given back. `prio` has
 * no meaning for a scheduler that takes turns. */
sys_thread_t sys_thread_new(const char *name, lwip_thread_fn thread, void *arg, int stacksize,
                            int prio)
{
  int id = rtos_thread_new(thread, arg, stacksize > 0 ? (unsigned)stacksize : 0u);
  (void)prio;
  if (id < 0)
    stop("no room for thread ", name);
  return id;
}

#endif /* !NO_SYS */

/* Types behind lwIP's sys_arch API for the pthread port (sys_arch.c). Every object is a
 * pointer to a heap block: NULL means "invalid", which is what lwIP's *_valid() asks. */
#ifndef LPA_ARCH_SYS_ARCH_H
#define LPA_ARCH_SYS_ARCH_H

#include <pthread.h>

#define SYS_MBOX_NULL NULL
#define SYS_SEM_NULL  NULL

struct lpa_sys_sem;
struct lpa_sys_mutex;
struct lpa_sys_mbox;
typedef struct lpa_sys_sem *sys_sem_t;
typedef struct lpa_sys_mutex *sys_mutex_t;
typedef struct lpa_sys_mbox *sys_mbox_t;
typedef pthread_t sys_thread_t;
/* sys_arch_protect() nests (one recursive mutex); the level value is unused. */
typedef int sys_prot_t;

/* Core-lock bookkeeping behind LOCK_TCPIP_CORE / LWIP_ASSERT_CORE_LOCKED (lwipopts.h):
 * a raw-API call from a thread that does not hold the lock aborts instead of corrupting
 * the stack some time later. */
void lpa_sys_core_lock(void);
void lpa_sys_core_unlock(void);
void lpa_sys_assert_core_locked(void);
void lpa_sys_mark_tcpip_thread(void);

#endif

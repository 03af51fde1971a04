/* sys_arch types for the NO_SYS=0 footprint configurations: opaque pointers as a FreeRTOS port
 * has them (SemaphoreHandle_t, QueueHandle_t, TaskHandle_t are pointers to kernel objects).
 * Enough to compile the netconn and socket back ends; nothing implements them here. */
#ifndef LPA_CM4_ARCH_SYS_ARCH_H
#define LPA_CM4_ARCH_SYS_ARCH_H

#include <stdint.h>

struct lpa_cm4_rtos_object;
typedef struct lpa_cm4_rtos_object *sys_sem_t;
typedef struct lpa_cm4_rtos_object *sys_mutex_t;
typedef struct lpa_cm4_rtos_object *sys_mbox_t;
typedef struct lpa_cm4_rtos_object *sys_thread_t;
/* The saved interrupt mask (PRIMASK / BASEPRI) of sys_arch_protect(). */
typedef uint32_t sys_prot_t;

#define SYS_MBOX_NULL ((sys_mbox_t)0)
#define SYS_SEM_NULL ((sys_sem_t)0)

#endif

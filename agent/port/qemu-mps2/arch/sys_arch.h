/* lwIP's OS types for the firmware's NO_SYS=0 builds, on the cooperative scheduler of rtos.h
 * (sys_arch.c). No locking inside them: a thread is only switched out when it waits. */
#ifndef LPA_QEMU_ARCH_SYS_ARCH_H
#define LPA_QEMU_ARCH_SYS_ARCH_H

#include <stdint.h>

typedef struct {
  uint32_t count;
  uint8_t valid;
} sys_sem_t;

typedef struct {
  uint8_t locked, valid;
} sys_mutex_t;

/* A ring of `size` slots from sys_arch.c's pool (`pool` is its index). */
typedef struct {
  uint16_t head, count, size;
  uint8_t pool, valid;
} sys_mbox_t;

typedef int sys_thread_t;

/* Datagrams lwIP dropped between its UDP input and the agent (sys_arch.c), for `link`. */
uint64_t sys_arch_udp_drops(void);

#define sys_sem_valid(s) ((s)->valid)
#define sys_sem_set_invalid(s) ((s)->valid = 0)
#define sys_mutex_valid(m) ((m)->valid)
#define sys_mutex_set_invalid(m) ((m)->valid = 0)
#define sys_mbox_valid(m) ((m)->valid)
#define sys_mbox_set_invalid(m) ((m)->valid = 0)

#endif

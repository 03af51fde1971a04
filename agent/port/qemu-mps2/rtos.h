/* A small cooperative scheduler for the firmware's NO_SYS=0 builds (the netconn and socket back
 * ends): enough of an RTOS for lwIP's sys_arch (sys_arch.c) -- threads on static stacks, and
 * waiting for a condition with a timeout. Debian packages no RTOS for Cortex-M, and lwIP needs
 * only this much of one.
 *
 * A thread runs until it waits (rtos_wait) or yields (rtos_yield); the next thread whose
 * condition holds, or whose timeout passed, runs then, in turn. When none can run the core
 * sleeps until an interrupt (board_idle), so `cpu` counts busy ticks as in the NO_SYS build.
 * Nothing here runs in an interrupt: lwIP and the agent only ever run in threads. */
#ifndef LPA_QEMU_RTOS_H
#define LPA_QEMU_RTOS_H

#include <stdint.h>

/* Threads besides the one main() runs in: lwIP's tcpip thread and the agent's. */
#define RTOS_MAX_THREADS 4
/* Static memory all thread stacks come from (bytes). */
#define RTOS_STACK_ARENA (24 * 1024)
/* A thread that has run this long without waiting lets the others run at its next lock
 * (sys_mutex_lock): a stand-in for an RTOS's time slice. */
#define RTOS_SLICE_MS 1

/* Makes the caller (main) thread 0. */
void rtos_init(void);
/* A new thread running fn(arg) with `stack_bytes` of stack (0: 2048); -1 when the threads or
 * the arena are used up. A thread that returns waits forever. */
int rtos_thread_new(void (*fn)(void *), void *arg, unsigned stack_bytes);
/* Runs the others until ready(obj) holds (1) or `timeout_ms` passed (0); timeout_ms 0 waits
 * forever. ready() is called from other threads' turns: it must only read. */
int rtos_wait(int (*ready)(const void *obj), const void *obj, uint32_t timeout_ms);
/* Lets every other thread that can run take a turn first. */
void rtos_yield(void);
/* Yields if the caller has run for RTOS_SLICE_MS without waiting. */
void rtos_slice(void);
/* Thread switches since boot (the `cpu` command: what an RTOS would spend a switch on). */
uint64_t rtos_switches(void);

#endif

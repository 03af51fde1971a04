/* Compiler and platform glue of lwIP for the QEMU firmware (newlib, Cortex-M4). */
#ifndef LPA_QEMU_ARCH_CC_H
#define LPA_QEMU_ARCH_CC_H

#include <stdint.h>

#define BYTE_ORDER LITTLE_ENDIAN
#define LWIP_PROVIDE_ERRNO 1

/* The saved PRIMASK of sys_arch_protect() (main.c). */
typedef uint32_t sys_prot_t;

/* A failed assertion says where on the console and stops: the test sees "fatal:" at once. */
void board_assert(const char *msg, const char *file, int line);
#define LWIP_PLATFORM_ASSERT(x) board_assert((x), __FILE__, __LINE__)
#define LWIP_PLATFORM_DIAG(x) do { } while (0)

#endif

/* Compiler/platform glue for lwIP on Linux (x86_64, aarch64): lwIP reads this through
 * lwip/arch.h. It only pins down what lwIP cannot guess; everything else keeps lwIP's default. */
#ifndef LPA_ARCH_CC_H
#define LPA_ARCH_CC_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>   /* struct timeval for lwip/sockets.h (LWIP_TIMEVAL_PRIVATE 0) */

/* errno values come from the C library so lwIP's socket errors read like Linux ones. */
#define LWIP_ERRNO_STDINCLUDE 1

/* glibc's <endian.h> already says which; lwIP's own default would be little-endian too,
 * but say it explicitly so a big-endian host fails loudly instead of silently. */
#include <endian.h>
#ifndef BYTE_ORDER
#error "BYTE_ORDER not defined by <endian.h>"
#endif

#define LWIP_PLATFORM_DIAG(x) do { printf x; fflush(stdout); } while (0)
/* An lwIP assertion is a bug in the stack's use: stop where it happened (core dump). */
#define LWIP_PLATFORM_ASSERT(x) do { \
    fprintf(stderr, "lwIP assertion \"%s\" failed at %s:%d\n", x, __FILE__, __LINE__); \
    fflush(NULL); abort(); } while (0)

#endif

/* Compiler glue for lwIP on a Cortex-M4 without an OS, as the footprint build uses it (it is
 * compiled, never linked or run). It pins down what lwIP would otherwise take from a hosted C
 * library: no printf, no abort, errno values of lwIP's own. */
#ifndef LPA_CM4_ARCH_CC_H
#define LPA_CM4_ARCH_CC_H

/* Cortex-M runs little-endian on every part this build stands for. */
#define BYTE_ORDER LITTLE_ENDIAN

/* newlib has errno.h, but a board build usually lets lwIP number its own socket errors. */
#define LWIP_PROVIDE_ERRNO 1

/* A failed assertion stops in place for the debugger, without the message strings (no stdio on
 * the board; on a real board put a breakpoint or a UART write here). Built this way lwIP 2.1.3's
 * lwiperf.o is 3342 bytes of text, the figure the project compares the agent with. */
#define LWIP_PLATFORM_ASSERT(x) do { (void)(x); for (;;) { } } while (0)
#define LWIP_PLATFORM_DIAG(x) do { } while (0)

/* lwIP asks for randomness for initial sequence numbers and ports; a board has a hardware RNG
 * or a timer to mix. */
unsigned long lpa_board_rand(void);
#define LWIP_RAND() ((u32_t)lpa_board_rand())

#endif

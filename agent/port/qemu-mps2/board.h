/* The parts of QEMU's mps2-an386 board the firmware uses: the console UART (CMSDK APB UART 0),
 * SysTick as the millisecond clock, the interrupt controller, and sleeping until an interrupt. */
#ifndef LPA_QEMU_BOARD_H
#define LPA_QEMU_BOARD_H

#include <stdint.h>

#define REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* The core clock QEMU gives the an386 image (its SYSCLK). */
#define BOARD_CPU_HZ 25000000u
#define BOARD_IRQ_UART0_RX 0
#define BOARD_IRQ_ETH 13

void board_init(void);
void board_irq_enable(unsigned irq);
/* Console: blocking write (QEMU's UART takes bytes at once), non-blocking read (-1: none). */
void board_putc(char c);
void board_puts(const char *s);
int board_getc(void);
/* Milliseconds since boot (SysTick), and the core clock's ticks since boot (24 bits of SysTick
 * below the millisecond count): with QEMU's -icount shift=0 every instruction is 1 ns of virtual
 * time, so the difference of two readings counts instructions, in steps of 40. */
uint32_t board_ms(void);
uint32_t board_us(void);
uint64_t board_ticks(void);
/* Sleeps until an interrupt unless `pending()` says there is work (checked with interrupts
 * masked, so a wake-up cannot slip in between). Returns the core ticks spent asleep. */
uint64_t board_idle(int (*pending)(void));
/* All the ticks board_idle() spent asleep since boot. */
uint64_t board_asleep_ticks(void);

void board_systick_handler(void);
void board_uart_rx_handler(void);
void board_eth_handler(void);

#endif

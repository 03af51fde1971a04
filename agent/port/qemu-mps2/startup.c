/* Reset and exception vectors of the mps2-an386 firmware: the Cortex-M4 core's 16 entries and
 * the board's first 32 interrupts, of which the console UART's receive (IRQ 0) and the LAN9118
 * (IRQ 13) are used. */
#include <stdint.h>
#include <string.h>

#include "board.h"

extern uint32_t _stack_top, _data_load, _data_start, _data_end, _bss_start, _bss_end;
int main(void);

void reset_handler(void);
static void fault_handler(void);
static void unused_handler(void);

void reset_handler(void)
{
  memcpy(&_data_start, &_data_load, (size_t)((char *)&_data_end - (char *)&_data_start));
  memset(&_bss_start, 0, (size_t)((char *)&_bss_end - (char *)&_bss_start));
  /* The build uses the FPU's calling convention (-mfloat-abi=hard): grant access to it
   * (CPACR CP10/CP11) before any code could touch its registers. */
  REG32(0xE000ED88) |= 0xFu << 20;
  __asm volatile("dsb\n\tisb" ::: "memory");
  main();
  for (;;)
    __asm volatile("wfi");
}

/* A fault says so on the console and stops; the test sees the line and fails at once. */
static void fault_handler(void)
{
  board_puts("fatal: CPU fault\n");
  for (;;)
    __asm volatile("wfi");
}

static void unused_handler(void)
{
  board_puts("fatal: unexpected interrupt\n");
  for (;;)
    __asm volatile("wfi");
}

/* Every entry spelled out: -Wextra forbids overriding a range initializer. */
__attribute__((section(".vectors"), used))
static void (*const vectors[16 + 32])(void) = {
  (void (*)(void))&_stack_top, reset_handler,
  fault_handler, fault_handler, fault_handler, fault_handler, fault_handler, /* NMI..usage */
  unused_handler, unused_handler, unused_handler, unused_handler,           /* reserved */
  unused_handler, unused_handler, unused_handler, unused_handler,           /* SVC..PendSV */
  board_systick_handler,
  /* IRQ 0: UART 0 receive; 13: LAN9118 */
  board_uart_rx_handler, unused_handler, unused_handler, unused_handler,
  unused_handler, unused_handler, unused_handler, unused_handler,
  unused_handler, unused_handler, unused_handler, unused_handler,
  unused_handler, board_eth_handler, unused_handler, unused_handler,
  unused_handler, unused_handler, unused_handler, unused_handler,
  unused_handler, unused_handler, unused_handler, unused_handler,
  unused_handler, unused_handler, unused_handler, unused_handler,
  unused_handler, unused_handler, unused_handler, unused_handler,
};

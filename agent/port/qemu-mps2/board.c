/* mps2-an386 board support: console UART, SysTick clock, NVIC and idle. Register layouts are
 * ARM's CMSDK APB UART (DDI0479) and the ARMv7-M system control space. */
#include "board.h"

#define UART0 0x40004000u
#define UART_DATA (UART0 + 0x00)
#define UART_STATE (UART0 + 0x04) /* bit 0: TX full, bit 1: RX full */
#define UART_CTRL (UART0 + 0x08)  /* bit 0: TX enable, 1: RX enable, 3: RX interrupt */
#define UART_INTSTATUS (UART0 + 0x0C)
#define UART_BAUDDIV (UART0 + 0x10)

#define SYST_CSR 0xE000E010u
#define SYST_RVR 0xE000E014u
#define SYST_CVR 0xE000E018u
#define NVIC_ISER0 0xE000E100u
#define ICSR 0xE000ED04u

#define TICKS_PER_MS (BOARD_CPU_HZ / 1000u)

static volatile uint32_t ms_count;
static uint64_t asleep_ticks;

void board_init(void)
{
  REG32(UART_BAUDDIV) = 16; /* the smallest divisor the UART accepts; QEMU ignores the rate */
  REG32(UART_CTRL) = 0x1 | 0x2 | 0x8;
  REG32(SYST_RVR) = TICKS_PER_MS - 1;
  REG32(SYST_CVR) = 0;
  REG32(SYST_CSR) = 0x7; /* core clock, interrupt, enable */
  board_irq_enable(BOARD_IRQ_UART0_RX);
}

void board_irq_enable(unsigned irq)
{
  REG32(NVIC_ISER0 + 4 * (irq / 32)) = 1u << (irq % 32);
}

void board_systick_handler(void)
{
  ms_count++;
}

/* Only wakes the main loop, which reads the byte. */
void board_uart_rx_handler(void)
{
  REG32(UART_INTSTATUS) = 0x2;
}

void board_putc(char c)
{
  while (REG32(UART_STATE) & 1)
    ;
  REG32(UART_DATA) = (uint8_t)c;
}

void board_puts(const char *s)
{
  while (*s)
    board_putc(*s++);
}

int board_getc(void)
{
  if (!(REG32(UART_STATE) & 2))
    return -1;
  return (int)(REG32(UART_DATA) & 0xff);
}

uint32_t board_ms(void)
{
  return ms_count;
}

uint64_t board_ticks(void)
{
  for (;;) {
    uint32_t ms = ms_count, cvr = REG32(SYST_CVR);
    /* With interrupts masked (board_idle) a wrap leaves its SysTick pending and the count
     * behind: the pending bit stands for that millisecond. */
    uint32_t pend = (REG32(ICSR) >> 26) & 1u;
    if (REG32(SYST_CVR) > cvr || ms != ms_count)
      continue; /* the counter wrapped between the reads */
    return (uint64_t)(ms + pend) * TICKS_PER_MS + (TICKS_PER_MS - 1 - cvr);
  }
}

uint32_t board_us(void)
{
  return (uint32_t)(board_ticks() / (BOARD_CPU_HZ / 1000000u));
}

uint64_t board_idle(int (*pending)(void))
{
  uint64_t t0, t1;
  __asm volatile("cpsid i" ::: "memory");
  if (pending()) {
    __asm volatile("cpsie i" ::: "memory");
    return 0;
  }
  t0 = board_ticks();
  __asm volatile("dsb\n\twfi" ::: "memory");
  t1 = board_ticks();
  __asm volatile("cpsie i" ::: "memory");
  if (t1 <= t0)
    return 0;
  asleep_ticks += t1 - t0;
  return t1 - t0;
}

uint64_t board_asleep_ticks(void)
{
  return asleep_ticks;
}

/* Agent options of the QEMU firmware: the defaults, and a microsecond clock from SysTick (as
 * the README's recipes advise) so UDP jitter is not in whole milliseconds. */
#ifndef LPA_QEMU_CONFIG_H
#define LPA_QEMU_CONFIG_H

#include "board.h"

#define LPA_NOW_US() board_us()

#endif

/* What every harness in tests/fuzz defines: libFuzzer's entry point. make fuzz links it with
 * libFuzzer's own main; replay.c calls it once per corpus file in the ordinary test builds. */
#ifndef LP_FUZZ_H
#define LP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Never fails on its input (returns 0); whatever it allocates it frees before returning. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

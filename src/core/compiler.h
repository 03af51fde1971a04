/* Compiler annotations shared by the engine and its tests. */
#ifndef LP_CORE_COMPILER_H
#define LP_CORE_COMPILER_H

/* LP_WRAPS marks a function whose unsigned arithmetic wraps modulo 2^N on purpose (a PRNG, a
 * hash, sequence numbers modulo 2^32): clang's -fsanitize=integer (make check-asan's clang
 * build) reports every unsigned overflow and every shift that pushes bits out of an unsigned
 * value, because outside such functions one is a bug. C defines both, so the annotation
 * changes no code, only what the sanitizer checks. Put it on the smallest function that
 * wraps, with a comment saying why the wrap is intended. GCC has neither check: nothing. */
#if defined(__clang__) && __clang_major__ >= 12 /* unsigned-shift-base: clang 12 */
#define LP_WRAPS __attribute__((no_sanitize("unsigned-integer-overflow", "unsigned-shift-base")))
#else
#define LP_WRAPS
#endif

#endif

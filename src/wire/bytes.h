/* Big-endian 16- and 32-bit fields, the byte order of every iperf2 and iperf3 header, for the
 * codecs of wire/ and their callers (the host's dialects and the board agent). Inline: on a
 * Cortex-M a 32-bit field is one load or store and a byte reverse, smaller than a call. */
#ifndef LP_WIRE_BYTES_H
#define LP_WIRE_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint32_t lp_wire_get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return __builtin_bswap32(v);
}

static inline void lp_wire_put32(uint8_t *p, uint32_t v)
{
    v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}
#else
static inline uint32_t lp_wire_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void lp_wire_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
#endif

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint16_t lp_wire_get16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return __builtin_bswap16(v);
}

static inline void lp_wire_put16(uint8_t *p, uint16_t v)
{
    v = __builtin_bswap16(v);
    memcpy(p, &v, 2);
}
#else
static inline uint16_t lp_wire_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void lp_wire_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
#endif

/* A 32-bit constant as the four bytes of a static initializer, in wire order: a fixed message
 * can then live in flash as data instead of being built by code. */
#define LP_WIRE_BE32(v) (uint8_t)((uint32_t)(v) >> 24), (uint8_t)((uint32_t)(v) >> 16), \
                        (uint8_t)((uint32_t)(v) >> 8), (uint8_t)(uint32_t)(v)

#endif

/* iperf2 --bounceback (2.1.8): TCP request/response. Every message the client writes is
 * -l bytes that start with this header; the server stamps its receive and send times into
 * it and writes the same bytes back. There is no test header and no end-of-test report: the
 * client just closes (2.1.8 never sends the STOP flag it defines). Big-endian fields, offsets
 * from the start of each message (captures: tests/golden/evidence/iperf2/bounceback.txt).
 * Freestanding C99, no I/O: the host and the board agent share it. */
#ifndef LP_WIRE_IPERF2_BB_H
#define LP_WIRE_IPERF2_BB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/bytes.h"

#define LP_I2_BB_FLAGS 0x00800000u /* the first word of every message (LP_I2_BOUNCEBACK) */
/* 2.1.8's listener reads the 4-byte flags word and then a 60-byte struct bounceback_hdr
 * (which itself starts with the flags): a message is at least 64 bytes. */
#define LP_I2_BB_MIN 64u
#define LP_I2_BB_DEFAULT 100u      /* 2.1.8's -l default with --bounceback */
#define LP_I2_BB_MAX (1024u * 1024u)
#define LP_I2_BB_HDR_LEN 60u       /* bytes the client fills (0x5A past its last field) */
#define LP_I2_BB_HOLD_MAX_US 10000000u /* the longest hold a server grants (10 s) */

/* bbflags */
#define LP_I2_BB_QUICKACK 0x8000u  /* the server sets TCP_QUICKACK before it holds */
#define LP_I2_BB_CLOCKSYNCED 0x4000u /* --trip-times: the clocks agree */
#define LP_I2_BB_TOS 0x2000u       /* the tos field is set */
#define LP_I2_BB_STOP 0x1000u      /* the last message (defined; 2.1.8 does not send it) */

/* Offsets */
#define LP_I2_BB_OFF_SIZE 4u
#define LP_I2_BB_OFF_ID 8u         /* the burst number */
#define LP_I2_BB_OFF_BBFLAGS 12u
#define LP_I2_BB_OFF_TOS 14u
#define LP_I2_BB_OFF_RUNTIME 16u   /* 10 ms units; 2.1.8 sends 0 */
#define LP_I2_BB_OFF_CLIENT_TX 20u /* sec, usec (wall clock) */
#define LP_I2_BB_OFF_SERVER_RX 28u /* the server fills these two; the client sends all ones */
#define LP_I2_BB_OFF_SERVER_TX 36u
#define LP_I2_BB_OFF_HOLD 44u      /* µs the server waits before it answers */

struct lp_i2_bb {
    uint32_t size;                 /* bytes per message, both ways */
    uint32_t id;
    uint16_t bbflags, tos;
    uint32_t client_tx_sec, client_tx_usec;
    uint32_t server_rx_sec, server_rx_usec, server_tx_sec, server_tx_usec;
    uint32_t hold_us;
};

/* Whether p starts a bounceback message: 2.1.8 looks at this one bit of the flags word. */
static inline bool lp_i2_bb_is(const uint8_t *p)
{
    return (lp_wire_get32(p) & LP_I2_BB_FLAGS) != 0;
}

/* The fields of a message's first LP_I2_BB_MIN bytes (false when len is shorter or it is
 * not a bounceback message). size is not checked against the bounds: callers do. */
static inline bool lp_i2_bb_decode(const uint8_t *p, size_t len, struct lp_i2_bb *b)
{
    if (len < LP_I2_BB_MIN || !lp_i2_bb_is(p))
        return false;
    b->size = lp_wire_get32(p + LP_I2_BB_OFF_SIZE);
    b->id = lp_wire_get32(p + LP_I2_BB_OFF_ID);
    b->bbflags = lp_wire_get16(p + LP_I2_BB_OFF_BBFLAGS);
    b->tos = lp_wire_get16(p + LP_I2_BB_OFF_TOS);
    b->client_tx_sec = lp_wire_get32(p + LP_I2_BB_OFF_CLIENT_TX);
    b->client_tx_usec = lp_wire_get32(p + LP_I2_BB_OFF_CLIENT_TX + 4);
    b->server_rx_sec = lp_wire_get32(p + LP_I2_BB_OFF_SERVER_RX);
    b->server_rx_usec = lp_wire_get32(p + LP_I2_BB_OFF_SERVER_RX + 4);
    b->server_tx_sec = lp_wire_get32(p + LP_I2_BB_OFF_SERVER_TX);
    b->server_tx_usec = lp_wire_get32(p + LP_I2_BB_OFF_SERVER_TX + 4);
    b->hold_us = lp_wire_get32(p + LP_I2_BB_OFF_HOLD);
    return true;
}

/* A client's message header into p[0..LP_I2_BB_HDR_LEN): the server's times all ones and
 * the rest 0x5A, as 2.1.8 writes them. */
static inline void lp_i2_bb_encode(uint8_t *p, const struct lp_i2_bb *b)
{
    for (size_t i = 0; i < LP_I2_BB_HDR_LEN; i++)
        p[i] = 0x5A;
    lp_wire_put32(p, LP_I2_BB_FLAGS);
    lp_wire_put32(p + LP_I2_BB_OFF_SIZE, b->size);
    lp_wire_put32(p + LP_I2_BB_OFF_ID, b->id);
    lp_wire_put16(p + LP_I2_BB_OFF_BBFLAGS, b->bbflags);
    if (b->bbflags & LP_I2_BB_TOS)
        lp_wire_put16(p + LP_I2_BB_OFF_TOS, b->tos);
    lp_wire_put32(p + LP_I2_BB_OFF_RUNTIME, 0);
    lp_wire_put32(p + LP_I2_BB_OFF_CLIENT_TX, b->client_tx_sec);
    lp_wire_put32(p + LP_I2_BB_OFF_CLIENT_TX + 4, b->client_tx_usec);
    for (unsigned off = LP_I2_BB_OFF_SERVER_RX; off < LP_I2_BB_OFF_HOLD; off += 4)
        lp_wire_put32(p + off, 0xFFFFFFFFu);
    lp_wire_put32(p + LP_I2_BB_OFF_HOLD, b->hold_us);
}

/* The server's stamp: its receive or send time (off: LP_I2_BB_OFF_SERVER_RX or _TX). */
static inline void lp_i2_bb_stamp(uint8_t *p, unsigned off, uint32_t sec, uint32_t usec)
{
    lp_wire_put32(p + off, sec);
    lp_wire_put32(p + off + 4, usec);
}

#endif

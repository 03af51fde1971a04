/* The web UI's event bus: a bounded ring of Server-Sent Events (already in wire form) that
 * many readers follow by sequence number. Publishing never blocks on a reader; a reader that
 * falls behind the ring skips ahead (and is told so). Thread-safe. */
#ifndef LP_WEB_BUS_H
#define LP_WEB_BUS_H

#include <stddef.h>
#include <stdint.h>

#define LP_BUS_EVENTS_MAX 4096u            /* events kept for late readers */
#define LP_BUS_BYTES_MAX (8u * 1024u * 1024u) /* ... and at most this much text */

/* Owns the events (malloc'd strings). */
struct lp_bus;

struct lp_bus *lp_bus_new(void);
/* Adds "id: N\nevent: NAME\ndata: JSON\n\n"; json must be one line. Returns N (0 when out
 * of memory: the event is dropped). */
uint64_t lp_bus_publish(struct lp_bus *b, const char *name, const char *json);
/* A reader's position: the next event id to send and how much of it is already out. */
struct lp_bus_cursor {
    uint64_t next;
    size_t offset;
};
/* The cursor of a reader that wants events after last_id (0: only new ones... see .c). */
void lp_bus_cursor_init(struct lp_bus *b, struct lp_bus_cursor *c, uint64_t last_id, int replay);
/* Copies what follows the cursor into buf (at most cap bytes, whole events when they fit),
 * waiting up to timeout_ms for something new. Returns the bytes copied, 0 on timeout, -1
 * once the bus is closed and the reader has everything. */
long lp_bus_read(struct lp_bus *b, struct lp_bus_cursor *c, char *buf, size_t cap,
                 int timeout_ms);
/* Wakes every reader with -1 from now on (the server is stopping). */
void lp_bus_close(struct lp_bus *b);
void lp_bus_free(struct lp_bus *b);

#endif

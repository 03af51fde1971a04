/* Who holds the page's connections (issue 13: 64 partial requests locked the page out; on
 * loopback every local user is one address, so a per-address limit cannot tell them apart).
 * A connection is "unproven" from its accept until a request on it carries the token: the
 * unproven hold at most LP_WEB_GATE_UNPROVEN_MAX of the page's connections (a new one
 * evicts the oldest), so pages that have the token keep the rest and can still connect;
 * an unproven connection still unproven after
 * LP_WEB_GATE_UNPROVEN_S is shut down (a request that trickles in a byte at a time never
 * trips the idle timeout). Event streams are bounded too. Thread-safe: libmicrohttpd calls
 * these from its listening and connection threads. */
#ifndef LP_WEB_GATE_H
#define LP_WEB_GATE_H

#include <stdbool.h>

#define LP_WEB_GATE_SLOTS 80          /* >= the daemon's connection limit */
#define LP_WEB_GATE_UNPROVEN_MAX 40   /* of the daemon's 64 */
#define LP_WEB_GATE_UNPROVEN_S 10
#define LP_WEB_GATE_SSE_MAX 16

struct lp_web_gate;

struct lp_web_gate *lp_web_gate_new(void);
void lp_web_gate_free(struct lp_web_gate *g);

/* At accept, before libmicrohttpd makes a connection: false refuses it. At the limit of
 * unproven connections the oldest of them is shut down to make room. */
bool lp_web_gate_admit(struct lp_web_gate *g);
/* A connection began (fd: its socket) / ended; *ctx is libmicrohttpd's socket context. */
void lp_web_gate_opened(struct lp_web_gate *g, int fd, void **ctx);
void lp_web_gate_closed(struct lp_web_gate *g, void **ctx);
/* A request on the connection of ctx carried the token. */
void lp_web_gate_proven(struct lp_web_gate *g, void *ctx);
/* An event stream may start (then call lp_web_gate_sse_end when it ends). */
bool lp_web_gate_sse_begin(struct lp_web_gate *g);
void lp_web_gate_sse_end(struct lp_web_gate *g);

#endif

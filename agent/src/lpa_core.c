/* Session table, reports and the public start/stop entry points. The protocol modules do the
 * talking; the back end's events and tick reach them through lpa_core.h's inline dispatch. */
#include <string.h>

#include "lwip/sys.h"
#include "lpa_core.h"

struct lpa_session lpa_sessions[LPA_MAX_SESSIONS];
static uint8_t started;

/* Zero bytes are as good a payload as iperf's digits, and cost nothing to generate. */
const uint8_t lpa_pattern[LPA_PATTERN_LEN];

struct lpa_session *lpa_session_new(const struct lpa_config *cfg, lpa_report_fn fn, void *arg) {
  struct lpa_session *s = lpa_sessions;
  int i;
  for (i = 0; i < LPA_MAX_SESSIONS; i++, s++) {
    if (s->used) continue;
    memset(s, 0, sizeof(*s));
    s->used = 1;
    s->index = (uint8_t)i;
    s->cfg = *cfg;
    s->fn = fn;
    s->arg = arg;
    return s;
  }
  return NULL;
}

void lpa_session_end(struct lpa_session *s) {
  if (!s->used) return;
  lpa_report_simple(s, LPA_REPORT_DONE, 0);
  s->used = 0;
  s->ops = NULL;
}

void lpa_report_emit(struct lpa_session *s, struct lpa_report *r) {
  r->session = s->index;
  r->dialect = s->cfg.dialect;
  r->proto = s->cfg.proto;
  ip_addr_copy(r->peer, s->peer);
  r->peer_port = s->peer_port;
  if (s->fn) s->fn(r, s->arg);
}

void lpa_report_simple(struct lpa_session *s, uint8_t kind, uint8_t error) {
  struct lpa_report r;
  memset(&r, 0, sizeof(r));
  r.kind = kind;
  r.error = error;
  lpa_report_emit(s, &r);
}

/* Public API. */

void lpa_config_defaults(struct lpa_config *cfg, uint8_t role, uint8_t proto, uint8_t dialect) {
  memset(cfg, 0, sizeof(*cfg));
  cfg->role = role;
  cfg->proto = proto;
  cfg->dialect = dialect;
}

/* Fills the zero fields with the dialect's defaults and checks the ranges. The iperf3
 * defaults are written as offsets from iperf2's (5201, 1 Mbit/s, 1460) to keep this small. */
static int config_complete(struct lpa_config *c) {
  unsigned i3 = c->dialect; /* a dialect the build lacks is refused here */
  if (c->role > LPA_ROLE_CLIENT || c->proto > LPA_PROTO_UDP || i3 > (LPA_IPERF3 ? 1u : 0u) ||
      (!LPA_IPERF2 && i3 == 0) ||
      c->mode > LPA_MODE_REVERSE || c->duration_ms > 86400000u)
    return LPA_EINVAL;
  if (c->port == 0) c->port = (uint16_t)(5001u + 200u * i3);
  if (c->back_port == 0) c->back_port = c->port;
  if (c->duration_ms == 0 && c->amount_bytes == 0)
    c->duration_ms = c->role == LPA_ROLE_SERVER ? LPA_SERVER_MAX_SEND_MS : 10000;
  if (c->interval_ms == 0) c->interval_ms = LPA_DEFAULT_INTERVAL_MS;
  /* 100 ms..1 day (the subtraction wraps below 100), or none */
  if (c->interval_ms - 100u > 86400000u - 100u && c->interval_ms != LPA_INTERVAL_NONE)
    return LPA_EINVAL;
  if (c->proto == LPA_PROTO_UDP) {
    if (c->rate_bps == 0) c->rate_bps = 1048576u - 48576u * i3;
    if (c->len == 0) c->len = 1470u - 10u * i3;
  }
  return c->len > (c->proto == LPA_PROTO_UDP ? LPA_UDP_MAX_LEN : 1048576u) ? LPA_EINVAL : 0;
}

int lpa_init(void) {
  int err;
  if (started) return 0;
  err = lpa_net_init();
  if (err == 0) started = 1;
  return err;
}

int lpa_start(const struct lpa_config *cfg, lpa_report_fn fn, void *arg) {
  struct lpa_session *s;
  int err = LPA_ENET;
  if (!started) return err;
  lpa_net_lock();
  s = lpa_session_new(cfg, fn, arg);
  if (s == NULL) {
    err = LPA_EBUSY;
  } else {
    /* The session's own copy is completed and checked, then handed to the dialect. */
    err = config_complete(&s->cfg);
#if LPA_IPERF2
    if (!err && s->cfg.dialect == LPA_DIALECT_IPERF2) err = lpa_iperf2_start(s);
#endif
#if LPA_IPERF3
    if (!err && s->cfg.dialect == LPA_DIALECT_IPERF3) err = lpa_iperf3_start(s);
#endif
    if (err) { /* nothing was reported yet: free silently */
      s->used = 0;
      s->ops = NULL;
    }
    else err = s->index;
  }
  lpa_net_unlock();
  return err;
}

int lpa_stop(int session) {
  int i, err = LPA_ENOENT;
  if (session < -1 || session >= LPA_MAX_SESSIONS) return err;
  lpa_net_lock();
  for (i = 0; i < LPA_MAX_SESSIONS; i++) {
    struct lpa_session *s = &lpa_sessions[i];
    if (!s->used || (session >= 0 && i != session)) continue;
    err = 0;
    s->ops->stop(s); /* every used session has ops with a stop (set under this lock) */
  }
  lpa_net_unlock();
  return err;
}

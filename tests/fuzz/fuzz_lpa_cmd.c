/* The board agent's console parser (lpa_command in agent/src/lpa_cmd.c, compiled into this
 * harness with lpa_format.c as tests/unit/test_lpa_cmd.c does): each line of the input is one
 * console line. The agent core is replaced by the fakes below (no lwIP stack, no sockets): a
 * start is accepted while a session is free, and its session reports START at once and an
 * INTERVAL, PEER and DONE made from the parsed configuration when it is stopped or the input
 * ends, so the report formatter runs on whatever the parser let through, and the console's
 * bindings are all released before the next input. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lpa.h"
#include "lpa_net.h"

#define LINES_MAX 16
#define CONSOLE_LINE_MAX 512 /* longer than LPA_CMD_CONSOLE_LINE_MAX: "line too long" is parsed too */

static struct session {
    int live;
    struct lpa_config cfg;
    lpa_report_fn fn;
    void *arg;
} sessions[LPA_MAX_SESSIONS];

void lpa_net_lock(void) {}
void lpa_net_unlock(void) {}
int lpa_net_conns_in_use(void) { return 1; }

void lpa_config_defaults(struct lpa_config *cfg, uint8_t role, uint8_t proto, uint8_t dialect)
{
    memset(cfg, 0, sizeof(*cfg)); /* as lpa_core.c */
    cfg->role = role;
    cfg->proto = proto;
    cfg->dialect = dialect;
}

static void report(int i, uint8_t kind)
{
    const struct lpa_config *c = &sessions[i].cfg;
    struct lpa_report r;
    memset(&r, 0, sizeof(r));
    r.kind = kind;
    r.error = kind == LPA_REPORT_ERROR ? LPA_ERR_STOPPED : LPA_ERR_NONE;
    r.proto = c->proto;
    r.dialect = c->dialect;
    r.dir = c->mode == LPA_MODE_REVERSE ? LPA_DIR_RX : LPA_DIR_TX;
    r.session = (uint8_t)i;
    r.peer = c->peer;
    r.peer_port = c->port;
    r.end_ms = c->duration_ms;
    r.bytes = c->amount_bytes ? c->amount_bytes : (uint64_t)c->len * 1000u;
    r.bps = c->rate_bps;
    r.jitter_us = c->interval_ms;
    r.packets = c->streams;
    r.lost = c->omit_s;
    sessions[i].fn(&r, sessions[i].arg);
}

static void end(int i)
{
    report(i, LPA_REPORT_INTERVAL);
    report(i, LPA_REPORT_PEER);
    report(i, LPA_REPORT_ERROR);
    sessions[i].live = 0;
    report(i, LPA_REPORT_DONE);
}

int lpa_start(const struct lpa_config *cfg, lpa_report_fn fn, void *arg)
{
    for (int i = 0; i < LPA_MAX_SESSIONS; i++) {
        if (sessions[i].live)
            continue;
        sessions[i].live = 1;
        sessions[i].cfg = *cfg;
        sessions[i].fn = fn;
        sessions[i].arg = arg;
        report(i, LPA_REPORT_START);
        return i;
    }
    return LPA_EBUSY;
}

int lpa_stop(int session)
{
    int found = 0;
    for (int i = 0; i < LPA_MAX_SESSIONS; i++) {
        if (sessions[i].live && (session < 0 || session == i)) {
            end(i);
            found = 1;
        }
    }
    return found ? 0 : LPA_ENOENT;
}

static void print(const char *text, void *arg)
{
    size_t *total = arg;
    *total += strlen(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t printed = 0, off = 0;
    for (int n = 0; n < LINES_MAX && off < size; n++) {
        char line[CONSOLE_LINE_MAX + 1];
        size_t len = 0;
        while (off < size && data[off] != '\n' && len < CONSOLE_LINE_MAX)
            line[len++] = (char)data[off++];
        off++; /* the newline, or a byte of an over-long line */
        line[len] = '\0';
        lpa_command(line, print, &printed);
    }
    lpa_stop(-1);
    return 0;
}

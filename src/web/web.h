/* `linkperf ui`: the browser page and its API served by the binary itself (libmicrohttpd),
 * live over Server-Sent Events. Bound to loopback unless told otherwise; any other bind needs
 * a token. Used by src/cli/ui.c; nothing here prints or exits. */
#ifndef LP_WEB_WEB_H
#define LP_WEB_WEB_H

#include <stddef.h>

#define LP_WEB_DEFAULT_PORT 8080
#define LP_WEB_TOKEN_MAX 128

struct lp_web_opts {
    const char *listen; /* "HOST:PORT", "[V6]:PORT" or "PORT"; NULL: 127.0.0.1:8080, or a
                         * free port when 8080 is taken */
    const char *token;  /* NULL: a random one (on loopback too) */
    const char *db;     /* history database (NULL: the default path) */
    int no_history;     /* record nothing, show no history */
    int allow_private_targets; /* served on another address than loopback: the page may
                                * still test private, link-local and loopback hosts */
};

/* Owns the HTTP daemon, the event bus and the runs. */
struct lp_web;

/* Starts serving; NULL with a message in err when the address is bad or cannot be bound. */
struct lp_web *lp_web_start(const struct lp_web_opts *o, char *err, size_t errlen);
/* The page's URL, with ?token= when one is needed. */
const char *lp_web_url(const struct lp_web *w);
/* linkperf -s --web: the server's records (through *out) show on the page as one run; see
 * lp_web_runs_attach. Returns the run id, or -1. */
struct lp_cli_config;
struct lp_server;
struct lp_sink;
int lp_web_attach(struct lp_web *w, const struct lp_cli_config *cfg, int argc,
                  char *const argv[], struct lp_sink *out);
void lp_web_attach_server(struct lp_web *w, int id, struct lp_server *server);
void lp_web_detach(struct lp_web *w, int id, int rc);
/* Stops the runs (partial results kept) and the server; waits for their threads. */
void lp_web_free(struct lp_web *w);

#endif

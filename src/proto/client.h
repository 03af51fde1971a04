/* The client entry points of each dialect; client.c picks one from spec->dialect and holds
 * the socket plumbing both dialects' clients share. */
#ifndef LP_CLIENT_INT_H
#define LP_CLIENT_INT_H

#include "linkperf/engine.h"
#include "net/sock.h"

struct i3client;
/* NULL with the reason in err on failure (as lp_client_new). */
struct i3client *i3c_new(const struct lp_spec *spec, const struct lp_sink *sink, char *err, size_t errlen);
int i3c_run(struct i3client *c);
void i3c_stop(struct i3client *c);
void i3c_free(struct i3client *c);
void i3c_set_auth(struct i3client *c, const struct lp_i3auth_client *a);

struct i2client;
struct i2client *i2c_new(const struct lp_spec *spec, const struct lp_sink *sink, char *err, size_t errlen);
int i2c_run(struct i2client *c);
void i2c_stop(struct i2client *c);
void i2c_free(struct i2client *c);

/* A data connection of a client's stream n to server, with the spec's socket options, bound
 * to -B and to --cport + n when they are given (both dialects number their streams' ports
 * from --cport). A blocking fd, or a negative errno or LP_E* code. TCP: connected within
 * --connect-timeout; UDP: connect()ed, nothing sent yet. */
int lp_client_tcp_stream(const struct lp_spec *spec, const struct lp_addr *server, unsigned n);
int lp_client_udp_stream(const struct lp_spec *spec, const struct lp_addr *server, unsigned n);

#endif

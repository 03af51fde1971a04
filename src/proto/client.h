/* The client entry points of each dialect; client.c picks one from spec->dialect. */
#ifndef LP_CLIENT_INT_H
#define LP_CLIENT_INT_H

#include "linkperf/engine.h"

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

#endif

/* lp_client_*: one test against a server, in the dialect the spec names (iperf3 by default,
 * iperf2 for --iperf2 / linkperf2 / iperf2-only options). */
#include <stdio.h>
#include <stdlib.h>

#include "proto/client.h"

struct lp_client {
    struct i3client *i3;
    struct i2client *i2;
};

struct lp_client *lp_client_new(const struct lp_spec *spec, const struct lp_sink *sink, char *err, size_t errlen)
{
    struct lp_client *c = calloc(1, sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (spec->dialect == LP_DIALECT_IPERF2)
        c->i2 = i2c_new(spec, sink, err, errlen);
    else
        c->i3 = i3c_new(spec, sink, err, errlen);
    if (!c->i2 && !c->i3) {
        free(c);
        return NULL;
    }
    return c;
}

void lp_client_set_auth(struct lp_client *c, const struct lp_i3auth_client *a)
{
    if (c->i3) /* the command line refuses --username with the iperf2 dialect */
        i3c_set_auth(c->i3, a);
}

int lp_client_run(struct lp_client *c)
{
    return c->i2 ? i2c_run(c->i2) : i3c_run(c->i3);
}

void lp_client_stop(struct lp_client *c)
{
    if (c->i2)
        i2c_stop(c->i2);
    else
        i3c_stop(c->i3);
}

void lp_client_free(struct lp_client *c)
{
    if (!c)
        return;
    if (c->i2)
        i2c_free(c->i2);
    if (c->i3)
        i3c_free(c->i3);
    free(c);
}

/* lp_client_*: one test against a server, in the dialect the spec names (iperf3 by default,
 * iperf2 for --iperf2 / linkperf2 / iperf2-only options), and the stream sockets both
 * dialects open alike. What goes over a socket once it is open is each dialect's own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

/* ---- stream sockets ---- */

/* *use is false when neither -B nor --cport is given: the kernel then picks both. */
static int stream_bind_addr(const struct lp_spec *spec, const struct lp_addr *server, unsigned n,
                            int socktype, struct lp_addr *out, bool *use)
{
    char err[128];
    *use = spec->bind_addr[0] || spec->cport;
    if (!*use)
        return 0;
    enum lp_family fam = server->ss.ss_family == AF_INET6 ? LP_FAMILY_INET6 : LP_FAMILY_INET;
    uint16_t port = spec->cport ? (uint16_t)(spec->cport + n) : 0;
    return lp_sock_resolve(spec->bind_addr[0] ? spec->bind_addr : NULL, port, fam, socktype, true,
                           out, err, sizeof(err));
}

int lp_client_tcp_stream(const struct lp_spec *spec, const struct lp_addr *server, unsigned n)
{
    struct lp_addr b;
    bool use;
    int err = stream_bind_addr(spec, server, n, SOCK_STREAM, &b, &use);
    if (err < 0)
        return err;
    return lp_sock_connect(server, use ? &b : NULL, SOCK_STREAM, spec, spec->connect_timeout_ms);
}

/* Not lp_sock_connect: it sets SO_REUSEADDR before binding, which for UDP would let two
 * sockets hold one --cport and split its datagrams; and a UDP connect() needs no deadline. */
int lp_client_udp_stream(const struct lp_spec *spec, const struct lp_addr *server, unsigned n)
{
    struct lp_addr b;
    bool use;
    const char *what = NULL;
    int err = stream_bind_addr(spec, server, n, SOCK_DGRAM, &b, &use);
    if (err < 0)
        return err;
    int fd = socket(server->ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if ((err = lp_sock_apply_spec(fd, spec, SOCK_DGRAM, &what)) < 0)
        goto fail;
    if (use && bind(fd, (const struct sockaddr *)&b.ss, b.len) < 0) {
        err = -errno;
        goto fail;
    }
    if (connect(fd, (const struct sockaddr *)&server->ss, server->len) < 0) {
        err = -errno;
        goto fail;
    }
    return fd;
fail:
    close(fd);
    return err;
}

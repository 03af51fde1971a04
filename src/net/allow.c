/* Allowlist parsing and matching (see allow.h). Pure but for name resolution at parse time. */
#include "net/allow.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(struct lp_allow *a, int family, const void *addr, unsigned prefix, char *err, size_t errlen)
{
    if (a->n >= LP_ALLOW_MAX_ENTRIES) {
        snprintf(err, errlen, "more than %d allowed addresses", LP_ALLOW_MAX_ENTRIES);
        return -1;
    }
    struct lp_allow_entry *e = &a->e[a->n++];
    memset(e, 0, sizeof(*e));
    e->family = family;
    memcpy(e->addr, addr, family == AF_INET ? 4 : 16);
    e->prefix = prefix;
    return 0;
}

static int parse_item(const char *item, struct lp_allow *a, char *err, size_t errlen)
{
    char host[256];
    const char *slash = strchr(item, '/');
    size_t hl = slash ? (size_t)(slash - item) : strlen(item);
    if (hl == 0 || hl >= sizeof(host)) {
        snprintf(err, errlen, "'%s' is not a host, address or CIDR prefix", item);
        return -1;
    }
    memcpy(host, item, hl);
    host[hl] = '\0';
    uint8_t buf[16];
    int family = inet_pton(AF_INET, host, buf) == 1 ? AF_INET : inet_pton(AF_INET6, host, buf) == 1 ? AF_INET6 : 0;
    unsigned max = family == AF_INET6 ? 128 : 32;
    unsigned prefix = max;
    if (slash) {
        char *end;
        long p = strtol(slash + 1, &end, 10);
        if (!family || !slash[1] || *end || p < 0 || p > (long)max) {
            snprintf(err, errlen, "'%s' is not a valid CIDR prefix (address/0..%u)", item, family ? max : 32);
            return -1;
        }
        prefix = (unsigned)p;
    }
    if (family)
        return add(a, family, buf, prefix, err, errlen);
    /* A host name: every address it has now. */
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL, *ai;
    int rc = getaddrinfo(host, NULL, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve allowed host '%s': %s", host, gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai; ai = ai->ai_next) {
        int r = ai->ai_family == AF_INET
                    ? add(a, AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, 32, err, errlen)
                    : ai->ai_family == AF_INET6
                          ? add(a, AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, 128, err, errlen)
                          : 0;
        if (r < 0) {
            freeaddrinfo(res);
            return -1;
        }
    }
    freeaddrinfo(res);
    return 0;
}

int lp_allow_parse(const char *text, struct lp_allow *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof(*a));
    char item[300];
    const char *p = text;
    while (p && *p) {
        while (*p == ',' || *p == ' ' || *p == '\t')
            p++;
        size_t n = strcspn(p, ", \t");
        if (n == 0)
            break;
        if (n >= sizeof(item)) {
            snprintf(err, errlen, "allowlist item too long");
            return -1;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        if (parse_item(item, a, err, errlen) < 0)
            return -1;
        p += n;
    }
    return 0;
}

static bool prefix_match(const uint8_t *x, const uint8_t *y, unsigned bits)
{
    unsigned bytes = bits / 8, rest = bits % 8;
    if (memcmp(x, y, bytes) != 0)
        return false;
    if (!rest)
        return true;
    uint8_t mask = (uint8_t)(0xFF << (8 - rest));
    return (x[bytes] & mask) == (y[bytes] & mask);
}

bool lp_allow_match(const struct lp_allow *a, const struct sockaddr_storage *peer)
{
    if (a->n == 0)
        return true;
    uint8_t v4[4], v6[16];
    bool has4 = false, has6 = false;
    if (peer->ss_family == AF_INET) {
        memcpy(v4, &((const struct sockaddr_in *)peer)->sin_addr, 4);
        has4 = true;
    } else if (peer->ss_family == AF_INET6) {
        const struct in6_addr *in6 = &((const struct sockaddr_in6 *)peer)->sin6_addr;
        memcpy(v6, in6, 16);
        has6 = true;
        if (IN6_IS_ADDR_V4MAPPED(in6)) {
            memcpy(v4, v6 + 12, 4);
            has4 = true;
        }
    }
    for (unsigned i = 0; i < a->n; i++) {
        const struct lp_allow_entry *e = &a->e[i];
        if (e->family == AF_INET && has4 && prefix_match(e->addr, v4, e->prefix))
            return true;
        if (e->family == AF_INET6 && has6 && prefix_match(e->addr, v6, e->prefix))
            return true;
    }
    return false;
}

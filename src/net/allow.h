/* Client allowlist for a server: host names, addresses and CIDR prefixes (IPv4 and IPv6),
 * separated by commas or spaces. JPerf's "Client Limit" and iperf2 2.0's server -c host. */
#ifndef LP_ALLOW_H
#define LP_ALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define LP_ALLOW_MAX_ENTRIES 64

struct lp_allow_entry {
    int family;          /* AF_INET or AF_INET6 */
    uint8_t addr[16];
    unsigned prefix;     /* bits that must match */
};

struct lp_allow {
    unsigned n;          /* 0 = everyone is allowed */
    struct lp_allow_entry e[LP_ALLOW_MAX_ENTRIES];
};

/* Parse (host names are resolved now, every address they have). Returns 0, or -1 with a
 * message naming the bad item. */
int lp_allow_parse(const char *text, struct lp_allow *a, char *err, size_t errlen);
/* Whether peer may connect; IPv4-mapped IPv6 peers match IPv4 entries. */
bool lp_allow_match(const struct lp_allow *a, const struct sockaddr_storage *peer);

#endif

/* The server's client allowlist (src/net/allow.c): IPv4 and IPv6 CIDR prefixes of every
 * length, IPv4-mapped IPv6 peers, lists and their separators, the empty list, and the error
 * text of bad entries. Numeric entries only: a host name would be resolved (DNS, /etc/hosts),
 * which a unit test must not depend on. Expected matches come from a bit-by-bit comparison of
 * the peer with the entry, not from the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include "net/allow.h"

static struct sockaddr_storage peer(const char *addr)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in *in = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        in->sin_port = htons(5001);
    } else {
        assert_int_equal(inet_pton(AF_INET6, addr, &in6->sin6_addr), 1);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(5201);
    }
    return ss;
}

static bool allowed(const char *list, const char *addr)
{
    struct lp_allow a;
    char err[256] = "";
    if (lp_allow_parse(list, &a, err, sizeof(err)) < 0)
        fail_msg("'%s' refused: %s", list, err);
    struct sockaddr_storage ss = peer(addr);
    return lp_allow_match(&a, &ss);
}

/* Bit i (0 = the most significant) of an address. */
static bool bit(const uint8_t *a, unsigned i)
{
    return (a[i / 8] >> (7 - i % 8)) & 1;
}

static bool same_leading_bits(const uint8_t *a, const uint8_t *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (bit(a, i) != bit(b, i))
            return false;
    return true;
}

/* Every prefix length of an entry, against peers that differ from it in one bit each. */
static void every_prefix(int family, const char *entry_addr)
{
    unsigned bits = family == AF_INET ? 32 : 128;
    uint8_t e[16], p[16];
    char list[128], text[INET6_ADDRSTRLEN];
    assert_int_equal(inet_pton(family, entry_addr, e), 1);
    for (unsigned len = 0; len <= bits; len++) {
        snprintf(list, sizeof(list), "%s/%u", entry_addr, len);
        for (unsigned flip = 0; flip < bits; flip++) {
            memcpy(p, e, sizeof(p));
            p[flip / 8] ^= (uint8_t)(0x80 >> flip % 8);
            inet_ntop(family, p, text, sizeof(text));
            bool want = same_leading_bits(e, p, len); /* the flipped bit is past the prefix */
            if (allowed(list, text) != want)
                fail_msg("%s allows %s: expected %s", list, text, want ? "yes" : "no");
        }
        inet_ntop(family, e, text, sizeof(text));
        assert_true(allowed(list, text));
    }
}

static void ipv4_cidr(void **state)
{
    (void)state;
    every_prefix(AF_INET, "10.20.30.40");
    every_prefix(AF_INET, "192.168.255.1");
    /* A bare address is a /32. */
    assert_true(allowed("10.1.2.3", "10.1.2.3"));
    assert_false(allowed("10.1.2.3", "10.1.2.4"));
}

static void ipv6_cidr(void **state)
{
    (void)state;
    every_prefix(AF_INET6, "2001:db8:1234:5678:9abc:def0:1357:2468");
    assert_true(allowed("fe80::1", "fe80::1"));
    assert_false(allowed("fe80::1", "fe80::2"));
    assert_true(allowed("::/0", "2001:db8::1"));
}

static void v4_mapped(void **state)
{
    (void)state;
    /* A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d: they match IPv4 entries. */
    assert_true(allowed("10.0.0.0/8", "::ffff:10.20.30.40"));
    assert_false(allowed("10.0.0.0/8", "::ffff:11.20.30.40"));
    assert_true(allowed("10.20.30.40", "::ffff:10.20.30.40"));
    /* and the IPv6 entry of the mapped range; an IPv4 peer does not match IPv6 entries. */
    assert_true(allowed("::ffff:0:0/96", "::ffff:10.20.30.40"));
    assert_false(allowed("::ffff:0:0/96", "10.20.30.40"));
    assert_false(allowed("::/0", "10.20.30.40"));
    /* An IPv6 peer never matches an IPv4 entry, not even 0.0.0.0/0. */
    assert_false(allowed("0.0.0.0/0", "2001:db8::1"));
    assert_true(allowed("0.0.0.0/0", "::ffff:192.0.2.1"));
    /* A v4-compatible-looking address that is not mapped stays IPv6. */
    assert_false(allowed("10.0.0.0/8", "::10.20.30.40"));
}

static void lists_and_empty(void **state)
{
    struct lp_allow a;
    char err[128];
    (void)state;
    /* Entries separated by commas, spaces or tabs, any number of them. */
    const char *list = " 10.0.0.0/8,192.168.1.7\t2001:db8::/32 ,, fe80::1 ";
    assert_int_equal(lp_allow_parse(list, &a, err, sizeof(err)), 0);
    assert_int_equal(a.n, 4);
    assert_true(allowed(list, "10.9.9.9"));
    assert_true(allowed(list, "192.168.1.7"));
    assert_false(allowed(list, "192.168.1.8"));
    assert_true(allowed(list, "2001:db8:ffff::1"));
    assert_true(allowed(list, "fe80::1"));
    assert_false(allowed(list, "2001:db9::1"));
    /* Empty (or only separators, or none given): everyone, any address family. */
    const char *empties[] = {"", " ", ",\t, ,"};
    for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
        assert_int_equal(lp_allow_parse(empties[i], &a, err, sizeof(err)), 0);
        assert_int_equal(a.n, 0);
    }
    assert_int_equal(lp_allow_parse(NULL, &a, err, sizeof(err)), 0);
    assert_int_equal(a.n, 0);
    struct sockaddr_storage any[3] = {peer("203.0.113.5"), peer("2001:db8::5")};
    any[2].ss_family = AF_UNIX;
    for (int i = 0; i < 3; i++)
        assert_true(lp_allow_match(&a, &any[i]));
    /* A list that allows some: a socket that is neither IPv4 nor IPv6 matches nothing. */
    assert_int_equal(lp_allow_parse("0.0.0.0/0 ::/0", &a, err, sizeof(err)), 0);
    assert_false(lp_allow_match(&a, &any[2]));
    /* The list is made anew each time. */
    assert_int_equal(lp_allow_parse("10.0.0.1", &a, err, sizeof(err)), 0);
    assert_int_equal(a.n, 1);
}

/* A bad entry: -1, and a message that names it. */
static void refused(const char *list, const char *want)
{
    struct lp_allow a;
    char err[512] = "";
    assert_int_equal(lp_allow_parse(list, &a, err, sizeof(err)), -1);
    if (strcmp(err, want) != 0)
        fail_msg("'%s': got \"%s\", want \"%s\"", list, err, want);
}

static void bad_entries(void **state)
{
    char want[512], item[400], list[4096];
    (void)state;
    /* Prefixes past the family's bits, missing, negative or not numbers; a name with one. */
    const char *v4bad[] = {"10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8x", "10.0.0.0/x",
                           "somehost/8"};
    for (size_t i = 0; i < sizeof(v4bad) / sizeof(v4bad[0]); i++) {
        snprintf(want, sizeof(want), "'%s' is not a valid CIDR prefix (address/0..32)", v4bad[i]);
        refused(v4bad[i], want);
        /* after good entries too: the bad one is named */
        snprintf(list, sizeof(list), "10.1.1.1, %s", v4bad[i]);
        refused(list, want);
    }
    const char *v6bad[] = {"2001:db8::/129", "::1/", "::1/1000"};
    for (size_t i = 0; i < sizeof(v6bad) / sizeof(v6bad[0]); i++) {
        snprintf(want, sizeof(want), "'%s' is not a valid CIDR prefix (address/0..128)", v6bad[i]);
        refused(v6bad[i], want);
    }
    /* No host before the slash. */
    refused("/8", "'/8' is not a host, address or CIDR prefix");
    /* A host part of 256 characters or more: refused before any lookup. */
    memset(item, 'h', 260);
    item[260] = '\0';
    snprintf(want, sizeof(want), "'%s' is not a host, address or CIDR prefix", item);
    refused(item, want);
    /* An item of 300 characters or more. */
    memset(item, 'h', 350);
    item[350] = '\0';
    refused(item, "allowlist item too long");
    /* More entries than the list holds. */
    size_t n = 0;
    for (unsigned i = 0; i <= LP_ALLOW_MAX_ENTRIES; i++)
        n += (size_t)snprintf(list + n, sizeof(list) - n, "10.0.%u.%u ", i / 256, i % 256);
    snprintf(want, sizeof(want), "more than %d allowed addresses", LP_ALLOW_MAX_ENTRIES);
    refused(list, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ipv4_cidr),
        cmocka_unit_test(ipv6_cidr),
        cmocka_unit_test(v4_mapped),
        cmocka_unit_test(lists_and_empty),
        cmocka_unit_test(bad_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

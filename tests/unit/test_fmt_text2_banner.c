/* The iperf2 look of a server's banner: linkperf serves TCP and UDP on one port, but names the
 * protocol it was started for, as 2.1.8 does (iperf -s: TCP lines only; iperf -s -u: UDP
 * only); a client's -d/-r listener names the one it has. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fmt/text2_int.h"
#include "test_fmt_text2_util.h"

static void banner(struct sink *k, enum lp_proto asked, int tcp_window, int udp_buffer)
{
    struct lp_out out = {.write = sink_write, .user = k};
    struct lp_fmt_opts o = {.unit = 'B'};
    memset(k, 0, sizeof(*k));
    struct lp_fmt_text2 *f = lp_fmt_text2_new(&o, &out);
    assert_non_null(f);
    struct lp_record r = {.kind = LP_REC_LISTENING, .role = LP_ROLE_SERVER};
    r.u.listening.port = 5001;
    r.u.listening.tcp_window = tcp_window;
    r.u.listening.udp_buffer = udp_buffer;
    r.u.listening.asked = asked;
    lp_fmt_text2_record(f, &r);
    lp_fmt_text2_free(f);
}

static void names_what_was_asked(void **state)
{
    (void)state;
    struct sink k;
    banner(&k, LP_PROTO_TCP, 131072, 212992);
    assert_string_equal(k.out, "------------------------------------------------------------\n"
                               "Server listening on TCP port 5001\n"
                               "TCP window size: 131072 Byte (default)\n"
                               "------------------------------------------------------------\n");
    banner(&k, LP_PROTO_UDP, 131072, 212992);
    assert_string_equal(k.out, "------------------------------------------------------------\n"
                               "Server listening on UDP port 5001\n"
                               "UDP buffer size: 212992 Byte (default)\n"
                               "------------------------------------------------------------\n");
    /* a listener with one socket (a client's -d/-r leg) names that one */
    banner(&k, LP_PROTO_TCP, 0, 212992);
    assert_non_null(strstr(k.out, "Server listening on UDP port 5001\n"));
    assert_null(strstr(k.out, "TCP"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(names_what_was_asked)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

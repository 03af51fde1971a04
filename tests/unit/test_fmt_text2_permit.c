/* The iperf2 look of --permit-key (docs/internals/permit-key.md), against the lines stock iperf
 * 2.1.8 printed: the banner's key line, [key(1)] ids on connection lines and rows, and the
 * "[drop] ... (permit key fail)" line of a refused connection (plain, -e, -x C). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "fmt/text2_int.h"
#include "test_fmt_text2_util.h"

/* -f B unless o says otherwise: the captures were taken with it. */
static struct lp_fmt *new_f(struct sink *k, const struct lp_fmt_opts *o)
{
    struct lp_fmt_opts d = {.unit = 'B'};

    return sink_fmt(k, LP_FMT_TEXT2, o ? o : &d);
}

static void banner_key_line(void **state)
{
    (void)state;
    struct sink k;
    struct lp_fmt *f = new_f(&k, NULL);
    struct lp_record r = {.kind = LP_REC_LISTENING, .role = LP_ROLE_SERVER};
    r.u.listening.port = 15102;
    r.u.listening.tcp_window = 131072;
    r.u.listening.permit_key = "secretkey";
    r.u.listening.permit_key_timeout_s = 20;
    lp_fmt_record(f, &r);
    /* 2.1.8: iperf -s --permit-key=secretkey -p 15102 -f B (TCP only: no UDP block). */
    assert_string_equal(k.out, "------------------------------------------------------------\n"
                               "Server listening on TCP port 15102\n"
                               "TCP window size: 131072 Byte (default)\n"
                               "Permit key is 'secretkey' (timeout in 20.0 seconds)\n"
                               "------------------------------------------------------------\n");
    lp_fmt_free(f);

    f = new_f(&k, NULL);
    r.u.listening.permit_key = "abcd";
    r.u.listening.permit_key_timeout_s = 0;
    lp_fmt_record(f, &r);
    assert_non_null(strstr(k.out, "\nPermit key is 'abcd' (WARN: no timeout)\n"));
    lp_fmt_free(f);
}

static const struct lp_stream_conn dropped = {
    .sid = {.socket = 4},
    .local = {"127.0.0.1", 15105},
    .remote = {"127.0.0.1", 42858},
    .icwnd_pkts = 320, .mss = 32768, .irtt_us = 30,
};

static void drop_line(void **state)
{
    (void)state;
    struct sink k;
    struct lp_record r = {.kind = LP_REC_ERROR, .role = LP_ROLE_SERVER};
    r.u.error.message = "iperf2 connection from 127.0.0.1 port 42858 refused: permit key fail";
    r.u.error.dropped = &dropped;

    struct lp_fmt *f = new_f(&k, NULL);
    lp_fmt_record(f, &r);
    assert_string_equal(k.out, "[drop] local 127.0.0.1 port 15105 connection with 127.0.0.1 port 42858 "
                               "(icwnd/mss/irtt=320/32768/30) (permit key fail)\n");
    assert_int_equal(k.nerr, 0); /* 2.1.8 says it on stdout, nothing else */
    lp_fmt_free(f);

    /* -e: the socket before, the time after, as 2.1.8 -e prints them (local time). */
    struct lp_fmt_opts e = {.unit = 'B', .enhanced = true};
    struct tm tm;
    time_t t = 1796186805;
    char when[64], want[256];
    r.wall_time = (double)t;
    assert_non_null(localtime_r(&t, &tm));
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S (%Z)", &tm);
    snprintf(want, sizeof(want), "[drop] local 127.0.0.1 port 15105 connection with 127.0.0.1 port 42858 "
                                 "(sock=4) (icwnd/mss/irtt=320/32768/30) on %s (permit key fail)\n", when);
    f = new_f(&k, &e);
    lp_fmt_record(f, &r);
    assert_string_equal(k.out, want);
    lp_fmt_free(f);

    /* -x C: no connection lines, and this is one. */
    struct lp_fmt_opts x = {.unit = 'B', .exclude = "C"};
    f = new_f(&k, &x);
    lp_fmt_record(f, &r);
    assert_int_equal(k.nout + k.nerr, 0);
    lp_fmt_free(f);
}

static void keyed_ids(void **state)
{
    (void)state;
    struct sink k;
    struct lp_fmt *f = new_f(&k, NULL);
    struct lp_spec sp;
    lp_spec_init(&sp, LP_ROLE_SERVER);
    sp.dialect = LP_DIALECT_IPERF2;
    snprintf(sp.iperf2.permit_key, sizeof(sp.iperf2.permit_key), "%s", "secretkey");
    struct lp_stream_conn c = {.sid = {.id = 1, .socket = 5},
                               .local = {"127.0.0.1", 15102},
                               .remote = {"127.0.0.1", 40966},
                               .icwnd_pkts = 320, .mss = 32768, .irtt_us = 109};
    struct lp_record r = {.kind = LP_REC_START, .role = LP_ROLE_SERVER, .test_id = 1};
    r.u.start.spec = &sp;
    r.u.start.nstreams = 1;
    r.u.start.streams = &c;
    lp_fmt_record(f, &r);
    /* 2.1.8's line for the same connection. */
    assert_string_equal(k.out, "[secretkey(1)] local 127.0.0.1 port 15102 connected with 127.0.0.1 port 40966 "
                               "(icwnd/mss/irtt=320/32768/109)\n");
    lp_fmt_free(f);

    /* Every id fits, the longest key's too. */
    char id[LP_TEXT2_ID_MAX];
    memset(sp.iperf2.permit_key, 'k', LP_PERMIT_KEY_MAX);
    sp.iperf2.permit_key[LP_PERMIT_KEY_MAX] = '\0';
    f = new_f(&k, NULL);
    lp_fmt_record(f, &r);
    lp_text2_idstr((const struct lp_fmt_text2 *)f, id, sizeof(id), 123456, true);
    assert_int_equal(strlen(id), LP_PERMIT_KEY_MAX + strlen("[(*123456)]"));
    assert_int_equal(id[LP_PERMIT_KEY_MAX + 1], '(');
    lp_fmt_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(banner_key_line),
        cmocka_unit_test(drop_line),
        cmocka_unit_test(keyed_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

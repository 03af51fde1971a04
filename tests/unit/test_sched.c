/* The report schedule (src/stats/sched.h) and how the iperf2 look prints it: deadlines are
 * start + k*i whatever time a timer fired, a timer more than an interval late skips to the
 * next boundary, and iperf2 rows carry the boundaries (1.0000-2.0000), one row per interval
 * of a window that spans missed ones (2.1.8 prints those empty). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "stats/sched.h"
#include "test_fmt_text2_util.h"

#define S 1000000000ull

static void iv_rounds(void **state)
{
    (void)state;
    assert_int_equal(lp_sched_iv_ns(1.0), S);
    assert_int_equal(lp_sched_iv_ns(0.5), S / 2);
    assert_int_equal(lp_sched_iv_ns(0.3), 300000000ull); /* 0.3 * 1e9 = 299999999.99999994 */
    assert_int_equal(lp_sched_iv_ns(0.1), 100000000ull);
    assert_int_equal(lp_sched_iv_ns(0), 0);
    assert_int_equal(lp_sched_iv_ns(-1), 0);
}

static void deadlines_on_the_schedule(void **state)
{
    const uint64_t start = 123456789ull, iv = lp_sched_iv_ns(0.3);
    (void)state;
    /* Boundary k is exact, however many intervals have passed: no error accumulates. */
    assert_int_equal(lp_sched_at(start, iv, 0), start);
    assert_int_equal(lp_sched_at(start, iv, 1000000), start + 300000ull * S);
    /* The old way (next = when the last cut happened + i) drifts by every lateness. */
    uint64_t drifting = start, k;
    for (k = 1; k <= 100; k++) {
        uint64_t fired = lp_sched_at(start, iv, k) + 2000000; /* every timer 2 ms late */
        uint64_t n = lp_sched_next(start, iv, fired);
        assert_int_equal(n, k + 1);                            /* the next one stays on time */
        assert_int_equal(lp_sched_at(start, iv, n), start + (k + 1) * iv);
        drifting += iv + 2000000;
    }
    assert_true(drifting - lp_sched_at(start, iv, 100) == 100 * 2000000ull);
}

static void late_timer(void **state)
{
    const uint64_t start = 5 * S, iv = S;
    (void)state;
    /* Due at 3 s, fired at 3.9 s: it covers boundary 3, the next is 4 s. */
    assert_int_equal(lp_sched_index(start, iv, start + 3 * S + 900000000), 3);
    assert_int_equal(lp_sched_next(start, iv, start + 3 * S + 900000000), 4);
    /* Fired at 5.2 s (over an interval late): the report ends on boundary 5, the missed one
     * (4) gets no report of its own and the next deadline is 6 s, in the future. */
    assert_int_equal(lp_sched_index(start, iv, start + 5 * S + 200000000), 5);
    assert_int_equal(lp_sched_next(start, iv, start + 5 * S + 200000000), 6);
    /* Exactly on a boundary: that boundary is passed. */
    assert_int_equal(lp_sched_index(start, iv, start + 2 * S), 2);
    assert_int_equal(lp_sched_next(start, iv, start + 2 * S), 3);
    /* Before the start (clock read before the timer's): boundary 0. */
    assert_int_equal(lp_sched_index(start, iv, start - 1), 0);
    assert_int_equal(lp_sched_next(start, iv, 0), 1);
}

/* ---- the iperf2 look ---- */

static void rec_look(void *f, const struct lp_record *r)
{
    lp_fmt_record(f, r);
}

static struct sc *look_new(bool csv)
{
    struct sc *s = malloc(sizeof(*s));
    struct lp_fmt_opts o = {.unit = 'B'};

    assert_non_null(s);
    sc_setup(s, LP_ROLE_CLIENT, LP_PROTO_TCP);
    s->spec.report.interval_s = 1;
    s->spec.duration_s = 4;
    s->f = lp_fmt_new(csv ? LP_FMT_CSV : LP_FMT_TEXT2, &o, &s->out);
    assert_non_null(s->f);
    s->rec = rec_look;
    sc_conn(s, 1, TX | INIT, 43716, 25001);
    sc_conn(s, 2, TX | INIT, 43718, 25001);
    sc_start(s, 2);
    return s;
}

static void nominal(struct lp_sample *m, double a, double b, unsigned n)
{
    m->nominal_start_s = a;
    m->nominal_end_s = b;
    m->nominal_count = n;
}

/* Two streams cut at st..en (when the timer fired), a..b on the schedule. */
static void cut2(struct sc *s, double st, double en, double a, double b, unsigned n, double bytes)
{
    struct lp_record r = {.kind = LP_REC_INTERVAL};
    struct lp_rec_interval *iv = &r.u.interval;

    nominal(sc_sample(s, 1, TX | INIT, st, en, bytes, bytes * 8 / (en - st)), a, b, n);
    nominal(sc_sample(s, 2, TX | INIT, st, en, bytes, bytes * 8 / (en - st)), a, b, n);
    iv->sum = s->smp[0];
    iv->sum.sid.id = iv->sum.sid.socket = 0;
    iv->sum.bytes = 2 * (uint64_t)bytes;
    iv->sum.bits_per_second = 2 * s->smp[0].bits_per_second;
    sc_sum_both(iv);
    iv->nstreams = s->nsmp;
    iv->streams = s->smp;
    sc_emit(s, &r);
    s->nsmp = 0;
}

static void look_free(struct sc *s)
{
    sc_done(s);
    assert_int_equal(s->k.nerr, 0);
    lp_fmt_free(s->f);
    free(s);
}

static void text2_rows_on_the_schedule(void **state)
{
    struct sc *s = look_new(false);
    (void)state;

    cut2(s, 0, 1.0001, 0, 1, 1, 1000);
    cut2(s, 1.0001, 2.1300, 1, 2, 1, 1000);          /* fired 130 ms late */
    cut2(s, 2.1300, 4.2000, 2, 4, 2, 3000);          /* over an interval late: two rows */
    cut2(s, 4.2000, 4.5038, 4, 4.5038, 1, 300);      /* the last, to the real end */
    const char *want =
        "[  1] local 127.0.0.1 port 43716 connected with 127.0.0.1 port 25001\n"
        "[  2] local 127.0.0.1 port 43718 connected with 127.0.0.1 port 25001\n"
        "[ ID] Interval       Transfer     Bandwidth\n"
        "[  1] 0.0000-1.0000 sec  1000 Bytes  1000 Bytes/sec\n"
        "[  2] 0.0000-1.0000 sec  1000 Bytes  1000 Bytes/sec\n"
        "[SUM] 0.0000-1.0000 sec  2000 Bytes  2000 Bytes/sec\n"
        "[  1] 1.0000-2.0000 sec  1000 Bytes   885 Bytes/sec\n"
        "[  2] 1.0000-2.0000 sec  1000 Bytes   885 Bytes/sec\n"
        "[SUM] 1.0000-2.0000 sec  2000 Bytes  1770 Bytes/sec\n"
        "[  1] 2.0000-3.0000 sec  3000 Bytes  1449 Bytes/sec\n"
        "[  2] 2.0000-3.0000 sec  3000 Bytes  1449 Bytes/sec\n"
        "[SUM] 2.0000-3.0000 sec  6000 Bytes  2899 Bytes/sec\n"
        "[  1] 3.0000-4.0000 sec  0.000 Bytes  0.000 Bytes/sec\n"
        "[  2] 3.0000-4.0000 sec  0.000 Bytes  0.000 Bytes/sec\n"
        "[SUM] 3.0000-4.0000 sec  0.000 Bytes  0.000 Bytes/sec\n"
        "[  1] 4.0000-4.5038 sec   300 Bytes   987 Bytes/sec\n"
        "[  2] 4.0000-4.5038 sec   300 Bytes   987 Bytes/sec\n"
        "[SUM] 4.0000-4.5038 sec   600 Bytes  1975 Bytes/sec\n";
    if (strcmp(s->k.out, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", s->k.out, want);
    look_free(s);
}

/* A stream that ended within a window over a missed interval has its one row; the other
 * stream's window makes two. No zero-length row for the first. */
static void text2_stream_ended_in_a_long_window(void **state)
{
    struct sc *s = look_new(false);
    struct lp_record r = {.kind = LP_REC_INTERVAL};
    struct lp_rec_interval *iv = &r.u.interval;
    (void)state;

    nominal(sc_sample(s, 1, TX | INIT, 0, 1.5, 1000, 1000 * 8 / 1.5), 0, 1.5, 1);
    nominal(sc_sample(s, 2, TX | INIT, 0, 2.2, 2000, 2000 * 8 / 2.2), 0, 2, 2);
    iv->sum = s->smp[1];
    iv->sum.sid.id = iv->sum.sid.socket = 0;
    iv->sum.bytes = 3000;
    sc_sum_both(iv);
    iv->nstreams = s->nsmp;
    iv->streams = s->smp;
    sc_emit(s, &r);
    s->nsmp = 0;
    assert_non_null(strstr(s->k.out, "[  1] 0.0000-1.5000 sec  1000 Bytes"));
    assert_non_null(strstr(s->k.out, "[  2] 0.0000-1.0000 sec  2000 Bytes"));
    assert_non_null(strstr(s->k.out, "[SUM] 0.0000-1.0000 sec  3000 Bytes"));
    assert_non_null(strstr(s->k.out, "[  2] 1.0000-2.0000 sec  0.000 Bytes"));
    assert_null(strstr(s->k.out, "[  1] 1.5000-1.5000"));
    assert_null(strstr(s->k.out, "[  1] 1.0000"));
    look_free(s);
}

/* Without a schedule (nominal_count 0) the rows keep the cut's own times. */
static void text2_rows_without_a_schedule(void **state)
{
    struct sc *s = look_new(false);
    (void)state;

    cut2(s, 0, 1.0001, 0, 0, 0, 1000);
    assert_non_null(strstr(s->k.out, "[  1] 0.0000-1.0001 sec  1000 Bytes"));
    look_free(s);
}

static void csv_rows_on_the_schedule(void **state)
{
    struct sc *s = look_new(true);
    (void)state;

    cut2(s, 0, 1.0001, 0, 1, 1, 1000);
    cut2(s, 1.0001, 3.2, 1, 3, 2, 2000);
    /* Per stream: its row with the data, then the missed interval's, empty. */
    assert_non_null(strstr(s->k.out, ",1,0.0-1.0,1000,"));
    assert_non_null(strstr(s->k.out, ",1,1.0-2.0,2000,"));
    assert_non_null(strstr(s->k.out, ",1,2.0-3.0,0,0\n"));
    assert_non_null(strstr(s->k.out, ",2,2.0-3.0,0,0\n"));
    assert_null(strstr(s->k.out, "1.0-3.0"));
    look_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(iv_rounds),
        cmocka_unit_test(deadlines_on_the_schedule),
        cmocka_unit_test(late_timer),
        cmocka_unit_test(text2_rows_on_the_schedule),
        cmocka_unit_test(text2_stream_ended_in_a_long_window),
        cmocka_unit_test(text2_rows_without_a_schedule),
        cmocka_unit_test(csv_rows_on_the_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

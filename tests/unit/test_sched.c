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

/* ---- -t, -O and late streams ---- */

static void end_deadline_and_omit(void **state)
{
    const uint64_t start = 7 * S + 123;
    (void)state;
    /* -t counts after -O: the deadline is -t + -O from the start; the omit ends at -O. */
    for (unsigned omit = 0; omit <= 12; omit += 3) {
        for (double t = 0.5; t <= 4; t += 0.5) {
            uint64_t dl = lp_sched_end_deadline(start, t, omit, false);
            assert_true(llabs((long long)(dl - start) - llround((t + omit) * 1e9)) <= 1);
            assert_int_equal(lp_sched_omit_end(start, omit), omit ? start + omit * S : 0);
            /* -O longer than -t (omit 12, -t 0.5): the omitted part ends first, then -t. */
            if (omit)
                assert_true(lp_sched_omit_end(start, omit) < dl);
        }
    }
    /* A test ended by an amount (-n/-k), or without -t, has no deadline. */
    assert_int_equal(lp_sched_end_deadline(start, 10, 2, true), 0);
    assert_int_equal(lp_sched_end_deadline(start, 0, 2, false), 0);
}

static void late_join(void **state)
{
    const uint64_t meas = 50 * S, late = LP_SCHED_LATE_JOIN_NS;
    struct lp_sched_join j;
    (void)state;
    /* Within the grace: part of the run, no span of its own, the deadline stays. */
    lp_sched_join(meas, meas + late, 2, meas + 2 * S, &j);
    assert_false(j.late);
    assert_int_equal(j.start_ns, 0);
    assert_int_equal(j.end_deadline_ns, meas + 2 * S);
    /* Later: its own span from now, and its own -t moves the deadline. */
    lp_sched_join(meas, meas + 3 * S, 2, meas + 2 * S, &j);
    assert_true(j.late);
    assert_int_equal(j.start_ns, meas + 3 * S);
    assert_int_equal(j.end_deadline_ns, meas + 3 * S + 2 * S);
    /* A deadline already later than its own end is kept. */
    lp_sched_join(meas, meas + late + 1, 1, meas + 9 * S, &j);
    assert_true(j.late);
    assert_int_equal(j.end_deadline_ns, meas + 9 * S);
    /* No deadline (-n) stays none; a clock read before meas is not late. */
    lp_sched_join(meas, meas + 3 * S, 2, 0, &j);
    assert_int_equal(j.end_deadline_ns, 0);
    lp_sched_join(meas, meas - 1, 2, meas + 2 * S, &j);
    assert_false(j.late);
}

/* ---- the interval timer ---- */

static void tick_cuts_on_the_schedule(void **state)
{
    const uint64_t o = 3 * S + 17, iv = S;
    struct lp_sched_tick t;
    (void)state;
    /* Early (a clock read before the timer's): only re-arm for the same boundary. */
    lp_sched_tick(o, iv, 2, lp_sched_at(o, iv, 2) - 1, 0, false, false, &t);
    assert_true(t.early);
    assert_false(t.cut);
    assert_int_equal(t.next_k, 2);
    assert_int_equal(t.arm_ns, lp_sched_at(o, iv, 2));
    /* On time, and late by less than an interval: cut to the boundary it was due for. */
    for (uint64_t late_ns = 0; late_ns < iv; late_ns += iv / 4) {
        lp_sched_tick(o, iv, 2, lp_sched_at(o, iv, 2) + late_ns, 0, false, false, &t);
        assert_false(t.early);
        assert_true(t.cut);
        assert_int_equal(t.end_k, 2);
        assert_int_equal(t.next_k, 3);
        assert_int_equal(t.arm_ns, lp_sched_at(o, iv, 3));
    }
    /* n intervals late: one cut to the last boundary passed, armed for the one after now. */
    for (uint64_t n = 1; n <= 5; n++) {
        uint64_t now = lp_sched_at(o, iv, 2 + n) + iv / 3;
        lp_sched_tick(o, iv, 2, now, 0, false, false, &t);
        assert_true(t.cut);
        assert_int_equal(t.end_k, 2 + n);
        assert_int_equal(t.next_k, 3 + n);
        assert_true(t.arm_ns > now);
    }
    /* No schedule: nothing. */
    lp_sched_tick(o, 0, 1, o + 5 * S, 0, false, false, &t);
    assert_false(t.cut || t.early);
}

static void tick_folds_near_the_end(void **state)
{
    const uint64_t o = S, iv = S, now = lp_sched_at(o, iv, 3);
    struct lp_sched_tick t;
    (void)state;
    /* A deadline within a tenth of an interval after the boundary: the final cut takes it. */
    lp_sched_tick(o, iv, 3, now, now + iv / 10, false, false, &t);
    assert_false(t.cut);
    assert_int_equal(t.next_k, 4); /* the timer still moves on */
    lp_sched_tick(o, iv, 3, now, now + iv / 10 + 1, false, false, &t);
    assert_true(t.cut);
    /* While -O omits, the deadline is -t after the omit: no folding yet. */
    lp_sched_tick(o, iv, 3, now, now + iv / 10, true, false, &t);
    assert_true(t.cut);
    /* Every stream ended (iperf2): the rest is the last cut's. */
    lp_sched_tick(o, iv, 3, now, 0, false, true, &t);
    assert_false(t.cut);
}

/* ---- cuts ---- */

static void window_real_and_nominal(void **state)
{
    const uint64_t o = 11 * S, iv = S / 2;
    struct lp_sched_window w;
    (void)state;
    /* A cut 30 ms late keeps its boundary: its real times end 30 ms past the boundary, its
     * nominal ones are from_k*iv to to_k*iv. */
    struct lp_sched_cut c = {.origin_ns = o, .iv_ns = iv, .from_ns = lp_sched_at(o, iv, 2),
                             .to_ns = lp_sched_at(o, iv, 3) + 30000000, .from_k = 2, .to_k = 3};
    lp_sched_window(&c, &w);
    assert_true(w.start_s == (double)(c.from_ns - o) / 1e9);
    assert_true(w.end_s == (double)(c.to_ns - o) / 1e9);
    assert_true(w.nom_start_s == (double)(2 * iv) / 1e9);
    assert_true(w.nom_end_s == (double)(3 * iv) / 1e9);
    assert_int_equal(w.nom_n, 1);
    /* Over missed intervals: one window of n whole intervals. */
    c.to_k = 6;
    c.to_ns = lp_sched_at(o, iv, 6) + 1;
    lp_sched_window(&c, &w);
    assert_int_equal(w.nom_n, 6 - 2);
    assert_true(w.nom_end_s == (double)(6 * iv) / 1e9);
    /* The last cut (to_k <= from_k): it ends at the real end, which is not on a boundary. */
    c.to_k = 2;
    c.to_ns = lp_sched_at(o, iv, 2) + iv / 3;
    lp_sched_window(&c, &w);
    assert_int_equal(w.nom_n, 1);
    assert_true(w.nom_end_s == w.end_s);
    /* A last cut that ends before the boundary its window starts on: an empty window there,
     * never one that ends before it starts. */
    c.from_ns = lp_sched_at(o, iv, 2) - iv / 4;
    c.to_ns = lp_sched_at(o, iv, 2) - iv / 5;
    lp_sched_window(&c, &w);
    assert_true(w.nom_end_s == w.nom_start_s);
}

static void rows_of_streams(void **state)
{
    const uint64_t o = 2 * S, iv = S;
    struct lp_sched_cut c = {.origin_ns = o, .iv_ns = iv, .from_ns = lp_sched_at(o, iv, 1),
                             .to_ns = lp_sched_at(o, iv, 2) + 5000000, .from_k = 1, .to_k = 2};
    struct lp_sched_window w;
    struct lp_sched_row row;
    (void)state;
    lp_sched_window(&c, &w);
    /* Running through the whole window: the window itself. */
    lp_sched_row(&c, &w, o, 0, 0, &row);
    assert_true(row.start_s == w.start_s && row.end_s == w.end_s);
    assert_true(row.seconds == w.end_s - w.start_s);
    assert_true(row.nom_start_s == w.nom_start_s && row.nom_end_s == w.nom_end_s);
    assert_int_equal(row.nom_n, w.nom_n);
    /* Ended mid-interval (2.1.8: "1.0000-1.5014"): real end on both clocks. */
    uint64_t end = lp_sched_at(o, iv, 1) + 501400000;
    lp_sched_row(&c, &w, o, 0, end, &row);
    assert_true(row.end_s == (double)(end - o) / 1e9);
    assert_true(row.nom_end_s == row.end_s);
    assert_int_equal(row.nom_n, 1);
    assert_true(row.seconds == row.end_s - row.start_s);
    /* Joined mid-interval: its row starts when it joined, one row. */
    uint64_t join = lp_sched_at(o, iv, 1) + 250000000;
    lp_sched_row(&c, &w, o, join, 0, &row);
    assert_true(row.start_s == (double)(join - o) / 1e9);
    assert_true(row.nom_start_s == row.start_s);
    assert_true(row.nom_end_s == w.nom_end_s);
    assert_int_equal(row.nom_n, 1);
    /* A window over three missed intervals; a stream that ended in its second interval ends
     * on the boundary it passed, covering that many intervals. */
    c.to_k = 4;
    c.to_ns = lp_sched_at(o, iv, 4) + 1;
    lp_sched_window(&c, &w);
    end = lp_sched_at(o, iv, 2) + iv / 2;
    lp_sched_row(&c, &w, o, 0, end, &row);
    assert_true(row.nom_end_s == (double)(2 * iv) / 1e9);
    assert_int_equal(row.nom_n, 2 - 1);
    end = lp_sched_at(o, iv, 3) + iv / 2;
    lp_sched_row(&c, &w, o, 0, end, &row);
    assert_int_equal(row.nom_n, 3 - 1);
    /* A second leg (its own origin): times count from there. */
    uint64_t leg = lp_sched_at(o, iv, 1) + iv / 3;
    lp_sched_row(&c, &w, leg, leg, 0, &row);
    assert_true(row.start_s == 0);
    assert_true(row.end_s == (double)(c.to_ns - leg) / 1e9);
}

static void rows_gone(void **state)
{
    struct lp_sched_cut c = {.origin_ns = S, .iv_ns = S, .from_ns = 3 * S, .to_ns = 4 * S, .from_k = 2, .to_k = 3};
    (void)state;
    assert_true(lp_sched_row_gone(&c, c.from_ns, false));      /* ended as the last cut was made */
    assert_true(lp_sched_row_gone(&c, c.from_ns - 1, false));
    assert_false(lp_sched_row_gone(&c, c.from_ns - 1, true));  /* but data still arrived */
    assert_false(lp_sched_row_gone(&c, c.from_ns + 1, false)); /* ended within: its row */
    assert_false(lp_sched_row_gone(&c, 0, false));             /* still running */
}

static void last_interval_kept_or_dropped(void **state)
{
    const uint64_t o = S, iv = S, cut = lp_sched_at(o, iv, 4);
    struct lp_sched_last l;
    (void)state;
    /* A sliver under a tenth of an interval with no data: dropped. */
    lp_sched_last(o, iv, cut, cut + iv / 10 - 1, 0, false, &l);
    assert_false(l.cut);
    /* The same with data, or a tenth long: kept, ending on the boundary last passed. */
    lp_sched_last(o, iv, cut, cut + iv / 10 - 1, 0, true, &l);
    assert_true(l.cut);
    assert_int_equal(l.at_ns, cut + iv / 10 - 1);
    assert_int_equal(l.end_k, 4);
    lp_sched_last(o, iv, cut, cut + iv / 10, 0, false, &l);
    assert_true(l.cut);
    /* Every stream ended before now: the last row ends there, not at the bookkeeping's end. */
    lp_sched_last(o, iv, cut, cut + 3 * iv, cut + iv / 2, false, &l);
    assert_int_equal(l.at_ns, cut + iv / 2);
    assert_int_equal(l.end_k, lp_sched_index(o, iv, cut + iv / 2));
    /* ... unless that is after now or before the last cut. */
    lp_sched_last(o, iv, cut, cut + iv / 2, cut + iv, false, &l);
    assert_int_equal(l.at_ns, cut + iv / 2);
    lp_sched_last(o, iv, cut, cut + iv / 2, cut - 1, false, &l);
    assert_int_equal(l.at_ns, cut + iv / 2);
    /* A timer that missed boundaries before the end: the window reaches the last one. */
    lp_sched_last(o, iv, cut, cut + 2 * iv + iv / 2, 0, false, &l);
    assert_int_equal(l.end_k, 4 + 2);
    /* No interval reports: nothing to cut. */
    lp_sched_last(o, 0, cut, cut + 3 * iv, 0, true, &l);
    assert_false(l.cut);
}

/* A whole timed test driven through the functions as run.c drives them, timers on time:
 * the rows are contiguous from 0 to -t on both clocks, the boundaries are k*i, and the
 * number of rows follows from -t and -i alone (a boundary within i/10 of the end is folded
 * into the last row; a last part shorter than i/10 without data is dropped). */
struct drive {
    unsigned rows;
    double start[64], end[64], nom_start[64], nom_end[64];
};

static void drive_test(uint64_t o, uint64_t iv, uint64_t dur, bool data_at_end, struct drive *d)
{
    uint64_t dl = o + dur, last_cut = o, from_k = 0, due = 1;
    struct lp_sched_tick t;
    struct lp_sched_last l;

    memset(d, 0, sizeof(*d));
    for (;;) {
        uint64_t now = lp_sched_at(o, iv, due);
        if (now >= dl)
            break;
        lp_sched_tick(o, iv, due, now, dl, false, false, &t);
        if (t.cut) {
            struct lp_sched_cut c = {o, iv, last_cut, now, from_k, t.end_k};
            struct lp_sched_window w;
            lp_sched_window(&c, &w);
            d->start[d->rows] = w.start_s, d->end[d->rows] = w.end_s;
            d->nom_start[d->rows] = w.nom_start_s, d->nom_end[d->rows++] = w.nom_end_s;
            last_cut = now;
            from_k = t.end_k;
        }
        due = t.next_k;
    }
    lp_sched_last(o, iv, last_cut, dl, 0, data_at_end, &l);
    if (l.cut) {
        struct lp_sched_cut c = {o, iv, last_cut, l.at_ns, from_k, l.end_k};
        struct lp_sched_window w;
        lp_sched_window(&c, &w);
        d->start[d->rows] = w.start_s, d->end[d->rows] = w.end_s;
        d->nom_start[d->rows] = w.nom_start_s, d->nom_end[d->rows++] = w.nom_end_s;
    }
}

static void whole_tests(void **state)
{
    const uint64_t o = 100 * S + 7;
    const double ivs[] = {1, 0.5, 0.3, 2};
    const double durs[] = {1, 2.5, 2.05, 2.099, 3, 0.95, 10, 4.03};
    struct drive d;
    (void)state;
    for (size_t a = 0; a < sizeof(ivs) / sizeof(ivs[0]); a++) {
        for (size_t b = 0; b < sizeof(durs) / sizeof(durs[0]); b++) {
            uint64_t iv = lp_sched_iv_ns(ivs[a]), dur = (uint64_t)(durs[b] * 1e9);
            /* Cuts at boundaries k*iv that end more than iv/10 before -t, then the last. */
            unsigned cuts = 0;
            for (uint64_t k = 1; k * iv < dur; k++)
                cuts += dur > k * iv + iv / 10;
            uint64_t tail = dur - cuts * iv;
            for (int data = 0; data <= 1; data++) {
                unsigned want = cuts + (data || tail >= iv / 10);
                drive_test(o, iv, dur, data, &d);
                assert_int_equal(d.rows, want);
                for (unsigned i = 0; i < d.rows; i++) {
                    assert_true(d.start[i] == (i ? d.end[i - 1] : 0));
                    assert_true(d.nom_start[i] == (double)(i * iv) / 1e9);
                    assert_true(d.nom_end[i] >= d.nom_start[i]);
                    if (i < cuts)
                        assert_true(d.nom_end[i] == (double)((i + 1) * iv) / 1e9);
                }
                if (d.rows > cuts) { /* the last row: to -t, nominally to the boundary it passed */
                    assert_true(d.end[cuts] == (double)dur / 1e9);
                    assert_true(d.nom_end[cuts] == (tail >= iv ? (double)((cuts + 1) * iv) / 1e9 : (double)dur / 1e9));
                }
            }
        }
    }
}

/* ---- the iperf2 look ---- */

static struct sc *look_new(bool csv)
{
    struct lp_fmt_opts o = {.unit = 'B'};
    struct sc *s = sc_new(csv ? LP_FMT_CSV : LP_FMT_TEXT2, LP_ROLE_CLIENT, LP_PROTO_TCP, &o);

    s->spec.report.interval_s = 1;
    s->spec.duration_s = 4;
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
    sc_free(s);
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
        cmocka_unit_test(end_deadline_and_omit),
        cmocka_unit_test(late_join),
        cmocka_unit_test(tick_cuts_on_the_schedule),
        cmocka_unit_test(tick_folds_near_the_end),
        cmocka_unit_test(window_real_and_nominal),
        cmocka_unit_test(rows_of_streams),
        cmocka_unit_test(rows_gone),
        cmocka_unit_test(last_interval_kept_or_dropped),
        cmocka_unit_test(whole_tests),
        cmocka_unit_test(text2_rows_on_the_schedule),
        cmocka_unit_test(text2_stream_ended_in_a_long_window),
        cmocka_unit_test(text2_rows_without_a_schedule),
        cmocka_unit_test(csv_rows_on_the_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

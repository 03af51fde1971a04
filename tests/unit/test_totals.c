/* Counters to record numbers (src/stats/totals.c): a row's counts and rate, a stream's
 * span, the [SUM]s (jitter averaged over receivers, retransmits only when every stream has
 * them), this end's own rows; counters that wrapped, streams that ended early, no streams. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "stats/totals.h"
#include "stats/udp_rx.h"

#define S 1000000000ull

static double pct(int64_t lost, uint64_t total)
{
    return total ? 100.0 * (double)lost / (double)total : 0;
}

/* What a UDP receiver's row (a sample or a total: the same fields) says for the counts from
 * `from` to `to`: the datagrams expected by sequence number, the loss and reordering between
 * the two readings, and the jitter of the later one. */
#define assert_udp_receiver_row(r, to, from)                                                  \
    do {                                                                                      \
        assert_int_equal((r).packets, (to).max_seq - (from).max_seq);                         \
        assert_int_equal((r).lost_packets, (to).lost - (from).lost);                          \
        assert_int_equal((r).out_of_order, (to).out_of_order - (from).out_of_order);          \
        assert_true((r).jitter_ms == (to).jitter_s * 1000.0);                                 \
        assert_true((r).lost_percent == pct((to).lost - (from).lost, (to).max_seq - (from).max_seq)); \
    } while (0)

static void rate(void **state)
{
    (void)state;
    assert_true(lp_totals_bps(1000, 0) == 0);
    assert_true(lp_totals_bps(1000, -1) == 0);
    assert_true(lp_totals_bps(0, 2) == 0);
    for (uint64_t b = 1; b < (1ull << 40); b *= 7)
        assert_true(lp_totals_bps(b, 0.5) == (double)b * 8.0 / 0.5);
}

/* ---- one interval ---- */

static void sample_tcp_and_wrap(void **state)
{
    struct lp_totals_counts last = {.bytes = 1000}, now = {.bytes = 1000 + 123456};
    struct lp_sample s;
    (void)state;
    memset(&s, 0, sizeof(s));
    s.seconds = 1.5;
    lp_totals_sample(&s, false, true, &now, &last);
    assert_int_equal(s.bytes, now.bytes - last.bytes);
    assert_true(s.bits_per_second == (double)(now.bytes - last.bytes) * 8.0 / 1.5);
    assert_false(s.is_udp);
    assert_int_equal(s.packets, 0);
    /* A counter that wrapped between the readings still counts what passed. */
    for (uint64_t before = 1; before < 1000; before *= 3) {
        last.bytes = UINT64_MAX - before + 1;
        now.bytes = 77;
        lp_totals_sample(&s, false, false, &now, &last);
        assert_int_equal(s.bytes, before + 77);
    }
    /* No time (a stream that ended as the interval began): no rate. */
    s.seconds = 0;
    lp_totals_sample(&s, false, true, &now, &last);
    assert_true(s.bits_per_second == 0);
}

static void sample_udp(void **state)
{
    struct lp_totals_counts last = {.bytes = 14700, .packets = 10, .max_seq = 10, .lost = 3, .out_of_order = 1,
                                    .jitter_s = 0.5};
    struct lp_totals_counts now = {.bytes = 29400, .packets = 20, .max_seq = 25, .lost = 5, .out_of_order = 4,
                                   .jitter_s = 0.00025};
    struct lp_sample s;
    (void)state;
    memset(&s, 0, sizeof(s));
    s.seconds = 1;
    /* A sender counts the datagrams it sent; no loss, no jitter. */
    lp_totals_sample(&s, true, true, &now, &last);
    assert_true(s.is_udp);
    assert_int_equal(s.packets, now.packets - last.packets);
    assert_int_equal(s.lost_packets, 0);
    assert_true(s.jitter_ms == 0);
    /* A receiver counts the datagrams expected (sequence numbers), the interval's loss and
     * reordering, and the jitter now (not a difference). */
    memset(&s, 0, sizeof(s));
    s.seconds = 1;
    lp_totals_sample(&s, true, false, &now, &last);
    assert_udp_receiver_row(s, now, last);
    /* Late datagrams cancel losses counted earlier: an interval's loss can be negative. */
    now.lost = last.lost - 2;
    lp_totals_sample(&s, true, false, &now, &last);
    assert_int_equal(s.lost_packets, -2);
    /* Nothing expected: 0 %, not a division by zero. */
    now.max_seq = last.max_seq;
    lp_totals_sample(&s, true, false, &now, &last);
    assert_true(s.lost_percent == 0);
    /* lost readings at the ends of the range: no signed overflow, the difference as it is. */
    last.lost = INT64_MIN;
    now.lost = INT64_MAX;
    lp_totals_sample(&s, true, false, &now, &last);
    assert_int_equal(s.lost_packets, -1); /* 2^64 - 1 modulo 2^64 */
}

static struct lp_sample row(bool udp, bool sender, uint64_t bytes, uint64_t packets, int64_t lost, double jitter_ms)
{
    struct lp_sample s;
    memset(&s, 0, sizeof(s));
    s.sid.sender = sender;
    s.is_udp = udp;
    s.bytes = bytes;
    s.packets = packets;
    s.lost_packets = lost;
    s.jitter_ms = jitter_ms;
    s.out_of_order = packets / 10;
    return s;
}

static void interval_sum(void **state)
{
    struct lp_sched_window w = {.start_s = 2.0, .end_s = 3.01, .nom_start_s = 2, .nom_end_s = 3, .nom_n = 1};
    struct lp_sample rx[3] = {row(true, false, 1000, 100, 3, 0.25), row(true, false, 3000, 300, 0, 0.75),
                              row(true, false, 500, 50, 7, 2.0)};
    struct lp_sample sum;
    unsigned njit = 0;
    uint64_t bytes = 0, packets = 0, ooo = 0;
    int64_t lost = 0;
    double jit = 0;
    (void)state;
    memset(&sum, 0, sizeof(sum));
    for (int i = 0; i < 3; i++) {
        lp_totals_sample_add(&sum, &rx[i], &njit);
        bytes += rx[i].bytes, packets += rx[i].packets, lost += rx[i].lost_packets;
        ooo += rx[i].out_of_order, jit += rx[i].jitter_ms;
    }
    lp_totals_sample_close(&sum, &rx[2], njit, &w);
    assert_int_equal(sum.bytes, bytes);
    assert_int_equal(sum.packets, packets);
    assert_int_equal(sum.lost_packets, lost);
    assert_int_equal(sum.out_of_order, ooo);
    assert_true(sum.jitter_ms == jit / 3); /* the receivers' average */
    assert_true(sum.lost_percent == pct(lost, packets));
    assert_true(sum.seconds == w.end_s - w.start_s);
    assert_true(sum.bits_per_second == (double)bytes * 8.0 / (w.end_s - w.start_s));
    assert_true(sum.start_s == w.start_s && sum.end_s == w.end_s);
    assert_true(sum.nominal_start_s == w.nom_start_s && sum.nominal_end_s == w.nom_end_s);
    assert_int_equal(sum.nominal_count, w.nom_n);
    assert_true(sum.is_udp);
    assert_false(sum.sid.sender);

    /* Senders' rows add bytes and packets but no jitter to average. */
    struct lp_sample tx[2] = {row(true, true, 1470, 1, 0, 0), row(true, true, 2940, 2, 0, 0)};
    memset(&sum, 0, sizeof(sum));
    njit = 0;
    lp_totals_sample_add(&sum, &tx[0], &njit);
    lp_totals_sample_add(&sum, &tx[1], &njit);
    lp_totals_sample_close(&sum, &tx[1], njit, &w);
    assert_int_equal(njit, 0);
    assert_true(sum.jitter_ms == 0);
    assert_int_equal(sum.bytes, tx[0].bytes + tx[1].bytes);
    assert_true(sum.sid.sender);

    /* TCP senders: retransmits add up; tcp_info known if any row had it. */
    struct lp_sample t1 = row(false, true, 10, 0, 0, 0), t2 = row(false, true, 20, 0, 0, 0);
    t1.retransmits = 4, t1.has_tcp_info = true, t2.retransmits = 5;
    memset(&sum, 0, sizeof(sum));
    lp_totals_sample_add(&sum, &t1, &njit);
    lp_totals_sample_add(&sum, &t2, &njit);
    lp_totals_sample_close(&sum, &t2, njit, &w);
    assert_int_equal(sum.retransmits, t1.retransmits + t2.retransmits);
    assert_true(sum.has_tcp_info);

    /* No time in the window: no rate. */
    struct lp_sched_window zero = {.start_s = 4, .end_s = 4, .nom_n = 1};
    lp_totals_sample_close(&sum, &t2, 0, &zero);
    assert_true(sum.bits_per_second == 0);
}

/* ---- the whole test ---- */

static void run_seconds_and_span(void **state)
{
    const uint64_t meas = 10 * S;
    struct lp_totals_clock c = {.started = true, .meas_ns = meas, .end_ns = meas + 5 * S + S / 4};
    struct lp_total t;
    (void)state;
    assert_true(lp_totals_run_seconds(&c) == (double)(c.end_ns - meas) / 1e9);
    /* Not started: nothing measured. */
    struct lp_totals_clock idle = {.started = false};
    assert_true(lp_totals_run_seconds(&idle) == 0);
    /* With the run from start to end. */
    memset(&t, 0, sizeof(t));
    lp_totals_span(&t, &c, meas, 0, 0);
    assert_true(t.start_s == 0 && t.end_s == lp_totals_run_seconds(&c) && t.seconds == t.end_s);
    /* Ended early (an iperf2 stream that finished first). */
    uint64_t end = meas + 2 * S;
    lp_totals_span(&t, &c, meas, 0, end);
    assert_true(t.start_s == 0);
    assert_true(t.end_s == (double)(end - meas) / 1e9);
    assert_true(t.seconds == (double)(end - meas) / 1e9);
    /* Joined late: its own time, to the run's end. */
    uint64_t join = meas + 3 * S;
    lp_totals_span(&t, &c, meas, join, 0);
    assert_true(t.start_s == (double)(join - meas) / 1e9);
    assert_true(t.end_s == (double)(c.end_ns - meas) / 1e9);
    assert_true(t.seconds == (double)(c.end_ns - join) / 1e9);
    /* iperf2 -r's second leg counts from its own origin. */
    lp_totals_span(&t, &c, join, join, join + S);
    assert_true(t.start_s == 0 && t.end_s == 1 && t.seconds == 1);
    /* A start before the origin is the origin; an end before the start is an empty span. */
    lp_totals_span(&t, &c, join, meas, join + S);
    assert_true(t.start_s == 0 && t.seconds == 1);
    lp_totals_span(&t, &c, join, join + S, join);
    assert_true(t.seconds == 0);
    assert_true(t.end_s == t.start_s);
}

static void counts_of_a_stream(void **state)
{
    struct lp_totals_counts base = {.bytes = 500, .packets = 5, .max_seq = 5, .lost = 1, .out_of_order = 0};
    struct lp_totals_counts fin = {.bytes = 500 + 14700, .packets = 15, .max_seq = 16, .lost = 3, .out_of_order = 2,
                                   .jitter_s = 0.001};
    struct lp_total t;
    (void)state;
    memset(&t, 0, sizeof(t));
    t.seconds = 2;
    lp_totals_counts(&t, false, true, &fin, &base);
    assert_true(t.present);
    assert_false(t.is_udp);
    assert_int_equal(t.bytes, fin.bytes - base.bytes);
    assert_true(t.bits_per_second == (double)(fin.bytes - base.bytes) * 8.0 / 2);
    assert_int_equal(t.packets, 0);
    memset(&t, 0, sizeof(t));
    t.seconds = 2;
    lp_totals_counts(&t, true, true, &fin, &base);
    assert_int_equal(t.packets, fin.packets - base.packets);
    assert_true(t.jitter_ms == 0);
    memset(&t, 0, sizeof(t));
    t.seconds = 2;
    lp_totals_counts(&t, true, false, &fin, &base);
    assert_udp_receiver_row(t, fin, base);
}

static struct lp_total total(bool udp, double seconds, uint64_t bytes, bool retr, int64_t nretr, double jitter)
{
    struct lp_total t;
    memset(&t, 0, sizeof(t));
    t.present = true;
    t.is_udp = udp;
    t.seconds = t.end_s = seconds;
    t.bytes = bytes;
    t.has_retransmits = retr;
    t.retransmits = retr ? nretr : 0;
    t.jitter_ms = jitter;
    t.packets = bytes / 1000;
    t.lost_packets = (int64_t)(bytes / 100000);
    return t;
}

/* The [SUM] of n totals of one direction as run.c makes it: each added, then closed; *njit
 * is how many jitters it averaged. */
static struct lp_total sum_of(const struct lp_total *t, unsigned n, bool sender, unsigned *njit)
{
    struct lp_total sum;
    bool all = true;

    memset(&sum, 0, sizeof(sum));
    *njit = 0;
    for (unsigned i = 0; i < n; i++)
        lp_totals_add(&sum, &t[i], njit, &all);
    lp_totals_close(&sum, *njit, all, sender);
    return sum;
}

static void direction_sums(void **state)
{
    struct lp_total t[3] = {total(false, 10, 1000000, true, 3, 0), total(false, 10.5, 2000000, true, 4, 0),
                            total(false, 9, 500000, true, 5, 0)};
    struct lp_total sum;
    unsigned njit;
    (void)state;
    /* Every TCP sender knows its retransmits: the sum has them; the time is the longest. */
    sum = sum_of(t, 3, true, &njit);
    assert_true(sum.present);
    assert_true(sum.has_retransmits);
    assert_int_equal(sum.retransmits, t[0].retransmits + t[1].retransmits + t[2].retransmits);
    assert_int_equal(sum.bytes, t[0].bytes + t[1].bytes + t[2].bytes);
    assert_true(sum.seconds == t[1].seconds && sum.end_s == t[1].seconds);
    assert_true(sum.bits_per_second == (double)sum.bytes * 8.0 / t[1].seconds);
    /* One of them does not: none (a part of the retransmits would read as all of them). */
    t[2].has_retransmits = false;
    t[2].retransmits = 0;
    sum = sum_of(t, 3, true, &njit);
    assert_false(sum.has_retransmits);
    assert_int_equal(sum.retransmits, 0);
    /* The receiver side never shows retransmits. */
    t[2].has_retransmits = true;
    sum = sum_of(t, 3, false, &njit);
    assert_false(sum.has_retransmits);
}

static void udp_sums_and_jitter(void **state)
{
    struct lp_total rx[3] = {total(true, 2, 1470000, false, 0, 0.5), {.jitter_ms = 99},
                             total(true, 2, 2940000, false, 0, 1.5)};
    struct lp_total sum;
    unsigned njit;
    (void)state;
    /* rx[1] is not present: it counts for nothing, not even in the jitter's average. */
    sum = sum_of(rx, 3, false, &njit);
    assert_int_equal(njit, 2);
    assert_true(sum.jitter_ms == (rx[0].jitter_ms + rx[2].jitter_ms) / 2);
    assert_int_equal(sum.lost_packets, rx[0].lost_packets + rx[2].lost_packets);
    assert_true(sum.lost_percent == pct(sum.lost_packets, rx[0].packets + rx[2].packets));
    assert_false(sum.has_retransmits); /* UDP */
    /* The sender side: no jitter, no loss (iperf3 prints 0 there). */
    sum = sum_of(rx, 1, true, &njit);
    assert_true(sum.jitter_ms == 0 && sum.lost_packets == 0 && sum.lost_percent == 0);
    assert_int_equal(sum.packets, rx[0].packets);
}

static void no_streams(void **state)
{
    struct lp_total sum;
    struct lp_own_sum own;
    unsigned njit = 0;
    bool all = true;
    (void)state;
    memset(&sum, 0, sizeof(sum));
    lp_totals_close(&sum, njit, all, true);
    assert_false(sum.present);
    assert_false(sum.has_retransmits);
    assert_true(sum.bits_per_second == 0);
    lp_totals_own(NULL, 0, &own);
    assert_false(own.sum.present);
    assert_int_equal(own.rows, 0);
    assert_true(own.sum.bits_per_second == 0 && own.sum.lost_percent == 0);
}

static void own_rows(void **state)
{
    struct lp_stream_end se[4];
    struct lp_own_sum own;
    (void)state;
    memset(se, 0, sizeof(se));
    /* A UDP client with -d: two senders (their receiver rows are the server's reports, not
     * this end's), a -d leg it receives from late and shorter, and a stream with no row. */
    se[0].sid.sender = true;
    se[0].sender = total(true, 10, 1250000, false, 0, 0);
    se[0].receiver = total(true, 10, 999, false, 0, 3); /* the peer's report: not ours */
    se[1].sid.sender = true;
    se[1].sender = total(true, 10, 1260000, false, 0, 0);
    se[2].sid.sender = false;
    se[2].receiver = total(true, 0, 700000, false, 0, 0.2);
    se[2].receiver.start_s = 0.25, se[2].receiver.end_s = 10.5;
    se[3].sid.sender = false; /* nothing received: no row */
    lp_totals_own(se, 4, &own);
    assert_int_equal(own.rows, 3);
    assert_int_equal(own.udp_senders, 2);
    assert_int_equal(own.udp_sent, se[0].sender.packets + se[1].sender.packets);
    assert_int_equal(own.sum.bytes, se[0].sender.bytes + se[1].sender.bytes + se[2].receiver.bytes);
    assert_int_equal(own.sum.packets, se[0].sender.packets + se[1].sender.packets + se[2].receiver.packets);
    assert_true(own.sum.start_s == 0);      /* the earliest row's start */
    assert_true(own.sum.end_s == 10.5);     /* the latest row's end */
    assert_true(own.sum.seconds == 10.5);
    assert_true(own.sum.bits_per_second == (double)own.sum.bytes * 8.0 / 10.5);
    assert_true(own.sum.lost_percent == pct(own.sum.lost_packets, own.sum.packets));
    assert_true(own.sum.jitter_ms == 0);
    /* Rows that all start late: the span starts with the earliest of them. */
    se[0].sender.start_s = 3, se[1].sender.start_s = 2, se[2].receiver.start_s = 4;
    lp_totals_own(se, 3, &own);
    assert_true(own.sum.start_s == 2);
    assert_true(own.sum.bits_per_second == (double)own.sum.bytes * 8.0 / (10.5 - 2));
    /* TCP: retransmits add up, known when some row knows them. */
    struct lp_stream_end tcp[2];
    memset(tcp, 0, sizeof(tcp));
    tcp[0].sid.sender = tcp[1].sid.sender = true;
    tcp[0].sender = total(false, 5, 100, true, 7, 0);
    tcp[1].sender = total(false, 5, 200, false, 0, 0);
    lp_totals_own(tcp, 2, &own);
    assert_true(own.sum.has_retransmits);
    assert_int_equal(own.sum.retransmits, tcp[0].sender.retransmits);
    assert_int_equal(own.udp_senders, 0);
    /* A zero-length span: no rate. */
    tcp[0].sender.end_s = tcp[1].sender.end_s = 0;
    lp_totals_own(tcp, 2, &own);
    assert_true(own.sum.bits_per_second == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rate),
        cmocka_unit_test(sample_tcp_and_wrap),
        cmocka_unit_test(sample_udp),
        cmocka_unit_test(interval_sum),
        cmocka_unit_test(run_seconds_and_span),
        cmocka_unit_test(counts_of_a_stream),
        cmocka_unit_test(direction_sums),
        cmocka_unit_test(udp_sums_and_jitter),
        cmocka_unit_test(no_streams),
        cmocka_unit_test(own_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The records that list every stream of a run (START, END, LEG_END) use rows that grew with
 * the streams (lp_run.conns, lp_run.ends) instead of allocating when they are emitted: every
 * stream has its row, and a row reused by a later record carries nothing from the earlier
 * one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/run.h"

#define NSTREAMS 9 /* more than the first allocation (4), so the rows grow twice */

/* What the sink saw of the last record of each kind. */
struct seen {
    unsigned starts, ends, leg_ends;
    unsigned nrows;
    struct lp_stream_end rows[NSTREAMS];
    struct lp_stream_conn conns[NSTREAMS];
};

static void capture(const struct lp_record *rec, void *user)
{
    struct seen *s = user;
    if (rec->kind == LP_REC_START) {
        s->starts++;
        s->nrows = rec->u.start.nstreams;
        memcpy(s->conns, rec->u.start.streams, s->nrows * sizeof(s->conns[0]));
    } else if (rec->kind == LP_REC_END || rec->kind == LP_REC_LEG_END) {
        if (rec->kind == LP_REC_END)
            s->ends++;
        else
            s->leg_ends++;
        s->nrows = rec->u.end.nstreams;
        memcpy(s->rows, rec->u.end.streams, s->nrows * sizeof(s->rows[0]));
    }
}

struct fixture {
    struct lp_engine eng;
    struct lp_run run;
    struct seen seen;
};

/* A run of NSTREAMS socketpair streams; stream i sends when i is even, and has id 100 + i. */
static void setup_run(struct fixture *f)
{
    memset(f, 0, sizeof(*f));
    f->eng.sink.record = capture;
    f->eng.sink.user = &f->seen;
    struct lp_spec spec;
    lp_spec_init(&spec, LP_ROLE_CLIENT);
    lp_run_init(&f->run, &f->eng, &spec, 1);
    for (unsigned i = 0; i < NSTREAMS; i++) {
        int sv[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
        close(sv[1]);
        struct lp_run_stream *rs = lp_run_add_stream(&f->run, sv[0], i);
        assert_non_null(rs);
        rs->conn.sid.id = 100 + (int)i;
        rs->conn.sid.sender = i % 2 == 0;
    }
}

static void every_stream_has_its_row(void **state)
{
    (void)state;
    static struct fixture f;
    setup_run(&f);
    lp_run_emit_start(&f.run);
    assert_int_equal(f.seen.starts, 1);
    assert_int_equal(f.seen.nrows, NSTREAMS);
    for (unsigned i = 0; i < NSTREAMS; i++)
        assert_int_equal(f.seen.conns[i].sid.id, 100 + (int)i);

    lp_run_emit_end(&f.run, NULL, true, NULL, NULL);
    assert_int_equal(f.seen.ends, 1);
    assert_int_equal(f.seen.nrows, NSTREAMS);
    for (unsigned i = 0; i < NSTREAMS; i++) {
        const struct lp_stream_end *se = &f.seen.rows[i];
        assert_int_equal(se->sid.id, 100 + (int)i);
        /* This end's side of the row is there; the peer's (no results) is not. */
        assert_true(i % 2 == 0 ? se->sender.present : se->receiver.present);
        assert_false(i % 2 == 0 ? se->receiver.present : se->sender.present);
    }
    lp_run_release(&f.run);
}

static void a_reused_row_starts_empty(void **state)
{
    (void)state;
    static struct fixture f;
    setup_run(&f);
    lp_run_emit_end(&f.run, NULL, true, NULL, NULL); /* fills every row */
    /* Only the receiver with id 101 ended: the leg's record has that one row, and its
     * sender side, which no record filled this time, is empty. */
    f.run.streams[1].end_ns = 1;
    lp_run_emit_leg_end(&f.run, NULL);
    assert_int_equal(f.seen.leg_ends, 1);
    assert_int_equal(f.seen.nrows, 1);
    assert_int_equal(f.seen.rows[0].sid.id, 101);
    assert_true(f.seen.rows[0].receiver.present);
    assert_false(f.seen.rows[0].sender.present);
    /* Now the sender with id 100 ended as well: its row's receiver side is empty although
     * the row it uses held a receiver's numbers just before. */
    f.run.streams[0].end_ns = 1;
    lp_run_emit_leg_end(&f.run, NULL);
    assert_int_equal(f.seen.nrows, 2);
    assert_int_equal(f.seen.rows[0].sid.id, 100);
    assert_true(f.seen.rows[0].sender.present);
    assert_false(f.seen.rows[0].receiver.present);
    lp_run_release(&f.run);
}

static void a_run_without_streams_still_ends(void **state)
{
    (void)state;
    static struct fixture f;
    memset(&f, 0, sizeof(f));
    f.eng.sink.record = capture;
    f.eng.sink.user = &f.seen;
    struct lp_spec spec;
    lp_spec_init(&spec, LP_ROLE_SERVER);
    lp_run_init(&f.run, &f.eng, &spec, 1);
    lp_run_emit_start(&f.run);
    lp_run_emit_end(&f.run, NULL, true, NULL, NULL);
    assert_int_equal(f.seen.starts, 1);
    assert_int_equal(f.seen.ends, 1);
    assert_int_equal(f.seen.nrows, 0);
    lp_run_release(&f.run);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_stream_has_its_row),
        cmocka_unit_test(a_reused_row_starts_empty),
        cmocka_unit_test(a_run_without_streams_still_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

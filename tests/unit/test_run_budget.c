/* The -n/-k budget a run's senders draw from (lp_run_prepare_budget): bytes, TCP blocks as
 * bytes, UDP datagrams, and the numbers an iperf3 client may send that do not fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/run.h"

static int64_t budget_of(const struct lp_spec *spec, struct lp_run *r)
{
    lp_run_init(r, NULL, spec, 1);
    lp_run_prepare_budget(r);
    return atomic_load(&r->budget.remaining);
}

static void ordinary_budgets(void **state)
{
    (void)state;
    struct lp_spec sp;
    struct lp_run r;
    lp_spec_init(&sp, LP_ROLE_SERVER);
    sp.bytes = 1000000;
    assert_true(budget_of(&sp, &r) == 1000000);
    assert_true(r.budget.limited && !r.budget.blocks);

    lp_spec_init(&sp, LP_ROLE_SERVER);
    sp.blocks = 10;
    sp.blksize = 131072; /* TCP: ten whole writes */
    assert_true(budget_of(&sp, &r) == 1310720);
    assert_true(r.budget.limited && !r.budget.blocks);
    assert_true(r.budget.whole_blocks); /* iperf3 receivers count whole blocks */
    sp.dialect = LP_DIALECT_IPERF2;     /* iperf 2 sends exactly -n */
    budget_of(&sp, &r);
    assert_false(r.budget.whole_blocks);

    lp_spec_init(&sp, LP_ROLE_CLIENT);
    sp.proto = LP_PROTO_UDP;
    sp.blocks = 10; /* UDP: ten datagrams */
    assert_true(budget_of(&sp, &r) == 10);
    assert_true(r.budget.limited && r.budget.blocks && !r.budget.whole_blocks);

    /* An iperf3 server sends UDP to a client that ends the test when -k has arrived: no
     * budget of its own (a lost datagram would leave the client short forever). */
    sp.role = LP_ROLE_SERVER;
    budget_of(&sp, &r);
    assert_false(r.budget.limited);
    sp.dialect = LP_DIALECT_IPERF2; /* an iperf 2 server's -R sender stops at its amount */
    assert_true(budget_of(&sp, &r) == 10);
    assert_true(r.budget.limited);

    lp_spec_init(&sp, LP_ROLE_SERVER);
    assert_true(budget_of(&sp, &r) == 0);
    assert_false(r.budget.limited);
}

/* iperf3's parameters allow "blockcount" 9e18 with "len" up to 1 MiB: 9e18 x 128 KiB used to
 * wrap modulo 2^64 to a value the int64_t budget reads as negative (-2.8e18), so the sender
 * stopped at once; now the budget saturates. */
static void huge_blockcount_saturates(void **state)
{
    (void)state;
    struct lp_spec sp;
    struct lp_run r;
    lp_spec_init(&sp, LP_ROLE_SERVER);
    sp.blocks = 9000000000000000000ull;
    sp.blksize = 131072;
    assert_true(budget_of(&sp, &r) == INT64_MAX);
    assert_true(r.budget.limited);

    lp_spec_init(&sp, LP_ROLE_CLIENT);
    sp.dir = LP_DIR_REVERSE;
    sp.blocks = 9000000000000000000ull;
    sp.blksize = 1048576;
    assert_true(budget_of(&sp, &r) == INT64_MAX);
    assert_true(r.budget.rx_target == (uint64_t)INT64_MAX);

    /* The CLI's own -k (up to 2^50) x -l 128K: 2^47 + 1 blocks wrapped to 131072 bytes (one
     * block sent), 2^47 to 0 (no budget at all: the test never ended). */
    lp_spec_init(&sp, LP_ROLE_CLIENT);
    sp.blocks = (1ull << 47) + 1;
    sp.blksize = 131072;
    assert_true(budget_of(&sp, &r) == INT64_MAX);
    sp.blocks = 1ull << 47;
    assert_true(budget_of(&sp, &r) == INT64_MAX);
    assert_true(r.budget.limited);

    /* Bytes past what an int64_t holds (a library caller's spec) saturate too. */
    lp_spec_init(&sp, LP_ROLE_SERVER);
    sp.bytes = UINT64_MAX;
    assert_true(budget_of(&sp, &r) == INT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ordinary_budgets),
        cmocka_unit_test(huge_blockcount_saturates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

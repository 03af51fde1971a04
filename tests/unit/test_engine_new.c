/* lp_client_new and lp_server_new say why they failed: with no descriptor left (RLIMIT_NOFILE
 * lowered to the lowest free one), the engine cannot create its event loop, and the text in
 * the caller's buffer names that step and the system's reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "linkperf/engine.h"

/* Lower the soft limit so that the next descriptor cannot be created; *old restores it. */
static void no_more_descriptors(struct rlimit *old)
{
    assert_int_equal(getrlimit(RLIMIT_NOFILE, old), 0);
    int lowest = open("/dev/null", O_RDONLY | O_CLOEXEC); /* the lowest free number */
    assert_true(lowest >= 0);
    close(lowest);
    struct rlimit lim = {.rlim_cur = (rlim_t)lowest, .rlim_max = old->rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
}

static void expect_loop_failure(const char *err)
{
    char want[256];
    snprintf(want, sizeof(want), "cannot create the event loop: %s", strerror(EMFILE));
    assert_string_equal(err, want);
}

static void client_new_fails_with_text(enum lp_dialect dialect)
{
    struct lp_spec spec;
    struct lp_sink sink = {0};
    struct rlimit old;
    char err[256] = "";
    lp_spec_init(&spec, LP_ROLE_CLIENT);
    snprintf(spec.host, sizeof(spec.host), "127.0.0.1");
    spec.dialect = dialect;
    no_more_descriptors(&old);
    struct lp_client *c = lp_client_new(&spec, &sink, err, sizeof(err));
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_null(c);
    expect_loop_failure(err);
}

static void iperf3_client(void **state)
{
    (void)state;
    client_new_fails_with_text(LP_DIALECT_IPERF3);
}

static void iperf2_client(void **state)
{
    (void)state;
    client_new_fails_with_text(LP_DIALECT_IPERF2);
}

static void server(void **state)
{
    (void)state;
    struct lp_spec spec;
    struct lp_sink sink = {0};
    struct rlimit old;
    char err[256] = "";
    lp_spec_init(&spec, LP_ROLE_SERVER);
    no_more_descriptors(&old);
    struct lp_server *s = lp_server_new(&spec, &sink, err, sizeof(err));
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_null(s);
    expect_loop_failure(err);
}

/* With descriptors to spare the same calls succeed (the failure above is the limit's). */
static void with_descriptors_they_start(void **state)
{
    (void)state;
    struct lp_spec spec;
    struct lp_sink sink = {0};
    char err[256] = "";
    lp_spec_init(&spec, LP_ROLE_CLIENT);
    snprintf(spec.host, sizeof(spec.host), "127.0.0.1");
    spec.threads = 1;
    struct lp_client *c = lp_client_new(&spec, &sink, err, sizeof(err));
    assert_non_null(c);
    assert_string_equal(err, "");
    lp_client_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(iperf3_client),
        cmocka_unit_test(iperf2_client),
        cmocka_unit_test(server),
        cmocka_unit_test(with_descriptors_they_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

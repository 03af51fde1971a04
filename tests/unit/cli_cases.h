/* The per-row option cases of one spelling's table, and the tests both option files run over
 * them (test_cli_options.c: the default table, test_cli_options2.c: iperf2's): every row has a
 * case, each valid line lands in its field, each bad one gives its exact message, and the
 * table itself is consistent. Only the cases and the spelling differ, so the tests take them
 * as cmocka's state: cmocka_unit_test_prestate(test_valid_values, &set). Include after
 * <cmocka.h>. */
#ifndef LP_TEST_CLI_CASES_H
#define LP_TEST_CLI_CASES_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/parse.h"

#define MAX_ARGS 8
#define MAX_BAD 4

struct bad {
    const char *argv[MAX_ARGS];
    const char *msg;
};

struct opt_case {
    const char *name;                            /* the row's long name */
    const char *argv[MAX_ARGS];                  /* a valid command line (NULL for rejects) */
    int (*check)(const struct lp_cli_config *c); /* 1 when the value landed where it should */
    struct bad bad[MAX_BAD];                     /* at least one */
};

/* Values one longer than a row allows, for the "too long" cases (cases_fill_strings). */
static char s16[17], s256[257], s1024[1025];

#define CHECK(id, expr) \
    static int check_##id(const struct lp_cli_config *c) { return (expr); }

/* One spelling: its table, the argv[0] the lines run as, and a case for each row. */
struct case_set {
    const struct lp_cli_table *table;
    const char *argv0;
    const struct opt_case *cases;
    size_t n;
};

/* A group setup: the long values, filled before the cases run. */
static inline int cases_fill_strings(void **state)
{
    (void)state;
    memset(s16, 'a', sizeof(s16) - 1);
    memset(s256, 'h', sizeof(s256) - 1);
    memset(s1024, 'x', sizeof(s1024) - 1);
    return 0;
}

static inline int cases_parse(const struct case_set *s, const char *const *list,
                              struct lp_cli_config *cfg, struct lp_cli_err *err)
{
    char *argv[MAX_ARGS + 2];
    int argc = 0;

    argv[argc++] = (char *)s->argv0;
    while (argc <= MAX_ARGS && list[argc - 1])
        argv[argc] = (char *)list[argc - 1], argc++;
    argv[argc] = NULL;
    return lp_cli_parse(argc, argv, cfg, err);
}

static inline const struct opt_case *cases_find(const struct case_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->cases[i].name, name) == 0)
            return &s->cases[i];
    }
    return NULL;
}

/* A row without a case (or without a bad value, or a supported row without a valid line)
 * fails, and so does a case for an option the table does not have (a renamed row). */
static inline void test_every_row_has_a_case(void **state)
{
    const struct case_set *s = *state;
    const struct lp_cli_table *t = s->table;
    size_t i, missing = 0;

    for (i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        const struct opt_case *c = cases_find(s, o->name);
        if (!c) {
            print_error("option --%s has no test case\n", o->name);
            missing++;
            continue;
        }
        if (!c->bad[0].msg) {
            print_error("option --%s has no bad-value case\n", o->name);
            missing++;
        }
        if (!(o->flags & LP_CLI_F_UNSUPPORTED) && !c->check) {
            print_error("option --%s has no valid-value case\n", o->name);
            missing++;
        }
    }
    for (i = 0; i < s->n; i++) {
        if (!lp_cli_options_long(t, s->cases[i].name, strlen(s->cases[i].name))) {
            print_error("test case --%s matches no row\n", s->cases[i].name);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
}

/* Each valid line parses in this spelling and its value lands where the row says. */
static inline void test_valid_values(void **state)
{
    const struct case_set *s = *state;
    struct lp_cli_config cfg;
    struct lp_cli_err err;

    for (size_t i = 0; i < s->n; i++) {
        const struct opt_case *c = &s->cases[i];
        if (!c->check)
            continue;
        if (cases_parse(s, c->argv, &cfg, &err) != 0)
            fail_msg("--%s: unexpected error: %s", c->name, err.msg);
        if (cfg.iperf2 != s->table->iperf2 && strcmp(c->name, "iperf2") != 0)
            fail_msg("--%s: %s did not select its spelling", c->name, s->argv0);
        if (!c->check(&cfg))
            fail_msg("--%s: the value did not land in its field", c->name);
    }
}

/* b must be refused with exactly its message, one line; what names the case in a failure. */
static inline void cases_expect_bad(const struct case_set *s, const struct bad *b,
                                    const char *what, size_t j)
{
    struct lp_cli_config cfg;
    struct lp_cli_err err;

    if (cases_parse(s, b->argv, &cfg, &err) != -1)
        fail_msg("%s: bad case %zu was accepted", what, j);
    if (strcmp(err.msg, b->msg) != 0)
        fail_msg("%s: bad case %zu:\n  got  '%s'\n  want '%s'", what, j, err.msg, b->msg);
    assert_null(strchr(err.msg, '\n'));
}

static inline void test_bad_values(void **state)
{
    const struct case_set *s = *state;

    for (size_t i = 0; i < s->n; i++) {
        char what[64];
        snprintf(what, sizeof(what), "--%s", s->cases[i].name);
        for (size_t j = 0; j < MAX_BAD && s->cases[i].bad[j].msg; j++)
            cases_expect_bad(s, &s->cases[i].bad[j], what, j);
    }
}

/* The table itself: unique names, letters and keys, sane ranges (a narrower one inside the
 * row's), a metavar exactly where a supported row takes a value, somewhere to put each value,
 * and string limits inside their fields. */
static inline void test_table_is_consistent(void **state)
{
    const struct case_set *s = *state;
    const struct lp_cli_table *t = s->table;

    assert_true(t->count <= 128);
    for (size_t i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        assert_non_null(o->help);
        assert_true(o->help[0] != '\0');
        assert_true(o->min <= o->max);
        if (o->narrow.when != LP_CLI_WHEN_NEVER)
            assert_true(o->min <= o->narrow.min && o->narrow.min <= o->narrow.max &&
                        o->narrow.max <= o->max);
        if (o->arg != LP_CLI_ARG_NONE && !(o->flags & LP_CLI_F_UNSUPPORTED))
            assert_non_null(o->metavar);
        if (o->arg == LP_CLI_ARG_NONE)
            assert_null(o->metavar);
        if (!(o->flags & LP_CLI_F_UNSUPPORTED))
            assert_true(o->set != NULL || o->store != LP_CLI_STORE_NONE);
        if (o->store == LP_CLI_STORE_STR)
            assert_true(o->max > 0 && o->max < (double)o->size);
        for (size_t j = i + 1; j < t->count; j++) {
            assert_string_not_equal(o->name, t->opts[j].name);
            if (o->letter)
                assert_true(o->letter != t->opts[j].letter);
            if (o->key)
                assert_true(o->key != t->opts[j].key);
        }
    }
}

#endif

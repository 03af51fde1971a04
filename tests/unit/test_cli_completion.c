/* `linkperf --completion`: each spelling's option list in the bash script holds every
 * supported row of its table, short and long, and no unsupported one; the rows with named
 * values offer them; only bash and zsh are known. (tests/tree/test_install.py runs the
 * installed scripts in bash and zsh against --help.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/completion.h"
#include "cli/options.h"

/* The words of the bash script's _linkperf_opts_NAME='...' line, as " w1 w2 ... ". */
static char *opts_line(const char *script, const char *table)
{
    char key[64];
    const char *p, *end;
    char *words;

    snprintf(key, sizeof(key), "\n_linkperf_opts_%s='", table);
    p = strstr(script, key);
    assert_non_null(p);
    p += strlen(key);
    end = strchr(p, '\'');
    assert_non_null(end);
    words = malloc((size_t)(end - p) + 3);
    assert_non_null(words);
    snprintf(words, (size_t)(end - p) + 3, " %.*s ", (int)(end - p), p);
    return words;
}

static bool has_word(const char *words, const char *w)
{
    char key[80];

    snprintf(key, sizeof(key), " %s ", w);
    return strstr(words, key) != NULL;
}

static void check_table(const char *script, const struct lp_cli_table *t)
{
    char *words = opts_line(script, t->name);
    size_t offered = 0;

    for (size_t i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        char name[64], letter[3] = {'-', o->letter, '\0'};
        bool want = !(o->flags & LP_CLI_F_UNSUPPORTED);

        snprintf(name, sizeof(name), "--%s", o->name);
        if (has_word(words, name) != want)
            fail_msg("%s table: %s is %s the completion", t->name, name,
                     want ? "missing from" : "wrongly in");
        /* An unsupported row's letter may be a supported row's in the other mode. */
        if (o->letter && want && !has_word(words, letter))
            fail_msg("%s table: -%c is missing from the completion", t->name, o->letter);
        offered += want;
    }
    assert_true(offered > 50);
    free(words);
}

static void test_bash_lists_every_supported_row(void **state)
{
    char *s = lp_cli_completion_script("bash");

    (void)state;
    assert_non_null(s);
    check_table(s, lp_cli_options_iperf3());
    check_table(s, lp_cli_options_iperf2());
    assert_non_null(strstr(s, "'-f'|'--format') REPLY='k m g t K M G T a A' ;;"));
    assert_non_null(strstr(s, "'--dialect') REPLY='iperf2 iperf3' ;;"));
    assert_non_null(strstr(s, "_linkperf_subcommands='ui lwip-tune under-load rfc2544 history demo'"));
    free(s);
}

static void test_zsh_and_unknown_shells(void **state)
{
    char *s = lp_cli_completion_script("zsh");

    (void)state;
    assert_non_null(s);
    assert_int_equal(strncmp(s, "#compdef linkperf linkperf2\n", 28), 0);
    assert_non_null(strstr(s, "'--dialect':"));
    free(s);
    assert_null(lp_cli_completion_script("fish"));
    assert_null(lp_cli_completion_script(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bash_lists_every_supported_row),
        cmocka_unit_test(test_zsh_and_unknown_shells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

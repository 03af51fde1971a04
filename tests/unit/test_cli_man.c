/* docs/linkperf.1 must be exactly what `linkperf --man` prints, so the page cannot drift
 * from the option table; --help must list every supported option. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/help.h"

#define MAN_PATH LP_SOURCE_DIR "/docs/linkperf.1"

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        p = malloc((size_t)n + 1);
        if (p && fread(p, 1, (size_t)n, f) == (size_t)n) {
            p[n] = '\0';
            *len = (size_t)n;
        } else {
            free(p);
            p = NULL;
        }
    }
    fclose(f);
    return p;
}

static void test_man_page_matches_table(void **state)
{
    char *want = lp_cli_man_page(lp_cli_options_iperf3());
    size_t len = 0, i;
    char *have = read_file(MAN_PATH, &len);

    (void)state;
    assert_non_null(want);
    if (!have)
        fail_msg("cannot read %s; regenerate it with: linkperf --man > docs/linkperf.1",
                 MAN_PATH);
    if (len != strlen(want) || memcmp(have, want, len) != 0) {
        for (i = 0; i < len && want[i] && have[i] == want[i]; i++)
            ;
        fail_msg("%s differs from `linkperf --man` at byte %zu; regenerate it with: "
                 "linkperf --man > docs/linkperf.1 (or make man)", MAN_PATH, i);
    }
    free(have);
    free(want);
}

/* Every row appears in the page, in its escaped form ("\-\-bind\-dev"). */
static void test_man_page_names_every_option(void **state)
{
    const struct lp_cli_table *t = lp_cli_options_iperf3();
    char *page = lp_cli_man_page(t);
    size_t i;

    (void)state;
    assert_non_null(page);
    assert_non_null(strstr(page, ".SH SERVER OPTIONS\n"));
    assert_non_null(strstr(page, ".SH CLIENT OPTIONS\n"));
    assert_non_null(strstr(page, ".SH EXIT STATUS\n"));
    for (i = 0; i < t->count; i++) {
        char esc[128] = "\\fB\\-\\-";
        const char *s;
        size_t n = strlen(esc);
        for (s = t->opts[i].name; *s && n + 3 < sizeof(esc); s++) {
            if (*s == '-')
                esc[n++] = '\\';
            esc[n++] = *s;
        }
        esc[n] = '\0';
        if (!strstr(page, esc))
            fail_msg("man page lacks --%s", t->opts[i].name);
    }
    free(page);
}

static void test_help_lists_supported_options(void **state)
{
    const struct lp_cli_table *t = lp_cli_options_iperf3();
    char *help = lp_cli_help_text(t);
    size_t i;

    (void)state;
    assert_non_null(help);
    for (i = 0; i < t->count; i++) {
        char name[64];
        if (t->opts[i].flags & LP_CLI_F_UNSUPPORTED)
            continue; /* listed by letter only */
        snprintf(name, sizeof(name), "--%s", t->opts[i].name);
        if (!strstr(help, name))
            fail_msg("--help lacks %s", name);
    }
    free(help);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_man_page_matches_table),
        cmocka_unit_test(test_man_page_names_every_option),
        cmocka_unit_test(test_help_lists_supported_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

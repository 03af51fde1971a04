/* docs/linkperf.1 must be exactly what `linkperf --man` prints, so the page cannot drift
 * from the option tables (iperf3's and, in IPERF2 MODE, iperf2's); --help of each spelling
 * must list every supported option of its table. */
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
    char *want = lp_cli_man_page(lp_cli_options_iperf3(), lp_cli_options_iperf2());
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

/* The tag of a row as the page writes it: "\fB\-\-bind\-dev\fR". */
static void escaped_tag(const char *name, char *esc, size_t len)
{
    size_t n = (size_t)snprintf(esc, len, "\\fB\\-\\-");

    for (; *name && n + 8 < len; name++) {
        if (*name == '-')
            esc[n++] = '\\';
        esc[n++] = *name;
    }
    snprintf(esc + n, len - n, "\\fR");
}

/* Every row of both tables appears in the page, the iperf2 rows after IPERF2 MODE. */
static void test_man_page_names_every_option(void **state)
{
    const struct lp_cli_table *t3 = lp_cli_options_iperf3(), *t2 = lp_cli_options_iperf2();
    char *page = lp_cli_man_page(t3, t2);
    const char *mode2;
    size_t i;

    (void)state;
    assert_non_null(page);
    assert_non_null(strstr(page, ".SH SERVER OPTIONS\n"));
    assert_non_null(strstr(page, ".SH CLIENT OPTIONS\n"));
    assert_non_null(strstr(page, ".SH EXIT STATUS\n"));
    mode2 = strstr(page, ".SH IPERF2 MODE\n");
    assert_non_null(mode2);
    assert_non_null(strstr(mode2, ".SS Server options (iperf2 mode)\n"));
    assert_non_null(strstr(mode2, ".SS Unsupported iperf2 options\n"));
    for (i = 0; i < t3->count; i++) {
        char esc[160];
        escaped_tag(t3->opts[i].name, esc, sizeof(esc));
        if (!strstr(page, esc) || strstr(page, esc) > mode2)
            fail_msg("man page lacks --%s before IPERF2 MODE", t3->opts[i].name);
    }
    for (i = 0; i < t2->count; i++) {
        char esc[160];
        escaped_tag(t2->opts[i].name, esc, sizeof(esc));
        if (!strstr(mode2, esc))
            fail_msg("IPERF2 MODE lacks --%s", t2->opts[i].name);
    }
    free(page);
}

static void check_help(const struct lp_cli_table *t, const char *usage)
{
    char *help = lp_cli_help_text(t);
    size_t i;

    assert_non_null(help);
    assert_int_equal(strncmp(help, usage, strlen(usage)), 0);
    for (i = 0; i < t->count; i++) {
        char name[64];
        if ((t->opts[i].flags & LP_CLI_F_UNSUPPORTED) && t->opts[i].letter)
            snprintf(name, sizeof(name), " -%c", t->opts[i].letter);
        else if (t->opts[i].flags & LP_CLI_F_UNSUPPORTED)
            snprintf(name, sizeof(name), " --%s", t->opts[i].name);
        else
            snprintf(name, sizeof(name), "--%s", t->opts[i].name);
        if (!strstr(help, name))
            fail_msg("%s --help lacks %s", t->name, name);
    }
    free(help);
}

static void test_help_lists_supported_options(void **state)
{
    (void)state;
    check_help(lp_cli_options_iperf3(), "Usage: linkperf [-s|-c host] [options]\n");
}

/* linkperf --iperf2 --help: iperf2's sections and suffix note, every iperf2 option. */
static void test_iperf2_help(void **state)
{
    char *help = lp_cli_help_text(lp_cli_options_iperf2());

    (void)state;
    check_help(lp_cli_options_iperf2(), "Usage: linkperf --iperf2 [-s|-c host] [options]\n");
    assert_non_null(help);
    assert_non_null(strstr(help, "\nClient/Server:\n"));
    assert_non_null(strstr(help, "  -V, --ipv6_domain "));
    assert_non_null(strstr(help, "  -y, --reportstyle C "));
    assert_non_null(strstr(help, "1K = 1024"));
    assert_non_null(strstr(help, "iperf2 options that linkperf does not support:"));
    assert_null(strstr(help, "--json"));        /* iperf3's rows stay out */
    assert_non_null(strstr(help, "\n  --trip-times")); /* supported: a row of its own */
    assert_non_null(strstr(help, "\n  --bounceback[=n] ")); /* supported: a row of its own */
    assert_null(strstr(help, "\n  --bounceback-congest ")); /* refused: named in the list only */
    free(help);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_man_page_matches_table),
        cmocka_unit_test(test_man_page_names_every_option),
        cmocka_unit_test(test_help_lists_supported_options),
        cmocka_unit_test(test_iperf2_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

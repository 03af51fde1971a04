/* The options document (GET /api/options, linkperf ui --options) against the parser: every
 * supported row of the default table is in it once, and for every numeric row the values
 * just outside its range (and its narrower one, and a burst's) are refused by the parser
 * with the document's template filled with the document's range text, as the page fills it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/optdoc.h"
#include "cli/parse.h"

static cJSON *doc;

static int load(void **state)
{
    char *text = lp_cli_options_json();

    (void)state;
    doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    return doc ? 0 : -1;
}

static int unload(void **state)
{
    (void)state;
    cJSON_Delete(doc);
    return 0;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* The page's substitution: each %s (or %.0f) of the template by the next argument. */
static void fill(char *out, size_t len, const char *tpl, const char *a, const char *b,
                 const char *c)
{
    const char *args[3] = {a, b, c};
    size_t n = 0, k = 0;

    while (*tpl && n + 1 < len) {
        if (tpl[0] == '%' && k < 3) {
            tpl += strspn(tpl + 1, ".0123456789") + 2;
            n += (size_t)snprintf(out + n, len - n, "%s", args[k++]);
            if (n >= len)
                n = len - 1;
            continue;
        }
        out[n++] = *tpl++;
    }
    out[n] = '\0';
}

static void value_text(char *buf, size_t len, double v)
{
    if (v == (double)(int64_t)v)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.15g", v);
}

/* Parses "linkperf <role> [-u] --name=<text>" (text NULL: without the option) into cfg:
 * 0, or -1 with the message in msg. */
static int parse_cfg(const cJSON *o, bool udp, const char *text, struct lp_cli_config *cfg,
                     char *msg, size_t len)
{
    char opt[8400];
    char *argv[8] = {(char *)"linkperf"};
    int argc = 1;
    struct lp_cli_err err;

    if (strcmp(str(o, "mode"), "server") == 0) {
        argv[argc++] = (char *)"-s";
    } else {
        argv[argc++] = (char *)"-c";
        argv[argc++] = (char *)"host";
    }
    if (udp)
        argv[argc++] = (char *)"-u";
    if (text) {
        snprintf(opt, sizeof(opt), "--%s=%s", str(o, "name"), text);
        argv[argc++] = opt;
    }
    argv[argc] = NULL;
    if (lp_cli_parse(argc, argv, cfg, &err) == 0) {
        snprintf(msg, len, "%s", "");
        return 0;
    }
    snprintf(msg, len, "%s", err.msg);
    return -1;
}

/* The message for text, "" when accepted. */
static void parse_one(const cJSON *o, bool udp, const char *text, char *msg, size_t len)
{
    struct lp_cli_config cfg;

    parse_cfg(o, udp, text, &cfg, msg, len);
}

/* The parser refuses text with "option LABEL: " and the template filled with range. */
static void assert_refused(const cJSON *o, bool udp, const char *tpl, const char *text,
                           const char *range, const char *suffix)
{
    char got[LP_CLI_ERR_MAX], want[2 * LP_CLI_ERR_MAX], words[LP_CLI_ERR_MAX];

    fill(words, sizeof(words), tpl, text, range, suffix);
    snprintf(want, sizeof(want), "option %s: %s", str(o, "label"), words);
    parse_one(o, udp, text, got, sizeof(got));
    if (strcmp(got, want) != 0)
        fail_msg("--%s %s:\n  got  '%s'\n  want '%s'", str(o, "name"), text, got, want);
}

static void test_every_row_once(void **state)
{
    const struct lp_cli_table *t = lp_cli_options_iperf3();
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "options"), *o;
    size_t i, n = 0;
    char label[64], range[64];

    (void)state;
    assert_string_equal(str(doc, "spelling"), "iperf3");
    for (i = 0; i < t->count; i++) {
        const struct lp_cli_opt *row = &t->opts[i];
        if (row->flags & LP_CLI_F_UNSUPPORTED)
            continue;
        o = cJSON_GetArrayItem(opts, (int)n++);
        assert_non_null(o);
        assert_string_equal(str(o, "name"), row->name);
        lp_cli_options_label(row, label, sizeof(label));
        assert_string_equal(str(o, "label"), label);
        assert_string_equal(str(o, "help"), row->help);
        lp_cli_options_range(row, range, sizeof(range));
        if (range[0])
            assert_string_equal(str(o, "range"), range);
        else
            assert_null(str(o, "range"));
    }
    assert_int_equal(cJSON_GetArraySize(opts), n);
}

/* A RATE/BURST row: a burst one over its range. */
static void assert_burst_refused(const cJSON *o, const cJSON *burst, const char *tpl)
{
    char count[32], rate[64], words[128], want[256], got[LP_CLI_ERR_MAX];

    value_text(count, sizeof(count), num(burst, "max") + 1);
    snprintf(rate, sizeof(rate), "1M/%s", count);
    fill(words, sizeof(words), tpl, count, str(burst, "range"), "");
    snprintf(want, sizeof(want), "option %s: %s", str(o, "label"), words);
    parse_one(o, false, rate, got, sizeof(got));
    assert_string_equal(got, want);
}

/* lo - 1 and hi + 1 (and between 0 and lo when 0 is allowed) are refused with the range. */
static void test_ranges_are_the_parsers(void **state)
{
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(doc, "messages");
    const cJSON *o;
    char text[64];
    size_t checked = 0;

    (void)state;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "options")) {
        const cJSON *narrow = cJSON_GetObjectItemCaseSensitive(o, "narrow");
        const cJSON *burst = cJSON_GetObjectItemCaseSensitive(o, "burst");
        const char *range = str(o, "range"), *tpl = str(msgs, "out_of_range");
        double lo, hi, between;
        bool zero_ok;
        if (!range)
            continue;
        lo = num(o, "min");
        hi = num(o, "max");
        zero_ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "zero_ok"));
        between = strcmp(str(o, "kind"), "number") == 0 ? lo / 2 : (double)(int64_t)(lo / 2);
        value_text(text, sizeof(text), lo - 1);
        if (!(zero_ok && lo - 1 == 0))
            assert_refused(o, false, tpl, text, range, "");
        value_text(text, sizeof(text), hi + 1);
        assert_refused(o, false, tpl, text, range, "");
        if (zero_ok && between > 0) { /* 0 is allowed, what lies between 0 and lo is not */
            value_text(text, sizeof(text), between);
            assert_refused(o, false, tpl, text, range, "");
        }
        if (narrow) {
            bool udp = strcmp(str(narrow, "case"), "udp") == 0;
            double nlo = num(narrow, "min"), nhi = num(narrow, "max");
            value_text(text, sizeof(text), nlo - 1);
            if (nlo - 1 >= lo)
                assert_refused(o, udp, tpl, text, str(narrow, "range"), str(narrow, "suffix"));
            value_text(text, sizeof(text), nhi + 1);
            if (nhi + 1 <= hi)
                assert_refused(o, udp, tpl, text, str(narrow, "range"), str(narrow, "suffix"));
        }
        if (burst)
            assert_burst_refused(o, burst, str(msgs, "burst_range"));
        checked++;
    }
    assert_true(checked > 20);
}

/* "is not an integer" and "value is too long" are the document's words too: the length
 * limit is checked before any setter looks at the text. */
static void test_other_messages(void **state)
{
    const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(doc, "messages");
    const cJSON *o;
    char want[2 * LP_CLI_ERR_MAX], words[LP_CLI_ERR_MAX], got[LP_CLI_ERR_MAX], max[32];
    char text[8192];
    size_t checked = 0;

    (void)state;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "options")) {
        const cJSON *len = cJSON_GetObjectItemCaseSensitive(o, "max_length");
        if (str(o, "expects")) {
            fill(words, sizeof(words), str(msgs, "not_a"), "x1", str(o, "expects"), "");
        } else if (cJSON_IsNumber(len)) {
            assert_true(len->valuedouble + 1 < sizeof(text));
            memset(text, 'a', (size_t)len->valuedouble + 1);
            text[(size_t)len->valuedouble + 1] = '\0';
            value_text(max, sizeof(max), len->valuedouble);
            fill(words, sizeof(words), str(msgs, "too_long"), max, "", "");
        } else {
            continue;
        }
        snprintf(want, sizeof(want), "option %s: %s", str(o, "label"), words);
        parse_one(o, false, str(o, "expects") ? "x1" : text, got, sizeof(got));
        if (strcmp(got, want) != 0)
            fail_msg("--%s:\n  got  '%s'\n  want '%s'", str(o, "name"), got, want);
        checked++;
    }
    assert_true(checked > 40);
}

/* Defaults name known situations, and the page's dialect-dependent ones are there. */
static void test_defaults(void **state)
{
    const cJSON *o, *d;
    const cJSON *ports = cJSON_GetObjectItemCaseSensitive(doc, "server_ports");
    struct lp_cli_config cfg;
    struct lp_cli_err err;
    char *argv[] = {(char *)"linkperf", (char *)"-s", NULL};

    (void)state;
    assert_int_equal(lp_cli_parse(2, argv, &cfg, &err), 0);
    assert_int_equal(cJSON_GetArraySize(ports), 2);
    assert_int_equal(cJSON_GetArrayItem(ports, 0)->valuedouble, cfg.spec.port);
    assert_int_equal(cJSON_GetArrayItem(ports, 1)->valuedouble, cfg.spec.port2);
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "options")) {
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(o, "defaults")) {
            const char *k = d->string;
            assert_true(strncmp(k, "tcp", 3) == 0 || strncmp(k, "udp", 3) == 0 ||
                        strcmp(k, "server") == 0);
            assert_string_not_equal(d->valuestring, str(o, "default"));
        }
    }
}

/* cfg as --name=text leaves it; the test fails when the parser refuses text. */
static void parsed(const cJSON *o, const char *text, struct lp_cli_config *cfg)
{
    char msg[LP_CLI_ERR_MAX];

    if (parse_cfg(o, false, text, cfg, msg, sizeof(msg)) < 0)
        fail_msg("--%s %s: %s", str(o, "name"), text ? text : "(absent)", msg);
}

/* The named values the document lists (the page's select lists) are the parser's: each is
 * taken, none twice; a label's "(N)" is the number the name stands for (--dscp AF41 leaves
 * what --dscp 34 leaves); a row's default is one of them, and giving it changes nothing. */
static void test_choices(void **state)
{
    static struct lp_cli_config with, other;
    const cJSON *o, *c, *d;
    size_t lists = 0;

    (void)state;
    cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(doc, "options")) {
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(o, "choices");
        const char *dflt = str(o, "default");
        bool default_listed = dflt == NULL;
        if (!list)
            continue;
        assert_true(cJSON_IsArray(list) && cJSON_GetArraySize(list) > 1);
        cJSON_ArrayForEach(c, list) {
            const char *v = str(c, "value"), *l = str(c, "label"), *open;
            char number[32];
            assert_true(v && v[0] && l && l[0]);
            for (d = c->next; d; d = d->next)
                assert_string_not_equal(v, str(d, "value"));
            parsed(o, v, &with);
            open = strrchr(l, '(');
            if (open && sscanf(open, "(%31[^)])", number) == 1 && strcmp(number, v) != 0) {
                parsed(o, number, &other);
                if (memcmp(&with, &other, sizeof(with)) != 0)
                    fail_msg("--%s %s is not --%s %s", str(o, "name"), v, str(o, "name"),
                             number);
            }
            if (dflt && strcmp(v, dflt) == 0) {
                default_listed = true;
                parsed(o, NULL, &other);
                assert_memory_equal(&with, &other, sizeof(with));
            }
        }
        if (!default_listed)
            fail_msg("--%s: the default %s is not among its choices", str(o, "name"), dflt);
        lists++;
    }
    assert_true(lists > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_once),
        cmocka_unit_test(test_ranges_are_the_parsers),
        cmocka_unit_test(test_other_messages),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_choices),
    };
    return cmocka_run_group_tests(tests, load, unload);
}

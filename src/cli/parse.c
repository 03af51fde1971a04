/* Command-line scanner and validator: picks the table (iperf3 or iperf2 spelling), walks
 * argv against it and checks every value against its row's range; checks.c then checks
 * combinations. No getopt (global state, its own messages); no printing, no exit. */
#include "cli/parse.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli/parse_int.h"
#include "cli/setters.h"

#define NUM_TEXT_MAX 64

size_t lp_cli_row_index(const struct lp_cli_parse_state *st, const struct lp_cli_opt *o)
{
    return (size_t)(o - st->t->opts);
}

const struct lp_cli_opt *lp_cli_row(const struct lp_cli_parse_state *st, enum lp_cli_key key)
{
    size_t i;

    for (i = 0; i < st->t->count; i++) {
        if (st->t->opts[i].key == key)
            return &st->t->opts[i];
    }
    return NULL;
}

bool lp_cli_seen(const struct lp_cli_parse_state *st, enum lp_cli_key key)
{
    size_t i;

    for (i = 0; i < st->t->count; i++) {
        if (st->t->opts[i].key == key && st->seen[i])
            return true;
    }
    return false;
}

const char *lp_cli_text(const struct lp_cli_parse_state *st, enum lp_cli_key key)
{
    const struct lp_cli_opt *o = lp_cli_row(st, key);
    return o ? st->text[lp_cli_row_index(st, o)] : NULL;
}

void lp_cli_label(const struct lp_cli_parse_state *st, enum lp_cli_key key, char *buf,
                  size_t len)
{
    const struct lp_cli_opt *o = lp_cli_row(st, key);

    if (o)
        lp_cli_options_label(o, buf, len);
    else
        snprintf(buf, len, "?");
}

int lp_cli_conflict(struct lp_cli_parse_state *st, enum lp_cli_key a, enum lp_cli_key b)
{
    char la[48], lb[48];

    lp_cli_label(st, a, la, sizeof(la));
    lp_cli_label(st, b, lb, sizeof(lb));
    return lp_cli_err_set(st->err, "options %s and %s cannot be used together", la, lb);
}

int lp_cli_fail(struct lp_cli_parse_state *st, const struct lp_cli_opt *o, const char *what)
{
    char label[48];

    lp_cli_options_label(o, label, sizeof(label));
    return lp_cli_err_set(st->err, "option %s %s", label, what);
}

static int fail_value(struct lp_cli_parse_state *st, const struct lp_cli_opt *o,
                      const char *what)
{
    char label[48];

    lp_cli_options_label(o, label, sizeof(label));
    return lp_cli_err_set(st->err, "option %s: %s", label, what);
}

int lp_cli_out_of_range(struct lp_cli_parse_state *st, const struct lp_cli_opt *o,
                        const char *text, const char *range, const char *suffix)
{
    char label[48];

    lp_cli_options_label(o, label, sizeof(label));
    return lp_cli_err_set(st->err, "option %s: " LP_CLI_MSG_OUT_OF_RANGE, label, text, range,
                          suffix);
}

/* Numeric kinds: text -> v->num, then the row's range. */
static int parse_number(struct lp_cli_parse_state *st, const struct lp_cli_opt *o,
                        const char *text, struct lp_cli_value *v)
{
    char label[48], range[64], rate[NUM_TEXT_MAX];
    const char *num = text, *slash;
    int rc;

    lp_cli_options_label(o, label, sizeof(label));
    if ((o->flags & LP_CLI_F_NO_RANGE) && text[0] && strchr(text + 1, '-'))
        return lp_cli_err_set(st->err, "option %s: port ranges such as '%s' are not supported",
                              label, text);
    if (o->flags & LP_CLI_F_PPS) {
        size_t n = strlen(text);
        if (strchr(text, ','))
            return lp_cli_err_set(st->err, "option %s: a variable load (MEAN,STDEV) is not "
                                  "supported", label);
        if (n > 3 && strcasecmp(text + n - 3, "pps") == 0 && n - 3 < sizeof(rate)) {
            memcpy(rate, text, n - 3);
            rate[n - 3] = '\0';
            num = rate;
            v->pps = true;
        }
    }
    if ((o->flags & LP_CLI_F_BURST) && (slash = strchr(text, '/')) != NULL) {
        double burst = 0;
        if ((size_t)(slash - text) >= sizeof(rate))
            return lp_cli_err_set(st->err, "option %s: '%s' is not a valid rate", label, text);
        memcpy(rate, text, (size_t)(slash - text));
        rate[slash - text] = '\0';
        num = rate;
        if (lp_cli_value_int(slash + 1, false, &burst) < 0)
            return lp_cli_err_set(st->err, "option %s: " LP_CLI_MSG_BAD_BURST, label,
                                  slash + 1);
        if (burst < 1 || burst > LP_CLI_BURST_MAX) {
            lp_cli_options_burst_range(range, sizeof(range));
            return lp_cli_err_set(st->err, "option %s: " LP_CLI_MSG_BURST_RANGE, label,
                                  slash + 1, range);
        }
        v->burst = (unsigned)burst;
    }
    switch (o->arg) {
    case LP_CLI_ARG_INT:
        rc = lp_cli_value_int(num, (o->flags & LP_CLI_F_CPREFIX) != 0, &v->num);
        break;
    case LP_CLI_ARG_NUM:
        rc = lp_cli_value_num(num, &v->num);
        break;
    case LP_CLI_ARG_SIZE:
        rc = lp_cli_value_units(num, 1024, &v->num);
        break;
    case LP_CLI_ARG_SIZE2:
        rc = lp_cli_value_units2(num, &v->num);
        break;
    default:
        rc = lp_cli_value_units(num, 1000, &v->num);
        break;
    }
    if (rc < 0)
        return lp_cli_err_set(st->err, "option %s: " LP_CLI_MSG_NOT_A, label,
                              v->pps ? text : num, lp_cli_options_expects(o));
    if (v->pps) {
        char hi[32];
        if (v->num >= 1 && v->num <= LP_CLI_PPS_MAX)
            return 0;
        lp_cli_value_format_units2(hi, sizeof(hi), LP_CLI_PPS_MAX);
        return lp_cli_err_set(st->err, "option %s: %s is out of range (1..%s packets/s)",
                              label, text, hi);
    }
    if ((o->flags & LP_CLI_F_ZERO_OK) && v->num == 0)
        return 0;
    if (v->num < o->min || v->num > o->max) {
        lp_cli_options_range(o, range, sizeof(range));
        return lp_cli_out_of_range(st, o, num, range, "");
    }
    return 0;
}

/* Plain stores; the size check catches a row whose field type does not match its store. */
static int store(struct lp_cli_parse_state *st, const struct lp_cli_opt *o,
                 const struct lp_cli_value *v)
{
    char *field = (char *)st->cfg + o->off;
    size_t want = 0;

    switch (o->store) {
    case LP_CLI_STORE_TRUE: want = sizeof(bool); break;
    case LP_CLI_STORE_UINT: want = sizeof(unsigned); break;
    case LP_CLI_STORE_U16: want = sizeof(uint16_t); break;
    case LP_CLI_STORE_U32: want = sizeof(uint32_t); break;
    case LP_CLI_STORE_U64: want = sizeof(uint64_t); break;
    case LP_CLI_STORE_INT: want = sizeof(int); break;
    case LP_CLI_STORE_DOUBLE: want = sizeof(double); break;
    case LP_CLI_STORE_STR: want = o->size; break;
    case LP_CLI_STORE_CHAR: want = sizeof(char); break;
    case LP_CLI_STORE_NONE: return lp_cli_fail(st, o, "has no handler (table bug)");
    }
    if (o->size != want || (o->store == LP_CLI_STORE_STR && o->max >= (double)o->size))
        return lp_cli_fail(st, o, "has a field of the wrong type (table bug)");
    switch (o->store) {
    case LP_CLI_STORE_TRUE: { bool b = true; memcpy(field, &b, sizeof(b)); break; }
    case LP_CLI_STORE_UINT: { unsigned u = (unsigned)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_U16: { uint16_t u = (uint16_t)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_U32: { uint32_t u = (uint32_t)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_U64: { uint64_t u = (uint64_t)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_INT: { int i = (int)v->num; memcpy(field, &i, sizeof(i)); break; }
    case LP_CLI_STORE_DOUBLE: memcpy(field, &v->num, sizeof(v->num)); break;
    case LP_CLI_STORE_STR: snprintf(field, o->size, "%s", v->text); break;
    case LP_CLI_STORE_CHAR: *field = v->text[0]; break;
    case LP_CLI_STORE_NONE: break;
    }
    return 0;
}

/* One occurrence of an option with its argument (NULL for flags / absent optional). */
static int apply(struct lp_cli_parse_state *st, const struct lp_cli_opt *o, const char *text)
{
    struct lp_cli_value v = {.text = text};
    char what[96];

    if (o->flags & LP_CLI_F_UNSUPPORTED) {
        snprintf(what, sizeof(what), "is an %s option that linkperf does not support%s",
                 st->t->name, (o->flags & LP_CLI_F_LATER) ? " yet" : "");
        return lp_cli_fail(st, o, what);
    }
    st->seen[lp_cli_row_index(st, o)] = true;
    st->text[lp_cli_row_index(st, o)] = text;
    switch (o->arg) {
    case LP_CLI_ARG_NONE:
        break;
    case LP_CLI_ARG_STRING:
    case LP_CLI_ARG_OPTIONAL:
        if (!text)
            break;
        if (o->arg == LP_CLI_ARG_STRING && !*text)
            return lp_cli_fail(st, o, "needs a non-empty value");
        if (o->max > 0 && (double)strlen(text) > o->max) {
            snprintf(what, sizeof(what), LP_CLI_MSG_TOO_LONG, o->max);
            return fail_value(st, o, what);
        }
        break;
    default:
        if (parse_number(st, o, text, &v) < 0)
            return -1;
        break;
    }
    return o->set ? o->set(st->cfg, o, &v, st->err) : store(st, o, &v);
}

/* An option this spelling lacks. The likeliest reason is a habit from the other one (iperf2's
 * -y C, -e or -r in the iperf3 spelling, iperf3's -J with --iperf2), so when the other table
 * has it, say where it lives and how to get there. */
static int unknown(struct lp_cli_parse_state *st, char letter, const char *name, size_t len)
{
    const struct lp_cli_table *other = st->t->iperf2 ? lp_cli_options_iperf3() : lp_cli_options_iperf2();
    const struct lp_cli_opt *o = letter ? lp_cli_options_short(other, letter) : lp_cli_options_long(other, name, len);
    char shown[80];

    if (letter)
        snprintf(shown, sizeof(shown), "-%c", letter);
    else
        snprintf(shown, sizeof(shown), "--%.*s", (int)(len > 60 ? 60 : len), name);
    if (!o || (o->flags & LP_CLI_F_UNSUPPORTED))
        return lp_cli_err_set(st->err, "unknown option %s (see %s)", shown, st->t->help_hint);
    char both[80];
    if (o->letter)
        snprintf(both, sizeof(both), "-%c/--%s", o->letter, o->name);
    else
        snprintf(both, sizeof(both), "--%s", o->name);
    if (st->t->iperf2)
        return lp_cli_err_set(st->err, "unknown option %s in iperf2's spelling: %s is iperf3's (run linkperf "
                              "without --iperf2) (see %s)", shown, both, st->t->help_hint);
    /* iperf2's CSV has its own switch in this spelling */
    const char *here = o->key == LP_CLI_K_CSV ? "; for its CSV here: --csv" : "";
    return lp_cli_err_set(st->err, "unknown option %s in iperf3's spelling: %s is iperf2's (add --iperf2 or run "
                          "linkperf2%s) (see %s)", shown, both, here, st->t->help_hint);
}

static int long_option(struct lp_cli_parse_state *st, int argc, char *const argv[], int *i)
{
    const char *name = argv[*i] + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct lp_cli_opt *o;
    bool ambiguous;

    o = lp_cli_options_prefix(st->t, name, len, &ambiguous);
    if (!o)
        return ambiguous ? lp_cli_err_set(st->err, "ambiguous option --%.*s (see %s)", (int)len, name,
                                          st->t->help_hint)
                         : unknown(st, 0, name, len);
    if (o->flags & LP_CLI_F_UNSUPPORTED)
        return apply(st, o, NULL);
    if (o->arg == LP_CLI_ARG_NONE) {
        if (eq)
            return lp_cli_fail(st, o, "takes no argument");
        return apply(st, o, NULL);
    }
    if (o->arg == LP_CLI_ARG_OPTIONAL)
        return apply(st, o, eq ? eq + 1 : NULL);
    if (eq)
        return apply(st, o, eq + 1);
    if (*i + 1 >= argc)
        return lp_cli_fail(st, o, "needs an argument");
    return apply(st, o, argv[++*i]);
}

/* A cluster of short options: "-uR", "-P4", "-P 4". */
static int short_options(struct lp_cli_parse_state *st, int argc, char *const argv[], int *i)
{
    const char *a = argv[*i];
    size_t j;

    for (j = 1; a[j]; j++) {
        const struct lp_cli_opt *o = lp_cli_options_short(st->t, a[j]);
        if (!o)
            return unknown(st, a[j], NULL, 0);
        if (a[j] == 'd' && !st->t->iperf2)
            st->cfg->parse.dash_d = true;
        if (o->arg == LP_CLI_ARG_NONE || o->arg == LP_CLI_ARG_OPTIONAL ||
            (o->flags & LP_CLI_F_UNSUPPORTED)) {
            if (apply(st, o, NULL) < 0)
                return -1;
            if (o->flags & LP_CLI_F_STOP)
                return 0;
            continue;
        }
        if (a[j + 1])
            return apply(st, o, a + j + 1);
        if (*i + 1 >= argc)
            return lp_cli_fail(st, o, "needs an argument");
        return apply(st, o, argv[++*i]);
    }
    return 0;
}

/* The names that mean iperf2: linkperf2, and iperf's own (iperf, iperf.exe, iperf-2.1.8,
 * iperf2 ...: any name starting with "iperf" but not "iperf3"), so a link named iperf makes
 * linkperf JPerf's binary. Case is ignored, as Windows ignores it. */
bool lp_cli_name_is_iperf2(const char *argv0)
{
    const char *base = argv0;
    size_t n;

    if (!base)
        return false;
    for (const char *p = argv0; *p; p++)
        if (*p == '/' || *p == '\\')
            base = p + 1;
    n = strlen(base);
    if (n > 4 && strcasecmp(base + n - 4, ".exe") == 0)
        n -= 4;
    if (n == 9 && strncasecmp(base, "linkperf2", 9) == 0)
        return true;
    return n >= 5 && strncasecmp(base, "iperf", 5) == 0 && !(n >= 6 && base[5] == '3');
}

/* --iperf2 anywhere (or any unambiguous prefix of it, as getopt_long would take) or the
 * program run as linkperf2: the whole line is read with iperf2's table. */
static bool wants_iperf2(int argc, char *const argv[])
{
    const struct lp_cli_table *t = lp_cli_options_iperf3();
    int i;

    if (argc > 0 && lp_cli_name_is_iperf2(argv[0]))
        return true;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *eq;
        const struct lp_cli_opt *o;
        bool ambiguous;

        if (strcmp(a, "--") == 0)
            break;
        if (a[0] != '-' || a[1] != '-')
            continue;
        eq = strchr(a + 2, '=');
        o = lp_cli_options_prefix(t, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2),
                                  &ambiguous);
        if (o && o->set == lp_cli_set_iperf2)
            return true;
    }
    return false;
}

int lp_cli_parse_table(const struct lp_cli_table *t, int argc, char *const argv[],
                       struct lp_cli_config *cfg, struct lp_cli_err *err)
{
    struct lp_cli_parse_state st = {.t = t, .cfg = cfg, .err = err};
    int i = 1;

    lp_cli_config_init(cfg);
    cfg->iperf2 = t->iperf2;
    err->msg[0] = '\0';
    if (t->count > MAX_ROWS)
        return lp_cli_err_set(err, "option table %s has too many rows", t->name);
    if (argc > 1 && strcmp(argv[1], "demo") == 0) {
        cfg->action = LP_CLI_ACTION_DEMO;
        i = 2;
    }
    for (; i < argc; i++) {
        const char *a = argv[i];
        int rc;

        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc)
                return lp_cli_err_set(err, "unexpected argument '%s'", argv[i + 1]);
            break;
        }
        if (a[0] == '-' && a[1] == '-')
            rc = long_option(&st, argc, argv, &i);
        else if (a[0] == '-' && a[1])
            rc = short_options(&st, argc, argv, &i);
        else
            rc = lp_cli_err_set(err, "unexpected argument '%s'", a);
        if (rc < 0)
            return -1;
        if (cfg->action == LP_CLI_ACTION_HELP || cfg->action == LP_CLI_ACTION_VERSION ||
            cfg->action == LP_CLI_ACTION_MAN)
            return 0; /* like iperf3: -h and -v win over whatever follows */
    }
    return lp_cli_check_line(&st);
}

int lp_cli_parse(int argc, char *const argv[], struct lp_cli_config *cfg,
                 struct lp_cli_err *err)
{
    return lp_cli_parse_table(wants_iperf2(argc, argv) ? lp_cli_options_iperf2()
                                                       : lp_cli_options_iperf3(),
                              argc, argv, cfg, err);
}

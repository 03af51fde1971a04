/* Command-line scanner and validator: walks argv against an option table, checks every
 * value against its row's range, then checks combinations. No getopt (global state,
 * its own messages); no printing, no exit. */
#include "cli/parse.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_ROWS 128   /* rows in one table; checked, so a bigger table fails loudly */
#define NUM_TEXT_MAX 64

/* Per-parse state: which rows were seen and the text each last had (for messages). */
struct parse_state {
    const struct lp_cli_table *t;
    struct lp_cli_config *cfg;
    struct lp_cli_err *err;
    bool seen[MAX_ROWS];
    const char *text[MAX_ROWS];
};

static size_t row_index(const struct parse_state *st, const struct lp_cli_opt *o)
{
    return (size_t)(o - st->t->opts);
}

static const struct lp_cli_opt *row_named(const struct parse_state *st, const char *name)
{
    return lp_cli_options_long(st->t, name, strlen(name));
}

static bool seen(const struct parse_state *st, const char *name)
{
    const struct lp_cli_opt *o = row_named(st, name);
    return o && st->seen[row_index(st, o)];
}

static int fail(struct parse_state *st, const struct lp_cli_opt *o, const char *what)
{
    char label[48];

    lp_cli_options_label(o, label, sizeof(label));
    return lp_cli_err_set(st->err, "option %s %s", label, what);
}

static int fail_value(struct parse_state *st, const struct lp_cli_opt *o, const char *what)
{
    char label[48];

    lp_cli_options_label(o, label, sizeof(label));
    return lp_cli_err_set(st->err, "option %s: %s", label, what);
}

static int out_of_range(struct parse_state *st, const struct lp_cli_opt *o, const char *text,
                        const char *range, const char *suffix)
{
    char label[48];

    lp_cli_options_label(o, label, sizeof(label));
    return lp_cli_err_set(st->err, "option %s: %s is out of range (%s)%s", label, text, range,
                          suffix);
}

/* Numeric kinds: text -> v->num, then the row's range. */
static int parse_number(struct parse_state *st, const struct lp_cli_opt *o, const char *text,
                        struct lp_cli_value *v)
{
    char label[48], range[64], rate[NUM_TEXT_MAX];
    const char *num = text, *slash;
    int rc;

    lp_cli_options_label(o, label, sizeof(label));
    if ((o->flags & LP_CLI_F_BURST) && (slash = strchr(text, '/')) != NULL) {
        double burst = 0;
        if ((size_t)(slash - text) >= sizeof(rate))
            return lp_cli_err_set(st->err, "option %s: '%s' is not a valid rate", label, text);
        memcpy(rate, text, (size_t)(slash - text));
        rate[slash - text] = '\0';
        num = rate;
        if (lp_cli_value_int(slash + 1, false, &burst) < 0)
            return lp_cli_err_set(st->err, "option %s: '%s' is not a valid burst count",
                                  label, slash + 1);
        if (burst < 1 || burst > LP_CLI_BURST_MAX)
            return lp_cli_err_set(st->err, "option %s: burst %s is out of range (1..%d)",
                                  label, slash + 1, LP_CLI_BURST_MAX);
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
    default:
        rc = lp_cli_value_units(num, 1000, &v->num);
        break;
    }
    if (rc < 0) {
        static const char *const hint[] = {
            [LP_CLI_ARG_INT] = "an integer",
            [LP_CLI_ARG_NUM] = "a number",
            [LP_CLI_ARG_SIZE] = "a size (a number with an optional K, M, G or T suffix)",
            [LP_CLI_ARG_RATE] = "a rate (a number with an optional K, M, G or T suffix)",
        };
        const char *kind = hint[o->arg];
        if (o->flags & LP_CLI_F_CPREFIX)
            kind = "an integer (decimal, 0octal or 0xhex)";
        return lp_cli_err_set(st->err, "option %s: '%s' is not %s", label, num, kind);
    }
    if ((o->flags & LP_CLI_F_ZERO_OK) && v->num == 0)
        return 0;
    if (v->num < o->min || v->num > o->max) {
        lp_cli_options_range(o, range, sizeof(range));
        return out_of_range(st, o, num, range, "");
    }
    return 0;
}

/* Plain stores; the size check catches a row whose field type does not match its store. */
static int store(struct parse_state *st, const struct lp_cli_opt *o,
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
    case LP_CLI_STORE_NONE: return fail(st, o, "has no handler (table bug)");
    }
    if (o->size != want || (o->store == LP_CLI_STORE_STR && o->max >= (double)o->size))
        return fail(st, o, "has a field of the wrong type (table bug)");
    switch (o->store) {
    case LP_CLI_STORE_TRUE: { bool b = true; memcpy(field, &b, sizeof(b)); break; }
    case LP_CLI_STORE_UINT: { unsigned u = (unsigned)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_U16: { uint16_t u = (uint16_t)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_U32: { uint32_t u = (uint32_t)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_U64: { uint64_t u = (uint64_t)v->num; memcpy(field, &u, sizeof(u)); break; }
    case LP_CLI_STORE_INT: { int i = (int)v->num; memcpy(field, &i, sizeof(i)); break; }
    case LP_CLI_STORE_DOUBLE: memcpy(field, &v->num, sizeof(v->num)); break;
    case LP_CLI_STORE_STR: snprintf(field, o->size, "%s", v->text); break;
    case LP_CLI_STORE_NONE: break;
    }
    return 0;
}

/* One occurrence of an option with its argument (NULL for flags / absent optional). */
static int apply(struct parse_state *st, const struct lp_cli_opt *o, const char *text)
{
    struct lp_cli_value v = {.text = text};
    char what[96];

    if (o->flags & LP_CLI_F_UNSUPPORTED)
        return fail(st, o, "is an iperf3 option that linkperf does not support");
    st->seen[row_index(st, o)] = true;
    st->text[row_index(st, o)] = text;
    switch (o->arg) {
    case LP_CLI_ARG_NONE:
        break;
    case LP_CLI_ARG_STRING:
    case LP_CLI_ARG_OPTIONAL:
        if (!text)
            break;
        if (o->arg == LP_CLI_ARG_STRING && !*text)
            return fail(st, o, "needs a non-empty value");
        if (o->max > 0 && (double)strlen(text) > o->max) {
            snprintf(what, sizeof(what), "value is too long (at most %.0f characters)", o->max);
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

static int long_option(struct parse_state *st, int argc, char *const argv[], int *i)
{
    const char *name = argv[*i] + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct lp_cli_opt *o;
    bool ambiguous;

    o = lp_cli_options_prefix(st->t, name, len, &ambiguous);
    if (!o)
        return lp_cli_err_set(st->err, "%s option --%.*s (see linkperf --help)",
                              ambiguous ? "ambiguous" : "unknown", (int)len, name);
    if (o->flags & LP_CLI_F_UNSUPPORTED)
        return apply(st, o, NULL);
    if (o->arg == LP_CLI_ARG_NONE) {
        if (eq)
            return fail(st, o, "takes no argument");
        return apply(st, o, NULL);
    }
    if (o->arg == LP_CLI_ARG_OPTIONAL)
        return apply(st, o, eq ? eq + 1 : NULL);
    if (eq)
        return apply(st, o, eq + 1);
    if (*i + 1 >= argc)
        return fail(st, o, "needs an argument");
    return apply(st, o, argv[++*i]);
}

/* A cluster of short options: "-uR", "-P4", "-P 4". */
static int short_options(struct parse_state *st, int argc, char *const argv[], int *i)
{
    const char *a = argv[*i];
    size_t j;

    for (j = 1; a[j]; j++) {
        const struct lp_cli_opt *o = lp_cli_options_short(st->t, a[j]);
        if (!o)
            return lp_cli_err_set(st->err, "unknown option -%c (see linkperf --help)", a[j]);
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
            return fail(st, o, "needs an argument");
        return apply(st, o, argv[++*i]);
    }
    return 0;
}

static int check_modes(struct parse_state *st)
{
    enum lp_cli_mode wrong = st->cfg->spec.role == LP_ROLE_SERVER ? LP_CLI_MODE_CLIENT
                                                                  : LP_CLI_MODE_SERVER;
    size_t k;

    for (k = 0; k < st->t->count; k++) {
        const struct lp_cli_opt *o = &st->t->opts[k];
        if (!st->seen[k])
            continue;
        if (st->cfg->action == LP_CLI_ACTION_DEMO && o->mode != LP_CLI_MODE_GENERAL)
            return fail(st, o, "cannot be used with demo");
        if (st->cfg->action == LP_CLI_ACTION_RUN && o->mode == wrong)
            return fail(st, o, wrong == LP_CLI_MODE_CLIENT ? "only applies to a client"
                                                           : "only applies to a server");
    }
    return 0;
}

static int check_client(struct parse_state *st)
{
    struct lp_spec *sp = &st->cfg->spec;
    int ends = seen(st, "time") + seen(st, "bytes") + seen(st, "blockcount");

    if (ends > 1)
        return lp_cli_err_set(st->err, "only one test end condition may be given "
                              "(-t, -n or -k)");
    if (seen(st, "bytes") || seen(st, "blockcount"))
        sp->duration_s = 0; /* iperf3 sends "time":0 when bytes or blocks end the test */
    if (seen(st, "reverse") && seen(st, "bidir"))
        return lp_cli_err_set(st->err, "options -R/--reverse and --bidir cannot be used "
                              "together");
    if (sp->port == 0)
        return out_of_range(st, row_named(st, "port"), "0", "1..65535", " for a client");
    if (sp->proto == LP_PROTO_UDP) {
        const struct lp_cli_opt *l = row_named(st, "length");
        if (!seen(st, "bitrate"))
            sp->rate_bps = LP_DEFAULT_UDP_RATE_BPS;
        if (seen(st, "length") &&
            (sp->blksize < LP_MIN_UDP_BLKSIZE || sp->blksize > LP_MAX_UDP_BLKSIZE))
            return out_of_range(st, l, st->text[row_index(st, l)], "16..65507", " for UDP");
    }
    return 0;
}

static int finish(struct parse_state *st)
{
    struct lp_cli_config *cfg = st->cfg;

    if (cfg->action == LP_CLI_ACTION_DEMO) {
        if (cfg->role_given)
            return lp_cli_err_set(st->err, "demo cannot be combined with -s or -c");
        return check_modes(st);
    }
    if (seen(st, "server") && seen(st, "client"))
        return lp_cli_err_set(st->err, "options -s/--server and -c/--client cannot be used "
                              "together");
    if (!cfg->role_given)
        return lp_cli_err_set(st->err, "give -s (server) or -c host (client); "
                              "see linkperf --help");
    if (check_modes(st) < 0)
        return -1;
    if (cfg->spec.role == LP_ROLE_SERVER) {
        cfg->spec.report.server_output_json = cfg->json;
        return 0;
    }
    return check_client(st);
}

int lp_cli_parse_table(const struct lp_cli_table *t, int argc, char *const argv[],
                       struct lp_cli_config *cfg, struct lp_cli_err *err)
{
    struct parse_state st = {.t = t, .cfg = cfg, .err = err};
    int i = 1;

    lp_cli_config_init(cfg);
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
    return finish(&st);
}

int lp_cli_parse(int argc, char *const argv[], struct lp_cli_config *cfg,
                 struct lp_cli_err *err)
{
    return lp_cli_parse_table(lp_cli_options_iperf3(), argc, argv, cfg, err);
}

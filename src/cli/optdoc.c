/* The options document (optdoc.h): the default spelling's rows as JSON, with the parser's
 * own range texts, message words and defaults, so the page has no option knowledge of its
 * own. Reads only the table and what the parser makes of fixed lines; no I/O. */
#include "cli/optdoc.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/parse.h"

#define TEXT_MAX 64

/* The bare lines whose parsed config gives each situation's defaults: every mix of the
 * protocol, the dialect and the address family the page can choose, and a server. */
#define SITUATIONS 9
_Static_assert(SITUATIONS == 2 * 2 * 2 + 1, "protocols x dialects x families, and a server");

struct situations {
    char name[SITUATIONS][24];
    struct lp_cli_config cfg[SITUATIONS]; /* [0]: "tcp", the plain client */
};

static int parse_situation(struct situations *s, int k, bool server, bool udp, bool iperf2,
                           bool inet6)
{
    char *argv[8] = {(char *)"linkperf"};
    int argc = 1;
    struct lp_cli_err err;

    if (server) {
        argv[argc++] = (char *)"-s";
    } else {
        argv[argc++] = (char *)"-c";
        argv[argc++] = (char *)"host";
        if (udp)
            argv[argc++] = (char *)"-u";
        if (iperf2) {
            argv[argc++] = (char *)"--dialect";
            argv[argc++] = (char *)"iperf2";
        }
        if (inet6)
            argv[argc++] = (char *)"-6";
    }
    argv[argc] = NULL;
    snprintf(s->name[k], sizeof(s->name[k]), "%s%s%s", server ? "server" : udp ? "udp" : "tcp",
             iperf2 ? "-iperf2" : "", inet6 ? "-inet6" : "");
    return lp_cli_parse_table(lp_cli_options_iperf3(), argc, argv, &s->cfg[k], &err);
}

static int parse_situations(struct situations *s)
{
    int k = 0, proto, dialect, family;

    for (proto = 0; proto < 2; proto++)
        for (dialect = 0; dialect < 2; dialect++)
            for (family = 0; family < 2; family++)
                if (parse_situation(s, k++, false, proto, dialect, family) < 0)
                    return -1;
    return parse_situation(s, k, true, false, false, false);
}

/* The row's value in cfg as text; false for rows without a readable field (setters, flags). */
static bool field_text(const struct lp_cli_opt *o, const struct lp_cli_config *cfg, char *buf,
                       size_t len)
{
    const char *field = (const char *)cfg + o->off;
    double v = 0;

    switch (o->store) {
    case LP_CLI_STORE_UINT: { unsigned u; memcpy(&u, field, sizeof(u)); v = u; break; }
    case LP_CLI_STORE_U16: { uint16_t u; memcpy(&u, field, sizeof(u)); v = u; break; }
    case LP_CLI_STORE_U32: { uint32_t u; memcpy(&u, field, sizeof(u)); v = u; break; }
    case LP_CLI_STORE_U64: { uint64_t u; memcpy(&u, field, sizeof(u)); v = (double)u; break; }
    case LP_CLI_STORE_INT: { int i; memcpy(&i, field, sizeof(i)); v = i; break; }
    case LP_CLI_STORE_DOUBLE: memcpy(&v, field, sizeof(v)); break;
    case LP_CLI_STORE_STR: snprintf(buf, len, "%s", field); return true;
    case LP_CLI_STORE_CHAR: snprintf(buf, len, "%c", *field); return true;
    case LP_CLI_STORE_NONE:
    case LP_CLI_STORE_TRUE: return false;
    }
    /* -l left 0 means the engine's size for the protocol: say which, as iperf3's -h does */
    if (o->key == LP_CLI_K_LENGTH && v == 0)
        v = lp_spec_blksize(&cfg->spec);
    lp_cli_options_format(o, v, buf, len);
    return true;
}

static void add_defaults(cJSON *j, const struct lp_cli_opt *o, const struct situations *s)
{
    char base[TEXT_MAX], text[TEXT_MAX];
    cJSON *other = NULL;
    int k;

    if (!field_text(o, &s->cfg[0], base, sizeof(base)))
        return;
    cJSON_AddStringToObject(j, "default", base);
    for (k = 1; k < SITUATIONS; k++) {
        if (!field_text(o, &s->cfg[k], text, sizeof(text)) || strcmp(text, base) == 0)
            continue;
        if (!other)
            other = cJSON_AddObjectToObject(j, "defaults");
        cJSON_AddStringToObject(other, s->name[k], text);
    }
}

static const char *kind_name(enum lp_cli_arg arg)
{
    switch (arg) {
    case LP_CLI_ARG_NONE: return "flag";
    case LP_CLI_ARG_INT: return "int";
    case LP_CLI_ARG_NUM: return "number";
    case LP_CLI_ARG_SIZE: return "size";
    case LP_CLI_ARG_RATE: return "rate";
    case LP_CLI_ARG_SIZE2: return "size2";
    case LP_CLI_ARG_STRING: return "string";
    case LP_CLI_ARG_OPTIONAL: return "optional";
    }
    return "?";
}

static const char *mode_name(enum lp_cli_mode mode)
{
    return mode == LP_CLI_MODE_SERVER ? "server" : mode == LP_CLI_MODE_CLIENT ? "client"
                                                                              : "general";
}

static void add_range(cJSON *j, const struct lp_cli_opt *o)
{
    char text[TEXT_MAX];
    cJSON *n;

    cJSON_AddNumberToObject(j, "min", o->min);
    cJSON_AddNumberToObject(j, "max", o->max);
    cJSON_AddBoolToObject(j, "zero_ok", (o->flags & LP_CLI_F_ZERO_OK) != 0);
    lp_cli_options_range(o, text, sizeof(text));
    cJSON_AddStringToObject(j, "range", text);
    cJSON_AddStringToObject(j, "expects", lp_cli_options_expects(o));
    if (o->arg == LP_CLI_ARG_SIZE || o->arg == LP_CLI_ARG_RATE)
        cJSON_AddNumberToObject(j, "base", o->arg == LP_CLI_ARG_SIZE ? 1024 : 1000);
    if (o->flags & LP_CLI_F_CPREFIX)
        cJSON_AddBoolToObject(j, "cprefix", true);
    if (o->narrow.when != LP_CLI_WHEN_NEVER) {
        n = cJSON_AddObjectToObject(j, "narrow");
        cJSON_AddStringToObject(n, "case", o->narrow.when == LP_CLI_WHEN_UDP ? "udp" : "client");
        cJSON_AddNumberToObject(n, "min", o->narrow.min);
        cJSON_AddNumberToObject(n, "max", o->narrow.max);
        lp_cli_options_narrow_range(o, text, sizeof(text));
        cJSON_AddStringToObject(n, "range", text);
        cJSON_AddStringToObject(n, "suffix", lp_cli_options_narrow_case(o));
    }
    if (o->flags & LP_CLI_F_BURST) {
        n = cJSON_AddObjectToObject(j, "burst");
        cJSON_AddNumberToObject(n, "min", 1);
        cJSON_AddNumberToObject(n, "max", LP_CLI_BURST_MAX);
        lp_cli_options_burst_range(text, sizeof(text));
        cJSON_AddStringToObject(n, "range", text);
    }
}

static void add_flags(cJSON *j, unsigned flags)
{
    static const struct {
        unsigned flag;
        const char *name;
    } names[] = {
        {LP_CLI_F_LINKPERF, "linkperf"},
        {LP_CLI_F_IMPLIES_IPERF2, "implies_iperf2"},
        {LP_CLI_F_NEEDS_IPERF2, "needs_iperf2"},
        {LP_CLI_F_IPERF3_ONLY, "iperf3_only"},
    };
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (flags & names[i].flag)
            cJSON_AddBoolToObject(j, names[i].name, true);
}

/* The named values the row takes, in its order: the page's select list is this. */
static void add_choices(cJSON *j, const struct lp_cli_opt *o)
{
    struct lp_cli_choice c;
    cJSON *list, *e;
    size_t i;

    if (!o->choices)
        return;
    list = cJSON_AddArrayToObject(j, "choices");
    for (i = 0; list && o->choices(i, &c); i++) {
        e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "value", c.value);
        cJSON_AddStringToObject(e, "label", c.label);
        cJSON_AddItemToArray(list, e);
    }
}

static cJSON *option_json(const struct lp_cli_opt *o, const struct situations *s)
{
    cJSON *j = cJSON_CreateObject();
    char text[TEXT_MAX];

    if (!j)
        return NULL;
    cJSON_AddStringToObject(j, "name", o->name);
    snprintf(text, sizeof(text), "%c", o->letter);
    cJSON_AddStringToObject(j, "letter", text);
    lp_cli_options_label(o, text, sizeof(text));
    cJSON_AddStringToObject(j, "label", text);
    cJSON_AddStringToObject(j, "kind", kind_name(o->arg));
    cJSON_AddStringToObject(j, "mode", mode_name(o->mode));
    if (o->metavar)
        cJSON_AddStringToObject(j, "metavar", o->metavar);
    cJSON_AddStringToObject(j, "help", o->help);
    if (lp_cli_options_expects(o))
        add_range(j, o);
    else if ((o->arg == LP_CLI_ARG_STRING || o->arg == LP_CLI_ARG_OPTIONAL) && o->max > 0)
        cJSON_AddNumberToObject(j, "max_length", o->max);
    add_choices(j, o);
    add_flags(j, o->flags);
    add_defaults(j, o, s);
    return j;
}

static cJSON *messages_json(void)
{
    cJSON *m = cJSON_CreateObject();

    cJSON_AddStringToObject(m, "out_of_range", LP_CLI_MSG_OUT_OF_RANGE);
    cJSON_AddStringToObject(m, "not_a", LP_CLI_MSG_NOT_A);
    cJSON_AddStringToObject(m, "too_long", LP_CLI_MSG_TOO_LONG);
    cJSON_AddStringToObject(m, "bad_burst", LP_CLI_MSG_BAD_BURST);
    cJSON_AddStringToObject(m, "burst_range", LP_CLI_MSG_BURST_RANGE);
    return m;
}

/* Builds the document; NULL when out of memory or when a bare line does not parse (a
 * table bug, which the unit test would show). */
static cJSON *document(const struct situations *s)
{
    const struct lp_cli_table *t = lp_cli_options_iperf3();
    const struct lp_spec *server = &s->cfg[SITUATIONS - 1].spec;
    cJSON *doc = cJSON_CreateObject(), *opts, *ports;
    size_t i;

    if (!doc)
        return NULL;
    cJSON_AddStringToObject(doc, "spelling", t->name);
    cJSON_AddItemToObject(doc, "messages", messages_json());
    ports = cJSON_AddArrayToObject(doc, "server_ports");
    cJSON_AddItemToArray(ports, cJSON_CreateNumber(server->port));
    if (server->port2)
        cJSON_AddItemToArray(ports, cJSON_CreateNumber(server->port2));
    opts = cJSON_AddArrayToObject(doc, "options");
    for (i = 0; opts && i < t->count; i++) {
        cJSON *o;
        if (t->opts[i].flags & LP_CLI_F_UNSUPPORTED)
            continue;
        o = option_json(&t->opts[i], s);
        if (!o || !cJSON_AddItemToArray(opts, o)) {
            cJSON_Delete(o);
            opts = NULL;
        }
    }
    if (!opts) { /* out of memory: no document rather than one missing options */
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

char *lp_cli_options_json(void)
{
    struct situations *s = calloc(1, sizeof(*s));
    cJSON *doc = NULL;
    char *text = NULL;

    if (!s || parse_situations(s) < 0)
        goto out;
    doc = document(s);
    if (doc)
        text = cJSON_PrintUnformatted(doc);
out:
    cJSON_Delete(doc);
    free(s);
    return text;
}

/* Option rows that are more than a plain store: roles, host%dev, -b RATE/BURST, TOS/DSCP,
 * optional arguments. Values arrive already parsed and range-checked by parse.c. */
#include "cli/setters.h"

#include <stdio.h>
#include <string.h>

void lp_cli_config_init(struct lp_cli_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->action = LP_CLI_ACTION_RUN;
    /* A client until -s says otherwise (lp_cli_set_server); checks.c settles what depends
     * on the role once all of argv is read. */
    lp_spec_init(&cfg->spec, LP_ROLE_CLIENT);
    cfg->spec.max_tests = LP_CLI_DEFAULT_MAX_TESTS;
    cfg->fmt.unit = 'a';
}

LP_CLI_SETTER(lp_cli_set_server)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.role = LP_ROLE_SERVER;
    cfg->role_given = true;
    return 0;
}

/* iperf3 reads "host%dev" as host plus --bind-dev dev (so no IPv6 scope ids here). */
int lp_cli_split_host(const struct lp_cli_opt *opt, const char *text, char *host,
                      size_t hostlen, char *dev, size_t devlen, struct lp_cli_err *err)
{
    char label[48];
    const char *pct = strchr(text, '%');
    size_t n = pct ? (size_t)(pct - text) : strlen(text);

    lp_cli_options_label(opt, label, sizeof(label));
    if (n == 0)
        return lp_cli_err_set(err, "option %s: the host is empty", label);
    if (n >= hostlen)
        return lp_cli_err_set(err, "option %s: the host is too long (at most %zu characters)",
                              label, hostlen - 1);
    if (pct && (pct[1] == '\0' || strlen(pct + 1) >= devlen))
        return lp_cli_err_set(err, "option %s: the device after %% must be 1..%zu characters",
                              label, devlen - 1);
    memcpy(host, text, n);
    host[n] = '\0';
    if (pct)
        snprintf(dev, devlen, "%s", pct + 1);
    return 0;
}

LP_CLI_SETTER(lp_cli_set_client)
{
    cfg->spec.role = LP_ROLE_CLIENT;
    cfg->role_given = true;
    return lp_cli_split_host(opt, v->text, cfg->spec.host, sizeof(cfg->spec.host),
                             cfg->spec.bind_dev, LP_CLI_DEV_LEN, err);
}

LP_CLI_SETTER(lp_cli_set_bind)
{
    return lp_cli_split_host(opt, v->text, cfg->spec.bind_addr, sizeof(cfg->spec.bind_addr),
                             cfg->spec.bind_dev, LP_CLI_DEV_LEN, err);
}

/* -f: iperf3's letters, lower case bits/s (1000-based) and upper case Bytes/s (1024-based),
 * then adaptive a (the default: lp_cli_config_init) and A; in the order the message names
 * them. The page's list is this one (lp_cli_format_choice). */
static const struct {
    char letter;
    const char *label;
} formats[] = {
    {'k', "Kbits/s"},  {'m', "Mbits/s"},  {'g', "Gbits/s"},  {'t', "Tbits/s"},
    {'K', "KBytes/s"}, {'M', "MBytes/s"}, {'G', "GBytes/s"}, {'T', "TBytes/s"},
    {'a', "adaptive bits"}, {'A', "adaptive Bytes"},
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

bool lp_cli_format_choice(size_t i, struct lp_cli_choice *c)
{
    if (i >= NFORMATS)
        return false;
    snprintf(c->value, sizeof(c->value), "%c", formats[i].letter);
    snprintf(c->label, sizeof(c->label), "%s", formats[i].label);
    return true;
}

LP_CLI_SETTER(lp_cli_set_format)
{
    char letters[2 * NFORMATS]; /* "k m g ... A" */
    size_t i;

    (void)opt;
    for (i = 0; i < NFORMATS; i++) {
        if (v->text[0] == formats[i].letter && v->text[1] == '\0') {
            cfg->fmt.unit = v->text[0];
            return 0;
        }
        letters[2 * i] = formats[i].letter;
        letters[2 * i + 1] = i + 1 < NFORMATS ? ' ' : '\0';
    }
    return lp_cli_err_set(err, "option -f/--format: '%s' is not a format (one of %s)", v->text,
                          letters);
}

LP_CLI_SETTER(lp_cli_set_udp)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.proto = LP_PROTO_UDP;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_reverse)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.dir = LP_DIR_REVERSE;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_bidir)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.dir = LP_DIR_BIDIR;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_inet4)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.family = LP_FAMILY_INET;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_inet6)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.family = LP_FAMILY_INET6;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_bitrate)
{
    (void)opt, (void)err;
    cfg->spec.rate_bps = (uint64_t)v->num;
    cfg->spec.burst = v->burst;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_tos)
{
    (void)opt, (void)err;
    cfg->spec.tos = (int)v->num;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_dscp)
{
    int dscp = 0;
    int rc = lp_cli_value_dscp(v->text, &dscp);

    (void)opt;
    if (rc == -2)
        return lp_cli_err_set(err, "option --dscp: %s is out of range (0..63)", v->text);
    if (rc < 0)
        return lp_cli_err_set(err, "option --dscp: '%s' is not a DSCP value "
                              "(0..63, CS0..CS7, AF11..AF43, EF or VA)", v->text);
    cfg->spec.tos = dscp << 2;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_timestamps)
{
    (void)opt, (void)err;
    cfg->fmt.timestamps = true;
    snprintf(cfg->fmt.timestamp_format, sizeof(cfg->fmt.timestamp_format), "%s",
             v->text ? v->text : "");
    return 0;
}

LP_CLI_SETTER(lp_cli_set_debug)
{
    double level = 4; /* iperf3: a bare -d means every message */
    char label[48];

    lp_cli_options_label(opt, label, sizeof(label));
    if (v->text && (lp_cli_value_int(v->text, false, &level) < 0 || level < opt->min ||
                    level > opt->max))
        return lp_cli_err_set(err, "option %s: '%s' is not a debug level (1..4)", label,
                              v->text);
    cfg->debug = (unsigned)level;
    cfg->spec.report.debug = (unsigned)level;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_json_stream)
{
    (void)opt, (void)v, (void)err;
    cfg->json = true;
    cfg->json_stream = true;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_help)
{
    (void)opt, (void)v, (void)err;
    cfg->action = LP_CLI_ACTION_HELP;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_version)
{
    (void)opt, (void)v, (void)err;
    cfg->action = LP_CLI_ACTION_VERSION;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_man)
{
    (void)opt, (void)v, (void)err;
    cfg->action = LP_CLI_ACTION_MAN;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_iperf2)
{
    (void)opt, (void)v, (void)err;
    cfg->iperf2 = true; /* the table was chosen before parsing; this only records it */
    return 0;
}

LP_CLI_SETTER(lp_cli_set_dialect)
{
    (void)opt;
    if (strcmp(v->text, "iperf3") == 0)
        cfg->spec.dialect = LP_DIALECT_IPERF3;
    else if (strcmp(v->text, "iperf2") == 0)
        cfg->spec.dialect = LP_DIALECT_IPERF2;
    else
        return lp_cli_err_set(err, "option --dialect: '%s' is not a dialect (iperf2 or iperf3)",
                              v->text);
    cfg->parse.dialect_given = true;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_test_tags)
{
    (void)opt;
    static const char *const names[] = {"auto", "always", "never"};
    for (unsigned i = 0; i < 3; i++)
        if (strcmp(v->text, names[i]) == 0) {
            cfg->test_tags = (enum lp_cli_test_tags)i;
            return 0;
        }
    return lp_cli_err_set(err, "option --test-tags: '%s' is not auto, always or never", v->text);
}

LP_CLI_SETTER(lp_cli_set_dual)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.iperf2.dual = true;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_tradeoff)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.iperf2.tradeoff = true;
    return 0;
}

/* An address list (--allow, --trust-udp) into dst, or the error naming the option. */
static int set_address_list(const struct lp_cli_opt *opt, const char *text, char *dst,
                            size_t dstlen, struct lp_cli_err *err)
{
    char why[LP_CLI_ERR_MAX - 64], label[48];

    if (lp_cli_value_allow(text, dst, dstlen, why, sizeof(why)) == 0)
        return 0;
    lp_cli_options_label(opt, label, sizeof(label));
    return lp_cli_err_set(err, "option %s: %s", label, why);
}

LP_CLI_SETTER(lp_cli_set_allow)
{
    return set_address_list(opt, v->text, cfg->spec.allow, sizeof(cfg->spec.allow), err);
}

LP_CLI_SETTER(lp_cli_set_trust_udp)
{
    return set_address_list(opt, v->text, cfg->spec.trust_udp, sizeof(cfg->spec.trust_udp), err);
}

LP_CLI_SETTER(lp_cli_set_enhanced)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.report.enhanced = true;
    cfg->fmt.enhanced = true;
    return 0;
}

LP_CLI_SETTER(lp_cli_set_print_mss)
{
    (void)opt, (void)v, (void)err;
    cfg->spec.report.print_mss = true;
    cfg->fmt.print_mss = true;
    return 0;
}

/* iperf2's --permit-key[=value]: the value (the row bounds its length), or none yet: a
 * server then makes one up and a client is refused (checks.c, once the role is known). */
LP_CLI_SETTER(lp_cli_set_permit_key)
{
    (void)opt, (void)err;
    snprintf(cfg->spec.iperf2.permit_key, sizeof(cfg->spec.iperf2.permit_key), "%s", v->text ? v->text : "");
    return 0;
}

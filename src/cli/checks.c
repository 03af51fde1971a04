/* Checks and defaults that need the whole command line: role-dependent meanings of iperf2's
 * -c/-P/-t, ports, the client's dialect, iperf2's mutual exclusions, output conflicts.
 * Rows are found by key, so both spellings share every rule. No argv scanning here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <unistd.h>

#include "auth/i3auth.h"
#include "cli/parse_int.h"
#include "cli/setters.h"
#include "core/udp_echo.h"
#include "wire/iperf2_bb.h"

static int check_modes(struct lp_cli_parse_state *st)
{
    enum lp_cli_mode wrong = st->cfg->spec.role == LP_ROLE_SERVER ? LP_CLI_MODE_CLIENT
                                                                  : LP_CLI_MODE_SERVER;
    size_t k;

    for (k = 0; k < st->t->count; k++) {
        const struct lp_cli_opt *o = &st->t->opts[k];
        if (!st->seen[k])
            continue;
        if (st->cfg->action == LP_CLI_ACTION_DEMO && o->mode != LP_CLI_MODE_GENERAL)
            return lp_cli_fail(st, o, "cannot be used with demo");
        if (st->cfg->action == LP_CLI_ACTION_RUN && o->mode == wrong)
            return lp_cli_fail(st, o, wrong == LP_CLI_MODE_CLIENT ? "only applies to a client"
                                                                  : "only applies to a server");
    }
    return 0;
}

/* The default spelling: which protocol a client speaks. Options that exist only in iperf2
 * choose it; options linkperf implements only over iperf2 need it; iperf3 protocol
 * features refuse it. */
static int choose_dialect(struct lp_cli_parse_state *st)
{
    struct lp_spec *sp = &st->cfg->spec;
    const struct lp_cli_opt *implied = NULL;
    size_t k;

    /* --bounceback and its shaping options with --dialect iperf3 given run over linkperf's
     * iperf3 echo extension: they imply iperf2 only when no dialect is given. */
    bool echo_ok = st->cfg->parse.dialect_given && sp->dialect == LP_DIALECT_IPERF3;
    /* -u --bounceback exists only as linkperf's UDP round trips, over iperf3. */
    bool udp_echo = lp_cli_seen(st, LP_CLI_K_UDP) && lp_cli_seen(st, LP_CLI_K_BOUNCEBACK);
    echo_ok |= udp_echo && !st->cfg->parse.dialect_given;
    for (k = 0; k < st->t->count && !implied; k++) {
        unsigned fl = st->t->opts[k].flags;
        if (st->seen[k] && (fl & LP_CLI_F_IMPLIES_IPERF2) && !(echo_ok && (fl & LP_CLI_F_IPERF3_ECHO)))
            implied = &st->t->opts[k];
    }
    if (st->cfg->parse.dialect_given) {
        if (sp->dialect == LP_DIALECT_IPERF3 && implied)
            return lp_cli_fail(st, implied, "cannot be used with --dialect iperf3 (it exists "
                                            "only in iperf2)");
    } else {
        sp->dialect = implied ? LP_DIALECT_IPERF2 : LP_DIALECT_IPERF3;
    }
    for (k = 0; k < st->t->count; k++) {
        const struct lp_cli_opt *o = &st->t->opts[k];
        if (!st->seen[k])
            continue;
        if ((o->flags & LP_CLI_F_NEEDS_IPERF2) && sp->dialect != LP_DIALECT_IPERF2)
            return lp_cli_fail(st, o, "needs --dialect iperf2 (linkperf has it only over the "
                                      "iperf2 protocol)");
        if ((o->flags & LP_CLI_F_IPERF3_ONLY) && sp->dialect == LP_DIALECT_IPERF2)
            return lp_cli_fail(st, o, "cannot be used with the iperf2 dialect (it is an "
                                      "iperf3 protocol feature)");
    }
    return 0;
}

/* iperf2's rules on directions: one of -R, --full-duplex, -d, -r; none of them with -C. */
static int check_directions(struct lp_cli_parse_state *st)
{
    static const enum lp_cli_key dirs[] = {LP_CLI_K_REVERSE, LP_CLI_K_BIDIR,
                                           LP_CLI_K_FULL_DUPLEX, LP_CLI_K_DUAL,
                                           LP_CLI_K_TRADEOFF};
    enum lp_cli_key first = LP_CLI_K_NONE;
    size_t i;

    for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (!lp_cli_seen(st, dirs[i]))
            continue;
        if (lp_cli_seen(st, LP_CLI_K_COMPAT))
            return lp_cli_conflict(st, LP_CLI_K_COMPAT, dirs[i]);
        /* --bidir and --full-duplex are the same direction */
        if (first != LP_CLI_K_NONE &&
            !(first == LP_CLI_K_BIDIR && dirs[i] == LP_CLI_K_FULL_DUPLEX))
            return lp_cli_conflict(st, first, dirs[i]);
        if (first == LP_CLI_K_NONE)
            first = dirs[i];
    }
    return 0;
}

/* -u --bounceback: linkperf's UDP round trips (core/udp_echo.h): a -l byte probe (64 by
 * default) every --bounceback-period (10 ms), --bounceback=n of them each period, until -t
 * or -k probes (-n bytes of them). */
static int check_udp_echo(struct lp_cli_parse_state *st)
{
    static const enum lp_cli_key never[] = {LP_CLI_K_REVERSE, LP_CLI_K_BIDIR, LP_CLI_K_FULL_DUPLEX,
                                            LP_CLI_K_DUAL, LP_CLI_K_TRADEOFF, LP_CLI_K_FILE, LP_CLI_K_STDIN};
    struct lp_spec *sp = &st->cfg->spec;
    struct lp_bounceback_spec *bb = &sp->iperf2.bb;
    char label[48];

    /* iperf 2.1.8 refuses --bounceback -u, and the spelling that is iperf2's says so as it does. */
    if (st->t->iperf2)
        return lp_cli_conflict(st, LP_CLI_K_BOUNCEBACK, LP_CLI_K_UDP);
    if (sp->dialect == LP_DIALECT_IPERF2)
        return lp_cli_err_set(st->err, "option --bounceback with -u: UDP round trips are linkperf's own, "
                                       "over the iperf3 dialect against a linkperf server (iperf 2.1.8 has "
                                       "no UDP bounceback)");
    for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
        if (lp_cli_seen(st, never[i]))
            return lp_cli_conflict(st, LP_CLI_K_BOUNCEBACK, never[i]);
    if (!lp_cli_seen(st, LP_CLI_K_LENGTH))
        sp->blksize = LP_UE_DEFAULT;
    if (sp->blksize < LP_UE_MIN || sp->blksize > LP_UE_MAX) {
        lp_cli_label(st, LP_CLI_K_LENGTH, label, sizeof(label));
        return lp_cli_err_set(st->err, "option %s: a UDP round-trip probe is %u..%u bytes (its header is %u), "
                              "not %u", label, LP_UE_MIN, LP_UE_MAX, LP_UE_MIN, (unsigned)sp->blksize);
    }
    if (bb->hold_us > LP_UE_HOLD_MAX_US)
        return lp_cli_err_set(st->err, "option --bounceback-hold: a UDP echo holds a probe at most %u ms",
                              LP_UE_HOLD_MAX_US / 1000);
    if (!bb->period_given)
        bb->period_s = LP_UE_PERIOD_DEFAULT_S;
    /* No back to back over UDP: nothing paces probes but the period, and a ping-pong would
     * stall at the first lost one. */
    if (bb->period_s < LP_UE_PERIOD_MIN_S)
        return lp_cli_err_set(st->err, "option --bounceback-period: UDP probes go at most every %g s, not %g",
                              LP_UE_PERIOD_MIN_S, bb->period_s);
    if (!bb->burst)
        bb->burst = 1;
    return 0;
}

/* --bounceback: TCP exchanges one way out and back, so no other direction or amount; its
 * defaults as 2.1.8 settles them (100-byte messages, 10 a burst, a burst a second, reports
 * every second). */
static int check_bounceback(struct lp_cli_parse_state *st)
{
    static const enum lp_cli_key never[] = {LP_CLI_K_UDP, LP_CLI_K_BYTES, LP_CLI_K_BLOCKS, LP_CLI_K_REVERSE,
                                            LP_CLI_K_BIDIR, LP_CLI_K_FULL_DUPLEX, LP_CLI_K_DUAL,
                                            LP_CLI_K_TRADEOFF, LP_CLI_K_COMPAT, LP_CLI_K_TRIP_TIMES,
                                            LP_CLI_K_FILE, LP_CLI_K_STDIN};
    struct lp_spec *sp = &st->cfg->spec;
    struct lp_bounceback_spec *bb = &sp->iperf2.bb;
    char label[48];

    if (sp->proto == LP_PROTO_UDP)
        return check_udp_echo(st);
    for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
        if (lp_cli_seen(st, never[i]))
            return lp_cli_conflict(st, LP_CLI_K_BOUNCEBACK, never[i]);
    if (!sp->blksize)
        sp->blksize = LP_I2_BB_DEFAULT;
    if (sp->blksize < LP_I2_BB_MIN) {
        lp_cli_label(st, LP_CLI_K_LENGTH, label, sizeof(label));
        return lp_cli_err_set(st->err, "option %s: a bounceback message is at least %u bytes (its header), "
                              "not %u", label, LP_I2_BB_MIN, (unsigned)sp->blksize);
    }
    if (!bb->period_given)
        bb->period_s = 1.0;
    if (!bb->burst)
        bb->burst = bb->period_s > 0 ? 10 : 1;
    sp->nodelay = true;
    sp->report.enhanced = st->cfg->fmt.enhanced = true; /* 2.1.8: --bounceback sets -e */
    return 0;
}

/* --isochronous (iperf2 client): frames one way, each frame's datagrams holding 2.1.8's frame
 * block (so at least 108 bytes each), or over TCP each frame one burst (its first write at
 * least the 92-byte burst header); the rate is the frames', not -b's. */
static int check_isoch(struct lp_cli_parse_state *st)
{
    static const enum lp_cli_key never[] = {LP_CLI_K_BITRATE, LP_CLI_K_BYTES, LP_CLI_K_BLOCKS, LP_CLI_K_REVERSE,
                                            LP_CLI_K_BIDIR, LP_CLI_K_FULL_DUPLEX, LP_CLI_K_DUAL,
                                            LP_CLI_K_TRADEOFF, LP_CLI_K_COMPAT, LP_CLI_K_FILE,
                                            LP_CLI_K_STDIN, LP_CLI_K_BOUNCEBACK};
    struct lp_spec *sp = &st->cfg->spec;
    char label[48];

    if (!sp->iperf2.isoch.on) {
        if (sp->iperf2.isoch.ipg_s > 0)
            return lp_cli_err_set(st->err, "option --ipg needs --isochronous (it spaces a frame's datagrams)");
        return 0;
    }
    for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++)
        if (lp_cli_seen(st, never[i])) {
            lp_cli_label(st, never[i], label, sizeof(label));
            return lp_cli_err_set(st->err, "option --isochronous cannot be combined with %s", label);
        }
    if (sp->proto == LP_PROTO_TCP && sp->iperf2.isoch.ipg_s > 0)
        return lp_cli_err_set(st->err, "option --ipg spaces a frame's datagrams (-u): over TCP a frame is "
                              "written at once");
    if (sp->proto == LP_PROTO_TCP && sp->blksize && sp->blksize < LP_I2_BURST_LEN) {
        lp_cli_label(st, LP_CLI_K_LENGTH, label, sizeof(label));
        return lp_cli_err_set(st->err, "option %s: a TCP frame's first write holds its %u-byte burst header, "
                              "not %u bytes", label, LP_I2_BURST_LEN, (unsigned)sp->blksize);
    }
    if (sp->proto == LP_PROTO_UDP && sp->blksize && sp->blksize < LP_I2_ISOCH_AT + LP_I2_ISOCH_LEN) {
        lp_cli_label(st, LP_CLI_K_LENGTH, label, sizeof(label));
        return lp_cli_err_set(st->err, "option %s: an isochronous datagram is at least %u bytes (its headers "
                              "and frame block), not %u", label, LP_I2_ISOCH_AT + LP_I2_ISOCH_LEN,
                              (unsigned)sp->blksize);
    }
    sp->rate_bps = 0; /* the frames pace themselves */
    return 0;
}

/* Checks of the iperf2 protocol, whichever spelling asked for it. */
static int check_iperf2_client(struct lp_cli_parse_state *st)
{
    struct lp_spec *sp = &st->cfg->spec;
    char label[48], udp[48];

    if (lp_cli_seen(st, LP_CLI_K_CONGESTION) && lp_cli_seen(st, LP_CLI_K_REVERSE))
        return lp_cli_conflict(st, LP_CLI_K_CONGESTION, LP_CLI_K_REVERSE);
    if (lp_cli_seen(st, LP_CLI_K_FILE) && lp_cli_seen(st, LP_CLI_K_STDIN))
        return lp_cli_conflict(st, LP_CLI_K_FILE, LP_CLI_K_STDIN);
    if (lp_cli_seen(st, LP_CLI_K_TRIP_TIMES)) {
        /* Every TCP write must start with a timestamped burst header: not file content. */
        if (lp_cli_seen(st, LP_CLI_K_FILE))
            return lp_cli_conflict(st, LP_CLI_K_TRIP_TIMES, LP_CLI_K_FILE);
        if (lp_cli_seen(st, LP_CLI_K_STDIN))
            return lp_cli_conflict(st, LP_CLI_K_TRIP_TIMES, LP_CLI_K_STDIN);
        if (lp_cli_seen(st, LP_CLI_K_COMPAT))
            return lp_cli_conflict(st, LP_CLI_K_TRIP_TIMES, LP_CLI_K_COMPAT);
    }
    if (sp->iperf2.bb.on && check_bounceback(st) < 0)
        return -1;
    if (check_isoch(st) < 0)
        return -1;
    /* 2.1.8 ignores them without --bounceback; linkperf says so. */
    if (!sp->iperf2.bb.on && sp->iperf2.bb.congest)
        return lp_cli_err_set(st->err, "option --bounceback-congest needs --bounceback (it is the load the "
                                       "round trips are measured under)");
    if (!sp->iperf2.bb.on && sp->iperf2.bb.txdelay_s > 0)
        return lp_cli_err_set(st->err, "option --bounceback-txdelay needs --bounceback");
    if (lp_cli_seen(st, LP_CLI_K_NO_UDP_FIN) && sp->proto != LP_PROTO_UDP) {
        lp_cli_label(st, LP_CLI_K_NO_UDP_FIN, label, sizeof(label));
        lp_cli_label(st, LP_CLI_K_UDP, udp, sizeof(udp));
        return lp_cli_err_set(st->err, "option %s needs %s", label, udp);
    }
    return 0;
}

/* A server's --permit-key without a value: 2.1.8's generate_permit_key, "<sec>.<usec>-"
 * then 16 letters and digits (here from getrandom, not rand() seeded with the time). */
static void make_permit_key(char *out, size_t n)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timeval tv;
    uint8_t r[64];
    size_t k, used = sizeof(r);
    unsigned made = 0;

    gettimeofday(&tv, NULL);
    k = (size_t)snprintf(out, n, "%ld.%06ld-", (long)tv.tv_sec, (long)tv.tv_usec);
    while (made < 16 && k + 1 < n) {
        if (used == sizeof(r)) {
            used = 0;
            if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
                /* No entropy to be had: as 2.1.8 does, rand() seeded with the clock. */
                srand((unsigned)tv.tv_usec ^ (unsigned)getpid() ^ made);
                for (size_t i = 0; i < sizeof(r); i++)
                    r[i] = (uint8_t)(rand() & 0xff);
            }
        }
        uint8_t b = r[used++];
        if (b >= 248) /* 4 * 62: every character equally likely */
            continue;
        out[k++] = alnum[b % 62];
        made++;
    }
    out[k < n ? k : n - 1] = '\0';
}

/* iperf2's --permit-key as 2.1.8 checks it (its words where it has them): TCP only, 4 to
 * 128 characters, a client needs one; a server makes one up without it and accepts tests
 * for --permit-key-timeout whole seconds (20 by default; 2.1.8 drops the fraction). */
static int check_permit_key(struct lp_cli_parse_state *st)
{
    struct lp_spec *sp = &st->cfg->spec;
    struct lp_iperf2_spec *i2 = &sp->iperf2;
    char label[48], other[48];
    size_t n = strnlen(i2->permit_key, sizeof(i2->permit_key));

    lp_cli_label(st, LP_CLI_K_PERMIT_KEY, label, sizeof(label));
    if (!lp_cli_seen(st, LP_CLI_K_PERMIT_KEY)) {
        if (!lp_cli_seen(st, LP_CLI_K_PERMIT_KEY_TIMEOUT))
            return 0;
        lp_cli_label(st, LP_CLI_K_PERMIT_KEY_TIMEOUT, other, sizeof(other));
        return lp_cli_err_set(st->err, "option %s needs %s", other, label);
    }
    if (sp->proto == LP_PROTO_UDP)
        return lp_cli_err_set(st->err, "option %s not supported with UDP (iperf2 sends the key "
                              "over TCP only)", label);
    if (sp->role == LP_ROLE_CLIENT) {
        if (!n)
            return lp_cli_err_set(st->err, "option %s requires a value on the client", label);
        if (lp_cli_seen(st, LP_CLI_K_COMPAT))
            return lp_cli_conflict(st, LP_CLI_K_PERMIT_KEY, LP_CLI_K_COMPAT);
    } else if (!n) {
        make_permit_key(i2->permit_key, sizeof(i2->permit_key));
        n = strlen(i2->permit_key);
    }
    if (n < LP_PERMIT_KEY_MIN)
        return lp_cli_err_set(st->err, "value for %s must have at least %d characters", label,
                              LP_PERMIT_KEY_MIN);
    if (sp->role == LP_ROLE_SERVER)
        i2->permit_key_timeout_s = lp_cli_seen(st, LP_CLI_K_PERMIT_KEY_TIMEOUT)
                                       ? (double)(uint64_t)i2->permit_key_timeout_s
                                       : LP_PERMIT_KEY_TIMEOUT_S;
    return 0;
}

/* A value outside the row's narrower range for this case (lp_cli_narrow), known once the
 * line is read: the range and its case come from the row, as --man and the page say them. */
static bool outside_narrow(const struct lp_cli_opt *o, enum lp_cli_when when, double v)
{
    return o && o->narrow.when == when && (v < o->narrow.min || v > o->narrow.max);
}

static int narrow_fail(struct lp_cli_parse_state *st, const struct lp_cli_opt *o,
                       const char *text)
{
    char range[64];

    lp_cli_options_narrow_range(o, range, sizeof(range));
    return lp_cli_out_of_range(st, o, text, range, lp_cli_options_narrow_case(o));
}

static int check_client(struct lp_cli_parse_state *st)
{
    struct lp_cli_config *cfg = st->cfg;
    struct lp_spec *sp = &cfg->spec;
    bool iperf2 = st->t->iperf2;
    int ends = lp_cli_seen(st, LP_CLI_K_TIME) + lp_cli_seen(st, LP_CLI_K_BYTES) +
               lp_cli_seen(st, LP_CLI_K_BLOCKS);
    const struct lp_cli_opt *l = lp_cli_row(st, LP_CLI_K_LENGTH);
    const struct lp_cli_opt *par = lp_cli_row(st, LP_CLI_K_PARALLEL);
    const struct lp_cli_opt *port = lp_cli_row(st, LP_CLI_K_PORT);
    char label[48], text[16];

    if (ends > 1)
        return lp_cli_err_set(st->err, "only one test end condition may be given %s",
                              iperf2 ? "(-t or -n)" : "(-t, -n or -k)");
    if (lp_cli_seen(st, LP_CLI_K_BYTES) || lp_cli_seen(st, LP_CLI_K_BLOCKS))
        sp->duration_s = 0; /* iperf3 sends "time":0 when bytes or blocks end the test */
    /* -F/-I: the content is sent once (the engine takes its size as -n), with or without -t,
     * as 2.1.8 does (JPerf always writes -t); -n sends that many bytes of it. */
    if (!lp_cli_seen(st, LP_CLI_K_BYTES) &&
        (lp_cli_seen(st, LP_CLI_K_FILE) || lp_cli_seen(st, LP_CLI_K_STDIN)))
        sp->duration_s = 0;
    /* iperf2's -P: a server's test count, a client's streams */
    if (outside_narrow(par, LP_CLI_WHEN_CLIENT, sp->streams))
        return narrow_fail(st, par, lp_cli_text(st, LP_CLI_K_PARALLEL));
    if (iperf2)
        sp->dialect = LP_DIALECT_IPERF2;
    else if (choose_dialect(st) < 0)
        return -1;
    if (!lp_cli_seen(st, LP_CLI_K_PORT) && sp->dialect == LP_DIALECT_IPERF2)
        sp->port = LP_DEFAULT_IPERF2_PORT;
    if (outside_narrow(port, LP_CLI_WHEN_CLIENT, sp->port)) {
        snprintf(text, sizeof(text), "%u", (unsigned)sp->port);
        return narrow_fail(st, port, text);
    }
    if (check_directions(st) < 0)
        return -1;
    if (sp->dialect == LP_DIALECT_IPERF2 && check_iperf2_client(st) < 0)
        return -1;
    if (sp->dialect == LP_DIALECT_IPERF3 && sp->iperf2.bb.on && check_bounceback(st) < 0)
        return -1;
    if (check_permit_key(st) < 0)
        return -1;
    /* iperf2 prints intervals only when asked, or with --bounceback's bursts (2.1.8). */
    if (iperf2 && !lp_cli_seen(st, LP_CLI_K_INTERVAL))
        sp->report.interval_s = sp->iperf2.bb.on && sp->iperf2.bb.period_s > 0 ? 1.0 : 0;
    if (sp->proto == LP_PROTO_UDP) {
        if (!lp_cli_seen(st, LP_CLI_K_BITRATE))
            sp->rate_bps = LP_DEFAULT_UDP_RATE_BPS;
        if (!lp_cli_seen(st, LP_CLI_K_LENGTH) && sp->dialect == LP_DIALECT_IPERF2)
            sp->blksize = sp->family == LP_FAMILY_INET6 ? 1450u : LP_IPERF2_UDP_BLKSIZE;
        if (lp_cli_seen(st, LP_CLI_K_LENGTH) && outside_narrow(l, LP_CLI_WHEN_UDP, sp->blksize))
            return narrow_fail(st, l, st->text[lp_cli_row_index(st, l)]);
        if (cfg->parse.pps > 0)
            sp->rate_bps = (uint64_t)(cfg->parse.pps * lp_spec_blksize(sp) * 8.0);
    } else if (cfg->parse.pps > 0) {
        lp_cli_label(st, LP_CLI_K_BITRATE, label, sizeof(label));
        return lp_cli_err_set(st->err, "option %s: a rate in packets per second (pps) needs "
                              "UDP (-u)", label);
    }
    return 0;
}

static int check_server(struct lp_cli_parse_state *st)
{
    struct lp_cli_config *cfg = st->cfg;
    struct lp_spec *sp = &cfg->spec;
    bool iperf2 = st->t->iperf2;
    char label[48];

    sp->report.server_output_json = cfg->json;
    /* One port when asked for one; else both well-known ports, the spelling's own first. */
    if (lp_cli_seen(st, LP_CLI_K_PORT)) {
        sp->port2 = 0;
    } else {
        sp->port = iperf2 ? LP_DEFAULT_IPERF2_PORT : LP_DEFAULT_PORT;
        sp->port2 = iperf2 ? LP_DEFAULT_PORT : LP_DEFAULT_IPERF2_PORT;
    }
    if (check_permit_key(st) < 0)
        return -1;
    if (!iperf2)
        return 0;
    if (lp_cli_seen(st, LP_CLI_K_BITRATE)) {
        lp_cli_label(st, LP_CLI_K_BITRATE, label, sizeof(label));
        return lp_cli_err_set(st->err, "option %s: a server's read rate limit is not "
                              "supported", label);
    }
    if (sp->cport) {
        lp_cli_options_label(lp_cli_options_short(st->t, 'B'), label, sizeof(label));
        return lp_cli_err_set(st->err, "option %s: a :port after the address is for a "
                              "client; a server listens on -p", label);
    }
    /* -t and -P mean other things on an iperf2 server. */
    if (lp_cli_seen(st, LP_CLI_K_TIME))
        cfg->stop_after_s = sp->duration_s;
    sp->duration_s = LP_DEFAULT_DURATION_S;
    if (lp_cli_seen(st, LP_CLI_K_PARALLEL))
        sp->max_conns = sp->streams;
    sp->streams = 1;
    if (!lp_cli_seen(st, LP_CLI_K_INTERVAL))
        sp->report.interval_s = 0;
    return 0;
}

/* iperf2 -c: the server's host for a client; with -s (before or after it) the clients a
 * server allows, as iperf2 2.0 did. */
static int settle_iperf2_c(struct lp_cli_parse_state *st)
{
    struct lp_cli_config *cfg = st->cfg;
    const struct lp_cli_opt *c = lp_cli_row(st, LP_CLI_K_CLIENT);
    char label[48], why[LP_CLI_ERR_MAX - 64], *host = cfg->spec.host;
    size_t n;

    lp_cli_options_label(c, label, sizeof(label));
    if (cfg->spec.role == LP_ROLE_SERVER) {
        if (lp_cli_value_allow(cfg->parse.c_arg, cfg->spec.allow, sizeof(cfg->spec.allow),
                               why, sizeof(why)) < 0)
            return lp_cli_err_set(st->err, "option %s: %s", label, why);
        return 0;
    }
    if (strlen(cfg->parse.c_arg) > LP_HOST_MAX - 1)
        return lp_cli_err_set(st->err, "option %s: value is too long (at most %d characters)",
                              label, LP_HOST_MAX - 1);
    if (lp_cli_split_host(c, cfg->parse.c_arg, host, sizeof(cfg->spec.host),
                          cfg->spec.bind_dev, LP_CLI_DEV_LEN, st->err) < 0)
        return -1;
    n = strlen(host);
    if (host[0] == '[' && n > 2 && host[n - 1] == ']') { /* "[::1]" as iperf2 -V takes it */
        memmove(host, host + 1, n - 2);
        host[n - 2] = '\0';
    }
    return 0;
}

static int check_output(struct lp_cli_parse_state *st)
{
    struct lp_cli_config *cfg = st->cfg;
    char label[48];

    if (cfg->csv && cfg->json)
        return lp_cli_conflict(st, LP_CLI_K_JSON, LP_CLI_K_CSV);
    static const enum lp_cli_key csv_only[] = {LP_CLI_K_CSV_HEADER, LP_CLI_K_CSV_LATENCY};
    for (size_t i = 0; i < sizeof(csv_only) / sizeof(csv_only[0]); i++)
        if (lp_cli_seen(st, csv_only[i]) && !cfg->csv) {
            lp_cli_label(st, csv_only[i], label, sizeof(label));
            return lp_cli_err_set(st->err, "option %s needs %s", label, st->t->iperf2 ? "-y C" : "--csv");
        }
    return 0;
}

/* iperf3 authentication comes in pairs: a key and its users, a user and a key. */
static int check_auth(struct lp_cli_parse_state *st)
{
    const struct lp_cli_auth *a = &st->cfg->auth;
    if (st->cfg->spec.role == LP_ROLE_SERVER) {
        if (!a->private_key[0] != !a->users[0])
            return lp_cli_err_set(st->err, "authentication needs both --rsa-private-key-path "
                                  "and --authorized-users-path");
        if (a->skew_s && !a->private_key[0])
            return lp_cli_err_set(st->err, "option --time-skew-threshold needs "
                                  "--rsa-private-key-path and --authorized-users-path");
        return 0;
    }
    if (!a->username[0] != !a->public_key[0])
        return lp_cli_err_set(st->err, "authentication needs both --username and "
                              "--rsa-public-key-path");
    if (a->username[0] && !lp_i3auth_name_ok(a->username))
        return lp_cli_err_set(st->err, "option --username: a name of 1 to %d bytes without "
                              "spaces or control characters", LP_I3AUTH_NAME_MAX);
    return 0;
}

int lp_cli_check_line(struct lp_cli_parse_state *st)
{
    struct lp_cli_config *cfg = st->cfg;
    size_t k;

    if (cfg->action == LP_CLI_ACTION_DEMO) {
        if (st->t->iperf2)
            return lp_cli_err_set(st->err, "demo runs iperf3 tests; it cannot be combined with "
                                  "the iperf2 spelling");
        if (cfg->role_given)
            return lp_cli_err_set(st->err, "demo cannot be combined with -s or -c");
        for (k = 0; k < st->t->count; k++) {
            if (st->seen[k] && (st->t->opts[k].flags & LP_CLI_F_IMPLIES_IPERF2))
                return lp_cli_fail(st, &st->t->opts[k], "cannot be used with demo");
        }
        return check_modes(st);
    }
    if (!st->t->iperf2 && lp_cli_seen(st, LP_CLI_K_SERVER) && lp_cli_seen(st, LP_CLI_K_CLIENT))
        return lp_cli_conflict(st, LP_CLI_K_SERVER, LP_CLI_K_CLIENT);
    if (!cfg->role_given)
        return lp_cli_err_set(st->err, "give -s (server) or -c host (client); see %s",
                              st->t->help_hint);
    if (st->t->iperf2 && lp_cli_seen(st, LP_CLI_K_CLIENT) && settle_iperf2_c(st) < 0)
        return -1;
    if (check_modes(st) < 0 || check_output(st) < 0 || check_auth(st) < 0)
        return -1;
    if (cfg->spec.role == LP_ROLE_SERVER)
        return check_server(st);
    return check_client(st);
}

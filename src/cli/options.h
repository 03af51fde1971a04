/* The CLI option table: one row per option, with its argument kind, range, mode, help
 * line and man paragraph. Parsing, --help and --man are all generated from these rows. */
#ifndef LP_CLI_OPTIONS_H
#define LP_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/config.h"
#include "cli/values.h"

#define LP_CLI_BURST_MAX 1000 /* iperf3's limit on -b RATE/BURST */
#define LP_CLI_PPS_MAX 10000000.0   /* iperf2 -b Npps: packets per second */
#define LP_CLI_MAX_CONNS 1000000.0  /* server -P / --max-connections */

/* What an option's argument looks like. */
enum lp_cli_arg {
    LP_CLI_ARG_NONE,     /* a flag */
    LP_CLI_ARG_INT,      /* decimal integer ("0x", "0" prefixes only with LP_CLI_F_CPREFIX) */
    LP_CLI_ARG_NUM,      /* decimal number with an optional fraction (-i 0.5) */
    LP_CLI_ARG_SIZE,     /* number with K/M/G/T suffix, 1024-based (-n -k -l -w) */
    LP_CLI_ARG_RATE,     /* number with K/M/G/T suffix, 1000-based; -b adds /BURST */
    LP_CLI_ARG_SIZE2,    /* iperf2 number: k/m/g = 1000^n, K/M/G = 1024^n (-l -n -w -b) */
    LP_CLI_ARG_STRING,   /* text; max is its length limit */
    LP_CLI_ARG_OPTIONAL, /* long form only: --name or --name=value (value is text) */
};

/* Which role an option applies to. */
enum lp_cli_mode {
    LP_CLI_MODE_GENERAL,
    LP_CLI_MODE_SERVER,
    LP_CLI_MODE_CLIENT,
};

enum lp_cli_flag {
    LP_CLI_F_UNSUPPORTED = 1u << 0, /* iperf3 has it, linkperf does not: reject clearly */
    LP_CLI_F_ZERO_OK = 1u << 1,     /* 0 is accepted besides min..max (means "off/default") */
    LP_CLI_F_CPREFIX = 1u << 2,     /* INT accepts 0x.. hex and 0.. octal (-S like iperf3) */
    LP_CLI_F_LINKPERF = 1u << 3,    /* linkperf's own option, not in iperf3 */
    LP_CLI_F_STOP = 1u << 4,        /* -h -v --man: act at once, ignore the rest */
    LP_CLI_F_BURST = 1u << 5,       /* RATE may end in /BURST (1..LP_CLI_BURST_MAX) */
    LP_CLI_F_LATER = 1u << 6,       /* with UNSUPPORTED: "does not support yet" */
    LP_CLI_F_IMPLIES_IPERF2 = 1u << 7, /* default table: exists only in iperf2, so a client
                                        * given it speaks the iperf2 dialect */
    LP_CLI_F_NEEDS_IPERF2 = 1u << 8,   /* default table: linkperf has it only over iperf2;
                                        * needs --dialect iperf2 (or an implying option) */
    LP_CLI_F_IPERF3_ONLY = 1u << 9,    /* default table: iperf3 protocol feature, refused
                                        * when the client speaks iperf2 */
    LP_CLI_F_PPS = 1u << 10,        /* iperf2 -b: "Npps" form; "MEAN,STDEV" refused clearly */
    LP_CLI_F_NO_RANGE = 1u << 11,   /* iperf2 -p: "m-n" port ranges refused clearly */
    LP_CLI_F_SHARED = 1u << 12,     /* written once in options_rows.h, placed in both tables:
                                     * a test tells it from an option written twice */
    LP_CLI_F_IPERF3_ECHO = 1u << 13, /* with IMPLIES_IPERF2: --dialect iperf3 runs it over
                                      * linkperf's iperf3 echo extension instead */
};

/* Rows the parser's combination checks look for, whatever the table calls them. */
enum lp_cli_key {
    LP_CLI_K_NONE = 0,
    LP_CLI_K_PORT,
    LP_CLI_K_SERVER,
    LP_CLI_K_CLIENT,
    LP_CLI_K_UDP,
    LP_CLI_K_TIME,
    LP_CLI_K_INTERVAL,
    LP_CLI_K_BYTES,
    LP_CLI_K_BLOCKS,
    LP_CLI_K_LENGTH,
    LP_CLI_K_BITRATE,
    LP_CLI_K_PARALLEL,
    LP_CLI_K_REVERSE,
    LP_CLI_K_BIDIR,       /* --bidir (default table) */
    LP_CLI_K_FULL_DUPLEX, /* --full-duplex: the same direction as --bidir */
    LP_CLI_K_DUAL,
    LP_CLI_K_TRADEOFF,
    LP_CLI_K_COMPAT,
    LP_CLI_K_NO_UDP_FIN,
    LP_CLI_K_TRIP_TIMES,
    LP_CLI_K_BOUNCEBACK,
    LP_CLI_K_FILE,
    LP_CLI_K_STDIN,
    LP_CLI_K_CONGESTION,
    LP_CLI_K_JSON,
    LP_CLI_K_CSV,
    LP_CLI_K_CSV_HEADER,
    LP_CLI_K_CSV_LATENCY,
    LP_CLI_K_PERMIT_KEY,  /* iperf2 --permit-key */
    LP_CLI_K_PERMIT_KEY_TIMEOUT,
};

/* A case in which a row's range narrows; checks.c knows it once the whole line is read. */
enum lp_cli_when {
    LP_CLI_WHEN_NEVER = 0,
    LP_CLI_WHEN_CLIENT, /* the line runs a client: -p 0 ("any free port") is a server's */
    LP_CLI_WHEN_UDP,    /* a UDP client: -l is a datagram */
};

/* The narrower range: what messages, --man and the options document say in that case. */
struct lp_cli_narrow {
    enum lp_cli_when when;
    double min, max;
};

/* How a plain value is stored into struct lp_cli_config. A row with a setter may name the
 * field its setter writes too: the parser ignores it, the options document reads the
 * field's default from it. */
enum lp_cli_store {
    LP_CLI_STORE_NONE,
    LP_CLI_STORE_TRUE,   /* bool = true */
    LP_CLI_STORE_UINT,   /* unsigned */
    LP_CLI_STORE_U16,
    LP_CLI_STORE_U32,
    LP_CLI_STORE_U64,
    LP_CLI_STORE_INT,
    LP_CLI_STORE_DOUBLE,
    LP_CLI_STORE_STR,    /* char[size], NUL-terminated; max length checked first */
    LP_CLI_STORE_CHAR,   /* char = the argument's first character (-f's letter) */
};

/* A parsed argument, handed to a row's setter. */
struct lp_cli_value {
    const char *text;  /* the argument as given (NULL for flags and absent optional args) */
    double num;        /* numeric kinds: the value after suffix scaling */
    unsigned burst;    /* -b RATE/BURST: the burst (0 = none given) */
    bool pps;          /* iperf2 -b Npps: num is packets per second */
};

struct lp_cli_opt;
struct lp_cli_err;
/* Custom handling for options that are not a plain store. Returns 0 or -1 with err set. */
typedef int (*lp_cli_set_fn)(struct lp_cli_config *cfg, const struct lp_cli_opt *opt,
                             const struct lp_cli_value *v, struct lp_cli_err *err);

struct lp_cli_opt {
    const char *name;       /* long name without "--" */
    char letter;            /* short letter, 0 = none */
    enum lp_cli_arg arg;
    const char *metavar;    /* argument as shown in help/man ("#", "host"), NULL for flags */
    double min, max;        /* numeric range; STRING/OPTIONAL: max = length limit */
    struct lp_cli_narrow narrow; /* a narrower range in one case (when = NEVER: none) */
    enum lp_cli_mode mode;
    unsigned flags;         /* enum lp_cli_flag */
    enum lp_cli_key key;    /* for combination checks (LP_CLI_K_NONE for most rows) */
    enum lp_cli_store store;
    size_t off, size;       /* field in struct lp_cli_config for store */
    lp_cli_set_fn set;      /* custom handling, or NULL */
    lp_cli_choice_fn choices; /* the named values it takes, as the page lists them; NULL:
                               * none (a -S or --dscp number is still taken besides them) */
    const char *help;       /* one line for --help */
    const char *man;        /* man page paragraph (NULL = help) */
};

/* A spelling of the options: iperf3's (the default) or iperf2's (--iperf2, linkperf2). */
struct lp_cli_table {
    const char *name;              /* "iperf3", "iperf2": names the origin of unsupported rows */
    const struct lp_cli_opt *opts;
    size_t count;
    bool iperf2;                   /* iperf2 spelling: iperf2's rules in checks.c */
    const char *help_hint;         /* "linkperf --help": where messages send the user */
};

const struct lp_cli_table *lp_cli_options_iperf3(void);
const struct lp_cli_table *lp_cli_options_iperf2(void);

/* Lookups; NULL when absent. lp_cli_options_prefix also accepts an unambiguous prefix of a
 * long name (getopt_long does, so iperf3 users may rely on it) and sets *ambiguous. */
const struct lp_cli_opt *lp_cli_options_long(const struct lp_cli_table *t, const char *name,
                                             size_t len);
const struct lp_cli_opt *lp_cli_options_prefix(const struct lp_cli_table *t, const char *name,
                                               size_t len, bool *ambiguous);
const struct lp_cli_opt *lp_cli_options_short(const struct lp_cli_table *t, char letter);

/* The words of the parser's value messages, after "option -p/--port: ". The options
 * document (optdoc.h) hands them to the page, so its own checks say what the CLI says. */
#define LP_CLI_MSG_OUT_OF_RANGE "%s is out of range (%s)%s"   /* text, range, case */
#define LP_CLI_MSG_NOT_A "'%s' is not %s"                    /* text, expects() */
#define LP_CLI_MSG_TOO_LONG "value is too long (at most %.0f characters)"
#define LP_CLI_MSG_BAD_BURST "'%s' is not a valid burst count"
#define LP_CLI_MSG_BURST_RANGE "burst %s is out of range (%s)" /* text, burst range */

/* "-P/--parallel" or "--cport": how messages name an option. */
void lp_cli_options_label(const struct lp_cli_opt *o, char *buf, size_t len);
/* The valid range as text: "1..128", "0 or 88..9216", "0..512M". Empty for non-numeric. */
void lp_cli_options_range(const struct lp_cli_opt *o, char *buf, size_t len);
/* A value of this row as its range prints it ("512M" for -w, "0.1" for -i). */
void lp_cli_options_format(const struct lp_cli_opt *o, double v, char *buf, size_t len);
/* The narrower range ("1..65535") and its case as messages end (" for a client");
 * "" and "" for a row without one. */
void lp_cli_options_narrow_range(const struct lp_cli_opt *o, char *buf, size_t len);
const char *lp_cli_options_narrow_case(const struct lp_cli_opt *o);
/* What a numeric argument must look like ("an integer", "a size (...)"); NULL for others. */
const char *lp_cli_options_expects(const struct lp_cli_opt *o);
/* The burst range of a RATE/BURST row ("1..1000"). */
void lp_cli_options_burst_range(char *buf, size_t len);

#endif

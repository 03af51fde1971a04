/* `linkperf --completion bash|zsh`: completion scripts written from the option tables. Each
 * spelling (iperf3's for linkperf, iperf2's for linkperf2, iperf, or --iperf2 on the line)
 * gets its list of options, and each row that takes a value says what may follow it: the
 * row's named values (its choices, or a metavar such as "iperf2|iperf3"), a file name, or
 * nothing to offer (a number, a host). Unsupported rows are left out: the parser refuses them. */
#include "cli/completion.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/buf.h"
#include "cli/options.h"

/* main.c dispatches all but the last on argv[1], the parser "demo" (parse.c). */
const char *const lp_cli_subcommands[] = {"ui", "lwip-tune", "under-load", "rfc2544", "history", "demo",
                                          NULL};

enum value_kind { VALUE_NONE, VALUE_WORDS, VALUE_FILE, VALUE_TYPED };

/* "[kmgtKMGT]": one letter each (-f, iperf2's -y). */
static bool is_letter_set(const char *m)
{
    size_t n = strlen(m);

    if (n < 3 || m[0] != '[' || m[n - 1] != ']')
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!isalpha((unsigned char)m[i]))
            return false;
    return true;
}

/* "iperf2|iperf3": the words themselves. */
static bool is_word_list(const char *m)
{
    bool bar = false;

    for (; *m; m++) {
        if (*m == '|')
            bar = true;
        else if (!islower((unsigned char)*m) && !isdigit((unsigned char)*m) && *m != '-')
            return false;
    }
    return bar;
}

/* What may follow the row as its next word. An optional argument is --name=value, one word.
 * A file is named by the metavars the tables give one ("file", "f" for --logfile, ...). */
static enum value_kind value_kind(const struct lp_cli_opt *o)
{
    if (o->arg == LP_CLI_ARG_NONE || o->arg == LP_CLI_ARG_OPTIONAL)
        return VALUE_NONE;
    if (o->choices || (o->metavar && (is_word_list(o->metavar) || is_letter_set(o->metavar))))
        return VALUE_WORDS;
    if (o->metavar && (strcmp(o->metavar, "file") == 0 || strcmp(o->metavar, "path") == 0 ||
                       strcmp(o->metavar, "f") == 0 || strcmp(o->metavar, "<filename>") == 0))
        return VALUE_FILE;
    return VALUE_TYPED;
}

/* The named values, space-separated (none has a space or a quote). */
static void value_words(struct lp_cli_buf *b, const struct lp_cli_opt *o)
{
    if (o->choices) {
        struct lp_cli_choice c;
        for (size_t i = 0; o->choices(i, &c); i++)
            lp_cli_buf_printf(b, "%s%s", i ? " " : "", c.value);
        return;
    }
    if (is_letter_set(o->metavar)) {
        for (size_t i = 1; o->metavar[i + 1]; i++)
            lp_cli_buf_printf(b, "%s%c", i > 1 ? " " : "", o->metavar[i]);
        return;
    }
    for (const char *m = o->metavar; *m; m++)
        lp_cli_buf_append(b, *m == '|' ? " " : m, 1);
}

/* text as one single-quoted shell word. */
static void quoted(struct lp_cli_buf *b, const char *text)
{
    lp_cli_buf_puts(b, "'");
    for (const char *p = text; *p; p++) {
        if (*p == '\'')
            lp_cli_buf_puts(b, "'\\''");
        else
            lp_cli_buf_append(b, p, 1);
    }
    lp_cli_buf_puts(b, "'");
}

/* A case pattern matching the row's spellings: '-f'|'--format' (prefix before each). */
static void pattern(struct lp_cli_buf *b, const char *prefix, const struct lp_cli_opt *o)
{
    if (o->letter)
        lp_cli_buf_printf(b, "%s'-%c'|", prefix, o->letter);
    lp_cli_buf_printf(b, "%s'--%s'", prefix, o->name);
}

static bool offered(const struct lp_cli_opt *o)
{
    return !(o->flags & LP_CLI_F_UNSUPPORTED);
}

/* ---- bash ---- */

static void bash_table(struct lp_cli_buf *b, const struct lp_cli_table *t)
{
    lp_cli_buf_printf(b, "_linkperf_opts_%s='", t->name);
    for (size_t i = 0, n = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        if (!offered(o))
            continue;
        if (o->letter)
            lp_cli_buf_printf(b, "%s-%c", n++ ? " " : "", o->letter);
        lp_cli_buf_printf(b, "%s--%s", n++ ? " " : "", o->name);
    }
    lp_cli_buf_puts(b, "'\n");
    /* REPLY: the words that may follow option $1, "@file" for a file name; status 1 when $1
     * takes no value. */
    lp_cli_buf_printf(b, "_linkperf_value_%s()\n{\n    case $1 in\n", t->name);
    for (size_t i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        enum value_kind k = value_kind(o);
        if (!offered(o) || k == VALUE_NONE)
            continue;
        lp_cli_buf_puts(b, "        ");
        pattern(b, "", o);
        lp_cli_buf_puts(b, ") REPLY=");
        if (k == VALUE_WORDS) {
            lp_cli_buf_puts(b, "'");
            value_words(b, o);
            lp_cli_buf_puts(b, "'");
        } else if (k == VALUE_FILE) {
            lp_cli_buf_puts(b, "@file");
        }
        lp_cli_buf_puts(b, " ;;\n");
    }
    lp_cli_buf_puts(b, "        *) return 1 ;;\n    esac\n}\n");
}

static const char bash_main[] =
    "_linkperf()\n"
    "{\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev='' spelling=iperf3 name w\n"
    "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "    # The names that mean iperf2 (lp_cli_name_is_iperf2 in src/cli/parse.c): linkperf2,\n"
    "    # and iperf* but not iperf3*, case ignored, .exe dropped; or --iperf2 on the line.\n"
    "    name=${COMP_WORDS[0]##*/}\n"
    "    name=${name,,}\n"
    "    name=${name%.exe}\n"
    "    case $name in linkperf2|iperf|iperf[!3]*) spelling=iperf2 ;; esac\n"
    "    for w in \"${COMP_WORDS[@]}\"; do [[ $w == --iperf2 ]] && spelling=iperf2; done\n"
    "    COMPREPLY=()\n"
    "    if (( COMP_CWORD > 1 )); then\n"
    "        case ${COMP_WORDS[1]} in\n"
    "            # These read their own options (linkperf SUBCOMMAND --help lists them).\n"
    "            ui|lwip-tune|under-load|rfc2544|history) return 0 ;;\n"
    "        esac\n"
    "    fi\n"
    "    if \"_linkperf_value_$spelling\" \"$prev\"; then\n"
    "        if [[ $REPLY == @file ]]; then\n"
    "            mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
    "        else\n"
    "            mapfile -t COMPREPLY < <(compgen -W \"$REPLY\" -- \"$cur\")\n"
    "        fi\n"
    "        return 0\n"
    "    fi\n"
    "    if (( COMP_CWORD == 1 )) && [[ $cur != -* ]]; then\n"
    "        mapfile -t COMPREPLY < <(compgen -W \"$_linkperf_subcommands\" -- \"$cur\")\n"
    "        return 0\n"
    "    fi\n"
    "    local opts=_linkperf_opts_$spelling\n"
    "    mapfile -t COMPREPLY < <(compgen -W \"${!opts}\" -- \"$cur\")\n"
    "}\n"
    "complete -F _linkperf linkperf linkperf2\n"
    "# iperf and iperf3 only where they are links to linkperf (make install ALIASES=1).\n"
    "for w in iperf iperf3; do\n"
    "    if [[ -n $(type -P linkperf) && $(type -P \"$w\") -ef $(type -P linkperf) ]]; then\n"
    "        complete -F _linkperf \"$w\"\n"
    "    fi\n"
    "done\n"
    "unset w\n";

static void bash_script(struct lp_cli_buf *b)
{
    lp_cli_buf_puts(b, "# bash completion for linkperf and linkperf2. Generated by 'linkperf "
                       "--completion bash' from\n# the option tables (src/cli/options.c, "
                       "options2.c); do not edit.\n");
    lp_cli_buf_puts(b, "_linkperf_subcommands='");
    for (size_t i = 0; lp_cli_subcommands[i]; i++)
        lp_cli_buf_printf(b, "%s%s", i ? " " : "", lp_cli_subcommands[i]);
    lp_cli_buf_puts(b, "'\n");
    bash_table(b, lp_cli_options_iperf3());
    bash_table(b, lp_cli_options_iperf2());
    lp_cli_buf_puts(b, bash_main);
}

/* ---- zsh ---- */

/* One of _describe's NAME:DESCRIPTION items. */
static void zsh_item(struct lp_cli_buf *b, const char *name, const char *help)
{
    lp_cli_buf_puts(b, "        ");
    quoted(b, name);
    lp_cli_buf_puts(b, ":");
    quoted(b, help ? help : "");
    lp_cli_buf_puts(b, "\n");
}

static void zsh_table(struct lp_cli_buf *b, const struct lp_cli_table *t, bool first)
{
    lp_cli_buf_printf(b, "    %s [[ $spelling == %s ]]; then\n        opts=(\n",
                      first ? "if" : "elif", t->name);
    for (size_t i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        char name[64];
        if (!offered(o))
            continue;
        if (o->letter) {
            snprintf(name, sizeof(name), "-%c", o->letter);
            zsh_item(b, name, o->help);
        }
        snprintf(name, sizeof(name), "--%s", o->name);
        zsh_item(b, name, o->help);
    }
    lp_cli_buf_puts(b, "        )\n");
}

static void zsh_values(struct lp_cli_buf *b, const struct lp_cli_table *t)
{
    for (size_t i = 0; i < t->count; i++) {
        const struct lp_cli_opt *o = &t->opts[i];
        enum value_kind k = value_kind(o);
        char prefix[16];
        if (!offered(o) || k == VALUE_NONE)
            continue;
        snprintf(prefix, sizeof(prefix), "%s:", t->name);
        lp_cli_buf_puts(b, "        ");
        pattern(b, prefix, o);
        if (k == VALUE_WORDS) {
            lp_cli_buf_puts(b, ") vals=(");
            value_words(b, o);
            lp_cli_buf_puts(b, "); compadd -a vals; return ;;\n");
        } else if (k == VALUE_FILE) {
            lp_cli_buf_puts(b, ") _files; return ;;\n");
        } else {
            lp_cli_buf_puts(b, ") _message -e value ");
            quoted(b, o->metavar ? o->metavar : "value");
            lp_cli_buf_puts(b, "; return ;;\n");
        }
    }
}

static void zsh_script(struct lp_cli_buf *b)
{
    const struct lp_cli_table *t3 = lp_cli_options_iperf3(), *t2 = lp_cli_options_iperf2();

    lp_cli_buf_puts(b, "#compdef linkperf linkperf2\n"
                       "# zsh completion for linkperf and linkperf2. Generated by 'linkperf "
                       "--completion zsh' from\n# the option tables (src/cli/options.c, "
                       "options2.c); do not edit.\n"
                       "_linkperf() {\n"
                       "    local spelling=iperf3 name=${${words[1]:t}:l}\n"
                       "    local -a opts vals subs\n"
                       "    # The names that mean iperf2, as lp_cli_name_is_iperf2 "
                       "(src/cli/parse.c) reads them.\n"
                       "    name=${name%.exe}\n"
                       "    case $name in linkperf2|iperf|iperf[^3]*) spelling=iperf2 ;; esac\n"
                       "    (( ${words[(I)--iperf2]} )) && spelling=iperf2\n"
                       "    (( CURRENT > 2 )) && case $words[2] in\n"
                       "        ui|lwip-tune|under-load|rfc2544|history) _default; return ;;\n"
                       "    esac\n"
                       "    case $spelling:$words[CURRENT-1] in\n");
    zsh_values(b, t3);
    zsh_values(b, t2);
    lp_cli_buf_puts(b, "    esac\n"
                       "    if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then\n"
                       "        subs=(");
    for (size_t i = 0; lp_cli_subcommands[i]; i++)
        lp_cli_buf_printf(b, "%s%s", i ? " " : "", lp_cli_subcommands[i]);
    lp_cli_buf_puts(b, ")\n        compadd -a subs\n        return\n    fi\n");
    zsh_table(b, t3, true);
    zsh_table(b, t2, false);
    lp_cli_buf_puts(b, "    fi\n"
                       "    _describe option opts\n"
                       "}\n"
                       "_linkperf \"$@\"\n");
}

char *lp_cli_completion_script(const char *shell)
{
    struct lp_cli_buf b = {0};

    if (!shell)
        return NULL;
    if (strcmp(shell, "bash") == 0)
        bash_script(&b);
    else if (strcmp(shell, "zsh") == 0)
        zsh_script(&b);
    else
        return NULL;
    return lp_cli_buf_take(&b);
}

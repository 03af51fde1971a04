/* Shell completion scripts (bash, zsh), generated from the option tables as --help and --man
 * are, so that completion cannot offer an option the parser refuses or miss one it takes.
 * `linkperf --completion bash|zsh` prints one; `make install` and `make deb` install them. */
#ifndef LP_CLI_COMPLETION_H
#define LP_CLI_COMPLETION_H

/* The subcommands main.c and the parser dispatch on argv[1]. */
extern const char *const lp_cli_subcommands[];

/* A malloc'd NUL-terminated script for shell "bash" or "zsh" (caller frees); NULL for any
 * other shell name or when out of memory. Both spellings are in it: iperf3's for linkperf,
 * iperf2's for linkperf2, iperf, or --iperf2 anywhere on the line. */
char *lp_cli_completion_script(const char *shell);

#endif

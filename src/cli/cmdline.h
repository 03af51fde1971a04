/* The shell-quoted command line of a test ("linkperf -c host -T 'a b'"), as history and the
 * web page show it. */
#ifndef LP_CLI_CMDLINE_H
#define LP_CLI_CMDLINE_H

/* argv without the program name; malloc'd, NULL when out of memory. */
char *lp_cli_command_line(int argc, char *const argv[]);

#endif

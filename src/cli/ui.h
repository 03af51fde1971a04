/* `linkperf ui`: parses its options, starts the web UI (src/web), prints the URL and serves
 * until SIGINT/SIGTERM. */
#ifndef LP_CLI_UI_H
#define LP_CLI_UI_H

/* argv[0] is "ui". Returns the process exit status. */
int lp_cli_ui_main(int argc, char **argv);

#endif

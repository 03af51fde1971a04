/* linkperf under-load (under_load.c): latency under load against an iperf2 server. */
#ifndef LP_CLI_UNDER_LOAD_H
#define LP_CLI_UNDER_LOAD_H

/* argv[0] is "under-load". Returns the exit status. */
int lp_under_load_main(int argc, char **argv);

#endif

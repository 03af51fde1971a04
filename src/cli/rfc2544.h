/* linkperf rfc2544 (rfc2544.c): RFC 2544's benchmarks from UDP tests. */
#ifndef LP_CLI_RFC2544_H
#define LP_CLI_RFC2544_H

/* argv[0] is "rfc2544". Returns the exit status. */
int lp_rfc2544_main(int argc, char **argv);

#endif

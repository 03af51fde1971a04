/* Custom setters used by the option table rows that are more than a plain store.
 * Internal to src/cli: options.c refers to them, setters.c defines them. */
#ifndef LP_CLI_SETTERS_H
#define LP_CLI_SETTERS_H

#include "cli/options.h"
#include "cli/values.h"

#define LP_CLI_SETTER(fn)                                                                 \
    int fn(struct lp_cli_config *cfg, const struct lp_cli_opt *opt,                       \
           const struct lp_cli_value *v, struct lp_cli_err *err)

LP_CLI_SETTER(lp_cli_set_server);
LP_CLI_SETTER(lp_cli_set_client);
LP_CLI_SETTER(lp_cli_set_bind);
LP_CLI_SETTER(lp_cli_set_format);
LP_CLI_SETTER(lp_cli_set_udp);
LP_CLI_SETTER(lp_cli_set_reverse);
LP_CLI_SETTER(lp_cli_set_bidir);
LP_CLI_SETTER(lp_cli_set_inet4);
LP_CLI_SETTER(lp_cli_set_inet6);
LP_CLI_SETTER(lp_cli_set_bitrate);
LP_CLI_SETTER(lp_cli_set_tos);
LP_CLI_SETTER(lp_cli_set_dscp);
LP_CLI_SETTER(lp_cli_set_timestamps);
LP_CLI_SETTER(lp_cli_set_debug);
LP_CLI_SETTER(lp_cli_set_json_stream);
LP_CLI_SETTER(lp_cli_set_help);
LP_CLI_SETTER(lp_cli_set_version);
LP_CLI_SETTER(lp_cli_set_man);
/* Default spelling, iperf2 capabilities (setters.c). */
LP_CLI_SETTER(lp_cli_set_iperf2);
LP_CLI_SETTER(lp_cli_set_dialect);
LP_CLI_SETTER(lp_cli_set_test_tags);
LP_CLI_SETTER(lp_cli_set_dual);
LP_CLI_SETTER(lp_cli_set_tradeoff);
LP_CLI_SETTER(lp_cli_set_allow);
LP_CLI_SETTER(lp_cli_set_trust_udp);
LP_CLI_SETTER(lp_cli_set_enhanced);
LP_CLI_SETTER(lp_cli_set_print_mss);
LP_CLI_SETTER(lp_cli_set_permit_key);
/* iperf2 spelling only (setters2.c). */
LP_CLI_SETTER(lp_cli_set_client2);
LP_CLI_SETTER(lp_cli_set_bandwidth2);
LP_CLI_SETTER(lp_cli_set_format2);
LP_CLI_SETTER(lp_cli_set_exclude);
LP_CLI_SETTER(lp_cli_set_reportstyle);
LP_CLI_SETTER(lp_cli_set_tos2);
LP_CLI_SETTER(lp_cli_set_bind2);
LP_CLI_SETTER(lp_cli_set_mss2);
LP_CLI_SETTER(lp_cli_set_fq_rate2);
LP_CLI_SETTER(lp_cli_set_single_client);
LP_CLI_SETTER(lp_cli_set_bounceback);
LP_CLI_SETTER(lp_cli_set_bounceback_hold);
LP_CLI_SETTER(lp_cli_set_bounceback_period);
LP_CLI_SETTER(lp_cli_set_bounceback_congest);
LP_CLI_SETTER(lp_cli_set_histograms);
LP_CLI_SETTER(lp_cli_set_isochronous);
LP_CLI_SETTER(lp_cli_set_ipg);

/* The letters -f takes (default spelling), for the options document. */
bool lp_cli_format_choice(size_t i, struct lp_cli_choice *c);

/* "host%dev" -> host and device (iperf3 and iperf2 read it the same way). */
int lp_cli_split_host(const struct lp_cli_opt *opt, const char *text, char *host,
                      size_t hostlen, char *dev, size_t devlen, struct lp_cli_err *err);
#define LP_CLI_DEV_LEN 16 /* IFNAMSIZ: what SO_BINDTODEVICE accepts, incl. NUL */

#endif

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

#endif

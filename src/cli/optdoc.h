/* The options document: the default spelling's option table as JSON, generated from the
 * rows as --help and --man are, for the browser page (GET /api/options) and for the tests
 * that check the page against the parser (linkperf ui --options). */
#ifndef LP_CLI_OPTDOC_H
#define LP_CLI_OPTDOC_H

/* A malloc'd NUL-terminated JSON text (caller frees), NULL when out of memory:
 *   {"spelling", "messages": {the LP_CLI_MSG_* templates}, "server_ports": [5201, 5001],
 *    "options": [{"name", "letter", "label", "kind", "mode", "metavar", "help",
 *                 numeric kinds: "min", "max", "zero_ok", "range", "expects", "base",
 *                 "narrow": {"case", "min", "max", "range", "suffix"}, "burst": {...},
 *                 text kinds: "max_length"; "choices": [{"value", "label"}] for a row
 *                 that takes named values (-f, -S, --dscp: the page's select lists, in
 *                 the row's order); flags: "linkperf", "implies_iperf2", "needs_iperf2",
 *                 "iperf3_only"; "default", "defaults": {situation: text}}]}
 * Defaults are what the parser leaves in the row's field for a bare line of each situation
 * ("tcp", "udp-iperf2-inet6", ..., "server"), formatted as ranges are; "defaults" lists only
 * the situations whose value differs from "default" (a TCP iperf3 client's). */
char *lp_cli_options_json(void);

#endif

/* Entry of the link-level footprint figure: calls what a firmware calls (init, start, stop, and
 * the console and formatter when they are compiled in), so that linking with --gc-sections keeps
 * exactly the agent code reachable from the public API and drops the rest. Never run. */
#include "lpa.h"

#if LPA_FORMAT
static void print(const char *text, void *arg) {
  (void)text;
  (void)arg;
}
#endif

static void on_report(const struct lpa_report *report, void *arg) {
#if LPA_FORMAT
  lpa_format_report(report, print, arg);
#else
  (void)report;
  (void)arg;
#endif
}

int main(void) {
  struct lpa_config cfg;
  lpa_init();
  lpa_config_defaults(&cfg, LPA_SERVER ? LPA_ROLE_SERVER : LPA_ROLE_CLIENT, LPA_PROTO_TCP,
                      LPA_IPERF2 ? LPA_DIALECT_IPERF2 : LPA_DIALECT_IPERF3);
  lpa_start(&cfg, on_report, 0);
#if LPA_CONSOLE
  lpa_command("iperf -s", print, 0);
#endif
  lpa_stop(-1);
  return 0;
}

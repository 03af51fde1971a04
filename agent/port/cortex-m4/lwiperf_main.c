/* Entry of lwiperf's link-level reference figure: its TCP server and client and the abort call,
 * everything lwIP 2.1.3's lwiperf offers (the client's type, LWIPERF_DUAL or LWIPERF_TRADEOFF,
 * is a run-time argument of the same code, and the server answers -d/-r). Never run. */
#include "lwip/apps/lwiperf.h"

static void on_report(void *arg, enum lwiperf_report_type type, const ip_addr_t *local_addr,
                      u16_t local_port, const ip_addr_t *remote_addr, u16_t remote_port,
                      u32_t bytes_transferred, u32_t ms_duration, u32_t bandwidth_kbitpsec) {
  (void)arg; (void)type; (void)local_addr; (void)local_port; (void)remote_addr;
  (void)remote_port; (void)bytes_transferred; (void)ms_duration; (void)bandwidth_kbitpsec;
}

int main(void) {
  ip_addr_t peer = IPADDR4_INIT(0x0a000001ul);
  void *server = lwiperf_start_tcp_server_default(on_report, 0);
  void *client = lwiperf_start_tcp_client_default(&peer, on_report, 0);
  lwiperf_abort(client);
  lwiperf_abort(server);
  return 0;
}

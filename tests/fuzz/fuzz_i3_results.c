/* The results JSON iperf3 peers exchange (a client's to the server, a server's to the client
 * with --get-server-output's text or JSON document), decoded as both sides do, then encoded
 * again as a server sends its own. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto/i3json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lp_peer_results r;
    char err[200];
    memset(&r, 0, sizeof(r));
    if (lp_i3_results_decode((const char *)data, size, &r, err, sizeof(err)) == 0) {
        (void)lp_peer_results_find(&r, 1);
        free(lp_i3_results_encode(&r));
    }
    lp_peer_results_release(&r);
    return 0;
}

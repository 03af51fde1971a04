/* An iperf3 client's parameter JSON, as the server decodes it (lp_i3_params_decode onto the
 * server's own settings), then what the server computes from it and the JSON a client would
 * send for the decoded test. */
#include <stdlib.h>

#include "core/run.h"
#include "fuzz.h"
#include "proto/i3json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lp_spec spec;
    char err[200];
    lp_spec_init(&spec, LP_ROLE_SERVER);
    if (lp_i3_params_decode((const char *)data, size, &spec, NULL, 0, NULL, err, sizeof(err)) != 0)
        return 0;
    (void)lp_run_expected(&spec);
    (void)lp_spec_blksize(&spec);
    free(lp_i3_params_encode(&spec, NULL, "3.12"));
    return 0;
}

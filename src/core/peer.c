#include "core/peer.h"

#include <stdlib.h>

void lp_peer_results_release(struct lp_peer_results *r)
{
    free(r->server_output_text);
    free(r->server_output_json);
    r->server_output_text = r->server_output_json = NULL;
}

const struct lp_peer_stream *lp_peer_results_find(const struct lp_peer_results *r, int id)
{
    for (unsigned i = 0; i < r->nstreams; i++)
        if (r->streams[i].id == id)
            return &r->streams[i];
    return NULL;
}

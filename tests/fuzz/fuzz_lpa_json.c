/* The board agent's bounded JSON reader (agent/src/lpa_json.c, compiled into this harness) on
 * an iperf3 control message: lpa_json_parse, then every value reachable through the keys the
 * agent looks up and through array indexes, read as each type (numbers scaled as the agent
 * scales times and jitter), and strings written back through the writer, whose escaping then
 * meets whatever the reader unescaped. The text is a heap copy of exactly its size. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lpa_json.h"

/* Every key lpa_iperf3.c and lpa_iperf3_client.c read from params and results. */
static const char *const keys[] = {
    "tcp", "udp", "omit", "time", "num", "blockcount", "parallel", "reverse", "bidirectional", "len",
    "bandwidth", "udp_counters_64bit", "streams", "id", "bytes", "retransmits", "jitter", "errors",
    "omitted_errors", "packets", "omitted_packets", "start_time", "end_time", "cpu_util_total",
    "sender_has_retransmits", "congestion_used", "server_output_text", "client_version",
};

#define MAX_INDEX 64 /* elements visited per array (the agent reads at most 128 streams) */

static void visit(const struct lpa_json *v, int depth, struct lpa_jw *w)
{
    struct lpa_json sub;
    int64_t x;
    int b;
    char s[128];
    switch (lpa_json_type(v)) {
    case LPA_JSON_OBJECT:
        (void)lpa_json_count(v);
        for (size_t k = 0; depth < LPA_JSON_MAX_DEPTH && k < sizeof(keys) / sizeof(keys[0]); k++)
            if (lpa_json_get(v, keys[k], &sub) == 0)
                visit(&sub, depth + 1, w);
        break;
    case LPA_JSON_ARRAY:
        (void)lpa_json_count(v);
        for (size_t i = 0; depth < LPA_JSON_MAX_DEPTH && i < MAX_INDEX && lpa_json_index(v, i, &sub) == 0; i++)
            visit(&sub, depth + 1, w);
        break;
    case LPA_JSON_STRING:
        if (lpa_json_string(v, s, sizeof(s)) >= 0)
            lpa_jw_string(w, "s", s);
        (void)lpa_json_streq(v, "3.12");
        break;
    case LPA_JSON_NUMBER:
        if (lpa_json_scaled(v, 6, &x) == 0)
            lpa_jw_scaled(w, "x", x, 6);
        if (lpa_json_int(v, &x) == 0)
            lpa_jw_int(w, "i", x);
        break;
    default:
        if (lpa_json_bool(v, &b) == 0)
            lpa_jw_bool(w, "b", b);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    struct lpa_json root;
    if (!text)
        return 0;
    memcpy(text, data, size);
    if (lpa_json_parse(text, size, &root) == 0) {
        char out[512];
        struct lpa_jw w;
        int64_t x;
        int b;
        lpa_jw_init(&w, out, sizeof(out));
        lpa_jw_object(&w, NULL);
        visit(&root, 0, &w);
        lpa_jw_end(&w);
        (void)lpa_jw_finish(&w);
        (void)lpa_json_get_int(&root, "parallel", &x);
        (void)lpa_json_get_bool(&root, "reverse", &b);
    }
    free(text);
    return 0;
}

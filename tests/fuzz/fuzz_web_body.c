/* The JSON body of a POST to the web API (src/web/http.c's api_post), read as every route
 * reads it: {"id": N} (/api/stop, /api/history/delete), {"name", "args"} (/api/profiles/save and delete) and
 * {"args": [strings]} (/api/check, /api/run), whose strings go through the CLI's own parser
 * exactly as /api/check sends them (lp_web_check_args) and, when valid, become the command
 * line the page shows. The fields are read by http.c's own readers (web/body.h); only the
 * routing, which needs a libmicrohttpd connection, is left out. Nothing is run, stored or
 * served. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "fuzz.h"
#include "web/body.h"
#include "web/runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > LP_WEB_BODY_MAX)
        return 0;
    cJSON *body = cJSON_ParseWithLength((const char *)data, size);
    if (!cJSON_IsObject(body)) {
        cJSON_Delete(body);
        return 0;
    }
    double id = lp_web_body_id(body, 4e9); /* the run id /api/stop stops */
    if (id > 0)
        (void)(unsigned)id;
    char *argv[LP_WEB_ARGS_MAX + 1];
    int argc = lp_web_body_args(body, argv, LP_WEB_ARGS_MAX);
    if (!lp_web_body_name_problem(cJSON_GetObjectItemCaseSensitive(body, "name")) && argc >= 0)
        free(cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(body, "args"))); /* saved */
    if (argc > 0) {
        struct lp_cli_err err;
        char option[64];
        argv[argc] = NULL;
        if (lp_web_check_args(NULL, argc, argv, &err, option, sizeof(option)) == 0)
            free(lp_cli_command_line(argc, argv));
    }
    cJSON_Delete(body);
    return 0;
}

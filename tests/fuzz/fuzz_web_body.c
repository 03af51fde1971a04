/* The JSON body of a POST to the web API (src/web/http.c's api_post), read as every route
 * reads it: {"id": N} (/api/stop, /api/history/delete), {"name", "args"} (/api/profiles/save and delete) and
 * {"args": [strings]} (/api/check, /api/run), whose strings go through the CLI's own parser
 * exactly as /api/check sends them (lp_web_check_args) and, when valid, become the command
 * line the page shows. The routing and args_of()/id_in() are static in http.c and need a
 * libmicrohttpd connection, so their few lines of reading are repeated here; nothing is run,
 * stored or served. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmdline.h"
#include "fuzz.h"
#include "web/runs.h"

#define BODY_MAX (64u * 1024u) /* http.c answers a larger body with 413 before parsing it */

/* {"args":[strings]} -> argv (pointers into the parsed JSON), as http.c's args_of(). */
static int args_of(const cJSON *body, char **argv, int max)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(body, "args"), *e;
    int n = 0;
    if (!cJSON_IsArray(a))
        return -1;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsString(e) || n >= max)
            return -1;
        argv[n++] = e->valuestring;
    }
    return n;
}

/* A profile name as api_profile_change() takes it: 1..64 bytes, no control characters. */
static bool name_ok(const cJSON *name)
{
    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) > 64)
        return false;
    for (const char *p = name->valuestring; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > BODY_MAX)
        return 0;
    cJSON *body = cJSON_ParseWithLength((const char *)data, size);
    if (!cJSON_IsObject(body)) {
        cJSON_Delete(body);
        return 0;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(body, "id");
    if (cJSON_IsNumber(id) && id->valuedouble >= 1 && id->valuedouble < 4e9)
        (void)(unsigned)id->valuedouble; /* the run id /api/stop stops */
    char *argv[LP_WEB_ARGS_MAX + 1];
    int argc = args_of(body, argv, LP_WEB_ARGS_MAX);
    if (name_ok(cJSON_GetObjectItemCaseSensitive(body, "name")) && argc >= 0)
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

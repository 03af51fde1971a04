/* The API bodies' fields as http.c and the body fuzzer read them (body.h). */
#include "web/body.h"

#include <string.h>

double lp_web_body_id(const cJSON *body, double max)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(body, "id");

    return cJSON_IsNumber(id) && id->valuedouble >= 1 && id->valuedouble < max
               ? id->valuedouble : 0;
}

int lp_web_body_args(const cJSON *body, char **argv, int max)
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

const char *lp_web_body_name_problem(const cJSON *name)
{
    const char *p;

    if (!cJSON_IsString(name) || !name->valuestring[0] || strlen(name->valuestring) > 64)
        return "name: 1 to 64 characters";
    /* The history page shows names as text; a control character would still garble it. */
    for (p = name->valuestring; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return "name: no control characters";
    return NULL;
}

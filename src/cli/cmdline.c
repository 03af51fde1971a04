/* Shell quoting for showing a command line: plain words as they are, anything else in single
 * quotes (a quote inside as '\''), so the text pastes back into a shell unchanged. */
#include "cli/cmdline.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *lp_cli_command_line(int argc, char *const argv[])
{
    size_t cap = strlen("linkperf") + 1;
    char *s, *p;
    int i;

    for (i = 0; i < argc; i++)
        cap += 3 + 4 * strlen(argv[i]);
    s = malloc(cap);
    if (!s)
        return NULL;
    p = s + sprintf(s, "linkperf");
    for (i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool plain = a[0] != '\0';

        for (const char *q = a; *q && plain; q++)
            plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                           "-_./:=,%+@", *q) != NULL;
        *p++ = ' ';
        if (plain) {
            p += sprintf(p, "%s", a);
            continue;
        }
        *p++ = '\'';
        for (; *a; a++) {
            if (*a == '\'')
                p += sprintf(p, "'\\''");
            else
                *p++ = *a;
        }
        *p++ = '\'';
    }
    *p = '\0';
    return s;
}

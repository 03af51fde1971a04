/* Test helper: read the stock iperf3 captures in tests/golden/evidence (shared by the golden
 * unit tests). Lines are returned without their trailing newline. */
#ifndef LP_TEST_EVIDENCE_H
#define LP_TEST_EVIDENCE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls fn(line, arg) for every line of the evidence file `name`; returns the line count,
 * or -1 if the file cannot be opened. */
static inline int lp_evidence_lines(const char *name, void (*fn)(const char *line, void *arg), void *arg)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", LP_EVIDENCE_DIR, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int count = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        fn(line, arg);
        count++;
    }
    free(line);
    fclose(f);
    return count;
}

/* The whole file at path, NUL-terminated (malloc'd), or NULL if it cannot be read. */
static inline char *lp_test_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0)
        s = calloc(1, (size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

/* An evidence file (tests/golden/evidence/name), whole. */
static inline char *lp_evidence_slurp(const char *name)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", LP_EVIDENCE_DIR, name);
    return lp_test_slurp(path);
}

/* Parse "aa bb cc" hex (as in the captures) into out; returns the byte count. */
static inline size_t lp_evidence_hex(const char *s, unsigned char *out, size_t max)
{
    size_t n = 0;
    while (*s && n < max) {
        while (*s == ' ')
            s++;
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (unsigned char)v;
        s += 2;
    }
    return n;
}

#endif

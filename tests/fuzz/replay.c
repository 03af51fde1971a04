/* Corpus replay without libFuzzer, for the gcc builds make check and make check-asan run:
 * every file of each directory named on the command line (in name order), or each file named,
 * goes once to LLVMFuzzerTestOneInput, in a heap block of exactly its size so that a sanitizer
 * build sees any read past the input's end. Fails when nothing was replayed: an empty or
 * missing corpus would otherwise pass while testing nothing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

#define REPLAY_MAX (1u << 20) /* larger seeds do not belong in the committed corpus */

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    uint8_t *buf = malloc(REPLAY_MAX);
    size_t n = buf ? fread(buf, 1, REPLAY_MAX, f) : 0;
    int bad = !buf || ferror(f) || !feof(f);
    fclose(f);
    uint8_t *exact = bad ? NULL : malloc(n ? n : 1);
    if (exact) {
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
    } else {
        fprintf(stderr, "%s: unreadable, or larger than %u bytes\n", path, REPLAY_MAX);
    }
    free(exact);
    free(buf);
    return exact ? 0 : -1;
}

static int replay_dir(const char *dir, unsigned *count)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        perror(dir);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        if (rc == 0 && names[i]->d_name[0] != '.') {
            int len = snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
            if (len < 0 || (size_t)len >= sizeof(path) || stat(path, &st) < 0)
                rc = -1;
            else if (S_ISREG(st.st_mode)) {
                rc = replay_file(path);
                ++*count;
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            perror(argv[i]);
            return 1;
        }
        int rc = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i]);
        if (rc < 0)
            return 1;
        if (!S_ISDIR(st.st_mode))
            count++;
    }
    printf("%u inputs replayed\n", count);
    return count ? 0 : 1;
}

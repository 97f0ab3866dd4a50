/*
 * replay_main.c -- runs a libFuzzer target over every file of a corpus
 * directory (and its .repro/ subdirectory, regressions named after their bug)
 * with a plain main(), so the corpus is an ordinary ctest in every build.
 * Exit 0 when every input was processed without a crash (a crash is the
 * failure: the sanitizers or the signal end the process).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (got == 0)
            break;
        len += got;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int replay_dir(const char *dir, unsigned *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;                       /* a missing .repro/ is fine */
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (replay_file(path) != 0)
            rc = -1;
        (*count)++;
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        char repro[4096];
        rc |= replay_dir(argv[i], &count);
        snprintf(repro, sizeof repro, "%s/.repro", argv[i]);
        rc |= replay_dir(repro, &count);
    }
    printf("replayed %u inputs\n", count);
    if (count == 0) {
        fprintf(stderr, "no corpus inputs found\n");
        return 1;
    }
    return rc ? 1 : 0;
}

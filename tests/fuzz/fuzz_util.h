/*
 * fuzz_util.h -- helpers the fuzz targets share (header-only: each target
 * is one file, linked either with libFuzzer or with replay_main.c).
 *
 *   fuzz_text()       the input as a NUL-terminated malloc'd copy (NULL on ENOMEM)
 *   fuzz_diag_ok()    a failure's diagnostic is one terminated line
 *   fuzz_private_dir() a private directory (mode 0700) on tmpfs (/dev/shm),
 *                     made once per process and removed at exit with what
 *                     the target left in it; NULL if it cannot be made
 */
#ifndef ZK_TESTS_FUZZ_UTIL_H
#define ZK_TESTS_FUZZ_UTIL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/binfile.h"

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (t) {
        memcpy(t, data, size);
        t[size] = 0;
    }
    return t;
}

static inline int fuzz_diag_ok(const struct zk_diag *d)
{
    const char *end = memchr(d->msg, 0, sizeof d->msg);
    return end && end != d->msg && !memchr(d->msg, '\n', (size_t)(end - d->msg));
}

/* the directory's path ("" until made) */
static inline char *fuzz_dir_buf(void)
{
    static char path[64];
    return path;
}

static inline void fuzz_dir_remove(void)
{
    const char *fuzz_dir_path = fuzz_dir_buf();
    DIR *d = opendir(fuzz_dir_path);
    struct dirent *e;
    char p[64 + 256];
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", fuzz_dir_path, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(fuzz_dir_path);
}

static inline const char *fuzz_private_dir(void)
{
    char *fuzz_dir_path = fuzz_dir_buf();
    if (!fuzz_dir_path[0]) {
        snprintf(fuzz_dir_path, 64, "/dev/shm/zkslot-fuzz.XXXXXX");
        if (!mkdtemp(fuzz_dir_path)) {          /* mode 0700, ours */
            perror("fuzz: mkdtemp /dev/shm");
            fuzz_dir_path[0] = 0;
            return NULL;
        }
        atexit(fuzz_dir_remove);
    }
    return fuzz_dir_path;
}

#endif /* ZK_TESTS_FUZZ_UTIL_H */

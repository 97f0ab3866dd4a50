/*
 * filehash.c -- XXH3-128 of files' contents (zk/util.h): key files at
 * `zkslot key add`, witness generators at registration and before each run,
 * a .zkey looked up in the key stores (zk_hash128_file, its status kept).
 * Read through one buffer of HASH_CHUNK bytes, read again and again: small
 * enough that hashing adds little to a command's peak RSS (a one-shot
 * `zkslot prove` hashes its 34 MB key), large enough for few reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "zk/error.h"
#include "zk/util.h"

#define HASH_CHUNK (256u << 10)   /* L2-sized: copied out of the page cache */

/* One file into xs; its status when reading began and ended into *before
 * and *after (either may be NULL; *after all zero when it cannot be had). */
static int hash_one(XXH3_state_t *xs, char *buf, const char *path, uint64_t *done,
                    uint64_t total, void (*progress)(void *, const char *, uint64_t, uint64_t),
                    void *ctx, struct stat *before, struct stat *after, struct zk_diag *diag)
{
    /* never blocks on a FIFO or a device: only a regular file is read */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0)
        return zk_diag_set(diag, path, -errno, "%s", strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return zk_diag_set(diag, path, -EINVAL, "not a regular file");
    }
    if (before)
        *before = st;
    for (;;) {
        ssize_t n = read(fd, buf, HASH_CHUNK);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return zk_diag_set(diag, path, -e, "%s", strerror(e));
        }
        if (n == 0)
            break;
        XXH3_128bits_update(xs, buf, (size_t)n);
        *done += (uint64_t)n;
        if (progress)
            progress(ctx, path, *done, total);
    }
    if (after && fstat(fd, after) != 0)
        memset(after, 0, sizeof *after);   /* agrees with nothing */
    close(fd);
    return 0;
}

/* zk_hash128_files, with the first file's status (n == 1: zk_hash128_file). */
static int hash_files(const void *prefix, size_t prefix_len, const char *const *paths, size_t n,
                      char hex[33], uint64_t *ret_bytes,
                      void (*progress)(void *, const char *, uint64_t, uint64_t), void *ctx,
                      struct stat *before, struct stat *after, struct zk_diag *diag)
{
    uint64_t total = 0, done = 0;
    for (size_t i = 0; i < n && progress; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0)
            total += (uint64_t)st.st_size;
    }
    char *buf = malloc(HASH_CHUNK);
    XXH3_state_t *xs = XXH3_createState();
    int r = 0;
    if (!buf || !xs || XXH3_128bits_reset(xs) != XXH_OK) {
        r = zk_diag_set(diag, NULL, -ENOMEM, "out of memory");
        goto out;
    }
    if (prefix_len)
        XXH3_128bits_update(xs, prefix, prefix_len);
    for (size_t i = 0; i < n && !r; i++)
        r = hash_one(xs, buf, paths[i], &done, total, progress, ctx, i ? NULL : before,
                     i ? NULL : after, diag);
    if (r)
        goto out;
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(xs));
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
    if (ret_bytes)
        *ret_bytes = done;
out:
    XXH3_freeState(xs);
    free(buf);
    return r;
}

int zk_hash128_files(const void *prefix, size_t prefix_len, const char *const *paths, size_t n,
                     char hex[33], uint64_t *ret_bytes,
                     void (*progress)(void *ctx, const char *path, uint64_t done, uint64_t total),
                     void *ctx, struct zk_diag *diag)
{
    return hash_files(prefix, prefix_len, paths, n, hex, ret_bytes, progress, ctx, NULL, NULL,
                      diag);
}

int zk_hash128_file(const char *path, char hex[33], struct stat *before, struct stat *after,
                    struct zk_diag *diag)
{
    return hash_files(NULL, 0, &path, 1, hex, NULL, NULL, NULL, before, after, diag);
}

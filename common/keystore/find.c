/*
 * find.c -- zk_keystore_find (zk/keystore.h): the resident store of a
 * .zkey found by the file's content hash, for the one-shot `zkslot prove`.
 * The file is hashed through one buffer of HASH_READ bytes, read again
 * and again, with the same XXH3-128 as zk_hash128_files, which it falls
 * back to when the file cannot be read so.  Not a buffer of the file's
 * size (reading a 34 MiB key into one took tens of milliseconds of a 0.5 s
 * proof, most of them page faults), nor a populated mapping of the whole
 * file (it was the proof's peak RSS when the key had no store: 36 MB
 * against 22 on SHA-256 with public outputs; and a mapped file truncated
 * meanwhile is a SIGBUS).  A file hashed once and unchanged since is found
 * again by its identity, without reading it (keyid.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "keystore/format.h"

#define HASH_READ ((size_t)256 << 10)   /* L2-sized: copied out of the page cache */
#include "zk/error.h"
#include "zk/util.h"

static int any_store(void *ctx, const char *path, const char *hash)
{
    (void)ctx;
    (void)path;
    (void)hash;
    return 1;
}

/* hex = the XXH3-128 of the file at path, read HASH_READ bytes at a time
 * into one small buffer: 0, or 1 when it cannot be read that way (hex not
 * written; the caller reads it with zk_hash128_files, which says why).
 * The file's status when hashing began and ended into *before and *after. */
static int hash_read(const char *path, char hex[33], struct stat *before, struct stat *after)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return 1;
    XXH3_state_t *xs = NULL;
    uint8_t *buf = NULL;
    int r = 1;
    if (fstat(fd, before) < 0 || !S_ISREG(before->st_mode) || before->st_size <= 0 ||
        !(buf = malloc(HASH_READ)) || !(xs = XXH3_createState()) ||
        XXH3_128bits_reset(xs) != XXH_OK)
        goto out;
    for (off_t at = 0;;) {
        ssize_t n = pread(fd, buf, HASH_READ, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto out;
        if (n == 0)
            break;
        XXH3_128bits_update(xs, buf, (size_t)n);
        at += n;
    }
    if (fstat(fd, after) < 0)
        memset(after, 0, sizeof *after);    /* agrees with nothing: no record */
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(xs));
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
    r = 0;
out:
    XXH3_freeState(xs);
    free(buf);
    close(fd);
    return r;
}

int zk_keystore_find(const char *pool_path, const char *zkey_path, unsigned flags,
                     zk_keystore **ret, struct zk_diag *diag)
{
    char hash[33], path[PATH_MAX];
    struct stat st, before, after;
    int r = zk_keystore_list(pool_path, any_store, NULL);
    if (r <= 0)   /* no store at all (or no directory): the file is not hashed */
        return zk_diag_set(diag, pool_path, -ENOENT, "no key store beside the pool");
    /* a recorded identity first: its store opened, the file not read */
    if (stat(zkey_path, &st) == 0 && ks_keyid_lookup(pool_path, &st, hash) == 0 &&
        zk_keystore_path(pool_path, hash, path, sizeof path) == 0 &&
        zk_keystore_open(path, hash, flags, ret, NULL) == 0) {
        (*ret)->info.found_by_identity = 1;
        return 0;
    }
    int hashed = hash_read(zkey_path, hash, &before, &after) == 0;
    if (!hashed &&
        (r = zk_hash128_files(NULL, 0, &zkey_path, 1, hash, NULL, NULL, NULL, diag)) < 0)
        return r;
    if ((r = zk_keystore_path(pool_path, hash, path, sizeof path)) < 0)
        return zk_diag_set(diag, pool_path, r, "%s", zk_strerror(r));
    if ((r = zk_keystore_open(path, hash, flags, ret, diag)) == 0 && hashed)
        ks_keyid_record(pool_path, &before, &after, hash);
    return r;
}

/*
 * find.c -- zk_keystore_find (zk/keystore.h): the resident store of a
 * .zkey found by the file's content hash, for the one-shot `zkslot prove`.
 * The file is hashed over a read-only mapping of it (no copy into a fresh
 * buffer: reading a 34 MiB key through read() took tens of milliseconds
 * of a 0.5 s proof, most of them page faults and copying), with the same
 * XXH3-128 as zk_hash128_files, which it falls back to when the file
 * cannot be mapped.  A file hashed once and unchanged since is found
 * again by its identity, without reading it (keyid.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "keystore/format.h"
#include "zk/error.h"
#include "zk/util.h"

static int any_store(void *ctx, const char *path, const char *hash)
{
    (void)ctx;
    (void)path;
    (void)hash;
    return 1;
}

/* hex = the XXH3-128 of the file at path, read through a mapping: 0, or
 * 1 when it cannot be mapped (hex not written; the caller reads it).  The
 * file's status when hashing began and ended into *before and *after. */
static int hash_mapped(const char *path, char hex[33], struct stat *before, struct stat *after)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    if (fstat(fd, before) < 0 || !S_ISREG(before->st_mode) || before->st_size <= 0) {
        close(fd);
        return 1;
    }
    size_t len = (size_t)before->st_size;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m == MAP_FAILED) {
        close(fd);
        return 1;
    }
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits(m, len));
    munmap(m, len);
    if (fstat(fd, after) < 0)
        memset(after, 0, sizeof *after);    /* agrees with nothing: no record */
    close(fd);
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", c.digest[i]);
    return 0;
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
    int mapped = hash_mapped(zkey_path, hash, &before, &after) == 0;
    if (!mapped &&
        (r = zk_hash128_files(NULL, 0, &zkey_path, 1, hash, NULL, NULL, NULL, diag)) < 0)
        return r;
    if ((r = zk_keystore_path(pool_path, hash, path, sizeof path)) < 0)
        return zk_diag_set(diag, pool_path, r, "%s", zk_strerror(r));
    if ((r = zk_keystore_open(path, hash, flags, ret, diag)) == 0 && mapped)
        ks_keyid_record(pool_path, &before, &after, hash);
    return r;
}

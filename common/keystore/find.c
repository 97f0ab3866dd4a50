/*
 * find.c -- zk_keystore_find (zk/keystore.h): the resident store of a
 * .zkey found by the file's content hash, for the one-shot `zkslot prove`.
 * The file is hashed by zk_hash128_file, through one small buffer read
 * again and again: not a buffer of the file's size (reading a 34 MiB key
 * into one took tens of milliseconds of a 0.5 s proof, most of them page
 * faults), nor a populated mapping of the whole file (it was the proof's
 * peak RSS when the key had no store: 36 MB against 22 on SHA-256 with
 * public outputs; and a mapped file truncated meanwhile is a SIGBUS).  Its
 * status before and after the read tells whether the hash is of one
 * version of the file (keyid.c records it only then).  A file hashed once
 * and unchanged since is found again by its identity, without reading it
 * (keyid.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
    if ((r = zk_hash128_file(zkey_path, hash, &before, &after, diag)) < 0)
        return r;
    if ((r = zk_keystore_path(pool_path, hash, path, sizeof path)) < 0)
        return zk_diag_set(diag, pool_path, r, "%s", zk_strerror(r));
    if ((r = zk_keystore_open(path, hash, flags, ret, diag)) == 0)
        ks_keyid_record(pool_path, &before, &after, hash);
    return r;
}

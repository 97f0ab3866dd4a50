/*
 * find.c -- zk_keystore_find (zk/keystore.h): the resident store of a
 * .zkey found by the file's content hash, for the one-shot `zkslot prove`.
 */
#include <errno.h>
#include <limits.h>

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
    int r = zk_keystore_list(pool_path, any_store, NULL);
    if (r <= 0)   /* no store at all (or no directory): the file is not hashed */
        return zk_diag_set(diag, pool_path, -ENOENT, "no key store beside the pool");
    if ((r = zk_hash128_files(NULL, 0, &zkey_path, 1, hash, NULL, NULL, NULL, diag)) < 0)
        return r;
    if ((r = zk_keystore_path(pool_path, hash, path, sizeof path)) < 0)
        return zk_diag_set(diag, pool_path, r, "%s", zk_strerror(r));
    return zk_keystore_open(path, hash, flags, ret, diag);
}

/*
 * keyfile.c -- a registered key's file checked against its registration
 * (zk/keyfile.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "zk/error.h"
#include "zk/keyfile.h"
#include "zk/util.h"
#include "zk/zkey.h"

static void identity(const struct stat *st, struct zk_ledger_key *lk)
{
    lk->file_dev = (uint64_t)st->st_dev;
    lk->file_ino = (uint64_t)st->st_ino;
    lk->file_mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

int zk_keyfile_stat(const char *path, struct zk_ledger_key *lk)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    identity(&st, lk);
    return 0;
}

int zk_keyfile_check(const struct zk_ledger_key *lk, int *ret_hashed, struct zk_diag *diag)
{
    struct stat st;
    struct zk_ledger_key now = *lk;
    if (ret_hashed)
        *ret_hashed = 0;
    if (stat(lk->path, &st) != 0)
        return zk_diag_set(diag, lk->path, -errno, "key %s: %s", lk->name, strerror(errno));
    identity(&st, &now);
    if (lk->file_mtime_ns && now.file_dev == lk->file_dev && now.file_ino == lk->file_ino &&
        now.file_mtime_ns == lk->file_mtime_ns && (uint64_t)st.st_size == lk->file_size)
        return 0;
    int header_only = lk->file_mtime_ns == 0;   /* registered before identities were kept */
    /* it moved: the header first (cheap, and it names what changed), then the content */
    struct zk_zkey z;
    struct zk_diag zd;
    memset(&z, 0, sizeof z);
    int r = zk_zkey_open(&z, lk->path, &zd);
    if (r)
        return zk_diag_set(diag, lk->path, r,
                           "key %s: the file changed since `zkslot key add` and is no longer a "
                           "key: %s", lk->name, zd.msg);
    const char *curve = zk_curve_name(z.hdr.curve);
    uint64_t nv = z.hdr.n_vars, np = z.hdr.n_public, dom = z.hdr.domain_size;
    zk_zkey_done(&z);
    if (strcmp(curve, lk->curve))
        return zk_diag_set(diag, lk->path, ZK_ECURVE_MISMATCH,
                           "key %s: the file is now a %s key, registered as %s: it was "
                           "replaced; register it under a new name (zkslot key add NAME FILE)",
                           lk->name, curve, lk->curve);
    if (nv != lk->n_vars || np != lk->n_public || dom != lk->domain_size)
        return zk_diag_set(diag, lk->path, ZK_ELENGTH,
                           "key %s: the file now has nVars %llu, nPublic %llu, domain %llu; "
                           "registered %llu, %llu, %llu: it was replaced; register it under a "
                           "new name (zkslot key add NAME FILE)", lk->name,
                           (unsigned long long)nv, (unsigned long long)np,
                           (unsigned long long)dom, (unsigned long long)lk->n_vars,
                           (unsigned long long)lk->n_public,
                           (unsigned long long)lk->domain_size);
    if (header_only)
        return 0;
    char hex[33];
    const char *path = lk->path;
    if ((r = zk_hash128_file(path, hex, NULL, NULL, diag)))
        return r;
    if (ret_hashed)
        *ret_hashed = 1;
    if (strcmp(hex, lk->hash))
        return zk_diag_set(diag, lk->path, ZK_ECHECKSUM,
                           "key %s: the file's content changed since `zkslot key add` (xxh3-128 "
                           "%s, registered %s): register it under a new name (zkslot key add "
                           "NAME FILE)", lk->name, hex, lk->hash);
    return 0;
}

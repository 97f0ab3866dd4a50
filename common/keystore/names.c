/*
 * names.c -- where key stores live and which there are (zk/keystore.h):
 * "<pool path>.key-<hash>" beside the pool, listed, summed and removed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keystore/format.h"
#include "zk/error.h"
#include "zk/util.h"

const char *zk_keystore_tables_name(unsigned tables)
{
    switch (tables) {
    case ZK_KEYSTORE_TABLES_NONE: return "none";
    case ZK_KEYSTORE_TABLES_H: return "h";
    case ZK_KEYSTORE_TABLES_ALL: return "all";
    }
    return "?";
}

int zk_keystore_path(const char *pool_path, const char *key_hash, char *buf, size_t n)
{
    if (!pool_path || !*pool_path || !ks_hash_valid(key_hash))
        return ZK_EBADPARAMS;
    int m = snprintf(buf, n, "%s" ZK_KEYSTORE_SUFFIX "%s", pool_path, key_hash);
    return m < 0 || (size_t)m >= n ? -ENAMETOOLONG : 0;
}

/*
 * Calls fn(ctx, path, rest) for every file beside the pool at pool_path
 * whose name is the pool's followed by `suffix` (rest: what comes after
 * it), in directory order; a nonzero return of fn stops and is returned.
 * 0, or -errno when the directory cannot be read.
 */
static int each_beside(const char *pool_path, const char *suffix,
                       int (*fn)(void *ctx, const char *path, const char *rest), void *ctx)
{
    char dir[PATH_MAX], pre[PATH_MAX], full[2 * PATH_MAX];
    const char *base = strrchr(pool_path, '/');
    base = base ? base + 1 : pool_path;
    if (zk_path_dir(pool_path, dir, sizeof dir) < 0)
        return -ENAMETOOLONG;
    int np = snprintf(pre, sizeof pre, "%s%s", base, suffix);
    if (np < 0 || (size_t)np >= sizeof pre)
        return -ENAMETOOLONG;
    DIR *d = opendir(dir);
    struct dirent *e;
    int r = 0;
    if (!d)
        return -errno;
    while (!r && (e = readdir(d))) {
        if (strncmp(e->d_name, pre, (size_t)np))
            continue;
        snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
        r = fn(ctx, full, e->d_name + np);
    }
    closedir(d);
    return r;
}

struct list_arg {
    int (*fn)(void *ctx, const char *path, const char *hash);
    void *ctx;
};

static int list_one(void *ctx, const char *path, const char *rest)
{
    const struct list_arg *a = ctx;
    /* a 32-digit hash, nothing after it (".tmp.PID") */
    return ks_hash_valid(rest) ? a->fn(a->ctx, path, rest) : 0;
}

int zk_keystore_list(const char *pool_path,
                     int (*fn)(void *ctx, const char *path, const char *hash), void *ctx)
{
    struct list_arg a = { fn, ctx };
    return each_beside(pool_path, ZK_KEYSTORE_SUFFIX, list_one, &a);
}

static int add_size(void *ctx, const char *path, const char *hash)
{
    struct stat st;
    (void)hash;
    if (stat(path, &st) == 0)
        *(uint64_t *)ctx += (uint64_t)st.st_size;
    return 0;
}

uint64_t zk_keystore_resident_bytes(const char *pool_path)
{
    uint64_t total = 0;
    if (zk_keystore_list(pool_path, add_size, &total) < 0)
        return 0;
    return total;
}

int zk_keystore_remove(const char *path, struct zk_diag *diag)
{
    if (unlink(path) < 0) {
        int e = errno;
        return zk_diag_set(diag, path, -e, e == ENOENT ? "no key store there" : "%s",
                           strerror(e));
    }
    return 0;
}

static int remove_one(void *ctx, const char *path, const char *hash)
{
    (void)hash;
    if (unlink(path) == 0)
        (*(unsigned *)ctx)++;
    return 0;
}

static int unlink_one(void *ctx, const char *path, const char *rest)
{
    (void)ctx;
    (void)rest;
    unlink(path);
    return 0;
}

int ks_tmp_creator_dead(const char *pid)
{
    char *end;
    errno = 0;
    long v = strtol(pid, &end, 10);
    return !errno && end != pid && !*end && v > 0 && v <= INT_MAX &&
           kill((pid_t)v, 0) < 0 && errno == ESRCH;
}

/* A dead creator's "<hash>.tmp.<pid>" (a live creator's is left to it). */
static int unlink_stale_tmp(void *ctx, const char *path, const char *rest)
{
    const char *t = strstr(rest, ".tmp.");
    char hash[33];
    if (t && t - rest == 32) {
        memcpy(hash, rest, 32);
        hash[32] = 0;
        if (ks_hash_valid(hash) && ks_tmp_creator_dead(t + 5))
            unlink_one(ctx, path, rest);
    }
    return 0;
}

unsigned zk_keystore_remove_all(const char *pool_path)
{
    unsigned n = 0;
    zk_keystore_list(pool_path, remove_one, &n);
    /* the temporary files of creations killed midway: RAM on tmpfs that
     * nothing else would give back */
    each_beside(pool_path, ZK_KEYSTORE_SUFFIX, unlink_stale_tmp, NULL);
    /* the identity records (keyid.c): of no use without their stores */
    each_beside(pool_path, KS_KEYID_SUFFIX, unlink_one, NULL);
    return n;
}

/*
 * allow.c -- which witness generators this machine runs (zk/witgen.h,
 * zk_witgen_allowed): the machine's own list, `[synthd] generators`, not
 * the ledger, decides.
 *
 * The list is comma-separated absolute paths.  A generator is allowed when
 * every file it runs (zk_witgen_files: cpp the program and its .dat, wasm
 * the .wasm and circom's two .js files, cmd the program found on the fixed
 * PATH) is, once its links are resolved, an entry itself or beneath a
 * directory entry, and that file and every directory from the entry down
 * to it belongs to root or to this user and is writable by no one else.
 *
 * This is stricter than the pool's trust rule (zk_pool_attach: a file of
 * the owner of its directory, a group-writable file of one of our groups):
 * what is at stake here is code run as the daemon's user, so no one but
 * root and that user may have put or changed anything on the way, and an
 * operator group that may write the state directory must not be able to
 * write the generators.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/error.h"
#include "zk/witgen.h"

/* path (no links: a realpath) is `top` or beneath it. */
static int beneath(const char *top, const char *path)
{
    size_t n = strlen(top);
    if (n == 1 && top[0] == '/')
        return path[0] == '/';
    return !strncmp(path, top, n) && (path[n] == 0 || path[n] == '/');
}

/*
 * top, each directory below it on the way to path, and path itself (path
 * beneath top, both canonical): owned by root or this user, writable by
 * no one else, and not a link (a component that became one since the
 * realpath).  0, or ZK_EUNTRUSTED naming the first that is not.
 */
static int trusted_chain(const char *top, const char *path, const char *entry,
                         struct zk_diag *diag)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return zk_diag_set(diag, path, -ENAMETOOLONG, "witness generator: path too long");
    size_t i = strlen(top) == 1 ? 1 : strlen(top);
    for (;;) {
        char save = p[i];
        struct stat st;
        p[i] = 0;
        if (lstat(p, &st) != 0)
            return zk_diag_set(diag, p, -errno, "witness generator: %s", strerror(errno));
        if (S_ISLNK(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
            (st.st_mode & (S_IWGRP | S_IWOTH)))
            return zk_diag_set(diag, p, ZK_EUNTRUSTED,
                               "%s, owner uid %u, mode %04o: a generator allowed by [synthd] "
                               "generators (%s) and the directories down to it must belong "
                               "to root or to this user (uid %u) and be writable by no one else",
                               S_ISLNK(st.st_mode) ? "a symlink" : "untrusted",
                               (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), entry,
                               (unsigned)geteuid());
        p[i] = save;
        if (!save)
            return 0;
        char *next = strchr(p + i + 1, '/');
        i = next ? (size_t)(next - p) : strlen(p);
    }
}

/* The entry of `allow` (its canonical path in top) that holds the file
 * `real` (canonical), checked; 0, -EPERM when no entry holds it. */
static int allowed_file(const char *allow, const char *real, struct zk_diag *diag)
{
    for (const char *p = allow; *p;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, ",");
        size_t t = len;
        while (t && (p[t - 1] == ' ' || p[t - 1] == '\t'))
            t--;
        char entry[PATH_MAX], top[PATH_MAX];
        if (t && t < sizeof entry && p[0] == '/') {
            memcpy(entry, p, t);
            entry[t] = 0;
            if (realpath(entry, top) && beneath(top, real))
                return trusted_chain(top, real, entry, diag);
        }
        p += len + (p[len] == ',');
    }
    return zk_diag_set(diag, real, -EPERM,
                       "witness generator: not allowed on this machine (not under [synthd] "
                       "generators: %s)", *allow ? allow : "empty, no generator is");
}

int zk_witgen_allowed(const struct zk_witgen *g, const char *allow, struct zk_diag *diag)
{
    char f[3][ZK_WITGEN_FILE_MAX];
    size_t nf = zk_witgen_files(g, f);
    if (!nf)
        return zk_diag_set(diag, "witness generator", -ENOENT,
                           "'%.200s': its program is not found on " ZK_WITGEN_PATH, g->spec);
    for (size_t i = 0; i < nf; i++) {
        char real[PATH_MAX];
        if (!realpath(f[i], real))
            return zk_diag_set(diag, f[i], -errno, "witness generator: %s", strerror(errno));
        int r = allowed_file(allow, real, diag);
        if (r)
            return r;
    }
    return 0;
}

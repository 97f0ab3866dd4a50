/*
 * atomicfile.c -- a file written whole or not at all (zk/util.h).
 *
 * Every atomic write of the project goes through here: gpud's proofs (in
 * directories the submitters may write too), the CLI's proof and public
 * files, the metrics textfile, the keys `zkslot setup` streams out
 * (zk_atomic_begin/commit).  Through a directory fd, never following a
 * symlink at the temporary name; the data and the directory are fsynced,
 * so the rename is durable once it returns.  zk_atomic_sync and
 * zk_atomic_commit_all let a caller sync one file's data while it computes
 * another, and publish both with one fsync of their directory (`zkslot
 * prove`: public.json is known before the proof).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/util.h"

/* The temporary file of `name` in dirfd, created; its fd, or -errno. */
static int create_tmp(int dirfd, const char *name, mode_t mode, char *tmp, size_t tmplen)
{
    int fd = -1;
    if (snprintf(tmp, tmplen, "%s.tmp.%d", name, (int)getpid()) >= (int)tmplen)
        return -ENAMETOOLONG;
    /* O_EXCL|O_NOFOLLOW: whoever may write the directory (the submitter,
     * the group) may have planted tmp as a symlink to a file this process
     * can write (the ledger); following it would truncate that file.  The
     * temporary name is this process's own, so an entry there is stale or
     * planted: remove it (unlinkat removes a link, never its target) and
     * try once more. */
    for (int tries = 0; tries < 2 && fd < 0; tries++) {
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && (errno != EEXIST || (tries == 0 && unlinkat(dirfd, tmp, 0))))
            break;
    }
    return fd < 0 ? -errno : fd;
}

/* fsync and close fd, then rename tmp over name and fsync the directory;
 * tmp removed on failure. */
static int publish(int dirfd, int fd, const char *tmp, const char *name, int *ret_existed)
{
    struct stat st;
    int r = fsync(fd) ? -errno : 0;
    if (close(fd) && !r)
        r = -errno;
    if (!r && ret_existed)
        *ret_existed = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    /* renameat replaces `name` itself, a symlink planted there included */
    if (!r && renameat(dirfd, tmp, dirfd, name))
        r = -errno;
    if (r) {
        unlinkat(dirfd, tmp, 0);
        return r;
    }
    return fsync(dirfd) ? -errno : 0;
}

/* All of buf[0..len) to fd: 0 or -errno. */
static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int zk_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len,
                       mode_t mode, int *ret_existed)
{
    char tmp[NAME_MAX + 1];
    int r, fd = create_tmp(dirfd, name, mode, tmp, sizeof tmp);
    if (fd < 0)
        return fd;
    if ((r = write_all(fd, buf, len))) {
        close(fd);
        unlinkat(dirfd, tmp, 0);
        return r;
    }
    return publish(dirfd, fd, tmp, name, ret_existed);
}

/* The directory of path opened, and its last component into name. */
static int open_dir_of(const char *path, char *name, size_t namelen)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    int r;
    if (!*base)
        return -EISDIR;
    if (snprintf(name, namelen, "%s", base) >= (int)namelen)
        return -ENAMETOOLONG;
    if ((r = zk_path_dir(path, dir, sizeof dir)) < 0)
        return r;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return dfd < 0 ? -errno : dfd;
}

int zk_write_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
    char name[NAME_MAX + 1];
    int dfd = open_dir_of(path, name, sizeof name);
    if (dfd < 0)
        return dfd;
    int r = zk_write_atomic_at(dfd, name, buf, len, mode, NULL);
    close(dfd);
    return r;
}

int zk_atomic_begin(struct zk_atomic_file *a, const char *path, mode_t mode)
{
    a->fd = -1;
    if ((a->dirfd = open_dir_of(path, a->name, sizeof a->name)) < 0)
        return a->dirfd;
    if ((a->fd = create_tmp(a->dirfd, a->name, mode, a->tmp, sizeof a->tmp)) < 0) {
        int r = a->fd;
        close(a->dirfd);
        a->dirfd = -1;
        return r;
    }
    return 0;
}

int zk_atomic_commit(struct zk_atomic_file *a)
{
    int r = publish(a->dirfd, a->fd, a->tmp, a->name, NULL);
    close(a->dirfd);
    a->dirfd = a->fd = -1;
    return r;
}

int zk_atomic_write(struct zk_atomic_file *a, const void *buf, size_t len)
{
    return write_all(a->fd, buf, len);
}

int zk_atomic_sync(struct zk_atomic_file *a)
{
    return fsync(a->fd) ? -errno : 0;
}

int zk_atomic_commit_all(struct zk_atomic_file *const *v, size_t n, size_t *ret_failed)
{
    size_t i, placed = 0;
    int r = 0;
    for (i = 0; i < n; i++) {                   /* every file's data, durable */
        if (fsync(v[i]->fd)) {
            r = -errno;
            goto fail;
        }
    }
    for (; placed < n; placed++) {              /* then each one in place, in order */
        struct zk_atomic_file *a = v[placed];
        int c = close(a->fd);
        a->fd = -1;
        if (c || renameat(a->dirfd, a->tmp, a->dirfd, a->name)) {
            r = -errno;
            i = placed;
            goto fail;
        }
    }
    for (i = 0; i < n && !r; i++) {             /* each directory once */
        struct stat si, sk;
        int seen = 0;
        if (fstat(v[i]->dirfd, &si) == 0) {
            for (size_t k = 0; k < i && !seen; k++)
                seen = fstat(v[k]->dirfd, &sk) == 0 && sk.st_dev == si.st_dev &&
                       sk.st_ino == si.st_ino;
        }
        if (!seen && fsync(v[i]->dirfd))
            r = -errno;
    }
    if (r && ret_failed)
        *ret_failed = i - 1;
    for (size_t j = 0; j < n; j++) {
        close(v[j]->dirfd);
        v[j]->dirfd = -1;
    }
    return r;
fail:
    if (ret_failed)
        *ret_failed = i;
    for (size_t j = 0; j < n; j++) {
        if (j >= placed) {                      /* not in place: removed */
            if (v[j]->fd >= 0)
                close(v[j]->fd);
            unlinkat(v[j]->dirfd, v[j]->tmp, 0);
        }
        close(v[j]->dirfd);
        v[j]->dirfd = v[j]->fd = -1;
    }
    return r;
}

void zk_atomic_abort(struct zk_atomic_file *a)
{
    if (a->fd >= 0) {
        close(a->fd);
        unlinkat(a->dirfd, a->tmp, 0);
    }
    if (a->dirfd >= 0)
        close(a->dirfd);
    a->dirfd = a->fd = -1;
}

/*
 * atomicfile.c -- a file written whole or not at all (zk/util.h).
 *
 * Every atomic write of the project goes through here: gpud's proofs (in
 * directories the submitters may write too), the CLI's proof and public
 * files, the metrics textfile.  Through a directory fd, never following a
 * symlink at the temporary name; the data and the directory are fsynced,
 * so the rename is durable once it returns.
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

int zk_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len,
                       mode_t mode, int *ret_existed)
{
    char tmp[NAME_MAX + 1];
    const char *p = buf;
    struct stat st;
    int fd = -1, r = 0;

    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", name, (int)getpid()) >= (int)sizeof tmp)
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
    if (fd < 0)
        return -errno;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            r = -errno;
            break;
        }
        p += n;
        len -= (size_t)n;
    }
    if (!r && fsync(fd))
        r = -errno;
    if (close(fd) && !r)
        r = -errno;
    if (r) {
        unlinkat(dirfd, tmp, 0);
        return r;
    }
    if (ret_existed)
        *ret_existed = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    /* renameat replaces `name` itself, a symlink planted there included */
    if (renameat(dirfd, tmp, dirfd, name)) {
        r = -errno;
        unlinkat(dirfd, tmp, 0);
        return r;
    }
    return fsync(dirfd) ? -errno : 0;
}

int zk_write_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    int r;
    if (!*name)
        return -EISDIR;
    if ((r = zk_path_dir(path, dir, sizeof dir)) < 0)
        return r;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    r = zk_write_atomic_at(dfd, name, buf, len, mode, NULL);
    close(dfd);
    return r;
}

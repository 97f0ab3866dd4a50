/*
 * util.c -- clocks, directories, atomic file writes, pool identity.
 *
 * Atomic writes go through a directory fd and never follow a symlink at
 * the temporary name: the directories gpud writes into are writable by
 * the submitters (group zkslot), not only by gpud.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/zkd.h"

double zkd_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t zkd_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int zkd_pool_identity(const char *path, dev_t *ret_dev, ino_t *ret_ino)
{
    struct stat st;
    if (stat(path, &st))
        return -errno;
    *ret_dev = st.st_dev;
    *ret_ino = st.st_ino;
    return 0;
}

int zkd_mkdir_p(const char *path, mode_t mode)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, mode) && errno != EEXIST)
                return -errno;
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

int zkd_write_atomic_at(int dirfd, const char *name, const void *buf, size_t len,
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

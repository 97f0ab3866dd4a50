/*
 * util.c -- clocks, directories, atomic file writes, pool identity.
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

static int fsync_dir(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir)
        dir[1] = 0;
    else if (slash)
        *slash = 0;
    else
        snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int r = fsync(fd) ? -errno : 0;
    close(fd);
    return r;
}

int zkd_write_atomic(const char *path, const void *buf, size_t len, int *ret_existed)
{
    char tmp[PATH_MAX];
    const char *p = buf;
    int fd, r = 0;

    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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
        unlink(tmp);
        return r;
    }
    if (ret_existed)
        *ret_existed = access(path, F_OK) == 0;
    if (rename(tmp, path)) {
        r = -errno;
        unlink(tmp);
        return r;
    }
    return fsync_dir(path);
}

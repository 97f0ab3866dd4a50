/*
 * util.c -- clocks, directories, pool identity (atomic file writes are
 * zk_write_atomic_at, common/util/atomicfile.c).
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
#include "zk/util.h"

double zkd_now(void)
{
    return zk_now_s();
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


/*
 * opendir.c -- a directory (and a file in it) opened without following
 * links in any component (zk/util.h: zk_open_dir_nofollow,
 * zk_open_file_nofollow), for the daemons' writes into directories a user
 * named (a job's --out) and their reads of files a user named.
 *
 * The walk starts at "/" (or the working directory for a relative path)
 * and opens each component with O_NOFOLLOW below the descriptor of the one
 * before, so a link planted anywhere on the way, before or during the
 * walk, is refused instead of followed; a missing component is made with
 * mkdirat in that same descriptor and opened the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/util.h"

int zk_open_dir_nofollow(const char *path, mode_t mode)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf)
        return -ENAMETOOLONG;
    memcpy(buf, path, n + 1);
    int dfd = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    char *save = NULL;
    for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            close(dfd);
            return -EINVAL;
        }
        int flags = O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
        int fd = openat(dfd, c, flags | O_PATH);
        if (fd < 0 && errno == ENOENT && mode && (mkdirat(dfd, c, mode) == 0 || errno == EEXIST))
            fd = openat(dfd, c, flags | O_PATH);
        int e = errno;
        close(dfd);
        if (fd < 0)
            return -e;
        dfd = fd;
    }
    /* the last one readable (its entries listed, fsync'ed): reopened
     * through its own descriptor, which names no path to swap */
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    close(dfd);
    return fd < 0 ? -e : fd;
}

int zk_open_file_nofollow(const char *path, int flags)
{
    char dir[PATH_MAX];
    const char *base = strrchr(path, '/');
    int r = zk_path_dir(path, dir, sizeof dir);
    int dfd = r < 0 ? r : zk_open_dir_nofollow(dir, 0);
    if (dfd < 0)
        return dfd;
    int fd = openat(dfd, base ? base + 1 : path, flags | O_NOFOLLOW);
    r = fd < 0 ? -errno : fd;
    close(dfd);
    return r;
}

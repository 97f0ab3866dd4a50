/*
 * map.c -- zk_bp_map_file: a parameter file or an assignment mapped
 * read-only for parsing (bp_internal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bp_internal.h"
#include "zk/error.h"

int zk_bp_map_file(const char *path, void **map, size_t *len, struct zk_diag *diag)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), err;
    void *m;

    *map = NULL;
    *len = 0;
    if (fd < 0)
        return zk_diag_set(diag, path, -errno, "%s", strerror(errno));
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return zk_diag_set(diag, path, -err, "%s", strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return zk_diag_set(diag, path, -EINVAL, "not a regular file");
    }
    if (st.st_size == 0) {
        close(fd);
        return 0;
    }
    m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    err = errno;
    close(fd);
    if (m == MAP_FAILED)
        return zk_diag_set(diag, path, -err, "mmap: %s", strerror(err));
    madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
    *map = m;
    *len = (size_t)st.st_size;
    return 0;
}

void zk_bp_drop_pages(const void *from, const void *to)
{
    uintptr_t pg = 4096, a = ((uintptr_t)from + pg - 1) & ~(pg - 1), b = (uintptr_t)to & ~(pg - 1);
    if (b > a)
        madvise((void *)a, b - a, MADV_DONTNEED);
}

unsigned zk_bp_log2_domain(uint64_t n)
{
    unsigned k = 0;
    while ((1ULL << k) < n)
        k++;
    return k;
}

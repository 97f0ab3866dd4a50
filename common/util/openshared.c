/*
 * openshared.c -- a file opened at a name others can predict, in a
 * directory others may write (zk/util.h: zk_open_shared): the pool's
 * files and the key stores with their keyid records in /dev/shm or the
 * pool's directory, the files of the state directory.
 *
 * Contract: the open itself cannot be made to block or to land elsewhere
 * by what an outsider planted at the name: O_NOFOLLOW refuses a symlink
 * (ELOOP), O_NONBLOCK opens a FIFO at once (open(2) of a FIFO for reading
 * otherwise waits for a writer: issue 46, a gpud whose starter hung on a
 * FIFO at a key store's name), and fstat of the descriptor refuses what
 * is not a regular file before the caller reads a byte.  The owner and
 * mode rules, which differ per kind of file, are the caller's, on the
 * struct stat returned here (the descriptor's, never the name's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zk/error.h"
#include "zk/util.h"

/* What a non-regular file is, for the refusal's one line. */
static const char *file_kind(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "not a file";
}

int zk_open_shared(const char *path, int flags, struct stat *ret_st, struct zk_diag *diag)
{
    struct stat st;
    if (flags & (O_CREAT | O_TRUNC | O_DIRECTORY | O_PATH))
        return zk_diag_set(diag, path, -EINVAL, "zk_open_shared: flags 0%o refused", flags);
    int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return zk_diag_set(diag, path, -e, "%s", e == ELOOP ? "a symlink (refused)"
                                                            : strerror(e));
    }
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return zk_diag_set(diag, path, -e, "%s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return zk_diag_set(diag, path, ZK_EUNTRUSTED,
                           "not a regular file (%s, owner uid %u, mode %04o): refused, never "
                           "read or waited on", file_kind(st.st_mode), (unsigned)st.st_uid,
                           (unsigned)(st.st_mode & 07777));
    }
    if (ret_st)
        *ret_st = st;
    return fd;
}

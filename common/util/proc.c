/*
 * proc.c -- process identity (zk/proc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zk/proc.h"

int zk_proc_stat(int32_t pid, char *ret_state, uint64_t *ret_start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ESRCH ? -ENOENT : -errno;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int err = n < 0 ? -errno : 0;
    close(fd);
    if (err)
        return err == -ESRCH ? -ENOENT : err;
    buf[n] = 0;
    char *p = strrchr(buf, ')');   /* comm may contain spaces and parens */
    if (!p || p[1] != ' ')
        return -EINVAL;
    p += 2;
    char state = *p;
    for (int field = 3; field < 22; field++) {   /* skip to field 22 */
        p = strchr(p, ' ');
        if (!p)
            return -EINVAL;
        p++;
    }
    char *end;
    errno = 0;
    unsigned long long start = strtoull(p, &end, 10);
    if (errno || end == p)
        return -EINVAL;
    *ret_state = state;
    *ret_start = start;
    return 0;
}

int zk_proc_self(struct zk_proc_id *ret)
{
    char state;
    uint64_t start;
    int32_t pid = (int32_t)getpid();
    int r = zk_proc_stat(pid, &state, &start);
    if (r < 0)
        return r;
    ret->pid = pid;
    ret->start = start;
    return 0;
}

int zk_proc_alive(const struct zk_proc_id *id, unsigned start_bits)
{
    char state;
    uint64_t start;
    if (id->pid <= 0)
        return 0;
    int r = zk_proc_stat(id->pid, &state, &start);
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return 1;
    if (state == 'Z' || state == 'X' || state == 'x')
        return 0;
    uint64_t mask = start_bits >= 64 ? UINT64_MAX : (1ULL << start_bits) - 1;
    return (start & mask) == (id->start & mask);
}

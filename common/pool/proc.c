/*
 * proc.c -- process identity for the pool: pid + start time.
 *
 * A pid alone is recycled; (pid, start time in clock ticks since boot,
 * field 22 of /proc/PID/stat) is not, so an owner whose pid now belongs to
 * another process is recognised as dead.  A zombie counts as dead: it can
 * never touch the pool again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pool/layout.h"

/* Reads state letter and start time of `pid`; -ENOENT when it is gone. */
static int read_stat(int32_t pid, char *ret_state, uint64_t *ret_start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
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

/*
 * The owner word of the calling process.  -ERANGE if its pid does not fit
 * the 22 bits of the state word (pid_max above 2^22), -errno if /proc is
 * unreadable.  *ret_owner untouched on failure.
 */
int pool_self_owner(uint64_t *ret_owner)
{
    int32_t pid = (int32_t)getpid();
    char state;
    uint64_t start;
    if ((uint64_t)pid > POOL_PID_MASK)
        return -ERANGE;
    int r = read_stat(pid, &state, &start);
    if (r < 0)
        return r;
    *ret_owner = ((uint64_t)pid << POOL_PID_SHIFT) | (start & POOL_START_MASK);
    return 0;
}

/*
 * 1 if the process named by `owner` still runs, 0 if it is gone, a zombie,
 * or its pid now belongs to a younger process.  When /proc cannot tell
 * (e.g. permission), the owner is presumed alive: reaping a live owner
 * would hand its slot to two processes.
 */
int pool_owner_alive(uint64_t owner)
{
    char state;
    uint64_t start;
    int32_t pid = owner_pid(owner);
    if (pid <= 0)
        return 0;
    int r = read_stat(pid, &state, &start);
    if (r == -ENOENT)
        return 0;
    if (r < 0)
        return 1;
    if (state == 'Z' || state == 'X' || state == 'x')
        return 0;
    return (start & POOL_START_MASK) == (owner & POOL_START_MASK);
}

/* CLOCK_REALTIME in nanoseconds (timestamps shown by `pool status`). */
uint64_t pool_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * proc.c -- process identity for the pool: pid + start time.
 *
 * The owner word packs zk/proc.h's identity (pid, start time) into the
 * low bits of a state word; liveness is zk_proc_alive() on the packed bits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pool/layout.h"
#include "zk/proc.h"

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
    int r = zk_proc_stat(pid, &state, &start);
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
    struct zk_proc_id id = { owner_pid(owner), owner & POOL_START_MASK };
    return zk_proc_alive(&id, POOL_PID_SHIFT);   /* start time: the low 40 bits */
}

/* CLOCK_REALTIME in nanoseconds (timestamps shown by `pool status`). */
uint64_t pool_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

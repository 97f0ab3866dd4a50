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

#include "pool/atomics.h"
#include "pool/layout.h"
#include "zk/proc.h"

/*
 * The owner word of the calling process.  -ERANGE if its pid does not fit
 * the 22 bits of the state word (pid_max above 2^22), else zk_proc_self's
 * errors.  Outputs untouched on failure.
 */
int pool_self_owner(uint64_t *ret_owner, struct zk_proc_id *ret_me)
{
    struct zk_proc_id me;
    int r = zk_proc_self(&me);
    if (r < 0)
        return r;
    if ((uint64_t)me.pid > POOL_PID_MASK)
        return -ERANGE;
    *ret_owner = ((uint64_t)me.pid << POOL_PID_SHIFT) | (me.start & POOL_START_MASK);
    *ret_me = me;
    return 0;
}

int pool_attach_alive(const struct pool_attach *a, uint64_t owner)
{
    /* Relaxed: the namespace and boot were stored before the owner word's
     * release; a torn read of a recycled entry only errs towards alive
     * (a mismatching namespace) or is settled by the start time. */
    struct zk_proc_id id = { owner_pid(owner), owner & POOL_START_MASK,
                             zk_load_relaxed(&a->pidns), zk_load_relaxed(&a->boot),
                             zk_load_relaxed(&a->btime) };
    return zk_proc_alive(&id, POOL_PID_SHIFT);   /* start time: the low 40 bits */
}

int pool_owner_alive(const struct zk_pool *h, uint64_t owner)
{
    const struct pool_attach *t = pool_attach_table(h);
    for (int i = 0; i < ZK_POOL_MAX_ATTACH; i++) {
        if (zk_load_acquire(&t[i].owner) == owner)
            return pool_attach_alive(&t[i], owner);
    }
    /* No entry (it detached, or was reaped): judged in our namespace. */
    struct zk_proc_id id = { owner_pid(owner), owner & POOL_START_MASK, 0, 0, 0 };
    return zk_proc_alive(&id, POOL_PID_SHIFT);
}

/* CLOCK_REALTIME in nanoseconds (timestamps shown by `pool status`). */
uint64_t pool_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

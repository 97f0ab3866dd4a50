/*
 * nodump.c -- no witness on disk by accident: a daemon that holds slots
 * (witnesses, and a, b, c computed from them) makes itself non-dumpable
 * (PR_SET_DUMPABLE 0: no core file, whatever RLIMIT_CORE says, and
 * /proc/PID's private files become root's) and marks the pool's slot data
 * MADV_DONTDUMP, so that a core taken anyway (gcore by root, a
 * coredump_filter that includes shared mappings) leaves slot memory out.
 * The prover's own copies are zk_secret_alloc's (zk/util.h).
 *
 * ZKSLOT_DUMPABLE=1 in the daemon's environment turns both off, to debug a
 * crash with a full core (logged as a warning at start).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "daemon/zkd.h"
#include "zk/error.h"

int zkd_nodump(zk_pool *pool)
{
    const char *on = getenv("ZKSLOT_DUMPABLE");
    if (on && !strcmp(on, "1")) {
        zkd_log(ZKD_WARN, "ZKSLOT_DUMPABLE=1: this process may dump core, and its core "
                "holds the witnesses in its slots");
        return 0;
    }
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        int e = errno;
        zkd_log(ZKD_ERR, "prctl(PR_SET_DUMPABLE, 0): %s", strerror(e));
        return -e;
    }
    void *base;
    size_t len;
    if (pool && zk_pool_data_mapping(pool, &base, &len) == 0 &&
        madvise(base, len, MADV_DONTDUMP)) {
        int e = errno;
        zkd_log(ZKD_ERR, "pool: madvise(MADV_DONTDUMP) of its %zu-byte slot data: %s", len,
                strerror(e));
        return -e;
    }
    return 0;
}

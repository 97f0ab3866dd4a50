/*
 * numa.c -- the pool's only contact with libnuma.  Without it
 * (ZK_HAVE_NUMA == 0) every call is a no-op stub, so callers never #ifdef.
 */
#include <errno.h>

#include "pool/layout.h"

#if ZK_HAVE_NUMA
#include <numa.h>

/*
 * Makes later allocations of this thread prefer `node` (node < 0: back to
 * the default policy).  -ENOSYS when the kernel has no NUMA support,
 * -EINVAL for a node that does not exist.
 */
int pool_numa_prefer(int node)
{
    if (numa_available() < 0)
        return node < 0 ? 0 : -ENOSYS;
    if (node > numa_max_node())
        return -EINVAL;
    numa_set_preferred(node);       /* node < 0 restores local allocation */
    return 0;
}

/* Number of configured NUMA nodes, at least 1.  Cannot fail. */
int pool_numa_node_count(void)
{
    if (numa_available() < 0)
        return 1;
    int n = numa_max_node() + 1;
    return n > 0 ? n : 1;
}
#else
int pool_numa_prefer(int node)
{
    return node <= 0 ? 0 : -ENOSYS;
}

int pool_numa_node_count(void)
{
    return 1;
}
#endif

/* test_smoke.c -- the build links, the error table and fork/join work. */
#include <stdatomic.h>
#include <string.h>

#include "zk/error.h"
#include "zk/parallel.h"
#include "zktest.h"

static void add_range(void *arg, size_t b, size_t e)
{
    atomic_size_t *sum = arg;
    size_t s = 0;
    for (size_t i = b; i < e; i++)
        s += i;
    atomic_fetch_add(sum, s);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    ZT_CHECK(!strcmp(zk_strerror(ZK_ENOT_ON_CURVE), "point not on the curve"));
    ZT_CHECK(!strcmp(zk_strerror(0), "success"));
    for (unsigned t = 1; t <= 5; t++) {
        atomic_size_t sum;
        atomic_init(&sum, 0);
        zk_parallel_for(t, 100001, 97, add_range, &sum);
        ZT_CHECK(atomic_load(&sum) == (size_t)100001 * 100000 / 2, "threads=%u", t);
    }
    return zt_finish();
}

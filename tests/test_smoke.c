/* test_smoke.c -- the build links, the error table, fork/join and the large
 * allocations (zk_big_alloc) work. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zk/error.h"
#include "zk/parallel.h"
#include "zk/util.h"
#include "zktest.h"

static void add_range(void *arg, size_t b, size_t e)
{
    atomic_size_t *sum = arg;
    size_t s = 0;
    for (size_t i = b; i < e; i++)
        s += i;
    atomic_fetch_add(sum, s);
}

/* zk_parallel_run's shares: counted per share, the share count checked */
struct shares {
    atomic_uint ran[8];
    atomic_uint bad;
};

static void count_share(void *arg, unsigned t, unsigned nthreads)
{
    struct shares *s = arg;
    if (t >= nthreads || nthreads > 8)
        atomic_fetch_add(&s->bad, 1);
    else
        atomic_fetch_add(&s->ran[t], 1);
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
    /* every share of a run exactly once, whether its thread took it or the
     * caller did (a thread not started yet); the argument is freed right
     * after each return, so a late thread that touched it would be a
     * use after free (ASan) */
    static const unsigned nts[] = { 2, 3, 8 };
    for (size_t k = 0; k < sizeof nts / sizeof nts[0]; k++) {
        unsigned wrong = 0;
        for (int rep = 0; rep < 300; rep++) {
            struct shares *s = calloc(1, sizeof *s);
            ZT_CHECK(s != NULL);
            if (!s)
                break;
            zk_parallel_run(nts[k], count_share, s);
            for (unsigned t = 0; t < nts[k]; t++)
                wrong += atomic_load(&s->ran[t]) != 1;
            wrong += atomic_load(&s->bad);
            free(s);
        }
        ZT_CHECK(wrong == 0, "zk_parallel_run(%u): %u shares not run exactly once", nts[k], wrong);
    }
    /* sizes on both sides of the heap / mapping boundary (1 MiB) and of a
     * huge page: 64-byte aligned, the mappings on a 2 MiB boundary, every
     * byte writable and kept, freed by pointer alone */
    static const size_t sizes[] = { 0, 1, 63, 64, 4097, ((size_t)1 << 20) - 1,
                                    (size_t)1 << 20, ((size_t)2 << 20) + 3, (size_t)7 << 20 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *p = zk_big_alloc(n);
        ZT_CHECK(p != NULL, "zk_big_alloc(%zu)", n);
        if (!p)
            continue;
        ZT_CHECK(((uintptr_t)p & 63) == 0, "zk_big_alloc(%zu) alignment", n);
        if (n >= (size_t)1 << 20)
            ZT_CHECK(((uintptr_t)p & (((uintptr_t)2 << 20) - 1)) == 0, "huge-page alignment %zu", n);
        for (size_t j = 0; j < n; j++)
            p[j] = (unsigned char)(j * 31 + i);
        size_t bad = 0;
        for (size_t j = 0; j < n; j++)
            bad += p[j] != (unsigned char)(j * 31 + i);
        ZT_CHECK(bad == 0, "zk_big_alloc(%zu) kept its bytes", n);
        zk_big_free(p);
    }
    zk_big_free(NULL);
    return zt_finish();
}

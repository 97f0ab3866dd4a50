/*
 * bench_util.h -- the clock and statistics every `zkslot bench` uses.
 */
#ifndef ZK_TOOLS_BENCH_UTIL_H
#define ZK_TOOLS_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zkcuda.h"

/* Clock `id` (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, ...) in seconds. */
static inline double bench_clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CLOCK_MONOTONIC in seconds. */
static inline double bench_now(void)
{
    return bench_clock_s(CLOCK_MONOTONIC);
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v); 0 for n = 0. */
static inline double bench_median(double *v, unsigned n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * --backend NAME of `zkslot bench ntt|msm|prove`: *cuda = 1 for "cuda", 0
 * for "cpu".  For cuda, a GPU must be usable.  0, or 2 (the exit status)
 * after a message on stderr naming the command `what`.
 */
static inline int bench_backend(const char *what, const char *name, int *cuda)
{
    if (!strcmp(name, "cpu")) {
        *cuda = 0;
        return 0;
    }
    if (strcmp(name, "cuda")) {
        fprintf(stderr, "zkslot bench %s: --backend cpu|cuda, not '%s'\n", what, name);
        return 2;
    }
    if (!zk_cuda_available()) {
        fprintf(stderr, "zkslot bench %s: --backend cuda: no usable GPU (no device, driver "
                        "or CUDA build)\n", what);
        return 2;
    }
    *cuda = 1;
    return 0;
}

#endif /* ZK_TOOLS_BENCH_UTIL_H */

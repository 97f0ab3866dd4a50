/*
 * bench_util.h -- the clock and statistics every `zkslot bench` uses.
 */
#ifndef ZK_TOOLS_BENCH_UTIL_H
#define ZK_TOOLS_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

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

#endif /* ZK_TOOLS_BENCH_UTIL_H */

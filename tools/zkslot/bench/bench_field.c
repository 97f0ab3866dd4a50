/*
 * bench_field.c -- `zkslot bench field --curve bn254|bls12-381 [--repeats K]
 * [--iters N] [--json]`: nanoseconds per base-field (Fp) multiplication,
 * squaring, addition and inversion, per scalar-field (Fr) multiplication and
 * per Fp2 multiplication (fp2_mul, the build's form; fp2_mul_3m and
 * fp2_mul_lazy, both forms of fp2_tmpl.h in the same run) and squaring, one
 * thread.  Each figure is the median over K repeats of two loops:
 *   latency     one chain of N dependent operations (x = x * y), what a
 *               sequential algorithm (exponentiation, Miller loop) sees;
 *   throughput  8 independent chains interleaved, what a loop over many
 *               elements (MSM buckets, NTT butterflies) can reach.
 * The portable C multiplication (mul_mont_n_c) is timed in the same run as a
 * baseline for the assembly, and multiplications per second are derived from
 * the throughput figure.  Times are the thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID), so that a loaded machine that deschedules the
 * thread does not inflate them; the wall time of the whole run is printed
 * beside it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cmd.h"
#include "ff/tower.h"

#define CHAINS 8

static volatile uint64_t bench_sink;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}



/* One loop body per (field, operation, mode): returns ns per operation. */
#define LAT_LOOP(F, OP)                                                        \
    static double F##_lat_##OP(long n)                                         \
    {                                                                          \
        F x, y;                                                                \
        F##_from_u64(&x, 0x1234567u);                                          \
        F##_from_u64(&y, 0x89abcdefu);                                         \
        F##_inv(&y, &y);                                                       \
        double t0 = now_ns();                                                  \
        for (long i = 0; i < n; i++)                                           \
            OP##_STEP(F, x, y);                                                \
        double t1 = now_ns();                                                  \
        bench_sink += x.l[0];                                                  \
        return (t1 - t0) / (double)n;                                          \
    }

#define THR_LOOP(F, OP)                                                        \
    static double F##_thr_##OP(long n)                                         \
    {                                                                          \
        F x[CHAINS], y;                                                        \
        F##_from_u64(&y, 0x89abcdefu);                                         \
        F##_inv(&y, &y);                                                       \
        for (int k = 0; k < CHAINS; k++)                                       \
            F##_from_u64(&x[k], 0x1234567u + (uint64_t)k);                     \
        double t0 = now_ns();                                                  \
        for (long i = 0; i < n; i++) {                                         \
            for (int k = 0; k < CHAINS; k++)                                   \
                OP##_STEP(F, x[k], y);                                         \
        }                                                                      \
        double t1 = now_ns();                                                  \
        for (int k = 0; k < CHAINS; k++)                                       \
            bench_sink += x[k].l[0];                                           \
        return (t1 - t0) / ((double)n * CHAINS);                               \
    }

#define mul_STEP(F, x, y) F##_mul(&(x), &(x), &(y))
#define sqr_STEP(F, x, y) F##_sqr(&(x), &(x))
#define add_STEP(F, x, y) F##_add(&(x), &(x), &(y))
#define inv_STEP(F, x, y) F##_inv(&(x), &(x))
#define mulc_STEP(F, x, y) mul_mont_n_c((x).l, (x).l, (y).l, F##_P_, F##_N0_, sizeof((x).l) / 8)

/* Fp2 (tower.h): the same two loops on elements c0 + c1 u built from Fp ones;
 * fp2_mul is the build's form (ZK_FP2_LAZY), fp2_mul_3m and fp2_mul_lazy
 * both forms, timed in the same run. */
#define FP2_LAT_LOOP(E, F, OP)                                                 \
    static double E##_lat_##OP(long n)                                         \
    {                                                                          \
        E x, y;                                                                \
        F##_from_u64(&x.c0, 0x1234567u);                                       \
        F##_from_u64(&x.c1, 0x7654321u);                                       \
        F##_from_u64(&y.c0, 0x89abcdefu);                                      \
        F##_inv(&y.c1, &y.c0);                                                 \
        F##_inv(&y.c0, &x.c1);                                                 \
        double t0 = now_ns();                                                  \
        for (long i = 0; i < n; i++)                                           \
            OP##_STEP(E, x, y);                                                \
        double t1 = now_ns();                                                  \
        bench_sink += x.c0.l[0] + x.c1.l[0];                                   \
        return (t1 - t0) / (double)n;                                          \
    }

#define FP2_THR_LOOP(E, F, OP)                                                 \
    static double E##_thr_##OP(long n)                                         \
    {                                                                          \
        E x[CHAINS], y;                                                        \
        F##_from_u64(&y.c0, 0x89abcdefu);                                      \
        F##_inv(&y.c1, &y.c0);                                                 \
        for (int k = 0; k < CHAINS; k++) {                                     \
            F##_from_u64(&x[k].c0, 0x1234567u + (uint64_t)k);                  \
            F##_inv(&x[k].c1, &x[k].c0);                                       \
        }                                                                      \
        double t0 = now_ns();                                                  \
        for (long i = 0; i < n; i++) {                                         \
            for (int k = 0; k < CHAINS; k++)                                   \
                OP##_STEP(E, x[k], y);                                         \
        }                                                                      \
        double t1 = now_ns();                                                  \
        for (int k = 0; k < CHAINS; k++)                                       \
            bench_sink += x[k].c0.l[0] + x[k].c1.l[0];                         \
        return (t1 - t0) / ((double)n * CHAINS);                               \
    }

#define mul3m_STEP(F, x, y) F##_mul_3m(&(x), &(x), &(y))
#define mullazy_STEP(F, x, y) F##_mul_lazy(&(x), &(x), &(y))

#define FP2_LOOPS(E, F)                                                        \
    FP2_LAT_LOOP(E, F, mul) FP2_THR_LOOP(E, F, mul)                            \
    FP2_LAT_LOOP(E, F, mul3m) FP2_THR_LOOP(E, F, mul3m)                        \
    FP2_LAT_LOOP(E, F, mullazy) FP2_THR_LOOP(E, F, mullazy)                    \
    FP2_LAT_LOOP(E, F, sqr) FP2_THR_LOOP(E, F, sqr)

FP2_LOOPS(bn254_fp2, bn254_fp)
FP2_LOOPS(bls381_fp2, bls381_fp)

#define bn254_fp_N0_ BN254_FP_N0
#define bls381_fp_N0_ BLS381_FP_N0

#define ALL_LOOPS(FP, FR)                                                      \
    LAT_LOOP(FP, mul) THR_LOOP(FP, mul) LAT_LOOP(FP, sqr) THR_LOOP(FP, sqr)    \
    LAT_LOOP(FP, add) THR_LOOP(FP, add) LAT_LOOP(FP, inv)                      \
    LAT_LOOP(FP, mulc) THR_LOOP(FP, mulc)                                      \
    LAT_LOOP(FR, mul) THR_LOOP(FR, mul)

ALL_LOOPS(bn254_fp, bn254_fr)
ALL_LOOPS(bls381_fp, bls381_fr)

struct op {
    const char *name;
    double (*lat)(long);
    double (*thr)(long);
    long scale;                        /* iterations divisor (slow ops) */
};

#define OPS(FP, FR, E)                                                         \
    {                                                                          \
        { "fp_mul", FP##_lat_mul, FP##_thr_mul, 1 },                           \
        { "fp_sqr", FP##_lat_sqr, FP##_thr_sqr, 1 },                           \
        { "fp_add", FP##_lat_add, FP##_thr_add, 1 },                           \
        { "fp_inv", FP##_lat_inv, NULL, 500 },                                 \
        { "fr_mul", FR##_lat_mul, FR##_thr_mul, 1 },                           \
        { "fp_mul_portable_c", FP##_lat_mulc, FP##_thr_mulc, 1 },              \
        { "fp2_mul", E##_lat_mul, E##_thr_mul, 1 },                            \
        { "fp2_mul_3m", E##_lat_mul3m, E##_thr_mul3m, 1 },                     \
        { "fp2_mul_lazy", E##_lat_mullazy, E##_thr_mullazy, 1 },               \
        { "fp2_sqr", E##_lat_sqr, E##_thr_sqr, 1 },                            \
    }

static const struct op BN254_OPS[] = OPS(bn254_fp, bn254_fr, bn254_fp2);
static const struct op BLS381_OPS[] = OPS(bls381_fp, bls381_fr, bls381_fp2);
#define NOPS (sizeof BN254_OPS / sizeof BN254_OPS[0])

static void usage(void)
{
    fprintf(stderr, "usage: zkslot bench field --curve bn254|bls12-381 "
                    "[--repeats K] [--iters N] [--json]\n");
}

int cmd_bench_field(int argc, char **argv)
{
    static const struct option opts[] = {
        { "curve", required_argument, NULL, 'c' },
        { "repeats", required_argument, NULL, 'r' },
        { "iters", required_argument, NULL, 'n' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *curve = "bls12-381";
    int repeats = 7, json = 0, c;
    long iters = 300000;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': curve = optarg; break;
        case 'r': repeats = atoi(optarg); break;
        case 'n': iters = atol(optarg); break;
        case 'j': json = 1; break;
        default: usage(); return 2;
        }
    }
    if (optind != argc || repeats < 1 || repeats > 1000 || iters < 1000) {
        usage();
        return 2;
    }
    const struct op *ops;
    if (!strcmp(curve, "bn254") || !strcmp(curve, "bn128"))
        ops = BN254_OPS;
    else if (!strcmp(curve, "bls12-381") || !strcmp(curve, "bls12_381"))
        ops = BLS381_OPS;
    else {
        usage();
        return 2;
    }

    double lat[NOPS], thr[NOPS];
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    double *v = malloc(sizeof(double) * (size_t)repeats * 2);
    if (!v) {
        fprintf(stderr, "zkslot bench field: out of memory\n");
        return 2;
    }
    for (size_t o = 0; o < NOPS; o++) {
        long n = iters / ops[o].scale;
        if (n < 10)
            n = 10;
        ops[o].lat(n / 10);                               /* warm up */
        for (int r = 0; r < repeats; r++) {
            v[r] = ops[o].lat(n);
            v[repeats + r] = ops[o].thr ? ops[o].thr(n / CHAINS) : 0;
        }
        lat[o] = bench_median(v, (unsigned)repeats);
        thr[o] = ops[o].thr ? bench_median(v + repeats, (unsigned)repeats) : lat[o];
    }
    free(v);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall_s = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) * 1e-9;

    const char *impl = ZK_FF_ASM ? "x86-64 mulx/adx asm" : "portable C";
    if (json) {
        printf("{\"bench\":\"field\",\"curve\":\"%s\",\"impl\":\"%s\",\"repeats\":%d,"
               "\"iters\":%ld,\"clock\":\"thread_cputime\",\"wall_s\":%.3f,\"ns\":{",
               curve, impl, repeats, iters, wall_s);
        for (size_t o = 0; o < NOPS; o++)
            printf("%s\"%s\":{\"latency\":%.3f,\"throughput\":%.3f}", o ? "," : "",
                   ops[o].name, lat[o], thr[o]);
        printf("},\"fp_mul_per_s\":%.0f,\"fr_mul_per_s\":%.0f}\n", 1e9 / thr[0], 1e9 / thr[4]);
    } else {
        printf("field %s (%s), one thread, median of %d x %ld iterations, "
               "thread CPU time (whole run: %.2f s wall)\n", curve, impl, repeats, iters, wall_s);
        printf("  %-20s %12s %12s\n", "op", "latency ns", "thruput ns");
        for (size_t o = 0; o < NOPS; o++) {
            if (ops[o].thr)
                printf("  %-20s %12.2f %12.2f\n", ops[o].name, lat[o], thr[o]);
            else
                printf("  %-20s %12.1f %12s\n", ops[o].name, lat[o], "-");
        }
        printf("  Fp mul: %.1f M/s, Fr mul: %.1f M/s (throughput loop); "
               "asm vs portable C Fp mul latency: %.2fx faster\n",
               1e3 / thr[0], 1e3 / thr[4], lat[5] / lat[0]);
    }
    return 0;
}

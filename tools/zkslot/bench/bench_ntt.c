/*
 * bench_ntt.c -- `zkslot bench ntt --curve bn254|bls12-381 --log-n N
 * --threads T [--repeats K] [--json]`: median wall time of the forward,
 * inverse and coset NTT, the fused odd-coset step of the prover, and a
 * textbook radix-2 baseline (naive bit reversal + iterative Cooley-Tukey with
 * one strided twiddle table, one thread) measured in the same run.
 * Wall time is the figure; the process CPU time is printed beside it so
 * that runs on a loaded machine can be judged (cpu > threads x wall means
 * nothing; wall >> cpu / threads means the threads were descheduled).
 * Throughput is reported as butterflies per second, (n/2) log2(n) per
 * transform (the odd-coset step counts two transforms).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cmd.h"
#include "ff/fields.h"
#include "zk/groth16.h"
#include "zkcuda.h"
#include "zk/error.h"
#include "zk/ntt.h"

typedef struct { limb_t l[4]; } bfe;    /* layout of bn254_fr / bls381_fr */

struct bcurve {
    const char *name;
    unsigned s;
    int (*ntt)(bfe *, unsigned, int, unsigned);
    int (*coset)(bfe *, unsigned, int, const bfe *, unsigned);
    int (*odd)(bfe *, unsigned, unsigned);
    int (*pre)(unsigned, unsigned);
    void (*root)(bfe *, unsigned);
    void (*to_mont)(bfe *, const bfe *);
    int (*baseline)(bfe *, unsigned);
};

/* The baseline: what a first implementation looks like. */
#define BASELINE(F)                                                              \
    static int F##_b_baseline(bfe *d, unsigned L)                               \
    {                                                                           \
        F *x = (F *)d, w, t;                                                    \
        size_t n = (size_t)1 << L;                                              \
        F *tw = malloc((n / 2 + 1) * sizeof *tw);                               \
        if (!tw)                                                                \
            return -ENOMEM;                                                     \
        F##_root_of_unity(&w, L);                                               \
        F##_one(&tw[0]);                                                        \
        for (size_t j = 1; j < n / 2; j++)                                      \
            F##_mul(&tw[j], &tw[j - 1], &w);                                    \
        for (size_t i = 0, j = 0; i < n; i++) {                                 \
            if (i < j) {                                                        \
                t = x[i]; x[i] = x[j]; x[j] = t;                                \
            }                                                                   \
            size_t bit = n >> 1;                                                \
            for (; bit && (j & bit); bit >>= 1)                                 \
                j ^= bit;                                                       \
            j |= bit;                                                           \
        }                                                                       \
        for (size_t m = 1; m < n; m *= 2) {                                     \
            size_t step = n / (2 * m);                                          \
            for (size_t b = 0; b < n; b += 2 * m) {                             \
                for (size_t j = 0; j < m; j++) {                                \
                    F##_mul(&t, &x[b + j + m], &tw[j * step]);                  \
                    F##_sub(&x[b + j + m], &x[b + j], &t);                      \
                    F##_add(&x[b + j], &x[b + j], &t);                          \
                }                                                               \
            }                                                                   \
        }                                                                       \
        free(tw);                                                               \
        return 0;                                                               \
    }

#define WRAP(F)                                                                  \
    static int F##_b_ntt(bfe *d, unsigned l, int inv, unsigned t)               \
    { return F##_ntt((F *)d, l, inv, t); }                                       \
    static int F##_b_coset(bfe *d, unsigned l, int inv, const bfe *s, unsigned t) \
    { return F##_ntt_coset((F *)d, l, inv, (const F *)s, t); }                   \
    static int F##_b_odd(bfe *d, unsigned l, unsigned t)                         \
    { return F##_ntt_to_odd_coset((F *)d, l, t); }                               \
    static void F##_b_root(bfe *r, unsigned k) { F##_root_of_unity((F *)r, k); } \
    static void F##_b_to(bfe *r, const bfe *a) { F##_to_mont((F *)r, (const F *)a); } \
    BASELINE(F)
WRAP(bn254_fr)
WRAP(bls381_fr)

static const struct bcurve bcurves[] = {
    { "bn254", BN254_FR_TWO_ADICITY, bn254_fr_b_ntt, bn254_fr_b_coset, bn254_fr_b_odd,
      bn254_fr_ntt_precompute, bn254_fr_b_root, bn254_fr_b_to, bn254_fr_b_baseline },
    { "bls12-381", BLS381_FR_TWO_ADICITY, bls381_fr_b_ntt, bls381_fr_b_coset, bls381_fr_b_odd,
      bls381_fr_ntt_precompute, bls381_fr_b_root, bls381_fr_b_to, bls381_fr_b_baseline },
};

enum { OP_FWD, OP_INV, OP_COSET, OP_ODD, OP_BASE, OP_COUNT };
static const char *const op_names[OP_COUNT] = {
    "forward", "inverse", "coset", "odd_coset", "baseline_radix2_1t"
};





/* The same operation on GPU dev (zkcuda.h); the device time is left in
 * zk_cuda_last_kernel_seconds(). */
static int run_op_cuda(const struct bcurve *c, int op, bfe *x, unsigned L, int dev,
                       const bfe *g)
{
    enum zk_curve cv = c == &bcurves[0] ? ZK_CURVE_BN254 : ZK_CURVE_BLS12_381;
    zk_scalar *d = (zk_scalar *)x;
    switch (op) {
    case OP_FWD: return zk_cuda_ntt(dev, cv, d, L, 0, NULL, 0);
    case OP_INV: return zk_cuda_ntt(dev, cv, d, L, 1, NULL, 0);
    case OP_COSET: return zk_cuda_ntt(dev, cv, d, L, 0, (const zk_scalar *)g, 0);
    case OP_ODD: return zk_cuda_ntt(dev, cv, d, L, 0, NULL, 1);
    default: return ZK_EBADPARAMS;
    }
}

static int run_op(const struct bcurve *c, int op, bfe *x, unsigned L, unsigned T,
                  const bfe *g)
{
    switch (op) {
    case OP_FWD: return c->ntt(x, L, 0, T);
    case OP_INV: return c->ntt(x, L, 1, T);
    case OP_COSET: return c->coset(x, L, 0, g, T);
    case OP_ODD: return c->odd(x, L, T);
    default: return c->baseline(x, L);
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: zkslot bench ntt [--curve bn254|bls12-381] [--log-n N] "
                    "[--threads T] [--repeats K] [--no-baseline] [--json] "
                    "[--backend cpu|cuda] [--device N]\n");
}

int cmd_bench_ntt(int argc, char **argv)
{
    static const struct option opts[] = {
        { "curve", required_argument, NULL, 'c' },
        { "log-n", required_argument, NULL, 'n' },
        { "threads", required_argument, NULL, 't' },
        { "repeats", required_argument, NULL, 'r' },
        { "no-baseline", no_argument, NULL, 'b' },
        { "json", no_argument, NULL, 'j' },
        { "backend", required_argument, NULL, 'B' },
        { "device", required_argument, NULL, 'D' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const struct bcurve *c = &bcurves[0];
    unsigned L = 16, T = 1, K = 5;
    int json = 0, baseline = 1, opt, ret = 2, cuda = 0, dev = 0;
    bfe *src = NULL, *x = NULL, g;
    double med[OP_COUNT] = { 0 }, cpu[OP_COUNT] = { 0 }, *t = NULL, *tc = NULL;

    optind = 1;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (!strcmp(optarg, "bn254") || !strcmp(optarg, "bn128"))
                c = &bcurves[0];
            else if (!strcmp(optarg, "bls12-381") || !strcmp(optarg, "bls12381"))
                c = &bcurves[1];
            else {
                usage();
                return 2;
            }
            break;
        case 'n': L = (unsigned)strtoul(optarg, NULL, 10); break;
        case 't': T = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'r': K = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'b': baseline = 0; break;
        case 'j': json = 1; break;
        case 'B':
            if (bench_backend("ntt", optarg, &cuda))
                return 2;
            break;
        case 'D': dev = atoi(optarg); break;
        default: usage(); return 2;
        }
    }
    if (K == 0)
        K = 1;
    if (L + 1 > c->s || L > 30) {
        fprintf(stderr, "bench ntt: --log-n must be below %u\n", c->s);
        return 2;
    }
    if (cuda)
        baseline = 0;                  /* the radix-2 baseline is a CPU one */
    size_t n = (size_t)1 << L;
    src = malloc(n * sizeof *src);
    x = malloc(n * sizeof *x);
    t = malloc(K * sizeof *t);
    tc = malloc(K * sizeof *tc);
    if (!src || !x || !t || !tc) {
        fprintf(stderr, "bench ntt: out of memory\n");
        goto out;
    }
    uint64_t st = 0x9e3779b97f4a7c15ULL ^ L;
    for (size_t i = 0; i < n; i++) {
        bfe p;
        for (int k = 0; k < 4; k++) {
            st ^= st << 13; st ^= st >> 7; st ^= st << 17;
            p.l[k] = st;
        }
        p.l[3] &= 0x0fffffffffffffffULL;          /* < r on both curves */
        c->to_mont(&src[i], &p);
    }
    c->root(&g, L + 1);
    int r = c->pre(L, T);
    if (r) {
        fprintf(stderr, "bench ntt: %s\n", zk_strerror(r));
        goto out;
    }
    for (int op = 0; op < OP_COUNT; op++) {
        if (op == OP_BASE && !baseline)
            continue;
        for (unsigned k = 0; k < K; k++) {
            memcpy(x, src, n * sizeof *x);
            double c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
            double t0 = bench_clock_s(CLOCK_MONOTONIC);
            if (cuda) {
                /* t: device time (data on the device); tc: wall with copies */
                r = run_op_cuda(c, op, x, L, dev, &g);
                tc[k] = bench_clock_s(CLOCK_MONOTONIC) - t0;
                t[k] = zk_cuda_last_kernel_seconds();
            } else {
                r = run_op(c, op, x, L, T, &g);
                t[k] = bench_clock_s(CLOCK_MONOTONIC) - t0;
                tc[k] = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
            }
            if (r) {
                fprintf(stderr, "bench ntt: %s: %s\n", op_names[op], zk_cuda_strerror(r));
                goto out;
            }
        }
        med[op] = bench_median(t, K);
        cpu[op] = bench_median(tc, K);
    }

    double bfl = (double)(n / 2) * L;
    if (json)
        printf("{\"bench\":\"ntt\",\"curve\":\"%s\",\"log_n\":%u,\"threads\":%u,"
               "\"repeats\":%u,\"results\":[", c->name, L, T, K);
    else if (cuda)
        printf("ntt %s 2^%u backend=cuda device=%d repeats=%u (median; device time, "
               "the wall time with copies in the cpu column)\n", c->name, L, dev, K);
    else
        printf("ntt %s 2^%u threads=%u repeats=%u (median)\n", c->name, L, T, K);
    for (int op = 0, first = 1; op < OP_COUNT; op++) {
        if (op == OP_BASE && !baseline)
            continue;
        double b = op == OP_ODD ? 2 * bfl : bfl;
        double bps = med[op] > 0 ? b / med[op] : 0;
        if (json)
            printf("%s{\"op\":\"%s\",\"median_s\":%.6f,\"median_cpu_s\":%.6f,"
                   "\"butterflies_per_s\":%.4g,\"elements_per_s\":%.4g}",
                   first ? "" : ",", op_names[op], med[op], cpu[op], bps,
                   med[op] > 0 ? (double)n / med[op] : 0);
        else
            printf("  %-20s %10.3f ms (cpu %10.3f ms)  %8.2f Mbutterfly/s  %6.1f ns/butterfly\n",
                   op_names[op], 1e3 * med[op], 1e3 * cpu[op], bps / 1e6,
                   bps > 0 ? 1e9 / bps : 0);
        first = 0;
    }
    if (json)
        printf("]}\n");
    ret = 0;
out:
    free(src);
    free(x);
    free(t);
    free(tc);
    return ret;
}

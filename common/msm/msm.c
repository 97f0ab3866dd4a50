/*
 * msm.c -- instantiates msm_tmpl.h for bn254_g1, bn254_g2, bls381_g1 and
 * bls381_g2 (see zk/msm.h), with the group-independent helpers: Booth digit
 * extraction, the window-size cost model and the scratch plan.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "zk/error.h"
#include "zk/msm.h"
#include "zk/parallel.h"

/* Bucket states of the affine method. */
enum { MSM_EMPTY = 0, MSM_OCC = 1, MSM_LOCKED = 2 };

/* Below these sizes the Jacobian method is used (automatic choice). */
#define MSM_AFFINE_MIN_G1 2048
#define MSM_AFFINE_MIN_G2 4096

struct msm_plan {
    unsigned c;              /* window bits */
    unsigned method;         /* ZK_MSM_AFFINE or ZK_MSM_JACOBIAN */
    unsigned batch;          /* affine additions per inversion */
    unsigned chunks;         /* point ranges per window */
    unsigned threads;
    size_t max_tasks;        /* windows of a 256-bit scalar times chunks */
    size_t results_bytes, thread_bytes, total_bytes;
};

static inline size_t msm_align(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/*
 * The signed (Booth) digit of window [s, s + c) of the 256-bit scalar k:
 *   d = b[s-1] + sum_{j<c-1} b[s+j] 2^j - b[s+c-1] 2^(c-1),   b[-1] = 0,
 * in [-2^(c-1), 2^(c-1)].  sum_w d_w 2^(w c) = k when the windows go up to a
 * w with bit w c + c - 1 >= bitlength(k) (bits past 255 read as 0).
 */
static inline int msm_digit(const limb_t *k, unsigned s, unsigned c)
{
    uint64_t t;
    if (s == 0) {
        t = k[0] << 1;
    } else {
        unsigned pos = s - 1, q = pos / 64, r = pos % 64;
        t = q < 4 ? k[q] >> r : 0;
        if (r && q + 1 < 4)
            t |= k[q + 1] << (64 - r);
    }
    t &= ((uint64_t)1 << (c + 1)) - 1;
    int u = (int)((t >> 1) & (((uint64_t)1 << (c - 1)) - 1)) + (int)(t & 1);
    return (t >> c) ? u - (1 << (c - 1)) : u;
}

/* Bit length of the largest of the n scalars (0 if all are zero). */
static unsigned msm_max_bits(const limb_t *k, size_t n)
{
    limb_t o[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        o[0] |= k[4 * i];
        o[1] |= k[4 * i + 1];
        o[2] |= k[4 * i + 2];
        o[3] |= k[4 * i + 3];
    }
    for (int j = 3; j >= 0; j--) {
        if (o[j])
            return 64 * (unsigned)j + 64 - (unsigned)__builtin_clzll(o[j]);
    }
    return 0;
}

/*
 * Window size minimizing a cost model in field multiplications for 255-bit
 * scalars: ceil(256/c) windows, each n bucket additions (affine batched
 * ~6.5M, mixed Jacobian ~11M) plus 2^(c-1) buckets to reduce (~27M).
 */
static unsigned msm_auto_window(size_t n, int affine, int g2)
{
    double add = affine ? 6.5 : 11.0, red = 27.0, best = 0;
    unsigned bc = 1, cmax = affine ? (g2 ? 15 : 16) : 16;
    (void)g2;
    for (unsigned c = 1; c <= cmax; c++) {
        double nwin = (double)((256 + c - 1) / c);
        double cost = nwin * ((double)n * add + (double)((size_t)1 << (c - 1)) * red);
        if (c == 1 || cost < best) {
            best = cost;
            bc = c;
        }
    }
    return bc;
}

/* Fills the group-independent part of the plan from the resolved options. */
static void msm_plan_common(struct msm_plan *pl, size_t n, unsigned nthreads,
                            const struct zk_msm_opts *a)
{
    unsigned T = nthreads ? nthreads : zk_nthreads_default();
    pl->c = a->window;
    pl->method = a->method;
    size_t nbk = (size_t)1 << (pl->c - 1);
    if (a->batch) {
        pl->batch = a->batch;
    } else {
        size_t b = nbk / 8;
        pl->batch = (unsigned)(b < 32 ? 32 : b > 1024 ? 1024 : b);
    }
    size_t nwin = (257 + pl->c - 1) / pl->c;
    if (a->chunks) {
        pl->chunks = a->chunks;
    } else {
        size_t ch = (12 * (size_t)T + nwin - 1) / nwin;   /* >= ~12 tasks per thread */
        if (ch > 1 && n / ch < 4 * nbk)
            ch = n / (4 * nbk) > 1 ? n / (4 * nbk) : 1;
        pl->chunks = (unsigned)ch;
    }
    if (pl->chunks > n && n > 0)
        pl->chunks = (unsigned)n;
    if (pl->chunks == 0)
        pl->chunks = 1;
    pl->max_tasks = nwin * pl->chunks;
    pl->threads = T > pl->max_tasks ? (unsigned)pl->max_tasks : T;
}

#define ZK_G bn254_g1
#define ZK_G_F bn254_fp
#define ZK_MSM_G2 0
#include "msm_tmpl.h"
#undef ZK_G
#undef ZK_G_F
#undef ZK_MSM_G2

#define ZK_G bn254_g2
#define ZK_G_F bn254_fp2
#define ZK_MSM_G2 1
#include "msm_tmpl.h"
#undef ZK_G
#undef ZK_G_F
#undef ZK_MSM_G2

#define ZK_G bls381_g1
#define ZK_G_F bls381_fp
#define ZK_MSM_G2 0
#include "msm_tmpl.h"
#undef ZK_G
#undef ZK_G_F
#undef ZK_MSM_G2

#define ZK_G bls381_g2
#define ZK_G_F bls381_fp2
#define ZK_MSM_G2 1
#include "msm_tmpl.h"
#undef ZK_G
#undef ZK_G_F
#undef ZK_MSM_G2

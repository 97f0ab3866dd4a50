/*
 * msm.c -- instantiates msm_tmpl.h for bn254_g1, bn254_g2, bls381_g1 and
 * bls381_g2 (see zk/msm.h; one ZK_MSM_TMPL line each, at the end), with the
 * group-independent helpers: Booth digit extraction, the window-size cost
 * models (plain and table) and the scratch plan.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ec/curves.h"
#include "zk/error.h"
#include "zk/msm.h"
#include "zk/parallel.h"
#include "zk/util.h"
#include "digit.h"
#include "ff/ifma_bn254.h"
#include "ff/paste.h"
#include "msm_glv.h"
#include "msm_window.h"

/* Bucket states of the affine method. */
enum { MSM_EMPTY = 0, MSM_OCC = 1, MSM_LOCKED = 2 };

/* Flags msm_flush sets on a batch entry (besides bit 0, the sign): the
 * addition is a doubling, or cancels the bucket to infinity, or (the IFMA
 * batch, msm_flush_ifma.h) has equal x and is left to the scalar code. */
enum { MSM_ENT_DBL = 2, MSM_ENT_CANCEL = 4, MSM_ENT_LATER = 8 };

/* A top window with few buckets (msm_worker) is spread over copies of
 * them when its task has at least this many entries per bucket of a full
 * window: the copies' sum (nbk mixed additions) is then a small part. */
#define MSM_SPREAD_MIN 4

/* Below these sizes the Jacobian method is used (automatic choice). */
#define MSM_AFFINE_MIN_G1 2048
#define MSM_AFFINE_MIN_G2 4096

struct msm_plan {
    unsigned c;              /* window bits */
    unsigned method;         /* ZK_MSM_AFFINE or ZK_MSM_JACOBIAN */
    unsigned batch;          /* affine additions per inversion */
    unsigned chunks;         /* point ranges per window */
    unsigned threads;
    size_t max_tasks;        /* windows of a `bits`-bit scalar times chunks */
    size_t results_bytes, thread_bytes, total_bytes;
};

static inline size_t msm_align(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

/* The Booth digit (digit.h, shared with the GPU's MSM). */
static inline int msm_digit(const limb_t *k, unsigned s, unsigned c)
{
    return zk_msm_digit(k, s, c);
}

/*
 * Limbs a GLV half-scalar is stored in (|k1|, |k2| < 2^129): the MSM's
 * digits of such scalars never read a fourth limb (zk_msm_digit reads
 * limb q + 1 only for bit s - 1 = 64 q + r with r > 0, and a window's s
 * is at most the scalars' bit length, 129: q + 1 <= 2).
 */
#define MSM_GLV_KW 3

/* Bit length of the largest of the n scalars of kw <= 4 limbs each,
 * kw limbs apart (0 if all are zero). */
static unsigned msm_max_bits_kw(const limb_t *k, size_t n, unsigned kw)
{
    limb_t o[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        for (unsigned j = 0; j < kw; j++)
            o[j] |= k[kw * i + j];
    }
    for (int j = 3; j >= 0; j--) {
        if (o[j])
            return 64 * (unsigned)j + 64 - (unsigned)__builtin_clzll(o[j]);
    }
    return 0;
}

/* Bit length of the largest of the n scalars (4 limbs; 0 if all are zero). */
static unsigned msm_max_bits(const limb_t *k, size_t n)
{
    return msm_max_bits_kw(k, n, 4);
}

/* 1 if the scalar k (4 limbs) is exactly 1. */
static inline int msm_is_one(const limb_t *k)
{
    return k[0] == 1 && (k[1] | k[2] | k[3]) == 0;
}

/* 1 if the scalar k (4 limbs) is neither 0 nor 1. */
static inline int msm_is_other(const limb_t *k)
{
    return (k[0] >> 1 | k[1] | k[2] | k[3]) != 0;
}

/*
 * The 1-scalars and the others (neither 0 nor 1) among n scalars, into
 * *ret_ones and *ret_others.  Cannot fail.
 */
static void msm_count_small(const limb_t *k, size_t n, size_t *ret_ones, size_t *ret_others)
{
    size_t ones = 0, others = 0;
    for (size_t i = 0; i < n; i++) {
        ones += (size_t)msm_is_one(k + 4 * i);
        others += (size_t)msm_is_other(k + 4 * i);
    }
    *ret_ones = ones;
    *ret_others = others;
}

/* Affine additions per inversion for nbk buckets (msm_plan_common's
 * default): nbk / 8, but up to 256 from nbk / 4 on: windows of 10 and 11
 * bits (small MSMs) had batches of 64 and 128, their inversions 40 % of an
 * addition's cost (bench msm 2^13: 256 is ~10 % less CPU; 1024 at 2^15
 * and 2^16, 5 % more). */
static unsigned msm_auto_batch(size_t nbk)
{
    size_t b = nbk / 8, q = nbk / 4 < 256 ? nbk / 4 : 256;
    b = b > q ? b : q;
    return (unsigned)(b < 32 ? 32 : b > 1024 ? 1024 : b);
}

/* One field inversion, in multiplications, for msm_auto_window: the binary
 * GCD stopping when done (inv_gcd_n) is about 155 on BN254's Fp (bench
 * field: 3.4 us against 22 ns).  (zk_msm_table_window keeps its 300: its
 * windows are part of stored tables' bytes.) */
#define MSM_AUTO_INV_MULS 170.0

/*
 * Window size minimizing a cost model in field multiplications for scalars
 * of `bits` bits.  Jacobian: ceil(bits/c) windows, each n mixed additions
 * (~11M) plus 2^(c-1) buckets to reduce (~27M).  Affine, as msm_worker
 * runs it: (bits + c) / c windows (Booth's top bit); in each, n batched
 * additions (~6.5M plus the batch's share of an inversion: MSM_AUTO_INV_MULS
 * over msm_auto_batch, a third of it on G2, whose multiplications are
 * Fp2's) and the buckets' reduction, ~12M each where msm_reduce_lanes
 * runs (nbk >= 1024, batch >= 256: 256 sums in lockstep, one inversion a
 * step), ~27M in Jacobian below; the top window, whose e = bits - (nwin -
 * 1) c bits fill only 2^e buckets, costs n mixed additions and 2^e
 * Jacobian reductions where msm_worker runs it that way, or, spread over
 * copies of its buckets (n >= MSM_SPREAD_MIN nbk), n affine additions and
 * nbk mixed ones summing the copies.  (A model with
 * 6.5 and 12 for every window chose c = 10 and 11 for 2^12 and 2^13
 * points with GLV: in bench msm 4-15 % more CPU than 11 and 12, G2 most.)
 */
static unsigned msm_auto_window(size_t n, unsigned bits, int affine, int g2)
{
    double best = 0;
    unsigned bc = 1, cmax = affine ? (g2 ? 15 : 16) : 16;
    for (unsigned c = 1; c <= cmax; c++) {
        size_t nbk = (size_t)1 << (c - 1);
        double cost;
        if (!affine) {
            double nwin = (double)((bits + c - 1) / c);
            cost = nwin * ((double)n * 11.0 + (double)nbk * 27.0);
        } else {
            unsigned batch = msm_auto_batch(nbk), nwin = (bits + c) / c;
            unsigned e = bits - (nwin - 1) * c;
            double add = 6.5 + MSM_AUTO_INV_MULS / (g2 ? 3.0 : 1.0) / batch;
            double red = nbk >= 1024 && batch >= 256 ? 12.0 : 27.0;
            double full = (double)n * add + (double)nbk * red, top = full;
            size_t nbe = (size_t)1 << e;
            if (nbe * 4 <= nbk && nbe < 2 * (size_t)batch)
                top = n >= MSM_SPREAD_MIN * nbk
                    ? (double)n * add + (double)nbk * 11.0 + (double)nbe * 27.0
                    : (double)n * 11.0 + (double)nbe * 27.0;
            cost = (double)(nwin - 1) * full + top;
        }
        if (c == 1 || cost < best) {
            best = cost;
            bc = c;
        }
    }
    return bc;
}

/*
 * Chunks per round for a table MSM: the makespan of nwin * ch tasks of
 * npts / ch additions and one reduction of nbk buckets each, on T threads,
 * is smallest (a table has few rounds, often fewer than threads).
 */
static unsigned msm_table_chunks(size_t npts, unsigned nwin, size_t nbk, unsigned T, int affine)
{
    double add = affine ? 6.5 : 11.0, red = 27.0, best = 0;
    unsigned bc = 1;
    for (unsigned ch = 1; ch <= 4 * T; ch++) {
        double waves = (double)(((size_t)nwin * ch + T - 1) / T);
        double cost = waves * ((double)npts / ch * add + (double)nbk * red);
        if (ch == 1 || cost < best) {
            best = cost;
            bc = ch;
        }
    }
    return bc;
}

/* Fills the group-independent part of the plan from the resolved options,
 * for npts entries and nwin rounds (table: chunks by msm_table_chunks). */
static void msm_plan_common(struct msm_plan *pl, size_t n, size_t nwin, unsigned nthreads,
                            const struct zk_msm_opts *a, int table)
{
    unsigned T = nthreads ? nthreads : zk_nthreads_default();
    pl->c = a->window;
    pl->method = a->method;
    size_t nbk = (size_t)1 << (pl->c - 1);
    if (a->batch) {
        pl->batch = a->batch;
    } else {
        pl->batch = msm_auto_batch(nbk);
    }
    if (a->chunks) {
        pl->chunks = a->chunks;
    } else if (table) {
        pl->chunks = msm_table_chunks(n, (unsigned)nwin, nbk, T, pl->method == ZK_MSM_AFFINE);
    } else {
        /* >= ~4 tasks per thread: every chunk of a window pays the whole
         * bucket reduction again, so chunk only as much as the balance of the
         * threads needs (2 threads, 10 or 20 windows: no chunking) */
        size_t ch = (4 * (size_t)T + nwin - 1) / nwin;
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

/* Rounds of a table with window c and `factor` multiples for scalars below
 * 2^bits: rounds * factor windows cover the bits + 1 of the Booth digits. */
static unsigned msm_table_rounds(unsigned c, unsigned factor, unsigned bits)
{
    unsigned nwin = (bits + 1 + c - 1) / c;
    return (nwin + factor - 1) / factor;
}

/*
 * The window of a table for n points with `factor` multiples, from n and
 * factor alone (the table's bytes must not depend on the machine).  Cost in
 * field multiplications: n points times the ceil((bits + 1) / c) windows
 * that hold digits (the blocks' windows past them are zero digits, skipped)
 * in additions, plus msm_table_rounds bucket reductions of 2^(c-1) buckets,
 * each counted twice when there is a single round (two threads then split
 * it in two chunks).  (Counting factor * rounds windows of additions, as a
 * first version did, chose c = 8 for 2^16 G2 points with factor 16: 32
 * windows of additions where 17 suffice, 1.8x the MSM's time.)
 *
 * With the affine method, plus the top window's collisions: its digits
 * have e = bits + 1 - (nwin - 1) c bits, so its block's n entries share
 * about 2^e buckets, and an affine batch holds one entry per bucket: at
 * most min(2^e, batch) of them per inversion (MSM_INV_MULS, 300: the
 * inversion's cost when this model was set).  Without
 * that term the model chose c = 15 for 255-bit scalars on G2 from 2^18
 * points (BLS12-381's B2): a top window of 1 bit, nearly every entry of
 * its block in one bucket, one addition per inversion; windows 12 and 14
 * for 2^16 G1 points with factor 16 (top windows of 3 and 3 bits) measured
 * 3x the time of 15.
 */
#define MSM_INV_MULS 300.0

unsigned zk_msm_table_window(size_t n, unsigned factor, unsigned bits, int g2)
{
    size_t npts = n * factor;
    int affine = npts >= (g2 ? MSM_AFFINE_MIN_G2 : MSM_AFFINE_MIN_G1);
    double add = affine ? 6.5 : 11.0, red = 27.0, best = 0;
    unsigned bc = 1, cmax = affine ? (g2 ? 15 : 16) : 16;
    for (unsigned c = 1; c <= cmax; c++) {
        unsigned nw = (bits + 1 + c - 1) / c, e = bits + 1 - (nw - 1) * c;
        double nwin = (double)nw;
        double R = (double)msm_table_rounds(c, factor, bits), ch = R >= 2 ? 1 : 2;
        /* a bucket's reduction: ~12M where msm_reduce_lanes runs (as in
         * msm_auto_window), else the Jacobian running sum's 27 */
        size_t nbc = (size_t)1 << (c - 1);
        double redc = affine && nbc >= 1024 && msm_auto_batch(nbc) >= 256
                    ? 12.0 : red;
        double cost = (double)n * nwin * add + R * ch * (double)nbc * redc;
        if (affine) {
            size_t nbk = (size_t)1 << (c - 1), batch = nbk / 8 < 32 ? 32 : nbk / 8;
            double room = (double)(batch > 1024 ? 1024 : batch), top = (double)((size_t)1 << e);
            cost += (double)n * MSM_INV_MULS / (top < room ? top : room);
        }
        if (c == 1 || cost < best) {
            best = cost;
            bc = c;
        }
    }
    return bc;
}

#undef MSM_INV_MULS
#undef MSM_AUTO_INV_MULS

/* ---- GLV scalar splitting ------------------------------------------------ */

/*
 * Babai rounding in a reduced basis (a1, b1), (a2, b2) of the lattice
 * {(u, v): u + v lambda = 0 mod r}: with k reduced mod r,
 *   c1 = floor(k |g1| / 2^256) (negated if g1 < 0), c2 likewise with g2,
 *   k1 = k - c1 a1 - c2 a2,   k2 = -c1 b1 - c2 b2,
 * where g1 / 2^256 ~ b2 / det, g2 / 2^256 ~ -b1 / det.  Then
 * k1 + k2 lambda = k - c1 (a1 + b1 lambda) - c2 (a2 + b2 lambda) = k mod r,
 * and since each ci is within 1 of the exact real coordinate,
 * |k1| < |a1| + |a2|, |k2| < |b1| + |b2| (< 2^129 on both curves).  k1 and
 * k2 are computed modulo 2^192 in two's complement (they fit).  Constants
 * computed with Python from the curve parameters (Gauss reduction).
 */
struct msm_glv_consts {
    limb_t r[4];
    limb_t g1[3], g2[3];
    limb_t a1[2], b1[2], a2[2], b2[2];
    unsigned char g1neg, g2neg, a1neg, b1neg, a2neg, b2neg;
};

static const struct msm_glv_consts MSM_GLV_BN254 = {
    .r = { 0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL,
           0x30644e72e131a029ULL },
    .g1 = { 0xd91d232ec7e0b3d7ULL, 0x0000000000000002ULL, 0 }, .g1neg = 1,
    .g2 = { 0x7a7bd9d4391eb18dULL, 0x4ccef014a773d2cfULL, 0x0000000000000002ULL }, .g2neg = 0,
    .a1 = { 0x89d3256894d213e3ULL, 0 }, .a1neg = 1,
    .b1 = { 0x8211bbeb7d4f1128ULL, 0x6f4d8248eeb859fcULL }, .b1neg = 0,
    .a2 = { 0x0be4e1541221250bULL, 0x6f4d8248eeb859fdULL }, .a2neg = 0,
    .b2 = { 0x89d3256894d213e3ULL, 0 }, .b2neg = 0,
};

static const struct msm_glv_consts MSM_GLV_BLS381 = {
    .r = { 0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
           0x73eda753299d7d48ULL },
    .g1 = { 0x63f6e522f6cfee30ULL, 0x7c6becf1e01faaddULL, 0x0000000000000001ULL }, .g1neg = 0,
    .g2 = { 0x0000000000000002ULL, 0, 0 }, .g2neg = 0,
    .a1 = { 0x00000000ffffffffULL, 0xac45a4010001a402ULL }, .a1neg = 0,
    .b1 = { 1, 0 }, .b1neg = 1,
    .a2 = { 1, 0 }, .a2neg = 0,
    .b2 = { 0x0000000100000000ULL, 0xac45a4010001a402ULL }, .b2neg = 0,
};

typedef unsigned __int128 msm_u128;

/* r = -a mod 2^192 */
static inline void glv_neg3(limb_t *r, const limb_t *a)
{
    msm_u128 t = 1;
    for (int i = 0; i < 3; i++) {
        t += (limb_t)~a[i];
        r[i] = (limb_t)t;
        t >>= 64;
    }
}

/* r += (neg ? -1 : 1) * (c * a) mod 2^192; c 3 limbs, a 2 limbs. */
static inline void glv_muladd3(limb_t *r, const limb_t *c, const limb_t *a, int neg)
{
    limb_t p[3] = { 0, 0, 0 };
    for (int i = 0; i < 3; i++) {
        msm_u128 carry = 0;
        for (int j = 0; j < 2 && i + j < 3; j++) {
            msm_u128 t = (msm_u128)c[i] * a[j] + p[i + j] + carry;
            p[i + j] = (limb_t)t;
            carry = t >> 64;
        }
        if (i + 2 < 3)
            p[i + 2] += (limb_t)carry;
    }
    if (neg)
        glv_neg3(p, p);
    msm_u128 t = 0;
    for (int i = 0; i < 3; i++) {
        t += (msm_u128)r[i] + p[i];
        r[i] = (limb_t)t;
        t >>= 64;
    }
}

/* c = floor(k g / 2^256) (negated mod 2^192 if neg); k 4 limbs, g 3 limbs. */
static inline void glv_round(limb_t *c, const limb_t *k, const limb_t *g, int neg)
{
    limb_t p[7] = { 0, 0, 0, 0, 0, 0, 0 };
    for (int i = 0; i < 4; i++) {
        msm_u128 carry = 0;
        for (int j = 0; j < 3; j++) {
            msm_u128 t = (msm_u128)k[i] * g[j] + p[i + j] + carry;
            p[i + j] = (limb_t)t;
            carry = t >> 64;
        }
        p[i + 3] = (limb_t)carry;
    }
    c[0] = p[4];
    c[1] = p[5];
    c[2] = p[6];
    if (neg)
        glv_neg3(c, c);
}

/* Magnitude of the signed 192-bit v into 4 limbs; returns 1 if v < 0. */
static inline unsigned glv_mag(limb_t *out, limb_t *v)
{
    unsigned neg = (unsigned)(v[2] >> 63);
    if (neg)
        glv_neg3(v, v);
    out[0] = v[0];
    out[1] = v[1];
    out[2] = v[2];
    out[3] = 0;
    return neg;
}

static unsigned msm_glv_split(const struct msm_glv_consts *cs, limb_t *k1, limb_t *k2,
                              const limb_t *kin)
{
    limb_t k[4] = { kin[0], kin[1], kin[2], kin[3] };
    while (cmp_n(k, cs->r, 4) >= 0)          /* k < 2^256 < 6r: a few rounds */
        sub_n(k, k, cs->r, 4);
    limb_t c1[3], c2[3], v1[3] = { k[0], k[1], k[2] }, v2[3] = { 0, 0, 0 };
    glv_round(c1, k, cs->g1, cs->g1neg);
    glv_round(c2, k, cs->g2, cs->g2neg);
    glv_muladd3(v1, c1, cs->a1, !cs->a1neg);  /* k1 = k - c1 a1 - c2 a2 */
    glv_muladd3(v1, c2, cs->a2, !cs->a2neg);
    glv_muladd3(v2, c1, cs->b1, !cs->b1neg);  /* k2 = -c1 b1 - c2 b2 */
    glv_muladd3(v2, c2, cs->b2, !cs->b2neg);
    return glv_mag(k1, v1) | glv_mag(k2, v2) << 1;
}

unsigned zk_glv_split_bn254(limb_t *k1, limb_t *k2, const limb_t *k)
{
    return msm_glv_split(&MSM_GLV_BN254, k1, k2, k);
}

unsigned zk_glv_split_bls381(limb_t *k1, limb_t *k2, const limb_t *k)
{
    return msm_glv_split(&MSM_GLV_BLS381, k1, k2, k);
}

/* ---- the endomorphisms: x *= beta (Montgomery form; see msm_glv.h) ------- */

/* beta^2 of BN254 (phi = [lambda] on G1) and beta (on G2) */
static const bn254_fp MSM_BN254_BETA_G1 = { { 0x71930c11d782e155ULL, 0xa6bb947cffbe3323ULL,
                                              0xaa303344d4741444ULL, 0x2c3b3f0d26594943ULL } };
static const bn254_fp MSM_BN254_BETA_G2 = { { 0x3350c88e13e80b9cULL, 0x7dce557cdb5e56b9ULL,
                                              0x6001b4b8b615564aULL, 0x2682e617020217e0ULL } };
/* BLS12-381: beta^2 on G1, beta (= endo.h's sigma constant) on G2 */
static const bls381_fp MSM_BLS381_BETA_G1 = { { 0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL,
                                                0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
                                                0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL } };
static const bls381_fp MSM_BLS381_BETA_G2 = { { 0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL,
                                                0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
                                                0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL } };

static inline void bn254_g1_msm_endo_x(bn254_fp *x)
{ bn254_fp_mul(x, x, &MSM_BN254_BETA_G1); }
static inline void bn254_g2_msm_endo_x(bn254_fp2 *x)
{ bn254_fp_mul(&x->c0, &x->c0, &MSM_BN254_BETA_G2); bn254_fp_mul(&x->c1, &x->c1, &MSM_BN254_BETA_G2); }
static inline void bls381_g1_msm_endo_x(bls381_fp *x)
{ bls381_fp_mul(x, x, &MSM_BLS381_BETA_G1); }
static inline void bls381_g2_msm_endo_x(bls381_fp2 *x)
{ bls381_fp_mul(&x->c0, &x->c0, &MSM_BLS381_BETA_G2); bls381_fp_mul(&x->c1, &x->c1, &MSM_BLS381_BETA_G2); }

#define ZK_MSM_TMPL (bn254_g1, bn254_fp, 0, MSM_GLV_BN254, ZK_MSM_BN254_G1, 1)
#include "msm_tmpl.h"
#define ZK_MSM_TMPL (bn254_g2, bn254_fp2, 1, MSM_GLV_BN254, ZK_MSM_BN254_G2, 2)
#include "msm_tmpl.h"
#define ZK_MSM_TMPL (bls381_g1, bls381_fp, 0, MSM_GLV_BLS381, ZK_MSM_BLS381_G1, 0)
#include "msm_tmpl.h"
#define ZK_MSM_TMPL (bls381_g2, bls381_fp2, 1, MSM_GLV_BLS381, ZK_MSM_BLS381_G2, 0)
#include "msm_tmpl.h"

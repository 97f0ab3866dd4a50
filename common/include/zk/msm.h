/*
 * msm.h -- multi-scalar multiplication sum_i [k_i] P_i on G1 and G2 of BN254
 * and BLS12-381 (one implementation, common/msm/msm_tmpl.h, instantiated per
 * group by common/msm/msm.c).
 *
 * Algorithm: Pippenger's bucket method with signed (Booth) digits: each
 * scalar is cut into windows of c bits, each window digit lies in
 * [-2^(c-1), 2^(c-1)], so a window needs 2^(c-1) buckets and a negative digit
 * adds -P.  c is chosen from n by a cost model (msm.c).  Work is split into
 * tasks (window, range of points) handed out to nthreads threads; each task
 * fills its own buckets, reduces them by the running-sum trick, and the
 * window sums are combined by c doublings each.  Buckets are accumulated
 * either in affine form with batched additions (Montgomery's trick: one
 * field inversion per batch of independent additions; a point whose bucket
 * already has an addition pending in the batch is deferred to the next
 * batch), or in Jacobian form with mixed additions (small n).
 *
 * Inputs:
 *   points   n affine points in snarkjs's encoding (Montgomery, LE limbs);
 *            the all-zero point is infinity and contributes nothing.  Points
 *            must be on the curve AND in the prime-order subgroup: from 64
 *            points on (below 2^16 unless opts->glv is ZK_MSM_GLV_ON; never
 *            with ZK_MSM_GLV_OFF or a table), scalars are split with the GLV endomorphism
 *            (k = k1 + k2*lambda, phi(P) = [lambda]P), which holds only
 *            there; for other points the result is not sum k_i P_i.  They
 *            need not be distinct (equal points in one bucket are doubled,
 *            P and -P cancel to infinity).
 *   scalars  n plain (NOT Montgomery) 256-bit integers, 4 little-endian
 *            64-bit limbs each: exactly the layout of snarkjs .wtns values.
 *            Every value 0 .. 2^256-1 is accepted and used as the integer it
 *            is: for points of the prime-order subgroup this equals using
 *            k mod r, since [r]P = O (k >= r is NOT an error and is not
 *            rejected).  Zero scalars contribute nothing.
 *   nthreads worker threads; 0 means zk_nthreads_default().  The result
 *            does not depend on nthreads, the window or the bucket method.
 *
 * ret receives the sum in Jacobian form (infinity if n == 0, all scalars
 * are zero, or the terms cancel).  All functions are safe to call from
 * several threads at once; none keeps state between calls.
 */
#ifndef ZK_COMMON_MSM_H
#define ZK_COMMON_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "zk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bucket method selection (zk_msm_opts.method). */
enum zk_msm_method {
    ZK_MSM_AUTO = 0,       /* chosen from the group and n */
    ZK_MSM_JACOBIAN = 1,   /* Jacobian buckets, mixed additions */
    ZK_MSM_AFFINE = 2,     /* affine buckets, batched affine additions */
};

/* GLV selection (zk_msm_opts.glv). */
enum zk_msm_glv {
    ZK_MSM_GLV_AUTO = 0,   /* on from MSM_GLV_MIN (64) to below MSM_GLV_MAX (2^16)
                            * points, never with a table */
    ZK_MSM_GLV_ON = 1,     /* on from MSM_GLV_MIN points, never with a table */
    ZK_MSM_GLV_OFF = 2,    /* plain 256-bit Pippenger for every n */
};

/* The groups, as recorded in a table (zk_msm_table.group). */
enum zk_msm_group {
    ZK_MSM_BN254_G1 = 1,
    ZK_MSM_BN254_G2 = 2,
    ZK_MSM_BLS381_G1 = 3,
    ZK_MSM_BLS381_G2 = 4,
};

#define ZK_MSM_TABLE_MAGIC 0x3142544d534d4b5aULL   /* "ZKMSMTB1" as little-endian bytes */
#define ZK_MSM_TABLE_VERSION 1
#define ZK_MSM_MAX_FACTOR 64

/*
 * A table of precomputed multiples of n fixed bases P_0 .. P_{n-1}: one flat
 * block of G_msm_table_size(n, factor) bytes, position-independent (no
 * pointers), so it can live in a shared-memory file and be mapped anywhere
 * (64-byte alignment recommended).  The header below is followed, at byte
 * 64, by factor * n affine points in the encoding of zk/msm.h's points:
 *   entry j * n + i = [2^(j * shift)] P_i,  shift = window * rounds,
 * for j < factor.  A scalar k < 2^bits is cut into `factor` pieces of shift
 * bits, so sum k_i P_i becomes one MSM of factor * n points with scalars of
 * shift bits: `rounds` windows of `window` bits (instead of about
 * (bits + 1) / window), each with one bucket reduction, and window doublings
 * between rounds.  bits is the bit length of the group order r (254 or
 * 255); larger scalars are reduced mod r first (scratch has room for it).
 * G_msm_table_build writes every field; readers check magic, version, group,
 * n and point_bytes (G_msm refuses a table that does not match).
 */
struct zk_msm_table {
    uint64_t magic;          /* ZK_MSM_TABLE_MAGIC */
    uint32_t version;        /* ZK_MSM_TABLE_VERSION */
    uint32_t group;          /* enum zk_msm_group */
    uint64_t n;              /* bases */
    uint32_t factor;         /* multiples per base, 1 .. ZK_MSM_MAX_FACTOR */
    uint32_t window;         /* bucket window c in bits */
    uint32_t rounds;         /* windows per piece */
    uint32_t bits;           /* scalars below 2^bits are used as they are */
    uint64_t point_bytes;    /* sizeof one affine point */
    uint64_t reserved[2];    /* zero */
};

/*
 * Tuning and testing knobs; a zero field means "choose automatically".
 *   window  window size c in bits, 1 .. ZK_MSM_MAX_WINDOW (ignored with a
 *           table: the table fixed it)
 *   method  enum zk_msm_method
 *   batch   additions per batch inversion (affine method), >= 1
 *   chunks  point ranges per window (1 = each task handles all n points
 *           of one window)
 *   glv     enum zk_msm_glv
 *   table   precomputed multiples of the points (G_msm_table_build), or
 *           NULL; with a table the points argument may be NULL and GLV is
 *           not used (measured: docs/arithmetic.md, MSM tables)
 */
struct zk_msm_opts {
    unsigned window;
    unsigned method;
    unsigned batch;
    unsigned chunks;
    unsigned glv;
    const struct zk_msm_table *table;
};

#define ZK_MSM_MAX_WINDOW 22

/*
 * Declares, for group G (bn254_g1, bn254_g2, bls381_g1, bls381_g2):
 *
 * size_t G_msm_scratch_size(size_t n, unsigned nthreads,
 *                           const struct zk_msm_opts *opts);
 *   Bytes of scratch memory G_msm needs for n points on nthreads threads
 *   (0 = the default count) with opts (NULL = automatic).  0 for options
 *   G_msm would refuse.  Cannot fail otherwise.
 *
 * int G_msm(G *ret, const G_affine *points, const limb_t *scalars, size_t n,
 *           unsigned nthreads, void *scratch, const struct zk_msm_opts *opts);
 *   ret = sum_i [scalars_i] points_i.  scratch: G_msm_scratch_size(n,
 *   nthreads, opts) bytes aligned to 64, or NULL to allocate internally.
 *   Returns 0; -ENOMEM if scratch is NULL and cannot be allocated;
 *   ZK_EBADPARAMS if ret is NULL, scalars (or points without a table) are
 *   NULL with n > 0, a window or method is out of range, or opts->table is
 *   not a table of this group with this n.  With scratch given it does not
 *   allocate.  ret is not written on error.
 *
 * size_t G_msm_table_size(size_t n, unsigned factor);
 *   Bytes of the table of n bases with `factor` multiples each (header
 *   included); 0 if factor is not in 1 .. ZK_MSM_MAX_FACTOR or the size
 *   overflows.  Cannot fail otherwise.
 *
 * int G_msm_table_build(struct zk_msm_table *table, const G_affine *points,
 *                       size_t n, unsigned factor, unsigned nthreads);
 *   Fills table (G_msm_table_size(n, factor) bytes) for the n points: the
 *   window is chosen for n and factor alone, so equal inputs give equal
 *   bytes whatever nthreads.  Points as for G_msm (prime-order subgroup not
 *   required: the table holds exact multiples).  Returns 0; ZK_EBADPARAMS
 *   for a NULL table or points (n > 0) or a bad factor; -ENOMEM if its
 *   working memory cannot be allocated (the table is then unspecified).
 */
#define ZK_MSM_DECLARE(G)                                                      \
    size_t G##_msm_scratch_size(size_t n, unsigned nthreads,                   \
                                const struct zk_msm_opts *opts);               \
    int G##_msm(G *ret, const G##_affine *points, const limb_t *scalars,       \
                size_t n, unsigned nthreads, void *scratch,                    \
                const struct zk_msm_opts *opts);                               \
    size_t G##_msm_table_size(size_t n, unsigned factor);                      \
    int G##_msm_table_build(struct zk_msm_table *table,                        \
                            const G##_affine *points, size_t n,                \
                            unsigned factor, unsigned nthreads);

ZK_MSM_DECLARE(bn254_g1)
ZK_MSM_DECLARE(bn254_g2)
ZK_MSM_DECLARE(bls381_g1)
ZK_MSM_DECLARE(bls381_g2)

#undef ZK_MSM_DECLARE

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_MSM_H */

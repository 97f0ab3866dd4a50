/*
 * msm.h -- multi-scalar multiplication sum_i [k_i] P_i on G1 and G2 of BN254
 * and BLS12-381 (one implementation, common/msm/msm_tmpl.h, instantiated per
 * group by common/msm/msm.c).
 *
 * Algorithm: Pippenger's bucket method with signed (Booth) digits: each
 * scalar is cut into windows of c bits, each window digit lies in
 * [-2^(c-1), 2^(c-1)], so a window needs 2^(c-1) buckets and a negative digit
 * adds -P.  c is chosen from n (see *_msm_window()).  Work is split into
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
 *            points on, scalars are split with the GLV endomorphism
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

#include "ec/curves.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bucket method selection (zk_msm_opts.method). */
enum zk_msm_method {
    ZK_MSM_AUTO = 0,       /* chosen from the group and n */
    ZK_MSM_JACOBIAN = 1,   /* Jacobian buckets, mixed additions */
    ZK_MSM_AFFINE = 2,     /* affine buckets, batched affine additions */
};

/*
 * Tuning and testing knobs; a zero field means "choose automatically".
 *   window  window size c in bits, 1 .. ZK_MSM_MAX_WINDOW
 *   method  enum zk_msm_method
 *   batch   additions per batch inversion (affine method), >= 1
 *   chunks  point ranges per window (1 = each task handles all n points
 *           of one window)
 */
struct zk_msm_opts {
    unsigned window;
    unsigned method;
    unsigned batch;
    unsigned chunks;
};

#define ZK_MSM_MAX_WINDOW 22

/*
 * Declares, for group G (bn254_g1, bn254_g2, bls381_g1, bls381_g2):
 *
 * size_t G_msm_scratch_size(size_t n, unsigned nthreads);
 *   Bytes of scratch memory G_msm_scratch() needs for n points on nthreads
 *   threads with the automatic choices (nthreads 0 = the default count).
 *   Cannot fail.
 *
 * size_t G_msm_scratch_size_opts(size_t n, unsigned nthreads,
 *                                const struct zk_msm_opts *opts);
 *   The same for explicit options (opts NULL = automatic).  Cannot fail.
 *
 * unsigned G_msm_window(size_t n);
 *   The window size c the automatic choice uses for n points.
 *
 * int G_msm(G *ret, const G_affine *points, const limb_t *scalars,
 *           size_t n, unsigned nthreads);
 *   ret = sum_i [scalars_i] points_i, allocating its scratch memory
 *   internally.  Returns 0; -ENOMEM if the scratch cannot be allocated;
 *   ZK_EBADPARAMS if ret is NULL, or points/scalars are NULL with n > 0.
 *   ret is not written on error.
 *
 * int G_msm_scratch(G *ret, const G_affine *points, const limb_t *scalars,
 *                   size_t n, unsigned nthreads, void *scratch);
 *   As G_msm with caller-provided scratch of G_msm_scratch_size(n, nthreads)
 *   bytes, aligned to 64 bytes (NULL = allocate internally, may then fail
 *   with -ENOMEM).  With scratch given it does not allocate and cannot fail
 *   except for ZK_EBADPARAMS.
 *
 * int G_msm_opts(G *ret, const G_affine *points, const limb_t *scalars,
 *                size_t n, unsigned nthreads, void *scratch,
 *                const struct zk_msm_opts *opts);
 *   As G_msm_scratch with explicit options (opts NULL = automatic); scratch
 *   must then hold G_msm_scratch_size_opts(n, nthreads, opts) bytes.
 *   Additionally ZK_EBADPARAMS for an out-of-range window or method.
 */
#define ZK_MSM_DECLARE(G)                                                      \
    size_t G##_msm_scratch_size(size_t n, unsigned nthreads);                  \
    size_t G##_msm_scratch_size_opts(size_t n, unsigned nthreads,              \
                                     const struct zk_msm_opts *opts);          \
    unsigned G##_msm_window(size_t n);                                         \
    int G##_msm(G *ret, const G##_affine *points, const limb_t *scalars,       \
                size_t n, unsigned nthreads);                                  \
    int G##_msm_scratch(G *ret, const G##_affine *points,                      \
                        const limb_t *scalars, size_t n, unsigned nthreads,    \
                        void *scratch);                                        \
    int G##_msm_opts(G *ret, const G##_affine *points, const limb_t *scalars,  \
                     size_t n, unsigned nthreads, void *scratch,               \
                     const struct zk_msm_opts *opts);

ZK_MSM_DECLARE(bn254_g1)
ZK_MSM_DECLARE(bn254_g2)
ZK_MSM_DECLARE(bls381_g1)
ZK_MSM_DECLARE(bls381_g2)

#undef ZK_MSM_DECLARE

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_MSM_H */

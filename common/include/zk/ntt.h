/*
 * ntt.h -- number-theoretic transforms over the scalar fields Fr of BN254 and
 * BLS12-381 (one implementation, common/ntt/ntt_tmpl.h, instantiated per
 * field).
 *
 * Elements are the Montgomery-form field elements of zk/types.h.  The
 * transforms are linear, so they give the same answer whether the caller
 * thinks of the values as Montgomery or plain; the only constants that enter
 * (roots, n^-1, shifts) are proper field elements.
 *
 * Conventions (those of snarkjs, docs/formats.md sections 6 and 8):
 *   w_k  = 5^((r-1)/2^k), the 2^k-th root of unity snarkjs/ffjavascript use
 *          (generator 5 on both curves; NOT 7, the usual BLS12-381 choice).
 *   forward  X[i] = sum_k x_k * w^(ik),           w = w_log_n
 *   inverse  x_k  = n^-1 * sum_i X[i] * w^(-ik)
 * Input and output are in natural order.
 *
 * Twiddle tables: the first call for a size 2^L builds per-stage tables of
 * 2^L - 1 elements in total (the same tables serve every smaller size) and
 * keeps them for the life of the process, one cache per curve, guarded by a
 * mutex; later calls only read them.  Call *_ntt_precompute() to pay that
 * cost up front.  All functions are safe to call from several threads at
 * once on different data.
 *
 * nthreads: worker threads (zk_parallel_for); 0 means zk_nthreads_default().
 * Results do not depend on nthreads.
 */
#ifndef ZK_COMMON_NTT_H
#define ZK_COMMON_NTT_H

#include "zk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BN254_FR_TWO_ADICITY 28
#define BLS381_FR_TWO_ADICITY 32

/*
 * In-place NTT of data[0 .. 2^log_n) (forward if inverse == 0, else inverse,
 * see above).  Returns 0; ZK_EDOMAIN if log_n > the two-adicity;
 * ZK_EBADPARAMS if data is NULL; -ENOMEM if the twiddle tables cannot be
 * allocated.  data is untouched on error.
 */
int bn254_fr_ntt(bn254_fr *data, unsigned log_n, int inverse, unsigned nthreads);
int bls381_fr_ntt(bls381_fr *data, unsigned log_n, int inverse, unsigned nthreads);

/*
 * Coset NTT.  Forward: x_k *= shift^k, then the forward NTT, i.e.
 * X[i] = P(shift * w^i) for P(X) = sum_k x_k X^k.  Inverse: the exact
 * inverse (inverse NTT, then x_k *= shift^-k).  Errors as bls381_fr_ntt,
 * plus ZK_EBADPARAMS if shift is NULL, or zero with inverse != 0.
 */
int bn254_fr_ntt_coset(bn254_fr *data, unsigned log_n, int inverse,
                       const bn254_fr *shift, unsigned nthreads);
int bls381_fr_ntt_coset(bls381_fr *data, unsigned log_n, int inverse,
                        const bls381_fr *shift, unsigned nthreads);

/*
 * The prover's step 2 (docs/formats.md section 6), fused: given the
 * evaluations a[i] = A(w^i) of a polynomial A of degree < n = 2^log_n,
 * replaces them by A(g * w^i) with g = w_(log_n+1), i.e. exactly
 * "inverse NTT, multiply coefficient k by g^k, forward NTT", without any
 * bit-reversal pass.  Returns 0; ZK_EDOMAIN if log_n >= the two-adicity
 * (snarkjs then uses shift 25 with an extended ptau block; not supported);
 * ZK_EBADPARAMS if data is NULL; -ENOMEM.  data is untouched on error.
 */
int bn254_fr_ntt_to_odd_coset(bn254_fr *data, unsigned log_n, unsigned nthreads);
int bls381_fr_ntt_to_odd_coset(bls381_fr *data, unsigned log_n, unsigned nthreads);

/*
 * ret = w_k = 5^((r-1)/2^k) (Montgomery form), for k <= the two-adicity.
 * w_0 = 1, w_1 = r - 1.  For k above the two-adicity (a caller bug) ret is
 * set to zero.  Cannot fail.
 */
void bn254_fr_root_of_unity(bn254_fr *ret, unsigned k);
void bls381_fr_root_of_unity(bls381_fr *ret, unsigned k);

/*
 * Builds the cached twiddle tables for all sizes up to 2^log_n now (on
 * nthreads threads; 0 = default), so that later transforms only read them.
 * They take 2^log_n elements (32 bytes each) in all and live until the
 * process exits.  Returns 0, ZK_EDOMAIN or -ENOMEM.
 */
int bn254_fr_ntt_precompute(unsigned log_n, unsigned nthreads);
int bls381_fr_ntt_precompute(unsigned log_n, unsigned nthreads);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_NTT_H */

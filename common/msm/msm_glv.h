/*
 * msm_glv.h -- the GLV scalar split of the MSM (common/msm), exposed for
 * tests.  zk/msm.h's G_msm uses it from MSM_GLV_MIN points to below
 * MSM_GLV_MAX (from MSM_GLV_MIN on with ZK_MSM_GLV_ON) unless
 * zk_msm_opts.glv is ZK_MSM_GLV_OFF or a table is given.
 *
 * Every group here has the endomorphism phi(x, y) = (beta x, y), beta a cube
 * root of unity in Fp (on G2 it scales both Fp2 coefficients of x); on the
 * prime-order subgroup phi = [lambda] with lambda^2 + lambda + 1 = 0 mod r,
 * the same lambda for G1 and G2 of a curve (beta differs: checked by
 * tests/test_msm.c):
 *   BN254      lambda = 0xb3c4d79d41a917585bfc41088d8daaa78b17ea66b99c90dd
 *   BLS12-381  lambda = x^2 - 1 = 0xac45a4010001a40200000000ffffffff
 * A scalar k is split as k = k1 + k2 lambda (mod r) with |k1|, |k2| < 2^129
 * (Babai rounding in a reduced lattice basis, the constants in msm.c), so
 * sum k_i P_i = sum (+-|k1_i|) P_i + (+-|k2_i|) phi(P_i): an MSM of 2n points
 * with scalars of half the length.
 *
 * The GLV result equals the plain one for points in the prime-order
 * subgroup (all of BN254 G1; G2 and BLS12-381 G1 as checked by the key
 * readers).  For points outside it the two differ.
 */
#ifndef ZK_COMMON_MSM_GLV_H
#define ZK_COMMON_MSM_GLV_H

#include <stddef.h>

#include "zk/msm.h"

/* Below this many points the plain (256-bit) path is used. */
#define MSM_GLV_MIN 64
/*
 * From this many points on, too, unless opts->glv is ZK_MSM_GLV_ON: the
 * split's 2n points and scalars (3 times the scalars' and points' bytes,
 * 12 MiB for 2^16 G1 points) buy little there.  zkslot bench msm, CPU
 * seconds with and without GLV, BN254 G1: 2^13 -15 %, 2^15 -12 %, 2^16
 * -0 to -4 %, 2^17 -6 %, 2^18 +8 %; G2 2^15 -13 %, 2^16 -3 %.  Since GLV
 * keeps only phi(P) it gains ~9 % at 2^16 G1, but its head (8 MiB there)
 * took a SHA-256 proof of 2^16 from 50 to 57 MiB, over rapidsnark's 55:
 * the limit stays (raise it when the head shrinks further).
 */
#define MSM_GLV_MAX ((size_t)1 << 16)

/*
 * Splits k (4 limbs, any value below 2^256; reduced mod r first) into
 * magnitudes k1, k2 (4 limbs each, below 2^129) and returns the signs:
 * bit 0 set when k1 is negative, bit 1 when k2 is, so that
 * k = (+-k1) + (+-k2) lambda (mod r).  Cannot fail.
 */
unsigned zk_glv_split_bn254(limb_t *k1, limb_t *k2, const limb_t *k);
unsigned zk_glv_split_bls381(limb_t *k1, limb_t *k2, const limb_t *k);

#endif /* ZK_COMMON_MSM_GLV_H */

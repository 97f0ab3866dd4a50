/*
 * pairing.h -- the optimal ate pairing e: G1 x G2 -> GT < Fp12* of BN254
 * ("bn128" in snarkjs) and BLS12-381, one implementation
 * (common/pairing/pairing_tmpl.h) instantiated per curve.
 *
 * Points are the affine types of zk/types.h (Montgomery form, the all-zero
 * point is infinity); GT elements are its Fp12 (snarkjs's and
 * blst's layout).  Values are
 *   e(P, Q) = f(P)^(m (p^12 - 1)/r)
 * with f the optimal-ate Miller function and m the fixed multiple that the
 * common libraries use (gcd(m, r) = 1, so e is still bilinear and
 * non-degenerate):
 *   BN254:     f = f_{6x+2,Q} l_{[6x+2]Q, pi(Q)} l_{[6x+2]Q + pi(Q), -pi^2(Q)},
 *              x = 4965661367192848881, m = 2x(6x^2 + 3x + 1)
 *              (= snarkjs/ffjavascript)
 *   BLS12-381: f = f_{x,Q}, x = -0xd201000000010000, m = 3
 *              (= blst, zkcrypto bls12_381, snarkjs)
 * so GT values agree with those libraries bit for bit (tests/test_pairing.c
 * checks snarkjs vk_alphabeta_12 = e(alpha, beta) on both curves and blst's
 * e(G1, G2)).
 *
 * Inputs must be on the curve and in the order-r subgroups (G2 on the sextic
 * twist); this is NOT checked here (use *_affine_in_subgroup) -- for other
 * inputs the output is some Fp12 value without meaning, never a crash.  A
 * pair with P or Q at infinity contributes 1.  All functions are pure, cannot
 * fail, allow no aliasing concerns (ret is written last) and are thread-safe.
 */
#ifndef ZK_COMMON_PAIRING_H
#define ZK_COMMON_PAIRING_H

#include <stddef.h>

#include "zk/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ret = f(P) for the curve's optimal-ate Miller function (no final exp);
 * 1 if P or Q is infinity.  Only meaningful after *_final_exp. */
void bn254_miller_loop(bn254_fp12 *ret, const bn254_g1_affine *P, const bn254_g2_affine *Q);
/* ret = f^(m (p^12 - 1)/r) (m above), easy part by Frobenius, hard part by
 * an addition chain in x; f must be nonzero (f = 0 gives 0). */
void bn254_final_exp(bn254_fp12 *ret, const bn254_fp12 *f);
/* ret = e(P, Q). */
void bn254_pairing(bn254_fp12 *ret, const bn254_g1_affine *P, const bn254_g2_affine *Q);
/* ret = prod_{i<n} e(P[i], Q[i]) with one shared Miller loop and one final
 * exponentiation; n = 0 gives 1. */
void bn254_pairing_product(bn254_fp12 *ret, const bn254_g1_affine *P,
                           const bn254_g2_affine *Q, size_t n);
/* 1 if prod_{i<n} e(P[i], Q[i]) == 1, else 0. */
int bn254_pairing_product_is_one(const bn254_g1_affine *P, const bn254_g2_affine *Q, size_t n);

/* The same for BLS12-381. */
void bls381_miller_loop(bls381_fp12 *ret, const bls381_g1_affine *P, const bls381_g2_affine *Q);
void bls381_final_exp(bls381_fp12 *ret, const bls381_fp12 *f);
void bls381_pairing(bls381_fp12 *ret, const bls381_g1_affine *P, const bls381_g2_affine *Q);
void bls381_pairing_product(bls381_fp12 *ret, const bls381_g1_affine *P,
                            const bls381_g2_affine *Q, size_t n);
int bls381_pairing_product_is_one(const bls381_g1_affine *P, const bls381_g2_affine *Q, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* ZK_COMMON_PAIRING_H */

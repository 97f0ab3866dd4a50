/*
 * types.h -- the field elements and points of BN254 ("bn128" in snarkjs)
 * and BLS12-381 that the public functions take: plain structs, with no
 * arithmetic.  zk/ec.h (validation, encodings), zk/msm.h, zk/ntt.h and
 * zk/pairing.h use them; the arithmetic on them is internal to the library
 * (common/ff/ and common/ec/ instantiate it for exactly these types).
 *
 * Layout: a field element is its Montgomery form x * 2^(64*N) mod p as N
 * little-endian 64-bit limbs (N = 4, 6 for the BLS12-381 base field), fully
 * reduced; on a little-endian machine that is snarkjs's on-disk encoding,
 * so zkey and ptau sections can be used in place.  Fp2 = Fp[u]/(u^2 + 1)
 * is c0 + c1*u, Fp6 = Fp2[v]/(v^3 - xi) is c0 + c1 v + c2 v^2, Fp12 =
 * Fp6[w]/(w^2 - v) is c0 + c1 w, coefficients in that order (snarkjs's and
 * blst's).  A group element is Jacobian (X, Y, Z), meaning (X/Z^2, Y/Z^3),
 * Z = 0 the point at infinity; an affine point is x then y, the all-zero
 * point being infinity.  G1 lies over Fp, G2 over Fp2 (the sextic twist).
 */
#ifndef ZK_COMMON_TYPES_H
#define ZK_COMMON_TYPES_H

#include <stdint.h>

typedef uint64_t limb_t;      /* one 64-bit limb, least significant first */

typedef struct { limb_t l[4]; } bn254_fp;
typedef struct { limb_t l[4]; } bn254_fr;
typedef struct { limb_t l[6]; } bls381_fp;
typedef struct { limb_t l[4]; } bls381_fr;

typedef struct { bn254_fp c0, c1; } bn254_fp2;
typedef struct { bls381_fp c0, c1; } bls381_fp2;
typedef struct { bn254_fp2 c0, c1, c2; } bn254_fp6;
typedef struct { bls381_fp2 c0, c1, c2; } bls381_fp6;
typedef struct { bn254_fp6 c0, c1; } bn254_fp12;
typedef struct { bls381_fp6 c0, c1; } bls381_fp12;

typedef struct { bn254_fp x, y, z; } bn254_g1;
typedef struct { bn254_fp x, y; } bn254_g1_affine;
typedef struct { bn254_fp2 x, y, z; } bn254_g2;
typedef struct { bn254_fp2 x, y; } bn254_g2_affine;
typedef struct { bls381_fp x, y, z; } bls381_g1;
typedef struct { bls381_fp x, y; } bls381_g1_affine;
typedef struct { bls381_fp2 x, y, z; } bls381_g2;
typedef struct { bls381_fp2 x, y; } bls381_g2_affine;

#endif /* ZK_COMMON_TYPES_H */

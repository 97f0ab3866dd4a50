/*
 * pairing.c -- optimal ate pairings of BN254 and BLS12-381 (zk/pairing.h):
 * the curve-specific pieces (loop digits, final exponentiation hard parts)
 * and one pairing_tmpl.h instantiation per curve.
 */
#include "ec/curves.h"
#include "ff/fp12.h"
#include "zk/pairing.h"

/* ------------------------------------------------------------ BN254 */

/* x = 4965661367192848881 (BN parameter, > 0) */
static const limb_t BN254_X_[1] = { 4965661367192848881ULL };

/*
 * f^(m (p^4 - p^2 + 1)/r), m = 2x(6x^2 + 3x + 1), for cyclotomic f: the
 * multiple used by snarkjs/ffjavascript, from
 * Fuentes-Castaneda, Knapp, Rodriguez-Henriquez, "Faster hashing to G2":
 *   m (p^4 - p^2 + 1)/r = l0 + l1 p + l2 p^2 + l3 p^3,
 *   l0 = 12x^3 + 12x^2 + 6x + 1,  l1 = 12x^3 + 6x^2 + 4x,
 *   l2 = 12x^3 + 6x^2 + 6x,       l3 = 12x^3 + 6x^2 + 4x - 1
 * (identity checked by common/ff/gen_fp12_consts.py).  gcd(m, r) = 1, so
 * this is still a non-degenerate bilinear pairing, and it reproduces
 * snarkjs's vk_alphabeta_12 exactly.  Cost: 3 exponentiations by x.
 */
static void bn254_hard_(bn254_fp12 *ret, const bn254_fp12 *f)
{
    bn254_fp12 y1, y2, y3, A, B, C, D, E, t;
    limb_t k[1];
    bn254_fp12_cyclotomic_pow(&y1, f, BN254_X_, 64);
    bn254_fp12_cyclotomic_pow(&y2, &y1, BN254_X_, 64);
    bn254_fp12_cyclotomic_pow(&y3, &y2, BN254_X_, 64);
    k[0] = 6;
    bn254_fp12_cyclotomic_pow(&t, &y2, k, 3);     /* y2^6 */
    bn254_fp12_cyclotomic_pow(&A, &y3, k, 3);
    bn254_fp12_cyclotomic_sqr(&A, &A);            /* y3^12 */
    bn254_fp12_mul(&A, &A, &t);                   /* A = y2^6 y3^12 */
    bn254_fp12_cyclotomic_sqr(&C, &y1);           /* y1^2 */
    bn254_fp12_cyclotomic_sqr(&B, &C);            /* y1^4 */
    bn254_fp12_mul(&B, &B, &A);                   /* B = f^l1 */
    bn254_fp12_mul(&C, &C, &B);                   /* C = f^l2 */
    bn254_fp12_mul(&D, &C, &t);
    bn254_fp12_mul(&D, &D, f);                    /* D = f^l0 */
    bn254_fp12_conj(&E, f);
    bn254_fp12_mul(&E, &E, &B);                   /* E = f^l3 */
    bn254_fp12_frobenius(&B, &B, 1);
    bn254_fp12_frobenius(&C, &C, 2);
    bn254_fp12_frobenius(&E, &E, 3);
    bn254_fp12_mul(&D, &D, &B);
    bn254_fp12_mul(&D, &D, &C);
    bn254_fp12_mul(ret, &D, &E);
}

/* NAF of 6x + 2 = 29793968203157093288, most significant first, leading 1 dropped */
#define BN254_PAIRING_LOOP { \
    0, -1, 0, 1, 0, 0, 0, -1, 0, -1, 0, 0, 0, -1, 0, 1, 0, -1, 0, 0, -1, 0, 0, 0, 0, 0, \
    1, 0, 0, -1, 0, 1, 0, 0, -1, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, -1, 0, -1, 0, 0, 1, 0, \
    0, 0, -1, 0, 0, -1, 0, 1, 0, 1, 0, 0, 0 }
/*                      curve   constants MTYPE BN XNEG  (pairing_tmpl.h) */
#define ZK_PAIRING_TMPL (bn254,  BN254,    0,    1, 0)
#include "pairing_tmpl.h"

/* ------------------------------------------------------------ BLS12-381 */

/* |x| = 0xd201000000010000 (x < 0) */
static const limb_t BLS381_ABSX_[1] = { 0xd201000000010000ULL };
/*
 * f^(3 (p^4 - p^2 + 1)/r) for cyclotomic f: the multiple used by blst,
 * zkcrypto's bls12_381 and snarkjs (their published e(G1, G2) and
 * vk_alphabeta_12 values), via Hayashida-Hayasaka-Teruya:
 *   3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
 * (identity checked by common/ff/gen_fp12_consts.py).  gcd(3, r) = 1.  Cost:
 * 5 exponentiations by |x|; f^x = conj(f^|x|) since x < 0.
 */
static void bls381_pow_x_(bls381_fp12 *r, const bls381_fp12 *a)
{
    bls381_fp12_cyclotomic_pow(r, a, BLS381_ABSX_, 64);
    bls381_fp12_conj(r, r);
}

static void bls381_hard_(bls381_fp12 *ret, const bls381_fp12 *f)
{
    bls381_fp12 a, b, c, t;
    /* a = f^((x-1)^2): g = f^(x-1) = f^x / f, a = g^x / g */
    bls381_pow_x_(&t, f);
    bls381_fp12_conj(&a, f);
    bls381_fp12_mul(&a, &a, &t);
    bls381_pow_x_(&t, &a);
    bls381_fp12_conj(&a, &a);
    bls381_fp12_mul(&a, &a, &t);
    /* b = a^(x + p) */
    bls381_pow_x_(&b, &a);
    bls381_fp12_frobenius(&t, &a, 1);
    bls381_fp12_mul(&b, &b, &t);
    /* c = b^(x^2 + p^2 - 1) */
    bls381_pow_x_(&c, &b);
    bls381_pow_x_(&c, &c);
    bls381_fp12_frobenius(&t, &b, 2);
    bls381_fp12_mul(&c, &c, &t);
    bls381_fp12_conj(&t, &b);
    bls381_fp12_mul(&c, &c, &t);
    /* times f^3 */
    bls381_fp12_cyclotomic_sqr(&t, f);
    bls381_fp12_mul(&t, &t, f);
    bls381_fp12_mul(ret, &c, &t);
}

/* bits of |x| = 0xd201000000010000, most significant first, leading 1 dropped */
#define BLS381_PAIRING_LOOP { \
    1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, \
    0, 0, 0, 0, 0, 0, 0 }
/*                      curve   constants MTYPE BN XNEG  (pairing_tmpl.h) */
#define ZK_PAIRING_TMPL (bls381, BLS381,   1,    0, 1)
#include "pairing_tmpl.h"

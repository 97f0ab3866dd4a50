/*
 * test_mont32.c -- the GPU's 32-bit-word Montgomery multiplication and
 * squaring (common/ff/mont32.h: mul_mont_n_32, sqr_mont_n_32) against the
 * CPU field (bn254_fp_mul & co., the 64-bit CIOS or its x86-64 asm) on
 * BN254 Fp, Fr and BLS12-381 Fp, Fr: every pair of the edge values (0, 1,
 * 2, R mod p (Montgomery 1), R^2 mod p, p - 1, p - 2, (p - 1) / 2, 2^32 - 1,
 * 2^64 - 1, values with all-ones and all-zero 32-bit words below p) and
 * 20000 random pairs per field, aliased outputs included.  The seed is
 * printed; ZT_SEED reproduces a run.
 */
#include <stdio.h>
#include <string.h>

#include "ff/fields.h"
#include "zktest.h"

#define NEDGE 13

/* edge values of a field of n limbs with modulus p, Montgomery one `one` and
 * R^2 `r2` (as raw limb vectors: the functions see limbs, not elements) */
static void edges(limb_t e[NEDGE][ZK_MAX_LIMBS], const limb_t *p, const limb_t *one,
                  const limb_t *r2, size_t n)
{
    memset(e, 0, sizeof(limb_t) * NEDGE * ZK_MAX_LIMBS);
    e[1][0] = 1;
    e[2][0] = 2;
    memcpy(e[3], one, n * sizeof *p);
    memcpy(e[4], r2, n * sizeof *p);
    memcpy(e[5], p, n * sizeof *p);
    e[5][0] -= 1;                                  /* p - 1 (p odd) */
    memcpy(e[6], p, n * sizeof *p);
    e[6][0] -= 2;                                  /* p - 2 */
    for (size_t i = 0; i < n; i++)                 /* (p - 1) / 2 */
        e[7][i] = e[5][i] >> 1 | (i + 1 < n ? e[5][i + 1] << 63 : 0);
    e[8][0] = 0xffffffffULL;
    e[9][0] = ~0ULL;
    for (size_t i = 0; i + 1 < n; i++)             /* all-ones words below p */
        e[10][i] = ~0ULL;
    e[11][n - 1] = p[n - 1] - 1;                   /* top word only, low ones 0 */
    for (size_t i = 0; i < n; i++)                 /* alternating 32-bit words */
        e[12][i] = 0xffffffff00000000ULL;
    e[12][n - 1] &= p[n - 1] >> 1;
}

/* one field: mul and sqr of mont32 against the CPU's mul and sqr */
#define CHECK_FIELD(F, N0)                                                     \
    static void F##_check(void)                                                \
    {                                                                          \
        const size_t n = sizeof(F) / sizeof(limb_t);                           \
        limb_t e[NEDGE][ZK_MAX_LIMBS];                                         \
        F one, r2, x, y, want, got;                                            \
        long bad = 0;                                                          \
        F##_one(&one);                                                         \
        F##_one(&r2);                                                          \
        F##_to_mont(&r2, &r2);           /* R^2 mod p as limbs: to_mont(R) */  \
        edges(e, F##_P_, one.l, r2.l, n);                                      \
        for (int k = 0; k < NEDGE * NEDGE + 20000; k++) {                      \
            if (k < NEDGE * NEDGE) {                                           \
                memcpy(x.l, e[k / NEDGE], sizeof x.l);                         \
                memcpy(y.l, e[k % NEDGE], sizeof y.l);                         \
            } else {                                                           \
                do {                                                           \
                    zt_rand_bytes(x.l, sizeof x.l);                            \
                    x.l[n - 1] &= ~0ULL >> (k % 3);                            \
                } while (!F##_is_canonical(x.l));                              \
                do {                                                           \
                    zt_rand_bytes(y.l, sizeof y.l);                            \
                    y.l[n - 1] &= ~0ULL >> (k % 5);                            \
                } while (!F##_is_canonical(y.l));                              \
            }                                                                  \
            ZT_REQUIRE(F##_is_canonical(x.l) && F##_is_canonical(y.l), ,       \
                       #F ": edge value %d not below p", k);                   \
            F##_mul(&want, &x, &y);                                            \
            mul_mont_n_32(got.l, x.l, y.l, F##_P_, N0, n);                     \
            if (!F##_eq(&got, &want) && bad++ < 5)                             \
                ZT_CHECK(0, #F ": mul_mont_n_32 differs from the CPU (pair %d)", k); \
            got = x;                                                           \
            mul_mont_n_32(got.l, got.l, y.l, F##_P_, N0, n);   /* ret = a */   \
            if (!F##_eq(&got, &want) && bad++ < 5)                             \
                ZT_CHECK(0, #F ": mul_mont_n_32 aliased differs (pair %d)", k); \
            F##_sqr(&want, &x);                                                \
            sqr_mont_n_32(got.l, x.l, F##_P_, N0, n);                          \
            if (!F##_eq(&got, &want) && bad++ < 5)                             \
                ZT_CHECK(0, #F ": sqr_mont_n_32 differs from the CPU (value %d)", k); \
            got = x;                                                           \
            sqr_mont_n_32(got.l, got.l, F##_P_, N0, n);                        \
            if (!F##_eq(&got, &want) && bad++ < 5)                             \
                ZT_CHECK(0, #F ": sqr_mont_n_32 aliased differs (value %d)", k); \
        }                                                                      \
        printf("%s: %ld mismatches in %d pairs\n", #F, bad, NEDGE * NEDGE + 20000); \
    }
CHECK_FIELD(bn254_fp, BN254_FP_N0)
CHECK_FIELD(bn254_fr, BN254_FR_N0)
CHECK_FIELD(bls381_fp, BLS381_FP_N0)
CHECK_FIELD(bls381_fr, BLS381_FR_N0)

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    bn254_fp_check();
    bn254_fr_check();
    bls381_fp_check();
    bls381_fr_check();
    return zt_finish();
}

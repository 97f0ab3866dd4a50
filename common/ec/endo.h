/*
 * endo.h -- the curve endomorphisms and the fast prime-order subgroup checks
 * built on them.  Included by curves.h after the four groups are
 * instantiated; not meant to be included on its own.
 *
 *   bls381_g1_sigma   sigma(x, y) = (beta x, y), beta a cube root of unity in
 *                     Fp chosen so that sigma acts on G1 as [-x^2]
 *   bn254_g2_psi,     psi = untwist o Frobenius o twist; acts on G2 as [p mod r]
 *   bls381_g2_psi     (BN254: 6u^2, BLS12-381: x)
 *
 * Subgroup checks (all require a point ON the curve; for other inputs the
 * answer is meaningless -- check is_on_curve first):
 *   bn254_g1:   cofactor 1, every point on the curve is in G1.
 *   bn254_g2:   [u+1]P + psi([u]P) + psi^2([u]P) = psi^3([2u]P)
 *               (Dai-Lin-Zhao-Zhou, eprint 2022/348, valid for BN curves with
 *               u != 4 mod 13 and u != 92 mod 97; BN254's u = 4965661367192848881
 *               satisfies both).
 *   bls381_g1:  sigma(P) = -[x^2]P          (Scott, eprint 2021/1130, sec. 4;
 *   bls381_g2:  psi(P) = [x]P                also EIP-2537's checks)
 * tests/test_ec.c compares each with [r]P = O on points in and out of the
 * subgroup.  Variable time.
 */
#ifndef ZK_COMMON_EC_ENDO_H
#define ZK_COMMON_EC_ENDO_H

/* BN254 seed u (positive) and |x| of BLS12-381 (x = -0xd201000000010000) */
#define BN254_SEED_U 0x44e992b44a6909f1ULL        /* 4965661367192848881 */
#define BLS381_SEED_ABS_X 0xd201000000010000ULL

/* psi coefficients, Montgomery form: BN254 (D-type twist, xi = 9+u):
 * cx = xi^((p-1)/3), cy = xi^((p-1)/2); BLS12-381 (M-type, xi = 1+u):
 * cx = xi^-((p-1)/3), cy = xi^-((p-1)/2). */
#define BN254_G2_PSI_CX { { { 0xb5773b104563ab30ULL, 0x347f91c8a9aa6454ULL, 0x7a007127242e0991ULL, 0x1956bcd8118214ecULL } }, { { 0x6e849f1ea0aa4757ULL, 0xaa1c7b6d89f89141ULL, 0xb6e713cdfae0ca3aULL, 0x26694fbb4e82ebc3ULL } } }
#define BN254_G2_PSI_CY { { { 0xe4bbdd0c2936b629ULL, 0xbb30f162e133bacbULL, 0x31a9d1b6f9645366ULL, 0x253570bea500f8ddULL } }, { { 0xa1d77ce45ffe77c7ULL, 0x07affd117826d1dbULL, 0x6d16bd27bb7edc6bULL, 0x2c87200285defeccULL } } }
#define BLS381_G2_PSI_CX { { { 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL, 0x0000000000000000ULL } }, { { 0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL, 0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL } } }
#define BLS381_G2_PSI_CY { { { 0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL, 0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL } }, { { 0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL, 0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL } } }
/* beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe
 * (beta^3 = 1), Montgomery form */
#define BLS381_G1_BETA { { 0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL } }

static const bn254_fp2 BN254_G2_PSI_CX_ = BN254_G2_PSI_CX;
static const bn254_fp2 BN254_G2_PSI_CY_ = BN254_G2_PSI_CY;
static const bls381_fp2 BLS381_G2_PSI_CX_ = BLS381_G2_PSI_CX;
static const bls381_fp2 BLS381_G2_PSI_CY_ = BLS381_G2_PSI_CY;
static const bls381_fp BLS381_G1_BETA_ = BLS381_G1_BETA;

/* r = sigma(p) = (beta X, Y, Z) (Jacobian: x = X/Z^2 scales the same way). */
ZK_INLINE void bls381_g1_sigma(bls381_g1 *r, const bls381_g1 *p)
{ bls381_fp_mul(&r->x, &p->x, &BLS381_G1_BETA_); r->y = p->y; r->z = p->z; }

/* r = psi(p): conjugate every coordinate (a field automorphism, so it is
 * compatible with Jacobian scaling), then x *= cx, y *= cy. */
ZK_INLINE void bn254_g2_psi(bn254_g2 *r, const bn254_g2 *p)
{
    bn254_fp2_conj(&r->x, &p->x);
    bn254_fp2_mul(&r->x, &r->x, &BN254_G2_PSI_CX_);
    bn254_fp2_conj(&r->y, &p->y);
    bn254_fp2_mul(&r->y, &r->y, &BN254_G2_PSI_CY_);
    bn254_fp2_conj(&r->z, &p->z);
}

ZK_INLINE void bls381_g2_psi(bls381_g2 *r, const bls381_g2 *p)
{
    bls381_fp2_conj(&r->x, &p->x);
    bls381_fp2_mul(&r->x, &r->x, &BLS381_G2_PSI_CX_);
    bls381_fp2_conj(&r->y, &p->y);
    bls381_fp2_mul(&r->y, &r->y, &BLS381_G2_PSI_CY_);
    bls381_fp2_conj(&r->z, &p->z);
}

/* 1: BN254 G1 has cofactor 1 (p on the curve assumed). */
static inline int bn254_g1_in_subgroup(const bn254_g1 *p)
{ (void)p; return 1; }

/* 1 if [u+1]P + psi([u]P) + psi^2([u]P) == psi^3([2u]P) (see top). */
static inline int bn254_g2_in_subgroup(const bn254_g2 *p)
{
    static const limb_t u[1] = { BN254_SEED_U };
    bn254_g2 up, lhs, t, rhs;
    bn254_g2_mul_ref(&up, p, u, 64);               /* [u]P: sparse 63-bit scalar */
    bn254_g2_add_ool(&lhs, &up, p);                    /* [u+1]P */
    bn254_g2_psi(&t, &up);
    bn254_g2_add_ool(&lhs, &lhs, &t);                  /* + psi([u]P) */
    bn254_g2_psi(&t, &t);
    bn254_g2_add_ool(&lhs, &lhs, &t);                  /* + psi^2([u]P) */
    bn254_g2_psi(&t, &t);                          /* psi^3([u]P) */
    bn254_g2_dbl_ool(&rhs, &t);                        /* psi^3([2u]P) */
    return bn254_g2_eq(&lhs, &rhs);
}

/* 1 if sigma(P) == -[x^2]P, i.e. sigma(P) + [|x|]([|x|]P) == O. */
static inline int bls381_g1_in_subgroup(const bls381_g1 *p)
{
    static const limb_t ax[1] = { BLS381_SEED_ABS_X };
    bls381_g1 q, s;
    bls381_g1_mul_ref(&q, p, ax, 64);
    bls381_g1_mul_ref(&q, &q, ax, 64);             /* [x^2]P */
    bls381_g1_sigma(&s, p);
    bls381_g1_add_ool(&q, &q, &s);
    return bls381_g1_is_inf(&q);
}

/* 1 if psi(P) == [x]P = -[|x|]P, i.e. psi(P) + [|x|]P == O. */
static inline int bls381_g2_in_subgroup(const bls381_g2 *p)
{
    static const limb_t ax[1] = { BLS381_SEED_ABS_X };
    bls381_g2 q, s;
    bls381_g2_mul_ref(&q, p, ax, 64);
    bls381_g2_psi(&s, p);
    bls381_g2_add_ool(&q, &q, &s);
    return bls381_g2_is_inf(&q);
}

/* The same checks for affine points (infinity: 1; point on the curve assumed). */
#define ZK_EC_AFFINE_IN_SUBGROUP_(G)                                   \
    static inline int G##_affine_in_subgroup(const G##_affine *a)      \
    {                                                                  \
        G p;                                                           \
        G##_from_affine(&p, a);                                        \
        return G##_in_subgroup(&p);                                    \
    }
ZK_EC_AFFINE_IN_SUBGROUP_(bn254_g1)
ZK_EC_AFFINE_IN_SUBGROUP_(bn254_g2)
ZK_EC_AFFINE_IN_SUBGROUP_(bls381_g1)
ZK_EC_AFFINE_IN_SUBGROUP_(bls381_g2)
#undef ZK_EC_AFFINE_IN_SUBGROUP_

#endif /* ZK_COMMON_EC_ENDO_H */

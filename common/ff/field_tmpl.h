/*
 * field_tmpl.h -- one prime field in Montgomery form, instantiated per modulus.
 *
 * Not a normal header: fields.h includes it once per field, each time right
 * after the one line that names the field's parameters (this file undefines
 * it at its end):
 *   #define ZK_FIELD_TMPL (bn254_fp, BN254_FP, 4, 32, 1)
 * that is: the type (a struct of zk/types.h), also the prefix of its
 * functions; the prefix of its constants in consts.h (_P _ONE _R2 _N0 _PM2
 * _INVK, and _SQRT_EXP from fields.h); the limb count; the canonical byte
 * length; 1 when p = 3 mod 4 and sqrt is made.
 *
 * Elements are kept fully reduced in Montgomery form: x is stored as
 * x * 2^(64*N) mod p.  This is exactly snarkjs's on-disk "Montgomery LE"
 * encoding on a little-endian machine, so zkey sections can be used in place.
 * All functions allow ret to alias the inputs.  None can fail unless its
 * comment says so.
 *
 * Generated names (the types, then their functions; sqrt only for Fp):
 *   bn254_fp bn254_fp_zero bn254_fp_one bn254_fp_is_zero bn254_fp_is_one
 *   bn254_fp_eq bn254_fp_add bn254_fp_sub bn254_fp_dbl bn254_fp_neg
 *   bn254_fp_mul bn254_fp_sqr bn254_fp_mul_wide bn254_fp_redc
 *   bn254_fp_to_mont bn254_fp_from_mont
 *   bn254_fp_from_u64 bn254_fp_is_canonical bn254_fp_pow bn254_fp_inv_fermat
 *   bn254_fp_inv bn254_fp_sqrt bn254_fp_batch_inv bn254_fp_to_bytes_le
 *   bn254_fp_to_bytes_be bn254_fp_from_bytes_le bn254_fp_from_bytes_be
 *   bls381_fp bls381_fp_zero bls381_fp_one bls381_fp_is_zero bls381_fp_is_one
 *   bls381_fp_eq bls381_fp_add bls381_fp_sub bls381_fp_dbl bls381_fp_neg
 *   bls381_fp_mul bls381_fp_sqr bls381_fp_mul_wide bls381_fp_redc
 *   bls381_fp_to_mont bls381_fp_from_mont
 *   bls381_fp_from_u64 bls381_fp_is_canonical bls381_fp_pow
 *   bls381_fp_inv_fermat bls381_fp_inv bls381_fp_sqrt bls381_fp_batch_inv
 *   bls381_fp_to_bytes_le bls381_fp_to_bytes_be bls381_fp_from_bytes_le
 *   bls381_fp_from_bytes_be
 *   bn254_fr bn254_fr_zero bn254_fr_one bn254_fr_is_zero bn254_fr_is_one
 *   bn254_fr_eq bn254_fr_add bn254_fr_sub bn254_fr_dbl bn254_fr_neg
 *   bn254_fr_mul bn254_fr_sqr bn254_fr_mul_wide bn254_fr_redc
 *   bn254_fr_to_mont bn254_fr_from_mont
 *   bn254_fr_from_u64 bn254_fr_is_canonical bn254_fr_pow bn254_fr_inv_fermat
 *   bn254_fr_inv bn254_fr_batch_inv bn254_fr_to_bytes_le bn254_fr_to_bytes_be
 *   bn254_fr_from_bytes_le bn254_fr_from_bytes_be
 *   bls381_fr bls381_fr_zero bls381_fr_one bls381_fr_is_zero bls381_fr_is_one
 *   bls381_fr_eq bls381_fr_add bls381_fr_sub bls381_fr_dbl bls381_fr_neg
 *   bls381_fr_mul bls381_fr_sqr bls381_fr_mul_wide bls381_fr_redc
 *   bls381_fr_to_mont bls381_fr_from_mont
 *   bls381_fr_from_u64 bls381_fr_is_canonical bls381_fr_pow
 *   bls381_fr_inv_fermat bls381_fr_inv bls381_fr_batch_inv
 *   bls381_fr_to_bytes_le bls381_fr_to_bytes_be bls381_fr_from_bytes_le
 *   bls381_fr_from_bytes_be
 */
#define ZK_F          ZK_ARG(1, ZK_FIELD_TMPL)    /* the type (bn254_fp) */
#define FIELD_FN(name) ZK_CAT(ZK_F, name)         /* FIELD_FN(add): bn254_fp_add */
#define FIELD_CONST(k) ZK_CAT(ZK_ARG(2, ZK_FIELD_TMPL), k) /* FIELD_CONST(P): BN254_FP_P */
#define ZK_F_N        ZK_ARG(3, ZK_FIELD_TMPL)    /* limbs */
#define ZK_F_BYTES    ZK_ARG(4, ZK_FIELD_TMPL)
#define ZK_F_HAS_SQRT ZK_ARG(5, ZK_FIELD_TMPL)
#define ZK_F_P     FIELD_CONST(P)
#define ZK_F_ONE   FIELD_CONST(ONE)
#define ZK_F_R2    FIELD_CONST(R2)
#define ZK_F_N0    FIELD_CONST(N0)
#define ZK_F_PM2   FIELD_CONST(PM2)
#define ZK_F_INVK  FIELD_CONST(INVK)
#define ZK_F_SQRT  FIELD_CONST(SQRT_EXP)

/* the type ZK_F, ZK_F_N limbs, is defined by zk/types.h */

static const limb_t FIELD_FN(P_)[ZK_F_N] = ZK_F_P;
static const limb_t FIELD_FN(ONE_)[ZK_F_N] = ZK_F_ONE;
static const limb_t FIELD_FN(R2_)[ZK_F_N] = ZK_F_R2;
static const limb_t FIELD_FN(PM2_)[ZK_F_N] = ZK_F_PM2;
static const limb_t FIELD_FN(INVK_)[ZK_F_N] = ZK_F_INVK;
#if ZK_F_HAS_SQRT
static const limb_t FIELD_FN(SQRT_)[ZK_F_N] = ZK_F_SQRT;
#endif
#ifdef __CUDACC__
/* Device copies of the constants the ZK_HD functions read (host arrays are
 * not visible in device code); ZK_FK(x) picks the copy of the pass being
 * compiled. */
static __constant__ const limb_t FIELD_FN(P_D)[ZK_F_N] = ZK_F_P;
static __constant__ const limb_t FIELD_FN(ONE_D)[ZK_F_N] = ZK_F_ONE;
static __constant__ const limb_t FIELD_FN(R2_D)[ZK_F_N] = ZK_F_R2;
#endif
#ifndef ZK_FK
# ifdef __CUDA_ARCH__
#  define ZK_FK(x) FIELD_FN(x##D)
# else
#  define ZK_FK(x) FIELD_FN(x)
# endif
#endif

ZK_HD void FIELD_FN(zero)(ZK_F *ret) { zero_n(ret->l, ZK_F_N); }
ZK_HD void FIELD_FN(one)(ZK_F *ret) { copy_n(ret->l, ZK_FK(ONE_), ZK_F_N); }
ZK_HD int FIELD_FN(is_zero)(const ZK_F *a) { return is_zero_n(a->l, ZK_F_N); }
ZK_HD int FIELD_FN(is_one)(const ZK_F *a) { return eq_n(a->l, ZK_FK(ONE_), ZK_F_N); }
ZK_HD int FIELD_FN(eq)(const ZK_F *a, const ZK_F *b) { return eq_n(a->l, b->l, ZK_F_N); }

ZK_HD void FIELD_FN(add)(ZK_F *ret, const ZK_F *a, const ZK_F *b)
{ add_mod_n(ret->l, a->l, b->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FIELD_FN(sub)(ZK_F *ret, const ZK_F *a, const ZK_F *b)
{ sub_mod_n(ret->l, a->l, b->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FIELD_FN(dbl)(ZK_F *ret, const ZK_F *a)
{ add_mod_n(ret->l, a->l, a->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FIELD_FN(neg)(ZK_F *ret, const ZK_F *a)
{ neg_mod_n(ret->l, a->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FIELD_FN(mul)(ZK_F *ret, const ZK_F *a, const ZK_F *b)
{ mul_mont_n(ret->l, a->l, b->l, ZK_FK(P_), ZK_F_N0, ZK_F_N); }

ZK_HD void FIELD_FN(sqr)(ZK_F *ret, const ZK_F *a)
{ sqr_mont_n(ret->l, a->l, ZK_FK(P_), ZK_F_N0, ZK_F_N); }

/* Double-width steps of lazy reduction (fp2_tmpl.h): ret (2N limbs) = a * b
 * unreduced, for any N-limb a, b; ret = t * 2^(-64N) mod p for a 2N-limb
 * t < p * 2^(64N).  Neither ret may alias an input. */
ZK_HD void FIELD_FN(mul_wide)(limb_t *ret, const limb_t *a, const limb_t *b)
{ mul_wide_n(ret, a, b, ZK_F_N); }

ZK_HD void FIELD_FN(redc)(ZK_F *ret, const limb_t *t)
{ redc_n(ret->l, t, ZK_FK(P_), ZK_F_N0, ZK_F_N); }

/* plain integer (< p) -> Montgomery form */
ZK_HD void FIELD_FN(to_mont)(ZK_F *ret, const ZK_F *a)
{ mul_mont_n(ret->l, a->l, ZK_FK(R2_), ZK_FK(P_), ZK_F_N0, ZK_F_N); }

/* Montgomery form -> plain integer */
ZK_HD void FIELD_FN(from_mont)(ZK_F *ret, const ZK_F *a)
{ from_mont_n(ret->l, a->l, ZK_FK(P_), ZK_F_N0, ZK_F_N); }

/* ret = v (small integer), Montgomery form. */
ZK_HD void FIELD_FN(from_u64)(ZK_F *ret, uint64_t v)
{
    ZK_F t;
    zero_n(t.l, ZK_F_N);
    t.l[0] = v;
    if (cmp_n(t.l, ZK_FK(P_), ZK_F_N) >= 0)   /* only when p fits in one limb */
        sub_n(t.l, t.l, ZK_FK(P_), ZK_F_N);
    FIELD_FN(to_mont)(ret, &t);
}

/* 1 if the limbs hold an integer < p. */
ZK_HD int FIELD_FN(is_canonical)(const limb_t *a)
{ return cmp_n(a, ZK_FK(P_), ZK_F_N) < 0; }

/* ret = a^e, e a little-endian limb vector of nbits bits (left to right). */
static inline void FIELD_FN(pow)(ZK_F *ret, const ZK_F *a, const limb_t *e, size_t nbits)
{
    ZK_F acc, base = *a;
    FIELD_FN(one)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        FIELD_FN(sqr)(&acc, &acc);
        if (bit_n(e, i))
            FIELD_FN(mul)(&acc, &acc, &base);
    }
    *ret = acc;
}

/* ret = a^-1 by Fermat (a^(p-2)), constant time; ret = 0 when a = 0. */
static inline void FIELD_FN(inv_fermat)(ZK_F *ret, const ZK_F *a)
{ FIELD_FN(pow)(ret, a, FIELD_FN(PM2_), 64 * ZK_F_N); }

/*
 * ret = a^-1; ret = 0 when a = 0.  Binary GCD (inv_gcd_n in vec.h, variable
 * time, several times faster than Fermat); the result is verified with one
 * multiplication and Fermat is used should that ever fail.
 */
static inline void FIELD_FN(inv)(ZK_F *ret, const ZK_F *a)
{
    ZK_F r, chk;
    if (FIELD_FN(is_zero)(a)) {
        FIELD_FN(zero)(ret);
        return;
    }
    if (inv_gcd_n(r.l, a->l, FIELD_FN(P_), ZK_F_N0, FIELD_FN(INVK_), ZK_F_N)) {
        FIELD_FN(mul)(&chk, &r, a);
        if (FIELD_FN(is_one)(&chk)) {
            *ret = r;
            return;
        }
    }
    FIELD_FN(inv_fermat)(ret, a);
}

#if ZK_F_HAS_SQRT
/*
 * ret = a square root of a, when one exists (p = 3 mod 4: a^((p+1)/4)).
 * Returns 1 if a is a square (ret then squares to a), 0 otherwise (ret is
 * unspecified but written).
 */
static inline int FIELD_FN(sqrt)(ZK_F *ret, const ZK_F *a)
{
    ZK_F r, chk;
    FIELD_FN(pow)(&r, a, FIELD_FN(SQRT_), 64 * ZK_F_N);
    FIELD_FN(sqr)(&chk, &r);
    *ret = r;
    return FIELD_FN(eq)(&chk, a);
}
#endif

/*
 * Batch inversion (Montgomery's trick): ret[i] = a[i]^-1 for i < n with one
 * field inversion and 3(n-1) multiplications.  Zeros are skipped (their
 * output is 0).  `scratch` holds n elements; ret may alias a but not scratch.
 */
static inline void FIELD_FN(batch_inv)(ZK_F *ret, const ZK_F *a, size_t n, ZK_F *scratch)
{
    ZK_F acc, t;
    FIELD_FN(one)(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;                       /* prefix product of a[0..i) */
        if (!FIELD_FN(is_zero)(&a[i]))
            FIELD_FN(mul)(&acc, &acc, &a[i]);
    }
    FIELD_FN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FIELD_FN(is_zero)(&a[i])) {
            FIELD_FN(zero)(&ret[i]);
            continue;
        }
        FIELD_FN(mul)(&t, &acc, &scratch[i]);         /* a[i]^-1 */
        FIELD_FN(mul)(&acc, &acc, &a[i]);
        ret[i] = t;
    }
}

/* Canonical little-endian bytes (ZK_F_BYTES) of the plain value of a. */
static inline void FIELD_FN(to_bytes_le)(uint8_t *out, const ZK_F *a)
{
    ZK_F t;
    FIELD_FN(from_mont)(&t, a);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        out[i] = (uint8_t)(t.l[i / 8] >> (8 * (i % 8)));
}

/* Canonical big-endian bytes (ZK_F_BYTES) of the plain value of a. */
static inline void FIELD_FN(to_bytes_be)(uint8_t *out, const ZK_F *a)
{
    ZK_F t;
    FIELD_FN(from_mont)(&t, a);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        out[ZK_F_BYTES - 1 - i] = (uint8_t)(t.l[i / 8] >> (8 * (i % 8)));
}

/* Little-endian bytes -> Montgomery form.  Returns 0, or -1 if value >= p
 * (ret is not written then). */
static inline int FIELD_FN(from_bytes_le)(ZK_F *ret, const uint8_t *in)
{
    ZK_F t;
    zero_n(t.l, ZK_F_N);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        t.l[i / 8] |= (limb_t)in[i] << (8 * (i % 8));
    if (!FIELD_FN(is_canonical)(t.l))
        return -1;
    FIELD_FN(to_mont)(ret, &t);
    return 0;
}

/* Big-endian bytes -> Montgomery form.  Returns 0, or -1 if value >= p. */
static inline int FIELD_FN(from_bytes_be)(ZK_F *ret, const uint8_t *in)
{
    ZK_F t;
    zero_n(t.l, ZK_F_N);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        t.l[i / 8] |= (limb_t)in[ZK_F_BYTES - 1 - i] << (8 * (i % 8));
    if (!FIELD_FN(is_canonical)(t.l))
        return -1;
    FIELD_FN(to_mont)(ret, &t);
    return 0;
}

#undef ZK_FK
#undef FIELD_FN
#undef FIELD_CONST
#undef ZK_F
#undef ZK_F_N
#undef ZK_F_BYTES
#undef ZK_F_HAS_SQRT
#undef ZK_F_P
#undef ZK_F_ONE
#undef ZK_F_R2
#undef ZK_F_N0
#undef ZK_F_PM2
#undef ZK_F_INVK
#undef ZK_F_SQRT
#undef ZK_FIELD_TMPL

/*
 * field_tmpl.h -- one prime field in Montgomery form, instantiated per modulus.
 *
 * Not a normal header: it is included once per field by fields.h with these
 * macros defined (and undefined again afterwards):
 *   ZK_F        name prefix, e.g. bn254_fp          (type: ZK_F, functions ZK_F_xxx)
 *   ZK_F_N      limb count (4 or 6)
 *   ZK_F_BYTES  canonical byte length (32 or 48)
 *   ZK_F_P, ZK_F_ONE, ZK_F_R2, ZK_F_N0, ZK_F_PM2, ZK_F_INVK   constants from consts.h
 *   ZK_F_SQRT   optional: (p+1)/4 as a limb array when p = 3 mod 4
 *
 * Elements are kept fully reduced in Montgomery form: x is stored as
 * x * 2^(64*N) mod p.  This is exactly snarkjs's on-disk "Montgomery LE"
 * encoding on a little-endian machine, so zkey sections can be used in place.
 * All functions allow ret to alias the inputs.  None can fail unless its
 * comment says so.
 */
#define ZK_CAT_(a, b) a##_##b
#define ZK_CAT(a, b) ZK_CAT_(a, b)
#define FN(name) ZK_CAT(ZK_F, name)

typedef struct { limb_t l[ZK_F_N]; } ZK_F;

static const limb_t FN(P_)[ZK_F_N] = ZK_F_P;
static const limb_t FN(ONE_)[ZK_F_N] = ZK_F_ONE;
static const limb_t FN(R2_)[ZK_F_N] = ZK_F_R2;
static const limb_t FN(PM2_)[ZK_F_N] = ZK_F_PM2;
static const limb_t FN(INVK_)[ZK_F_N] = ZK_F_INVK;
#ifdef ZK_F_SQRT
static const limb_t FN(SQRT_)[ZK_F_N] = ZK_F_SQRT;
#endif
#ifdef __CUDACC__
/* Device copies of the constants the ZK_HD functions read (host arrays are
 * not visible in device code); ZK_FK(x) picks the copy of the pass being
 * compiled. */
static __constant__ const limb_t FN(P_D)[ZK_F_N] = ZK_F_P;
static __constant__ const limb_t FN(ONE_D)[ZK_F_N] = ZK_F_ONE;
static __constant__ const limb_t FN(R2_D)[ZK_F_N] = ZK_F_R2;
#endif
#ifndef ZK_FK
# ifdef __CUDA_ARCH__
#  define ZK_FK(x) FN(x##D)
# else
#  define ZK_FK(x) FN(x)
# endif
#endif

ZK_HD void FN(zero)(ZK_F *ret) { zero_n(ret->l, ZK_F_N); }
ZK_HD void FN(one)(ZK_F *ret) { copy_n(ret->l, ZK_FK(ONE_), ZK_F_N); }
ZK_HD int FN(is_zero)(const ZK_F *a) { return is_zero_n(a->l, ZK_F_N); }
ZK_HD int FN(is_one)(const ZK_F *a) { return eq_n(a->l, ZK_FK(ONE_), ZK_F_N); }
ZK_HD int FN(eq)(const ZK_F *a, const ZK_F *b) { return eq_n(a->l, b->l, ZK_F_N); }

ZK_HD void FN(add)(ZK_F *ret, const ZK_F *a, const ZK_F *b)
{ add_mod_n(ret->l, a->l, b->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FN(sub)(ZK_F *ret, const ZK_F *a, const ZK_F *b)
{ sub_mod_n(ret->l, a->l, b->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FN(dbl)(ZK_F *ret, const ZK_F *a)
{ add_mod_n(ret->l, a->l, a->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FN(neg)(ZK_F *ret, const ZK_F *a)
{ neg_mod_n(ret->l, a->l, ZK_FK(P_), ZK_F_N); }

ZK_HD void FN(mul)(ZK_F *ret, const ZK_F *a, const ZK_F *b)
{ mul_mont_n(ret->l, a->l, b->l, ZK_FK(P_), ZK_F_N0, ZK_F_N); }

ZK_HD void FN(sqr)(ZK_F *ret, const ZK_F *a)
{ sqr_mont_n(ret->l, a->l, ZK_FK(P_), ZK_F_N0, ZK_F_N); }

/* plain integer (< p) -> Montgomery form */
ZK_HD void FN(to_mont)(ZK_F *ret, const ZK_F *a)
{ mul_mont_n(ret->l, a->l, ZK_FK(R2_), ZK_FK(P_), ZK_F_N0, ZK_F_N); }

/* Montgomery form -> plain integer */
ZK_HD void FN(from_mont)(ZK_F *ret, const ZK_F *a)
{ from_mont_n(ret->l, a->l, ZK_FK(P_), ZK_F_N0, ZK_F_N); }

/* ret = v (small integer), Montgomery form. */
ZK_HD void FN(from_u64)(ZK_F *ret, uint64_t v)
{
    ZK_F t;
    zero_n(t.l, ZK_F_N);
    t.l[0] = v;
    if (cmp_n(t.l, ZK_FK(P_), ZK_F_N) >= 0)   /* only when p fits in one limb */
        sub_n(t.l, t.l, ZK_FK(P_), ZK_F_N);
    FN(to_mont)(ret, &t);
}

/* 1 if the limbs hold an integer < p. */
ZK_HD int FN(is_canonical)(const limb_t *a)
{ return cmp_n(a, ZK_FK(P_), ZK_F_N) < 0; }

/* ret = a^e, e a little-endian limb vector of nbits bits (left to right). */
static inline void FN(pow)(ZK_F *ret, const ZK_F *a, const limb_t *e, size_t nbits)
{
    ZK_F acc, base = *a;
    FN(one)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        FN(sqr)(&acc, &acc);
        if (bit_n(e, i))
            FN(mul)(&acc, &acc, &base);
    }
    *ret = acc;
}

/* ret = a^-1 by Fermat (a^(p-2)), constant time; ret = 0 when a = 0. */
static inline void FN(inv_fermat)(ZK_F *ret, const ZK_F *a)
{ FN(pow)(ret, a, FN(PM2_), 64 * ZK_F_N); }

/*
 * ret = a^-1; ret = 0 when a = 0.  Binary GCD (inv_gcd_n in vec.h, variable
 * time, several times faster than Fermat); the result is verified with one
 * multiplication and Fermat is used should that ever fail.
 */
static inline void FN(inv)(ZK_F *ret, const ZK_F *a)
{
    ZK_F r, chk;
    if (FN(is_zero)(a)) {
        FN(zero)(ret);
        return;
    }
    if (inv_gcd_n(r.l, a->l, FN(P_), ZK_F_N0, FN(INVK_), ZK_F_N)) {
        FN(mul)(&chk, &r, a);
        if (FN(is_one)(&chk)) {
            *ret = r;
            return;
        }
    }
    FN(inv_fermat)(ret, a);
}

#ifdef ZK_F_SQRT
/*
 * ret = a square root of a, when one exists (p = 3 mod 4: a^((p+1)/4)).
 * Returns 1 if a is a square (ret then squares to a), 0 otherwise (ret is
 * unspecified but written).
 */
static inline int FN(sqrt)(ZK_F *ret, const ZK_F *a)
{
    ZK_F r, chk;
    FN(pow)(&r, a, FN(SQRT_), 64 * ZK_F_N);
    FN(sqr)(&chk, &r);
    *ret = r;
    return FN(eq)(&chk, a);
}
#endif

/*
 * Batch inversion (Montgomery's trick): ret[i] = a[i]^-1 for i < n with one
 * field inversion and 3(n-1) multiplications.  Zeros are skipped (their
 * output is 0).  `scratch` holds n elements; ret may alias a but not scratch.
 */
static inline void FN(batch_inv)(ZK_F *ret, const ZK_F *a, size_t n, ZK_F *scratch)
{
    ZK_F acc, t;
    FN(one)(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;                       /* prefix product of a[0..i) */
        if (!FN(is_zero)(&a[i]))
            FN(mul)(&acc, &acc, &a[i]);
    }
    FN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FN(is_zero)(&a[i])) {
            FN(zero)(&ret[i]);
            continue;
        }
        FN(mul)(&t, &acc, &scratch[i]);         /* a[i]^-1 */
        FN(mul)(&acc, &acc, &a[i]);
        ret[i] = t;
    }
}

/* Canonical little-endian bytes (ZK_F_BYTES) of the plain value of a. */
static inline void FN(to_bytes_le)(uint8_t *out, const ZK_F *a)
{
    ZK_F t;
    FN(from_mont)(&t, a);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        out[i] = (uint8_t)(t.l[i / 8] >> (8 * (i % 8)));
}

/* Canonical big-endian bytes (ZK_F_BYTES) of the plain value of a. */
static inline void FN(to_bytes_be)(uint8_t *out, const ZK_F *a)
{
    ZK_F t;
    FN(from_mont)(&t, a);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        out[ZK_F_BYTES - 1 - i] = (uint8_t)(t.l[i / 8] >> (8 * (i % 8)));
}

/* Little-endian bytes -> Montgomery form.  Returns 0, or -1 if value >= p
 * (ret is not written then). */
static inline int FN(from_bytes_le)(ZK_F *ret, const uint8_t *in)
{
    ZK_F t;
    zero_n(t.l, ZK_F_N);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        t.l[i / 8] |= (limb_t)in[i] << (8 * (i % 8));
    if (!FN(is_canonical)(t.l))
        return -1;
    FN(to_mont)(ret, &t);
    return 0;
}

/* Big-endian bytes -> Montgomery form.  Returns 0, or -1 if value >= p. */
static inline int FN(from_bytes_be)(ZK_F *ret, const uint8_t *in)
{
    ZK_F t;
    zero_n(t.l, ZK_F_N);
    for (size_t i = 0; i < ZK_F_BYTES; i++)
        t.l[i / 8] |= (limb_t)in[ZK_F_BYTES - 1 - i] << (8 * (i % 8));
    if (!FN(is_canonical)(t.l))
        return -1;
    FN(to_mont)(ret, &t);
    return 0;
}

#undef FN
#undef ZK_FK

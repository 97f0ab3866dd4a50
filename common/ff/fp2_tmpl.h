/*
 * fp2_tmpl.h -- the quadratic extension Fp2 = Fp[u]/(u^2 + 1), instantiated
 * per curve by tower.h, each time right after the one line that names its
 * parameters (undefined at the end of this file):
 *   #define ZK_FP2_TMPL (bn254_fp2, bn254_fp, 9, 1)
 * that is: the Fp2 type (also the prefix of its functions), the base field
 * (field_tmpl.h), and the non-residue xi = A + B*u used by the sextic twist
 * and Fp6 (BN254: 9 + u, BLS12-381: 1 + u) as the small integers A, B.
 *
 * An element is c0 + c1*u, stored c0 first (snarkjs's order).  Functions allow
 * ret to alias inputs and cannot fail.
 *
 * Generated names: the Fp2 types and their functions
 *   bn254_fp2 bn254_fp2_zero bn254_fp2_one bn254_fp2_is_zero bn254_fp2_is_one
 *   bn254_fp2_eq bn254_fp2_add bn254_fp2_sub bn254_fp2_dbl bn254_fp2_neg
 *   bn254_fp2_conj bn254_fp2_mul bn254_fp2_mul_3m bn254_fp2_mul_lazy
 *   bn254_fp2_sqr bn254_fp2_mul_by_fp
 *   bn254_fp2_mul_by_nonresidue bn254_fp2_inv bn254_fp2_batch_inv
 *   bn254_fp2_pow bn254_fp2_is_lex_largest bn254_fp2_sqrt
 *   bls381_fp2 bls381_fp2_zero bls381_fp2_one bls381_fp2_is_zero
 *   bls381_fp2_is_one bls381_fp2_eq bls381_fp2_add bls381_fp2_sub
 *   bls381_fp2_dbl bls381_fp2_neg bls381_fp2_conj bls381_fp2_mul
 *   bls381_fp2_mul_3m bls381_fp2_mul_lazy
 *   bls381_fp2_sqr bls381_fp2_mul_by_fp bls381_fp2_mul_by_nonresidue
 *   bls381_fp2_inv bls381_fp2_batch_inv bls381_fp2_pow
 *   bls381_fp2_is_lex_largest bls381_fp2_sqrt
 * and three more functions of each base field
 *   bn254_fp_mul_small bn254_fp_is_lex_largest bn254_fp_half
 *   bls381_fp_mul_small bls381_fp_is_lex_largest bls381_fp_half
 */
#define FP2_T          ZK_ARG(1, ZK_FP2_TMPL)     /* bn254_fp2 */
#define FP_T           ZK_ARG(2, ZK_FP2_TMPL)     /* bn254_fp */
#define FP2_XI_A       ZK_ARG(3, ZK_FP2_TMPL)
#define FP2_XI_B       ZK_ARG(4, ZK_FP2_TMPL)
#define FP2_FN(name)   ZK_CAT(FP2_T, name)        /* FP2_FN(mul): bn254_fp2_mul */
#define FP_FN(name)    ZK_CAT(FP_T, name)         /* FP_FN(mul): bn254_fp_mul */

/* the type FP2_T, { FP_T c0, c1; }, is defined by zk/types.h */

ZK_HD void FP2_FN(zero)(FP2_T *r) { FP_FN(zero)(&r->c0); FP_FN(zero)(&r->c1); }
ZK_HD void FP2_FN(one)(FP2_T *r) { FP_FN(one)(&r->c0); FP_FN(zero)(&r->c1); }
ZK_HD int FP2_FN(is_zero)(const FP2_T *a)
{ return FP_FN(is_zero)(&a->c0) & FP_FN(is_zero)(&a->c1); }
ZK_HD int FP2_FN(is_one)(const FP2_T *a) { return FP_FN(is_one)(&a->c0) & FP_FN(is_zero)(&a->c1); }
ZK_HD int FP2_FN(eq)(const FP2_T *a, const FP2_T *b)
{ return FP_FN(eq)(&a->c0, &b->c0) & FP_FN(eq)(&a->c1, &b->c1); }

ZK_HD void FP2_FN(add)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{ FP_FN(add)(&r->c0, &a->c0, &b->c0); FP_FN(add)(&r->c1, &a->c1, &b->c1); }
ZK_HD void FP2_FN(sub)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{ FP_FN(sub)(&r->c0, &a->c0, &b->c0); FP_FN(sub)(&r->c1, &a->c1, &b->c1); }
ZK_HD void FP2_FN(dbl)(FP2_T *r, const FP2_T *a)
{ FP_FN(dbl)(&r->c0, &a->c0); FP_FN(dbl)(&r->c1, &a->c1); }
ZK_HD void FP2_FN(neg)(FP2_T *r, const FP2_T *a)
{ FP_FN(neg)(&r->c0, &a->c0); FP_FN(neg)(&r->c1, &a->c1); }
/* complex conjugate: c0 - c1*u (= the p-power Frobenius) */
ZK_HD void FP2_FN(conj)(FP2_T *r, const FP2_T *a)
{ r->c0 = a->c0; FP_FN(neg)(&r->c1, &a->c1); }

/* (a0 + a1 u)(b0 + b1 u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) u,
 * three Montgomery multiplications */
ZK_INLINE void FP2_FN(mul_3m)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{
    FP_T t0, t1, s0, s1;
    FP_FN(mul)(&t0, &a->c0, &b->c0);
    FP_FN(mul)(&t1, &a->c1, &b->c1);
    FP_FN(add)(&s0, &a->c0, &a->c1);
    FP_FN(add)(&s1, &b->c0, &b->c1);
    FP_FN(mul)(&s0, &s0, &s1);
    FP_FN(sub)(&r->c0, &t0, &t1);
    FP_FN(sub)(&s0, &s0, &t0);
    FP_FN(sub)(&r->c1, &s0, &t1);
}

#if !defined(__CUDACC__)
/*
 * The same product with lazy reduction: the three Karatsuba products are
 * kept double-width (2N limbs, not reduced), combined there, and only the
 * two results are reduced (redc), so 3 products + 2 reductions instead of
 * 3 products + 3 reductions.  Bounds (p < 2^(64N-1), R = 2^(64N)):
 *   a0 + a1, b0 + b1 < 2p are left unreduced (N limbs, spare bit);
 *   s = (a0+a1)(b0+b1) < 4p^2 fits 2N limbs; s - a0b0 - a1b1 = a0b1 + a1b0
 *   is exact, >= 0 and < 2p^2 < pR;
 *   a0b0 - a1b1 lies in (-p^2, p^2): when it borrows, p is added to its top
 *   half (+ pR, = 0 mod p after the reduction), giving [pR - p^2, pR).
 * Both inputs of redc are thus < pR, which it needs.  Host only (device
 * code keeps mul_3m; so does the GPU's 32-bit form, tower.h).
 */
ZK_INLINE void FP2_FN(mul_lazy)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{
    enum { NL = sizeof a->c0.l / sizeof a->c0.l[0] };
    limb_t t0[2 * NL], t1[2 * NL], s[2 * NL], sa[NL], sb[NL];
    FP_FN(mul_wide)(t0, a->c0.l, b->c0.l);
    FP_FN(mul_wide)(t1, a->c1.l, b->c1.l);
    addc_n(sa, a->c0.l, a->c1.l, NL);
    addc_n(sb, b->c0.l, b->c1.l, NL);
    FP_FN(mul_wide)(s, sa, sb);
    subb_n(s, s, t0, 2 * NL);
    subb_n(s, s, t1, 2 * NL);
    limb_t mask = (limb_t)0 - subb_n(t0, t0, t1, 2 * NL);   /* all ones: add p R */
    addc_mask_n(t0 + NL, t0 + NL, FP_FN(P_), mask, NL);   /* carry out dropped */
    FP_FN(redc)(&r->c0, t0);
    FP_FN(redc)(&r->c1, s);
}
#endif

/* r = a * b (ZK_FP2_LAZY, tower.h, picks the form) */
ZK_INLINE void FP2_FN(mul)(FP2_T *r, const FP2_T *a, const FP2_T *b)
{
#if ZK_FP2_LAZY
    FP2_FN(mul_lazy)(r, a, b);
#else
    FP2_FN(mul_3m)(r, a, b);
#endif
}

/* (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2 a0 a1 u.  (A lazy form, products of
 * the unreduced a0 + a1, a0 - a1 + p and 2 a0 reduced once each, measured no
 * faster: docs/arithmetic.md.) */
ZK_INLINE void FP2_FN(sqr)(FP2_T *r, const FP2_T *a)
{
    FP_T s, d, m;
    FP_FN(add)(&s, &a->c0, &a->c1);
    FP_FN(sub)(&d, &a->c0, &a->c1);
    FP_FN(mul)(&m, &a->c0, &a->c1);
    FP_FN(mul)(&r->c0, &s, &d);
    FP_FN(dbl)(&r->c1, &m);
}

/* r = a * k for k in the base field */
ZK_HD void FP2_FN(mul_by_fp)(FP2_T *r, const FP2_T *a, const FP_T *k)
{ FP_FN(mul)(&r->c0, &a->c0, k); FP_FN(mul)(&r->c1, &a->c1, k); }

/* r = a * small (small integer >= 0), by doubling and adding */
ZK_HD void FP_FN(mul_small)(FP_T *r, const FP_T *a, unsigned k)
{
    FP_T acc, base = *a;
    FP_FN(zero)(&acc);
    while (k) {
        if (k & 1)
            FP_FN(add)(&acc, &acc, &base);
        FP_FN(dbl)(&base, &base);
        k >>= 1;
    }
    *r = acc;
}

/* r = a * xi with xi = A + B u:  (A a0 - B a1) + (A a1 + B a0) u */
ZK_INLINE void FP2_FN(mul_by_nonresidue)(FP2_T *r, const FP2_T *a)
{
    FP_T t0, t1, t2, t3;
    FP_FN(mul_small)(&t0, &a->c0, FP2_XI_A);
    FP_FN(mul_small)(&t1, &a->c1, FP2_XI_B);
    FP_FN(mul_small)(&t2, &a->c1, FP2_XI_A);
    FP_FN(mul_small)(&t3, &a->c0, FP2_XI_B);
    FP_FN(sub)(&r->c0, &t0, &t1);
    FP_FN(add)(&r->c1, &t2, &t3);
}

/* r = a^-1 = conj(a) / (a0^2 + a1^2); 0 -> 0. */
static inline void FP2_FN(inv)(FP2_T *r, const FP2_T *a)
{
    FP_T n, t;
    FP_FN(sqr)(&n, &a->c0);
    FP_FN(sqr)(&t, &a->c1);
    FP_FN(add)(&n, &n, &t);
    FP_FN(inv)(&n, &n);
    FP_FN(mul)(&r->c0, &a->c0, &n);
    FP_FN(neg)(&t, &a->c1);
    FP_FN(mul)(&r->c1, &t, &n);
}

/*
 * Batch inversion for Fp2 elements: r[i] = a[i]^-1 (zeros give 0) with one
 * Fp2 inversion; scratch holds n elements; r may alias a, not scratch.
 */
static inline void FP2_FN(batch_inv)(FP2_T *r, const FP2_T *a, size_t n, FP2_T *scratch)
{
    FP2_T acc, t;
    FP2_FN(one)(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!FP2_FN(is_zero)(&a[i]))
            FP2_FN(mul)(&acc, &acc, &a[i]);
    }
    FP2_FN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FP2_FN(is_zero)(&a[i])) {
            FP2_FN(zero)(&r[i]);
            continue;
        }
        FP2_FN(mul)(&t, &acc, &scratch[i]);
        FP2_FN(mul)(&acc, &acc, &a[i]);
        r[i] = t;
    }
}

/* r = a^e, e a little-endian limb vector of nbits bits. */
static inline void FP2_FN(pow)(FP2_T *r, const FP2_T *a, const limb_t *e, size_t nbits)
{
    FP2_T acc, base = *a;
    FP2_FN(one)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        FP2_FN(sqr)(&acc, &acc);
        if (bit_n(e, i))
            FP2_FN(mul)(&acc, &acc, &base);
    }
    *r = acc;
}


/* ---- square root and lexicographic sign (appended by the curve code) ---- */

/*
 * 1 if the base-field element a is "lexicographically largest", i.e. its
 * plain value v satisfies v > (p-1)/2 (equivalently v > p - v): the sign bit
 * of the Zcash/IETF BLS12-381 point serialization.  0 for a = 0.
 */
ZK_HD int FP_FN(is_lex_largest)(const FP_T *a)
{
    FP_T t;
    FP_FN(from_mont)(&t, a);
    add_n(t.l, t.l, t.l, sizeof t.l / sizeof t.l[0]);   /* 2v < 2p: no carry (spare bit) */
    return cmp_n(t.l, FP_FN(P_), sizeof t.l / sizeof t.l[0]) > 0;   /* 2v > p  <=>  v > (p-1)/2 */
}

/* ret = a / 2 (exact halving mod p; works on the Montgomery form directly). */
ZK_HD void FP_FN(half)(FP_T *ret, const FP_T *a)
{
    const size_t n = sizeof a->l / sizeof a->l[0];
    limb_t t[ZK_MAX_LIMBS + 1], q[ZK_MAX_LIMBS];
    limb_t odd = (limb_t)0 - (a->l[0] & 1);     /* all ones if a is odd: add p */
    for (size_t i = 0; i < n; i++)
        q[i] = FP_FN(P_)[i] & odd;
    t[n] = add_n(t, a->l, q, n);                /* a (+ p) is even, < 2p */
    for (size_t i = 0; i < n; i++)
        ret->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
}

/*
 * 1 if a is lexicographically largest in the Zcash/IETF sense for Fp2:
 * compare c1 first, and c0 only when c1 = 0.  0 for a = 0.
 */
ZK_HD int FP2_FN(is_lex_largest)(const FP2_T *a)
{
    if (!FP_FN(is_zero)(&a->c1))
        return FP_FN(is_lex_largest)(&a->c1);
    return FP_FN(is_lex_largest)(&a->c0);
}

/*
 * ret = a square root of a in Fp2 (p = 3 mod 4, u^2 = -1), when one exists.
 * Returns 1 if a is a square (then ret^2 = a; which of the two roots is
 * returned is unspecified, callers pick the sign with is_lex_largest), 0
 * otherwise (ret is then written with an unspecified value).  Variable time.
 * Method: with n = sqrt(a0^2 + a1^2) in Fp, x0^2 = (a0 +- n)/2 and
 * x1 = a1 / (2 x0); for a1 = 0 the root is sqrt(a0) or u * sqrt(-a0).
 */
static inline int FP2_FN(sqrt)(FP2_T *ret, const FP2_T *a)
{
    FP2_T r, chk;
    FP_T n, t, x0;
    if (FP_FN(is_zero)(&a->c1)) {
        if (FP_FN(sqrt)(&r.c0, &a->c0)) {
            FP_FN(zero)(&r.c1);
        } else {
            FP_FN(neg)(&t, &a->c0);                 /* -1 is a non-residue: -a0 is a square */
            FP_FN(sqrt)(&r.c1, &t);
            FP_FN(zero)(&r.c0);
        }
    } else {
        FP_FN(sqr)(&n, &a->c0);
        FP_FN(sqr)(&t, &a->c1);
        FP_FN(add)(&t, &n, &t);                     /* norm a0^2 + a1^2 */
        if (!FP_FN(sqrt)(&n, &t)) {                 /* (no aliasing: see field_tmpl sqrt) */
            *ret = *a;
            return 0;                            /* norm not a square: a is not */
        }
        FP_FN(add)(&t, &a->c0, &n);
        FP_FN(half)(&t, &t);
        if (!FP_FN(sqrt)(&x0, &t)) {
            FP_FN(sub)(&t, &a->c0, &n);
            FP_FN(half)(&t, &t);
            FP_FN(sqrt)(&x0, &t);
        }
        r.c0 = x0;
        FP_FN(dbl)(&t, &x0);
        FP_FN(inv)(&t, &t);                         /* x0 != 0 since a1 != 0 */
        FP_FN(mul)(&r.c1, &a->c1, &t);
    }
    FP2_FN(sqr)(&chk, &r);
    *ret = r;
    return FP2_FN(eq)(&chk, a);
}

#undef FP2_T
#undef FP_T
#undef FP2_XI_A
#undef FP2_XI_B
#undef FP2_FN
#undef FP_FN
#undef ZK_FP2_TMPL

/*
 * fp2_tmpl.h -- the quadratic extension Fp2 = Fp[u]/(u^2 + 1), instantiated
 * per curve by tower.h with:
 *   ZK_E      name prefix (e.g. bn254_fp2)
 *   ZK_E_F    base field prefix (e.g. bn254_fp)
 *   ZK_E_XI_A, ZK_E_XI_B   the non-residue xi = A + B*u used by the sextic
 *             twist and Fp6 (BN254: 9 + u, BLS12-381: 1 + u), small integers
 *
 * An element is c0 + c1*u, stored c0 first (snarkjs's order).  Functions allow
 * ret to alias inputs and cannot fail.
 */
#define EN(name) ZK_CAT(ZK_E, name)
#define EF(name) ZK_CAT(ZK_E_F, name)

typedef struct { ZK_E_F c0, c1; } ZK_E;

ZK_HD void EN(zero)(ZK_E *r) { EF(zero)(&r->c0); EF(zero)(&r->c1); }
ZK_HD void EN(one)(ZK_E *r) { EF(one)(&r->c0); EF(zero)(&r->c1); }
ZK_HD int EN(is_zero)(const ZK_E *a) { return EF(is_zero)(&a->c0) & EF(is_zero)(&a->c1); }
ZK_HD int EN(is_one)(const ZK_E *a) { return EF(is_one)(&a->c0) & EF(is_zero)(&a->c1); }
ZK_HD int EN(eq)(const ZK_E *a, const ZK_E *b)
{ return EF(eq)(&a->c0, &b->c0) & EF(eq)(&a->c1, &b->c1); }

ZK_HD void EN(add)(ZK_E *r, const ZK_E *a, const ZK_E *b)
{ EF(add)(&r->c0, &a->c0, &b->c0); EF(add)(&r->c1, &a->c1, &b->c1); }
ZK_HD void EN(sub)(ZK_E *r, const ZK_E *a, const ZK_E *b)
{ EF(sub)(&r->c0, &a->c0, &b->c0); EF(sub)(&r->c1, &a->c1, &b->c1); }
ZK_HD void EN(dbl)(ZK_E *r, const ZK_E *a)
{ EF(dbl)(&r->c0, &a->c0); EF(dbl)(&r->c1, &a->c1); }
ZK_HD void EN(neg)(ZK_E *r, const ZK_E *a)
{ EF(neg)(&r->c0, &a->c0); EF(neg)(&r->c1, &a->c1); }
/* complex conjugate: c0 - c1*u (= the p-power Frobenius) */
ZK_HD void EN(conj)(ZK_E *r, const ZK_E *a)
{ r->c0 = a->c0; EF(neg)(&r->c1, &a->c1); }

/* (a0 + a1 u)(b0 + b1 u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) u */
ZK_INLINE void EN(mul)(ZK_E *r, const ZK_E *a, const ZK_E *b)
{
    ZK_E_F t0, t1, s0, s1;
    EF(mul)(&t0, &a->c0, &b->c0);
    EF(mul)(&t1, &a->c1, &b->c1);
    EF(add)(&s0, &a->c0, &a->c1);
    EF(add)(&s1, &b->c0, &b->c1);
    EF(mul)(&s0, &s0, &s1);
    EF(sub)(&r->c0, &t0, &t1);
    EF(sub)(&s0, &s0, &t0);
    EF(sub)(&r->c1, &s0, &t1);
}

/* (a0 + a1 u)^2 = (a0+a1)(a0-a1) + 2 a0 a1 u */
ZK_INLINE void EN(sqr)(ZK_E *r, const ZK_E *a)
{
    ZK_E_F s, d, m;
    EF(add)(&s, &a->c0, &a->c1);
    EF(sub)(&d, &a->c0, &a->c1);
    EF(mul)(&m, &a->c0, &a->c1);
    EF(mul)(&r->c0, &s, &d);
    EF(dbl)(&r->c1, &m);
}

/* r = a * k for k in the base field */
ZK_HD void EN(mul_by_fp)(ZK_E *r, const ZK_E *a, const ZK_E_F *k)
{ EF(mul)(&r->c0, &a->c0, k); EF(mul)(&r->c1, &a->c1, k); }

/* r = a * small (small integer >= 0), by doubling and adding */
ZK_HD void EF(mul_small)(ZK_E_F *r, const ZK_E_F *a, unsigned k)
{
    ZK_E_F acc, base = *a;
    EF(zero)(&acc);
    while (k) {
        if (k & 1)
            EF(add)(&acc, &acc, &base);
        EF(dbl)(&base, &base);
        k >>= 1;
    }
    *r = acc;
}

/* r = a * xi with xi = A + B u:  (A a0 - B a1) + (A a1 + B a0) u */
ZK_INLINE void EN(mul_by_nonresidue)(ZK_E *r, const ZK_E *a)
{
    ZK_E_F t0, t1, t2, t3;
    EF(mul_small)(&t0, &a->c0, ZK_E_XI_A);
    EF(mul_small)(&t1, &a->c1, ZK_E_XI_B);
    EF(mul_small)(&t2, &a->c1, ZK_E_XI_A);
    EF(mul_small)(&t3, &a->c0, ZK_E_XI_B);
    EF(sub)(&r->c0, &t0, &t1);
    EF(add)(&r->c1, &t2, &t3);
}

/* r = a^-1 = conj(a) / (a0^2 + a1^2); 0 -> 0. */
static inline void EN(inv)(ZK_E *r, const ZK_E *a)
{
    ZK_E_F n, t;
    EF(sqr)(&n, &a->c0);
    EF(sqr)(&t, &a->c1);
    EF(add)(&n, &n, &t);
    EF(inv)(&n, &n);
    EF(mul)(&r->c0, &a->c0, &n);
    EF(neg)(&t, &a->c1);
    EF(mul)(&r->c1, &t, &n);
}

/*
 * Batch inversion for Fp2 elements: r[i] = a[i]^-1 (zeros give 0) with one
 * Fp2 inversion; scratch holds n elements; r may alias a, not scratch.
 */
static inline void EN(batch_inv)(ZK_E *r, const ZK_E *a, size_t n, ZK_E *scratch)
{
    ZK_E acc, t;
    EN(one)(&acc);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!EN(is_zero)(&a[i]))
            EN(mul)(&acc, &acc, &a[i]);
    }
    EN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (EN(is_zero)(&a[i])) {
            EN(zero)(&r[i]);
            continue;
        }
        EN(mul)(&t, &acc, &scratch[i]);
        EN(mul)(&acc, &acc, &a[i]);
        r[i] = t;
    }
}

/* r = a^e, e a little-endian limb vector of nbits bits. */
static inline void EN(pow)(ZK_E *r, const ZK_E *a, const limb_t *e, size_t nbits)
{
    ZK_E acc, base = *a;
    EN(one)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        EN(sqr)(&acc, &acc);
        if (bit_n(e, i))
            EN(mul)(&acc, &acc, &base);
    }
    *r = acc;
}


/* ---- square root and lexicographic sign (appended by the curve code) ---- */

/*
 * 1 if the base-field element a is "lexicographically largest", i.e. its
 * plain value v satisfies v > (p-1)/2 (equivalently v > p - v): the sign bit
 * of the Zcash/IETF BLS12-381 point serialization.  0 for a = 0.
 */
ZK_HD int EF(is_lex_largest)(const ZK_E_F *a)
{
    ZK_E_F t;
    EF(from_mont)(&t, a);
    add_n(t.l, t.l, t.l, sizeof t.l / sizeof t.l[0]);   /* 2v < 2p: no carry (spare bit) */
    return cmp_n(t.l, EF(P_), sizeof t.l / sizeof t.l[0]) > 0;   /* 2v > p  <=>  v > (p-1)/2 */
}

/* ret = a / 2 (exact halving mod p; works on the Montgomery form directly). */
ZK_HD void EF(half)(ZK_E_F *ret, const ZK_E_F *a)
{
    const size_t n = sizeof a->l / sizeof a->l[0];
    limb_t t[ZK_MAX_LIMBS + 1], q[ZK_MAX_LIMBS];
    limb_t odd = (limb_t)0 - (a->l[0] & 1);     /* all ones if a is odd: add p */
    for (size_t i = 0; i < n; i++)
        q[i] = EF(P_)[i] & odd;
    t[n] = add_n(t, a->l, q, n);                /* a (+ p) is even, < 2p */
    for (size_t i = 0; i < n; i++)
        ret->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
}

/*
 * 1 if a is lexicographically largest in the Zcash/IETF sense for Fp2:
 * compare c1 first, and c0 only when c1 = 0.  0 for a = 0.
 */
ZK_HD int EN(is_lex_largest)(const ZK_E *a)
{
    if (!EF(is_zero)(&a->c1))
        return EF(is_lex_largest)(&a->c1);
    return EF(is_lex_largest)(&a->c0);
}

/*
 * ret = a square root of a in Fp2 (p = 3 mod 4, u^2 = -1), when one exists.
 * Returns 1 if a is a square (then ret^2 = a; which of the two roots is
 * returned is unspecified, callers pick the sign with is_lex_largest), 0
 * otherwise (ret is then written with an unspecified value).  Variable time.
 * Method: with n = sqrt(a0^2 + a1^2) in Fp, x0^2 = (a0 +- n)/2 and
 * x1 = a1 / (2 x0); for a1 = 0 the root is sqrt(a0) or u * sqrt(-a0).
 */
static inline int EN(sqrt)(ZK_E *ret, const ZK_E *a)
{
    ZK_E r, chk;
    ZK_E_F n, t, x0;
    if (EF(is_zero)(&a->c1)) {
        if (EF(sqrt)(&r.c0, &a->c0)) {
            EF(zero)(&r.c1);
        } else {
            EF(neg)(&t, &a->c0);                 /* -1 is a non-residue: -a0 is a square */
            EF(sqrt)(&r.c1, &t);
            EF(zero)(&r.c0);
        }
    } else {
        EF(sqr)(&n, &a->c0);
        EF(sqr)(&t, &a->c1);
        EF(add)(&t, &n, &t);                     /* norm a0^2 + a1^2 */
        if (!EF(sqrt)(&n, &t)) {                 /* (no aliasing: see field_tmpl sqrt) */
            *ret = *a;
            return 0;                            /* norm not a square: a is not */
        }
        EF(add)(&t, &a->c0, &n);
        EF(half)(&t, &t);
        if (!EF(sqrt)(&x0, &t)) {
            EF(sub)(&t, &a->c0, &n);
            EF(half)(&t, &t);
            EF(sqrt)(&x0, &t);
        }
        r.c0 = x0;
        EF(dbl)(&t, &x0);
        EF(inv)(&t, &t);                         /* x0 != 0 since a1 != 0 */
        EF(mul)(&r.c1, &a->c1, &t);
    }
    EN(sqr)(&chk, &r);
    *ret = r;
    return EN(eq)(&chk, a);
}

#undef EN
#undef EF

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
ZK_HD void EN(mul)(ZK_E *r, const ZK_E *a, const ZK_E *b)
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
ZK_HD void EN(sqr)(ZK_E *r, const ZK_E *a)
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
ZK_HD void EN(mul_by_nonresidue)(ZK_E *r, const ZK_E *a)
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

#undef EN
#undef EF

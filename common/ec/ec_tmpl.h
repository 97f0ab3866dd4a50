/*
 * ec_tmpl.h -- a short Weierstrass curve y^2 = x^3 + b (a = 0) over a field
 * F (Fp for G1, Fp2 for G2), instantiated per group by curves.h with:
 *   ZK_G        prefix (e.g. bn254_g1): types ZK_G (Jacobian) and ZK_G_affine
 *   ZK_G_F      field prefix (bn254_fp, bn254_fp2, ...)
 *   ZK_G_B      initializer of b in Montgomery form
 *   ZK_G_GX, ZK_G_GY   initializers of the generator
 *   ZK_G_ORDER  initializer of the group order r as 4 little-endian limbs
 *
 * Jacobian (X, Y, Z) represents (X/Z^2, Y/Z^3); Z = 0 is the point at
 * infinity.  Affine points are stored exactly as snarkjs stores them (x then
 * y, Montgomery, little-endian limbs); the all-zero affine point is infinity
 * ((0,0) is on neither curve since b != 0).  All functions allow ret to alias
 * inputs and cannot fail.
 */
#define GN(name) ZK_CAT(ZK_G, name)
#define GF(name) ZK_CAT(ZK_G_F, name)

typedef struct { ZK_G_F x, y, z; } ZK_G;
typedef struct { ZK_G_F x, y; } ZK_CAT(ZK_G, affine);
#define ZK_GA ZK_CAT(ZK_G, affine)

static const ZK_G_F GN(B_) = ZK_G_B;
static const ZK_GA GN(GEN_) = { ZK_G_GX, ZK_G_GY };
static const limb_t GN(ORDER_)[4] = ZK_G_ORDER;

ZK_HD void GN(set_inf)(ZK_G *r) { GF(one)(&r->x); GF(one)(&r->y); GF(zero)(&r->z); }
ZK_HD int GN(is_inf)(const ZK_G *p) { return GF(is_zero)(&p->z); }
ZK_HD int GN(affine_is_inf)(const ZK_GA *a) { return GF(is_zero)(&a->x) & GF(is_zero)(&a->y); }
ZK_HD void GN(generator)(ZK_GA *r) { *r = GN(GEN_); }

ZK_HD void GN(from_affine)(ZK_G *r, const ZK_GA *a)
{
    if (GN(affine_is_inf)(a)) {
        GN(set_inf)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    GF(one)(&r->z);
}

ZK_HD void GN(neg)(ZK_G *r, const ZK_G *p)
{ r->x = p->x; GF(neg)(&r->y, &p->y); r->z = p->z; }

ZK_HD void GN(affine_neg)(ZK_GA *r, const ZK_GA *a)
{ r->x = a->x; GF(neg)(&r->y, &a->y); }

/* dbl-2009-l: 2M + 5S */
ZK_INLINE void GN(dbl)(ZK_G *r, const ZK_G *p)
{
    ZK_G_F A, B, C, D, E, F, t;
    GF(sqr)(&A, &p->x);
    GF(sqr)(&B, &p->y);
    GF(sqr)(&C, &B);
    GF(add)(&D, &p->x, &B);
    GF(sqr)(&D, &D);
    GF(sub)(&D, &D, &A);
    GF(sub)(&D, &D, &C);
    GF(dbl)(&D, &D);                       /* D = 2((X+B)^2 - A - C) */
    GF(dbl)(&E, &A);
    GF(add)(&E, &E, &A);                   /* E = 3A */
    GF(sqr)(&F, &E);
    GF(mul)(&t, &p->y, &p->z);
    GF(dbl)(&r->z, &t);                    /* Z3 = 2YZ (before Y is overwritten) */
    GF(dbl)(&t, &D);
    GF(sub)(&r->x, &F, &t);                /* X3 = F - 2D */
    GF(sub)(&t, &D, &r->x);
    GF(mul)(&t, &E, &t);
    GF(dbl)(&C, &C);
    GF(dbl)(&C, &C);
    GF(dbl)(&C, &C);
    GF(sub)(&r->y, &t, &C);                /* Y3 = E(D - X3) - 8C */
}

/* add-2007-bl: 11M + 5S; handles infinity, P == Q and P == -Q. */
ZK_INLINE void GN(add)(ZK_G *r, const ZK_G *p, const ZK_G *q)
{
    if (GN(is_inf)(p)) { *r = *q; return; }
    if (GN(is_inf)(q)) { *r = *p; return; }
    ZK_G_F Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, R, V, t;
    GF(sqr)(&Z1Z1, &p->z);
    GF(sqr)(&Z2Z2, &q->z);
    GF(mul)(&U1, &p->x, &Z2Z2);
    GF(mul)(&U2, &q->x, &Z1Z1);
    GF(mul)(&S1, &p->y, &q->z);
    GF(mul)(&S1, &S1, &Z2Z2);
    GF(mul)(&S2, &q->y, &p->z);
    GF(mul)(&S2, &S2, &Z1Z1);
    GF(sub)(&H, &U2, &U1);
    GF(sub)(&R, &S2, &S1);
    if (GF(is_zero)(&H)) {
        if (GF(is_zero)(&R)) { GN(dbl)(r, p); return; }
        GN(set_inf)(r);
        return;
    }
    GF(dbl)(&R, &R);                       /* r = 2(S2 - S1) */
    GF(dbl)(&I, &H);
    GF(sqr)(&I, &I);                       /* I = (2H)^2 */
    GF(mul)(&J, &H, &I);
    GF(mul)(&V, &U1, &I);
    GF(add)(&t, &p->z, &q->z);
    GF(sqr)(&t, &t);
    GF(sub)(&t, &t, &Z1Z1);
    GF(sub)(&t, &t, &Z2Z2);
    GF(mul)(&r->z, &t, &H);                /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2) H */
    GF(sqr)(&t, &R);
    GF(sub)(&t, &t, &J);
    GF(sub)(&t, &t, &V);
    GF(sub)(&r->x, &t, &V);                /* X3 = r^2 - J - 2V */
    GF(sub)(&t, &V, &r->x);
    GF(mul)(&t, &R, &t);
    GF(mul)(&S1, &S1, &J);
    GF(dbl)(&S1, &S1);
    GF(sub)(&r->y, &t, &S1);               /* Y3 = r(V - X3) - 2 S1 J */
}

/* madd-2007-bl (q affine): 7M + 4S; handles infinity, P == Q, P == -Q. */
ZK_INLINE void GN(add_affine)(ZK_G *r, const ZK_G *p, const ZK_GA *q)
{
    if (GN(affine_is_inf)(q)) { *r = *p; return; }
    if (GN(is_inf)(p)) { GN(from_affine)(r, q); return; }
    ZK_G_F Z1Z1, U2, S2, H, HH, I, J, R, V, t;
    GF(sqr)(&Z1Z1, &p->z);
    GF(mul)(&U2, &q->x, &Z1Z1);
    GF(mul)(&S2, &q->y, &p->z);
    GF(mul)(&S2, &S2, &Z1Z1);
    GF(sub)(&H, &U2, &p->x);
    GF(sub)(&R, &S2, &p->y);
    if (GF(is_zero)(&H)) {
        if (GF(is_zero)(&R)) { GN(dbl)(r, p); return; }
        GN(set_inf)(r);
        return;
    }
    GF(dbl)(&R, &R);                       /* r = 2(S2 - Y1) */
    GF(sqr)(&HH, &H);
    GF(dbl)(&I, &HH);
    GF(dbl)(&I, &I);                       /* I = 4 HH */
    GF(mul)(&J, &H, &I);
    GF(mul)(&V, &p->x, &I);
    GF(add)(&t, &p->z, &H);
    GF(sqr)(&t, &t);
    GF(sub)(&t, &t, &Z1Z1);
    GF(sub)(&r->z, &t, &HH);               /* Z3 = (Z1+H)^2 - Z1Z1 - HH */
    ZK_G_F Y1 = p->y;
    GF(sqr)(&t, &R);
    GF(sub)(&t, &t, &J);
    GF(sub)(&t, &t, &V);
    GF(sub)(&r->x, &t, &V);                /* X3 = r^2 - J - 2V */
    GF(sub)(&t, &V, &r->x);
    GF(mul)(&t, &R, &t);
    GF(mul)(&Y1, &Y1, &J);
    GF(dbl)(&Y1, &Y1);
    GF(sub)(&r->y, &t, &Y1);               /* Y3 = r(V - X3) - 2 Y1 J */
}

/* Out-of-line copies of dbl / add / add_affine for the cold paths (see ZK_EC_OOL). */
ZK_EC_OOL void GN(dbl_ool)(ZK_G *r, const ZK_G *p) { GN(dbl)(r, p); }
ZK_EC_OOL void GN(add_ool)(ZK_G *r, const ZK_G *p, const ZK_G *q) { GN(add)(r, p, q); }
ZK_EC_OOL void GN(add_affine_ool)(ZK_G *r, const ZK_G *p, const ZK_GA *q) { GN(add_affine)(r, p, q); }

/* 1 if p and q are the same point (projective comparison). */
static inline int GN(eq)(const ZK_G *p, const ZK_G *q)
{
    int pi = GN(is_inf)(p), qi = GN(is_inf)(q);
    if (pi || qi)
        return pi && qi;
    ZK_G_F Z1Z1, Z2Z2, a, b;
    GF(sqr)(&Z1Z1, &p->z);
    GF(sqr)(&Z2Z2, &q->z);
    GF(mul)(&a, &p->x, &Z2Z2);
    GF(mul)(&b, &q->x, &Z1Z1);
    if (!GF(eq)(&a, &b))
        return 0;
    GF(mul)(&a, &p->y, &Z2Z2);
    GF(mul)(&a, &a, &q->z);
    GF(mul)(&b, &q->y, &Z1Z1);
    GF(mul)(&b, &b, &p->z);
    return GF(eq)(&a, &b);
}

/* Affine form of p (infinity -> the all-zero point). */
static inline void GN(to_affine)(ZK_GA *r, const ZK_G *p)
{
    if (GN(is_inf)(p)) {
        GF(zero)(&r->x);
        GF(zero)(&r->y);
        return;
    }
    ZK_G_F zi, zi2;
    GF(inv)(&zi, &p->z);
    GF(sqr)(&zi2, &zi);
    GF(mul)(&r->x, &p->x, &zi2);
    GF(mul)(&zi2, &zi2, &zi);
    GF(mul)(&r->y, &p->y, &zi2);
}

/*
 * Affine forms of n points with one inversion.  `scratch` holds 3n field
 * elements; r must not alias p or scratch.
 */
static inline void GN(batch_to_affine)(ZK_GA *r, const ZK_G *p, size_t n, ZK_G_F *scratch)
{
    ZK_G_F *z = scratch, *zi = scratch + n, zi2;
    for (size_t i = 0; i < n; i++)
        z[i] = p[i].z;
    GF(batch_inv)(zi, z, n, scratch + 2 * n);   /* zeros (infinity) stay 0 */
    for (size_t i = 0; i < n; i++) {
        if (GN(is_inf)(&p[i])) {
            GF(zero)(&r[i].x);
            GF(zero)(&r[i].y);
            continue;
        }
        GF(sqr)(&zi2, &zi[i]);
        GF(mul)(&r[i].x, &p[i].x, &zi2);
        GF(mul)(&zi2, &zi2, &zi[i]);
        GF(mul)(&r[i].y, &p[i].y, &zi2);
    }
}

/* 1 if the affine point satisfies y^2 = x^3 + b, or is the infinity encoding. */
static inline int GN(affine_is_on_curve)(const ZK_GA *a)
{
    if (GN(affine_is_inf)(a))
        return 1;
    ZK_G_F l, r;
    GF(sqr)(&l, &a->y);
    GF(sqr)(&r, &a->x);
    GF(mul)(&r, &r, &a->x);
    GF(add)(&r, &r, &GN(B_));
    return GF(eq)(&l, &r);
}

/* 1 if the Jacobian point satisfies Y^2 = X^3 + b Z^6 (infinity: 1). */
static inline int GN(is_on_curve)(const ZK_G *p)
{
    if (GN(is_inf)(p))
        return 1;
    ZK_G_F l, r, z6;
    GF(sqr)(&l, &p->y);
    GF(sqr)(&r, &p->x);
    GF(mul)(&r, &r, &p->x);
    GF(sqr)(&z6, &p->z);
    GF(mul)(&z6, &z6, &p->z);
    GF(sqr)(&z6, &z6);
    GF(mul)(&z6, &z6, &GN(B_));
    GF(add)(&r, &r, &z6);
    return GF(eq)(&l, &r);
}

/*
 * r = [k] p by plain double-and-add, k a little-endian limb vector of nbits
 * bits (any value).  The simple reference the tests compare the faster
 * multiplications with; also the cheapest choice for sparse short scalars.
 * Variable time.
 */
static inline void GN(mul_ref)(ZK_G *r, const ZK_G *p, const limb_t *k, size_t nbits)
{
    ZK_G acc, base = *p;
    GN(set_inf)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        GN(dbl_ool)(&acc, &acc);
        if (bit_n(k, i))
            GN(add_ool)(&acc, &acc, &base);
    }
    *r = acc;
}

/*
 * r = [k] p with a width-ZK_WNAF_W signed-digit (wNAF) recoding of k: a
 * table of the odd multiples P, 3P, ..., (2^(W-1)-1)P and about nbits/(W+1)
 * additions.  k: little-endian limbs, nbits bits, any value (also >= r);
 * nbits > ZK_WNAF_MAXBITS falls back to mul_ref.  Variable time (not for
 * secret scalars where timing matters).
 */
static inline void GN(mul_wnaf)(ZK_G *r, const ZK_G *p, const limb_t *k, size_t nbits)
{
    if (nbits > ZK_WNAF_MAXBITS) {
        GN(mul_ref)(r, p, k, nbits);
        return;
    }
    int8_t dig[ZK_WNAF_MAXBITS + 1];
    size_t nd = zk_wnaf_recode(dig, k, nbits, ZK_WNAF_W);
    ZK_G tab[1 << (ZK_WNAF_W - 2)], p2, acc, t;
    tab[0] = *p;
    GN(dbl_ool)(&p2, p);
    for (size_t i = 1; i < (size_t)1 << (ZK_WNAF_W - 2); i++)
        GN(add_ool)(&tab[i], &tab[i - 1], &p2);
    GN(set_inf)(&acc);
    for (size_t i = nd; i-- > 0;) {
        GN(dbl_ool)(&acc, &acc);
        int d = dig[i];
        if (d > 0) {
            GN(add_ool)(&acc, &acc, &tab[(d - 1) / 2]);
        } else if (d < 0) {
            GN(neg)(&t, &tab[(-d - 1) / 2]);
            GN(add_ool)(&acc, &acc, &t);
        }
    }
    *r = acc;
}

/* r = [k] p (the wNAF multiplication above); same contract as mul_wnaf. */
static inline void GN(mul)(ZK_G *r, const ZK_G *p, const limb_t *k, size_t nbits)
{ GN(mul_wnaf)(r, p, k, nbits); }

/* 1 if the affine points are equal (both infinity counts as equal). */
ZK_HD int GN(affine_eq)(const ZK_GA *a, const ZK_GA *b)
{ return GF(eq)(&a->x, &b->x) & GF(eq)(&a->y, &b->y); }

/*
 * 1 if [r] p = O, r the prime group order (infinity: 1).  Slow (a 255-bit
 * multiplication): the reference for the fast per-curve checks
 * (*_in_subgroup, ec/endo.h).  Meaningful only for points on the curve.
 */
static inline int GN(in_subgroup_slow)(const ZK_G *p)
{
    ZK_G t;
    GN(mul_ref)(&t, p, GN(ORDER_), 256);
    return GN(is_inf)(&t);
}

/* As in_subgroup_slow, for an affine point. */
static inline int GN(affine_in_subgroup_slow)(const ZK_GA *a)
{
    ZK_G p;
    GN(from_affine)(&p, a);
    return GN(in_subgroup_slow)(&p);
}

/*
 * The point (x, y) with y^2 = x^3 + b whose y is lexicographically largest
 * (largest != 0) or not (largest == 0), in r.  Returns 1, or 0 if x^3 + b is
 * not a square (no such point; r is not written).  Never yields infinity.
 */
static inline int GN(affine_from_x)(ZK_GA *r, const ZK_G_F *x, int largest)
{
    ZK_G_F rhs, y;
    GF(sqr)(&rhs, x);
    GF(mul)(&rhs, &rhs, x);
    GF(add)(&rhs, &rhs, &GN(B_));
    if (!GF(sqrt)(&y, &rhs))
        return 0;
    if (GF(is_lex_largest)(&y) != (largest != 0))
        GF(neg)(&y, &y);                   /* (y = 0, if it occurs, is its own negative) */
    r->x = *x;
    r->y = y;
    return 1;
}

#undef ZK_GA
#undef GN
#undef GF

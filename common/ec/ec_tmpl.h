/*
 * ec_tmpl.h -- a short Weierstrass curve y^2 = x^3 + b (a = 0) over a field
 * F (Fp for G1, Fp2 for G2), instantiated per group by curves.h, each time
 * right after the one line that names its parameters (undefined at the end
 * of this file):
 *   #define ZK_EC_TMPL (bn254_g1, bn254_fp, BN254_G1, BN254_FR)
 * that is: the group (the prefix of its types and functions), its
 * coordinate field (bn254_fp, bn254_fp2, ...), the prefix of its constants
 * in curves.h (Montgomery-form initializers _B of b and _GEN_X, _GEN_Y of
 * the generator), and the field whose modulus is the group order r
 * (BN254_FR: BN254_FR_P, 4 little-endian limbs).
 *
 * Jacobian (X, Y, Z) represents (X/Z^2, Y/Z^3); Z = 0 is the point at
 * infinity.  Affine points are stored exactly as snarkjs stores them (x then
 * y, Montgomery, little-endian limbs); the all-zero affine point is infinity
 * ((0,0) is on neither curve since b != 0).  All functions allow ret to alias
 * inputs and cannot fail.
 *
 * Generated names (the Jacobian and affine types, the constants b, the
 * generator and r, then the functions):
 *   bn254_g1 bn254_g1_affine bn254_g1_B_ bn254_g1_GEN_ bn254_g1_ORDER_
 *   bn254_g1_set_inf bn254_g1_is_inf bn254_g1_affine_is_inf bn254_g1_generator
 *   bn254_g1_from_affine bn254_g1_neg bn254_g1_affine_neg bn254_g1_dbl
 *   bn254_g1_add bn254_g1_add_affine bn254_g1_dbl_ool bn254_g1_add_ool
 *   bn254_g1_add_affine_ool bn254_g1_eq bn254_g1_to_affine
 *   bn254_g1_batch_to_affine bn254_g1_affine_is_on_curve bn254_g1_is_on_curve
 *   bn254_g1_mul_ref bn254_g1_mul_wnaf bn254_g1_mul bn254_g1_affine_eq
 *   bn254_g1_in_subgroup_slow bn254_g1_affine_in_subgroup_slow
 *   bn254_g1_affine_from_x
 *   bn254_g2 bn254_g2_affine bn254_g2_B_ bn254_g2_GEN_ bn254_g2_ORDER_
 *   bn254_g2_set_inf bn254_g2_is_inf bn254_g2_affine_is_inf bn254_g2_generator
 *   bn254_g2_from_affine bn254_g2_neg bn254_g2_affine_neg bn254_g2_dbl
 *   bn254_g2_add bn254_g2_add_affine bn254_g2_dbl_ool bn254_g2_add_ool
 *   bn254_g2_add_affine_ool bn254_g2_eq bn254_g2_to_affine
 *   bn254_g2_batch_to_affine bn254_g2_affine_is_on_curve bn254_g2_is_on_curve
 *   bn254_g2_mul_ref bn254_g2_mul_wnaf bn254_g2_mul bn254_g2_affine_eq
 *   bn254_g2_in_subgroup_slow bn254_g2_affine_in_subgroup_slow
 *   bn254_g2_affine_from_x
 *   bls381_g1 bls381_g1_affine bls381_g1_B_ bls381_g1_GEN_ bls381_g1_ORDER_
 *   bls381_g1_set_inf bls381_g1_is_inf bls381_g1_affine_is_inf
 *   bls381_g1_generator bls381_g1_from_affine bls381_g1_neg
 *   bls381_g1_affine_neg bls381_g1_dbl bls381_g1_add bls381_g1_add_affine
 *   bls381_g1_dbl_ool bls381_g1_add_ool bls381_g1_add_affine_ool bls381_g1_eq
 *   bls381_g1_to_affine bls381_g1_batch_to_affine bls381_g1_affine_is_on_curve
 *   bls381_g1_is_on_curve bls381_g1_mul_ref bls381_g1_mul_wnaf bls381_g1_mul
 *   bls381_g1_affine_eq bls381_g1_in_subgroup_slow
 *   bls381_g1_affine_in_subgroup_slow bls381_g1_affine_from_x
 *   bls381_g2 bls381_g2_affine bls381_g2_B_ bls381_g2_GEN_ bls381_g2_ORDER_
 *   bls381_g2_set_inf bls381_g2_is_inf bls381_g2_affine_is_inf
 *   bls381_g2_generator bls381_g2_from_affine bls381_g2_neg
 *   bls381_g2_affine_neg bls381_g2_dbl bls381_g2_add bls381_g2_add_affine
 *   bls381_g2_dbl_ool bls381_g2_add_ool bls381_g2_add_affine_ool bls381_g2_eq
 *   bls381_g2_to_affine bls381_g2_batch_to_affine bls381_g2_affine_is_on_curve
 *   bls381_g2_is_on_curve bls381_g2_mul_ref bls381_g2_mul_wnaf bls381_g2_mul
 *   bls381_g2_affine_eq bls381_g2_in_subgroup_slow
 *   bls381_g2_affine_in_subgroup_slow bls381_g2_affine_from_x
 */
#define GROUP_T        ZK_ARG(1, ZK_EC_TMPL)                 /* bn254_g1 (Jacobian) */
#define GROUP_AFFINE_T ZK_CAT(GROUP_T, affine)               /* bn254_g1_affine */
#define COORD_T        ZK_ARG(2, ZK_EC_TMPL)                 /* bn254_fp */
#define GROUP_CONST(k) ZK_CAT(ZK_ARG(3, ZK_EC_TMPL), k)      /* GROUP_CONST(B): BN254_G1_B */
#define GROUP_ORDER    ZK_CAT(ZK_ARG(4, ZK_EC_TMPL), P)      /* BN254_FR_P */
#define GROUP_FN(name) ZK_CAT(GROUP_T, name)                 /* GROUP_FN(add): bn254_g1_add */
#define COORD_FN(name) ZK_CAT(COORD_T, name)                 /* COORD_FN(mul): bn254_fp_mul */

/* the types GROUP_T, { COORD_T x, y, z; }, and GROUP_AFFINE_T, { COORD_T x, y; },
 * are defined by zk/types.h */

static const COORD_T GROUP_FN(B_) = GROUP_CONST(B);
static const GROUP_AFFINE_T GROUP_FN(GEN_) = { GROUP_CONST(GEN_X), GROUP_CONST(GEN_Y) };
static const limb_t GROUP_FN(ORDER_)[4] = GROUP_ORDER;

ZK_HD void GROUP_FN(set_inf)(GROUP_T *r)
{ COORD_FN(one)(&r->x); COORD_FN(one)(&r->y); COORD_FN(zero)(&r->z); }
ZK_HD int GROUP_FN(is_inf)(const GROUP_T *p) { return COORD_FN(is_zero)(&p->z); }
ZK_HD int GROUP_FN(affine_is_inf)(const GROUP_AFFINE_T *a)
{ return COORD_FN(is_zero)(&a->x) & COORD_FN(is_zero)(&a->y); }
ZK_HD void GROUP_FN(generator)(GROUP_AFFINE_T *r) { *r = GROUP_FN(GEN_); }

ZK_HD void GROUP_FN(from_affine)(GROUP_T *r, const GROUP_AFFINE_T *a)
{
    if (GROUP_FN(affine_is_inf)(a)) {
        GROUP_FN(set_inf)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    COORD_FN(one)(&r->z);
}

ZK_HD void GROUP_FN(neg)(GROUP_T *r, const GROUP_T *p)
{ r->x = p->x; COORD_FN(neg)(&r->y, &p->y); r->z = p->z; }

ZK_HD void GROUP_FN(affine_neg)(GROUP_AFFINE_T *r, const GROUP_AFFINE_T *a)
{ r->x = a->x; COORD_FN(neg)(&r->y, &a->y); }

/* dbl-2009-l: 2M + 5S */
ZK_INLINE void GROUP_FN(dbl)(GROUP_T *r, const GROUP_T *p)
{
    COORD_T A, B, C, D, E, F, t;
    COORD_FN(sqr)(&A, &p->x);
    COORD_FN(sqr)(&B, &p->y);
    COORD_FN(sqr)(&C, &B);
    COORD_FN(add)(&D, &p->x, &B);
    COORD_FN(sqr)(&D, &D);
    COORD_FN(sub)(&D, &D, &A);
    COORD_FN(sub)(&D, &D, &C);
    COORD_FN(dbl)(&D, &D);                       /* D = 2((X+B)^2 - A - C) */
    COORD_FN(dbl)(&E, &A);
    COORD_FN(add)(&E, &E, &A);                   /* E = 3A */
    COORD_FN(sqr)(&F, &E);
    COORD_FN(mul)(&t, &p->y, &p->z);
    COORD_FN(dbl)(&r->z, &t);                    /* Z3 = 2YZ (before Y is overwritten) */
    COORD_FN(dbl)(&t, &D);
    COORD_FN(sub)(&r->x, &F, &t);                /* X3 = F - 2D */
    COORD_FN(sub)(&t, &D, &r->x);
    COORD_FN(mul)(&t, &E, &t);
    COORD_FN(dbl)(&C, &C);
    COORD_FN(dbl)(&C, &C);
    COORD_FN(dbl)(&C, &C);
    COORD_FN(sub)(&r->y, &t, &C);                /* Y3 = E(D - X3) - 8C */
}

/* add-2007-bl: 11M + 5S; handles infinity, P == Q and P == -Q. */
ZK_INLINE void GROUP_FN(add)(GROUP_T *r, const GROUP_T *p, const GROUP_T *q)
{
    if (GROUP_FN(is_inf)(p)) { *r = *q; return; }
    if (GROUP_FN(is_inf)(q)) { *r = *p; return; }
    COORD_T Z1Z1, Z2Z2, U1, U2, S1, S2, H, I, J, R, V, t;
    COORD_FN(sqr)(&Z1Z1, &p->z);
    COORD_FN(sqr)(&Z2Z2, &q->z);
    COORD_FN(mul)(&U1, &p->x, &Z2Z2);
    COORD_FN(mul)(&U2, &q->x, &Z1Z1);
    COORD_FN(mul)(&S1, &p->y, &q->z);
    COORD_FN(mul)(&S1, &S1, &Z2Z2);
    COORD_FN(mul)(&S2, &q->y, &p->z);
    COORD_FN(mul)(&S2, &S2, &Z1Z1);
    COORD_FN(sub)(&H, &U2, &U1);
    COORD_FN(sub)(&R, &S2, &S1);
    if (COORD_FN(is_zero)(&H)) {
        if (COORD_FN(is_zero)(&R)) { GROUP_FN(dbl)(r, p); return; }
        GROUP_FN(set_inf)(r);
        return;
    }
    COORD_FN(dbl)(&R, &R);                       /* r = 2(S2 - S1) */
    COORD_FN(dbl)(&I, &H);
    COORD_FN(sqr)(&I, &I);                       /* I = (2H)^2 */
    COORD_FN(mul)(&J, &H, &I);
    COORD_FN(mul)(&V, &U1, &I);
    COORD_FN(add)(&t, &p->z, &q->z);
    COORD_FN(sqr)(&t, &t);
    COORD_FN(sub)(&t, &t, &Z1Z1);
    COORD_FN(sub)(&t, &t, &Z2Z2);
    COORD_FN(mul)(&r->z, &t, &H);                /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2) H */
    COORD_FN(sqr)(&t, &R);
    COORD_FN(sub)(&t, &t, &J);
    COORD_FN(sub)(&t, &t, &V);
    COORD_FN(sub)(&r->x, &t, &V);                /* X3 = r^2 - J - 2V */
    COORD_FN(sub)(&t, &V, &r->x);
    COORD_FN(mul)(&t, &R, &t);
    COORD_FN(mul)(&S1, &S1, &J);
    COORD_FN(dbl)(&S1, &S1);
    COORD_FN(sub)(&r->y, &t, &S1);               /* Y3 = r(V - X3) - 2 S1 J */
}

/* madd-2007-bl (q affine): 7M + 4S; handles infinity, P == Q, P == -Q. */
ZK_INLINE void GROUP_FN(add_affine)(GROUP_T *r, const GROUP_T *p, const GROUP_AFFINE_T *q)
{
    if (GROUP_FN(affine_is_inf)(q)) { *r = *p; return; }
    if (GROUP_FN(is_inf)(p)) { GROUP_FN(from_affine)(r, q); return; }
    COORD_T Z1Z1, U2, S2, H, HH, I, J, R, V, t;
    COORD_FN(sqr)(&Z1Z1, &p->z);
    COORD_FN(mul)(&U2, &q->x, &Z1Z1);
    COORD_FN(mul)(&S2, &q->y, &p->z);
    COORD_FN(mul)(&S2, &S2, &Z1Z1);
    COORD_FN(sub)(&H, &U2, &p->x);
    COORD_FN(sub)(&R, &S2, &p->y);
    if (COORD_FN(is_zero)(&H)) {
        if (COORD_FN(is_zero)(&R)) { GROUP_FN(dbl)(r, p); return; }
        GROUP_FN(set_inf)(r);
        return;
    }
    COORD_FN(dbl)(&R, &R);                       /* r = 2(S2 - Y1) */
    COORD_FN(sqr)(&HH, &H);
    COORD_FN(dbl)(&I, &HH);
    COORD_FN(dbl)(&I, &I);                       /* I = 4 HH */
    COORD_FN(mul)(&J, &H, &I);
    COORD_FN(mul)(&V, &p->x, &I);
    COORD_FN(add)(&t, &p->z, &H);
    COORD_FN(sqr)(&t, &t);
    COORD_FN(sub)(&t, &t, &Z1Z1);
    COORD_FN(sub)(&r->z, &t, &HH);               /* Z3 = (Z1+H)^2 - Z1Z1 - HH */
    COORD_T Y1 = p->y;
    COORD_FN(sqr)(&t, &R);
    COORD_FN(sub)(&t, &t, &J);
    COORD_FN(sub)(&t, &t, &V);
    COORD_FN(sub)(&r->x, &t, &V);                /* X3 = r^2 - J - 2V */
    COORD_FN(sub)(&t, &V, &r->x);
    COORD_FN(mul)(&t, &R, &t);
    COORD_FN(mul)(&Y1, &Y1, &J);
    COORD_FN(dbl)(&Y1, &Y1);
    COORD_FN(sub)(&r->y, &t, &Y1);               /* Y3 = r(V - X3) - 2 Y1 J */
}

/* Out-of-line copies of dbl / add / add_affine for the cold paths (see ZK_EC_OOL). */
ZK_EC_OOL void GROUP_FN(dbl_ool)(GROUP_T *r, const GROUP_T *p) { GROUP_FN(dbl)(r, p); }
ZK_EC_OOL void GROUP_FN(add_ool)(GROUP_T *r, const GROUP_T *p, const GROUP_T *q)
{ GROUP_FN(add)(r, p, q); }
ZK_EC_OOL void GROUP_FN(add_affine_ool)(GROUP_T *r, const GROUP_T *p, const GROUP_AFFINE_T *q)
{ GROUP_FN(add_affine)(r, p, q); }

/* 1 if p and q are the same point (projective comparison). */
static inline int GROUP_FN(eq)(const GROUP_T *p, const GROUP_T *q)
{
    int pi = GROUP_FN(is_inf)(p), qi = GROUP_FN(is_inf)(q);
    if (pi || qi)
        return pi && qi;
    COORD_T Z1Z1, Z2Z2, a, b;
    COORD_FN(sqr)(&Z1Z1, &p->z);
    COORD_FN(sqr)(&Z2Z2, &q->z);
    COORD_FN(mul)(&a, &p->x, &Z2Z2);
    COORD_FN(mul)(&b, &q->x, &Z1Z1);
    if (!COORD_FN(eq)(&a, &b))
        return 0;
    COORD_FN(mul)(&a, &p->y, &Z2Z2);
    COORD_FN(mul)(&a, &a, &q->z);
    COORD_FN(mul)(&b, &q->y, &Z1Z1);
    COORD_FN(mul)(&b, &b, &p->z);
    return COORD_FN(eq)(&a, &b);
}

/* Affine form of p (infinity -> the all-zero point). */
static inline void GROUP_FN(to_affine)(GROUP_AFFINE_T *r, const GROUP_T *p)
{
    if (GROUP_FN(is_inf)(p)) {
        COORD_FN(zero)(&r->x);
        COORD_FN(zero)(&r->y);
        return;
    }
    COORD_T zi, zi2;
    COORD_FN(inv)(&zi, &p->z);
    COORD_FN(sqr)(&zi2, &zi);
    COORD_FN(mul)(&r->x, &p->x, &zi2);
    COORD_FN(mul)(&zi2, &zi2, &zi);
    COORD_FN(mul)(&r->y, &p->y, &zi2);
}

/*
 * Affine forms of n points with one inversion.  `scratch` holds 3n field
 * elements; r must not alias p or scratch.
 */
static inline void GROUP_FN(batch_to_affine)(GROUP_AFFINE_T *r, const GROUP_T *p, size_t n,
                                             COORD_T *scratch)
{
    COORD_T *z = scratch, *zi = scratch + n, zi2;
    if (!n)
        return;   /* (and GCC 12 then sees z written before batch_inv reads it) */
    for (size_t i = 0; i < n; i++)
        z[i] = p[i].z;
    COORD_FN(batch_inv)(zi, z, n, scratch + 2 * n);   /* zeros (infinity) stay 0 */
    for (size_t i = 0; i < n; i++) {
        if (GROUP_FN(is_inf)(&p[i])) {
            COORD_FN(zero)(&r[i].x);
            COORD_FN(zero)(&r[i].y);
            continue;
        }
        COORD_FN(sqr)(&zi2, &zi[i]);
        COORD_FN(mul)(&r[i].x, &p[i].x, &zi2);
        COORD_FN(mul)(&zi2, &zi2, &zi[i]);
        COORD_FN(mul)(&r[i].y, &p[i].y, &zi2);
    }
}

/* 1 if the affine point satisfies y^2 = x^3 + b, or is the infinity encoding. */
static inline int GROUP_FN(affine_is_on_curve)(const GROUP_AFFINE_T *a)
{
    if (GROUP_FN(affine_is_inf)(a))
        return 1;
    COORD_T l, r;
    COORD_FN(sqr)(&l, &a->y);
    COORD_FN(sqr)(&r, &a->x);
    COORD_FN(mul)(&r, &r, &a->x);
    COORD_FN(add)(&r, &r, &GROUP_FN(B_));
    return COORD_FN(eq)(&l, &r);
}

/* 1 if the Jacobian point satisfies Y^2 = X^3 + b Z^6 (infinity: 1). */
static inline int GROUP_FN(is_on_curve)(const GROUP_T *p)
{
    if (GROUP_FN(is_inf)(p))
        return 1;
    COORD_T l, r, z6;
    COORD_FN(sqr)(&l, &p->y);
    COORD_FN(sqr)(&r, &p->x);
    COORD_FN(mul)(&r, &r, &p->x);
    COORD_FN(sqr)(&z6, &p->z);
    COORD_FN(mul)(&z6, &z6, &p->z);
    COORD_FN(sqr)(&z6, &z6);
    COORD_FN(mul)(&z6, &z6, &GROUP_FN(B_));
    COORD_FN(add)(&r, &r, &z6);
    return COORD_FN(eq)(&l, &r);
}

/*
 * r = [k] p by plain double-and-add, k a little-endian limb vector of nbits
 * bits (any value).  The simple reference the tests compare the faster
 * multiplications with; also the cheapest choice for sparse short scalars.
 * Variable time.
 */
static inline void GROUP_FN(mul_ref)(GROUP_T *r, const GROUP_T *p, const limb_t *k, size_t nbits)
{
    GROUP_T acc, base = *p;
    GROUP_FN(set_inf)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        GROUP_FN(dbl_ool)(&acc, &acc);
        if (bit_n(k, i))
            GROUP_FN(add_ool)(&acc, &acc, &base);
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
static inline void GROUP_FN(mul_wnaf)(GROUP_T *r, const GROUP_T *p, const limb_t *k, size_t nbits)
{
    if (nbits > ZK_WNAF_MAXBITS) {
        GROUP_FN(mul_ref)(r, p, k, nbits);
        return;
    }
    int8_t dig[ZK_WNAF_MAXBITS + 1];
    size_t nd = zk_wnaf_recode(dig, k, nbits, ZK_WNAF_W);
    GROUP_T tab[1 << (ZK_WNAF_W - 2)], p2, acc, t;
    tab[0] = *p;
    GROUP_FN(dbl_ool)(&p2, p);
    for (size_t i = 1; i < (size_t)1 << (ZK_WNAF_W - 2); i++)
        GROUP_FN(add_ool)(&tab[i], &tab[i - 1], &p2);
    GROUP_FN(set_inf)(&acc);
    for (size_t i = nd; i-- > 0;) {
        GROUP_FN(dbl_ool)(&acc, &acc);
        int d = dig[i];
        if (d > 0) {
            GROUP_FN(add_ool)(&acc, &acc, &tab[(d - 1) / 2]);
        } else if (d < 0) {
            GROUP_FN(neg)(&t, &tab[(-d - 1) / 2]);
            GROUP_FN(add_ool)(&acc, &acc, &t);
        }
    }
    *r = acc;
}

/* r = [k] p (the wNAF multiplication above); same contract as mul_wnaf. */
static inline void GROUP_FN(mul)(GROUP_T *r, const GROUP_T *p, const limb_t *k, size_t nbits)
{ GROUP_FN(mul_wnaf)(r, p, k, nbits); }

/* 1 if the affine points are equal (both infinity counts as equal). */
ZK_HD int GROUP_FN(affine_eq)(const GROUP_AFFINE_T *a, const GROUP_AFFINE_T *b)
{ return COORD_FN(eq)(&a->x, &b->x) & COORD_FN(eq)(&a->y, &b->y); }

/*
 * 1 if [r] p = O, r the prime group order (infinity: 1).  Slow (a 255-bit
 * multiplication): the reference for the fast per-curve checks
 * (*_in_subgroup, ec/endo.h).  Meaningful only for points on the curve.
 */
static inline int GROUP_FN(in_subgroup_slow)(const GROUP_T *p)
{
    GROUP_T t;
    GROUP_FN(mul_ref)(&t, p, GROUP_FN(ORDER_), 256);
    return GROUP_FN(is_inf)(&t);
}

/* As in_subgroup_slow, for an affine point. */
static inline int GROUP_FN(affine_in_subgroup_slow)(const GROUP_AFFINE_T *a)
{
    GROUP_T p;
    GROUP_FN(from_affine)(&p, a);
    return GROUP_FN(in_subgroup_slow)(&p);
}

/*
 * The point (x, y) with y^2 = x^3 + b whose y is lexicographically largest
 * (largest != 0) or not (largest == 0), in r.  Returns 1, or 0 if x^3 + b is
 * not a square (no such point; r is not written).  Never yields infinity.
 */
static inline int GROUP_FN(affine_from_x)(GROUP_AFFINE_T *r, const COORD_T *x, int largest)
{
    COORD_T rhs, y;
    COORD_FN(sqr)(&rhs, x);
    COORD_FN(mul)(&rhs, &rhs, x);
    COORD_FN(add)(&rhs, &rhs, &GROUP_FN(B_));
    if (!COORD_FN(sqrt)(&y, &rhs))
        return 0;
    if (COORD_FN(is_lex_largest)(&y) != (largest != 0))
        COORD_FN(neg)(&y, &y);                   /* (y = 0, if it occurs, is its own negative) */
    r->x = *x;
    r->y = y;
    return 1;
}

#undef GROUP_T
#undef GROUP_AFFINE_T
#undef COORD_T
#undef GROUP_CONST
#undef GROUP_ORDER
#undef GROUP_FN
#undef COORD_FN
#undef ZK_EC_TMPL

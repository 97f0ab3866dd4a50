/*
 * pairing_tmpl.h -- optimal ate Miller loop, final exponentiation and
 * products of pairings for one curve; included by pairing.c once per curve,
 * right after the one line that names its parameters (undefined at the end
 * of this file):
 *   #define ZK_PAIRING_TMPL (bn254, BN254, 0, 1, 0)
 * that is:
 *   the curve: the prefix of the exported functions and of the types used
 *                (bn254_fp, bn254_fp2, bn254_fp12, bn254_g1, bn254_g2)
 *   the prefix of the constant BN254_PAIRING_LOOP, an initializer of the
 *                signed digits (-1, 0, 1) of the loop scalar, most
 *                significant first, without the leading 1
 *   MTYPE        1 for an M-type twist (BLS12-381), 0 for D-type (BN254)
 *   BN           1: add the two Frobenius lines of the BN optimal ate
 *   XNEG         1: the loop scalar is -(the digits): conjugate at the end
 * and pairing.c defines, before the inclusion, the static function
 * bn254_hard_(ret, f) raising a cyclotomic element to (p^4 - p^2 + 1)/r.
 *
 * Generated names (the static types and functions end in _):
 *   bn254_tw_ bn254_pair_ bn254_line_mul_ bn254_dbl_step_ bn254_add_step_
 *   bn254_twist_frob_ bn254_miller_n_ bn254_miller_many_ bn254_cyc_pow_small_
 *   bn254_miller_loop bn254_final_exp bn254_pairing bn254_pairing_product
 *   bn254_pairing_product_is_one
 *   bls381_tw_ bls381_pair_ bls381_line_mul_ bls381_dbl_step_ bls381_add_step_
 *   bls381_twist_frob_ bls381_miller_n_ bls381_miller_many_
 *   bls381_cyc_pow_small_ bls381_miller_loop bls381_final_exp bls381_pairing
 *   bls381_pairing_product bls381_pairing_product_is_one
 *
 * Line functions.  T runs over the twist E' in homogeneous projective
 * coordinates (X : Y : Z), x = X/Z, y = Y/Z; Q is affine.  The untwisting
 * map is (x, y) -> (x w^2, y w^3) for a D-type twist (E': y^2 = x^3 + b/xi)
 * and (x, y) -> (x w^-2, y w^-3) for an M-type twist (y^2 = x^3 + b xi).
 * The tangent/chord line at P = (xP, yP) is, up to a factor in a proper
 * subfield of Fp12 (removed by the final exponentiation),
 *   D-type:  ly yP + lx xP w   + lc w^3
 *   M-type:  lc    + lx xP w^2 + ly yP w^3
 * with (lc, lx, ly) in Fp2:
 *   doubling:  lc = 3 b' Z^2 - Y^2,  lx = 3 X^2,  ly = -2 Y Z
 *   addition (T + Q, theta = Y - yQ Z, lambda = X - xQ Z):
 *              lc = theta xQ - lambda yQ,  lx = -theta,  ly = lambda
 * Point formulas (a = 0, b' the twist coefficient; Costello-Lange-Naehrig,
 * doubling scaled by 4 to avoid halving):
 *   2T:    B = Y^2, C = Z^2, E = 3b'C, F = 3E, H = 2YZ,
 *          X3 = 2XY (B - F),  Y3 = (B + F)^2 - 12 E^2,  Z3 = 4 B H
 *   T + Q: X3 = lambda Hh, Y3 = theta (G - Hh) - Y lambda^3, Z3 = Z lambda^3
 *          with G = X lambda^2, Hh = lambda^3 + Z theta^2 - 2G.
 * Inputs must lie in the order-r subgroups: then no intermediate T is
 * infinity or equal to +-Q and the formulas never degenerate.
 */
#define PAIRING_CURVE  ZK_ARG(1, ZK_PAIRING_TMPL)       /* bn254 */
#define PAIRING_DIGITS ZK_CAT(ZK_ARG(2, ZK_PAIRING_TMPL), PAIRING_LOOP) /* BN254_PAIRING_LOOP */
#define PAIRING_MTYPE  ZK_ARG(3, ZK_PAIRING_TMPL)
#define PAIRING_BN     ZK_ARG(4, ZK_PAIRING_TMPL)
#define PAIRING_XNEG   ZK_ARG(5, ZK_PAIRING_TMPL)
#define CURVE_NAME(name) ZK_CAT(PAIRING_CURVE, name)    /* CURVE_NAME(fp): bn254_fp */
#define PAIRING_FN(name) CURVE_NAME(name)               /* PAIRING_FN(pairing): bn254_pairing */
#include "ff/curve_names.h"     /* FR_T, G1_T, G1_AFFINE_T, FR_FN, G1_FN, ... */

/* pairs processed together in one Miller loop (stack state) */
#define PAIR_CHUNK 8

typedef struct { FP2_T x, y, z; } PAIRING_FN(tw_);

typedef struct {
    FP_T xp, yp;     /* P */
    G2_AFFINE_T q;              /* Q */
    G2_AFFINE_T nq;             /* -Q */
    PAIRING_FN(tw_) t;           /* running multiple of Q */
} PAIRING_FN(pair_);

static inline void PAIRING_FN(line_mul_)(FP12_T *f, const FP2_T *lc, const FP2_T *lx,
                                 const FP2_T *ly, const PAIRING_FN(pair_) *pp)
{
    FP2_T a, b;
    FP2_FN(mul_by_fp)(&a, lx, &pp->xp);
    FP2_FN(mul_by_fp)(&b, ly, &pp->yp);
#if PAIRING_MTYPE
    FP12_FN(mul_by_014)(f, f, lc, &a, &b);
#else
    FP12_FN(mul_by_034)(f, f, &b, &a, lc);
#endif
}

/* T = 2T, f *= tangent line at P */
static inline void PAIRING_FN(dbl_step_)(FP12_T *f, PAIRING_FN(pair_) *pp, const FP2_T *b3)
{
    PAIRING_FN(tw_) *T = &pp->t;
    FP2_T B, C, E, F, H, X2, XY, lc, lx, t;
    FP2_FN(sqr)(&B, &T->y);
    FP2_FN(sqr)(&C, &T->z);
    FP2_FN(mul)(&E, &C, b3);
    FP2_FN(dbl)(&F, &E);
    FP2_FN(add)(&F, &F, &E);
    FP2_FN(add)(&H, &T->y, &T->z);
    FP2_FN(sqr)(&H, &H);
    FP2_FN(sub)(&H, &H, &B);
    FP2_FN(sub)(&H, &H, &C);                  /* 2YZ */
    FP2_FN(sqr)(&X2, &T->x);
    FP2_FN(mul)(&XY, &T->x, &T->y);
    /* line */
    FP2_FN(sub)(&lc, &E, &B);
    FP2_FN(dbl)(&lx, &X2);
    FP2_FN(add)(&lx, &lx, &X2);
    /* point */
    FP2_FN(sub)(&t, &B, &F);
    FP2_FN(mul)(&T->x, &XY, &t);
    FP2_FN(dbl)(&T->x, &T->x);                /* 2XY(B - F) */
    FP2_FN(sqr)(&t, &E);
    FP2_FN(dbl)(&t, &t);
    FP2_FN(dbl)(&t, &t);
    FP2_FN(add)(&E, &t, &t);
    FP2_FN(add)(&E, &E, &t);                  /* 12 E^2 */
    FP2_FN(add)(&t, &B, &F);
    FP2_FN(sqr)(&t, &t);
    FP2_FN(sub)(&T->y, &t, &E);
    FP2_FN(mul)(&T->z, &B, &H);
    FP2_FN(dbl)(&T->z, &T->z);
    FP2_FN(dbl)(&T->z, &T->z);                /* 4BH */
    FP2_FN(neg)(&H, &H);
    PAIRING_FN(line_mul_)(f, &lc, &lx, &H, pp);
}

/* T = T + Q, f *= chord line at P */
static inline void PAIRING_FN(add_step_)(FP12_T *f, PAIRING_FN(pair_) *pp, const G2_AFFINE_T *Q,
                                         int need_point)
{
    PAIRING_FN(tw_) *T = &pp->t;
    FP2_T th, la, C, D, E, G, Hh, lc, t;
    FP2_FN(mul)(&th, &Q->y, &T->z);
    FP2_FN(sub)(&th, &T->y, &th);             /* theta = Y - yQ Z */
    FP2_FN(mul)(&la, &Q->x, &T->z);
    FP2_FN(sub)(&la, &T->x, &la);             /* lambda = X - xQ Z */
    /* line */
    FP2_FN(mul)(&lc, &th, &Q->x);
    FP2_FN(mul)(&t, &la, &Q->y);
    FP2_FN(sub)(&lc, &lc, &t);
    if (need_point) {
        FP2_FN(sqr)(&C, &th);
        FP2_FN(sqr)(&D, &la);
        FP2_FN(mul)(&E, &la, &D);
        FP2_FN(mul)(&C, &C, &T->z);           /* F = Z theta^2 */
        FP2_FN(mul)(&G, &T->x, &D);
        FP2_FN(add)(&Hh, &E, &C);
        FP2_FN(sub)(&Hh, &Hh, &G);
        FP2_FN(sub)(&Hh, &Hh, &G);
        FP2_FN(mul)(&T->x, &la, &Hh);
        FP2_FN(sub)(&t, &G, &Hh);
        FP2_FN(mul)(&t, &th, &t);
        FP2_FN(mul)(&C, &T->y, &E);
        FP2_FN(sub)(&T->y, &t, &C);
        FP2_FN(mul)(&T->z, &T->z, &E);
    }
    FP2_FN(neg)(&th, &th);
    PAIRING_FN(line_mul_)(f, &lc, &th, &la, pp);
}

#if PAIRING_BN
/* pi(Q) on the D-type twist: (conj(x) xi^((p-1)/3), conj(y) xi^((p-1)/2)) */
static inline void PAIRING_FN(twist_frob_)(G2_AFFINE_T *r, const G2_AFFINE_T *q)
{
    FP2_FN(conj)(&r->x, &q->x);
    FP2_FN(mul)(&r->x, &r->x, &FP12_FN(FROB1_)[1]);
    FP2_FN(conj)(&r->y, &q->y);
    FP2_FN(mul)(&r->y, &r->y, &FP12_FN(FROB1_)[2]);
}
#endif

/* f = prod over the n (<= PAIR_CHUNK) prepared pairs of their Miller values */
static void PAIRING_FN(miller_n_)(FP12_T *f, PAIRING_FN(pair_) *pp, size_t n)
{
    static const signed char digits[] = PAIRING_DIGITS;
    FP2_T b3;
    FP2_FN(dbl)(&b3, &G2_FN(B_));
    FP2_FN(add)(&b3, &b3, &G2_FN(B_));          /* 3 b' */
    FP12_FN(one)(f);
    for (size_t i = 0; i < n; i++) {
        pp[i].t.x = pp[i].q.x;
        pp[i].t.y = pp[i].q.y;
        FP2_FN(one)(&pp[i].t.z);
    }
    for (size_t k = 0; k < sizeof digits; k++) {
        if (k)
            FP12_FN(sqr)(f, f);
        for (size_t i = 0; i < n; i++)
            PAIRING_FN(dbl_step_)(f, &pp[i], &b3);
        if (digits[k] > 0)
            for (size_t i = 0; i < n; i++)
                PAIRING_FN(add_step_)(f, &pp[i], &pp[i].q, 1);
        else if (digits[k] < 0)
            for (size_t i = 0; i < n; i++)
                PAIRING_FN(add_step_)(f, &pp[i], &pp[i].nq, 1);
    }
#if PAIRING_BN
    for (size_t i = 0; i < n; i++) {
        G2_AFFINE_T q1, q2;
        PAIRING_FN(twist_frob_)(&q1, &pp[i].q);
        /* -pi^2(Q) = (x xi^((p^2-1)/3), y) */
        FP2_FN(mul_by_fp)(&q2.x, &pp[i].q.x, &FP12_FN(FROB2_)[1].c0);
        q2.y = pp[i].q.y;
        PAIRING_FN(add_step_)(f, &pp[i], &q1, 1);
        PAIRING_FN(add_step_)(f, &pp[i], &q2, 0);
    }
#endif
#if PAIRING_XNEG
    FP12_FN(conj)(f, f);
#endif
}

/* Miller value of pairs [0, n), skipping those with an infinity point */
static void PAIRING_FN(miller_many_)(FP12_T *ret, const G1_AFFINE_T *P, const G2_AFFINE_T *Q,
                                     size_t n)
{
    PAIRING_FN(pair_) pp[PAIR_CHUNK];
    FP12_T acc, f;
    size_t m = 0;
    int have = 0;
    FP12_FN(one)(&acc);
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !G1_FN(affine_is_inf)(&P[i]) && !G2_FN(affine_is_inf)(&Q[i])) {
            pp[m].xp = P[i].x;
            pp[m].yp = P[i].y;
            pp[m].q = Q[i];
            G2_FN(affine_neg)(&pp[m].nq, &Q[i]);
            m++;
        }
        if (m == PAIR_CHUNK || (i == n && m > 0)) {
            PAIRING_FN(miller_n_)(&f, pp, m);
            if (have)
                FP12_FN(mul)(&acc, &acc, &f);
            else
                acc = f;
            have = 1;
            m = 0;
        }
    }
    *ret = acc;
}

/* r = a^k for a cyclotomic a and a small k > 0 */
static inline void PAIRING_FN(cyc_pow_small_)(FP12_T *r, const FP12_T *a, uint64_t k)
{
    limb_t e[1] = { k };
    FP12_FN(cyclotomic_pow)(r, a, e, 64);
}

void PAIRING_FN(miller_loop)(FP12_T *ret, const G1_AFFINE_T *P, const G2_AFFINE_T *Q)
{
    PAIRING_FN(miller_many_)(ret, P, Q, 1);
}

void PAIRING_FN(final_exp)(FP12_T *ret, const FP12_T *f)
{
    FP12_T t, u;
    /* easy part: f^((p^6 - 1)(p^2 + 1)) */
    FP12_FN(inv)(&u, f);
    FP12_FN(conj)(&t, f);
    FP12_FN(mul)(&t, &t, &u);
    FP12_FN(frobenius)(&u, &t, 2);
    FP12_FN(mul)(&t, &t, &u);
    /* hard part: (p^4 - p^2 + 1)/r */
    CURVE_NAME(hard_)(ret, &t);
}

void PAIRING_FN(pairing)(FP12_T *ret, const G1_AFFINE_T *P, const G2_AFFINE_T *Q)
{
    FP12_T f;
    PAIRING_FN(miller_many_)(&f, P, Q, 1);
    PAIRING_FN(final_exp)(ret, &f);
}

void PAIRING_FN(pairing_product)(FP12_T *ret, const G1_AFFINE_T *P, const G2_AFFINE_T *Q, size_t n)
{
    FP12_T f;
    PAIRING_FN(miller_many_)(&f, P, Q, n);
    PAIRING_FN(final_exp)(ret, &f);
}

int PAIRING_FN(pairing_product_is_one)(const G1_AFFINE_T *P, const G2_AFFINE_T *Q, size_t n)
{
    FP12_T r;
    PAIRING_FN(pairing_product)(&r, P, Q, n);
    return FP12_FN(is_one)(&r);
}

#undef PAIR_CHUNK
#undef PAIRING_CURVE
#undef PAIRING_DIGITS
#undef PAIRING_MTYPE
#undef PAIRING_BN
#undef PAIRING_XNEG
#include "ff/curve_names.h"     /* (undefines them and CURVE_NAME) */
#undef PAIRING_FN
#undef ZK_PAIRING_TMPL

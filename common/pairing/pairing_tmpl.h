/*
 * pairing_tmpl.h -- optimal ate Miller loop, final exponentiation and
 * products of pairings for one curve; included by pairing.c once per curve
 * with:
 *   ZK_PC        prefix of the exported functions (bn254, bls381)
 *   ZK_PC_FP, ZK_PC_FP2, ZK_PC_FP12, ZK_PC_G1, ZK_PC_G2   type prefixes
 *   ZK_PC_MTYPE  1 for an M-type twist (BLS12-381), 0 for D-type (BN254)
 *   ZK_PC_LOOP   static array of signed digits (-1, 0, 1) of the loop
 *                scalar, most significant first, without the leading 1
 *   ZK_PC_BN     1: add the two Frobenius lines of the BN optimal ate
 *   ZK_PC_XNEG   1: the loop scalar is -(the digits): conjugate at the end
 *   ZK_PC_HARD   name of a static function (ret, f) raising a cyclotomic
 *                element to (p^4 - p^2 + 1)/r, defined before inclusion
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
#define PN(name) ZK_CAT(ZK_PC, name)
#define PF(name) ZK_CAT(ZK_PC_FP, name)
#define P2(name) ZK_CAT(ZK_PC_FP2, name)
#define P12(name) ZK_CAT(ZK_PC_FP12, name)
#define PG1(name) ZK_CAT(ZK_PC_G1, name)
#define PG2(name) ZK_CAT(ZK_PC_G2, name)
#define PG1A ZK_CAT(ZK_PC_G1, affine)
#define PG2A ZK_CAT(ZK_PC_G2, affine)

/* pairs processed together in one Miller loop (stack state) */
#define PAIR_CHUNK 8

typedef struct { ZK_PC_FP2 x, y, z; } PN(tw_);

typedef struct {
    ZK_PC_FP xp, yp;     /* P */
    PG2A q;              /* Q */
    PG2A nq;             /* -Q */
    PN(tw_) t;           /* running multiple of Q */
} PN(pair_);

static inline void PN(line_mul_)(ZK_PC_FP12 *f, const ZK_PC_FP2 *lc, const ZK_PC_FP2 *lx,
                                 const ZK_PC_FP2 *ly, const PN(pair_) *pp)
{
    ZK_PC_FP2 a, b;
    P2(mul_by_fp)(&a, lx, &pp->xp);
    P2(mul_by_fp)(&b, ly, &pp->yp);
#if ZK_PC_MTYPE
    P12(mul_by_014)(f, f, lc, &a, &b);
#else
    P12(mul_by_034)(f, f, &b, &a, lc);
#endif
}

/* T = 2T, f *= tangent line at P */
static inline void PN(dbl_step_)(ZK_PC_FP12 *f, PN(pair_) *pp, const ZK_PC_FP2 *b3)
{
    PN(tw_) *T = &pp->t;
    ZK_PC_FP2 B, C, E, F, H, X2, XY, lc, lx, t;
    P2(sqr)(&B, &T->y);
    P2(sqr)(&C, &T->z);
    P2(mul)(&E, &C, b3);
    P2(dbl)(&F, &E);
    P2(add)(&F, &F, &E);
    P2(add)(&H, &T->y, &T->z);
    P2(sqr)(&H, &H);
    P2(sub)(&H, &H, &B);
    P2(sub)(&H, &H, &C);                  /* 2YZ */
    P2(sqr)(&X2, &T->x);
    P2(mul)(&XY, &T->x, &T->y);
    /* line */
    P2(sub)(&lc, &E, &B);
    P2(dbl)(&lx, &X2);
    P2(add)(&lx, &lx, &X2);
    /* point */
    P2(sub)(&t, &B, &F);
    P2(mul)(&T->x, &XY, &t);
    P2(dbl)(&T->x, &T->x);                /* 2XY(B - F) */
    P2(sqr)(&t, &E);
    P2(dbl)(&t, &t);
    P2(dbl)(&t, &t);
    P2(add)(&E, &t, &t);
    P2(add)(&E, &E, &t);                  /* 12 E^2 */
    P2(add)(&t, &B, &F);
    P2(sqr)(&t, &t);
    P2(sub)(&T->y, &t, &E);
    P2(mul)(&T->z, &B, &H);
    P2(dbl)(&T->z, &T->z);
    P2(dbl)(&T->z, &T->z);                /* 4BH */
    P2(neg)(&H, &H);
    PN(line_mul_)(f, &lc, &lx, &H, pp);
}

/* T = T + Q, f *= chord line at P */
static inline void PN(add_step_)(ZK_PC_FP12 *f, PN(pair_) *pp, const PG2A *Q, int need_point)
{
    PN(tw_) *T = &pp->t;
    ZK_PC_FP2 th, la, C, D, E, G, Hh, lc, t;
    P2(mul)(&th, &Q->y, &T->z);
    P2(sub)(&th, &T->y, &th);             /* theta = Y - yQ Z */
    P2(mul)(&la, &Q->x, &T->z);
    P2(sub)(&la, &T->x, &la);             /* lambda = X - xQ Z */
    /* line */
    P2(mul)(&lc, &th, &Q->x);
    P2(mul)(&t, &la, &Q->y);
    P2(sub)(&lc, &lc, &t);
    if (need_point) {
        P2(sqr)(&C, &th);
        P2(sqr)(&D, &la);
        P2(mul)(&E, &la, &D);
        P2(mul)(&C, &C, &T->z);           /* F = Z theta^2 */
        P2(mul)(&G, &T->x, &D);
        P2(add)(&Hh, &E, &C);
        P2(sub)(&Hh, &Hh, &G);
        P2(sub)(&Hh, &Hh, &G);
        P2(mul)(&T->x, &la, &Hh);
        P2(sub)(&t, &G, &Hh);
        P2(mul)(&t, &th, &t);
        P2(mul)(&C, &T->y, &E);
        P2(sub)(&T->y, &t, &C);
        P2(mul)(&T->z, &T->z, &E);
    }
    P2(neg)(&th, &th);
    PN(line_mul_)(f, &lc, &th, &la, pp);
}

#if ZK_PC_BN
/* pi(Q) on the D-type twist: (conj(x) xi^((p-1)/3), conj(y) xi^((p-1)/2)) */
static inline void PN(twist_frob_)(PG2A *r, const PG2A *q)
{
    P2(conj)(&r->x, &q->x);
    P2(mul)(&r->x, &r->x, &P12(FROB1_)[1]);
    P2(conj)(&r->y, &q->y);
    P2(mul)(&r->y, &r->y, &P12(FROB1_)[2]);
}
#endif

/* f = prod over the n (<= PAIR_CHUNK) prepared pairs of their Miller values */
static void PN(miller_n_)(ZK_PC_FP12 *f, PN(pair_) *pp, size_t n)
{
    static const signed char digits[] = ZK_PC_LOOP;
    ZK_PC_FP2 b3;
    P2(dbl)(&b3, &PG2(B_));
    P2(add)(&b3, &b3, &PG2(B_));          /* 3 b' */
    P12(one)(f);
    for (size_t i = 0; i < n; i++) {
        pp[i].t.x = pp[i].q.x;
        pp[i].t.y = pp[i].q.y;
        P2(one)(&pp[i].t.z);
    }
    for (size_t k = 0; k < sizeof digits; k++) {
        if (k)
            P12(sqr)(f, f);
        for (size_t i = 0; i < n; i++)
            PN(dbl_step_)(f, &pp[i], &b3);
        if (digits[k] > 0)
            for (size_t i = 0; i < n; i++)
                PN(add_step_)(f, &pp[i], &pp[i].q, 1);
        else if (digits[k] < 0)
            for (size_t i = 0; i < n; i++)
                PN(add_step_)(f, &pp[i], &pp[i].nq, 1);
    }
#if ZK_PC_BN
    for (size_t i = 0; i < n; i++) {
        PG2A q1, q2;
        PN(twist_frob_)(&q1, &pp[i].q);
        /* -pi^2(Q) = (x xi^((p^2-1)/3), y) */
        P2(mul_by_fp)(&q2.x, &pp[i].q.x, &P12(FROB2_)[1].c0);
        q2.y = pp[i].q.y;
        PN(add_step_)(f, &pp[i], &q1, 1);
        PN(add_step_)(f, &pp[i], &q2, 0);
    }
#endif
#if ZK_PC_XNEG
    P12(conj)(f, f);
#endif
}

/* Miller value of pairs [0, n), skipping those with an infinity point */
static void PN(miller_many_)(ZK_PC_FP12 *ret, const PG1A *P, const PG2A *Q, size_t n)
{
    PN(pair_) pp[PAIR_CHUNK];
    ZK_PC_FP12 acc, f;
    size_t m = 0;
    int have = 0;
    P12(one)(&acc);
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !PG1(affine_is_inf)(&P[i]) && !PG2(affine_is_inf)(&Q[i])) {
            pp[m].xp = P[i].x;
            pp[m].yp = P[i].y;
            pp[m].q = Q[i];
            PG2(affine_neg)(&pp[m].nq, &Q[i]);
            m++;
        }
        if (m == PAIR_CHUNK || (i == n && m > 0)) {
            PN(miller_n_)(&f, pp, m);
            if (have)
                P12(mul)(&acc, &acc, &f);
            else
                acc = f;
            have = 1;
            m = 0;
        }
    }
    *ret = acc;
}

/* r = a^k for a cyclotomic a and a small k > 0 */
static inline void PN(cyc_pow_small_)(ZK_PC_FP12 *r, const ZK_PC_FP12 *a, uint64_t k)
{
    limb_t e[1] = { k };
    P12(cyclotomic_pow)(r, a, e, 64);
}

void PN(miller_loop)(ZK_PC_FP12 *ret, const PG1A *P, const PG2A *Q)
{
    PN(miller_many_)(ret, P, Q, 1);
}

void PN(final_exp)(ZK_PC_FP12 *ret, const ZK_PC_FP12 *f)
{
    ZK_PC_FP12 t, u;
    /* easy part: f^((p^6 - 1)(p^2 + 1)) */
    P12(inv)(&u, f);
    P12(conj)(&t, f);
    P12(mul)(&t, &t, &u);
    P12(frobenius)(&u, &t, 2);
    P12(mul)(&t, &t, &u);
    /* hard part: (p^4 - p^2 + 1)/r */
    ZK_PC_HARD(ret, &t);
}

void PN(pairing)(ZK_PC_FP12 *ret, const PG1A *P, const PG2A *Q)
{
    ZK_PC_FP12 f;
    PN(miller_many_)(&f, P, Q, 1);
    PN(final_exp)(ret, &f);
}

void PN(pairing_product)(ZK_PC_FP12 *ret, const PG1A *P, const PG2A *Q, size_t n)
{
    ZK_PC_FP12 f;
    PN(miller_many_)(&f, P, Q, n);
    PN(final_exp)(ret, &f);
}

int PN(pairing_product_is_one)(const PG1A *P, const PG2A *Q, size_t n)
{
    ZK_PC_FP12 r;
    PN(pairing_product)(&r, P, Q, n);
    return P12(is_one)(&r);
}

#undef PAIR_CHUNK
#undef PN
#undef PF
#undef P2
#undef P12
#undef PG1
#undef PG2
#undef PG1A
#undef PG2A

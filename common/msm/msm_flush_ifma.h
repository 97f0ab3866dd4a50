/*
 * msm_flush_ifma.h -- msm_flush on eight additions at a time with AVX-512
 * IFMA (ff/ifma_bn254.h), for bn254_g1 and bn254_g2.  A fragment of
 * msm_tmpl.h, read inside the instantiations whose ifma parameter is 1 (the
 * field is bn254_fp: zk_fp8) or 2 (bn254_fp2: zk_fp2x8), where
 * ZK_IFMA_BN254, after msm_flush_fwd, msm_flush_bwd and msm_flush_scalar,
 * which it uses for the entries it leaves to scalar code.  Defines
 * GROUP_FN(msm_flush_ifma) (bn254_g1_msm_flush_ifma,
 * bn254_g2_msm_flush_ifma), with msm_flush's contract, and MSM_IFMA_MIN.
 *
 * The batch's first 8 G entries (G = nbatch / 8) form G groups of eight,
 * entry 8 g + j in lane j of group g: eight independent chains of prefix
 * products, one a lane.  The last nbatch mod 8 entries are a scalar chain
 * (msm_flush_fwd).  One scalar inversion serves the nine chains' products.
 * A lane whose two x agree (a doubling or P + (-P): rare) is left alone by
 * the vector passes (its denominator replaced by one, its bucket stored back
 * as it was) and added afterwards by msm_flush_scalar, with an inversion of
 * its own.
 *
 * The scale.  Elements are in Montgomery form for R = 2^256 and the vector
 * product is M(a, b) = a b / 2^260, a factor 2^-4 off; scale s below means
 * "stored = value R s".  The prefix pre_g = M(..M(M(one, den_0), den_1)..,
 * den_g-1) has scale 2^-4g and a lane's total T scale 2^-4G.  The scalar
 * inverse of T (R form, scale-free products) is 1/value with scale 2^4G;
 * times 2^6 the backward accumulator starts at scale 2^(6 + 4G), and after
 * group g's M(acc, den_g) it has 2^(6 + 4g).  Then, for group g,
 *   t    = M(acc, pre_g)      1/den_g, scale 2^(6 + 4(g+1)) 2^-4g 2^-4 = 2^6
 *   lam  = M(y2 - y1, t)      lambda, scale 2^6 2^-4 = 2^2
 *   lam2 = M(lam, lam)        lambda^2, scale 2^4 2^-4 = 1: x3 = lam2 - x1 - x2
 *   v    = M(4 (x1 - x3), lam)  4 2^2 2^-4 = 1: y3 = v - y1
 * so no product converts between the two forms.  On Fp2 every component of
 * a product carries the same 2^-4, so the same holds.  On Fp the
 * differences that only feed products are lazy (x2 - x1 + 2p, +-y2 - y1 +
 * 2p, 4 (x1 - x3 + 2p): one carry pass, no reduction; ifma_bn254.h's fused
 * steps), and x3 and y3 are reduced from below 4p and 3p in two steps
 * (on Fp2 too, its products' components being below 2p).
 */

/* Batches below this many entries stay scalar (msm_flush). */
#ifndef MSM_IFMA_MIN
#define MSM_IFMA_MIN 32
#endif

/* The eight-lane type of the field and its functions: MSM_V(mul) is
 * zk_fp8_mul or zk_fp2x8_mul. */
#if MSM_IFMA == 2
#define MSM_VT zk_fp2x8
#define MSM_V(name) zk_fp2x8_##name
#else
#define MSM_VT zk_fp8
#define MSM_V(name) zk_fp8_##name
#endif

/* Group g of a batch: where its eight additions read and write. */
struct GROUP_FN(msm_ifma_grp) {
    const FIELD_T *x2[8], *y2[8];          /* the points added */
    FIELD_T *x1[8], *y1[8];                /* their buckets */
    __mmask8 neg;                          /* lanes adding -P */
};

ZK_IFMA_INLINE void GROUP_FN(msm_ifma_ptrs)(struct GROUP_FN(msm_ifma_grp) *gp,
                                            const struct GROUP_FN(msm_actx) *cx, size_t g)
{
    unsigned neg = 0;
    for (unsigned j = 0; j < 8; j++) {
        const struct GROUP_FN(msm_ent) *e = &cx->batch[8 * g + j];
        gp->x2[j] = e->x;
        gp->y2[j] = e->y;
        gp->x1[j] = &cx->bk[e->b].x;
        gp->y1[j] = &cx->bk[e->b].y;
        neg |= (e->neg & 1u) << j;
    }
    gp->neg = (__mmask8)neg;
}

/* Prefetches group g's entries and buckets (g < groups). */
ZK_IFMA_INLINE void GROUP_FN(msm_ifma_prefetch)(const struct GROUP_FN(msm_actx) *cx, size_t g)
{
    for (unsigned j = 0; j < 8; j++) {
        const struct GROUP_FN(msm_ent) *e = &cx->batch[8 * g + j];
        __builtin_prefetch(&cx->bk[e->b], 1);
        __builtin_prefetch(e->x);
        __builtin_prefetch(e->y);
    }
}

/* *den = x2 - x1 of group gp (MSM_V(den): lazy on Fp), the x loaded into
 * *x1 and *x2; lanes where they are equal get *one instead, and are
 * returned. */
ZK_IFMA_INLINE __mmask8 GROUP_FN(msm_ifma_den)(MSM_VT *den, MSM_VT *x1, MSM_VT *x2,
                                               const struct GROUP_FN(msm_ifma_grp) *gp,
                                               const MSM_VT *one)
{
    MSM_V(load)(x2, gp->x2);
    MSM_V(load)(x1, (const FIELD_T *const *)gp->x1);
    MSM_V(den)(den, x2, x1);
    __mmask8 z = MSM_V(eq_mask)(x1, x2);
    if (z)
        MSM_V(blend)(den, z, den, one);
    return z;
}

static ZK_IFMA_TARGET void GROUP_FN(msm_flush_ifma)(struct GROUP_FN(msm_actx) *cx)
{
    size_t nb = cx->nbatch, ng = nb / 8, nv = 8 * ng, nlater = 0;
    FIELD_T acc_s, q[9], tot[8], c64, r;
    FIELD_T *totp[8];
    MSM_VT one, acc, den, x1, x2, y1, y2, pre, t, lam, v;
    struct GROUP_FN(msm_ifma_grp) gp;

    for (unsigned j = 0; j < 8; j++)
        totp[j] = &tot[j];
    FIELD_FN(one)(&acc_s);
    MSM_V(bcast)(&one, &acc_s);
    GROUP_FN(msm_flush_fwd)(cx, nv, nb, &acc_s);         /* the scalar rest */
    acc = one;
    for (size_t g = 0; g < ng; g++) {                    /* forward: prefixes */
        if (g + 2 < ng)
            GROUP_FN(msm_ifma_prefetch)(cx, g + 2);
        GROUP_FN(msm_ifma_ptrs)(&gp, cx, g);
        GROUP_FN(msm_ifma_den)(&den, &x1, &x2, &gp, &one);
        MSM_V(store_soa)((limb_t *)(void *)(cx->pre + 8 * g), &acc);
        MSM_V(mul)(&acc, &acc, &den);
    }
    MSM_V(reduce)(&acc, &acc);
    MSM_V(store)(totp, &acc);
    /* one inversion for the nine chains: q[0] the scalar one, q[j + 1] = q[j] tot[j] */
    q[0] = acc_s;
    for (unsigned j = 0; j < 8; j++)
        FIELD_FN(mul)(&q[j + 1], &q[j], &tot[j]);
    FIELD_FN(inv)(&acc_s, &q[8]);
#if MSM_IFMA == 2
    bn254_fp_from_u64(&c64.c0, 64);
    bn254_fp_zero(&c64.c1);
#else
    FIELD_FN(from_u64)(&c64, 64);
#endif
    for (unsigned j = 8; j-- > 0;) {
        FIELD_FN(mul)(&r, &acc_s, &q[j]);                /* 1 / tot[j] */
        FIELD_FN(mul)(&acc_s, &acc_s, &tot[j]);
        FIELD_FN(mul)(&tot[j], &r, &c64);                /* scale 2^6 (top comment) */
    }
    MSM_V(load)(&acc, (const FIELD_T *const *)totp);
    for (size_t g = ng; g-- > 0;) {                      /* backward: the additions */
        if (g > 0)
            GROUP_FN(msm_ifma_prefetch)(cx, g - 1);
        GROUP_FN(msm_ifma_ptrs)(&gp, cx, g);
        __mmask8 z = GROUP_FN(msm_ifma_den)(&den, &x1, &x2, &gp, &one);
        MSM_V(load)(&y2, gp.y2);
        MSM_V(load)(&y1, (const FIELD_T *const *)gp.y1);
        MSM_V(load_soa)(&pre, (const limb_t *)(const void *)(cx->pre + 8 * g));
        MSM_V(mul)(&t, &acc, &pre);                      /* 1 / den, scale 2^6 */
        MSM_V(mul)(&acc, &acc, &den);
        MSM_V(dy)(&lam, gp.neg, &y2, &y1);               /* +-y2 - y1 */
        MSM_V(mul)(&lam, &lam, &t);                      /* lambda, scale 2^2 */
        MSM_V(mul)(&v, &lam, &lam);                      /* lambda^2, scale 1 */
        MSM_V(x3)(&v, &v, &x1, &x2);                     /* x3 = lambda^2 - x1 - x2 */
        MSM_V(sub4)(&t, &x1, &v);                        /* 4 (x1 - x3) */
        MSM_V(mul)(&t, &t, &lam);                        /* (x1 - x3) lambda, scale 1 */
        MSM_V(y3)(&t, &t, &y1);                          /* y3 */
        if (z) {                                         /* equal x: later, bucket as it was */
            MSM_V(blend)(&v, z, &v, &x1);
            MSM_V(blend)(&t, z, &t, &y1);
            for (unsigned j = 0; j < 8; j++) {
                if (z >> j & 1)
                    cx->batch[8 * g + j].neg |= MSM_ENT_LATER;
            }
            nlater += (size_t)__builtin_popcount(z);
        }
        MSM_V(store)(gp.x1, &v);
        MSM_V(store)(gp.y1, &t);
        for (unsigned j = 0; j < 8; j++) {
            if (!(z >> j & 1))
                cx->st[cx->batch[8 * g + j].b] = MSM_OCC;
        }
    }
    GROUP_FN(msm_flush_bwd)(cx, nv, nb, &acc_s);
    cx->nbatch = 0;
    if (nlater) {                                        /* the equal-x lanes, in front */
        for (size_t k = 0; k < nv; k++) {
            if (cx->batch[k].neg & MSM_ENT_LATER) {
                cx->batch[cx->nbatch] = cx->batch[k];
                cx->batch[cx->nbatch++].neg &= ~(uint32_t)MSM_ENT_LATER;
            }
        }
        GROUP_FN(msm_flush_scalar)(cx);
    }
}

#undef MSM_V
#undef MSM_VT

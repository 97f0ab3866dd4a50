/*
 * msm_tmpl.h -- Pippenger MSM for one group, instantiated by msm.c with one
 * line per group naming its parameters (ff/paste.h), ZK_MSM_TMPL, a list of
 * six elements:
 *   group    group prefix (bn254_g1, ...): types group, group_affine
 *   field    its coordinate field prefix (bn254_fp, bn254_fp2, ...)
 *   g2       1 for a G2 group (changes only the automatic tuning)
 *   glv      the curve's msm_glv_consts (scalar splitting and r), with
 *            group_msm_endo_x (x *= beta) defined before inclusion
 *   id       the enum zk_msm_group value recorded in tables
 *   ifma     msm_flush takes the AVX-512 IFMA batch of msm_flush_ifma.h
 *            where the CPU has it: 1 on a bn254_fp group (bn254_g1), 2 on
 *            a bn254_fp2 one (bn254_g2); 0: never
 * e.g.  #define ZK_MSM_TMPL (bn254_g1, bn254_fp, 0, MSM_GLV_BN254, ZK_MSM_BN254_G1, 1)
 * The template undefines ZK_MSM_TMPL at its end.
 *
 * Exported names it generates (contracts in zk/msm.h), for group G:
 *   G_msm  G_msm_scratch_size  G_msm_table_size  G_msm_table_build
 * i.e. bn254_g1_msm, bn254_g1_msm_scratch_size, bn254_g1_msm_table_size,
 * bn254_g1_msm_table_build, and the same for bn254_g2, bls381_g1 and
 * bls381_g2.  Everything else it defines is static, named G_msm_*.
 * msm.c defines the group-independent helpers (msm_digit, msm_plan_common,
 * zk_msm_table_window, the scratch layout helpers).  Paste macros (ZK_CAT and
 * ZK_ARG of ff/paste.h): GROUP_FN(name) is group_name, FIELD_FN(name)
 * field_name, GROUP_T the group's Jacobian type, GROUP_AFFINE_T its affine
 * type, FIELD_T the field's type.
 */
#define MSM_G ZK_ARG(1, ZK_MSM_TMPL)            /* the group (bn254_g1) */
#define MSM_F ZK_ARG(2, ZK_MSM_TMPL)            /* its field (bn254_fp) */
#define MSM_IS_G2 ZK_ARG(3, ZK_MSM_TMPL)
#define MSM_GLV_CONSTS ZK_ARG(4, ZK_MSM_TMPL)
#define MSM_GROUP_ID ZK_ARG(5, ZK_MSM_TMPL)
#define MSM_IFMA ZK_ARG(6, ZK_MSM_TMPL)

#define GROUP_FN(name) ZK_CAT(MSM_G, name)    /* GROUP_FN(msm): bn254_g1_msm */
#define FIELD_FN(name) ZK_CAT(MSM_F, name)    /* FIELD_FN(mul): bn254_fp_mul */
#define GROUP_AFFINE_T GROUP_FN(affine)       /* bn254_g1_affine */
#define GROUP_T MSM_G                         /* bn254_g1 (Jacobian) */
#define FIELD_T MSM_F                         /* bn254_fp */

/* One pending bucket addition: bucket b += (neg ? -P : P), P = (*x, *y)
 * (apart: GLV's phi(P) is its own x with P's y). */
struct GROUP_FN(msm_ent) {
    const FIELD_T *x, *y;
    uint32_t b;
    uint32_t neg;                  /* bit 0: -P; msm_flush adds MSM_ENT_* */
};

/* Per-thread working memory of the affine method. */
struct GROUP_FN(msm_actx) {
    GROUP_AFFINE_T *bk;                       /* nb buckets, valid where st[] != EMPTY */
    uint8_t *st;                   /* MSM_EMPTY / MSM_OCC / MSM_LOCKED */
    struct GROUP_FN(msm_ent) *batch;     /* additions of the current batch */
    struct GROUP_FN(msm_ent) *queue;     /* deferred: bucket was locked */
    FIELD_T *den, *pre;             /* denominators, prefix products */
    size_t nbatch, cap, nq;
    GROUP_AFFINE_T *lane;                 /* 2 MSM_LANES: msm_reduce_lanes's sums */
    uint8_t *lane_st;
};

/* Lanes of msm_reduce_lanes: buckets reduced MSM_LANES runs at a time. */
#define MSM_LANES 256

/*
 * One MSM as the workers see it: npts entries, entry t is point t with
 * scalar t mod n, block t / n of a table (always 0 without one).  Round w
 * of entry t reads the scalar's window w + stride * (t / n): without a
 * table npts = n and stride = 0; with one npts = factor * n and stride =
 * the table's rounds (zk/msm.h, struct zk_msm_table).
 */
struct GROUP_FN(msm_job) {
    const GROUP_AFFINE_T *points;
    const FIELD_T *phix;           /* GLV: entry t >= half is phi(points[t - half]), */
    const uint8_t *neg;            /* (phix[t - half], its y), negated where neg[t];
                                    * both NULL without */
    unsigned kw;                   /* limbs per scalar: 4, MSM_GLV_KW with phix */
    size_t half;
    const limb_t *scalars;
    size_t n, npts;
    unsigned stride;
    struct msm_plan pl;
    unsigned nwin;                 /* rounds of buckets */
    unsigned bits;                 /* bit length of the largest scalar */
    uint8_t *scratch;
    GROUP_T *results;                 /* nwin * chunks window partial sums */
    atomic_uint next;              /* next task */
};

/* The point whose x or phi(x) entry t has (the GLV view's P in its second half). */
static inline const GROUP_AFFINE_T *GROUP_FN(msm_base)(const struct GROUP_FN(msm_job) *jb,
                                                        size_t t)
{
    return jb->phix && t >= jb->half ? &jb->points[t - jb->half] : &jb->points[t];
}

/* The x of entry t (the GLV view's phi(P) in its second half). */
static inline const FIELD_T *GROUP_FN(msm_x)(const struct GROUP_FN(msm_job) *jb, size_t t)
{
    return jb->phix && t >= jb->half ? &jb->phix[t - jb->half] : &jb->points[t].x;
}

/* The point of entry t: points[t], or phi(P) assembled in *tmp. */
static inline const GROUP_AFFINE_T *GROUP_FN(msm_point)(const struct GROUP_FN(msm_job) *jb,
                                                         size_t t, GROUP_AFFINE_T *tmp)
{
    if (!jb->phix || t < jb->half)
        return &jb->points[t];
    tmp->x = jb->phix[t - jb->half];
    tmp->y = jb->points[t - jb->half].y;
    return tmp;
}

/* Out-of-line point operations: one copy each (compile time, code size). */
static __attribute__((noinline)) void GROUP_FN(msm_add)(GROUP_T *r, const GROUP_T *p,
                                                         const GROUP_T *q)
{ GROUP_FN(add)(r, p, q); }
static __attribute__((noinline)) void GROUP_FN(msm_madd)(GROUP_T *r, const GROUP_T *p,
                                                          const GROUP_AFFINE_T *q)
{ GROUP_FN(add_affine)(r, p, q); }
static __attribute__((noinline)) void GROUP_FN(msm_dbl)(GROUP_T *r, const GROUP_T *p)
{ GROUP_FN(dbl)(r, p); }

/* Affine y of +-P, from P's y. */
ZK_HD void GROUP_FN(msm_y)(FIELD_T *y, const FIELD_T *py, uint32_t neg)
{
    if (neg)
        FIELD_FN(neg)(y, py);
    else
        *y = *py;
}

/*
 * The forward pass of msm_flush over batch entries [lo, hi): denominators
 * x2 - x1, or 2 y1 when the x agree and the points are equal (doubling);
 * when they are opposite (or y1 = 0) the entry is marked to cancel and has
 * no denominator.  pre[k] = *acc before entry k, *acc *= den[k].
 */
ZK_HD void GROUP_FN(msm_flush_fwd)(struct GROUP_FN(msm_actx) *cx, size_t lo, size_t hi,
                                   FIELD_T *acc)
{
    FIELD_T y;
    for (size_t k = lo; k < hi; k++) {
        struct GROUP_FN(msm_ent) *e = &cx->batch[k];
        if (k + 16 < hi)
            __builtin_prefetch(&cx->bk[cx->batch[k + 16].b]);
        const GROUP_AFFINE_T *a = &cx->bk[e->b];
        FIELD_FN(sub)(&cx->den[k], e->x, &a->x);
        if (FIELD_FN(is_zero)(&cx->den[k])) {        /* equal x: double or cancel */
            GROUP_FN(msm_y)(&y, e->y, e->neg & 1);
            if (FIELD_FN(eq)(&y, &a->y) && !FIELD_FN(is_zero)(&a->y)) {
                FIELD_FN(dbl)(&cx->den[k], &a->y);
                e->neg |= MSM_ENT_DBL;
            } else {
                e->neg |= MSM_ENT_CANCEL;
            }
        }
        cx->pre[k] = *acc;
        if (!(e->neg & MSM_ENT_CANCEL))
            FIELD_FN(mul)(acc, acc, &cx->den[k]);
    }
}

/* The backward pass of msm_flush over entries [lo, hi) after msm_flush_fwd:
 * *acc is the inverse of the product of their denominators (it is used up). */
ZK_HD void GROUP_FN(msm_flush_bwd)(struct GROUP_FN(msm_actx) *cx, size_t lo, size_t hi,
                                   FIELD_T *acc)
{
    FIELD_T y, lam, t;
    for (size_t k = hi; k-- > lo;) {
        const struct GROUP_FN(msm_ent) *e = &cx->batch[k];
        GROUP_AFFINE_T *a = &cx->bk[e->b];
        if (k >= lo + 4) {
            __builtin_prefetch(&cx->bk[cx->batch[k - 4].b], 1);
            __builtin_prefetch(cx->batch[k - 4].x);
            __builtin_prefetch(cx->batch[k - 4].y);
        }
        if (e->neg & MSM_ENT_CANCEL) {         /* P + (-P) = O */
            cx->st[e->b] = MSM_EMPTY;
            continue;
        }
        FIELD_FN(mul)(&t, acc, &cx->pre[k]);        /* 1 / den[k] */
        FIELD_FN(mul)(acc, acc, &cx->den[k]);
        if (e->neg & MSM_ENT_DBL) {            /* lambda = 3 x^2 / 2y */
            FIELD_FN(sqr)(&y, &a->x);
            FIELD_FN(dbl)(&lam, &y);
            FIELD_FN(add)(&lam, &lam, &y);
        } else {                               /* lambda = (y2 - y1) / (x2 - x1) */
            GROUP_FN(msm_y)(&y, e->y, e->neg & 1);
            FIELD_FN(sub)(&lam, &y, &a->y);
        }
        FIELD_FN(mul)(&lam, &lam, &t);
        FIELD_FN(sqr)(&t, &lam);
        FIELD_FN(sub)(&t, &t, &a->x);
        FIELD_FN(sub)(&t, &t, e->x);                 /* x3 = lambda^2 - x1 - x2 */
        FIELD_FN(sub)(&y, &a->x, &t);
        FIELD_FN(mul)(&y, &y, &lam);
        FIELD_FN(sub)(&a->y, &y, &a->y);             /* y3 = lambda (x1 - x3) - y1 */
        a->x = t;
        cx->st[e->b] = MSM_OCC;
    }
}

/* msm_flush without the IFMA batch: one inversion for the whole batch. */
static void GROUP_FN(msm_flush_scalar)(struct GROUP_FN(msm_actx) *cx)
{
    FIELD_T acc;
    FIELD_FN(one)(&acc);
    GROUP_FN(msm_flush_fwd)(cx, 0, cx->nbatch, &acc);
    FIELD_FN(inv)(&acc, &acc);
    GROUP_FN(msm_flush_bwd)(cx, 0, cx->nbatch, &acc);
    cx->nbatch = 0;
}

#if MSM_IFMA && ZK_IFMA_BN254
#include "msm_flush_ifma.h"
#endif

/*
 * Executes the batch: every entry adds its point to its bucket (all buckets
 * distinct, all occupied, no point at infinity).  Denominators: x2 - x1, or
 * 2 y1 when the x agree and the points are equal (doubling); when they are
 * opposite (or y1 = 0) the result is infinity and the bucket empties.  On
 * bn254_g1 and bn254_g2, batches of at least MSM_IFMA_MIN entries take the
 * IFMA batch where the CPU has it (zk_ifma_bn254_on).
 */
static void GROUP_FN(msm_flush)(struct GROUP_FN(msm_actx) *cx)
{
#if MSM_IFMA && ZK_IFMA_BN254
    if (cx->nbatch >= MSM_IFMA_MIN && zk_ifma_bn254_on()) {
        GROUP_FN(msm_flush_ifma)(cx);
        return;
    }
#endif
    GROUP_FN(msm_flush_scalar)(cx);
}

/* Puts e into its bucket (empty: copy) or into the batch.  Bucket unlocked. */
ZK_HD void GROUP_FN(msm_place)(struct GROUP_FN(msm_actx) *cx, const struct GROUP_FN(msm_ent) *e)
{
    if (cx->st[e->b] == MSM_EMPTY) {
        cx->bk[e->b].x = *e->x;
        GROUP_FN(msm_y)(&cx->bk[e->b].y, e->y, e->neg);
        cx->st[e->b] = MSM_OCC;
        return;
    }
    cx->batch[cx->nbatch++] = *e;
    cx->st[e->b] = MSM_LOCKED;
}

/* Runs the batch, then moves deferred entries into the next batch. */
static void GROUP_FN(msm_flush_requeue)(struct GROUP_FN(msm_actx) *cx)
{
    size_t keep = 0;
    GROUP_FN(msm_flush)(cx);
    for (size_t i = 0; i < cx->nq; i++) {
        const struct GROUP_FN(msm_ent) *e = &cx->queue[i];
        if (cx->nbatch == cx->cap || cx->st[e->b] == MSM_LOCKED)
            cx->queue[keep++] = *e;
        else
            GROUP_FN(msm_place)(cx, e);
    }
    cx->nq = keep;
}

/* Affine method: accumulates round w of entries [lo, hi) into cx->bk.
 * spread > 0 (a top window whose digits fill only nbk >> spread buckets):
 * entry t goes to copy t mod 2^spread of its bucket, bucket b's copy s at
 * b + s (nbk >> spread), so the batches find distinct buckets as in a full
 * window; msm_reduce_spread sums the copies. */
static void GROUP_FN(msm_fill_affine)(struct GROUP_FN(msm_job) *jb, struct GROUP_FN(msm_actx) *cx,
                                unsigned w, size_t lo, size_t hi, unsigned spread)
{
    unsigned c = jb->pl.c;
    size_t nbk = (size_t)1 << (c - 1);
    for (size_t b = 0; b < nbk; b++)
        cx->st[b] = MSM_EMPTY;
    cx->nbatch = cx->nq = 0;
    size_t i = lo % jb->n;                                  /* scalar of entry t */
    unsigned s = (w + jb->stride * (unsigned)(lo / jb->n)) * c;   /* its window */
    const size_t smask = ((size_t)1 << spread) - 1, nbe_log = (c - 1) - spread;
    for (size_t t = lo; t < hi; t++, i++) {
        if (i == jb->n) {                                   /* next table block */
            i = 0;
            s += jb->stride * c;
        }
        int d = msm_digit(jb->scalars + (size_t)jb->kw * i, s, c);
        if (d == 0)
            continue;
        const GROUP_AFFINE_T *p = GROUP_FN(msm_base)(jb, t);
        if (GROUP_FN(affine_is_inf)(p))
            continue;
        struct GROUP_FN(msm_ent) e = { GROUP_FN(msm_x)(jb, t), &p->y,
                                       (uint32_t)((size_t)(d < 0 ? -d : d) - 1 +
                                                  ((t & smask) << nbe_log)),
                                       (uint32_t)(d < 0) ^ (jb->neg ? jb->neg[t] : 0u) };
        while (cx->st[e.b] == MSM_LOCKED) {
            if (cx->nq < cx->cap) {
                cx->queue[cx->nq++] = e;
                goto next;
            }
            GROUP_FN(msm_flush_requeue)(cx);
        }
        GROUP_FN(msm_place)(cx, &e);
        if (cx->nbatch == cx->cap)
            GROUP_FN(msm_flush_requeue)(cx);
next:;
    }
    while (cx->nbatch || cx->nq)
        GROUP_FN(msm_flush_requeue)(cx);
}

/* ret = sum_b (b+1) (sum_s bucket_{b + s nbe}) over the nbe buckets of a
 * spread top window (msm_fill_affine) and their copies, nbk in all. */
static void GROUP_FN(msm_reduce_spread)(GROUP_T *ret, const struct GROUP_FN(msm_actx) *cx,
                                        size_t nbe, size_t nbk)
{
    GROUP_T sum, acc;
    GROUP_FN(set_inf)(&sum);
    GROUP_FN(set_inf)(&acc);
    for (size_t b = nbe; b-- > 0;) {
        for (size_t i = b; i < nbk; i += nbe) {
            if (cx->st[i] != MSM_EMPTY)
                GROUP_FN(msm_madd)(&sum, &sum, &cx->bk[i]);
        }
        GROUP_FN(msm_add)(&acc, &acc, &sum);
    }
    *ret = acc;
}

/* ret = sum_b (b+1) bucket_b over the affine buckets (running sums). */
static void GROUP_FN(msm_reduce_affine)(GROUP_T *ret, const struct GROUP_FN(msm_actx) *cx,
                                        size_t nbk)
{
    GROUP_T sum, acc;
    GROUP_FN(set_inf)(&sum);
    GROUP_FN(set_inf)(&acc);
    for (size_t b = nbk; b-- > 0;) {
        if (cx->st[b] != MSM_EMPTY)
            GROUP_FN(msm_madd)(&sum, &sum, &cx->bk[b]);
        GROUP_FN(msm_add)(&acc, &acc, &sum);
    }
    *ret = acc;
}

/*
 * msm_reduce_affine in affine coordinates: the nbk buckets are cut in
 * MSM_LANES runs of M = nbk / MSM_LANES (bucket b = j M + t: run j, place
 * t), and the runs' running sums go down in lockstep, one batch of
 * MSM_LANES affine additions (msm_flush: one inversion) for the sums
 * (sum_j += bucket j M + t) and one for the accumulators (acc_j +=
 * sum_j) per place t.  Then, with (b + 1) = (t + 1) + j M:
 *   sum_b (b+1) bucket_b = sum_j acc_j + M sum_j j sum_j,
 * the second a running sum over the runs (Jacobian, MSM_LANES steps) and
 * log2 M doublings.  About 12 multiplications a bucket against the 27 of
 * the Jacobian running sum.  Needs nbk >= 4 MSM_LANES (a power of 2) and
 * a batch of at least MSM_LANES; the batch arrays of cx are reused.
 */
static void GROUP_FN(msm_reduce_lanes)(GROUP_T *ret, struct GROUP_FN(msm_actx) *cx,
                                       size_t nbk)
{
    const size_t L = MSM_LANES, M = nbk / MSM_LANES;
    struct GROUP_FN(msm_actx) lx = *cx;          /* lanes: sums 0 .. L-1, accs L .. 2L-1 */
    lx.bk = cx->lane;
    lx.st = cx->lane_st;
    lx.nbatch = lx.nq = 0;
    lx.cap = L;
    for (size_t i = 0; i < 2 * L; i++)
        lx.st[i] = MSM_EMPTY;
    for (size_t t = M; t-- > 0;) {
        for (size_t j = 0; j < L; j++) {
            size_t b = j * M + t;
            if (cx->st[b] == MSM_EMPTY)
                continue;
            struct GROUP_FN(msm_ent) e = { &cx->bk[b].x, &cx->bk[b].y, (uint32_t)j, 0 };
            GROUP_FN(msm_place)(&lx, &e);
        }
        if (lx.nbatch)
            GROUP_FN(msm_flush)(&lx);
        for (size_t j = 0; j < L; j++) {
            if (lx.st[j] == MSM_EMPTY)
                continue;
            struct GROUP_FN(msm_ent) e = { &lx.bk[j].x, &lx.bk[j].y, (uint32_t)(L + j), 0 };
            GROUP_FN(msm_place)(&lx, &e);
        }
        if (lx.nbatch)
            GROUP_FN(msm_flush)(&lx);
    }
    GROUP_T tot, sum, w;
    GROUP_FN(set_inf)(&tot);
    GROUP_FN(set_inf)(&sum);
    GROUP_FN(set_inf)(&w);
    for (size_t j = L; j-- > 0;) {
        if (lx.st[L + j] != MSM_EMPTY)
            GROUP_FN(msm_madd)(&tot, &tot, &lx.bk[L + j]);
        if (j == 0)
            break;
        if (lx.st[j] != MSM_EMPTY)
            GROUP_FN(msm_madd)(&sum, &sum, &lx.bk[j]);
        GROUP_FN(msm_add)(&w, &w, &sum);           /* w = sum_j j sum_j */
    }
    for (size_t d = M; d > 1; d >>= 1)
        GROUP_FN(msm_dbl)(&w, &w);
    GROUP_FN(msm_add)(ret, &tot, &w);
}

/* Jacobian method: round w of entries [lo, hi) into the buckets (every
 * digit of the round below nbk in absolute value), reduced. */
static void GROUP_FN(msm_window_jac)(GROUP_T *ret, struct GROUP_FN(msm_job) *jb, GROUP_T *bk,
                               unsigned w, size_t lo, size_t hi, size_t nbk)
{
    unsigned c = jb->pl.c;
    GROUP_T sum, acc;
    GROUP_AFFINE_T q, q0;
    for (size_t b = 0; b < nbk; b++)
        GROUP_FN(set_inf)(&bk[b]);
    size_t i = lo % jb->n;                                  /* as msm_fill_affine */
    unsigned s = (w + jb->stride * (unsigned)(lo / jb->n)) * c;
    for (size_t t = lo; t < hi; t++, i++) {
        if (i == jb->n) {
            i = 0;
            s += jb->stride * c;
        }
        int d = msm_digit(jb->scalars + (size_t)jb->kw * i, s, c);
        if (d == 0)
            continue;
        const GROUP_AFFINE_T *p = GROUP_FN(msm_point)(jb, t, &q0);
        size_t b = (size_t)(d < 0 ? -d : d) - 1;
        if ((d < 0) ^ (jb->neg ? jb->neg[t] : 0)) {
            GROUP_FN(affine_neg)(&q, p);
            p = &q;
        }
        GROUP_FN(msm_madd)(&bk[b], &bk[b], p);   /* infinity p: no-op */
    }
    GROUP_FN(set_inf)(&sum);
    GROUP_FN(set_inf)(&acc);
    for (size_t b = nbk; b-- > 0;) {
        GROUP_FN(msm_add)(&sum, &sum, &bk[b]);
        GROUP_FN(msm_add)(&acc, &acc, &sum);
    }
    *ret = acc;
}

/* Thread body: takes (window, chunk) tasks until none is left. */
static void GROUP_FN(msm_worker)(void *arg, unsigned t, unsigned nthreads)
{
    struct GROUP_FN(msm_job) *jb = arg;
    const struct msm_plan *pl = &jb->pl;
    size_t nbk = (size_t)1 << (pl->c - 1);
    uint8_t *area = jb->scratch + pl->results_bytes + (size_t)t * pl->thread_bytes;
    struct GROUP_FN(msm_actx) cx;
    (void)nthreads;
    if (pl->method == ZK_MSM_AFFINE) {
        uint8_t *p = area;
        cx.bk = (GROUP_AFFINE_T *)p;
        p += msm_align(nbk * sizeof(GROUP_AFFINE_T));
        cx.den = (FIELD_T *)p;
        p += msm_align(pl->batch * sizeof(FIELD_T));
        cx.pre = (FIELD_T *)p;
        p += msm_align(pl->batch * sizeof(FIELD_T));
        cx.batch = (struct GROUP_FN(msm_ent) *)p;
        p += msm_align(pl->batch * sizeof(struct GROUP_FN(msm_ent)));
        cx.queue = (struct GROUP_FN(msm_ent) *)p;
        p += msm_align(pl->batch * sizeof(struct GROUP_FN(msm_ent)));
        cx.st = p;
        p += msm_align(nbk);
        cx.lane = (GROUP_AFFINE_T *)(void *)p;
        p += msm_align(2 * MSM_LANES * sizeof(GROUP_AFFINE_T));
        cx.lane_st = p;
        cx.cap = pl->batch;
    }
    size_t ntasks = (size_t)jb->nwin * pl->chunks;
    for (;;) {
        /* relaxed: the counter only hands out indices; results are
         * published by the join in zk_parallel_run */
        size_t task = atomic_fetch_add_explicit(&jb->next, 1, memory_order_relaxed);
        if (task >= ntasks)
            break;
        /* the top window first: it may be the longest task (Jacobian
         * buckets, below), and handed out last it kept one thread busy
         * while the other had nothing left */
        unsigned w = jb->nwin - 1 - (unsigned)(task / pl->chunks);
        size_t j = task % pl->chunks;
        GROUP_T *res = &jb->results[(size_t)w * pl->chunks + j];
        size_t lo = jb->npts * j / pl->chunks, hi = jb->npts * (j + 1) / pl->chunks;
        /* The top window of scalars below 2^bits only has digits 0 ..
         * 2^(bits - w c) (Booth: its top bit is 0), so only that many
         * buckets can be in use.  With few buckets nearly every batch entry
         * collides and the affine batches shrink to a few additions per
         * inversion: such a window is done with Jacobian buckets, in the
         * affine bucket area (nbe <= nbk / 4, and a Jacobian point is 1.5
         * affine ones).  (With a table every round has blocks of lower
         * windows: all buckets.) */
        size_t nbe = nbk;
        if (jb->stride == 0 && w * pl->c + pl->c - 1 >= jb->bits) {
            unsigned e = jb->bits - w * pl->c;          /* < c */
            nbe = (size_t)1 << e;
        }
        if (pl->method == ZK_MSM_AFFINE && (nbe * 4 > nbk || nbe >= 2 * (size_t)pl->batch)) {
            GROUP_FN(msm_fill_affine)(jb, &cx, w, lo, hi, 0);
            if (nbk >= 4 * MSM_LANES && pl->batch >= MSM_LANES)
                GROUP_FN(msm_reduce_lanes)(res, &cx, nbk);
            else
                GROUP_FN(msm_reduce_affine)(res, &cx, nbk);
        } else if (pl->method == ZK_MSM_AFFINE && hi - lo >= MSM_SPREAD_MIN * nbk) {
            /* few buckets, many entries: each bucket in nbk / nbe copies,
             * affine (6.5 multiplications an entry against a Jacobian
             * bucket's 11), the copies summed in the reduction */
            GROUP_FN(msm_fill_affine)(jb, &cx, w, lo, hi,
                                      (unsigned)__builtin_ctzll(nbk / nbe));
            GROUP_FN(msm_reduce_spread)(res, &cx, nbe, nbk);
        } else if (pl->method == ZK_MSM_AFFINE) {
            GROUP_FN(msm_window_jac)(res, jb, (GROUP_T *)(void *)cx.bk, w, lo, hi, nbe);
        } else {
            GROUP_FN(msm_window_jac)(res, jb, (GROUP_T *)area, w, lo, hi, nbk);
        }
    }
}

/* The plan for npts entries with scalars of at most `bits` bits: window,
 * method, batch, chunks, threads, sizes.  With a table its window and
 * rounds stand. */
static int GROUP_FN(msm_plan)(struct msm_plan *pl, size_t npts, unsigned bits,
                               unsigned nthreads, const struct zk_msm_opts *o,
                               const struct zk_msm_table *tab)
{
    struct zk_msm_opts a = { 0, 0, 0, 0, 0, NULL };
    if (o)
        a = *o;
    if (a.window > ZK_MSM_MAX_WINDOW || a.method > ZK_MSM_AFFINE || a.glv > ZK_MSM_GLV_OFF)
        return ZK_EBADPARAMS;
    if (a.method == ZK_MSM_AUTO)
        a.method = npts >= (MSM_IS_G2 ? MSM_AFFINE_MIN_G2 : MSM_AFFINE_MIN_G1)
                 ? ZK_MSM_AFFINE : ZK_MSM_JACOBIAN;
    if (tab)
        a.window = tab->window;
    else if (a.window == 0)
        a.window = msm_auto_window(npts, bits, a.method == ZK_MSM_AFFINE, MSM_IS_G2);
    msm_plan_common(pl, npts, tab ? tab->rounds : (bits + a.window) / a.window, nthreads, &a,
                    tab != NULL);
    size_t nbk = (size_t)1 << (pl->c - 1);
    pl->results_bytes = msm_align(pl->max_tasks * sizeof(GROUP_T));
    if (pl->method == ZK_MSM_AFFINE)
        pl->thread_bytes = msm_align(nbk * sizeof(GROUP_AFFINE_T)) +
                           2 * msm_align(pl->batch * sizeof(FIELD_T)) +
                           2 * msm_align(pl->batch * sizeof(struct GROUP_FN(msm_ent))) +
                           msm_align(nbk) +
                           msm_align(2 * MSM_LANES * sizeof(GROUP_AFFINE_T)) +
                           msm_align(2 * MSM_LANES);
    else
        pl->thread_bytes = msm_align(nbk * sizeof(GROUP_T));
    pl->total_bytes = pl->results_bytes + (size_t)pl->threads * pl->thread_bytes;
    return 0;
}

/* Pippenger over npts entries (n scalars of at most bits_max bits; with a
 * table its first nblocks blocks: struct msm_job), scratch of the plan's
 * size.  With phix (GLV, no table): entry t < n / 2 is points[t], entry
 * t >= n / 2 is phi(points[t - n / 2]) = (phix[t - n / 2], its y), each
 * negated where neg[t], and the scalars are MSM_GLV_KW limbs each. */
static int GROUP_FN(msm_core_view)(GROUP_T *ret, const GROUP_AFFINE_T *points,
                                    const FIELD_T *phix, const uint8_t *neg,
                                    const limb_t *scalars, size_t n, unsigned bits_max,
                                    unsigned nthreads, void *scratch,
                                    const struct zk_msm_opts *opts,
                                    const struct zk_msm_table *tab, unsigned nblocks)
{
    struct GROUP_FN(msm_job) jb;
    void *mem = NULL;
    int r;
    jb.npts = tab ? n * nblocks : n;
    r = GROUP_FN(msm_plan)(&jb.pl, jb.npts, bits_max, nthreads, opts, tab);
    if (r)
        return r;
    jb.kw = phix ? MSM_GLV_KW : 4;
    unsigned bits = msm_max_bits_kw(scalars, n, jb.kw);
    GROUP_T acc;
    GROUP_FN(set_inf)(&acc);
    if (bits == 0) {
        *ret = acc;
        return 0;
    }
    if (bits > bits_max)
        return ZK_EBADPARAMS;      /* cannot happen: GLV halves < 2^129, tables reduce */
    if (!scratch) {
        mem = zk_big_alloc(jb.pl.total_bytes);
        if (!mem)
            return -ENOMEM;
        scratch = mem;
    }
    jb.points = points;
    jb.phix = phix;
    jb.neg = neg;
    jb.half = n / 2;
    jb.scalars = scalars;
    jb.n = n;
    jb.stride = tab ? tab->rounds : 0;
    jb.nwin = tab ? tab->rounds : (bits + jb.pl.c) / jb.pl.c;   /* bit nwin*c - 1 is 0 */
    jb.bits = bits;
    jb.scratch = scratch;
    jb.results = scratch;
    atomic_init(&jb.next, 0);
    unsigned T = jb.pl.threads;
    size_t ntasks = (size_t)jb.nwin * jb.pl.chunks;
    if (T > ntasks)
        T = (unsigned)ntasks;
    if (T <= 1)
        GROUP_FN(msm_worker)(&jb, 0, 1);
    else
        zk_parallel_run(T, GROUP_FN(msm_worker), &jb);
    for (unsigned w = jb.nwin; w-- > 0;) {
        if (!GROUP_FN(is_inf)(&acc))
            for (unsigned i = 0; i < jb.pl.c; i++)
                GROUP_FN(msm_dbl)(&acc, &acc);
        for (unsigned j = 0; j < jb.pl.chunks; j++)
            GROUP_FN(msm_add)(&acc, &acc, &jb.results[(size_t)w * jb.pl.chunks + j]);
    }
    *ret = acc;
    zk_big_free(mem);
    return 0;
}

/* msm_core_view without a GLV view: entry t is points[t], as it is. */
static int GROUP_FN(msm_core)(GROUP_T *ret, const GROUP_AFFINE_T *points, const limb_t *scalars,
                               size_t n, unsigned bits_max, unsigned nthreads, void *scratch,
                               const struct zk_msm_opts *opts, const struct zk_msm_table *tab,
                               unsigned nblocks)
{
    return GROUP_FN(msm_core_view)(ret, points, NULL, NULL, scalars, n, bits_max, nthreads,
                                   scratch, opts, tab, nblocks);
}

/* ---- GLV: sum k_i P_i = sum (+-|k1_i|) P_i + (+-|k2_i|) phi(P_i) --------- */

/* GLV: nominal bit length of the split scalars (|k1|, |k2| < 2^129). */
#define MSM_GLV_BITS 129

/* GLV working memory ahead of the inner MSM's: the n x of phi(P) (its y
 * is P's), 2n scalars of MSM_GLV_KW limbs and 2n signs (the P themselves
 * are the caller's, the signs applied to the digits: a copy of them was n
 * points more; whole phi(P) points were n y more, 4-limb scalars 2n limbs). */
static size_t GROUP_FN(msm_glv_head)(size_t n)
{
    return msm_align(n * sizeof(FIELD_T)) + msm_align(2 * n * MSM_GLV_KW * sizeof(limb_t)) +
           msm_align(2 * n);
}

struct GROUP_FN(msm_glv_arg) {
    const GROUP_AFFINE_T *in;
    const limb_t *k;
    size_t n;
    FIELD_T *phix;
    limb_t *ko;
    uint8_t *neg;
};

/* phix[i] = the x of phi(P_i), ko[i] = |k1_i|, ko[n + i] = |k2_i| and their signs
 * in neg[i], neg[n + i], for i in range. */
static void GROUP_FN(msm_glv_range)(void *arg, size_t begin, size_t end)
{
    const struct GROUP_FN(msm_glv_arg) *a = arg;
    for (size_t i = begin; i < end; i++) {
        const GROUP_AFFINE_T *p = &a->in[i];
        limb_t *k1 = a->ko + MSM_GLV_KW * i, *k2 = a->ko + MSM_GLV_KW * (a->n + i);
        limb_t h1[4], h2[4];                        /* h1[3] = h2[3] = 0: < 2^129 */
        const limb_t *k = a->k + 4 * i;
        if (GROUP_FN(affine_is_inf)(p) || (k[0] | k[1] | k[2] | k[3]) == 0) {
            memset(&a->phix[i], 0, sizeof a->phix[i]);
            memset(k1, 0, MSM_GLV_KW * sizeof *k1);
            memset(k2, 0, MSM_GLV_KW * sizeof *k2);
            a->neg[i] = a->neg[a->n + i] = 0;
            continue;
        }
        unsigned neg = msm_glv_split(&MSM_GLV_CONSTS, h1, h2, k);
        memcpy(k1, h1, MSM_GLV_KW * sizeof *k1);
        memcpy(k2, h2, MSM_GLV_KW * sizeof *k2);
        a->phix[i] = p->x;
        GROUP_FN(msm_endo_x)(&a->phix[i]);
        a->neg[i] = (uint8_t)(neg & 1);
        a->neg[a->n + i] = (uint8_t)(neg >> 1);
    }
}

/* GLV MSM of n >= MSM_GLV_MIN points; scratch as msm_scratch_size says. */
static int GROUP_FN(msm_glv)(GROUP_T *ret, const GROUP_AFFINE_T *points, const limb_t *scalars,
                              size_t n, unsigned nthreads, void *scratch,
                              const struct zk_msm_opts *opts)
{
    struct msm_plan pl;
    void *mem = NULL;
    int r = GROUP_FN(msm_plan)(&pl, 2 * n, MSM_GLV_BITS, nthreads, opts, NULL);
    if (r)
        return r;
    if (!scratch) {
        mem = zk_big_alloc(GROUP_FN(msm_glv_head)(n) + pl.total_bytes);
        if (!mem)
            return -ENOMEM;
        scratch = mem;
    }
    uint8_t *s = scratch;
    size_t at_k = msm_align(n * sizeof(FIELD_T));
    size_t at_neg = at_k + msm_align(2 * n * MSM_GLV_KW * sizeof(limb_t));
    struct GROUP_FN(msm_glv_arg) a = { points, scalars, n, (FIELD_T *)(void *)s,
                                        (limb_t *)(void *)(s + at_k), s + at_neg };
    zk_parallel_for(pl.threads, n, 4096, GROUP_FN(msm_glv_range), &a);
    r = GROUP_FN(msm_core_view)(ret, points, a.phix, a.neg, a.ko, 2 * n, MSM_GLV_BITS, nthreads,
                                s + GROUP_FN(msm_glv_head)(n), opts, NULL, 1);
    zk_big_free(mem);
    return r;
}

/* ---- precomputed multiples (struct zk_msm_table) ------------------------- */

/* Bit length of r: scalars below 2^this are used by a table as they are. */
static unsigned GROUP_FN(msm_r_bits)(void)
{
    return msm_max_bits(MSM_GLV_CONSTS.r, 1);
}

/* The table's first entry (its points follow the 64-byte header). */
static const GROUP_AFFINE_T *GROUP_FN(msm_table_points)(const struct zk_msm_table *t)
{
    return (const GROUP_AFFINE_T *)(const void *)((const uint8_t *)t + 64);
}

/* 1 if t is a well-formed table of this group for n points. */
static int GROUP_FN(msm_table_ok)(const struct zk_msm_table *t, size_t n)
{
    return t->magic == ZK_MSM_TABLE_MAGIC && t->version == ZK_MSM_TABLE_VERSION &&
           t->group == MSM_GROUP_ID && t->n == n && t->point_bytes == sizeof(GROUP_AFFINE_T) &&
           t->factor >= 1 && t->factor <= ZK_MSM_MAX_FACTOR && t->window >= 1 &&
           t->window <= ZK_MSM_MAX_WINDOW && t->rounds >= 1 &&
           t->bits == GROUP_FN(msm_r_bits)() &&
           (uint64_t)t->rounds * t->window * t->factor >= (uint64_t)t->bits + 1;
}

/* Table MSM working memory ahead of the inner MSM's: n scalars mod r. */
static size_t GROUP_FN(msm_table_head)(size_t n)
{
    return msm_align(n * 4 * sizeof(limb_t));
}

/* opts for block 0 of a table alone: the points themselves, no table. */
static struct zk_msm_opts GROUP_FN(msm_block0_opts)(const struct zk_msm_opts *opts)
{
    struct zk_msm_opts o = *opts;
    o.window = 0;                  /* ignored with a table: so here too */
    o.table = NULL;
    o.glv = ZK_MSM_GLV_OFF;
    return o;
}

/* Scratch of a table MSM's inner Pippenger: the largest over what
 * msm_table_run may run (block 0 alone, or the first 2 .. factor blocks);
 * 0 for options it refuses. */
static size_t GROUP_FN(msm_table_inner)(const struct zk_msm_table *t, size_t n,
                                        unsigned nthreads, const struct zk_msm_opts *opts)
{
    struct msm_plan pl;
    struct zk_msm_opts o0 = GROUP_FN(msm_block0_opts)(opts);
    if (GROUP_FN(msm_plan)(&pl, n, t->window * t->rounds, nthreads, &o0, NULL))
        return 0;
    size_t m = pl.total_bytes;
    for (unsigned nb = 2; nb <= t->factor; nb++) {
        if (GROUP_FN(msm_plan)(&pl, n * nb, t->bits, nthreads, opts, t))
            return 0;
        m = pl.total_bytes > m ? pl.total_bytes : m;
    }
    return m;
}

/*
 * The MSM with a table (checked); scratch as msm_scratch_size says.  Only
 * the blocks the largest scalar reaches are used: with b bits, windows 0 ..
 * b / c hold digits, that is ceil((b / c + 1) / rounds) blocks; when that
 * is block 0 alone (b < window * rounds: a witness of bits and small
 * words), the table is not needed and the points (block 0) are run with
 * the window chosen for b bits.
 */
static int GROUP_FN(msm_table_run)(GROUP_T *ret, const limb_t *scalars, size_t n,
                                    unsigned nthreads, void *scratch,
                                    const struct zk_msm_opts *opts)
{
    const struct zk_msm_table *t = opts->table;
    void *mem = NULL;
    if (!GROUP_FN(msm_table_ok)(t, n))
        return ZK_EBADPARAMS;
    size_t inner = GROUP_FN(msm_table_inner)(t, n, nthreads, opts);
    if (!inner)
        return ZK_EBADPARAMS;
    if (!scratch) {
        mem = zk_big_alloc(GROUP_FN(msm_table_head)(n) + inner);
        if (!mem)
            return -ENOMEM;
        scratch = mem;
    }
    const limb_t *k = scalars;
    if (msm_max_bits(scalars, n) > t->bits) {          /* reduce mod r: < 2^bits */
        limb_t *kr = scratch;
        for (size_t i = 0; i < n; i++) {
            memcpy(kr + 4 * i, scalars + 4 * i, 4 * sizeof(limb_t));
            while (cmp_n(kr + 4 * i, MSM_GLV_CONSTS.r, 4) >= 0)
                sub_n(kr + 4 * i, kr + 4 * i, MSM_GLV_CONSTS.r, 4);
        }
        k = kr;
    }
    unsigned c = t->window, bits = msm_max_bits(k, n);
    unsigned nb = ((bits + c) / c + t->rounds - 1) / t->rounds;    /* blocks in use */
    uint8_t *inner_scratch = (uint8_t *)scratch + GROUP_FN(msm_table_head)(n);
    int r;
    if (nb <= 1) {
        struct zk_msm_opts o0 = GROUP_FN(msm_block0_opts)(opts);
        r = GROUP_FN(msm_core)(ret, GROUP_FN(msm_table_points)(t), k, n, c * t->rounds,
                               nthreads, inner_scratch, &o0, NULL, 1);
    } else {
        r = GROUP_FN(msm_core)(ret, GROUP_FN(msm_table_points)(t), k, n, t->bits, nthreads,
                               inner_scratch, opts, t, nb);
    }
    zk_big_free(mem);
    return r;
}

size_t GROUP_FN(msm_table_size)(size_t n, unsigned factor)
{
    if (factor < 1 || factor > ZK_MSM_MAX_FACTOR ||
        n > (SIZE_MAX - 64) / factor / sizeof(GROUP_AFFINE_T))
        return 0;
    return 64 + n * factor * sizeof(GROUP_AFFINE_T);
}

struct GROUP_FN(msm_build_arg) {
    const GROUP_AFFINE_T *in;
    GROUP_AFFINE_T *out;               /* the table's entries */
    size_t n;
    unsigned factor, shift;
    atomic_int err;                /* first failure of a range, 0 if none */
};

/* Points per block of msm_build_range: factor * this Jacobian points. */
#define MSM_BUILD_BLOCK 32

/* Entries j * n + i = [2^(j shift)] P_i for i in [begin, end), block by block:
 * shift doublings per multiple, one batch inversion per block. */
static void GROUP_FN(msm_build_range)(void *arg, size_t begin, size_t end)
{
    struct GROUP_FN(msm_build_arg) *a = arg;
    size_t cap = (size_t)MSM_BUILD_BLOCK * a->factor;
    GROUP_T *jac = malloc(cap * sizeof *jac);
    GROUP_AFFINE_T *aff = malloc(cap * sizeof *aff);
    FIELD_T *fs = malloc(3 * cap * sizeof *fs);
    if (!jac || !aff || !fs) {
        /* relaxed: the join of zk_parallel_for publishes it */
        atomic_store_explicit(&a->err, -ENOMEM, memory_order_relaxed);
        goto out;
    }
    for (size_t i0 = begin; i0 < end; i0 += MSM_BUILD_BLOCK) {
        size_t nb = end - i0 < MSM_BUILD_BLOCK ? end - i0 : MSM_BUILD_BLOCK;
        for (size_t b = 0; b < nb; b++) {
            GROUP_T q;
            GROUP_FN(from_affine)(&q, &a->in[i0 + b]);
            for (unsigned j = 0; j < a->factor; j++) {
                jac[j * nb + b] = q;
                for (unsigned d = 0; j + 1 < a->factor && d < a->shift; d++)
                    GROUP_FN(msm_dbl)(&q, &q);
            }
        }
        GROUP_FN(batch_to_affine)(aff, jac, nb * a->factor, fs);
        for (unsigned j = 0; j < a->factor; j++)
            memcpy(&a->out[j * a->n + i0], &aff[j * nb], nb * sizeof *aff);
    }
out:
    free(jac);
    free(aff);
    free(fs);
}

int GROUP_FN(msm_table_build)(struct zk_msm_table *table, const GROUP_AFFINE_T *points, size_t n,
                               unsigned factor, unsigned nthreads)
{
    if (!table || (n && !points) || !GROUP_FN(msm_table_size)(n, factor))
        return ZK_EBADPARAMS;
    unsigned bits = GROUP_FN(msm_r_bits)();
    unsigned c = zk_msm_table_window(n, factor, bits, MSM_IS_G2);
    memset(table, 0, sizeof *table);
    table->magic = ZK_MSM_TABLE_MAGIC;
    table->version = ZK_MSM_TABLE_VERSION;
    table->group = MSM_GROUP_ID;
    table->n = n;
    table->factor = factor;
    table->window = c;
    table->rounds = msm_table_rounds(c, factor, bits);
    table->bits = bits;
    table->point_bytes = sizeof(GROUP_AFFINE_T);
    struct GROUP_FN(msm_build_arg) a = {
        points, (GROUP_AFFINE_T *)(void *)((uint8_t *)table + 64), n, factor,
        c * table->rounds, 0,
    };
    zk_parallel_for(nthreads, n, MSM_BUILD_BLOCK, GROUP_FN(msm_build_range), &a);
    return atomic_load_explicit(&a.err, memory_order_relaxed);
}

#undef MSM_BUILD_BLOCK

/* ---- the MSM without the 0/1 split: table, GLV or plain Pippenger -------- */

/* 1 if the MSM of n points with opts takes the GLV path. */
static int GROUP_FN(msm_uses_glv)(size_t n, const struct zk_msm_opts *opts)
{
    unsigned glv = opts ? opts->glv : ZK_MSM_GLV_AUTO;
    return n >= MSM_GLV_MIN && !(opts && opts->table) && glv != ZK_MSM_GLV_OFF &&
           (n < MSM_GLV_MAX || glv == ZK_MSM_GLV_ON);
}

/* Scratch bytes of msm_any (msm_scratch_size's contract). */
static size_t GROUP_FN(msm_any_scratch)(size_t n, unsigned nthreads,
                                        const struct zk_msm_opts *opts)
{
    struct msm_plan pl;
    const struct zk_msm_table *t = opts ? opts->table : NULL;
    if (t) {
        size_t inner = GROUP_FN(msm_table_ok)(t, n)
                           ? GROUP_FN(msm_table_inner)(t, n, nthreads, opts) : 0;
        return inner ? GROUP_FN(msm_table_head)(n) + inner : 0;
    }
    if (GROUP_FN(msm_uses_glv)(n, opts)) {
        if (GROUP_FN(msm_plan)(&pl, 2 * n, MSM_GLV_BITS, nthreads, opts, NULL))
            return 0;
        return GROUP_FN(msm_glv_head)(n) + pl.total_bytes;
    }
    if (GROUP_FN(msm_plan)(&pl, n, 256, nthreads, opts, NULL))
        return 0;
    return pl.total_bytes;
}

/* G_msm without the 0/1 split (arguments checked by the caller). */
static int GROUP_FN(msm_any)(GROUP_T *ret, const GROUP_AFFINE_T *points, const limb_t *scalars,
                              size_t n, unsigned nthreads, void *scratch,
                              const struct zk_msm_opts *opts)
{
    if (opts && opts->table)
        return GROUP_FN(msm_table_run)(ret, scalars, n, nthreads, scratch, opts);
    if (GROUP_FN(msm_uses_glv)(n, opts))
        return GROUP_FN(msm_glv)(ret, points, scalars, n, nthreads, scratch, opts);
    return GROUP_FN(msm_core)(ret, points, scalars, n, 256, nthreads, scratch, opts, NULL, 1);
}

/* ---- 0/1 scalars: the points of 1-scalars added, 0-scalars dropped ------- */

/*
 * A witness of a bit-decomposed circuit (SHA-256: 58 % zeros, 42 % ones
 * at 2^16) has few scalars other than 0 and 1.  In Pippenger every
 * 1-scalar lands in bucket 0 of window 0: the affine batches then hold
 * one addition per inversion, and the 2n GLV entries are scanned in every
 * window for nothing.  With at least one scalar in MSM_ONES_MIN a 1, the
 * 1-scalars' points are summed directly, the others gathered and run as an
 * MSM of their own, without the table (their count is what is left).
 *
 * The sum: the points are cut in parts over the threads; each part's
 * 1-points are gathered MSM_ONES_BLOCK at a time and added pairwise, level
 * by level, in affine coordinates with one inversion per level (msm_flush,
 * the buckets being the pairs: about 6 multiplications an addition against
 * 11 for a mixed Jacobian one) until at most MSM_ONES_TAIL are left, which
 * are added to the part's Jacobian sum.  A part has at least
 * MSM_ONES_PART_MIN points, so that the levels' inversions stay a small
 * share.  The parts' blocks are in the scratch (the whole of it is free
 * once the others' MSM is done); a caller's scratch too small for them
 * (msm_scratch_size does not count them) has every point added in
 * Jacobian instead, so that a given scratch is still all the memory used.
 */
#define MSM_ONES_MIN 8
#define MSM_ONES_PARTS 64
#define MSM_ONES_PART_MIN 8192
#define MSM_ONES_BLOCK 2048
#define MSM_ONES_TAIL 16

/* One part's blocks: the level being added (a), the next (b). */
struct GROUP_FN(msm_ones_tree) {
    GROUP_AFFINE_T a[MSM_ONES_BLOCK], b[MSM_ONES_BLOCK / 2 + 1];
    FIELD_T den[MSM_ONES_BLOCK / 2], pre[MSM_ONES_BLOCK / 2];
    struct GROUP_FN(msm_ent) batch[MSM_ONES_BLOCK / 2];
    uint8_t st[MSM_ONES_BLOCK / 2];
};

struct GROUP_FN(msm_ones_arg) {
    const GROUP_AFFINE_T *points;
    const limb_t *scalars;
    size_t n;
    unsigned parts;
    struct GROUP_FN(msm_ones_tree) *trees;   /* one per part; NULL: Jacobian */
    GROUP_T part[MSM_ONES_PARTS];
};

/* *acc += the sum of tr->a[0 .. cnt) (none at infinity); tr->a is used up. */
static void GROUP_FN(msm_ones_tree_sum)(GROUP_T *acc, struct GROUP_FN(msm_ones_tree) *tr,
                                        size_t cnt)
{
    GROUP_AFFINE_T *in = tr->a, *out = tr->b;
    struct GROUP_FN(msm_actx) cx;
    cx.st = tr->st;
    cx.batch = tr->batch;
    cx.den = tr->den;
    cx.pre = tr->pre;
    cx.queue = NULL;
    cx.nq = 0;
    while (cnt > MSM_ONES_TAIL) {
        size_t h = cnt / 2, k = 0;
        for (size_t i = 0; i < h; i++) {    /* bucket i = in[2i], += in[2i + 1] */
            out[i] = in[2 * i];
            tr->st[i] = MSM_OCC;
            tr->batch[i] = (struct GROUP_FN(msm_ent)){ &in[2 * i + 1].x, &in[2 * i + 1].y,
                                                        (uint32_t)i, 0 };
        }
        cx.bk = out;
        cx.nbatch = cx.cap = h;
        GROUP_FN(msm_flush)(&cx);
        for (size_t i = 0; i < h; i++) {    /* P + (-P): gone */
            if (tr->st[i] != MSM_EMPTY)
                out[k++] = out[i];
        }
        if (cnt & 1)
            out[k++] = in[cnt - 1];
        GROUP_AFFINE_T *t = in;
        in = out;
        out = t;
        cnt = k;
    }
    for (size_t i = 0; i < cnt; i++)
        GROUP_FN(msm_madd)(acc, acc, &in[i]);
}

/* part[c] = the sum of the points of 1-scalars in part c, for c in range. */
static void GROUP_FN(msm_ones_range)(void *arg, size_t begin, size_t end)
{
    struct GROUP_FN(msm_ones_arg) *a = arg;
    for (size_t c = begin; c < end; c++) {
        struct GROUP_FN(msm_ones_tree) *tr = a->trees ? &a->trees[c] : NULL;
        size_t lo = a->n * c / a->parts, hi = a->n * (c + 1) / a->parts, cnt = 0;
        GROUP_T acc;
        GROUP_FN(set_inf)(&acc);
        for (size_t i = lo; i < hi; i++) {
            if (!msm_is_one(a->scalars + 4 * i))
                continue;
            if (!tr) {
                GROUP_FN(msm_madd)(&acc, &acc, &a->points[i]);   /* infinity: no-op */
                continue;
            }
            if (GROUP_FN(affine_is_inf)(&a->points[i]))
                continue;
            tr->a[cnt++] = a->points[i];
            if (cnt == MSM_ONES_BLOCK) {
                GROUP_FN(msm_ones_tree_sum)(&acc, tr, cnt);
                cnt = 0;
            }
        }
        if (tr)
            GROUP_FN(msm_ones_tree_sum)(&acc, tr, cnt);
        a->part[c] = acc;
    }
}

/*
 * G_msm by the 0/1 split, or 1 (nothing written) when it does not apply:
 * fewer than n / MSM_ONES_MIN 1-scalars, options msm_any refuses, or a
 * split that needs more scratch than msm_any_scratch(n) (the caller's
 * scratch may hold no more).  The gathered points and scalars come first
 * in the scratch, the inner MSM's scratch after them.  0 or -ENOMEM
 * (scratch NULL) otherwise.
 */
static int GROUP_FN(msm_ones)(GROUP_T *ret, const GROUP_AFFINE_T *points, const limb_t *scalars,
                               size_t n, unsigned nthreads, void *scratch,
                               const struct zk_msm_opts *opts)
{
    const struct zk_msm_table *t = opts ? opts->table : NULL;
    struct zk_msm_opts o = { 0, 0, 0, 0, 0, NULL };
    size_t ones, m;
    if (n < MSM_GLV_MIN || (t && !GROUP_FN(msm_table_ok)(t, n)))
        return 1;
    msm_count_small(scalars, n, &ones, &m);
    if (ones == 0 || ones * MSM_ONES_MIN < n)
        return 1;
    if (opts)
        o = *opts;
    o.table = NULL;
    size_t cap = GROUP_FN(msm_any_scratch)(n, nthreads, opts);
    size_t inner = m ? GROUP_FN(msm_any_scratch)(m, nthreads, &o) : 0;
    size_t pbytes = msm_align(m * sizeof(GROUP_AFFINE_T));
    size_t need = pbytes + msm_align(m * 4 * sizeof(limb_t)) + inner;
    if (!cap || (m && !inner) || (scratch && need > cap))
        return 1;
    struct GROUP_FN(msm_ones_arg) a;
    a.parts = (unsigned)(n / MSM_ONES_PART_MIN < 1 ? 1
                         : n / MSM_ONES_PART_MIN > MSM_ONES_PARTS ? MSM_ONES_PARTS
                         : n / MSM_ONES_PART_MIN);
    size_t tbytes = a.parts * sizeof(struct GROUP_FN(msm_ones_tree));
    void *mem = NULL;
    if (!scratch && !(scratch = mem = zk_big_alloc(need > tbytes ? need : tbytes)))
        return -ENOMEM;
    const GROUP_AFFINE_T *base = t ? GROUP_FN(msm_table_points)(t) : points;
    GROUP_AFFINE_T *gp = scratch;
    /* no other scalar: no scratch either (NULL + 0 is undefined) */
    limb_t *gk = m ? (limb_t *)(void *)((uint8_t *)scratch + pbytes) : NULL;
    for (size_t i = 0, j = 0; i < n && j < m; i++) {
        if (msm_is_other(scalars + 4 * i)) {
            gp[j] = base[i];
            memcpy(gk + 4 * j++, scalars + 4 * i, 4 * sizeof(limb_t));
        }
    }
    GROUP_T rest;
    int r = 0;
    GROUP_FN(set_inf)(&rest);
    if (m)
        r = GROUP_FN(msm_any)(&rest, gp, gk, m, nthreads,
                              (uint8_t *)scratch + need - inner, &o);
    if (r == 0) {
        a.points = base;
        a.scalars = scalars;
        a.n = n;
        a.trees = mem || tbytes <= cap ? scratch : NULL;   /* all of it free now */
        zk_parallel_for(nthreads, a.parts, 1, GROUP_FN(msm_ones_range), &a);
        for (unsigned c = 0; c < a.parts; c++)
            GROUP_FN(msm_add)(&rest, &rest, &a.part[c]);
        *ret = rest;
    }
    zk_big_free(mem);
    return r;
}

#undef MSM_ONES_TAIL
#undef MSM_ONES_BLOCK
#undef MSM_ONES_PART_MIN
#undef MSM_ONES_PARTS
#undef MSM_ONES_MIN

/* ---- the exported entry points (zk/msm.h) -------------------------------- */

size_t GROUP_FN(msm_scratch_size)(size_t n, unsigned nthreads, const struct zk_msm_opts *opts)
{
    return GROUP_FN(msm_any_scratch)(n, nthreads, opts);
}

int GROUP_FN(msm)(GROUP_T *ret, const GROUP_AFFINE_T *points, const limb_t *scalars, size_t n,
                   unsigned nthreads, void *scratch, const struct zk_msm_opts *opts)
{
    int tab = opts && opts->table;
    if (!ret || (n && (!scalars || (!points && !tab))))
        return ZK_EBADPARAMS;
    if (opts && opts->glv > ZK_MSM_GLV_OFF)
        return ZK_EBADPARAMS;
    int r = GROUP_FN(msm_ones)(ret, points, scalars, n, nthreads, scratch, opts);
    if (r != 1)
        return r;
    return GROUP_FN(msm_any)(ret, points, scalars, n, nthreads, scratch, opts);
}

#undef MSM_LANES
#undef MSM_GLV_BITS
#undef FIELD_T
#undef GROUP_T
#undef GROUP_AFFINE_T
#undef FIELD_FN
#undef GROUP_FN
#undef MSM_GROUP_ID
#undef MSM_IFMA
#undef MSM_GLV_CONSTS
#undef MSM_IS_G2
#undef MSM_F
#undef MSM_G
#undef ZK_MSM_TMPL

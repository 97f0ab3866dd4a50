/*
 * msm_tmpl.h -- Pippenger MSM for one group, instantiated by msm.c with:
 *   ZK_G      group prefix (bn254_g1, ...): types ZK_G, ZK_G_affine
 *   ZK_G_F    its coordinate field prefix (bn254_fp, bn254_fp2, ...)
 *   ZK_MSM_G2 1 for a G2 group (changes only the automatic tuning)
 *   ZK_MSM_GLV_C  the curve's msm_glv_consts (scalar splitting), with
 *             ZK_G_msm_endo_x (x *= beta) defined before inclusion
 * See zk/msm.h and msm_glv.h for the contract; msm.c defines the group-independent helpers
 * (msm_digit, msm_plan_common, the scratch layout helpers).
 */
#define MN(name) ZK_CAT(ZK_G, name)
#define MF(name) ZK_CAT(ZK_G_F, name)
#define MGA ZK_CAT(ZK_G, affine)

/* One pending bucket addition: bucket b += (neg ? -*p : *p). */
struct MN(msm_ent) {
    const MGA *p;
    uint32_t b;
    uint32_t neg;                  /* bit 0: -P; msm_flush adds MSM_ENT_* */
};

/* Per-thread working memory of the affine method. */
struct MN(msm_actx) {
    MGA *bk;                       /* nb buckets, valid where st[] != EMPTY */
    uint8_t *st;                   /* MSM_EMPTY / MSM_OCC / MSM_LOCKED */
    struct MN(msm_ent) *batch;     /* additions of the current batch */
    struct MN(msm_ent) *queue;     /* deferred: bucket was locked */
    ZK_G_F *den, *pre;             /* denominators, prefix products */
    size_t nbatch, cap, nq;
};

struct MN(msm_job) {
    const MGA *points;
    const limb_t *scalars;
    size_t n;
    struct msm_plan pl;
    unsigned nwin;
    unsigned bits;                 /* bit length of the largest scalar */
    uint8_t *scratch;
    ZK_G *results;                 /* nwin * chunks window partial sums */
    atomic_uint next;              /* next task */
};

/* Out-of-line point operations: one copy each (compile time, code size). */
static __attribute__((noinline)) void MN(msm_add)(ZK_G *r, const ZK_G *p, const ZK_G *q)
{ MN(add)(r, p, q); }
static __attribute__((noinline)) void MN(msm_madd)(ZK_G *r, const ZK_G *p, const MGA *q)
{ MN(add_affine)(r, p, q); }
static __attribute__((noinline)) void MN(msm_dbl)(ZK_G *r, const ZK_G *p)
{ MN(dbl)(r, p); }

/* Affine y of +-P. */
ZK_HD void MN(msm_y)(ZK_G_F *y, const MGA *p, uint32_t neg)
{
    if (neg)
        MF(neg)(y, &p->y);
    else
        *y = p->y;
}

/*
 * Executes the batch: every entry adds its point to its bucket (all buckets
 * distinct, all occupied, no point at infinity).  Denominators: x2 - x1, or
 * 2 y1 when the x agree and the points are equal (doubling); when they are
 * opposite (or y1 = 0) the result is infinity and the bucket empties.
 */
static void MN(msm_flush)(struct MN(msm_actx) *cx)
{
    size_t nb = cx->nbatch;
    ZK_G_F acc, y, lam, t;
    MF(one)(&acc);
    for (size_t k = 0; k < nb; k++) {
        struct MN(msm_ent) *e = &cx->batch[k];
        if (k + 4 < nb)
            __builtin_prefetch(&cx->bk[cx->batch[k + 4].b]);
        const MGA *a = &cx->bk[e->b];
        MF(sub)(&cx->den[k], &e->p->x, &a->x);
        if (MF(is_zero)(&cx->den[k])) {        /* equal x: double or cancel */
            MN(msm_y)(&y, e->p, e->neg & 1);
            if (MF(eq)(&y, &a->y) && !MF(is_zero)(&a->y)) {
                MF(dbl)(&cx->den[k], &a->y);
                e->neg |= MSM_ENT_DBL;
            } else {
                e->neg |= MSM_ENT_CANCEL;
            }
        }
        cx->pre[k] = acc;
        if (!(e->neg & MSM_ENT_CANCEL))
            MF(mul)(&acc, &acc, &cx->den[k]);
    }
    MF(inv)(&acc, &acc);
    for (size_t k = nb; k-- > 0;) {
        const struct MN(msm_ent) *e = &cx->batch[k];
        MGA *a = &cx->bk[e->b];
        if (e->neg & MSM_ENT_CANCEL) {         /* P + (-P) = O */
            cx->st[e->b] = MSM_EMPTY;
            continue;
        }
        MF(mul)(&t, &acc, &cx->pre[k]);        /* 1 / den[k] */
        MF(mul)(&acc, &acc, &cx->den[k]);
        if (e->neg & MSM_ENT_DBL) {            /* lambda = 3 x^2 / 2y */
            MF(sqr)(&y, &a->x);
            MF(dbl)(&lam, &y);
            MF(add)(&lam, &lam, &y);
        } else {                               /* lambda = (y2 - y1) / (x2 - x1) */
            MN(msm_y)(&y, e->p, e->neg & 1);
            MF(sub)(&lam, &y, &a->y);
        }
        MF(mul)(&lam, &lam, &t);
        MF(sqr)(&t, &lam);
        MF(sub)(&t, &t, &a->x);
        MF(sub)(&t, &t, &e->p->x);             /* x3 = lambda^2 - x1 - x2 */
        MF(sub)(&y, &a->x, &t);
        MF(mul)(&y, &y, &lam);
        MF(sub)(&a->y, &y, &a->y);             /* y3 = lambda (x1 - x3) - y1 */
        a->x = t;
        cx->st[e->b] = MSM_OCC;
    }
    cx->nbatch = 0;
}

/* Puts e into its bucket (empty: copy) or into the batch.  Bucket unlocked. */
ZK_HD void MN(msm_place)(struct MN(msm_actx) *cx, const struct MN(msm_ent) *e)
{
    if (cx->st[e->b] == MSM_EMPTY) {
        cx->bk[e->b].x = e->p->x;
        MN(msm_y)(&cx->bk[e->b].y, e->p, e->neg);
        cx->st[e->b] = MSM_OCC;
        return;
    }
    cx->batch[cx->nbatch++] = *e;
    cx->st[e->b] = MSM_LOCKED;
}

/* Runs the batch, then moves deferred entries into the next batch. */
static void MN(msm_flush_requeue)(struct MN(msm_actx) *cx)
{
    size_t keep = 0;
    MN(msm_flush)(cx);
    for (size_t i = 0; i < cx->nq; i++) {
        const struct MN(msm_ent) *e = &cx->queue[i];
        if (cx->nbatch == cx->cap || cx->st[e->b] == MSM_LOCKED)
            cx->queue[keep++] = *e;
        else
            MN(msm_place)(cx, e);
    }
    cx->nq = keep;
}

/* Affine method: accumulates window w of points [lo, hi) into cx->bk. */
static void MN(msm_fill_affine)(struct MN(msm_job) *jb, struct MN(msm_actx) *cx,
                                unsigned w, size_t lo, size_t hi)
{
    unsigned c = jb->pl.c;
    size_t nbk = (size_t)1 << (c - 1);
    for (size_t b = 0; b < nbk; b++)
        cx->st[b] = MSM_EMPTY;
    cx->nbatch = cx->nq = 0;
    for (size_t i = lo; i < hi; i++) {
        int d = msm_digit(jb->scalars + 4 * i, w * c, c);
        if (d == 0)
            continue;
        struct MN(msm_ent) e = { &jb->points[i], (uint32_t)(d < 0 ? -d : d) - 1, d < 0 };
        if (MN(affine_is_inf)(e.p))
            continue;
        while (cx->st[e.b] == MSM_LOCKED) {
            if (cx->nq < cx->cap) {
                cx->queue[cx->nq++] = e;
                goto next;
            }
            MN(msm_flush_requeue)(cx);
        }
        MN(msm_place)(cx, &e);
        if (cx->nbatch == cx->cap)
            MN(msm_flush_requeue)(cx);
next:;
    }
    while (cx->nbatch || cx->nq)
        MN(msm_flush_requeue)(cx);
}

/* ret = sum_b (b+1) bucket_b over the affine buckets (running sums). */
static void MN(msm_reduce_affine)(ZK_G *ret, const struct MN(msm_actx) *cx, size_t nbk)
{
    ZK_G sum, acc;
    MN(set_inf)(&sum);
    MN(set_inf)(&acc);
    for (size_t b = nbk; b-- > 0;) {
        if (cx->st[b] != MSM_EMPTY)
            MN(msm_madd)(&sum, &sum, &cx->bk[b]);
        MN(msm_add)(&acc, &acc, &sum);
    }
    *ret = acc;
}

/* Jacobian method: window w of points [lo, hi) into the buckets (every
 * digit of the window below nbk in absolute value), reduced. */
static void MN(msm_window_jac)(ZK_G *ret, struct MN(msm_job) *jb, ZK_G *bk,
                               unsigned w, size_t lo, size_t hi, size_t nbk)
{
    unsigned c = jb->pl.c;
    ZK_G sum, acc;
    MGA q;
    for (size_t b = 0; b < nbk; b++)
        MN(set_inf)(&bk[b]);
    for (size_t i = lo; i < hi; i++) {
        int d = msm_digit(jb->scalars + 4 * i, w * c, c);
        if (d == 0)
            continue;
        const MGA *p = &jb->points[i];
        size_t b = (size_t)(d < 0 ? -d : d) - 1;
        if (d < 0) {
            MN(affine_neg)(&q, p);
            p = &q;
        }
        MN(msm_madd)(&bk[b], &bk[b], p);   /* infinity p: no-op */
    }
    MN(set_inf)(&sum);
    MN(set_inf)(&acc);
    for (size_t b = nbk; b-- > 0;) {
        MN(msm_add)(&sum, &sum, &bk[b]);
        MN(msm_add)(&acc, &acc, &sum);
    }
    *ret = acc;
}

/* Thread body: takes (window, chunk) tasks until none is left. */
static void MN(msm_worker)(void *arg, unsigned t, unsigned nthreads)
{
    struct MN(msm_job) *jb = arg;
    const struct msm_plan *pl = &jb->pl;
    size_t nbk = (size_t)1 << (pl->c - 1);
    uint8_t *area = jb->scratch + pl->results_bytes + (size_t)t * pl->thread_bytes;
    struct MN(msm_actx) cx;
    (void)nthreads;
    if (pl->method == ZK_MSM_AFFINE) {
        uint8_t *p = area;
        cx.bk = (MGA *)p;
        p += msm_align(nbk * sizeof(MGA));
        cx.den = (ZK_G_F *)p;
        p += msm_align(pl->batch * sizeof(ZK_G_F));
        cx.pre = (ZK_G_F *)p;
        p += msm_align(pl->batch * sizeof(ZK_G_F));
        cx.batch = (struct MN(msm_ent) *)p;
        p += msm_align(pl->batch * sizeof(struct MN(msm_ent)));
        cx.queue = (struct MN(msm_ent) *)p;
        p += msm_align(pl->batch * sizeof(struct MN(msm_ent)));
        cx.st = p;
        cx.cap = pl->batch;
    }
    size_t ntasks = (size_t)jb->nwin * pl->chunks;
    for (;;) {
        /* relaxed: the counter only hands out indices; results are
         * published by the join in zk_parallel_run */
        size_t task = atomic_fetch_add_explicit(&jb->next, 1, memory_order_relaxed);
        if (task >= ntasks)
            break;
        unsigned w = (unsigned)(task / pl->chunks);
        size_t j = task % pl->chunks;
        size_t lo = jb->n * j / pl->chunks, hi = jb->n * (j + 1) / pl->chunks;
        /* The top window of scalars below 2^bits only has digits 0 ..
         * 2^(bits - w c) (Booth: its top bit is 0), so only that many
         * buckets can be in use.  With few buckets nearly every batch entry
         * collides and the affine batches shrink to a few additions per
         * inversion: such a window is done with Jacobian buckets, in the
         * affine bucket area (nbe <= nbk / 4, and a Jacobian point is 1.5
         * affine ones). */
        size_t nbe = nbk;
        if (w * pl->c + pl->c - 1 >= jb->bits) {
            unsigned e = jb->bits - w * pl->c;          /* < c */
            nbe = (size_t)1 << e;
        }
        if (pl->method == ZK_MSM_AFFINE && (nbe * 4 > nbk || nbe >= 2 * (size_t)pl->batch)) {
            MN(msm_fill_affine)(jb, &cx, w, lo, hi);
            MN(msm_reduce_affine)(&jb->results[task], &cx, nbk);
        } else if (pl->method == ZK_MSM_AFFINE) {
            MN(msm_window_jac)(&jb->results[task], jb, (ZK_G *)(void *)cx.bk, w, lo, hi, nbe);
        } else {
            MN(msm_window_jac)(&jb->results[task], jb, (ZK_G *)area, w, lo, hi, nbk);
        }
    }
}

/* The plan for n points with scalars of at most `bits` bits: window,
 * method, batch, chunks, threads, sizes. */
static int MN(msm_plan)(struct msm_plan *pl, size_t n, unsigned bits, unsigned nthreads,
                        const struct zk_msm_opts *o)
{
    struct zk_msm_opts a = { 0, 0, 0, 0 };
    if (o)
        a = *o;
    if (a.window > ZK_MSM_MAX_WINDOW || a.method > ZK_MSM_AFFINE)
        return ZK_EBADPARAMS;
    if (a.method == ZK_MSM_AUTO)
        a.method = n >= (ZK_MSM_G2 ? MSM_AFFINE_MIN_G2 : MSM_AFFINE_MIN_G1)
                 ? ZK_MSM_AFFINE : ZK_MSM_JACOBIAN;
    if (a.window == 0)
        a.window = msm_auto_window(n, bits, a.method == ZK_MSM_AFFINE, ZK_MSM_G2);
    msm_plan_common(pl, n, bits, nthreads, &a);
    size_t nbk = (size_t)1 << (pl->c - 1);
    pl->results_bytes = msm_align(pl->max_tasks * sizeof(ZK_G));
    if (pl->method == ZK_MSM_AFFINE)
        pl->thread_bytes = msm_align(nbk * sizeof(MGA)) +
                           2 * msm_align(pl->batch * sizeof(ZK_G_F)) +
                           2 * msm_align(pl->batch * sizeof(struct MN(msm_ent))) +
                           msm_align(nbk);
    else
        pl->thread_bytes = msm_align(nbk * sizeof(ZK_G));
    pl->total_bytes = pl->results_bytes + (size_t)pl->threads * pl->thread_bytes;
    return 0;
}

/* Plain Pippenger over scalars of at most `bits` bits (n points). */
static int MN(msm_core)(ZK_G *ret, const MGA *points, const limb_t *scalars, size_t n,
                        unsigned bits_max, unsigned nthreads, void *scratch,
                        const struct zk_msm_opts *opts)
{
    struct MN(msm_job) jb;
    void *mem = NULL;
    int r;
    r = MN(msm_plan)(&jb.pl, n, bits_max, nthreads, opts);
    if (r)
        return r;
    unsigned bits = msm_max_bits(scalars, n);
    ZK_G acc;
    MN(set_inf)(&acc);
    if (bits == 0) {
        *ret = acc;
        return 0;
    }
    if (bits > bits_max)
        return ZK_EBADPARAMS;      /* cannot happen: the GLV halves are < 2^129 */
    if (!scratch) {
        mem = zk_big_alloc(jb.pl.total_bytes);
        if (!mem)
            return -ENOMEM;
        scratch = mem;
    }
    jb.points = points;
    jb.scalars = scalars;
    jb.n = n;
    jb.nwin = (bits + 1 + jb.pl.c - 1) / jb.pl.c;   /* bit nwin*c - 1 is 0 */
    jb.bits = bits;
    jb.scratch = scratch;
    jb.results = scratch;
    atomic_init(&jb.next, 0);
    unsigned T = jb.pl.threads;
    size_t ntasks = (size_t)jb.nwin * jb.pl.chunks;
    if (T > ntasks)
        T = (unsigned)ntasks;
    if (T <= 1)
        MN(msm_worker)(&jb, 0, 1);
    else
        zk_parallel_run(T, MN(msm_worker), &jb);
    for (unsigned w = jb.nwin; w-- > 0;) {
        if (!MN(is_inf)(&acc))
            for (unsigned i = 0; i < jb.pl.c; i++)
                MN(msm_dbl)(&acc, &acc);
        for (unsigned j = 0; j < jb.pl.chunks; j++)
            MN(msm_add)(&acc, &acc, &jb.results[(size_t)w * jb.pl.chunks + j]);
    }
    *ret = acc;
    zk_big_free(mem);
    return 0;
}

/* GLV: nominal bit length of the split scalars (|k1|, |k2| < 2^129). */
#define MSM_GLV_BITS 129

/* GLV working memory ahead of the inner MSM's: 2n points, 2n scalars. */
static size_t MN(msm_glv_head)(size_t n)
{
    return msm_align(2 * n * sizeof(MGA)) + msm_align(2 * n * 4 * sizeof(limb_t));
}

struct MN(msm_glv_arg) {
    const MGA *in;
    const limb_t *k;
    MGA *out;
    limb_t *ko;
};

/* out[2i] = +-P_i, out[2i+1] = +-phi(P_i), ko = |k1_i|, |k2_i| for i in range. */
static void MN(msm_glv_range)(void *arg, size_t begin, size_t end)
{
    const struct MN(msm_glv_arg) *a = arg;
    for (size_t i = begin; i < end; i++) {
        const MGA *p = &a->in[i];
        MGA *o = &a->out[2 * i];
        limb_t *k1 = a->ko + 8 * i, *k2 = k1 + 4;
        const limb_t *k = a->k + 4 * i;
        if (MN(affine_is_inf)(p) || (k[0] | k[1] | k[2] | k[3]) == 0) {
            memset(o, 0, 2 * sizeof *o);
            memset(k1, 0, 8 * sizeof *k1);
            continue;
        }
        unsigned neg = msm_glv_split(&ZK_MSM_GLV_C, k1, k2, k);
        o[0].x = p->x;
        o[1].x = p->x;
        MN(msm_endo_x)(&o[1].x);
        MN(msm_y)(&o[0].y, p, neg & 1);
        MN(msm_y)(&o[1].y, p, neg >> 1);
    }
}

size_t MN(msm_glv_scratch_size)(size_t n, unsigned nthreads, const struct zk_msm_opts *opts,
                                int glv)
{
    struct msm_plan pl;
    if (glv && n >= MSM_GLV_MIN) {
        if (MN(msm_plan)(&pl, 2 * n, MSM_GLV_BITS, nthreads, opts))
            return 0;
        return MN(msm_glv_head)(n) + pl.total_bytes;
    }
    if (MN(msm_plan)(&pl, n, 256, nthreads, opts))
        return 0;
    return pl.total_bytes;
}

int MN(msm_glv_opts)(ZK_G *ret, const MGA *points, const limb_t *scalars, size_t n,
                     unsigned nthreads, void *scratch, const struct zk_msm_opts *opts, int glv)
{
    struct msm_plan pl;
    void *mem = NULL;
    int r;
    if (!ret || (n && (!points || !scalars)))
        return ZK_EBADPARAMS;
    if (!glv || n < MSM_GLV_MIN)
        return MN(msm_core)(ret, points, scalars, n, 256, nthreads, scratch, opts);
    r = MN(msm_plan)(&pl, 2 * n, MSM_GLV_BITS, nthreads, opts);
    if (r)
        return r;
    if (!scratch) {
        mem = zk_big_alloc(MN(msm_glv_head)(n) + pl.total_bytes);
        if (!mem)
            return -ENOMEM;
        scratch = mem;
    }
    uint8_t *s = scratch;
    struct MN(msm_glv_arg) a = { points, scalars, (MGA *)s,
                                 (limb_t *)(s + msm_align(2 * n * sizeof(MGA))) };
    zk_parallel_for(pl.threads, n, 4096, MN(msm_glv_range), &a);
    r = MN(msm_core)(ret, a.out, a.ko, 2 * n, MSM_GLV_BITS, nthreads,
                     s + MN(msm_glv_head)(n), opts);
    zk_big_free(mem);
    return r;
}

size_t MN(msm_scratch_size_opts)(size_t n, unsigned nthreads, const struct zk_msm_opts *opts)
{
    return MN(msm_glv_scratch_size)(n, nthreads, opts, 1);
}

size_t MN(msm_scratch_size)(size_t n, unsigned nthreads)
{
    return MN(msm_scratch_size_opts)(n, nthreads, NULL);
}

unsigned MN(msm_window)(size_t n)
{
    struct msm_plan pl;
    if (n >= MSM_GLV_MIN)
        MN(msm_plan)(&pl, 2 * n, MSM_GLV_BITS, 1, NULL);
    else
        MN(msm_plan)(&pl, n, 256, 1, NULL);
    return pl.c;
}

int MN(msm_opts)(ZK_G *ret, const MGA *points, const limb_t *scalars, size_t n,
                 unsigned nthreads, void *scratch, const struct zk_msm_opts *opts)
{
    return MN(msm_glv_opts)(ret, points, scalars, n, nthreads, scratch, opts, 1);
}

int MN(msm_scratch)(ZK_G *ret, const MGA *points, const limb_t *scalars, size_t n,
                    unsigned nthreads, void *scratch)
{
    return MN(msm_opts)(ret, points, scalars, n, nthreads, scratch, NULL);
}

int MN(msm)(ZK_G *ret, const MGA *points, const limb_t *scalars, size_t n,
            unsigned nthreads)
{
    return MN(msm_opts)(ret, points, scalars, n, nthreads, NULL, NULL);
}

#undef MSM_GLV_BITS
#undef MGA
#undef MF
#undef MN

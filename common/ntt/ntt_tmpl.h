/*
 * ntt_tmpl.h -- the NTT for one scalar field, included once per field by
 * ntt.c with these macros defined:
 *   ZK_F        field prefix (bn254_fr, bls381_fr; type and functions of
 *               ff/field_tmpl.h)
 *   ZK_NTT_S    two-adicity of r - 1
 *
 * Structure.
 *   dif():  natural order in, bit-reversed order out (Gentleman-Sande,
 *           (a, b) -> (a + b, (a - b) w^j)), stages m = n/2 .. 1.
 *   dit():  bit-reversed in, natural out (Cooley-Tukey, (a, b) ->
 *           (a + w^j b, a - w^j b)), stages m = 1 .. n/2.
 *   Both use only the forward twiddles w_(2m)^j.  Stages whose butterflies
 *   span more than a block of 2^NTT_BLOCK_LOG elements are run one at a
 *   time over the whole vector (two sequential streams, parallel over
 *   butterflies); the rest run block by block, each block in cache and on
 *   one thread.  (A pass doing 4 stages at once on 16x16 tiles copied to
 *   the stack was tried: ~15% more CPU time at 2^20 on this machine; the
 *   transform is bound by the field multiplication, not by memory.)
 *   forward  = dif + bit-reversal permutation (blocked 16x16 tiles).
 *   inverse  = forward, then x[i] <-> x[n-i] with the n^-1 scaling
 *              (DFT with w^-1 is the DFT with w read at -i).
 *   odd coset = dif, then in bit-reversed order the same index negation
 *              (which there reverses every dyadic block [2^h, 2^(h+1)))
 *              fused with the scaling by n^-1 g^k, then dit: no permutation.
 *
 * Twiddle cache: level k holds w_(2^(k+1))^j for j < 2^k (the stage with
 * half-size m = 2^k); it does not depend on the transform size.  Levels are
 * built in increasing order under the mutex and published with release
 * stores; a reader that sees level L-1 (acquire) sees all lower ones.
 */
#define NT_CAT_(a, b) a##_##b
#define NT_CAT(a, b) NT_CAT_(a, b)
#define NF(name) NT_CAT(ZK_F, name)
#define NT_NL (sizeof(ZK_F) / sizeof(limb_t))

struct NF(ntt_cache) {
    pthread_mutex_t lock;
    atomic_int roots_ready;               /* roots[] written (release/acquire) */
    ZK_F roots[ZK_NTT_S + 1];             /* roots[k] = w_k */
    _Atomic(ZK_F *) level[ZK_NTT_S];      /* see the header comment */
};

static struct NF(ntt_cache) NF(ntt_cache_) = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* w_S = 5^((r-1)/2^S), then w_k = w_(k+1)^2.  Caller holds the lock. */
static void NF(ntt_roots_locked)(void)
{
    struct NF(ntt_cache) *c = &NF(ntt_cache_);
    limb_t t[NT_NL];
    ZK_F five;

    for (size_t i = 0; i < NT_NL; i++)
        t[i] = NF(P_)[i];
    t[0] -= 1;                                    /* r odd: no borrow */
    for (size_t i = 0; i < NT_NL; i++)            /* t = (r-1) >> S */
        t[i] = (t[i] >> ZK_NTT_S) |
               (i + 1 < NT_NL ? t[i + 1] << (64 - ZK_NTT_S) : 0);
    NF(from_u64)(&five, 5);
    NF(pow)(&c->roots[ZK_NTT_S], &five, t, 64 * NT_NL);
    for (unsigned k = ZK_NTT_S; k-- > 0;)
        NF(sqr)(&c->roots[k], &c->roots[k + 1]);
}

static const ZK_F *NF(ntt_roots)(void)
{
    struct NF(ntt_cache) *c = &NF(ntt_cache_);
    /* acquire: pairs with the release below, makes roots[] visible */
    if (!atomic_load_explicit(&c->roots_ready, memory_order_acquire)) {
        pthread_mutex_lock(&c->lock);
        if (!atomic_load_explicit(&c->roots_ready, memory_order_relaxed)) {
            NF(ntt_roots_locked)();
            atomic_store_explicit(&c->roots_ready, 1, memory_order_release);
        }
        pthread_mutex_unlock(&c->lock);
    }
    return c->roots;
}

void NF(root_of_unity)(ZK_F *ret, unsigned k)
{
    if (k > ZK_NTT_S) {
        NF(zero)(ret);
        return;
    }
    *ret = NF(ntt_roots)()[k];
}

struct NF(level_job) {
    ZK_F *t;
    const ZK_F *lo, *w;
};

static void NF(level_fill)(void *arg, size_t b, size_t e)
{
    struct NF(level_job) *jb = arg;
    for (size_t j = b; j < e; j++) {
        jb->t[2 * j] = jb->lo[j];
        NF(mul)(&jb->t[2 * j + 1], &jb->lo[j], jb->w);
    }
}

/*
 * Makes levels 0 .. log_n-1 exist (building missing ones on nthreads
 * threads) and copies their pointers into tw[].  0 or -ENOMEM.
 */
static int NF(ntt_levels)(unsigned log_n, const ZK_F **tw, unsigned nthreads)
{
    struct NF(ntt_cache) *c = &NF(ntt_cache_);
    const ZK_F *roots = NF(ntt_roots)();
    int r = 0;

    if (log_n == 0)
        return 0;
    /* acquire: pairs with the release store of the top level below */
    if (atomic_load_explicit(&c->level[log_n - 1], memory_order_acquire))
        goto copy;
    pthread_mutex_lock(&c->lock);
    for (unsigned k = 0; k < log_n; k++) {
        if (atomic_load_explicit(&c->level[k], memory_order_relaxed))
            continue;
        ZK_F *t = aligned_alloc(64, sizeof(ZK_F) << (k < 1 ? 1 : k));
        if (!t) {
            r = -ENOMEM;
            break;
        }
        if (k == 0) {
            NF(one)(&t[0]);
        } else {   /* w_(2^(k+1))^(2j) = w_(2^k)^j: even entries from level k-1 */
            struct NF(level_job) job = {
                t, atomic_load_explicit(&c->level[k - 1], memory_order_relaxed),
                &roots[k + 1]
            };
            zk_parallel_for(nthreads, (size_t)1 << (k - 1), 4096, NF(level_fill), &job);
        }
        /* release: table contents before the pointer */
        atomic_store_explicit(&c->level[k], t, memory_order_release);
    }
    pthread_mutex_unlock(&c->lock);
    if (r)
        return r;
copy:
    for (unsigned k = 0; k < log_n; k++)
        tw[k] = atomic_load_explicit(&c->level[k], memory_order_acquire);
    return 0;
}

int NF(ntt_precompute)(unsigned log_n, unsigned nthreads)
{
    const ZK_F *tw[ZK_NTT_S];
    if (log_n > ZK_NTT_S)
        return ZK_EDOMAIN;
    return NF(ntt_levels)(log_n, tw, nthreads ? nthreads : zk_nthreads_default());
}

/* ---- butterflies ------------------------------------------------------------ */

static inline void NF(bf_dif)(ZK_F *a, ZK_F *b, const ZK_F *w)
{
    ZK_F d;
    NF(sub)(&d, a, b);
    NF(add)(a, a, b);
    NF(mul)(b, &d, w);
}

static inline void NF(bf_dit)(ZK_F *a, ZK_F *b, const ZK_F *w)
{
    ZK_F t;
    NF(mul)(&t, b, w);
    NF(sub)(b, a, &t);
    NF(add)(a, a, &t);
}

static inline void NF(bf_plain)(ZK_F *a, ZK_F *b)
{
    ZK_F d;
    NF(sub)(&d, a, b);
    NF(add)(a, a, b);
    *b = d;
}

/* ---- transform context and stage kernels ------------------------------------ */

struct NF(ntt_ctx) {
    ZK_F *x;
    unsigned log_n, s, bl;           /* s: current global stage, bl: block log */
    const ZK_F **tw;
    /* scaling passes */
    ZK_F c0, u, uinv;                /* constant, ratio, 1/ratio */
    int has_u;
    const ZK_F *hi, *lo;             /* odd-coset factor tables */
    unsigned lo_bits;
};

/* One global stage (half-size m = 2^s) for butterflies [b, e) of n/2. */
static void NF(dif_stage)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    unsigned s = c->s;
    size_t m = (size_t)1 << s;
    const ZK_F *T = c->tw[s];
    for (size_t i = b; i < e;) {
        size_t j = i & (m - 1), run = m - j;
        if (run > e - i)
            run = e - i;
        ZK_F *p = c->x + ((i >> s) << (s + 1)) + j, *q = p + m;
        for (size_t t = 0; t < run; t++)
            NF(bf_dif)(&p[t], &q[t], &T[j + t]);
        i += run;
    }
}

static void NF(dit_stage)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    unsigned s = c->s;
    size_t m = (size_t)1 << s;
    const ZK_F *T = c->tw[s];
    for (size_t i = b; i < e;) {
        size_t j = i & (m - 1), run = m - j;
        if (run > e - i)
            run = e - i;
        ZK_F *p = c->x + ((i >> s) << (s + 1)) + j, *q = p + m;
        for (size_t t = 0; t < run; t++)
            NF(bf_dit)(&p[t], &q[t], &T[j + t]);
        i += run;
    }
}

/* All stages m = 2^(bl-1) .. 1 of the block x[0 .. 2^bl). */
static void NF(dif_local)(ZK_F *x, unsigned bl, const ZK_F **tw)
{
    size_t n = (size_t)1 << bl;
    for (unsigned s = bl; s-- > 1;) {
        size_t m = (size_t)1 << s;
        const ZK_F *T = tw[s];
        for (size_t base = 0; base < n; base += 2 * m) {
            ZK_F *p = x + base, *q = p + m;
            NF(bf_plain)(&p[0], &q[0]);
            for (size_t j = 1; j < m; j++)
                NF(bf_dif)(&p[j], &q[j], &T[j]);
        }
    }
    if (bl >= 1) {
        for (size_t i = 0; i < n; i += 2)
            NF(bf_plain)(&x[i], &x[i + 1]);
    }
}

static void NF(dit_local)(ZK_F *x, unsigned bl, const ZK_F **tw)
{
    size_t n = (size_t)1 << bl;
    if (bl >= 1) {
        for (size_t i = 0; i < n; i += 2)
            NF(bf_plain)(&x[i], &x[i + 1]);
    }
    for (unsigned s = 1; s < bl; s++) {
        size_t m = (size_t)1 << s;
        const ZK_F *T = tw[s];
        for (size_t base = 0; base < n; base += 2 * m) {
            ZK_F *p = x + base, *q = p + m;
            NF(bf_plain)(&p[0], &q[0]);
            for (size_t j = 1; j < m; j++)
                NF(bf_dit)(&p[j], &q[j], &T[j]);
        }
    }
}

static void NF(dif_blocks)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    for (size_t k = b; k < e; k++)
        NF(dif_local)(c->x + (k << c->bl), c->bl, c->tw);
}

static void NF(dit_blocks)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    for (size_t k = b; k < e; k++)
        NF(dit_local)(c->x + (k << c->bl), c->bl, c->tw);
}

/* Block log: blocks fit in cache; with threads (log_n >= NTT_PAR_MIN_LOG),
 * at least 8 blocks. */
static unsigned NF(block_log)(unsigned log_n, unsigned nthreads)
{
    unsigned bl = log_n < NTT_BLOCK_LOG ? log_n : NTT_BLOCK_LOG;
    if (nthreads > 1 && bl > log_n - 3)
        bl = log_n - 3;
    return bl;
}

static void NF(dif)(struct NF(ntt_ctx) *c, unsigned nthreads)
{
    size_t n = (size_t)1 << c->log_n;
    c->bl = NF(block_log)(c->log_n, nthreads);
    for (unsigned s = c->log_n; s-- > c->bl;) {
        c->s = s;
        zk_parallel_for(nthreads, n / 2, NTT_GRAIN, NF(dif_stage), c);
    }
    zk_parallel_for(nthreads, n >> c->bl, 1, NF(dif_blocks), c);
}

static void NF(dit)(struct NF(ntt_ctx) *c, unsigned nthreads)
{
    size_t n = (size_t)1 << c->log_n;
    c->bl = NF(block_log)(c->log_n, nthreads);
    zk_parallel_for(nthreads, n >> c->bl, 1, NF(dit_blocks), c);
    for (unsigned s = c->bl; s < c->log_n; s++) {
        c->s = s;
        zk_parallel_for(nthreads, n / 2, NTT_GRAIN, NF(dit_stage), c);
    }
}

/* ---- permutations and scaling passes ---------------------------------------- */

static inline void NF(swap)(ZK_F *a, ZK_F *b)
{
    ZK_F t = *a;
    *a = *b;
    *b = t;
}

/* Bit-reversal permutation, tiles of 2^BR_A x 2^BR_A: task = middle bits. */
static void NF(bitrev_tiles)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    unsigned L = c->log_n, mb = L - 2 * NTT_BR_A;
    const size_t A = (size_t)1 << NTT_BR_A;
    for (size_t mid = b; mid < e; mid++) {
        size_t rm = ntt_bitrev(mid, mb);
        if (rm < mid)
            continue;
        for (size_t hi = 0; hi < A; hi++) {
            size_t rhi = ntt_bitrev(hi, NTT_BR_A);
            ZK_F *row = c->x + ((hi << (L - NTT_BR_A)) | (mid << NTT_BR_A));
            ZK_F *col = c->x + ((rm << NTT_BR_A) | rhi);
            for (size_t lo = 0; lo < A; lo++) {
                size_t roff = ntt_bitrev(lo, NTT_BR_A) << (L - NTT_BR_A);
                if (rm == mid && (hi << (L - NTT_BR_A) | lo) >= (roff | rhi))
                    continue;          /* diagonal tile: swap each pair once */
                NF(swap)(&row[lo], &col[roff]);
            }
        }
    }
}

static void NF(bitrev)(struct NF(ntt_ctx) *c, unsigned nthreads)
{
    unsigned L = c->log_n;
    size_t n = (size_t)1 << L;
    if (L < 2 * NTT_BR_A + 2) {
        for (size_t i = 0; i < n; i++) {
            size_t j = ntt_bitrev(i, L);
            if (i < j)
                NF(swap)(&c->x[i], &c->x[j]);
        }
        return;
    }
    zk_parallel_for(nthreads, (size_t)1 << (L - 2 * NTT_BR_A), 16, NF(bitrev_tiles), c);
}

/* x[k] *= c0 * u^k (natural order), pairs [b, e). */
static void NF(scale_pow)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    ZK_F f;
    limb_t eb = b;
    NF(pow)(&f, &c->u, &eb, 64);
    NF(mul)(&f, &f, &c->c0);
    for (size_t k = b; k < e; k++) {
        NF(mul)(&c->x[k], &c->x[k], &f);
        NF(mul)(&f, &f, &c->u);
    }
}

/*
 * Inverse finish on natural-order forward DFT Y: x[i] = c0 u^i Y[-i mod n].
 * Task i in [0, n/2) handles the pair (i, n-i); i = 0 also handles n/2.
 */
static void NF(scale_rev)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    size_t n = (size_t)1 << c->log_n;
    ZK_F p = c->c0, q = c->c0, t;
    if (c->has_u) {
        limb_t eb = b, en = n - b;
        NF(pow)(&t, &c->u, &eb, 64);
        NF(mul)(&p, &p, &t);                  /* c0 u^b */
        NF(pow)(&t, &c->u, &en, 64);
        NF(mul)(&q, &q, &t);                  /* c0 u^(n-b) */
    }
    for (size_t i = b; i < e; i++) {
        if (i == 0) {
            NF(mul)(&c->x[0], &c->x[0], &c->c0);
            if (n > 1) {                      /* middle element: c0 u^(n/2) */
                limb_t eh = n / 2;
                ZK_F h;
                NF(pow)(&h, &c->u, &eh, 64);
                NF(mul)(&h, &h, &c->c0);
                NF(mul)(&c->x[n / 2], &c->x[n / 2], &h);
            }
        } else {
            ZK_F a = c->x[i];
            NF(mul)(&c->x[i], &c->x[n - i], &p);
            NF(mul)(&c->x[n - i], &a, &q);
        }
        if (c->has_u) {
            NF(mul)(&p, &p, &c->u);
            NF(mul)(&q, &q, &c->uinv);
        }
    }
}

/*
 * Odd-coset middle step, bit-reversed order: position j holds coefficient
 * k = bitrev(j) once it gets Y[f(j)], f(j) = j ^ (2^floor(log2 j) - 1),
 * times n^-1 g^k = hi[j >> lo_bits] * lo[j & mask].
 */
static void NF(odd_swap)(void *arg, size_t b, size_t e)
{
    struct NF(ntt_ctx) *c = arg;
    size_t mask = ((size_t)1 << c->lo_bits) - 1;
    for (size_t j = b; j < e; j++) {
        size_t f = j < 2 ? j : j ^ (((size_t)1 << (63 - __builtin_clzll(j))) - 1);
        if (f < j)
            continue;
        ZK_F sj;
        NF(mul)(&sj, &c->hi[j >> c->lo_bits], &c->lo[j & mask]);
        if (f == j) {
            NF(mul)(&c->x[j], &c->x[j], &sj);
        } else {
            ZK_F sf, a = c->x[j];
            NF(mul)(&sf, &c->hi[f >> c->lo_bits], &c->lo[f & mask]);
            NF(mul)(&c->x[j], &c->x[f], &sj);
            NF(mul)(&c->x[f], &a, &sf);
        }
    }
}

/* ---- exported transforms ---------------------------------------------------- */

static int NF(ntt_impl)(ZK_F *data, unsigned log_n, int inverse,
                        const ZK_F *shift, unsigned nthreads)
{
    const ZK_F *tw[ZK_NTT_S];
    struct NF(ntt_ctx) c = { .x = data, .log_n = log_n, .tw = tw };
    size_t n;
    int r;

    if (!data)
        return ZK_EBADPARAMS;
    if (log_n > ZK_NTT_S)
        return ZK_EDOMAIN;
    if (inverse && shift && NF(is_zero)(shift))
        return ZK_EBADPARAMS;
    if (nthreads == 0)
        nthreads = zk_nthreads_default();
    if (log_n < NTT_PAR_MIN_LOG)
        nthreads = 1;
    if ((r = NF(ntt_levels)(log_n, tw, nthreads)))
        return r;
    n = (size_t)1 << log_n;

    if (!inverse && shift) {
        NF(one)(&c.c0);
        c.u = *shift;
        zk_parallel_for(nthreads, n, NTT_GRAIN, NF(scale_pow), &c);
    }
    NF(dif)(&c, nthreads);
    NF(bitrev)(&c, nthreads);
    if (inverse) {
        NF(from_u64)(&c.c0, (uint64_t)n);
        NF(inv)(&c.c0, &c.c0);
        if (shift) {
            c.has_u = 1;
            c.uinv = *shift;
            NF(inv)(&c.u, shift);
        } else {
            NF(one)(&c.u);
        }
        zk_parallel_for(nthreads, n > 1 ? n / 2 : 1, NTT_GRAIN, NF(scale_rev), &c);
    }
    return 0;
}

int NF(ntt)(ZK_F *data, unsigned log_n, int inverse, unsigned nthreads)
{
    return NF(ntt_impl)(data, log_n, inverse, NULL, nthreads);
}

int NF(ntt_coset)(ZK_F *data, unsigned log_n, int inverse, const ZK_F *shift,
                  unsigned nthreads)
{
    if (!shift)
        return ZK_EBADPARAMS;
    return NF(ntt_impl)(data, log_n, inverse, shift, nthreads);
}

/* hi[t] = n^-1 g^bitrev_hb(t), lo[t] = g^(bitrev_a(t) << hb), hb = L - a. */
static void NF(odd_tables)(ZK_F *hi, ZK_F *lo, unsigned L, unsigned a,
                           const ZK_F *g)
{
    unsigned hb = L - a;
    ZK_F p, g2 = *g;
    NF(from_u64)(&p, (uint64_t)1 << L);
    NF(inv)(&p, &p);
    for (size_t t = 0; t < ((size_t)1 << hb); t++) {
        hi[ntt_bitrev(t, hb)] = p;
        NF(mul)(&p, &p, g);
    }
    for (unsigned i = 0; i < hb; i++)
        NF(sqr)(&g2, &g2);                    /* g^(2^hb) */
    NF(one)(&p);
    for (size_t t = 0; t < ((size_t)1 << a); t++) {
        lo[ntt_bitrev(t, a)] = p;
        NF(mul)(&p, &p, &g2);
    }
}

int NF(ntt_to_odd_coset)(ZK_F *data, unsigned log_n, unsigned nthreads)
{
    const ZK_F *tw[ZK_NTT_S];
    struct NF(ntt_ctx) c = { .x = data, .log_n = log_n, .tw = tw };
    ZK_F *tab = NULL;
    unsigned a = log_n / 2;
    int r;

    if (!data)
        return ZK_EBADPARAMS;
    if (log_n >= ZK_NTT_S)
        return ZK_EDOMAIN;
    if (nthreads == 0)
        nthreads = zk_nthreads_default();
    if (log_n < NTT_PAR_MIN_LOG)
        nthreads = 1;
    if ((r = NF(ntt_levels)(log_n, tw, nthreads)))
        return r;
    tab = malloc(sizeof(ZK_F) * (((size_t)1 << (log_n - a)) + ((size_t)1 << a)));
    if (!tab)
        return -ENOMEM;
    NF(odd_tables)(tab, tab + ((size_t)1 << (log_n - a)), log_n, a,
                   &NF(ntt_roots)()[log_n + 1]);
    c.hi = tab;
    c.lo = tab + ((size_t)1 << (log_n - a));
    c.lo_bits = a;

    NF(dif)(&c, nthreads);
    zk_parallel_for(nthreads, (size_t)1 << log_n, NTT_GRAIN, NF(odd_swap), &c);
    NF(dit)(&c, nthreads);
    free(tab);
    return 0;
}

#undef NT_NL
#undef NF

/*
 * ntt_tmpl.h -- the NTT for one scalar field, included once per field by
 * ntt.c, each time right after the one line that names its parameters
 * (undefined at the end of this file):
 *   #define ZK_NTT_TMPL (bn254_fr, BN254_FR)
 * that is: the field (type and functions of ff/field_tmpl.h, the prefix of
 * the functions made here) and the prefix of its two-adicity constant
 * (BN254_FR_TWO_ADICITY, zk/ntt.h: the two-adicity of r - 1).
 *
 * Generated names: the functions of zk/ntt.h
 *   bn254_fr_root_of_unity bn254_fr_ntt_precompute bn254_fr_ntt
 *   bn254_fr_ntt_coset bn254_fr_ntt_to_odd_coset
 *   bls381_fr_root_of_unity bls381_fr_ntt_precompute bls381_fr_ntt
 *   bls381_fr_ntt_coset bls381_fr_ntt_to_odd_coset
 * and the static ones, the types included
 *   bn254_fr_ntt_cache bn254_fr_ntt_cache_ bn254_fr_ntt_roots_locked
 *   bn254_fr_ntt_roots bn254_fr_level_job bn254_fr_level_fill
 *   bn254_fr_ntt_levels bn254_fr_bf_dif bn254_fr_bf_dit bn254_fr_bf_plain
 *   bn254_fr_ntt_ctx bn254_fr_dif_stage bn254_fr_dit_stage bn254_fr_dif_local
 *   bn254_fr_dit_local bn254_fr_dif_blocks bn254_fr_dit_blocks
 *   bn254_fr_block_log bn254_fr_dif bn254_fr_dit bn254_fr_swap
 *   bn254_fr_bitrev_tiles bn254_fr_bitrev bn254_fr_scale_pow
 *   bn254_fr_scale_rev bn254_fr_odd_swap bn254_fr_ntt_impl bn254_fr_odd_tables
 *   bls381_fr_ntt_cache bls381_fr_ntt_cache_ bls381_fr_ntt_roots_locked
 *   bls381_fr_ntt_roots bls381_fr_level_job bls381_fr_level_fill
 *   bls381_fr_ntt_levels bls381_fr_bf_dif bls381_fr_bf_dit bls381_fr_bf_plain
 *   bls381_fr_ntt_ctx bls381_fr_dif_stage bls381_fr_dit_stage
 *   bls381_fr_dif_local bls381_fr_dit_local bls381_fr_dif_blocks
 *   bls381_fr_dit_blocks bls381_fr_block_log bls381_fr_dif bls381_fr_dit
 *   bls381_fr_swap bls381_fr_bitrev_tiles bls381_fr_bitrev bls381_fr_scale_pow
 *   bls381_fr_scale_rev bls381_fr_odd_swap bls381_fr_ntt_impl
 *   bls381_fr_odd_tables
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
#define FR_T            ZK_ARG(1, ZK_NTT_TMPL)                 /* bn254_fr */
#define FR_FN(name)     ZK_CAT(FR_T, name)                     /* FR_FN(ntt): bn254_fr_ntt */
#define NTT_TWO_ADICITY ZK_CAT(ZK_ARG(2, ZK_NTT_TMPL), TWO_ADICITY) /* BN254_FR_TWO_ADICITY */
#define FR_LIMBS        (sizeof(FR_T) / sizeof(limb_t))

struct FR_FN(ntt_cache) {
    pthread_mutex_t lock;
    atomic_int roots_ready;               /* roots[] written (release/acquire) */
    FR_T roots[NTT_TWO_ADICITY + 1];             /* roots[k] = w_k */
    _Atomic(FR_T *) level[NTT_TWO_ADICITY];      /* see the header comment */
};

static struct FR_FN(ntt_cache) FR_FN(ntt_cache_) = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* w_S = 5^((r-1)/2^S), then w_k = w_(k+1)^2.  Caller holds the lock. */
static void FR_FN(ntt_roots_locked)(void)
{
    struct FR_FN(ntt_cache) *c = &FR_FN(ntt_cache_);
    limb_t t[FR_LIMBS];
    FR_T five;

    for (size_t i = 0; i < FR_LIMBS; i++)
        t[i] = FR_FN(P_)[i];
    t[0] -= 1;                                    /* r odd: no borrow */
    for (size_t i = 0; i < FR_LIMBS; i++)            /* t = (r-1) >> S */
        t[i] = (t[i] >> NTT_TWO_ADICITY) |
               (i + 1 < FR_LIMBS ? t[i + 1] << (64 - NTT_TWO_ADICITY) : 0);
    FR_FN(from_u64)(&five, 5);
    FR_FN(pow)(&c->roots[NTT_TWO_ADICITY], &five, t, 64 * FR_LIMBS);
    for (unsigned k = NTT_TWO_ADICITY; k-- > 0;)
        FR_FN(sqr)(&c->roots[k], &c->roots[k + 1]);
}

static const FR_T *FR_FN(ntt_roots)(void)
{
    struct FR_FN(ntt_cache) *c = &FR_FN(ntt_cache_);
    /* acquire: pairs with the release below, makes roots[] visible */
    if (!atomic_load_explicit(&c->roots_ready, memory_order_acquire)) {
        pthread_mutex_lock(&c->lock);
        if (!atomic_load_explicit(&c->roots_ready, memory_order_relaxed)) {
            FR_FN(ntt_roots_locked)();
            atomic_store_explicit(&c->roots_ready, 1, memory_order_release);
        }
        pthread_mutex_unlock(&c->lock);
    }
    return c->roots;
}

void FR_FN(root_of_unity)(FR_T *ret, unsigned k)
{
    if (k > NTT_TWO_ADICITY) {
        FR_FN(zero)(ret);
        return;
    }
    *ret = FR_FN(ntt_roots)()[k];
}

struct FR_FN(level_job) {
    FR_T *t;
    const FR_T *lo, *w;
};

static void FR_FN(level_fill)(void *arg, size_t b, size_t e)
{
    struct FR_FN(level_job) *jb = arg;
    for (size_t j = b; j < e; j++) {
        jb->t[2 * j] = jb->lo[j];
        FR_FN(mul)(&jb->t[2 * j + 1], &jb->lo[j], jb->w);
    }
}

/*
 * Makes levels 0 .. log_n-1 exist (building missing ones on nthreads
 * threads) and copies their pointers into tw[].  0 or -ENOMEM.
 */
static int FR_FN(ntt_levels)(unsigned log_n, const FR_T **tw, unsigned nthreads)
{
    struct FR_FN(ntt_cache) *c = &FR_FN(ntt_cache_);
    const FR_T *roots = FR_FN(ntt_roots)();
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
        FR_T *t = aligned_alloc(64, sizeof(FR_T) << (k < 1 ? 1 : k));
        if (!t) {
            r = -ENOMEM;
            break;
        }
        if (k == 0) {
            FR_FN(one)(&t[0]);
        } else {   /* w_(2^(k+1))^(2j) = w_(2^k)^j: even entries from level k-1 */
            struct FR_FN(level_job) job = {
                t, atomic_load_explicit(&c->level[k - 1], memory_order_relaxed),
                &roots[k + 1]
            };
            zk_parallel_for(nthreads, (size_t)1 << (k - 1), 4096, FR_FN(level_fill), &job);
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

int FR_FN(ntt_precompute)(unsigned log_n, unsigned nthreads)
{
    const FR_T *tw[NTT_TWO_ADICITY];
    if (log_n > NTT_TWO_ADICITY)
        return ZK_EDOMAIN;
    return FR_FN(ntt_levels)(log_n, tw, nthreads ? nthreads : zk_nthreads_default());
}

/* ---- butterflies ------------------------------------------------------------ */

static inline void FR_FN(bf_dif)(FR_T *a, FR_T *b, const FR_T *w)
{
    FR_T d;
    FR_FN(sub)(&d, a, b);
    FR_FN(add)(a, a, b);
    FR_FN(mul)(b, &d, w);
}

static inline void FR_FN(bf_dit)(FR_T *a, FR_T *b, const FR_T *w)
{
    FR_T t;
    FR_FN(mul)(&t, b, w);
    FR_FN(sub)(b, a, &t);
    FR_FN(add)(a, a, &t);
}

static inline void FR_FN(bf_plain)(FR_T *a, FR_T *b)
{
    FR_T d;
    FR_FN(sub)(&d, a, b);
    FR_FN(add)(a, a, b);
    *b = d;
}

/* ---- transform context and stage kernels ------------------------------------ */

struct FR_FN(ntt_ctx) {
    FR_T *x;
    unsigned log_n, s, bl;           /* s: current global stage, bl: block log */
    const FR_T **tw;
    /* scaling passes */
    FR_T c0, u, uinv;                /* constant, ratio, 1/ratio */
    int has_u;
    const FR_T *hi, *lo;             /* odd-coset factor tables */
    unsigned lo_bits;
};

/* One global stage (half-size m = 2^s) for butterflies [b, e) of n/2. */
static void FR_FN(dif_stage)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    unsigned s = c->s;
    size_t m = (size_t)1 << s;
    const FR_T *T = c->tw[s];
    for (size_t i = b; i < e;) {
        size_t j = i & (m - 1), run = m - j;
        if (run > e - i)
            run = e - i;
        FR_T *p = c->x + ((i >> s) << (s + 1)) + j, *q = p + m;
        for (size_t t = 0; t < run; t++)
            FR_FN(bf_dif)(&p[t], &q[t], &T[j + t]);
        i += run;
    }
}

static void FR_FN(dit_stage)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    unsigned s = c->s;
    size_t m = (size_t)1 << s;
    const FR_T *T = c->tw[s];
    for (size_t i = b; i < e;) {
        size_t j = i & (m - 1), run = m - j;
        if (run > e - i)
            run = e - i;
        FR_T *p = c->x + ((i >> s) << (s + 1)) + j, *q = p + m;
        for (size_t t = 0; t < run; t++)
            FR_FN(bf_dit)(&p[t], &q[t], &T[j + t]);
        i += run;
    }
}

/* All stages m = 2^(bl-1) .. 1 of the block x[0 .. 2^bl). */
static void FR_FN(dif_local)(FR_T *x, unsigned bl, const FR_T **tw)
{
    size_t n = (size_t)1 << bl;
    for (unsigned s = bl; s-- > 1;) {
        size_t m = (size_t)1 << s;
        const FR_T *T = tw[s];
        for (size_t base = 0; base < n; base += 2 * m) {
            FR_T *p = x + base, *q = p + m;
            FR_FN(bf_plain)(&p[0], &q[0]);
            for (size_t j = 1; j < m; j++)
                FR_FN(bf_dif)(&p[j], &q[j], &T[j]);
        }
    }
    if (bl >= 1) {
        for (size_t i = 0; i < n; i += 2)
            FR_FN(bf_plain)(&x[i], &x[i + 1]);
    }
}

static void FR_FN(dit_local)(FR_T *x, unsigned bl, const FR_T **tw)
{
    size_t n = (size_t)1 << bl;
    if (bl >= 1) {
        for (size_t i = 0; i < n; i += 2)
            FR_FN(bf_plain)(&x[i], &x[i + 1]);
    }
    for (unsigned s = 1; s < bl; s++) {
        size_t m = (size_t)1 << s;
        const FR_T *T = tw[s];
        for (size_t base = 0; base < n; base += 2 * m) {
            FR_T *p = x + base, *q = p + m;
            FR_FN(bf_plain)(&p[0], &q[0]);
            for (size_t j = 1; j < m; j++)
                FR_FN(bf_dit)(&p[j], &q[j], &T[j]);
        }
    }
}

static void FR_FN(dif_blocks)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    for (size_t k = b; k < e; k++)
        FR_FN(dif_local)(c->x + (k << c->bl), c->bl, c->tw);
}

static void FR_FN(dit_blocks)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    for (size_t k = b; k < e; k++)
        FR_FN(dit_local)(c->x + (k << c->bl), c->bl, c->tw);
}

/* Block log: blocks fit in cache; with threads (log_n >= NTT_PAR_MIN_LOG),
 * at least 8 blocks. */
static unsigned FR_FN(block_log)(unsigned log_n, unsigned nthreads)
{
    unsigned bl = log_n < NTT_BLOCK_LOG ? log_n : NTT_BLOCK_LOG;
    if (nthreads > 1 && bl > log_n - 3)
        bl = log_n - 3;
    return bl;
}

static void FR_FN(dif)(struct FR_FN(ntt_ctx) *c, unsigned nthreads)
{
    size_t n = (size_t)1 << c->log_n;
    c->bl = FR_FN(block_log)(c->log_n, nthreads);
    for (unsigned s = c->log_n; s-- > c->bl;) {
        c->s = s;
        zk_parallel_for(nthreads, n / 2, NTT_GRAIN, FR_FN(dif_stage), c);
    }
    zk_parallel_for(nthreads, n >> c->bl, 1, FR_FN(dif_blocks), c);
}

static void FR_FN(dit)(struct FR_FN(ntt_ctx) *c, unsigned nthreads)
{
    size_t n = (size_t)1 << c->log_n;
    c->bl = FR_FN(block_log)(c->log_n, nthreads);
    zk_parallel_for(nthreads, n >> c->bl, 1, FR_FN(dit_blocks), c);
    for (unsigned s = c->bl; s < c->log_n; s++) {
        c->s = s;
        zk_parallel_for(nthreads, n / 2, NTT_GRAIN, FR_FN(dit_stage), c);
    }
}

/* ---- permutations and scaling passes ---------------------------------------- */

static inline void FR_FN(swap)(FR_T *a, FR_T *b)
{
    FR_T t = *a;
    *a = *b;
    *b = t;
}

/* Bit-reversal permutation, tiles of 2^BR_A x 2^BR_A: task = middle bits. */
static void FR_FN(bitrev_tiles)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    unsigned L = c->log_n, mb = L - 2 * NTT_BR_A;
    const size_t A = (size_t)1 << NTT_BR_A;
    for (size_t mid = b; mid < e; mid++) {
        size_t rm = ntt_bitrev(mid, mb);
        if (rm < mid)
            continue;
        for (size_t hi = 0; hi < A; hi++) {
            size_t rhi = ntt_bitrev(hi, NTT_BR_A);
            FR_T *row = c->x + ((hi << (L - NTT_BR_A)) | (mid << NTT_BR_A));
            FR_T *col = c->x + ((rm << NTT_BR_A) | rhi);
            for (size_t lo = 0; lo < A; lo++) {
                size_t roff = ntt_bitrev(lo, NTT_BR_A) << (L - NTT_BR_A);
                if (rm == mid && (hi << (L - NTT_BR_A) | lo) >= (roff | rhi))
                    continue;          /* diagonal tile: swap each pair once */
                FR_FN(swap)(&row[lo], &col[roff]);
            }
        }
    }
}

static void FR_FN(bitrev)(struct FR_FN(ntt_ctx) *c, unsigned nthreads)
{
    unsigned L = c->log_n;
    size_t n = (size_t)1 << L;
    if (L < 2 * NTT_BR_A + 2) {
        for (size_t i = 0; i < n; i++) {
            size_t j = ntt_bitrev(i, L);
            if (i < j)
                FR_FN(swap)(&c->x[i], &c->x[j]);
        }
        return;
    }
    zk_parallel_for(nthreads, (size_t)1 << (L - 2 * NTT_BR_A), 16, FR_FN(bitrev_tiles), c);
}

/* x[k] *= c0 * u^k (natural order), pairs [b, e). */
static void FR_FN(scale_pow)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    FR_T f;
    limb_t eb = b;
    FR_FN(pow)(&f, &c->u, &eb, 64);
    FR_FN(mul)(&f, &f, &c->c0);
    for (size_t k = b; k < e; k++) {
        FR_FN(mul)(&c->x[k], &c->x[k], &f);
        FR_FN(mul)(&f, &f, &c->u);
    }
}

/*
 * Inverse finish on natural-order forward DFT Y: x[i] = c0 u^i Y[-i mod n].
 * Task i in [0, n/2) handles the pair (i, n-i); i = 0 also handles n/2.
 */
static void FR_FN(scale_rev)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    size_t n = (size_t)1 << c->log_n;
    FR_T p = c->c0, q = c->c0, t;
    if (c->has_u) {
        limb_t eb = b, en = n - b;
        FR_FN(pow)(&t, &c->u, &eb, 64);
        FR_FN(mul)(&p, &p, &t);                  /* c0 u^b */
        FR_FN(pow)(&t, &c->u, &en, 64);
        FR_FN(mul)(&q, &q, &t);                  /* c0 u^(n-b) */
    }
    for (size_t i = b; i < e; i++) {
        if (i == 0) {
            FR_FN(mul)(&c->x[0], &c->x[0], &c->c0);
            if (n > 1) {                      /* middle element: c0 u^(n/2) */
                limb_t eh = n / 2;
                FR_T h;
                FR_FN(pow)(&h, &c->u, &eh, 64);
                FR_FN(mul)(&h, &h, &c->c0);
                FR_FN(mul)(&c->x[n / 2], &c->x[n / 2], &h);
            }
        } else {
            FR_T a = c->x[i];
            FR_FN(mul)(&c->x[i], &c->x[n - i], &p);
            FR_FN(mul)(&c->x[n - i], &a, &q);
        }
        if (c->has_u) {
            FR_FN(mul)(&p, &p, &c->u);
            FR_FN(mul)(&q, &q, &c->uinv);
        }
    }
}

/*
 * Odd-coset middle step, bit-reversed order: position j holds coefficient
 * k = bitrev(j) once it gets Y[f(j)], f(j) = j ^ (2^floor(log2 j) - 1),
 * times n^-1 g^k = hi[j >> lo_bits] * lo[j & mask].
 */
static void FR_FN(odd_swap)(void *arg, size_t b, size_t e)
{
    struct FR_FN(ntt_ctx) *c = arg;
    size_t mask = ((size_t)1 << c->lo_bits) - 1;
    for (size_t j = b; j < e; j++) {
        size_t f = j < 2 ? j : j ^ (((size_t)1 << (63 - __builtin_clzll(j))) - 1);
        if (f < j)
            continue;
        FR_T sj;
        FR_FN(mul)(&sj, &c->hi[j >> c->lo_bits], &c->lo[j & mask]);
        if (f == j) {
            FR_FN(mul)(&c->x[j], &c->x[j], &sj);
        } else {
            FR_T sf, a = c->x[j];
            FR_FN(mul)(&sf, &c->hi[f >> c->lo_bits], &c->lo[f & mask]);
            FR_FN(mul)(&c->x[j], &c->x[f], &sj);
            FR_FN(mul)(&c->x[f], &a, &sf);
        }
    }
}

/* ---- exported transforms ---------------------------------------------------- */

static int FR_FN(ntt_impl)(FR_T *data, unsigned log_n, int inverse,
                        const FR_T *shift, unsigned nthreads)
{
    const FR_T *tw[NTT_TWO_ADICITY];
    struct FR_FN(ntt_ctx) c = { .x = data, .log_n = log_n, .tw = tw };
    size_t n;
    int r;

    if (!data)
        return ZK_EBADPARAMS;
    if (log_n > NTT_TWO_ADICITY)
        return ZK_EDOMAIN;
    if (inverse && shift && FR_FN(is_zero)(shift))
        return ZK_EBADPARAMS;
    if (nthreads == 0)
        nthreads = zk_nthreads_default();
    if (log_n < NTT_PAR_MIN_LOG)
        nthreads = 1;
    if ((r = FR_FN(ntt_levels)(log_n, tw, nthreads)))
        return r;
    n = (size_t)1 << log_n;

    if (!inverse && shift) {
        FR_FN(one)(&c.c0);
        c.u = *shift;
        zk_parallel_for(nthreads, n, NTT_GRAIN, FR_FN(scale_pow), &c);
    }
    FR_FN(dif)(&c, nthreads);
    FR_FN(bitrev)(&c, nthreads);
    if (inverse) {
        FR_FN(from_u64)(&c.c0, (uint64_t)n);
        FR_FN(inv)(&c.c0, &c.c0);
        if (shift) {
            c.has_u = 1;
            c.uinv = *shift;
            FR_FN(inv)(&c.u, shift);
        } else {
            FR_FN(one)(&c.u);
        }
        zk_parallel_for(nthreads, n > 1 ? n / 2 : 1, NTT_GRAIN, FR_FN(scale_rev), &c);
    }
    return 0;
}

int FR_FN(ntt)(FR_T *data, unsigned log_n, int inverse, unsigned nthreads)
{
    return FR_FN(ntt_impl)(data, log_n, inverse, NULL, nthreads);
}

int FR_FN(ntt_coset)(FR_T *data, unsigned log_n, int inverse, const FR_T *shift,
                  unsigned nthreads)
{
    if (!shift)
        return ZK_EBADPARAMS;
    return FR_FN(ntt_impl)(data, log_n, inverse, shift, nthreads);
}

/* hi[t] = n^-1 g^bitrev_hb(t), lo[t] = g^(bitrev_a(t) << hb), hb = L - a. */
static void FR_FN(odd_tables)(FR_T *hi, FR_T *lo, unsigned L, unsigned a,
                           const FR_T *g)
{
    unsigned hb = L - a;
    FR_T p, g2 = *g;
    FR_FN(from_u64)(&p, (uint64_t)1 << L);
    FR_FN(inv)(&p, &p);
    for (size_t t = 0; t < ((size_t)1 << hb); t++) {
        hi[ntt_bitrev(t, hb)] = p;
        FR_FN(mul)(&p, &p, g);
    }
    for (unsigned i = 0; i < hb; i++)
        FR_FN(sqr)(&g2, &g2);                    /* g^(2^hb) */
    FR_FN(one)(&p);
    for (size_t t = 0; t < ((size_t)1 << a); t++) {
        lo[ntt_bitrev(t, a)] = p;
        FR_FN(mul)(&p, &p, &g2);
    }
}

int FR_FN(ntt_to_odd_coset)(FR_T *data, unsigned log_n, unsigned nthreads)
{
    const FR_T *tw[NTT_TWO_ADICITY];
    struct FR_FN(ntt_ctx) c = { .x = data, .log_n = log_n, .tw = tw };
    FR_T *tab = NULL;
    unsigned a = log_n / 2;
    int r;

    if (!data)
        return ZK_EBADPARAMS;
    if (log_n >= NTT_TWO_ADICITY)
        return ZK_EDOMAIN;
    if (nthreads == 0)
        nthreads = zk_nthreads_default();
    if (log_n < NTT_PAR_MIN_LOG)
        nthreads = 1;
    if ((r = FR_FN(ntt_levels)(log_n, tw, nthreads)))
        return r;
    tab = malloc(sizeof(FR_T) * (((size_t)1 << (log_n - a)) + ((size_t)1 << a)));
    if (!tab)
        return -ENOMEM;
    FR_FN(odd_tables)(tab, tab + ((size_t)1 << (log_n - a)), log_n, a,
                   &FR_FN(ntt_roots)()[log_n + 1]);
    c.hi = tab;
    c.lo = tab + ((size_t)1 << (log_n - a));
    c.lo_bits = a;

    FR_FN(dif)(&c, nthreads);
    zk_parallel_for(nthreads, (size_t)1 << log_n, NTT_GRAIN, FR_FN(odd_swap), &c);
    FR_FN(dit)(&c, nthreads);
    free(tab);
    return 0;
}

#undef FR_T
#undef FR_FN
#undef NTT_TWO_ADICITY
#undef FR_LIMBS
#undef ZK_NTT_TMPL

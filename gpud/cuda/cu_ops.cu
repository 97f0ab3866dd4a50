/*
 * cu_ops.cu -- the GPU kernels: Fr NTT (radix 2, the first up to 10 stages
 * of each transform fused in shared memory), the H step, and the G1 MSM
 * (Pippenger with signed digits: digits of all windows, bucket sort with
 * CUB, bucket accumulation in chunks of equal length whatever the buckets'
 * sizes, the weighted bucket sums on the device and the final combination
 * of the windows on the host), for both curves; plus the
 * host-memory entry points zk_cuda_ntt and zk_cuda_msm_g1 of zkcuda.h.
 *
 * The field and curve arithmetic is common/'s own (ZK_HD functions compiled
 * for the device), so every kernel has its CPU twin built from the same
 * code: bn254_fr_ntt & co. (common/ntt) and bn254_g1_msm & co. (common/msm).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "cu_ops.cuh"
#include "msm/digit.h"
#include "zk/ntt.h"

/* ---- powers: two-level tables ------------------------------------------- */

/* x^k for k < m as hi[k >> 10] * lo[k & 1023]: the host computes the 1024
 * low powers and the m / 1024 high ones (x^(1024 j)). */
#define CU_POW_LO 1024u

/* Fills host tables for x and a factor f: lo[t] = x^t (t < 1024), hi[j] =
 * f x^(1024 j), j < nhi (f NULL: 1), so that lo[k & 1023] hi[k >> 10] =
 * f x^k. */
template <class C>
static void cu_pow_host(typename C::Fr *lo, typename C::Fr *hi, const typename C::Fr *x,
                        const typename C::Fr *f, size_t nhi)
{
    typename C::Fr acc;
    C::fr_one(&acc);
    for (unsigned t = 0; t < CU_POW_LO; t++) {
        lo[t] = acc;
        C::fr_mul_h(&acc, &acc, x);
    }
    /* acc = x^1024 */
    typename C::Fr h;
    C::fr_one(&h);
    if (f)
        h = *f;
    for (size_t j = 0; j < nhi; j++) {
        hi[j] = h;
        C::fr_mul_h(&h, &h, &acc);
    }
}

/* Device tables of f x^k, k < m (f NULL: 1; cudaMallocAsync on st; free
 * with cu_pow_free, also after an error). */
template <class C>
static int cu_pow_make(cu_pow_tab<C> *t, const typename C::Fr *x, const typename C::Fr *f,
                       size_t m, cudaStream_t st)
{
    typedef typename C::Fr Fr;
    int rc = 0;
    size_t nhi = (m + CU_POW_LO - 1) / CU_POW_LO;
    Fr *h = (Fr *)malloc((CU_POW_LO + nhi) * sizeof(Fr));
    t->lo = t->hi = NULL;
    if (!h)
        return -ENOMEM;
    cu_pow_host<C>(h, h + CU_POW_LO, x, f, nhi);
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&t->lo, (CU_POW_LO + nhi) * sizeof(Fr), st));
    t->hi = t->lo + CU_POW_LO;
    ZK_CUDA_CHECK(cudaMemcpyAsync(t->lo, h, (CU_POW_LO + nhi) * sizeof(Fr),
                                  cudaMemcpyHostToDevice, st));
    /* the copy reads h asynchronously (pageable memory: staged before the
     * call returns, but be explicit) */
    ZK_CUDA_CHECK(cudaStreamSynchronize(st));
out:
    free(h);
    return rc;
}

template <class C>
static void cu_pow_free(cu_pow_tab<C> *t, cudaStream_t st)
{
    if (t->lo)
        ZK_CUDA_IGNORE(cudaFreeAsync(t->lo, st));
    t->lo = t->hi = NULL;
}

template <class C>
__device__ __forceinline__ void cu_pow_at(typename C::Fr *r, const typename C::Fr *lo,
                                          const typename C::Fr *hi, size_t k)
{
    C::fr_mul(r, &hi[k / CU_POW_LO], &lo[k % CU_POW_LO]);
}

/* out[k] = x^k, k < m */
template <class C>
__global__ void k_pow_fill(typename C::Fr *out, const typename C::Fr *lo,
                           const typename C::Fr *hi, size_t m)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        cu_pow_at<C>(&out[k], lo, hi, k);
}

/* x[k] *= s^k, k < n */
template <class C>
__global__ void k_scale_pow(typename C::Fr *x, const typename C::Fr *lo,
                            const typename C::Fr *hi, size_t n)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        typename C::Fr p;
        cu_pow_at<C>(&p, lo, hi, k);
        C::fr_mul(&x[k], &x[k], &p);
    }
}

/* x[k] *= s */
template <class C>
__global__ void k_scale(typename C::Fr *x, typename C::Fr s, size_t n)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        C::fr_mul(&x[k], &x[k], &s);
}

/* ---- NTT ------------------------------------------------------------------ */

/* In-place bit reversal: thread i swaps x[i] and x[rev(i)] when i < rev(i). */
template <class C>
__global__ void k_bitrev(typename C::Fr *x, unsigned log_n, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    size_t j = (size_t)(__brevll((unsigned long long)i) >> (64 - log_n));
    if (i < j) {
        typename C::Fr t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* One radix-2 DIT butterfly of stage s (span 2^s) on global memory; tw[m] =
 * w_n^m for m < n/2. */
template <class C>
__global__ void k_dit_stage(typename C::Fr *x, const typename C::Fr *tw, unsigned log_n,
                            unsigned s, size_t nbf)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nbf)
        return;
    size_t half = (size_t)1 << s;
    size_t k = j & (half - 1);
    size_t i0 = ((j >> s) << (s + 1)) + k, i1 = i0 + half;
    typename C::Fr t, u = x[i0];
    C::fr_mul(&t, &tw[k << (log_n - 1 - s)], &x[i1]);
    C::fr_sub(&x[i1], &u, &t);
    C::fr_add(&x[i0], &u, &t);
}

/* Stages 0 .. nst-1 of the DIT transform on blocks of 2^nst consecutive
 * elements in shared memory (2^(nst-1) threads per block). */
template <class C>
__global__ void k_dit_shared(typename C::Fr *x, const typename C::Fr *tw, unsigned log_n,
                             unsigned nst)
{
    typedef typename C::Fr Fr;
    ZK_CU_DYN_SMEM(uint64_t, cu_smem);
    Fr *sh = (Fr *)cu_smem;
    size_t base = (size_t)blockIdx.x << nst;
    unsigned t = threadIdx.x;
    sh[t] = x[base + t];
    sh[t + blockDim.x] = x[base + t + blockDim.x];
    for (unsigned s = 0; s < nst; s++) {
        __syncthreads();
        unsigned half = 1u << s;
        unsigned k = t & (half - 1);
        unsigned i0 = ((t >> s) << (s + 1)) + k, i1 = i0 + half;
        Fr a, u = sh[i0];
        C::fr_mul(&a, &tw[(size_t)k << (log_n - 1 - s)], &sh[i1]);
        C::fr_sub(&sh[i1], &u, &a);
        C::fr_add(&sh[i0], &u, &a);
    }
    __syncthreads();
    x[base + t] = sh[t];
    x[base + t + blockDim.x] = sh[t + blockDim.x];
}

template <class C>
int cu_ntt_plan_make(cu_ntt_plan<C> *pl, unsigned log_n, cudaStream_t st)
{
    typedef typename C::Fr Fr;
    int rc = 0;
    size_t n = (size_t)1 << log_n, nbf = n / 2;
    Fr w, winv, nf, g;
    cu_pow_tab<C> pt = { NULL, NULL };
    memset(pl, 0, sizeof *pl);
    if (log_n > 31)
        return ZK_EDOMAIN;
    pl->log_n = log_n;
    C::fr_root(&w, log_n);
    C::fr_inv(&winv, &w);
    C::fr_from_u64(&nf, (uint64_t)n);
    C::fr_inv(&pl->ninv, &nf);
    C::fr_root(&g, log_n + 1);
    if (nbf) {
        const Fr *roots[2] = { &w, &winv };
        for (int i = 0; i < 2; i++) {
            ZK_CUDA_CHECK(cudaMallocAsync((void **)&pl->tw[i], nbf * sizeof(Fr), st));
            if ((rc = cu_pow_make<C>(&pt, roots[i], NULL, nbf, st)))
                goto out;
            ZK_CU_LAUNCH(k_pow_fill<C>, zk_cu_blocks(nbf, ZK_CU_THREADS), ZK_CU_THREADS, 0, st,
                         pl->tw[i], pt.lo, pt.hi, nbf);
            ZK_CUDA_LAUNCHED();
            cu_pow_free<C>(&pt, st);
        }
    }
    /* odd coset: n^-1 g^k, the inverse's scaling folded in */
    rc = cu_pow_make<C>(&pl->coset, &g, &pl->ninv, n, st);
out:
    cu_pow_free<C>(&pt, st);
    if (rc)
        cu_ntt_plan_free<C>(pl, st);
    return rc;
}

template <class C>
void cu_ntt_plan_free(cu_ntt_plan<C> *pl, cudaStream_t st)
{
    for (int i = 0; i < 2; i++)
        if (pl->tw[i])
            ZK_CUDA_IGNORE(cudaFreeAsync(pl->tw[i], st));
    cu_pow_free<C>(&pl->coset, st);
    memset(pl, 0, sizeof *pl);
}

/* Natural-order DIT transform of d with the plan's twiddles (inv: w^-1),
 * no scaling.  Launches only: nothing to allocate, nothing to wait for. */
template <class C>
static int cu_ntt_core(const cu_ntt_plan<C> *pl, typename C::Fr *d, int inv, cudaStream_t st)
{
    typedef typename C::Fr Fr;
    int rc = 0;
    unsigned log_n = pl->log_n;
    size_t n = (size_t)1 << log_n, nbf = n / 2;
    const Fr *tw = pl->tw[inv ? 1 : 0];
    unsigned nst = log_n < 10 ? log_n : 10;
    if (log_n == 0)
        return 0;
    ZK_CU_LAUNCH(k_bitrev<C>, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, d, log_n, n);
    ZK_CUDA_LAUNCHED();
    ZK_CU_LAUNCH(k_dit_shared<C>, (unsigned)(n >> nst), 1u << (nst - 1), sizeof(Fr) << nst, st, d,
                 tw, log_n, nst);
    ZK_CUDA_LAUNCHED();
    for (unsigned s = nst; s < log_n; s++) {
        ZK_CU_LAUNCH(k_dit_stage<C>, zk_cu_blocks(nbf, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, d,
                     tw, log_n, s, nbf);
        ZK_CUDA_LAUNCHED();
    }
out:
    return rc;
}

template <class C>
int cu_ntt_odd_coset(const cu_ntt_plan<C> *pl, typename C::Fr *d, cudaStream_t st)
{
    int rc = 0;
    size_t n = (size_t)1 << pl->log_n;
    if ((rc = cu_ntt_core<C>(pl, d, 1, st)))
        return rc;
    ZK_CU_LAUNCH(k_scale_pow<C>, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, d,
                 pl->coset.lo, pl->coset.hi, n);
    ZK_CUDA_LAUNCHED();
    rc = cu_ntt_core<C>(pl, d, 0, st);
out:
    return rc;
}

template <class C>
int cu_ntt(const cu_ntt_plan<C> *plan, typename C::Fr *d, enum cu_ntt_mode mode,
           const typename C::Fr *shift, cudaStream_t st)
{
    typedef typename C::Fr Fr;
    int rc = 0;
    size_t n = (size_t)1 << plan->log_n;
    Fr sinv;
    const cu_ntt_plan<C> &pl = *plan;
    cu_pow_tab<C> pt = { NULL, NULL };
    switch (mode) {
    case CU_NTT_FORWARD:
        if (shift) {
            if ((rc = cu_pow_make<C>(&pt, shift, NULL, n, st)))
                goto out;
            ZK_CU_LAUNCH(k_scale_pow<C>, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, d,
                         pt.lo, pt.hi, n);
            ZK_CUDA_LAUNCHED();
        }
        rc = cu_ntt_core<C>(&pl, d, 0, st);
        break;
    case CU_NTT_INVERSE:
        if ((rc = cu_ntt_core<C>(&pl, d, 1, st)))
            goto out;
        if (shift) {                          /* x_k *= n^-1 shift^-k */
            C::fr_inv(&sinv, shift);
            if ((rc = cu_pow_make<C>(&pt, &sinv, &pl.ninv, n, st)))
                goto out;
            ZK_CU_LAUNCH(k_scale_pow<C>, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, d,
                         pt.lo, pt.hi, n);
        } else {
            ZK_CU_LAUNCH(k_scale<C>, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, d,
                         pl.ninv, n);
        }
        ZK_CUDA_LAUNCHED();
        break;
    case CU_NTT_ODD_COSET:
        rc = cu_ntt_odd_coset<C>(&pl, d, st);
        break;
    }
out:
    cu_pow_free<C>(&pt, st);
    return rc;
}

/* ---- H step --------------------------------------------------------------- */

template <class C>
__global__ void k_h_step(typename C::Fr *a, const typename C::Fr *b, const typename C::Fr *c,
                         size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        typename C::Fr t;
        C::fr_mul(&t, &a[i], &b[i]);
        C::fr_sub(&t, &t, &c[i]);
        C::fr_from_mont(&a[i], &t);
    }
}

template <class C>
int cu_h_step(typename C::Fr *a, const typename C::Fr *b, const typename C::Fr *c, size_t n,
              cudaStream_t st)
{
    int rc = 0;
    ZK_CU_LAUNCH(k_h_step<C>, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, a, b, c, n);
    ZK_CUDA_LAUNCHED();
out:
    return rc;
}

/* ---- G1 MSM --------------------------------------------------------------- */

/*
 * Pippenger with Booth digits, the windows of a group all at once (one
 * group unless the entries would pass CU_MSM_GROUP_MAX):
 *  1. digits: entry (wl, i) of the group's window wl gets the key
 *     wl nbk + |d| - 1 and the value i | sign << 31; a zero digit gets
 *     the key gw nbk, which sorts after every bucket;
 *  2. CUB sorts the entries by key: each bucket is a run;
 *  3. the runs are summed in chunks of CU_MSM_CHUNK entries, a thread each,
 *     whatever the runs' lengths (witness scalars are mostly 0 and 1, so
 *     one bucket may hold most of the points): a run that begins in a chunk
 *     is added into its bucket by that chunk's thread; the part of a run
 *     that began in an earlier chunk is the chunk's carry.  The carries
 *     are a sorted sequence again, CU_MSM_CHUNK times shorter, summed the
 *     same way, level after level, until one chunk is left;
 *  4. the buckets of each window are weighted and summed: seg buckets per
 *     thread, then a tree per window in shared memory;
 *  5. one point per window goes to the host, which combines them.
 */
#define CU_MSM_CHUNK 32
#define CU_MSM_NONE 0xffffffffu
#define CU_MSM_GROUP_MAX ((size_t)1 << 28)  /* entries sorted at once */
#define CU_MSM_TREE 256                    /* threads of a window's tree */

__global__ void k_msm_digits(const uint64_t *sc, size_t n, unsigned w0, unsigned gw, unsigned c,
                             uint32_t *keys, uint32_t *vals)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t nbk = 1u << (c - 1);
    for (unsigned wl = 0; wl < gw; wl++) {
        int d = zk_msm_digit(sc + 4 * i, (w0 + wl) * c, c);
        size_t e = (size_t)wl * n + i;
        keys[e] = d == 0 ? gw * nbk : wl * nbk + (uint32_t)(d < 0 ? -d : d) - 1;
        vals[e] = (uint32_t)i | (d < 0 ? 0x80000000u : 0u);
    }
}

template <class C>
__global__ void k_msm_bucket_init(typename C::G1 *bk, size_t nbk)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nbk)
        C::g1_set_inf(&bk[i]);
}

/* The sequence a level of k_msm_chunks sums: level 0 the sorted entries
 * (keys from `skip` on are zero digits), later levels the carries of the
 * level before (CU_MSM_NONE: a chunk without one). */
template <class C>
struct cu_msm_entries {
    const uint32_t *keys, *vals;
    const typename C::G1A *pts;
    uint32_t skip;
    __device__ uint32_t key(size_t j) const
    {
        uint32_t k = keys[j];
        return k >= skip ? CU_MSM_NONE : k;
    }
    __device__ void add_to(typename C::G1 *acc, size_t j) const
    {
        uint32_t v = vals[j];
        const typename C::G1A *p = &pts[v & 0x7fffffffu];
        typename C::G1A q;
        if (v >> 31) {
            C::g1a_neg(&q, p);
            p = &q;
        }
        C::g1_madd(acc, acc, p);            /* infinity p: no-op */
    }
};

template <class C>
struct cu_msm_carries {
    const uint32_t *keys;
    const typename C::G1 *pts;
    __device__ uint32_t key(size_t j) const { return keys[j]; }
    __device__ void add_to(typename C::G1 *acc, size_t j) const
    {
        C::g1_add(acc, acc, &pts[j]);
    }
};

/*
 * Thread t sums entries [t CHUNK, (t + 1) CHUNK) of the m of `in`, run by
 * run.  A run of key k that begins in the chunk is added into bk[k]: in
 * each level exactly one fragment of a key begins its run (a key's entries
 * are contiguous), so no two threads write one bucket.  A first fragment
 * whose key goes on from the chunk before is the chunk's carry
 * (ckey[t], cval[t]); otherwise ckey[t] is CU_MSM_NONE.
 */
template <class C, class In>
__device__ void cu_msm_chunk(const In &in, size_t m, typename C::G1 *bk, uint32_t *ckey,
                             typename C::G1 *cval)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t j0 = t * CU_MSM_CHUNK, j = j0, e = j0 + CU_MSM_CHUNK;
    if (j0 >= m)
        return;
    if (e > m)
        e = m;
    uint32_t prev = t ? in.key(j0 - 1) : CU_MSM_NONE;
    uint32_t k = in.key(j);
    ckey[t] = CU_MSM_NONE;
    while (j < e) {
        if (k == CU_MSM_NONE) {
            if (++j < e)
                k = in.key(j);
            continue;
        }
        typename C::G1 acc;
        uint32_t run = k;
        size_t s = j;
        C::g1_set_inf(&acc);
        do {
            in.add_to(&acc, j);
            k = ++j < e ? in.key(j) : CU_MSM_NONE;
        } while (k == run);
        if (s == j0 && run == prev) {
            ckey[t] = run;
            cval[t] = acc;
        } else {
            C::g1_add(&bk[run], &bk[run], &acc);
        }
    }
}

template <class C>
__global__ void k_msm_chunks0(cu_msm_entries<C> in, size_t m, typename C::G1 *bk,
                              uint32_t *ckey, typename C::G1 *cval)
{
    cu_msm_chunk<C>(in, m, bk, ckey, cval);
}

template <class C>
__global__ void k_msm_chunks(cu_msm_carries<C> in, size_t m, typename C::G1 *bk, uint32_t *ckey,
                             typename C::G1 *cval)
{
    cu_msm_chunk<C>(in, m, bk, ckey, cval);
}

/* Thread (wl, t): out[wl nseg + t] = sum over the segment [t seg,
 * (t + 1) seg) of window wl's buckets of (b + 1) bk[b]. */
template <class C>
__global__ void k_msm_reduce(const typename C::G1 *bk, unsigned nbk, unsigned seg,
                             unsigned nseg, unsigned gw, typename C::G1 *out)
{
    size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (size_t)gw * nseg)
        return;
    const typename C::G1 *wb = bk + (id / nseg) * nbk;
    typename C::G1 sum, acc, m;
    size_t s0 = (id % nseg) * seg;
    C::g1_set_inf(&sum);
    C::g1_set_inf(&acc);
    for (size_t b = s0 + seg; b-- > s0;) {
        C::g1_add(&sum, &sum, &wb[b]);
        C::g1_add(&acc, &acc, &sum);      /* acc = sum (b - s0 + 1) bk[b] */
    }
    /* + s0 * sum, by double and add (s0 < 2^31) */
    C::g1_set_inf(&m);
    for (int i = 31; i >= 0; i--) {
        if (!C::g1_is_inf(&m))
            C::g1_dbl(&m, &m);
        if ((s0 >> i) & 1)
            C::g1_add(&m, &m, &sum);
    }
    C::g1_add(&out[id], &acc, &m);
}

/* Block wl (CU_MSM_TREE threads): win[wl] = the sum of the window's nseg
 * segment sums, a tree in shared memory. */
template <class C>
__global__ void k_msm_window_sum(const typename C::G1 *segs, unsigned nseg, typename C::G1 *win)
{
    typedef typename C::G1 G1;
    ZK_CU_DYN_SMEM(uint64_t, cu_smem);
    G1 *sh = (G1 *)cu_smem, s;
    const G1 *o = segs + (size_t)blockIdx.x * nseg;
    unsigned j = threadIdx.x;
    C::g1_set_inf(&s);
    for (unsigned t = j; t < nseg; t += blockDim.x)
        C::g1_add(&s, &s, &o[t]);
    sh[j] = s;
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        __syncthreads();
        if (j < h)
            C::g1_add(&sh[j], &sh[j], &sh[j + h]);
    }
    if (j == 0)
        win[blockIdx.x] = sh[0];
}

/* Window bits for n points. */
static unsigned cu_msm_window(size_t n)
{
    unsigned lg = 0;
    while (lg < 63 && ((size_t)1 << (lg + 1)) <= n)
        lg++;
    unsigned c = lg > 3 ? lg - 3 : 1;
    return c < 4 ? 4 : c > 16 ? 16 : c;
}

/* The shape of the MSM of n points: window bits, windows, buckets per
 * window, buckets per reduction segment, segments per window, windows per
 * group. */
struct cu_msm_shape {
    unsigned c, nwin, nbk, seg, nseg, gw;
};

static cu_msm_shape cu_msm_shape_of(size_t n)
{
    cu_msm_shape m;
    m.c = cu_msm_window(n);
    m.nwin = (257 + m.c - 1) / m.c;           /* bit nwin c - 1 >= 256: Booth top */
    m.nbk = 1u << (m.c - 1);
    m.seg = m.nbk > 16 ? 16 : m.nbk;
    m.nseg = m.nbk / m.seg;
    m.gw = m.nwin;
    if (n && (size_t)m.nwin * n > CU_MSM_GROUP_MAX) {
        size_t ngrp = ((size_t)m.nwin * n + CU_MSM_GROUP_MAX - 1) / CU_MSM_GROUP_MAX;
        m.gw = ngrp >= m.nwin ? 1 : (unsigned)((m.nwin + ngrp - 1) / ngrp);
    }
    return m;
}

static size_t cu_msm_chunks_of(size_t m)
{
    return (m + CU_MSM_CHUNK - 1) / CU_MSM_CHUNK;
}

size_t cu_msm_scratch_bytes(size_t n, size_t g1_bytes)
{
    cu_msm_shape m = cu_msm_shape_of(n);
    size_t e = (size_t)m.gw * n, t0 = cu_msm_chunks_of(e), t1 = cu_msm_chunks_of(t0);
    /* keys, values and their sorted copies; CUB's temporary storage (about
     * as much again as a sort's input); two levels of carries; buckets,
     * segment and window sums; rounded up generously */
    size_t b = 16 * e + 8 * e + (t0 + t1) * (g1_bytes + 4) +
               ((size_t)m.gw * (m.nbk + m.nseg) + m.nwin) * g1_bytes;
    return b + b / 4 + ((size_t)1 << 20);
}

size_t cu_msm_parts(size_t n)
{
    return n ? cu_msm_shape_of(n).nwin : 0;
}

template <class C>
int cu_msm_g1_enqueue(typename C::G1 *hpart, const typename C::G1A *points,
                      const uint64_t *scalars, size_t n, cudaStream_t st)
{
    typedef typename C::G1 G1;
    int rc = 0;
    cu_msm_shape m = cu_msm_shape_of(n);
    size_t emax = (size_t)m.gw * n, t0 = cu_msm_chunks_of(emax), t1 = cu_msm_chunks_of(t0);
    uint32_t *keys = NULL, *vals = NULL, *skeys = NULL, *svals = NULL, *ck[2] = { NULL, NULL };
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    G1 *bk = NULL, *segs = NULL, *win = NULL, *cv[2] = { NULL, NULL };
    if (n == 0)
        return 0;
    if (n >= ((size_t)1 << 31))
        return ZK_EBADPARAMS;
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&keys, 4 * emax * sizeof(uint32_t), st));
    vals = keys + emax;
    skeys = vals + emax;
    svals = skeys + emax;
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&ck[0], (t0 + t1) * sizeof(uint32_t), st));
    ck[1] = ck[0] + t0;
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&cv[0], (t0 + t1) * sizeof(G1), st));
    cv[1] = cv[0] + t0;
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&bk, (size_t)m.gw * m.nbk * sizeof(G1), st));
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&segs, (size_t)m.gw * m.nseg * sizeof(G1), st));
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&win, (size_t)m.nwin * sizeof(G1), st));
    ZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, tmp_bytes, keys, skeys, vals, svals,
                                                  (int)emax, 0, 32, st));
    ZK_CUDA_CHECK(cudaMallocAsync(&tmp, tmp_bytes, st));
    for (unsigned w0 = 0; w0 < m.nwin; w0 += m.gw) {
        unsigned gw = m.nwin - w0 < m.gw ? m.nwin - w0 : m.gw, bits = 0;
        uint32_t skip = gw * m.nbk;
        size_t e = (size_t)gw * n, bytes = tmp_bytes;
        while (bits < 32 && ((uint64_t)1 << bits) <= skip)
            bits++;
        ZK_CU_LAUNCH(k_msm_digits, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st, scalars,
                     n, w0, gw, m.c, keys, vals);
        ZK_CUDA_LAUNCHED();
        ZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, skeys, vals, svals,
                                                      (int)e, 0, (int)bits, st));
        ZK_CU_LAUNCH(k_msm_bucket_init<C>, zk_cu_blocks(skip, ZK_CU_THREADS), ZK_CU_THREADS, 0,
                     st, bk, (size_t)skip);
        ZK_CUDA_LAUNCHED();
        /* level 0 on the entries, then on the carries until one chunk */
        cu_msm_entries<C> in0 = { skeys, svals, points, skip };
        size_t nc = cu_msm_chunks_of(e);
        ZK_CU_LAUNCH(k_msm_chunks0<C>, zk_cu_blocks(nc, 128), 128, 0, st,
                     in0, e, bk, ck[0], cv[0]);
        ZK_CUDA_LAUNCHED();
        for (int l = 0; nc > 1; l ^= 1) {
            cu_msm_carries<C> in = { ck[l], cv[l] };
            size_t len = nc;
            nc = cu_msm_chunks_of(len);
            ZK_CU_LAUNCH(k_msm_chunks<C>, zk_cu_blocks(nc, 128), 128, 0, st, in, len, bk,
                         ck[l ^ 1], cv[l ^ 1]);
            ZK_CUDA_LAUNCHED();
        }
        ZK_CU_LAUNCH(k_msm_reduce<C>, zk_cu_blocks((size_t)gw * m.nseg, 64), 64, 0, st, bk,
                     m.nbk, m.seg, m.nseg, gw, segs);
        ZK_CUDA_LAUNCHED();
        ZK_CU_LAUNCH(k_msm_window_sum<C>, gw, CU_MSM_TREE, CU_MSM_TREE * sizeof(G1), st, segs,
                     m.nseg, win + w0);
        ZK_CUDA_LAUNCHED();
    }
    ZK_CUDA_CHECK(cudaMemcpyAsync(hpart, win, (size_t)m.nwin * sizeof(G1),
                                  cudaMemcpyDeviceToHost, st));
out:
    if (rc)
        ZK_CUDA_IGNORE(cudaStreamSynchronize(st));
    if (tmp)
        ZK_CUDA_IGNORE(cudaFreeAsync(tmp, st));
    G1 *g1s[] = { win, segs, bk, cv[0] };
    for (size_t i = 0; i < sizeof g1s / sizeof g1s[0]; i++)
        if (g1s[i])
            ZK_CUDA_IGNORE(cudaFreeAsync(g1s[i], st));
    if (ck[0])
        ZK_CUDA_IGNORE(cudaFreeAsync(ck[0], st));
    if (keys)
        ZK_CUDA_IGNORE(cudaFreeAsync(keys, st));
    return rc;
}

template <class C>
void cu_msm_g1_combine(typename C::G1 *ret, const typename C::G1 *hpart, size_t n)
{
    cu_msm_shape m = cu_msm_shape_of(n);
    typename C::G1 acc;
    C::g1_set_inf(&acc);
    for (unsigned w = n ? m.nwin : 0; w-- > 0;) {
        if (!C::g1_is_inf(&acc))
            for (unsigned i = 0; i < m.c; i++)
                C::g1_dbl(&acc, &acc);
        C::g1_add(&acc, &acc, &hpart[w]);
    }
    *ret = acc;
}

template <class C>
int cu_msm_g1(typename C::G1 *ret, const typename C::G1A *points, const uint64_t *scalars,
              size_t n, cudaStream_t st)
{
    typedef typename C::G1 G1;
    int rc = 0;
    G1 *hpart = (G1 *)malloc(cu_msm_parts(n) * sizeof(G1) + 1);
    if (!hpart)
        return -ENOMEM;
    if ((rc = cu_msm_g1_enqueue<C>(hpart, points, scalars, n, st)))
        goto out;
    ZK_CUDA_CHECK(cudaStreamSynchronize(st));
    cu_msm_g1_combine<C>(ret, hpart, n);
out:
    free(hpart);
    return rc;
}

/* ---- instantiations ------------------------------------------------------- */

#define CU_NTT_INST(C)                                                         \
    template int cu_ntt_plan_make<C>(cu_ntt_plan<C> *, unsigned, cudaStream_t);   \
    template void cu_ntt_plan_free<C>(cu_ntt_plan<C> *, cudaStream_t);            \
    template int cu_ntt_odd_coset<C>(const cu_ntt_plan<C> *, C::Fr *, cudaStream_t);
CU_NTT_INST(cu_bn254)
CU_NTT_INST(cu_bls381)
template int cu_ntt<cu_bn254>(const cu_ntt_plan<cu_bn254> *, cu_bn254::Fr *, enum cu_ntt_mode,
                              const cu_bn254::Fr *, cudaStream_t);
template int cu_ntt<cu_bls381>(const cu_ntt_plan<cu_bls381> *, cu_bls381::Fr *,
                               enum cu_ntt_mode, const cu_bls381::Fr *, cudaStream_t);
template int cu_h_step<cu_bn254>(cu_bn254::Fr *, const cu_bn254::Fr *, const cu_bn254::Fr *,
                                 size_t, cudaStream_t);
template int cu_h_step<cu_bls381>(cu_bls381::Fr *, const cu_bls381::Fr *,
                                  const cu_bls381::Fr *, size_t, cudaStream_t);
template int cu_msm_g1_enqueue<cu_bn254>(cu_bn254::G1 *, const cu_bn254::G1A *,
                                         const uint64_t *, size_t, cudaStream_t);
template int cu_msm_g1_enqueue<cu_bls381>(cu_bls381::G1 *, const cu_bls381::G1A *,
                                          const uint64_t *, size_t, cudaStream_t);
template void cu_msm_g1_combine<cu_bn254>(cu_bn254::G1 *, const cu_bn254::G1 *, size_t);
template void cu_msm_g1_combine<cu_bls381>(cu_bls381::G1 *, const cu_bls381::G1 *, size_t);
template int cu_msm_g1<cu_bn254>(cu_bn254::G1 *, const cu_bn254::G1A *, const uint64_t *, size_t,
                                 cudaStream_t);
template int cu_msm_g1<cu_bls381>(cu_bls381::G1 *, const cu_bls381::G1A *, const uint64_t *,
                                  size_t, cudaStream_t);

/* ---- host-memory entry points (zkcuda.h) ---------------------------------- */

/* A stream and the two events that time the device part of one call. */
struct cu_timed {
    cudaStream_t st;
    cudaEvent_t e0, e1;
};

static int cu_timed_open(struct cu_timed *t, int dev)
{
    int rc = 0;
    memset(t, 0, sizeof *t);
    ZK_CUDA_CHECK(cudaSetDevice(dev));
    ZK_CUDA_CHECK(cudaStreamCreateWithFlags(&t->st, cudaStreamNonBlocking));
    ZK_CUDA_CHECK(cudaEventCreate(&t->e0));
    ZK_CUDA_CHECK(cudaEventCreate(&t->e1));
out:
    return rc;
}

/* After e1 was recorded: wait, and keep e0 -> e1 for zk_cuda_last_kernel_seconds. */
static int cu_timed_finish(struct cu_timed *t)
{
    int rc = 0;
    float ms = 0;
    ZK_CUDA_CHECK(cudaStreamSynchronize(t->st));
    ZK_CUDA_CHECK(cudaEventElapsedTime(&ms, t->e0, t->e1));
    zk_cuda_set_kernel_seconds(ms * 1e-3);
out:
    return rc;
}

/* Waits for what is queued (the frees) and destroys everything. */
static void cu_timed_close(struct cu_timed *t)
{
    if (t->st) {
        ZK_CUDA_IGNORE(cudaStreamSynchronize(t->st));
        ZK_CUDA_IGNORE(cudaStreamDestroy(t->st));
    }
    if (t->e0)
        ZK_CUDA_IGNORE(cudaEventDestroy(t->e0));
    if (t->e1)
        ZK_CUDA_IGNORE(cudaEventDestroy(t->e1));
    memset(t, 0, sizeof *t);
}

template <class C>
static int cu_ntt_host(int dev, zk_scalar *data, unsigned log_n, int inverse,
                       const zk_scalar *shift, int odd_coset)
{
    typedef typename C::Fr Fr;
    int rc = 0;
    size_t n;
    Fr *d = NULL;
    struct cu_timed t;
    cu_ntt_plan<C> pl;
    int have_plan = 0;
    enum cu_ntt_mode mode = odd_coset ? CU_NTT_ODD_COSET : inverse ? CU_NTT_INVERSE
                                                                   : CU_NTT_FORWARD;
    unsigned maxlog = C::curve == ZK_CURVE_BN254 ? BN254_FR_TWO_ADICITY : BLS381_FR_TWO_ADICITY;
    if (!data || (odd_coset && shift))
        return ZK_EBADPARAMS;
    if (log_n > 31 || log_n + (odd_coset ? 1u : 0u) > maxlog)
        return ZK_EDOMAIN;
    n = (size_t)1 << log_n;
    if ((rc = cu_timed_open(&t, dev)))
        goto out;
    ZK_CUDA_CHECK(cudaMallocAsync((void **)&d, n * sizeof(Fr), t.st));
    ZK_CUDA_CHECK(cudaMemcpyAsync(d, data, n * sizeof(Fr), cudaMemcpyHostToDevice, t.st));
    if ((rc = cu_ntt_plan_make<C>(&pl, log_n, t.st)))     /* not timed: a prover keeps one */
        goto out;
    have_plan = 1;
    ZK_CUDA_CHECK(cudaEventRecord(t.e0, t.st));
    if ((rc = cu_ntt<C>(&pl, d, mode, (const Fr *)shift, t.st)))
        goto out;
    ZK_CUDA_CHECK(cudaEventRecord(t.e1, t.st));
    ZK_CUDA_CHECK(cudaMemcpyAsync(data, d, n * sizeof(Fr), cudaMemcpyDeviceToHost, t.st));
    rc = cu_timed_finish(&t);
out:
    if (have_plan)
        cu_ntt_plan_free<C>(&pl, t.st);
    if (d)
        ZK_CUDA_IGNORE(cudaFreeAsync(d, t.st));
    cu_timed_close(&t);
    return rc;
}

template <class C>
static int cu_msm_host(int dev, uint64_t *ret_jac, const void *points, const zk_scalar *scalars,
                       size_t n)
{
    typedef typename C::G1 G1;
    typedef typename C::G1A G1A;
    int rc = 0;
    G1A *dp = NULL;
    uint64_t *ds = NULL;
    G1 r;
    struct cu_timed t;
    if (!ret_jac || (n && (!points || !scalars)))
        return ZK_EBADPARAMS;
    if ((rc = cu_timed_open(&t, dev)))
        goto out;
    if (n) {
        ZK_CUDA_CHECK(cudaMallocAsync((void **)&dp, n * sizeof(G1A), t.st));
        ZK_CUDA_CHECK(cudaMallocAsync((void **)&ds, n * sizeof(zk_scalar), t.st));
        ZK_CUDA_CHECK(cudaMemcpyAsync(dp, points, n * sizeof(G1A), cudaMemcpyHostToDevice, t.st));
        ZK_CUDA_CHECK(cudaMemcpyAsync(ds, scalars, n * sizeof(zk_scalar), cudaMemcpyHostToDevice,
                                      t.st));
    }
    ZK_CUDA_CHECK(cudaEventRecord(t.e0, t.st));
    if ((rc = cu_msm_g1<C>(&r, dp, ds, n, t.st)))
        goto out;
    ZK_CUDA_CHECK(cudaEventRecord(t.e1, t.st));
    if ((rc = cu_timed_finish(&t)))
        goto out;
    memcpy(ret_jac, &r, sizeof r);
out:
    if (dp)
        ZK_CUDA_IGNORE(cudaFreeAsync(dp, t.st));
    if (ds)
        ZK_CUDA_IGNORE(cudaFreeAsync(ds, t.st));
    cu_timed_close(&t);
    return rc;
}

extern "C" int zk_cuda_ntt(int dev, enum zk_curve curve, zk_scalar *data, unsigned log_n,
                           int inverse, const zk_scalar *shift, int odd_coset)
{
    if (!zk_cuda_available())
        return ZK_ENODEV;
    switch (curve) {
    case ZK_CURVE_BN254: return cu_ntt_host<cu_bn254>(dev, data, log_n, inverse, shift, odd_coset);
    case ZK_CURVE_BLS12_381:
        return cu_ntt_host<cu_bls381>(dev, data, log_n, inverse, shift, odd_coset);
    }
    return ZK_ECURVE;
}

extern "C" int zk_cuda_msm_g1(int dev, enum zk_curve curve, uint64_t *ret_jac, const void *points,
                              const zk_scalar *scalars, size_t n)
{
    if (!zk_cuda_available())
        return ZK_ENODEV;
    switch (curve) {
    case ZK_CURVE_BN254: return cu_msm_host<cu_bn254>(dev, ret_jac, points, scalars, n);
    case ZK_CURVE_BLS12_381: return cu_msm_host<cu_bls381>(dev, ret_jac, points, scalars, n);
    }
    return ZK_ECURVE;
}

/*
 * cu_msm.cuh -- private to gpud/cuda/: the MSM's kernels and templates, for
 * any group of cu_common.cuh (cu_<curve>_g1, _g2), declared in cu_ops.cuh.
 * cu_msm_<curve>_g<k>.cu instantiate them, one group each, so that the
 * four compile in parallel (each takes one to three minutes of nvcc);
 * cu_msm.cu has the shape functions the prover sizes its memory with.
 */
#ifndef ZK_GPUD_CUDA_CU_MSM_CUH
#define ZK_GPUD_CUDA_CU_MSM_CUH

#include <errno.h>
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

#include "cu_ops.cuh"
#include "msm/digit.h"

/* ---- MSM on G1 and G2 ------------------------------------------------------ */

/*
 * Pippenger with Booth digits, the windows of a batch all at once (one
 * batch unless the entries would pass CU_MSM_BATCH_MAX):
 *  1. digits: entry (wl, i) of the batch's window wl gets the key
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
#define CU_MSM_BATCH_MAX ((size_t)1 << 28)  /* entries sorted at once */

/* threads of a window's tree: a point each in 48 KiB of shared memory */
static constexpr unsigned cu_msm_tree(size_t p_bytes)
{
    unsigned t = 256;
    while (t > 1 && t * p_bytes > (48u << 10))
        t >>= 1;
    return t;
}

template <class G>
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

template <class G>
__global__ void k_msm_bucket_init(typename G::P *bk, size_t nbk)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nbk)
        G::set_inf(&bk[i]);
}

/* The sequence a level of k_msm_chunks sums: level 0 the sorted entries
 * (keys from `skip` on are zero digits), later levels the carries of the
 * level before (CU_MSM_NONE: a chunk without one). */
template <class G>
struct cu_msm_entries {
    const uint32_t *keys, *vals;
    const typename G::PA *pts;
    uint32_t skip;
    __device__ uint32_t key(size_t j) const
    {
        uint32_t k = keys[j];
        return k >= skip ? CU_MSM_NONE : k;
    }
    /* The point is loaded by value and negated in place: no pointer that
     * may address either global memory or a local copy (that made a stack
     * frame and generic loads in the hot loop, issue 21; tools/cuda-sass.sh
     * checks the frame is 0 on G1). */
    __device__ void add_to(typename G::P *acc, size_t j) const
    {
        uint32_t v = vals[j];
        typename G::PA q = pts[v & 0x7fffffffu];
        if (v >> 31)
            G::aneg(&q, &q);             /* y = -y (infinity stays infinity) */
        G::madd(acc, acc, &q);           /* infinity q: no-op */
    }
};

template <class G>
struct cu_msm_carries {
    const uint32_t *keys;
    const typename G::P *pts;
    __device__ uint32_t key(size_t j) const { return keys[j]; }
    __device__ void add_to(typename G::P *acc, size_t j) const
    {
        G::add(acc, acc, &pts[j]);
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
template <class G, class In>
__device__ void cu_msm_chunk(const In &in, size_t m, typename G::P *bk, uint32_t *ckey,
                             typename G::P *cval)
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
        typename G::P acc;
        uint32_t run = k;
        size_t s = j;
        G::set_inf(&acc);
        do {
            in.add_to(&acc, j);
            k = ++j < e ? in.key(j) : CU_MSM_NONE;
        } while (k == run);
        if (s == j0 && run == prev) {
            ckey[t] = run;
            cval[t] = acc;
        } else {
            G::add(&bk[run], &bk[run], &acc);
        }
    }
}

template <class G>
__global__ void k_msm_chunks0(cu_msm_entries<G> in, size_t m, typename G::P *bk,
                              uint32_t *ckey, typename G::P *cval)
{
    cu_msm_chunk<G>(in, m, bk, ckey, cval);
}

template <class G>
__global__ void k_msm_chunks(cu_msm_carries<G> in, size_t m, typename G::P *bk, uint32_t *ckey,
                             typename G::P *cval)
{
    cu_msm_chunk<G>(in, m, bk, ckey, cval);
}

/* Thread (wl, t): out[wl nseg + t] = sum over the segment [t seg,
 * (t + 1) seg) of window wl's buckets of (b + 1) bk[b]. */
template <class G>
__global__ void k_msm_reduce(const typename G::P *bk, unsigned nbk, unsigned seg,
                             unsigned nseg, unsigned gw, typename G::P *out)
{
    size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (size_t)gw * nseg)
        return;
    const typename G::P *wb = bk + (id / nseg) * nbk;
    typename G::P sum, acc, m;
    size_t s0 = (id % nseg) * seg;
    G::set_inf(&sum);
    G::set_inf(&acc);
    for (size_t b = s0 + seg; b-- > s0;) {
        G::add(&sum, &sum, &wb[b]);
        G::add(&acc, &acc, &sum);      /* acc = sum (b - s0 + 1) bk[b] */
    }
    /* + s0 * sum, by double and add (s0 < 2^31) */
    G::set_inf(&m);
    for (int i = 31; i >= 0; i--) {
        if (!G::is_inf(&m))
            G::dbl(&m, &m);
        if ((s0 >> i) & 1)
            G::add(&m, &m, &sum);
    }
    G::add(&out[id], &acc, &m);
}

/* Block wl (cu_msm_tree threads): win[wl] = the sum of the window's nseg
 * segment sums, a tree in shared memory. */
template <class G>
__global__ void k_msm_window_sum(const typename G::P *segs, unsigned nseg, typename G::P *win)
{
    typedef typename G::P P;
    ZK_CU_DYN_SMEM(uint64_t, cu_smem);
    P *sh = (P *)cu_smem, s;
    const P *o = segs + (size_t)blockIdx.x * nseg;
    unsigned j = threadIdx.x;
    G::set_inf(&s);
    for (unsigned t = j; t < nseg; t += blockDim.x)
        G::add(&s, &s, &o[t]);
    sh[j] = s;
    for (unsigned h = blockDim.x / 2; h > 0; h >>= 1) {
        __syncthreads();
        if (j < h)
            G::add(&sh[j], &sh[j], &sh[j + h]);
    }
    if (j == 0)
        win[blockIdx.x] = sh[0];
}

/* Window bits for n points. */
static inline unsigned cu_msm_window(size_t n)
{
    unsigned lg = 0;
    while (lg < 63 && ((size_t)1 << (lg + 1)) <= n)
        lg++;
    unsigned c = lg > 3 ? lg - 3 : 1;
    return c < 4 ? 4 : c > 16 ? 16 : c;
}

/* The shape of the MSM of n points: window bits, windows, buckets per
 * window, buckets per reduction segment, segments per window, windows per
 * batch. */
struct cu_msm_shape {
    unsigned c, nwin, nbk, seg, nseg, gw;
};

static inline cu_msm_shape cu_msm_shape_of(size_t n)
{
    cu_msm_shape m;
    m.c = cu_msm_window(n);
    m.nwin = (257 + m.c - 1) / m.c;           /* bit nwin c - 1 >= 256: Booth top */
    m.nbk = 1u << (m.c - 1);
    m.seg = m.nbk > 16 ? 16 : m.nbk;
    m.nseg = m.nbk / m.seg;
    m.gw = m.nwin;
    if (n && (size_t)m.nwin * n > CU_MSM_BATCH_MAX) {
        size_t nb = ((size_t)m.nwin * n + CU_MSM_BATCH_MAX - 1) / CU_MSM_BATCH_MAX;
        m.gw = nb >= m.nwin ? 1 : (unsigned)((m.nwin + nb - 1) / nb);
    }
    return m;
}

static inline size_t cu_msm_chunks_of(size_t m)
{
    return (m + CU_MSM_CHUNK - 1) / CU_MSM_CHUNK;
}

/* Byte offsets of the parts of an MSM's scratch (cu_msm_scratch_bytes),
 * each 256-byte aligned: keys (keys, values, their sorted copies), the two
 * levels of carries (keys, points), buckets, segment and window sums, and
 * CUB's temporary storage (tmp_bytes of it). */
struct cu_msm_layout {
    size_t keys, ck, cv, bk, segs, win, tmp, tmp_bytes, total;
};

static inline size_t cu_msm_align(size_t b)
{
    return (b + 255) & ~(size_t)255;
}

/* 0, or ZK_EGPU (CUB's size query failed) */
static inline int cu_msm_layout_of(size_t n, size_t p_bytes, cu_msm_layout *L)
{
    int rc = 0;
    cu_msm_shape m = cu_msm_shape_of(n);
    size_t emax = (size_t)m.gw * n, t0 = cu_msm_chunks_of(emax), t1 = cu_msm_chunks_of(t0);
    uint32_t *none = NULL;
    L->tmp_bytes = 0;
    /* (a size query: CUB reads no memory; 32 bits is the most a sort uses) */
    ZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, L->tmp_bytes, none, none, none, none,
                                                  (int)emax, 0, 32, (cudaStream_t)0));
    L->keys = 0;
    L->ck = L->keys + cu_msm_align(4 * emax * sizeof(uint32_t));
    L->cv = L->ck + cu_msm_align((t0 + t1) * sizeof(uint32_t));
    L->bk = L->cv + cu_msm_align((t0 + t1) * p_bytes);
    L->segs = L->bk + cu_msm_align((size_t)m.gw * m.nbk * p_bytes);
    L->win = L->segs + cu_msm_align((size_t)m.gw * m.nseg * p_bytes);
    L->tmp = L->win + cu_msm_align((size_t)m.nwin * p_bytes);
    L->total = L->tmp + cu_msm_align(L->tmp_bytes);
out:
    return rc;
}

template <class G>
int cu_msm_enqueue(typename G::P *hpart, const typename G::PA *points,
                   const uint64_t *scalars, size_t n, void *scratch, size_t scratch_bytes,
                   cudaStream_t st)
{
    typedef typename G::P P;
    const unsigned tree = cu_msm_tree(sizeof(P));
    int rc = 0;
    cu_msm_shape m = cu_msm_shape_of(n);
    cu_msm_layout L;
    char *base = (char *)scratch;
    if (n == 0)
        return 0;
    if (n >= ((size_t)1 << 31))
        return ZK_EBADPARAMS;
    if ((rc = cu_msm_layout_of(n, sizeof(P), &L)))
        return rc;
    if (!scratch || scratch_bytes < L.total)
        return ZK_EBADPARAMS;
    {
        size_t emax = (size_t)m.gw * n, t0 = cu_msm_chunks_of(emax);
        uint32_t *keys = (uint32_t *)(base + L.keys), *vals = keys + emax,
                 *skeys = vals + emax, *svals = skeys + emax;
        uint32_t *ck[2] = { (uint32_t *)(base + L.ck), (uint32_t *)(base + L.ck) + t0 };
        P *cv[2] = { (P *)(base + L.cv), (P *)(base + L.cv) + t0 };
        P *bk = (P *)(base + L.bk), *segs = (P *)(base + L.segs), *win = (P *)(base + L.win);
        void *tmp = base + L.tmp;
        for (unsigned w0 = 0; w0 < m.nwin; w0 += m.gw) {
            unsigned gw = m.nwin - w0 < m.gw ? m.nwin - w0 : m.gw, bits = 0;
            uint32_t skip = gw * m.nbk;
            size_t e = (size_t)gw * n, bytes = L.tmp_bytes;
            while (bits < 32 && ((uint64_t)1 << bits) <= skip)
                bits++;
            ZK_CU_LAUNCH(k_msm_digits<G>, zk_cu_blocks(n, ZK_CU_THREADS), ZK_CU_THREADS, 0, st,
                         scalars, n, w0, gw, m.c, keys, vals);
            ZK_CUDA_LAUNCHED();
            ZK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp, bytes, keys, skeys, vals, svals,
                                                          (int)e, 0, (int)bits, st));
            ZK_CU_LAUNCH(k_msm_bucket_init<G>, zk_cu_blocks(skip, ZK_CU_THREADS), ZK_CU_THREADS,
                         0, st, bk, (size_t)skip);
            ZK_CUDA_LAUNCHED();
            /* level 0 on the entries, then on the carries until one chunk */
            cu_msm_entries<G> in0 = { skeys, svals, points, skip };
            size_t nc = cu_msm_chunks_of(e);
            ZK_CU_LAUNCH(k_msm_chunks0<G>, zk_cu_blocks(nc, 128), 128, 0, st,
                         in0, e, bk, ck[0], cv[0]);
            ZK_CUDA_LAUNCHED();
            for (int l = 0; nc > 1; l ^= 1) {
                cu_msm_carries<G> in = { ck[l], cv[l] };
                size_t len = nc;
                nc = cu_msm_chunks_of(len);
                ZK_CU_LAUNCH(k_msm_chunks<G>, zk_cu_blocks(nc, 128), 128, 0, st, in, len, bk,
                             ck[l ^ 1], cv[l ^ 1]);
                ZK_CUDA_LAUNCHED();
            }
            ZK_CU_LAUNCH(k_msm_reduce<G>, zk_cu_blocks((size_t)gw * m.nseg, 64), 64, 0, st, bk,
                         m.nbk, m.seg, m.nseg, gw, segs);
            ZK_CUDA_LAUNCHED();
            ZK_CU_LAUNCH(k_msm_window_sum<G>, gw, tree, tree * sizeof(P), st, segs, m.nseg,
                         win + w0);
            ZK_CUDA_LAUNCHED();
        }
        ZK_CUDA_CHECK(cudaMemcpyAsync(hpart, win, (size_t)m.nwin * sizeof(P),
                                      cudaMemcpyDeviceToHost, st));
    }
out:
    if (rc)       /* nothing may still use the caller's scratch */
        ZK_CUDA_IGNORE(cudaStreamSynchronize(st));
    return rc;
}

template <class G>
void cu_msm_combine(typename G::P *ret, const typename G::P *hpart, size_t n)
{
    cu_msm_shape m = cu_msm_shape_of(n);
    typename G::P acc;
    G::set_inf(&acc);
    for (unsigned w = n ? m.nwin : 0; w-- > 0;) {
        if (!G::is_inf(&acc))
            for (unsigned i = 0; i < m.c; i++)
                G::dbl(&acc, &acc);
        G::add(&acc, &acc, &hpart[w]);
    }
    *ret = acc;
}

template <class G>
int cu_msm(typename G::P *ret, const typename G::PA *points, const uint64_t *scalars,
           size_t n, void *scratch, size_t scratch_bytes, cudaStream_t st)
{
    typedef typename G::P P;
    int rc = 0;
    P *hpart = (P *)malloc(cu_msm_parts(n) * sizeof(P) + 1);
    if (!hpart)
        return -ENOMEM;
    if ((rc = cu_msm_enqueue<G>(hpart, points, scalars, n, scratch, scratch_bytes, st)))
        goto out;
    ZK_CUDA_CHECK(cudaStreamSynchronize(st));
    cu_msm_combine<G>(ret, hpart, n);
out:
    free(hpart);
    return rc;
}

#define CU_MSM_INST(G)                                                         \
    template int cu_msm_enqueue<G>(G::P *, const G::PA *, const uint64_t *, size_t, void *, \
                                   size_t, cudaStream_t);                                   \
    template void cu_msm_combine<G>(G::P *, const G::P *, size_t);                         \
    template int cu_msm<G>(G::P *, const G::PA *, const uint64_t *, size_t, void *, size_t, \
                           cudaStream_t);

#endif /* ZK_GPUD_CUDA_CU_MSM_CUH */

/*
 * cu_ops.cu -- the GPU kernels of the NTT side: Fr NTT (radix 2, the first
 * up to 10 stages of each transform fused in shared memory), the H step,
 * for both curves; plus the host-memory entry points zk_cuda_ntt and
 * zk_cuda_msm_g1/_g2 of zkcuda.h.  The MSM (Pippenger with signed digits:
 * digits of all windows, bucket sort with CUB, bucket sums in chunks of
 * equal length whatever the buckets' sizes, the weighted bucket sums on
 * the device, the windows combined on the host) is cu_msm.cuh's.
 *
 * The field and curve arithmetic is common/'s own (ZK_HD functions compiled
 * for the device), so every kernel has its CPU twin built from the same
 * code: bn254_fr_ntt & co. (common/ntt) and bn254_g1_msm & co. (common/msm).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>


#include "cu_ops.cuh"
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

template <class G>
static int cu_msm_host(int dev, uint64_t *ret_jac, const void *points, const zk_scalar *scalars,
                       size_t n)
{
    typedef typename G::P P;
    typedef typename G::PA PA;
    int rc = 0;
    PA *dp = NULL;
    uint64_t *ds = NULL;
    void *scr = NULL;
    size_t scr_bytes = 0;
    P r;
    struct cu_timed t;
    if (!ret_jac || (n && (!points || !scalars)))
        return ZK_EBADPARAMS;
    if ((rc = cu_timed_open(&t, dev)))
        goto out;
    if (n) {
        /* the scratch before the timed window, as a prover has it */
        if (!(scr_bytes = cu_msm_scratch_bytes(n, sizeof(P)))) {
            rc = ZK_EGPU;
            goto out;
        }
        ZK_CUDA_CHECK(cudaMallocAsync(&scr, scr_bytes, t.st));
        ZK_CUDA_CHECK(cudaMallocAsync((void **)&dp, n * sizeof(PA), t.st));
        ZK_CUDA_CHECK(cudaMallocAsync((void **)&ds, n * sizeof(zk_scalar), t.st));
        ZK_CUDA_CHECK(cudaMemcpyAsync(dp, points, n * sizeof(PA), cudaMemcpyHostToDevice, t.st));
        ZK_CUDA_CHECK(cudaMemcpyAsync(ds, scalars, n * sizeof(zk_scalar), cudaMemcpyHostToDevice,
                                      t.st));
    }
    ZK_CUDA_CHECK(cudaEventRecord(t.e0, t.st));
    if ((rc = cu_msm<G>(&r, dp, ds, n, scr, scr_bytes, t.st)))
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
    if (scr)
        ZK_CUDA_IGNORE(cudaFreeAsync(scr, t.st));
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

/* zk_cuda_msm_g1 and _g2: the instantiation of the curve and group */
static int cu_msm_entry(int dev, enum zk_curve curve, int g2, uint64_t *ret_jac,
                        const void *points, const zk_scalar *scalars, size_t n)
{
    if (!zk_cuda_available())
        return ZK_ENODEV;
    switch (curve) {
    case ZK_CURVE_BN254:
        return g2 ? cu_msm_host<cu_bn254_g2>(dev, ret_jac, points, scalars, n)
                  : cu_msm_host<cu_bn254_g1>(dev, ret_jac, points, scalars, n);
    case ZK_CURVE_BLS12_381:
        return g2 ? cu_msm_host<cu_bls381_g2>(dev, ret_jac, points, scalars, n)
                  : cu_msm_host<cu_bls381_g1>(dev, ret_jac, points, scalars, n);
    }
    return ZK_ECURVE;
}

extern "C" int zk_cuda_msm_g1(int dev, enum zk_curve curve, uint64_t *ret_jac, const void *points,
                              const zk_scalar *scalars, size_t n)
{
    return cu_msm_entry(dev, curve, 0, ret_jac, points, scalars, n);
}

extern "C" int zk_cuda_msm_g2(int dev, enum zk_curve curve, uint64_t *ret_jac, const void *points,
                              const zk_scalar *scalars, size_t n)
{
    return cu_msm_entry(dev, curve, 1, ret_jac, points, scalars, n);
}

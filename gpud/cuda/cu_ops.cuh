/*
 * cu_ops.cuh -- private to gpud/cuda/: the device-memory operations of
 * cu_ops.cu (NTT, H step, MSM on G1 and G2) that cu_prover.cu and the C
 * API wrappers call, one instantiation per curve or group.  All run on
 * `st` and return 0 or ZK_EGPU / -ENOMEM (with zk_cuda_last_error set);
 * they do not synchronize the stream except where a result must reach the
 * host (cu_msm).
 */
#ifndef ZK_GPUD_CUDA_CU_OPS_CUH
#define ZK_GPUD_CUDA_CU_OPS_CUH

#include "cu_common.cuh"

/* NTT modes */
enum cu_ntt_mode {
    CU_NTT_FORWARD,        /* natural order in and out */
    CU_NTT_INVERSE,        /* includes the 1/n scaling */
    CU_NTT_ODD_COSET,      /* inverse, x_k *= g^k (g = w_(log_n+1)), forward */
};

/* x^k for k < m as lo[k & 1023] * hi[k >> 10] (device memory; built on the
 * host, two small tables instead of m powers). */
template <class C>
struct cu_pow_tab {
    typename C::Fr *lo, *hi;
};

/*
 * What the transforms of one size need, built once (per prover: the key's
 * domain): the twiddles w^k and w^-k (k < n/2) and, for the prover's odd
 * coset, n^-1 g^k (g = w_(log_n+1)) as a power table.  Transforms with a
 * plan only launch kernels: no allocation, no host work, no waiting.
 */
template <class C>
struct cu_ntt_plan {
    unsigned log_n;
    typename C::Fr *tw[2];        /* [0] w^k, [1] w^-k, k < n/2 (device) */
    cu_pow_tab<C> coset;          /* n^-1 g^k, k < n */
    typename C::Fr ninv;          /* host */
};

/* 0, ZK_EDOMAIN (log_n > 31), ZK_EGPU, -ENOMEM; nothing to free on error.
 * Waits for st (the host power tables are copied from pageable memory). */
template <class C>
int cu_ntt_plan_make(cu_ntt_plan<C> *pl, unsigned log_n, cudaStream_t st);
template <class C>
void cu_ntt_plan_free(cu_ntt_plan<C> *pl, cudaStream_t st);

/* The prover's step 2 in place on d (2^log_n elements of the plan's size):
 * inverse NTT, x_k *= g^k, forward NTT (bn254_fr_ntt_to_odd_coset). */
template <class C>
int cu_ntt_odd_coset(const cu_ntt_plan<C> *pl, typename C::Fr *d, cudaStream_t st);

/*
 * In-place transform of d[0 .. 2^log_n) (device memory, Montgomery form;
 * log_n the plan's).  shift: coset shift (host pointer) for FORWARD (x_k *=
 * shift^k first) and INVERSE (x_k *= shift^-k last); NULL for none (a
 * shift costs a power table built on the host, and a wait).
 */
template <class C>
int cu_ntt(const cu_ntt_plan<C> *plan, typename C::Fr *d, enum cu_ntt_mode mode,
           const typename C::Fr *shift, cudaStream_t st);

/* a[i] = from_mont(a[i] * b[i] - c[i]) for i < n (device memory). */
template <class C>
int cu_h_step(typename C::Fr *a, const typename C::Fr *b, const typename C::Fr *c, size_t n,
              cudaStream_t st);

/*
 * The MSM on group G (cu_common.cuh's cu_<curve>_g1 / _g2): *ret (host) =
 * sum scalars[i] * points[i] over device arrays: scalars are plain 4-limb
 * integers, points affine (all zero = infinity).  n < 2^31.  scratch:
 * device memory of at least cu_msm_scratch_bytes(n, sizeof(G::P)) bytes,
 * the caller's (a prover allocates it once; nothing is allocated here);
 * too little is ZK_EBADPARAMS.  Synchronizes st (the windows are combined
 * on the host).
 */
template <class G>
int cu_msm(typename G::P *ret, const typename G::PA *points, const uint64_t *scalars, size_t n,
           void *scratch, size_t scratch_bytes, cudaStream_t st);

/*
 * cu_msm in two halves, for callers that must not wait: _enqueue queues
 * everything on st, ending with a copy of the per-window sums into hpart
 * (host memory of cu_msm_parts(n) points; page-locked, or the copy is
 * synchronous); once st has passed that copy, _combine (host) gives the
 * sum.  On error _enqueue waits for st before returning.
 */
size_t cu_msm_parts(size_t n);
/* The device scratch one MSM of n points of p_bytes (Jacobian) uses:
 * exact, CUB's temporary storage included (0 for n = 0, or if CUB's size
 * query fails). */
size_t cu_msm_scratch_bytes(size_t n, size_t p_bytes);
template <class G>
int cu_msm_enqueue(typename G::P *hpart, const typename G::PA *points, const uint64_t *scalars,
                   size_t n, void *scratch, size_t scratch_bytes, cudaStream_t st);
template <class G>
void cu_msm_combine(typename G::P *ret, const typename G::P *hpart, size_t n);

#endif /* ZK_GPUD_CUDA_CU_OPS_CUH */

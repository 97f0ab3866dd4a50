/*
 * cu_ops.cuh -- private to gpud/cuda/: the device-memory operations of
 * cu_ops.cu (NTT, H step, G1 MSM) that cu_prover.cu and the C API wrappers
 * call, one instantiation per curve.  All run on `st` and return 0 or
 * ZK_EGPU / -ENOMEM (with zk_cuda_last_error set); they do not synchronize
 * the stream except where a result must reach the host (cu_msm_g1).
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

/*
 * In-place transform of d[0 .. 2^log_n) (device memory, Montgomery form).
 * shift: coset shift (host pointer) for FORWARD (x_k *= shift^k first) and
 * INVERSE (x_k *= shift^-k last); NULL for none.  log_n <= 31.
 */
template <class C>
int cu_ntt(typename C::Fr *d, unsigned log_n, enum cu_ntt_mode mode,
           const typename C::Fr *shift, cudaStream_t st);

/* a[i] = from_mont(a[i] * b[i] - c[i]) for i < n (device memory). */
template <class C>
int cu_h_step(typename C::Fr *a, const typename C::Fr *b, const typename C::Fr *c, size_t n,
              cudaStream_t st);

/*
 * *ret (host) = sum scalars[i] * points[i] over device arrays: scalars are
 * plain 4-limb integers, points affine (all zero = infinity).  n < 2^31.
 * Synchronizes st (the result is reduced on the host).
 */
template <class C>
int cu_msm_g1(typename C::G1 *ret, const typename C::G1A *points, const uint64_t *scalars,
              size_t n, cudaStream_t st);

#endif /* ZK_GPUD_CUDA_CU_OPS_CUH */

/*
 * cu_common.cuh -- private to gpud/cuda/: the CUDA error discipline and the
 * per-curve type table the kernels are written against.
 *
 * Every runtime call goes through ZK_CUDA_CHECK(expr): on failure it records
 * "expr: file:line: CUDA's message" for zk_cuda_last_error(), sets rc to
 * ZK_EGPU and jumps to the function's `out` label.  Every launch is followed
 * by ZK_CUDA_LAUNCHED(), which checks cudaGetLastError the same way.  Error
 * paths synchronize their stream before freeing (ZK_CUDA_UNWIND).
 */
#ifndef ZK_GPUD_CUDA_CU_COMMON_CUH
#define ZK_GPUD_CUDA_CU_COMMON_CUH

#include <cuda_runtime.h>

#include "ec/curves.h"
#include "ff/fields.h"
#include "zk/error.h"
#include "zk/ntt.h"
#include "zkcuda.h"

/* Records a failure of the calling thread (cu_device.cu). */
void zk_cuda_set_error(const char *expr, const char *file, int line, cudaError_t e);
/* Records the device time of the calling thread's last operation. */
void zk_cuda_set_kernel_seconds(double s);

#define ZK_CUDA_CHECK(expr)                                                    \
    do {                                                                       \
        cudaError_t zk_e_ = (expr);                                            \
        if (zk_e_ != cudaSuccess) {                                            \
            zk_cuda_set_error(#expr, __FILE__, __LINE__, zk_e_);               \
            rc = ZK_EGPU;                                                      \
            goto out;                                                          \
        }                                                                      \
    } while (0)

#define ZK_CUDA_LAUNCHED() ZK_CUDA_CHECK(cudaGetLastError())

/*
 * Cleanup calls (frees, destroys, the wait before them on an error path):
 * a failure is not reported (the operation's result stands, or its first
 * error does), and is taken off the thread's "last error" so that the next
 * operation's first launch check does not report it.
 */
#define ZK_CUDA_IGNORE(expr)                                                   \
    do {                                                                       \
        if ((expr) != cudaSuccess)                                             \
            cudaGetLastError();                                                \
    } while (0)

/*
 * Kernel launches and dynamic shared memory go through these two macros, so
 * that tests/cuemu (a CPU stand-in for the runtime) can run the kernels of
 * this directory on machines without a GPU; its cuda_runtime.h defines them
 * first.
 */
#ifndef ZK_CU_LAUNCH
# define ZK_CU_LAUNCH(k, grid, block, smem, st, ...)                            \
    k<<<(grid), (block), (smem), (st)>>>(__VA_ARGS__)
# define ZK_CU_DYN_SMEM(type, name) extern __shared__ type name[]
#endif

/* Threads per block of the element-wise kernels. */
#define ZK_CU_THREADS 256

static inline unsigned zk_cu_blocks(size_t n, unsigned threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

/*
 * The types and operations of one group (G1 or G2 of a curve), for the MSM
 * templates: P / PA Jacobian / affine.  The functions are the ZK_HD ones
 * of common/ec, compiled for the device as well (the CPU twins' own code).
 * OP: "" for the always-inline formulas, _ool for their out-of-line copies
 * (G2: inlining its Fp2 formulas into every MSM kernel made cu_ops.cu take
 * minutes to compile).
 */
#define ZK_CU_GROUP(name, G, OP)                                               \
    struct name {                                                              \
        typedef G P;                                                           \
        typedef G##_affine PA;                                                 \
        static __host__ __device__ void set_inf(P *r) { G##_set_inf(r); }      \
        static __host__ __device__ int is_inf(const P *p) { return G##_is_inf(p); } \
        static __host__ __device__ void add(P *r, const P *p, const P *q) { G##_add##OP(r, p, q); } \
        static __host__ __device__ void madd(P *r, const P *p, const PA *q)    \
        {                                                                      \
            G##_add_affine##OP(r, p, q);                                       \
        }                                                                      \
        static __host__ __device__ void dbl(P *r, const P *p) { G##_dbl##OP(r, p); } \
        static __host__ __device__ void aneg(PA *r, const PA *p) { G##_affine_neg(r, p); } \
    }
ZK_CU_GROUP(cu_bn254_g1, bn254_g1, );
ZK_CU_GROUP(cu_bn254_g2, bn254_g2, _ool);
ZK_CU_GROUP(cu_bls381_g1, bls381_g1, );
ZK_CU_GROUP(cu_bls381_g2, bls381_g2, _ool);

/*
 * The types and operations of one curve, for the templates of the kernels:
 *   Fr: scalar field (Montgomery); g1, g2: its groups.
 * The device functions are common/ff's ZK_HD ones, as above.
 */
struct cu_bn254 {
    typedef bn254_fr Fr;
    typedef cu_bn254_g1 g1;
    typedef cu_bn254_g2 g2;
    static constexpr enum zk_curve curve = ZK_CURVE_BN254;
    static __host__ __device__ void fr_add(Fr *r, const Fr *a, const Fr *b) { bn254_fr_add(r, a, b); }
    static __host__ __device__ void fr_sub(Fr *r, const Fr *a, const Fr *b) { bn254_fr_sub(r, a, b); }
    static __host__ __device__ void fr_mul(Fr *r, const Fr *a, const Fr *b) { bn254_fr_mul(r, a, b); }
    static __host__ __device__ void fr_from_mont(Fr *r, const Fr *a) { bn254_fr_from_mont(r, a); }
    static void fr_root(Fr *r, unsigned k) { bn254_fr_root_of_unity(r, k); }
    static void fr_inv(Fr *r, const Fr *a) { bn254_fr_inv(r, a); }
    static void fr_mul_h(Fr *r, const Fr *a, const Fr *b) { bn254_fr_mul(r, a, b); }
    static void fr_one(Fr *r) { bn254_fr_one(r); }
    static void fr_from_u64(Fr *r, uint64_t v) { bn254_fr_from_u64(r, v); }
};

struct cu_bls381 {
    typedef bls381_fr Fr;
    typedef cu_bls381_g1 g1;
    typedef cu_bls381_g2 g2;
    static constexpr enum zk_curve curve = ZK_CURVE_BLS12_381;
    static __host__ __device__ void fr_add(Fr *r, const Fr *a, const Fr *b) { bls381_fr_add(r, a, b); }
    static __host__ __device__ void fr_sub(Fr *r, const Fr *a, const Fr *b) { bls381_fr_sub(r, a, b); }
    static __host__ __device__ void fr_mul(Fr *r, const Fr *a, const Fr *b) { bls381_fr_mul(r, a, b); }
    static __host__ __device__ void fr_from_mont(Fr *r, const Fr *a) { bls381_fr_from_mont(r, a); }
    static void fr_root(Fr *r, unsigned k) { bls381_fr_root_of_unity(r, k); }
    static void fr_inv(Fr *r, const Fr *a) { bls381_fr_inv(r, a); }
    static void fr_mul_h(Fr *r, const Fr *a, const Fr *b) { bls381_fr_mul(r, a, b); }
    static void fr_one(Fr *r) { bls381_fr_one(r); }
    static void fr_from_u64(Fr *r, uint64_t v) { bls381_fr_from_u64(r, v); }
};

#endif /* ZK_GPUD_CUDA_CU_COMMON_CUH */

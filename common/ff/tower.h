/*
 * tower.h -- Fp2 = Fp[u]/(u^2+1) for both curves:
 *   bn254_fp2  (sextic non-residue xi = 9 + u)
 *   bls381_fp2 (sextic non-residue xi = 1 + u)
 * Fp6 = Fp2[v]/(v^3 - xi) and Fp12 = Fp6[w]/(w^2 - v) are in fp12.h.
 */
#ifndef ZK_COMMON_FF_TOWER_H
#define ZK_COMMON_FF_TOWER_H

#include "fields.h"

/*
 * ZK_INLINE: inline, but the compiler decides.  The field primitives are
 * forced inline (ZK_HD); the larger tower and point operations are not, or
 * every call site of a point addition would carry ~20 inlined field
 * multiplications and builds of the pairing and curve code would take
 * minutes.
 */
#ifndef ZK_INLINE
# if defined(__CUDACC__)
#  define ZK_INLINE __host__ __device__ inline
# else
#  define ZK_INLINE static inline
# endif
#endif

/*
 * ZK_FP2_LAZY = 1: Fp2 multiplication takes its three Karatsuba products
 * double-width and reduces only the two results (fp2_tmpl.h's mul_lazy);
 * 0: three Montgomery multiplications (mul_3m).  Both compute the same
 * fully reduced result.  Lazy on the host, with the assembly or without
 * (faster both ways: docs/arithmetic.md); never in nvcc's passes or the
 * GPU's 32-bit form (ZK_FF_MONT32), which keep mul_3m untouched.
 */
#ifndef ZK_FP2_LAZY
# if !ZK_FF_MONT32 && !defined(__CUDACC__)
#  define ZK_FP2_LAZY 1
# else
#  define ZK_FP2_LAZY 0
# endif
#endif

/*                  type        base field  xi = A + B*u  (fp2_tmpl.h) */
#define ZK_FP2_TMPL (bn254_fp2,  bn254_fp,   9, 1)
#include "fp2_tmpl.h"
#define ZK_FP2_TMPL (bls381_fp2, bls381_fp,  1, 1)
#include "fp2_tmpl.h"

#endif /* ZK_COMMON_FF_TOWER_H */

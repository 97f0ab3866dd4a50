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

#define ZK_E bn254_fp2
#define ZK_E_F bn254_fp
#define ZK_E_XI_A 9
#define ZK_E_XI_B 1
#include "fp2_tmpl.h"
#undef ZK_E
#undef ZK_E_F
#undef ZK_E_XI_A
#undef ZK_E_XI_B

#define ZK_E bls381_fp2
#define ZK_E_F bls381_fp
#define ZK_E_XI_A 1
#define ZK_E_XI_B 1
#include "fp2_tmpl.h"
#undef ZK_E
#undef ZK_E_F
#undef ZK_E_XI_A
#undef ZK_E_XI_B

#endif /* ZK_COMMON_FF_TOWER_H */

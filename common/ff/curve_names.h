/*
 * curve_names.h -- the names of one curve's types and functions, defined
 * once for the per-curve templates (pairing_tmpl.h, setup_tmpl.h,
 * prove_tmpl.h, tests/groth16_test_tmpl.h).
 *
 * A template defines CURVE_NAME(name), the curve's prefix pasted to name
 * (CURVE_NAME(fr) is bn254_fr), then includes this file, which defines
 *   FR_T FP_T FP2_T FP12_T G1_T G2_T G1_AFFINE_T G2_AFFINE_T   the types
 *   FR_FN FP_FN FP2_FN FP12_FN G1_FN G2_FN   their functions
 *                                            (G1_FN(add) is bn254_g1_add)
 * At its end the template includes this file again, which undefines them
 * all and CURVE_NAME.  (No include guard: the second inclusion is meant.)
 */
#ifndef ZK_CURVE_NAMES_DEFINED
#define ZK_CURVE_NAMES_DEFINED
#define FR_T           CURVE_NAME(fr)
#define FP_T           CURVE_NAME(fp)
#define FP2_T          CURVE_NAME(fp2)
#define FP12_T         CURVE_NAME(fp12)
#define G1_T           CURVE_NAME(g1)
#define G2_T           CURVE_NAME(g2)
#define G1_AFFINE_T    CURVE_NAME(g1_affine)
#define G2_AFFINE_T    CURVE_NAME(g2_affine)
#define FR_FN(name)    ZK_CAT(FR_T, name)
#define FP_FN(name)    ZK_CAT(FP_T, name)
#define FP2_FN(name)   ZK_CAT(FP2_T, name)
#define FP12_FN(name)  ZK_CAT(FP12_T, name)
#define G1_FN(name)    ZK_CAT(G1_T, name)
#define G2_FN(name)    ZK_CAT(G2_T, name)
#else
#undef ZK_CURVE_NAMES_DEFINED
#undef FR_T
#undef FP_T
#undef FP2_T
#undef FP12_T
#undef G1_T
#undef G2_T
#undef G1_AFFINE_T
#undef G2_AFFINE_T
#undef FR_FN
#undef FP_FN
#undef FP2_FN
#undef FP12_FN
#undef G1_FN
#undef G2_FN
#undef CURVE_NAME
#endif

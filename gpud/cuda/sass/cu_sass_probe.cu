/*
 * cu_sass_probe.cu -- not part of zkcuda (gpud/CMakeLists.txt takes only
 * gpud/cuda/*.cu): the kernels tools/cuda-sass.sh compiles for sm_90 to
 * count what the device runs, no GPU needed:
 *   probe_mul_<field>, probe_sqr_<field>: one Montgomery multiplication
 *       (squaring) of common/ff for BN254 Fp, Fr and BLS12-381 Fp, Fr, with
 *       its loads and stores: the SASS instruction count per operation of
 *       the path the build selects (ZK_FF_MONT32 0: 64-bit limbs through
 *       unsigned __int128; 1: common/ff/mont32.h's 32-bit words);
 *   k_msm_chunks0 on G1 of both curves (with CU_SASS_MSM=1): the MSM's
 *       accumulation loop, whose stack frame must be 0 (the conditional
 *       negation in registers, issue 21).
 */
#include "../cu_msm.cuh"

#define CU_SASS_PROBE(F)                                                       \
    __global__ void probe_mul_##F(F *r, const F *a, const F *b)                \
    {                                                                          \
        F##_mul(r, a, b);                                                      \
    }                                                                          \
    __global__ void probe_sqr_##F(F *r, const F *a)                            \
    {                                                                          \
        F##_sqr(r, a);                                                         \
    }
CU_SASS_PROBE(bn254_fp)
CU_SASS_PROBE(bn254_fr)
CU_SASS_PROBE(bls381_fp)
CU_SASS_PROBE(bls381_fr)

#if CU_SASS_MSM
template __global__ void k_msm_chunks0<cu_bn254_g1>(cu_msm_entries<cu_bn254_g1>, size_t,
                                                    cu_bn254_g1::P *, uint32_t *,
                                                    cu_bn254_g1::P *);
template __global__ void k_msm_chunks0<cu_bls381_g1>(cu_msm_entries<cu_bls381_g1>, size_t,
                                                     cu_bls381_g1::P *, uint32_t *,
                                                     cu_bls381_g1::P *);
#endif

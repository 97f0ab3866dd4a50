/*
 * cu_msm_bls381_g1.cu -- the MSM (cu_msm.cuh) on G1 of BLS12-381.
 */
#include "cu_msm.cuh"

CU_MSM_INST(cu_bls381_g1)

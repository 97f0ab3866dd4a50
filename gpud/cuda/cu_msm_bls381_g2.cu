/*
 * cu_msm_bls381_g2.cu -- the MSM (cu_msm.cuh) on G2 of BLS12-381: the proof's
 * B2, with the out-of-line point formulas (cu_common.cuh).
 */
#include "cu_msm.cuh"

CU_MSM_INST(cu_bls381_g2)

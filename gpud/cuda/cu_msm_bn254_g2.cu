/*
 * cu_msm_bn254_g2.cu -- the MSM (cu_msm.cuh) on G2 of BN254: the proof's
 * B2, with the out-of-line point formulas (cu_common.cuh).
 */
#include "cu_msm.cuh"

CU_MSM_INST(cu_bn254_g2)

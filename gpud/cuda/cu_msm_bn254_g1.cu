/*
 * cu_msm_bn254_g1.cu -- the MSM (cu_msm.cuh) on G1 of BN254.
 */
#include "cu_msm.cuh"

CU_MSM_INST(cu_bn254_g1)

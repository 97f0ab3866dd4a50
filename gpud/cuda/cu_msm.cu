/*
 * cu_msm.cu -- the MSM's shape functions (cu_ops.cuh), which the prover
 * sizes its memory with; the kernels are cu_msm.cuh's, instantiated per
 * group in cu_msm_<curve>_g<k>.cu.
 */
#include "cu_msm.cuh"

size_t cu_msm_scratch_bytes(size_t n, size_t p_bytes)
{
    cu_msm_layout L;
    if (n == 0)
        return 0;
    return cu_msm_layout_of(n, p_bytes, &L) ? 0 : L.total;
}

size_t cu_msm_parts(size_t n)
{
    return n ? cu_msm_shape_of(n).nwin : 0;
}

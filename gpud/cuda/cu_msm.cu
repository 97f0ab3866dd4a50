/*
 * cu_msm.cu -- the MSM's shape functions (cu_ops.cuh), which the prover
 * sizes its memory with; the kernels are cu_msm.cuh's, instantiated per
 * group in cu_msm_<curve>_g<k>.cu.
 */
#include "cu_msm.cuh"

size_t cu_msm_scratch_bytes(size_t n, size_t p_bytes)
{
    cu_msm_shape m = cu_msm_shape_of(n);
    size_t e = (size_t)m.gw * n, t0 = cu_msm_chunks_of(e), t1 = cu_msm_chunks_of(t0);
    /* keys, values and their sorted copies; CUB's temporary storage (about
     * as much again as a sort's input); two levels of carries; buckets,
     * segment and window sums; rounded up generously */
    size_t b = 16 * e + 8 * e + (t0 + t1) * (p_bytes + 4) +
               ((size_t)m.gw * (m.nbk + m.nseg) + m.nwin) * p_bytes;
    return b + b / 4 + ((size_t)1 << 20);
}

size_t cu_msm_parts(size_t n)
{
    return n ? cu_msm_shape_of(n).nwin : 0;
}

/*
 * cu_bp.cu -- zk_cuda_bp_prove of zkcuda.h: bellperson's prover
 * (common/bellperson/, zk_bp_prove_with) with its NTTs and MSMs on a
 * device, through zk_cuda_ntt and zk_cuda_msm_g1/_g2 (host memory in and
 * out, the key's points copied for each MSM: no resident upload yet).
 * Host code only; built by nvcc into zkcuda, and as C++ against the
 * emulator (tests/cuemu) for the tests.
 */
#include "zkcuda.h"
#include "zk/error.h"

struct cu_bp_ctx {
    int dev;
};

static int cu_bp_ntt(void *ctx, uint64_t *data, unsigned log_n, int inverse,
                     const uint64_t *shift)
{
    const struct cu_bp_ctx *c = (const struct cu_bp_ctx *)ctx;
    return zk_cuda_ntt(c->dev, ZK_CURVE_BLS12_381, (zk_scalar *)data, log_n, inverse,
                       (const zk_scalar *)shift, 0);
}

static int cu_bp_msm_g1(void *ctx, uint64_t *ret_jac, const void *points,
                        const uint64_t *scalars, size_t n)
{
    const struct cu_bp_ctx *c = (const struct cu_bp_ctx *)ctx;
    return zk_cuda_msm_g1(c->dev, ZK_CURVE_BLS12_381, ret_jac, points,
                          (const zk_scalar *)scalars, n);
}

static int cu_bp_msm_g2(void *ctx, uint64_t *ret_jac, const void *points,
                        const uint64_t *scalars, size_t n)
{
    const struct cu_bp_ctx *c = (const struct cu_bp_ctx *)ctx;
    return zk_cuda_msm_g2(c->dev, ZK_CURVE_BLS12_381, ret_jac, points,
                          (const zk_scalar *)scalars, n);
}

int zk_cuda_bp_prove(int dev, const zk_bp_key *key, const zk_bp_assignment *as,
                     const uint8_t r[32], const uint8_t s[32], unsigned threads,
                     uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *diag)
{
    struct cu_bp_ctx c = { dev };
    struct zk_bp_engine e = { "cuda", &c, cu_bp_ntt, cu_bp_msm_g1, cu_bp_msm_g2,
                              zk_cuda_strerror };
    if (!zk_cuda_available())
        return zk_diag_set(diag, "prove", ZK_ENODEV, "cuda: %s", zk_cuda_last_error());
    return zk_bp_prove_with(&e, key, as, r, s, threads, proof, diag);
}

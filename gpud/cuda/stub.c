/*
 * stub.c -- zkcuda.h without CUDA (nvcc not found, or ZK_ENABLE_CUDA=OFF):
 * no device is ever available and every operation returns ZK_ENODEV, so
 * callers need no #ifdef.
 */
#include "zkcuda.h"
#include "zk/error.h"

int zk_cuda_available(void) { return 0; }
int zk_cuda_device_count(void) { return 0; }

int zk_cuda_device_describe(int dev, char *buf, size_t len)
{
    (void)dev;
    if (buf && len)
        buf[0] = '\0';
    return ZK_ENODEV;
}

const char *zk_cuda_last_error(void)
{
    return "CUDA support is not built into this binary (no nvcc at build time, "
           "or ZK_ENABLE_CUDA=OFF)";
}

const char *zk_cuda_strerror(int rc) { return zk_strerror(rc); }

double zk_cuda_last_kernel_seconds(void) { return 0; }

int zk_cuda_ntt(int dev, enum zk_curve curve, zk_scalar *data, unsigned log_n, int inverse,
                const zk_scalar *shift, int odd_coset)
{
    (void)dev; (void)curve; (void)data; (void)log_n; (void)inverse; (void)shift; (void)odd_coset;
    return ZK_ENODEV;
}

int zk_cuda_msm_g1(int dev, enum zk_curve curve, uint64_t *ret_jac, const void *points,
                   const zk_scalar *scalars, size_t n)
{
    (void)dev; (void)curve; (void)ret_jac; (void)points; (void)scalars; (void)n;
    return ZK_ENODEV;
}

int zk_cuda_msm_g2(int dev, enum zk_curve curve, uint64_t *ret_jac, const void *points,
                   const zk_scalar *scalars, size_t n)
{
    return zk_cuda_msm_g1(dev, curve, ret_jac, points, scalars, n);
}

int zk_cuda_prover_new(int dev, const struct zk_groth16_key *k, struct zk_cuda_prover **ret)
{
    (void)dev; (void)k; (void)ret;
    return ZK_ENODEV;
}

int zk_cuda_prover_describe(const struct zk_cuda_prover *p, char *buf, size_t len)
{
    (void)p; (void)buf; (void)len;
    return ZK_EBADPARAMS;
}

struct zk_cuda_prover *zk_cuda_prover_free(struct zk_cuda_prover *p)
{
    (void)p;
    return NULL;
}

int zk_cuda_prove_start(struct zk_cuda_prover *p, const zk_scalar *w, const zk_scalar *a,
                        const zk_scalar *b, const zk_scalar *c, void (*copied)(void *ctx),
                        void *ctx, struct zk_groth16_pending **ret)
{
    (void)p; (void)w; (void)a; (void)b; (void)c; (void)copied; (void)ctx; (void)ret;
    return ZK_ENODEV;
}

int zk_cuda_prove_enqueue(struct zk_cuda_prover *p, const zk_scalar *w, const zk_scalar *a,
                          const zk_scalar *b, const zk_scalar *c, void (*copied)(void *ctx),
                          void *ctx, struct zk_cuda_job **job)
{
    (void)p; (void)w; (void)a; (void)b; (void)c; (void)copied; (void)ctx; (void)job;
    return ZK_ENODEV;
}

int zk_cuda_job_wait(struct zk_cuda_job *job, struct zk_groth16_pending **ret)
{
    (void)job; (void)ret;
    return ZK_ENODEV;
}

int zk_cuda_register(void *mem, size_t len)
{
    (void)mem; (void)len;
    return ZK_ENODEV;
}

int zk_cuda_unregister(void *mem, size_t len)
{
    (void)mem; (void)len;
    return ZK_ENODEV;
}

int zk_cuda_bp_prove(int dev, const zk_bp_key *key, const zk_bp_assignment *as,
                     const uint8_t r[32], const uint8_t s[32], unsigned threads,
                     uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *diag)
{
    (void)dev; (void)key; (void)as; (void)r; (void)s; (void)threads; (void)proof;
    return zk_diag_set(diag, "prove", ZK_ENODEV, "cuda: %s", zk_cuda_last_error());
}

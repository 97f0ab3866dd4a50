/*
 * backend_cuda.c -- the CUDA backend of gpud: prove_start on one GPU
 * (gpud/cuda/zkcuda.h), every MSM included (B2's on G2: finalize is left
 * with blinding and assembly).  Each key's points are uploaded once, when the
 * key is loaded (or at its first partition), and stay on the device; the
 * pool is page-locked once at start so that the copies from slots run at
 * full speed.  prove_start queues a partition on the GPU and returns (the
 * slot is let go from a CUDA thread when its copy is done); prove_wait, in
 * gpud's finisher thread, waits for it before finalize on the CPU.
 *
 * Without CUDA in the build, or without a usable GPU, gpud_backend_cuda
 * says so and gpud falls back to the CPU backend (backend_cpu.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend.h"
#include "daemon/zkd.h"
#include "zk/slotfmt.h"
#include "zkcuda.h"

struct cuda_key {
    const struct zk_groth16_key *k;
    struct zk_cuda_prover *p;
};

static int cuda_dev;
static pthread_mutex_t cuda_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cuda_key *cuda_keys;
static size_t cuda_nkeys;

/* The device prover of k, created on first use. */
static int cuda_prover(const struct zk_groth16_key *k, struct zk_cuda_prover **ret,
                       struct zk_diag *diag)
{
    int rc = 0;
    pthread_mutex_lock(&cuda_lock);
    for (size_t i = 0; i < cuda_nkeys; i++) {
        if (cuda_keys[i].k == k) {
            *ret = cuda_keys[i].p;
            goto out;
        }
    }
    struct cuda_key *v = realloc(cuda_keys, (cuda_nkeys + 1) * sizeof *v);
    if (!v) {
        rc = zk_diag_set(diag, "cuda backend", -ENOMEM, "out of memory");
        goto out;
    }
    cuda_keys = v;
    struct zk_cuda_prover *p = NULL;
    if ((rc = zk_cuda_prover_new(cuda_dev, k, &p))) {
        zk_diag_set(diag, "cuda backend", rc, "uploading the key's points to GPU %d: %s",
                    cuda_dev, zk_cuda_strerror(rc));
        goto out;
    }
    cuda_keys[cuda_nkeys++] = (struct cuda_key){ k, p };
    *ret = p;
    char where[320];
    if (zk_cuda_prover_describe(p, where, sizeof where) == 0)
        zkd_log(ZKD_INFO, "GPU %d: key points %s", cuda_dev, where);
out:
    pthread_mutex_unlock(&cuda_lock);
    return rc;
}

static int cuda_key_loaded(const struct gpud_backend *b, const struct zk_groth16_key *k,
                           struct zk_diag *diag)
{
    struct zk_cuda_prover *p;
    (void)b;
    return cuda_prover(k, &p, diag);
}

static int cuda_prove_start(const struct gpud_backend *b, const struct zk_groth16_key *k,
                            const struct zk_slot *s, unsigned nthreads,
                            void (*done_with_slot)(void *ctx), void *ctx, void **job,
                            struct zk_diag *diag)
{
    struct zk_cuda_prover *p;
    int rc;
    (void)b;
    (void)nthreads;
    if ((rc = cuda_prover(k, &p, diag)))
        return rc;
    rc = zk_cuda_prove_enqueue(p, (const zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_W]),
                               (const zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_A]),
                               (const zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_B]),
                               (const zk_scalar *)(s->data + s->region_off[ZK_SLOTFMT_C]),
                               done_with_slot, ctx, (struct zk_cuda_job **)job);
    if (rc)
        return zk_diag_set(diag, "cuda backend", rc, "prove_start on GPU %d failed: %s",
                           cuda_dev, zk_cuda_strerror(rc));
    return 0;
}

static int cuda_prove_wait(const struct gpud_backend *b, void *job,
                           struct zk_groth16_pending **ret, struct zk_diag *diag)
{
    (void)b;
    int rc = zk_cuda_job_wait(job, ret);
    if (rc)
        return zk_diag_set(diag, "cuda backend", rc, "prove_start on GPU %d failed: %s",
                           cuda_dev, zk_cuda_strerror(rc));
    return 0;
}

static int cuda_attach_pool(const struct gpud_backend *b, void *mem, size_t len,
                            struct zk_diag *diag)
{
    (void)b;
    int rc = zk_cuda_register(mem, len);
    if (rc)
        return zk_diag_set(diag, "cuda backend", rc, "page-locking the pool (%zu bytes): %s",
                           len, zk_cuda_strerror(rc));
    return 0;
}

static void cuda_detach(const struct gpud_backend *b, void *mem, size_t len)
{
    (void)b;
    pthread_mutex_lock(&cuda_lock);
    for (size_t i = 0; i < cuda_nkeys; i++)
        zk_cuda_prover_free(cuda_keys[i].p);
    free(cuda_keys);
    cuda_keys = NULL;
    cuda_nkeys = 0;
    pthread_mutex_unlock(&cuda_lock);
    if (mem)
        zk_cuda_unregister(mem, len);
}

static const struct gpud_backend cuda_backend = {
    "cuda",
    ZK_G16_LOAD_POINTS,
    cuda_prove_start,
    cuda_prove_wait,
    cuda_attach_pool,
    cuda_key_loaded,
    cuda_detach,
};

const struct gpud_backend *gpud_backend_cuda(int device, struct zk_diag *diag)
{
    int n = zk_cuda_device_count();
    if (n == 0) {
        zk_diag_set(diag, "--backend cuda", ZK_ENODEV,
                    "no usable GPU (no CUDA device or driver, or CUDA not built into this "
                    "gpud): using the CPU backend");
        return NULL;
    }
    if (device < 0 || device >= n) {
        zk_diag_set(diag, "--device", ZK_ENODEV, "GPU %d does not exist (%d visible)", device, n);
        return NULL;
    }
    cuda_dev = device;
    return &cuda_backend;
}

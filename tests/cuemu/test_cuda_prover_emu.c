/*
 * test_cuda_prover_emu.c -- regression tests of issue 21 for the GPU
 * prover (gpud/cuda/cu_prover.cu), run by cuemu with two devices
 * (CUEMU_DEVICES=2, set by ctest):
 *   device_order: a prover on device 1, its jobs queued from one fresh
 *       thread and waited for from another (gpud's starter and finisher),
 *       gives the CPU's proof.  Every thread that touches CUDA must set its
 *       device first: a fresh thread's current device is 0, and an event
 *       made there cannot be recorded on device 1's streams (cuemu fails
 *       the record as the runtime does).  Failed before the fix:
 *       cu_job_get created the job's events before cudaSetDevice.
 *   steady_alloc: after a prover's first proof, further proofs make no
 *       allocation call at all (the MSM and NTT scratch is the prover's,
 *       allocated once; the jobs' buffers are recycled).  Failed before the
 *       fix: each MSM called cudaMallocAsync seven times, inside the timed
 *       window.
 * Both curves' example keys.  Exits 0 or 1 (cuemu is always there).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuemu.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zkcuda.h"
#include "zkexample.h"
#include "zktest.h"

static const zk_scalar R = { { 13, 0, 0, 0 } }, S = { { 17, 0, 0, 0 } };

struct job_arg {
    struct zk_cuda_prover *p;
    const zk_scalar *w, *abc;
    size_t n;
    struct zk_cuda_job *job;
    struct zk_groth16_pending *pg;
    int rc;
};

static void *enqueue_main(void *arg)
{
    struct job_arg *a = arg;
    a->rc = zk_cuda_prove_enqueue(a->p, a->w, a->abc, a->abc + a->n, a->abc + 2 * a->n, NULL,
                                  NULL, &a->job);
    if (a->rc)
        fprintf(stderr, "enqueue: %s\n", zk_cuda_strerror(a->rc));
    return NULL;
}

static void *wait_main(void *arg)
{
    struct job_arg *a = arg;
    a->rc = zk_cuda_job_wait(a->job, &a->pg);
    if (a->rc)
        fprintf(stderr, "job_wait: %s\n", zk_cuda_strerror(a->rc));
    return NULL;
}

/* fn(arg) on a new thread, joined */
static void on_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    ZT_REQUIRE(pthread_create(&t, NULL, fn, arg) == 0, , "pthread_create");
    pthread_join(t, NULL);
}

/* The example key of curve_dir, its witness's a, b, c (*abc) and CPU proof
 * (*want), and a GPU prover on device dev.  0, or -1 after a failure. */
static int setup(const char *curve_dir, int dev, struct zt_example *ex, zk_scalar **abc,
                 struct zk_groth16_proof *want, struct zk_cuda_prover **cp)
{
    char err[256];
    ZT_REQUIRE(zt_example_load(curve_dir, ex, err, sizeof err) == 0, -1, "%s", err);
    *abc = malloc(3 * ex->h->domain_size * sizeof **abc);
    ZT_REQUIRE(*abc && zt_example_cpu_proof(ex, ex->w, *abc, &R, &S, want) == 0, -1,
               "cpu proof");
    int rc = zk_cuda_prover_new(dev, ex->k, cp);
    ZT_REQUIRE(rc == 0, -1, "%s: prover_new on device %d: %s", curve_dir, dev,
               zk_cuda_strerror(rc));
    return 0;
}

static void device_order(const char *curve_dir)
{
    struct zt_example ex;
    struct zk_cuda_prover *cp = NULL;
    struct zk_groth16_proof want, got;
    zk_scalar *abc = NULL;
    if (setup(curve_dir, 1, &ex, &abc, &want, &cp))
        return;
    size_t n = ex.h->domain_size;
    for (int i = 0; i < 2; i++) {         /* a new job, then a recycled one */
        struct job_arg a = { cp, ex.w, abc, n, NULL, NULL, 0 };
        on_thread(enqueue_main, &a);
        ZT_CHECK(a.rc == 0, "%s: device 1, enqueue from a fresh thread (job %d): see above",
                 curve_dir, i);
        if (a.rc)
            break;
        on_thread(wait_main, &a);
        ZT_CHECK(a.rc == 0, "%s: device 1, wait from a fresh thread (job %d)", curve_dir, i);
        if (a.rc == 0) {
            ZT_CHECK(zk_groth16_prove_finalize_rs(a.pg, &R, &S, 0, &got) == 0, "finalize");
            ZT_CHECK(zt_proof_eq(&got, &want), "%s: device 1: the proof differs from the CPU's",
                     curve_dir);
        }
        zk_groth16_pending_free(a.pg);
    }
    zk_cuda_prover_free(cp);
    ZT_CHECK(cuemu_live_allocations() == 0, "%s: %zu device allocations left", curve_dir,
             cuemu_live_allocations());
    zt_example_free(&ex);
    free(abc);
}

static void steady_alloc(const char *curve_dir)
{
    struct zt_example ex;
    struct zk_cuda_prover *cp = NULL;
    struct zk_groth16_proof want, got;
    zk_scalar *abc = NULL;
    int rc;
    if (setup(curve_dir, 0, &ex, &abc, &want, &cp))
        return;
    size_t n = ex.h->domain_size;
    long before = 0;
    for (int i = 0; i < 4; i++) {
        struct zk_groth16_pending *pg = NULL;
        if (i == 1)                      /* the first proof made the job */
            before = cuemu_alloc_calls();
        rc = zk_cuda_prove_start(cp, ex.w, abc, abc + n, abc + 2 * n, NULL, NULL, &pg);
        ZT_CHECK(rc == 0, "%s: prove %d: %s", curve_dir, i, zk_cuda_strerror(rc));
        if (rc == 0) {
            ZT_CHECK(zk_groth16_prove_finalize_rs(pg, &R, &S, 0, &got) == 0, "finalize");
            ZT_CHECK(zt_proof_eq(&got, &want), "%s: prove %d differs from the CPU's", curve_dir,
                     i);
        }
        zk_groth16_pending_free(pg);
    }
    long added = cuemu_alloc_calls() - before;
    ZT_CHECK(added == 0, "%s: %ld allocation calls in 3 proofs after the first (want 0: the "
             "scratch is allocated once per prover)", curve_dir, added);
    zk_cuda_prover_free(cp);
    zt_example_free(&ex);
    free(abc);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    ZT_REQUIRE(zk_cuda_device_count() == 2, 1, "run with CUEMU_DEVICES=2 (got %d devices)",
               zk_cuda_device_count());
    device_order("bn128");
    device_order("bls12381");
    steady_alloc("bn128");
    steady_alloc("bls12381");
    return zt_finish();
}

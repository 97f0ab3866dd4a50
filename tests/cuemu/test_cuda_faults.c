/*
 * test_cuda_faults.c -- every CUDA call of gpud/cuda failing in turn, with
 * the kernels run on the CPU by cuemu.  For zk_cuda_prover_new,
 * zk_cuda_prove_start, zk_cuda_ntt and zk_cuda_msm_g1, runtime call number
 * i (i = 1 .. the number of calls the operation makes) is made to fail,
 * once as a transient error (that call only) and once as a lost device
 * (that call and every later one).  Each time:
 *   - the operation returns 0 with the right result (the failed call was
 *     in the cleanup, where failures are ignored), or ZK_EGPU with the
 *     failed call named in zk_cuda_last_error and no result (no prover, no
 *     pending proof);
 *   - copied() is called at most once;
 *   - after a transient error no device memory is left behind (unless the
 *     failed call was itself a free), and the next operation is not
 *     poisoned by the stale error;
 * and at the end the same prover still gives the CPU's proof.  Then a GPU
 * too small for the key (small_memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuemu.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/zkey.h"
#include "zkcuda.h"
#include "zkexample.h"
#include "zktest.h"

static int n_copied;
static void on_copied(void *ctx)
{
    (void)ctx;
    n_copied++;
}

static const zk_scalar R = { { 5, 0, 0, 0 } }, S = { { 9, 0, 0, 0 } };

/* ZK_EGPU, reported as a CUDA failure of a named call at a source line */
static int gpu_error_named(int rc)
{
    const char *e = zk_cuda_last_error();
    return rc == ZK_EGPU && strstr(e, "cuda") && (strstr(e, ".cu:") || strstr(e, ".cuh:"));
}

/* a failed free leaves its memory behind: not the code's fault */
static int injected_free(void)
{
    return strncmp(cuemu_injected(), "cudaFree", 8) == 0;
}

/* Checks one failing run: op() returned rc; ok_result: its result is right. */
#define CHECK_RUN(what, i, sticky, rc, ok_result, live0)                       \
    do {                                                                       \
        if ((rc) == 0)                                                         \
            ZT_CHECK(ok_result, "%s, call %ld failing (%s, %s): rc 0 but a wrong result", \
                     what, i, sticky ? "lost device" : "transient", cuemu_injected()); \
        else                                                                   \
            ZT_CHECK(gpu_error_named(rc), "%s, call %ld failing (%s, %s): %d (%s)", what, i, \
                     sticky ? "lost device" : "transient", cuemu_injected(), rc, \
                     zk_cuda_last_error());                                    \
        if (!(sticky) && !injected_free())                                     \
            ZT_CHECK(cuemu_live_allocations() == (live0),                      \
                     "%s, call %ld failing (%s): %zu device allocations left", what, i, \
                     cuemu_injected(), cuemu_live_allocations() - (live0));    \
    } while (0)

static void sweep_prover(const char *curve_dir)
{
    struct zt_example ex;
    char err[256];
    struct zk_cuda_prover *cp = NULL;
    struct zk_groth16_pending *pg = NULL;
    struct zk_groth16_proof want, got;
    size_t base;
    long calls, i;
    int rc, sticky;

    rc = zt_example_load(curve_dir, &ex, err, sizeof err);
    ZT_REQUIRE(rc == 0, , "%s", err);
    size_t n = ex.h->domain_size;
    zk_scalar *abc = malloc(3 * n * sizeof *abc), *abc2 = malloc(3 * n * sizeof *abc);
    ZT_REQUIRE(abc && abc2, , "oom");
    rc = zt_example_cpu_proof(&ex, ex.w, abc, &R, &S, &want);
    ZT_REQUIRE(rc == 0, , "cpu proof %d", rc);

    /* prover_new and its first prove_start (which makes the job: its
     * page-locked buffer and events) */
    base = cuemu_live_allocations();
    calls = cuemu_calls();
    ZT_REQUIRE(zk_cuda_prover_new(0, ex.k, &cp) == 0, , "prover_new");
    memcpy(abc2, abc, 3 * n * sizeof *abc);
    ZT_REQUIRE(zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg) == 0,
               , "prove_start");
    calls = cuemu_calls() - calls;
    pg = zk_groth16_pending_free(pg);
    cp = zk_cuda_prover_free(cp);
    for (sticky = 0; sticky < 2; sticky++)
        for (i = 1; i <= calls; i++) {
            base = cuemu_live_allocations();
            memcpy(abc2, abc, 3 * n * sizeof *abc);
            cuemu_fail_after(i, sticky);
            rc = zk_cuda_prover_new(0, ex.k, &cp);
            if (rc)
                ZT_CHECK(cp == NULL, "prover_new failed but gave a prover");
            else
                rc = zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL,
                                         &pg);
            int same = 0;
            if (rc == 0 && pg)
                same = zk_groth16_prove_finalize_rs(pg, &R, &S, 0, &got) == 0 &&
                       zt_proof_eq(&got, &want);
            pg = zk_groth16_pending_free(pg);
            cp = zk_cuda_prover_free(cp);
            cuemu_fail_after(0, 0);
            CHECK_RUN("prover_new + prove_start", i, sticky, rc, same, base);
        }
    printf("%s: prover_new + first prove_start: %ld calls, both ways\n", curve_dir, calls);

    /* prove_start */
    base = cuemu_live_allocations();
    ZT_REQUIRE(zk_cuda_prover_new(0, ex.k, &cp) == 0, , "prover_new");
    memcpy(abc2, abc, 3 * n * sizeof *abc);
    rc = zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg);
    ZT_REQUIRE(rc == 0, , "%s: prove_start: %s", curve_dir, zk_cuda_strerror(rc));
    pg = zk_groth16_pending_free(pg);
    memcpy(abc2, abc, 3 * n * sizeof *abc);
    calls = cuemu_calls();              /* a prover's later prove_starts */
    rc = zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg);
    calls = cuemu_calls() - calls;
    ZT_REQUIRE(rc == 0, , "%s: prove_start: %s", curve_dir, zk_cuda_strerror(rc));
    pg = zk_groth16_pending_free(pg);
    for (sticky = 0; sticky < 2; sticky++)
        for (i = 1; i <= calls; i++) {
            memcpy(abc2, abc, 3 * n * sizeof *abc);
            n_copied = 0;
            size_t live0 = cuemu_live_allocations();
            cuemu_fail_after(i, sticky);
            rc = zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, on_copied, NULL,
                                     &pg);
            cuemu_fail_after(0, 0);
            int same = 0;
            if (rc == 0 && pg)
                same = zk_groth16_prove_finalize_rs(pg, &R, &S, 0, &got) == 0 &&
                       zt_proof_eq(&got, &want);
            CHECK_RUN("prove_start", i, sticky, rc, same, live0);
            if (rc)
                ZT_CHECK(pg == NULL, "prove_start failed but gave a pending proof");
            ZT_CHECK(n_copied <= 1, "copied() called %d times", n_copied);
            pg = zk_groth16_pending_free(pg);
        }
    printf("%s: prove_start: %ld calls, both ways\n", curve_dir, calls);

    /* the prover still works after all that, and a transient error left
     * nothing for the next call to trip on */
    cuemu_fail_after(1, 0);
    memcpy(abc2, abc, 3 * n * sizeof *abc);
    rc = zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg);
    cuemu_fail_after(0, 0);
    ZT_CHECK(rc == ZK_EGPU, "first call failing: %d", rc);
    memcpy(abc2, abc, 3 * n * sizeof *abc);
    rc = zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg);
    ZT_CHECK(rc == 0, "%s: prove_start after the failures: %s", curve_dir, zk_cuda_strerror(rc));
    if (rc == 0) {
        ZT_CHECK(zk_groth16_prove_finalize_rs(pg, &R, &S, 0, &got) == 0, "gpu finalize");
        ZT_CHECK(zt_proof_eq(&got, &want), "%s: proof after the failures differs",
                 curve_dir);
    }
    pg = zk_groth16_pending_free(pg);
    cp = zk_cuda_prover_free(cp);

    /* a whole prover's life leaves no device memory behind (the sweeps
     * above leaked what the lost device could not free) */
    base = cuemu_live_allocations();
    ZT_CHECK(zk_cuda_prover_new(0, ex.k, &cp) == 0, "prover_new");
    memcpy(abc2, abc, 3 * n * sizeof *abc);
    ZT_CHECK(zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg) == 0,
             "prove_start");
    zk_groth16_pending_free(pg);
    zk_cuda_prover_free(cp);
    ZT_CHECK(cuemu_live_allocations() == base, "%s: a prover's life left %zu device allocations",
             curve_dir, cuemu_live_allocations() - base);

    zt_example_free(&ex);
    free(abc);
    free(abc2);
}

/*
 * A GPU too small for the key: with the device memory cut step by step
 * below what a prover takes, zk_cuda_prover_new either fails cleanly
 * (ZK_EGPU, nothing left behind) or keeps the sections that do not fit in
 * page-locked host memory, and then proves right, its MSMs' scratch having
 * been kept room for.  Some step must have mapped host memory.
 */
static void small_memory(const char *curve_dir)
{
    struct zt_example ex;
    char err[256], desc[200];
    struct zk_cuda_prover *cp = NULL;
    struct zk_groth16_pending *pg = NULL;
    struct zk_groth16_proof want, got;
    static const enum zk_zkey_section secs[4] = { ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1, ZK_ZKEY_SEC_C,
                                                  ZK_ZKEY_SEC_H };
    size_t b0 = cuemu_live_bytes(), total, points = 0;
    int rc, mapped = 0, steps = 0;

    rc = zt_example_load(curve_dir, &ex, err, sizeof err);
    ZT_REQUIRE(rc == 0, , "%s", err);
    size_t n = ex.h->domain_size;
    zk_scalar *abc = malloc(3 * n * sizeof *abc), *abc2 = malloc(3 * n * sizeof *abc);
    ZT_REQUIRE(abc && abc2, , "oom");
    ZT_REQUIRE(zt_example_cpu_proof(&ex, ex.w, abc, &R, &S, &want) == 0, , "cpu proof");
    for (int i = 0; i < 4; i++) {
        uint64_t cnt = 0;
        size_t pb = 0;
        ZT_REQUIRE(zk_groth16_key_points(ex.k, secs[i], &cnt, &pb), , "points");
        points += cnt * pb;
    }
    /* with room to spare: everything on the device */
    ZT_REQUIRE(zk_cuda_prover_new(0, ex.k, &cp) == 0, , "prover_new");
    total = cuemu_live_bytes() - b0;
    zk_cuda_prover_describe(cp, desc, sizeof desc);
    ZT_CHECK(!strcmp(desc, "A B1 C H B2 in device memory") && cuemu_registered() == 0,
             "%s: unlimited memory: %s", curve_dir, desc);
    cp = zk_cuda_prover_free(cp);
    /* the least device memory that still takes every point (bisection: the
     * prover also keeps room for the MSMs' scratch, unknown here) */
    size_t lo = total, hi = total + ((size_t)64 << 20);
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        cuemu_set_device_memory(b0 + mid);
        desc[0] = 0;
        if (zk_cuda_prover_new(0, ex.k, &cp) == 0)
            zk_cuda_prover_describe(cp, desc, sizeof desc);
        cp = zk_cuda_prover_free(cp);
        if (!strcmp(desc, "A B1 C H B2 in device memory"))
            hi = mid;
        else
            lo = mid;
    }
    /* from there down, through the sections moving to host memory, to too
     * little for anything */
    for (size_t cut = 0; cut <= points + points / 2; cut += points / 8 + 1, steps++) {
        cuemu_set_device_memory(b0 + hi - cut);
        rc = zk_cuda_prover_new(0, ex.k, &cp);
        if (rc) {
            ZT_CHECK(rc == ZK_EGPU && !cp, "%s: %zu bytes cut: prover_new %d", curve_dir, cut, rc);
        } else {
            zk_cuda_prover_describe(cp, desc, sizeof desc);
            mapped += strstr(desc, "host memory") != NULL;
            memcpy(abc2, abc, 3 * n * sizeof *abc);
            rc = zk_cuda_prove_start(cp, ex.w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg);
            ZT_CHECK(rc == 0, "%s: %zu bytes cut (%s): prove_start: %s", curve_dir, cut, desc,
                     zk_cuda_strerror(rc));
            if (rc == 0) {
                ZT_CHECK(zk_groth16_prove_finalize_rs(pg, &R, &S, 0, &got) == 0, "finalize");
                ZT_CHECK(zt_proof_eq(&got, &want), "%s: %zu bytes cut (%s): wrong proof",
                         curve_dir, cut, desc);
            }
            pg = zk_groth16_pending_free(pg);
            cp = zk_cuda_prover_free(cp);
        }
        ZT_CHECK(cuemu_live_bytes() == b0 && cuemu_registered() == 0,
                 "%s: %zu bytes cut: memory or registrations left", curve_dir, cut);
    }
    cuemu_set_device_memory(0);
    ZT_CHECK(mapped > 0, "%s: no step kept points in host memory", curve_dir);
    printf("%s: device memory cut in %d steps: %d proved with points in host memory\n",
           curve_dir, steps, mapped);
    zt_example_free(&ex);
    free(abc);
    free(abc2);
}

static void sweep_ops(void)
{
    enum { LOG_N = 11, N = 1 << LOG_N, NM = 300 };
    zk_scalar *x = calloc(N, sizeof *x), *y = calloc(N, sizeof *y), *ref = calloc(N, sizeof *y);
    uint64_t ret[18], want[18];
    static uint64_t pts[NM * 12];         /* all zero: infinity */
    static zk_scalar sc[NM];
    size_t base = cuemu_live_allocations();
    long i, calls;
    int rc, sticky;
    ZT_REQUIRE(x && y && ref, , "oom");
    for (size_t j = 0; j < N; j++)
        x[j].l[0] = j;                    /* small values: valid Montgomery elements */
    for (int inv = 0; inv < 2; inv++) {
        calls = cuemu_calls();
        memcpy(ref, x, N * sizeof *x);
        ZT_REQUIRE(zk_cuda_ntt(0, ZK_CURVE_BN254, ref, LOG_N, inv, NULL, !inv) == 0, , "ntt");
        calls = cuemu_calls() - calls;
        for (sticky = 0; sticky < 2; sticky++)
            for (i = 1; i <= calls; i++) {
                memcpy(y, x, N * sizeof *x);
                base = cuemu_live_allocations();
                cuemu_fail_after(i, sticky);
                rc = zk_cuda_ntt(0, ZK_CURVE_BN254, y, LOG_N, inv, NULL, !inv);
                cuemu_fail_after(0, 0);
                CHECK_RUN(inv ? "inverse ntt" : "odd coset ntt", i, sticky, rc,
                          !memcmp(y, ref, N * sizeof *y), base);
            }
        printf("ntt (%s): %ld failure points, both ways\n", inv ? "inverse" : "odd coset", calls);
    }
    for (size_t j = 0; j < NM; j++)
        sc[j].l[0] = j * 7919;
    calls = cuemu_calls();
    ZT_REQUIRE(zk_cuda_msm_g1(0, ZK_CURVE_BLS12_381, want, pts, sc, NM) == 0, , "msm");
    calls = cuemu_calls() - calls;
    for (sticky = 0; sticky < 2; sticky++)
        for (i = 1; i <= calls; i++) {
            memset(ret, 0x5a, sizeof ret);
            base = cuemu_live_allocations();
            cuemu_fail_after(i, sticky);
            rc = zk_cuda_msm_g1(0, ZK_CURVE_BLS12_381, ret, pts, sc, NM);
            cuemu_fail_after(0, 0);
            CHECK_RUN("msm", i, sticky, rc, !memcmp(ret, want, sizeof ret), base);
        }
    printf("msm: %ld failure points, both ways\n", calls);
    free(x);
    free(y);
    free(ref);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    if (!zk_cuda_available()) {
        printf("FAIL: cuemu reports no device\n");
        return 1;
    }
    sweep_ops();
    sweep_prover("bn128");
    sweep_prover("bls12381");
    small_memory("bn128");
    small_memory("bls12381");
    return zt_finish();
}

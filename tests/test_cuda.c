/*
 * test_cuda.c -- the GPU against its CPU twins (gpud/cuda/zkcuda.h):
 *   NTT forward, inverse, on cosets and the prover's odd coset, at several
 *       sizes, against common/ntt;
 *   G1 MSM with the edge cases of the arithmetic (zero, one, r - 1 and
 *       unreduced scalars, points at infinity, repeated points, P and -P,
 *       sizes 1 .. 2^16 + 3; and scalars skewed as a witness's are, mostly 0
 *       and 1, so that one bucket holds most points) against common/msm;
 *   the same MSM on G2 (the proof's B2), fewer sizes;
 *   prove_start on the GPU for the committed example keys of both curves:
 *       finalized with fixed blinding it gives exactly the CPU's proof, and
 *       the proof verifies; three jobs queued at once, inputs overwritten as
 *       soon as copied() says so, each giving the CPU's proof.
 * Exits 77 (skip) when no GPU can be used, which includes every build
 * without CUDA.  The seed is printed; ZT_SEED reproduces a run.
 *   test_cuda [--device N] [--quick]
 * --device: the GPU to test (default 0); --quick: the small sizes only
 * (NTT up to 2^10, MSM up to 1000 points, G2 up to 10), for the GPU
 * bundle's dry run in cuemu (tools/gpu-bundle.sh).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int dev;                  /* --device */

#include "ec/curves.h"
#include "ff/fields.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/msm.h"
#include "zk/ntt.h"
#include "zk/zkey.h"
#include "zkcuda.h"
#include "zkexample.h"
#include "zktest.h"

/* random canonical Fr in Montgomery form (the top limb masked below r) */
#define RAND_FR(F, x)                                                          \
    do {                                                                       \
        for (;;) {                                                             \
            zt_rand_bytes((x)->l, sizeof (x)->l);                              \
            (x)->l[3] &= 0x0fffffffffffffffULL;                                \
            if (F##_is_canonical((x)->l))                                      \
                break;                                                         \
        }                                                                      \
    } while (0)

/* ---- NTT ------------------------------------------------------------------ */

#define NTT_CHECKS(F, CURVE)                                                   \
    static void F##_check_ntt(unsigned log_n)                                  \
    {                                                                          \
        size_t n = (size_t)1 << log_n;                                         \
        F *x = malloc(n * sizeof *x), *cpu = malloc(n * sizeof *x);            \
        F *gpu = malloc(n * sizeof *x), s;                                     \
        ZT_REQUIRE(x && cpu && gpu, , "oom");                                  \
        for (size_t i = 0; i < n; i++)                                         \
            RAND_FR(F, &x[i]);                                                 \
        RAND_FR(F, &s);                                                        \
        for (int mode = 0; mode < 5; mode++) {                                 \
            int inv = mode == 1 || mode == 3, rc, rg;                          \
            memcpy(cpu, x, n * sizeof *x);                                     \
            memcpy(gpu, x, n * sizeof *x);                                     \
            if (mode < 2)                                                      \
                rc = F##_ntt(cpu, log_n, inv, 0);                              \
            else if (mode < 4)                                                 \
                rc = F##_ntt_coset(cpu, log_n, inv, &s, 0);                    \
            else                                                               \
                rc = F##_ntt_to_odd_coset(cpu, log_n, 0);                      \
            rg = zk_cuda_ntt(dev, CURVE, (zk_scalar *)gpu, log_n, inv,           \
                             mode == 2 || mode == 3 ? (const zk_scalar *)&s : NULL, \
                             mode == 4);                                       \
            ZT_CHECK(rc == rg, #F " ntt 2^%u mode %d: cpu %d gpu %d (%s)", log_n, \
                     mode, rc, rg, zk_cuda_last_error());                      \
            if (rc == 0 && rg == 0)                                            \
                ZT_CHECK(!memcmp(cpu, gpu, n * sizeof *x),                     \
                         #F " ntt 2^%u mode %d differs from the CPU", log_n, mode); \
        }                                                                      \
        free(x);                                                               \
        free(cpu);                                                             \
        free(gpu);                                                             \
    }

NTT_CHECKS(bn254_fr, ZK_CURVE_BN254)
NTT_CHECKS(bls381_fr, ZK_CURVE_BLS12_381)

/* ---- MSM ------------------------------------------------------------------ */

/*
 * n points of a random walk P_i = P_(i-1) + Q from a random multiple of the
 * generator (cheap, all in the subgroup), with edge cases planted, and n
 * scalars: mostly uniform, plus 0, 1, r - 1, 2^256 - 1 (unreduced), and the
 * same point twice, P and -P, infinity.
 */
#define MSM_CHECKS(G, F, FR, CURVE, CU_MSM)                                    \
    static void G##_check_msm(size_t n, int skew)                              \
    {                                                                          \
        G##_affine *pts = malloc((n + 1) * sizeof *pts);                       \
        G *jac = malloc((n + 1) * sizeof *jac);                                \
        F *scr = malloc(3 * (n + 1) * sizeof *scr);                            \
        limb_t *k = malloc((n + 1) * 4 * sizeof *k);                           \
        ZT_REQUIRE(pts && jac && scr && k, , "oom");                           \
        G##_affine g;                                                          \
        G p, q;                                                                \
        limb_t e[4];                                                           \
        G##_generator(&g);                                                     \
        G##_from_affine(&p, &g);                                               \
        zt_rand_bytes(e, sizeof e);                                            \
        G##_mul(&q, &p, e, 256);                                               \
        zt_rand_bytes(e, sizeof e);                                            \
        G##_mul(&p, &p, e, 256);                                               \
        for (size_t i = 0; i < n; i++) {                                       \
            jac[i] = p;                                                        \
            G##_add(&p, &p, &q);                                               \
        }                                                                      \
        G##_batch_to_affine(pts, jac, n, scr);                                 \
        FR v, fixed;                                                           \
        RAND_FR(FR, &fixed);                                                   \
        for (size_t i = 0; i < n; i++) {                                       \
            unsigned char b = 0;                                               \
            RAND_FR(FR, &v);                                                   \
            if (skew)                                                          \
                zt_rand_bytes(&b, 1);                                          \
            if (b >= 64) {          /* skew: a witness's 0s, 1s and repeats */ \
                memset(v.l, 0, sizeof v.l);                                    \
                if (b >= 112) v.l[0] = 1;                                      \
                if (b >= 240) v = fixed;                                       \
            }                                                                  \
            memcpy(&k[4 * i], v.l, sizeof v.l);                                \
        }                                                                      \
        static const limb_t one[4] = { 1, 0, 0, 0 };                           \
        static const limb_t ones[4] = { ~0ULL, ~0ULL, ~0ULL, ~0ULL };          \
        if (n > 1) memset(&k[4], 0, 32);                          /* 0 */      \
        if (n > 2) memcpy(&k[8], one, 32);                        /* 1 */      \
        if (n > 3) { memcpy(&k[12], FR##_P_, 32); k[12]--; }      /* r - 1 */  \
        if (n > 4) memcpy(&k[16], ones, 32);                      /* 2^256-1 */ \
        if (n > 6) pts[6] = pts[5];                               /* twice */  \
        if (n > 8) { G##_affine_neg(&pts[8], &pts[7]);                         \
                     memcpy(&k[32], &k[28], 32); }                /* P, -P */  \
        if (n > 9) memset(&pts[9], 0, sizeof pts[9]);             /* inf */    \
        G cpu, gpu;                                                            \
        int rc = G##_msm(&cpu, pts, k, n, 0, NULL, NULL);                      \
        int rg = CU_MSM(dev, CURVE, (uint64_t *)&gpu, pts,                       \
                                (const zk_scalar *)k, n);                      \
        ZT_CHECK(rc == 0 && rg == 0, #G " msm n=%zu%s: cpu %d gpu %d (%s)", n, \
                 skew ? " skewed" : "", rc, rg, zk_cuda_last_error());          \
        if (rc == 0 && rg == 0)                                                \
            ZT_CHECK(G##_eq(&cpu, &gpu), #G " msm n=%zu%s differs from the CPU", n, \
                     skew ? " skewed" : "");                                   \
        free(pts);                                                             \
        free(jac);                                                             \
        free(scr);                                                             \
        free(k);                                                               \
    }

MSM_CHECKS(bn254_g1, bn254_fp, bn254_fr, ZK_CURVE_BN254, zk_cuda_msm_g1)
MSM_CHECKS(bls381_g1, bls381_fp, bls381_fr, ZK_CURVE_BLS12_381, zk_cuda_msm_g1)
MSM_CHECKS(bn254_g2, bn254_fp2, bn254_fr, ZK_CURVE_BN254, zk_cuda_msm_g2)
MSM_CHECKS(bls381_g2, bls381_fp2, bls381_fr, ZK_CURVE_BLS12_381, zk_cuda_msm_g2)

/* ---- prove_start ------------------------------------------------------------ */

static void check_prove(const char *curve_dir)
{
    struct zt_example ex;
    struct zk_cuda_prover *cp = NULL;
    struct zk_groth16_pending *pc = NULL, *pg = NULL;
    struct zk_groth16_proof prc, prg;
    struct zk_groth16_vk vk;
    zk_scalar *abc = NULL, *abc2 = NULL, r = { { 7, 0, 0, 0 } }, s = { { 11, 0, 0, 0 } };
    char err[256];
    int rc, valid = 0;

    rc = zt_example_load(curve_dir, &ex, err, sizeof err);
    ZT_REQUIRE(rc == 0, , "%s", err);
    const struct zk_groth16_key *k = ex.k;
    const struct zk_zkey_header *h = ex.h;
    const zk_scalar *w = ex.w;
    size_t n = h->domain_size;
    abc = malloc(3 * n * sizeof *abc);
    abc2 = malloc(3 * n * sizeof *abc);
    ZT_REQUIRE(abc && abc2, , "oom");
    rc = zk_groth16_synthesize(k, w, abc, abc + n, abc + 2 * n, 0);
    ZT_REQUIRE(rc == 0, , "synthesize %d", rc);
    memcpy(abc2, abc, 3 * n * sizeof *abc);
    rc = zk_groth16_prove_start(k, w, abc, abc + n, abc + 2 * n, 0, &pc);
    ZT_REQUIRE(rc == 0, , "cpu prove_start %d", rc);
    rc = zk_cuda_prover_new(dev, k, &cp);
    ZT_REQUIRE(rc == 0, , "zk_cuda_prover_new: %s", zk_cuda_strerror(rc));
    rc = zk_cuda_prove_start(cp, w, abc2, abc2 + n, abc2 + 2 * n, NULL, NULL, &pg);
    ZT_CHECK(rc == 0, "%s: gpu prove_start: %s", curve_dir, zk_cuda_strerror(rc));
    if (rc == 0) {
        ZT_CHECK(zk_groth16_prove_finalize_rs(pc, &r, &s, 0, &prc) == 0, "cpu finalize");
        ZT_CHECK(zk_groth16_prove_finalize_rs(pg, &r, &s, 0, &prg) == 0, "gpu finalize");
        ZT_CHECK(zt_proof_eq(&prc, &prg),
                 "%s: the GPU's proof differs from the CPU's", curve_dir);
        ZT_CHECK(zk_groth16_vk_from_key(k, &vk) == 0, "vk");
        rc = zk_groth16_verify(&vk, w + 1, h->n_public, &prg, &valid);
        ZT_CHECK(rc == 0 && valid, "%s: the GPU's proof does not verify", curve_dir);
        zk_groth16_vk_done(&vk);
    }
    zk_groth16_pending_free(pc);
    zk_groth16_pending_free(pg);
    zk_cuda_prover_free(cp);
    zt_example_free(&ex);
    free(abc);
    free(abc2);
}

/*
 * Three jobs queued before any is waited for (the third reuses the first's
 * device buffers), the second with a different witness (w[last] + 1: not a
 * valid witness, but the CPU computes the same thing from it), and every
 * input scribbled over as soon as copied() says so: each job must still give
 * the CPU's proof for its own inputs.
 */
static atomic_int n_copied;
static void on_copied(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&n_copied, 1);
}

static void check_overlap(const char *curve_dir)
{
    struct zt_example ex;
    struct zk_cuda_prover *cp = NULL;
    struct zk_cuda_job *job[3] = { NULL, NULL, NULL };
    zk_scalar r = { { 3, 0, 0, 0 } }, s = { { 4, 0, 0, 0 } };
    char err[256];
    int rc;

    rc = zt_example_load(curve_dir, &ex, err, sizeof err);
    ZT_REQUIRE(rc == 0, , "%s", err);
    size_t nv = ex.h->n_vars, n = ex.h->domain_size;
    zk_scalar *w[2], *abc[2], *in_w = malloc(nv * sizeof(zk_scalar)),
              *in_abc = malloc(3 * n * sizeof(zk_scalar));
    struct zk_groth16_proof want[2], got;
    w[0] = ex.w;
    w[1] = malloc(nv * sizeof(zk_scalar));
    abc[0] = malloc(3 * n * sizeof(zk_scalar));
    abc[1] = malloc(3 * n * sizeof(zk_scalar));
    ZT_REQUIRE(w[1] && abc[0] && abc[1] && in_w && in_abc, , "oom");
    memcpy(w[1], w[0], nv * sizeof(zk_scalar));
    w[1][nv - 1].l[0] += 1;
    for (int v = 0; v < 2; v++)
        ZT_REQUIRE(zt_example_cpu_proof(&ex, w[v], abc[v], &r, &s, &want[v]) == 0, ,
                   "cpu proof");
    ZT_REQUIRE(zk_cuda_prover_new(dev, ex.k, &cp) == 0, , "prover_new");
    for (int i = 0; i < 3; i++) {
        int v = i == 1;
        memcpy(in_w, w[v], nv * sizeof(zk_scalar));
        memcpy(in_abc, abc[v], 3 * n * sizeof(zk_scalar));
        atomic_store(&n_copied, 0);
        rc = zk_cuda_prove_enqueue(cp, in_w, in_abc, in_abc + n, in_abc + 2 * n, on_copied, NULL,
                                   &job[i]);
        ZT_CHECK(rc == 0, "%s: enqueue %d: %s", curve_dir, i, zk_cuda_strerror(rc));
        if (rc)
            break;
        for (int t = 0; atomic_load(&n_copied) == 0 && t < 600000; t++)
            usleep(100);                      /* (a minute at most) */
        ZT_CHECK(atomic_load(&n_copied) == 1, "%s: job %d: copied() called %d times", curve_dir,
                 i, atomic_load(&n_copied));
        /* the slot may go: scribble over it */
        memset(in_w, 0x3c, nv * sizeof(zk_scalar));
        memset(in_abc, 0x3c, 3 * n * sizeof(zk_scalar));
    }
    for (int i = 0; i < 3; i++) {
        struct zk_groth16_pending *pg = NULL;
        if (!job[i])
            continue;
        rc = zk_cuda_job_wait(job[i], &pg);
        ZT_CHECK(rc == 0, "%s: wait %d: %s", curve_dir, i, zk_cuda_strerror(rc));
        if (rc == 0) {
            const struct zk_groth16_proof *wp = &want[i == 1];
            ZT_CHECK(zk_groth16_prove_finalize_rs(pg, &r, &s, 0, &got) == 0, "finalize");
            ZT_CHECK(zt_proof_eq(&got, wp),
                     "%s: queued job %d: the GPU's proof differs from the CPU's", curve_dir, i);
        }
        zk_groth16_pending_free(pg);
    }
    zk_cuda_prover_free(cp);
    zt_example_free(&ex);
    free(w[1]);
    free(abc[0]);
    free(abc[1]);
    free(in_w);
    free(in_abc);
}

/*
 * A copied() that is slow to return (the host function of the copy stream
 * runs late): zk_cuda_job_wait must not hand the job back before it has
 * returned, or the job, reused by the next enqueue, would get the next
 * partition's copied() called by this one's late callback (the slot of a
 * partition whose copies have not run released to synthd).
 */
struct late_ctx {
    atomic_int calls, returned;
};
static void on_copied_late(void *ctx)
{
    struct late_ctx *lc = ctx;
    atomic_fetch_add(&lc->calls, 1);
    usleep(300000);
    atomic_store(&lc->returned, 1);
}

static void check_late_copied(const char *curve_dir)
{
    struct zt_example ex;
    struct zk_cuda_prover *cp = NULL;
    char err[256];
    ZT_REQUIRE(zt_example_load(curve_dir, &ex, err, sizeof err) == 0, , "%s", err);
    size_t n = ex.h->domain_size;
    zk_scalar *abc = calloc(3 * n, sizeof(zk_scalar));
    ZT_REQUIRE(abc && zk_cuda_prover_new(dev, ex.k, &cp) == 0, , "prover_new");
    struct late_ctx lc[3];
    memset(lc, 0, sizeof lc);
    for (int i = 0; i < 3; i++) {
        struct zk_cuda_job *j = NULL;
        struct zk_groth16_pending *pg = NULL;
        int rc = zk_cuda_prove_enqueue(cp, ex.w, abc, abc + n, abc + 2 * n, on_copied_late,
                                       &lc[i], &j);
        ZT_CHECK(rc == 0, "%s: enqueue %d: %s", curve_dir, i, zk_cuda_strerror(rc));
        if (rc)
            break;
        rc = zk_cuda_job_wait(j, &pg);
        ZT_CHECK(rc == 0, "%s: wait %d: %s", curve_dir, i, zk_cuda_strerror(rc));
        ZT_CHECK(atomic_load(&lc[i].returned) == 1,
                 "%s: job %d handed back before its copied() returned", curve_dir, i);
        zk_groth16_pending_free(pg);
    }
    usleep(400000);   /* a callback still pending would land now */
    for (int i = 0; i < 3; i++)
        ZT_CHECK(atomic_load(&lc[i].calls) == 1, "%s: job %d: copied() called %d times",
                 curve_dir, i, atomic_load(&lc[i].calls));
    zk_cuda_prover_free(cp);
    zt_example_free(&ex);
    free(abc);
}

int main(int argc, char **argv)
{
    char desc[256];
    int quick = 0;
    zt_init(argc, argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            dev = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: test_cuda [--device N] [--quick]\n");
            return 2;
        }
    }
    if (!zk_cuda_available()) {
        printf("skip: no usable GPU (%s)\n",
               zk_cuda_device_count() ? "" : "no device, driver or CUDA build");
        return 77;
    }
    if (zk_cuda_device_describe(dev, desc, sizeof desc) == 0)
        printf("device %d: %s\n", dev, desc);
    static const unsigned logs[] = { 0, 1, 2, 3, 5, 9, 10, 11, 12, 16, 20 };
    for (size_t i = 0; i < sizeof logs / sizeof logs[0] && !(quick && logs[i] > 10); i++) {
        bn254_fr_check_ntt(logs[i]);
        bls381_fr_check_ntt(logs[i]);
    }
    static const size_t sizes[] = { 1, 2, 3, 10, 17, 1000, 4096, 65539 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0] && !(quick && sizes[i] > 1000); i++) {
        bn254_g1_check_msm(sizes[i], 0);
        bls381_g1_check_msm(sizes[i], 0);
    }
    /* scalars as a witness has them (3/4 of them 0 or 1, some repeated):
     * buckets far longer than a chunk, carried over several levels */
    static const size_t skewed[] = { 100, 4096, 65539 };
    for (size_t i = 0; i < sizeof skewed / sizeof skewed[0] && !(quick && skewed[i] > 1000);
         i++) {
        bn254_g1_check_msm(skewed[i], 1);
        bls381_g1_check_msm(skewed[i], 1);
    }
    /* G2 (B2 of the proof): the same kernels on the other group */
    static const size_t g2sizes[] = { 1, 10, 1000, 4099 };
    for (size_t i = 0; i < sizeof g2sizes / sizeof g2sizes[0] && !(quick && g2sizes[i] > 10);
         i++) {
        bn254_g2_check_msm(g2sizes[i], (int)(i & 1));
        bls381_g2_check_msm(g2sizes[i], (int)(i & 1));
    }
    check_prove("bn128");
    check_prove("bls12381");
    check_overlap("bn128");
    check_overlap("bls12381");
    check_late_copied("bn128");
    check_late_copied("bls12381");
    return zt_finish();
}

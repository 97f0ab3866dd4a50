/*
 * test_g16_backend.c -- the CPU twin of the GPU's prove_start: what a
 * backend other than common/'s own does with the public API (the key's
 * point sections from zk_groth16_key_points, the odd-coset NTTs, the H step,
 * the four G1 MSMs, zk_groth16_pending_new, with the B2 MSM on G2 done by
 * the backend too or left to finalize) gives exactly the proof of
 * zk_groth16_prove_start, on the committed example keys of both curves.
 * Runs everywhere; gpud/cuda/cu_prover.cu follows the same steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ec/curves.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/msm.h"
#include "zk/ntt.h"
#include "zk/zkey.h"
#include "zkexample.h"
#include "zktest.h"

#define TWIN(C, FR, G, G2)                                                     \
    static int C##_twin(const struct zk_groth16_key *k, const zk_scalar *w,    \
                        zk_scalar *a, zk_scalar *b, zk_scalar *c, int b2,      \
                        struct zk_groth16_pending **ret)                       \
    {                                                                          \
        const struct zk_zkey_header *h = zk_groth16_key_header(k);             \
        size_t n = h->domain_size;                                             \
        int rc;                                                                \
        if ((rc = FR##_ntt_to_odd_coset((FR *)a, h->log2_domain, 0)) ||        \
            (rc = FR##_ntt_to_odd_coset((FR *)b, h->log2_domain, 0)) ||        \
            (rc = FR##_ntt_to_odd_coset((FR *)c, h->log2_domain, 0)))          \
            return rc;                                                         \
        for (size_t i = 0; i < n; i++) {                                       \
            FR t;                                                              \
            FR##_mul(&t, (FR *)&a[i], (FR *)&b[i]);                            \
            FR##_sub(&t, &t, (FR *)&c[i]);                                     \
            FR##_from_mont((FR *)&a[i], &t);                                   \
        }                                                                      \
        G r[4];                                                                \
        static const enum zk_zkey_section sec[4] = {                           \
            ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1, ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H };      \
        const zk_scalar *sc[4] = { w, w, w + h->n_public + 1, a };             \
        for (int i = 0; i < 4; i++) {                                          \
            uint64_t cnt;                                                      \
            size_t pb;                                                         \
            const void *pts = zk_groth16_key_points(k, sec[i], &cnt, &pb);     \
            if (!pts || pb != sizeof(G##_affine))                              \
                return -1;                                                     \
            if ((rc = G##_msm(&r[i], pts, (const limb_t *)sc[i], cnt, 0, NULL, NULL))) \
                return rc;                                                     \
        }                                                                      \
        G2 rb2;                                                                \
        if (b2) {                       /* B2 by the backend: no witness */    \
            uint64_t cnt;                                                      \
            size_t pb;                                                         \
            const void *pts = zk_groth16_key_points(k, ZK_ZKEY_SEC_B2, &cnt, &pb); \
            if (!pts || pb != sizeof(G2##_affine))                             \
                return -1;                                                     \
            if ((rc = G2##_msm(&rb2, pts, (const limb_t *)w, cnt, 0, NULL, NULL))) \
                return rc;                                                     \
        }                                                                      \
        return zk_groth16_pending_new(k, b2 ? NULL : w, (uint64_t *)&r[0],     \
                                      (uint64_t *)&r[1], (uint64_t *)&r[2],    \
                                      (uint64_t *)&r[3], b2 ? (uint64_t *)&rb2 : NULL, \
                                      NULL, ret);                              \
    }

TWIN(bn254, bn254_fr, bn254_g1, bn254_g2)
TWIN(bls381, bls381_fr, bls381_g1, bls381_g2)

static void check(const char *curve_dir)
{
    struct zt_example ex;
    struct zk_groth16_pending *p1 = NULL, *p2 = NULL, *p3 = NULL;
    struct zk_groth16_proof q1, q2;
    int b2;
    zk_scalar r = { { 5, 0, 0, 0 } }, s = { { 9, 0, 0, 0 } };
    char err[256];
    int rc;

    rc = zt_example_load(curve_dir, &ex, err, sizeof err);
    ZT_REQUIRE(rc == 0, , "%s", err);
    const struct zk_groth16_key *k = ex.k;
    const struct zk_zkey_header *h = ex.h;
    const zk_scalar *w = ex.w;
    size_t n = h->domain_size;
    zk_scalar *x = malloc(3 * n * sizeof *x), *y = malloc(3 * n * sizeof *y);
    ZT_REQUIRE(x && y, , "oom");
    ZT_REQUIRE(zk_groth16_synthesize(k, w, x, x + n, x + 2 * n, 0) == 0, , "synthesize");
    memcpy(y, x, 3 * n * sizeof *x);
    ZT_CHECK(zk_groth16_prove_start(k, w, x, x + n, x + 2 * n, 0, &p1) == 0, "prove_start");
    if (p1)
        ZT_CHECK(zk_groth16_prove_finalize_rs(p1, &r, &s, 0, &q1) == 0, "finalize 1");
    for (b2 = 0; b2 < 2 && p1; b2++) {
        ZT_REQUIRE(zk_groth16_synthesize(k, w, y, y + n, y + 2 * n, 0) == 0, , "synthesize");
        rc = h->curve == ZK_CURVE_BN254 ? bn254_twin(k, w, y, y + n, y + 2 * n, b2, &p2)
                                        : bls381_twin(k, w, y, y + n, y + 2 * n, b2, &p2);
        ZT_CHECK(rc == 0, "%s: twin prove_start %d", curve_dir, rc);
        if (p2) {
            ZT_CHECK(zk_groth16_prove_finalize_rs(p2, &r, &s, 0, &q2) == 0, "finalize 2");
            ZT_CHECK(zt_proof_eq(&q1, &q2), "%s: pending_new's proof (B2 %s) differs from "
                     "prove_start's", curve_dir, b2 ? "given" : "by finalize");
        }
        p2 = zk_groth16_pending_free(p2);
    }
    /* the accessor's contract */
    uint64_t cnt = 1;
    size_t pb = 1;
    ZT_CHECK(zk_groth16_key_points(k, ZK_ZKEY_SEC_COEFS, &cnt, &pb) == NULL && cnt == 0 &&
             pb == 0, "coefficients are not points");
    ZT_CHECK(zk_groth16_key_points(k, ZK_ZKEY_SEC_B2, &cnt, &pb) != NULL &&
             cnt == h->n_vars && pb == (size_t)h->g2_bytes, "B2 section");
    ZT_CHECK(zk_groth16_pending_new(k, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &p3) ==
                 ZK_EBADPARAMS && p3 == NULL, "pending_new refuses NULL arrays");
    {
        uint64_t z[3 * 2 * 6] = { 0 };
        ZT_CHECK(zk_groth16_pending_new(k, NULL, z, z, z, z, NULL, NULL, &p3) ==
                     ZK_EBADPARAMS && p3 == NULL, "pending_new wants w or B2");
    }
    zk_groth16_pending_free(p1);
    zt_example_free(&ex);
    free(x);
    free(y);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    check("bn128");
    check("bls12381");
    return zt_finish();
}

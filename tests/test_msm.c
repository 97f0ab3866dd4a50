/*
 * test_msm.c -- the Pippenger MSM (common/msm) on G1 and G2 of BN254 and
 * BLS12-381 against two independent references:
 *   - naive: sum_i [k_i] P_i with the reference double-and-add G_mul and
 *     Jacobian additions (sizes up to 1000 in the release build, up to 64
 *     under ASan; the larger ones by the second reference);
 *   - discrete logs: the points are P_i = [a_i] G with a_i known, so the
 *     MSM must equal [sum k_i a_i mod r] G, the sum computed with GMP.
 * Sizes 1, 2, 3, 7, 64, 1000, 4096.  Edge cases: zero scalars, all-zero
 * scalars, points at infinity, repeated points (P + P in one bucket), P and
 * -P (cancelling in one bucket), scalars r-1, r, r+1 and 2^256-1.  Results
 * must be identical across thread counts (1, 2, 3), forced window sizes,
 * the affine and Jacobian bucket methods, batch sizes and chunkings.
 * GLV path (msm/msm_glv.h): the scalar split k = +-k1 +- k2 lambda (mod r,
 * |k1|, |k2| < 2^129) against GMP on random and edge scalars; phi(G) =
 * [lambda] G on every group (the beta constants); the GLV MSM against the
 * plain one and the dlog reference around MSM_GLV_MIN with scalars 0, 1,
 * r-1, r, 2^256-1, infinity points, P and -P, and a point used twice.
 * Tables of precomputed multiples (check_table): against the dlog
 * reference and the MSM without a table, several n and factors.
 * bn254_g1 and bn254_g2 run twice where the CPU has AVX-512 IFMA: with the
 * IFMA batch of affine additions and with the scalar one
 * (zk_ifma_bn254_force), and check_ifma puts doublings and cancellations in
 * its lanes.
 *
 * The file includes itself once per group (TG defined) to instantiate the
 * group-generic part.
 */
#ifndef TG
#include <string.h>

#include "ec/curves.h"
#include "ff/ifma_bn254.h"
#include "zk/error.h"
#include "msm/msm_glv.h"
#include "msm/msm_window.h"
#include "zk/msm.h"
#include "zktest.h"

#ifndef ZK_TEST_HAVE_GMP
int main(void)
{
    zt_skip("GMP not available");
}
#else
#include <gmp.h>

#if defined(__SANITIZE_ADDRESS__)
# define ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define ASAN 1
# endif
#endif
#ifndef ASAN
# define ASAN 0
#endif

#define DLOG_BITS 128            /* discrete logs a_i of the test points */

static mpz_t g_r;

static void limbs_to_mpz(mpz_t z, const limb_t *k)
{
    mpz_import(z, 4, -1, sizeof(limb_t), 0, 0, k);
}

static void mpz_to_limbs(limb_t *k, const mpz_t z)
{
    size_t cnt = 0;
    memset(k, 0, 4 * sizeof *k);
    mpz_export(k, &cnt, -1, sizeof(limb_t), 0, 0, z);
}

static void rand_scalar(limb_t *k, unsigned bits)
{
    for (int j = 0; j < 4; j++)
        k[j] = zt_rand64();
    for (unsigned j = bits; j < 256; j++)
        k[j / 64] &= ~((limb_t)1 << (j % 64));
}

/* Scalars of the kinds the tests mix: mostly random < 2^bits(r), some zero,
 * some small, some full 256-bit. */
static void mixed_scalars(limb_t *k, size_t n, unsigned rbits)
{
    for (size_t i = 0; i < n; i++) {
        unsigned sel = (unsigned)(zt_rand64() % 16);
        if (sel == 0)
            memset(k + 4 * i, 0, 32);
        else if (sel == 1)
            rand_scalar(k + 4 * i, 5);
        else if (sel == 2)
            rand_scalar(k + 4 * i, 256);
        else
            rand_scalar(k + 4 * i, rbits);
    }
}

static mpz_t g_lambda;

/* The GLV split of random and edge scalars against GMP. */
static void check_glv_split(const char *name,
                            unsigned (*split)(limb_t *, limb_t *, const limb_t *))
{
    mpz_t k, k1, k2, t, lim;
    mpz_inits(k, k1, k2, t, lim, NULL);
    mpz_ui_pow_ui(lim, 2, 129);
    for (int i = 0; i < 4000; i++) {
        limb_t kk[4], a[4], b[4];
        if (i < 12) {
            switch (i) {
            case 0: mpz_set_ui(k, 0); break;
            case 1: mpz_set_ui(k, 1); break;
            case 2: mpz_sub_ui(k, g_r, 1); break;
            case 3: mpz_set(k, g_r); break;
            case 4: mpz_add_ui(k, g_r, 1); break;
            case 5: mpz_set(k, g_lambda); break;
            case 6: mpz_sub(k, g_r, g_lambda); break;
            case 7: mpz_ui_pow_ui(k, 2, 256); mpz_sub_ui(k, k, 1); break;
            case 8: mpz_ui_pow_ui(k, 2, 128); break;
            case 9: mpz_fdiv_q_2exp(k, g_r, 1); break;
            case 10: mpz_mul(k, g_lambda, g_lambda); mpz_mod(k, k, g_r); break;
            default: mpz_ui_pow_ui(k, 2, 255); break;
            }
            mpz_to_limbs(kk, k);
        } else {
            rand_scalar(kk, i % 3 ? 256 : 255 - (unsigned)(i % 200));
            limbs_to_mpz(k, kk);
        }
        unsigned neg = split(a, b, kk);
        limbs_to_mpz(k1, a);
        limbs_to_mpz(k2, b);
        int small = mpz_cmp(k1, lim) < 0 && mpz_cmp(k2, lim) < 0 && a[3] == 0 && b[3] == 0;
        if (neg & 1)
            mpz_neg(k1, k1);
        if (neg & 2)
            mpz_neg(k2, k2);
        mpz_mul(t, k2, g_lambda);
        mpz_add(t, t, k1);
        mpz_sub(t, t, k);
        ZT_CHECK(mpz_divisible_p(t, g_r) && small && neg < 4, "%s glv split #%d", name, i);
    }
    mpz_clears(k, k1, k2, t, lim, NULL);
}

#define TG bn254_g1
#include "test_msm.c"
#undef TG
#define TG bn254_g2
#include "test_msm.c"
#undef TG
#define TG bls381_g1
#include "test_msm.c"
#undef TG
#define TG bls381_g2
#include "test_msm.c"
#undef TG

/*
 * The table window (msm_window.h): from 2^16 points, more multiples never
 * choose a smaller window than one multiple does (they make the rounds,
 * and so the bucket reductions, fewer).  Regression: a first cost model
 * counted factor * rounds windows of additions and chose 8 for 2^16 G2
 * points with factor 16 (1.8x the time of factor 4).
 */
static void check_table_window(void);

/*
 * The table window's top window has at least 5 bits for every size from
 * 2^12 (the table's MSM affine) and factor: a first model gave BLS12-381's
 * G2 from 2^18 points a top window of 1 bit (every entry of its block in
 * one bucket: one addition per inversion).
 */
static void check_table_top(void)
{
    for (int g2 = 0; g2 < 2; g2++) {
        for (unsigned bits = 254; bits <= 255; bits++) {
            for (unsigned ln = 12; ln <= 28; ln++) {
                for (unsigned f = 1; f <= 16; f++) {
                    unsigned c = zk_msm_table_window((size_t)1 << ln, f, bits, g2);
                    unsigned nw = (bits + 1 + c - 1) / c, e = bits + 1 - (nw - 1) * c;
                    ZT_CHECK(e >= 5, "table window g2=%d bits=%u n=2^%u factor %u: %u, a top "
                             "window of %u bit(s)", g2, bits, ln, f, c, e);
                }
            }
        }
    }
}

static void check_table_window(void)
{
    static const size_t ns[] = { 1u << 16, 1u << 18, 1u << 20 };
    for (int g2 = 0; g2 < 2; g2++) {
        for (unsigned bits = 254; bits <= 255; bits++) {
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
                unsigned c1 = zk_msm_table_window(ns[ni], 1, bits, g2);
                for (unsigned f = 2; f <= 16; f++) {
                    unsigned c = zk_msm_table_window(ns[ni], f, bits, g2);
                    ZT_CHECK(c >= c1 && c <= ZK_MSM_MAX_WINDOW,
                             "table window g2=%d bits=%u n=%zu factor %u: %u, factor 1: %u",
                             g2, bits, ns[ni], f, c, c1);
                }
            }
        }
    }
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    check_table_window();
    check_table_top();
    mpz_init(g_r);
    mpz_init(g_lambda);
    limbs_to_mpz(g_r, bn254_g1_ORDER_);
    mpz_set_str(g_lambda, "b3c4d79d41a917585bfc41088d8daaa78b17ea66b99c90dd", 16);
    check_glv_split("bn254", zk_glv_split_bn254);
    bn254_g1_check_ifma("bn254_g1");
    bn254_g2_check_ifma("bn254_g2");
    bn254_g1_test();                            /* the IFMA batch where the CPU has it */
    bn254_g2_test();
    if (zk_ifma_bn254_force(0) == 0 && zk_ifma_bn254_force(1) == 1) {
        zk_ifma_bn254_force(0);
        bn254_g1_test();                        /* and the scalar batch */
        bn254_g2_test();
        zk_ifma_bn254_force(-1);
    }
    limbs_to_mpz(g_r, bls381_g1_ORDER_);
    mpz_set_str(g_lambda, "ac45a4010001a40200000000ffffffff", 16);
    check_glv_split("bls381", zk_glv_split_bls381);
    bls381_g1_test();
    bls381_g2_test();
    mpz_clear(g_r);
    mpz_clear(g_lambda);
    return zt_finish();
}
#endif /* ZK_TEST_HAVE_GMP */

#else /* TG: the group-generic part */

#define C2_(a, b) a##_##b
#define C2(a, b) C2_(a, b)
#define T(name) C2(TG, name)
#define TA C2(TG, affine)
#define STR_(x) #x
#define STR(x) STR_(x)

/* Test points P_i = [a_i] G from a table of [b 16^j] G (j < 32, b < 16). */
static void T(make_points)(TA *pts, mpz_t *dl, size_t n)
{
    enum { NJ = DLOG_BITS / 4 };
    TG *tj = malloc(NJ * 16 * sizeof *tj), *pj = malloc(n * sizeof *pj);
    TA *ta = malloc(NJ * 16 * sizeof *ta);
    void *scr = malloc((NJ * 16 > n ? NJ * 16 : n) * 3 * sizeof tj[0].x);
    TA g;
    T(generator)(&g);
    for (int j = 0; j < NJ; j++) {
        TG *row = tj + 16 * j;
        T(set_inf)(&row[0]);
        if (j == 0) {
            T(from_affine)(&row[1], &g);
        } else {
            row[1] = tj[16 * (j - 1) + 1];
            for (int d = 0; d < 4; d++)
                T(dbl)(&row[1], &row[1]);
        }
        for (int b = 2; b < 16; b++)
            T(add)(&row[b], &row[b - 1], &row[1]);
    }
    T(batch_to_affine)(ta, tj, NJ * 16, scr);
    for (size_t i = 0; i < n; i++) {
        limb_t a[4];
        rand_scalar(a, DLOG_BITS);
        limbs_to_mpz(dl[i], a);
        T(set_inf)(&pj[i]);
        for (int j = 0; j < NJ; j++) {
            unsigned nib = (unsigned)(a[j / 16] >> (4 * (j % 16))) & 15;
            T(add_affine)(&pj[i], &pj[i], &ta[16 * j + nib]);
        }
    }
    T(batch_to_affine)(pts, pj, n, scr);
    free(tj);
    free(pj);
    free(ta);
    free(scr);
}

/* [sum k_i dl_i mod r] G */
static void T(ref_dlog)(TG *ret, const limb_t *k, mpz_t *dl, size_t n)
{
    mpz_t acc, t;
    limb_t e[4];
    TA g;
    TG gj;
    mpz_inits(acc, t, NULL);
    for (size_t i = 0; i < n; i++) {
        limbs_to_mpz(t, k + 4 * i);
        mpz_addmul(acc, t, dl[i]);
    }
    mpz_mod(acc, acc, g_r);
    mpz_to_limbs(e, acc);
    T(generator)(&g);
    T(from_affine)(&gj, &g);
    T(mul)(ret, &gj, e, 256);
    mpz_clears(acc, t, NULL);
}

/* sum_i [k_i] P_i by double-and-add. */
static void T(ref_naive)(TG *ret, const TA *pts, const limb_t *k, size_t n)
{
    TG acc, p;
    T(set_inf)(&acc);
    for (size_t i = 0; i < n; i++) {
        T(from_affine)(&p, &pts[i]);
        T(mul)(&p, &p, k + 4 * i, 256);
        T(add)(&acc, &acc, &p);
    }
    *ret = acc;
}

static int T(msm_o)(TG *ret, const TA *pts, const limb_t *k, size_t n, unsigned th,
                    unsigned window, unsigned method, unsigned batch, unsigned chunks)
{
    struct zk_msm_opts o = { window, method, batch, chunks, 0, NULL };
    return T(msm)(ret, pts, k, n, th, NULL, &o);
}

static void T(check_sizes)(const char *name, unsigned rbits)
{
    static const size_t sizes[] = { 1, 2, 3, 7, 64, 1000, 4096 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        TA *pts = malloc(n * sizeof *pts);
        limb_t *k = malloc(n * 32);
        mpz_t *dl = malloc(n * sizeof *dl);
        for (size_t i = 0; i < n; i++)
            mpz_init(dl[i]);
        T(make_points)(pts, dl, n);
        mixed_scalars(k, n, rbits);
        TG got, want, naive;
        int r = T(msm)(&got, pts, k, n, 1, NULL, NULL);
        ZT_CHECK(r == 0, "%s n=%zu: %s", name, n, zk_strerror(r));
        T(ref_dlog)(&want, k, dl, n);
        ZT_CHECK(T(eq)(&got, &want), "%s n=%zu: msm != dlog reference", name, n);
        if (n <= (ASAN ? 64 : 1000)) {
            T(ref_naive)(&naive, pts, k, n);
            ZT_CHECK(T(eq)(&naive, &want), "%s n=%zu: naive != dlog reference", name, n);
        }
        /* both methods, threads, explicit scratch */
        for (unsigned m = ZK_MSM_JACOBIAN; m <= ZK_MSM_AFFINE; m++) {
            for (unsigned th = 1; th <= 3; th++) {
                if (n >= 4096 && ASAN && th > 1)
                    continue;
                r = T(msm_o)(&got, pts, k, n, th, 0, m, 0, 0);
                ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s n=%zu method=%u threads=%u",
                         name, n, m, th);
            }
        }
        size_t ss = T(msm_scratch_size)(n, 2, NULL);
        void *scr = aligned_alloc(64, (ss + 63) & ~(size_t)63);
        r = T(msm)(&got, pts, k, n, 2, scr, NULL);
        ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s n=%zu caller scratch", name, n);
        free(scr);
        for (size_t i = 0; i < n; i++)
            mpz_clear(dl[i]);
        free(dl);
        free(pts);
        free(k);
    }
}

/* Every window size, batch sizes that force many deferrals, chunkings. */
static void T(check_params)(const char *name, unsigned rbits)
{
    size_t n = 200;
    TA *pts = malloc(n * sizeof *pts);
    limb_t *k = malloc(n * 32);
    mpz_t *dl = malloc(n * sizeof *dl);
    for (size_t i = 0; i < n; i++)
        mpz_init(dl[i]);
    T(make_points)(pts, dl, n);
    /* repeated points: a block of copies of pts[0] and its negation */
    for (size_t i = 1; i < 40; i++) {
        pts[i] = pts[0];
        mpz_set(dl[i], dl[0]);
    }
    for (size_t i = 40; i < 60; i++) {
        T(affine_neg)(&pts[i], &pts[0]);
        mpz_neg(dl[i], dl[0]);
    }
    mixed_scalars(k, n, rbits);
    for (size_t i = 1; i < 30; i++)            /* same bucket in every window */
        memcpy(k + 4 * i, k, 32);
    for (size_t i = 40; i < 50; i++)           /* cancel pts[1..10] */
        memcpy(k + 4 * i, k, 32);
    TG want, got;
    T(ref_dlog)(&want, k, dl, n);
    for (unsigned c = 1; c <= 16; c++) {
        for (unsigned m = ZK_MSM_JACOBIAN; m <= ZK_MSM_AFFINE; m++) {
            int r = T(msm_o)(&got, pts, k, n, 1 + c % 3, c, m, 0, 0);
            ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s window=%u method=%u", name, c, m);
        }
    }
    static const unsigned batches[] = { 1, 2, 3, 7, 64 };
    for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
        for (unsigned c = 2; c <= 8; c += 3) {
            int r = T(msm_o)(&got, pts, k, n, 2, c, ZK_MSM_AFFINE, batches[bi], 0);
            ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s window=%u batch=%u", name, c,
                     batches[bi]);
        }
    }
    static const unsigned chunks[] = { 2, 3, 5, 17 };
    for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
        for (unsigned m = ZK_MSM_JACOBIAN; m <= ZK_MSM_AFFINE; m++) {
            int r = T(msm_o)(&got, pts, k, n, 3, 9, m, 0, chunks[ci]);
            ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s chunks=%u method=%u", name,
                     chunks[ci], m);
        }
    }
    for (size_t i = 0; i < n; i++)
        mpz_clear(dl[i]);
    free(dl);
    free(pts);
    free(k);
}

static void T(check_edges)(const char *name)
{
    enum { N = 64 };
    TA pts[N], p0;
    limb_t k[4 * N];
    mpz_t dl[N], t, dl0;
    TG got, want;
    for (size_t i = 0; i < N; i++)
        mpz_init(dl[i]);
    mpz_init(t);
    T(make_points)(pts, dl, N);
    p0 = pts[0];
    mpz_init_set(dl0, dl[0]);
    unsigned methods[2] = { ZK_MSM_JACOBIAN, ZK_MSM_AFFINE };

    /* n = 0 and all-zero scalars: infinity */
    int r = T(msm)(&got, pts, k, 0, 1, NULL, NULL);
    ZT_CHECK(r == 0 && T(is_inf)(&got), "%s n=0", name);
    memset(k, 0, sizeof k);
    for (int m = 0; m < 2; m++) {
        r = T(msm_o)(&got, pts, k, N, 2, 0, methods[m], 0, 0);
        ZT_CHECK(r == 0 && T(is_inf)(&got), "%s all-zero scalars method=%u", name, methods[m]);
    }

    /* points at infinity (every other), random scalars */
    for (size_t i = 0; i < N; i += 2) {
        memset(&pts[i], 0, sizeof pts[i]);
        mpz_set_ui(dl[i], 0);
    }
    mixed_scalars(k, N, 256);
    T(ref_dlog)(&want, k, dl, N);
    for (int m = 0; m < 2; m++) {
        r = T(msm_o)(&got, pts, k, N, 1, 4, methods[m], 0, 0);
        ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s infinity points method=%u", name, methods[m]);
    }
    /* all points at infinity */
    for (size_t i = 0; i < N; i++)
        memset(&pts[i], 0, sizeof pts[i]);
    for (int m = 0; m < 2; m++) {
        r = T(msm_o)(&got, pts, k, N, 1, 4, methods[m], 0, 0);
        ZT_CHECK(r == 0 && T(is_inf)(&got), "%s all infinity method=%u", name, methods[m]);
    }

    /* n copies of P, equal scalars: [n k] P (doublings in the buckets) */
    for (size_t i = 0; i < N; i++) {
        pts[i] = p0;
        mpz_set(dl[i], dl0);
    }
    rand_scalar(k, 255);
    for (size_t i = 1; i < N; i++)
        memcpy(k + 4 * i, k, 32);
    T(ref_dlog)(&want, k, dl, N);
    for (int m = 0; m < 2; m++) {
        r = T(msm_o)(&got, pts, k, N, 1, 6, methods[m], 0, 0);
        ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s repeated P method=%u", name, methods[m]);
    }
    /* P and -P alternating, equal scalars: infinity */
    for (size_t i = 1; i < N; i += 2)
        T(affine_neg)(&pts[i], &p0);
    for (int m = 0; m < 2; m++) {
        r = T(msm_o)(&got, pts, k, N, 1, 6, methods[m], 0, 0);
        ZT_CHECK(r == 0 && T(is_inf)(&got), "%s P,-P method=%u", name, methods[m]);
    }
    /* P, P, -P, -P, ... then 4 more P: [4k]P */
    for (size_t i = 0; i < N; i++) {
        if (i % 4 < 2)
            pts[i] = p0;
        else
            T(affine_neg)(&pts[i], &p0);
    }
    pts[N - 1] = pts[N - 2] = pts[N - 3] = p0;
    pts[N - 4] = p0;
    for (size_t i = 0; i < N; i++) {
        mpz_set(dl[i], dl0);
        if (i % 4 >= 2 && i < N - 4)
            mpz_neg(dl[i], dl0);
    }
    T(ref_dlog)(&want, k, dl, N);
    for (int m = 0; m < 2; m++) {
        r = T(msm_o)(&got, pts, k, N, 1, 5, methods[m], 3, 0);
        ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s P,P,-P,-P method=%u", name, methods[m]);
    }

    /* scalars r-1, r, r+1, 2^256-1 on random points */
    T(make_points)(pts, dl, N);
    for (size_t i = 0; i < N; i++) {
        switch (i % 4) {
        case 0: mpz_sub_ui(t, g_r, 1); break;
        case 1: mpz_set(t, g_r); break;
        case 2: mpz_add_ui(t, g_r, 1); break;
        default: mpz_set_ui(t, 1); mpz_mul_2exp(t, t, 256); mpz_sub_ui(t, t, 1); break;
        }
        mpz_to_limbs(k + 4 * i, t);
    }
    T(ref_dlog)(&want, k, dl, N);
    TG naive;
    T(ref_naive)(&naive, pts, k, N);
    ZT_CHECK(T(eq)(&naive, &want), "%s big scalars: naive != dlog", name);
    for (int m = 0; m < 2; m++) {
        for (unsigned c = 3; c <= 13; c += 5) {
            r = T(msm_o)(&got, pts, k, N, 2, c, methods[m], 0, 0);
            ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s big scalars c=%u method=%u", name, c,
                     methods[m]);
        }
    }
    /* [r] P = O for a single point; [r+1] P = P */
    mpz_to_limbs(k, g_r);
    r = T(msm)(&got, pts, k, 1, 1, NULL, NULL);
    ZT_CHECK(r == 0 && T(is_inf)(&got), "%s [r]P", name);
    mpz_add_ui(t, g_r, 1);
    mpz_to_limbs(k, t);
    r = T(msm)(&got, pts, k, 1, 1, NULL, NULL);
    T(from_affine)(&want, &pts[0]);
    ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s [r+1]P", name);

    /* bad parameters */
    struct zk_msm_opts bad = { ZK_MSM_MAX_WINDOW + 1, 0, 0, 0, 0, NULL };
    ZT_CHECK(T(msm)(&got, pts, k, 1, 1, NULL, &bad) == ZK_EBADPARAMS, "%s bad window", name);
    ZT_CHECK(T(msm)(NULL, pts, k, 1, 1, NULL, NULL) == ZK_EBADPARAMS, "%s NULL ret", name);
    ZT_CHECK(T(msm)(&got, NULL, k, 1, 1, NULL, NULL) == ZK_EBADPARAMS, "%s NULL points", name);

    for (size_t i = 0; i < N; i++)
        mpz_clear(dl[i]);
    mpz_clear(t);
    mpz_clear(dl0);
}

/* GLV path vs plain path vs dlog reference (see the top of the file). */
static void T(check_glv)(const char *name, unsigned rbits)
{
    enum { N = 200 };
    static const size_t sizes[] = { 0, 1, 2, MSM_GLV_MIN - 1, MSM_GLV_MIN, MSM_GLV_MIN + 1, 131, N };
    TA *pts = malloc(N * sizeof *pts);
    limb_t *k = malloc(N * 4 * sizeof *k);
    mpz_t dl[N], t;
    TG got, plain, want, lp;
    TA g;
    mpz_init(t);
    for (size_t i = 0; i < N; i++)
        mpz_init(dl[i]);
    T(make_points)(pts, dl, N);

    /* phi(G) = [lambda] G: the beta constant of this group */
    {
        limb_t lam[4];
        mpz_to_limbs(lam, g_lambda);
        TA two[MSM_GLV_MIN];
        limb_t ks[4 * MSM_GLV_MIN];
        T(generator)(&g);
        T(from_affine)(&lp, &g);
        T(mul)(&want, &lp, lam, 256);
        /* [lambda] G through the GLV MSM: lambda splits as (0, 1), so this
         * is phi(G) itself; compare with the direct product */
        memset(ks, 0, sizeof ks);
        memset(two, 0, sizeof two);
        two[0] = g;
        memcpy(ks, lam, sizeof lam);
        int r = T(msm)(&got, two, ks, MSM_GLV_MIN, 1, NULL, NULL);
        ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s glv [lambda]G", name);
    }

    for (size_t i = 0; i < N; i++) {
        unsigned sel = (unsigned)(i % 11);
        if (sel == 0)
            memset(k + 4 * i, 0, 32);                   /* 0 */
        else if (sel == 1)
            mpz_to_limbs(k + 4 * i, (mpz_set_ui(t, 1), t));
        else if (sel == 2)
            mpz_to_limbs(k + 4 * i, (mpz_sub_ui(t, g_r, 1), t));    /* r - 1 */
        else if (sel == 3)
            mpz_to_limbs(k + 4 * i, g_r);               /* r */
        else if (sel == 4)
            memset(k + 4 * i, 0xff, 32);                /* 2^256 - 1 */
        else
            rand_scalar(k + 4 * i, sel == 5 ? 256 : rbits);
    }
    memset(&pts[7], 0, sizeof pts[7]);                  /* infinity points */
    memset(&pts[70], 0, sizeof pts[70]);
    mpz_set_ui(dl[7], 0);
    mpz_set_ui(dl[70], 0);
    pts[66] = pts[65];                                  /* repeated point */
    mpz_set(dl[66], dl[65]);
    T(affine_neg)(&pts[68], &pts[67]);                  /* P and -P */
    mpz_sub(dl[68], g_r, dl[67]);
    memcpy(k + 4 * 68, k + 4 * 67, 32);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        T(ref_dlog)(&want, k, dl, n);
        struct zk_msm_opts noglv = { .glv = ZK_MSM_GLV_OFF };
        int r1 = T(msm)(&got, pts, k, n, 2, NULL, NULL);
        int r2 = T(msm)(&plain, pts, k, n, 1, NULL, &noglv);
        ZT_CHECK(r1 == 0 && r2 == 0 && T(eq)(&got, &want) && T(eq)(&plain, &want),
                 "%s glv n=%zu", name, n);
        size_t ss = T(msm_scratch_size)(n, 3, NULL);
        void *scr = malloc(ss ? ss : 1);
        r1 = T(msm)(&got, pts, k, n, 3, scr, NULL);
        ZT_CHECK(r1 == 0 && T(eq)(&got, &want), "%s glv n=%zu caller scratch", name, n);
        free(scr);
        struct zk_msm_opts o = { 6, ZK_MSM_AFFINE, 32, 3, 0, NULL };
        r1 = T(msm)(&got, pts, k, n, 2, NULL, &o);
        ZT_CHECK(r1 == 0 && T(eq)(&got, &want), "%s glv n=%zu affine c=6", name, n);
    }
    /* all scalars r: infinity */
    for (size_t i = 0; i < N; i++)
        mpz_to_limbs(k + 4 * i, g_r);
    ZT_CHECK(T(msm)(&got, pts, k, N, 2, NULL, NULL) == 0 && T(is_inf)(&got),
             "%s glv all scalars r", name);
    for (size_t i = 0; i < N; i++)
        mpz_clear(dl[i]);
    mpz_clear(t);
    free(pts);
    free(k);
}

/*
 * Precomputed tables (struct zk_msm_table): the MSM with a table equals the
 * dlog reference and the MSM without one, for several n and factors, both
 * bucket methods, 1-3 threads, caller scratch and no points argument, on
 * random scalars and the edges 0, 1, r-1, r, 2^bits(r) - 1 (all ones below
 * r's length), 2^256 - 1 (reduced mod r first), infinity points, P and -P,
 * and on short scalars (below 2^40, 2^130: only the table's first blocks).
 * The table's bytes do not depend on the build's thread count; a table of
 * another n or group, or with a damaged header, is refused.
 */
static void T(check_table)(const char *name, unsigned rbits)
{
    static const struct { size_t n; unsigned factor; } cases[] = {
        { 0, 2 }, { 1, 1 }, { 3, 2 }, { 64, 3 }, { 300, 1 }, { 300, 4 }, { 301, 16 },
        { 700, 8 },
    };
    enum { N = 700 };
    TA *pts = malloc(N * sizeof *pts);
    limb_t *k = malloc(N * 4 * sizeof *k);
    mpz_t dl[N], t;
    mpz_init(t);
    for (size_t i = 0; i < N; i++)
        mpz_init(dl[i]);
    T(make_points)(pts, dl, N);
    for (size_t i = 0; i < N; i++) {
        unsigned sel = (unsigned)(i % 13);
        if (sel == 0)
            memset(k + 4 * i, 0, 32);                               /* 0 */
        else if (sel == 1)
            mpz_to_limbs(k + 4 * i, (mpz_set_ui(t, 1), t));         /* 1 */
        else if (sel == 2)
            mpz_to_limbs(k + 4 * i, (mpz_sub_ui(t, g_r, 1), t));    /* r - 1 */
        else if (sel == 3)
            mpz_to_limbs(k + 4 * i, g_r);                           /* r */
        else if (sel == 4)                                          /* 2^bits - 1 */
            mpz_to_limbs(k + 4 * i, (mpz_set_ui(t, 1), mpz_mul_2exp(t, t, rbits),
                                     mpz_sub_ui(t, t, 1), t));
        else
            rand_scalar(k + 4 * i, rbits - (sel & 1));
    }
    memset(&pts[5], 0, sizeof pts[5]);                              /* infinity */
    mpz_set_ui(dl[5], 0);
    T(affine_neg)(&pts[9], &pts[8]);                                /* P and -P */
    mpz_sub(dl[9], g_r, dl[8]);
    memcpy(k + 4 * 9, k + 4 * 8, 32);
    limb_t *kbig = malloc(N * 4 * sizeof *kbig);                    /* with 2^256 - 1 */
    memcpy(kbig, k, N * 4 * sizeof *k);
    for (size_t i = 6; i < N; i += 50)
        memset(kbig + 4 * i, 0xff, 32);
    /* short scalars: a witness of bits and small words (the table's block 0
     * alone, or its first blocks) */
    limb_t *k40 = malloc(N * 4 * sizeof *k40), *k130 = malloc(N * 4 * sizeof *k130);
    for (size_t i = 0; i < N; i++) {
        rand_scalar(k40 + 4 * i, i % 3 ? 1 : 40);
        rand_scalar(k130 + 4 * i, i % 5 ? 64 : 130);
    }
    const limb_t *kinds[4] = { k, kbig, k40, k130 };
    static const char *const kind_names[4] = { "", " 2^256-1", " <2^40", " <2^130" };
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        size_t n = cases[ci].n;
        unsigned f = cases[ci].factor;
        if (ASAN && n * f > 1000)      /* the sanitizer tree: the small cases */
            continue;
        size_t tb = T(msm_table_size)(n, f);
        struct zk_msm_table *tab = aligned_alloc(64, (tb + 63) & ~(size_t)63);
        struct zk_msm_table *tab3 = aligned_alloc(64, (tb + 63) & ~(size_t)63);
        int r = T(msm_table_build)(tab, pts, n, f, 1);
        int r3 = T(msm_table_build)(tab3, pts, n, f, 3);
        ZT_CHECK(tb >= 64 && r == 0 && r3 == 0 && memcmp(tab, tab3, tb) == 0,
                 "%s table n=%zu factor=%u: built the same with 1 and 3 threads", name, n, f);
        ZT_CHECK(tab->factor == f && tab->n == n &&
                 (uint64_t)tab->rounds * tab->window * f >= rbits + 1,
                 "%s table n=%zu factor=%u: header (window %u rounds %u)", name, n, f,
                 tab->window, tab->rounds);
        for (int kind = 0; kind < 4; kind++) {
            const limb_t *kk = kinds[kind];
            TG want, plain, got;
            T(ref_dlog)(&want, kk, dl, n);
            r = T(msm)(&plain, pts, kk, n, 2, NULL, NULL);
            ZT_CHECK(r == 0 && T(eq)(&plain, &want), "%s n=%zu plain", name, n);
            for (unsigned m = ZK_MSM_AUTO; m <= ZK_MSM_AFFINE; m++) {
                for (unsigned th = 1; th <= 3; th++) {
                    struct zk_msm_opts o = { .method = m, .table = tab };
                    r = T(msm)(&got, th == 2 ? NULL : pts, kk, n, th, NULL, &o);
                    ZT_CHECK(r == 0 && T(eq)(&got, &want),
                             "%s table n=%zu factor=%u method=%u threads=%u%s: %s", name, n,
                             f, m, th, kind_names[kind], zk_strerror(r));
                }
            }
            struct zk_msm_opts o = { .table = tab, .chunks = 3, .batch = 7 };
            size_t ss = T(msm_scratch_size)(n, 2, &o);
            void *scr = aligned_alloc(64, (ss + 64) & ~(size_t)63);
            r = T(msm)(&got, NULL, kk, n, 2, scr, &o);
            ZT_CHECK(ss > 0 && r == 0 && T(eq)(&got, &want),
                     "%s table n=%zu factor=%u caller scratch, 3 chunks%s", name, n, f,
                     kind_names[kind]);
            free(scr);
        }
        /* refused: another n, a damaged header, no table of this group */
        TG got;
        struct zk_msm_opts o = { .table = tab };
        ZT_CHECK(T(msm)(&got, pts, k, n + 1, 1, NULL, &o) == ZK_EBADPARAMS &&
                 T(msm_scratch_size)(n + 1, 1, &o) == 0, "%s table of n for n+1", name);
        tab3->group ^= 7;
        o.table = tab3;
        ZT_CHECK(T(msm)(&got, pts, k, n, 1, NULL, &o) == ZK_EBADPARAMS, "%s table group", name);
        tab3->group ^= 7;
        tab3->rounds = 1;
        tab3->window = 1;
        ZT_CHECK(T(msm)(&got, pts, k, n, 1, NULL, &o) == ZK_EBADPARAMS,
                 "%s table covering too few bits", name);
        free(tab);
        free(tab3);
    }
    ZT_CHECK(T(msm_table_size)(10, 0) == 0 && T(msm_table_size)(10, ZK_MSM_MAX_FACTOR + 1) == 0 &&
             T(msm_table_size)(SIZE_MAX / 2, 4) == 0, "%s table size refusals", name);
    ZT_CHECK(T(msm_table_build)(NULL, pts, 1, 2, 1) == ZK_EBADPARAMS, "%s table NULL", name);
    for (size_t i = 0; i < N; i++)
        mpz_clear(dl[i]);
    mpz_clear(t);
    free(pts);
    free(k);
    free(kbig);
    free(k40);
    free(k130);
}

/*
 * Witness-like scalars (the 0/1 split of G_msm): mostly 0 and 1 with a
 * few others, against the discrete-log reference: threads 1 and 2, the
 * caller's scratch, a table, every point a 1, ones on P and -P and on
 * infinity, and ones just above and below the split's threshold (1 in 8).
 * N is above the ones' block (MSM_ONES_BLOCK, 2048), so that the pairwise
 * affine sum runs on full blocks and a partial one.
 */
static void T(check_ones)(const char *name, unsigned rbits)
{
    enum { N = 3000, KINDS = 6 };
    const size_t n = ASAN ? 200 : N;       /* the sanitizer tree: fewer points */
    static const char *const kind_names[KINDS] = {
        "witness (58% 0, 40% 1)", "all ones", "ones and one 2^256-1", "1 in 7 ones",
        "1 in 9 ones", "ones and zeros only",
    };
    TA *pts = malloc(N * sizeof *pts);
    limb_t *k = malloc(N * 4 * sizeof *k);
    mpz_t dl[N];
    for (size_t i = 0; i < N; i++)
        mpz_init(dl[i]);
    T(make_points)(pts, dl, n);
    memset(&pts[3], 0, sizeof pts[3]);                              /* infinity */
    mpz_set_ui(dl[3], 0);
    T(affine_neg)(&pts[5], &pts[4]);                                /* P and -P */
    mpz_sub(dl[5], g_r, dl[4]);
    pts[7] = pts[6];                                                /* P and P */
    mpz_set(dl[7], dl[6]);
    size_t tb = T(msm_table_size)(n, 2);
    struct zk_msm_table *tab = aligned_alloc(64, (tb + 63) & ~(size_t)63);
    ZT_CHECK(T(msm_table_build)(tab, pts, n, 2, 2) == 0, "%s ones: table", name);
    for (int kind = 0; kind < KINDS; kind++) {
        for (size_t i = 0; i < n; i++) {
            unsigned sel = (unsigned)(zt_rand64() % 100);
            limb_t *ki = k + 4 * i;
            memset(ki, 0, 32);
            if (kind == 0 && sel < 2)
                rand_scalar(ki, rbits);
            else if (kind == 0 || kind == 5)
                ki[0] = sel < 40 || i < 8;
            else if (kind == 1 || kind == 2)
                ki[0] = 1;
            else
                rand_scalar(ki, i % (kind == 3 ? 7 : 9) ? rbits : 1);
            if (kind == 3 || kind == 4)
                ki[0] |= i % (kind == 3 ? 7 : 9) == 0;              /* 1 (or odd) */
        }
        if (kind == 2)
            memset(k + 4 * 11, 0xff, 32);
        TG want, got;
        T(ref_dlog)(&want, k, dl, n);
        for (unsigned th = 1; th <= 2; th++) {
            int r = T(msm)(&got, pts, k, n, th, NULL, NULL);
            ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s ones: %s, %u threads: %s", name,
                     kind_names[kind], th, zk_strerror(r));
        }
        size_t ss = T(msm_scratch_size)(n, 2, NULL);
        void *scr = aligned_alloc(64, (ss + 63) & ~(size_t)63);
        int r = T(msm)(&got, pts, k, n, 2, scr, NULL);
        ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s ones: %s, caller scratch", name,
                 kind_names[kind]);
        free(scr);
        struct zk_msm_opts o = { .table = tab };
        ss = T(msm_scratch_size)(n, 2, &o);
        scr = aligned_alloc(64, (ss + 63) & ~(size_t)63);
        r = T(msm)(&got, NULL, k, n, 2, scr, &o);
        ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s ones: %s, table, caller scratch", name,
                 kind_names[kind]);
        free(scr);
    }
    free(tab);
    for (size_t i = 0; i < N; i++)
        mpz_clear(dl[i]);
    free(pts);
    free(k);
}

/*
 * The IFMA batch of bn254_g1 and bn254_g2 (common/msm/msm_flush_ifma.h) on
 * what it leaves to the scalar code: 1-scalars, whose points the MSM adds in pairs
 * (2i, 2i + 1) in batches of up to 1024 (msm_ones), the pairs P + P and
 * P + (-P) in every lane of the groups of eight among other pairs; and
 * MSMs of 16 points and their negatives, whose buckets often get a point
 * equal or opposite to what they hold, at several sizes, batches and
 * threads.  Each against the dlog reference, with the IFMA batch forced
 * (where the CPU has it) and with it off.
 */
static __attribute__((unused)) void T(check_ifma)(const char *name)
{
    enum { N = ASAN ? 2048 : 8192 + 5, NB = 16 };
    TA *pts = malloc(N * sizeof *pts), base[NB];
    limb_t *k = malloc(N * 4 * sizeof *k);
    mpz_t *dl = malloc(N * sizeof *dl), dlb[NB];
    TG got, want;
    for (size_t i = 0; i < N; i++)
        mpz_init(dl[i]);
    for (int b = 0; b < NB; b++)
        mpz_init(dlb[b]);
    T(make_points)(base, dlb, NB);
    T(make_points)(pts, dl, N);
    for (int on = 1; on >= 0; on--) {
        if (zk_ifma_bn254_force(on) != on)
            continue;                               /* no IFMA on this CPU */
        /* pairs: P + P where i % 7 == 0, P + (-P) where i % 7 == 1 */
        size_t n = N & ~(size_t)1;
        memset(k, 0, n * 4 * sizeof *k);
        for (size_t i = 0; i < n / 2; i++) {
            k[4 * (2 * i)] = k[4 * (2 * i + 1)] = 1;
            if (i % 7 == 0 || i % 7 == 1) {
                pts[2 * i + 1] = pts[2 * i];
                mpz_set(dl[2 * i + 1], dl[2 * i]);
            }
            if (i % 7 == 1) {
                T(affine_neg)(&pts[2 * i + 1], &pts[2 * i]);
                mpz_neg(dl[2 * i + 1], dl[2 * i]);
            }
        }
        T(ref_dlog)(&want, k, dl, n);
        for (unsigned th = 1; th <= 2; th++) {
            int r = T(msm)(&got, pts, k, n, th, NULL, NULL);
            ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s ifma=%d pairs n=%zu "
                     "threads=%u", name, on, n, th);
        }
        /* 16 points and their negatives, random scalars */
        for (size_t i = 0; i < N; i++) {
            unsigned b = (unsigned)(zt_rand64() % (2 * NB));
            pts[i] = base[b % NB];
            mpz_set(dl[i], dlb[b % NB]);
            if (b >= NB) {
                T(affine_neg)(&pts[i], &pts[i]);
                mpz_neg(dl[i], dl[i]);
            }
            rand_scalar(k + 4 * i, 254);
        }
        static const size_t sizes[] = { 64, 1000, N / 2, N };
        static const unsigned batches[] = { 0, 64, 1024 };
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            T(ref_dlog)(&want, k, dl, sizes[si]);
            for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
                for (unsigned th = 1; th <= 2; th++) {
                    int r = T(msm_o)(&got, pts, k, sizes[si], th, 0, ZK_MSM_AFFINE,
                                           batches[bi], 0);
                    ZT_CHECK(r == 0 && T(eq)(&got, &want), "%s ifma=%d 16 points "
                             "n=%zu batch=%u threads=%u", name, on, sizes[si], batches[bi], th);
                }
            }
        }
        T(make_points)(pts, dl, N);
    }
    zk_ifma_bn254_force(-1);
    for (size_t i = 0; i < N; i++)
        mpz_clear(dl[i]);
    for (int b = 0; b < NB; b++)
        mpz_clear(dlb[b]);
    free(pts);
    free(k);
    free(dl);
}

static void T(test)(void)
{
    const char *name = STR(TG);
    unsigned rbits = (unsigned)mpz_sizeinbase(g_r, 2);
    T(check_ones)(name, rbits);
    T(check_table)(name, rbits);
    T(check_glv)(name, rbits);
    T(check_edges)(name);
    T(check_params)(name, rbits);
    T(check_sizes)(name, rbits);
}

#undef TA
#undef T
#undef STR
#undef STR_
#undef C2
#undef C2_
#endif /* TG */

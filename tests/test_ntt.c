/*
 * test_ntt.c -- the NTT over Fr of BN254 and BLS12-381 (common/ntt) against
 * GMP: roots of unity (known answers from docs/formats.md section 8 and
 * 5^((r-1)/2^k) for every k), the forward/inverse transforms against a naive
 * O(n^2) DFT, cosets and the fused odd-coset step against direct polynomial
 * evaluation, round trips and spot checks at larger sizes, independence of
 * the thread count, and the domain limits.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ff/fields.h"
#include "zk/error.h"
#include "zk/ntt.h"
#include "zk/parallel.h"
#include "zktest.h"

#ifndef ZK_TEST_HAVE_GMP
int main(void)
{
    zt_skip("GMP not available");
}
#else
#include <gmp.h>

typedef struct { limb_t l[4]; } fe;   /* layout of bn254_fr / bls381_fr */

struct curve {
    const char *name;
    unsigned s;
    const char *r_dec;
    const char *kat[6][2];            /* {k, decimal w_k}, NULL-terminated */
    int (*ntt)(fe *, unsigned, int, unsigned);
    int (*coset)(fe *, unsigned, int, const fe *, unsigned);
    int (*odd)(fe *, unsigned, unsigned);
    void (*root)(fe *, unsigned);
    void (*to_mont)(fe *, const fe *);
    void (*from_mont)(fe *, const fe *);
};

#define WRAP(F)                                                                    \
    static int F##_w_ntt(fe *d, unsigned l, int inv, unsigned t)                  \
    { return F##_ntt((F *)d, l, inv, t); }                                         \
    static int F##_w_coset(fe *d, unsigned l, int inv, const fe *s, unsigned t)   \
    { return F##_ntt_coset((F *)d, l, inv, (const F *)s, t); }                     \
    static int F##_w_odd(fe *d, unsigned l, unsigned t)                            \
    { return F##_ntt_to_odd_coset((F *)d, l, t); }                                 \
    static void F##_w_root(fe *r, unsigned k) { F##_root_of_unity((F *)r, k); }   \
    static void F##_w_to(fe *r, const fe *a) { F##_to_mont((F *)r, (const F *)a); } \
    static void F##_w_from(fe *r, const fe *a) { F##_from_mont((F *)r, (const F *)a); }
WRAP(bn254_fr)
WRAP(bls381_fr)

static const struct curve curves[2] = {
    { "bn254", BN254_FR_TWO_ADICITY,
      "21888242871839275222246405745257275088548364400416034343698204186575808495617",
      { { "6", "9088801421649573101014283686030284801466796108869023335878462724291607593530" },
        { "7", "10359452186428527605436343203440067497552205259388878191021578220384701716497" },
        { "10", "3161067157621608152362653341354432744960400845131437947728257924963983317266" },
        { "11", "1120550406532664055539694724667294622065367841900378087843176726913374367458" },
        { "28", "19103219067921713944291392827692070036145651957329286315305642004821462161904" },
        { NULL, NULL } },
      bn254_fr_w_ntt, bn254_fr_w_coset, bn254_fr_w_odd, bn254_fr_w_root,
      bn254_fr_w_to, bn254_fr_w_from },
    { "bls12-381", BLS381_FR_TWO_ADICITY,
      "52435875175126190479447740508185965837690552500527637822603658699938581184513",
      { { "10", "21328829733576761151404230261968752855781179864716879432436835449516750606329" },
        { "11", "30450688096165933124094588052280452792793350252342406284806180166247113753719" },
        { "32", "937917089079007706106976984802249742464848817460758522850752807661925904159" },
        { NULL, NULL } },
      bls381_fr_w_ntt, bls381_fr_w_coset, bls381_fr_w_odd, bls381_fr_w_root,
      bls381_fr_w_to, bls381_fr_w_from },
};

static mpz_t R;                        /* the current curve's r */

/* ---- conversions (Montgomery element <-> plain mpz) ------------------------- */

static void fe_get(mpz_t z, const struct curve *c, const fe *a)
{
    fe p;
    c->from_mont(&p, a);
    mpz_import(z, 4, -1, sizeof(limb_t), 0, 0, p.l);
}

static void fe_set(fe *a, const struct curve *c, const mpz_t z)
{
    fe p;
    size_t cnt = 0;
    memset(&p, 0, sizeof p);
    mpz_export(p.l, &cnt, -1, sizeof(limb_t), 0, 0, z);
    c->to_mont(a, &p);
}

static void rand_mpz(mpz_t z)
{
    limb_t l[5];
    for (int i = 0; i < 5; i++)
        l[i] = zt_rand64();
    mpz_import(z, 5, -1, sizeof(limb_t), 0, 0, l);
    mpz_mod(z, z, R);
}

static fe *rand_vec(const struct curve *c, size_t n)
{
    fe *v = malloc(n * sizeof *v);
    mpz_t z;
    mpz_init(z);
    for (size_t i = 0; v && i < n; i++) {
        rand_mpz(z);
        fe_set(&v[i], c, z);
    }
    mpz_clear(z);
    return v;
}

static mpz_t *mpz_vec(size_t n)
{
    mpz_t *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        mpz_init(v[i]);
    return v;
}

static void mpz_vec_free(mpz_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mpz_clear(v[i]);
    free(v);
}

/* 5^((r-1)/2^k) mod r, computed with GMP. */
static void ref_root(mpz_t w, unsigned k)
{
    mpz_t e, five;
    mpz_inits(e, five, NULL);
    mpz_sub_ui(e, R, 1);
    mpz_fdiv_q_2exp(e, e, k);
    mpz_set_ui(five, 5);
    mpz_powm(w, five, e, R);
    mpz_clears(e, five, NULL);
}

/* y = P(pt), P(X) = sum_k x[k] X^k (Horner). */
static void horner(mpz_t y, const mpz_t *x, size_t n, const mpz_t pt)
{
    mpz_set_ui(y, 0);
    for (size_t k = n; k-- > 0;) {
        mpz_mul(y, y, pt);
        mpz_add(y, y, x[k]);
        mpz_mod(y, y, R);
    }
}

/* out[i] = scale * sum_k x[k] (sh w^i)^k: naive (coset) DFT. */
static void naive_dft(mpz_t *out, const mpz_t *x, size_t n, const mpz_t w,
                      const mpz_t sh, const mpz_t scale)
{
    mpz_t pt;
    mpz_init_set(pt, sh);
    for (size_t i = 0; i < n; i++) {
        horner(out[i], x, n, pt);
        mpz_mul(out[i], out[i], scale);
        mpz_mod(out[i], out[i], R);
        mpz_mul(pt, pt, w);
        mpz_mod(pt, pt, R);
    }
    mpz_clear(pt);
}

static int vec_eq_mpz(const struct curve *c, const fe *v, const mpz_t *ref, size_t n)
{
    mpz_t z;
    int ok = 1;
    mpz_init(z);
    for (size_t i = 0; i < n && ok; i++) {
        fe_get(z, c, &v[i]);
        ok = mpz_cmp(z, ref[i]) == 0;
    }
    mpz_clear(z);
    return ok;
}

/* ---- roots ------------------------------------------------------------------- */

static void test_roots(const struct curve *c)
{
    mpz_t z, w, t;
    fe a;
    mpz_inits(z, w, t, NULL);
    for (int i = 0; c->kat[i][0]; i++) {
        unsigned k = (unsigned)atoi(c->kat[i][0]);
        c->root(&a, k);
        fe_get(z, c, &a);
        mpz_set_str(w, c->kat[i][1], 10);
        ZT_CHECK(mpz_cmp(z, w) == 0, "%s w_%u known answer", c->name, k);
    }
    c->root(&a, 1);
    fe_get(z, c, &a);
    mpz_sub_ui(t, R, 1);
    ZT_CHECK(mpz_cmp(z, t) == 0, "%s w_1 = r-1", c->name);
    c->root(&a, 0);
    fe_get(z, c, &a);
    ZT_CHECK(mpz_cmp_ui(z, 1) == 0, "%s w_0 = 1", c->name);
    for (unsigned k = 1; k <= c->s; k++) {
        c->root(&a, k);
        fe_get(z, c, &a);
        ref_root(w, k);
        ZT_CHECK(mpz_cmp(z, w) == 0, "%s w_%u = 5^((r-1)/2^k)", c->name, k);
        mpz_ui_pow_ui(t, 2, k - 1);
        mpz_powm(t, z, t, R);                            /* w^(2^(k-1)) */
        mpz_add_ui(t, t, 1);
        ZT_CHECK(mpz_cmp(t, R) == 0, "%s w_%u^(2^(k-1)) = -1", c->name, k);
        mpz_sub_ui(t, t, 1);
        mpz_powm_ui(t, t, 2, R);                         /* w^(2^k) */
        ZT_CHECK(mpz_cmp_ui(t, 1) == 0, "%s w_%u^(2^k) = 1", c->name, k);
    }
    c->root(&a, c->s + 1);
    fe_get(z, c, &a);
    ZT_CHECK(mpz_cmp_ui(z, 0) == 0, "%s w_(s+1) is zero", c->name);
    mpz_clears(z, w, t, NULL);
}

/* ---- transforms against the naive DFT ---------------------------------------- */

static void test_naive(const struct curve *c, unsigned L, unsigned nthreads)
{
    size_t n = (size_t)1 << L;
    fe *v = rand_vec(c, n), *u = malloc(n * sizeof *u);
    mpz_t *x = mpz_vec(n), *y = mpz_vec(n);
    mpz_t w, one, sh, ninv;
    mpz_inits(w, one, sh, ninv, NULL);
    mpz_set_ui(one, 1);
    for (size_t i = 0; i < n; i++)
        fe_get(x[i], c, &v[i]);
    ref_root(w, L);

    /* forward */
    memcpy(u, v, n * sizeof *u);
    ZT_CHECK(c->ntt(u, L, 0, nthreads) == 0);
    naive_dft(y, (const mpz_t *)x, n, w, one, one);
    ZT_CHECK(vec_eq_mpz(c, u, (const mpz_t *)y, n), "%s forward 2^%u t=%u", c->name, L, nthreads);

    /* inverse: w^-1, n^-1 */
    memcpy(u, v, n * sizeof *u);
    ZT_CHECK(c->ntt(u, L, 1, nthreads) == 0);
    mpz_invert(w, w, R);
    mpz_set_ui(ninv, n);
    mpz_invert(ninv, ninv, R);
    naive_dft(y, (const mpz_t *)x, n, w, one, ninv);
    ZT_CHECK(vec_eq_mpz(c, u, (const mpz_t *)y, n), "%s inverse 2^%u t=%u", c->name, L, nthreads);
    mpz_invert(w, w, R);

    if (L <= 8) {
        /* forward coset with a random shift: evaluations at sh w^i */
        fe fsh;
        rand_mpz(sh);
        fe_set(&fsh, c, sh);
        memcpy(u, v, n * sizeof *u);
        ZT_CHECK(c->coset(u, L, 0, &fsh, nthreads) == 0);
        naive_dft(y, (const mpz_t *)x, n, w, sh, one);
        ZT_CHECK(vec_eq_mpz(c, u, (const mpz_t *)y, n), "%s coset 2^%u t=%u", c->name, L, nthreads);
        /* inverse coset: back to the coefficients */
        ZT_CHECK(c->coset(u, L, 1, &fsh, nthreads) == 0);
        ZT_CHECK(!memcmp(u, v, n * sizeof *u), "%s coset round trip 2^%u", c->name, L);
        /* inverse coset of arbitrary values against the naive inverse:
         * coefficient k = n^-1 sh^-k sum_i v_i w^-ik */
        memcpy(u, v, n * sizeof *u);
        ZT_CHECK(c->coset(u, L, 1, &fsh, nthreads) == 0);
        mpz_invert(w, w, R);
        naive_dft(y, (const mpz_t *)x, n, w, one, ninv);
        mpz_invert(w, w, R);
        mpz_invert(sh, sh, R);
        mpz_set_ui(one, 1);
        {
            mpz_t f;
            mpz_init_set_ui(f, 1);
            for (size_t k = 0; k < n; k++) {
                mpz_mul(y[k], y[k], f);
                mpz_mod(y[k], y[k], R);
                mpz_mul(f, f, sh);
                mpz_mod(f, f, R);
            }
            mpz_clear(f);
        }
        ZT_CHECK(vec_eq_mpz(c, u, (const mpz_t *)y, n), "%s inverse coset 2^%u", c->name, L);
    }

    if (L < 10) {
        /* odd coset: A(g w^i), A the interpolant of v over the n-domain */
        mpz_t g;
        mpz_init(g);
        ref_root(g, L + 1);
        mpz_invert(w, w, R);
        naive_dft(y, (const mpz_t *)x, n, w, one, ninv);   /* coefficients */
        mpz_invert(w, w, R);
        mpz_t *z = mpz_vec(n);
        naive_dft(z, (const mpz_t *)y, n, w, g, one);
        memcpy(u, v, n * sizeof *u);
        ZT_CHECK(c->odd(u, L, nthreads) == 0);
        ZT_CHECK(vec_eq_mpz(c, u, (const mpz_t *)z, n), "%s odd coset 2^%u t=%u", c->name, L, nthreads);
        mpz_vec_free(z, n);
        mpz_clear(g);
    }

    mpz_clears(w, one, sh, ninv, NULL);
    mpz_vec_free(x, n);
    mpz_vec_free(y, n);
    free(v);
    free(u);
}

/* ---- large sizes: spot checks, round trips, thread independence ------------- */

static void test_large(const struct curve *c, unsigned L)
{
    size_t n = (size_t)1 << L;
    fe *v = rand_vec(c, n), *u = malloc(n * sizeof *u), *u2 = malloc(n * sizeof *u2);
    mpz_t *x = mpz_vec(n);
    mpz_t w, pt, y, z, g, sh;
    fe fsh;
    mpz_inits(w, pt, y, z, g, sh, NULL);
    for (size_t i = 0; i < n; i++)
        fe_get(x[i], c, &v[i]);
    ref_root(w, L);

    /* forward: a few outputs against Horner */
    memcpy(u, v, n * sizeof *u);
    ZT_CHECK(c->ntt(u, L, 0, 2) == 0);
    for (int t = 0; t < 4; t++) {
        size_t i = t == 0 ? n - 1 : (size_t)(zt_rand64() & (n - 1));
        mpz_powm_ui(pt, w, i, R);
        horner(y, (const mpz_t *)x, n, pt);
        fe_get(z, c, &u[i]);
        ZT_CHECK(mpz_cmp(y, z) == 0, "%s forward 2^%u output %zu", c->name, L, i);
    }
    /* round trip */
    ZT_CHECK(c->ntt(u, L, 1, 2) == 0);
    ZT_CHECK(!memcmp(u, v, n * sizeof *u), "%s round trip 2^%u", c->name, L);

    /* coset round trip and a spot check */
    rand_mpz(sh);
    fe_set(&fsh, c, sh);
    memcpy(u, v, n * sizeof *u);
    ZT_CHECK(c->coset(u, L, 0, &fsh, 1) == 0);
    {
        size_t i = (size_t)(zt_rand64() & (n - 1));
        mpz_powm_ui(pt, w, i, R);
        mpz_mul(pt, pt, sh);
        mpz_mod(pt, pt, R);
        horner(y, (const mpz_t *)x, n, pt);
        fe_get(z, c, &u[i]);
        ZT_CHECK(mpz_cmp(y, z) == 0, "%s coset 2^%u output %zu", c->name, L, i);
    }
    ZT_CHECK(c->coset(u, L, 1, &fsh, 2) == 0);
    ZT_CHECK(!memcmp(u, v, n * sizeof *u), "%s coset round trip 2^%u", c->name, L);

    /* odd coset = inverse NTT, coefficient k times g^k (GMP), forward NTT */
    ref_root(g, L + 1);
    memcpy(u, v, n * sizeof *u);
    ZT_CHECK(c->ntt(u, L, 1, 1) == 0);
    mpz_set_ui(pt, 1);
    for (size_t k = 0; k < n; k++) {
        fe_get(z, c, &u[k]);
        mpz_mul(z, z, pt);
        mpz_mod(z, z, R);
        fe_set(&u[k], c, z);
        mpz_mul(pt, pt, g);
        mpz_mod(pt, pt, R);
    }
    ZT_CHECK(c->ntt(u, L, 0, 1) == 0);
    memcpy(u2, v, n * sizeof *u2);
    ZT_CHECK(c->odd(u2, L, 2) == 0);
    ZT_CHECK(!memcmp(u, u2, n * sizeof *u), "%s odd coset 2^%u vs unfused", c->name, L);

    /* 1, 2, 3 threads give identical results */
    for (unsigned t = 2; t <= 3; t++) {
        for (int op = 0; op < 4; op++) {
            memcpy(u, v, n * sizeof *u);
            memcpy(u2, v, n * sizeof *u2);
            switch (op) {
            case 0: c->ntt(u, L, 0, 1); c->ntt(u2, L, 0, t); break;
            case 1: c->ntt(u, L, 1, 1); c->ntt(u2, L, 1, t); break;
            case 2: c->coset(u, L, 1, &fsh, 1); c->coset(u2, L, 1, &fsh, t); break;
            default: c->odd(u, L, 1); c->odd(u2, L, t); break;
            }
            ZT_CHECK(!memcmp(u, u2, n * sizeof *u), "%s 2^%u op %d threads %u", c->name, L, op, t);
        }
    }

    mpz_clears(w, pt, y, z, g, sh, NULL);
    mpz_vec_free(x, n);
    free(v);
    free(u);
    free(u2);
}

static void test_limits(const struct curve *c)
{
    fe v[2] = { { { 1, 2, 3, 4 } }, { { 5, 6, 7, 8 } } }, keep[2], zero;
    memcpy(keep, v, sizeof v);
    memset(&zero, 0, sizeof zero);
    ZT_CHECK(c->ntt(v, c->s + 1, 0, 1) == ZK_EDOMAIN, "%s", c->name);
    ZT_CHECK(c->ntt(v, c->s + 1, 1, 1) == ZK_EDOMAIN, "%s", c->name);
    ZT_CHECK(c->ntt(v, 100, 0, 1) == ZK_EDOMAIN, "%s", c->name);
    ZT_CHECK(c->coset(v, c->s + 1, 0, &v[0], 1) == ZK_EDOMAIN, "%s", c->name);
    ZT_CHECK(c->odd(v, c->s, 1) == ZK_EDOMAIN, "%s", c->name);
    ZT_CHECK(c->odd(v, c->s + 1, 1) == ZK_EDOMAIN, "%s", c->name);
    ZT_CHECK(c->coset(v, 1, 1, &zero, 1) == ZK_EBADPARAMS, "%s", c->name);
    ZT_CHECK(c->coset(v, 1, 0, NULL, 1) == ZK_EBADPARAMS, "%s", c->name);
    ZT_CHECK(c->ntt(NULL, 1, 0, 1) == ZK_EBADPARAMS, "%s", c->name);
    ZT_CHECK(!memcmp(keep, v, sizeof v), "%s data untouched on error", c->name);
}

/*
 * First use of the twiddle cache from several threads at once, each with a
 * different size (so they race to build levels): every round trip must hold.
 */
struct race { fe *v[4]; int ok[4]; };
struct race_arg { struct race *rc; unsigned t; };

/* one thread's first NTTs: on threads of their own (zk_parallel_run may
 * run shares one after the other on a busy machine: no race then) */
static void *race_fn(void *arg)
{
    struct race *rc = ((struct race_arg *)arg)->rc;
    unsigned t = ((struct race_arg *)arg)->t;
    unsigned L = 11 + 2 * t;
    size_t n = (size_t)1 << L;
    fe *u = malloc(n * sizeof *u);
    if (!u)
        return NULL;
    memcpy(u, rc->v[t], n * sizeof *u);
    rc->ok[t] = bn254_fr_ntt((bn254_fr *)u, L, 0, 1 + t % 2) == 0 &&
                bn254_fr_ntt((bn254_fr *)u, L, 1, 1) == 0 &&
                !memcmp(u, rc->v[t], n * sizeof *u);
    free(u);
    return NULL;
}

static void test_race(const struct curve *c)
{
    struct race rc = { { NULL }, { 0 } };
    for (unsigned t = 0; t < 4; t++)
        rc.v[t] = rand_vec(c, (size_t)1 << (11 + 2 * t));
    struct race_arg ra[4];
    pthread_t th[4];
    int made[4];
    for (unsigned t = 0; t < 4; t++) {
        ra[t] = (struct race_arg){ &rc, t };
        made[t] = pthread_create(&th[t], NULL, race_fn, &ra[t]) == 0;
    }
    for (unsigned t = 0; t < 4; t++) {
        if (made[t])
            pthread_join(th[t], NULL);
        else
            race_fn(&ra[t]);
    }
    for (unsigned t = 0; t < 4; t++) {
        ZT_CHECK(rc.ok[t], "concurrent first use, thread %u", t);
        free(rc.v[t]);
    }
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    mpz_init(R);
    mpz_set_str(R, curves[0].r_dec, 10);
    test_race(&curves[0]);                   /* must run before anything else */
    for (int ci = 0; ci < 2; ci++) {
        const struct curve *c = &curves[ci];
        mpz_set_str(R, c->r_dec, 10);
        test_roots(c);
        test_limits(c);
        for (unsigned L = 0; L <= 10; L++)
            test_naive(c, L, 1 + L % 3);
        test_naive(c, 9, 2);
        test_large(c, 12);
        test_large(c, 14);
        test_large(c, 16);
    }
    mpz_clear(R);
    return zt_finish();
}
#endif

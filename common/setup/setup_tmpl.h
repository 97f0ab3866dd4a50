/*
 * setup_tmpl.h -- the curve-generic body of zk_setup_zkey(), instantiated
 * per curve by setup.c, each time right after the one line that names its
 * parameters (undefined at the end of this file):
 *   #define ZK_SETUP_TMPL (bn254, BN254)
 * that is: the curve (CURVE_NAME(fr) is bn254_fr, its scalar field,
 * CURVE_NAME(g1) bn254_g1, ...) and the prefix of its constants
 * (BN254_FR_TWO_ADICITY, BN254_FP_P, BN254_FR_P).
 *
 * Generated names (static):
 *   bn254_setup_ctx bn254_random_fr bn254_lagrange bn254_vanishing_scale
 *   bn254_on_constraint bn254_points_job bn254_points_range bn254_points
 *   bn254_setup
 *   bls381_setup_ctx bls381_random_fr bls381_lagrange bls381_vanishing_scale
 *   bls381_on_constraint bls381_points_job bls381_points_range bls381_points
 *   bls381_setup
 */
#define CURVE_NAME(name) ZK_CAT(ZK_ARG(1, ZK_SETUP_TMPL), name)  /* CURVE_NAME(fr): bn254_fr */
#define CURVE_CONST(k)   ZK_CAT(ZK_ARG(2, ZK_SETUP_TMPL), k)     /* CURVE_CONST(FR_P): BN254_FR_P */
#include "ff/curve_names.h"     /* FR_T, G1_T, G1_AFFINE_T, FR_FN, G1_FN, ... */

struct CURVE_NAME(setup_ctx) {
    uint32_t m, n_vars, n_pub;
    unsigned log_n;
    size_t n;
    FR_T tau, alpha, beta, delta, delta_inv;
    FR_T *lag;               /* L_i(tau) over the n-domain */
    FR_T *u, *v, *w;         /* per signal: A, B, C polynomials at tau */
    struct setup_coefs coefs;
};

/* Uniform nonzero element < r from the byte stream. */
static void CURVE_NAME(random_fr)(FR_T *ret, struct setup_rng *rng)
{
    for (;;) {
        uint8_t b[32];
        setup_rng_bytes(rng, b, sizeof b);
        b[31] &= 0x7f;                        /* r < 2^255 on both curves */
        if (FR_FN(from_bytes_le)(ret, b) == 0 && !FR_FN(is_zero)(ret))
            return;
    }
}

/*
 * ret[i] = scale * x_i / (tau - x_i) for x_i = first * omega^i, i < n: the
 * Lagrange basis at tau when scale = (tau^n - 1)/n and first = 1.
 * Returns 0, -ENOMEM, or ZK_EBADPARAMS when tau lies on the domain.
 */
static int CURVE_NAME(lagrange)(FR_T *ret, size_t n, const FR_T *omega, const FR_T *first,
                       const FR_T *tau, const FR_T *scale)
{
    FR_T *x = malloc(2 * n * sizeof *x);
    if (!x)
        return -ENOMEM;
    FR_T *den = x + n, cur = *first;
    for (size_t i = 0; i < n; i++) {
        x[i] = cur;
        FR_FN(sub)(&den[i], tau, &cur);
        if (FR_FN(is_zero)(&den[i])) {
            free(x);
            return ZK_EBADPARAMS;
        }
        FR_FN(mul)(&cur, &cur, omega);
    }
    FR_FN(batch_inv)(den, den, n, ret);
    for (size_t i = 0; i < n; i++) {
        FR_FN(mul)(&ret[i], &x[i], &den[i]);
        FR_FN(mul)(&ret[i], &ret[i], scale);
    }
    free(x);
    return 0;
}

/* (tau^size - 1) / size */
static void CURVE_NAME(vanishing_scale)(FR_T *ret, const FR_T *tau, size_t size)
{
    FR_T t, sz;
    limb_t e[1] = { (limb_t)size };
    FR_FN(pow)(&t, tau, e, 64);
    FR_T one;
    FR_FN(one)(&one);
    FR_FN(sub)(&t, &t, &one);
    FR_FN(from_u64)(&sz, size);
    FR_FN(inv)(&sz, &sz);
    FR_FN(mul)(ret, &t, &sz);
}

static int CURVE_NAME(on_constraint)(void *arg, uint32_t c, const struct zk_r1cs_lc lc[3])
{
    struct CURVE_NAME(setup_ctx) *s = arg;
    FR_T *acc[3] = { s->u, s->v, s->w };
    for (unsigned mat = 0; mat < 3; mat++) {
        for (uint32_t k = 0; k < lc[mat].n; k++) {
            const struct zk_r1cs_term *t = &lc[mat].t[k];
            FR_T coef, prod;
            memcpy(coef.l, t->coef, sizeof coef.l);
            FR_FN(to_mont)(&coef, &coef);
            FR_FN(mul)(&prod, &coef, &s->lag[c]);
            FR_FN(add)(&acc[mat][t->wire], &acc[mat][t->wire], &prod);
            if (mat < 2) {
                FR_T stored;                  /* coef * R^2: Montgomery form of coef*R */
                FR_FN(to_mont)(&stored, &coef);
                if (setup_coefs_push(&s->coefs, mat, c, t->wire, stored.l) != 0)
                    return -ENOMEM;
            }
        }
    }
    return 0;
}

/* ---- point sections ------------------------------------------------------- */

struct CURVE_NAME(points_job) {
    const FR_T *scalars;     /* Montgomery */
    void *out;                /* affine points */
    int g2;
    const struct G1_FN(fixed_base) *fb1;
    const struct G2_FN(fixed_base) *fb2;
    int err;
};

#define ZK_SETUP_CHUNK 256

static void CURVE_NAME(points_range)(void *arg, size_t b, size_t e)
{
    struct CURVE_NAME(points_job) *job = arg;
    G1_T j1[ZK_SETUP_CHUNK];
    G2_T j2[ZK_SETUP_CHUNK];
    FP2_T scratch[3 * ZK_SETUP_CHUNK];
    for (size_t i = b; i < e; i++) {
        FR_T plain;
        FR_FN(from_mont)(&plain, &job->scalars[i]);
        if (job->g2)
            G2_FN(fixed_base_mul)(&j2[i - b], job->fb2, plain.l);
        else
            G1_FN(fixed_base_mul)(&j1[i - b], job->fb1, plain.l);
    }
    if (job->g2)
        G2_FN(batch_to_affine)((G2_AFFINE_T *)job->out + b, j2, e - b, scratch);
    else
        G1_FN(batch_to_affine)((G1_AFFINE_T *)job->out + b, j1, e - b, (FP_T *)scratch);
}

/* out[i] = scalars[i] * G (G1 or G2 generator), affine, n points. */
static void CURVE_NAME(points)(void *out, const FR_T *scalars, size_t n, int g2,
                      const struct G1_FN(fixed_base) *fb1, const struct G2_FN(fixed_base) *fb2,
                      unsigned nthreads)
{
    struct CURVE_NAME(points_job) job = { scalars, out, g2, fb1, fb2, 0 };
    zk_parallel_for(nthreads, n, ZK_SETUP_CHUNK, CURVE_NAME(points_range), &job);
}

/* ---- the whole key ---------------------------------------------------------- */

static int CURVE_NAME(setup)(const struct zk_r1cs *r1cs, const char *zkey_path,
                    const struct zk_setup_opts *opts, struct setup_rng *rng,
                    struct zk_diag *diag)
{
    struct CURVE_NAME(setup_ctx) s;
    struct G1_FN(fixed_base) fb1 = { 0 };
    struct G2_FN(fixed_base) fb2 = { 0 };
    FR_T *sc = NULL, *lag2 = NULL;
    void *pts = NULL;
    struct setup_writer wr = { 0 };
    unsigned nthreads = opts->nthreads;
    int r;

    memset(&s, 0, sizeof s);
    s.m = r1cs->hdr.n_constraints;
    s.n_vars = r1cs->hdr.n_wires;
    s.n_pub = r1cs->hdr.n_pub_out + r1cs->hdr.n_pub_in;
    s.log_n = 0;
    while (((size_t)1 << s.log_n) < (size_t)s.m + s.n_pub + 1)
        s.log_n++;
    s.n = (size_t)1 << s.log_n;
    if (s.log_n + 1 > CURVE_CONST(FR_TWO_ADICITY)) {
        return zk_diag_set(diag, r1cs->bf.name, ZK_EDOMAIN,
                           "%u constraints need a domain of 2^%u, beyond the field's 2^%u",
                           s.m, s.log_n + 1, CURVE_CONST(FR_TWO_ADICITY));
    }

    CURVE_NAME(random_fr)(&s.tau, rng);
    CURVE_NAME(random_fr)(&s.alpha, rng);
    CURVE_NAME(random_fr)(&s.beta, rng);
    CURVE_NAME(random_fr)(&s.delta, rng);
    FR_FN(inv)(&s.delta_inv, &s.delta);

    size_t maxn = s.n > s.n_vars ? s.n : s.n_vars;
    s.lag = malloc(s.n * sizeof *s.lag);
    lag2 = malloc(s.n * sizeof *lag2);
    s.u = calloc(s.n_vars, sizeof *s.u);
    s.v = calloc(s.n_vars, sizeof *s.v);
    s.w = calloc(s.n_vars, sizeof *s.w);
    sc = malloc(maxn * sizeof *sc);
    pts = malloc(maxn * sizeof(G2_AFFINE_T));
    r = -ENOMEM;
    if (!s.lag || !lag2 || !s.u || !s.v || !s.w || !sc || !pts)
        goto out;

    /* Lagrange bases: n-domain {w^i}, and the odd points g^(2i+1) = g w^i of the 2n-domain. */
    FR_T omega, g, one, scale;
    FR_FN(root_of_unity)(&omega, s.log_n);
    FR_FN(root_of_unity)(&g, s.log_n + 1);
    FR_FN(one)(&one);
    CURVE_NAME(vanishing_scale)(&scale, &s.tau, s.n);
    r = CURVE_NAME(lagrange)(s.lag, s.n, &omega, &one, &s.tau, &scale);
    if (r == 0) {
        CURVE_NAME(vanishing_scale)(&scale, &s.tau, 2 * s.n);
        r = CURVE_NAME(lagrange)(lag2, s.n, &omega, &g, &s.tau, &scale);
    }
    if (r != 0) {
        zk_diag_set(diag, r1cs->bf.name, r, "setup failed: %s", zk_strerror(r));
        goto out;
    }

    if (opts->progress)
        opts->progress(opts->progress_ctx, "reading constraints");
    r = zk_r1cs_for_each_constraint(r1cs, CURVE_NAME(on_constraint), &s, NULL, diag);
    if (r != 0)
        goto out;
    for (uint32_t p = 0; p <= s.n_pub; p++) {   /* the extra rows of the public signals */
        FR_FN(add)(&s.u[p], &s.u[p], &s.lag[s.m + p]);
        FR_T stored;
        FR_FN(to_mont)(&stored, &one);               /* 1 * R^2 */
        r = setup_coefs_push(&s.coefs, 0, s.m + p, p, stored.l);
        if (r != 0)
            goto out;
    }

    if (opts->progress)
        opts->progress(opts->progress_ctx, "fixed-base tables");
    G1_AFFINE_T gen1;
    G2_AFFINE_T gen2;
    G1_FN(generator)(&gen1);
    G2_FN(generator)(&gen2);
    r = G1_FN(fixed_base_init)(&fb1, &gen1);
    if (r == 0)
        r = G2_FN(fixed_base_init)(&fb2, &gen2);
    if (r != 0)
        goto out;

    r = setup_writer_open(&wr, zkey_path, diag);
    if (r != 0)
        goto out;

    /* section 1: protocol groth16 */
    setup_begin_section(&wr, 1);
    setup_put_u32(&wr, 1);
    setup_end_section(&wr);

    /* section 2: header */
    static const limb_t q[] = CURVE_CONST(FP_P), rr[] = CURVE_CONST(FR_P);
    setup_begin_section(&wr, 2);
    setup_put_u32(&wr, sizeof(FP_T));
    setup_put_limbs(&wr, q, sizeof(FP_T));
    setup_put_u32(&wr, 32);
    setup_put_limbs(&wr, rr, 32);
    setup_put_u32(&wr, s.n_vars);
    setup_put_u32(&wr, s.n_pub);
    setup_put_u32(&wr, (uint32_t)s.n);
    FR_T hdr_sc[6] = { s.alpha, s.beta, s.beta, one, s.delta, s.delta };
    static const int hdr_g2[6] = { 0, 0, 1, 1, 0, 1 };   /* alpha1 beta1 beta2 gamma2 delta1 delta2 */
    for (int i = 0; i < 6; i++) {
        CURVE_NAME(points)(pts, &hdr_sc[i], 1, hdr_g2[i], &fb1, &fb2, 1);
        setup_put(&wr, pts, hdr_g2[i] ? sizeof(G2_AFFINE_T) : sizeof(G1_AFFINE_T));
    }
    setup_end_section(&wr);

    /* section 3: IC = beta u + alpha v + w, public signals */
    if (opts->progress)
        opts->progress(opts->progress_ctx, "points");
    for (uint32_t i = 0; i < s.n_vars; i++) {
        FR_T t;
        FR_FN(mul)(&sc[i], &s.beta, &s.u[i]);
        FR_FN(mul)(&t, &s.alpha, &s.v[i]);
        FR_FN(add)(&sc[i], &sc[i], &t);
        FR_FN(add)(&sc[i], &sc[i], &s.w[i]);
    }
    CURVE_NAME(points)(pts, sc, s.n_pub + 1, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 3);
    setup_put(&wr, pts, (s.n_pub + 1) * sizeof(G1_AFFINE_T));
    setup_end_section(&wr);

    /* section 8's scalars now, while sc holds beta u + alpha v + w */
    size_t n_priv = s.n_vars - s.n_pub - 1;
    for (size_t i = 0; i < n_priv; i++)
        FR_FN(mul)(&sc[i], &sc[s.n_pub + 1 + i], &s.delta_inv);
    G1_AFFINE_T *cpts = malloc((n_priv ? n_priv : 1) * sizeof *cpts);
    r = -ENOMEM;
    if (!cpts)
        goto out;
    CURVE_NAME(points)(cpts, sc, n_priv, 0, &fb1, &fb2, nthreads);

    /* section 4: coefficients */
    setup_begin_section(&wr, 4);
    setup_put_u32(&wr, (uint32_t)s.coefs.n);
    setup_put(&wr, s.coefs.rec, s.coefs.n * SETUP_COEF_BYTES);
    setup_end_section(&wr);

    /* sections 5, 6, 7: A, B1, B2 */
    CURVE_NAME(points)(pts, s.u, s.n_vars, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 5);
    setup_put(&wr, pts, s.n_vars * sizeof(G1_AFFINE_T));
    setup_end_section(&wr);
    CURVE_NAME(points)(pts, s.v, s.n_vars, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 6);
    setup_put(&wr, pts, s.n_vars * sizeof(G1_AFFINE_T));
    setup_end_section(&wr);
    CURVE_NAME(points)(pts, s.v, s.n_vars, 1, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 7);
    setup_put(&wr, pts, s.n_vars * sizeof(G2_AFFINE_T));
    setup_end_section(&wr);

    /* section 8: C, private signals */
    setup_begin_section(&wr, 8);
    setup_put(&wr, cpts, n_priv * sizeof(G1_AFFINE_T));
    setup_end_section(&wr);
    free(cpts);

    /* section 9: H[i] = L^(2n)_(2i+1)(tau) / delta */
    for (size_t i = 0; i < s.n; i++)
        FR_FN(mul)(&sc[i], &lag2[i], &s.delta_inv);
    CURVE_NAME(points)(pts, sc, s.n, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 9);
    setup_put(&wr, pts, s.n * sizeof(G1_AFFINE_T));
    setup_end_section(&wr);

    /* section 10: no contributions (csHash left zero) */
    setup_begin_section(&wr, 10);
    static const uint8_t zero_hash[64];
    setup_put(&wr, zero_hash, sizeof zero_hash);
    setup_put_u32(&wr, 0);
    setup_end_section(&wr);

    r = setup_writer_commit(&wr, diag);
out:
    setup_writer_abort(&wr);
    G1_FN(fixed_base_done)(&fb1);
    G2_FN(fixed_base_done)(&fb2);
    /* toxic waste does not outlive the call */
    zk_memzero(&s.tau, sizeof s.tau);
    zk_memzero(&s.alpha, sizeof s.alpha);
    zk_memzero(&s.beta, sizeof s.beta);
    zk_memzero(&s.delta, sizeof s.delta);
    zk_memzero(&s.delta_inv, sizeof s.delta_inv);
    free(s.lag);
    free(lag2);
    free(s.u);
    free(s.v);
    free(s.w);
    free(sc);
    free(pts);
    setup_coefs_done(&s.coefs);
    return r;
}

#include "ff/curve_names.h"     /* (undefines them and CURVE_NAME) */
#undef CURVE_CONST
#undef ZK_SETUP_TMPL

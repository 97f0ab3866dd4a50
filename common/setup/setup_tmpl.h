/*
 * setup_tmpl.h -- the curve-generic body of zk_setup_zkey(), instantiated
 * per curve by setup.c with ZK_S = bn254 or bls381 (and ZK_S_TWO_ADICITY).
 * S(x) names ZK_S_x: S(fr) is the scalar field, S(g1) the group, ...
 */
#define S(name) ZK_CAT(ZK_S, name)

struct S(setup_ctx) {
    uint32_t m, n_vars, n_pub;
    unsigned log_n;
    size_t n;
    S(fr) tau, alpha, beta, delta, delta_inv;
    S(fr) *lag;               /* L_i(tau) over the n-domain */
    S(fr) *u, *v, *w;         /* per signal: A, B, C polynomials at tau */
    struct setup_coefs coefs;
};

/* Uniform nonzero element < r from the byte stream. */
static void S(random_fr)(S(fr) *ret, struct setup_rng *rng)
{
    for (;;) {
        uint8_t b[32];
        setup_rng_bytes(rng, b, sizeof b);
        b[31] &= 0x7f;                        /* r < 2^255 on both curves */
        if (S(fr_from_bytes_le)(ret, b) == 0 && !S(fr_is_zero)(ret))
            return;
    }
}

/*
 * ret[i] = scale * x_i / (tau - x_i) for x_i = first * omega^i, i < n: the
 * Lagrange basis at tau when scale = (tau^n - 1)/n and first = 1.
 * Returns 0, -ENOMEM, or ZK_EBADPARAMS when tau lies on the domain.
 */
static int S(lagrange)(S(fr) *ret, size_t n, const S(fr) *omega, const S(fr) *first,
                       const S(fr) *tau, const S(fr) *scale)
{
    S(fr) *x = malloc(2 * n * sizeof *x);
    if (!x)
        return -ENOMEM;
    S(fr) *den = x + n, cur = *first;
    for (size_t i = 0; i < n; i++) {
        x[i] = cur;
        S(fr_sub)(&den[i], tau, &cur);
        if (S(fr_is_zero)(&den[i])) {
            free(x);
            return ZK_EBADPARAMS;
        }
        S(fr_mul)(&cur, &cur, omega);
    }
    S(fr_batch_inv)(den, den, n, ret);
    for (size_t i = 0; i < n; i++) {
        S(fr_mul)(&ret[i], &x[i], &den[i]);
        S(fr_mul)(&ret[i], &ret[i], scale);
    }
    free(x);
    return 0;
}

/* (tau^size - 1) / size */
static void S(vanishing_scale)(S(fr) *ret, const S(fr) *tau, size_t size)
{
    S(fr) t, sz;
    limb_t e[1] = { (limb_t)size };
    S(fr_pow)(&t, tau, e, 64);
    S(fr) one;
    S(fr_one)(&one);
    S(fr_sub)(&t, &t, &one);
    S(fr_from_u64)(&sz, size);
    S(fr_inv)(&sz, &sz);
    S(fr_mul)(ret, &t, &sz);
}

static int S(on_constraint)(void *arg, uint32_t c, const struct zk_r1cs_lc lc[3])
{
    struct S(setup_ctx) *s = arg;
    S(fr) *acc[3] = { s->u, s->v, s->w };
    for (unsigned mat = 0; mat < 3; mat++) {
        for (uint32_t k = 0; k < lc[mat].n; k++) {
            const struct zk_r1cs_term *t = &lc[mat].t[k];
            S(fr) coef, prod;
            memcpy(coef.l, t->coef, sizeof coef.l);
            S(fr_to_mont)(&coef, &coef);
            S(fr_mul)(&prod, &coef, &s->lag[c]);
            S(fr_add)(&acc[mat][t->wire], &acc[mat][t->wire], &prod);
            if (mat < 2) {
                S(fr) stored;                  /* coef * R^2: Montgomery form of coef*R */
                S(fr_to_mont)(&stored, &coef);
                if (setup_coefs_push(&s->coefs, mat, c, t->wire, stored.l) != 0)
                    return -ENOMEM;
            }
        }
    }
    return 0;
}

/* ---- point sections ------------------------------------------------------- */

struct S(points_job) {
    const S(fr) *scalars;     /* Montgomery */
    void *out;                /* affine points */
    int g2;
    const struct S(g1_fixed_base) *fb1;
    const struct S(g2_fixed_base) *fb2;
    int err;
};

#define ZK_SETUP_CHUNK 256

static void S(points_range)(void *arg, size_t b, size_t e)
{
    struct S(points_job) *job = arg;
    S(g1) j1[ZK_SETUP_CHUNK];
    S(g2) j2[ZK_SETUP_CHUNK];
    S(fp2) scratch[3 * ZK_SETUP_CHUNK];
    for (size_t i = b; i < e; i++) {
        S(fr) plain;
        S(fr_from_mont)(&plain, &job->scalars[i]);
        if (job->g2)
            S(g2_fixed_base_mul)(&j2[i - b], job->fb2, plain.l);
        else
            S(g1_fixed_base_mul)(&j1[i - b], job->fb1, plain.l);
    }
    if (job->g2)
        S(g2_batch_to_affine)((S(g2_affine) *)job->out + b, j2, e - b, scratch);
    else
        S(g1_batch_to_affine)((S(g1_affine) *)job->out + b, j1, e - b, (S(fp) *)scratch);
}

/* out[i] = scalars[i] * G (G1 or G2 generator), affine, n points. */
static void S(points)(void *out, const S(fr) *scalars, size_t n, int g2,
                      const struct S(g1_fixed_base) *fb1, const struct S(g2_fixed_base) *fb2,
                      unsigned nthreads)
{
    struct S(points_job) job = { scalars, out, g2, fb1, fb2, 0 };
    zk_parallel_for(nthreads, n, ZK_SETUP_CHUNK, S(points_range), &job);
}

/* ---- the whole key ---------------------------------------------------------- */

static int S(setup)(const struct zk_r1cs *r1cs, const char *zkey_path,
                    const struct zk_setup_opts *opts, struct setup_rng *rng,
                    struct zk_diag *diag)
{
    struct S(setup_ctx) s;
    struct S(g1_fixed_base) fb1 = { 0 };
    struct S(g2_fixed_base) fb2 = { 0 };
    S(fr) *sc = NULL, *lag2 = NULL;
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
    if (s.log_n + 1 > ZK_S_TWO_ADICITY) {
        return zk_diag_set(diag, r1cs->bf.name, ZK_EDOMAIN,
                           "%u constraints need a domain of 2^%u, beyond the field's 2^%u",
                           s.m, s.log_n + 1, ZK_S_TWO_ADICITY);
    }

    S(random_fr)(&s.tau, rng);
    S(random_fr)(&s.alpha, rng);
    S(random_fr)(&s.beta, rng);
    S(random_fr)(&s.delta, rng);
    S(fr_inv)(&s.delta_inv, &s.delta);

    size_t maxn = s.n > s.n_vars ? s.n : s.n_vars;
    s.lag = malloc(s.n * sizeof *s.lag);
    lag2 = malloc(s.n * sizeof *lag2);
    s.u = calloc(s.n_vars, sizeof *s.u);
    s.v = calloc(s.n_vars, sizeof *s.v);
    s.w = calloc(s.n_vars, sizeof *s.w);
    sc = malloc(maxn * sizeof *sc);
    pts = malloc(maxn * sizeof(S(g2_affine)));
    r = -ENOMEM;
    if (!s.lag || !lag2 || !s.u || !s.v || !s.w || !sc || !pts)
        goto out;

    /* Lagrange bases: n-domain {w^i}, and the odd points g^(2i+1) = g w^i of the 2n-domain. */
    S(fr) omega, g, one, scale;
    S(fr_root_of_unity)(&omega, s.log_n);
    S(fr_root_of_unity)(&g, s.log_n + 1);
    S(fr_one)(&one);
    S(vanishing_scale)(&scale, &s.tau, s.n);
    r = S(lagrange)(s.lag, s.n, &omega, &one, &s.tau, &scale);
    if (r == 0) {
        S(vanishing_scale)(&scale, &s.tau, 2 * s.n);
        r = S(lagrange)(lag2, s.n, &omega, &g, &s.tau, &scale);
    }
    if (r != 0) {
        zk_diag_set(diag, r1cs->bf.name, r, "setup failed: %s", zk_strerror(r));
        goto out;
    }

    if (opts->progress)
        opts->progress(opts->progress_ctx, "reading constraints");
    r = zk_r1cs_for_each_constraint(r1cs, S(on_constraint), &s, NULL, diag);
    if (r != 0)
        goto out;
    for (uint32_t p = 0; p <= s.n_pub; p++) {   /* the extra rows of the public signals */
        S(fr_add)(&s.u[p], &s.u[p], &s.lag[s.m + p]);
        S(fr) stored;
        S(fr_to_mont)(&stored, &one);               /* 1 * R^2 */
        r = setup_coefs_push(&s.coefs, 0, s.m + p, p, stored.l);
        if (r != 0)
            goto out;
    }

    if (opts->progress)
        opts->progress(opts->progress_ctx, "fixed-base tables");
    S(g1_affine) gen1;
    S(g2_affine) gen2;
    S(g1_generator)(&gen1);
    S(g2_generator)(&gen2);
    r = S(g1_fixed_base_init)(&fb1, &gen1);
    if (r == 0)
        r = S(g2_fixed_base_init)(&fb2, &gen2);
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
    static const limb_t q[] = ZK_S_FP_P, rr[] = ZK_S_FR_P;
    setup_begin_section(&wr, 2);
    setup_put_u32(&wr, sizeof(S(fp)));
    setup_put_limbs(&wr, q, sizeof(S(fp)));
    setup_put_u32(&wr, 32);
    setup_put_limbs(&wr, rr, 32);
    setup_put_u32(&wr, s.n_vars);
    setup_put_u32(&wr, s.n_pub);
    setup_put_u32(&wr, (uint32_t)s.n);
    S(fr) hdr_sc[6] = { s.alpha, s.beta, s.beta, one, s.delta, s.delta };
    static const int hdr_g2[6] = { 0, 0, 1, 1, 0, 1 };   /* alpha1 beta1 beta2 gamma2 delta1 delta2 */
    for (int i = 0; i < 6; i++) {
        S(points)(pts, &hdr_sc[i], 1, hdr_g2[i], &fb1, &fb2, 1);
        setup_put(&wr, pts, hdr_g2[i] ? sizeof(S(g2_affine)) : sizeof(S(g1_affine)));
    }
    setup_end_section(&wr);

    /* section 3: IC = beta u + alpha v + w, public signals */
    if (opts->progress)
        opts->progress(opts->progress_ctx, "points");
    for (uint32_t i = 0; i < s.n_vars; i++) {
        S(fr) t;
        S(fr_mul)(&sc[i], &s.beta, &s.u[i]);
        S(fr_mul)(&t, &s.alpha, &s.v[i]);
        S(fr_add)(&sc[i], &sc[i], &t);
        S(fr_add)(&sc[i], &sc[i], &s.w[i]);
    }
    S(points)(pts, sc, s.n_pub + 1, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 3);
    setup_put(&wr, pts, (s.n_pub + 1) * sizeof(S(g1_affine)));
    setup_end_section(&wr);

    /* section 8's scalars now, while sc holds beta u + alpha v + w */
    size_t n_priv = s.n_vars - s.n_pub - 1;
    for (size_t i = 0; i < n_priv; i++)
        S(fr_mul)(&sc[i], &sc[s.n_pub + 1 + i], &s.delta_inv);
    S(g1_affine) *cpts = malloc((n_priv ? n_priv : 1) * sizeof *cpts);
    r = -ENOMEM;
    if (!cpts)
        goto out;
    S(points)(cpts, sc, n_priv, 0, &fb1, &fb2, nthreads);

    /* section 4: coefficients */
    setup_begin_section(&wr, 4);
    setup_put_u32(&wr, (uint32_t)s.coefs.n);
    setup_put(&wr, s.coefs.rec, s.coefs.n * SETUP_COEF_BYTES);
    setup_end_section(&wr);

    /* sections 5, 6, 7: A, B1, B2 */
    S(points)(pts, s.u, s.n_vars, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 5);
    setup_put(&wr, pts, s.n_vars * sizeof(S(g1_affine)));
    setup_end_section(&wr);
    S(points)(pts, s.v, s.n_vars, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 6);
    setup_put(&wr, pts, s.n_vars * sizeof(S(g1_affine)));
    setup_end_section(&wr);
    S(points)(pts, s.v, s.n_vars, 1, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 7);
    setup_put(&wr, pts, s.n_vars * sizeof(S(g2_affine)));
    setup_end_section(&wr);

    /* section 8: C, private signals */
    setup_begin_section(&wr, 8);
    setup_put(&wr, cpts, n_priv * sizeof(S(g1_affine)));
    setup_end_section(&wr);
    free(cpts);

    /* section 9: H[i] = L^(2n)_(2i+1)(tau) / delta */
    for (size_t i = 0; i < s.n; i++)
        S(fr_mul)(&sc[i], &lag2[i], &s.delta_inv);
    S(points)(pts, sc, s.n, 0, &fb1, &fb2, nthreads);
    setup_begin_section(&wr, 9);
    setup_put(&wr, pts, s.n * sizeof(S(g1_affine)));
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
    S(g1_fixed_base_done)(&fb1);
    S(g2_fixed_base_done)(&fb2);
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

#undef S

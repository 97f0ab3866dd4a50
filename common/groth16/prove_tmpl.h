/*
 * prove_tmpl.h -- the per-curve half of the Groth16 prover and verifier,
 * instantiated by prove.c once per curve with:
 *   ZK_T   prefix of the curve (bn254, bls381): types ZK_T_fr, ZK_T_fp,
 *          ZK_T_fp2, ZK_T_g1, ZK_T_g2 (+ _affine), functions ZK_T_fr_ntt_...,
 *          ZK_T_g1_msm, ZK_T_pairing_product_is_one, ...
 *   ZK_T_CURVE  the enum zk_curve value
 * It defines static functions and one `static const struct g16_ops
 * ZK_T_g16_ops`.  Not a normal header.
 */
#define TY(name) ZK_CAT(ZK_T, name)                 /* library types/functions */
#define TN(name) ZK_CAT(ZK_CAT(g16, ZK_T), name)     /* this file's statics */
#define FR TY(fr)
#define FP TY(fp)
#define FP2 TY(fp2)
#define G1 TY(g1)
#define G2 TY(g2)
#define G1A TY(g1_affine)
#define G2A TY(g2_affine)
#define FRN(name) ZK_CAT(FR, name)
#define G1N(name) ZK_CAT(G1, name)
#define G2N(name) ZK_CAT(G2, name)

_Static_assert(sizeof(FR) == sizeof(zk_scalar), "Fr is 4 limbs");
_Static_assert(sizeof(G1) <= G16_G1J_WORDS * 8, "G1 Jacobian fits");
_Static_assert(sizeof(G2) <= G16_G2J_WORDS * 8, "G2 Jacobian fits");
_Static_assert(sizeof(G1A) <= ZK_G16_G1_WORDS * 8, "G1 affine fits");
_Static_assert(sizeof(G2A) <= ZK_G16_G2_WORDS * 8, "G2 affine fits");

/* ---- step 1: a, b, c over the domain -------------------------------------- */

struct TN(synth_arg) {
    const struct zk_groth16_key *k;
    const zk_scalar *w;
    FR *a, *b, *c;
};

static void TN(synth_range)(void *arg, size_t begin, size_t end)
{
    const struct TN(synth_arg) *s = arg;
    const struct zk_groth16_key *k = s->k;
    for (size_t i = begin; i < end; i++) {
        FR acc[2];
        for (int m = 0; m < 2; m++) {
            FRN(zero)(&acc[m]);
            for (uint32_t j = k->rowptr[m][i]; j < k->rowptr[m][i + 1]; j++) {
                FR v, x, t;
                memcpy(&v, &k->val[m][j], sizeof v);
                memcpy(&x, &s->w[k->sig[m][j]], sizeof x);
                FRN(mul)(&t, &v, &x);           /* coef*R^2 * w * R^-1 = mont(coef*w) */
                FRN(add)(&acc[m], &acc[m], &t);
            }
        }
        s->a[i] = acc[0];
        s->b[i] = acc[1];
        FRN(mul)(&s->c[i], &acc[0], &acc[1]);
    }
}

static void TN(synth)(const struct zk_groth16_key *k, const zk_scalar *w, zk_scalar *a,
                      zk_scalar *b, zk_scalar *c, unsigned nthreads)
{
    struct TN(synth_arg) s = { k, w, (FR *)a, (FR *)b, (FR *)c };
    zk_parallel_for(nthreads, k->hdr.domain_size, 4096, TN(synth_range), &s);
}

/* ---- steps 2 and 3: odd coset, h = a*b - c (plain) ------------------------ */

static int TN(odd_coset)(zk_scalar *x, unsigned log_n, unsigned nthreads)
{
    return FRN(ntt_to_odd_coset)((FR *)x, log_n, nthreads);
}

struct TN(h_arg) {
    FR *a;
    const FR *b, *c;
};

static void TN(h_range)(void *arg, size_t begin, size_t end)
{
    const struct TN(h_arg) *s = arg;
    for (size_t i = begin; i < end; i++) {
        FR t;
        FRN(mul)(&t, &s->a[i], &s->b[i]);
        FRN(sub)(&t, &t, &s->c[i]);
        FRN(from_mont)(&s->a[i], &t);          /* MSM scalars are plain */
    }
}

static void TN(h)(zk_scalar *a, const zk_scalar *b, const zk_scalar *c, size_t n,
                  unsigned nthreads)
{
    struct TN(h_arg) s = { (FR *)a, (const FR *)b, (const FR *)c };
    zk_parallel_for(nthreads, n, 8192, TN(h_range), &s);
}

/* ---- step 4: MSMs --------------------------------------------------------- */

/* The MSM options for a table (NULL: none; points then as given). */
static struct zk_msm_opts TN(msm_opts)(const struct zk_msm_table *table)
{
    struct zk_msm_opts o = { 0, 0, 0, 0, 0, table };
    return o;
}

static int TN(msm_g1)(uint64_t *ret_jac, const void *points, const zk_scalar *scalars,
                      size_t n, unsigned nthreads, void *scratch,
                      const struct zk_msm_table *table)
{
    G1 r;
    struct zk_msm_opts o = TN(msm_opts)(table);
    int rc = G1N(msm)(&r, (const G1A *)points, (const limb_t *)scalars, n, nthreads, scratch,
                      &o);
    if (rc == 0)
        memcpy(ret_jac, &r, sizeof r);
    return rc;
}

static int TN(msm_g2)(uint64_t *ret_jac, const void *points, const zk_scalar *scalars,
                      size_t n, unsigned nthreads, void *scratch,
                      const struct zk_msm_table *table)
{
    G2 r;
    struct zk_msm_opts o = TN(msm_opts)(table);
    int rc = G2N(msm)(&r, (const G2A *)points, (const limb_t *)scalars, n, nthreads, scratch,
                      &o);
    if (rc == 0)
        memcpy(ret_jac, &r, sizeof r);
    return rc;
}

static size_t TN(msm_g1_scratch)(size_t n, unsigned nthreads, const struct zk_msm_table *table)
{
    struct zk_msm_opts o = TN(msm_opts)(table);
    return G1N(msm_scratch_size)(n, nthreads, &o);
}

static size_t TN(msm_g2_scratch)(size_t n, unsigned nthreads, const struct zk_msm_table *table)
{
    struct zk_msm_opts o = TN(msm_opts)(table);
    return G2N(msm_scratch_size)(n, nthreads, &o);
}

static size_t TN(msm_g1_table_size)(size_t n, unsigned factor)
{
    return G1N(msm_table_size)(n, factor);
}

static size_t TN(msm_g2_table_size)(size_t n, unsigned factor)
{
    return G2N(msm_table_size)(n, factor);
}

static int TN(msm_g1_table_build)(struct zk_msm_table *t, const void *points, size_t n,
                                  unsigned factor, unsigned nthreads)
{
    return G1N(msm_table_build)(t, (const G1A *)points, n, factor, nthreads);
}

static int TN(msm_g2_table_build)(struct zk_msm_table *t, const void *points, size_t n,
                                  unsigned factor, unsigned nthreads)
{
    return G2N(msm_table_build)(t, (const G2A *)points, n, factor, nthreads);
}

/* ---- step 5: blinding and assembly ---------------------------------------- */

static void TN(g1_load)(G1 *r, const uint64_t *aff)
{
    G1A a;
    memcpy(&a, aff, sizeof a);
    G1N(from_affine)(r, &a);
}

static void TN(g2_load)(G2 *r, const uint64_t *aff)
{
    G2A a;
    memcpy(&a, aff, sizeof a);
    G2N(from_affine)(r, &a);
}

static void TN(assemble)(const struct zk_groth16_pending *p, const uint64_t *b2_jac,
                         const zk_scalar *r, const zk_scalar *s, struct zk_groth16_proof *proof)
{
    const struct zk_zkey_header *h = &p->k->hdr;
    G1 alpha1, beta1, delta1, A, B1, C, H, t, pia, pic;
    G2 beta2, delta2, B2, t2, pib;
    FR rm, sm, rs, nrs;
    G1A aff1;
    G2A aff2;

    TN(g1_load)(&alpha1, h->alpha1);
    TN(g1_load)(&beta1, h->beta1);
    TN(g1_load)(&delta1, h->delta1);
    TN(g2_load)(&beta2, h->beta2);
    TN(g2_load)(&delta2, h->delta2);
    memcpy(&A, p->msm_a, sizeof A);
    memcpy(&B1, p->msm_b1, sizeof B1);
    memcpy(&C, p->msm_c, sizeof C);
    memcpy(&H, p->msm_h, sizeof H);
    memcpy(&B2, b2_jac, sizeof B2);

    /* (r*s mod r) as a plain scalar, negated: -rs */
    memcpy(&rm, r, sizeof rm);
    memcpy(&sm, s, sizeof sm);
    FRN(to_mont)(&rm, &rm);
    FRN(to_mont)(&sm, &sm);
    FRN(mul)(&rs, &rm, &sm);
    FRN(neg)(&rs, &rs);
    FRN(from_mont)(&nrs, &rs);

    /* pi_a = alpha1 + A' + r*delta1 */
    G1N(mul)(&t, &delta1, r->l, 256);
    G1N(add)(&pia, &alpha1, &A);
    G1N(add)(&pia, &pia, &t);
    /* B1 = beta1 + B1' + s*delta1 */
    G1N(mul)(&t, &delta1, s->l, 256);
    G1N(add)(&B1, &B1, &beta1);
    G1N(add)(&B1, &B1, &t);
    /* pi_b = beta2 + B2' + s*delta2 */
    G2N(mul)(&t2, &delta2, s->l, 256);
    G2N(add)(&pib, &beta2, &B2);
    G2N(add)(&pib, &pib, &t2);
    /* pi_c = C' + H' + s*pi_a + r*B1 - rs*delta1 */
    G1N(add)(&pic, &C, &H);
    G1N(mul)(&t, &pia, s->l, 256);
    G1N(add)(&pic, &pic, &t);
    G1N(mul)(&t, &B1, r->l, 256);
    G1N(add)(&pic, &pic, &t);
    G1N(mul)(&t, &delta1, nrs.l, 256);
    G1N(add)(&pic, &pic, &t);

    memset(proof->pi_a, 0, sizeof proof->pi_a);
    memset(proof->pi_b, 0, sizeof proof->pi_b);
    memset(proof->pi_c, 0, sizeof proof->pi_c);
    G1N(to_affine)(&aff1, &pia);
    memcpy(proof->pi_a, &aff1, sizeof aff1);
    G1N(to_affine)(&aff1, &pic);
    memcpy(proof->pi_c, &aff1, sizeof aff1);
    G2N(to_affine)(&aff2, &pib);
    memcpy(proof->pi_b, &aff2, sizeof aff2);
    proof->curve = ZK_T_CURVE;
}

static int TN(fr_is_canonical)(const zk_scalar *x)
{
    return FRN(is_canonical)(x->l);
}

/* ---- verifier ------------------------------------------------------------- */

static int TN(verify)(const struct zk_groth16_vk *vk, const zk_scalar *pub,
                      const struct zk_groth16_proof *proof, int *ret_valid)
{
    G1A P[4];
    G2A Q[4];
    G1A a, c, alpha, ic0;
    G2A b, gamma, delta, beta;
    G1 cpub, t;
    int rc;

    memcpy(&a, proof->pi_a, sizeof a);
    memcpy(&b, proof->pi_b, sizeof b);
    memcpy(&c, proof->pi_c, sizeof c);
    memcpy(&alpha, vk->alpha1, sizeof alpha);
    memcpy(&beta, vk->beta2, sizeof beta);
    memcpy(&gamma, vk->gamma2, sizeof gamma);
    memcpy(&delta, vk->delta2, sizeof delta);
    if (!G1N(affine_is_on_curve)(&a) || !G1N(affine_is_on_curve)(&c) ||
        !G2N(affine_is_on_curve)(&b))
        return ZK_ENOT_ON_CURVE;
    if (!G1N(affine_is_on_curve)(&alpha) || !G2N(affine_is_on_curve)(&beta) ||
        !G2N(affine_is_on_curve)(&gamma) || !G2N(affine_is_on_curve)(&delta))
        return ZK_ENOT_ON_CURVE;
    for (uint32_t i = 0; i <= vk->n_public; i++) {
        memcpy(&ic0, vk->ic[i], sizeof ic0);
        if (!G1N(affine_is_on_curve)(&ic0))
            return ZK_ENOT_ON_CURVE;
    }

    /* cpub = IC[0] + sum pub[i] IC[i+1] */
    memcpy(&ic0, vk->ic[0], sizeof ic0);
    G1N(from_affine)(&cpub, &ic0);
    for (uint32_t i = 0; i < vk->n_public; i++) {
        G1A ici;
        memcpy(&ici, vk->ic[i + 1], sizeof ici);
        G1N(from_affine)(&t, &ici);
        G1N(mul)(&t, &t, pub[i].l, 256);
        G1N(add)(&cpub, &cpub, &t);
    }

    G1N(affine_neg)(&P[0], &a);
    Q[0] = b;
    G1N(to_affine)(&P[1], &cpub);
    Q[1] = gamma;
    P[2] = c;
    Q[2] = delta;
    P[3] = alpha;
    Q[3] = beta;
    rc = TY(pairing_product_is_one)(P, Q, 4);
    if (rc < 0)
        return rc;
    *ret_valid = rc ? 1 : 0;
    return 0;
}

/* ---- JSON helpers --------------------------------------------------------- */

static void TN(fq_from_mont)(uint64_t *ret, const uint64_t *a)
{
    FP t;
    memcpy(&t, a, sizeof t);
    ZK_CAT(FP, from_mont)(&t, &t);
    memcpy(ret, &t, sizeof t);
}

static void TN(fq_to_mont)(uint64_t *ret, const uint64_t *a)
{
    FP t;
    memcpy(&t, a, sizeof t);
    ZK_CAT(FP, to_mont)(&t, &t);
    memcpy(ret, &t, sizeof t);
}

static int TN(fq_is_canonical)(const uint64_t *a)
{
    return ZK_CAT(FP, is_canonical)(a);
}

static void TN(g1_from_jac)(uint64_t *ret_aff, const uint64_t *x, const uint64_t *y,
                            const uint64_t *z)
{
    G1 p;
    G1A r;
    memcpy(&p.x, x, sizeof p.x);
    memcpy(&p.y, y, sizeof p.y);
    memcpy(&p.z, z, sizeof p.z);
    G1N(to_affine)(&r, &p);
    memcpy(ret_aff, &r, sizeof r);
}

static void TN(g2_from_jac)(uint64_t *ret_aff, const uint64_t *x, const uint64_t *y,
                            const uint64_t *z)
{
    G2 p;
    G2A r;
    memcpy(&p.x, x, sizeof p.x);
    memcpy(&p.y, y, sizeof p.y);
    memcpy(&p.z, z, sizeof p.z);
    G2N(to_affine)(&r, &p);
    memcpy(ret_aff, &r, sizeof r);
}

/* e(alpha1, beta2), its 12 Fq coefficients plain, in memory (= snarkjs) order. */
static int TN(alphabeta)(const uint64_t *alpha1, const uint64_t *beta2, uint64_t *ret12)
{
    G1A a;
    G2A b;
    TY(fp12) e;
    const FP *c = (const FP *)&e;

    _Static_assert(sizeof e == 12 * sizeof(FP), "Fp12 is 12 Fp elements");
    memcpy(&a, alpha1, sizeof a);
    memcpy(&b, beta2, sizeof b);
    TY(pairing)(&e, &a, &b);
    for (int i = 0; i < 12; i++) {
        FP t;
        ZK_CAT(FP, from_mont)(&t, &c[i]);
        memcpy(ret12 + (size_t)i * (sizeof t / 8), &t, sizeof t);
    }
    return 0;
}

static const struct g16_ops TN(g16_ops) = {
    .curve = ZK_T_CURVE,
    .fq_limbs = sizeof(FP) / 8,
    .synth = TN(synth),
    .odd_coset = TN(odd_coset),
    .h = TN(h),
    .msm_g1 = TN(msm_g1),
    .msm_g2 = TN(msm_g2),
    .msm_g1_scratch = TN(msm_g1_scratch),
    .msm_g2_scratch = TN(msm_g2_scratch),
    .msm_g1_table_size = TN(msm_g1_table_size),
    .msm_g2_table_size = TN(msm_g2_table_size),
    .msm_g1_table_build = TN(msm_g1_table_build),
    .msm_g2_table_build = TN(msm_g2_table_build),
    .assemble = TN(assemble),
    .fr_is_canonical = TN(fr_is_canonical),
    .verify = TN(verify),
    .fq_from_mont = TN(fq_from_mont),
    .fq_to_mont = TN(fq_to_mont),
    .fq_is_canonical = TN(fq_is_canonical),
    .g1_from_jac = TN(g1_from_jac),
    .g2_from_jac = TN(g2_from_jac),
    .alphabeta = TN(alphabeta),
};

#undef TN
#undef TY
#undef FR
#undef FP
#undef FP2
#undef G1
#undef G2
#undef G1A
#undef G2A
#undef FRN
#undef G1N
#undef G2N

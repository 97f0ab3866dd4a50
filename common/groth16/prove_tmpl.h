/*
 * prove_tmpl.h -- the per-curve half of the Groth16 prover and verifier,
 * instantiated by prove.c once per curve, each time right after the one
 * line that names its parameters (undefined at the end of this file):
 *   #define ZK_PROVE_TMPL (bn254, ZK_CURVE_BN254)
 * that is: the prefix of the curve (bn254, bls381), whose types bn254_fr,
 * bn254_fp, bn254_fp2, bn254_g1, bn254_g2 (+ _affine) and functions
 * bn254_fr_ntt_..., bn254_g1_msm, bn254_pairing_product_is_one, ... it
 * uses, and the enum zk_curve value.
 * It defines static functions and one `static const struct g16_ops
 * g16_bn254_g16_ops`.  Not a normal header.
 *
 * Generated names (static):
 *   g16_bn254_synth_arg g16_bn254_synth_range g16_bn254_synth
 *   g16_bn254_odd_coset g16_bn254_h_arg g16_bn254_h_range g16_bn254_h
 *   g16_bn254_msm_opts g16_bn254_msm_g1 g16_bn254_msm_g2
 *   g16_bn254_msm_g1_scratch g16_bn254_msm_g2_scratch
 *   g16_bn254_msm_g1_table_size g16_bn254_msm_g2_table_size
 *   g16_bn254_msm_g1_table_build g16_bn254_msm_g2_table_build
 *   g16_bn254_g1_load g16_bn254_g2_load g16_bn254_assemble
 *   g16_bn254_fr_is_canonical g16_bn254_verify g16_bn254_fq_from_mont
 *   g16_bn254_fq_to_mont g16_bn254_fq_is_canonical g16_bn254_g1_from_jac
 *   g16_bn254_g2_from_jac g16_bn254_alphabeta g16_bn254_g16_ops
 *   g16_bls381_synth_arg g16_bls381_synth_range g16_bls381_synth
 *   g16_bls381_odd_coset g16_bls381_h_arg g16_bls381_h_range g16_bls381_h
 *   g16_bls381_msm_opts g16_bls381_msm_g1 g16_bls381_msm_g2
 *   g16_bls381_msm_g1_scratch g16_bls381_msm_g2_scratch
 *   g16_bls381_msm_g1_table_size g16_bls381_msm_g2_table_size
 *   g16_bls381_msm_g1_table_build g16_bls381_msm_g2_table_build
 *   g16_bls381_g1_load g16_bls381_g2_load g16_bls381_assemble
 *   g16_bls381_fr_is_canonical g16_bls381_verify g16_bls381_fq_from_mont
 *   g16_bls381_fq_to_mont g16_bls381_fq_is_canonical g16_bls381_g1_from_jac
 *   g16_bls381_g2_from_jac g16_bls381_alphabeta g16_bls381_g16_ops
 */
#define CURVE_NAME(name) ZK_CAT(ZK_ARG(1, ZK_PROVE_TMPL), name)  /* CURVE_NAME(fr): bn254_fr */
#define CURVE_ID       ZK_ARG(2, ZK_PROVE_TMPL)               /* ZK_CURVE_BN254 */
/* G16_FN(h): g16_bn254_h, this file's statics */
#define G16_FN(name)   ZK_CAT(ZK_CAT(g16, ZK_ARG(1, ZK_PROVE_TMPL)), name)
#include "ff/curve_names.h"     /* FR_T, G1_T, G1_AFFINE_T, FR_FN, G1_FN, ... */

_Static_assert(sizeof(FR_T) == sizeof(zk_scalar), "Fr is 4 limbs");
_Static_assert(sizeof(G1_T) <= G16_G1J_WORDS * 8, "G1 Jacobian fits");
_Static_assert(sizeof(G2_T) <= G16_G2J_WORDS * 8, "G2 Jacobian fits");
_Static_assert(sizeof(G1_AFFINE_T) <= ZK_G16_G1_WORDS * 8, "G1 affine fits");
_Static_assert(sizeof(G2_AFFINE_T) <= ZK_G16_G2_WORDS * 8, "G2 affine fits");

/* ---- step 1: a, b, c over the domain -------------------------------------- */

struct G16_FN(synth_arg) {
    const struct zk_groth16_key *k;
    const zk_scalar *w;
    FR_T *a, *b, *c;
};

static void G16_FN(synth_range)(void *arg, size_t begin, size_t end)
{
    const struct G16_FN(synth_arg) *s = arg;
    const struct zk_groth16_key *k = s->k;
    for (size_t i = begin; i < end; i++) {
        FR_T acc[2];
        for (int m = 0; m < 2; m++) {
            FR_FN(zero)(&acc[m]);
            for (uint32_t j = k->rowptr[m][i]; j < k->rowptr[m][i + 1]; j++) {
                FR_T v, x, t;
                const zk_scalar *wx = &s->w[k->sig[m][j]];
                if ((wx->l[0] | wx->l[1] | wx->l[2] | wx->l[3]) == 0)
                    continue;                     /* a bit-decomposed witness: most are 0 */
                memcpy(&v, &k->val[m][j], sizeof v);
                memcpy(&x, wx, sizeof x);
                FR_FN(mul)(&t, &v, &x);           /* coef*R^2 * w * R^-1 = mont(coef*w) */
                FR_FN(add)(&acc[m], &acc[m], &t);
            }
        }
        s->a[i] = acc[0];
        s->b[i] = acc[1];
        FR_FN(mul)(&s->c[i], &acc[0], &acc[1]);
    }
}

static void G16_FN(synth)(const struct zk_groth16_key *k, const zk_scalar *w, zk_scalar *a,
                      zk_scalar *b, zk_scalar *c, unsigned nthreads)
{
    struct G16_FN(synth_arg) s = { k, w, (FR_T *)a, (FR_T *)b, (FR_T *)c };
    zk_parallel_for(nthreads, k->hdr.domain_size, 4096, G16_FN(synth_range), &s);
}

/* ---- steps 2 and 3: odd coset, h = a*b - c (plain) ------------------------ */

static int G16_FN(odd_coset)(zk_scalar *x, unsigned log_n, unsigned nthreads)
{
    return FR_FN(ntt_to_odd_coset)((FR_T *)x, log_n, nthreads);
}

struct G16_FN(h_arg) {
    FR_T *a;
    const FR_T *b, *c;
};

static void G16_FN(h_range)(void *arg, size_t begin, size_t end)
{
    const struct G16_FN(h_arg) *s = arg;
    for (size_t i = begin; i < end; i++) {
        FR_T t;
        FR_FN(mul)(&t, &s->a[i], &s->b[i]);
        FR_FN(sub)(&t, &t, &s->c[i]);
        FR_FN(from_mont)(&s->a[i], &t);          /* MSM scalars are plain */
    }
}

static void G16_FN(h)(zk_scalar *a, const zk_scalar *b, const zk_scalar *c, size_t n,
                  unsigned nthreads)
{
    struct G16_FN(h_arg) s = { (FR_T *)a, (const FR_T *)b, (const FR_T *)c };
    zk_parallel_for(nthreads, n, 8192, G16_FN(h_range), &s);
}

/* ---- step 4: MSMs --------------------------------------------------------- */

/* The MSM options for a table (NULL: none; points then as given). */
static struct zk_msm_opts G16_FN(msm_opts)(const struct zk_msm_table *table)
{
    struct zk_msm_opts o = { 0, 0, 0, 0, 0, table };
    return o;
}

static int G16_FN(msm_g1)(uint64_t *ret_jac, const void *points, const zk_scalar *scalars,
                      size_t n, unsigned nthreads, void *scratch,
                      const struct zk_msm_table *table)
{
    G1_T r;
    struct zk_msm_opts o = G16_FN(msm_opts)(table);
    int rc = G1_FN(msm)(&r, (const G1_AFFINE_T *)points, (const limb_t *)scalars, n, nthreads,
                        scratch, &o);
    if (rc == 0)
        memcpy(ret_jac, &r, sizeof r);
    return rc;
}

static int G16_FN(msm_g2)(uint64_t *ret_jac, const void *points, const zk_scalar *scalars,
                      size_t n, unsigned nthreads, void *scratch,
                      const struct zk_msm_table *table)
{
    G2_T r;
    struct zk_msm_opts o = G16_FN(msm_opts)(table);
    int rc = G2_FN(msm)(&r, (const G2_AFFINE_T *)points, (const limb_t *)scalars, n, nthreads,
                        scratch, &o);
    if (rc == 0)
        memcpy(ret_jac, &r, sizeof r);
    return rc;
}

static size_t G16_FN(msm_g1_scratch)(size_t n, unsigned nthreads, const struct zk_msm_table *table)
{
    struct zk_msm_opts o = G16_FN(msm_opts)(table);
    return G1_FN(msm_scratch_size)(n, nthreads, &o);
}

static size_t G16_FN(msm_g2_scratch)(size_t n, unsigned nthreads, const struct zk_msm_table *table)
{
    struct zk_msm_opts o = G16_FN(msm_opts)(table);
    return G2_FN(msm_scratch_size)(n, nthreads, &o);
}

static size_t G16_FN(msm_g1_table_size)(size_t n, unsigned factor)
{
    return G1_FN(msm_table_size)(n, factor);
}

static size_t G16_FN(msm_g2_table_size)(size_t n, unsigned factor)
{
    return G2_FN(msm_table_size)(n, factor);
}

static int G16_FN(msm_g1_table_build)(struct zk_msm_table *t, const void *points, size_t n,
                                  unsigned factor, unsigned nthreads)
{
    return G1_FN(msm_table_build)(t, (const G1_AFFINE_T *)points, n, factor, nthreads);
}

static int G16_FN(msm_g2_table_build)(struct zk_msm_table *t, const void *points, size_t n,
                                  unsigned factor, unsigned nthreads)
{
    return G2_FN(msm_table_build)(t, (const G2_AFFINE_T *)points, n, factor, nthreads);
}

/* ---- step 5: blinding and assembly ---------------------------------------- */

static void G16_FN(g1_load)(G1_T *r, const uint64_t *aff)
{
    G1_AFFINE_T a;
    memcpy(&a, aff, sizeof a);
    G1_FN(from_affine)(r, &a);
}

static void G16_FN(g2_load)(G2_T *r, const uint64_t *aff)
{
    G2_AFFINE_T a;
    memcpy(&a, aff, sizeof a);
    G2_FN(from_affine)(r, &a);
}

static void G16_FN(assemble)(const struct zk_groth16_pending *p, const uint64_t *b2_jac,
                         const zk_scalar *r, const zk_scalar *s, struct zk_groth16_proof *proof)
{
    const struct zk_zkey_header *h = &p->k->hdr;
    G1_T alpha1, beta1, delta1, A, B1, C, H, t, pia, pic;
    G2_T beta2, delta2, B2, t2, pib;
    FR_T rm, sm, rs, nrs;
    G1_AFFINE_T aff1;
    G2_AFFINE_T aff2;

    G16_FN(g1_load)(&alpha1, h->alpha1);
    G16_FN(g1_load)(&beta1, h->beta1);
    G16_FN(g1_load)(&delta1, h->delta1);
    G16_FN(g2_load)(&beta2, h->beta2);
    G16_FN(g2_load)(&delta2, h->delta2);
    memcpy(&A, p->msm_a, sizeof A);
    memcpy(&B1, p->msm_b1, sizeof B1);
    memcpy(&C, p->msm_c, sizeof C);
    memcpy(&H, p->msm_h, sizeof H);
    memcpy(&B2, b2_jac, sizeof B2);

    /* (r*s mod r) as a plain scalar, negated: -rs */
    memcpy(&rm, r, sizeof rm);
    memcpy(&sm, s, sizeof sm);
    FR_FN(to_mont)(&rm, &rm);
    FR_FN(to_mont)(&sm, &sm);
    FR_FN(mul)(&rs, &rm, &sm);
    FR_FN(neg)(&rs, &rs);
    FR_FN(from_mont)(&nrs, &rs);

    /* pi_a = alpha1 + A' + r*delta1 */
    G1_FN(mul)(&t, &delta1, r->l, 256);
    G1_FN(add)(&pia, &alpha1, &A);
    G1_FN(add)(&pia, &pia, &t);
    /* B1 = beta1 + B1' + s*delta1 */
    G1_FN(mul)(&t, &delta1, s->l, 256);
    G1_FN(add)(&B1, &B1, &beta1);
    G1_FN(add)(&B1, &B1, &t);
    /* pi_b = beta2 + B2' + s*delta2 */
    G2_FN(mul)(&t2, &delta2, s->l, 256);
    G2_FN(add)(&pib, &beta2, &B2);
    G2_FN(add)(&pib, &pib, &t2);
    /* pi_c = C' + H' + s*pi_a + r*B1 - rs*delta1 */
    G1_FN(add)(&pic, &C, &H);
    G1_FN(mul)(&t, &pia, s->l, 256);
    G1_FN(add)(&pic, &pic, &t);
    G1_FN(mul)(&t, &B1, r->l, 256);
    G1_FN(add)(&pic, &pic, &t);
    G1_FN(mul)(&t, &delta1, nrs.l, 256);
    G1_FN(add)(&pic, &pic, &t);

    memset(proof->pi_a, 0, sizeof proof->pi_a);
    memset(proof->pi_b, 0, sizeof proof->pi_b);
    memset(proof->pi_c, 0, sizeof proof->pi_c);
    G1_FN(to_affine)(&aff1, &pia);
    memcpy(proof->pi_a, &aff1, sizeof aff1);
    G1_FN(to_affine)(&aff1, &pic);
    memcpy(proof->pi_c, &aff1, sizeof aff1);
    G2_FN(to_affine)(&aff2, &pib);
    memcpy(proof->pi_b, &aff2, sizeof aff2);
    proof->curve = CURVE_ID;
}

static int G16_FN(fr_is_canonical)(const zk_scalar *x)
{
    return FR_FN(is_canonical)(x->l);
}

/* ---- verifier ------------------------------------------------------------- */

static int G16_FN(verify)(const struct zk_groth16_vk *vk, const zk_scalar *pub,
                      const struct zk_groth16_proof *proof, int *ret_valid)
{
    G1_AFFINE_T P[4];
    G2_AFFINE_T Q[4];
    G1_AFFINE_T a, c, alpha, ic0;
    G2_AFFINE_T b, gamma, delta, beta;
    G1_T cpub, t;
    int rc;

    memcpy(&a, proof->pi_a, sizeof a);
    memcpy(&b, proof->pi_b, sizeof b);
    memcpy(&c, proof->pi_c, sizeof c);
    memcpy(&alpha, vk->alpha1, sizeof alpha);
    memcpy(&beta, vk->beta2, sizeof beta);
    memcpy(&gamma, vk->gamma2, sizeof gamma);
    memcpy(&delta, vk->delta2, sizeof delta);
    if (!G1_FN(affine_is_on_curve)(&a) || !G1_FN(affine_is_on_curve)(&c) ||
        !G2_FN(affine_is_on_curve)(&b))
        return ZK_ENOT_ON_CURVE;
    if (!G1_FN(affine_is_on_curve)(&alpha) || !G2_FN(affine_is_on_curve)(&beta) ||
        !G2_FN(affine_is_on_curve)(&gamma) || !G2_FN(affine_is_on_curve)(&delta))
        return ZK_ENOT_ON_CURVE;
    for (uint32_t i = 0; i <= vk->n_public; i++) {
        memcpy(&ic0, vk->ic[i], sizeof ic0);
        if (!G1_FN(affine_is_on_curve)(&ic0))
            return ZK_ENOT_ON_CURVE;
    }

    /* cpub = IC[0] + sum pub[i] IC[i+1] */
    memcpy(&ic0, vk->ic[0], sizeof ic0);
    G1_FN(from_affine)(&cpub, &ic0);
    for (uint32_t i = 0; i < vk->n_public; i++) {
        G1_AFFINE_T ici;
        memcpy(&ici, vk->ic[i + 1], sizeof ici);
        G1_FN(from_affine)(&t, &ici);
        G1_FN(mul)(&t, &t, pub[i].l, 256);
        G1_FN(add)(&cpub, &cpub, &t);
    }

    G1_FN(affine_neg)(&P[0], &a);
    Q[0] = b;
    G1_FN(to_affine)(&P[1], &cpub);
    Q[1] = gamma;
    P[2] = c;
    Q[2] = delta;
    P[3] = alpha;
    Q[3] = beta;
    rc = CURVE_NAME(pairing_product_is_one)(P, Q, 4);
    if (rc < 0)
        return rc;
    *ret_valid = rc ? 1 : 0;
    return 0;
}

/* ---- JSON helpers --------------------------------------------------------- */

static void G16_FN(fq_from_mont)(uint64_t *ret, const uint64_t *a)
{
    FP_T t;
    memcpy(&t, a, sizeof t);
    FP_FN(from_mont)(&t, &t);
    memcpy(ret, &t, sizeof t);
}

static void G16_FN(fq_to_mont)(uint64_t *ret, const uint64_t *a)
{
    FP_T t;
    memcpy(&t, a, sizeof t);
    FP_FN(to_mont)(&t, &t);
    memcpy(ret, &t, sizeof t);
}

static int G16_FN(fq_is_canonical)(const uint64_t *a)
{
    return FP_FN(is_canonical)(a);
}

static void G16_FN(g1_from_jac)(uint64_t *ret_aff, const uint64_t *x, const uint64_t *y,
                            const uint64_t *z)
{
    G1_T p;
    G1_AFFINE_T r;
    memcpy(&p.x, x, sizeof p.x);
    memcpy(&p.y, y, sizeof p.y);
    memcpy(&p.z, z, sizeof p.z);
    G1_FN(to_affine)(&r, &p);
    memcpy(ret_aff, &r, sizeof r);
}

static void G16_FN(g2_from_jac)(uint64_t *ret_aff, const uint64_t *x, const uint64_t *y,
                            const uint64_t *z)
{
    G2_T p;
    G2_AFFINE_T r;
    memcpy(&p.x, x, sizeof p.x);
    memcpy(&p.y, y, sizeof p.y);
    memcpy(&p.z, z, sizeof p.z);
    G2_FN(to_affine)(&r, &p);
    memcpy(ret_aff, &r, sizeof r);
}

/* e(alpha1, beta2), its 12 Fq coefficients plain, in memory (= snarkjs) order. */
static int G16_FN(alphabeta)(const uint64_t *alpha1, const uint64_t *beta2, uint64_t *ret12)
{
    G1_AFFINE_T a;
    G2_AFFINE_T b;
    CURVE_NAME(fp12) e;
    const FP_T *c = (const FP_T *)&e;

    _Static_assert(sizeof e == 12 * sizeof(FP_T), "Fp12 is 12 Fp elements");
    memcpy(&a, alpha1, sizeof a);
    memcpy(&b, beta2, sizeof b);
    CURVE_NAME(pairing)(&e, &a, &b);
    for (int i = 0; i < 12; i++) {
        FP_T t;
        FP_FN(from_mont)(&t, &c[i]);
        memcpy(ret12 + (size_t)i * (sizeof t / 8), &t, sizeof t);
    }
    return 0;
}

static const struct g16_ops G16_FN(g16_ops) = {
    .curve = CURVE_ID,
    .fq_limbs = sizeof(FP_T) / 8,
    .synth = G16_FN(synth),
    .odd_coset = G16_FN(odd_coset),
    .h = G16_FN(h),
    .msm_g1 = G16_FN(msm_g1),
    .msm_g2 = G16_FN(msm_g2),
    .msm_g1_scratch = G16_FN(msm_g1_scratch),
    .msm_g2_scratch = G16_FN(msm_g2_scratch),
    .msm_g1_table_size = G16_FN(msm_g1_table_size),
    .msm_g2_table_size = G16_FN(msm_g2_table_size),
    .msm_g1_table_build = G16_FN(msm_g1_table_build),
    .msm_g2_table_build = G16_FN(msm_g2_table_build),
    .assemble = G16_FN(assemble),
    .fr_is_canonical = G16_FN(fr_is_canonical),
    .verify = G16_FN(verify),
    .fq_from_mont = G16_FN(fq_from_mont),
    .fq_to_mont = G16_FN(fq_to_mont),
    .fq_is_canonical = G16_FN(fq_is_canonical),
    .g1_from_jac = G16_FN(g1_from_jac),
    .g2_from_jac = G16_FN(g2_from_jac),
    .alphabeta = G16_FN(alphabeta),
};

#include "ff/curve_names.h"     /* (undefines them and CURVE_NAME) */
#undef CURVE_ID
#undef G16_FN
#undef ZK_PROVE_TMPL

/*
 * prove.c -- zk_bp_prove: bellperson's Groth16 prover (its create_proof
 * with given r and s) over a parameter file and a .bpa assignment.
 *
 * H.  bellperson's a, b, c are the evaluations of A, B, C on its domain of
 * m = 2^L points, whose root of unity comes from Fr's generator 7:
 * w7 = 7^((r-1)/m).  zkslot's NTT (common/ntt/) uses w5 = 5^((r-1)/m).
 * Both generate the same cyclic group, so w7 = w5^k for an odd k fixed
 * once for all sizes (k mod 2^L at size 2^L: bp_root_map), and
 * A(w7^i) = A(w5^(k i mod m)): scattering a[i] to position k i mod m gives
 * the evaluations on zkslot's ordering, after which the inverse NTT yields
 * A's coefficients, the same ones bellperson's ifft yields.  Then, as
 * bellperson: the coset {7 w^j}, A B - C, divided by Z = 7^m - 1 (constant
 * on that coset), back to coefficients; the first m - 1 (the last is 0 for
 * a satisfied circuit) against the key's m - 1 monomial `h` points.  The
 * interpolation runs over the same point set with the same values, so H is
 * bellperson's even for an assignment that does not satisfy its circuit.
 *
 * MSMs, one each (bellperson splits A and B into inputs and aux; the sums
 * are equal): A over `a` with the inputs and the aux whose a_aux bit is set;
 * B over b_g1 and b_g2 with the inputs whose b_input bit is set and the aux
 * whose b_aux bit is set; L over `l` with every aux; H over `h`.
 *
 * Assembly (bellperson's order of terms, the same group elements):
 *   A = alpha1 + r delta1 + A'      B = beta2 + s delta2 + B2'
 *   C = s A' + r B1' + r s delta1 + s alpha1 + r beta1 + H' + L'
 * encoded compressed: A (48) || B (96) || C (48).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "bp_internal.h"
#include "ff/consts.h"
#include "zk/ec.h"
#include "zk/error.h"
#include "zk/msm.h"
#include "zk/ntt.h"
#include "zk/parallel.h"
#include "zk/util.h"

/* ---- the domain's root: w7 = w5^k ----------------------------------------- */

static pthread_once_t bp_root_once = PTHREAD_ONCE_INIT;
static uint64_t bp_root_k;       /* w7_32 = w5_32^k, k odd, < 2^32 */

static void bp_root_init(void)
{
    static const limb_t P[4] = BLS381_FR_P;
    limb_t t[4];
    bls381_fr g, w7, w5, w5inv, x, y, one;
    uint64_t k = 0;

    /* t = (r - 1) / 2^32, the odd part of r - 1 */
    for (int i = 0; i < 4; i++)
        t[i] = (P[i] >> 32) | (i < 3 ? P[i + 1] << 32 : 0);
    bls381_fr_from_u64(&g, 7);
    bls381_fr_pow(&w7, &g, t, 256);
    bls381_fr_root_of_unity(&w5, BLS381_FR_TWO_ADICITY);
    bls381_fr_inv(&w5inv, &w5);
    bls381_fr_one(&one);
    /* Pohlig-Hellman in the group of order 2^32: bit j of k makes
     * w7 w5^-k of order dividing 2^(31 - j) */
    for (unsigned j = 0; j < BLS381_FR_TWO_ADICITY; j++) {
        limb_t e[4] = { k, 0, 0, 0 };
        bls381_fr_pow(&x, &w5inv, e, 64);
        bls381_fr_mul(&x, &x, &w7);
        y = x;
        for (unsigned s = 0; s < BLS381_FR_TWO_ADICITY - 1 - j; s++)
            bls381_fr_sqr(&y, &y);
        if (!bls381_fr_eq(&y, &one))
            k |= 1ULL << j;
    }
    bp_root_k = k;
}

/* k mod 2^L: bellperson's evaluation i sits at position (k i) mod 2^L. */
static uint64_t bp_root_map(unsigned L)
{
    pthread_once(&bp_root_once, bp_root_init);
    return L == 0 ? 0 : bp_root_k & ((1ULL << L) - 1);
}

uint64_t zk_bp_root_multiplier(void)
{
    pthread_once(&bp_root_once, bp_root_init);
    return bp_root_k;
}

/* ---- the CPU's engine ------------------------------------------------------ */

static int bp_cpu_ntt(void *ctx, uint64_t *data, unsigned L, int inverse, const uint64_t *shift)
{
    unsigned nt = *(const unsigned *)ctx;
    if (shift == NULL)
        return bls381_fr_ntt((bls381_fr *)data, L, inverse, nt);
    return bls381_fr_ntt_coset((bls381_fr *)data, L, inverse, (const bls381_fr *)shift, nt);
}

static int bp_cpu_msm_g1(void *ctx, uint64_t *ret, const void *pts, const uint64_t *sc, size_t n)
{
    return bls381_g1_msm((bls381_g1 *)ret, pts, sc, n, *(const unsigned *)ctx, NULL, NULL);
}

static int bp_cpu_msm_g2(void *ctx, uint64_t *ret, const void *pts, const uint64_t *sc, size_t n)
{
    return bls381_g2_msm((bls381_g2 *)ret, pts, sc, n, *(const unsigned *)ctx, NULL, NULL);
}

static const char *bp_engine_error(const struct zk_bp_engine *e, int rc)
{
    return e->error != NULL ? e->error(rc) : zk_strerror(rc);
}

/* ---- H ------------------------------------------------------------------- */

struct bp_scatter {
    const bls381_fr *src;
    bls381_fr *dst;
    uint64_t k, mask;
};

static void bp_scatter_range(void *arg, size_t begin, size_t end)
{
    const struct bp_scatter *s = arg;
    for (size_t i = begin; i < end; i++)
        bls381_fr_to_mont(&s->dst[(s->k * i) & s->mask], &s->src[i]);
}

/* On the coset, pointwise: a *= b (step 1), then a = (a - c) zinv
 * (step 2): two passes, so that b is freed before c is made. */
struct bp_hdiv {
    bls381_fr *a;
    const bls381_fr *x;          /* b, then c */
    bls381_fr zinv;
    int step;
};

static void bp_hdiv_range(void *arg, size_t begin, size_t end)
{
    const struct bp_hdiv *h = arg;
    for (size_t i = begin; i < end; i++) {
        if (h->step == 1) {
            bls381_fr_mul(&h->a[i], &h->a[i], &h->x[i]);
        } else {
            bls381_fr t;
            bls381_fr_sub(&t, &h->a[i], &h->x[i]);
            bls381_fr_mul(&h->a[i], &t, &h->zinv);
        }
    }
}

static void bp_from_mont_range(void *arg, size_t begin, size_t end)
{
    bls381_fr *a = arg;
    for (size_t i = begin; i < end; i++)
        bls381_fr_from_mont(&a[i], &a[i]);
}

/* The assignment's a, b and c are read once each, into H's buffers: when
 * they come from a mapped file, each one's pages are given back to the page
 * cache right after (MADV_DONTNEED on a private read-only mapping: the
 * bytes stay the file's and are read again if touched), so a proof never
 * holds a vector twice. */
static void bp_drop(const struct zk_bp_assignment *as, const bls381_fr *v, uint64_t n)
{
    if (as->map != NULL)
        zk_bp_drop_pages(v, v + n);
}

/* ---- between the steps: an urgent caller's hook ----------------------------- */

static __thread void (*bp_between_fn)(void *ctx);
static __thread void *bp_between_ctx;

void zk_bp_set_between(void (*fn)(void *ctx), void *ctx)
{
    bp_between_fn = fn;
    bp_between_ctx = ctx;
}

/* Called on the proving thread at each step boundary (zk_bp_set_between). */
static void bp_between(void)
{
    if (bp_between_fn)
        bp_between_fn(bp_between_ctx);
}

/* While a hook is set, a multiplication runs in steps of at most this many
 * points (G2's cost about three times G1's per point), the hook called
 * between them; the sum of the steps is the same point. */
#define BP_STEP_G1 ((size_t)1 << 20)
#define BP_STEP_G2 ((size_t)1 << 18)

static size_t bp_step_g1 = BP_STEP_G1, bp_step_g2 = BP_STEP_G2;

void zk_bp_set_steps(size_t g1, size_t g2)
{
    bp_step_g1 = g1 ? g1 : BP_STEP_G1;
    bp_step_g2 = g2 ? g2 : BP_STEP_G2;
}

/* bp_msm_g1 and bp_msm_g2: e's multiplication, in steps of bp_step_G
 * with the hook between them while one is set (one body for both groups,
 * as blst writes its G1/G2 twins). */
#define BP_MSM_STEPPED(G)                                                                     \
    static int bp_msm_##G(const struct zk_bp_engine *e, bls381_##G *ret,                      \
                          const bls381_##G##_affine *pts, const uint64_t *sc, size_t n)       \
    {                                                                                         \
        if (!bp_between_fn || n <= bp_step_##G)                                               \
            return e->msm_##G(e->ctx, (uint64_t *)ret, pts, sc, n);                           \
        bls381_##G part;                                                                      \
        bls381_##G##_set_inf(ret);                                                            \
        for (size_t o = 0; o < n; o += bp_step_##G) {                                         \
            size_t k = n - o < bp_step_##G ? n - o : bp_step_##G;                             \
            int rc;                                                                           \
            if (o)                                                                            \
                bp_between();                                                                 \
            if ((rc = e->msm_##G(e->ctx, (uint64_t *)&part, pts + o, sc + 4 * o, k)) != 0)    \
                return rc;                                                                    \
            bls381_##G##_add(ret, ret, &part);                                                \
        }                                                                                     \
        return 0;                                                                             \
    }
BP_MSM_STEPPED(g1)
BP_MSM_STEPPED(g2)

/* H' = sum h_i H_i (Jacobian) for the assignment's a, b, c. */
static int bp_h(const struct zk_bp_engine *e, const struct zk_bp_key *k,
                const struct zk_bp_assignment *as, unsigned nt, bls381_g1 *ret,
                struct zk_diag *diag)
{
    unsigned L = k->info.log2_domain;
    size_t m = (size_t)1 << L, bytes = m * sizeof(bls381_fr);
    bls381_fr *v[3] = { NULL, NULL, NULL };
    bls381_fr shift, zinv, one;
    struct bp_scatter sc;
    struct bp_hdiv hd;
    limb_t em[4] = { m, 0, 0, 0 };
    int rc = 0;

    if (k->info.n_h == 0) {
        bls381_g1_set_inf(ret);
        return 0;
    }
    /* zinv = (7^m - 1)^-1, Z on the coset {7 w^j} */
    bls381_fr_from_u64(&shift, 7);
    bls381_fr_pow(&zinv, &shift, em, 64);
    bls381_fr_one(&one);
    bls381_fr_sub(&zinv, &zinv, &one);
    bls381_fr_inv(&zinv, &zinv);
    /* a, b, c one at a time onto the coset: at most two of H's buffers and
     * one vector of the assignment's pages are held at once (bp_drop) */
    for (int i = 0; i < 3; i++) {
        const bls381_fr *src = i == 0 ? as->a : i == 1 ? as->b : as->c;
        if ((v[i] = zk_secret_alloc(bytes)) == NULL) {
            rc = zk_diag_set(diag, "prove", -ENOMEM, "H: 2 x %zu bytes: out of memory", bytes);
            goto out;
        }
        memset(v[i], 0, bytes);
        sc = (struct bp_scatter){ src, v[i], bp_root_map(L), m - 1 };
        zk_parallel_for(nt, as->n_constraints, 8192, bp_scatter_range, &sc);
        bp_drop(as, src, as->n_constraints);
        bp_between();
        rc = e->ntt(e->ctx, v[i]->l, L, 1, NULL);
        if (rc == 0) {
            bp_between();
            rc = e->ntt(e->ctx, v[i]->l, L, 0, shift.l);
        }
        if (rc != 0) {
            rc = zk_diag_set(diag, "prove", rc, "H: NTT of 2^%u (%s): %s", L, e->name,
                             bp_engine_error(e, rc));
            goto out;
        }
        if (i > 0) {                            /* a *= b, then a = (a - c) zinv */
            hd = (struct bp_hdiv){ v[0], v[i], zinv, i };
            zk_parallel_for(nt, m, 8192, bp_hdiv_range, &hd);
            zk_memzero(v[i], bytes);
            zk_big_free(v[i]);
            v[i] = NULL;
        }
    }
    bp_between();
    if ((rc = e->ntt(e->ctx, v[0]->l, L, 1, shift.l)) != 0) {
        rc = zk_diag_set(diag, "prove", rc, "H: NTT of 2^%u (%s): %s", L, e->name,
                         bp_engine_error(e, rc));
        goto out;
    }
    zk_parallel_for(nt, m - 1, 8192, bp_from_mont_range, v[0]);
    bp_between();
    rc = bp_msm_g1(e, ret, k->h, v[0]->l, m - 1);
    if (rc != 0)
        rc = zk_diag_set(diag, "prove", rc, "H: MSM of %zu (%s): %s", m - 1, e->name,
                         bp_engine_error(e, rc));
out:
    for (int i = 0; i < 3; i++)
        if (v[i] != NULL) {
            zk_memzero(v[i], bytes);
            zk_big_free(v[i]);
        }
    return rc;
}

/* ---- A, B: the scalars compacted by density ------------------------------ */

static size_t bp_compact(bls381_fr *dst, const bls381_fr *src, const uint64_t *bits, uint64_t n)
{
    size_t o = 0;
    for (uint64_t i = 0; i < n; i++)
        if (bits == NULL || (bits[i / 64] >> (i % 64) & 1))
            dst[o++] = src[i];
    return o;
}

static int bp_msm_error(const struct zk_bp_engine *e, struct zk_diag *diag, const char *what,
                        int rc)
{
    return zk_diag_set(diag, "prove", rc, "%s: MSM (%s): %s", what, e->name,
                       bp_engine_error(e, rc));
}

/* ---- the proof ------------------------------------------------------------ */

static int bp_check(const struct zk_bp_key *k, const struct zk_bp_assignment *as,
                    struct zk_diag *diag)
{
    const struct zk_bp_key_info *in = &k->info;
    if (as->n_inputs != in->n_ic)
        return zk_diag_set(diag, "prove", ZK_ELENGTH, "the assignment has %llu inputs, the key %u",
                           (unsigned long long)as->n_inputs, in->n_ic);
    if (as->n_aux != in->n_l)
        return zk_diag_set(diag, "prove", ZK_ELENGTH, "the assignment has %llu aux, the key %u",
                           (unsigned long long)as->n_aux, in->n_l);
    if (zk_bp_log2_domain(as->n_constraints) != in->log2_domain)
        return zk_diag_set(diag, "prove", ZK_ELENGTH,
                           "the assignment's %llu constraints make a domain of 2^%u, the key's is 2^%u",
                           (unsigned long long)as->n_constraints,
                           zk_bp_log2_domain(as->n_constraints), in->log2_domain);
    if (as->n_inputs + as->pop_a_aux != in->n_a)
        return zk_diag_set(diag, "prove", ZK_ELENGTH,
                           "A's density gives %llu bases, the key has %u",
                           (unsigned long long)(as->n_inputs + as->pop_a_aux), in->n_a);
    if (as->pop_b_input + as->pop_b_aux != in->n_b_g1)
        return zk_diag_set(diag, "prove", ZK_ELENGTH,
                           "B's density gives %llu bases, the key has %u",
                           (unsigned long long)(as->pop_b_input + as->pop_b_aux), in->n_b_g1);
    return 0;
}

static void bp_scalar(bls381_fr *ret, const uint8_t b[32])
{
    memcpy(ret->l, b, 32);       /* little-endian limbs on a little-endian machine */
}

int zk_bp_prove(const zk_bp_key *key, const zk_bp_assignment *as, const uint8_t r[32],
                const uint8_t s[32], unsigned threads, uint8_t proof[ZK_BP_PROOF_BYTES],
                struct zk_diag *diag)
{
    struct zk_bp_engine cpu = { "cpu", &threads, bp_cpu_ntt, bp_cpu_msm_g1, bp_cpu_msm_g2, NULL };
    return zk_bp_prove_with(&cpu, key, as, r, s, threads, proof, diag);
}

int zk_bp_prove_with(const struct zk_bp_engine *e, const zk_bp_key *key,
                     const zk_bp_assignment *as, const uint8_t r[32], const uint8_t s[32],
                     unsigned threads, uint8_t proof[ZK_BP_PROOF_BYTES], struct zk_diag *diag)
{
    const struct zk_bp_vk *vk = &key->vk;
    bls381_fr rr, ss, rm, sm, rs;
    bls381_g1 H, Lq, A, B1, t, ga, gc;
    bls381_g2 B2, t2, gb;
    bls381_g1_affine aff1;
    bls381_g2_affine aff2;
    bls381_fr *sa = NULL, *sb = NULL;
    size_t na = key->info.n_a, nb = key->info.n_b_g1;
    int rc;

    bp_scalar(&rr, r);
    bp_scalar(&ss, s);
    if (!bls381_fr_is_canonical(rr.l) || !bls381_fr_is_canonical(ss.l))
        return zk_diag_set(diag, "prove", ZK_ERANGE, "r or s is not below the group order");
    if ((rc = bp_check(key, as, diag)) != 0)
        return rc;
    if ((rc = bp_h(e, key, as, threads, &H, diag)) != 0)
        return rc;
    bp_between();
    if ((rc = bp_msm_g1(e, &Lq, key->l, as->aux->l, as->n_aux)) != 0)
        return bp_msm_error(e, diag, "L", rc);

    sa = zk_secret_alloc((na ? na : 1) * sizeof *sa);
    sb = zk_secret_alloc((nb ? nb : 1) * sizeof *sb);
    if (sa == NULL || sb == NULL) {
        rc = zk_diag_set(diag, "prove", -ENOMEM, "A, B scalars: out of memory");
        goto out;
    }
    bp_compact(sa, as->input, NULL, as->n_inputs);
    bp_compact(sa + as->n_inputs, as->aux, as->a_aux, as->n_aux);
    bp_compact(sb + bp_compact(sb, as->input, as->b_input, as->n_inputs), as->aux, as->b_aux,
               as->n_aux);
    bp_between();
    if ((rc = bp_msm_g1(e, &A, key->a, sa->l, na)) != 0) {
        rc = bp_msm_error(e, diag, "A", rc);
        goto out;
    }
    bp_between();
    if ((rc = bp_msm_g1(e, &B1, key->b_g1, sb->l, nb)) != 0) {
        rc = bp_msm_error(e, diag, "B (G1)", rc);
        goto out;
    }
    bp_between();
    if ((rc = bp_msm_g2(e, &B2, key->b_g2, sb->l, nb)) != 0) {
        rc = bp_msm_error(e, diag, "B (G2)", rc);
        goto out;
    }

    /* r s mod q, plain */
    bls381_fr_to_mont(&rm, &rr);
    bls381_fr_to_mont(&sm, &ss);
    bls381_fr_mul(&rs, &rm, &sm);
    bls381_fr_from_mont(&rs, &rs);

    /* A = delta1 r + alpha1 + A' */
    bls381_g1_from_affine(&t, &vk->delta_g1);
    bls381_g1_mul(&ga, &t, rr.l, 256);
    bls381_g1_add_affine(&ga, &ga, &vk->alpha_g1);
    bls381_g1_add(&ga, &ga, &A);
    /* B = delta2 s + beta2 + B2' */
    bls381_g2_from_affine(&t2, &vk->delta_g2);
    bls381_g2_mul(&gb, &t2, ss.l, 256);
    bls381_g2_add_affine(&gb, &gb, &vk->beta_g2);
    bls381_g2_add(&gb, &gb, &B2);
    /* C = s A' + r B1' + rs delta1 + s alpha1 + r beta1 + H' + L' */
    bls381_g1_mul(&gc, &A, ss.l, 256);
    bls381_g1_mul(&t, &B1, rr.l, 256);
    bls381_g1_add(&gc, &gc, &t);
    bls381_g1_from_affine(&t, &vk->delta_g1);
    bls381_g1_mul(&t, &t, rs.l, 256);
    bls381_g1_add(&gc, &gc, &t);
    bls381_g1_from_affine(&t, &vk->alpha_g1);
    bls381_g1_mul(&t, &t, ss.l, 256);
    bls381_g1_add(&gc, &gc, &t);
    bls381_g1_from_affine(&t, &vk->beta_g1);
    bls381_g1_mul(&t, &t, rr.l, 256);
    bls381_g1_add(&gc, &gc, &t);
    bls381_g1_add(&gc, &gc, &H);
    bls381_g1_add(&gc, &gc, &Lq);

    bls381_g1_to_affine(&aff1, &ga);
    bls381_g1_to_compressed(proof, &aff1);
    bls381_g2_to_affine(&aff2, &gb);
    bls381_g2_to_compressed(proof + 48, &aff2);
    bls381_g1_to_affine(&aff1, &gc);
    bls381_g1_to_compressed(proof + 144, &aff1);
    rc = 0;
out:
    if (sa != NULL) {
        zk_memzero(sa, (na ? na : 1) * sizeof *sa);
        zk_big_free(sa);
    }
    if (sb != NULL) {
        zk_memzero(sb, (nb ? nb : 1) * sizeof *sb);
        zk_big_free(sb);
    }
    zk_memzero(&rr, sizeof rr);
    zk_memzero(&ss, sizeof ss);
    zk_memzero(&rs, sizeof rs);
    return rc;
}

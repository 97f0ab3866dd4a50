/*
 * groth16_test_tmpl.h -- the per-curve body of tests/test_groth16.c,
 * included once per curve, each time right after the one line that names
 * its parameters (undefined at the end of this file):
 *   #define ZK_G16_TEST_TMPL (bn254, ZK_CURVE_BN254)
 * that is: the curve's prefix (CURVE_NAME(fr) is bn254_fr) and its enum
 * zk_curve value.
 *
 * A random R1CS is built by hand, with a satisfying witness; a zkey is laid
 * out byte by byte following docs/formats.md section 5 from known toxic
 * waste (tau, alpha, beta, delta; gamma = 1), every point computed as
 * [scalar] G by double-and-add from scalars evaluated directly in Fr
 * (Lagrange bases at tau, no NTT, no MSM).  Proofs are then compared with
 * the Groth16 formulas evaluated the same direct way, for r = s = 0 and for
 * random r, s, and the verifier is exercised on valid and tampered inputs.
 *
 * Generated names (static; the two types, then the functions):
 *   bn254_lc bn254_circ bn254_rand_fr bn254_plain bn254_lc_eval bn254_lagrange
 *   bn254_build_circuit bn254_free_circuit bn254_evaluate bn254_g1_of
 *   bn254_g2_of bn254_ic_scalar bn254_make_zkey bn254_expected
 *   bn254_same_proof bn254_verdict bn254_run
 *   bls381_lc bls381_circ bls381_rand_fr bls381_plain bls381_lc_eval
 *   bls381_lagrange bls381_build_circuit bls381_free_circuit bls381_evaluate
 *   bls381_g1_of bls381_g2_of bls381_ic_scalar bls381_make_zkey
 *   bls381_expected bls381_same_proof bls381_verdict bls381_run
 */
#define CURVE_NAME(name) ZK_CAT(ZK_ARG(1, ZK_G16_TEST_TMPL), name) /* CURVE_NAME(run): bn254_run */
#define CURVE_ID       ZK_ARG(2, ZK_G16_TEST_TMPL)    /* ZK_CURVE_BN254 */
#include "ff/curve_names.h"     /* FR_T, G1_T, G1_AFFINE_T, FR_FN, G1_FN, ... */

struct CURVE_NAME(lc) {
    unsigned n;
    uint32_t sig[4];
    FR_T coef[4];
};

struct CURVE_NAME(circ) {
    unsigned n_vars, n_pub, n_cons, n, log_n;
    struct CURVE_NAME(lc) *A, *B, *C;   /* n_cons each */
    FR_T *w;                      /* witness, Montgomery */
    /* toxic waste and derived */
    FR_T tau, alpha, beta, delta;
    FR_T *u, *v, *cw;             /* u_s, v_s, w_s at tau */
    FR_T *lh;                     /* L^(2n)_(2i+1)(tau), i < n */
};

static void CURVE_NAME(rand_fr)(FR_T *r)
{
    FR_T t;
    do {
        for (int i = 0; i < 4; i++)
            t.l[i] = zt_rand64();
        t.l[3] >>= 1;
    } while (!FR_FN(is_canonical)(t.l));
    FR_FN(to_mont)(r, &t);
}

static void CURVE_NAME(plain)(zk_scalar *ret, const FR_T *a)
{
    FR_T t;
    FR_FN(from_mont)(&t, a);
    memcpy(ret->l, t.l, sizeof t.l);
}

static void CURVE_NAME(lc_eval)(FR_T *ret, const struct CURVE_NAME(lc) *lc, const FR_T *w)
{
    FR_T t;
    FR_FN(zero)(ret);
    for (unsigned i = 0; i < lc->n; i++) {
        FR_FN(mul)(&t, &lc->coef[i], &w[lc->sig[i]]);
        FR_FN(add)(ret, ret, &t);
    }
}

/* L^(m)_j(tau) = x^j (tau^m - 1) / (m (tau - x^j)) for the m-domain of x. */
static void CURVE_NAME(lagrange)(FR_T *ret, const FR_T *tau, const FR_T *xj, unsigned m)
{
    FR_T tm, num, den, mm, one;
    limb_t e[1] = { m };
    FR_FN(one)(&one);
    FR_FN(pow)(&tm, tau, e, 64);
    FR_FN(sub)(&tm, &tm, &one);
    FR_FN(mul)(&num, xj, &tm);
    FR_FN(from_u64)(&mm, m);
    FR_FN(sub)(&den, tau, xj);
    FR_FN(mul)(&den, &den, &mm);
    FR_FN(inv)(&den, &den);
    FR_FN(mul)(ret, &num, &den);
}

static int CURVE_NAME(build_circuit)(struct CURVE_NAME(circ) *c, unsigned n_cons, unsigned n_vars,
                             unsigned n_pub)
{
    c->n_cons = n_cons;
    c->n_vars = n_vars;
    c->n_pub = n_pub;
    c->log_n = 0;
    while ((1u << c->log_n) <= n_cons + n_pub)   /* 2^(floor(log2(nC+nP)) + 1) */
        c->log_n++;
    c->n = 1u << c->log_n;
    c->A = calloc(n_cons, sizeof *c->A);
    c->B = calloc(n_cons, sizeof *c->B);
    c->C = calloc(n_cons, sizeof *c->C);
    c->w = calloc(n_vars, sizeof *c->w);
    c->u = calloc(n_vars, sizeof *c->u);
    c->v = calloc(n_vars, sizeof *c->v);
    c->cw = calloc(n_vars, sizeof *c->cw);
    c->lh = calloc(c->n, sizeof *c->lh);
    if (!c->A || !c->B || !c->C || !c->w || !c->u || !c->v || !c->cw || !c->lh)
        return -1;
    FR_FN(one)(&c->w[0]);
    for (unsigned s = 1; s < n_vars; s++)
        CURVE_NAME(rand_fr)(&c->w[s]);
    for (unsigned k = 0; k < n_cons; k++) {
        FR_T av, bv, t;
        c->A[k].n = 1 + (unsigned)(zt_rand64() % 3);
        for (unsigned i = 0; i < c->A[k].n; i++) {
            c->A[k].sig[i] = (uint32_t)(zt_rand64() % n_vars);
            CURVE_NAME(rand_fr)(&c->A[k].coef[i]);
        }
        /* B never uses signals 0 and 1: their B points are infinity */
        c->B[k].n = 1 + (unsigned)(zt_rand64() % 3);
        for (unsigned i = 0; i < c->B[k].n; i++) {
            c->B[k].sig[i] = (uint32_t)(2 + zt_rand64() % (n_vars - 2));
            CURVE_NAME(rand_fr)(&c->B[k].coef[i]);
        }
        CURVE_NAME(lc_eval)(&av, &c->A[k], c->w);
        CURVE_NAME(lc_eval)(&bv, &c->B[k], c->w);
        c->C[k].n = 1;
        c->C[k].sig[0] = (uint32_t)(1 + zt_rand64() % (n_vars - 1));
        FR_FN(mul)(&t, &av, &bv);
        FR_FN(inv)(&av, &c->w[c->C[k].sig[0]]);
        FR_FN(mul)(&c->C[k].coef[0], &t, &av);     /* coef * w_t = <A,w><B,w> */
    }
    return 0;
}

static void CURVE_NAME(free_circuit)(struct CURVE_NAME(circ) *c)
{
    free(c->A); free(c->B); free(c->C); free(c->w);
    free(c->u); free(c->v); free(c->cw); free(c->lh);
}

/* u_s, v_s, w_s at tau and the H Lagrange values, from fresh toxic waste. */
static void CURVE_NAME(evaluate)(struct CURVE_NAME(circ) *c)
{
    FR_T om, g, x, *L = calloc(c->n, sizeof *L);
    CURVE_NAME(rand_fr)(&c->tau);
    CURVE_NAME(rand_fr)(&c->alpha);
    CURVE_NAME(rand_fr)(&c->beta);
    CURVE_NAME(rand_fr)(&c->delta);
    FR_FN(root_of_unity)(&om, c->log_n);
    FR_FN(root_of_unity)(&g, c->log_n + 1);
    FR_FN(one)(&x);
    for (unsigned i = 0; i < c->n; i++) {
        CURVE_NAME(lagrange)(&L[i], &c->tau, &x, c->n);
        FR_FN(mul)(&x, &x, &om);
    }
    for (unsigned s = 0; s < c->n_vars; s++) {
        FR_FN(zero)(&c->u[s]);
        FR_FN(zero)(&c->v[s]);
        FR_FN(zero)(&c->cw[s]);
    }
    for (unsigned k = 0; k < c->n_cons; k++) {
        FR_T t;
        for (unsigned i = 0; i < c->A[k].n; i++) {
            FR_FN(mul)(&t, &c->A[k].coef[i], &L[k]);
            FR_FN(add)(&c->u[c->A[k].sig[i]], &c->u[c->A[k].sig[i]], &t);
        }
        for (unsigned i = 0; i < c->B[k].n; i++) {
            FR_FN(mul)(&t, &c->B[k].coef[i], &L[k]);
            FR_FN(add)(&c->v[c->B[k].sig[i]], &c->v[c->B[k].sig[i]], &t);
        }
        for (unsigned i = 0; i < c->C[k].n; i++) {
            FR_FN(mul)(&t, &c->C[k].coef[i], &L[k]);
            FR_FN(add)(&c->cw[c->C[k].sig[i]], &c->cw[c->C[k].sig[i]], &t);
        }
    }
    for (unsigned s = 0; s <= c->n_pub; s++)     /* the public-signal rows */
        FR_FN(add)(&c->u[s], &c->u[s], &L[c->n_cons + s]);
    FR_FN(one)(&x);
    for (unsigned j = 0; j < 2 * c->n; j++) {
        if (j & 1)
            CURVE_NAME(lagrange)(&c->lh[j / 2], &c->tau, &x, 2 * c->n);
        FR_FN(mul)(&x, &x, &g);
    }
    free(L);
}

/* [k] G as affine bytes (k Montgomery). */
static void CURVE_NAME(g1_of)(uint8_t *out, const FR_T *k)
{
    G1_T p;
    G1_AFFINE_T a;
    zk_scalar e;
    CURVE_NAME(plain)(&e, k);
    G1_FN(from_affine)(&p, &G1_FN(GEN_));
    G1_FN(mul)(&p, &p, e.l, 256);
    G1_FN(to_affine)(&a, &p);
    memcpy(out, &a, sizeof a);
}

static void CURVE_NAME(g2_of)(uint8_t *out, const FR_T *k)
{
    G2_T p;
    G2_AFFINE_T a;
    zk_scalar e;
    CURVE_NAME(plain)(&e, k);
    G2_FN(from_affine)(&p, &G2_FN(GEN_));
    G2_FN(mul)(&p, &p, e.l, 256);
    G2_FN(to_affine)(&a, &p);
    memcpy(out, &a, sizeof a);
}

/* (beta u_s + alpha v_s + w_s)(tau) */
static void CURVE_NAME(ic_scalar)(FR_T *ret, const struct CURVE_NAME(circ) *c, unsigned s)
{
    FR_T t;
    FR_FN(mul)(ret, &c->beta, &c->u[s]);
    FR_FN(mul)(&t, &c->alpha, &c->v[s]);
    FR_FN(add)(ret, ret, &t);
    FR_FN(add)(ret, ret, &c->cw[s]);
}

/* The zkey bytes of the circuit (sections 1-9 in snarkjs's setup order). */
/* rows_down: section 4's constraints last to first (not the row order of
 * snarkjs's files: the loader's two-pass path) */
static uint8_t *CURVE_NAME(make_zkey)(const struct CURVE_NAME(circ) *c, size_t *ret_len,
                                      int rows_down)
{
    const size_t g1b = sizeof(G1_AFFINE_T), g2b = sizeof(G2_AFFINE_T), n8q = g1b / 2;
    struct zbuf b = { 0 };
    FR_T one, dinv, t;
    size_t at;

    FR_FN(one)(&one);
    FR_FN(inv)(&dinv, &c->delta);
    zb_bytes(&b, "zkey", 4);
    zb_u32(&b, 1);
    zb_u32(&b, 9);
    /* 1: protocol */
    at = zb_sec_begin(&b, 1);
    zb_u32(&b, 1);
    zb_sec_end(&b, at);
    /* 2: header */
    at = zb_sec_begin(&b, 2);
    zb_u32(&b, (uint32_t)n8q);
    zb_bytes(&b, CURVE_NAME(fp_P_), n8q);
    zb_u32(&b, 32);
    zb_bytes(&b, FR_FN(P_), 32);
    zb_u32(&b, c->n_vars);
    zb_u32(&b, c->n_pub);
    zb_u32(&b, c->n);
    CURVE_NAME(g1_of)(zb_room(&b, g1b), &c->alpha);
    CURVE_NAME(g1_of)(zb_room(&b, g1b), &c->beta);
    CURVE_NAME(g2_of)(zb_room(&b, g2b), &c->beta);
    CURVE_NAME(g2_of)(zb_room(&b, g2b), &one);
    CURVE_NAME(g1_of)(zb_room(&b, g1b), &c->delta);
    CURVE_NAME(g2_of)(zb_room(&b, g2b), &c->delta);
    zb_sec_end(&b, at);
    /* 4: coefficients (A and B only, then the public rows) */
    at = zb_sec_begin(&b, 4);
    {
        uint32_t cnt = 0;
        size_t cnt_at = b.len;
        zb_u32(&b, 0);
        for (unsigned j = 0; j < c->n_cons; j++) {
            unsigned k = rows_down ? c->n_cons - 1 - j : j;
            for (int m = 0; m < 2; m++) {
                const struct CURVE_NAME(lc) *lc = m ? &c->B[k] : &c->A[k];
                for (unsigned i = 0; i < lc->n; i++) {
                    FR_T v;
                    FR_FN(to_mont)(&v, &lc->coef[i]);   /* limbs = coef * R^2 */
                    zb_u32(&b, (uint32_t)m);
                    zb_u32(&b, k);
                    zb_u32(&b, lc->sig[i]);
                    zb_bytes(&b, v.l, 32);
                    cnt++;
                }
            }
        }
        for (unsigned s = 0; s <= c->n_pub; s++) {
            FR_T v;
            FR_FN(to_mont)(&v, &one);
            zb_u32(&b, 0);
            zb_u32(&b, c->n_cons + s);
            zb_u32(&b, s);
            zb_bytes(&b, v.l, 32);
            cnt++;
        }
        if (b.buf)
            memcpy(b.buf + cnt_at, &cnt, 4);
    }
    zb_sec_end(&b, at);
    /* 3: IC */
    at = zb_sec_begin(&b, 3);
    for (unsigned s = 0; s <= c->n_pub; s++) {
        CURVE_NAME(ic_scalar)(&t, c, s);
        CURVE_NAME(g1_of)(zb_room(&b, g1b), &t);
    }
    zb_sec_end(&b, at);
    /* 9: H */
    at = zb_sec_begin(&b, 9);
    for (unsigned i = 0; i < c->n; i++) {
        FR_FN(mul)(&t, &c->lh[i], &dinv);
        CURVE_NAME(g1_of)(zb_room(&b, g1b), &t);
    }
    zb_sec_end(&b, at);
    /* 8: C (private signals) */
    at = zb_sec_begin(&b, 8);
    for (unsigned s = c->n_pub + 1; s < c->n_vars; s++) {
        CURVE_NAME(ic_scalar)(&t, c, s);
        FR_FN(mul)(&t, &t, &dinv);
        CURVE_NAME(g1_of)(zb_room(&b, g1b), &t);
    }
    zb_sec_end(&b, at);
    /* 5, 6, 7: A, B1, B2 */
    at = zb_sec_begin(&b, 5);
    for (unsigned s = 0; s < c->n_vars; s++)
        CURVE_NAME(g1_of)(zb_room(&b, g1b), &c->u[s]);
    zb_sec_end(&b, at);
    at = zb_sec_begin(&b, 6);
    for (unsigned s = 0; s < c->n_vars; s++)
        CURVE_NAME(g1_of)(zb_room(&b, g1b), &c->v[s]);
    zb_sec_end(&b, at);
    at = zb_sec_begin(&b, 7);
    for (unsigned s = 0; s < c->n_vars; s++)
        CURVE_NAME(g2_of)(zb_room(&b, g2b), &c->v[s]);
    zb_sec_end(&b, at);
    if (!b.buf || b.oom) {
        free(b.buf);
        return NULL;
    }
    *ret_len = b.len;
    return b.buf;
}

/* Expected proof for blinding r, s (Montgomery) by the textbook formulas. */
static void CURVE_NAME(expected)(const struct CURVE_NAME(circ) *c, const FR_T *r, const FR_T *s,
                         struct zk_groth16_proof *e)
{
    FR_T Aw, Bw, Cw, t, pa, pb, pc, dinv, rs;
    FR_FN(zero)(&Aw);
    FR_FN(zero)(&Bw);
    FR_FN(zero)(&Cw);
    FR_FN(zero)(&pc);
    for (unsigned i = 0; i < c->n_vars; i++) {
        FR_FN(mul)(&t, &c->w[i], &c->u[i]);
        FR_FN(add)(&Aw, &Aw, &t);
        FR_FN(mul)(&t, &c->w[i], &c->v[i]);
        FR_FN(add)(&Bw, &Bw, &t);
        FR_FN(mul)(&t, &c->w[i], &c->cw[i]);
        FR_FN(add)(&Cw, &Cw, &t);
        if (i > c->n_pub) {
            CURVE_NAME(ic_scalar)(&t, c, i);
            FR_FN(mul)(&t, &t, &c->w[i]);
            FR_FN(add)(&pc, &pc, &t);
        }
    }
    /* h(tau) Z(tau) = A(tau) B(tau) - C(tau) */
    FR_FN(mul)(&t, &Aw, &Bw);
    FR_FN(sub)(&t, &t, &Cw);
    FR_FN(add)(&pc, &pc, &t);
    FR_FN(inv)(&dinv, &c->delta);
    FR_FN(mul)(&pc, &pc, &dinv);
    /* pa = alpha + A + r delta ; pb = beta + B + s delta */
    FR_FN(mul)(&t, r, &c->delta);
    FR_FN(add)(&pa, &c->alpha, &Aw);
    FR_FN(add)(&pa, &pa, &t);
    FR_FN(mul)(&t, s, &c->delta);
    FR_FN(add)(&pb, &c->beta, &Bw);
    FR_FN(add)(&pb, &pb, &t);
    /* pc += s pa + r pb - r s delta */
    FR_FN(mul)(&t, s, &pa);
    FR_FN(add)(&pc, &pc, &t);
    FR_FN(mul)(&t, r, &pb);
    FR_FN(add)(&pc, &pc, &t);
    FR_FN(mul)(&rs, r, s);
    FR_FN(mul)(&rs, &rs, &c->delta);
    FR_FN(sub)(&pc, &pc, &rs);
    memset(e, 0, sizeof *e);
    e->curve = CURVE_ID;
    CURVE_NAME(g1_of)((uint8_t *)e->pi_a, &pa);
    CURVE_NAME(g2_of)((uint8_t *)e->pi_b, &pb);
    CURVE_NAME(g1_of)((uint8_t *)e->pi_c, &pc);
}

static int CURVE_NAME(same_proof)(const struct zk_groth16_proof *a,
                                  const struct zk_groth16_proof *b)
{
    return a->curve == b->curve && !memcmp(a->pi_a, b->pi_a, sizeof a->pi_a) &&
           !memcmp(a->pi_b, b->pi_b, sizeof a->pi_b) && !memcmp(a->pi_c, b->pi_c, sizeof a->pi_c);
}

static int CURVE_NAME(verdict)(const struct zk_groth16_vk *vk, const zk_scalar *pub,
                       const struct zk_groth16_proof *p)
{
    int valid = -1;
    int rc = zk_groth16_verify(vk, pub, vk->n_public, p, &valid);
    return rc ? rc : valid;
}

/* zk_groth16_key_load_oneshot on the zkey bytes written to a file: the split
 * API gives the expected proof `ex` with r, s (its points read per MSM);
 * zk_groth16_prove once, then ZK_ESTATE (its coefficients released); no
 * points for anything else; a file truncated, or written in place, after
 * the key was loaded fails the proof with a message naming the file, where
 * a mapping would have been a SIGBUS or a proof from other points. */
static void CURVE_NAME(oneshot)(const uint8_t *buf, size_t len, const zk_scalar *w,
                                const zk_scalar *zr, const zk_scalar *zs,
                                const struct zk_groth16_proof *ex,
                                const struct zk_groth16_vk *vk, size_t n)
{
    const char *cn = zk_curve_name(CURVE_ID);
    char path[] = "/tmp/zkg16-oneshot-XXXXXX";
    const zk_scalar *pub = w + 1;
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_pending *p = NULL;
    struct zk_groth16_proof pr;
    struct zk_groth16_vk v2;
    struct zk_zkey z;
    struct zk_diag d = { { 0 } };
    zk_scalar *abc = aligned_alloc(64, 3 * n * sizeof *abc);
    int fd = mkstemp(path), rc;

    ZT_REQUIRE(fd >= 0 && abc, , "temp file");
    ZT_CHECK(write(fd, buf, len) == (ssize_t)len);
    close(fd);
    ZT_CHECK(zk_zkey_open(&z, path, &d) == 0, "%s", d.msg);
    ZT_CHECK(zk_groth16_key_load_oneshot(&z, 2, &d, &k) == 0, "%s: oneshot: %s", cn, d.msg);
    ZT_CHECK(z.bf.fd < 0, "%s: oneshot took the zkey over", cn);
    if (k) {
        ZT_CHECK(zk_groth16_synthesize(k, w, abc, abc + n, abc + 2 * n, 2) == 0);
        ZT_CHECK(zk_groth16_prove_start(k, w, abc, abc + n, abc + 2 * n, 2, &p) == 0);
        ZT_CHECK(p && zk_groth16_prove_finalize_rs(p, zr, zs, 2, &pr) == 0);
        ZT_CHECK(CURVE_NAME(same_proof)(&pr, ex), "%s: one-shot key's proof differs", cn);
        zk_groth16_pending_free(p);
        ZT_CHECK(zk_groth16_key_points(k, ZK_ZKEY_SEC_A, NULL, NULL) == NULL &&
                 zk_groth16_vk_from_key(k, &v2) == ZK_ESTATE &&
                 zk_groth16_key_precompute(k, ZK_G16_PRECOMPUTE_H, 2, 1) == ZK_ESTATE,
                 "%s: a one-shot key shows no points", cn);
        ZT_CHECK(zk_groth16_prove(k, w, 2, &pr) == 0 && CURVE_NAME(verdict)(vk, pub, &pr) == 1,
                 "%s: one-shot zk_groth16_prove rejected", cn);
        ZT_CHECK(zk_groth16_prove(k, w, 2, &pr) == ZK_ESTATE, "%s: a second one-shot proof", cn);
        ZT_CHECK(zk_groth16_key_error(k) == NULL);
        k = zk_groth16_key_free(k);
    }
    /* changed under the key: truncated, then the same size written in place */
    for (int how = 0; how < 2; how++) {
        fd = open(path, O_WRONLY | O_TRUNC);
        ZT_CHECK(fd >= 0 && write(fd, buf, len) == (ssize_t)len);
        close(fd);
        ZT_REQUIRE(zk_zkey_open(&z, path, &d) == 0, , "%s", d.msg);
        ZT_REQUIRE(zk_groth16_key_load_oneshot(&z, 2, &d, &k) == 0, , "%s", d.msg);
        if (how == 0) {
            ZT_CHECK(truncate(path, (off_t)(len - 64)) == 0);
        } else {
            struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
            fd = open(path, O_WRONLY);
            ZT_CHECK(fd >= 0 && pwrite(fd, buf, len, 0) == (ssize_t)len &&
                     futimens(fd, ts) == 0);   /* an mtime apart from the first's */
            close(fd);
        }
        rc = zk_groth16_prove(k, w, 2, &pr);
        ZT_CHECK(rc != 0 && zk_groth16_key_error(k) && strstr(zk_groth16_key_error(k), path) &&
                 strstr(zk_groth16_key_error(k), "changed"),
                 "%s: key file %s under a one-shot key: rc %d, %s", cn,
                 how ? "written" : "truncated", rc,
                 zk_groth16_key_error(k) ? zk_groth16_key_error(k) : "(no message)");
        k = zk_groth16_key_free(k);
    }
    unlink(path);
    free(abc);
}

static void CURVE_NAME(run)(unsigned n_cons, unsigned n_vars, unsigned n_pub)
{
    const char *cn = zk_curve_name(CURVE_ID);
    struct CURVE_NAME(circ) c;
    struct zk_zkey z;
    struct zk_diag d = { { 0 } };
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_pending *p = NULL;
    struct zk_groth16_vk vk, vk2;
    struct zk_groth16_proof pr, ex, pr2;
    zk_scalar *w = NULL, *abc = NULL, *pub = NULL, zr, zs;
    FR_T r, s, zero;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc;

    memset(&c, 0, sizeof c);
    memset(&z, 0, sizeof z);
    memset(&vk, 0, sizeof vk);
    memset(&vk2, 0, sizeof vk2);
    ZT_REQUIRE(CURVE_NAME(build_circuit)(&c, n_cons, n_vars, n_pub) == 0, , "alloc");
    CURVE_NAME(evaluate)(&c);
    buf = CURVE_NAME(make_zkey)(&c, &len, 0);
    ZT_REQUIRE(buf != NULL, , "zkey bytes");
    rc = zk_zkey_open_mem(&z, buf, len, "test.zkey", &d);
    ZT_REQUIRE(rc == 0, , "%s: zkey open: %d %s", cn, rc, d.msg);
    rc = zk_groth16_key_load(&z, 2, &d, &k);
    ZT_REQUIRE(rc == 0, , "%s: key load: %d %s", cn, rc, d.msg);
    ZT_CHECK(zk_groth16_key_header(k)->domain_size == c.n);
    ZT_REQUIRE(zk_groth16_vk_from_key(k, &vk) == 0, , "vk");

    w = aligned_alloc(64, ((n_vars * sizeof *w) + 63) & ~(size_t)63);
    abc = aligned_alloc(64, 3 * c.n * sizeof *abc);
    ZT_REQUIRE(w && abc, , "alloc");
    for (unsigned i = 0; i < n_vars; i++)
        CURVE_NAME(plain)(&w[i], &c.w[i]);
    pub = w + 1;

    /* section 4 out of row order (the loader's two passes): the same a, b, c */
    {
        size_t len2 = 0;
        uint8_t *buf2 = CURVE_NAME(make_zkey)(&c, &len2, 1);
        zk_scalar *abc2 = aligned_alloc(64, 3 * c.n * sizeof *abc2);
        struct zk_zkey z2;
        struct zk_groth16_key *k2 = NULL;
        memset(&z2, 0, sizeof z2);
        ZT_REQUIRE(buf2 && abc2, , "alloc");
        ZT_CHECK(zk_zkey_open_mem(&z2, buf2, len2, "rows-down.zkey", &d) == 0, "%s", d.msg);
        ZT_CHECK(zk_groth16_key_load(&z2, 2, &d, &k2) == 0, "%s", d.msg);
        if (k2) {
            ZT_CHECK(zk_groth16_synthesize(k, w, abc, abc + c.n, abc + 2 * c.n, 2) == 0);
            ZT_CHECK(zk_groth16_synthesize(k2, w, abc2, abc2 + c.n, abc2 + 2 * c.n, 2) == 0);
            ZT_CHECK(!memcmp(abc, abc2, 3 * c.n * sizeof *abc),
                     "%s: a, b, c differ between row order and rows down", cn);
        }
        zk_groth16_key_free(k2);
        zk_zkey_done(&z2);
        free(abc2);
        free(buf2);
    }

    /* r = s = 0: the known answer, for several thread counts */
    FR_FN(zero)(&zero);
    memset(&zr, 0, sizeof zr);
    CURVE_NAME(expected)(&c, &zero, &zero, &ex);
    for (unsigned nt = 1; nt <= 3; nt++) {
        ZT_CHECK(zk_groth16_synthesize(k, w, abc, abc + c.n, abc + 2 * c.n, nt) == 0);
        rc = zk_groth16_prove_start(k, w, abc, abc + c.n, abc + 2 * c.n, nt, &p);
        ZT_REQUIRE(rc == 0, , "start %d", rc);
        rc = zk_groth16_prove_finalize_rs(p, &zr, &zr, nt, &pr);
        ZT_CHECK(rc == 0, "finalize %d", rc);
        ZT_CHECK(CURVE_NAME(same_proof)(&pr, &ex), "%s n=%u T=%u: r=s=0 proof differs from the "
                 "direct evaluation", cn, c.n, nt);
        ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &pr) == 1, "%s: r=s=0 proof rejected", cn);
        p = zk_groth16_pending_free(p);
    }

    /* random r, s through the split API; inputs freed before finalize */
    CURVE_NAME(rand_fr)(&r);
    CURVE_NAME(rand_fr)(&s);
    CURVE_NAME(plain)(&zr, &r);
    CURVE_NAME(plain)(&zs, &s);
    CURVE_NAME(expected)(&c, &r, &s, &ex);
    {
        zk_scalar *w2 = aligned_alloc(64, ((n_vars * sizeof *w2) + 63) & ~(size_t)63);
        zk_scalar *abc2 = aligned_alloc(64, 3 * c.n * sizeof *abc2);
        ZT_REQUIRE(w2 && abc2, , "alloc");
        memcpy(w2, w, n_vars * sizeof *w2);
        ZT_CHECK(zk_groth16_synthesize(k, w2, abc2, abc2 + c.n, abc2 + 2 * c.n, 2) == 0);
        rc = zk_groth16_prove_start(k, w2, abc2, abc2 + c.n, abc2 + 2 * c.n, 2, &p);
        memset(w2, 0xa5, n_vars * sizeof *w2);
        memset(abc2, 0x5a, 3 * c.n * sizeof *abc2);
        free(w2);
        free(abc2);
        ZT_REQUIRE(rc == 0, , "start %d", rc);
    }
    ZT_CHECK(zk_groth16_prove_finalize_rs(p, &zr, &zs, 2, &pr) == 0);
    ZT_CHECK(CURVE_NAME(same_proof)(&pr, &ex), "%s: blinded proof differs from the formulas", cn);
    ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &pr) == 1, "%s: blinded proof rejected", cn);
    CURVE_NAME(oneshot)(buf, len, w, &zr, &zs, &ex, &vk, c.n);
    /* precomputed MSM tables (H alone, then all five; factors 1 and 3):
     * the same proof byte for byte, accepted; a table of another MSM
     * refused; NONE drops them */
    for (unsigned which = ZK_G16_PRECOMPUTE_H; which <= ZK_G16_PRECOMPUTE_ALL; which++) {
        for (unsigned f = 1; f <= 3; f += 2) {
            struct zk_groth16_key *kt = k;     /* (k itself) */
            struct zk_groth16_pending *pt = NULL;
            rc = zk_groth16_key_precompute(kt, (enum zk_groth16_precompute)which, f, 2);
            ZT_REQUIRE(rc == 0, , "%s: precompute %u factor %u: %s", cn, which, f,
                       zk_strerror(rc));
            ZT_CHECK(zk_groth16_key_table(kt, ZK_G16_MSM_H) != NULL &&
                     (zk_groth16_key_table(kt, ZK_G16_MSM_B2) != NULL) ==
                         (which == ZK_G16_PRECOMPUTE_ALL), "%s: tables present", cn);
            ZT_CHECK(zk_groth16_synthesize(kt, w, abc, abc + c.n, abc + 2 * c.n, 2) == 0);
            rc = zk_groth16_prove_start(kt, w, abc, abc + c.n, abc + 2 * c.n, 2, &pt);
            ZT_REQUIRE(rc == 0, , "start with tables %d", rc);
            ZT_CHECK(zk_groth16_prove_finalize_rs(pt, &zr, &zs, 2, &pr2) == 0);
            ZT_CHECK(CURVE_NAME(same_proof)(&pr2, &ex), "%s: proof with tables (%u, factor "
                     "%u) differs from the one without", cn, which, f);
            ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &pr2) == 1, "%s: table proof rejected", cn);
            zk_groth16_pending_free(pt);
            ZT_CHECK(zk_groth16_prove(kt, w, 1, &pr2) == 0 &&
                     CURVE_NAME(verdict)(&vk, pub, &pr2) == 1,
                     "%s: zk_groth16_prove with tables rejected", cn);
        }
    }
    ZT_CHECK(zk_groth16_key_use_table(k, ZK_G16_MSM_A,
                                      zk_groth16_key_table(k, ZK_G16_MSM_B2)) == ZK_EBADPARAMS,
             "%s: a G2 table refused for A", cn);
    ZT_CHECK(zk_groth16_key_use_table(k, ZK_G16_MSM_A, NULL) == 0 &&
             !zk_groth16_key_table(k, ZK_G16_MSM_A) && zk_groth16_key_table(k, ZK_G16_MSM_C),
             "%s: use_table NULL drops one table", cn);
    ZT_CHECK(zk_groth16_key_precompute(k, ZK_G16_PRECOMPUTE_NONE, 0,
                                       1) == 0 && !zk_groth16_key_table(k, ZK_G16_MSM_H) &&
             !zk_groth16_key_table(k, ZK_G16_MSM_B1), "%s: precompute none drops them", cn);
    ZT_CHECK(zk_groth16_key_precompute(k, ZK_G16_PRECOMPUTE_ALL, 0,
                                       1) == ZK_EBADPARAMS, "%s: factor 0 refused", cn);
    /* fresh r, s from getrandom: valid and different each time */
    ZT_CHECK(zk_groth16_prove_finalize(p, 2, &pr) == 0);
    ZT_CHECK(zk_groth16_prove_finalize(p, 2, &pr2) == 0);
    ZT_CHECK(!CURVE_NAME(same_proof)(&pr, &pr2), "%s: two random proofs are equal", cn);
    ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &pr) == 1 && CURVE_NAME(verdict)(&vk, pub, &pr2) == 1,
             "%s: random proofs rejected", cn);
    ZT_CHECK(pr.t.msm_b2 >= 0 && pr.t.total >= pr.t.msm_b2);
    ZT_CHECK(zk_groth16_prove_finalize_rs(p, &zr, &(zk_scalar){ { ~0ULL, ~0ULL, ~0ULL, ~0ULL } },
                                          1, &pr2) == ZK_ERANGE);
    p = zk_groth16_pending_free(p);

    /* one-call prove */
    ZT_CHECK(zk_groth16_prove(k, w, 2, &pr2) == 0);
    ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &pr2) == 1, "%s: zk_groth16_prove rejected", cn);

    /* tampering */
    {
        zk_scalar bad[8];
        struct zk_groth16_proof t = pr;
        G1_T q;
        G1_AFFINE_T qa;
        memcpy(bad, pub, n_pub * sizeof *bad);
        bad[0].l[0] ^= 1;
        ZT_CHECK(CURVE_NAME(verdict)(&vk, bad, &pr) == 0, "%s: tampered public input accepted", cn);
        memcpy(bad, pub, n_pub * sizeof *bad);
        memcpy(bad[n_pub - 1].l, FR_FN(P_), 32);    /* = r: out of range */
        ZT_CHECK(CURVE_NAME(verdict)(&vk, bad, &pr) == ZK_ERANGE);
        int valid = -1;
        ZT_CHECK(zk_groth16_verify(&vk, pub, n_pub - 1, &pr, &valid) == ZK_ELENGTH);
        memcpy(&qa, t.pi_a, sizeof qa);
        G1_FN(from_affine)(&q, &qa);
        G1_FN(dbl)(&q, &q);
        G1_FN(to_affine)(&qa, &q);
        memcpy(t.pi_a, &qa, sizeof qa);
        ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &t) == 0, "%s: tampered pi_a accepted", cn);
        t = pr;
        memcpy(t.pi_c, pr.pi_a, sizeof t.pi_c);
        ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &t) == 0, "%s: pi_c = pi_a accepted", cn);
        t = pr;
        t.pi_c[1] ^= 4;                             /* off the curve */
        ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &t) == ZK_ENOT_ON_CURVE);
        t = pr;
        t.curve = CURVE_ID == ZK_CURVE_BN254 ? ZK_CURVE_BLS12_381 : ZK_CURVE_BN254;
        ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &t) == ZK_ECURVE_MISMATCH);
    }

    /* a witness that does not satisfy the R1CS gives an invalid proof */
    {
        unsigned s = n_vars - 1;
        w[s].l[0] ^= 2;
        ZT_CHECK(zk_groth16_prove(k, w, 2, &pr2) == 0);
        ZT_CHECK(CURVE_NAME(verdict)(&vk, pub, &pr2) == 0, "%s: unsatisfied witness accepted", cn);
        w[s].l[0] ^= 2;
    }

    /* JSON round trips */
    {
        char *js = zk_groth16_proof_to_json(&pr);
        char *vj = zk_groth16_vk_to_json(&vk);
        char *uj = zk_groth16_public_to_json(pub, n_pub);
        zk_scalar *pub2 = NULL;
        size_t npub2 = 0;
        ZT_CHECK(js && vj && uj);
        if (js && vj && uj) {
            memset(&pr2, 0, sizeof pr2);
            rc = zk_groth16_proof_from_json(js, CURVE_ID, "proof", &pr2, &d);
            ZT_CHECK(rc == 0 && CURVE_NAME(same_proof)(&pr, &pr2), "%s: proof JSON: %s", cn, d.msg);
            rc = zk_groth16_vk_from_json(vj, "vk", &vk2, &d);
            ZT_CHECK(rc == 0, "%s: vk JSON: %d %s", cn, rc, d.msg);
            if (rc == 0) {
                ZT_CHECK(vk2.curve == vk.curve && vk2.n_public == vk.n_public &&
                         !memcmp(vk2.alpha1, vk.alpha1, sizeof vk.alpha1) &&
                         !memcmp(vk2.beta2, vk.beta2, sizeof vk.beta2) &&
                         !memcmp(vk2.gamma2, vk.gamma2, sizeof vk.gamma2) &&
                         !memcmp(vk2.delta2, vk.delta2, sizeof vk.delta2) &&
                         !memcmp(vk2.ic, vk.ic, (n_pub + 1) * sizeof *vk.ic),
                         "%s: vk JSON round trip differs", cn);
                ZT_CHECK(CURVE_NAME(verdict)(&vk2, pub, &pr) == 1);
            }
            rc = zk_groth16_public_from_json(uj, "public", &pub2, &npub2, &d);
            ZT_CHECK(rc == 0 && npub2 == n_pub && !memcmp(pub2, pub, n_pub * sizeof *pub),
                     "%s: public JSON round trip", cn);
        }
        free(pub2);
        free(js);
        free(vj);
        free(uj);
    }

    printf("%s: nCons=%u nVars=%u nPublic=%u domain=%u: done\n", cn, n_cons, n_vars, n_pub, c.n);
    zk_groth16_vk_done(&vk);
    zk_groth16_vk_done(&vk2);
    zk_groth16_key_free(k);
    zk_zkey_done(&z);
    free(buf);
    free(w);
    free(abc);
    CURVE_NAME(free_circuit)(&c);
}

#include "ff/curve_names.h"     /* (undefines them and CURVE_NAME) */
#undef CURVE_ID
#undef ZK_G16_TEST_TMPL

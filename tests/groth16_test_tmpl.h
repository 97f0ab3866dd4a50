/*
 * groth16_test_tmpl.h -- the per-curve body of tests/test_groth16.c,
 * included once per curve with ZK_T (bn254 / bls381) and ZK_T_CURVE set.
 *
 * A random R1CS is built by hand, with a satisfying witness; a zkey is laid
 * out byte by byte following docs/formats.md section 5 from known toxic
 * waste (tau, alpha, beta, delta; gamma = 1), every point computed as
 * [scalar] G by double-and-add from scalars evaluated directly in Fr
 * (Lagrange bases at tau, no NTT, no MSM).  Proofs are then compared with
 * the Groth16 formulas evaluated the same direct way, for r = s = 0 and for
 * random r, s, and the verifier is exercised on valid and tampered inputs.
 */
#define TN(name) ZK_CAT(ZK_T, name)
#define FR TN(fr)
#define G1 TN(g1)
#define G2 TN(g2)
#define G1A TN(g1_affine)
#define G2A TN(g2_affine)
#define FRN(name) ZK_CAT(FR, name)
#define G1N(name) ZK_CAT(G1, name)
#define G2N(name) ZK_CAT(G2, name)

struct TN(lc) {
    unsigned n;
    uint32_t sig[4];
    FR coef[4];
};

struct TN(circ) {
    unsigned n_vars, n_pub, n_cons, n, log_n;
    struct TN(lc) *A, *B, *C;   /* n_cons each */
    FR *w;                      /* witness, Montgomery */
    /* toxic waste and derived */
    FR tau, alpha, beta, delta;
    FR *u, *v, *cw;             /* u_s, v_s, w_s at tau */
    FR *lh;                     /* L^(2n)_(2i+1)(tau), i < n */
};

static void TN(rand_fr)(FR *r)
{
    FR t;
    do {
        for (int i = 0; i < 4; i++)
            t.l[i] = zt_rand64();
        t.l[3] >>= 1;
    } while (!FRN(is_canonical)(t.l));
    FRN(to_mont)(r, &t);
}

static void TN(plain)(zk_scalar *ret, const FR *a)
{
    FR t;
    FRN(from_mont)(&t, a);
    memcpy(ret->l, t.l, sizeof t.l);
}

static void TN(lc_eval)(FR *ret, const struct TN(lc) *lc, const FR *w)
{
    FR t;
    FRN(zero)(ret);
    for (unsigned i = 0; i < lc->n; i++) {
        FRN(mul)(&t, &lc->coef[i], &w[lc->sig[i]]);
        FRN(add)(ret, ret, &t);
    }
}

/* L^(m)_j(tau) = x^j (tau^m - 1) / (m (tau - x^j)) for the m-domain of x. */
static void TN(lagrange)(FR *ret, const FR *tau, const FR *xj, unsigned m)
{
    FR tm, num, den, mm, one;
    limb_t e[1] = { m };
    FRN(one)(&one);
    FRN(pow)(&tm, tau, e, 64);
    FRN(sub)(&tm, &tm, &one);
    FRN(mul)(&num, xj, &tm);
    FRN(from_u64)(&mm, m);
    FRN(sub)(&den, tau, xj);
    FRN(mul)(&den, &den, &mm);
    FRN(inv)(&den, &den);
    FRN(mul)(ret, &num, &den);
}

static int TN(build_circuit)(struct TN(circ) *c, unsigned n_cons, unsigned n_vars,
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
    FRN(one)(&c->w[0]);
    for (unsigned s = 1; s < n_vars; s++)
        TN(rand_fr)(&c->w[s]);
    for (unsigned k = 0; k < n_cons; k++) {
        FR av, bv, t;
        c->A[k].n = 1 + (unsigned)(zt_rand64() % 3);
        for (unsigned i = 0; i < c->A[k].n; i++) {
            c->A[k].sig[i] = (uint32_t)(zt_rand64() % n_vars);
            TN(rand_fr)(&c->A[k].coef[i]);
        }
        /* B never uses signals 0 and 1: their B points are infinity */
        c->B[k].n = 1 + (unsigned)(zt_rand64() % 3);
        for (unsigned i = 0; i < c->B[k].n; i++) {
            c->B[k].sig[i] = (uint32_t)(2 + zt_rand64() % (n_vars - 2));
            TN(rand_fr)(&c->B[k].coef[i]);
        }
        TN(lc_eval)(&av, &c->A[k], c->w);
        TN(lc_eval)(&bv, &c->B[k], c->w);
        c->C[k].n = 1;
        c->C[k].sig[0] = (uint32_t)(1 + zt_rand64() % (n_vars - 1));
        FRN(mul)(&t, &av, &bv);
        FRN(inv)(&av, &c->w[c->C[k].sig[0]]);
        FRN(mul)(&c->C[k].coef[0], &t, &av);     /* coef * w_t = <A,w><B,w> */
    }
    return 0;
}

static void TN(free_circuit)(struct TN(circ) *c)
{
    free(c->A); free(c->B); free(c->C); free(c->w);
    free(c->u); free(c->v); free(c->cw); free(c->lh);
}

/* u_s, v_s, w_s at tau and the H Lagrange values, from fresh toxic waste. */
static void TN(evaluate)(struct TN(circ) *c)
{
    FR om, g, x, *L = calloc(c->n, sizeof *L);
    TN(rand_fr)(&c->tau);
    TN(rand_fr)(&c->alpha);
    TN(rand_fr)(&c->beta);
    TN(rand_fr)(&c->delta);
    FRN(root_of_unity)(&om, c->log_n);
    FRN(root_of_unity)(&g, c->log_n + 1);
    FRN(one)(&x);
    for (unsigned i = 0; i < c->n; i++) {
        TN(lagrange)(&L[i], &c->tau, &x, c->n);
        FRN(mul)(&x, &x, &om);
    }
    for (unsigned s = 0; s < c->n_vars; s++) {
        FRN(zero)(&c->u[s]);
        FRN(zero)(&c->v[s]);
        FRN(zero)(&c->cw[s]);
    }
    for (unsigned k = 0; k < c->n_cons; k++) {
        FR t;
        for (unsigned i = 0; i < c->A[k].n; i++) {
            FRN(mul)(&t, &c->A[k].coef[i], &L[k]);
            FRN(add)(&c->u[c->A[k].sig[i]], &c->u[c->A[k].sig[i]], &t);
        }
        for (unsigned i = 0; i < c->B[k].n; i++) {
            FRN(mul)(&t, &c->B[k].coef[i], &L[k]);
            FRN(add)(&c->v[c->B[k].sig[i]], &c->v[c->B[k].sig[i]], &t);
        }
        for (unsigned i = 0; i < c->C[k].n; i++) {
            FRN(mul)(&t, &c->C[k].coef[i], &L[k]);
            FRN(add)(&c->cw[c->C[k].sig[i]], &c->cw[c->C[k].sig[i]], &t);
        }
    }
    for (unsigned s = 0; s <= c->n_pub; s++)     /* the public-signal rows */
        FRN(add)(&c->u[s], &c->u[s], &L[c->n_cons + s]);
    FRN(one)(&x);
    for (unsigned j = 0; j < 2 * c->n; j++) {
        if (j & 1)
            TN(lagrange)(&c->lh[j / 2], &c->tau, &x, 2 * c->n);
        FRN(mul)(&x, &x, &g);
    }
    free(L);
}

/* [k] G as affine bytes (k Montgomery). */
static void TN(g1_of)(uint8_t *out, const FR *k)
{
    G1 p;
    G1A a;
    zk_scalar e;
    TN(plain)(&e, k);
    G1N(from_affine)(&p, &G1N(GEN_));
    G1N(mul)(&p, &p, e.l, 256);
    G1N(to_affine)(&a, &p);
    memcpy(out, &a, sizeof a);
}

static void TN(g2_of)(uint8_t *out, const FR *k)
{
    G2 p;
    G2A a;
    zk_scalar e;
    TN(plain)(&e, k);
    G2N(from_affine)(&p, &G2N(GEN_));
    G2N(mul)(&p, &p, e.l, 256);
    G2N(to_affine)(&a, &p);
    memcpy(out, &a, sizeof a);
}

/* (beta u_s + alpha v_s + w_s)(tau) */
static void TN(ic_scalar)(FR *ret, const struct TN(circ) *c, unsigned s)
{
    FR t;
    FRN(mul)(ret, &c->beta, &c->u[s]);
    FRN(mul)(&t, &c->alpha, &c->v[s]);
    FRN(add)(ret, ret, &t);
    FRN(add)(ret, ret, &c->cw[s]);
}

/* The zkey bytes of the circuit (sections 1-9 in snarkjs's setup order). */
static uint8_t *TN(make_zkey)(const struct TN(circ) *c, size_t *ret_len)
{
    const size_t g1b = sizeof(G1A), g2b = sizeof(G2A), n8q = g1b / 2;
    struct zbuf b = { 0 };
    FR one, dinv, t;
    size_t at;

    FRN(one)(&one);
    FRN(inv)(&dinv, &c->delta);
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
    zb_bytes(&b, TN(fp_P_), n8q);
    zb_u32(&b, 32);
    zb_bytes(&b, FRN(P_), 32);
    zb_u32(&b, c->n_vars);
    zb_u32(&b, c->n_pub);
    zb_u32(&b, c->n);
    TN(g1_of)(zb_room(&b, g1b), &c->alpha);
    TN(g1_of)(zb_room(&b, g1b), &c->beta);
    TN(g2_of)(zb_room(&b, g2b), &c->beta);
    TN(g2_of)(zb_room(&b, g2b), &one);
    TN(g1_of)(zb_room(&b, g1b), &c->delta);
    TN(g2_of)(zb_room(&b, g2b), &c->delta);
    zb_sec_end(&b, at);
    /* 4: coefficients (A and B only, then the public rows) */
    at = zb_sec_begin(&b, 4);
    {
        uint32_t cnt = 0;
        size_t cnt_at = b.len;
        zb_u32(&b, 0);
        for (unsigned k = 0; k < c->n_cons; k++) {
            for (int m = 0; m < 2; m++) {
                const struct TN(lc) *lc = m ? &c->B[k] : &c->A[k];
                for (unsigned i = 0; i < lc->n; i++) {
                    FR v;
                    FRN(to_mont)(&v, &lc->coef[i]);   /* limbs = coef * R^2 */
                    zb_u32(&b, (uint32_t)m);
                    zb_u32(&b, k);
                    zb_u32(&b, lc->sig[i]);
                    zb_bytes(&b, v.l, 32);
                    cnt++;
                }
            }
        }
        for (unsigned s = 0; s <= c->n_pub; s++) {
            FR v;
            FRN(to_mont)(&v, &one);
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
        TN(ic_scalar)(&t, c, s);
        TN(g1_of)(zb_room(&b, g1b), &t);
    }
    zb_sec_end(&b, at);
    /* 9: H */
    at = zb_sec_begin(&b, 9);
    for (unsigned i = 0; i < c->n; i++) {
        FRN(mul)(&t, &c->lh[i], &dinv);
        TN(g1_of)(zb_room(&b, g1b), &t);
    }
    zb_sec_end(&b, at);
    /* 8: C (private signals) */
    at = zb_sec_begin(&b, 8);
    for (unsigned s = c->n_pub + 1; s < c->n_vars; s++) {
        TN(ic_scalar)(&t, c, s);
        FRN(mul)(&t, &t, &dinv);
        TN(g1_of)(zb_room(&b, g1b), &t);
    }
    zb_sec_end(&b, at);
    /* 5, 6, 7: A, B1, B2 */
    at = zb_sec_begin(&b, 5);
    for (unsigned s = 0; s < c->n_vars; s++)
        TN(g1_of)(zb_room(&b, g1b), &c->u[s]);
    zb_sec_end(&b, at);
    at = zb_sec_begin(&b, 6);
    for (unsigned s = 0; s < c->n_vars; s++)
        TN(g1_of)(zb_room(&b, g1b), &c->v[s]);
    zb_sec_end(&b, at);
    at = zb_sec_begin(&b, 7);
    for (unsigned s = 0; s < c->n_vars; s++)
        TN(g2_of)(zb_room(&b, g2b), &c->v[s]);
    zb_sec_end(&b, at);
    if (!b.buf || b.oom) {
        free(b.buf);
        return NULL;
    }
    *ret_len = b.len;
    return b.buf;
}

/* Expected proof for blinding r, s (Montgomery) by the textbook formulas. */
static void TN(expected)(const struct TN(circ) *c, const FR *r, const FR *s,
                         struct zk_groth16_proof *e)
{
    FR Aw, Bw, Cw, t, pa, pb, pc, dinv, rs;
    FRN(zero)(&Aw);
    FRN(zero)(&Bw);
    FRN(zero)(&Cw);
    FRN(zero)(&pc);
    for (unsigned i = 0; i < c->n_vars; i++) {
        FRN(mul)(&t, &c->w[i], &c->u[i]);
        FRN(add)(&Aw, &Aw, &t);
        FRN(mul)(&t, &c->w[i], &c->v[i]);
        FRN(add)(&Bw, &Bw, &t);
        FRN(mul)(&t, &c->w[i], &c->cw[i]);
        FRN(add)(&Cw, &Cw, &t);
        if (i > c->n_pub) {
            TN(ic_scalar)(&t, c, i);
            FRN(mul)(&t, &t, &c->w[i]);
            FRN(add)(&pc, &pc, &t);
        }
    }
    /* h(tau) Z(tau) = A(tau) B(tau) - C(tau) */
    FRN(mul)(&t, &Aw, &Bw);
    FRN(sub)(&t, &t, &Cw);
    FRN(add)(&pc, &pc, &t);
    FRN(inv)(&dinv, &c->delta);
    FRN(mul)(&pc, &pc, &dinv);
    /* pa = alpha + A + r delta ; pb = beta + B + s delta */
    FRN(mul)(&t, r, &c->delta);
    FRN(add)(&pa, &c->alpha, &Aw);
    FRN(add)(&pa, &pa, &t);
    FRN(mul)(&t, s, &c->delta);
    FRN(add)(&pb, &c->beta, &Bw);
    FRN(add)(&pb, &pb, &t);
    /* pc += s pa + r pb - r s delta */
    FRN(mul)(&t, s, &pa);
    FRN(add)(&pc, &pc, &t);
    FRN(mul)(&t, r, &pb);
    FRN(add)(&pc, &pc, &t);
    FRN(mul)(&rs, r, s);
    FRN(mul)(&rs, &rs, &c->delta);
    FRN(sub)(&pc, &pc, &rs);
    memset(e, 0, sizeof *e);
    e->curve = ZK_T_CURVE;
    TN(g1_of)((uint8_t *)e->pi_a, &pa);
    TN(g2_of)((uint8_t *)e->pi_b, &pb);
    TN(g1_of)((uint8_t *)e->pi_c, &pc);
}

static int TN(same_proof)(const struct zk_groth16_proof *a, const struct zk_groth16_proof *b)
{
    return a->curve == b->curve && !memcmp(a->pi_a, b->pi_a, sizeof a->pi_a) &&
           !memcmp(a->pi_b, b->pi_b, sizeof a->pi_b) && !memcmp(a->pi_c, b->pi_c, sizeof a->pi_c);
}

static int TN(verdict)(const struct zk_groth16_vk *vk, const zk_scalar *pub,
                       const struct zk_groth16_proof *p)
{
    int valid = -1;
    int rc = zk_groth16_verify(vk, pub, vk->n_public, p, &valid);
    return rc ? rc : valid;
}

static void TN(run)(unsigned n_cons, unsigned n_vars, unsigned n_pub)
{
    const char *cn = zk_curve_name(ZK_T_CURVE);
    struct TN(circ) c;
    struct zk_zkey z;
    struct zk_diag d = { { 0 } };
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_pending *p = NULL;
    struct zk_groth16_vk vk, vk2;
    struct zk_groth16_proof pr, ex, pr2;
    zk_scalar *w = NULL, *abc = NULL, *pub = NULL, zr, zs;
    FR r, s, zero;
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc;

    memset(&c, 0, sizeof c);
    memset(&z, 0, sizeof z);
    memset(&vk, 0, sizeof vk);
    memset(&vk2, 0, sizeof vk2);
    ZT_REQUIRE(TN(build_circuit)(&c, n_cons, n_vars, n_pub) == 0, , "alloc");
    TN(evaluate)(&c);
    buf = TN(make_zkey)(&c, &len);
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
        TN(plain)(&w[i], &c.w[i]);
    pub = w + 1;

    /* r = s = 0: the known answer, for several thread counts */
    FRN(zero)(&zero);
    memset(&zr, 0, sizeof zr);
    TN(expected)(&c, &zero, &zero, &ex);
    for (unsigned nt = 1; nt <= 3; nt++) {
        ZT_CHECK(zk_groth16_synthesize(k, w, abc, abc + c.n, abc + 2 * c.n, nt) == 0);
        rc = zk_groth16_prove_start(k, w, abc, abc + c.n, abc + 2 * c.n, nt, &p);
        ZT_REQUIRE(rc == 0, , "start %d", rc);
        rc = zk_groth16_prove_finalize_rs(p, &zr, &zr, nt, &pr);
        ZT_CHECK(rc == 0, "finalize %d", rc);
        ZT_CHECK(TN(same_proof)(&pr, &ex), "%s n=%u T=%u: r=s=0 proof differs from the "
                 "direct evaluation", cn, c.n, nt);
        ZT_CHECK(TN(verdict)(&vk, pub, &pr) == 1, "%s: r=s=0 proof rejected", cn);
        p = zk_groth16_pending_free(p);
    }

    /* random r, s through the split API; inputs freed before finalize */
    TN(rand_fr)(&r);
    TN(rand_fr)(&s);
    TN(plain)(&zr, &r);
    TN(plain)(&zs, &s);
    TN(expected)(&c, &r, &s, &ex);
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
    ZT_CHECK(TN(same_proof)(&pr, &ex), "%s: blinded proof differs from the formulas", cn);
    ZT_CHECK(TN(verdict)(&vk, pub, &pr) == 1, "%s: blinded proof rejected", cn);
    /* fresh r, s from getrandom: valid and different each time */
    ZT_CHECK(zk_groth16_prove_finalize(p, 2, &pr) == 0);
    ZT_CHECK(zk_groth16_prove_finalize(p, 2, &pr2) == 0);
    ZT_CHECK(!TN(same_proof)(&pr, &pr2), "%s: two random proofs are equal", cn);
    ZT_CHECK(TN(verdict)(&vk, pub, &pr) == 1 && TN(verdict)(&vk, pub, &pr2) == 1,
             "%s: random proofs rejected", cn);
    ZT_CHECK(pr.t.msm_b2 >= 0 && pr.t.total >= pr.t.msm_b2);
    ZT_CHECK(zk_groth16_prove_finalize_rs(p, &zr, &(zk_scalar){ { ~0ULL, ~0ULL, ~0ULL, ~0ULL } },
                                          1, &pr2) == ZK_ERANGE);
    p = zk_groth16_pending_free(p);

    /* one-call prove */
    ZT_CHECK(zk_groth16_prove(k, w, 2, &pr2) == 0);
    ZT_CHECK(TN(verdict)(&vk, pub, &pr2) == 1, "%s: zk_groth16_prove rejected", cn);

    /* tampering */
    {
        zk_scalar bad[8];
        struct zk_groth16_proof t = pr;
        G1 q;
        G1A qa;
        memcpy(bad, pub, n_pub * sizeof *bad);
        bad[0].l[0] ^= 1;
        ZT_CHECK(TN(verdict)(&vk, bad, &pr) == 0, "%s: tampered public input accepted", cn);
        memcpy(bad, pub, n_pub * sizeof *bad);
        memcpy(bad[n_pub - 1].l, FRN(P_), 32);    /* = r: out of range */
        ZT_CHECK(TN(verdict)(&vk, bad, &pr) == ZK_ERANGE);
        int valid = -1;
        ZT_CHECK(zk_groth16_verify(&vk, pub, n_pub - 1, &pr, &valid) == ZK_ELENGTH);
        memcpy(&qa, t.pi_a, sizeof qa);
        G1N(from_affine)(&q, &qa);
        G1N(dbl)(&q, &q);
        G1N(to_affine)(&qa, &q);
        memcpy(t.pi_a, &qa, sizeof qa);
        ZT_CHECK(TN(verdict)(&vk, pub, &t) == 0, "%s: tampered pi_a accepted", cn);
        t = pr;
        memcpy(t.pi_c, pr.pi_a, sizeof t.pi_c);
        ZT_CHECK(TN(verdict)(&vk, pub, &t) == 0, "%s: pi_c = pi_a accepted", cn);
        t = pr;
        t.pi_c[1] ^= 4;                             /* off the curve */
        ZT_CHECK(TN(verdict)(&vk, pub, &t) == ZK_ENOT_ON_CURVE);
        t = pr;
        t.curve = ZK_T_CURVE == ZK_CURVE_BN254 ? ZK_CURVE_BLS12_381 : ZK_CURVE_BN254;
        ZT_CHECK(TN(verdict)(&vk, pub, &t) == ZK_ECURVE_MISMATCH);
    }

    /* a witness that does not satisfy the R1CS gives an invalid proof */
    {
        unsigned s = n_vars - 1;
        w[s].l[0] ^= 2;
        ZT_CHECK(zk_groth16_prove(k, w, 2, &pr2) == 0);
        ZT_CHECK(TN(verdict)(&vk, pub, &pr2) == 0, "%s: unsatisfied witness accepted", cn);
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
            rc = zk_groth16_proof_from_json(js, ZK_T_CURVE, "proof", &pr2, &d);
            ZT_CHECK(rc == 0 && TN(same_proof)(&pr, &pr2), "%s: proof JSON: %s", cn, d.msg);
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
                ZT_CHECK(TN(verdict)(&vk2, pub, &pr) == 1);
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
    TN(free_circuit)(&c);
}

#undef TN
#undef FR
#undef G1
#undef G2
#undef G1A
#undef G2A
#undef FRN
#undef G1N
#undef G2N

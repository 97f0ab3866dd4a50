/*
 * test_ifma.c -- the eight-lane BN254 Fp arithmetic of common/ff/ifma_bn254.h
 * against the scalar field (bn254_fp_*), on random values and the edges 0,
 * 1, R mod p, p - 1, p - 2, 2^254 - 1 and values just below 2^254 and 2p
 * (products take inputs below 2p):
 *   zk_fp8_mul(a, b) reduced and doubled four times = bn254_fp_mul(a, b)
 *     (the product is a b 2^-260: a factor 2^-4 off), normalized, below 2p;
 *   add, sub, neg_mask, reduce, zero_mask as the scalar ones;
 *   load/store and the SoA load/store round trips; the 52-bit constants
 *   against BN254_FP_P.
 * The MSM batch's fused steps (den, dy, sub4 lazy: checked through a
 * product; x3, y3, csub2p, eq_mask exactly).
 * Fp2 (zk_fp2x8): the same against bn254_fp2_* on edges and random values.
 * Also zk_ifma_bn254_force and ZKSLOT_NO_IFMA.  Skips (77) on a CPU
 * without AVX-512 IFMA.
 */
#include <stdlib.h>
#include <string.h>

#include "ff/fields.h"
#include "ff/tower.h"
#include "ff/ifma_bn254.h"
#include "zktest.h"

#if !ZK_IFMA_BN254
int main(void)
{
    zt_skip("no IFMA code on this target");
}
#else

static const bn254_fp P = { BN254_FP_P };

/* a + b on 4 limbs (no overflow in the uses below). */
static void add4(bn254_fp *r, const bn254_fp *a, const bn254_fp *b)
{
    unsigned __int128 c = 0;
    for (int i = 0; i < 4; i++) {
        c += (unsigned __int128)a->l[i] + b->l[i];
        r->l[i] = (limb_t)c;
        c >>= 64;
    }
}

/* 1 if a < b. */
static int below(const bn254_fp *a, const bn254_fp *b)
{
    for (int i = 3; i >= 0; i--) {
        if (a->l[i] != b->l[i])
            return a->l[i] < b->l[i];
    }
    return 0;
}

/* a mod p for a < 2p. */
static void modp(bn254_fp *r, const bn254_fp *a)
{
    *r = *a;
    if (below(r, &P))
        return;
    unsigned __int128 b = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 d = (unsigned __int128)r->l[i] - P.l[i] - b;
        r->l[i] = (limb_t)d;
        b = (d >> 64) & 1;
    }
}

enum { NEDGE = 9 };

/* Edge value k < NEDGE (below 2p; the first six below p). */
static void edge(bn254_fp *r, unsigned k)
{
    memset(r, 0, sizeof *r);
    switch (k) {
    case 0: break;                                           /* 0 */
    case 1: r->l[0] = 1; break;                              /* 1 */
    case 2: bn254_fp_one(r); break;                          /* R mod p */
    case 3: *r = P; r->l[0] -= 1; break;                     /* p - 1 */
    case 4: *r = P; r->l[0] -= 2; break;                     /* p - 2 */
    case 5: r->l[0] = 0xfffffffffffffULL; r->l[3] = 0x3000000000000000ULL; break;
    case 6: memset(r->l, 0xff, 24); r->l[3] = 0x3fffffffffffffffULL; break;   /* 2^254 - 1 */
    case 7: add4(r, &P, &P); r->l[0] -= 1; break;            /* 2p - 1 */
    default: *r = P; break;                                  /* p */
    }
}

/* A random value below p (below 2p when wide). */
static void rnd(bn254_fp *r, int wide)
{
    for (;;) {
        for (int i = 0; i < 4; i++)
            r->l[i] = zt_rand64();
        r->l[3] &= wide ? 0x7fffffffffffffffULL : 0x3fffffffffffffffULL;
        bn254_fp pp;
        add4(&pp, &P, &P);
        if (below(r, wide ? &pp : &P))
            return;
    }
}

/* The lanes of a's 52-bit limbs, into v[i][j]. */
static ZK_IFMA_TARGET void limbs(unsigned long long v[5][8], const zk_fp8 *a)
{
    for (int i = 0; i < 5; i++)
        _mm512_storeu_si512(v[i], a->l[i]);
}

/* 1 if every limb of a is below 2^52. */
static ZK_IFMA_TARGET int normalized(const zk_fp8 *a)
{
    unsigned long long v[5][8];
    limbs(v, a);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 8; j++)
            if (v[i][j] >> 52)
                return 0;
    return 1;
}

static ZK_IFMA_TARGET void load(zk_fp8 *r, bn254_fp x[8])
{
    const bn254_fp *p[8];
    for (int j = 0; j < 8; j++)
        p[j] = &x[j];
    zk_fp8_load(r, p);
}

static ZK_IFMA_TARGET void store(bn254_fp x[8], const zk_fp8 *a)
{
    bn254_fp *p[8];
    for (int j = 0; j < 8; j++)
        p[j] = &x[j];
    zk_fp8_store(p, a);
}

/* The constants: p's 52-bit limbs, -p^-1 mod 2^52. */
static ZK_IFMA_TARGET void check_consts(void)
{
    const unsigned long long p52[5] = { ZK_IFMA_P0, ZK_IFMA_P1, ZK_IFMA_P2, ZK_IFMA_P3,
                                        ZK_IFMA_P4 };
    zk_fp8 a;
    unsigned long long v[5][8];
    zk_fp8_bcast(&a, &P);
    limbs(v, &a);
    for (int i = 0; i < 5; i++)
        ZT_CHECK(v[i][3] == p52[i], "p limb %d: %llx != %llx", i, v[i][3], p52[i]);
    ZT_CHECK(((P.l[0] * ZK_IFMA_N0) & ZK_IFMA_MASK) == ZK_IFMA_MASK, "n0: p n0 != -1 mod 2^52");
    /* 2p and 4p: k p in 52-bit limbs */
    const unsigned long long p2[5] = ZK_IFMA_2P52, p4[5] = ZK_IFMA_4P52;
    for (int k = 2; k <= 4; k += 2) {
        unsigned long long c = 0;
        for (int i = 0; i < 5; i++) {
            unsigned long long w = k * p52[i] + c;
            ZT_CHECK((w & ZK_IFMA_MASK) == (k == 2 ? p2[i] : p4[i]), "%dp limb %d", k, i);
            c = w >> 52;
        }
        ZT_CHECK(c == 0, "%dp above 2^260", k);
    }
}

/* One round: eight lanes of a and b (a, b below 2p where wide, else below p). */
static ZK_IFMA_TARGET void check_round(bn254_fp a[8], bn254_fp b[8], int wide, const char *what)
{
    zk_fp8 va, vb, vr, vs;
    bn254_fp got[8], want, am, bm, t;
    load(&va, a);
    load(&vb, b);
    ZT_CHECK(normalized(&va) && normalized(&vb), "%s: load not normalized", what);
    store(got, &va);
    for (int j = 0; j < 8; j++)
        ZT_CHECK(memcmp(&got[j], &a[j], sizeof a[j]) == 0, "%s: load/store lane %d", what, j);
    limb_t soa[32];
    zk_fp8_store_soa(soa, &va);
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 4; i++)
            ZT_CHECK(soa[8 * i + j] == a[j].l[i], "%s: soa limb %d lane %d", what, i, j);
    zk_fp8_load_soa(&vs, soa);
    store(got, &vs);
    for (int j = 0; j < 8; j++)
        ZT_CHECK(memcmp(&got[j], &a[j], sizeof a[j]) == 0, "%s: soa round trip lane %d", what, j);

    /* mul: below 2p, normalized, 16 * reduce(a b 2^-260) = a b 2^-256 */
    zk_fp8_mul(&vr, &va, &vb);
    ZT_CHECK(normalized(&vr), "%s: mul not normalized", what);
    store(got, &vr);
    bn254_fp pp;
    add4(&pp, &P, &P);
    for (int j = 0; j < 8; j++) {
        modp(&am, &a[j]);
        modp(&bm, &b[j]);
        bn254_fp_mul(&want, &am, &bm);
        ZT_CHECK(below(&got[j], &pp), "%s: mul lane %d not below 2p", what, j);
        modp(&t, &got[j]);
        for (int k = 0; k < 4; k++)
            bn254_fp_dbl(&t, &t);
        ZT_CHECK(memcmp(&t, &want, sizeof t) == 0, "%s: mul lane %d", what, j);
    }
    zk_fp8_reduce(&vs, &vr);
    store(got, &vs);
    for (int j = 0; j < 8; j++) {
        bn254_fp raw[8];
        store(raw, &vr);
        modp(&t, &raw[j]);
        ZT_CHECK(memcmp(&t, &got[j], sizeof t) == 0, "%s: reduce lane %d", what, j);
    }
    if (wide) {                                  /* reduce of inputs in [0, 2p) */
        zk_fp8_reduce(&vs, &va);
        store(got, &vs);
        for (int j = 0; j < 8; j++) {
            modp(&t, &a[j]);
            ZT_CHECK(memcmp(&t, &got[j], sizeof t) == 0, "%s: reduce input lane %d", what, j);
        }
        return;
    }
    zk_fp8_add(&vr, &va, &vb);
    store(got, &vr);
    for (int j = 0; j < 8; j++) {
        bn254_fp_add(&want, &a[j], &b[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: add lane %d", what, j);
    }
    zk_fp8_sub(&vr, &va, &vb);
    store(got, &vr);
    for (int j = 0; j < 8; j++) {
        bn254_fp_sub(&want, &a[j], &b[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: sub lane %d", what, j);
    }
    __mmask8 m = (__mmask8)zt_rand64();
    zk_fp8_neg_mask(&vr, m, &va);
    store(got, &vr);
    for (int j = 0; j < 8; j++) {
        if (m >> j & 1)
            bn254_fp_neg(&want, &a[j]);
        else
            want = a[j];
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: neg_mask lane %d", what, j);
    }
    __mmask8 z = zk_fp8_zero_mask(&va), zw = 0;
    for (int j = 0; j < 8; j++)
        zw |= (__mmask8)(bn254_fp_is_zero(&a[j]) << j);
    ZT_CHECK(z == zw, "%s: zero_mask %02x != %02x", what, z, zw);
}

/* lane j of a (lazy: below 2^260) times w, reduced, times 16: a w mod p. */
static ZK_IFMA_TARGET void lazy_times(bn254_fp out[8], const zk_fp8 *a, const zk_fp8 *w)
{
    zk_fp8 r;
    zk_fp8_mul(&r, a, w);
    zk_fp8_reduce(&r, &r);
    store(out, &r);
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 4; k++)
            bn254_fp_dbl(&out[j], &out[j]);
}

/* The batch's fused steps: x1, x2, y1, y2 and w canonical, v below 2p. */
static ZK_IFMA_TARGET void check_fused(bn254_fp x1[8], bn254_fp x2[8], bn254_fp y1[8],
                                       bn254_fp y2[8], bn254_fp v[8], bn254_fp w[8],
                                       const char *what)
{
    zk_fp8 vx1, vx2, vy1, vy2, vv, vw, r;
    bn254_fp got[8], want, t, vm;
    load(&vx1, x1);
    load(&vx2, x2);
    load(&vy1, y1);
    load(&vy2, y2);
    load(&vv, v);
    load(&vw, w);
    __mmask8 m = (__mmask8)zt_rand64(), eq = 0;
    for (int j = 0; j < 8; j++)
        eq |= (__mmask8)((memcmp(&x1[j], &x2[j], sizeof x1[j]) == 0) << j);
    ZT_CHECK(zk_fp8_eq_mask(&vx1, &vx2) == eq, "%s: eq_mask", what);
    zk_fp8_den(&r, &vx2, &vx1);
    ZT_CHECK(normalized(&r), "%s: den not normalized", what);
    lazy_times(got, &r, &vw);
    for (int j = 0; j < 8; j++) {
        bn254_fp_sub(&t, &x2[j], &x1[j]);
        bn254_fp_mul(&want, &t, &w[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: den lane %d", what, j);
    }
    zk_fp8_dy(&r, m, &vy2, &vy1);
    ZT_CHECK(normalized(&r), "%s: dy not normalized", what);
    lazy_times(got, &r, &vw);
    for (int j = 0; j < 8; j++) {
        if (m >> j & 1)
            bn254_fp_neg(&t, &y2[j]);
        else
            t = y2[j];
        bn254_fp_sub(&t, &t, &y1[j]);
        bn254_fp_mul(&want, &t, &w[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: dy lane %d", what, j);
    }
    zk_fp8_sub4(&r, &vx1, &vx2);
    ZT_CHECK(normalized(&r), "%s: sub4 not normalized", what);
    lazy_times(got, &r, &vv);                    /* the other factor below 2p */
    for (int j = 0; j < 8; j++) {
        bn254_fp_sub(&t, &x1[j], &x2[j]);
        bn254_fp_dbl(&t, &t);
        bn254_fp_dbl(&t, &t);
        modp(&vm, &v[j]);
        bn254_fp_mul(&want, &t, &vm);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: sub4 lane %d", what, j);
    }
    zk_fp8_x3(&r, &vv, &vx1, &vx2);
    store(got, &r);
    for (int j = 0; j < 8; j++) {
        modp(&vm, &v[j]);
        bn254_fp_sub(&t, &vm, &x1[j]);
        bn254_fp_sub(&want, &t, &x2[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: x3 lane %d", what, j);
    }
    zk_fp8_y3(&r, &vv, &vy1);
    store(got, &r);
    for (int j = 0; j < 8; j++) {
        modp(&vm, &v[j]);
        bn254_fp_sub(&want, &vm, &y1[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: y3 lane %d", what, j);
    }
    zk_fp8_csub2p(&r, &vv);                      /* below 2p: unchanged */
    store(got, &r);
    for (int j = 0; j < 8; j++)
        ZT_CHECK(memcmp(&got[j], &v[j], sizeof v[j]) == 0, "%s: csub2p lane %d", what, j);
}

/* Fp2, eight lanes of a and b: mul (reduced, times 16; components below
 * 2p where wide), and for canonical ones add, sub, neg_mask, zero_mask, the
 * load/store and SoA round trips. */
static ZK_IFMA_TARGET void check_fp2(const bn254_fp2 a[8], const bn254_fp2 b[8], int wide,
                                     const char *what)
{
    const bn254_fp2 *pa[8], *pb[8];
    bn254_fp2 got[8], want, *pg[8];
    zk_fp2x8 va, vb, vr;
    limb_t soa[64];
    for (int j = 0; j < 8; j++) {
        pa[j] = &a[j];
        pb[j] = &b[j];
        pg[j] = &got[j];
    }
    zk_fp2x8_load(&va, pa);
    zk_fp2x8_load(&vb, pb);
    zk_fp2x8_store_soa(soa, &va);
    zk_fp2x8_load_soa(&vr, soa);
    zk_fp2x8_store(pg, &vr);
    for (int j = 0; j < 8; j++)
        ZT_CHECK(memcmp(&got[j], &a[j], sizeof a[j]) == 0, "%s: fp2 round trip lane %d", what, j);
    zk_fp2x8_mul(&vr, &va, &vb);
    zk_fp2x8_store(pg, &vr);
    for (int j = 0; j < 8; j++) {
        bn254_fp2 am, bm;
        modp(&am.c0, &a[j].c0);
        modp(&am.c1, &a[j].c1);
        modp(&bm.c0, &b[j].c0);
        modp(&bm.c1, &b[j].c1);
        bn254_fp2_mul(&want, &am, &bm);
        bn254_fp2 t, pp;
        add4(&pp.c0, &P, &P);
        ZT_CHECK(below(&got[j].c0, &pp.c0) && below(&got[j].c1, &pp.c0),
                 "%s: fp2 mul lane %d not below 2p", what, j);
        modp(&t.c0, &got[j].c0);
        modp(&t.c1, &got[j].c1);
        for (int k = 0; k < 4; k++)
            bn254_fp2_dbl(&t, &t);
        ZT_CHECK(memcmp(&t, &want, sizeof t) == 0, "%s: fp2 mul lane %d", what, j);
    }
    if (wide)                                    /* components below 2p: the product only */
        return;
    zk_fp2x8_add(&vr, &va, &vb);
    zk_fp2x8_store(pg, &vr);
    for (int j = 0; j < 8; j++) {
        bn254_fp2_add(&want, &a[j], &b[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: fp2 add lane %d", what, j);
    }
    zk_fp2x8_sub(&vr, &va, &vb);
    zk_fp2x8_store(pg, &vr);
    for (int j = 0; j < 8; j++) {
        bn254_fp2_sub(&want, &a[j], &b[j]);
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: fp2 sub lane %d", what, j);
    }
    __mmask8 m = (__mmask8)zt_rand64(), zw = 0;
    zk_fp2x8_neg_mask(&vr, m, &va);
    zk_fp2x8_store(pg, &vr);
    for (int j = 0; j < 8; j++) {
        if (m >> j & 1)
            bn254_fp2_neg(&want, &a[j]);
        else
            want = a[j];
        ZT_CHECK(memcmp(&got[j], &want, sizeof want) == 0, "%s: fp2 neg_mask lane %d", what, j);
        zw |= (__mmask8)(bn254_fp2_is_zero(&a[j]) << j);
    }
    ZT_CHECK(zk_fp2x8_zero_mask(&va) == zw, "%s: fp2 zero_mask", what);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    setenv("ZKSLOT_NO_IFMA", "1", 1);
    ZT_CHECK(zk_ifma_bn254_force(-1) == 0, "ZKSLOT_NO_IFMA=1 leaves IFMA on");
    setenv("ZKSLOT_NO_IFMA", "0", 1);
    int on = zk_ifma_bn254_force(-1);
    ZT_CHECK(zk_ifma_bn254_force(0) == 0, "force(0) leaves IFMA on");
    if (!on)
        zt_skip("the CPU has no AVX-512 IFMA");
    ZT_CHECK(zk_ifma_bn254_force(1) == 1, "force(1) on an IFMA CPU");
    check_consts();
    bn254_fp a[8], b[8];
    /* every pair of edges, in lanes (i, k) of the rounds */
    for (unsigned i = 0; i < NEDGE; i++) {
        for (unsigned k = 0; k < NEDGE; k++) {
            int wide = i >= 6 || k >= 6;
            for (int j = 0; j < 8; j++) {
                edge(&a[j], (i + (unsigned)j) % (wide ? NEDGE : 6));
                edge(&b[j], (k + 3 * (unsigned)j) % (wide ? NEDGE : 6));
            }
            check_round(a, b, wide, "edges");
        }
    }
    for (int r = 0; r < 2000; r++) {
        int wide = r & 1;
        for (int j = 0; j < 8; j++) {
            rnd(&a[j], wide);
            rnd(&b[j], wide);
            if (zt_rand64() % 8 == 0)                    /* some equal lanes: a - a = 0 */
                b[j] = a[j];
        }
        check_round(a, b, wide, wide ? "random below 2p" : "random");
    }
    for (int r = 0; r < 2000; r++) {
        bn254_fp x1[8], x2[8], y1[8], y2[8], v[8], w[8];
        for (int j = 0; j < 8; j++) {
            unsigned e = (unsigned)(zt_rand64() % 16);
            if (e < 6) edge(&x1[j], e); else rnd(&x1[j], 0);
            e = (unsigned)(zt_rand64() % 16);
            if (e < 6) edge(&x2[j], e); else rnd(&x2[j], 0);
            if (zt_rand64() % 4 == 0)
                x2[j] = x1[j];
            rnd(&y1[j], 0);
            rnd(&y2[j], 0);
            e = (unsigned)(zt_rand64() % 16);
            if (e < 9) edge(&v[j], e); else rnd(&v[j], 1);
            rnd(&w[j], 0);
        }
        check_fused(x1, x2, y1, y2, v, w, "fused");
    }
    bn254_fp2 a2[8], b2[8];
    for (int r = 0; r < 1000; r++) {
        for (int j = 0; j < 8; j++) {                    /* edges 0-5 and random values */
            unsigned e = (unsigned)(zt_rand64() % 12);
            if (e < 6) edge(&a2[j].c0, e); else rnd(&a2[j].c0, 0);
            e = (unsigned)(zt_rand64() % 12);
            if (e < 6) edge(&a2[j].c1, e); else rnd(&a2[j].c1, 0);
            rnd(&b2[j].c0, 0);
            rnd(&b2[j].c1, 0);
            if (zt_rand64() % 8 == 0)
                b2[j] = a2[j];
        }
        check_fp2(a2, b2, 0, "fp2");
        for (int j = 0; j < 8; j++) {                    /* components below 2p */
            unsigned e = (unsigned)(zt_rand64() % 12);
            if (e < 9) edge(&a2[j].c0, e); else rnd(&a2[j].c0, 1);
            rnd(&a2[j].c1, 1);
            rnd(&b2[j].c0, 1);
            e = (unsigned)(zt_rand64() % 12);
            if (e < 9) edge(&b2[j].c1, e); else rnd(&b2[j].c1, 1);
        }
        check_fp2(a2, b2, 1, "fp2 below 2p");
    }
    return zt_finish();
}
#endif

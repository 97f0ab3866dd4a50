/*
 * test_ec.c -- G1/G2 of BN254 and BLS12-381 (common/ec/curves.h, endo.h),
 * the Fp2 square root and sign helpers (common/ff/fp2_tmpl.h), and the point
 * encodings (common/include/zk/ec.h).
 *
 * Independent references: GMP re-derives the generators and curve constants
 * from the published decimal coordinates (docs/formats.md section 8) and
 * the group orders from the curve seeds; the plain double-and-add mul_ref is
 * the reference for wNAF; [r]P = O is the reference for the fast subgroup
 * checks, on random points in the subgroup, random points of the whole curve
 * group (found by hashing x until x^3 + b is a square) and small-order
 * torsion points built from the full group order.  The Zcash/IETF
 * encodings are checked against the published generator encodings
 * (zkcrypto/bls12_381, IETF pairing-friendly-curves draft).
 */
/*
 * Cold code built from the always-inline field and point formulas: -O3's
 * vectorizer triples the compile time of these huge functions for no gain.
 */
#if defined(__GNUC__) && !defined(__clang__)
# pragma GCC optimize("O2")
#endif
#include <gmp.h>
#include <string.h>

#include "ec/curves.h"
#include "zk/ec.h"
#include "zk/error.h"
#include "zktest.h"

/* ---- GMP helpers ---------------------------------------------------------- */

static void mpz_from_limbs(mpz_t z, const limb_t *l, size_t n)
{
    mpz_import(z, n, -1, sizeof(limb_t), 0, 0, l);
}

/* z (>= 0, < 2^(64 n)) -> n limbs */
static void mpz_to_limbs(limb_t *l, size_t n, const mpz_t z)
{
    size_t cnt = 0;
    memset(l, 0, n * sizeof *l);
    ZT_CHECK(mpz_sizeinbase(z, 2) <= 64 * n);
    mpz_export(l, &cnt, -1, sizeof(limb_t), 0, 0, z);
}

/* Montgomery limbs of the decimal (or 0x-hex) string s modulo p (n limbs). */
static void mont_of_str(limb_t *out, const char *s, const limb_t *p, size_t n)
{
    mpz_t z, P;
    mpz_inits(z, P, NULL);
    mpz_set_str(z, s, 0);
    mpz_from_limbs(P, p, n);
    mpz_mul_2exp(z, z, 64 * n);
    mpz_mod(z, z, P);
    mpz_to_limbs(out, n, z);
    mpz_clears(z, P, NULL);
}

static int hexval(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static size_t unhex(uint8_t *out, const char *hex)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
    return n;
}

static const limb_t BN_P[4] = BN254_FP_P, BN_R[4] = BN254_FR_P;
static const limb_t BLS_P[6] = BLS381_FP_P, BLS_R[4] = BLS381_FR_P;

/* random limbs below m (n limbs): a uniformly random field element */
static void rand_below(limb_t *out, const limb_t *m, size_t n)
{
    unsigned top = 64 - (unsigned)__builtin_clzll(m[n - 1]);
    do {
        for (size_t i = 0; i < n; i++)
            out[i] = zt_rand64();
        out[n - 1] &= top == 64 ? ~(limb_t)0 : (((limb_t)1 << top) - 1);
    } while (cmp_n(out, m, n) >= 0);
}

/* ---- known answers: generators and b ---------------------------------------- */

struct kat {
    const char *name;
    const limb_t *p;
    size_t n;                  /* limbs per Fp */
    size_t ncoord;             /* Fp values in an affine point: 2 or 4 */
    const void *gen;           /* affine generator */
    const void *b;             /* b */
    const char *gen_dec[4];
    const char *b_dec[2];
};

static void test_constants(void)
{
    bn254_g1_affine g1; bn254_g2_affine g2; bls381_g1_affine h1; bls381_g2_affine h2;
    bn254_g1_generator(&g1); bn254_g2_generator(&g2);
    bls381_g1_generator(&h1); bls381_g2_generator(&h2);
    const struct kat k[4] = {
        { "bn254_g1", BN_P, 4, 2, &g1, &bn254_g1_B_, { "1", "2" }, { "3" } },
        { "bn254_g2", BN_P, 4, 4, &g2, &bn254_g2_B_,
          { "10857046999023057135944570762232829481370756359578518086990519993285655852781",
            "11559732032986387107991004021392285783925812861821192530917403151452391805634",
            "8495653923123431417604973247489272438418190587263600148770280649306958101930",
            "4082367875863433681332203403145435568316851327593401208105741076214120093531" },
          { "19485874751759354771024239261021720505790618469301721065564631296452457478373",
            "266929791119991161246907387137283842545076965332900288569378510910307636690" } },
        { "bls381_g1", BLS_P, 6, 2, &h1, &bls381_g1_B_,
          { "3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507",
            "1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569" },
          { "4" } },
        { "bls381_g2", BLS_P, 6, 4, &h2, &bls381_g2_B_,
          { "352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160",
            "3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758",
            "1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905",
            "927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582" },
          { "4", "4" } },
    };
    for (int g = 0; g < 4; g++) {
        const limb_t *have = k[g].gen;
        limb_t want[6];
        for (size_t c = 0; c < k[g].ncoord; c++) {
            mont_of_str(want, k[g].gen_dec[c], k[g].p, k[g].n);
            ZT_CHECK(memcmp(want, have + c * k[g].n, k[g].n * 8) == 0,
                     "%s generator coordinate %zu", k[g].name, c);
        }
        have = k[g].b;
        for (size_t c = 0; c < k[g].ncoord / 2; c++) {
            mont_of_str(want, k[g].b_dec[c], k[g].p, k[g].n);
            ZT_CHECK(memcmp(want, have + c * k[g].n, k[g].n * 8) == 0,
                     "%s b coefficient %zu", k[g].name, c);
        }
    }
    ZT_CHECK(bn254_g1_affine_is_on_curve(&g1) && bn254_g2_affine_is_on_curve(&g2));
    ZT_CHECK(bls381_g1_affine_is_on_curve(&h1) && bls381_g2_affine_is_on_curve(&h2));
}

/* ---- Fp / Fp2: sign, halving, square root ---------------------------------- */

#define FP2_TESTS(E, F, P, NL)                                                        \
    static void test_##E(void)                                                        \
    {                                                                                 \
        mpz_t v, pm1h, pz;                                                            \
        mpz_inits(v, pm1h, pz, NULL);                                                 \
        mpz_from_limbs(pz, P, NL);                                                    \
        mpz_sub_ui(pm1h, pz, 1);                                                      \
        mpz_fdiv_q_2exp(pm1h, pm1h, 1);                                               \
        int nsq = 0;                                                                  \
        for (int it = 0; it < 200; it++) {                                            \
            E a, b, r, t, n;                                                          \
            rand_below(a.c0.l, P, NL);                                                \
            rand_below(a.c1.l, P, NL);                                                \
            if (it % 5 == 1) F##_zero(&a.c1);          /* the a1 = 0 branch */        \
            if (it % 5 == 2) F##_zero(&a.c0);                                         \
            /* Fp sign against GMP */                                                 \
            F plain;                                                                  \
            F##_from_mont(&plain, &a.c0);                                             \
            mpz_from_limbs(v, plain.l, NL);                                           \
            ZT_CHECK(F##_is_lex_largest(&a.c0) == (mpz_cmp(v, pm1h) > 0), #F " sign");\
            F##_neg(&n.c0, &a.c0);                                                    \
            if (!F##_is_zero(&a.c0))                                                  \
                ZT_CHECK(F##_is_lex_largest(&a.c0) != F##_is_lex_largest(&n.c0));     \
            /* halving */                                                             \
            F h;                                                                      \
            F##_half(&h, &a.c0);                                                      \
            F##_dbl(&h, &h);                                                          \
            ZT_CHECK(F##_eq(&h, &a.c0), #F "_half");                                  \
            /* Fp2 sign: exactly one of y, -y is largest */                          \
            E##_neg(&n, &a);                                                          \
            if (!E##_is_zero(&a))                                                     \
                ZT_CHECK(E##_is_lex_largest(&a) != E##_is_lex_largest(&n), #E " sign"); \
            /* sqrt of a square */                                                    \
            E##_sqr(&b, &a);                                                          \
            ZT_CHECK(E##_sqrt(&r, &b) == 1, #E "_sqrt of a square it=%d", it);       \
            E##_sqr(&t, &r);                                                          \
            ZT_CHECK(E##_eq(&t, &b));                                                 \
            /* random element: square or not, answer must be consistent */           \
            int s = E##_sqrt(&r, &a);                                                 \
            nsq += s;                                                                 \
            if (s) {                                                                  \
                E##_sqr(&t, &r);                                                      \
                ZT_CHECK(E##_eq(&t, &a));                                             \
            } else {                                                                  \
                /* non-square: then a * (square) is a non-square too, and */         \
                /* a^((p^2-1)/2) = -1, checked via the norm being a non-square */    \
                F nm, t2;                                                             \
                F##_sqr(&nm, &a.c0);                                                  \
                F##_sqr(&t2, &a.c1);                                                  \
                F##_add(&nm, &nm, &t2);                                               \
                ZT_CHECK(!F##_sqrt(&t2, &nm), #E " non-square has a square norm");    \
            }                                                                         \
        }                                                                             \
        ZT_CHECK(nsq > 40 && nsq < 160, #E " squares among random: %d/200", nsq);     \
        E z, r;                                                                       \
        E##_zero(&z);                                                                 \
        ZT_CHECK(E##_sqrt(&r, &z) == 1 && E##_is_zero(&r));                           \
        mpz_clears(v, pm1h, pz, NULL);                                                \
    }

FP2_TESTS(bn254_fp2, bn254_fp, BN_P, 4)
FP2_TESTS(bls381_fp2, bls381_fp, BLS_P, 6)

/* ---- wNAF recoding ----------------------------------------------------------- */

static void test_wnaf_recode(void)
{
    mpz_t k, s, t;
    mpz_inits(k, s, t, NULL);
    for (int it = 0; it < 300; it++) {
        limb_t l[8];
        size_t nbits = 1 + zt_rand64() % 512;
        for (int i = 0; i < 8; i++)
            l[i] = zt_rand64();
        if (it % 7 == 0)
            memset(l, 0xff, sizeof l);
        int8_t d[ZK_WNAF_MAXBITS + 1];
        size_t len = zk_wnaf_recode(d, l, nbits, ZK_WNAF_W);
        mpz_from_limbs(k, l, 8);
        mpz_fdiv_r_2exp(k, k, nbits);
        mpz_set_ui(s, 0);
        int ok = len <= nbits + 1, last = -100;
        for (size_t i = len; i-- > 0;) {
            mpz_mul_2exp(s, s, 1);
            if (d[i] > 0) mpz_add_ui(s, s, (unsigned)d[i]);
            if (d[i] < 0) mpz_sub_ui(s, s, (unsigned)-d[i]);
            if (d[i]) {
                ok &= (d[i] & 1) && d[i] < 16 && d[i] > -16;
                ok &= last - (int)i >= ZK_WNAF_W || last == -100;
                last = (int)i;
            }
        }
        ZT_CHECK(ok && mpz_cmp(s, k) == 0, "wnaf recode nbits=%zu", nbits);
    }
    mpz_clears(k, s, t, NULL);
}

/* ---- group tests, one instantiation per group -------------------------------- */

/* full group order N = h * r of E(Fp) / E'(Fp2), from the seeds */
static void group_order(mpz_t N, const char *group)
{
    mpz_t x, h, r, p, t;
    mpz_inits(x, h, r, p, t, NULL);
    if (!strncmp(group, "bn254", 5)) {
        mpz_from_limbs(r, BN_R, 4);
        mpz_from_limbs(p, BN_P, 4);
        if (group[7] == '1')
            mpz_set_ui(h, 1);
        else {
            mpz_mul_2exp(h, p, 1);           /* h2 = 2p - r */
            mpz_sub(h, h, r);
        }
    } else {
        mpz_from_limbs(r, BLS_R, 4);
        mpz_set_str(x, "-0xd201000000010000", 0);
        if (group[8] == '1') {               /* h1 = (x-1)^2 / 3 */
            mpz_sub_ui(h, x, 1);
            mpz_mul(h, h, h);
            mpz_divexact_ui(h, h, 3);
        } else {                             /* h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9 */
            static const long c[9] = { 13, -4, -4, 6, -4, 0, 5, -4, 1 };
            mpz_set_ui(h, 0);
            for (int i = 8; i >= 0; i--) {
                mpz_mul(h, h, x);
                if (c[i] >= 0) mpz_add_ui(h, h, (unsigned long)c[i]);
                else mpz_sub_ui(h, h, (unsigned long)-c[i]);
            }
            mpz_divexact_ui(h, h, 9);
        }
    }
    mpz_mul(N, h, r);
    mpz_clears(x, h, r, p, t, NULL);
}

#define GROUP_TESTS(G, F, FP, P, NL, ISG2, NIT)                                          \
    static void G##_rand_field(F *x)                                                     \
    {                                                                                    \
        limb_t *l = (limb_t *)x;                                                         \
        for (int c = 0; c < (ISG2 ? 2 : 1); c++)                                         \
            rand_below(l + c * NL, P, NL);                                               \
    }                                                                                    \
    /* a random point of the whole curve group (hash x until x^3 + b is a square) */     \
    static void G##_rand_curve(G##_affine *a)                                            \
    {                                                                                    \
        F x;                                                                             \
        do                                                                               \
            G##_rand_field(&x);                                                          \
        while (!G##_affine_from_x(a, &x, (int)(zt_rand64() & 1)));                       \
    }                                                                                    \
    static void G##_rand_scalar(limb_t k[4], const limb_t *r)                            \
    {                                                                                    \
        rand_below(k, r, 4);                                                             \
    }                                                                                    \
    static void test_##G(const limb_t *R)                                                \
    {                                                                                    \
        G##_affine ga, a, b;                                                             \
        G gen, p, q, s, t, u, inf;                                                       \
        limb_t k1[4], k2[4], k3[5];                                                      \
        mpz_t z1, z2, zr;                                                                \
        mpz_inits(z1, z2, zr, NULL);                                                     \
        mpz_from_limbs(zr, R, 4);                                                        \
        G##_generator(&ga);                                                              \
        G##_from_affine(&gen, &ga);                                                      \
        G##_set_inf(&inf);                                                               \
        /* [r]G = O, [r-1]G = -G, [r+1]G = G (ref and wNAF) */                          \
        G##_mul_ref(&p, &gen, R, 256);                                                   \
        ZT_CHECK(G##_is_inf(&p), #G " [r]G (ref)");                                      \
        G##_mul(&p, &gen, R, 256);                                                       \
        ZT_CHECK(G##_is_inf(&p), #G " [r]G (wnaf)");                                     \
        ZT_CHECK(G##_in_subgroup(&gen) && G##_in_subgroup_slow(&gen));                   \
        /* edge scalars: wNAF vs ref */                                                  \
        {                                                                                \
            limb_t e[6][5] = { { 0 }, { 1 }, { 0 }, { 0 }, { 0 },                        \
                               { ~0ULL, ~0ULL, ~0ULL, ~0ULL } };                         \
            memcpy(e[2], R, 32); e[2][0] -= 1;                                           \
            memcpy(e[3], R, 32);                                                         \
            memcpy(e[4], R, 32); e[4][0] += 1;                                           \
            G##_affine_from_x(&a, &ga.x, 1);                                             \
            G##_rand_curve(&a);                                                          \
            G##_from_affine(&q, &a);           /* also a point outside the subgroup */   \
            for (int i = 0; i < 6; i++) {                                                \
                G##_mul(&s, &gen, e[i], 256);                                            \
                G##_mul_ref(&t, &gen, e[i], 256);                                        \
                ZT_CHECK(G##_eq(&s, &t), #G " wnaf vs ref, edge scalar %d", i);          \
                G##_mul(&s, &q, e[i], 256);                                              \
                G##_mul_ref(&t, &q, e[i], 256);                                          \
                ZT_CHECK(G##_eq(&s, &t), #G " wnaf vs ref on curve point, edge %d", i);  \
                G##_mul(&s, &inf, e[i], 256);                                            \
                ZT_CHECK(G##_is_inf(&s));                                                \
            }                                                                            \
            G##_mul(&s, &gen, e[2], 256);                                                \
            G##_neg(&t, &gen);                                                           \
            ZT_CHECK(G##_eq(&s, &t), #G " [r-1]G = -G");                                 \
            G##_mul(&s, &gen, e[4], 256);                                                \
            ZT_CHECK(G##_eq(&s, &gen), #G " [r+1]G = G");                                \
        }                                                                                \
        for (int it = 0; it < (NIT); it++) {                                             \
            G##_rand_scalar(k1, R);                                                      \
            G##_rand_scalar(k2, R);                                                      \
            G##_mul(&p, &gen, k1, 256);                                                  \
            G##_mul(&q, &gen, k2, 256);                                                  \
            G##_mul_ref(&t, &gen, k1, 256);                                              \
            ZT_CHECK(G##_eq(&p, &t), #G " wnaf vs ref it=%d", it);                       \
            ZT_CHECK(G##_is_on_curve(&p) && G##_is_on_curve(&q));                        \
            /* [a+b]G = [a]G + [b]G (the 257-bit sum, no reduction) */                   \
            k3[4] = add_n(k3, k1, k2, 4);                                                \
            G##_mul(&s, &gen, k3, 257);                                                  \
            G##_add_ool(&t, &p, &q);                                                         \
            ZT_CHECK(G##_eq(&s, &t), #G " [a+b]G it=%d", it);                            \
            /* [ab mod r]G = [a]([b]G) */                                                \
            mpz_from_limbs(z1, k1, 4);                                                   \
            mpz_from_limbs(z2, k2, 4);                                                   \
            mpz_mul(z1, z1, z2);                                                         \
            mpz_mod(z1, z1, zr);                                                         \
            mpz_to_limbs(k3, 4, z1);                                                     \
            G##_mul(&s, &gen, k3, 256);                                                  \
            G##_mul(&t, &q, k1, 256);                                                    \
            ZT_CHECK(G##_eq(&s, &t), #G " [ab]G it=%d", it);                             \
            /* group laws on Jacobian points with random Z */                            \
            G##_mul(&u, &gen, k3, 256);                                                  \
            G##_add_ool(&s, &p, &q); G##_add_ool(&s, &s, &u);                                    \
            G##_add_ool(&t, &q, &u); G##_add_ool(&t, &p, &t);                                    \
            ZT_CHECK(G##_eq(&s, &t), #G " associativity");                               \
            G##_add_ool(&s, &p, &q); G##_add_ool(&t, &q, &p);                                    \
            ZT_CHECK(G##_eq(&s, &t), #G " commutativity");                               \
            G##_add_ool(&s, &p, &inf); G##_add_ool(&t, &inf, &p);                                \
            ZT_CHECK(G##_eq(&s, &p) && G##_eq(&t, &p), #G " identity");                  \
            G##_neg(&t, &p); G##_add_ool(&s, &p, &t);                                        \
            ZT_CHECK(G##_is_inf(&s), #G " inverse");                                     \
            G##_add_ool(&s, &p, &p); G##_dbl_ool(&t, &p);                                        \
            ZT_CHECK(G##_eq(&s, &t), #G " add(P,P) = dbl(P)");                           \
            /* affine conversions and mixed addition */                                  \
            G##_to_affine(&a, &p);                                                       \
            G##_to_affine(&b, &q);                                                       \
            ZT_CHECK(G##_affine_is_on_curve(&a) && G##_affine_is_on_curve(&b));          \
            G##_from_affine(&s, &a);                                                     \
            ZT_CHECK(G##_eq(&s, &p), #G " affine round trip");                           \
            G##_add_affine_ool(&s, &p, &b); G##_add_ool(&t, &p, &q);                             \
            ZT_CHECK(G##_eq(&s, &t), #G " mixed add vs add");                            \
            G##_add_affine_ool(&s, &p, &a); G##_dbl_ool(&t, &p);                                 \
            ZT_CHECK(G##_eq(&s, &t), #G " mixed add P+P");                               \
            G##_affine_neg(&b, &a); G##_add_affine_ool(&s, &p, &b);                          \
            ZT_CHECK(G##_is_inf(&s), #G " mixed add P-P");                               \
            G##_add_affine_ool(&s, &inf, &a);                                                \
            ZT_CHECK(G##_eq(&s, &p), #G " mixed add O+P");                               \
            memset(&b, 0, sizeof b);                                                     \
            G##_add_affine_ool(&s, &p, &b);                                                  \
            ZT_CHECK(G##_eq(&s, &p), #G " mixed add P+O");                               \
            /* on-curve negative: perturb y */                                           \
            b = a;                                                                       \
            FP##_add((FP *)&b.y, (FP *)&b.y, (FP *)&ga.y);                               \
            ZT_CHECK(!G##_affine_is_on_curve(&b), #G " perturbed point on curve?");      \
            /* fast subgroup check vs [r]P = O: in the subgroup */                       \
            ZT_CHECK(G##_in_subgroup(&p) == 1 && G##_in_subgroup_slow(&p) == 1);         \
            ZT_CHECK(G##_affine_in_subgroup(&a) == 1);                                   \
            /* ... and random points of the whole group */                               \
            G##_rand_curve(&b);                                                          \
            G##_from_affine(&s, &b);                                                     \
            int slow = G##_in_subgroup_slow(&s);                                         \
            ZT_CHECK(G##_in_subgroup(&s) == slow, #G " fast vs slow subgroup (random)"); \
            ZT_CHECK(G##_affine_in_subgroup(&b) == slow);                                \
            ZT_CHECK(slow == !(ISG2 || (NL) == 6), #G " random point membership %d", slow); \
            G##_add_ool(&s, &s, &p);              /* P in G + random point */                \
            ZT_CHECK(G##_in_subgroup(&s) == G##_in_subgroup_slow(&s));                   \
        }                                                                                \
        /* batch_to_affine with infinities mixed in */                                   \
        {                                                                                \
            enum { NB = 9 };                                                             \
            G v[NB]; G##_affine w[NB]; F scratch[3 * NB];                                \
            for (int i = 0; i < NB; i++) {                                               \
                limb_t kk[1] = { (limb_t)(i * 7 + 1) };                                  \
                if (i % 3 == 0) G##_set_inf(&v[i]);                                      \
                else G##_mul(&v[i], &gen, kk, 64);                                       \
            }                                                                            \
            G##_batch_to_affine(w, v, NB, scratch);                                      \
            for (int i = 0; i < NB; i++) {                                               \
                G##_to_affine(&a, &v[i]);                                                \
                ZT_CHECK(G##_affine_eq(&a, &w[i]), #G " batch_to_affine %d", i);         \
                ZT_CHECK(G##_affine_is_inf(&w[i]) == (i % 3 == 0));                      \
            }                                                                            \
            G##_batch_to_affine(w, v, 1, scratch);                                       \
            ZT_CHECK(G##_affine_is_inf(&w[0]));                                          \
        }                                                                                \
        /* wNAF vs ref at odd lengths, including > 256 bits */                           \
        for (int it = 0; it < 6; it++) {                                                 \
            limb_t kk[8];                                                                \
            size_t nb = 1 + zt_rand64() % 512;                                           \
            for (int i = 0; i < 8; i++) kk[i] = zt_rand64();                             \
            G##_mul(&s, &gen, kk, nb);                                                   \
            G##_mul_ref(&t, &gen, kk, nb);                                               \
            ZT_CHECK(G##_eq(&s, &t), #G " wnaf vs ref nbits=%zu", nb);                   \
        }                                                                                \
        mpz_clears(z1, z2, zr, NULL);                                                    \
    }                                                                                    \
    /* small-order torsion points T = [N/l]Q for the small primes l | h: the */         \
    /* fast check must reject T and G + T.  Returns the number of T tried. */            \
    static int test_##G##_torsion(void)                                                  \
    {                                                                                    \
        mpz_t N, h, c, rr;                                                               \
        mpz_inits(N, h, c, rr, NULL);                                                    \
        group_order(N, #G);                                                              \
        limb_t nl[16];                                                                   \
        size_t nbits = mpz_sizeinbase(N, 2);                                             \
        G##_affine a, ga;                                                                \
        G q, t, gen;                                                                     \
        G##_generator(&ga);                                                              \
        G##_from_affine(&gen, &ga);                                                      \
        /* the formula for N is right: [N]Q = O for random Q */                          \
        mpz_to_limbs(nl, 16, N);                                                         \
        G##_rand_curve(&a);                                                              \
        G##_from_affine(&q, &a);                                                         \
        G##_mul_ref(&t, &q, nl, nbits);                                                  \
        ZT_CHECK(G##_is_inf(&t), #G " [N]Q = O with N = h r");                           \
        mpz_from_limbs(rr, (ISG2 || (NL) == 6) ? ((NL) == 6 ? BLS_R : BN_R)              \
                           : BN_R, 4);                                                   \
        mpz_divexact(h, N, rr);                                                          \
        int tried = 0;                                                                   \
        for (unsigned long l = 2; l < 20000; l++) {                                      \
            if (!mpz_divisible_ui_p(h, l) || !mpz_probab_prime_p(                        \
                    (mpz_set_ui(c, l), c), 5))                                           \
                continue;                                                                \
            mpz_divexact_ui(c, N, l);                                                    \
            mpz_to_limbs(nl, 16, c);                                                     \
            for (int rep = 0; rep < 2; rep++) {                                          \
                G##_rand_curve(&a);                                                      \
                G##_from_affine(&q, &a);                                                 \
                G##_mul_ref(&t, &q, nl, mpz_sizeinbase(c, 2));                           \
                if (G##_is_inf(&t))                                                      \
                    continue;                                                            \
                tried++;                                                                 \
                ZT_CHECK(!G##_in_subgroup_slow(&t));                                     \
                ZT_CHECK(!G##_in_subgroup(&t), #G " fast check accepts order-%lu point", l); \
                G##_add_ool(&t, &t, &gen);                                                   \
                ZT_CHECK(!G##_in_subgroup(&t), #G " fast check accepts G + T, l=%lu", l); \
            }                                                                            \
        }                                                                                \
        mpz_clears(N, h, c, rr, NULL);                                                   \
        return tried;                                                                    \
    }

GROUP_TESTS(bn254_g1, bn254_fp, bn254_fp, BN_P, 4, 0, 12)
GROUP_TESTS(bn254_g2, bn254_fp2, bn254_fp, BN_P, 4, 1, 6)
GROUP_TESTS(bls381_g1, bls381_fp, bls381_fp, BLS_P, 6, 0, 10)
GROUP_TESTS(bls381_g2, bls381_fp2, bls381_fp, BLS_P, 6, 1, 5)

/* ---- encodings --------------------------------------------------------------- */

#define SNARKJS_TESTS(G, NB, ISG2, NL)                                                   \
    static void test_##G##_snarkjs(void)                                                 \
    {                                                                                    \
        G##_affine a, b, sentinel;                                                       \
        G p, gen;                                                                        \
        uint8_t buf[NB], buf2[NB];                                                       \
        G##_generator(&a);                                                               \
        G##_from_affine(&gen, &a);                                                       \
        memset(&sentinel, 0xab, sizeof sentinel);                                        \
        for (int it = 0; it < 4; it++) {                                                 \
            limb_t k[4];                                                                 \
            G##_rand_scalar(k, (NL) == 6 ? BLS_R : BN_R);                                \
            G##_mul(&p, &gen, k, 256);                                                   \
            G##_to_affine(&a, &p);                                                       \
            G##_encode_snarkjs(buf, &a);                                                 \
            ZT_CHECK(memcmp(buf, &a, NB) == 0, #G " snarkjs bytes = struct layout");     \
            ZT_CHECK(G##_decode_snarkjs(&b, buf, 0) == 0 && G##_affine_eq(&a, &b));      \
            ZT_CHECK(G##_affine_validate(&a, 0) == 0);                                   \
            /* coordinate >= p: the stored (Montgomery) integer itself must be < p */    \
            for (size_t c = 0; c < (ISG2 ? 4u : 2u); c++) {                              \
                memcpy(buf2, buf, NB);                                                   \
                const limb_t *P = (NL) == 6 ? BLS_P : BN_P;                              \
                limb_t v[6];                                                             \
                memcpy(v, P, (NL) * 8);                                                  \
                v[0] += (limb_t)(it & 1);                      /* p or p + 1 */          \
                for (size_t i = 0; i < (NL) * 8; i++)                                    \
                    buf2[c * (NL) * 8 + i] = (uint8_t)(v[i / 8] >> (8 * (i % 8)));       \
                b = sentinel;                                                            \
                ZT_CHECK(G##_decode_snarkjs(&b, buf2, 0) == ZK_ENOT_CANONICAL,           \
                         #G " coordinate %zu >= p", c);                                  \
                ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0, "written on failure");    \
            }                                                                            \
            /* not on the curve */                                                       \
            memcpy(buf2, buf, NB);                                                       \
            buf2[NB - 8] ^= 1;                                                           \
            b = sentinel;                                                                \
            ZT_CHECK(G##_decode_snarkjs(&b, buf2, 0) == ZK_ENOT_ON_CURVE);               \
            ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0);                              \
            /* on the curve, not in the subgroup (all but BN254 G1) */                   \
            G##_rand_curve(&a);                                                          \
            G##_encode_snarkjs(buf2, &a);                                                \
            int want = (ISG2 || (NL) == 6) ? ZK_ENOT_IN_GROUP : 0;                       \
            b = sentinel;                                                                \
            ZT_CHECK(G##_decode_snarkjs(&b, buf2, 0) == want, #G " subgroup");           \
            ZT_CHECK(G##_decode_snarkjs(&b, buf2, ZK_EC_NO_SUBGROUP_CHECK) == 0 &&       \
                     G##_affine_eq(&a, &b));                                             \
        }                                                                                \
        memset(buf, 0, NB);                                                              \
        ZT_CHECK(G##_decode_snarkjs(&b, buf, 0) == 0 && G##_affine_is_inf(&b), "inf");   \
        G##_encode_snarkjs(buf2, &b);                                                    \
        ZT_CHECK(memcmp(buf, buf2, NB) == 0);                                            \
    }

SNARKJS_TESTS(bn254_g1, 64, 0, 4)
SNARKJS_TESTS(bn254_g2, 128, 1, 4)
SNARKJS_TESTS(bls381_g1, 96, 0, 6)
SNARKJS_TESTS(bls381_g2, 192, 1, 6)

static void test_points_validate(void)
{
    enum { N = 600 };
    static bls381_g1_affine v[N];
    bls381_g1 gen, p;
    bls381_g1_affine ga;
    bls381_g1_generator(&ga);
    bls381_g1_from_affine(&gen, &ga);
    p = gen;
    for (int i = 0; i < N; i++) {              /* v[i] = [i+1]G, v[7] = O */
        bls381_g1_to_affine(&v[i], &p);
        bls381_g1_add_ool(&p, &p, &gen);
    }
    memset(&v[7], 0, sizeof v[7]);
    size_t bad = 12345;
    ZT_CHECK(zk_ec_points_validate(ZK_CURVE_BLS12_381, 0, v, N, 0, 2, &bad) == 0 && bad == 12345);
    bls381_g1_affine keep1 = v[450], keep2 = v[300];
    v[450].y.l[0] ^= 1;                         /* not on the curve */
    bls381_g1_rand_curve(&v[300]);             /* not in the subgroup */
    ZT_CHECK(zk_ec_points_validate(ZK_CURVE_BLS12_381, 0, v, N, 0, 2, &bad) == ZK_ENOT_IN_GROUP &&
             bad == 300, "bad=%zu", bad);
    ZT_CHECK(zk_ec_points_validate(ZK_CURVE_BLS12_381, 0, v, N, ZK_EC_NO_SUBGROUP_CHECK, 2, &bad) ==
             ZK_ENOT_ON_CURVE && bad == 450, "bad=%zu", bad);
    v[450] = keep1;
    v[300] = keep2;
    ZT_CHECK(zk_ec_point_validate(ZK_CURVE_BLS12_381, 0, &v[5], 0) == 0);
    ZT_CHECK(zk_ec_point_validate((enum zk_curve)7, 0, &v[5], 0) == ZK_ECURVE);
    bn254_g2_affine g2;
    bn254_g2_generator(&g2);
    ZT_CHECK(zk_ec_point_validate(ZK_CURVE_BN254, 1, &g2, 0) == 0);
    g2.x.c1.l[3] = ~0ULL;
    ZT_CHECK(zk_ec_point_validate(ZK_CURVE_BN254, 1, &g2, 0) == ZK_ENOT_CANONICAL);
}

/* published encodings of the BLS12-381 generators (zkcrypto/bls12_381, IETF draft) */
static const char G1_COMP[] =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G1_UNCOMP[] =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
static const char G2_COMP[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
/* x.c1 x.c0 y.c1 y.c0 of the generator (IETF draft section 4.2.1 coordinates) */
static const char G2_UNCOMP[] =
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801";

/* Zcash tests for group G with compressed size CB (uncompressed 2*CB). */
#define ZCASH_TESTS(G, F, CB, KC, KU)                                                    \
    static void test_##G##_zcash(void)                                                   \
    {                                                                                    \
        G##_affine a, b, sentinel;                                                       \
        G p, gen;                                                                        \
        uint8_t c[CB], u[2 * CB], w[2 * CB];                                             \
        memset(&sentinel, 0xcd, sizeof sentinel);                                        \
        G##_generator(&a);                                                               \
        G##_from_affine(&gen, &a);                                                       \
        /* known answers */                                                              \
        G##_to_compressed(c, &a);                                                        \
        unhex(w, KC);                                                                    \
        ZT_CHECK(memcmp(c, w, CB) == 0, #G " compressed generator");                     \
        ZT_CHECK(G##_from_compressed(&b, w, 0) == 0 && G##_affine_eq(&a, &b));           \
        G##_to_uncompressed(u, &a);                                                      \
        unhex(w, KU);                                                                    \
        ZT_CHECK(memcmp(u, w, 2 * CB) == 0, #G " uncompressed generator");               \
        ZT_CHECK(G##_from_uncompressed(&b, w, 0) == 0 && G##_affine_eq(&a, &b));         \
        /* infinity */                                                                   \
        memset(&b, 0, sizeof b);                                                         \
        G##_to_compressed(c, &b);                                                        \
        G##_to_uncompressed(u, &b);                                                      \
        ZT_CHECK(c[0] == 0xc0 && u[0] == 0x40);                                          \
        for (int i = 1; i < CB; i++) ZT_CHECK(c[i] == 0);                                \
        for (int i = 1; i < 2 * CB; i++) ZT_CHECK(u[i] == 0);                            \
        b = sentinel;                                                                    \
        ZT_CHECK(G##_from_compressed(&b, c, 0) == 0 && G##_affine_is_inf(&b));           \
        b = sentinel;                                                                    \
        ZT_CHECK(G##_from_uncompressed(&b, u, 0) == 0 && G##_affine_is_inf(&b));         \
        /* infinity rejections: sign bit, a stray bit, missing compression bit */        \
        static const struct { int byte; uint8_t bit; } bad_inf[] = {                     \
            { 0, 0x20 }, { 0, 0x01 }, { 1, 0x80 }, { CB - 1, 0x01 } };                   \
        for (size_t i = 0; i < sizeof bad_inf / sizeof bad_inf[0]; i++) {                \
            memcpy(w, c, CB);                                                            \
            w[bad_inf[i].byte] ^= bad_inf[i].bit;                                        \
            b = sentinel;                                                                \
            ZT_CHECK(G##_from_compressed(&b, w, 0) == ZK_EBAD_ENCODING, "inf case %zu", i); \
            ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0);                              \
            memcpy(w, u, 2 * CB);                                                        \
            w[bad_inf[i].byte] ^= bad_inf[i].bit;                                        \
            ZT_CHECK(G##_from_uncompressed(&b, w, 0) == ZK_EBAD_ENCODING);               \
        }                                                                                \
        memcpy(w, u, 2 * CB);                                                            \
        w[2 * CB - 1] = 1;                                                               \
        ZT_CHECK(G##_from_uncompressed(&b, w, 0) == ZK_EBAD_ENCODING, "inf, y != 0");    \
        memcpy(w, c, CB);                                                                \
        w[0] = 0x40;                                                                     \
        ZT_CHECK(G##_from_compressed(&b, w, 0) == ZK_EBAD_ENCODING, "no C bit");         \
        memcpy(w, u, 2 * CB);                                                            \
        w[0] = 0xc0;                                                                     \
        ZT_CHECK(G##_from_uncompressed(&b, w, 0) == ZK_EBAD_ENCODING, "C bit");          \
        /* (0, 0) without the infinity flag */                                           \
        memset(w, 0, 2 * CB);                                                            \
        ZT_CHECK(G##_from_uncompressed(&b, w, 0) == ZK_ENOT_ON_CURVE);                   \
        ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0);                                  \
        /* random points: round trips, both signs */                                     \
        for (int it = 0; it < 6; it++) {                                                 \
            limb_t k[4];                                                                 \
            G##_rand_scalar(k, BLS_R);                                                   \
            G##_mul(&p, &gen, k, 256);                                                   \
            G##_to_affine(&a, &p);                                                       \
            if (it & 1) G##_affine_neg(&a, &a);                                          \
            G##_to_compressed(c, &a);                                                    \
            G##_to_uncompressed(u, &a);                                                  \
            ZT_CHECK((c[0] & 0xe0) == (F##_is_lex_largest(&a.y) ? 0xa0 : 0x80));         \
            ZT_CHECK((u[0] & 0xe0) == 0);                                                \
            ZT_CHECK(memcmp(c + 1, u + 1, CB - 1) == 0 && (c[0] & 0x1f) == u[0]);        \
            b = sentinel;                                                                \
            ZT_CHECK(G##_from_compressed(&b, c, 0) == 0 && G##_affine_eq(&a, &b),        \
                     #G " compressed round trip it=%d", it);                             \
            b = sentinel;                                                                \
            ZT_CHECK(G##_from_uncompressed(&b, u, 0) == 0 && G##_affine_eq(&a, &b),      \
                     #G " uncompressed round trip it=%d", it);                           \
            /* flipping the sign gives -P */                                             \
            memcpy(w, c, CB);                                                            \
            w[0] ^= 0x20;                                                                \
            G##_affine_neg(&a, &a);                                                      \
            ZT_CHECK(G##_from_compressed(&b, w, 0) == 0 && G##_affine_eq(&a, &b));       \
            /* sign bit on uncompressed */                                               \
            memcpy(w, u, 2 * CB);                                                        \
            w[0] |= 0x20;                                                                \
            ZT_CHECK(G##_from_uncompressed(&b, w, 0) == ZK_EBAD_ENCODING);               \
            /* y perturbed: not on the curve */                                          \
            memcpy(w, u, 2 * CB);                                                        \
            w[2 * CB - 1] ^= 1;                                                          \
            b = sentinel;                                                                \
            ZT_CHECK(G##_from_uncompressed(&b, w, 0) == ZK_ENOT_ON_CURVE);               \
            ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0);                              \
        }                                                                                \
        /* x >= p (p itself, and all ones below the flags) in each Fp slot */           \
        for (int slot = 0; slot < CB / 48; slot++) {                                     \
            for (int v = 0; v < 2; v++) {                                                \
                G##_to_compressed(c, &a);                                                \
                G##_to_uncompressed(u, &a);                                              \
                uint8_t pb[48];                                                          \
                if (v == 0) unhex(pb, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf" \
                                      "6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab"); \
                else { memset(pb, 0xff, 48); pb[0] = 0x1f; }                             \
                memcpy(c + 48 * slot, pb, 48);                                           \
                memcpy(u + 48 * slot, pb, 48);                                           \
                if (slot == 0) c[0] |= 0x80 | (c[0] & 0x20);                             \
                b = sentinel;                                                            \
                ZT_CHECK(G##_from_compressed(&b, c, 0) == ZK_ENOT_CANONICAL, "slot %d", slot); \
                ZT_CHECK(G##_from_uncompressed(&b, u, 0) == ZK_ENOT_CANONICAL);          \
                ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0);                          \
                G##_to_uncompressed(u, &a);                                              \
                memcpy(u + CB + 48 * slot, pb, 48);                                      \
                ZT_CHECK(G##_from_uncompressed(&b, u, 0) == ZK_ENOT_CANONICAL, "y slot"); \
            }                                                                            \
        }                                                                                \
        /* x with no point: x^3 + b not a square */                                      \
        for (int found = 0; !found;) {                                                   \
            F x;                                                                         \
            G##_rand_field(&x);                                                          \
            if (G##_affine_from_x(&b, &x, 0))                                            \
                continue;                                                                \
            found = 1;                                                                   \
            G##_affine tmp;                                                              \
            tmp.x = x;                                                                   \
            tmp.y = x;                                                                   \
            G##_to_uncompressed(u, &tmp);                                                \
            memcpy(c, u, CB);                                                            \
            c[0] |= 0x80;                                                                \
            b = sentinel;                                                                \
            ZT_CHECK(G##_from_compressed(&b, c, 0) == ZK_ENOT_ON_CURVE, #G " no sqrt");  \
            ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0);                              \
        }                                                                                \
        /* on the curve but not in the subgroup */                                       \
        G##_rand_curve(&a);                                                              \
        G##_to_compressed(c, &a);                                                        \
        G##_to_uncompressed(u, &a);                                                      \
        b = sentinel;                                                                    \
        ZT_CHECK(G##_from_compressed(&b, c, 0) == ZK_ENOT_IN_GROUP);                     \
        ZT_CHECK(G##_from_uncompressed(&b, u, 0) == ZK_ENOT_IN_GROUP);                   \
        ZT_CHECK(memcmp(&b, &sentinel, sizeof b) == 0);                                  \
        ZT_CHECK(G##_from_compressed(&b, c, ZK_EC_NO_SUBGROUP_CHECK) == 0 &&             \
                 G##_affine_eq(&a, &b));                                                 \
        ZT_CHECK(G##_from_uncompressed(&b, u, ZK_EC_NO_SUBGROUP_CHECK) == 0 &&           \
                 G##_affine_eq(&a, &b));                                                 \
    }

ZCASH_TESTS(bls381_g1, bls381_fp, 48, G1_COMP, G1_UNCOMP)
ZCASH_TESTS(bls381_g2, bls381_fp2, 96, G2_COMP, G2_UNCOMP)

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    test_constants();
    test_bn254_fp2();
    test_bls381_fp2();
    test_wnaf_recode();
    test_bn254_g1(BN_R);
    test_bn254_g2(BN_R);
    test_bls381_g1(BLS_R);
    test_bls381_g2(BLS_R);
    int t = test_bn254_g2_torsion() + test_bls381_g1_torsion() + test_bls381_g2_torsion();
    (void)test_bn254_g1_torsion;
    ZT_CHECK(t > 0, "no small-order torsion point found");
    printf("small-order torsion points checked: %d\n", t);
    test_bn254_g1_snarkjs();
    test_bn254_g2_snarkjs();
    test_bls381_g1_snarkjs();
    test_bls381_g2_snarkjs();
    test_points_validate();
    test_bls381_g1_zcash();
    test_bls381_g2_zcash();
    return zt_finish();
}

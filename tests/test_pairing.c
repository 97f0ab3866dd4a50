/*
 * test_pairing.c -- Fp6/Fp12 towers (common/ff/fp12.h) and the optimal ate
 * pairings (zk/pairing.h) of BN254 and BLS12-381:
 *   - known answers: snarkjs verification keys' vk_alphabeta_12 = e(alpha,
 *     beta) (BN254 and BLS12-381 keys found in public repositories) and
 *     blst's e(G1, G2) for BLS12-381 (the published zkcrypto value);
 *   - Fp6 and Fp12 field laws on random elements (mul/sqr/inv against each
 *     other, sparse products against full products, Frobenius maps against
 *     exponentiation by p and p^2 computed with GMP, cyclotomic squaring and
 *     exponentiation on the cyclotomic subgroup);
 *   - bilinearity e(aP, bQ) = e(P, Q)^(ab) = e(abP, Q) for random a, b,
 *     non-degeneracy, e^r = 1, Miller loop + final exp = pairing, products
 *     (with infinity entries, more pairs than one Miller-loop chunk),
 *     e(P, Q) e(-P, Q) = 1 and a perturbed product that is not 1.
 * The file includes itself once per curve (TP_BODY) so both curves run the
 * same code.
 */
#ifndef TP_BODY
#include <stdlib.h>
#include <string.h>

#include "ec/curves.h"
#include "ff/fp12.h"
#include "zk/pairing.h"
#include "zktest.h"

#ifndef ZK_TEST_HAVE_GMP
int main(void)
{
    zt_skip("GMP not available");
}
#else
#include <gmp.h>

/* decimal or hex (0x) string -> n little-endian bytes (value < 2^(8n)) */
static void str_to_le(uint8_t *out, size_t n, const char *s)
{
    mpz_t z;
    size_t cnt = 0;
    if (s[0] == '0' && s[1] == 'x')
        mpz_init_set_str(z, s + 2, 16);
    else
        mpz_init_set_str(z, s, 10);
    memset(out, 0, n);
    mpz_export(out, &cnt, -1, 1, 0, 0, z);
    mpz_clear(z);
}

/* limbs (nl of them) -> mpz */
static void limbs_to_mpz(mpz_t z, const limb_t *l, size_t nl)
{
    mpz_import(z, nl, -1, sizeof(limb_t), 0, 0, l);
}

/* mpz -> limbs, returns the bit length; out holds cap limbs */
static size_t mpz_to_limbs(limb_t *out, size_t cap, const mpz_t z)
{
    size_t cnt = 0;
    memset(out, 0, cap * sizeof(limb_t));
    mpz_export(out, &cnt, -1, sizeof(limb_t), 0, 0, z);
    return mpz_sizeinbase(z, 2);
}

/* ---- known answers ---- */

static const char *BN_ALPHA[2] = {
    "20491192805390485299153009773594534940189261866228447918068658471970481763042",
    "9383485363053290200918347156157836566562967994039712273449902621266178545958" };
static const char *BN_BETA[4] = {
    "6375614351688725206403948262868962793625744043794305715222011528459656738731",
    "4252822878758300859123897981450591353533073413197771768651442665752259397132",
    "10505242626370262277552901082094356697409835680220590971873171140371331206856",
    "21847035105528745403288232691147584728191162732299865338377159692350059136679" };
static const char *BN_ALPHABETA[12] = {
    "2029413683389138792403550203267699914886160938906632433982220835551125967885",
    "21072700047562757817161031222997517981543347628379360635925549008442030252106",
    "5940354580057074848093997050200682056184807770593307860589430076672439820312",
    "12156638873931618554171829126792193045421052652279363021382169897324752428276",
    "7898200236362823042373859371574133993780991612861777490112507062703164551277",
    "7074218545237549455313236346927434013100842096812539264420499035217050630853",
    "7077479683546002997211712695946002074877511277312570035766170199895071832130",
    "10093483419865920389913245021038182291233451549023025229112148274109565435465",
    "4595479056700221319381530156280926371456704509942304414423590385166031118820",
    "19831328484489333784475432780421641293929726139240675179672856274388269393268",
    "11934129596455521040620786944827826205713621633706285934057045369193958244500",
    "8037395052364110730298837004334506829870972346962140206007064471173334027475" };

static const char *BLS_ALPHA[2] = {
    "2635983656263320256511463995836413167331869092392943593306076905516259749312747842295447349507189592731785901862558",
    "743892996456702519498029594549937288641619275055957975879157306988929970626325326222697609972550552691064908651931" };
static const char *BLS_BETA[4] = {
    "1296094501238138520689116246487755613076576267512760150298482409401507546730337296489670510433482825207790998397346",
    "3467549840163329914429787393326495235851806074050417925094845001935796859739058829480949031354270816778136382040361",
    "3403410200913851046378881164751590587066009874691619938225021193334979700147466129997648606538377099567064346931273",
    "3804847074485539411700684267722735363688167108429634491643293100788171321105199556340902873511607444652008144844173" };
static const char *BLS_ALPHABETA[12] = {
    "2875682627859788046787727046323207700818211438271057184016590533515641699292997693457599620936708894947724425715231",
    "1238832727101571020174962081840437018121939792461931445079462232794726384752259447129206595688503509959353794284793",
    "1142295393527745936520465586775444768688364741373237930118445421796520414741916849824256960449892474465014692624756",
    "2180077006016464788050801868062734927906767334913187269719534809313436039282935753136702491423916116028147695108113",
    "581912189975592585217934845255593126879157415518933223520266217690258707840190591176174259119561150786976644927862",
    "1496521185256234033198775390415811847166244093737149241712223242576005202124661827966889067451826629794876020037891",
    "968778761326544533347894440852946317832878172436078056438728764792716948106777133186592741979864246862480026990714",
    "3286237875677076419439678035167386721716851772116127087476697302808027553397980022598381369816552966804476744614726",
    "703046133019192877150497098682775062870944581080811653558417167836034365682308629278579084636589495681129838804552",
    "3120651492951743750811126470515331662411558962596191689455151216422711804034698152168980665082907679235009776566592",
    "3093035865177537484265129293484086930964325066660842965056946750881983192007730606218463861804151316907199193750598",
    "2217088332657331378025998358211322741524769834682072728928845130805944349335376146743275401044544953792401446016391" };
/* e(G1, G2) of BLS12-381 as blst and zkcrypto's bls12_381 compute it */
static const char *BLS_GEN_PAIRING[12] = {
    "0x1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "0x089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "0x1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "0x193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "0x01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "0x018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "0x19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "0x06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "0x11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "0x03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "0x04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0x0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631" };

#define STR2_(x) #x
#define STR_(x) STR2_(x)
#define TP_BODY 1

#define C bn254
#define C_NL 4
#define C_BYTES 32
#define C_P BN254_FP_P
#define C_R BN254_FR_P
#include "test_pairing.c"
#undef C
#undef C_NL
#undef C_BYTES
#undef C_P
#undef C_R

#define C bls381
#define C_NL 6
#define C_BYTES 48
#define C_P BLS381_FP_P
#define C_R BLS381_FR_P
#include "test_pairing.c"
#undef C
#undef C_NL
#undef C_BYTES
#undef C_P
#undef C_R

int main(int argc, char **argv)
{
    zt_init(argc, argv);

    bn254_test_kat(BN_ALPHA, BN_BETA, BN_ALPHABETA, NULL);
    bn254_test_fields();
    bn254_test_pairing();
    bls381_test_kat(BLS_ALPHA, BLS_BETA, BLS_ALPHABETA, BLS_GEN_PAIRING);
    bls381_test_fields();
    bls381_test_pairing();
    return zt_finish();
}
#endif /* ZK_TEST_HAVE_GMP */

#else /* TP_BODY: per-curve tests, C = curve prefix */

#define T_(a, b) a##_##b
#define T(a, b) T_(a, b)
#define FP T(C, fp)
#define FP2 T(C, fp2)
#define FP6 T(C, fp6)
#define FP12 T(C, fp12)
#define FR T(C, fr)
#define G1 T(C, g1)
#define G2 T(C, g2)
#define G1A T(G1, affine)
#define G2A T(G2, affine)
#define F(t, name) T(t, name)

static void T(C, tp_rand_fp)(FP *r)
{
    uint8_t b[C_BYTES];
    do {
        zt_rand_bytes(b, sizeof b);
        b[C_BYTES - 1] &= 0x1f;            /* both p are > 2^252 / 2^380 */
    } while (F(FP, from_bytes_le)(r, b) != 0);
}

static void T(C, tp_rand_fp2)(FP2 *r) { T(C, tp_rand_fp)(&r->c0); T(C, tp_rand_fp)(&r->c1); }
static void T(C, tp_rand_fp6)(FP6 *r)
{ T(C, tp_rand_fp2)(&r->c0); T(C, tp_rand_fp2)(&r->c1); T(C, tp_rand_fp2)(&r->c2); }
static void T(C, tp_rand_fp12)(FP12 *r) { T(C, tp_rand_fp6)(&r->c0); T(C, tp_rand_fp6)(&r->c1); }

/* random nonzero scalar in Fr (Montgomery form) and its plain limbs */
static void T(C, tp_rand_fr)(FR *m, limb_t plain[4])
{
    uint8_t b[32];
    FR t;
    do {
        zt_rand_bytes(b, sizeof b);
        b[31] &= 0x7f;
    } while (F(FR, from_bytes_le)(m, b) != 0 || F(FR, is_zero)(m));
    F(FR, from_mont)(&t, m);
    memcpy(plain, t.l, sizeof t.l);
}

static void T(C, tp_g1_mul)(G1A *r, const G1A *p, const limb_t *k)
{
    G1 j;
    F(G1, from_affine)(&j, p);
    F(G1, mul)(&j, &j, k, 256);
    F(G1, to_affine)(r, &j);
}

static void T(C, tp_g2_mul)(G2A *r, const G2A *p, const limb_t *k)
{
    G2 j;
    F(G2, from_affine)(&j, p);
    F(G2, mul)(&j, &j, k, 256);
    F(G2, to_affine)(r, &j);
}

static void T(C, tp_load_fp)(FP *r, const char *s)
{
    uint8_t b[C_BYTES];
    str_to_le(b, sizeof b, s);
    int rc = F(FP, from_bytes_le)(r, b);
    ZT_CHECK(rc == 0, "constant %s not < p", s);
}

static void T(C, test_kat)(const char *const alpha[2], const char *const beta[4],
                           const char *const ab[12], const char *const gen[12])
{
    G1A a;
    G2A b;
    FP12 want, got;
    FP *w = (FP *)&want;
    T(C, tp_load_fp)(&a.x, alpha[0]);
    T(C, tp_load_fp)(&a.y, alpha[1]);
    T(C, tp_load_fp)(&b.x.c0, beta[0]);
    T(C, tp_load_fp)(&b.x.c1, beta[1]);
    T(C, tp_load_fp)(&b.y.c0, beta[2]);
    T(C, tp_load_fp)(&b.y.c1, beta[3]);
    ZT_CHECK(F(G1, affine_is_on_curve)(&a) && F(G2, affine_is_on_curve)(&b), "%s", STR_(C));
    for (int i = 0; i < 12; i++)
        T(C, tp_load_fp)(&w[i], ab[i]);
    F(C, pairing)(&got, &a, &b);
    ZT_CHECK(F(FP12, eq)(&got, &want), "%s: e(alpha, beta) != snarkjs vk_alphabeta_12", STR_(C));
    if (gen) {
        F(G1, generator)(&a);
        F(G2, generator)(&b);
        for (int i = 0; i < 12; i++)
            T(C, tp_load_fp)(&w[i], gen[i]);
        F(C, pairing)(&got, &a, &b);
        ZT_CHECK(F(FP12, eq)(&got, &want), "%s: e(G1, G2) != blst", STR_(C));
    }
}

static void T(C, test_fields)(void)
{
    static const limb_t P_[C_NL] = C_P;
    mpz_t p, q;
    limb_t e[3 * C_NL];
    size_t pbits, p2bits;
    mpz_init(p);
    mpz_init(q);
    limbs_to_mpz(p, P_, C_NL);
    pbits = mpz_to_limbs(e, 3 * C_NL, p);
    ZT_CHECK(pbits > 250, "p bits %zu", pbits);

    for (int it = 0; it < 6; it++) {
        FP6 a, b, c, x, y;
        FP2 s0, s1;
        T(C, tp_rand_fp6)(&a);
        T(C, tp_rand_fp6)(&b);
        T(C, tp_rand_fp6)(&c);
        /* commutative, associative, distributive */
        F(FP6, mul)(&x, &a, &b);
        F(FP6, mul)(&y, &b, &a);
        ZT_CHECK(F(FP6, eq)(&x, &y), "fp6 mul commutes");
        F(FP6, mul)(&x, &x, &c);
        F(FP6, mul)(&y, &b, &c);
        F(FP6, mul)(&y, &a, &y);
        ZT_CHECK(F(FP6, eq)(&x, &y), "fp6 mul associative");
        F(FP6, add)(&x, &b, &c);
        F(FP6, mul)(&x, &a, &x);
        F(FP6, mul)(&y, &a, &b);
        {
            FP6 z;
            F(FP6, mul)(&z, &a, &c);
            F(FP6, add)(&y, &y, &z);
        }
        ZT_CHECK(F(FP6, eq)(&x, &y), "fp6 distributive");
        F(FP6, sqr)(&x, &a);
        F(FP6, mul)(&y, &a, &a);
        ZT_CHECK(F(FP6, eq)(&x, &y), "fp6 sqr");
        F(FP6, inv)(&x, &a);
        F(FP6, mul)(&x, &x, &a);
        ZT_CHECK(F(FP6, is_one)(&x), "fp6 inv");
        /* v^3 = xi: mul_by_v three times = mul by xi */
        F(FP6, mul_by_v)(&x, &a);
        F(FP6, mul_by_v)(&x, &x);
        F(FP6, mul_by_v)(&x, &x);
        F(FP2, mul_by_nonresidue)(&y.c0, &a.c0);
        F(FP2, mul_by_nonresidue)(&y.c1, &a.c1);
        F(FP2, mul_by_nonresidue)(&y.c2, &a.c2);
        ZT_CHECK(F(FP6, eq)(&x, &y), "fp6 v^3 = xi");
        /* sparse products */
        T(C, tp_rand_fp2)(&s0);
        T(C, tp_rand_fp2)(&s1);
        F(FP6, mul_by_01)(&x, &a, &s0, &s1);
        F(FP6, zero)(&b);
        b.c0 = s0;
        b.c1 = s1;
        F(FP6, mul)(&y, &a, &b);
        ZT_CHECK(F(FP6, eq)(&x, &y), "fp6 mul_by_01");
        F(FP6, mul_by_1)(&x, &a, &s1);
        F(FP6, zero)(&b);
        b.c1 = s1;
        F(FP6, mul)(&y, &a, &b);
        ZT_CHECK(F(FP6, eq)(&x, &y), "fp6 mul_by_1");
    }

    mpz_mul(q, p, p);
    p2bits = mpz_to_limbs(e + C_NL, 2 * C_NL, q);   /* e + C_NL holds p^2 */
    for (int it = 0; it < 3; it++) {
        FP12 a, b, c, x, y, z;
        FP2 l0, l1, l2;
        T(C, tp_rand_fp12)(&a);
        T(C, tp_rand_fp12)(&b);
        T(C, tp_rand_fp12)(&c);
        F(FP12, mul)(&x, &a, &b);
        F(FP12, mul)(&y, &b, &a);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 mul commutes");
        F(FP12, mul)(&x, &x, &c);
        F(FP12, mul)(&y, &b, &c);
        F(FP12, mul)(&y, &a, &y);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 mul associative");
        F(FP12, add)(&x, &b, &c);
        F(FP12, mul)(&x, &a, &x);
        F(FP12, mul)(&y, &a, &b);
        F(FP12, mul)(&z, &a, &c);
        F(FP12, add)(&y, &y, &z);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 distributive");
        F(FP12, sub)(&x, &y, &z);
        F(FP12, neg)(&z, &z);
        F(FP12, add)(&y, &y, &z);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 sub/neg");
        F(FP12, sqr)(&x, &a);
        F(FP12, mul)(&y, &a, &a);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 sqr");
        F(FP12, inv)(&x, &a);
        F(FP12, mul)(&x, &x, &a);
        ZT_CHECK(F(FP12, is_one)(&x), "fp12 inv");
        /* w^2 = v: (0 + 1 w)^2 = v */
        F(FP12, zero)(&x);
        F(FP2, one)(&x.c1.c0);
        F(FP12, sqr)(&x, &x);
        F(FP12, zero)(&y);
        F(FP2, one)(&y.c0.c1);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 w^2 = v");
        /* Frobenius against exponentiation */
        F(FP12, frobenius)(&x, &a, 1);
        F(FP12, pow)(&y, &a, e, pbits);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 frobenius 1 = a^p");
        F(FP12, frobenius)(&x, &a, 2);
        F(FP12, pow)(&y, &a, e + C_NL, p2bits);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 frobenius 2 = a^(p^2)");
        F(FP12, frobenius)(&y, &a, 1);
        F(FP12, frobenius)(&y, &y, 1);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 frobenius 2 = 1 o 1");
        F(FP12, frobenius)(&x, &a, 3);
        F(FP12, frobenius)(&y, &y, 1);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 frobenius 3 = 1 o 1 o 1");
        F(FP12, frobenius)(&x, &x, 3);
        F(FP12, conj)(&y, &a);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 conj = frobenius 6");
        /* sparse line products */
        T(C, tp_rand_fp2)(&l0);
        T(C, tp_rand_fp2)(&l1);
        T(C, tp_rand_fp2)(&l2);
        F(FP12, mul_by_034)(&x, &a, &l0, &l1, &l2);
        F(FP12, zero)(&z);
        z.c0.c0 = l0;
        z.c1.c0 = l1;
        z.c1.c1 = l2;
        F(FP12, mul)(&y, &a, &z);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 mul_by_034");
        F(FP12, mul_by_014)(&x, &a, &l0, &l1, &l2);
        F(FP12, zero)(&z);
        z.c0.c0 = l0;
        z.c0.c1 = l1;
        z.c1.c1 = l2;
        F(FP12, mul)(&y, &a, &z);
        ZT_CHECK(F(FP12, eq)(&x, &y), "fp12 mul_by_014");
        /* cyclotomic subgroup: c = a^((p^6 - 1)(p^2 + 1)) */
        F(FP12, inv)(&x, &a);
        F(FP12, conj)(&c, &a);
        F(FP12, mul)(&c, &c, &x);
        F(FP12, frobenius)(&x, &c, 2);
        F(FP12, mul)(&c, &c, &x);
        F(FP12, cyclotomic_sqr)(&x, &c);
        F(FP12, sqr)(&y, &c);
        ZT_CHECK(F(FP12, eq)(&x, &y), "cyclotomic sqr");
        F(FP12, conj)(&x, &c);
        F(FP12, mul)(&x, &x, &c);
        ZT_CHECK(F(FP12, is_one)(&x), "conj = inverse on the cyclotomic subgroup");
        {
            limb_t k[2] = { zt_rand64(), zt_rand64() };
            F(FP12, cyclotomic_pow)(&x, &c, k, 128);
            F(FP12, pow)(&y, &c, k, 128);
            ZT_CHECK(F(FP12, eq)(&x, &y), "cyclotomic pow");
        }
    }
    mpz_clear(p);
    mpz_clear(q);
}

static void T(C, test_pairing)(void)
{
    static const limb_t R_[4] = C_R;
    G1A g1, P, aP, abP, nP;
    G2A g2, Q, bQ;
    FR a, b, ab;
    limb_t ka[4], kb[4], kab[4];
    FP12 e, x, y;

    F(G1, generator)(&g1);
    F(G2, generator)(&g2);
    /* non-degenerate, order r */
    F(C, pairing)(&e, &g1, &g2);
    ZT_CHECK(!F(FP12, is_one)(&e), "%s: e(G1, G2) = 1", STR_(C));
    F(FP12, pow)(&x, &e, R_, 256);
    ZT_CHECK(F(FP12, is_one)(&x), "%s: e(G1, G2)^r != 1", STR_(C));
    F(C, miller_loop)(&x, &g1, &g2);
    F(C, final_exp)(&x, &x);
    ZT_CHECK(F(FP12, eq)(&x, &e), "%s: final_exp(miller_loop) != pairing", STR_(C));

    /* bilinearity on random points P = sG1, Q = tG2 */
    for (int it = 0; it < 2; it++) {
        T(C, tp_rand_fr)(&a, ka);
        T(C, tp_g1_mul)(&P, &g1, ka);
        T(C, tp_rand_fr)(&a, ka);
        T(C, tp_g2_mul)(&Q, &g2, ka);
        T(C, tp_rand_fr)(&a, ka);
        T(C, tp_rand_fr)(&b, kb);
        F(FR, mul)(&ab, &a, &b);
        {
            FR t;
            F(FR, from_mont)(&t, &ab);
            memcpy(kab, t.l, sizeof kab);
        }
        T(C, tp_g1_mul)(&aP, &P, ka);
        T(C, tp_g2_mul)(&bQ, &Q, kb);
        T(C, tp_g1_mul)(&abP, &P, kab);
        F(C, pairing)(&e, &P, &Q);
        F(FP12, pow)(&y, &e, kab, 256);
        F(C, pairing)(&x, &aP, &bQ);
        ZT_CHECK(F(FP12, eq)(&x, &y), "%s: e(aP, bQ) != e(P, Q)^(ab)", STR_(C));
        F(C, pairing)(&x, &abP, &Q);
        ZT_CHECK(F(FP12, eq)(&x, &y), "%s: e(abP, Q) != e(P, Q)^(ab)", STR_(C));

        /* e(aP, bQ) e(-abP, Q) = 1; perturbed: not 1 */
        {
            G1A ps[2];
            G2A qs[2];
            ps[0] = aP;
            qs[0] = bQ;
            F(G1, affine_neg)(&ps[1], &abP);
            qs[1] = Q;
            ZT_CHECK(F(C, pairing_product_is_one)(ps, qs, 2) == 1, "%s: groth16-like", STR_(C));
            ps[1] = abP;
            ZT_CHECK(F(C, pairing_product_is_one)(ps, qs, 2) == 0, "%s: perturbed", STR_(C));
        }
    }

    /* e(P, Q) e(-P, Q) = 1 */
    {
        G1A ps[2];
        G2A qs[2] = { Q, Q };
        ps[0] = P;
        F(G1, affine_neg)(&nP, &P);
        ps[1] = nP;
        ZT_CHECK(F(C, pairing_product_is_one)(ps, qs, 2) == 1, "%s: e(P,Q) e(-P,Q)", STR_(C));
        ZT_CHECK(F(C, pairing_product_is_one)(ps, qs, 0) == 1, "%s: empty product", STR_(C));
    }

    /* product of 11 pairs (more than one chunk of 8), 3 with infinity */
    {
        enum { N = 11 };
        G1A ps[N];
        G2A qs[N];
        FP12 want, got, t;
        F(FP12, one)(&want);
        for (int i = 0; i < N; i++) {
            T(C, tp_rand_fr)(&a, ka);
            T(C, tp_g1_mul)(&ps[i], &g1, ka);
            T(C, tp_rand_fr)(&a, ka);
            T(C, tp_g2_mul)(&qs[i], &g2, ka);
            if (i == 2)
                memset(&ps[i], 0, sizeof ps[i]);
            if (i == 5)
                memset(&qs[i], 0, sizeof qs[i]);
            if (i == 9) {
                memset(&ps[i], 0, sizeof ps[i]);
                memset(&qs[i], 0, sizeof qs[i]);
            }
            if (i == 2 || i == 5 || i == 9) {
                F(C, pairing)(&t, &ps[i], &qs[i]);
                ZT_CHECK(F(FP12, is_one)(&t), "%s: pairing with infinity != 1", STR_(C));
                continue;
            }
            F(C, pairing)(&t, &ps[i], &qs[i]);
            F(FP12, mul)(&want, &want, &t);
        }
        F(C, pairing_product)(&got, ps, qs, N);
        ZT_CHECK(F(FP12, eq)(&got, &want), "%s: product of 11", STR_(C));
    }
}

#undef T_
#undef T
#undef FP
#undef FP2
#undef FP6
#undef FP12
#undef FR
#undef G1
#undef G2
#undef G1A
#undef G2A
#undef F

#endif /* TP_BODY */

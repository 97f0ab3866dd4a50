/*
 * test_bellperson.c -- the parts of common/bellperson/ that bellperson
 * itself does not test through tests/bellperson/test_oracle.sh:
 *  - the index map onto zkslot's NTT: 7^((r-1)/2^L) = w_L^(k mod 2^L) for
 *    zkslot's root w_L at every L, k odd;
 *  - the .bpa reader's refusals (magic, version, counts, length, a value
 *    >= r, input 0 not ONE, density bits past the end) and its in-place and
 *    copied reads;
 *  - the .vk reader on a key made here (generator multiples): accepted,
 *    and refused when truncated, with a trailing byte, with the point at
 *    infinity, with a flag bit flipped;
 *  - a proof with a between-steps hook (gpud's urgent partitions), its
 *    multiplications in steps of a few points: the same bytes as without,
 *    the hook called at every step, and a proof made inside the hook (one
 *    level, as gpud nests one) the same as alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bellperson/bp_internal.h"
#include "zk/ec.h"
#include "zk/error.h"
#include "zk/ntt.h"
#include "zktest.h"

static void test_root_map(void)
{
    static const limb_t P[4] = { 0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL };
    uint64_t k = zk_bp_root_multiplier();
    ZT_CHECK((k & 1) == 1 && k < (1ULL << 32), "k = %llu: odd, below 2^32", (unsigned long long)k);
    for (unsigned L = 1; L <= BLS381_FR_TWO_ADICITY; L++) {
        /* e = (r - 1) / 2^L */
        limb_t e[4];
        for (int i = 0; i < 4; i++) {
            e[i] = P[i] >> L;
            if (i < 3)
                e[i] |= P[i + 1] << (64 - L);
        }
        bls381_fr seven, w7, w5, x;
        bls381_fr_from_u64(&seven, 7);
        bls381_fr_pow(&w7, &seven, e, 256);
        bls381_fr_root_of_unity(&w5, L);
        limb_t kk[4] = { k & ((1ULL << L) - 1), 0, 0, 0 };
        bls381_fr_pow(&x, &w5, kk, 64);
        ZT_CHECK(bls381_fr_eq(&x, &w7), "L = %u: w5^k != 7^((r-1)/2^L)", L);
    }
}

/* A .bpa of ni inputs, na aux, nc constraints, values i+1, all bits set. */
static uint8_t *make_bpa(uint64_t ni, uint64_t na, uint64_t nc, size_t *len)
{
    uint64_t wa = (na + 63) / 64, wi = (ni + 63) / 64;
    size_t n = 40 + 32 * (ni + na + 3 * nc) + 8 * (2 * wa + wi);
    uint8_t *b = calloc(1, n + 8);
    uint32_t v = 1, f = 0;
    memcpy(b, ZK_BPA_MAGIC, 8);
    memcpy(b + 8, &v, 4);
    memcpy(b + 12, &f, 4);
    memcpy(b + 16, &ni, 8);
    memcpy(b + 24, &na, 8);
    memcpy(b + 32, &nc, 8);
    for (uint64_t i = 0; i < ni + na + 3 * nc; i++)
        b[40 + 32 * i] = (uint8_t)(i + 1);
    b[40] = 1;                      /* input 0 = ONE */
    uint64_t *bits = (uint64_t *)(b + 40 + 32 * (ni + na + 3 * nc));
    for (uint64_t i = 0; i < na; i++)
        bits[i / 64] |= 1ULL << (i % 64), bits[wa + wi + i / 64] |= 1ULL << (i % 64);
    for (uint64_t i = 0; i < ni; i++)
        bits[wa + i / 64] |= 1ULL << (i % 64);
    *len = n;
    return b;
}

static int parse(const uint8_t *b, size_t len, struct zk_diag *d)
{
    zk_bp_assignment *as = NULL;
    int rc = zk_bp_assignment_parse(b, len, "t.bpa", &as, d);
    zk_bp_assignment_free(as);
    return rc;
}

static void test_bpa(void)
{
    struct zk_diag d = { "" };
    size_t len;
    uint8_t *b = make_bpa(3, 70, 80, &len), *u = malloc(len + 1);
    zk_bp_assignment *as = NULL;

    ZT_CHECK(zk_bp_assignment_parse(b, len, "t.bpa", &as, &d) == 0, "parse: %s", d.msg);
    ZT_CHECK(as && as->n_inputs == 3 && as->n_aux == 70 && as->n_constraints == 80 &&
             as->pop_a_aux == 70 && as->pop_b_input == 3 && as->pop_b_aux == 70 &&
             as->own == NULL && as->aux[0].l[0] == 4, "counts, in place");
    zk_bp_assignment_free(as);
    memcpy(u + 1, b, len);          /* unaligned: read from a copy */
    ZT_CHECK(zk_bp_assignment_parse(u + 1, len, "t.bpa", &as, &d) == 0 && as->own != NULL &&
             as->c[79].l[0] == (uint8_t)(3 + 70 + 240), "unaligned copy: %s", d.msg);
    zk_bp_assignment_free(as);

    ZT_CHECK(parse(b, 39, &d) == ZK_ETRUNCATED, "short header: %s", d.msg);
    ZT_CHECK(parse(b, len - 1, &d) == ZK_ETRUNCATED && strstr(d.msg, "t.bpa"), "truncated: %s", d.msg);
    b[len] = 0;
    ZT_CHECK(parse(b, len + 1, &d) == ZK_ELENGTH, "a trailing byte: %s", d.msg);
    b[0] ^= 1;
    ZT_CHECK(parse(b, len, &d) == ZK_EBADMAGIC, "magic: %s", d.msg);
    b[0] ^= 1;
    b[8] = 2;
    ZT_CHECK(parse(b, len, &d) == ZK_EVERSION, "version: %s", d.msg);
    b[8] = 1;
    b[40] = 2;
    ZT_CHECK(parse(b, len, &d) == ZK_EFORMAT && strstr(d.msg, "ONE"), "input 0: %s", d.msg);
    b[40] = 1;
    memset(b + 40 + 32 * 5, 0xff, 32);          /* aux 2 >= r */
    ZT_CHECK(parse(b, len, &d) == ZK_ENOT_CANONICAL && strstr(d.msg, "aux value 2"),
             "value >= r: %s", d.msg);
    memset(b + 40 + 32 * 5, 0, 32);
    uint64_t *bits = (uint64_t *)(b + 40 + 32 * (3 + 70 + 240));
    bits[1] |= 1ULL << 10;                      /* a_aux bit 74 of 70 */
    ZT_CHECK(parse(b, len, &d) == ZK_EFORMAT && strstr(d.msg, "a_aux"), "bits past: %s", d.msg);
    bits[1] &= ~(1ULL << 10);
    uint64_t nc = 2;                             /* fewer constraints than inputs */
    memcpy(b + 32, &nc, 8);
    ZT_CHECK(parse(b, len, &d) == ZK_ELENGTH, "constraints < inputs: %s", d.msg);
    free(b);
    free(u);
}

static void g1_at(uint8_t *out, uint64_t k)
{
    bls381_g1_affine g, a;
    bls381_g1 p;
    limb_t s[4] = { k, 0, 0, 0 };
    bls381_g1_generator(&g);
    bls381_g1_from_affine(&p, &g);
    bls381_g1_mul(&p, &p, s, 64);
    bls381_g1_to_affine(&a, &p);
    bls381_g1_to_uncompressed(out, &a);
}

static void g2_at(uint8_t *out, uint64_t k)
{
    bls381_g2_affine g, a;
    bls381_g2 p;
    limb_t s[4] = { k, 0, 0, 0 };
    bls381_g2_generator(&g);
    bls381_g2_from_affine(&p, &g);
    bls381_g2_mul(&p, &p, s, 64);
    bls381_g2_to_affine(&a, &p);
    bls381_g2_to_uncompressed(out, &a);
}

static void test_vk(void)
{
    uint8_t vk[96 * 3 + 192 * 3 + 4 + 96 * 2 + 1];
    size_t n = sizeof vk - 1, o = 0;
    struct zk_diag d = { "" };
    zk_bp_vk *v = NULL;

    g1_at(vk + o, 2), o += 96;          /* alpha_g1 */
    g1_at(vk + o, 3), o += 96;          /* beta_g1 */
    g2_at(vk + o, 3), o += 192;         /* beta_g2 */
    g2_at(vk + o, 5), o += 192;         /* gamma_g2 */
    g1_at(vk + o, 7), o += 96;          /* delta_g1 */
    g2_at(vk + o, 7), o += 192;         /* delta_g2 */
    memcpy(vk + o, "\0\0\0\2", 4), o += 4;
    g1_at(vk + o, 11), o += 96;
    g1_at(vk + o, 13), o += 96;
    ZT_CHECK(o == n, "layout %zu", o);
    ZT_CHECK(zk_bp_vk_open_mem(vk, n, "t.vk", &v, &d) == 0 && zk_bp_vk_n_public(v) == 1,
             "vk: %s", d.msg);
    zk_bp_vk_close(v);
    ZT_CHECK(zk_bp_vk_open_mem(vk, n - 1, "t.vk", &v, &d) == ZK_ETRUNCATED &&
             strstr(d.msg, "t.vk") && strstr(d.msg, "ic"), "truncated: %s", d.msg);
    vk[n] = 0;
    ZT_CHECK(zk_bp_vk_open_mem(vk, n + 1, "t.vk", &v, &d) == ZK_EFORMAT, "trailing: %s", d.msg);
    vk[0] |= 0x20;                                  /* sign flag on an uncompressed point */
    ZT_CHECK(zk_bp_vk_open_mem(vk, n, "t.vk", &v, &d) == ZK_EBAD_ENCODING &&
             strstr(d.msg, "alpha_g1"), "flag: %s", d.msg);
    vk[0] &= ~0x20;
    memset(vk + 96, 0, 96);
    vk[96] = 0x40;                                  /* beta_g1 = infinity */
    ZT_CHECK(zk_bp_vk_open_mem(vk, n, "t.vk", &v, &d) == ZK_EBAD_ENCODING &&
             strstr(d.msg, "beta_g1"), "infinity: %s", d.msg);
    g1_at(vk + 96, 3);
    memset(vk + n - 96, 0, 96);
    vk[n - 96] = 0x40;                              /* ic 1 = infinity */
    ZT_CHECK(zk_bp_vk_open_mem(vk, n, "t.vk", &v, &d) == ZK_EBAD_ENCODING &&
             strstr(d.msg, "ic point 1"), "ic infinity: %s", d.msg);
}

struct hooked {
    const zk_bp_key *k;
    const zk_bp_assignment *as;
    unsigned calls, inner;
    int nested_rc;
    uint8_t nested[ZK_BP_PROOF_BYTES];
};

static void count_step(void *ctx)
{
    struct hooked *h = ctx;
    struct zk_diag d = { "" };
    uint8_t r[32] = { 9 }, s[32] = { 10 };
    if (h->inner) {                      /* the nested proof's own steps */
        h->inner++;
        return;
    }
    if (++h->calls == 3) {               /* one proof in between, as gpud does */
        h->inner = 1;
        h->nested_rc = zk_bp_prove(h->k, h->as, r, s, 1, h->nested, &d);
        h->inner = 0;
    }
}

static void test_between(void)
{
    const char *src = getenv("ZK_SOURCE_DIR");
    char kp[512], ap[512];
    struct zk_diag d = { "" };
    zk_bp_key *k = NULL;
    zk_bp_assignment *as = NULL;
    uint8_t r[32] = { 3 }, s[32] = { 4 }, r2[32] = { 9 }, s2[32] = { 10 };
    uint8_t plain[ZK_BP_PROOF_BYTES], hooked[ZK_BP_PROOF_BYTES], alone[ZK_BP_PROOF_BYTES];
    if (!src) {
        ZT_CHECK(0, "ZK_SOURCE_DIR is not set (ctest sets it)");
        return;
    }
    snprintf(kp, sizeof kp, "%s/tests/fuzz/corpus/bellperson/chain32.params", src);
    snprintf(ap, sizeof ap, "%s/tests/fuzz/corpus/bellperson/chain32.bpa", src);
    if (zk_bp_key_open(kp, &k, &d) || zk_bp_assignment_open(ap, &as, &d)) {
        ZT_CHECK(0, "chain32: %s", d.msg);
        goto out;
    }
    ZT_CHECK(zk_bp_prove(k, as, r, s, 1, plain, &d) == 0, "plain: %s", d.msg);
    ZT_CHECK(zk_bp_prove(k, as, r2, s2, 1, alone, &d) == 0, "alone: %s", d.msg);
    struct hooked h = { k, as, 0, 0, -1, { 0 } };
    zk_bp_set_steps(3, 2);
    zk_bp_set_between(count_step, &h);
    ZT_CHECK(zk_bp_prove(k, as, r, s, 2, hooked, &d) == 0, "hooked: %s", d.msg);
    zk_bp_set_between(NULL, NULL);
    zk_bp_set_steps(0, 0);
    ZT_CHECK(!memcmp(plain, hooked, sizeof plain), "a proof in steps differs from the plain one");
    /* each NTT, each multiplication, and its steps of 3 (G1) or 2 (G2) points */
    ZT_CHECK(h.calls > 20, "the hook was called %u times", h.calls);
    ZT_CHECK(h.nested_rc == 0 && !memcmp(h.nested, alone, sizeof alone),
             "the proof made inside the hook: rc %d, %s", h.nested_rc,
             h.nested_rc ? d.msg : "differs from the same proof alone");
out:
    zk_bp_assignment_free(as);
    zk_bp_key_close(k);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    test_root_map();
    test_bpa();
    test_vk();
    test_between();
    return zt_finish();
}

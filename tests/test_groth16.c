/*
 * test_groth16.c -- the Groth16 prover and verifier (common/groth16) without
 * snarkjs: hand-built R1CS and zkeys from known toxic waste, proofs checked
 * against the textbook formulas evaluated directly in Fr (no NTT, no MSM),
 * for r = s = 0, chosen r, s and getrandom r, s, on both curves; the split
 * start/finalize API with inputs freed in between; the verifier on valid,
 * tampered, out-of-range and off-curve inputs; JSON round trips and
 * snarkjs's curve-name rules.  Body per curve: groth16_test_tmpl.h.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ec/curves.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/ntt.h"
#include "zk/zkey.h"
#include "zktest.h"

/* A growable byte buffer for laying out zkey files. */
struct zbuf {
    uint8_t *buf;
    size_t len, cap;
    int oom;
};

static uint8_t *zb_room(struct zbuf *b, size_t n)
{
    static uint8_t sink[256];
    if (b->oom)
        return sink;
    if (b->len + n > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 4096;
        while (nc < b->len + n)
            nc *= 2;
        uint8_t *nb = realloc(b->buf, nc);
        if (!nb) {
            b->oom = 1;
            return sink;
        }
        b->buf = nb;
        b->cap = nc;
    }
    b->len += n;
    return b->buf + b->len - n;
}

static void zb_bytes(struct zbuf *b, const void *p, size_t n) { memcpy(zb_room(b, n), p, n); }
static void zb_u32(struct zbuf *b, uint32_t v) { zb_bytes(b, &v, 4); }

static size_t zb_sec_begin(struct zbuf *b, uint32_t id)
{
    uint64_t z = 0;
    zb_u32(b, id);
    zb_bytes(b, &z, 8);
    return b->len;
}

static void zb_sec_end(struct zbuf *b, size_t at)
{
    uint64_t size = b->len - at;
    if (!b->oom)
        memcpy(b->buf + at - 8, &size, 8);
}

/*                       curve   enum zk_curve       (groth16_test_tmpl.h) */
#define ZK_G16_TEST_TMPL (bn254,  ZK_CURVE_BN254)
#include "groth16_test_tmpl.h"
#define ZK_G16_TEST_TMPL (bls381, ZK_CURVE_BLS12_381)
#include "groth16_test_tmpl.h"

/* snarkjs's vk "curve" rules and malformed documents. */
static void test_json_rules(void)
{
    static const char *vk_fmt =
        "{\"curve\": \"%s\", \"vk_alpha_1\": [\"1\", \"2\", \"1\"],"
        " \"vk_beta_2\": [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],"
        " \"vk_gamma_2\": [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],"
        " \"vk_delta_2\": [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]],"
        " \"IC\": [[\"1\",\"2\",\"1\"], [\"0\",\"1\",\"0\"]]}";
    static const struct { const char *name; int rc; enum zk_curve c; } cases[] = {
        { "bn128", 0, ZK_CURVE_BN254 },       { "BN254", 0, ZK_CURVE_BN254 },
        { "alt_bn128", 0, ZK_CURVE_BN254 },   { "bls12381", ZK_ENOT_CANONICAL, 0 },
        { "secp256k1", ZK_ECURVE, 0 },
    };
    char text[1024];
    struct zk_diag d;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct zk_groth16_vk vk;
        memset(&vk, 0, sizeof vk);
        snprintf(text, sizeof text, vk_fmt, cases[i].name);
        int rc = zk_groth16_vk_from_json(text, "vk.json", &vk, &d);
        if (cases[i].rc == ZK_ENOT_CANONICAL) {
            /* (1, 2) is the BN254 generator; on BLS12-381 it is off the curve,
             * which the parser does not check: only that it parses */
            ZT_CHECK(rc == 0, "%s: %d", cases[i].name, rc);
        } else {
            ZT_CHECK(rc == cases[i].rc, "%s: rc %d want %d (%s)", cases[i].name, rc,
                     cases[i].rc, d.msg);
        }
        if (rc == 0 && cases[i].rc == 0) {
            ZT_CHECK(vk.curve == cases[i].c && vk.n_public == 1);
            ZT_CHECK(vk.ic[1][0] == 0 && vk.ic[1][1] == 0, "IC[1] infinity");
        }
        zk_groth16_vk_done(&vk);
    }
    /* Jacobian z: (x z^2, y z^3, z) with z = 2 is the generator (1, 2) */
    {
        struct zk_groth16_proof a, b;
        const char *p1 = "{\"pi_a\": [\"1\",\"2\",\"1\"], \"pi_b\": [[\"0\",\"0\"],[\"1\",\"0\"],"
                         "[\"0\",\"0\"]], \"pi_c\": [\"1\",\"2\"]}";
        const char *p2 = "{\"pi_a\": [\"4\",\"16\",\"2\"], \"pi_b\": [[\"0\",\"0\"],[\"1\",\"0\"],"
                         "[\"0\",\"0\"]], \"pi_c\": [\"1\",\"2\",\"1\"]}";
        ZT_CHECK(zk_groth16_proof_from_json(p1, ZK_CURVE_BN254, "p1", &a, &d) == 0, "%s", d.msg);
        ZT_CHECK(zk_groth16_proof_from_json(p2, ZK_CURVE_BN254, "p2", &b, &d) == 0, "%s", d.msg);
        ZT_CHECK(!memcmp(a.pi_a, b.pi_a, sizeof a.pi_a) && !memcmp(a.pi_c, b.pi_c, sizeof a.pi_c),
                 "Jacobian z / missing z");
        ZT_CHECK(zk_groth16_proof_from_json("{\"pi_a\": 1}", ZK_CURVE_BN254, "p", &a, &d) ==
                 ZK_EJSON);
        ZT_CHECK(zk_groth16_proof_from_json("[", ZK_CURVE_BN254, "p", &a, &d) == ZK_EJSON);
        ZT_CHECK(strstr(d.msg, "p:") == d.msg, "diag names the file: %s", d.msg);
    }
    {
        zk_scalar *pub = NULL;
        size_t n = 0;
        ZT_CHECK(zk_groth16_public_from_json("[\"1\", 2, \"-3\"]", "pub", &pub, &n, &d) ==
                 ZK_EJSON);
        ZT_CHECK(zk_groth16_public_from_json(
                     "[\"115792089237316195423570985008687907853269984665640564039457584007913129639936\"]",
                     "pub", &pub, &n, &d) == ZK_EJSON, "2^256 rejected");
        ZT_CHECK(zk_groth16_public_from_json("[\"1\", 2]", "pub", &pub, &n, &d) == 0 && n == 2 &&
                 pub[0].l[0] == 1 && pub[1].l[0] == 2);
        free(pub);
    }
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    test_json_rules();
    bn254_run(10, 8, 2);
    bls381_run(10, 8, 2);
    bn254_run(100, 40, 5);
    bls381_run(60, 30, 3);
    return zt_finish();
}

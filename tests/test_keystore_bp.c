/*
 * test_keystore_bp.c -- a bellperson key in the key store (zk/keystore.h:
 * zk_keystore_create_bp, zk_keystore_bp_key; docs/keystore.md, "Bellperson
 * keys"), with the fuzz corpus's small chain key, in a private directory on
 * /dev/shm:
 *   - round trip: the store's header says format bellperson and the key's
 *     counts; a key over the store proves exactly what the file's key
 *     proves with the same r and s (so every point and the vk came back),
 *     and the proof verifies with the store key's vk;
 *   - the two kinds of store are not mixed up: zk_keystore_key refuses a
 *     bellperson store and zk_keystore_bp_key a .zkey's, one line each;
 *   - refusals at open, one line naming the file: a head whose count of h
 *     is not 2^k - 1, a format number this build does not know.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keystore/format.h"
#include "zk/bellperson.h"
#include "zk/error.h"
#include "zk/keystore.h"
#include "zk/zkey.h"
#include "zktest.h"

#define HASH "00112233445566778899aabbccddeeff"

static char dir[64];

static int diag_says(const struct zk_diag *d, const char *path, const char *what)
{
    return strstr(d->msg, path) && strstr(d->msg, what) && !strchr(d->msg, '\n');
}

/* A copy of src as dst with len bytes at off replaced. */
static void copy_patched(const char *src, const char *dst, off_t off, const void *b, size_t len)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 0644 '%s'", src, dst, dst);
    ZT_REQUIRE(system(cmd) == 0, , "%s", cmd);
    int fd = open(dst, O_WRONLY);
    ZT_REQUIRE(fd >= 0 && pwrite(fd, b, len, off) == (ssize_t)len, , "%s", dst);
    close(fd);
}

static void test_round_trip(const char *params, const char *bpa, const char *path)
{
    struct zk_diag d = { "" };
    zk_bp_key *fk = NULL, *sk = NULL;
    zk_bp_assignment *as = NULL;
    zk_keystore *s = NULL;
    struct zk_groth16_key *gk = NULL;
    uint8_t r[32], sc[32], p1[ZK_BP_PROOF_BYTES], p2[ZK_BP_PROOF_BYTES];
    ZT_REQUIRE(zk_bp_key_open(params, &fk, &d) == 0, , "%s", d.msg);
    ZT_REQUIRE(zk_bp_assignment_open(bpa, &as, &d) == 0, , "%s", d.msg);
    ZT_CHECK(zk_keystore_create_bp(path, HASH, fk, &d) == 0, "%s", d.msg);
    ZT_CHECK(zk_keystore_create_bp(path, HASH, fk, &d) == -EEXIST && diag_says(&d, path, "already"));
    ZT_REQUIRE(zk_keystore_open(path, HASH, 0, &s, &d) == 0, , "%s", d.msg);
    const struct zk_keystore_info *in = zk_keystore_info(s);
    struct zk_bp_key_info fi;
    zk_bp_key_get_info(fk, &fi);
    ZT_CHECK(in->key_format == ZK_KEY_BELLPERSON && in->bp.n_ic == fi.n_ic &&
             in->bp.n_h == fi.n_h && in->bp.n_l == fi.n_l && in->bp.n_a == fi.n_a &&
             in->bp.n_b_g1 == fi.n_b_g1 && in->bp.log2_domain == fi.log2_domain &&
             in->zh.n_vars == fi.n_ic + fi.n_l && in->zh.domain_size == fi.n_h + 1);
    ZT_CHECK(zk_keystore_key(s, NULL, &gk, &d) == ZK_EFORMAT &&
             diag_says(&d, path, "not a .zkey's"), "%s", d.msg);
    ZT_REQUIRE(zk_keystore_bp_key(s, &sk, &d) == 0, , "%s", d.msg);   /* sk owns s */
    zt_rand_bytes(r, 32);
    zt_rand_bytes(sc, 32);
    r[31] &= 0x3f;
    sc[31] &= 0x3f;
    ZT_CHECK(zk_bp_prove(fk, as, r, sc, 1, p1, &d) == 0, "%s", d.msg);
    ZT_CHECK(zk_bp_prove(sk, as, r, sc, 1, p2, &d) == 0, "%s", d.msg);
    ZT_CHECK(memcmp(p1, p2, sizeof p1) == 0, "the store key's proof differs from the file's");
    uint8_t pub[32 * 8];
    uint64_t np = zk_bp_assignment_n_inputs(as) - 1;
    for (uint64_t i = 0; i < np && i < 8; i++)
        memcpy(pub + 32 * i, zk_bp_assignment_input(as, i + 1), 32);
    ZT_CHECK(np <= 8 && zk_bp_verify(zk_bp_key_vk(sk), pub, np, p2, &d) == 1, "%s", d.msg);
    ZT_CHECK(zk_bp_vk_same(zk_bp_key_vk(sk), zk_bp_key_vk(fk)));
    zk_bp_key_close(sk);
    zk_bp_key_close(fk);
    zk_bp_assignment_free(as);
}

static void test_refusals(const char *path)
{
    struct zk_diag d = { "" };
    zk_keystore *s = NULL;
    char bad[128];
    uint32_t v = 1000;                    /* h: 1000 points, not 2^k - 1 */
    snprintf(bad, sizeof bad, "%s/bad-h", dir);
    copy_patched(path, bad, KS_ZH_OFF + offsetof(struct zk_bp_key_head, info.n_h), &v, 4);
    ZT_CHECK(zk_keystore_open(bad, HASH, 0, &s, &d) == ZK_EFORMAT &&
             diag_says(&d, bad, "inconsistent header"), "%s", d.msg);
    zk_keystore_close(s);
    s = NULL;
    v = 7;                                /* a key format this build does not know */
    snprintf(bad, sizeof bad, "%s/bad-format", dir);
    copy_patched(path, bad, offsetof(struct ks_hdr, key_format), &v, 4);
    ZT_CHECK(zk_keystore_open(bad, HASH, 0, &s, &d) == ZK_EFORMAT &&
             diag_says(&d, bad, "another layout"), "%s", d.msg);
    zk_keystore_close(s);
}

/* A .zkey's store is not a bellperson key's. */
static void test_zkey_store(void)
{
    struct zk_zkey z;
    struct zk_diag d = { "" };
    struct zk_groth16_key *k = NULL;
    struct zk_groth16_load_opts o = { ZK_G16_LOAD_POINTS, NULL, NULL, 0 };
    zk_keystore *s = NULL;
    zk_bp_key *bk = NULL;
    char zpath[512], path[128];
    snprintf(zpath, sizeof zpath, "%s/examples/groth16/bls12381/key.zkey", getenv("ZK_SOURCE_DIR"));
    snprintf(path, sizeof path, "%s/zkey-store", dir);
    memset(&z, 0, sizeof z);
    ZT_REQUIRE(zk_zkey_open(&z, zpath, &d) == 0, , "%s", d.msg);
    ZT_REQUIRE(zk_groth16_key_load_opts(&z, &o, &d, &k) == 0, , "%s", d.msg);
    zk_zkey_done(&z);
    ZT_CHECK(zk_keystore_create(path, HASH, k, ZK_KEYSTORE_TABLES_NONE, &d) == 0, "%s", d.msg);
    zk_groth16_key_free(k);
    ZT_REQUIRE(zk_keystore_open(path, HASH, 0, &s, &d) == 0, , "%s", d.msg);
    ZT_CHECK(zk_keystore_info(s)->key_format == ZK_KEY_ZKEY);
    ZT_CHECK(zk_keystore_bp_key(s, &bk, &d) == ZK_EFORMAT &&
             diag_says(&d, path, "not a bellperson key's"), "%s", d.msg);
    zk_keystore_close(s);
}

int main(int argc, char **argv)
{
    char params[512], bpa[512], path[128];
    zt_init(argc, argv);
    if (!getenv("ZK_SOURCE_DIR"))
        zt_skip("ZK_SOURCE_DIR not set (run through ctest)");
    snprintf(dir, sizeof dir, "/dev/shm/zkslot-test-keystore-bp-XXXXXX");
    if (!mkdtemp(dir))
        zt_skip("no /dev/shm");
    snprintf(params, sizeof params, "%s/tests/fuzz/corpus/bellperson/chain16.params",
             getenv("ZK_SOURCE_DIR"));
    snprintf(bpa, sizeof bpa, "%s/tests/fuzz/corpus/bellperson/chain16.bpa",
             getenv("ZK_SOURCE_DIR"));
    snprintf(path, sizeof path, "%s/pool.key-" HASH, dir);
    test_round_trip(params, bpa, path);
    test_refusals(path);
    test_zkey_store();
    ZT_CHECK(zt_rmtree(dir) == 0);
    return zt_finish();
}

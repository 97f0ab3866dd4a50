/*
 * fuzz_bellperson.c -- libFuzzer target for bellperson's files as zkslot
 * reads them (common/bellperson/): an input that starts with the .bpa magic
 * is an assignment, anything else is tried as a parameter file and as a
 * verifying key.  What opens is used as the prover uses it:
 *  - a parameter file that opens (and is small) proves an assignment of its
 *    own shape (input 0 ONE, the densities its counts imply, values from
 *    the input's bytes) and the proof goes through the verifier;
 *  - an assignment that opens is proved against the committed key
 *    chain32.params of the corpus when it has that key's shape, and the
 *    proof is verified.
 * Validity is not asserted (the values need not satisfy any circuit);
 * every refusal's diagnostic must be one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "zk/bellperson.h"

#ifndef ZK_FUZZ_KEY_DIR
#error "ZK_FUZZ_KEY_DIR: the directory of the seed zkeys (tests/CMakeLists.txt sets it)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static zk_bp_key *fuzz_seed_key(void)
{
    static zk_bp_key *k;
    static int done;
    if (!done) {
        struct zk_diag d = { "" };
        done = 1;
        if (zk_bp_key_open(ZK_FUZZ_KEY_DIR "/../bellperson/chain32.params", &k, &d) != 0) {
            fprintf(stderr, "fuzz_bellperson: the seed key: %s\n", d.msg);
            abort();
        }
    }
    return k;
}

static void fuzz_prove(const zk_bp_key *k, const zk_bp_assignment *as, const uint8_t *data,
                       size_t size)
{
    uint8_t r[32] = { 0 }, s[32] = { 0 }, proof[ZK_BP_PROOF_BYTES];
    struct zk_diag d = { "" };
    for (size_t i = 0; i < 31 && i < size; i++)
        r[i] = data[i], s[i] = data[size - 1 - i];
    if (zk_bp_prove(k, as, r, s, 1, proof, &d) != 0) {
        if (!fuzz_diag_ok(&d))
            abort();
        return;
    }
    /* the assignment's own public inputs: as many as the key takes */
    uint32_t np = zk_bp_vk_n_public(zk_bp_key_vk(k));
    uint8_t *pub = calloc(np ? np : 1, 32);
    if (pub == NULL)
        return;
    int rc = zk_bp_verify(zk_bp_key_vk(k), pub, np, proof, &d);
    if (rc < 0 && !fuzz_diag_ok(&d))
        abort();
    free(pub);
}

/* An assignment of k's shape, values from data. */
static void fuzz_own_shape(const zk_bp_key *k, const uint8_t *data, size_t size)
{
    struct zk_bp_key_info in;
    zk_bp_key_get_info(k, &in);
    if (in.n_h > 4096 || in.n_l > 4096)
        return;
    uint64_t ni = in.n_ic, na = in.n_l, nc = (uint64_t)in.n_h + 1, wa = (na + 63) / 64,
             wi = (ni + 63) / 64, ba = in.n_a - ni, bb = in.n_b_g1;
    size_t len = 40 + 32 * (ni + na + 3 * nc) + 8 * (2 * wa + wi);
    uint8_t *b = calloc(1, len);
    uint32_t ver = 1;
    zk_bp_assignment *as = NULL;
    struct zk_diag d = { "" };
    if (b == NULL)
        return;
    memcpy(b, ZK_BPA_MAGIC, 8);
    memcpy(b + 8, &ver, 4);
    memcpy(b + 16, &ni, 8);
    memcpy(b + 24, &na, 8);
    memcpy(b + 32, &nc, 8);
    for (uint64_t i = 0; i < ni + na + 3 * nc; i++) {
        uint8_t *v = b + 40 + 32 * i;
        for (int j = 0; j < 31 && size > 0; j++)
            v[j] = data[(i * 31 + (uint64_t)j) % size];
    }
    memset(b + 40, 0, 32);
    b[40] = 1;
    uint64_t *bits = (uint64_t *)(b + 40 + 32 * (ni + na + 3 * nc));
    for (uint64_t i = 0; i < ba && i < na; i++)
        bits[i / 64] |= 1ULL << (i % 64);
    for (uint64_t i = 0; i < bb && i < ni + na; i++) {
        if (i < ni)
            bits[wa + i / 64] |= 1ULL << (i % 64);
        else
            bits[wa + wi + (i - ni) / 64] |= 1ULL << ((i - ni) % 64);
    }
    if (zk_bp_assignment_parse(b, len, "own-shape", &as, &d) == 0) {
        fuzz_prove(k, as, data, size);
        zk_bp_assignment_free(as);
    } else if (!fuzz_diag_ok(&d)) {
        abort();
    }
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_diag d = { "" };
    if (size >= 8 && memcmp(data, ZK_BPA_MAGIC, 8) == 0) {
        zk_bp_assignment *as = NULL;
        if (zk_bp_assignment_parse(data, size, "fuzz.bpa", &as, &d) != 0) {
            if (!fuzz_diag_ok(&d))
                abort();
            return 0;
        }
        fuzz_prove(fuzz_seed_key(), as, data, size);
        zk_bp_assignment_free(as);
        return 0;
    }
    zk_bp_key *k = NULL;
    zk_bp_vk *vk = NULL;
    if (zk_bp_key_open_mem(data, size, "fuzz.params", &k, &d) == 0) {
        fuzz_own_shape(k, data, size);
        zk_bp_key_close(k);
    } else if (!fuzz_diag_ok(&d)) {
        abort();
    }
    if (zk_bp_vk_open_mem(data, size, "fuzz.vk", &vk, &d) == 0)
        zk_bp_vk_close(vk);
    else if (!fuzz_diag_ok(&d))
        abort();
    return 0;
}

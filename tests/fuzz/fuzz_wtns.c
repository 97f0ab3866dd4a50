/*
 * fuzz_wtns.c -- libFuzzer target for a .wtns file as `zkslot prove`,
 * `zkslot submit` and synthd read one: open from memory, read the values
 * (bounded), check the header against a zkey header of each curve; then,
 * as the prover consumes it, check it against two real keys (the
 * snarkjs-made `multi` keys of tests/fuzz/corpus/zkey, one per curve, read
 * once from ZK_FUZZ_KEY_DIR) and, where it fits one, read all its values,
 * prove with them and verify the proof.  The reader itself is small (about
 * a hundred coverage points); the rest of what this target reaches is
 * the prover on values the fuzzer chose, which must neither crash nor read
 * out of bounds, whatever they are (non-canonical, r, 2^256 - 1, ...).  The
 * proof's validity is not asserted: the values need not satisfy the circuit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zk/groth16.h"
#include "zk/wtns.h"
#include "zk/zkey.h"

#ifndef ZK_FUZZ_KEY_DIR
#error "ZK_FUZZ_KEY_DIR: the directory of the seed zkeys (tests/CMakeLists.txt sets it)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_key {
    const char *file;
    struct zk_zkey z;
    struct zk_groth16_key *k;
    struct zk_groth16_vk vk;
};

static struct fuzz_key fuzz_keys[] = {
    { .file = "snarkjs-multi-bn128" },
    { .file = "snarkjs-multi-bls12381" },
};
#define FUZZ_NKEYS (sizeof fuzz_keys / sizeof fuzz_keys[0])

/* Loads the two keys once; aborts if a committed seed key does not load. */
static void fuzz_keys_load(void)
{
    static int done;
    if (done)
        return;
    for (size_t i = 0; i < FUZZ_NKEYS; i++) {
        struct fuzz_key *f = &fuzz_keys[i];
        char path[4096];
        struct zk_diag d;
        const struct zk_groth16_load_opts o = { .what = ZK_G16_LOAD_ALL, .threads = 1 };
        snprintf(path, sizeof path, "%s/%s", ZK_FUZZ_KEY_DIR, f->file);
        if (zk_zkey_open(&f->z, path, &d) != 0 || zk_groth16_key_load_opts(&f->z, &o, &d, &f->k) ||
            zk_groth16_vk_from_key(f->k, &f->vk) != 0) {
            fprintf(stderr, "fuzz_wtns: %s\n", d.msg);
            abort();
        }
    }
    done = 1;
}

static void fuzz_prove(const struct zk_wtns *w, struct fuzz_key *f)
{
    static zk_scalar v[1024];
    struct zk_diag d;
    struct zk_groth16_proof proof;
    int valid;
    if (zk_wtns_check_against_zkey(&w->hdr, &f->z.hdr, "fuzz.wtns", &d) != 0 ||
        f->z.hdr.n_vars > 1024 || zk_wtns_read_values(w, 0, f->z.hdr.n_vars, v, &d) != 0)
        return;
    if (zk_groth16_prove(f->k, v, 1, &proof) == 0)
        zk_groth16_verify(&f->vk, v + 1, f->vk.n_public, &proof, &valid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_wtns w;
    struct zk_diag d;
    fuzz_keys_load();
    if (zk_wtns_open_mem(&w, data, size, "fuzz.wtns", &d) != 0)
        return 0;
    static uint64_t v[1024][4];
    uint64_t n = w.hdr.n_witness;
    zk_wtns_read_values(&w, 0, n < 1024 ? n : 1024, v, &d);
    if (n > 1)
        zk_wtns_read_values(&w, n - 1, 1, v, &d);
    zk_wtns_read_values(&w, n, 1, v, &d);                 /* out of range */
    for (int c = 0; c < ZK_CURVE_COUNT; c++) {
        struct zk_zkey_header h = { .curve = (enum zk_curve)c, .n_vars = (uint32_t)n };
        zk_wtns_check_against_zkey(&w.hdr, &h, "fuzz.wtns", &d);
    }
    for (size_t i = 0; i < FUZZ_NKEYS; i++)
        fuzz_prove(&w, &fuzz_keys[i]);
    zk_wtns_done(&w);
    return 0;
}

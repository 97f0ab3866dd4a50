/*
 * fuzz_zkey.c -- libFuzzer target for the .zkey reader: open from memory,
 * then exercise every reader call on what opened (points of each section,
 * the coefficients), with small bounded reads; then load it as the
 * daemons do (zk_groth16_key_load_opts: coefficients regrouped by row,
 * every point section, one thread) and take the verification key from
 * what loaded (zk_groth16_vk_from_key, as `zkslot export-vk` does); a
 * small key (at most 1024 variables and domain points) also proves the
 * witness 1, 0, 0, ... (synthesis, NTTs, MSMs, as the pipeline does) and the
 * proof goes through the verifier (its validity is not asserted: the
 * witness need not satisfy a fuzzed circuit).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zk/groth16.h"
#include "zk/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* prove w = (1, 0, ...) with k, then verify with vk */
static void fuzz_prove(const struct zk_groth16_key *k, const struct zk_groth16_vk *vk,
                       uint32_t n_vars)
{
    static zk_scalar w[1024];
    struct zk_groth16_proof proof;
    int valid;
    memset(w, 0, sizeof w);
    w[0].l[0] = 1;
    if (n_vars == 0 || vk->n_public >= 1024 || zk_groth16_prove(k, w, 1, &proof) != 0)
        return;
    zk_groth16_verify(vk, w + 1, vk->n_public, &proof, &valid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_zkey z;
    struct zk_diag d;
    if (zk_zkey_open_mem(&z, data, size, "fuzz.zkey", &d) != 0)
        return 0;
    static uint64_t pts[64 * ZK_G2_MAX_BYTES / 8];
    for (unsigned id = ZK_ZKEY_SEC_IC; id <= ZK_ZKEY_SEC_H; id++) {
        size_t ps;
        uint64_t n = zk_zkey_section_points(&z, id, &ps);
        uint64_t k = n < 64 ? n : 64;
        zk_zkey_read_points(&z, id, 0, k, pts, &d);
        if (n > k)
            zk_zkey_read_points(&z, id, n - k, k, pts, &d);
        zk_zkey_read_points(&z, id, n, 1, pts, &d);       /* out of range */
    }
    static struct zk_zkey_coef co[256];
    uint64_t n = z.hdr.n_coef;
    zk_zkey_read_coefs(&z, 0, n < 256 ? n : 256, co, &d);
    if (n > 256)
        zk_zkey_read_coefs(&z, n - 256, 256, co, &d);
    const struct zk_groth16_load_opts o = { .what = ZK_G16_LOAD_ALL, .threads = 1 };
    struct zk_groth16_key *k = NULL;
    if (zk_groth16_key_load_opts(&z, &o, &d, &k) == 0) {
        struct zk_groth16_vk vk;
        if (zk_groth16_vk_from_key(k, &vk) == 0) {
            if (z.hdr.n_vars <= 1024 && z.hdr.domain_size <= 1024)
                fuzz_prove(k, &vk, z.hdr.n_vars);
            zk_groth16_vk_done(&vk);
        }
        zk_groth16_key_free(k);
    }
    zk_zkey_done(&z);
    return 0;
}

/*
 * test_cuda_bp_emu.c -- bellperson's prover with its NTTs and MSMs on the
 * (emulated) device, zk_cuda_bp_prove, against the CPU's zk_bp_prove
 * (itself checked byte for byte against bellperson by
 * tests/bellperson/test_oracle.sh): for the committed keys and
 * assignments of the fuzz corpus (chain circuits of 16 and 32
 * constraints), random r and s each time, the two proofs are the same 192
 * bytes and zk_bp_verify accepts them; without a device the call says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zk/bellperson.h"
#include "zk/error.h"
#include "zkcuda.h"
#include "zktest.h"

static void prove_both(const char *params, const char *bpa)
{
    char p[4096], a[4096];
    const char *src = getenv("ZK_SOURCE_DIR");
    struct zk_diag d = { "" };
    zk_bp_key *k = NULL;
    zk_bp_assignment *as = NULL;

    snprintf(p, sizeof p, "%s/tests/fuzz/corpus/bellperson/%s", src ? src : ".", params);
    snprintf(a, sizeof a, "%s/tests/fuzz/corpus/bellperson/%s", src ? src : ".", bpa);
    ZT_CHECK(zk_bp_key_open(p, &k, &d) == 0, "key: %s", d.msg);
    ZT_CHECK(zk_bp_assignment_open(a, &as, &d) == 0, "assignment: %s", d.msg);
    if (k == NULL || as == NULL)
        goto out;
    for (int round = 0; round < 3; round++) {
        uint8_t r[32], s[32], pc[ZK_BP_PROOF_BYTES], pg[ZK_BP_PROOF_BYTES];
        zt_rand_bytes(r, sizeof r);
        zt_rand_bytes(s, sizeof s);
        r[31] &= 0x3f, s[31] &= 0x3f;                /* below r */
        ZT_CHECK(zk_bp_prove(k, as, r, s, 1, pc, &d) == 0, "cpu: %s", d.msg);
        int rc = zk_cuda_bp_prove(0, k, as, r, s, 1, pg, &d);
        ZT_CHECK(rc == 0, "cuda: %s", d.msg);
        if (rc != 0)
            break;
        ZT_CHECK(memcmp(pc, pg, sizeof pc) == 0, "%s round %d: the device's proof differs", bpa,
                 round);
        uint32_t np = zk_bp_vk_n_public(zk_bp_key_vk(k));
        uint8_t *pub = calloc(np, 32);
        /* the assignment's public inputs: read them back from the file */
        FILE *f = fopen(a, "rb");
        ZT_CHECK(f && fseek(f, 40 + 32, SEEK_SET) == 0 && fread(pub, 32, np, f) == np, "read");
        if (f)
            fclose(f);
        ZT_CHECK(zk_bp_verify(zk_bp_key_vk(k), pub, np, pg, &d) == 1, "%s: not accepted: %s",
                 bpa, d.msg);
        free(pub);
    }
out:
    zk_bp_assignment_free(as);
    zk_bp_key_close(k);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    ZT_CHECK(zk_cuda_available(), "the emulated device is available");
    prove_both("chain32.params", "chain32.bpa");
    prove_both("chain16.params", "chain16.bpa");
    return zt_finish();
}

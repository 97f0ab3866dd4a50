/*
 * fuzz_proof.c -- libFuzzer target for the proof.json reader of `zkslot
 * verify` (zk_groth16_proof_from_json), for both curves: any bytes; a
 * failure says why on one line; a proof that parses is written back
 * (zk_groth16_proof_to_json) and must parse again to the same points.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "zk/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_curve(const char *text, enum zk_curve curve)
{
    struct zk_groth16_proof p, again;
    struct zk_diag d;
    memset(&d, 0, sizeof d);
    memset(&p, 0, sizeof p);
    memset(&again, 0, sizeof again);
    if (zk_groth16_proof_from_json(text, curve, "fuzz-proof.json", &p, &d) != 0) {
        if (!fuzz_diag_ok(&d))
            abort();      /* a failure must say why, on one line */
        return;
    }
    char *out = zk_groth16_proof_to_json(&p);
    if (!out)
        return;
    if (zk_groth16_proof_from_json(out, curve, "written", &again, &d) != 0 ||
        memcmp(p.pi_a, again.pi_a, sizeof p.pi_a) || memcmp(p.pi_b, again.pi_b, sizeof p.pi_b) ||
        memcmp(p.pi_c, again.pi_c, sizeof p.pi_c))
        abort();          /* what we write must read back unchanged */
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    one_curve(text, ZK_CURVE_BN254);
    one_curve(text, ZK_CURVE_BLS12_381);
    free(text);
    return 0;
}

/*
 * fuzz_vk.c -- libFuzzer target for the verification_key.json reader that
 * `zkslot verify` runs first (zk_groth16_vk_from_json): any bytes; a
 * failure says why on one line; a key that parses is written back
 * (zk_groth16_vk_to_json, the pairing included) and must parse again to
 * the same curve and number of public inputs.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "zk/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_groth16_vk vk, again;
    struct zk_diag d;
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    memset(&d, 0, sizeof d);
    int r = zk_groth16_vk_from_json(text, "fuzz-vk.json", &vk, &d);
    free(text);
    if (r) {
        if (!fuzz_diag_ok(&d))
            abort();      /* a failure must say why, on one line */
        return 0;
    }
    char *out = zk_groth16_vk_to_json(&vk);
    if (out) {
        if (zk_groth16_vk_from_json(out, "written", &again, &d) != 0 ||
            again.curve != vk.curve || again.n_public != vk.n_public)
            abort();      /* what we write must read back */
        zk_groth16_vk_done(&again);
        free(out);
    }
    zk_groth16_vk_done(&vk);
    return 0;
}

/*
 * fuzz_public.c -- libFuzzer target for the public.json reader of `zkslot
 * verify` (zk_groth16_public_from_json): any bytes; a failure says why on
 * one line; what parses is written back (zk_groth16_public_to_json) and
 * must parse again to the same values.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_util.h"
#include "zk/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zk_scalar *pub = NULL, *again = NULL;
    size_t n = 0, n2 = 0;
    struct zk_diag d;
    char *text = fuzz_text(data, size);
    if (!text)
        return 0;
    memset(&d, 0, sizeof d);
    int r = zk_groth16_public_from_json(text, "fuzz-public.json", &pub, &n, &d);
    free(text);
    if (r) {
        if (r != -ENOMEM && !fuzz_diag_ok(&d))
            abort();      /* a failure must say why, on one line */
        return 0;
    }
    char *out = zk_groth16_public_to_json(pub, n);
    if (out) {
        if (zk_groth16_public_from_json(out, "written", &again, &n2, &d) != 0 || n2 != n ||
            (n && memcmp(pub, again, n * sizeof *pub)))
            abort();      /* what we write must read back unchanged */
        free(again);
        free(out);
    }
    free(pub);
    return 0;
}

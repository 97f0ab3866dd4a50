/*
 * fuzz_input.c -- libFuzzer target for the circuit-input check that
 * `zkslot submit --input` and `zkslot prove --input` run on input.json
 * (zk_input_check): any bytes, with and without a NUL inside; the
 * diagnostic is always one terminated line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zk/witgen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_diag d;
    memset(&d, 0, sizeof d);
    int r = zk_input_check((const char *)data, size, "fuzz.json", &d);
    if (r != 0 && (!memchr(d.msg, 0, sizeof d.msg) || memchr(d.msg, '\n', strlen(d.msg))))
        abort();      /* a failure must say why, on one line */
    return 0;
}

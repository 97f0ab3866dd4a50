/*
 * fuzz_r1cs.c -- libFuzzer target for the .r1cs reader: open from memory,
 * walk every constraint through a callback that touches every term.
 */
#include <stdint.h>
#include <stdlib.h>

#include "zk/r1cs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static int touch(void *ctx, uint32_t index, const struct zk_r1cs_lc lc[3])
{
    uint64_t *acc = ctx;
    for (int m = 0; m < 3; m++)
        for (uint32_t i = 0; i < lc[m].n; i++)
            *acc += lc[m].t[i].wire + lc[m].t[i].coef[3];
    *acc += index;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_r1cs r;
    struct zk_diag d;
    if (zk_r1cs_open_mem(&r, data, size, "fuzz.r1cs", &d) != 0)
        return 0;
    uint64_t acc = 0, terms[3];
    zk_r1cs_for_each_constraint(&r, touch, &acc, terms, &d);
    zk_r1cs_done(&r);
    sink = acc;
    return 0;
}

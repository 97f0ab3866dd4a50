/*
 * fuzz_wtns.c -- libFuzzer target for the .wtns reader: open from memory,
 * read the values (bounded), check against a zkey header of each curve.
 */
#include <stdint.h>
#include <stdlib.h>

#include "zk/wtns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zk_wtns w;
    struct zk_diag d;
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
    zk_wtns_done(&w);
    return 0;
}

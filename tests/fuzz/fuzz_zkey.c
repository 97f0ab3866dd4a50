/*
 * fuzz_zkey.c -- libFuzzer target for the .zkey reader: open from memory,
 * then exercise every reader call on what opened (points of each section,
 * the coefficients), with small bounded reads.
 */
#include <stdint.h>
#include <stdlib.h>

#include "zk/zkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    zk_zkey_done(&z);
    return 0;
}

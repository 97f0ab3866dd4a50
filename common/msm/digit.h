/*
 * digit.h -- the signed (Booth) window digit of a 256-bit scalar, shared by
 * the CPU MSM (msm.c) and the GPU one (gpud/cuda/cu_ops.cu): ZK_HD, so one
 * definition serves host and device.
 */
#ifndef ZK_COMMON_MSM_DIGIT_H
#define ZK_COMMON_MSM_DIGIT_H

#include "ff/vec.h"

/*
 * The digit of window [s, s + c) of the 256-bit scalar k (4 limbs), c <= 30:
 *   d = b[s-1] + sum_{j<c-1} b[s+j] 2^j - b[s+c-1] 2^(c-1),   b[-1] = 0,
 * in [-2^(c-1), 2^(c-1)].  sum_w d_w 2^(w c) = k when the windows go up to a
 * w with bit w c + c - 1 >= bitlength(k) (bits past 255 read as 0).
 */
ZK_HD int zk_msm_digit(const limb_t *k, unsigned s, unsigned c)
{
    uint64_t t;
    if (s == 0) {
        t = k[0] << 1;
    } else {
        unsigned pos = s - 1, q = pos / 64, r = pos % 64;
        t = q < 4 ? k[q] >> r : 0;
        if (r && q + 1 < 4)
            t |= k[q + 1] << (64 - r);
    }
    t &= ((uint64_t)1 << (c + 1)) - 1;
    int u = (int)((t >> 1) & (((uint64_t)1 << (c - 1)) - 1)) + (int)(t & 1);
    return (t >> c) ? u - (1 << (c - 1)) : u;
}

#endif /* ZK_COMMON_MSM_DIGIT_H */

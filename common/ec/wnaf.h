/*
 * wnaf.h -- signed-digit (wNAF) recoding of a scalar, shared by the curve
 * template (ec_tmpl.h) and anyone else who wants the digits.
 */
#ifndef ZK_COMMON_EC_WNAF_H
#define ZK_COMMON_EC_WNAF_H

#include "ff/vec.h"

/*
 * ZK_EC_OOL: "static, never inlined" for the out-of-line copies of the point
 * formulas that the cold paths (scalar multiplication, subgroup checks,
 * decoding) call, so those functions stay small enough to compile quickly;
 * the hot paths (MSM) keep using the always-inline ZK_HD versions.  Under
 * nvcc (C++) they are `inline` instead of static: one definition shared by
 * the translation units, and no unused-function warning where none calls them.
 */
#if defined(__CUDACC__)
# define ZK_EC_OOL __host__ __device__ __noinline__ inline
#else
# define ZK_EC_OOL static __attribute__((noinline, unused))
#endif

#define ZK_WNAF_W 5              /* window width: digits odd, |d| < 2^(W-1) = 16 */
#define ZK_WNAF_MAXBITS 512      /* longest scalar the recoder takes */

/*
 * Width-w NAF of the nbits-bit little-endian scalar k (nbits <=
 * ZK_WNAF_MAXBITS, 2 <= w <= 7): writes digits d[0..len) with
 * k = sum d[i] 2^i, each d[i] zero or odd with |d[i]| < 2^(w-1), and any w
 * consecutive digits holding at most one nonzero one; returns len <= nbits + 1
 * (0 for k = 0).  Bits of k above nbits are ignored.  Cannot fail.
 */
static inline size_t zk_wnaf_recode(int8_t *d, const limb_t *k, size_t nbits, unsigned w)
{
    limb_t t[ZK_WNAF_MAXBITS / 64 + 2];
    size_t nl = (nbits + 63) / 64, len = 0;
    for (size_t i = 0; i < nl; i++)
        t[i] = k[i];
    if (nbits % 64)
        t[nl - 1] &= ((limb_t)1 << (nbits % 64)) - 1;
    t[nl] = 0;                              /* room for the carry of a negative digit */
    const limb_t mask = ((limb_t)1 << w) - 1, half = (limb_t)1 << (w - 1);
    while (!is_zero_n(t, nl + 1)) {
        int digit = 0;
        if (t[0] & 1) {
            limb_t v = t[0] & mask;
            if (v >= half) {                /* negative digit v - 2^w: t += 2^w - v */
                digit = (int)v - (int)(mask + 1);
                limb_t c = (mask + 1) - v;
                for (size_t i = 0; i <= nl && c; i++) {
                    t[i] += c;
                    c = t[i] < c;
                }
            } else {                        /* positive digit v: t -= v (no borrow out) */
                digit = (int)v;
                t[0] -= v;                  /* low w bits of t were v: no borrow */
            }
        }
        d[len++] = (int8_t)digit;
        for (size_t i = 0; i < nl; i++)     /* t >>= 1 */
            t[i] = (t[i] >> 1) | (t[i + 1] << 63);
        t[nl] >>= 1;
    }
    return len;
}

#endif /* ZK_COMMON_EC_WNAF_H */

/*
 * mont32.h -- Montgomery multiplication and squaring on 32-bit words, for
 * the GPU: included by vec.h, and used by mul_mont_n / sqr_mont_n instead
 * of the 64-bit CIOS when ZK_FF_MONT32 is 1 (CMake sets it for gpud/cuda's
 * kernels and their cuemu build with -DZK_CUDA_MONT=32; the default is 64,
 * docs/cuda.md says why).
 *
 * Why: a GPU multiplies 32 x 32 -> 64 bits in one instruction
 * with a carry flag (PTX mad.lo.cc / madc.hi.cc), while the 64-bit limbs'
 * unsigned __int128 products cost several of them plus the carries between
 * the halves.
 * The element layout does not change (64-bit limbs in memory, R =
 * 2^(64n) = 2^(32 * 2n)): the words are the limbs' halves, so the results
 * are bit for bit those of vec.h's 64-bit code (tests/test_mont32.c checks
 * it on the four fields; `tools/cuda-sass.sh` counts the instructions of
 * both on sm_90).  Only one row primitive (mont32_mad_row) differs between
 * the device (PTX) and everything else (its C twin); the algorithm around
 * it is the same code.
 *
 * Preconditions as vec.h's, with the spare bit counted in 32-bit words:
 * p's top word is below 2^31 - 1 (BN254 p and r: 0x30644e72, BLS12-381 p:
 * 0x1a0111ea, r: 0x73eda753), inputs < p, outputs < p.  ret may alias the
 * inputs.  Cannot fail.
 */
#ifndef ZK_COMMON_FF_MONT32_H
#define ZK_COMMON_FF_MONT32_H

/* (needs vec.h's limb_t, ZK_HD, ZK_UNROLL_ALWAYS, ZK_MAX_LIMBS and cond_sub_n:
 * included by it) */

#define ZK_MONT32_WORDS (2 * ZK_MAX_LIMBS)

/* w[0 .. 2n) = the 32-bit halves of a[0 .. n), low half first */
ZK_HD void mont32_split(uint32_t *w, const limb_t *a, size_t n)
{
    ZK_UNROLL_ALWAYS
    for (size_t i = 0; i < n; i++) {
        w[2 * i] = (uint32_t)a[i];
        w[2 * i + 1] = (uint32_t)(a[i] >> 32);
    }
}

/* ret = t - p if t >= p, else t, from the 2n words t (t < 2p) */
ZK_HD void mont32_join_reduce(limb_t *ret, const uint32_t *t, const limb_t *p, size_t n)
{
    limb_t x[ZK_MAX_LIMBS];
    ZK_UNROLL_ALWAYS
    for (size_t i = 0; i < n; i++)
        x[i] = (limb_t)t[2 * i] | (limb_t)t[2 * i + 1] << 32;
    cond_sub_n(ret, x, p, n);
}

/*
 * t[0 .. m + 2) += a[0 .. m) * b: one row of the product, exact (the caller
 * leaves room: t[m + 1] does not overflow).  On the device (nvcc, sm_xx)
 * two carry chains of PTX multiply-adds, 2m + 3 instructions: the low
 * halves of a[j] b into t[j], then the high halves into t[j + 1]
 * (mad.lo.cc / madc.lo.cc, mad.hi.cc / madc.hi.cc, the carry flag running
 * along each chain, as sppark's mont_t does).  Elsewhere (the host pass of
 * nvcc, cuemu, the tests) its C twin, the same sum through 64-bit
 * products: tests/test_mont32.c checks the C against the CPU field, and
 * test_cuda on a GPU checks the PTX against the CPU.
 */
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ void mont32_mad_row(uint32_t *t, const uint32_t *a, uint32_t b,
                                               size_t m)
{
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a[0]), "r"(b));
    ZK_UNROLL_ALWAYS
    for (size_t j = 1; j < m; j++)
        asm volatile("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(b));
    asm volatile("addc.cc.u32 %0, %0, 0;" : "+r"(t[m]));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[m + 1]));
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[0]), "r"(b));
    ZK_UNROLL_ALWAYS
    for (size_t j = 1; j < m; j++)
        asm volatile("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(b));
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(t[m + 1]));
}
#else
ZK_HD void mont32_mad_row(uint32_t *t, const uint32_t *a, uint32_t b, size_t m)
{
    uint64_t s, c = 0;
    ZK_UNROLL_ALWAYS
    for (size_t j = 0; j < m; j++) {
        s = (uint64_t)a[j] * b + t[j] + c;        /* <= 2^64 - 1 */
        t[j] = (uint32_t)s;
        c = s >> 32;
    }
    s = (uint64_t)t[m] + c;
    t[m] = (uint32_t)s;
    t[m + 1] += (uint32_t)(s >> 32);
}
#endif

/*
 * ret = a * b * 2^(-64n) mod p: CIOS on m = 2n words: per word B[i], the
 * row t += A B[i], q = t[0] (-p^-1) mod 2^32, the row t += q P (t[0]
 * becomes 0), and t shifts down a word (register renaming once unrolled).
 * BLS12-381 Fp: 24 rows of 27 instructions on the device.  n0 = -p^-1 mod
 * 2^64; its low word is -p^-1 mod 2^32.  t < 2p at the end (the spare bit:
 * t[m] is 0), one conditional subtraction.
 */
ZK_HD void mul_mont_n_32(limb_t *ret, const limb_t *a, const limb_t *b, const limb_t *p,
                         limb_t n0, size_t n)
{
    const size_t m = 2 * n;
    const uint32_t q0 = (uint32_t)n0;
    uint32_t A[ZK_MONT32_WORDS], B[ZK_MONT32_WORDS], P[ZK_MONT32_WORDS];
    uint32_t t[ZK_MONT32_WORDS + 2];
    mont32_split(A, a, n);
    mont32_split(B, b, n);
    mont32_split(P, p, n);
    ZK_UNROLL_ALWAYS
    for (size_t j = 0; j < m + 2; j++)
        t[j] = 0;
    ZK_UNROLL_ALWAYS
    for (size_t i = 0; i < m; i++) {
        mont32_mad_row(t, A, B[i], m);
        mont32_mad_row(t, P, t[0] * q0, m);
        ZK_UNROLL_ALWAYS
        for (size_t j = 0; j <= m; j++)
            t[j] = t[j + 1];
        t[m + 1] = 0;
    }
    mont32_join_reduce(ret, t, p, n);
}

/* ret = a^2 * 2^(-64n) mod p: the multiplication (a squaring of its own,
 * with half the cross products, is not written yet). */
ZK_HD void sqr_mont_n_32(limb_t *ret, const limb_t *a, const limb_t *p, limb_t n0, size_t n)
{
    mul_mont_n_32(ret, a, a, p, n0, n);
}

#endif /* ZK_COMMON_FF_MONT32_H */

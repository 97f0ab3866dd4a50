/*
 * vec.h -- limb-level primitives for Montgomery arithmetic on 64-bit limbs.
 *
 * Every function takes the limb count `n` as a parameter; callers pass a
 * compile-time constant (4 or 6) and the functions are always inlined, so the
 * compiler sees fixed trip counts and unrolls them completely.  Nothing here
 * calls libc, allocates or branches on secret-independent data in a way the
 * CUDA kernels could not share.
 *
 * Preconditions shared by all modular functions: the modulus p is odd, its top
 * limb is below 2^63 - 1 (a "spare bit": true for BN254 p and r, BLS12-381 p
 * and r), and inputs are fully reduced (< p).  Outputs are fully reduced.
 * Aliasing: `ret` may alias any input unless a comment says otherwise.
 */
#ifndef ZK_COMMON_FF_VEC_H
#define ZK_COMMON_FF_VEC_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
# define ZK_HD __host__ __device__ __forceinline__
#else
# define ZK_HD static inline __attribute__((always_inline))
#endif

#define ZK_MAX_LIMBS 6

typedef uint64_t limb_t;
typedef unsigned __int128 dlimb_t;

/*
 * ZK_FF_ASM is 1 when mul_mont_n / sqr_mont_n use the MULX/ADCX/ADOX inline
 * assembly of mont_x86_64.h for 4 and 6 limbs: x86-64 with ADX and BMI2
 * enabled at compile time (-march=native on the build machine), an optimizing
 * build, not CUDA, and ZK_NO_ASM not defined (define it to force the portable
 * C below, e.g. to test it).  The asm addresses p as a memory operand (pass a
 * static constant array, as the field code does, so it is RIP-relative) and
 * takes n0 as an immediate, so it is used only when n0 is a compile-time
 * constant; other calls run the portable C.
 */
#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__) && \
    !defined(__CUDACC__) && !defined(ZK_NO_ASM) && defined(__OPTIMIZE__)
# define ZK_FF_ASM 1
#else
# define ZK_FF_ASM 0
#endif

/* ret = a + b, returns the carry out. */
ZK_HD limb_t add_n(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{
    dlimb_t t = 0;
    for (size_t i = 0; i < n; i++) {
        t += (dlimb_t)a[i] + b[i];
        ret[i] = (limb_t)t;
        t >>= 64;
    }
    return (limb_t)t;
}

/* ret = a - b, returns the borrow out (0 or 1). */
ZK_HD limb_t sub_n(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{
    limb_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        dlimb_t t = (dlimb_t)a[i] - b[i] - borrow;
        ret[i] = (limb_t)t;
        borrow = (limb_t)(t >> 64) & 1;
    }
    return borrow;
}

/* 1 if a is all zero. */
ZK_HD int is_zero_n(const limb_t *a, size_t n)
{
    limb_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

/* 1 if a == b. */
ZK_HD int eq_n(const limb_t *a, const limb_t *b, size_t n)
{
    limb_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i] ^ b[i];
    return acc == 0;
}

/* -1, 0, 1 as a <, ==, > b (as unsigned integers). */
ZK_HD int cmp_n(const limb_t *a, const limb_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

ZK_HD void copy_n(limb_t *ret, const limb_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ret[i] = a[i];
}

ZK_HD void zero_n(limb_t *ret, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ret[i] = 0;
}

/* ret = x - p if x >= p, else x.  x < 2p. */
ZK_HD void cond_sub_n(limb_t *ret, const limb_t *x, const limb_t *p, size_t n)
{
    limb_t t[ZK_MAX_LIMBS];
    limb_t borrow = sub_n(t, x, p, n);
    limb_t mask = (limb_t)0 - borrow;          /* all ones: keep x */
    for (size_t i = 0; i < n; i++)
        ret[i] = (x[i] & mask) | (t[i] & ~mask);
}

/* ret = (a + b) mod p.  With a spare bit a + b never carries out. */
ZK_HD void add_mod_n(limb_t *ret, const limb_t *a, const limb_t *b,
                     const limb_t *p, size_t n)
{
    limb_t t[ZK_MAX_LIMBS];
    add_n(t, a, b, n);
    cond_sub_n(ret, t, p, n);
}

/* ret = (a - b) mod p. */
ZK_HD void sub_mod_n(limb_t *ret, const limb_t *a, const limb_t *b,
                     const limb_t *p, size_t n)
{
    limb_t t[ZK_MAX_LIMBS], q[ZK_MAX_LIMBS];
    limb_t borrow = sub_n(t, a, b, n);
    limb_t mask = (limb_t)0 - borrow;          /* all ones: add p back */
    for (size_t i = 0; i < n; i++)
        q[i] = p[i] & mask;
    add_n(ret, t, q, n);
}

/* ret = -a mod p (0 stays 0). */
ZK_HD void neg_mod_n(limb_t *ret, const limb_t *a, const limb_t *p, size_t n)
{
    limb_t t[ZK_MAX_LIMBS];
    limb_t nz = (limb_t)0 - (limb_t)!is_zero_n(a, n);  /* all ones unless a == 0 */
    sub_n(t, p, a, n);
    for (size_t i = 0; i < n; i++)
        ret[i] = t[i] & nz;
}

/*
 * ret = a * b * 2^(-64n) mod p  (CIOS Montgomery multiplication), portable C.
 * Uses the "no final carry" form, valid because p's top limb < 2^63 - 1:
 * the running accumulator stays below 2p and fits in n limbs.
 */
ZK_HD void mul_mont_n_c(limb_t *ret, const limb_t *a, const limb_t *b,
                        const limb_t *p, limb_t n0, size_t n)
{
    limb_t t[ZK_MAX_LIMBS + 1];
    for (size_t i = 0; i < n; i++)
        t[i] = 0;
    for (size_t i = 0; i < n; i++) {
        /* t += a * b[i] */
        dlimb_t c = 0;
        for (size_t j = 0; j < n; j++) {
            c += (dlimb_t)a[j] * b[i] + t[j];
            t[j] = (limb_t)c;
            c >>= 64;
        }
        limb_t hi = (limb_t)c;
        /* t = (t + m * p) / 2^64 with m chosen so the low limb cancels */
        limb_t m = t[0] * n0;
        c = (dlimb_t)m * p[0] + t[0];
        c >>= 64;
        for (size_t j = 1; j < n; j++) {
            c += (dlimb_t)m * p[j] + t[j];
            t[j - 1] = (limb_t)c;
            c >>= 64;
        }
        t[n - 1] = hi + (limb_t)c;              /* cannot overflow: spare bits */
    }
    cond_sub_n(ret, t, p, n);
}

#if ZK_FF_ASM
# include "mont_x86_64.h"
#endif

/* ret = a * b * 2^(-64n) mod p: the asm for n = 4, 6 when ZK_FF_ASM, else C. */
ZK_HD void mul_mont_n(limb_t *ret, const limb_t *a, const limb_t *b,
                      const limb_t *p, limb_t n0, size_t n)
{
#if ZK_FF_ASM
    /* the asm takes n0 as an immediate: only for compile-time constants */
    if (__builtin_constant_p(n0) && n == 4) {
        mul_mont_4_x86(ret, a, b, p, n0);
        return;
    }
    if (__builtin_constant_p(n0) && n == 6) {
        mul_mont_6_x86(ret, a, b, p, n0);
        return;
    }
#endif
    mul_mont_n_c(ret, a, b, p, n0, n);
}

/* ret = a^2 * 2^(-64n) mod p. */
ZK_HD void sqr_mont_n(limb_t *ret, const limb_t *a, const limb_t *p,
                      limb_t n0, size_t n)
{
    mul_mont_n(ret, a, a, p, n0, n);
}

/* ret = a * 2^(-64n) mod p  (leave Montgomery form). */
ZK_HD void from_mont_n(limb_t *ret, const limb_t *a, const limb_t *p,
                       limb_t n0, size_t n)
{
    limb_t one[ZK_MAX_LIMBS];
    for (size_t i = 0; i < n; i++)
        one[i] = 0;
    one[0] = 1;
    mul_mont_n(ret, a, one, p, n0, n);
}

/* bit i of a little-endian limb vector. */
ZK_HD unsigned bit_n(const limb_t *a, size_t i)
{
    return (unsigned)(a[i / 64] >> (i % 64)) & 1;
}

#endif /* ZK_COMMON_FF_VEC_H */

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

/* Before the loops of mul_mont_n_c: with ZK_FF_UNROLL=1 under nvcc they
 * are unrolled completely (tools/cuda-sass.sh counts the instructions of
 * one multiplication that way); by default nvcc decides, as it always has.
 * ZK_UNROLL_ALWAYS: unrolled on the device in every build (mont32.h). */
#if defined(__CUDA_ARCH__)            /* (the device pass: gcc has no such pragma) */
# define ZK_UNROLL_ALWAYS _Pragma("unroll")
#else
# define ZK_UNROLL_ALWAYS
#endif
#if defined(__CUDA_ARCH__) && defined(ZK_FF_UNROLL) && ZK_FF_UNROLL
# define ZK_UNROLL _Pragma("unroll")
#else
# define ZK_UNROLL
#endif

typedef uint64_t limb_t;
typedef unsigned __int128 dlimb_t;

/*
 * ZK_FF_ASM is 1 when mul_mont_n / sqr_mont_n (MULX/ADCX/ADOX) and add_mod_n /
 * sub_mod_n use the inline assembly of mont_x86_64.h for 4 and 6 limbs:
 * x86-64 with ADX and BMI2
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

/*
 * add_n / sub_n for straight-line code on wide values (fp2_tmpl.h's lazy
 * product): with ZK_FF_ASM the compiler's carry intrinsics, which GCC and
 * clang turn into one ADC / SBB chain (the dlimb_t form above becomes
 * several instructions a limb there); the same functions otherwise.
 */
#if ZK_FF_ASM
# include <x86intrin.h>
ZK_HD limb_t addc_n(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{
    unsigned char c = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long long t;
        c = _addcarry_u64(c, a[i], b[i], &t);
        ret[i] = t;
    }
    return c;
}

ZK_HD limb_t subb_n(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{
    unsigned char c = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long long t;
        c = _subborrow_u64(c, a[i], b[i], &t);
        ret[i] = t;
    }
    return c;
}

/* ret = a + (b & mask), returns the carry out; mask is 0 or all ones.  The
 * AND sits in the carry chain, where the compiler leaves it scalar (an
 * array of masked limbs first was turned into vector code and back). */
ZK_HD limb_t addc_mask_n(limb_t *ret, const limb_t *a, const limb_t *b, limb_t mask, size_t n)
{
    unsigned char c = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long long t;
        c = _addcarry_u64(c, a[i], b[i] & mask, &t);
        ret[i] = t;
    }
    return c;
}
#else
ZK_HD limb_t addc_n(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{ return add_n(ret, a, b, n); }
ZK_HD limb_t subb_n(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{ return sub_n(ret, a, b, n); }
ZK_HD limb_t addc_mask_n(limb_t *ret, const limb_t *a, const limb_t *b, limb_t mask, size_t n)
{
    dlimb_t t = 0;
    for (size_t i = 0; i < n; i++) {
        t += (dlimb_t)a[i] + (b[i] & mask);
        ret[i] = (limb_t)t;
        t >>= 64;
    }
    return (limb_t)t;
}
#endif

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

#if ZK_FF_ASM
# include "mont_x86_64.h"
#endif

/*
 * ZK_FF_MONT32 = 1: mul_mont_n and sqr_mont_n run mont32.h's 32-bit-word
 * Montgomery code (the GPU's form: CMake sets it for gpud/cuda's kernels and
 * their cuemu build with -DZK_CUDA_MONT=32); same results as the 64-bit code.
 */
#ifndef ZK_FF_MONT32
# define ZK_FF_MONT32 0
#endif
#include "mont32.h"

/* ret = (a + b) mod p.  With a spare bit a + b never carries out. */
ZK_HD void add_mod_n(limb_t *ret, const limb_t *a, const limb_t *b,
                     const limb_t *p, size_t n)
{
#if ZK_FF_ASM
    if (n == 4) {
        add_mod_4_x86(ret, a, b, p);
        return;
    }
    if (n == 6) {
        add_mod_6_x86(ret, a, b, p);
        return;
    }
#endif
    limb_t t[ZK_MAX_LIMBS];
    add_n(t, a, b, n);
    cond_sub_n(ret, t, p, n);
}

/* ret = (a - b) mod p. */
ZK_HD void sub_mod_n(limb_t *ret, const limb_t *a, const limb_t *b,
                     const limb_t *p, size_t n)
{
#if ZK_FF_ASM
    if (n == 4) {
        sub_mod_4_x86(ret, a, b, p);
        return;
    }
    if (n == 6) {
        sub_mod_6_x86(ret, a, b, p);
        return;
    }
#endif
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
    ZK_UNROLL
    for (size_t i = 0; i < n; i++)
        t[i] = 0;
    ZK_UNROLL
    for (size_t i = 0; i < n; i++) {
        /* t += a * b[i] */
        dlimb_t c = 0;
        ZK_UNROLL
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
        ZK_UNROLL
        for (size_t j = 1; j < n; j++) {
            c += (dlimb_t)m * p[j] + t[j];
            t[j - 1] = (limb_t)c;
            c >>= 64;
        }
        t[n - 1] = hi + (limb_t)c;              /* cannot overflow: spare bits */
    }
    cond_sub_n(ret, t, p, n);
}

/* ret = a * b * 2^(-64n) mod p: the asm for n = 4, 6 when ZK_FF_ASM, else C. */
ZK_HD void mul_mont_n(limb_t *ret, const limb_t *a, const limb_t *b,
                      const limb_t *p, limb_t n0, size_t n)
{
#if ZK_FF_MONT32
    mul_mont_n_32(ret, a, b, p, n0, n);
    return;
#endif
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
#if ZK_FF_MONT32
    sqr_mont_n_32(ret, a, p, n0, n);
#else
    mul_mont_n(ret, a, a, p, n0, n);
#endif
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

/* ---- double-width products, for lazy reduction (fp2_tmpl.h) ---- */

/* ret (2n limbs) = a * b, the plain product, n limbs each (any values, so
 * unreduced sums such as a0 + a1 < 2p are fine).  ret must not alias a or b. */
ZK_HD void mul_wide_n_c(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{
    for (size_t i = 0; i < 2 * n; i++)
        ret[i] = 0;
    for (size_t i = 0; i < n; i++) {
        dlimb_t c = 0;
        for (size_t j = 0; j < n; j++) {
            c += (dlimb_t)a[j] * b[i] + ret[i + j];
            ret[i + j] = (limb_t)c;
            c >>= 64;
        }
        ret[i + n] = (limb_t)c;
    }
}

ZK_HD void mul_wide_n(limb_t *ret, const limb_t *a, const limb_t *b, size_t n)
{
#if ZK_FF_ASM
    if (n == 4) {
        mul_wide_4_x86(ret, a, b);
        return;
    }
    if (n == 6) {
        mul_wide_6_x86(ret, a, b);
        return;
    }
#endif
    mul_wide_n_c(ret, a, b, n);
}

/*
 * ret = t * 2^(-64n) mod p, fully reduced, for t (2n limbs) < p * 2^(64n)
 * (Montgomery reduction of a double-width value).  The low half is reduced
 * n rounds (m = t0 * n0, add m*p, drop the zero word), leaving
 * u = (t_lo + M p) / 2^(64n) <= p; then u + t_hi < 2p because t_hi < p, and
 * one conditional subtraction finishes.  ret may not alias t.
 */
ZK_HD void redc_n_c(limb_t *ret, const limb_t *t, const limb_t *p, limb_t n0, size_t n)
{
    limb_t u[ZK_MAX_LIMBS + 1];
    for (size_t i = 0; i < n; i++)
        u[i] = t[i];
    for (size_t i = 0; i < n; i++) {
        limb_t m = u[0] * n0;
        dlimb_t c = ((dlimb_t)m * p[0] + u[0]) >> 64;
        for (size_t j = 1; j < n; j++) {
            c += (dlimb_t)m * p[j] + u[j];
            u[j - 1] = (limb_t)c;
            c >>= 64;
        }
        u[n - 1] = (limb_t)c;                  /* the value < 2^(64(n-1)) + p fits */
    }
    add_n(u, u, t + n, n);                     /* < 2p: no carry out (spare bit) */
    cond_sub_n(ret, u, p, n);
}

ZK_HD void redc_n(limb_t *ret, const limb_t *t, const limb_t *p, limb_t n0, size_t n)
{
#if ZK_FF_ASM
    if (__builtin_constant_p(n0) && n == 4) {
        redc_4_x86(ret, t, p, n0);
        return;
    }
    if (__builtin_constant_p(n0) && n == 6) {
        redc_6_x86(ret, t, p, n0);
        return;
    }
#endif
    redc_n_c(ret, t, p, n0, n);
}

/* ---- inversion: binary GCD on 64-bit approximations (after Pornin 2020) ---- */

/* Number of 31-step batches inv_mod_n runs: 31 * batches >= 2 * 64n + 31. */
#define ZK_INV_BATCHES(n) ((128 * (n) + 61) / 31)

/* bit length of a (0 for 0) */
ZK_HD unsigned bitlen_n(const limb_t *a, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (a[i])
            return (unsigned)(64 * i + 64 - (unsigned)__builtin_clzll(a[i]));
    }
    return 0;
}

/* bits [s, s + 64) of a (s < 64n; bits past the top read as 0) */
ZK_HD limb_t bits64_n(const limb_t *a, unsigned s, size_t n)
{
    size_t w = s / 64;
    unsigned sh = s % 64;
    limb_t lo = a[w] >> sh;
    if (sh && w + 1 < n)
        lo |= a[w + 1] << (64 - sh);
    return lo;
}

/*
 * out = (f * a + g * b) as a signed (n+1)-limb two's complement integer,
 * a, b unsigned n limbs, |f|, |g| <= 2^62.
 */
ZK_HD void lincomb_n(limb_t *out, const limb_t *a, int64_t f, const limb_t *b,
                     int64_t g, size_t n)
{
    limb_t fa = (limb_t)(f < 0 ? -f : f), ga = (limb_t)(g < 0 ? -g : g);
    limb_t fm = (limb_t)0 - (limb_t)(f < 0), gm = (limb_t)0 - (limb_t)(g < 0);
    dlimb_t cf = 0, cg = 0;
    limb_t bf = fm & 1, bg = gm & 1;              /* +1 of the two's complement */
    dlimb_t acc = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n) {
            cf += (dlimb_t)a[i] * fa;
            cg += (dlimb_t)b[i] * ga;
        }
        dlimb_t x = (dlimb_t)(((limb_t)cf ^ fm)) + bf;   /* limb of +-f*a */
        dlimb_t y = (dlimb_t)(((limb_t)cg ^ gm)) + bg;
        bf = (limb_t)(x >> 64);
        bg = (limb_t)(y >> 64);
        acc += (dlimb_t)(limb_t)x + (limb_t)y;
        out[i] = (limb_t)acc;
        acc >>= 64;
        cf >>= 64;
        cg >>= 64;
    }
}

/*
 * a = |x| >> 31 for x signed (n+1) limbs whose shifted value fits in n limbs;
 * returns 1 if x was negative.
 */
ZK_HD int shr31_abs_n(limb_t *a, limb_t *x, size_t n)
{
    limb_t neg = (limb_t)0 - (x[n] >> 63);
    limb_t c = neg & 1;
    for (size_t i = 0; i <= n; i++) {          /* x = |x| */
        dlimb_t t = (dlimb_t)(x[i] ^ neg) + c;
        x[i] = (limb_t)t;
        c = (limb_t)(t >> 64);
    }
    for (size_t i = 0; i < n; i++)
        a[i] = (x[i] >> 31) | (x[i + 1] << 33);
    return (int)(neg & 1);
}

/*
 * ret = (f * u + g * v) * 2^-64 mod p, u, v < p, |f|, |g| <= 2^32.
 */
ZK_HD void lincomb_mod_n(limb_t *ret, const limb_t *u, int64_t f, const limb_t *v,
                         int64_t g, const limb_t *p, limb_t n0, size_t n)
{
    limb_t us[ZK_MAX_LIMBS], vs[ZK_MAX_LIMBS], x[ZK_MAX_LIMBS + 1];
    if (f < 0) {
        neg_mod_n(us, u, p, n);
        f = -f;
    } else {
        copy_n(us, u, n);
    }
    if (g < 0) {
        neg_mod_n(vs, v, p, n);
        g = -g;
    } else {
        copy_n(vs, v, n);
    }
    /* x = us*f + vs*g < 2^34 p: n + 1 limbs */
    dlimb_t c = 0;
    for (size_t i = 0; i < n; i++) {
        dlimb_t t = (dlimb_t)us[i] * (limb_t)f;
        dlimb_t s = (dlimb_t)vs[i] * (limb_t)g;
        c += (dlimb_t)(limb_t)t + (limb_t)s;
        x[i] = (limb_t)c;
        c = (c >> 64) + (t >> 64) + (s >> 64);
    }
    x[n] = (limb_t)c;
    /* one Montgomery step: (x + m p) / 2^64 < p + 2^-30 p < 2p */
    limb_t m = x[0] * n0;
    c = ((dlimb_t)m * p[0] + x[0]) >> 64;
    for (size_t i = 1; i < n; i++) {
        c += (dlimb_t)m * p[i] + x[i];
        x[i - 1] = (limb_t)c;
        c >>= 64;
    }
    x[n - 1] = (limb_t)c + x[n];
    cond_sub_n(ret, x, p, n);
}

/*
 * ret = a^-1 * K * R^-1 mod p for 0 < a < p ("raw" inverse, see inv_mont_n),
 * by the binary extended GCD with 31 steps at a time on 64-bit approximations
 * of the two values (exact low 31 bits, top 33 bits), the steps' 2x2 matrix
 * then applied to the full values (Pornin, "Optimized Binary GCD for Modular
 * Inversion", 2020).  Runs at most ZK_INV_BATCHES(n) batches (it stops
 * once a is 0: bench field's BN254 fp_inv 5.1 -> 3.4 us).  Returns 1 on success,
 * 0 if the GCD did not reach 1 (a = 0, or, should the approximation ever
 * fail to converge, never observed; the caller falls back then).
 * Variable time: fine for public data (what zkslot inverts), not for secrets.
 */
ZK_HD int inv_gcd_n(limb_t *ret, const limb_t *a_in, const limb_t *p, limb_t n0,
                    const limb_t *K, size_t n)
{
    limb_t a[ZK_MAX_LIMBS], b[ZK_MAX_LIMBS], u[ZK_MAX_LIMBS], v[ZK_MAX_LIMBS];
    limb_t x[ZK_MAX_LIMBS + 1], y[ZK_MAX_LIMBS + 1], t[ZK_MAX_LIMBS];
    copy_n(a, a_in, n);
    copy_n(b, p, n);
    zero_n(u, n);
    zero_n(v, n);
    u[0] = 1;
    for (size_t it = 0; it < ZK_INV_BATCHES(n); it++) {
        unsigned la = bitlen_n(a, n), lb = bitlen_n(b, n);
        unsigned len = la > lb ? la : lb;
        limb_t ah, bh;
        if (len <= 64) {
            ah = a[0];
            bh = b[0];
        } else {
            limb_t lowm = ((limb_t)1 << 31) - 1;
            ah = (a[0] & lowm) | (bits64_n(a, len - 33, n) << 31);
            bh = (b[0] & lowm) | (bits64_n(b, len - 33, n) << 31);
        }
        int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        for (int j = 0; j < 31; j++) {
            limb_t odd = (limb_t)0 - (ah & 1);
            limb_t sw = odd & ((limb_t)0 - (limb_t)(ah < bh));
            limb_t d = (ah ^ bh) & sw;
            ah ^= d;
            bh ^= d;
            int64_t df = (f0 ^ f1) & (int64_t)sw, dg = (g0 ^ g1) & (int64_t)sw;
            f0 ^= df; f1 ^= df;
            g0 ^= dg; g1 ^= dg;
            ah -= bh & odd;
            f0 -= f1 & (int64_t)odd;
            g0 -= g1 & (int64_t)odd;
            ah >>= 1;
            f1 *= 2;
            g1 *= 2;
        }
        lincomb_n(x, a, f0, b, g0, n);
        lincomb_n(y, a, f1, b, g1, n);
        if (shr31_abs_n(a, x, n)) {
            f0 = -f0;
            g0 = -g0;
        }
        if (shr31_abs_n(b, y, n)) {
            f1 = -f1;
            g1 = -g1;
        }
        lincomb_mod_n(t, u, f0, v, g0, p, n0, n);
        lincomb_mod_n(v, u, f1, v, g1, p, n0, n);
        copy_n(u, t, n);
        if (is_zero_n(a, n)) {
            /* done early (the batches' count is the worst case): a batch
             * of a = 0 would leave b, and v times 2^31 * 2^-64 (its
             * steps' matrix is (1, 0; 0, 2^31)): that factor alone, once
             * per batch left, which the constant K expects */
            for (size_t left = ZK_INV_BATCHES(n) - 1 - it; left > 0; left--)
                lincomb_mod_n(v, u, 0, v, (int64_t)1 << 31, p, n0, n);
            break;
        }
    }
    /* now a = 0, b = gcd = 1 and v = a_in^-1 * 2^-(33 * batches) */
    limb_t one[ZK_MAX_LIMBS];
    zero_n(one, n);
    one[0] = 1;
    if (!is_zero_n(a, n) || !eq_n(b, one, n))
        return 0;
    mul_mont_n(ret, v, K, p, n0, n);
    return 1;
}

/* bit i of a little-endian limb vector. */
ZK_HD unsigned bit_n(const limb_t *a, size_t i)
{
    return (unsigned)(a[i / 64] >> (i % 64)) & 1;
}

#endif /* ZK_COMMON_FF_VEC_H */

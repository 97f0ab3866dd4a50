/*
 * ifma_bn254.h -- eight BN254 base-field elements (Fp, and Fp2 on top) at a
 * time with AVX-512 IFMA (the 52-bit multiply-adds VPMADD52LUQ /
 * VPMADD52HUQ), for the G1 and G2 MSMs' batched affine additions
 * (msm/msm_flush_ifma.h).
 *
 * struct zk_fp8 holds eight elements, one per 64-bit lane, as five limbs of
 * 52 bits: lane j of l[i] is bits 52 i .. 52 i + 51 of element j.  An
 * element is "normalized" when every limb is below 2^52.  The elements are
 * bn254_fp values as the rest of the code keeps them (Montgomery form for
 * R = 2^256), but zk_fp8_mul is the Montgomery product for R' = 2^260:
 *   zk_fp8_mul(a, b) = a b 2^-260 mod p,
 * so in terms of the values represented each product carries an extra
 * factor 2^-4, which the caller keeps track of (sums and differences carry
 * none).  Bounds:
 *   zk_fp8_mul     inputs normalized with a b < p 2^260 (both below 2^256, or
 *                  one below 12p and the other below 2p); output normalized
 *                  and below 2p (a b / 2^260 + p), not reduced
 *   zk_fp8_reduce  input normalized, below 2p; output canonical (below p)
 *   zk_fp8_add, zk_fp8_sub, zk_fp8_neg_mask  inputs canonical; output canonical
 *   zk_fp8_load    eight bn254_fp by pointer (any alignment), each below 2^256
 *   zk_fp8_store   input normalized, below 2^256
 *   zk_fp8_load_soa, zk_fp8_store_soa  32 limbs, limb i of lane j at [8 i + j]
 *                  (the 64-bit limbs, not the 52-bit ones)
 *   zk_fp8_den, _dy, _sub4, _x3, _y3  the MSM batch's fused steps: lazy
 *                  differences (one carry pass, below 3p or 12p) and x3, y3
 *                  reduced from below 4p, 3p; bounds at each
 * zk_fp2x8 is eight bn254_fp2 (c0, c1 each a zk_fp8), with the same
 * functions named zk_fp2x8_*: its product is componentwise the M above
 * (Karatsuba, three of them), inputs' and output's components below 2p;
 * the others as zk_fp8's.  None can fail.
 *
 * ZK_IFMA_BN254 is 1 where the code exists (x86-64, GCC or clang, not
 * CUDA): every function is then compiled for avx512f+avx512vl+avx512ifma
 * (ZK_IFMA_TARGET) whatever the build's -march, and may be called only
 * where zk_ifma_bn254_on() (ifma.c) is 1.  Elsewhere ZK_IFMA_BN254 is 0 and
 * zk_ifma_bn254_on() always 0.
 */
#ifndef ZK_COMMON_FF_IFMA_BN254_H
#define ZK_COMMON_FF_IFMA_BN254_H

#include "zk/types.h"

/*
 * 1 if the BN254 MSMs (G1, G2) use the IFMA batch: the CPU has AVX-512 F, VL
 * and IFMA (and the OS saves their registers), and the environment variable
 * ZKSLOT_NO_IFMA is unset, empty or "0".  Read once, then cached; cannot
 * fail.
 */
int zk_ifma_bn254_on(void);

/*
 * Tests: on = 0 forces the scalar path, 1 the IFMA path where the CPU has
 * it, -1 forgets the choice (the next zk_ifma_bn254_on() reads the CPU and
 * the environment again).  Returns what zk_ifma_bn254_on() now returns.
 * Not to be called while an MSM runs.
 */
int zk_ifma_bn254_force(int on);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define ZK_IFMA_BN254 1
#else
#define ZK_IFMA_BN254 0
#endif

#if ZK_IFMA_BN254
#include <immintrin.h>

#define ZK_IFMA_TARGET __attribute__((target("avx512f,avx512vl,avx512ifma")))
#define ZK_IFMA_INLINE static inline __attribute__((always_inline)) ZK_IFMA_TARGET

typedef struct { __m512i l[5]; } zk_fp8;

#define ZK_IFMA_MASK 0xfffffffffffffULL              /* 2^52 - 1 */
/* p in 52-bit limbs (tests/test_ifma.c checks them against BN254_FP_P) */
#define ZK_IFMA_P0 0x8c16d87cfd47ULL
#define ZK_IFMA_P1 0x916871ca8d3c2ULL
#define ZK_IFMA_P2 0x181585d97816aULL
#define ZK_IFMA_P3 0xa029b85045b68ULL
#define ZK_IFMA_P4 0x30644e72e131ULL
#define ZK_IFMA_N0 0x20782e4866389ULL                /* -p^-1 mod 2^52 */
#define ZK_IFMA_P52 { ZK_IFMA_P0, ZK_IFMA_P1, ZK_IFMA_P2, ZK_IFMA_P3, ZK_IFMA_P4 }

/* Four 64-bit limb vectors (a value below 2^256) into 52-bit limbs. */
ZK_IFMA_INLINE void zk_fp8_from64(zk_fp8 *r, __m512i L0, __m512i L1, __m512i L2, __m512i L3)
{
    const __m512i M = _mm512_set1_epi64((long long)ZK_IFMA_MASK);
    r->l[0] = _mm512_and_si512(L0, M);
    r->l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L0, 52),
                                               _mm512_slli_epi64(L1, 12)), M);
    r->l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L1, 40),
                                               _mm512_slli_epi64(L2, 24)), M);
    r->l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(L2, 28),
                                               _mm512_slli_epi64(L3, 36)), M);
    r->l[4] = _mm512_srli_epi64(L3, 16);
}

/* The inverse of zk_fp8_from64 (a normalized, below 2^256). */
ZK_IFMA_INLINE void zk_fp8_to64(__m512i L[4], const zk_fp8 *a)
{
    L[0] = _mm512_or_si512(a->l[0], _mm512_slli_epi64(a->l[1], 52));
    L[1] = _mm512_or_si512(_mm512_srli_epi64(a->l[1], 12), _mm512_slli_epi64(a->l[2], 40));
    L[2] = _mm512_or_si512(_mm512_srli_epi64(a->l[2], 24), _mm512_slli_epi64(a->l[3], 28));
    L[3] = _mm512_or_si512(_mm512_srli_epi64(a->l[3], 36), _mm512_slli_epi64(a->l[4], 16));
}

/* Two elements (32 bytes each) in one register: lanes 0-3 from a, 4-7 from b. */
ZK_IFMA_INLINE __m512i zk_fp8_pair(const bn254_fp *a, const bn254_fp *b)
{
    __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)a));
    return _mm512_inserti64x4(v, _mm256_loadu_si256((const __m256i *)(const void *)b), 1);
}

/* r = the eight elements *p[0] .. *p[7] (a transpose of their 64-bit limbs). */
ZK_IFMA_INLINE void zk_fp8_load(zk_fp8 *r, const bn254_fp *const p[8])
{
    /* A = e0 | e1, B = e2 | e3, ...; P01 = limbs 0 and 1 of e0..e3, and so on */
    const __m512i i01 = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i i23 = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
    __m512i A = zk_fp8_pair(p[0], p[1]), B = zk_fp8_pair(p[2], p[3]);
    __m512i C = zk_fp8_pair(p[4], p[5]), D = zk_fp8_pair(p[6], p[7]);
    __m512i P01 = _mm512_permutex2var_epi64(A, i01, B), Q01 = _mm512_permutex2var_epi64(C, i01, D);
    __m512i P23 = _mm512_permutex2var_epi64(A, i23, B), Q23 = _mm512_permutex2var_epi64(C, i23, D);
    zk_fp8_from64(r, _mm512_shuffle_i64x2(P01, Q01, 0x44), _mm512_shuffle_i64x2(P01, Q01, 0xee),
                  _mm512_shuffle_i64x2(P23, Q23, 0x44), _mm512_shuffle_i64x2(P23, Q23, 0xee));
}

/* *p[j] = lane j of a, for j < 8 (the inverse of zk_fp8_load). */
ZK_IFMA_INLINE void zk_fp8_store(bn254_fp *const p[8], const zk_fp8 *a)
{
    const __m512i i01 = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i i23 = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
    __m512i L[4];
    zk_fp8_to64(L, a);
    __m512i P01 = _mm512_shuffle_i64x2(L[0], L[1], 0x44);
    __m512i Q01 = _mm512_shuffle_i64x2(L[0], L[1], 0xee);
    __m512i P23 = _mm512_shuffle_i64x2(L[2], L[3], 0x44);
    __m512i Q23 = _mm512_shuffle_i64x2(L[2], L[3], 0xee);
    __m512i E[4] = { _mm512_permutex2var_epi64(P01, i01, P23),
                     _mm512_permutex2var_epi64(P01, i23, P23),
                     _mm512_permutex2var_epi64(Q01, i01, Q23),
                     _mm512_permutex2var_epi64(Q01, i23, Q23) };
    for (int k = 0; k < 4; k++) {
        _mm256_storeu_si256((__m256i *)(void *)p[2 * k], _mm512_castsi512_si256(E[k]));
        _mm256_storeu_si256((__m256i *)(void *)p[2 * k + 1], _mm512_extracti64x4_epi64(E[k], 1));
    }
}

/* r = the eight elements of s (limb i of lane j at s[8 i + j]). */
ZK_IFMA_INLINE void zk_fp8_load_soa(zk_fp8 *r, const limb_t *s)
{
    zk_fp8_from64(r, _mm512_loadu_si512(s), _mm512_loadu_si512(s + 8),
                  _mm512_loadu_si512(s + 16), _mm512_loadu_si512(s + 24));
}

/* s = a's eight elements, as zk_fp8_load_soa reads them (a below 2^256). */
ZK_IFMA_INLINE void zk_fp8_store_soa(limb_t *s, const zk_fp8 *a)
{
    __m512i L[4];
    zk_fp8_to64(L, a);
    for (int i = 0; i < 4; i++)
        _mm512_storeu_si512(s + 8 * i, L[i]);
}

/* r = x in every lane. */
ZK_IFMA_INLINE void zk_fp8_bcast(zk_fp8 *r, const bn254_fp *x)
{
    zk_fp8_from64(r, _mm512_set1_epi64((long long)x->l[0]), _mm512_set1_epi64((long long)x->l[1]),
                  _mm512_set1_epi64((long long)x->l[2]), _mm512_set1_epi64((long long)x->l[3]));
}

/* The lanes where a is zero (a normalized). */
ZK_IFMA_INLINE __mmask8 zk_fp8_zero_mask(const zk_fp8 *a)
{
    __m512i o = _mm512_or_si512(_mm512_or_si512(a->l[0], a->l[1]),
                                _mm512_or_si512(_mm512_or_si512(a->l[2], a->l[3]), a->l[4]));
    return _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}

/* r = b where mask, a elsewhere. */
ZK_IFMA_INLINE void zk_fp8_blend(zk_fp8 *r, __mmask8 mask, const zk_fp8 *a, const zk_fp8 *b)
{
    for (int i = 0; i < 5; i++)
        r->l[i] = _mm512_mask_blend_epi64(mask, a->l[i], b->l[i]);
}

/* Signed limbs (each within +-2^62) carried into 52-bit ones; returns the
 * final carry (0 or -1 where the value was negative, for the callers' ranges). */
ZK_IFMA_INLINE __m512i zk_fp8_carry(zk_fp8 *r, const __m512i t[5])
{
    const __m512i M = _mm512_set1_epi64((long long)ZK_IFMA_MASK);
    __m512i c = _mm512_setzero_si512();
    for (int i = 0; i < 5; i++) {
        __m512i v = _mm512_add_epi64(t[i], c);
        c = _mm512_srai_epi64(v, 52);
        r->l[i] = _mm512_and_si512(v, M);
    }
    return c;
}

/* r = a - k where a >= k, else a (a and the constant k normalized, a below 2k). */
ZK_IFMA_INLINE void zk_fp8_csub(zk_fp8 *r, const zk_fp8 *a, const unsigned long long k[5])
{
    __m512i t[5];
    zk_fp8 d;
    for (int i = 0; i < 5; i++)
        t[i] = _mm512_sub_epi64(a->l[i], _mm512_set1_epi64((long long)k[i]));
    __mmask8 neg = _mm512_cmplt_epi64_mask(zk_fp8_carry(&d, t), _mm512_setzero_si512());
    zk_fp8_blend(r, neg, &d, a);
}

/* r = a - p where a >= p, else a (a normalized, below 2p). */
ZK_IFMA_INLINE void zk_fp8_reduce(zk_fp8 *r, const zk_fp8 *a)
{
    static const unsigned long long P[5] = ZK_IFMA_P52;
    zk_fp8_csub(r, a, P);
}

/* r = a + b mod p (canonical inputs and output). */
ZK_IFMA_INLINE void zk_fp8_add(zk_fp8 *r, const zk_fp8 *a, const zk_fp8 *b)
{
    zk_fp8 s;
    __m512i t[5];
    for (int i = 0; i < 5; i++)
        t[i] = _mm512_add_epi64(a->l[i], b->l[i]);
    zk_fp8_carry(&s, t);                          /* below 2p < 2^255: no carry out */
    zk_fp8_reduce(r, &s);
}

/* r = a - b mod p (canonical inputs and output). */
ZK_IFMA_INLINE void zk_fp8_sub(zk_fp8 *r, const zk_fp8 *a, const zk_fp8 *b)
{
    static const unsigned long long P[5] = ZK_IFMA_P52;
    zk_fp8 d, e;
    __m512i t[5];
    for (int i = 0; i < 5; i++)
        t[i] = _mm512_sub_epi64(a->l[i], b->l[i]);
    __mmask8 neg = _mm512_cmplt_epi64_mask(zk_fp8_carry(&d, t), _mm512_setzero_si512());
    for (int i = 0; i < 5; i++)
        t[i] = _mm512_add_epi64(d.l[i], _mm512_set1_epi64((long long)P[i]));
    zk_fp8_carry(&e, t);                          /* d + p - 2^260 < p: drop the carry */
    zk_fp8_blend(r, neg, &d, &e);
}

/* 2p in 52-bit limbs (normalized) */
#define ZK_IFMA_2P0 0x1182db0f9fa8eULL
#define ZK_IFMA_2P1 0x22d0e3951a784ULL
#define ZK_IFMA_2P2 0x302b0bb2f02d5ULL
#define ZK_IFMA_2P3 0x405370a08b6d0ULL
#define ZK_IFMA_2P4 0x60c89ce5c263ULL
#define ZK_IFMA_2P52 { ZK_IFMA_2P0, ZK_IFMA_2P1, ZK_IFMA_2P2, ZK_IFMA_2P3, ZK_IFMA_2P4 }
/* 4p (normalized) */
#define ZK_IFMA_4P52 { 0x2305b61f3f51cULL, 0x45a1c72a34f08ULL, 0x60561765e05aaULL, \
                       0x80a6e14116da0ULL, 0xc19139cb84c6ULL }

/* r = a - 2p where a >= 2p, else a (a normalized, below 4p). */
ZK_IFMA_INLINE void zk_fp8_csub2p(zk_fp8 *r, const zk_fp8 *a)
{
    static const unsigned long long P2[5] = ZK_IFMA_2P52;
    zk_fp8_csub(r, a, P2);
}

/* The lanes where a = b (both canonical). */
ZK_IFMA_INLINE __mmask8 zk_fp8_eq_mask(const zk_fp8 *a, const zk_fp8 *b)
{
    __mmask8 m = 0xff;
    for (int i = 0; i < 5; i++)
        m &= _mm512_cmpeq_epi64_mask(a->l[i], b->l[i]);
    return m;
}

/* The batch's fused steps (msm/msm_flush_ifma.h), inputs canonical, outputs
 * normalized; "lazy" ones are not reduced but stay where zk_fp8_mul's
 * bound (a b < p 2^260) holds with the other factor below 2p. */

/* r = x2 - x1 + 2p, lazy: in (p, 3p). */
ZK_IFMA_INLINE void zk_fp8_den(zk_fp8 *r, const zk_fp8 *x2, const zk_fp8 *x1)
{
    static const unsigned long long P2[5] = ZK_IFMA_2P52;
    __m512i t[5];
    for (int i = 0; i < 5; i++)
        t[i] = _mm512_add_epi64(_mm512_sub_epi64(x2->l[i], x1->l[i]),
                                _mm512_set1_epi64((long long)P2[i]));
    zk_fp8_carry(r, t);
}

/* r = (-y2 where mask, else y2) - y1 + 2p, lazy: in [0, 3p). */
ZK_IFMA_INLINE void zk_fp8_dy(zk_fp8 *r, __mmask8 mask, const zk_fp8 *y2, const zk_fp8 *y1)
{
    static const unsigned long long P2[5] = ZK_IFMA_2P52;
    __m512i t[5];
    for (int i = 0; i < 5; i++) {
        __m512i s = _mm512_mask_sub_epi64(y2->l[i], mask, _mm512_setzero_si512(), y2->l[i]);
        t[i] = _mm512_add_epi64(_mm512_sub_epi64(s, y1->l[i]),
                                _mm512_set1_epi64((long long)P2[i]));
    }
    zk_fp8_carry(r, t);
}

/* r = lam2 - x1 - x2 mod p, canonical (lam2 normalized, below 2p). */
ZK_IFMA_INLINE void zk_fp8_x3(zk_fp8 *r, const zk_fp8 *lam2, const zk_fp8 *x1, const zk_fp8 *x2)
{
    static const unsigned long long P2[5] = ZK_IFMA_2P52;
    __m512i t[5];
    zk_fp8 u;
    for (int i = 0; i < 5; i++)                  /* in (0, 4p) */
        t[i] = _mm512_add_epi64(_mm512_sub_epi64(lam2->l[i],
                                                 _mm512_add_epi64(x1->l[i], x2->l[i])),
                                _mm512_set1_epi64((long long)P2[i]));
    zk_fp8_carry(&u, t);
    zk_fp8_csub2p(&u, &u);
    zk_fp8_reduce(r, &u);
}

/* r = 4 (x1 - x3 + 2p), lazy: in (4p, 12p) (a factor below 2p keeps
 * zk_fp8_mul's bound: 24 p^2 < p 2^260). */
ZK_IFMA_INLINE void zk_fp8_sub4(zk_fp8 *r, const zk_fp8 *x1, const zk_fp8 *x3)
{
    static const unsigned long long P2[5] = ZK_IFMA_2P52;
    __m512i t[5];
    for (int i = 0; i < 5; i++)
        t[i] = _mm512_slli_epi64(_mm512_add_epi64(_mm512_sub_epi64(x1->l[i], x3->l[i]),
                                                  _mm512_set1_epi64((long long)P2[i])), 2);
    zk_fp8_carry(r, t);
}

/* r = v - y1 mod p, canonical (v normalized, below 2p). */
ZK_IFMA_INLINE void zk_fp8_y3(zk_fp8 *r, const zk_fp8 *v, const zk_fp8 *y1)
{
    static const unsigned long long P[5] = ZK_IFMA_P52;
    __m512i t[5];
    zk_fp8 u;
    for (int i = 0; i < 5; i++)                  /* in (0, 3p) */
        t[i] = _mm512_add_epi64(_mm512_sub_epi64(v->l[i], y1->l[i]),
                                _mm512_set1_epi64((long long)P[i]));
    zk_fp8_carry(&u, t);
    zk_fp8_csub2p(&u, &u);
    zk_fp8_reduce(r, &u);
}

/* r = -a mod p where mask, a elsewhere (a canonical). */
ZK_IFMA_INLINE void zk_fp8_neg_mask(zk_fp8 *r, __mmask8 mask, const zk_fp8 *a)
{
    zk_fp8 z, n;
    for (int i = 0; i < 5; i++)
        z.l[i] = _mm512_setzero_si512();
    zk_fp8_sub(&n, &z, a);
    zk_fp8_blend(r, mask, a, &n);
}

/*
 * r = a b 2^-260 mod p, below 2p (a, b normalized, a b < p 2^260): five
 * rounds of operand scanning, each adding a b[i] and m p (m = t0 (-p^-1)
 * mod 2^52, so that the low limb becomes 0) and shifting down one limb.
 * The limbs of t are not carried in between (each stays below 2^57).
 */
ZK_IFMA_INLINE void zk_fp8_mul(zk_fp8 *r, const zk_fp8 *a, const zk_fp8 *b)
{
    const __m512i z = _mm512_setzero_si512(), n0 = _mm512_set1_epi64((long long)ZK_IFMA_N0);
    const __m512i p0 = _mm512_set1_epi64((long long)ZK_IFMA_P0);
    const __m512i p1 = _mm512_set1_epi64((long long)ZK_IFMA_P1);
    const __m512i p2 = _mm512_set1_epi64((long long)ZK_IFMA_P2);
    const __m512i p3 = _mm512_set1_epi64((long long)ZK_IFMA_P3);
    const __m512i p4 = _mm512_set1_epi64((long long)ZK_IFMA_P4);
    const __m512i a0 = a->l[0], a1 = a->l[1], a2 = a->l[2], a3 = a->l[3], a4 = a->l[4];
    __m512i t0 = z, t1 = z, t2 = z, t3 = z, t4 = z, t5;
    for (int i = 0; i < 5; i++) {
        const __m512i bi = b->l[i];
        t0 = _mm512_madd52lo_epu64(t0, a0, bi);
        t1 = _mm512_madd52lo_epu64(t1, a1, bi);
        t2 = _mm512_madd52lo_epu64(t2, a2, bi);
        t3 = _mm512_madd52lo_epu64(t3, a3, bi);
        t4 = _mm512_madd52lo_epu64(t4, a4, bi);
        const __m512i m = _mm512_madd52lo_epu64(z, t0, n0);
        t5 = _mm512_madd52hi_epu64(z, a4, bi);
        t1 = _mm512_madd52hi_epu64(t1, a0, bi);
        t2 = _mm512_madd52hi_epu64(t2, a1, bi);
        t3 = _mm512_madd52hi_epu64(t3, a2, bi);
        t4 = _mm512_madd52hi_epu64(t4, a3, bi);
        t0 = _mm512_madd52lo_epu64(t0, m, p0);
        t1 = _mm512_madd52lo_epu64(t1, m, p1);
        t2 = _mm512_madd52lo_epu64(t2, m, p2);
        t3 = _mm512_madd52lo_epu64(t3, m, p3);
        t4 = _mm512_madd52lo_epu64(t4, m, p4);
        t1 = _mm512_madd52hi_epu64(t1, m, p0);
        t2 = _mm512_madd52hi_epu64(t2, m, p1);
        t3 = _mm512_madd52hi_epu64(t3, m, p2);
        t4 = _mm512_madd52hi_epu64(t4, m, p3);
        t5 = _mm512_madd52hi_epu64(t5, m, p4);
        t0 = _mm512_add_epi64(t1, _mm512_srli_epi64(t0, 52));   /* low 52 bits are 0 */
        t1 = t2;
        t2 = t3;
        t3 = t4;
        t4 = t5;
    }
    __m512i t[5] = { t0, t1, t2, t3, t4 };
    zk_fp8_carry(r, t);
}

/* ---- Fp2 = Fp[u]/(u^2 + 1), eight at a time: zk_fp2x8 ------------------- */

typedef struct { zk_fp8 c0, c1; } zk_fp2x8;

/* r = the eight elements *p[0] .. *p[7]. */
ZK_IFMA_INLINE void zk_fp2x8_load(zk_fp2x8 *r, const bn254_fp2 *const p[8])
{
    const bn254_fp *q0[8], *q1[8];
    for (int j = 0; j < 8; j++) {
        q0[j] = &p[j]->c0;
        q1[j] = &p[j]->c1;
    }
    zk_fp8_load(&r->c0, q0);
    zk_fp8_load(&r->c1, q1);
}

/* *p[j] = lane j of a (components normalized, below 2^256). */
ZK_IFMA_INLINE void zk_fp2x8_store(bn254_fp2 *const p[8], const zk_fp2x8 *a)
{
    bn254_fp *q0[8], *q1[8];
    for (int j = 0; j < 8; j++) {
        q0[j] = &p[j]->c0;
        q1[j] = &p[j]->c1;
    }
    zk_fp8_store(q0, &a->c0);
    zk_fp8_store(q1, &a->c1);
}

/* 64 limbs: c0 as zk_fp8_load_soa reads it, then c1. */
ZK_IFMA_INLINE void zk_fp2x8_load_soa(zk_fp2x8 *r, const limb_t *s)
{
    zk_fp8_load_soa(&r->c0, s);
    zk_fp8_load_soa(&r->c1, s + 32);
}

ZK_IFMA_INLINE void zk_fp2x8_store_soa(limb_t *s, const zk_fp2x8 *a)
{
    zk_fp8_store_soa(s, &a->c0);
    zk_fp8_store_soa(s + 32, &a->c1);
}

ZK_IFMA_INLINE void zk_fp2x8_bcast(zk_fp2x8 *r, const bn254_fp2 *x)
{
    zk_fp8_bcast(&r->c0, &x->c0);
    zk_fp8_bcast(&r->c1, &x->c1);
}

ZK_IFMA_INLINE __mmask8 zk_fp2x8_zero_mask(const zk_fp2x8 *a)
{
    return zk_fp8_zero_mask(&a->c0) & zk_fp8_zero_mask(&a->c1);
}

ZK_IFMA_INLINE void zk_fp2x8_blend(zk_fp2x8 *r, __mmask8 mask, const zk_fp2x8 *a,
                                   const zk_fp2x8 *b)
{
    zk_fp8_blend(&r->c0, mask, &a->c0, &b->c0);
    zk_fp8_blend(&r->c1, mask, &a->c1, &b->c1);
}

/* Components below 2p (zk_fp2x8_mul's) to canonical. */
ZK_IFMA_INLINE void zk_fp2x8_reduce(zk_fp2x8 *r, const zk_fp2x8 *a)
{
    zk_fp8_reduce(&r->c0, &a->c0);
    zk_fp8_reduce(&r->c1, &a->c1);
}

ZK_IFMA_INLINE void zk_fp2x8_add(zk_fp2x8 *r, const zk_fp2x8 *a, const zk_fp2x8 *b)
{
    zk_fp8_add(&r->c0, &a->c0, &b->c0);
    zk_fp8_add(&r->c1, &a->c1, &b->c1);
}

ZK_IFMA_INLINE void zk_fp2x8_sub(zk_fp2x8 *r, const zk_fp2x8 *a, const zk_fp2x8 *b)
{
    zk_fp8_sub(&r->c0, &a->c0, &b->c0);
    zk_fp8_sub(&r->c1, &a->c1, &b->c1);
}

ZK_IFMA_INLINE void zk_fp2x8_neg_mask(zk_fp2x8 *r, __mmask8 mask, const zk_fp2x8 *a)
{
    zk_fp8_neg_mask(&r->c0, mask, &a->c0);
    zk_fp8_neg_mask(&r->c1, mask, &a->c1);
}

/* The fused steps of zk_fp8 on Fp2 (zk_fp2x8_mul wants its inputs' components
 * below 2p): den = x2 - x1, dy = +-y2 - y1 and sub4 = 4 (x1 - x3) canonical
 * from canonical inputs; x3 and y3 as zk_fp8's (lam2 and v below 2p). */
ZK_IFMA_INLINE __mmask8 zk_fp2x8_eq_mask(const zk_fp2x8 *a, const zk_fp2x8 *b)
{
    return zk_fp8_eq_mask(&a->c0, &b->c0) & zk_fp8_eq_mask(&a->c1, &b->c1);
}

ZK_IFMA_INLINE void zk_fp2x8_den(zk_fp2x8 *r, const zk_fp2x8 *x2, const zk_fp2x8 *x1)
{
    zk_fp2x8_sub(r, x2, x1);
}

ZK_IFMA_INLINE void zk_fp2x8_dy(zk_fp2x8 *r, __mmask8 mask, const zk_fp2x8 *y2,
                                const zk_fp2x8 *y1)
{
    zk_fp2x8 n;
    zk_fp2x8_neg_mask(&n, mask, y2);
    zk_fp2x8_sub(r, &n, y1);
}

ZK_IFMA_INLINE void zk_fp2x8_x3(zk_fp2x8 *r, const zk_fp2x8 *lam2, const zk_fp2x8 *x1,
                                const zk_fp2x8 *x2)
{
    zk_fp8_x3(&r->c0, &lam2->c0, &x1->c0, &x2->c0);
    zk_fp8_x3(&r->c1, &lam2->c1, &x1->c1, &x2->c1);
}

ZK_IFMA_INLINE void zk_fp2x8_sub4(zk_fp2x8 *r, const zk_fp2x8 *x1, const zk_fp2x8 *x3)
{
    zk_fp2x8_sub(r, x1, x3);
    zk_fp2x8_add(r, r, r);
    zk_fp2x8_add(r, r, r);
}

ZK_IFMA_INLINE void zk_fp2x8_y3(zk_fp2x8 *r, const zk_fp2x8 *v, const zk_fp2x8 *y1)
{
    zk_fp8_y3(&r->c0, &v->c0, &y1->c0);
    zk_fp8_y3(&r->c1, &v->c1, &y1->c1);
}

/*
 * r = a b with every component's product M (a factor 2^-4 off, as
 * zk_fp8_mul): (a0 b0 - a1 b1, (a0 + a1)(b0 + b1) - a0 b0 - a1 b1), three
 * products (the sums below 4p: 16 p^2 < p 2^260).  Components of the
 * inputs and the output normalized and below 2p: c0 = t0 - t1 + 2p and
 * c1 = t2 - t0 - t1 + 4p, one carry pass each, then brought below 2p by
 * conditional subtractions of 4p and 2p.
 */
ZK_IFMA_INLINE void zk_fp2x8_mul(zk_fp2x8 *r, const zk_fp2x8 *a, const zk_fp2x8 *b)
{
    static const unsigned long long P2[5] = ZK_IFMA_2P52;
    static const unsigned long long P4[5] = ZK_IFMA_4P52;
    zk_fp8 t0, t1, t2, sa, sb;
    __m512i u[5], v[5];
    for (int i = 0; i < 5; i++) {
        u[i] = _mm512_add_epi64(a->c0.l[i], a->c1.l[i]);
        v[i] = _mm512_add_epi64(b->c0.l[i], b->c1.l[i]);
    }
    zk_fp8_carry(&sa, u);
    zk_fp8_carry(&sb, v);
    zk_fp8_mul(&t0, &a->c0, &b->c0);
    zk_fp8_mul(&t1, &a->c1, &b->c1);
    zk_fp8_mul(&t2, &sa, &sb);
    for (int i = 0; i < 5; i++) {
        __m512i p2 = _mm512_set1_epi64((long long)P2[i]);
        u[i] = _mm512_add_epi64(_mm512_sub_epi64(t0.l[i], t1.l[i]), p2);
        v[i] = _mm512_add_epi64(_mm512_sub_epi64(t2.l[i], _mm512_add_epi64(t0.l[i], t1.l[i])),
                                _mm512_add_epi64(p2, p2));
    }
    zk_fp8_carry(&r->c0, u);                     /* in (0, 4p) */
    zk_fp8_csub2p(&r->c0, &r->c0);
    zk_fp8_carry(&r->c1, v);                     /* in (0, 6p) */
    zk_fp8_csub(&r->c1, &r->c1, P4);
    zk_fp8_csub2p(&r->c1, &r->c1);
}

#endif /* ZK_IFMA_BN254 */
#endif /* ZK_COMMON_FF_IFMA_BN254_H */

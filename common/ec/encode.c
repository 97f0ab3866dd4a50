/*
 * encode.c -- validation and encodings of curve points: snarkjs's
 * little-endian Montgomery affine form (all four groups) and the Zcash/IETF
 * big-endian compressed/uncompressed form (BLS12-381).  Contracts in
 * common/include/zk/ec.h.
 */
/*
 * Cold code built from the always-inline field and point formulas: -O3's
 * vectorizer triples the compile time of these huge functions for no gain.
 */
#if defined(__GNUC__) && !defined(__clang__)
# pragma GCC optimize("O2")
#endif
#include <stdatomic.h>
#include <string.h>

#include "ec/curves.h"
#include "zk/ec.h"
#include "zk/error.h"
#include "zk/parallel.h"

/* ---- snarkjs: limbs <-> little-endian bytes, validation ---------------- */

/* n limbs -> 8n little-endian bytes (the Montgomery limbs as stored). */
static void limbs_to_le(uint8_t *out, const limb_t *l, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++)
        out[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
}

static void le_to_limbs(limb_t *l, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        l[i] = 0;
    for (size_t i = 0; i < 8 * n; i++)
        l[i / 8] |= (limb_t)in[i] << (8 * (i % 8));
}

/*
 * For group G over field F with NC coordinate limbs vectors of NL limbs
 * (G1: 2, G2: 4), field-level canonical check FCAN (limb_t * -> int).
 */
#define SNARKJS_FUNCS(G, FCAN, NC, NL)                                             \
    int G##_affine_validate(const G##_affine *a, unsigned flags)                   \
    {                                                                              \
        const limb_t *l = (const limb_t *)a;                                       \
        for (size_t c = 0; c < (NC); c++)                                          \
            if (!FCAN(l + c * (NL)))                                               \
                return ZK_ENOT_CANONICAL;                                          \
        if (G##_affine_is_inf(a))                                                  \
            return 0;                                                              \
        if (!G##_affine_is_on_curve(a))                                            \
            return ZK_ENOT_ON_CURVE;                                               \
        if (!(flags & ZK_EC_NO_SUBGROUP_CHECK) && !G##_affine_in_subgroup(a))      \
            return ZK_ENOT_IN_GROUP;                                               \
        return 0;                                                                  \
    }                                                                              \
    int G##_decode_snarkjs(G##_affine *ret, const uint8_t *in, unsigned flags)     \
    {                                                                              \
        G##_affine a;                                                              \
        le_to_limbs((limb_t *)&a, in, (NC) * (NL));                                \
        int rc = G##_affine_validate(&a, flags);                                   \
        if (rc == 0)                                                               \
            *ret = a;                                                              \
        return rc;                                                                 \
    }                                                                              \
    void G##_encode_snarkjs(uint8_t *out, const G##_affine *a)                     \
    {                                                                              \
        limbs_to_le(out, (const limb_t *)a, (NC) * (NL));                          \
    }                                                                              \
    _Static_assert(sizeof(G##_affine) == (NC) * (NL) * 8, "packed affine layout");

SNARKJS_FUNCS(bn254_g1, bn254_fp_is_canonical, 2, 4)
SNARKJS_FUNCS(bn254_g2, bn254_fp_is_canonical, 4, 4)
SNARKJS_FUNCS(bls381_g1, bls381_fp_is_canonical, 2, 6)
SNARKJS_FUNCS(bls381_g2, bls381_fp_is_canonical, 4, 6)

/* The affine structs hold the file's limbs: cast the caller's limb array. */
static int validate_one(enum zk_curve curve, int g2, const void *pt, unsigned flags)
{
    switch (curve) {
    case ZK_CURVE_BN254:
        return g2 ? bn254_g2_affine_validate(pt, flags)
                  : bn254_g1_affine_validate(pt, flags);
    case ZK_CURVE_BLS12_381:
        return g2 ? bls381_g2_affine_validate(pt, flags)
                  : bls381_g1_affine_validate(pt, flags);
    }
    return ZK_ECURVE;
}

int zk_ec_point_validate(enum zk_curve curve, int g2, const void *pt, unsigned flags)
{
    return validate_one(curve, g2, pt, flags);
}

struct batch_ctx {
    enum zk_curve curve;
    int g2;
    unsigned flags;
    const uint8_t *pts;
    size_t stride;
    _Atomic size_t bad;           /* lowest bad index found so far (n if none) */
};

static void batch_range(void *arg, size_t begin, size_t end)
{
    struct batch_ctx *c = arg;
    for (size_t i = begin; i < end; i++) {
        /* relaxed: only a hint to stop early; the result is read after the join */
        if (atomic_load_explicit(&c->bad, memory_order_relaxed) < i)
            return;
        if (validate_one(c->curve, c->g2, c->pts + i * c->stride, c->flags) == 0)
            continue;
        /* lower bad to i unless a lower index is already there (relaxed is
         * enough: zk_parallel_for's join orders it before the final read) */
        size_t cur = atomic_load_explicit(&c->bad, memory_order_relaxed);
        while (i < cur && !atomic_compare_exchange_weak_explicit(
                   &c->bad, &cur, i, memory_order_relaxed, memory_order_relaxed))
            ;
        return;
    }
}

int zk_ec_points_validate(enum zk_curve curve, int g2, const void *pts, size_t n,
                          unsigned flags, unsigned nthreads, size_t *ret_bad_index)
{
    size_t stride;
    switch (curve) {
    case ZK_CURVE_BN254:
        stride = g2 ? BN254_G2_SNARKJS_BYTES : BN254_G1_SNARKJS_BYTES;
        break;
    case ZK_CURVE_BLS12_381:
        stride = g2 ? BLS381_G2_SNARKJS_BYTES : BLS381_G1_SNARKJS_BYTES;
        break;
    default:
        return ZK_ECURVE;
    }
    if (n == 0)
        return 0;
    if (!pts)
        return ZK_EBADPARAMS;
    struct batch_ctx c = { .curve = curve, .g2 = g2, .flags = flags, .pts = pts,
                           .stride = stride };
    atomic_init(&c.bad, n);
    zk_parallel_for(nthreads, n, 256, batch_range, &c);
    size_t bad = atomic_load(&c.bad);
    if (bad == n)
        return 0;
    /* the code of the lowest bad point: recompute it (one point) */
    int rc = validate_one(curve, g2, (const uint8_t *)pts + bad * stride, flags);
    if (ret_bad_index)
        *ret_bad_index = bad;
    return rc;
}

/* ---- Zcash/IETF BLS12-381 ------------------------------------------------ */

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SIGN 0x20
#define FP_BYTES 48

/* 1 if in[1..n) are all zero and in[0] has no bits outside the flags. */
static int rest_is_zero(const uint8_t *in, size_t n)
{
    uint8_t acc = in[0] & 0x1f;
    for (size_t i = 1; i < n; i++)
        acc |= in[i];
    return acc == 0;
}

/* Big-endian field element, the flag bits of byte 0 masked off when mask. */
static int fp_from_be(bls381_fp *ret, const uint8_t *in, int mask)
{
    uint8_t b[FP_BYTES];
    memcpy(b, in, FP_BYTES);
    if (mask)
        b[0] &= 0x1f;
    return bls381_fp_from_bytes_be(ret, b) == 0 ? 0 : ZK_ENOT_CANONICAL;
}

/* Fp2 as c1 then c0 (96 bytes); flag bits in byte 0 masked when mask. */
static int fp2_from_be(bls381_fp2 *ret, const uint8_t *in, int mask)
{
    bls381_fp2 t;
    if (fp_from_be(&t.c1, in, mask) || fp_from_be(&t.c0, in + FP_BYTES, 0))
        return ZK_ENOT_CANONICAL;
    *ret = t;
    return 0;
}

static void fp2_to_be(uint8_t *out, const bls381_fp2 *a)
{
    bls381_fp_to_bytes_be(out, &a->c1);
    bls381_fp_to_bytes_be(out + FP_BYTES, &a->c0);
}

/*
 * One group's Zcash functions.  CB: bytes per coordinate (48 or 96),
 * FROM_BE / TO_BE: coordinate readers/writers, F: field prefix.
 */
#define ZCASH_FUNCS(G, F, CB, FROM_BE, TO_BE)                                      \
    void G##_to_compressed(uint8_t *out, const G##_affine *a)                      \
    {                                                                              \
        if (G##_affine_is_inf(a)) {                                                \
            memset(out, 0, (CB));                                                  \
            out[0] = FLAG_COMPRESSED | FLAG_INFINITY;                              \
            return;                                                                \
        }                                                                          \
        TO_BE(out, &a->x);                                                         \
        out[0] |= FLAG_COMPRESSED;                                                 \
        if (F##_is_lex_largest(&a->y))                                             \
            out[0] |= FLAG_SIGN;                                                   \
    }                                                                              \
    void G##_to_uncompressed(uint8_t *out, const G##_affine *a)                    \
    {                                                                              \
        if (G##_affine_is_inf(a)) {                                                \
            memset(out, 0, 2 * (CB));                                              \
            out[0] = FLAG_INFINITY;                                                \
            return;                                                                \
        }                                                                          \
        TO_BE(out, &a->x);                                                         \
        TO_BE(out + (CB), &a->y);                                                  \
    }                                                                              \
    int G##_from_compressed(G##_affine *ret, const uint8_t *in, unsigned flags)    \
    {                                                                              \
        G##_affine a;                                                              \
        uint8_t f = in[0] & 0xe0;                                                  \
        if (!(f & FLAG_COMPRESSED))                                                \
            return ZK_EBAD_ENCODING;                                               \
        if (f & FLAG_INFINITY) {                                                   \
            if ((f & FLAG_SIGN) || !rest_is_zero(in, (CB)))                        \
                return ZK_EBAD_ENCODING;                                           \
            memset(&a, 0, sizeof a);                                               \
            *ret = a;                                                              \
            return 0;                                                              \
        }                                                                          \
        F x;                                                                       \
        if (FROM_BE(&x, in, 1))                                                    \
            return ZK_ENOT_CANONICAL;                                              \
        if (!G##_affine_from_x(&a, &x, f & FLAG_SIGN))                             \
            return ZK_ENOT_ON_CURVE;                                               \
        if (!(flags & ZK_EC_NO_SUBGROUP_CHECK) && !G##_affine_in_subgroup(&a))     \
            return ZK_ENOT_IN_GROUP;                                               \
        *ret = a;                                                                  \
        return 0;                                                                  \
    }                                                                              \
    int G##_from_uncompressed(G##_affine *ret, const uint8_t *in, unsigned flags)  \
    {                                                                              \
        G##_affine a;                                                              \
        uint8_t f = in[0] & 0xe0;                                                  \
        if (f & (FLAG_COMPRESSED | FLAG_SIGN))                                     \
            return ZK_EBAD_ENCODING;                                               \
        if (f & FLAG_INFINITY) {                                                   \
            if (!rest_is_zero(in, 2 * (CB)))                                       \
                return ZK_EBAD_ENCODING;                                           \
            memset(&a, 0, sizeof a);                                               \
            *ret = a;                                                              \
            return 0;                                                              \
        }                                                                          \
        if (FROM_BE(&a.x, in, 1) || FROM_BE(&a.y, in + (CB), 0))                   \
            return ZK_ENOT_CANONICAL;                                              \
        /* all-zero means infinity in our struct, but (0, 0) is not on the curve */ \
        if (G##_affine_is_inf(&a) || !G##_affine_is_on_curve(&a))                  \
            return ZK_ENOT_ON_CURVE;                                               \
        if (!(flags & ZK_EC_NO_SUBGROUP_CHECK) && !G##_affine_in_subgroup(&a))     \
            return ZK_ENOT_IN_GROUP;                                               \
        *ret = a;                                                                  \
        return 0;                                                                  \
    }

ZCASH_FUNCS(bls381_g1, bls381_fp, FP_BYTES, fp_from_be, bls381_fp_to_bytes_be)
ZCASH_FUNCS(bls381_g2, bls381_fp2, 2 * FP_BYTES, fp2_from_be, fp2_to_be)

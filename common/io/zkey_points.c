/*
 * zkey_points.c -- on-curve and subgroup checks of the zkey header points,
 * through the curve code of common/ec/curves.h.  The only file of
 * common/io/ that depends on it.
 */
#include <string.h>

#include "ec/curves.h"
#include "io_internal.h"
#include "zk/error.h"

/*
 * The file bytes are the in-memory layout of the affine types (LE limbs,
 * Montgomery form, x then y, Fp2 as c0 then c1).
 */
_Static_assert(sizeof(bn254_g1_affine) == 64, "bn254 G1 affine = 2 x 32 bytes");
_Static_assert(sizeof(bn254_g2_affine) == 128, "bn254 G2 affine = 4 x 32 bytes");
_Static_assert(sizeof(bls381_g1_affine) == 96, "bls381 G1 affine = 2 x 48 bytes");
_Static_assert(sizeof(bls381_g2_affine) == 192, "bls381 G2 affine = 4 x 48 bytes");

#define CHECK_POINT(type, pt)                                                        \
    do {                                                                             \
        type a;                                                                      \
        memcpy(&a, (pt), sizeof a);                                                  \
        if (!type##_is_on_curve(&a))                                                 \
            return ZK_ENOT_ON_CURVE;                                                 \
        if (!type##_in_subgroup(&a))                                                 \
            return ZK_ENOT_IN_GROUP;                                                 \
        return 0;                                                                    \
    } while (0)

int zk_zkey_point_check(enum zk_curve curve, int g2, const uint64_t *pt)
{
    switch (curve) {
    case ZK_CURVE_BN254:
        if (g2)
            CHECK_POINT(bn254_g2_affine, pt);
        CHECK_POINT(bn254_g1_affine, pt);
    case ZK_CURVE_BLS12_381:
        if (g2)
            CHECK_POINT(bls381_g2_affine, pt);
        CHECK_POINT(bls381_g1_affine, pt);
    }
    return ZK_ECURVE;
}

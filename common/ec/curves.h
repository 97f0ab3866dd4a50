/*
 * curves.h -- G1 and G2 of BN254 ("bn128") and BLS12-381, one ec_tmpl.h
 * instantiation each:
 *   bn254_g1, bn254_g2, bls381_g1, bls381_g2  (Jacobian) and *_affine.
 * G2 lives on the sextic twist over Fp2: BN254 y^2 = x^3 + 3/(9+u) (D-type),
 * BLS12-381 y^2 = x^3 + 4(1+u) (M-type).
 * Constants are Montgomery-form initializers (x * R mod p), checked against
 * the published generators by tests/test_ec.c.
 *
 * Per group G (see ec_tmpl.h for the contracts): set_inf is_inf affine_is_inf
 * generator from_affine to_affine batch_to_affine neg affine_neg dbl add
 * add_affine eq affine_eq affine_is_on_curve is_on_curve affine_from_x
 * mul (= mul_wnaf) mul_ref in_subgroup_slow affine_in_subgroup_slow; and from
 * endo.h the fast in_subgroup / affine_in_subgroup plus bls381_g1_sigma,
 * bn254_g2_psi, bls381_g2_psi.  Encodings: common/include/zk/ec.h.
 */
#ifndef ZK_COMMON_EC_CURVES_H
#define ZK_COMMON_EC_CURVES_H

#include "ff/tower.h"
#include "wnaf.h"

#define BN254_G1_B { { 0x7a17caa950ad28d7ULL, 0x1f6ac17ae15521b9ULL, 0x334bea4e696bd284ULL, 0x2a1f6744ce179d8eULL } }
#define BN254_G2_B { { { 0x3bf938e377b802a8ULL, 0x020b1b273633535dULL, 0x26b7edf049755260ULL, 0x2514c6324384a86dULL } }, { { 0x38e7ecccd1dcff67ULL, 0x65f0b37d93ce0d3eULL, 0xd749d0dd22ac00aaULL, 0x0141b9ce4a688d4dULL } } }
#define BN254_G1_GEN_X { { 0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL } }
#define BN254_G1_GEN_Y { { 0xa6ba871b8b1e1b3aULL, 0x14f1d651eb8e167bULL, 0xccdd46def0f28c58ULL, 0x1c14ef83340fbe5eULL } }
#define BN254_G2_GEN_X { { { 0x8e83b5d102bc2026ULL, 0xdceb1935497b0172ULL, 0xfbb8264797811adfULL, 0x19573841af96503bULL } }, { { 0xafb4737da84c6140ULL, 0x6043dd5a5802d8c4ULL, 0x09e950fc52a02f86ULL, 0x14fef0833aea7b6bULL } } }
#define BN254_G2_GEN_Y { { { 0x619dfa9d886be9f6ULL, 0xfe7fd297f59e9b78ULL, 0xff9e1a62231b7dfeULL, 0x28fd7eebae9e4206ULL } }, { { 0x64095b56c71856eeULL, 0xdc57f922327d3cbbULL, 0x55f935be33351076ULL, 0x0da4a0e693fd6482ULL } } }
#define BLS381_G1_B { { 0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL } }
#define BLS381_G2_B { { { 0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL } }, { { 0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL } } }
#define BLS381_G1_GEN_X { { 0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL, 0xf0ae6acdf3d0e747ULL, 0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL } }
#define BLS381_G1_GEN_Y { { 0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL, 0x51ac582950405194ULL, 0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL } }
#define BLS381_G2_GEN_X { { { 0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL, 0x9894999d1a3caee9ULL, 0x6f67b7631863366bULL, 0x058191924350bcd7ULL } }, { { 0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL, 0x1b1ab6cc8541b367ULL, 0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL } } }
#define BLS381_G2_GEN_Y { { { 0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL, 0xbbefb5e96e0d495fULL, 0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL } }, { { 0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL, 0x79495c4ec93da33aULL, 0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL } } }

/*                 group      coordinates constants  order: _P of  (ec_tmpl.h) */
#define ZK_EC_TMPL (bn254_g1,  bn254_fp,    BN254_G1,  BN254_FR)
#include "ec_tmpl.h"
#define ZK_EC_TMPL (bn254_g2,  bn254_fp2,   BN254_G2,  BN254_FR)
#include "ec_tmpl.h"
#define ZK_EC_TMPL (bls381_g1, bls381_fp,   BLS381_G1, BLS381_FR)
#include "ec_tmpl.h"
#define ZK_EC_TMPL (bls381_g2, bls381_fp2,  BLS381_G2, BLS381_FR)
#include "ec_tmpl.h"

#include "endo.h"     /* endomorphisms, fast *_in_subgroup / *_affine_in_subgroup */

#endif /* ZK_COMMON_EC_CURVES_H */

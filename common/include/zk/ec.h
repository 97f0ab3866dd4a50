/*
 * ec.h -- point validation and encodings for G1/G2 of BN254 and BLS12-381.
 *
 * The point types are those of zk/types.h (bn254_g1_affine, ...,
 * bls381_g2_affine; their arithmetic is internal).  This header adds:
 *
 *  - snarkjs's encoding (zkey/ptau points): affine x then y, each coordinate
 *    in Montgomery form (x*R mod p) as little-endian bytes, Fp2 as c0 then c1,
 *    all-zero bytes = the point at infinity.  Sizes 64/128 (BN254 G1/G2) and
 *    96/192 (BLS12-381).  The bytes are the in-memory layout of the affine
 *    structs on a little-endian machine, so mapped sections can be validated
 *    in place with *_affine_validate.
 *  - the Zcash/IETF serialization of BLS12-381 points (bellman, Filecoin,
 *    zkcrypto/bls12_381, blst): big-endian plain coordinates, Fp2 as c1 then
 *    c0, the three top bits of byte 0 are flags: 0x80 compressed, 0x40 point
 *    at infinity, 0x20 (compressed only) y is the lexicographically largest of
 *    the two roots.  Compressed 48 (G1) / 96 (G2) bytes holds x only;
 *    uncompressed 96 / 192 bytes holds x then y.  Infinity is 0xc0 (or 0x40)
 *    followed by zeros.
 *
 * Decoders validate fully: flag bits, every coordinate < p (ZK_ENOT_CANONICAL),
 * on the curve (ZK_ENOT_ON_CURVE), in the prime-order subgroup
 * (ZK_ENOT_IN_GROUP) unless flags has ZK_EC_NO_SUBGROUP_CHECK.  They return 0
 * or that negative code and never write *ret on failure.  Encoders cannot
 * fail.  All functions are thread-safe and variable time.
 */
#ifndef ZK_COMMON_EC_H
#define ZK_COMMON_EC_H

#include <stddef.h>
#include <stdint.h>

#include "zk/types.h"
#include "zk/binfile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* flags of the decoders / validators */
#define ZK_EC_NO_SUBGROUP_CHECK 1u   /* accept points outside the r-torsion */

/* snarkjs point sizes in bytes */
#define BN254_G1_SNARKJS_BYTES 64
#define BN254_G2_SNARKJS_BYTES 128
#define BLS381_G1_SNARKJS_BYTES 96
#define BLS381_G2_SNARKJS_BYTES 192

/* Zcash/IETF sizes in bytes */
#define BLS381_G1_COMPRESSED_BYTES 48
#define BLS381_G1_UNCOMPRESSED_BYTES 96
#define BLS381_G2_COMPRESSED_BYTES 96
#define BLS381_G2_UNCOMPRESSED_BYTES 192

/*
 * Validate an affine point held in snarkjs's layout: the all-zero point
 * (infinity) is valid; otherwise every coordinate limb vector must be < p
 * (ZK_ENOT_CANONICAL), the point on the curve (ZK_ENOT_ON_CURVE) and, unless
 * ZK_EC_NO_SUBGROUP_CHECK, in the subgroup (ZK_ENOT_IN_GROUP).  Returns 0 or
 * the code.  Cannot fail otherwise; reads only *a.
 */
int bn254_g1_affine_validate(const bn254_g1_affine *a, unsigned flags);
int bn254_g2_affine_validate(const bn254_g2_affine *a, unsigned flags);
int bls381_g1_affine_validate(const bls381_g1_affine *a, unsigned flags);
int bls381_g2_affine_validate(const bls381_g2_affine *a, unsigned flags);

/*
 * Decode the snarkjs bytes `in` (*_SNARKJS_BYTES long) into *ret, validating
 * as *_affine_validate.  Returns 0, ZK_ENOT_CANONICAL, ZK_ENOT_ON_CURVE or
 * ZK_ENOT_IN_GROUP; *ret untouched on error.
 */
int bn254_g1_decode_snarkjs(bn254_g1_affine *ret, const uint8_t *in, unsigned flags);
int bn254_g2_decode_snarkjs(bn254_g2_affine *ret, const uint8_t *in, unsigned flags);
int bls381_g1_decode_snarkjs(bls381_g1_affine *ret, const uint8_t *in, unsigned flags);
int bls381_g2_decode_snarkjs(bls381_g2_affine *ret, const uint8_t *in, unsigned flags);

/* Write the snarkjs bytes (*_SNARKJS_BYTES) of a to out.  Cannot fail. */
void bn254_g1_encode_snarkjs(uint8_t *out, const bn254_g1_affine *a);
void bn254_g2_encode_snarkjs(uint8_t *out, const bn254_g2_affine *a);
void bls381_g1_encode_snarkjs(uint8_t *out, const bls381_g1_affine *a);
void bls381_g2_encode_snarkjs(uint8_t *out, const bls381_g2_affine *a);

/*
 * Validate the snarkjs-layout point pt (an array of uint64 limbs as in the
 * file: G1 if g2 == 0, else G2) of the given curve.  Returns as
 * *_affine_validate, or ZK_ECURVE for an unknown curve.
 */
int zk_ec_point_validate(enum zk_curve curve, int g2, const void *pt, unsigned flags);

/*
 * Validate n consecutive snarkjs-layout points (e.g. a mapped zkey section)
 * on nthreads threads (0 = zk_nthreads_default()).  Returns 0 if all are
 * valid; otherwise the code of the lowest-index bad point, whose index goes
 * to *ret_bad_index when ret_bad_index is not NULL (untouched on success).
 * ZK_ECURVE for an unknown curve, ZK_EBADPARAMS for pts == NULL with n > 0.
 */
int zk_ec_points_validate(enum zk_curve curve, int g2, const void *pts, size_t n,
                          unsigned flags, unsigned nthreads, size_t *ret_bad_index);

/* Zcash/IETF encoders for BLS12-381 (see top).  Cannot fail. */
void bls381_g1_to_compressed(uint8_t *out, const bls381_g1_affine *a);
void bls381_g1_to_uncompressed(uint8_t *out, const bls381_g1_affine *a);
void bls381_g2_to_compressed(uint8_t *out, const bls381_g2_affine *a);
void bls381_g2_to_uncompressed(uint8_t *out, const bls381_g2_affine *a);

/*
 * Zcash/IETF decoders.  Returns 0; ZK_EBAD_ENCODING for wrong flag bits
 * (compression bit not matching the form, sign bit on an uncompressed point
 * or on infinity, infinity with any other bit set); ZK_ENOT_CANONICAL for a
 * coordinate >= p; ZK_ENOT_ON_CURVE (compressed: x^3 + b is not a square;
 * uncompressed: the point is not on the curve, including (0, 0) without the
 * infinity flag); ZK_ENOT_IN_GROUP.  *ret untouched on error.
 */
int bls381_g1_from_compressed(bls381_g1_affine *ret, const uint8_t *in, unsigned flags);
int bls381_g1_from_uncompressed(bls381_g1_affine *ret, const uint8_t *in, unsigned flags);
int bls381_g2_from_compressed(bls381_g2_affine *ret, const uint8_t *in, unsigned flags);
int bls381_g2_from_uncompressed(bls381_g2_affine *ret, const uint8_t *in, unsigned flags);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_EC_H */

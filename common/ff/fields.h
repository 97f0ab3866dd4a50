/*
 * fields.h -- the four prime fields of zkslot:
 *   bn254_fp, bn254_fr      BN254 ("bn128" in snarkjs) base and scalar fields
 *   bls381_fp, bls381_fr    BLS12-381 base and scalar fields
 * Each is one instantiation of field_tmpl.h; see there for the function set
 * (zero one is_zero is_one eq add sub dbl neg mul sqr to_mont from_mont
 * from_u64 is_canonical pow inv inv_fermat [sqrt] batch_inv to/from_bytes_le/be).
 */
#ifndef ZK_COMMON_FF_FIELDS_H
#define ZK_COMMON_FF_FIELDS_H

#include "vec.h"
#include "consts.h"

/* (p+1)/4 for the two base fields (both p = 3 mod 4) */
#define BN254_FP_SQRT_EXP  { 0x4f082305b61f3f52ULL, 0x65e05aa45a1c72a3ULL, 0x6e14116da0605617ULL, 0x0c19139cb84c680aULL }
#define BLS381_FP_SQRT_EXP { 0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL }

#define ZK_F bn254_fp
#define ZK_F_N 4
#define ZK_F_BYTES 32
#define ZK_F_P BN254_FP_P
#define ZK_F_ONE BN254_FP_ONE
#define ZK_F_R2 BN254_FP_R2
#define ZK_F_N0 BN254_FP_N0
#define ZK_F_PM2 BN254_FP_PM2
#define ZK_F_INVK BN254_FP_INVK
#define ZK_F_SQRT BN254_FP_SQRT_EXP
#include "field_tmpl.h"
#undef ZK_F
#undef ZK_F_N
#undef ZK_F_BYTES
#undef ZK_F_P
#undef ZK_F_ONE
#undef ZK_F_R2
#undef ZK_F_N0
#undef ZK_F_PM2
#undef ZK_F_INVK
#undef ZK_F_SQRT

#define ZK_F bn254_fr
#define ZK_F_N 4
#define ZK_F_BYTES 32
#define ZK_F_P BN254_FR_P
#define ZK_F_ONE BN254_FR_ONE
#define ZK_F_R2 BN254_FR_R2
#define ZK_F_N0 BN254_FR_N0
#define ZK_F_PM2 BN254_FR_PM2
#define ZK_F_INVK BN254_FR_INVK
#include "field_tmpl.h"
#undef ZK_F
#undef ZK_F_N
#undef ZK_F_BYTES
#undef ZK_F_P
#undef ZK_F_ONE
#undef ZK_F_R2
#undef ZK_F_N0
#undef ZK_F_PM2
#undef ZK_F_INVK

#define ZK_F bls381_fp
#define ZK_F_N 6
#define ZK_F_BYTES 48
#define ZK_F_P BLS381_FP_P
#define ZK_F_ONE BLS381_FP_ONE
#define ZK_F_R2 BLS381_FP_R2
#define ZK_F_N0 BLS381_FP_N0
#define ZK_F_PM2 BLS381_FP_PM2
#define ZK_F_INVK BLS381_FP_INVK
#define ZK_F_SQRT BLS381_FP_SQRT_EXP
#include "field_tmpl.h"
#undef ZK_F
#undef ZK_F_N
#undef ZK_F_BYTES
#undef ZK_F_P
#undef ZK_F_ONE
#undef ZK_F_R2
#undef ZK_F_N0
#undef ZK_F_PM2
#undef ZK_F_INVK
#undef ZK_F_SQRT

#define ZK_F bls381_fr
#define ZK_F_N 4
#define ZK_F_BYTES 32
#define ZK_F_P BLS381_FR_P
#define ZK_F_ONE BLS381_FR_ONE
#define ZK_F_R2 BLS381_FR_R2
#define ZK_F_N0 BLS381_FR_N0
#define ZK_F_PM2 BLS381_FR_PM2
#define ZK_F_INVK BLS381_FR_INVK
#include "field_tmpl.h"
#undef ZK_F
#undef ZK_F_N
#undef ZK_F_BYTES
#undef ZK_F_P
#undef ZK_F_ONE
#undef ZK_F_R2
#undef ZK_F_N0
#undef ZK_F_PM2
#undef ZK_F_INVK

#endif /* ZK_COMMON_FF_FIELDS_H */

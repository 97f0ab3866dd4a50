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

#include "zk/types.h"     /* the types; this layer adds their arithmetic */
#include "vec.h"
#include "consts.h"
#include "paste.h"

/* (p+1)/4 for the two base fields (both p = 3 mod 4): their _SQRT_EXP */
#define BN254_FP_SQRT_EXP  { 0x4f082305b61f3f52ULL, 0x65e05aa45a1c72a3ULL, 0x6e14116da0605617ULL, 0x0c19139cb84c680aULL }
#define BLS381_FP_SQRT_EXP { 0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL }

/*                    type       constants  limbs bytes sqrt  (field_tmpl.h) */
#define ZK_FIELD_TMPL (bn254_fp,  BN254_FP,  4,    32,   1)
#include "field_tmpl.h"
#define ZK_FIELD_TMPL (bn254_fr,  BN254_FR,  4,    32,   0)
#include "field_tmpl.h"
#define ZK_FIELD_TMPL (bls381_fp, BLS381_FP, 6,    48,   1)
#include "field_tmpl.h"
#define ZK_FIELD_TMPL (bls381_fr, BLS381_FR, 4,    32,   0)
#include "field_tmpl.h"

#endif /* ZK_COMMON_FF_FIELDS_H */

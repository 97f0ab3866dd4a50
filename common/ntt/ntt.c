/*
 * ntt.c -- instantiates ntt_tmpl.h for the two scalar fields (see zk/ntt.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ff/fields.h"
#include "zk/error.h"
#include "zk/ntt.h"
#include "zk/parallel.h"

/* Stages spanning more than 2^NTT_BLOCK_LOG elements run globally. */
#ifndef NTT_BLOCK_LOG
#define NTT_BLOCK_LOG 12
#endif
#define NTT_PAR_MIN_LOG 12       /* below 2^12: one thread (thread start-up costs more) */
#define NTT_GRAIN 2048           /* butterflies / elements per parallel task */
#define NTT_BR_A 4               /* bit-reversal tiles of 16 x 16 */

/* The low `bits` bits of i, reversed. */
static inline size_t ntt_bitrev(size_t i, unsigned bits)
{
    if (bits == 0)
        return 0;
    i = ((i >> 1) & 0x5555555555555555ULL) | ((i & 0x5555555555555555ULL) << 1);
    i = ((i >> 2) & 0x3333333333333333ULL) | ((i & 0x3333333333333333ULL) << 2);
    i = ((i >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((i & 0x0F0F0F0F0F0F0F0FULL) << 4);
    i = __builtin_bswap64(i);
    return i >> (64 - bits);
}

/*                  field      constants  (ntt_tmpl.h) */
#define ZK_NTT_TMPL (bn254_fr,  BN254_FR)
#include "ntt_tmpl.h"
#define ZK_NTT_TMPL (bls381_fr, BLS381_FR)
#include "ntt_tmpl.h"

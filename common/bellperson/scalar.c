/*
 * scalar.c -- the prover's r and s (zk/bellperson.h: zk_bp_random_fr,
 * zk_bp_hex32): drawn uniformly below r, or read from 64 hex digits.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "bp_internal.h"
#include "zk/ec.h"

int zk_bp_hex32(const char *s, uint8_t out[32])
{
    if (strlen(s) != 64)
        return -1;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1 || !strchr("0123456789abcdefABCDEF", s[2 * i]) ||
            !strchr("0123456789abcdefABCDEF", s[2 * i + 1]))
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* 255 random bits, drawn again while >= r (r > 2^254: fewer than half
 * the draws are). */
int zk_bp_random_fr(uint8_t out[32])
{
    for (int tries = 0; tries < 128; tries++) {
        bls381_fr x;
        if (getrandom(out, 32, 0) != 32)
            return -1;
        out[31] &= 0x7f;
        memcpy(x.l, out, 32);
        if (bls381_fr_is_canonical(x.l))
            return 0;
    }
    errno = EAGAIN;
    return -1;
}

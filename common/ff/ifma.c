/*
 * ifma.c -- whether the BN254 MSMs (G1, G2) use their AVX-512 IFMA batch
 * (ff/ifma_bn254.h, msm/msm_flush_ifma.h): the CPU's word and the
 * ZKSLOT_NO_IFMA environment variable, read once and cached.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ff/ifma_bn254.h"

/* -1: not read yet; 0: scalar; 1: IFMA */
static atomic_int ifma_state = -1;

/* 1 if the CPU has AVX-512 F, VL and IFMA with the OS saving the registers
 * (the compilers' cpu checks read XCR0 for the AVX-512 state). */
static int ifma_cpu(void)
{
#if ZK_IFMA_BN254
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512ifma");
#else
    return 0;
#endif
}

int zk_ifma_bn254_on(void)
{
    /* relaxed: every thread computes the same value */
    int s = atomic_load_explicit(&ifma_state, memory_order_relaxed);
    if (s < 0) {
        const char *off = getenv("ZKSLOT_NO_IFMA");
        s = ifma_cpu() && !(off && *off && strcmp(off, "0") != 0);
        atomic_store_explicit(&ifma_state, s, memory_order_relaxed);
    }
    return s;
}

int zk_ifma_bn254_force(int on)
{
    atomic_store_explicit(&ifma_state, on < 0 ? -1 : on && ifma_cpu(), memory_order_relaxed);
    return zk_ifma_bn254_on();
}

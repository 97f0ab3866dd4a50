/*
 * cpucheck.c -- a build that needs BMI2 and ADX (ZK_X86_ADX, the Debian
 * package's) refuses in one line on a CPU without them, before any of its
 * code runs, instead of dying of SIGILL at the first field product.
 *
 * Contract:
 *  - Linked into every program and into libzkslot.so as an object file of
 *    its own (CMake: zkcpucheck, added to whatever links zkcommon), so its
 *    constructor runs before main (before the library's first call);
 *    compiled with -mno-bmi2 -mno-adx, so that it runs on any x86-64.
 *  - ZK_NEEDS_ADX (1 in a ZK_X86_ADX build, else 0): with it, a CPU whose
 *    CPUID leaf 7 lacks BMI2 or ADX gets "zkslot: this build needs ..." on
 *    stderr and exit status 2 (_exit: nothing else of the process runs).
 *  - Test hook: ZKSLOT_TEST_CPU_NO_ADX=1 takes the CPU for one without ADX
 *    (deploy_test_package: the package refuses; a build that does not need
 *    ADX runs on), under the rule of every test hook (util/testhook.h),
 *    applied here since this runs before main and alone: only in a build
 *    with ZK_TEST_HOOKS=1 (CMake's ZK_TEST_HOOKS; 0 when not defined) or
 *    with ZKSLOT_TEST_HOOKS=1 in the environment.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
# include <cpuid.h>
#endif

#ifndef ZK_NEEDS_ADX
# define ZK_NEEDS_ADX 0
#endif
#ifndef ZK_TEST_HOOKS
# define ZK_TEST_HOOKS 0
#endif

/* 1 when the CPU has BMI2 (CPUID.7.0:EBX bit 8) and ADX (bit 19). */
static int cpu_has_adx(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 8 & 1) && (b >> 19 & 1);
#else
    return 0;
#endif
}

__attribute__((constructor)) static void zk_cpucheck(void)
{
    static const char msg[] =
        "zkslot: this build needs an x86-64 CPU with BMI2 and ADX (Intel Broadwell, AMD Zen "
        "or later; /proc/cpuinfo flags bmi2 adx), and this CPU lacks them: build zkslot from "
        "source on it (docs/operations.md)\n";
    const char *on = getenv("ZKSLOT_TEST_HOOKS");
    const char *hook = ZK_TEST_HOOKS || (on && !strcmp(on, "1")) ? getenv("ZKSLOT_TEST_CPU_NO_ADX")
                                                                  : NULL;
    int pretend = hook && *hook && strcmp(hook, "0") != 0;
    if (!ZK_NEEDS_ADX || (cpu_has_adx() && !pretend))
        return;
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(2);
}

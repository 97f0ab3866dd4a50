/*
 * testhook.c -- the test hooks' switch and table (testhook.h).
 *
 * ZK_TEST_HOOKS (1 or 0) comes from CMake's option of that name, for this
 * file and cpucheck.c only; a compile without it gets 0 (inert).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/testhook.h"

#ifndef ZK_TEST_HOOKS
# define ZK_TEST_HOOKS 0
#endif

/* Every hook the programs read; docs/configuration.md's "Test hooks"
 * table says what each does and which tests use it.  ZKSLOT_TEST_CPU_NO_ADX
 * is read by cpucheck.c before main (the same rule) and is listed here so
 * that the daemons name it too. */
static const char *const hooks[] = {
    "ZKSLOT_TEST_CPU_NO_ADX",
    "ZKSLOT_TEST_FILL_DELAY_MS",
    "ZKSLOT_TEST_READ_DELAY_MS",
    "ZKSLOT_TEST_OPEN_DELAY_MS",
    "ZKSLOT_TEST_RECOVER_DELAY_MS",
    "ZKSLOT_TEST_PRELOAD_DELAY_MS",
    "ZKSLOT_TEST_CLAIM_HOLD_MS",
    "ZKSLOT_TEST_START_HOLD_MS",
    "ZKSLOT_TEST_RECORD_HOLD_MS",
    "ZKSLOT_TEST_LEDGER_BUSY_MS",
    "ZKSLOT_TEST_LEDGER_EIO",
    "ZKSLOT_TEST_NO_RECOVERY",
    "ZKSLOT_TEST_NO_WITGEN_SWEEP",
    "ZKSLOT_TEST_BP_RS",
    "ZK_KEYSTORE_TEST_PAUSE",
};
#define NHOOKS (sizeof hooks / sizeof hooks[0])

int zk_test_hooks_enabled(void)
{
    const char *on;
    return ZK_TEST_HOOKS || ((on = getenv("ZKSLOT_TEST_HOOKS")) && !strcmp(on, "1"));
}

const char *zk_test_hook(const char *name)
{
    for (size_t i = 0; i < NHOOKS; i++) {
        if (!strcmp(name, hooks[i]))
            return zk_test_hooks_enabled() ? getenv(name) : NULL;
    }
    return NULL;
}

unsigned zk_test_hooks_set(char *buf, size_t size)
{
    unsigned n = 0;
    size_t len = 0;
    if (size)
        buf[0] = 0;
    for (size_t i = 0; i < NHOOKS; i++) {
        const char *v = getenv(hooks[i]);
        if (!v)
            continue;
        if (len < size) {
            int w = snprintf(buf + len, size - len, "%s%s=%s", n ? ", " : "", hooks[i], v);
            len += w > 0 ? (size_t)w : 0;
        }
        n++;
    }
    return n;
}

/*
 * testhook.h -- the test hooks (ZKSLOT_TEST_*): environment variables that
 * delay, hold or break a program at one point so that a test can kill it,
 * stop its ledger or see a control fail there (docs/configuration.md,
 * "Test hooks", lists them all).
 *
 * Every hook is read through zk_test_hook, never getenv: a hook is inert
 * unless the program was built for tests (CMake ZK_TEST_HOOKS, ON in a
 * build tree, OFF in the Debian package) or its environment has
 * ZKSLOT_TEST_HOOKS=1.  A new hook is added to the table in testhook.c
 * (zk_test_hook returns NULL for a name not there) and to the docs' table
 * (docs_test_hooks fails otherwise).  The CPU check (cpucheck.c) runs
 * before main and applies the same rule itself.
 */
#ifndef ZK_COMMON_UTIL_TESTHOOK_H
#define ZK_COMMON_UTIL_TESTHOOK_H

#include <stddef.h>

/* 1 when the test hooks work in this process: built with ZK_TEST_HOOKS, or
 * ZKSLOT_TEST_HOOKS=1 in its environment; else 0.  Cannot fail. */
int zk_test_hooks_enabled(void);

/*
 * The value of the hook `name` (a ZKSLOT_TEST_* name of testhook.c's
 * table) when hooks are enabled and the variable is set, else NULL (a
 * name not in the table: always NULL).  The string is the environment's:
 * not to be freed or kept past a setenv.  Cannot fail; thread-safe as
 * getenv is.
 */
const char *zk_test_hook(const char *name);

/*
 * The hooks set in this process's environment, enabled or not, as
 * "NAME=value, NAME=value" into buf (truncated to size, always
 * terminated when size > 0).  Returns how many are set (0: buf is "").
 * For the daemons' start-up warning.  Cannot fail.
 */
unsigned zk_test_hooks_set(char *buf, size_t size);

#endif /* ZK_COMMON_UTIL_TESTHOOK_H */

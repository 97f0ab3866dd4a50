/*
 * zktest.h -- the tiny harness every tests/test_<module>.c uses.
 *
 *   int main(int argc, char **argv) {
 *       zt_init(argc, argv);            // prints the seed
 *       ZT_CHECK(x == y, "x=%d", x);     // records a failure, goes on
 *       return zt_finish();             // 0 pass, 1 fail
 *   }
 *   zt_skip("no GPU");                   // exits 77 with the reason
 *   zt_rmtree(dir);                      // a mkdtemp'd directory, at the end
 *
 * The random seed comes from $ZK_TEST_SEED when set, else from the clock; it
 * is printed first so any failing run can be replayed exactly.
 */
#ifndef ZK_TESTS_ZKTEST_H
#define ZK_TESTS_ZKTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void zt_init(int argc, char **argv);
uint64_t zt_seed(void);
uint64_t zt_rand64(void);                 /* xoshiro256** */
void zt_rand_bytes(void *buf, size_t n);
void zt_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int zt_failures(void);
int zt_finish(void);
_Noreturn void zt_skip(const char *reason);
/* A test's temporary tree removed (files, directories, links not followed):
 * 0, or -1 with "could not remove PATH: reason" on stderr. */
int zt_rmtree(const char *path);

#define ZT_CHECK(cond, ...)                                   \
    do {                                                      \
        if (!(cond))                                          \
            zt_fail_at(__FILE__, __LINE__, #cond, " " __VA_ARGS__);   \
    } while (0)

/* Like ZT_CHECK but returns from the calling function (returns `ret`). */
#define ZT_REQUIRE(cond, ret, ...)                            \
    do {                                                      \
        if (!(cond)) {                                        \
            zt_fail_at(__FILE__, __LINE__, #cond, " " __VA_ARGS__);   \
            return ret;                                       \
        }                                                     \
    } while (0)

#endif /* ZK_TESTS_ZKTEST_H */

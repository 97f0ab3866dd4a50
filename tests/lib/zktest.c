#define _XOPEN_SOURCE 700   /* nftw */
#include "zktest.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t zt_s[4];
static uint64_t zt_seed_value;
static int zt_nfail;
static const char *zt_name = "test";

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void zt_init(int argc, char **argv)
{
    const char *env = getenv("ZK_TEST_SEED");
    if (argc > 0 && argv[0]) {
        const char *slash = strrchr(argv[0], '/');
        zt_name = slash ? slash + 1 : argv[0];
    }
    if (env && *env) {
        zt_seed_value = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        zt_seed_value = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
    }
    uint64_t x = zt_seed_value;
    for (int i = 0; i < 4; i++)
        zt_s[i] = splitmix64(&x);
    printf("%s: seed %llu (replay: ZK_TEST_SEED=%llu %s)\n", zt_name,
           (unsigned long long)zt_seed_value, (unsigned long long)zt_seed_value, zt_name);
    fflush(stdout);
}

uint64_t zt_seed(void) { return zt_seed_value; }

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t zt_rand64(void)
{
    uint64_t r = rotl(zt_s[1] * 5, 7) * 9;
    uint64_t t = zt_s[1] << 17;
    zt_s[2] ^= zt_s[0];
    zt_s[3] ^= zt_s[1];
    zt_s[1] ^= zt_s[2];
    zt_s[0] ^= zt_s[3];
    zt_s[2] ^= t;
    zt_s[3] = rotl(zt_s[3], 45);
    return r;
}

void zt_rand_bytes(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        uint64_t r = zt_rand64();
        size_t k = n < 8 ? n : 8;
        memcpy(p, &r, k);
        p += k;
        n -= k;
    }
}

void zt_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    zt_nfail++;
    fprintf(stderr, "FAIL %s:%d: %s:", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (seed %llu)\n", (unsigned long long)zt_seed_value);
}

int zt_failures(void) { return zt_nfail; }

int zt_finish(void)
{
    if (zt_nfail) {
        fprintf(stderr, "%s: %d failure(s); replay with ZK_TEST_SEED=%llu\n",
                zt_name, zt_nfail, (unsigned long long)zt_seed_value);
        return 1;
    }
    printf("%s: ok\n", zt_name);
    return 0;
}

void zt_skip(const char *reason)
{
    printf("%s: SKIP: %s\n", zt_name, reason);
    fflush(stdout);
    exit(77);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)f;
    int r = flag == FTW_DP ? rmdir(path) : unlink(path);
    if (r < 0 && errno != ENOENT) {
        fprintf(stderr, "could not remove %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int zt_rmtree(const char *path)
{
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

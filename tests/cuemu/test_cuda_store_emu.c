/*
 * test_cuda_store_emu.c -- issue 17's regressions for the GPU prover
 * (gpud/cuda/cu_prover.cu) over a key served from its key store, whose
 * points are a read-only shared mapping (docs/keystore.md), run by cuemu,
 * whose cudaHostRegister refuses memory the process may not write unless
 * given cudaHostRegisterReadOnly, as the CUDA runtime does:
 *   writable: zk_mem_writable, which both the prover and cuemu ask, sees
 *       a page made read-only, and a hole, inside a mapping.
 *   store_fits: a prover over the store's points, all in device memory,
 *       proves what the CPU proves, its points page-locked while it lives
 *       (the upload a DMA) and unlocked when it is freed.
 *   store_mapped: with device memory cut below the points, the sections
 *       that do not fit are read from the store's pages, mapped: proves
 *       right.  Failed before the fix: cudaHostRegister without
 *       cudaHostRegisterReadOnly, refused, so such a prover never started.
 *   store_no_readonly: on a device without read-only registration, a
 *       prover whose points fit is made anyway (uploaded from pageable
 *       memory, describe says why) and proves right; one whose points do
 *       not fit fails with ZK_EGPU naming the section and the cause, and
 *       leaves nothing behind.
 * The store is built from each curve's example key in a directory on
 * /dev/shm.  Exits 0 or 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuemu.h"
#include "zk/error.h"
#include "zk/groth16.h"
#include "zk/keystore.h"
#include "zk/util.h"
#include "zkcuda.h"
#include "zkexample.h"
#include "zktest.h"

#define HASH "0123456789abcdef0123456789abcdef"

static const zk_scalar R = { { 13, 0, 0, 0 } }, S = { { 17, 0, 0, 0 } };

static void writable(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    ZT_REQUIRE(m != MAP_FAILED, , "mmap");
    ZT_CHECK(zk_mem_writable(m, 3 * (size_t)pg) == 1, "a read-write mapping");
    ZT_CHECK(mprotect(m + pg, (size_t)pg, PROT_READ) == 0);
    ZT_CHECK(zk_mem_writable(m, 3 * (size_t)pg) == 0, "the middle page is read-only");
    ZT_CHECK(zk_mem_writable(m + pg - 1, 2) == 0, "a range ending in the read-only page");
    ZT_CHECK(zk_mem_writable(m, (size_t)pg) == 1 && zk_mem_writable(m + 2 * pg, 10) == 1,
             "the pages either side are writable");
    ZT_CHECK(munmap(m + pg, (size_t)pg) == 0);
    ZT_CHECK(zk_mem_writable(m, 3 * (size_t)pg) == 0, "a hole in the range");
    ZT_CHECK(zk_mem_writable(m + pg, 1) == 0, "in the hole");
    munmap(m, (size_t)pg);
    munmap(m + 2 * pg, (size_t)pg);
}

struct store_case {
    const char *curve;
    struct zt_example ex;
    struct zk_groth16_key *sk;           /* over the store */
    zk_scalar *abc;
    struct zk_groth16_proof want;
    size_t points;                       /* bytes of the five MSMs' points */
};

/* The example key of c->curve, its CPU proof, and a key over its store
 * built in dir.  0, or -1 after a failure. */
static int store_setup(struct store_case *c, const char *dir)
{
    static const enum zk_zkey_section secs[5] = { ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1, ZK_ZKEY_SEC_B2,
                                                  ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H };
    char err[256], pool[4096], path[4200];
    struct zk_diag d = { "" };
    zk_keystore *s = NULL;
    ZT_REQUIRE(zt_example_load(c->curve, &c->ex, err, sizeof err) == 0, -1, "%s", err);
    c->abc = malloc(3 * c->ex.h->domain_size * sizeof *c->abc);
    ZT_REQUIRE(c->abc && zt_example_cpu_proof(&c->ex, c->ex.w, c->abc, &R, &S, &c->want) == 0,
               -1, "cpu proof");
    snprintf(pool, sizeof pool, "%s/%s.pool", dir, c->curve);
    ZT_REQUIRE(zk_keystore_path(pool, HASH, path, sizeof path) == 0, -1, "path");
    ZT_REQUIRE(zk_keystore_create(path, HASH, c->ex.k, ZK_KEYSTORE_TABLES_NONE, &d) == 0, -1,
               "%s", d.msg);
    ZT_REQUIRE(zk_keystore_open(path, HASH, 0, &s, &d) == 0, -1, "%s", d.msg);
    unlink(path);                        /* the mapping stays */
    if (zk_keystore_key(s, NULL, &c->sk, &d)) {
        zk_keystore_close(s);
        ZT_REQUIRE(0, -1, "%s", d.msg);
    }
    c->points = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t n = 0;
        size_t pb = 0;
        const void *pt = zk_groth16_key_points(c->sk, secs[i], &n, &pb);
        ZT_REQUIRE(pt, -1, "points");
        ZT_CHECK(zk_mem_writable(pt, n * pb) == 0, "%s: the store's points are read-only",
                 c->curve);
        c->points += n * pb;
    }
    return 0;
}

static void store_done(struct store_case *c)
{
    zk_groth16_key_free(c->sk);
    zt_example_free(&c->ex);
    free(c->abc);
}

/* A proof of the example witness by cp equals the CPU's. */
static void proves_right(struct store_case *c, struct zk_cuda_prover *cp, const char *what)
{
    size_t n = c->ex.h->domain_size;
    zk_scalar *abc = malloc(3 * n * sizeof *abc);
    struct zk_groth16_pending *pg = NULL;
    struct zk_groth16_proof got;
    ZT_REQUIRE(abc, , "oom");
    memcpy(abc, c->abc, 3 * n * sizeof *abc);
    int rc = zk_cuda_prove_start(cp, c->ex.w, abc, abc + n, abc + 2 * n, NULL, NULL, &pg);
    ZT_CHECK(rc == 0, "%s, %s: prove_start: %s", c->curve, what, zk_cuda_strerror(rc));
    if (rc == 0) {
        ZT_CHECK(zk_groth16_prove_finalize_rs(pg, &R, &S, 0, &got) == 0, "finalize");
        ZT_CHECK(zt_proof_eq(&got, &c->want), "%s, %s: the proof differs from the CPU's",
                 c->curve, what);
    }
    zk_groth16_pending_free(pg);
    free(abc);
}

static void store_fits(struct store_case *c)
{
    char desc[320];
    struct zk_cuda_prover *cp = NULL;
    int rc = zk_cuda_prover_new(0, c->sk, &cp);
    ZT_REQUIRE(rc == 0, , "%s: prover_new over the store: %s", c->curve, zk_cuda_strerror(rc));
    zk_cuda_prover_describe(cp, desc, sizeof desc);
    ZT_CHECK(!strcmp(desc, "A B1 C H B2 in device memory"), "%s: %s", c->curve, desc);
    ZT_CHECK(cuemu_registered() == 5, "%s: %zu sections page-locked, want 5", c->curve,
             cuemu_registered());
    proves_right(c, cp, "points in device memory");
    zk_cuda_prover_free(cp);
    ZT_CHECK(cuemu_registered() == 0 && cuemu_live_allocations() == 0,
             "%s: %zu registrations, %zu allocations left", c->curve, cuemu_registered(),
             cuemu_live_allocations());
}

/* Device memory cut by a sixteenth of the points at a time below the
 * least that takes them all: the provers made prove right; how many of
 * them kept sections in host memory. */
static int cut_memory(struct store_case *c, size_t least, const char *what)
{
    char desc[320];
    int mapped = 0;
    for (size_t cut = c->points / 16 + 1; cut <= c->points && cut < least;
         cut += c->points / 16 + 1) {
        struct zk_cuda_prover *cp = NULL;
        cuemu_set_device_memory(least - cut);
        int rc = zk_cuda_prover_new(0, c->sk, &cp);
        if (rc == 0) {
            zk_cuda_prover_describe(cp, desc, sizeof desc);
            mapped += strstr(desc, "in page-locked host memory") != NULL;
            proves_right(c, cp, desc);
            zk_cuda_prover_free(cp);
        } else {
            ZT_CHECK(rc == ZK_EGPU && !cp, "%s, %s: prover_new %d", c->curve, what, rc);
            printf("%s, %s, %zu of %zu bytes of points cut: %s\n", c->curve, what, cut,
                   c->points, zk_cuda_strerror(rc));
        }
        ZT_CHECK(cuemu_registered() == 0 && cuemu_live_allocations() == 0,
                 "%s, %s: registrations or allocations left", c->curve, what);
    }
    cuemu_set_device_memory(0);
    return mapped;
}

/* The least device memory with which a prover over the store keeps every
 * point in it (the prover also keeps room for its NTT plan: bisected
 * between what it takes and 64 MiB more), or 0 after a failure. */
static size_t least_memory(struct store_case *c)
{
    char desc[320];
    struct zk_cuda_prover *cp = NULL;
    ZT_REQUIRE(zk_cuda_prover_new(0, c->sk, &cp) == 0, 0, "prover_new");
    size_t lo = cuemu_live_bytes(), hi = lo + ((size_t)64 << 20);
    zk_cuda_prover_free(cp);
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        desc[0] = 0;
        cuemu_set_device_memory(mid);
        cp = NULL;
        if (zk_cuda_prover_new(0, c->sk, &cp) == 0)
            zk_cuda_prover_describe(cp, desc, sizeof desc);
        zk_cuda_prover_free(cp);
        *(strcmp(desc, "A B1 C H B2 in device memory") ? &lo : &hi) = mid;
    }
    cuemu_set_device_memory(0);
    return hi;
}

static void store_mapped(struct store_case *c)
{
    size_t least = least_memory(c);
    if (!least)
        return;
    int mapped = cut_memory(c, least, "points in host memory");
    ZT_CHECK(mapped > 0, "%s: no prover over the store kept points in host memory", c->curve);
}

static void store_no_readonly(struct store_case *c)
{
    char desc[320];
    struct zk_cuda_prover *cp = NULL;
    size_t least = least_memory(c);
    if (!least)
        return;
    cuemu_set_register_readonly(0);
    int rc = zk_cuda_prover_new(0, c->sk, &cp);
    ZT_CHECK(rc == 0, "%s: no read-only registration, points fitting: %s", c->curve,
             zk_cuda_strerror(rc));
    if (rc == 0) {
        zk_cuda_prover_describe(cp, desc, sizeof desc);
        ZT_CHECK(strstr(desc, "in device memory (uploaded from pageable memory") &&
                 strstr(desc, "cudaErrorNotSupported") && cuemu_registered() == 0,
                 "%s: %s (%zu registered)", c->curve, desc, cuemu_registered());
        /* (the failed registration's error must not be the first launch's) */
        proves_right(c, cp, "uploaded from pageable memory");
        zk_cuda_prover_free(cp);
    }
    cuemu_set_device_memory(least - 1);
    cp = NULL;
    rc = zk_cuda_prover_new(0, c->sk, &cp);
    const char *msg = zk_cuda_strerror(rc);
    ZT_CHECK(rc == ZK_EGPU && !cp && strstr(msg, "cudaHostRegister(") &&
             strstr(msg, " points, ") && strstr(msg, "read-only store, not fitting the GPU") &&
             strstr(msg, "cudaErrorNotSupported") && !strchr(msg, '\n'),
             "%s: no read-only registration, points not fitting: %d %s", c->curve, rc, msg);
    ZT_CHECK(cuemu_registered() == 0 && cuemu_live_allocations() == 0,
             "%s: the failed prover left registrations or allocations", c->curve);
    cuemu_set_device_memory(0);
    cuemu_set_register_readonly(1);
}

int main(int argc, char **argv)
{
    static const char *const curves[2] = { "bn128", "bls12381" };
    char dir[] = "/dev/shm/zk-cuda-store-XXXXXX";
    zt_init(argc, argv);
    writable();
    ZT_REQUIRE(mkdtemp(dir), 1, "mkdtemp %s", dir);
    for (int i = 0; i < 2; i++) {
        struct store_case c;
        memset(&c, 0, sizeof c);
        c.curve = curves[i];
        if (store_setup(&c, dir) == 0) {
            store_fits(&c);
            store_mapped(&c);
            store_no_readonly(&c);
        }
        store_done(&c);
    }
    rmdir(dir);
    return zt_finish();
}

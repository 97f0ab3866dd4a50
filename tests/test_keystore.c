/*
 * test_keystore.c -- the key store (common/keystore/, zk/keystore.h), for
 * both curves' example keys, in a private directory on /dev/shm:
 *   - round trip: every point of every set of the store equals the .zkey's
 *     (loaded the usual way), the header and vk too, and a key over the
 *     store (with the file's coefficients) proves exactly what the file's
 *     key proves with the same blinding;
 *   - tables: a store with every MSM's precomputed table (zk/msm.h) gives
 *     a key whose tables are the ones built in memory, byte for byte, and
 *     whose proof equals the proof without tables; a descriptor that names
 *     other tables than the file holds is refused;
 *   - refusals, each one line naming the file and the mismatch: another
 *     key's hash, another format version, a bad magic (a half-written
 *     file), a truncated file, a file others may write, a second store at
 *     the same path, tables the key does not hold, a directory on disk;
 *   - names: the listing skips temporary files; creation removes a dead
 *     creator's temporary file and leaves a live one's; remove;
 *   - find: by the file's hash, and by its identity record once it has
 *     one (check_find: when a record is written, used and ignored).
 * The kill -9 during creation is tests/pipeline/test_keystore_kill.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "keystore/format.h"   /* the header layout, to forge a descriptor */
#include "zk/error.h"
#include "zk/keystore.h"
#include "zk/msm.h"
#include "zk/util.h"
#include "zkexample.h"
#include "zktest.h"

#define OTHER_HASH "0123456789abcdef0123456789abcdef"

static char dir[64];

/* One line, naming `path`, containing `what`. */
static int diag_says(const struct zk_diag *d, const char *path, const char *what)
{
    return strstr(d->msg, path) && strstr(d->msg, what) && !strchr(d->msg, '\n');
}

/* A copy of the store at src as dst with `len` bytes at `off` replaced
 * (len 0: none), truncated to `size` bytes (0: kept). */
static void copy_patched(const char *src, const char *dst, off_t off, const void *bytes,
                         size_t len, off_t size)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s' && chmod 0644 '%s'", src, dst, dst);
    ZT_REQUIRE(system(cmd) == 0, , "%s", cmd);
    int fd = open(dst, O_WRONLY);
    ZT_REQUIRE(fd >= 0, , "%s", dst);
    if (len)
        ZT_CHECK(pwrite(fd, bytes, len, off) == (ssize_t)len);
    if (size)
        ZT_CHECK(ftruncate(fd, size) == 0);
    close(fd);
}

/* Every point set of the store equals the file key's. */
static void check_points(const struct zk_groth16_key *store_key, const struct zk_groth16_key *k)
{
    static const enum zk_zkey_section ids[] = { ZK_ZKEY_SEC_IC, ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1,
                                                ZK_ZKEY_SEC_B2, ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        uint64_t n1 = 0, n2 = 0;
        size_t b1 = 0, b2 = 0;
        const void *p1 = zk_groth16_key_points(store_key, ids[i], &n1, &b1);
        const void *p2 = zk_groth16_key_points(k, ids[i], &n2, &b2);
        ZT_CHECK(p1 && p2 && n1 == n2 && b1 == b2 && n1 > 0, "section %d", (int)ids[i]);
        if (p1 && p2 && n1 == n2 && b1 == b2) {
            for (uint64_t j = 0; j < n1; j++)
                ZT_CHECK(!memcmp((const char *)p1 + j * b1, (const char *)p2 + j * b1, b1),
                         "section %d point %llu", (int)ids[i], (unsigned long long)j);
        }
    }
    struct zk_groth16_vk v1, v2;
    ZT_REQUIRE(zk_groth16_vk_from_key(store_key, &v1) == 0 && zk_groth16_vk_from_key(k, &v2) == 0, );
    ZT_CHECK(!memcmp(v1.alpha1, v2.alpha1, sizeof v1.alpha1) &&
             !memcmp(v1.delta2, v2.delta2, sizeof v1.delta2) && v1.n_public == v2.n_public);
    zk_groth16_vk_done(&v1);
    zk_groth16_vk_done(&v2);
}

/* A key of the file's coefficients over the store at path (and its tables). */
static struct zk_groth16_key *store_key_with_coefs(const char *curve_dir, const char *path)
{
    char zpath[4096];
    struct zk_zkey z;
    struct zk_diag d = { "" };
    struct zk_groth16_key *coefs = NULL, *k = NULL;
    struct zk_groth16_load_opts o = { .what = ZK_G16_LOAD_COEFS };
    zk_keystore *s = NULL;
    snprintf(zpath, sizeof zpath, "%s/examples/groth16/%s/key.zkey", getenv("ZK_SOURCE_DIR"),
             curve_dir);
    memset(&z, 0, sizeof z);
    ZT_REQUIRE(zk_zkey_open(&z, zpath, &d) == 0, NULL, "%s", d.msg);
    ZT_REQUIRE(zk_groth16_key_load_opts(&z, &o, &d, &coefs) == 0, NULL, "%s", d.msg);
    zk_zkey_done(&z);
    ZT_REQUIRE(zk_keystore_open(path, NULL, 0, &s, &d) == 0, NULL, "%s", d.msg);
    if (zk_keystore_key(s, coefs, &k, &d) < 0) {
        ZT_CHECK(0, "%s", d.msg);
        zk_keystore_close(s);
        zk_groth16_key_free(coefs);
        return NULL;
    }
    return k;
}

/* A key of the file's coefficients over the store's points proves what the
 * file's key proves (same r, s). */
static void check_proof(const char *curve_dir, const struct zt_example *ex, const char *path)
{
    struct zk_groth16_key *k = store_key_with_coefs(curve_dir, path);
    ZT_REQUIRE(k, );
    struct zt_example ex2 = *ex;
    ex2.k = k;
    size_t n = ex->h->domain_size;
    zk_scalar *abc = malloc(3 * n * sizeof *abc), r = { { 12345, 6, 7, 8 } }, sc = { { 99, 1, 2, 3 } };
    struct zk_groth16_proof p1, p2;
    ZT_REQUIRE(abc, );
    ZT_CHECK(zt_example_cpu_proof(ex, ex->w, abc, &r, &sc, &p1) == 0);
    ZT_CHECK(zt_example_cpu_proof(&ex2, ex->w, abc, &r, &sc, &p2) == 0);
    ZT_CHECK(zt_proof_eq(&p1, &p2), "%s: the store's key proves another proof", curve_dir);
    free(abc);
    zk_groth16_key_free(k);   /* unmaps the store */
}

static void check_refusals(const char *path, const char *hash)
{
    char bad[256];
    struct zk_diag d = { "" };
    zk_keystore *s = NULL;
    uint32_t v2 = ZK_KEYSTORE_VERSION + 1;
    uint64_t zero = 0;

    ZT_CHECK(zk_keystore_open(path, OTHER_HASH, 0, &s, &d) == ZK_ECHECKSUM && !s);
    ZT_CHECK(diag_says(&d, path, OTHER_HASH) && strstr(d.msg, hash), "%s", d.msg);
    snprintf(bad, sizeof bad, "%s/version", dir);
    copy_patched(path, bad, 8, &v2, sizeof v2, 0);
    ZT_CHECK(zk_keystore_open(bad, hash, 0, &s, &d) == ZK_EVERSION && !s);
    ZT_CHECK(diag_says(&d, bad, "format version 2, this build reads version 1"), "%s", d.msg);
    snprintf(bad, sizeof bad, "%s/magic", dir);
    copy_patched(path, bad, 0, &zero, sizeof zero, 0);
    ZT_CHECK(zk_keystore_open(bad, hash, 0, &s, &d) == ZK_EBADMAGIC && !s);
    ZT_CHECK(diag_says(&d, bad, "not a key store"), "%s", d.msg);
    snprintf(bad, sizeof bad, "%s/short", dir);
    copy_patched(path, bad, 0, NULL, 0, 8192);
    ZT_CHECK(zk_keystore_open(bad, hash, 0, &s, &d) == ZK_ETRUNCATED && !s);
    ZT_CHECK(diag_says(&d, bad, "its header says"), "%s", d.msg);
    snprintf(bad, sizeof bad, "%s/writable", dir);
    copy_patched(path, bad, 0, NULL, 0, 0);
    ZT_CHECK(chmod(bad, 0666) == 0);
    ZT_CHECK(zk_keystore_open(bad, hash, 0, &s, &d) == ZK_EUNTRUSTED && !s);
    ZT_CHECK(diag_says(&d, bad, "writable by others"), "%s", d.msg);
}

static int count_store(void *ctx, const char *path, const char *hash)
{
    (void)path;
    (void)hash;
    (*(int *)ctx)++;
    return 0;
}

/* Temporary files of OTHER_HASH's store beside pool: one of a creator that
 * has exited (dead), one of a live process (live, our parent); path is the
 * store's.  0, or -1 (a failure recorded). */
static int make_tmp_pair(const char *pool, char path[256], char dead[300], char live[300])
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    ZT_REQUIRE(pid > 0 && waitpid(pid, NULL, 0) == pid, -1);
    ZT_REQUIRE(zk_keystore_path(pool, OTHER_HASH, path, 256) == 0, -1);
    snprintf(dead, 300, "%s.tmp.%d", path, (int)pid);
    snprintf(live, 300, "%s.tmp.%d", path, (int)getppid());
    ZT_CHECK(close(open(dead, O_CREAT | O_WRONLY, 0644)) == 0);
    ZT_CHECK(close(open(live, O_CREAT | O_WRONLY, 0644)) == 0);
    return 0;
}

/* Creation removes a dead creator's temporary file, keeps a live one's. */
static void check_stale(const char *pool, const struct zk_groth16_key *k)
{
    char path[256], dead[300], live[300];
    struct zk_diag d = { "" };
    if (make_tmp_pair(pool, path, dead, live))
        return;
    int n = 0;
    ZT_CHECK(zk_keystore_list(pool, count_store, &n) == 0 && n == 1, "%d stores", n);
    ZT_CHECK(zk_keystore_create(path, OTHER_HASH, k, ZK_KEYSTORE_TABLES_NONE, &d) == 0, "%s", d.msg);
    ZT_CHECK(access(dead, F_OK) != 0 && errno == ENOENT, "the dead creator's file stayed");
    ZT_CHECK(access(live, F_OK) == 0, "a live creator's file was removed");
    n = 0;
    ZT_CHECK(zk_keystore_list(pool, count_store, &n) == 0 && n == 2, "%d stores", n);
    ZT_CHECK(zk_keystore_resident_bytes(pool) == 2 * zk_keystore_size(k, 0, 4096));
    unlink(live);
    ZT_CHECK(zk_keystore_remove(path, &d) == 0);
    ZT_CHECK(zk_keystore_remove(path, &d) == -ENOENT && diag_says(&d, path, "no key store"));
}

/* A directory on disk (the build tree, when it is one) is refused. */
static void check_disk(const struct zk_groth16_key *k, const char *hash)
{
    const char *b = getenv("ZK_BUILD_DIR");
    char path[4096];
    struct statfs sf;
    struct zk_diag d = { "" };
    if (!b || statfs(b, &sf) < 0 || sf.f_type == 0x01021994L || sf.f_type == 0x958458f6L)
        return;
    snprintf(path, sizeof path, "%s/zkslot.pool" ZK_KEYSTORE_SUFFIX "%s", b, hash);
    ZT_CHECK(zk_keystore_create(path, hash, k, 0, &d) == ZK_EBADPARAMS &&
             strstr(d.msg, "not on tmpfs or hugetlbfs"), "%s", d.msg);
    ZT_CHECK(access(path, F_OK) != 0);
}

/* Every MSM's table in a store: the same bytes, the same proof. */
static void check_tables(const struct zt_example *ex, const char *pool)
{
    const char *curve_dir = ex->h->curve == ZK_CURVE_BN254 ? "bn128" : "bls12381";
    char path[256], bad[256];
    struct zk_diag d = { "" };
    struct zk_keystore_info in;
    zk_scalar r = { { 5, 6, 7, 8 } }, sc = { { 9, 10, 11, 12 } };
    struct zk_groth16_proof p1, p2;
    size_t n = ex->h->domain_size;
    zk_scalar *abc = malloc(3 * n * sizeof *abc);
    uint32_t h_only = ZK_KEYSTORE_TABLES_H;
    ZT_REQUIRE(abc, );
    ZT_REQUIRE(zk_keystore_path(pool, OTHER_HASH, path, sizeof path) == 0, );
    ZT_CHECK(zt_example_cpu_proof(ex, ex->w, abc, &r, &sc, &p1) == 0);   /* no tables */
    ZT_REQUIRE(zk_groth16_key_precompute(ex->k, ZK_G16_PRECOMPUTE_ALL, 3, 0) == 0, );
    ZT_REQUIRE(zk_keystore_create(path, OTHER_HASH, ex->k, ZK_KEYSTORE_TABLES_ALL, &d) == 0, ,
               "%s", d.msg);
    ZT_CHECK(zk_keystore_stat(path, OTHER_HASH, &in, &d) == 0 &&
             in.tables == ZK_KEYSTORE_TABLES_ALL && in.table_factor == 3 &&
             in.tables_bytes == zk_groth16_tables_size(ex->h, ZK_G16_PRECOMPUTE_ALL, 3) &&
             in.file_size == zk_keystore_size(ex->k, ZK_KEYSTORE_TABLES_ALL, 4096), "%s", d.msg);
    struct zk_groth16_key *k = store_key_with_coefs(curve_dir, path);
    ZT_REQUIRE(k, );
    for (unsigned m = 0; m < ZK_G16_MSM_COUNT; m++) {
        const struct zk_msm_table *a = zk_groth16_key_table(k, (enum zk_groth16_msm)m);
        const struct zk_msm_table *b = zk_groth16_key_table(ex->k, (enum zk_groth16_msm)m);
        size_t bytes = zk_groth16_table_size(ex->h, (enum zk_groth16_msm)m, 3);
        ZT_CHECK(a && b && a != b && bytes && !memcmp(a, b, bytes), "table %u", m);
    }
    struct zt_example ex2 = *ex;
    ex2.k = k;
    ZT_CHECK(zt_example_cpu_proof(&ex2, ex->w, abc, &r, &sc, &p2) == 0);
    ZT_CHECK(zt_proof_eq(&p1, &p2), "%s: the store's tables prove another proof", curve_dir);
    zk_groth16_key_free(k);
    /* the descriptor says H only, the file holds all five */
    snprintf(bad, sizeof bad, "%s/tables", dir);
    copy_patched(path, bad, offsetof(struct ks_hdr, tables), &h_only,
                 sizeof h_only, 0);
    ZT_CHECK(zk_keystore_stat(bad, NULL, &in, &d) == ZK_EFORMAT &&
             diag_says(&d, bad, "disagrees with its descriptor"), "%s", d.msg);
    ZT_CHECK(zk_keystore_remove(path, &d) == 0);
    zk_groth16_key_precompute(ex->k, ZK_G16_PRECOMPUTE_NONE, 0, 0);
    free(abc);
}

/* Identity records beside the pool (zk_keystore_find's "<pool>.keyid-..."). */
static int count_keyids(const char *pool)
{
    char cmd[512], out[32] = "";
    snprintf(cmd, sizeof cmd, "ls -1 '%s'.keyid-* 2>/dev/null | wc -l", pool);
    FILE *f = popen(cmd, "r");
    ZT_REQUIRE(f, 0, "%s", cmd);
    if (!fgets(out, sizeof out, f))
        out[0] = 0;
    pclose(f);
    return atoi(out);
}

/* zk_keystore_find of zpath: 0 and the store of hash, found by the file's
 * identity record when by_id, by hashing the file when not. */
static void find_as(const char *pool, const char *zpath, const char *hash, int by_id)
{
    struct zk_diag d = { "" };
    zk_keystore *s = NULL;
    int r = zk_keystore_find(pool, zpath, 0, &s, &d);
    ZT_CHECK(r == 0 && !strcmp(zk_keystore_info(s)->key_hash, hash) &&
             zk_keystore_info(s)->found_by_identity == by_id,
             "find %s: %d (%s), by identity %d, expected %d", zpath, r, d.msg,
             s ? zk_keystore_info(s)->found_by_identity : -1, by_id);
    zk_keystore_close(s);
}

/*
 * zk_keystore_find: the key file (hashed through its mapping) finds its
 * store, whose recorded hash is zk_hash128_files's; a copy of the file
 * with one byte changed finds none (-ENOENT), and so does an empty file.
 * Identity records: the first find of a file unchanged for a second
 * writes one, the next find uses it (the file not hashed); one that
 * others may write, or that names a hash without a store, is not used;
 * a file written within the last second gets none; a file changed in
 * place after its record is hashed again (and found only if its content
 * is the store's).
 */
static void check_find(const char *pool, const char *zpath, const char *hash)
{
    char other[256], rec[300], cmd[700];
    struct zk_diag d = { "" };
    zk_keystore *s = NULL;
    int r, before = count_keyids(pool);
    snprintf(other, sizeof other, "%s/quiet.zkey", dir);
    copy_patched(zpath, other, 0, NULL, 0, 0);   /* identity recorded once a second old */
    find_as(pool, other, hash, 0);
    ZT_CHECK(count_keyids(pool) == before, "a record for a file written just now");
    usleep(1100 * 1000);
    find_as(pool, other, hash, 0);
    ZT_CHECK(count_keyids(pool) == before + 1, "no record after a hash that found a store");
    find_as(pool, other, hash, 1);
    snprintf(cmd, sizeof cmd, "chmod 0666 '%s'.keyid-*", pool);
    ZT_REQUIRE(system(cmd) == 0, );
    find_as(pool, other, hash, 0);          /* writable by others: ignored (and rewritten) */
    find_as(pool, other, hash, 1);
    struct stat st;
    ZT_REQUIRE(stat(other, &st) == 0, );
    snprintf(rec, sizeof rec, "%s.keyid-%llx-%llx", pool, (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    int fd = open(rec, O_WRONLY);
    ZT_REQUIRE(fd >= 0, , "%s: %s", rec, strerror(errno));
    ZT_CHECK(pwrite(fd, OTHER_HASH, 32, 48) == 32);   /* a hash with no store */
    close(fd);
    find_as(pool, other, hash, 0);
    int wfd = open(other, O_WRONLY);                 /* in place, same size */
    ZT_REQUIRE(wfd >= 0, );
    ZT_CHECK(pwrite(wfd, "\xa5", 1, 100) == 1);
    r = zk_keystore_find(pool, other, 0, &s, &d);
    ZT_CHECK(r == -ENOENT && !s, "find of a file changed after its record: %d %s", r, d.msg);
    unsigned char orig;
    int zfd = open(zpath, O_RDONLY);
    ZT_REQUIRE(zfd >= 0 && pread(zfd, &orig, 1, 100) == 1, );
    close(zfd);
    ZT_CHECK(pwrite(wfd, &orig, 1, 100) == 1);       /* the content again: found by hash */
    close(wfd);
    find_as(pool, other, hash, 0);
    find_as(pool, other, hash, 0);                   /* changed just now: no record used */
    unlink(other);

    find_as(pool, zpath, hash, 0);                   /* the repository's file: quiet */
    find_as(pool, zpath, hash, 1);
    copy_patched(zpath, other, 100, "\xa5", 1, 0);
    r = zk_keystore_find(pool, other, 0, &s, &d);
    ZT_CHECK(r == -ENOENT && !s, "find of a changed copy: %d %s", r, d.msg);
    copy_patched(zpath, other, 0, NULL, 0, 0);
    ZT_CHECK(truncate(other, 0) == 0);
    r = zk_keystore_find(pool, other, 0, &s, &d);
    ZT_CHECK(r == -ENOENT && !s, "find of an empty file: %d %s", r, d.msg);
    unlink(other);
}

/* remove_all (`pool destroy`) takes a dead creator's temporary file with
 * the stores (it held tmpfs RAM nothing else gave back), keeps a live
 * one's. */
static void check_remove_all_tmp(const char *pool)
{
    char path[256], dead[300], live[300];
    if (make_tmp_pair(pool, path, dead, live))
        return;
    ZT_CHECK(count_keyids(pool) > 0 && zk_keystore_remove_all(pool) == 0 &&
             count_keyids(pool) == 0, "identity records left by remove_all");
    ZT_CHECK(access(dead, F_OK) != 0 && errno == ENOENT, "remove_all left a dead creator's file");
    ZT_CHECK(access(live, F_OK) == 0, "remove_all removed a live creator's file");
    unlink(live);
}

static void test_curve(const char *curve_dir)
{
    struct zt_example ex;
    char err[512], zpath[4096], hash[33], pool[128], path[256];
    struct zk_diag d = { "" };
    zk_keystore *s = NULL;
    struct zk_groth16_key *sk = NULL;
    ZT_REQUIRE(zt_example_load(curve_dir, &ex, err, sizeof err) == 0, , "%s", err);
    snprintf(zpath, sizeof zpath, "%s/examples/groth16/%s/key.zkey", getenv("ZK_SOURCE_DIR"),
             curve_dir);
    const char *zp = zpath;
    ZT_REQUIRE(zk_hash128_files(NULL, 0, &zp, 1, hash, NULL, NULL, NULL, &d) == 0, , "%s", d.msg);
    snprintf(pool, sizeof pool, "%s/%s.pool", dir, curve_dir);
    ZT_REQUIRE(zk_keystore_path(pool, hash, path, sizeof path) == 0, );
    ZT_CHECK(zk_keystore_create(path, hash, ex.k, ZK_KEYSTORE_TABLES_H, &d) == ZK_ESTATE &&
             diag_says(&d, path, "does not hold the MSM tables 'h'"), "%s", d.msg);
    ZT_REQUIRE(zk_keystore_create(path, hash, ex.k, ZK_KEYSTORE_TABLES_NONE, &d) == 0, , "%s",
               d.msg);
    ZT_CHECK(zk_keystore_create(path, hash, ex.k, 0, &d) == -EEXIST &&
             diag_says(&d, path, "already there"), "%s", d.msg);
    ZT_REQUIRE(zk_keystore_open(path, hash, ZK_KEYSTORE_POPULATE, &s, &d) == 0, , "%s", d.msg);
    const struct zk_keystore_info *in = zk_keystore_info(s);
    struct stat st;
    ZT_CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size == in->file_size &&
             in->file_size == zk_keystore_size(ex.k, 0, 4096) && !(st.st_mode & 022));
    ZT_CHECK(!strcmp(in->key_hash, hash) && in->version == ZK_KEYSTORE_VERSION &&
             in->tables == ZK_KEYSTORE_TABLES_NONE && in->zh.curve == ex.h->curve &&
             in->zh.n_vars == ex.h->n_vars && in->points_bytes < in->file_size);
    ZT_REQUIRE(zk_keystore_key(s, NULL, &sk, &d) == 0, , "%s", d.msg);
    check_points(sk, ex.k);
    zk_groth16_key_free(sk);
    check_proof(curve_dir, &ex, path);
    check_find(pool, zpath, hash);
    check_refusals(path, hash);
    check_stale(pool, ex.k);
    check_disk(ex.k, hash);
    check_tables(&ex, pool);
    int n = 0;
    ZT_CHECK(zk_keystore_list(pool, count_store, &n) == 0 && n == 1, "%d stores", n);
    ZT_CHECK(zk_keystore_remove(path, &d) == 0, "%s", d.msg);
    check_remove_all_tmp(pool);
    zt_example_free(&ex);
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    if (!getenv("ZK_SOURCE_DIR"))
        zt_skip("ZK_SOURCE_DIR not set (run through ctest)");
    snprintf(dir, sizeof dir, "/dev/shm/zkslot-test-keystore-XXXXXX");
    if (!mkdtemp(dir))
        zt_skip("no /dev/shm");
    test_curve("bn128");
    test_curve("bls12381");
    ZT_CHECK(zt_rmtree(dir) == 0);
    return zt_finish();
}

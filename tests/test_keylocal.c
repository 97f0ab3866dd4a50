/* test_keylocal.c -- the local file of a registered key
 * (common/daemon/keylocal.h), on real files: the registered file counts
 * without a hash; another file of the same size at the registered path is
 * hashed once (by the background thread, the caller never waits) and
 * refused ("hash differs") however often it is asked about; a right copy
 * under [keys] dir is found and is what a key load gets (its path and
 * identity, no second hash); a copy of another size is refused without a
 * hash; a file replaced under the same path is hashed again; no file at
 * all is "no file", and a load's error names the registered path.  The
 * daemon's log (stderr) is read back to count the hashes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/keylocal.h"
#include "zk/keyfile.h"
#include "zk/util.h"
#include "zk/zkey.h"
#include "zktest.h"

static char dir[256], logpath[300];

/* Writes src's bytes to dst through a temporary name (a new identity); flip:
 * the last byte changed (same size, another content); cut: one byte less. */
static int put(const char *src, const char *dst, int flip, int cut)
{
    char tmp[4200];
    FILE *in = fopen(src, "rb");
    if (!in)
        return -1;
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    rewind(in);
    unsigned char *b = malloc((size_t)n);
    int ok = b && fread(b, 1, (size_t)n, in) == (size_t)n;
    fclose(in);
    if (ok && flip)
        b[n - 1] ^= 0x5a;
    snprintf(tmp, sizeof tmp, "%s.tmp", dst);
    FILE *out = ok ? fopen(tmp, "wb") : NULL;
    ok = out && fwrite(b, 1, (size_t)(n - cut), out) == (size_t)(n - cut);
    if (out)
        ok = (fclose(out) == 0) && ok;
    free(b);
    return ok && rename(tmp, dst) == 0 ? 0 : -1;
}

/* Lines of the log so far that contain s. */
static int log_count(const char *s)
{
    char line[8192];
    int n = 0;
    fflush(stderr);
    FILE *f = fopen(logpath, "r");
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, s) != NULL;
    if (f)
        fclose(f);
    return n;
}

/* zkd_key_local_find until it is no longer hashing (at most 10 s). */
static int find_settled(const char *keys_dir, const struct zk_ledger_key *lk,
                        struct zkd_key_local *loc)
{
    int r = ZKD_KEY_LOCAL_HASHING;
    for (int i = 0; i < 1000 && r == ZKD_KEY_LOCAL_HASHING; i++) {
        r = zkd_key_local_find(keys_dir, lk, loc);
        if (r == ZKD_KEY_LOCAL_HASHING)
            usleep(10000);
    }
    return r;
}

/* lk: the key registered at path, as `zkslot key add` records it. */
static int registered(const char *path, struct zk_ledger_key *lk)
{
    struct zk_zkey z;
    struct zk_diag d = { "" };
    memset(lk, 0, sizeof *lk);
    memset(&z, 0, sizeof z);
    if (zk_zkey_open(&z, path, &d))
        return -1;
    snprintf(lk->name, sizeof lk->name, "k1");
    snprintf(lk->path, sizeof lk->path, "%s", path);
    snprintf(lk->curve, sizeof lk->curve, "%s", zk_curve_name(z.hdr.curve));
    lk->n_vars = z.hdr.n_vars;
    lk->n_public = z.hdr.n_public;
    lk->domain_size = z.hdr.domain_size;
    zk_zkey_done(&z);
    if (zk_hash128_files(NULL, 0, &path, 1, lk->hash, &lk->file_size, NULL, NULL, &d))
        return -1;
    return zk_keyfile_stat(path, lk);
}

static void run(const char *src)
{
    char reg[300], kd[300], copy[400];
    struct zk_ledger_key lk, k;
    struct zkd_key_local loc;
    struct zk_diag d = { "" };
    snprintf(reg, sizeof reg, "%s/reg.zkey", dir);
    snprintf(kd, sizeof kd, "%s/keys", dir);
    snprintf(copy, sizeof copy, "%s/reg.zkey", kd);
    ZT_REQUIRE(mkdir(kd, 0755) == 0, , "mkdir %s", kd);
    ZT_REQUIRE(put(src, reg, 0, 0) == 0 && registered(reg, &lk) == 0, , "registering %s", reg);

    /* the registered file itself: found at once, never hashed */
    ZT_CHECK(zkd_key_local_find("", &lk, &loc) == ZKD_KEY_LOCAL_FOUND && !strcmp(loc.path, reg));
    k = lk;
    ZT_CHECK(zkd_key_local_check("", &k, &d) == 0 && !strcmp(k.path, reg), "%s", d.msg);
    ZT_CHECK(log_count("hashing") == 0, "the registered file was hashed");

    /* another file of the same size there: hashed once, refused */
    ZT_REQUIRE(put(src, reg, 1, 0) == 0, , "replacing %s", reg);
    ZT_CHECK(zkd_key_local_find("", &lk, &loc) == ZKD_KEY_LOCAL_HASHING &&
             !strcmp(loc.reason, "hashing"), "the first ask does not wait for the hash");
    ZT_CHECK(find_settled("", &lk, &loc) == ZKD_KEY_LOCAL_NONE &&
             !strcmp(loc.reason, "hash differs") && strstr(loc.detail, reg), "%s", loc.detail);
    for (int i = 0; i < 5; i++)
        ZT_CHECK(zkd_key_local_find("", &lk, &loc) == ZKD_KEY_LOCAL_NONE);
    ZT_CHECK(log_count("hashing") == 1, "%d hashes of one unchanged file", log_count("hashing"));

    /* a right copy under [keys] dir: found, and what a load gets */
    ZT_REQUIRE(put(src, copy, 0, 0) == 0, , "writing %s", copy);
    ZT_CHECK(find_settled(kd, &lk, &loc) == ZKD_KEY_LOCAL_FOUND && !strcmp(loc.path, copy),
             "%s", loc.detail);
    k = lk;
    ZT_CHECK(zkd_key_local_check(kd, &k, &d) == 0 && !strcmp(k.path, copy), "%s", d.msg);
    struct zk_ledger_key now;
    ZT_CHECK(zk_keyfile_stat(copy, &now) == 0 && k.file_ino == now.file_ino &&
             k.file_mtime_ns == now.file_mtime_ns, "the load's identity is the copy's");
    ZT_CHECK(log_count("hashing") == 2, "%d hashes (the load hashed again?)", log_count("hashing"));
    /* without [keys] dir the load is refused, naming the registered path */
    k = lk;
    ZT_CHECK(zkd_key_local_check("", &k, &d) != 0 && strstr(d.msg, reg) && !strcmp(k.path, reg),
             "%s", d.msg);

    /* the copy replaced by one of another size: refused without a hash */
    ZT_REQUIRE(unlink(reg) == 0 && put(src, copy, 0, 1) == 0, , "cutting %s", copy);
    ZT_CHECK(zkd_key_local_find(kd, &lk, &loc) == ZKD_KEY_LOCAL_NONE &&
             !strcmp(loc.reason, "size differs") && strstr(loc.detail, "no key file at") &&
             strstr(loc.detail, copy), "%s", loc.detail);
    ZT_CHECK(log_count("hashing") == 2, "a file of another size was hashed");

    /* the right content back under the same path: hashed again, found */
    ZT_REQUIRE(put(src, copy, 0, 0) == 0, , "restoring %s", copy);
    ZT_CHECK(find_settled(kd, &lk, &loc) == ZKD_KEY_LOCAL_FOUND, "%s", loc.detail);
    ZT_CHECK(log_count("hashing") == 3, "%d hashes: a new file must be hashed",
             log_count("hashing"));

    /* no file anywhere */
    ZT_REQUIRE(unlink(copy) == 0, , "unlink");
    ZT_CHECK(zkd_key_local_find(kd, &lk, &loc) == ZKD_KEY_LOCAL_NONE &&
             !strcmp(loc.reason, "no file"), "%s", loc.reason);
    k = lk;
    ZT_CHECK(zkd_key_local_check(kd, &k, &d) == -ENOENT && strstr(d.msg, reg), "%s", d.msg);
}

int main(int argc, char **argv)
{
    char src[4096];
    zt_init(argc, argv);
    if (!getenv("ZK_SOURCE_DIR"))
        zt_skip("ZK_SOURCE_DIR not set (run through ctest)");
    snprintf(src, sizeof src, "%s/examples/groth16/bn128/key.zkey", getenv("ZK_SOURCE_DIR"));
    snprintf(dir, sizeof dir, "/tmp/zk-keylocal.XXXXXX");
    if (!mkdtemp(dir))
        zt_skip("mkdtemp failed");
    /* the daemon's log goes to stderr: into a file, read back */
    snprintf(logpath, sizeof logpath, "%s/log", dir);
    int saved = dup(2), fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || fd < 0 || dup2(fd, 2) < 0)
        zt_skip("cannot redirect stderr");
    close(fd);
    run(src);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char cmd[600];
    if (zt_failures()) {
        snprintf(cmd, sizeof cmd, "cat %s >&2", logpath);
        if (system(cmd)) {}
    }
    zt_rmtree(dir);
    return zt_finish();
}

/* test_seal.c -- inputs sealed to the daemons (zk/seal.h, common/seal/):
 * a sealed input opens, as the partition it was sealed for only (another
 * job or index: -EACCES naming both); a blob altered, truncated or sealed
 * to another pair is refused; the plaintext is nowhere in the blob; the
 * key pair is made once (0600/0644), never over one found there; a public
 * key others may write, a link, or a private key with group bits, is
 * refused. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "zk/seal.h"
#include "zktest.h"

static const char input[] = "{\"x\": \"31415926535897932384626433832795028841971\"}";

static int opens(const struct zk_seal_pair *k, int64_t job, uint32_t idx, const char *blob,
                 size_t len, struct zk_diag *d)
{
    char *out = NULL;
    size_t n = 0;
    int r = zk_seal_open(k, job, idx, blob, len, &out, &n, d);
    if (!r) {
        ZT_CHECK(n == strlen(input) && !memcmp(out, input, n) && out[n] == 0, "opened %zu bytes",
                 n);
        free(out);
    }
    return r;
}

/* Processes that make the pair at once (a synthd and a first submit
 * started together) all succeed, and one pair results: none sees the
 * other's public key alone and gives up (pipeline_test_inputs_errors's
 * "input-seal.pub: cannot create it: File exists" under load). */
static void test_make_race(void)
{
    char dir[] = "/tmp/zk-seal-race.XXXXXX";
    struct zk_seal_pair k;
    struct zk_diag d = { "" };
    enum { N = 8, ROUNDS = 20 };
    int bad = 0;

    ZT_CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    for (int round = 0; round < ROUNDS; round++) {
        char pub[300], priv[300];
        pid_t pid[N];
        snprintf(pub, sizeof pub, "%s/%s", dir, ZK_SEAL_PUB);
        snprintf(priv, sizeof priv, "%s/%s", dir, ZK_SEAL_PRIV);
        unlink(pub);
        unlink(priv);
        for (int i = 0; i < N; i++)
            if ((pid[i] = fork()) == 0) {
                struct zk_diag dd = { "" };
                _exit(zk_seal_make(dir, &dd) >= 0 ? 0 : 1);
            }
        for (int i = 0; i < N; i++) {
            int st = 0;
            waitpid(pid[i], &st, 0);
            bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        ZT_CHECK(zk_seal_pair_load(dir, &k, &d) == 0, "round %d: the pair: %s", round, d.msg);
    }
    ZT_CHECK(bad == 0, "%d of %d makers failed", bad, N * ROUNDS);
    ZT_CHECK(zt_rmtree(dir) == 0, "cleanup");
}

int main(int argc, char **argv)
{
    zt_init(argc, argv);
    char dir[] = "/tmp/zk-seal-test.XXXXXX", dir2[] = "/tmp/zk-seal-test.XXXXXX", path[200];
    struct zk_diag d = { "" };
    struct zk_seal_pair k, k2;
    struct zk_seal_pub pub;
    struct stat st;
    ZT_CHECK(mkdtemp(dir) && mkdtemp(dir2), "mkdtemp");
    ZT_CHECK(zk_seal_pub_load(dir, &pub, &d) == -ENOENT, "no key yet: %s", d.msg);
    ZT_CHECK(zk_seal_make(dir, &d) == 1, "make: %s", d.msg);
    ZT_CHECK(zk_seal_make(dir, &d) == 0, "made again: %s", d.msg);
    snprintf(path, sizeof path, "%s/%s", dir, ZK_SEAL_PRIV);
    ZT_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "private key mode %o",
             st.st_mode & 0777);
    snprintf(path, sizeof path, "%s/%s", dir, ZK_SEAL_PUB);
    ZT_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644, "public key mode %o",
             st.st_mode & 0777);
    ZT_CHECK(zk_seal_pub_load(dir, &pub, &d) == 0, "%s", d.msg);
    ZT_CHECK(zk_seal_pair_load(dir, &k, &d) == 0, "%s", d.msg);
    ZT_CHECK(zk_seal_make(dir2, &d) == 1 && zk_seal_pair_load(dir2, &k2, &d) == 0, "%s", d.msg);

    char *blob = NULL;
    size_t len = 0;
    ZT_CHECK(zk_seal(&pub, 7, 1, input, strlen(input), &blob, &len) == 0, "seal");
    ZT_CHECK(zk_seal_is_sealed(blob, len) && !zk_seal_is_sealed(input, strlen(input)),
             "is_sealed");
    ZT_CHECK(len == strlen(input) + ZK_SEAL_OVERHEAD, "%zu bytes", len);
    ZT_CHECK(!memmem(blob, len, "3141592653", 10), "the plaintext shows in the blob");
    ZT_CHECK(opens(&k, 7, 1, blob, len, &d) == 0, "open: %s", d.msg);
    ZT_CHECK(opens(&k, 8, 1, blob, len, &d) == -EACCES &&
             strstr(d.msg, "sealed for partition 1 of job 7, not partition 1 of job 8"), "%s",
             d.msg);
    ZT_CHECK(opens(&k, 7, 0, blob, len, &d) == -EACCES, "another index: %s", d.msg);
    ZT_CHECK(opens(&k2, 7, 1, blob, len, &d) == -ENOKEY && strstr(d.msg, "sealed to key"),
             "%s", d.msg);
    ZT_CHECK(opens(&k, 7, 1, blob, len - 1, &d) == -EKEYREJECTED, "truncated: %s", d.msg);
    blob[len - 3] ^= 1;
    ZT_CHECK(opens(&k, 7, 1, blob, len, &d) == -EKEYREJECTED, "altered: %s", d.msg);
    free(blob);

    /* keys that are not to be trusted */
    ZT_CHECK(chmod(path, 0664) == 0 && zk_seal_pub_load(dir, &pub, &d) == -EPERM &&
             strstr(d.msg, "refused"), "group-writable public key: %s", d.msg);
    ZT_CHECK(chmod(path, 0644) == 0 && unlink(path) == 0 && symlink("/etc/hostname", path) == 0 &&
             zk_seal_pub_load(dir, &pub, &d) == -EPERM, "a link: %s", d.msg);
    snprintf(path, sizeof path, "%s/%s", dir2, ZK_SEAL_PRIV);
    ZT_CHECK(chmod(path, 0640) == 0 && zk_seal_pair_load(dir2, &k2, &d) == -EPERM,
             "group-readable private key: %s", d.msg);
    ZT_CHECK(zt_rmtree(dir) == 0 && zt_rmtree(dir2) == 0, "cleanup");
    test_make_race();
    return zt_finish();
}

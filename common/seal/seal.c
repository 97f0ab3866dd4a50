/*
 * seal.c -- circuit inputs sealed to the daemons' key pair (zk/seal.h).
 * Key files hold the key in hex on one line; the crypto is libsodium's
 * sealed box.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "zk/seal.h"
#include "zk/util.h"

#define HDR 16u   /* magic + key id */
#define BIND 12u  /* job id + index, inside the box */

static int sodium_ready(struct zk_diag *diag)
{
    if (sodium_init() < 0)
        return zk_diag_set(diag, "libsodium", -EIO, "cannot initialise libsodium");
    return 0;
}

/* "<state_dir>/<name>" into buf. */
static void key_path(char *buf, size_t n, const char *state_dir, const char *name)
{
    snprintf(buf, n, "%s/%s", state_dir, name);
}

/* libsodium ready and state_dir's owner in *dir; 0 or an error. */
static int ready_dir(const char *state_dir, struct stat *dir, struct zk_diag *diag)
{
    int r = sodium_ready(diag);
    if (r)
        return r;
    if (stat(state_dir, dir))
        return zk_diag_set(diag, state_dir, -errno, "%s", strerror(errno));
    return 0;
}

/* Writes 32 bytes as hex + newline to a new file (O_EXCL), mode, owner. */
static int write_key(const char *path, const uint8_t k[32], mode_t mode, const struct stat *dir,
                     struct zk_diag *diag)
{
    char hex[65 + 1];
    sodium_bin2hex(hex, sizeof hex - 1, k, 32);
    strcat(hex, "\n");
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return zk_diag_set(diag, path, -errno, "cannot create it: %s", strerror(errno));
    int r = 0;
    if (geteuid() == 0 && fchown(fd, dir->st_uid, dir->st_gid))
        r = zk_diag_set(diag, path, -errno, "cannot give it to uid %u: %s",
                        (unsigned)dir->st_uid, strerror(errno));
    if (!r && (fchmod(fd, mode) || write(fd, hex, 65) != 65 || fsync(fd)))
        r = zk_diag_set(diag, path, -errno, "cannot write it: %s", strerror(errno));
    close(fd);
    sodium_memzero(hex, sizeof hex);
    if (r)
        unlink(path);
    return r;
}

/* Reads the 32-byte hex key of path after checking its owner and mode:
 * owner one of uid_a/uid_b, no bits of deny_mode set. */
static int read_key(const char *path, uid_t uid_a, uid_t uid_b, mode_t deny_mode, uint8_t k[32],
                    struct zk_diag *diag)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return zk_diag_set(diag, path, e == ELOOP ? -EPERM : -e, "%s",
                           e == ELOOP ? "a symbolic link: refused" : strerror(e));
    }
    struct stat st;
    char hex[66] = "";
    int r = 0;
    if (fstat(fd, &st))
        r = zk_diag_set(diag, path, -errno, "%s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        r = zk_diag_set(diag, path, -EPERM, "not a regular file: refused");
    else if ((st.st_uid != uid_a && st.st_uid != uid_b) || (st.st_mode & deny_mode))
        r = zk_diag_set(diag, path, -EPERM,
                        "owned by uid %u with mode %04o: a key is trusted only when it is "
                        "uid %u's%s and mode %04o or stricter; refused",
                        (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), (unsigned)uid_a,
                        uid_a != uid_b ? " (or root's)" : "",
                        (unsigned)(0777 & ~deny_mode & 0666));
    else if (read(fd, hex, 65) != 65 || hex[64] != '\n' ||
             sodium_hex2bin(k, 32, hex, 64, NULL, NULL, NULL) != 0)
        r = zk_diag_set(diag, path, -EINVAL, "not a key (64 hex digits and a newline)");
    close(fd);
    sodium_memzero(hex, sizeof hex);
    return r;
}

int zk_seal_make(const char *state_dir, struct zk_diag *diag)
{
    char priv[4200], pub[4200];
    struct zk_seal_pair p;
    struct stat dir;
    int r = ready_dir(state_dir, &dir, diag);
    if (r)
        return r;
    key_path(priv, sizeof priv, state_dir, ZK_SEAL_PRIV);
    key_path(pub, sizeof pub, state_dir, ZK_SEAL_PUB);
    if (faccessat(AT_FDCWD, priv, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    crypto_box_keypair(p.pk, p.sk);
    /* the public key first: a private key without it would be "there" */
    if (!(r = write_key(pub, p.pk, 0644, &dir, diag)) &&
        (r = write_key(priv, p.sk, 0600, &dir, diag)))
        unlink(pub);
    sodium_memzero(&p, sizeof p);
    /* a public key without its private key: another process (a synthd and
     * a first submit started together) is between its two writes; its pair
     * is the one, once its private key is there (a leftover alone stays
     * the error after 2 s) */
    for (int i = 0; r == -EEXIST && i < 40; i++) {
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        if (faccessat(AT_FDCWD, priv, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
            return 0;
        nanosleep(&ts, NULL);
    }
    return r ? r : 1;
}

int zk_seal_pub_load(const char *state_dir, struct zk_seal_pub *ret, struct zk_diag *diag)
{
    char pub[4200];
    struct stat dir;
    int r = ready_dir(state_dir, &dir, diag);
    if (r)
        return r;
    key_path(pub, sizeof pub, state_dir, ZK_SEAL_PUB);
    return read_key(pub, dir.st_uid, 0, 0022, ret->pk, diag);
}

int zk_seal_pair_load(const char *state_dir, struct zk_seal_pair *ret, struct zk_diag *diag)
{
    char priv[4200], pub[4200];
    int r = sodium_ready(diag);
    if (r)
        return r;
    key_path(priv, sizeof priv, state_dir, ZK_SEAL_PRIV);
    key_path(pub, sizeof pub, state_dir, ZK_SEAL_PUB);
    if ((r = read_key(priv, geteuid(), geteuid(), 0077, ret->sk, diag)) ||
        (r = read_key(pub, geteuid(), 0, 0022, ret->pk, diag)))
        return r;
    uint8_t pk[32];
    crypto_scalarmult_base(pk, ret->sk);
    if (memcmp(pk, ret->pk, 32))
        return zk_diag_set(diag, pub, -EKEYREJECTED, "not the public key of %s", priv);
    return 0;
}

int zk_seal_is_sealed(const void *blob, size_t len)
{
    return len >= HDR && !memcmp(blob, ZK_SEAL_MAGIC, 8);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int zk_seal(const struct zk_seal_pub *k, int64_t job_id, uint32_t idx, const void *in,
            size_t len, char **ret, size_t *ret_len)
{
    if (sodium_init() < 0)
        return -EIO;
    if (len > SIZE_MAX / 2)
        return -EFBIG;
    size_t plen = BIND + len, blen = HDR + crypto_box_SEALBYTES + plen;
    uint8_t *plain = malloc(plen), *blob = malloc(blen + 1);
    if (!plain || !blob) {
        free(plain);
        free(blob);
        return -ENOMEM;
    }
    put_le(plain, (uint64_t)job_id, 8);
    put_le(plain + 8, idx, 4);
    memcpy(plain + BIND, in, len);
    memcpy(blob, ZK_SEAL_MAGIC, 8);
    memcpy(blob + 8, k->pk, 8);
    int r = crypto_box_seal(blob + HDR, plain, plen, k->pk) ? -EIO : 0;
    zk_memzero(plain, plen);
    free(plain);
    if (r) {
        free(blob);
        return r;
    }
    blob[blen] = 0;
    *ret = (char *)blob;
    *ret_len = blen;
    return 0;
}

int zk_seal_open(const struct zk_seal_pair *k, int64_t job_id, uint32_t idx, const void *blob,
                 size_t len, char **ret, size_t *ret_len, struct zk_diag *diag)
{
    const uint8_t *b = blob;
    char want[17], have[17];
    int r = sodium_ready(diag);
    if (r)
        return r;
    if (!zk_seal_is_sealed(blob, len) || len < HDR + crypto_box_SEALBYTES + BIND)
        return zk_diag_set(diag, "the sealed input", -EKEYREJECTED, "truncated");
    if (memcmp(b + 8, k->pk, 8)) {
        sodium_bin2hex(want, sizeof want, b + 8, 8);
        sodium_bin2hex(have, sizeof have, k->pk, 8);
        return zk_diag_set(diag, "the sealed input", -ENOKEY,
                           "sealed to key %s, but this machine's key is %s (%s: a farm's "
                           "machines share one key pair)", want, have, ZK_SEAL_PUB);
    }
    size_t plen = len - HDR - crypto_box_SEALBYTES;
    uint8_t *plain = malloc(plen + 1);
    if (!plain)
        return -ENOMEM;
    if (crypto_box_seal_open(plain, b + HDR, len - HDR, k->pk, k->sk)) {
        free(plain);
        return zk_diag_set(diag, "the sealed input", -EKEYREJECTED,
                           "does not open with this machine's key (altered?)");
    }
    int64_t sj = (int64_t)get_le(plain, 8);
    uint32_t si = (uint32_t)get_le(plain + 8, 4);
    if (sj != job_id || si != idx) {
        zk_memzero(plain, plen);
        free(plain);
        return zk_diag_set(diag, "the sealed input", -EACCES,
                           "sealed for partition %u of job %lld, not partition %u of job %lld: "
                           "refused (an input copied from another job is never opened)",
                           si, (long long)sj, idx, (long long)job_id);
    }
    memmove(plain, plain + BIND, plen - BIND);
    plain[plen - BIND] = 0;
    *ret = (char *)plain;
    *ret_len = plen - BIND;
    return 0;
}

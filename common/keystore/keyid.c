/*
 * keyid.c -- the .zkey identities zk_keystore_find has hashed (private to
 * common/keystore/, format.h): "<pool path>.keyid-<dev>-<ino>" beside the
 * stores records that the file of that device and inode, of that size,
 * mtime and ctime, has the content hash it names, so that a later
 * one-shot `zkslot prove` of the same unchanged file finds its store
 * without reading the file (hashing a 34 MiB key is 5 ms, a 10 GiB one
 * seconds).
 *
 * A record is written only for a file that did not change while it was
 * hashed (the same identity before and after) and whose last change is at
 * least KS_KEYID_QUIET_NS old: timestamps are kept at the kernel's tick,
 * so a file written again within the tick of its last change keeps its
 * ctime; one quiet for a second has none left to share.  Any write, chmod,
 * rename over or truncate changes the ctime (or the inode), so a record
 * never matches a file whose content may differ from what was hashed.
 * A record is read under the stores' trust rule (ks_trusted) and is a
 * hint: one that is absent, untrusted, malformed or of another identity
 * is ignored, and the file is hashed as before.  Writing one is best
 * effort (a reader of the pool's directory may not write it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "keystore/format.h"
#include "zk/util.h"

#define KS_KEYID_MAGIC 0x31444959454b4b5aULL   /* "ZKKEYID1" little-endian */
#define KS_KEYID_QUIET_NS 1000000000LL          /* a record's file unchanged this long */

struct ks_keyid {
    uint64_t magic;
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    char key_hash[40];                           /* 32 hex digits, NUL padded */
};

static int64_t ns_of(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static void identity(struct ks_keyid *id, const struct stat *st)
{
    memset(id, 0, sizeof *id);
    id->magic = KS_KEYID_MAGIC;
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_ns = ns_of(&st->st_mtim);
    id->ctime_ns = ns_of(&st->st_ctim);
}

static int record_path(const char *pool_path, const struct stat *st, char *buf, size_t n)
{
    int m = snprintf(buf, n, "%s" KS_KEYID_SUFFIX "%llx-%llx", pool_path,
                     (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
    return m < 0 || (size_t)m >= n ? -ENAMETOOLONG : 0;
}

int ks_keyid_lookup(const char *pool_path, const struct stat *st, char hash[33])
{
    char path[4200];
    struct ks_keyid want, got;
    struct stat rs;
    if (!S_ISREG(st->st_mode) || record_path(pool_path, st, path, sizeof path) < 0)
        return -ENOENT;
    /* a FIFO or a symlink planted at the record's name: ignored, at once */
    int fd = zk_open_shared(path, O_RDONLY, &rs, NULL);
    if (fd < 0)
        return -ENOENT;
    ssize_t n = -1;
    if (ks_trusted(path, &rs, NULL) == 0)
        n = pread(fd, &got, sizeof got, 0);
    close(fd);
    identity(&want, st);
    if (n != (ssize_t)sizeof got || rs.st_size != (off_t)sizeof got ||
        memcmp(&want, &got, offsetof(struct ks_keyid, key_hash)) || got.key_hash[32] ||
        !ks_hash_valid(got.key_hash))
        return -ENOENT;
    memcpy(hash, got.key_hash, 33);
    return 0;
}

void ks_keyid_record(const char *pool_path, const struct stat *before, const struct stat *after,
                     const char *hash)
{
    char path[4200];
    struct ks_keyid a, b;
    struct timespec now;
    identity(&a, before);
    identity(&b, after);
    clock_gettime(CLOCK_REALTIME, &now);
    if (memcmp(&a, &b, sizeof a) || !S_ISREG(after->st_mode) || !ks_hash_valid(hash) ||
        ns_of(&now) - a.ctime_ns < KS_KEYID_QUIET_NS ||   /* (a write sets the ctime too) */
        record_path(pool_path, after, path, sizeof path) < 0)
        return;
    memcpy(a.key_hash, hash, 32);
    (void)zk_write_atomic(path, &a, sizeof a, 0644);
}

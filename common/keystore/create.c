/*
 * create.c -- zk_keystore_create and zk_keystore_create_bp (zk/keystore.h):
 * a key's points (a .zkey's or a bellperson key's) into a new store, built under a temporary name and linked into place only when
 * complete, so that a killed creator leaves nothing a reader would use.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "keystore/format.h"
#include "pool/atomics.h"
#include "util/testhook.h"
#include "zk/error.h"
#include "zk/msm.h"
#include "zk/util.h"

#define KS_HUGETLBFS_MAGIC 0x958458f6L
#define KS_TMPFS_MAGIC 0x01021994L
#define KS_PAUSE_S 120                   /* the test hook's sleep */

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* The factor of the tables `tables` selects, all held by k and of one
 * factor; 0 when one is missing or they differ. */
static uint32_t table_factor(const struct zk_groth16_key *k, unsigned tables)
{
    uint32_t f = 0;
    for (unsigned m = 0; m < KS_NTABLES; m++) {
        const struct zk_msm_table *t = zk_groth16_key_table(k, (enum zk_groth16_msm)m);
        if (!ks_table_selected(tables, m))
            continue;
        if (!t || (f && t->factor != f))
            return 0;
        f = t->factor;
    }
    return f;
}

/* The header of the store of src with the tables `tables` selects
 * (sections laid out, magic not set) on pages of page_size; returns the
 * file size, 0 when src's key lacks one of the tables. */
static uint64_t layout(const struct ks_src *src, unsigned tables, uint64_t page_size,
                       struct ks_hdr *h)
{
    uint64_t off = KS_HDR_SIZE;
    memset(h, 0, sizeof *h);
    for (int i = 0; i < KS_NSETS; i++) {
        h->set[i].off = off;
        h->set[i].count = src->count[i];
        h->set[i].point_bytes = (uint32_t)src->point_bytes[i];
        h->set[i].bytes = src->count[i] * src->point_bytes[i];
        off = align_up(off + h->set[i].bytes, KS_ALIGN);
    }
    h->tables = tables;
    h->key_format = src->key_format;
    if (tables != ZK_KEYSTORE_TABLES_NONE &&
        (!src->k || !(h->table_factor = table_factor(src->k, tables))))
        return 0;
    for (unsigned m = 0; m < KS_NTABLES; m++) {
        if (!ks_table_selected(tables, m))
            continue;
        h->table[m].off = off;
        h->table[m].bytes = zk_groth16_table_size(zk_groth16_key_header(src->k),
                                                  (enum zk_groth16_msm)m, h->table_factor);
        off = align_up(off + h->table[m].bytes, KS_ALIGN);
    }
    return align_up(off, page_size);
}

/* The source of a .zkey's key k (its points loaded). */
static void zkey_src(const struct zk_groth16_key *k, struct ks_src *src)
{
    memset(src, 0, sizeof *src);
    for (int i = 0; i < KS_NSETS; i++)
        src->pts[i] = zk_groth16_key_points(k, ks_set_ids[i], &src->count[i],
                                            &src->point_bytes[i]);
    src->zh = zk_groth16_key_header(k);
    src->zh_size = sizeof(struct zk_zkey_header);
    src->curve = (uint32_t)zk_groth16_key_header(k)->curve;
    src->key_format = ZK_KEY_ZKEY;
    src->k = k;
}

uint64_t zk_keystore_size(const struct zk_groth16_key *k, unsigned tables, uint64_t page_size)
{
    struct ks_hdr h;
    struct ks_src src;
    zkey_src(k, &src);
    return layout(&src, tables, page_size ? page_size : KS_ALIGN, &h);
}

/* The page size of the directory's file system: KS_ALIGN on tmpfs, the
 * huge page on hugetlbfs; ZK_EBADPARAMS on anything else. */
static int dir_page_size(const char *path, uint64_t *ret, struct zk_diag *diag)
{
    char dir[PATH_MAX];
    struct statfs sf;
    if (zk_path_dir(path, dir, sizeof dir) < 0)
        return zk_diag_set(diag, path, -ENAMETOOLONG, "path too long");
    if (statfs(dir, &sf) < 0)
        return zk_diag_set(diag, path, -errno, "%s: %s", dir, strerror(errno));
    if ((long)sf.f_type == KS_HUGETLBFS_MAGIC)
        *ret = (uint64_t)sf.f_bsize;
    else if ((long)sf.f_type == KS_TMPFS_MAGIC)
        *ret = KS_ALIGN;
    else
        return zk_diag_set(diag, path, ZK_EBADPARAMS,
                           "%s is not on tmpfs or hugetlbfs: a key store there would page to "
                           "disk", dir);
    return 0;
}

/*
 * Removes "<base>.tmp.<pid>" files in the store's directory whose creator
 * is dead (a creation killed midway); a live creator's file is left.
 */
static void remove_stale(const char *path)
{
    char dir[PATH_MAX], pre[PATH_MAX + 8];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (zk_path_dir(path, dir, sizeof dir) < 0)
        return;
    int n = snprintf(pre, sizeof pre, "%s.tmp.", base);
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d || n < 0 || (size_t)n >= sizeof pre) {
        if (d)
            closedir(d);
        return;
    }
    while ((e = readdir(d))) {
        if (!strncmp(e->d_name, pre, (size_t)n) && ks_tmp_creator_dead(e->d_name + n))
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* The test hook of zk_keystore_create (zk/keystore.h): the marker is a
 * new file (O_EXCL | O_NOFOLLOW), so a name planted there, a symlink to a
 * file of this user's above all, is never followed, created or truncated
 * through; the pause then happens only when the marker was made. */
static void test_pause(void)
{
    const char *f = zk_test_hook("ZK_KEYSTORE_TEST_PAUSE");
    if (!f || !*f)
        return;
    int fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    close(fd);
    struct timespec ts = { KS_PAUSE_S, 0 };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Fills the mapping of the temporary file: points, then the header, the
 * magic last; then msync. */
static int fill(unsigned char *map, const struct ks_hdr *h, const struct ks_src *src)
{
    for (int i = 0; i < KS_NSETS; i++) {
        if (h->set[i].bytes)
            memcpy(map + h->set[i].off, src->pts[i], h->set[i].bytes);
        if (i == KS_NSETS / 2)
            test_pause();
    }
    for (unsigned m = 0; m < KS_NTABLES; m++) {
        if (h->table[m].bytes)
            memcpy(map + h->table[m].off, zk_groth16_key_table(src->k, (enum zk_groth16_msm)m),
                   h->table[m].bytes);
    }
    struct ks_hdr *dst = (struct ks_hdr *)map;
    memcpy(dst, h, sizeof *h);
    memcpy(map + KS_ZH_OFF, src->zh, src->zh_size);
    /* Release: a reader that sees the magic sees everything above (and
     * readers only ever open the file after the link below anyway). */
    zk_store_release(&dst->magic, KS_MAGIC);
    return msync(map, h->file_size, MS_SYNC) < 0 ? -errno : 0;
}

/* Builds the complete store in `tmp`; removes it on failure. */
static int build(const char *tmp, const struct ks_hdr *h, const struct ks_src *src,
                 struct zk_diag *diag)
{
    unsigned char *map = MAP_FAILED;
    int r, fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return zk_diag_set(diag, tmp, -errno, "%s", strerror(errno));
    if (ftruncate(fd, (off_t)h->file_size) < 0 ||
        fallocate(fd, 0, 0, (off_t)h->file_size) < 0) {
        r = zk_diag_set(diag, tmp, -errno, "reserving %llu bytes: %s",
                        (unsigned long long)h->file_size, strerror(errno));
        goto out;
    }
    map = mmap(NULL, h->file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        r = zk_diag_set(diag, tmp, -errno, "mmap: %s", strerror(errno));
        goto out;
    }
    madvise(map, h->file_size, MADV_HUGEPAGE);   /* tmpfs: a hint, may be refused */
    if ((r = fill(map, h, src)) < 0 || (fsync(fd) < 0 && (r = -errno))) {
        zk_diag_set(diag, tmp, r, "writing the store: %s", strerror(-r));
        goto out;
    }
    r = 0;
out:
    if (map != MAP_FAILED)
        munmap(map, h->file_size);
    close(fd);
    if (r)
        unlink(tmp);
    return r;
}

/* fsync of the directory of path (the new name is durable). */
static void sync_dir(const char *path)
{
    char dir[PATH_MAX];
    if (zk_path_dir(path, dir, sizeof dir) < 0)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The store of src at path (zk_keystore_create, zk_keystore_create_bp). */
static int create(const char *path, const char *key_hash, const struct ks_src *src,
                  unsigned tables, struct zk_diag *diag)
{
    struct ks_hdr h;
    struct stat st;
    char tmp[PATH_MAX + 32];
    uint64_t page = 0;
    struct timespec now;
    int r;

    if (tables > ZK_KEYSTORE_TABLES_ALL)
        return zk_diag_set(diag, path, ZK_EBADPARAMS, "bad table descriptor %u", tables);
    if (lstat(path, &st) == 0)
        return zk_diag_set(diag, path, -EEXIST, "a key store is already there");
    if ((r = dir_page_size(path, &page, diag)) < 0)
        return r;
    remove_stale(path);
    uint64_t size = layout(src, tables, page, &h);
    if (!size)
        return zk_diag_set(diag, path, ZK_ESTATE,
                           "the key does not hold the MSM tables '%s' asks for (one factor)",
                           zk_keystore_tables_name(tables));
    h.version = ZK_KEYSTORE_VERSION;
    h.hdr_size = KS_HDR_SIZE;
    memcpy(h.key_hash, key_hash, 32);
    h.curve = src->curve;
    h.zh_size = src->zh_size;
    h.file_size = size;
    h.page_size = page;
    clock_gettime(CLOCK_REALTIME, &now);
    h.created_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp)
        return zk_diag_set(diag, path, -ENAMETOOLONG, "path too long");
    if ((r = build(tmp, &h, src, diag)) < 0)
        return r;
    /* link, not rename: a store another process completed meanwhile stays */
    if (link(tmp, path) < 0) {
        r = -errno;
        unlink(tmp);
        return zk_diag_set(diag, path, r, r == -EEXIST ? "a key store is already there" : "%s",
                           strerror(-r));
    }
    unlink(tmp);
    sync_dir(path);
    return 0;
}

int zk_keystore_create(const char *path, const char *key_hash, const struct zk_groth16_key *k,
                       unsigned tables, struct zk_diag *diag)
{
    struct ks_src src;
    if (!path || !k || !zk_groth16_key_points(k, ZK_ZKEY_SEC_A, NULL, NULL) ||
        !ks_hash_valid(key_hash))
        return zk_diag_set(diag, path ? path : "key store", ZK_EBADPARAMS,
                           "a key store needs a key with its points and a 32-digit hash");
    zkey_src(k, &src);
    return create(path, key_hash, &src, tables, diag);
}

int zk_keystore_create_bp(const char *path, const char *key_hash, const zk_bp_key *k,
                          struct zk_diag *diag)
{
    struct ks_src src;
    struct zk_bp_key_head head;
    if (!path || !k || !ks_hash_valid(key_hash))
        return zk_diag_set(diag, path ? path : "key store", ZK_EBADPARAMS,
                           "a key store needs a key and a 32-digit hash");
    memset(&src, 0, sizeof src);
    zk_bp_key_head(k, &head);
    for (int i = 0; i < KS_NSETS; i++)
        src.pts[i] = zk_bp_key_points(k, (enum zk_bp_set)i, &src.count[i], &src.point_bytes[i]);
    src.zh = &head;
    src.zh_size = sizeof head;
    src.curve = ZK_CURVE_BLS12_381;
    src.key_format = ZK_KEY_BELLPERSON;
    return create(path, key_hash, &src, ZK_KEYSTORE_TABLES_NONE, diag);
}

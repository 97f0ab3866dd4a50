/*
 * open.c -- zk_keystore_open / _stat / _key / _close (zk/keystore.h): a
 * store checked (trust, header, layout) and mapped read-only, and a
 * Groth16 key (a .zkey's store) or a bellperson key (zk_keystore_bp_key)
 * over its points.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keystore/format.h"
#include "zk/error.h"
#include "zk/msm.h"
#include "zk/util.h"

/*
 * The pool's rule for its files (docs/pool.md, "Trust"), for a store: a
 * regular file owned by this user, by root, or by the owner of a
 * directory others cannot write; writable by no one but its owner (a
 * store is written once, under a temporary name).
 */
int ks_trusted(const char *path, const struct stat *st, struct zk_diag *diag)
{
    char dir[PATH_MAX];
    struct stat ds;
    uid_t dir_owner = (uid_t)-1;
    if (zk_path_dir(path, dir, sizeof dir) == 0 && stat(dir, &ds) == 0 &&
        !(ds.st_mode & S_IWOTH))
        dir_owner = ds.st_uid;
    if (!S_ISREG(st->st_mode))
        return zk_diag_set(diag, path, ZK_EUNTRUSTED, "not a regular file (mode %06o)",
                           (unsigned)st->st_mode);
    if (st->st_uid != geteuid() && st->st_uid != 0 && st->st_uid != dir_owner)
        return zk_diag_set(diag, path, ZK_EUNTRUSTED,
                           "the key store is owned by uid %u: it must belong to this user "
                           "(uid %u), to root, or to the owner of its directory",
                           (unsigned)st->st_uid, (unsigned)geteuid());
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return zk_diag_set(diag, path, ZK_EUNTRUSTED,
                           "the key store has mode %04o: writable by others, who could forge "
                           "points (remove it: zkslot key unload NAME)",
                           (unsigned)(st->st_mode & 07777));
    return 0;
}

/* One section inside the file, after the header, page-aligned. */
static int sec_ok(const struct ks_sec *s, uint64_t file_size)
{
    return s->off >= KS_HDR_SIZE && s->off % KS_ALIGN == 0 && s->off <= file_size &&
           s->bytes <= file_size - s->off;
}

/* Point counts of the six sets of a key with header zh (zk_groth16_key_points). */
static void set_counts(const struct zk_zkey_header *zh, uint64_t cnt[KS_NSETS],
                       uint32_t pb[KS_NSETS])
{
    cnt[0] = (uint64_t)zh->n_public + 1;
    cnt[1] = cnt[2] = cnt[3] = zh->n_vars;
    cnt[4] = (uint64_t)zh->n_vars - zh->n_public - 1;
    cnt[5] = zh->domain_size;
    for (int i = 0; i < KS_NSETS; i++)
        pb[i] = i == 3 ? zh->g2_bytes : zh->g1_bytes;
}

/*
 * A bellperson key's head (at KS_ZH_OFF) into info: its counts give the
 * six sets' (IC, A, B_G1, B_G2, L, H in the places of IC, A, B1, B2, C,
 * H) and a section 2 of the same sizes for the callers that read only
 * those (n_vars inputs + aux, n_public, domain_size); no tables.
 */
static int bp_counts(const char *path, const struct ks_hdr *h, const unsigned char *page,
                     struct zk_keystore_info *info, uint64_t cnt[KS_NSETS],
                     uint32_t pb[KS_NSETS], struct zk_diag *diag)
{
    struct zk_bp_key_head head;
    const struct zk_bp_key_info *bi = &head.info;
    if (h->zh_size != sizeof head || h->curve != ZK_CURVE_BLS12_381 || h->tables)
        return zk_diag_set(diag, path, ZK_EFORMAT, "key store header of another layout");
    memcpy(&head, page + KS_ZH_OFF, sizeof head);
    if (bi->n_ic == 0 || zk_bp_key_shape(bi, path, NULL) != 0)
        return zk_diag_set(diag, path, ZK_EFORMAT, "key store with an inconsistent header");
    info->bp = head.info;
    memset(&info->zh, 0, sizeof info->zh);
    info->zh.curve = ZK_CURVE_BLS12_381;
    info->zh.n_vars = bi->n_ic + bi->n_l;
    info->zh.n_public = bi->n_ic - 1;
    info->zh.domain_size = bi->n_h + 1;
    info->zh.log2_domain = bi->log2_domain;
    cnt[0] = bi->n_ic, cnt[1] = bi->n_a, cnt[2] = bi->n_b_g1, cnt[3] = bi->n_b_g2;
    cnt[4] = bi->n_l, cnt[5] = bi->n_h;
    for (int i = 0; i < KS_NSETS; i++)
        pb[i] = i == 3 ? ZK_BP_G2_WORDS * 8 : ZK_BP_G1_WORDS * 8;
    return 0;
}

/* The table descriptor: each table the descriptor selects is there, of
 * the size its MSM and factor give, inside the file; no other.  Their
 * bytes into *ret_bytes. */
static int check_tables(const char *path, const struct ks_hdr *h,
                        const struct zk_zkey_header *zh, uint64_t size, uint64_t *ret_bytes,
                        struct zk_diag *diag)
{
    *ret_bytes = 0;
    if (h->tables > ZK_KEYSTORE_TABLES_ALL ||
        (h->tables != ZK_KEYSTORE_TABLES_NONE) != (h->table_factor != 0))
        return zk_diag_set(diag, path, ZK_EFORMAT, "key store with a bad table descriptor");
    for (unsigned m = 0; m < KS_NTABLES; m++) {
        const struct ks_sec *t = &h->table[m];
        uint64_t want = ks_table_selected(h->tables, m)
                            ? zk_groth16_table_size(zh, (enum zk_groth16_msm)m, h->table_factor)
                            : 0;
        if (t->bytes != want || (ks_table_selected(h->tables, m) && !want) ||
            (t->bytes && !sec_ok(t, size)))
            return zk_diag_set(diag, path, ZK_EFORMAT,
                               "key store: table %u disagrees with its descriptor", m);
        *ret_bytes += t->bytes;
    }
    return 0;
}

/* The checks of a header read from a file of `size` bytes, info filled. */
static int check_hdr(const char *path, const unsigned char *page, uint64_t size,
                     const char *want, struct zk_keystore_info *info, struct zk_diag *diag)
{
    struct ks_hdr h;
    uint64_t cnt[KS_NSETS];
    uint32_t pb[KS_NSETS];
    memcpy(&h, page, sizeof h);
    if (h.magic != KS_MAGIC)
        return zk_diag_set(diag, path, ZK_EBADMAGIC, "not a key store (bad magic)");
    if (h.version != ZK_KEYSTORE_VERSION)
        return zk_diag_set(diag, path, ZK_EVERSION,
                           "key store format version %u, this build reads version %u: "
                           "unload it (zkslot key unload NAME) and load the key again",
                           h.version, ZK_KEYSTORE_VERSION);
    if (h.key_hash[32] || !ks_hash_valid(h.key_hash))
        return zk_diag_set(diag, path, ZK_EFORMAT, "key store with a malformed key hash");
    if (want && strcmp(h.key_hash, want))
        return zk_diag_set(diag, path, ZK_ECHECKSUM,
                           "a key store of key xxh3-128 %s, expected %s", h.key_hash, want);
    if (h.hdr_size != KS_HDR_SIZE || h.key_format >= ZK_KEY_FORMAT_COUNT ||
        (h.key_format == ZK_KEY_ZKEY && h.zh_size != sizeof(struct zk_zkey_header)))
        return zk_diag_set(diag, path, ZK_EFORMAT, "key store header of another layout");
    if (h.file_size != size)
        return zk_diag_set(diag, path, ZK_ETRUNCATED,
                           "key store of %llu bytes, its header says %llu",
                           (unsigned long long)size, (unsigned long long)h.file_size);
    info->key_format = (int)h.key_format;
    if (h.key_format == ZK_KEY_BELLPERSON) {
        if (bp_counts(path, &h, page, info, cnt, pb, diag) < 0)
            return ZK_EFORMAT;
    } else {
        memcpy(&info->zh, page + KS_ZH_OFF, sizeof info->zh);
        if ((uint32_t)info->zh.curve != h.curve || !zk_curve_name(info->zh.curve) ||
            info->zh.n_vars < info->zh.n_public + 1)
            return zk_diag_set(diag, path, ZK_EFORMAT, "key store with an inconsistent header");
        set_counts(&info->zh, cnt, pb);
    }
    info->points_bytes = 0;
    for (int i = 0; i < KS_NSETS; i++) {
        if (!sec_ok(&h.set[i], size) || h.set[i].count != cnt[i] ||
            h.set[i].point_bytes != pb[i] || h.set[i].bytes != cnt[i] * pb[i])
            return zk_diag_set(diag, path, ZK_EFORMAT,
                               "key store: point set %d disagrees with its key header", i);
        info->points_bytes += h.set[i].bytes;
    }
    if (check_tables(path, &h, &info->zh, size, &info->tables_bytes, diag) < 0)
        return ZK_EFORMAT;
    memcpy(info->key_hash, h.key_hash, 33);
    info->version = h.version;
    info->file_size = h.file_size;
    info->page_size = h.page_size;
    info->tables = h.tables;
    info->table_factor = h.table_factor;
    info->created_ns = h.created_ns;
    return 0;
}

/* Opens path after the trust check and reads its header page into info. */
static int open_checked(const char *path, const char *want, struct zk_keystore_info *info,
                        unsigned char page[KS_HDR_SIZE], struct zk_diag *diag)
{
    struct stat st;
    /* a name anyone can predict (`key list` shows the hash): a FIFO or a
     * symlink planted there is refused at once, never waited on */
    int r, fd = zk_open_shared(path, O_RDONLY, &st, diag);
    if (fd < 0)
        return fd;
    if ((r = ks_trusted(path, &st, diag)) < 0)
        goto fail;
    if ((uint64_t)st.st_size < KS_HDR_SIZE) {
        r = zk_diag_set(diag, path, ZK_ETRUNCATED, "key store of %lld bytes: truncated",
                        (long long)st.st_size);
        goto fail;
    }
    ssize_t n = pread(fd, page, KS_HDR_SIZE, 0);
    if (n != KS_HDR_SIZE) {
        r = zk_diag_set(diag, path, n < 0 ? -errno : ZK_ETRUNCATED, "reading the header: %s",
                        n < 0 ? strerror(errno) : "short read");
        goto fail;
    }
    memset(info, 0, sizeof *info);
    if ((r = check_hdr(path, page, (uint64_t)st.st_size, want, info, diag)) < 0)
        goto fail;
    if (strlen(path) >= sizeof info->path) {
        r = zk_diag_set(diag, "key store", -ENAMETOOLONG, "path too long");
        goto fail;
    }
    strcpy(info->path, path);
    return fd;
fail:
    close(fd);
    return r;
}

int zk_keystore_stat(const char *path, const char *key_hash, struct zk_keystore_info *ret,
                     struct zk_diag *diag)
{
    unsigned char page[KS_HDR_SIZE];
    struct zk_keystore_info info;
    int fd = open_checked(path, key_hash, &info, page, diag);
    if (fd < 0)
        return fd;
    close(fd);
    *ret = info;
    return 0;
}

int zk_keystore_open(const char *path, const char *key_hash, unsigned flags,
                     zk_keystore **ret, struct zk_diag *diag)
{
    unsigned char page[KS_HDR_SIZE];
    struct zk_keystore *s = calloc(1, sizeof *s);
    int fd;
    if (!s)
        return zk_diag_set(diag, path, -ENOMEM, "out of memory");
    if ((fd = open_checked(path, key_hash, &s->info, page, diag)) < 0) {
        free(s);
        return fd;
    }
    int mf = MAP_SHARED | ((flags & ZK_KEYSTORE_POPULATE) ? MAP_POPULATE : 0);
    void *map = mmap(NULL, s->info.file_size, PROT_READ, mf, fd, 0);
    int e = errno;
    close(fd);
    if (map == MAP_FAILED) {
        free(s);
        return zk_diag_set(diag, path, -e, "mmap: %s", strerror(e));
    }
    madvise(map, s->info.file_size, MADV_HUGEPAGE);   /* a hint: may be refused */
    s->map = map;
    s->map_len = s->info.file_size;
    *ret = s;
    return 0;
}

const struct zk_keystore_info *zk_keystore_info(const zk_keystore *s)
{
    return &s->info;
}

zk_keystore *zk_keystore_close(zk_keystore *s)
{
    if (!s)
        return NULL;
    munmap((void *)s->map, s->map_len);
    free(s);
    return NULL;
}

static void release_store(void *ctx)
{
    zk_keystore_close(ctx);
}

/* Same key: curve, sizes, coefficient count and the points of section 2. */
static int same_key(const struct zk_zkey_header *a, const struct zk_zkey_header *b)
{
    return a->curve == b->curve && a->n_vars == b->n_vars && a->n_public == b->n_public &&
           a->domain_size == b->domain_size && a->n_coef == b->n_coef &&
           !memcmp(a->alpha1, b->alpha1,
                   sizeof *a - offsetof(struct zk_zkey_header, alpha1));
}

int zk_keystore_key(zk_keystore *s, struct zk_groth16_key *base, struct zk_groth16_key **ret,
                    struct zk_diag *diag)
{
    const struct ks_hdr *h = (const struct ks_hdr *)s->map;
    const void *pts[KS_NSETS];
    struct zk_groth16_key *k = base;
    int r = 0;
    if (s->info.key_format != ZK_KEY_ZKEY)
        return zk_diag_set(diag, s->info.path, ZK_EFORMAT,
                           "the key store holds a %s key, not a .zkey's",
                           zk_key_format_name(s->info.key_format));
    for (int i = 0; i < KS_NSETS; i++)
        pts[i] = s->map + h->set[i].off;
    if (base && !same_key(zk_groth16_key_header(base), &s->info.zh))
        return zk_diag_set(diag, s->info.path, ZK_ELENGTH,
                           "the key store holds another key than the one loaded");
    if (!base && (r = zk_groth16_key_new(&s->info.zh, &k)) < 0)
        return zk_diag_set(diag, s->info.path, r, "%s", zk_strerror(r));
    for (unsigned m = 0; m < KS_NTABLES && !r; m++) {
        const struct zk_msm_table *t = (const struct zk_msm_table *)(s->map + h->table[m].off);
        if (!h->table[m].bytes)
            continue;
        if (t->factor != h->table_factor ||
            (r = zk_groth16_key_use_table(k, (enum zk_groth16_msm)m, t)) < 0)
            r = zk_diag_set(diag, s->info.path, ZK_EFORMAT,
                            "key store: table %u is not a table of its MSM's points", m);
    }
    if (!r && (r = zk_groth16_key_use_points(k, pts, release_store, s)) < 0)
        zk_diag_set(diag, s->info.path, r, "the key already has its points");
    if (r) {
        for (unsigned m = 0; m < KS_NTABLES; m++) {
            if (h->table[m].bytes)
                zk_groth16_key_use_table(k, (enum zk_groth16_msm)m, NULL);
        }
        if (!base)
            zk_groth16_key_free(k);
        return r;
    }
    *ret = k;
    return 0;
}

int zk_keystore_bp_key(zk_keystore *s, zk_bp_key **ret, struct zk_diag *diag)
{
    const struct ks_hdr *h = (const struct ks_hdr *)s->map;
    const void *pts[KS_NSETS];
    struct zk_bp_key_head head;
    if (s->info.key_format != ZK_KEY_BELLPERSON)
        return zk_diag_set(diag, s->info.path, ZK_EFORMAT,
                           "the key store holds a %s key, not a bellperson key's",
                           zk_key_format_name(s->info.key_format));
    memcpy(&head, s->map + KS_ZH_OFF, sizeof head);
    for (int i = 0; i < KS_NSETS; i++)
        pts[i] = s->map + h->set[i].off;
    return zk_bp_key_over(&head, pts, release_store, s, s->info.path, ret, diag);
}

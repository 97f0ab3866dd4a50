/*
 * keystore.h -- a proving key's decoded points in a shared-memory file
 * beside the slot pool, so that a restarted gpud (or a one-shot
 * `zkslot prove`) maps them in milliseconds instead of re-reading and
 * re-decoding the .zkey (docs/keystore.md).
 *
 * A store is one file `<pool path>.key-<xxh3-128 of the .zkey>` in the
 * pool's directory (/run/zkslot or /dev/shm: tmpfs, or hugetlbfs when the
 * pool's directory is one; huge pages are asked for with MADV_HUGEPAGE on
 * tmpfs).  It holds a 4 KiB header (magic, format version, the key's
 * content hash, the curve, the key's decoded section 2, the offset, count
 * and point size of the six point sets IC, A, B1, B2, C, H, and a table
 * descriptor: which precomputed MSM tables follow and their factor), then
 * the points exactly as zk_groth16_key_points gives them (affine,
 * Montgomery limbs, 64-byte aligned, each set starting on a 4 KiB page),
 * then the precomputed MSM tables (struct zk_msm_table blocks, zk/msm.h)
 * the descriptor names, each on its own page; a key built over the store
 * uses them (zk_groth16_key_use_table).
 *
 * Creation is crash-safe: the file is built under `<store>.tmp.<pid>`,
 * msync'ed and fsync'ed, its magic written last, then linked to its name
 * (an existing store is never replaced) and the directory fsync'ed; a
 * temporary file left by a killed creator is never opened as a store and
 * is removed by the next creation once its pid is dead.  A store is
 * opened read-only (MAP_SHARED, PROT_READ) after the trust check the pool
 * applies to its files: a regular file owned by this user, by root or by
 * the owner of a directory others cannot write, writable by nobody else.
 * A store of another key hash or format version, a short or inconsistent
 * one, is refused with one line naming the file and the mismatch.
 *
 * Functions return 0 or a negative code of zk/error.h (-errno for system
 * failures) with diag (may be NULL) set to one line naming the file.
 * Nothing here logs.  A zk_keystore handle may be shared by threads; a key
 * built over it (zk_keystore_key) owns it.
 */
#ifndef ZK_COMMON_KEYSTORE_H
#define ZK_COMMON_KEYSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "zk/bellperson.h"
#include "zk/binfile.h"
#include "zk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_KEYSTORE_VERSION 1u        /* the layout this build writes and reads */
#define ZK_KEYSTORE_SUFFIX ".key-"    /* <pool path>.key-<hash> */

/* The table descriptor: precomputed MSM bases a store holds (the values
 * of enum zk_groth16_precompute). */
enum zk_keystore_tables {
    ZK_KEYSTORE_TABLES_NONE = ZK_G16_PRECOMPUTE_NONE,   /* points only */
    ZK_KEYSTORE_TABLES_H = ZK_G16_PRECOMPUTE_H,         /* a table for H's MSM */
    ZK_KEYSTORE_TABLES_ALL = ZK_G16_PRECOMPUTE_ALL,     /* tables for all five MSMs */
};

/* "none", "h", "all"; "?" for anything else. */
const char *zk_keystore_tables_name(unsigned tables);

/* What a store's header says (zk_keystore_stat, zk_keystore_info). */
struct zk_keystore_info {
    char path[4096];
    char key_hash[33];                /* XXH3-128 of the .zkey, lowercase hex */
    uint32_t version;
    struct zk_zkey_header zh;         /* the key's section 2 */
    uint64_t file_size;               /* bytes of the file (its memory) */
    uint64_t points_bytes;            /* of which points */
    uint64_t page_size;               /* 4096 on tmpfs, the huge page on hugetlbfs */
    unsigned tables;                  /* enum zk_keystore_tables */
    uint32_t table_factor;            /* 0 without tables */
    uint64_t tables_bytes;
    uint64_t created_ns;              /* CLOCK_REALTIME */
    int found_by_identity;            /* zk_keystore_find: through the file's recorded
                                       * identity, the file not hashed again */
    int key_format;                   /* enum zk_key_format (zk/ledger.h); a
                                       * bellperson key's zh has its sizes only */
    struct zk_bp_key_info bp;         /* a bellperson key's counts */
};

/*
 * The store's path for a key of content hash `key_hash` (32 hex digits)
 * beside the pool at `pool_path`: "<pool_path>.key-<hash>" into buf.
 * 0, or ZK_EBADPARAMS (bad hash) / -ENAMETOOLONG.  Cannot fail otherwise.
 */
int zk_keystore_path(const char *pool_path, const char *key_hash, char *buf, size_t n);

/* Bytes the store of k (loaded with its points) with the tables `tables`
 * selects takes on pages of `page_size` (0: 4 KiB); k must hold those
 * tables (zk_groth16_key_precompute), else 0. */
uint64_t zk_keystore_size(const struct zk_groth16_key *k, unsigned tables, uint64_t page_size);

/*
 * Builds the store of k (which has its points) at `path` for content hash
 * key_hash, with the tables `tables` selects, which k must hold, all of
 * one factor (built by zk_groth16_key_precompute; ZK_ESTATE otherwise).
 * -EEXIST (diag says so)
 * when a store is already there: it is left alone.  The directory must be
 * on tmpfs or hugetlbfs (ZK_EBADPARAMS: a store on disk would page).  On
 * failure nothing is left at path, and the temporary file is removed.
 * Test hook: with $ZK_KEYSTORE_TEST_PAUSE set to a file name, the file is
 * created (O_EXCL | O_NOFOLLOW: a name already there, a symlink included,
 * is left alone and there is no pause) when half the points are written,
 * and creation sleeps 120 s (to be killed there).
 */
int zk_keystore_create(const char *path, const char *key_hash, const struct zk_groth16_key *k,
                       unsigned tables, struct zk_diag *diag);

/*
 * The store of a bellperson key (its parameter file of content hash
 * key_hash, opened and checked by zk_bp_key_open): its head and six point
 * sets (zk_bp_key_points), no tables; the store's header says format
 * bellperson.  Errors and crash safety as zk_keystore_create.
 */
int zk_keystore_create_bp(const char *path, const char *key_hash, const zk_bp_key *k,
                          struct zk_diag *diag);

typedef struct zk_keystore zk_keystore;

/* zk_keystore_open flags */
#define ZK_KEYSTORE_POPULATE 0x1u     /* fault every page in at open (MAP_POPULATE) */

/*
 * Opens and maps the store at path read-only after the trust check and
 * every check of its header: key_hash (NULL: any) must be the store's,
 * the version ZK_KEYSTORE_VERSION, the sections inside the file and
 * consistent with its key header.  Errors: -ENOENT (no store), ZK_EUNTRUSTED,
 * ZK_EBADMAGIC, ZK_EVERSION, ZK_ECHECKSUM (another key's store),
 * ZK_ETRUNCATED, ZK_EFORMAT, -errno.  *ret written only on success.
 */
int zk_keystore_open(const char *path, const char *key_hash, unsigned flags,
                     zk_keystore **ret, struct zk_diag *diag);

/* The header of an opened store.  Cannot fail. */
const struct zk_keystore_info *zk_keystore_info(const zk_keystore *s);

/*
 * zk_keystore_open's checks without mapping the points: the header of the
 * store at path into *ret.  Errors as zk_keystore_open.
 */
int zk_keystore_stat(const char *path, const char *key_hash, struct zk_keystore_info *ret,
                     struct zk_diag *diag);

/*
 * A key over the store's points and tables, not copied.  base NULL: a new key with
 * the store's header and points only (prove_start, finalize, vk); else
 * base (loaded without points, e.g. coefficients only, of the same key:
 * curve, sizes and header points equal, else ZK_ELENGTH) gets them and is
 * returned in *ret (its own tables for the MSMs the store has tables for
 * are replaced).  On success the key owns s (zk_groth16_key_free unmaps
 * it); on failure s is still the caller's, base has no points and no
 * tables for the MSMs the store has tables for.
 */
int zk_keystore_key(zk_keystore *s, struct zk_groth16_key *base, struct zk_groth16_key **ret,
                    struct zk_diag *diag);

/*
 * A bellperson key over a bellperson key's store (ZK_EFORMAT for a
 * .zkey's, which zk_keystore_key takes; it refuses a bellperson key's
 * store likewise): the points are borrowed, not copied.  On success the
 * key owns s (zk_bp_key_close unmaps it); on failure s is the caller's.
 */
int zk_keystore_bp_key(zk_keystore *s, zk_bp_key **ret, struct zk_diag *diag);

/* Unmaps and frees s; accepts NULL and returns NULL. */
zk_keystore *zk_keystore_close(zk_keystore *s);

/*
 * Calls fn(ctx, path, hash) for every store beside the pool at pool_path
 * (temporary files excluded), in directory order; a nonzero return of fn
 * stops and is returned.  0, or -errno when the directory cannot be read.
 */
int zk_keystore_list(const char *pool_path,
                     int (*fn)(void *ctx, const char *path, const char *hash), void *ctx);

/*
 * The store of the .zkey at zkey_path beside the pool, opened (flags as
 * zk_keystore_open): the file is hashed (XXH3-128, as `zkslot key add`
 * does) only when there is a store beside the pool at all, and not when
 * a trusted record beside the stores says that this file (device, inode,
 * size, mtime, ctime) has a hash whose store is there: after a hash that
 * finds a store, such a record "<pool path>.keyid-<dev>-<ino>" is written
 * (best effort) for a file unchanged while it was hashed and for a second
 * before (info.found_by_identity says which way it was found).  -ENOENT
 * when there is none for it; the other errors of zk_keystore_open (a
 * store that is there but refused) and of reading the file.
 */
int zk_keystore_find(const char *pool_path, const char *zkey_path, unsigned flags,
                     zk_keystore **ret, struct zk_diag *diag);

/* Bytes of every store beside the pool (zkslot plan's bound); 0 when none. */
uint64_t zk_keystore_resident_bytes(const char *pool_path);

/*
 * Removes the store at path (processes that map it keep their mapping; the
 * memory is freed with the last one).  -ENOENT when there is none.
 */
int zk_keystore_remove(const char *path, struct zk_diag *diag);

/* Removes every store beside the pool (`zkslot pool destroy`), the
 * identity records zk_keystore_find wrote, and the temporary files of
 * creations killed midway (a live creator's is left); how many stores. */
unsigned zk_keystore_remove_all(const char *pool_path);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_KEYSTORE_H */

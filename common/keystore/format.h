/*
 * format.h -- private to common/keystore/: the on-file layout of a key
 * store (zk/keystore.h, docs/keystore.md), shared by create.c (writes it)
 * and open.c (checks and maps it), and the handle.
 */
#ifndef ZK_COMMON_KEYSTORE_FORMAT_H
#define ZK_COMMON_KEYSTORE_FORMAT_H

#include <stdint.h>

#include "zk/bellperson.h"
#include "zk/keystore.h"
#include "zk/ledger.h"
#include "zk/zkey.h"

#define KS_MAGIC 0x3145524f54534b5aULL   /* "ZKSTORE1" little-endian */
#define KS_HDR_SIZE 4096u                /* the header page */
#define KS_ALIGN 4096u                   /* each section starts on a page */
#define KS_ZH_OFF 1024u                  /* the key's section 2 in the header */
#define KS_NSETS 6                       /* IC, A, B1, B2, C, H */
#define KS_NTABLES ZK_G16_MSM_COUNT       /* per MSM, indexed by enum zk_groth16_msm */

/* One section of the file. */
struct ks_sec {
    uint64_t off;                        /* from the file's start, KS_ALIGN aligned */
    uint64_t count;                      /* points (tables: 0) */
    uint64_t bytes;                      /* count x point bytes */
    uint32_t point_bytes;
    uint32_t reserved;
};

/* The header page: every field little-endian, this machine's layout. */
struct ks_hdr {
    uint64_t magic;                      /* KS_MAGIC, stored last */
    uint32_t version;                    /* ZK_KEYSTORE_VERSION */
    uint32_t hdr_size;                   /* KS_HDR_SIZE */
    char key_hash[40];                   /* 32 hex digits, NUL padded */
    uint32_t curve;                      /* enum zk_curve */
    uint32_t zh_size;                    /* sizeof(struct zk_zkey_header) */
    uint64_t file_size;
    uint64_t page_size;
    uint64_t created_ns;
    struct ks_sec set[KS_NSETS];         /* IC, A, B1, B2, C, H */
    /* table descriptor */
    uint32_t tables;                     /* enum zk_keystore_tables */
    uint32_t table_factor;               /* multiples per point; 0 without tables */
    struct ks_sec table[KS_NTABLES];     /* [enum zk_groth16_msm] (bytes 0: none) */
    uint32_t key_format;                 /* enum zk_key_format (0 in stores from before) */
    uint32_t reserved;                   /* 0 */
};

_Static_assert(sizeof(struct ks_hdr) <= KS_ZH_OFF, "header fields fit before the key header");
_Static_assert(KS_ZH_OFF + sizeof(struct zk_zkey_header) <= KS_HDR_SIZE,
               "the key header fits in the header page");
_Static_assert(KS_ZH_OFF + sizeof(struct zk_bp_key_head) <= KS_HDR_SIZE,
               "a bellperson key's head fits in the header page");

/* What a store is built from (create.c): the key's header at KS_ZH_OFF
 * (a .zkey's section 2, or a bellperson key's head), its six point sets
 * in file order and, for a .zkey's key, the key whose tables it holds. */
struct ks_src {
    const void *zh;
    uint32_t zh_size;
    uint32_t curve;                      /* enum zk_curve */
    uint32_t key_format;                 /* enum zk_key_format */
    const void *pts[KS_NSETS];
    uint64_t count[KS_NSETS];
    size_t point_bytes[KS_NSETS];
    const struct zk_groth16_key *k;      /* tables (a .zkey's key); NULL: none */
};

/* The point sets in file order, as zk_groth16_key_points names them. */
static const enum zk_zkey_section ks_set_ids[KS_NSETS] = {
    ZK_ZKEY_SEC_IC, ZK_ZKEY_SEC_A, ZK_ZKEY_SEC_B1, ZK_ZKEY_SEC_B2, ZK_ZKEY_SEC_C, ZK_ZKEY_SEC_H,
};

/* 1 when h is 32 lowercase hex digits (an XXH3-128 as the ledger keeps it). */
static inline int ks_hash_valid(const char *h)
{
    if (!h)
        return 0;
    for (int i = 0; i < 32; i++) {
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
            return 0;
    }
    return h[32] == 0;
}

/* 1 when the descriptor `tables` gives MSM m a table. */
static inline int ks_table_selected(unsigned tables, unsigned m)
{
    return tables == ZK_KEYSTORE_TABLES_ALL ||
           (tables == ZK_KEYSTORE_TABLES_H && m == ZK_G16_MSM_H);
}

/* 1 when `pid` (the text after a temporary store's ".tmp.") names a
 * process that no longer exists: its creation was killed midway and the
 * file is garbage (create.c, names.c). */
int ks_tmp_creator_dead(const char *pid);

/* "<pool path>.keyid-<dev>-<ino>": a .zkey's identity and hash (keyid.c). */
#define KS_KEYID_SUFFIX ".keyid-"

struct stat;

/* The pool's trust rule for a file at path of status st (open.c): 0, or
 * ZK_EUNTRUSTED with diag (may be NULL) saying why. */
int ks_trusted(const char *path, const struct stat *st, struct zk_diag *diag);

/* The content hash recorded for the file of status st beside the pool:
 * 0 (hash written), or -ENOENT when there is no trusted record of exactly
 * that identity (keyid.c). */
int ks_keyid_lookup(const char *pool_path, const struct stat *st, char hash[33]);

/* Records hash for the file whose status was `before` when its hashing
 * began and `after` when it ended, when they agree and the file has been
 * unchanged for a second; best effort, silent (keyid.c). */
void ks_keyid_record(const char *pool_path, const struct stat *before, const struct stat *after,
                     const char *hash);

/* An opened store. */
struct zk_keystore {
    const unsigned char *map;            /* the whole file, PROT_READ */
    size_t map_len;
    struct zk_keystore_info info;
};

#endif /* ZK_COMMON_KEYSTORE_FORMAT_H */

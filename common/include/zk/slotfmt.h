/*
 * slotfmt.h -- what synthd writes into a pool slot and gpud reads back.
 *
 * One partition per slot, five regions in checksum order, each starting on
 * a ZK_SLOTFMT_ALIGN boundary (so every region is page- and cache-aligned
 * whatever the slot's huge-page size):
 *
 *   0  header   struct zk_slotfmt_header (what is in the slot, for whom)
 *   1  w        n_vars plain witness scalars (read straight from the .wtns)
 *   2  a        domain_size Montgomery Fr elements  (A * w)
 *   3  b        domain_size Montgomery Fr elements  (B * w)
 *   4  c        domain_size Montgomery Fr elements  (a (.) b)
 *
 * Scalars are 32 bytes (4 little-endian 64-bit limbs) on both curves.
 * The pool's checksum covers all five regions, header included.
 *
 * A bellperson partition (header `format` ZK_SLOTFMT_BELLPERSON) holds its
 * assignment instead: region w is the .bpa exactly as the file holds it
 * (docs/bellperson.md: inputs, aux, a, b, c, the density bitmaps), any
 * length, and a, b, c are empty (at the end of w, rounded up); n_vars is
 * inputs + aux, n_public inputs - 1, domain_size the key's.  The prover
 * reads the assignment in place.
 */
#ifndef ZK_COMMON_SLOTFMT_H
#define ZK_COMMON_SLOTFMT_H

#include <stdint.h>

#include "zk/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_SLOTFMT_MAGIC 0x31544f4c534b5a00ULL   /* "\0ZKSLOT1" little-endian */
#define ZK_SLOTFMT_VERSION 2   /* 2: class and deadline (1, read still: without) */
#define ZK_SLOTFMT_ALIGN 4096

enum zk_slotfmt_format {
    ZK_SLOTFMT_GROTH16 = 0,          /* a .zkey's: w, a, b, c as above */
    ZK_SLOTFMT_BELLPERSON = 1,       /* a bellperson key's: the .bpa in w */
};
#define ZK_SLOTFMT_BPA_MIN 40        /* a .bpa's fixed head: magic, version, flags, counts */

enum { ZK_SLOTFMT_HDR, ZK_SLOTFMT_W, ZK_SLOTFMT_A, ZK_SLOTFMT_B, ZK_SLOTFMT_C,
       ZK_SLOTFMT_NREGIONS };

struct zk_slotfmt_header {
    uint64_t magic;                  /* ZK_SLOTFMT_MAGIC */
    uint32_t version;                /* ZK_SLOTFMT_VERSION */
    uint32_t curve;                  /* enum zk_curve */
    uint64_t partition_id, key_id;   /* ledger ids */
    uint64_t n_vars, n_public, domain_size;
    uint64_t synth_ns;               /* wall time synthesis took */
    uint32_t attempt;                /* the ledger's attempt number */
    uint32_t witness_ms;             /* of synth_ns: the witness generator's run,
                                        in ms, at least 1; 0 = none ran (a .wtns) */
    uint32_t priority;               /* the job's class when synthesized (zk/priority.h) */
    uint32_t format;                 /* enum zk_slotfmt_format (0 in slots from before) */
    uint64_t deadline_ns;            /* the job's deadline, CLOCK_REALTIME; 0 = none */
};

/*
 * The regions of a partition with n_vars witness values and a domain of
 * domain_size, into d (nregions = ZK_SLOTFMT_NREGIONS, no checksum yet).
 * Returns the bytes the slot must hold, or 0 on overflow.
 */
uint64_t zk_slotfmt_layout(uint64_t n_vars, uint64_t domain_size, struct zk_slot_desc *d);

/* The regions of a bellperson partition whose .bpa has bpa_bytes, into d;
 * the bytes the slot must hold, or 0 on overflow. */
uint64_t zk_slotfmt_layout_bp(uint64_t bpa_bytes, struct zk_slot_desc *d);

/* A version-1 header: the fields before priority (a slot published by the
 * zkslot before classes; read as class low, no deadline). */
#define ZK_SLOTFMT_V1_SIZE 72

/* The header of a held slot into *ret (a version-1 header with the new
 * fields 0): 0, ZK_EBADMAGIC or ZK_EVERSION. */
int zk_slotfmt_read(const struct zk_slot *s, struct zk_slotfmt_header *ret);

/*
 * Checks a claimed slot's regions against the layout its header announces
 * and the expected key: magic, version, format, region geometry (a
 * bellperson partition's w at least the .bpa head and its n_vars values),
 * and (when `expect` is not NULL) format, curve, n_vars, n_public,
 * domain_size and key_id.
 * Returns 0, ZK_EBADMAGIC, ZK_EVERSION or ZK_ELENGTH.
 */
int zk_slotfmt_check(const struct zk_slot *s, const struct zk_slotfmt_header *expect);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_SLOTFMT_H */

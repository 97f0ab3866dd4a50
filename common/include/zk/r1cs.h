/*
 * r1cs.h -- reader of circom constraint systems (.r1cs, docs/formats.md
 * section 4): section 1 header, section 2 constraints (variable length),
 * section 3 wire -> label map (optional for us; checked when present).
 * Sections 4/5 (PLONK custom gates) are ignored.
 */
#ifndef ZK_COMMON_R1CS_H
#define ZK_COMMON_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_R1CS_VERSION_MAX 1

struct zk_r1cs_header {
    enum zk_curve curve;      /* identified by the prime r */
    uint32_t version;
    uint32_t n8;              /* 32 */
    uint32_t n_wires;         /* = nVars, wire 0 is the constant 1 */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
};

struct zk_r1cs {
    struct zk_binfile bf;
    struct zk_r1cs_header hdr;
    struct zk_binsec constraints; /* section 2 */
    struct zk_binsec map;         /* section 3; size 0 and id 0 when absent */
};

/* One term of a linear combination, unpacked and aligned. */
struct zk_r1cs_term {
    uint32_t wire;            /* < n_wires */
    uint32_t pad;
    uint64_t coef[4];         /* plain LE limbs, canonical (< r) */
};

/* A linear combination: n terms (t valid only during the callback). */
struct zk_r1cs_lc {
    uint32_t n;
    const struct zk_r1cs_term *t;
};

/*
 * Called once per constraint with its A, B and C combinations.  Return 0
 * to continue; any other value stops the walk and is returned by
 * zk_r1cs_for_each_constraint().
 */
typedef int (*zk_r1cs_constraint_fn)(void *ctx, uint32_t index, const struct zk_r1cs_lc lc[3]);

/*
 * Open the r1cs at `path` and check its header: magic, version 1, sections
 * 1 and 2 present once each (3 at most once, of nWires * 8 bytes), section
 * 1 of 32 + n8 bytes, prime = r of a supported curve, nPubOut + nPubIn +
 * nPrvIn < nWires.  The constraints are checked by
 * zk_r1cs_for_each_constraint().  Errors: -errno, ZK_ETRUNCATED,
 * ZK_EBADMAGIC, ZK_EVERSION, ZK_ESECTION_MISSING, ZK_ESECTION_DUP,
 * ZK_ESECTION_SIZE, ZK_ECURVE, ZK_EFORMAT, -ENOMEM; on failure *r is closed
 * and diag (if not NULL) holds one line.
 */
int zk_r1cs_open(struct zk_r1cs *r, const char *path, struct zk_diag *diag);

/* Same over a memory buffer that must outlive *r; `name` is for diag. */
int zk_r1cs_open_mem(struct zk_r1cs *r, const void *buf, size_t len, const char *name,
                     struct zk_diag *diag);

/* Release; accepts a zeroed or closed struct. */
void zk_r1cs_done(struct zk_r1cs *r);

/*
 * Walk section 2 in file order, checking every record (wire < nWires,
 * coefficient < r, exactly nConstraints records filling the section) and
 * calling fn (may be NULL: check only) for each constraint.  If
 * ret_terms is not NULL it receives the total number of terms of A, B, C.
 * Errors: ZK_ESECTION_SIZE (records overrun or underfill the section),
 * ZK_EFORMAT (wire out of range), ZK_ENOT_CANONICAL, -ENOMEM, -errno /
 * ZK_ETRUNCATED, or fn's nonzero return (diag then untouched).
 */
int zk_r1cs_for_each_constraint(const struct zk_r1cs *r, zk_r1cs_constraint_fn fn, void *ctx,
                                uint64_t ret_terms[3], struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_R1CS_H */

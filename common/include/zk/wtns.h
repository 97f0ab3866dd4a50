/*
 * wtns.h -- reader of circom/snarkjs witness files (.wtns,
 * docs/formats.md section 3): section 1 = n8, prime r, nWitness;
 * section 2 = nWitness plain (not Montgomery) LE field elements.
 *
 * The values are not 8-byte aligned in the file (they start at byte 76),
 * so they are only ever copied into caller memory with
 * zk_wtns_read_values().
 */
#ifndef ZK_COMMON_WTNS_H
#define ZK_COMMON_WTNS_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"
#include "zk/zkey.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ZK_WTNS_VERSION_MAX 2   /* circom/snarkjs write 2; 1 has the same layout */

struct zk_wtns_header {
    enum zk_curve curve;      /* identified by the prime (scalar field r) */
    uint32_t version;
    uint32_t n8;              /* bytes per value: 32 */
    uint32_t n_witness;       /* = nVars of the circuit */
};

struct zk_wtns {
    struct zk_binfile bf;
    struct zk_wtns_header hdr;
    struct zk_binsec values;  /* section 2 */
};

/*
 * Open and check the witness at `path`: magic, version 1..2, sections 1
 * and 2 present once each, section 1 size 8+n8, prime = r of BN254 or
 * BLS12-381, section 2 size = nWitness * n8.  Errors: -errno,
 * ZK_ETRUNCATED, ZK_EBADMAGIC, ZK_EVERSION, ZK_ESECTION_MISSING,
 * ZK_ESECTION_DUP, ZK_ESECTION_SIZE, ZK_ECURVE, -ENOMEM; on failure *w is
 * closed and diag (if not NULL) holds one line.  Values are not checked
 * here (see zk_wtns_read_values).
 */
int zk_wtns_open(struct zk_wtns *w, const char *path, struct zk_diag *diag);
/* The same, following no symlink in any component (zk_binfile_open_nofollow):
 * synthd reading a job's witness, a path its submitter named. */
int zk_wtns_open_nofollow(struct zk_wtns *w, const char *path, struct zk_diag *diag);

/* Same over a memory buffer that must outlive *w; `name` is for diag. */
int zk_wtns_open_mem(struct zk_wtns *w, const void *buf, size_t len, const char *name,
                     struct zk_diag *diag);

/* Release; accepts a zeroed or closed struct. */
void zk_wtns_done(struct zk_wtns *w);

/*
 * Copy values w[first .. first+count) into dst (count * n8 bytes; use an
 * 8-byte aligned array of 4-limb elements to read them as limbs) and check
 * that each is canonical (< r).  Errors: ZK_ESECTION_SIZE (range outside
 * nWitness), ZK_ENOT_CANONICAL (names the index), -errno / ZK_ETRUNCATED.
 * dst contents are unspecified on failure.
 */
int zk_wtns_read_values(const struct zk_wtns *w, uint64_t first, uint64_t count, void *dst,
                        struct zk_diag *diag);

/*
 * Check that a witness fits a proving key: same curve (prime == zkey r)
 * and nWitness == nVars.  Returns 0, ZK_ECURVE_MISMATCH or ZK_ELENGTH; diag
 * is prefixed with `wtns_name` (may be NULL).
 */
int zk_wtns_check_against_zkey(const struct zk_wtns_header *w, const struct zk_zkey_header *z,
                               const char *wtns_name, struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_WTNS_H */

/*
 * zkey.h -- reader of snarkjs Groth16 proving keys (.zkey, docs/formats.md
 * section 5).
 *
 * zk_zkey_open() reads and checks the headers (sections 1 and 2: protocol,
 * primes -> curve, nVars/nPublic/domainSize, the six header points on the
 * curve and in the subgroup) and the size of every section the prover
 * needs (3 IC, 4 coefficients, 5 A, 6 B1, 7 B2, 8 C, 9 H) against them.
 * The big sections are then read on demand into caller memory with
 * zk_zkey_read_points() / zk_zkey_read_coefs(); nothing is mapped, so the
 * destinations have whatever alignment the caller gives them.
 *
 * Points are copied exactly as stored: affine, LE, Montgomery form of the
 * base field, G2 as x.c0 x.c1 y.c0 y.c1, infinity = all zero bytes.  That
 * is the in-memory layout of the curve types of common/ec/curves.h on a
 * little-endian machine (bn254_g1_affine etc.), so a destination array of
 * those types can be passed directly.
 */
#ifndef ZK_COMMON_ZKEY_H
#define ZK_COMMON_ZKEY_H

#include <stddef.h>
#include <stdint.h>

#include "zk/binfile.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Section ids of a Groth16 zkey. */
enum zk_zkey_section {
    ZK_ZKEY_SEC_HEADER = 1,
    ZK_ZKEY_SEC_GROTH16 = 2,
    ZK_ZKEY_SEC_IC = 3,
    ZK_ZKEY_SEC_COEFS = 4,
    ZK_ZKEY_SEC_A = 5,
    ZK_ZKEY_SEC_B1 = 6,
    ZK_ZKEY_SEC_B2 = 7,
    ZK_ZKEY_SEC_C = 8,
    ZK_ZKEY_SEC_H = 9,
    ZK_ZKEY_SEC_CONTRIB = 10,
};

#define ZK_ZKEY_VERSION_MAX 2   /* snarkjs accepts <= 2; files carry 1 */
#define ZK_G1_MAX_BYTES 96      /* 2 * n8q, BLS12-381 */
#define ZK_G2_MAX_BYTES 192     /* 4 * n8q, BLS12-381 */

/*
 * Section 2 decoded.  The header points are stored as their file bytes
 * (first g1_bytes / g2_bytes of each array are used), 8-byte aligned, i.e.
 * already in the layout of the curves.h affine types.
 */
struct zk_zkey_header {
    enum zk_curve curve;
    uint32_t version;
    uint32_t protocol;        /* 1 (groth16) after a successful open */
    uint32_t n8q, n8r;        /* 32/48 and 32 */
    uint32_t g1_bytes, g2_bytes; /* 2*n8q and 4*n8q */
    uint32_t n_vars;          /* witness length, including w[0] = 1 */
    uint32_t n_public;        /* excluding w[0] */
    uint32_t domain_size;     /* power of two */
    uint32_t log2_domain;
    uint64_t n_coef;          /* entries of section 4 */
    uint64_t alpha1[ZK_G1_MAX_BYTES / 8];
    uint64_t beta1[ZK_G1_MAX_BYTES / 8];
    uint64_t beta2[ZK_G2_MAX_BYTES / 8];
    uint64_t gamma2[ZK_G2_MAX_BYTES / 8];
    uint64_t delta1[ZK_G1_MAX_BYTES / 8];
    uint64_t delta2[ZK_G2_MAX_BYTES / 8];
};

/* An opened zkey. */
struct zk_zkey {
    struct zk_binfile bf;
    struct zk_zkey_header hdr;
    struct zk_binsec sec[11];  /* sec[id] for ids 1..9 after open; sec[10] if present */
};

/* One coefficient entry of section 4, unpacked and aligned. */
struct zk_zkey_coef {
    uint32_t matrix;          /* 0 = A, 1 = B */
    uint32_t constraint;      /* row, < domain_size */
    uint32_t signal;          /* witness index, < n_vars */
    uint32_t pad;
    uint64_t value[4];        /* coef * R^2 mod r, LE limbs, canonical (< r) */
};

/*
 * Open and validate the zkey at `path`.  On success *z is ready and must be
 * released with zk_zkey_done().  Errors: -errno, ZK_ETRUNCATED,
 * ZK_EBADMAGIC, ZK_EVERSION, ZK_ESECTION_MISSING, ZK_ESECTION_DUP,
 * ZK_ESECTION_SIZE, ZK_EPROTOCOL (not Groth16), ZK_ECURVE (unknown or
 * mismatched q/r), ZK_EFORMAT (bad nVars/nPublic/domainSize), ZK_EDOMAIN
 * (domainSize >= 2^28 on BN254, 2^32 on BLS12-381: not supported),
 * ZK_ENOT_CANONICAL, ZK_EBAD_ENCODING, ZK_ENOT_ON_CURVE, ZK_ENOT_IN_GROUP
 * (header points),
 * -ENOMEM.  On failure *z is left closed and diag (if not NULL) holds one
 * line naming the file and the problem.
 */
int zk_zkey_open(struct zk_zkey *z, const char *path, struct zk_diag *diag);

/* Same over a memory buffer that must outlive *z; `name` is for diag. */
int zk_zkey_open_mem(struct zk_zkey *z, const void *buf, size_t len, const char *name,
                     struct zk_diag *diag);

/* Release; accepts a zeroed or closed struct. */
void zk_zkey_done(struct zk_zkey *z);

/*
 * Validate the six header points of `h` (coordinates canonical, on the
 * curve, in the prime-order subgroup; infinity is rejected for all six with
 * ZK_EBAD_ENCODING).  Returns 0, ZK_ENOT_CANONICAL, ZK_EBAD_ENCODING,
 * ZK_ENOT_ON_CURVE or ZK_ENOT_IN_GROUP and
 * names the point in diag (prefixed with `name`).  Called by zk_zkey_open().
 */
int zk_zkey_check_header_points(const struct zk_zkey_header *h, const char *name,
                                struct zk_diag *diag);

/*
 * Number of points in point section `id` (3, 5, 6, 7, 8 or 9) and the
 * bytes per point; 0 for other ids.
 */
uint64_t zk_zkey_section_points(const struct zk_zkey *z, enum zk_zkey_section id,
                                size_t *ret_point_bytes);

/*
 * Copy points [first, first + count) of point section `id` (3, 5-9) into
 * dst, which holds count * point_bytes bytes (any alignment; 8-byte aligned
 * if it is to be used as curves.h types).  Bytes are copied as stored, no
 * validation.  Reads go in large chunks straight into dst.  Errors:
 * ZK_EBADPARAMS (bad id), ZK_ESECTION_SIZE (range outside the section),
 * -errno / ZK_ETRUNCATED on I/O failure.
 */
int zk_zkey_read_points(const struct zk_zkey *z, enum zk_zkey_section id, uint64_t first,
                        uint64_t count, void *dst, struct zk_diag *diag);

/*
 * Unpack coefficient entries [first, first + count) of section 4 into dst
 * (count elements), checking each: matrix 0 or 1, constraint <
 * domain_size, signal < n_vars, value < r.  Errors: ZK_EFORMAT (bad
 * matrix/constraint/signal), ZK_ENOT_CANONICAL, ZK_ESECTION_SIZE (range
 * outside the section), -errno / ZK_ETRUNCATED.  dst contents are
 * unspecified on failure.  Reads go through a buffer on the stack.
 */
int zk_zkey_read_coefs(const struct zk_zkey *z, uint64_t first, uint64_t count,
                       struct zk_zkey_coef *dst, struct zk_diag *diag);

#ifdef __cplusplus
}
#endif
#endif /* ZK_COMMON_ZKEY_H */
